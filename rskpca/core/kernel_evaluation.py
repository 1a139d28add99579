"""Blocked, threaded evaluation of kernel matrices and kernel-matrix products.

Pairwise evaluation goes through BLAS as ``||x||^2 + ||y||^2 - 2 x.y`` in row blocks, so no
more than ``block_size`` kernel values are held at once unless the caller asks for the whole
matrix: :func:`kernel_matrix` builds the whole matrix, :func:`kernel_matvec` multiplies
``K(X, Y)`` by vectors without it, :func:`kernel_row_means` gives the KDE and ShDE.
The Gaussian takes its fused fast path wherever :mod:`rskpca.core.kernel_rounding`'s bound on
its rounding error allows; the row blocks run on threads (:func:`~rskpca.core.threads.map_row_blocks`).
"""

from __future__ import annotations

import numpy as np

from rskpca.core.threads import map_row_blocks
from rskpca.core.block_sizes import CACHE_BLOCK_ELEMENTS, PROJECTION_BLOCK_ELEMENTS, _row_block
from rskpca.core.distances import refine_near_pairs, squared_distances
from rskpca.core.kernel_rounding import FUSED_MAX_RELATIVE_ERROR, _fused_gaussian_dtype, gaussian_relative_error
from rskpca.core.radial_kernels import get_kernel

__all__ = ["kernel_matrix", "kernel_matvec", "kernel_row_means"]


def kernel_matrix(X, Y=None, *, sigma: float, kernel="gaussian", dtype=np.float64) -> np.ndarray:
    """The full kernel matrix ``K[i, j] = k(X[i], Y[j])`` (``Y = X`` if omitted).

    Allocates ``len(X) * len(Y)`` values: meant for the small m x m and m x n_new
    matrices of the reduced-set methods, or for exact KPCA when asked for.

    >>> import numpy as np
    >>> K = kernel_matrix(np.array([[0.0], [1.0]]), sigma=1.0)
    >>> np.round(K, 4).tolist()
    [[1.0, 0.3679], [0.3679, 1.0]]
    """
    k = get_kernel(kernel)
    X = np.asarray(X, dtype=dtype)
    same = Y is None
    Y = X if same else np.asarray(Y, dtype=dtype)
    X_sq = np.einsum("ij,ij->i", X, X)
    Y_sq = X_sq if same else np.einsum("ij,ij->i", Y, Y)
    K = np.empty((X.shape[0], Y.shape[0]), dtype=dtype)
    # Row blocks small enough to stay in cache while the elementwise passes run:
    # several times faster than whole-matrix passes once the matrix exceeds memory caches.
    step = _row_block(Y.shape[0], CACHE_BLOCK_ELEMENTS)
    # Near pairs' rounding matters to the Laplacian always, to the Gaussian once sigma is
    # tiny against the data (then ||x||^2 u / sigma^2 is no longer small).
    refine = k.p == 1 or gaussian_relative_error(X, sigma, dtype=dtype, others=Y) > FUSED_MAX_RELATIVE_ERROR

    def block(start):
        stop = min(X.shape[0], start + step)
        Kb = K[start:stop]
        squared_distances(X[start:stop], Y, X_sq=X_sq[start:stop], Y_sq=Y_sq, out=Kb)
        if refine:
            refine_near_pairs(Kb, X[start:stop], Y, X_sq[start:stop], Y_sq)
        if same:  # exact zeros on the diagonal despite rounding
            idx = np.arange(start, stop)
            Kb[idx - start, idx] = 0.0
        k.from_squared_distances(Kb, sigma, out=Kb)

    map_row_blocks(block, range(0, X.shape[0], step))  # the elementwise passes on every core
    return K


def kernel_matvec(X, Y, V, *, sigma: float, kernel="gaussian", squared=False,
                  block_elements: int = PROJECTION_BLOCK_ELEMENTS, dtype=np.float64) -> np.ndarray:
    """``K(X, Y) @ V`` (or ``(K(X, Y) ** 2) @ V`` if ``squared``) without the whole matrix.

    Rows of X are processed in blocks holding at most ``block_elements`` kernel
    values, so memory stays bounded for n x n products (KDE at every point, the
    measured MMD and Hilbert-Schmidt norms).

    ``dtype=np.float32`` (Gaussian only) computes the kernel blocks in float32: each value
    is then within ``float32_relative_error(Y, sigma)`` of its float64 value, relative
    (with the distances taken from Y's mean); the product with V accumulates in float32
    and the result is returned in float64.
    """
    k = get_kernel(kernel)
    X = np.asarray(X, dtype=np.float64)
    Y = np.asarray(Y, dtype=np.float64)
    V = np.asarray(V, dtype=np.float64)
    vec = V.ndim == 1
    V2 = V[:, None] if vec else V
    out = np.empty((X.shape[0], V2.shape[1]))
    step = _row_block(Y.shape[0], block_elements)
    if k.p != 2 and dtype != np.float64:
        raise ValueError("float32 kernel blocks are only offered for the Gaussian kernel.")
    power = 2.0 if squared else 1.0
    fused = _fused_gaussian_dtype(Y, X, sigma / np.sqrt(power), dtype) if k.p == 2 else None
    if fused is not None:
        dtype = fused
        # Gaussian, fused: exp(power * (2 x.y - |y|^2 - |x|^2) / sigma^2) with the |y|^2 term
        # folded into the GEMM (one extra column) and |x|^2 added in the same pass as the
        # scaling: one GEMM, one add and one exp per block instead of six elementwise
        # passes. Coordinates are shifted to Y's mean (the kernel is translation
        # invariant) to keep the cancellation error small.
        # (No clip at 0: a rounded exponent just above 0 gives k = 1 + O(rounding), which
        # is the error of the clipped value too; where the rounding could be larger,
        # _fused_gaussian_dtype sends the blocks down the exact path below.)
        shift = Y.mean(axis=0) if Y.shape[0] else np.zeros(Y.shape[1])
        Ys = Y - shift
        scale = power / sigma**2
        Ya = np.empty((Ys.shape[0], Ys.shape[1] + 1), dtype=dtype)
        Ya[:, :-1] = Ys * (2.0 * scale)
        Ya[:, -1] = -scale * np.einsum("ij,ij->i", Ys, Ys)
        Vd = V2.astype(dtype, copy=False)

        def block(start):
            Xb = X[start:start + step] - shift
            Xa = np.empty((Xb.shape[0], Xb.shape[1] + 1), dtype=dtype)
            Xa[:, :-1] = Xb
            Xa[:, -1] = 1.0
            Kb = Xa @ Ya.T
            Kb -= (scale * np.einsum("ij,ij->i", Xb, Xb)).astype(dtype)[:, None]
            np.exp(Kb, out=Kb)
            out[start:start + step] = Kb @ Vd

        # The exp is as long as the GEMM and numpy runs it on one core: blocks go to threads.
        map_row_blocks(block, range(0, X.shape[0], step))
        return out[:, 0] if vec else out
    # The Laplacian, and the Gaussian where sigma is tiny against the data: distances
    # clipped at 0 and near pairs recomputed from their differences, so every value is in
    # [0, 1] and within rounding of exact at any sigma.
    Y_sq = np.einsum("ij,ij->i", Y, Y)
    for start in range(0, X.shape[0], step):
        Xb = X[start:start + step]
        Xb_sq = np.einsum("ij,ij->i", Xb, Xb)
        Kb = squared_distances(Xb, Y, X_sq=Xb_sq, Y_sq=Y_sq)
        refine_near_pairs(Kb, Xb, Y, Xb_sq, Y_sq)
        k.from_squared_distances(Kb, sigma, out=Kb)
        if squared:
            Kb *= Kb
        out[start:start + step] = Kb @ V2
    return out[:, 0] if vec else out


def kernel_row_means(X, Y, *, sigma: float, kernel="gaussian", weights=None) -> np.ndarray:
    """``mean_j k(X[i], Y[j])`` (weighted by ``weights / sum(weights)`` if given), blocked.

    With ``Y`` the data this is the KDE of eq. (8) at X; with ``Y`` the shadow
    centers and ``weights`` their counts it is the ShDE of eq. (16).
    """
    Y = np.asarray(Y, dtype=np.float64)
    w = np.ones(Y.shape[0]) if weights is None else np.asarray(weights, dtype=np.float64)
    return kernel_matvec(X, Y, w / w.sum(), sigma=sigma, kernel=kernel)
