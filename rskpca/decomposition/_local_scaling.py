"""Self-tuning local scaling on weighted centers (Zelnik-Manor & Perona 2004).

``A_ij = exp(-||c_i - c_j||^2 / (s_i s_j))`` with ``s_i`` the distance from ``c_i`` to its K-th
nearest center *at a positive distance*. Zelnik-Manor & Perona take the K-th nearest neighbour
(K = 7 in their paper); counting only positive distances makes the scale of a center the same
whether it is met as a center, as a new row on top of it, or as one of its ``w`` copies in the
quantized data ``np.repeat(C, w)``, where a copy's nearest "neighbours" would otherwise be its
own duplicates at distance 0. So the weighted m x m problem on ``A`` is exactly the dense one on
the quantized data with the same rule (see the tests), as the global Gaussian's is.

New rows: ``s(x)`` by the same rule, and ``P(x, c_j)`` through the same diffusion formula as the
Gaussian, always evaluated in log space (a softmax), so a row far from every center gets its
nearest centers' coordinates instead of 0 / 0.
"""

from __future__ import annotations

import numpy as np
from sklearn.metrics._pairwise_distances_reduction import ArgKmin

from rskpca.core.log_space import row_softmax
from rskpca.core.block_sizes import PROJECTION_BLOCK_ELEMENTS
from rskpca.core.radial_kernels import squared_distances

__all__ = ["local_scales", "local_scaling_matrix", "local_scaling_transform"]


def local_scales(X, C, n_neighbors: int) -> np.ndarray:
    """Distance from each row of X to its ``n_neighbors``-th nearest center at a positive distance.

    A row with fewer such centers gets the farthest one's distance; a row with none (all
    centers on top of it) gets 1.

    >>> import numpy as np
    >>> C = np.array([[0.0], [1.0], [3.0]])
    >>> local_scales(C, C, 1).tolist(), local_scales(C, C, 2).tolist()
    ([1.0, 1.0, 2.0], [3.0, 2.0, 3.0])
    """
    X = np.ascontiguousarray(X, dtype=np.float64)
    C = np.ascontiguousarray(C, dtype=np.float64)
    K = int(n_neighbors)
    # A row can sit on several equal centers only where centers repeat; K + duplicates is enough,
    # and n_dup <= m keeps the call valid.
    extra = 1 + int(C.shape[0] - np.unique(C, axis=0).shape[0])
    k = min(C.shape[0], K + extra)
    idx = ArgKmin.compute(X, C, k=k, metric="sqeuclidean", chunk_size=256, return_distance=False,
                          strategy="auto")
    diff = X[:, None, :] - C[idx]
    dist = np.sort(np.sqrt(np.einsum("ikd,ikd->ik", diff, diff)), axis=1)
    positive = dist > 0
    count = np.cumsum(positive, axis=1)
    # the first column where K positive distances have been seen, else the last
    at = np.where(count[:, -1] >= K, np.argmax(count >= K, axis=1), k - 1)
    s = dist[np.arange(dist.shape[0]), at]
    return np.where(s > 0, s, 1.0)


def local_scaling_matrix(C, scales) -> np.ndarray:
    """The m x m ``exp(-||c_i - c_j||^2 / (s_i s_j))`` (diagonal 1)."""
    C = np.asarray(C, dtype=np.float64)
    D = squared_distances(C, C)
    np.maximum(D, 0.0, out=D)
    np.fill_diagonal(D, 0.0)
    D /= np.outer(scales, scales)
    return np.exp(-D, out=D)


def local_scaling_transform(X, C, scales, A, b, *, n_neighbors: int) -> np.ndarray:
    """``sum_j P(x, c_j) (A / b)_j`` with ``P(x, .) = softmax(-||x - c||^2 / (s(x) s) + log b)``.

    ``A`` and ``b`` as :func:`~rskpca.decomposition._diffusion.diffusion_coefficients` returns them.
    """
    X = np.asarray(X, dtype=np.float64)
    C = np.asarray(C, dtype=np.float64)
    sx = local_scales(X, C, n_neighbors)
    log_b = np.log(b)
    coef = A / b[:, None]
    out = np.empty((X.shape[0], A.shape[1]))
    step = max(1, PROJECTION_BLOCK_ELEMENTS // max(1, C.shape[0]))
    for start in range(0, X.shape[0], step):
        rows = slice(start, start + step)
        D = squared_distances(X[rows], C)
        np.maximum(D, 0.0, out=D)
        out[rows] = row_softmax(log_b[None, :] - D / np.outer(sx[rows], scales)) @ coef
    return out
