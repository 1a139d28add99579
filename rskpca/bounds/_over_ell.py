"""The bounds over ell: the grid the closed-form curves are drawn on, their rows, and the row cap of
the measured curves.

The closed-form (a-priori) bounds need no data, so their curves take a fine grid of ell; the
a-posteriori and measured values cost a shadow and O(s^3) spectra per ell, so their curves are
measured on fewer rows than the bounds at a single ell.
"""

from __future__ import annotations

import numpy as np

from rskpca.bounds._closed_form import apriori_bounds
from rskpca.core.validation import check_positive

__all__ = ["APRIORI_ELL_STEP", "MEASURED_OVER_ELL_MAX_ROWS", "apriori_ell_grid", "apriori_rows",
           "measured_over_ell_rows"]

#: The closed-form curves over ell take a point every this much ell (free: no data is read).
APRIORI_ELL_STEP = 0.25
#: The measured (and a-posteriori) curves over ell use at most this many rows per ell: each ell
#: costs a shadow and the O(s^3) spectra of Theorems 5.2-5.4 on s rows, and a curve has up to 19
#: ells, so the row cap of a single ell (up to 4,000 rows) is lowered for them.
MEASURED_OVER_ELL_MAX_ROWS = 500

#: The closed-form theorems a curve over ell shows (5.4 also needs the data's eigengap).
_APRIORI_THEOREMS = ("5.1", "5.2", "5.3")


def apriori_ell_grid(low: float, high: float, step: float = APRIORI_ELL_STEP) -> np.ndarray:
    """ell from ``low`` to ``high`` (both included when ``high - low`` is a multiple of ``step``), every ``step``.

    Parameters
    ----------
    low, high : float
        The range of ell.
    step : float, default=APRIORI_ELL_STEP
        The spacing.

    Returns
    -------
    ndarray
        The values, rounded to 2 decimals.

    Examples
    --------
    >>> apriori_ell_grid(1.0, 2.0).tolist()
    [1.0, 1.25, 1.5, 1.75, 2.0]
    >>> apriori_ell_grid(1.0, 10.0).size
    37
    """
    low, high, step = check_positive(low, "low"), check_positive(high, "high"), check_positive(step, "step")
    if high < low:
        raise ValueError(f"Need low <= high; got low={low}, high={high}.")
    count = int(np.floor((high - low) / step + 1e-9)) + 1
    return np.round(low + step * np.arange(count), 2)


def apriori_rows(ells, sigma: float, kernel: str = "gaussian") -> list[dict]:
    """The closed-form bounds of Theorems 5.1-5.3 over ell, as table rows (no data needed, instant).

    Parameters
    ----------
    ells : array-like of float
        The values of ell (:func:`apriori_ell_grid`).
    sigma : float
        The bandwidth.
    kernel : str, default="gaussian"
        ``"gaussian"`` or ``"laplacian"``.

    Returns
    -------
    list of dict
        One row per theorem and ell: ``ell``, ``theorem``, ``a_priori``, and ``a_posteriori`` and
        ``measured`` as None (they need the data), theorem by theorem.

    Examples
    --------
    >>> rows = apriori_rows([2.0, 4.0], sigma=1.0)
    >>> [(r["theorem"], r["ell"]) for r in rows][:3], len(rows)
    ([('5.1', 2.0), ('5.1', 4.0), ('5.2', 2.0)], 6)
    """
    ells = np.asarray(ells, dtype=np.float64)
    values = apriori_bounds(ells, sigma, kernel)
    return [{"ell": float(e), "theorem": th, "a_priori": float(np.asarray(values[th])[i]), "a_posteriori": None,
             "measured": None} for th in _APRIORI_THEOREMS for i, e in enumerate(ells)]


def measured_over_ell_rows(max_exact: int) -> int:
    """The rows the measured curves over ell use: ``max_exact``, at most :data:`MEASURED_OVER_ELL_MAX_ROWS`.

    >>> measured_over_ell_rows(4000), measured_over_ell_rows(250)
    (500, 250)
    """
    return min(int(max_exact), MEASURED_OVER_ELL_MAX_ROWS)
