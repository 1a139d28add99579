"""Randomized block Krylov for the top eigenpairs of a symmetric operator (the reduced-set problem's).

Used by :func:`rskpca.core.eigen.kpca_on_centers` on large float32 problems, where its
few passes over the m x m matrix, each with a block of vectors, beat ARPACK's one-vector
products (Musco & Musco 2015). The operator supplies ``matmat`` and ``columns`` (columns
read without a product). :func:`pivoted_start` gives it a start block read from a few
columns, with no product: the top of a greedy pivoted Cholesky.
"""

from __future__ import annotations

import numpy as np
from scipy.linalg import qr

from rskpca.core.row_draws import uniform_rows

__all__ = ["block_krylov", "block_width", "pivoted_start", "START_PIVOTS_PER_COLUMN"]

#: Pivots of :func:`pivoted_start` per column of the Krylov block: a start read off the
#: kernel's dominant columns certifies in fewer passes than random unit columns, its own
#: cost included, as measured by the "block Krylov start" row of
#: ``python tests/benchmarks/bench_speed.py --pendigits PATH``.
START_PIVOTS_PER_COLUMN = 3


def block_krylov(op, k, rng, *, tol_of, hopeless=None, max_steps=12, start=None, width=None):
    """Randomized block Krylov (Musco & Musco 2015) with Rayleigh-Ritz after each step.

    The first block is ``b`` unit vectors at random rows, so its image is ``b`` columns
    of the operator, read without a product: one pass over the m x m matrix saved. With ``start`` (m x j, j <= b: approximate
    eigenvectors, say of a float32 copy of the operator) the first block is those
    vectors and random ones, orthonormalised, and the first check comes after that one
    pass: a good start is certified in one or two. The basis then grows by one block ``op @ Q_last``
    per step, orthogonalised twice against what it holds; every step keeps ``op``
    applied to the basis, so the Ritz residuals ``||op v - theta v||`` come for free.
    Returns ``(theta, V, True)`` once ``tol_of(theta, residuals)`` holds, else the last
    Ritz pairs with ``False`` (the caller falls back to ARPACK, started from them), after
    ``max_steps`` or as soon as ``hopeless(theta, residuals)`` says more steps cannot help.
    ``width``: columns per block (default :func:`block_width`).
    """
    m = op.shape[0]
    b = min(m, block_width(k) if width is None else max(int(width), k))
    width = min(m, b * (max_steps + 1))
    # The basis and op applied to it, column-major: the columns a solve never reaches (most
    # of them) are never touched, so their pages are never faulted in.
    B, AB = np.zeros((m, width), order="F"), np.empty((m, width), order="F")
    if start is None:
        cols = uniform_rows(m, b, rng)
        B[cols, np.arange(b)] = 1.0
        AB[:, :b] = op.columns(cols)
    else:
        j = min(b, start.shape[1])
        Z = np.concatenate([start[:, :j], rng.standard_normal((m, b - j))], axis=1)
        B[:, :b] = _orthonormal(Z)
        AB[:, :b] = op.matmat(B[:, :b])
    filled, known = b, 0
    T = np.empty((width, width))  # B^T op B, grown by the new block's rows and columns
    for step in range(max_steps):
        Bf, ABf = B[:, :filled], AB[:, :filled]
        if start is None and step == 0 and max_steps > 1 and filled + b <= width:
            # b unit vectors hold no answer worth a Rayleigh-Ritz step: grow the basis first
            _extend(B, AB, op, filled, b)
            filled += b
            continue
        new = Bf.T @ ABf[:, known:]
        T[:filled, known:filled] = new
        T[known:filled, :known] = new[:known].T
        known = filled
        # numpy's eigh: scipy's input checks cost more than the solve on these small matrices
        theta, S = np.linalg.eigh(0.5 * (T[:filled, :filled] + T[:filled, :filled].T))
        theta, S = theta[::-1][:k], S[:, ::-1][:, :k]
        V, AV = Bf @ S, ABf @ S
        resid = np.linalg.norm(AV - V * theta, axis=0)
        if tol_of(theta, resid):
            return theta, V, True
        if filled + b > width or (hopeless is not None and hopeless(theta, resid)):
            return theta, V, False
        # Bf^T (op's last block) is T's last block column, just computed: the first projection is free
        _extend(B, AB, op, filled, b, coefficients=T[:filled, filled - b:filled])
        filled += b
    return theta, V, False


def block_width(k: int) -> int:
    """Columns per Krylov block for k wanted pairs: k rounded up to a multiple of 8 (at least 8).

    OpenBLAS's float32 GEMM kernels work in column panels of 8, so a narrower block costs
    nearly as much per product; the narrowest block still wins over a wider one that needs a
    pass fewer, because the rest of each step (orthogonalisation against the basis, its QR,
    the Rayleigh-Ritz products) grows with the basis width. Measured by the "block Krylov"
    rows of ``python tests/benchmarks/bench_speed.py --pendigits PATH``.
    """
    return 8 * -(-max(k, 8) // 8)


def pivoted_start(column, diagonal, b: int, pivots: int) -> np.ndarray:
    """``b`` orthonormal start vectors for :func:`block_krylov` from a greedy pivoted Cholesky.

    ``column(i)`` is column ``i`` of the symmetric positive semidefinite operator (float64)
    and ``diagonal`` its diagonal. Each step takes the column with the largest residual
    diagonal, so the pivots spread over the data the operator sees, and ``L L^T`` with the
    ``pivots`` columns found approximates the operator (Harbrecht, Peters & Schneider 2012;
    Chen, Epperly, Tropp & Webber 2023 sample the pivots instead). The start is the top
    ``b`` left singular vectors of ``L``: a Nystrom approximation of the top eigenvectors
    read from ``pivots`` columns, no product with the operator. It stops early where the
    residual diagonal vanishes (rank reached); fewer than ``b`` vectors may then come back.

    >>> A = np.diag([5.0, 3.0, 1.0, 0.0])
    >>> U = pivoted_start(lambda i: A[:, i], np.diagonal(A), 2, 3)
    >>> np.abs(U).round(6).tolist()
    [[1.0, 0.0], [0.0, 1.0], [0.0, 0.0], [0.0, 0.0]]
    """
    d = np.array(diagonal, dtype=np.float64)
    m = d.size
    L = np.empty((min(pivots, m), m))
    floor = 1e-12 * float(d.max(initial=0.0))
    j = 0
    while j < L.shape[0]:
        i = int(np.argmax(d))
        if d[i] <= floor:
            break
        col = np.array(column(i), dtype=np.float64)
        if j:
            col -= L[:j, i] @ L[:j]
        col *= 1.0 / np.sqrt(d[i])
        L[j] = col
        d -= col * col
        d[i] = 0.0
        j += 1
    if j == 0:
        return np.empty((m, 0))
    # L^T's left singular vectors from the j x j Gram matrix (its eigenvalues are the
    # squared singular values): the products stay m x j
    values, vectors = np.linalg.eigh(L[:j] @ L[:j].T)
    keep = values[::-1][:b] > floor
    U = L[:j].T @ vectors[:, ::-1][:, :b][:, keep]
    return _orthonormal(U)


def _extend(B, AB, op, filled, b, coefficients=None):
    """Next block of the Krylov basis: op's last block, orthogonalised twice against the basis.

    ``coefficients``: ``B^T`` times that block, if the caller has it.
    """
    Bf, last = B[:, :filled], AB[:, filled - b:filled]
    Z = last - Bf @ (Bf.T @ last if coefficients is None else coefficients)
    Z -= Bf @ (Bf.T @ Z)
    B[:, filled:filled + b] = _orthonormal(Z)
    AB[:, filled:filled + b] = op.matmat(B[:, filled:filled + b])


def _orthonormal(Z):
    """An orthonormal basis of Z's columns (Householder QR, Z overwritten).

    Without scipy's finiteness check: Z comes from finite products, and the check costs as
    much as the QR itself on the solver's tall, narrow blocks.
    """
    return qr(Z, mode="economic", overwrite_a=True, check_finite=False)[0]
