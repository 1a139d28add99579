"""Squared Euclidean distances through BLAS, and the exact recomputation of near-duplicate pairs.

``||x||^2 + ||y||^2 - 2 x.y`` is one GEMM but loses digits for pairs much closer than their
norms; :func:`refine_near_pairs` recomputes those from the differences. Every kernel
evaluation, the bandwidth heuristic, the shadow's screens and the bounds' measurements
start from these distances.
"""

from __future__ import annotations

import numpy as np

__all__ = ["squared_distances", "refine_near_pairs", "NEAR_DUPLICATE_REL"]


def squared_distances(X: np.ndarray, Y: np.ndarray, *, X_sq=None, Y_sq=None, out=None) -> np.ndarray:
    """Squared Euclidean distances through BLAS, clipped at zero.

    Uses ``||x||^2 + ||y||^2 - 2 x.y``: fast, with rounding error of order
    ``eps_machine * (||x||^2 + ||y||^2)``. Callers that need exact decisions at a
    threshold (the shadow selection) re-check the pairs near it.
    """
    if X_sq is None:
        X_sq = np.einsum("ij,ij->i", X, X)
    if Y_sq is None:
        Y_sq = np.einsum("ij,ij->i", Y, Y)
    D = np.matmul(X, Y.T, out=out)
    D *= -2.0
    D += X_sq[:, None]
    D += Y_sq[None, :]
    np.maximum(D, 0.0, out=D)
    return D


#: Below this fraction of ||x||^2 + ||y||^2 the BLAS squared distance has lost more than half
#: its digits; such pairs are recomputed from the differences when it matters (p = 1).
NEAR_DUPLICATE_REL = 1e-6
# Differences recomputed per chunk (pairs x features): 8 MiB, bounded even for constant data.
_REFINE_CHUNK_ELEMENTS = 1_000_000


def refine_near_pairs(D, A, B, A_sq, B_sq) -> None:
    """Recompute near-duplicate squared distances from the differences, in place.

    ``D = squared_distances(A, B)`` carries an absolute error of about
    ``1e-16 (||a||^2 + ||b||^2)``. The Laplacian takes a square root, so for
    (near-)duplicates that becomes ``1e-8 ||a|| / sigma`` in k; the Gaussian needs
    no such care. Pairs with ``D <= NEAR_DUPLICATE_REL (||a||^2 + ||b||^2)`` are
    recomputed; ``<=`` (not ``<``) so that every pair left alone lies strictly above
    the threshold and keeps a relative error below ``~1e-10``, at no extra cost.
    """
    rows, cols = np.divmod(np.flatnonzero(D <= NEAR_DUPLICATE_REL * (A_sq[:, None] + B_sq[None, :])), D.shape[1])
    step = max(1, _REFINE_CHUNK_ELEMENTS // max(A.shape[1], 1))
    for s in range(0, rows.size, step):
        r, c = rows[s:s + step], cols[s:s + step]
        diff = A[r] - B[c]
        D[r, c] = np.einsum("ij,ij->i", diff, diff)
