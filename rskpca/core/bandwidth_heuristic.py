"""Choosing the kernel bandwidth sigma: the median heuristic, and resolving ``sigma="median"``.

Every estimator's ``sigma_`` and ``shadow_centers`` go through :func:`resolve_sigma`, so a
given ``random_state`` picks the same subsample, hence the same sigma, everywhere.
(The bundled samples' tuned default bandwidths are :mod:`rskpca.data.bandwidth`'s.)
"""

from __future__ import annotations

import numpy as np
from sklearn.utils import check_random_state

from rskpca.core.row_draws import uniform_rows
from rskpca.core.validation import check_positive
from rskpca.core.radial_kernels import squared_distances

__all__ = ["median_heuristic", "resolve_sigma"]


def median_heuristic(X, *, max_samples: int = 1000, random_state=0) -> float:
    """Median pairwise Euclidean distance on a seeded subsample of at most ``max_samples`` rows.

    Zero distances (duplicate rows) are skipped; constant data, where every
    distance is zero, gets ``sigma = 1.0`` (any sigma gives one shadow center).

    >>> import numpy as np
    >>> round(median_heuristic(np.array([[0.0], [1.0], [3.0]])), 6)
    2.0
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
    return float(np.median(d))


def resolve_sigma(sigma, X, random_state=None) -> float:
    """The bandwidth actually used: the positive number given, or ``"median"``'s heuristic.

    ``"median"`` runs :func:`median_heuristic` on a subsample seeded by one draw from
    ``random_state``, as every estimator's ``sigma_`` and ``shadow_centers`` do.

    >>> import numpy as np
    >>> resolve_sigma("median", np.array([[0.0], [1.0], [3.0]]), 0)
    2.0
    """
    if isinstance(sigma, str):
        if sigma != "median":
            raise ValueError(f'sigma must be a positive number or "median"; got {sigma!r}.')
        seed = check_random_state(random_state).randint(2**31 - 1)
        value = median_heuristic(X, random_state=seed)
        if not (np.isfinite(value) and value > 0):
            raise ValueError(
                f'sigma="median" gave {value!r}: the distances between rows overflow or underflow '
                "float64. Standardize X (sklearn.preprocessing.StandardScaler) or give sigma as a number."
            )
        return value
    return check_positive(sigma, "sigma")
