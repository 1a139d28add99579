"""Reduced-set density estimators with a given number of centers m (Section 6, Figures 7-8).

Each returns ``(centers, weights)`` with ``weights.sum() == n``, so that
``(1/n) sum_j w_j k(c_j, x)`` estimates the KDE of the data, as the shadow
density estimate does. They are the alternatives the paper plugs into
Algorithm 1 in place of the shadow:

* ``kmeans_rsde``: k-means centers weighted by cluster size (as in the
  density-weighted Nystrom method of Zhang & Kwok, 2010). O(n m d) per iteration.
* ``uniform_rsde``: KDE paring (Freedman & Kisilev, 2010) in its O(m) form:
  m points drawn uniformly without replacement, each standing for n/m points.
* ``herding_rsde``: kernel herding (Chen, Welling & Smola, 2010): greedy
  super-samples of the KDE, each standing for n/m points. O(n^2 d) for the KDE
  at every candidate, so large inputs are herded on a stated subsample.

The densities themselves: :func:`kde` (eq. 8, every point), :func:`reduced_set_density`
(eq. 16: the ShDE with the shadow's centers and weights, or any estimator's above), and
:func:`row_masses`, the same densities as masses on the rows of X, for a caller that keeps
``k(P, X)`` and evaluates many of them with one product.
"""

from __future__ import annotations

import numpy as np
from sklearn.cluster import KMeans
from sklearn.utils import check_random_state

from rskpca.core.row_draws import rows_within, uniform_rows
from rskpca.core.block_sizes import PROJECTION_BLOCK_ELEMENTS
from rskpca.core.radial_kernels import get_kernel, kernel_matrix, kernel_matvec, kernel_row_means

__all__ = ["kmeans_rsde", "uniform_rsde", "herding_rsde", "RSDE_ESTIMATORS", "HERDING_MAX_CANDIDATES", "kde",
           "reduced_set_density", "row_masses"]

#: The reduced-set density estimators ``ReducedSetKPCA(rsde=...)`` accepts: the shadow
#: (Algorithm 2, in :mod:`rskpca.core.shadow`) and the three of this module.
RSDE_ESTIMATORS = ("shadow", "kmeans", "uniform", "herding")

#: Kernel herding evaluates the KDE at every candidate (O(n^2 d)); above this
#: many rows it herds from a uniform subsample of this size (the KDE it targets
#: is still that of all n points).
HERDING_MAX_CANDIDATES = 5000


def _check_m(m, n: int) -> int:
    if isinstance(m, bool) or not isinstance(m, (int, np.integer)) or m < 1:
        raise ValueError(f"m (the number of centers) must be a positive integer; got {m!r}.")
    if m > n:
        raise ValueError(f"m={m} centers requested but the data has only n={n} rows; use m <= n.")
    return int(m)


def kmeans_rsde(X, m: int, *, random_state=None, max_iter: int = 100):
    """k-means centers with cluster sizes as weights (empty clusters dropped).

    >>> import numpy as np
    >>> C, w = kmeans_rsde(np.r_[np.zeros((3, 1)), np.ones((2, 1))], 2, random_state=0)
    >>> sorted(w.tolist())
    [2.0, 3.0]
    """
    X = np.asarray(X, dtype=np.float64)
    m = _check_m(m, X.shape[0])
    n_distinct = np.unique(X, axis=0).shape[0] if X.shape[0] <= 20000 else m
    km = KMeans(n_clusters=min(m, n_distinct), n_init=1, max_iter=max_iter,
                random_state=check_random_state(random_state).randint(2**31 - 1))
    labels = km.fit_predict(X)
    counts = np.bincount(labels, minlength=km.n_clusters).astype(np.float64)
    keep = counts > 0
    return km.cluster_centers_[keep], counts[keep]


def uniform_rsde(X, m: int, *, random_state=None, return_indices: bool = False):
    """m rows drawn uniformly without replacement, weight n/m each (KDE paring).

    With ``return_indices`` also the rows of X used, ``(centers, weights, indices)``.

    >>> import numpy as np
    >>> C, w, idx = uniform_rsde(np.arange(10.0).reshape(5, 2), 2, random_state=0, return_indices=True)
    >>> w.tolist(), bool(np.array_equal(C, np.arange(10.0).reshape(5, 2)[idx]))
    ([2.5, 2.5], True)
    """
    X = np.asarray(X, dtype=np.float64)
    n = X.shape[0]
    m = _check_m(m, n)
    idx = uniform_rows(n, m, random_state)
    if return_indices:
        return X[idx].copy(), np.full(m, n / m), idx
    return X[idx].copy(), np.full(m, n / m)


def herding_rsde(X, m: int, *, sigma: float, kernel: str = "gaussian", random_state=None,
                 max_candidates: int = HERDING_MAX_CANDIDATES, return_indices: bool = False):
    """Kernel herding: m greedy super-samples of the KDE, merged where repeated.

    Step t picks the candidate x maximising
    ``KDE(x) - (1 / (t + 1)) sum_{s <= t} k(x, x_s)`` (Chen et al., 2010, eq. 4
    with the empirical mean embedding). A point picked twice keeps one copy with
    the summed weight. With ``return_indices`` also the rows of X used,
    ``(centers, weights, indices)``.
    """
    X = np.asarray(X, dtype=np.float64)
    n = X.shape[0]
    m = _check_m(m, n)
    rng = check_random_state(random_state)
    rows = rows_within(n, max_candidates, rng)
    cand = X[rows]
    mean_embedding = kernel_row_means(cand, X, sigma=sigma, kernel=kernel)
    running = np.zeros(cand.shape[0])
    picks = np.empty(m, dtype=np.intp)
    for t in range(m):
        score = mean_embedding - running / (t + 1)
        j = int(np.argmax(score))
        picks[t] = j
        running += kernel_matrix(cand, cand[j:j + 1], sigma=sigma, kernel=kernel)[:, 0]
    uniq, counts = np.unique(picks, return_counts=True)
    if return_indices:
        return cand[uniq].copy(), counts * (n / m), rows[uniq]
    return cand[uniq].copy(), counts * (n / m)



def kde(P, X, *, sigma: float, kernel: str = "gaussian", dtype=np.float64) -> np.ndarray:
    """The kernel density estimate of the rows of X at the points P (eq. 8 of Kingravi et al., 2013).

    ``p(x) = (1/n) sum_i k(x, x_i)``, unnormalised (the kernel's own integral is not divided out,
    as in the paper), evaluated in blocks without an n x len(P) matrix.

    Parameters
    ----------
    P : array-like of shape (n_points, n_features)
        Where to evaluate.
    X : array-like of shape (n_samples, n_features)
        The data.
    sigma : float
        The bandwidth.
    kernel : str, default="gaussian"
        ``"gaussian"`` or ``"laplacian"``.
    dtype : {np.float64, np.float32}, default=np.float64
        ``np.float32``: with the Gaussian kernel and many rows per point, the kernel values are
        computed in float32 blocks (:func:`~rskpca.core.radial_kernels.kernel_matvec`, each
        within float32 rounding of its float64 value), about 3x faster at 500 points against a
        million rows (``python tests/benchmarks/bench_kde_float32.py``): for a density that is
        drawn. Otherwise float64.

    Returns
    -------
    ndarray of shape (n_points,)

    Examples
    --------
    >>> import numpy as np
    >>> kde(np.array([[0.0]]), np.array([[0.0], [1.0]]), sigma=1.0).round(4).tolist()  # (1 + e^-1) / 2
    [0.6839]
    """
    P = np.asarray(P, dtype=np.float64)
    X = np.asarray(X, dtype=np.float64)
    if X.shape[0] <= _MANY_ROWS_PER_POINT * max(P.shape[0], 1):
        return kernel_row_means(P, X, sigma=sigma, kernel=kernel)
    if dtype == np.float32 and get_kernel(kernel).p == 2:
        # Blocks of points against every row, on the threads: a few points a block, so each GEMM reads
        # the rows once for several points (one point at a time reads them once per point).
        weights = np.full(X.shape[0], 1.0 / X.shape[0])
        return kernel_matvec(P, X, weights, sigma=sigma, kernel=kernel, dtype=np.float32,
                             block_elements=_FLOAT32_POINTS_PER_BLOCK * X.shape[0])
    # Few points against many rows (the app's 500 points against a million rows): blocks of rows, each a
    # GEMM-shaped kernel block against every point, summed; rather than one point at a time against all
    # the rows, which reads every row once per point (two to three times slower at 500 x 1,000,000).
    total = np.zeros(P.shape[0])
    step = max(1, PROJECTION_BLOCK_ELEMENTS // max(P.shape[0], 1))
    for start in range(0, X.shape[0], step):
        total += kernel_matrix(X[start:start + step], P, sigma=sigma, kernel=kernel).sum(axis=0)
    return total / X.shape[0]


#: :func:`kde` sums over blocks of rows when the data have more than this many rows per point.
_MANY_ROWS_PER_POINT = 64
#: Points a float32 kernel block of :func:`kde` holds against every row (64 MB a block at a million rows).
_FLOAT32_POINTS_PER_BLOCK = 16


def reduced_set_density(P, centers, weights, *, sigma: float, kernel: str = "gaussian") -> np.ndarray:
    """A reduced-set density estimate at the points P: ``sum_j (w_j / sum(w)) k(x, c_j)``.

    With the shadow's centers and weights (which sum to n) this is the shadow density estimate,
    eq. (16) of Kingravi et al. (2013): ``p~(x) = (1/n) sum_j w_j k(x, c_j)``, the KDE with each
    point's mass moved to its center. The estimators of this module give the others.

    Parameters
    ----------
    P : array-like of shape (n_points, n_features)
        Where to evaluate.
    centers : array-like of shape (m, n_features)
        The reduced set.
    weights : array-like of shape (m,)
        The points each center stands for.
    sigma : float
        The bandwidth.
    kernel : str, default="gaussian"
        ``"gaussian"`` or ``"laplacian"``.

    Returns
    -------
    ndarray of shape (n_points,)

    Examples
    --------
    >>> import numpy as np
    >>> from rskpca.core.shadow import shadow_centers
    >>> X = np.array([[0.0], [0.1], [3.0]])
    >>> s = shadow_centers(X, sigma=1.0, ell=2.0)  # eps = 0.5: rows 0 and 1 share a center
    >>> s.weights.tolist()
    [2, 1]
    >>> P = np.array([[0.0], [1.0]])
    >>> bool(np.allclose(reduced_set_density(P, s.centers, s.weights, sigma=1.0),
    ...                  (2 * np.exp(-P[:, 0] ** 2) + np.exp(-(P[:, 0] - 3) ** 2)) / 3))
    True
    """
    return kernel_row_means(P, centers, sigma=sigma, kernel=kernel, weights=weights)


def row_masses(n: int, center_indices=None, weights=None) -> np.ndarray:
    """A density over the n rows of X as a mass per row, so that ``k(P, X) @ row_masses(...)`` evaluates it.

    Without centers each row has mass ``1/n``: the KDE (:func:`kde`). With the rows of X that are
    centers and their weights, each center has ``w_j / sum(w)`` and the other rows 0: the
    reduced-set density (:func:`reduced_set_density`; the ShDE for the shadow's). A caller that
    keeps ``k(P, X)`` then evaluates the KDE and the ShDE at every ell with one product each.

    Parameters
    ----------
    n : int
        Rows of X.
    center_indices : array-like of shape (m,), optional
        The rows of X that are centers (the shadow's ``center_indices``).
    weights : array-like of shape (m,), optional
        Their weights; required with ``center_indices``.

    Returns
    -------
    ndarray of shape (n,)
        Non-negative masses summing to 1.

    Examples
    --------
    >>> row_masses(4).tolist()
    [0.25, 0.25, 0.25, 0.25]
    >>> row_masses(4, [0, 3], [3, 1]).tolist()
    [0.75, 0.0, 0.0, 0.25]
    """
    if center_indices is None:
        return np.full(int(n), 1.0 / n)
    weights = np.asarray(weights, dtype=np.float64)
    mass = np.zeros(int(n))
    mass[np.asarray(center_indices)] = weights / np.sum(weights)
    return mass
