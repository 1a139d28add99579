"""The paper's error bounds (Theorems 5.1-5.4): closed form, data-dependent and measured.

Layer 4 of 6 (beside ``distributed``): imports ``rskpca.core`` only.
"""

from rskpca.bounds._closed_form import BoundValue, THEOREMS, apriori_bounds  # noqa: F401
from rskpca.bounds._theorems import (  # noqa: F401
    theorem_bounds,
    mmd_bound,
    eigenvalue_bound,
    hs_bound,
    projection_bound,
    eigengap,
)
from rskpca.bounds._tables import bounds_table, rows_statement  # noqa: F401
from rskpca.bounds._over_ell import (  # noqa: F401
    APRIORI_ELL_STEP,
    MEASURED_OVER_ELL_MAX_ROWS,
    apriori_ell_grid,
    apriori_rows,
    measured_over_ell_rows,
)

__all__ = ["BoundValue", "THEOREMS", "theorem_bounds", "mmd_bound", "eigenvalue_bound", "hs_bound", "projection_bound", "bounds_table", "apriori_bounds", "eigengap",
           "rows_statement",
           "APRIORI_ELL_STEP", "MEASURED_OVER_ELL_MAX_ROWS", "apriori_ell_grid", "apriori_rows",
           "measured_over_ell_rows"]
