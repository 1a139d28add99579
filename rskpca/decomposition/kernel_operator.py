"""The n x n kernel matrix, matrix-free: applied to blocks of vectors, row block by row block.

:func:`kernel_operator` applies ``K`` one block of kernel rows at a time, keeping blocks
between products up to a byte budget and reporting progress after every row block;
:func:`centered_operator` centers any such operator in feature space (``H K H``,
``H = I - 11^T/n``) per product. No n x n matrix is held beyond the budget given. The
eigensolvers that apply these operators, and the estimator built on them, are
:mod:`rskpca.decomposition.iterative`'s; new rows are projected through the training rows by
:func:`rskpca.core.projection.centered_projection`.
"""

from __future__ import annotations

import time

import numpy as np
from scipy.sparse.linalg import LinearOperator

from rskpca.core.block_sizes import DEFAULT_BLOCK_ELEMENTS
from rskpca.core.radial_kernels import kernel_matrix

__all__ = ["kernel_operator", "centered_operator"]


def kernel_operator(X, *, sigma: float, kernel="gaussian",
                    block_elements: int = DEFAULT_BLOCK_ELEMENTS, cache_bytes: int = 0,
                    progress=None) -> LinearOperator:
    """``K`` (uncentered, n x n) as a LinearOperator, applied row block by row block.

    Blocks of ``block_elements`` kernel values are computed on first use and kept while
    they fit in ``cache_bytes``; the others are recomputed at each product. So memory is
    at most ``cache_bytes`` plus one block, and when the whole matrix fits, each product
    after the first is a plain GEMM over stored blocks (no kernel re-evaluation).

    ``progress``, if given, is called as ``progress(products, seconds)`` after every row
    block: ``products`` counts products with a vector done so far (a block of c vectors
    counts c), as a float that grows by the rows' share within a product, and ``seconds``
    is the time since the operator was made. A product takes O(n^2 d), minutes at large
    n, so per row block is where a caller can watch, and stop: an exception it raises
    propagates out of the product (and out of an eigensolver applying it).

    >>> import numpy as np
    >>> from rskpca.core.radial_kernels import kernel_matrix
    >>> X = np.random.default_rng(0).normal(size=(30, 2))
    >>> v = np.ones(30)
    >>> bool(np.allclose(kernel_operator(X, sigma=1.0) @ v, kernel_matrix(X, sigma=1.0) @ v))
    True
    """
    X = np.asarray(X, dtype=np.float64)
    n = X.shape[0]
    step = max(1, int(block_elements) // max(n, 1))
    cache: dict[int, np.ndarray] = {}
    room = [int(cache_bytes)]
    done = [0.0]
    t0 = time.perf_counter()

    def block(start):
        Kb = cache.get(start)
        if Kb is None:
            Kb = kernel_matrix(X[start:start + step], X, sigma=sigma, kernel=kernel)
            if Kb.nbytes <= room[0]:
                cache[start] = Kb
                room[0] -= Kb.nbytes
        return Kb

    def matmat(V):
        V = np.asarray(V, dtype=np.float64)
        vec = V.ndim == 1
        V2 = V[:, None] if vec else V
        out = np.empty((n, V2.shape[1]))
        before = done[0]
        for start in range(0, n, step):
            np.matmul(block(start), V2, out=out[start:start + step])
            if progress is not None:
                stop = min(n, start + step)
                done[0] = before + V2.shape[1] * stop / n
                progress(done[0], time.perf_counter() - t0)
        done[0] = before + V2.shape[1]
        return out[:, 0] if vec else out

    op = LinearOperator((n, n), matvec=matmat, matmat=matmat, rmatvec=matmat, rmatmat=matmat,
                        dtype=np.float64)
    op.cached_bytes = lambda: int(cache_bytes) - room[0]
    return op


def centered_operator(op: LinearOperator) -> LinearOperator:
    """``H A H`` with ``H = I - 11^T/n``: centering in feature space, applied per product.

    >>> import numpy as np
    >>> from scipy.sparse.linalg import aslinearoperator
    >>> A = np.arange(9.0).reshape(3, 3); A = A + A.T
    >>> H = np.eye(3) - 1 / 3
    >>> bool(np.allclose(centered_operator(aslinearoperator(A)) @ np.eye(3), H @ A @ H))
    True
    """
    n = op.shape[0]

    def matmat(V):
        V = np.asarray(V, dtype=np.float64)
        vec = V.ndim == 1
        V2 = V[:, None] if vec else V
        V2 = V2 - V2.mean(axis=0)
        out = op.matmat(V2)
        out = out - out.mean(axis=0)
        return out[:, 0] if vec else out

    return LinearOperator((n, n), matvec=matmat, matmat=matmat, rmatvec=matmat, rmatmat=matmat,
                          dtype=np.float64)

