"""Choosing the kernel bandwidth sigma: the median heuristic, and resolving ``sigma="median"``.

One median for a data set, wherever it is asked for: every estimator's ``sigma_`` and
``shadow_centers`` go through :func:`resolve_sigma`, which calls :func:`median_heuristic` with its
fixed seed, and so do the app's sidebar and ``rskpca cluster`` / ``rskpca embed`` (through the
estimators). The median is a property of the rows alone: neither an estimator's ``random_state``
nor the tool asking changes it. It is rounded to 4 significant digits, well inside the subsample's
own spread (about 1 % between seeds), so the value every tool prints is the value used: typing it
back (``sigma=12.61``, a link's ``sigma=``) gives the same fit.
(The bundled samples' tuned default bandwidths are :mod:`rskpca.data.bandwidth`'s.)
"""

from __future__ import annotations

import numpy as np

from rskpca.core.row_draws import uniform_rows
from rskpca.core.validation import check_positive
from rskpca.core.radial_kernels import squared_distances

__all__ = ["median_heuristic", "resolve_sigma", "SIGNIFICANT_DIGITS"]

#: The median heuristic's value is rounded to this many significant digits (see the module's docstring).
SIGNIFICANT_DIGITS = 4


def median_heuristic(X, *, max_samples: int = 1000, random_state=0) -> float:
    """Median pairwise Euclidean distance on a seeded subsample of at most ``max_samples`` rows.

    Zero distances (duplicate rows) are skipped; constant data, where every
    distance is zero, gets ``sigma = 1.0`` (any sigma gives one shadow center).
    The result is rounded to :data:`SIGNIFICANT_DIGITS` significant digits.

    >>> import numpy as np
    >>> median_heuristic(np.array([[0.0], [1.0], [3.0]]))
    2.0
    >>> median_heuristic(np.array([[0.0], [1.0], [3.0]]) / 3)
    0.6667
    """
    if not hasattr(X, "shape"):
        X = np.asarray(X, dtype=np.float64)
    n = X.shape[0]
    if n > max_samples:  # index before converting: a lazy (dask) X only reads the sampled rows
        rng = np.random.default_rng(random_state)
        X = X[uniform_rows(n, max_samples, rng)]
    X = np.asarray(X, dtype=np.float64)
    D2 = squared_distances(X, X)
    iu = np.triu_indices(X.shape[0], k=1)
    d = np.sqrt(D2[iu])
    d = d[d > 1e-12 * max(1.0, float(np.max(d, initial=0.0)))]
    if d.size == 0:
        return 1.0
    return float(f"{np.median(d):.{SIGNIFICANT_DIGITS}g}")


def resolve_sigma(sigma, X) -> float:
    """The bandwidth actually used: the positive number given, or ``"median"``'s heuristic.

    ``"median"`` is :func:`median_heuristic` at its defaults (the same subsample of X for every
    estimator and every tool).

    >>> import numpy as np
    >>> resolve_sigma("median", np.array([[0.0], [1.0], [3.0]]))
    2.0
    """
    if isinstance(sigma, str):
        if sigma != "median":
            raise ValueError(f'sigma must be a positive number or "median"; got {sigma!r}.')
        value = median_heuristic(X)
        if not (np.isfinite(value) and value > 0):
            raise ValueError(
                f'sigma="median" gave {value!r}: the distances between rows overflow or underflow '
                "float64. Standardize X (sklearn.preprocessing.StandardScaler) or give sigma as a number."
            )
        return value
    return check_positive(sigma, "sigma")
