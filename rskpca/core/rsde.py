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
"""

from __future__ import annotations

import numpy as np
from sklearn.cluster import KMeans
from sklearn.utils import check_random_state

from rskpca.core.radial_kernels import kernel_matrix, kernel_row_means

__all__ = ["kmeans_rsde", "uniform_rsde", "herding_rsde", "RSDE_ESTIMATORS", "HERDING_MAX_CANDIDATES"]

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
    idx = np.sort(check_random_state(random_state).choice(n, size=m, replace=False))
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
    rows = np.arange(n) if n <= max_candidates else np.sort(rng.choice(n, max_candidates, replace=False))
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

