"""The weighted m x m kernel matrix ``W K W`` of the reduced-set problem, dense or as its lower half.

``W = diag(sqrt(w))`` with ``w`` the centers' weights (Algorithm 1 of Kingravi, Vela &
Gray 2013 eigendecomposes ``W K W``). Both forms are built once, in place, row block by
row block on threads (:func:`~rskpca.core.threads.map_row_blocks`):

* :func:`weighted_kernel_matrix` -- the dense m x m array;
* :func:`weighted_kernel_blocks` -- only the blocks on and below the diagonal, as
  :class:`SymmetricBlocks`, whose product reads each stored block once and uses it for
  both of its mirror images: half the exponentials to build and half the memory traffic
  per product, which is what a product over a matrix larger than the last-level cache
  costs (pendigits' m = 2949 is 35 MB in float32, more than a typical last-level cache).
"""

from __future__ import annotations

import numpy as np

from rskpca.core.threads import map_row_blocks
from rskpca.core.block_sizes import CACHE_BLOCK_ELEMENTS, _row_block
from rskpca.core.radial_kernels import (
    FUSED_MAX_RELATIVE_ERROR,
    fused_gaussian_block,
    gaussian_relative_error,
    get_kernel,
    refine_near_pairs,
    squared_distances,
)

__all__ = ["weighted_kernel_matrix", "weighted_kernel_blocks", "SymmetricBlocks", "SYMMETRIC_BLOCK_ROWS"]

#: Rows per block of :class:`SymmetricBlocks`: a 256-row panel of float32 over m = 3000
#: columns is 3 MB, re-read from cache for its mirrored product.
SYMMETRIC_BLOCK_ROWS = 256


def _block_filler(C, w, sigma: float, kernel, dtype):
    """``fill(Kb, rows, stop)``: ``Kb = (W K W)[rows, :stop]`` in place, exact diagonal included."""
    k = get_kernel(kernel)
    if dtype == np.float32 and k.p != 2:
        raise ValueError("float32 weighted kernels are only offered for the Gaussian kernel; "
                         "use dtype=np.float64 for the Laplacian.")
    C64 = np.asarray(C, dtype=np.float64)
    C64 = C64 - C64.mean(axis=0)
    C = C64.astype(dtype)
    w = np.asarray(w, dtype=np.float64)
    with np.errstate(divide="ignore"):  # w = 0 gives log 0 = -inf and exactly 0 entries
        half_log_w = 0.5 * np.log(w)
    diagonal = (w * k.kappa).astype(dtype)  # exact: k(c, c) = kappa
    if k.p == 2 and gaussian_relative_error(C64, sigma, w, dtype=dtype) <= FUSED_MAX_RELATIVE_ERROR:
        # exponent = (2 / sigma^2) c_i.c_j + u_i + u_j, u = log sqrt(w) - |c|^2 / sigma^2: the
        # scale rides on one GEMM operand (one rounding of it, in float32_relative_error's
        # d + 3). u_j is added, not folded into the GEMM as kernel_matvec folds |y|^2: the
        # log-weights inside an inner product of d + 1 terms would take d roundings, and the
        # error bound counts three for them.
        sq = np.einsum("ij,ij->i", C, C)
        C_scaled = (C64 * (2.0 / sigma**2)).astype(dtype)
        u = (half_log_w - sq / sigma**2).astype(dtype)

        def values(Kb, rows, stop):
            fused_gaussian_block(Kb, C_scaled[rows], C[:stop], u[rows], u[:stop])
    else:
        # the Laplacian, and the Gaussian with sigma tiny against the centers' spread
        # (the fused exponent's rounding would no longer be small): exact at any sigma
        # (in float64 whatever the storage: float32 coordinates would merge near pairs)
        sw, sq64 = np.sqrt(w), np.einsum("ij,ij->i", C64, C64)

        def values(Kb, rows, stop):
            D = squared_distances(C64[rows], C64[:stop], X_sq=sq64[rows], Y_sq=sq64[:stop],
                                  out=Kb if Kb.dtype == np.float64 else None)
            refine_near_pairs(D, C64[rows], C64[:stop], sq64[rows], sq64[:stop])
            k.from_squared_distances(D, sigma, out=D)
            D *= sw[rows, None]
            D *= sw[None, :stop]
            if D is not Kb:
                Kb[...] = D

    def fill(Kb, rows, stop):
        values(Kb, rows, stop)
        idx = np.arange(rows.start, rows.stop)
        Kb[idx - rows.start, idx] = diagonal[idx]

    return fill


def weighted_kernel_matrix(C, w, *, sigma: float, kernel="gaussian", dtype=np.float64, times=None, out=None):
    """``W K W`` with ``W = diag(sqrt(w))``, built once, in place, row block by row block.

    With a vector ``times``, returns ``(W K W, W K W @ times)``, the product taken block
    by block while each block is in cache: one pass over the matrix saved (the eigensolver's
    centering needs ``W K W sqrt(w)``). ``out``: an
    m x m array of ``dtype`` to fill (:func:`~rskpca.core._scratch.scratch_array`).

    The weights go into the exponent, ``sqrt(w_i w_j) k(c_i, c_j) = exp(log sqrt(w_i) +
    log sqrt(w_j) - ||c_i - c_j||^p / sigma^p)``, so each block takes one GEMM and a few
    cache-resident elementwise passes; no m x m temporary for the weighting. The centers
    are shifted to their mean first (the kernel is translation invariant): smaller norms,
    smaller cancellation error in ``||x||^2 + ||y||^2 - 2 x.y``.

    ``dtype=np.float32`` halves the memory traffic. Its error, relative to each entry, is
    at most :func:`~rskpca.core.radial_kernels.float32_relative_error` (distance rounding times
    the exponent's slope, the log-weights, the exp itself), and since ``K`` is entrywise
    positive, ``||W E W||_2 <= delta * ||W K W||_2``. Only the Gaussian is offered in
    float32: the Laplacian takes ``sqrt(d^2)``, which turns the rounding of a
    near-duplicate pair's ``d^2`` (2^-24 ||c||^2) into an error of ``2^-12 ||c|| / sigma``
    in k, far above ``delta``.

    >>> import numpy as np
    >>> C = np.array([[0.0], [1.0]]); w = np.array([4.0, 1.0])
    >>> np.round(weighted_kernel_matrix(C, w, sigma=1.0), 4).tolist()
    [[4.0, 0.7358], [0.7358, 1.0]]
    """
    fill = _block_filler(C, w, sigma, kernel, dtype)
    m = len(w)
    K = _output(out, m, dtype)
    step = _row_block(m, CACHE_BLOCK_ELEMENTS)
    if times is not None:
        times_d = np.asarray(times, dtype=dtype)
        product = np.empty(m, dtype=dtype)

    def block(start):
        rows = slice(start, min(m, start + step))
        fill(K[rows], rows, m)
        if times is not None:
            np.matmul(K[rows], times_d, out=product[rows])

    # numpy's exp and the other passes run on one core: the row blocks go to threads (the
    # "W K W float32: one thread -> all threads" row of tests/benchmarks/bench_speed.py).
    map_row_blocks(block, range(0, m, step))
    return K if times is None else (K, product)


def _output(out, m: int, dtype) -> np.ndarray:
    if out is None:
        return np.empty((m, m), dtype=dtype)
    if out.shape != (m, m) or out.dtype != np.dtype(dtype) or not out.flags.c_contiguous:
        raise ValueError(f"out must be a C-contiguous ({m}, {m}) array of {np.dtype(dtype)}, "
                         f"got {out.shape} of {out.dtype}.")
    return out


class SymmetricBlocks:
    """A symmetric m x m matrix stored as its row panels up to the end of their diagonal block.

    Panel ``p`` holds rows ``[p R, (p + 1) R)`` and columns ``[0, (p + 1) R)`` of ``data``
    (``R = block_rows``); the entries above the panels are never written (nor, in a fresh
    array, ever faulted into memory). Built by :func:`weighted_kernel_blocks`.

    Parameters
    ----------
    data : ndarray of shape (m, m)
    block_rows : int
    """

    def __init__(self, data: np.ndarray, block_rows: int = SYMMETRIC_BLOCK_ROWS):
        self.data, self.block_rows = data, int(block_rows)
        self.shape, self.dtype = data.shape, data.dtype

    def _panel_stop(self, i):
        return np.minimum(self.shape[0], (np.asarray(i) // self.block_rows + 1) * self.block_rows)

    def matmat(self, V: np.ndarray) -> np.ndarray:
        """``A @ V`` in the storage's precision, each stored panel read once.

        Panel ``p`` gives its rows' product over columns ``[0, stop)`` and, transposed,
        the rows above it their product over its own rows; those second parts are kept per
        panel and summed in panel order, so the result has the same bits on any number of
        threads.
        """
        V = np.asarray(V, dtype=self.dtype)
        vector = V.ndim == 1
        V2 = V.reshape(V.shape[0], -1)
        m, R = self.shape[0], self.block_rows
        out = np.empty((m, V2.shape[1]), dtype=self.dtype)
        starts = list(range(0, m, R))
        above = [None] * len(starts)

        def panel(start):
            stop = min(m, start + R)
            P = self.data[start:stop, :stop]
            np.matmul(P, V2[:stop], out=out[start:stop])
            if start:
                above[start // R] = P[:, :start].T @ V2[start:stop]

        # the widest panels first, so that the last one taken is short
        map_row_blocks(panel, starts[::-1])
        for part in above[1:]:
            out[:part.shape[0]] += part
        return out[:, 0] if vector else out

    def rows(self, idx) -> np.ndarray:
        """Whole rows ``A[idx]`` (as many columns of the symmetric ``A``), gathered from the panels."""
        idx = np.asarray(idx, dtype=np.intp)
        out = np.empty((idx.size, self.shape[0]), dtype=self.dtype)
        for k, (i, stop) in enumerate(zip(idx.tolist(), self._panel_stop(idx).tolist())):
            out[k, :stop] = self.data[i, :stop]
            out[k, stop:] = self.data[stop:, i]
        return out

    def to_dense(self) -> np.ndarray:
        """The full symmetric matrix (a copy): for checks, not for the solvers."""
        return self.rows(np.arange(self.shape[0]))


def weighted_kernel_blocks(C, w, *, sigma: float, kernel="gaussian", dtype=np.float64, times=None,
                           block_rows: int = SYMMETRIC_BLOCK_ROWS, out=None):
    """``W K W`` as :class:`SymmetricBlocks`: the same entries as :func:`weighted_kernel_matrix`, half built.

    Each panel is filled in cache-sized row blocks, from column 0 to the end of its
    diagonal block. With ``times``, returns ``(blocks, W K W @ times)`` as
    :func:`weighted_kernel_matrix` does, the product taken while each block is in cache
    (its rows' part directly, the mirrored part kept per block and summed in order).
    ``out`` as in :func:`weighted_kernel_matrix`.

    >>> import numpy as np
    >>> C = np.array([[0.0], [1.0], [3.0]]); w = np.array([4.0, 1.0, 2.0])
    >>> S = weighted_kernel_blocks(C, w, sigma=1.0, block_rows=1)
    >>> bool(np.allclose(S.to_dense(), weighted_kernel_matrix(C, w, sigma=1.0)))
    True
    """
    fill = _block_filler(C, w, sigma, kernel, dtype)
    m = len(w)
    K = _output(out, m, dtype)
    step = min(block_rows, _row_block(m, CACHE_BLOCK_ELEMENTS))
    pieces = [(start, min(start + step, panel + block_rows, m), min(m, panel + block_rows))
              for panel in range(0, m, block_rows) for start in range(panel, min(m, panel + block_rows), step)]
    if times is not None:
        times_d = np.asarray(times, dtype=dtype)
        product = np.empty(m, dtype=dtype)
        above = [None] * len(pieces)
    where = {start: k for k, (start, _, _) in enumerate(pieces)}

    def piece(start):
        k = where[start]
        _, stop, col_stop = pieces[k]
        rows = slice(start, stop)
        Kb = K[rows, :col_stop]
        fill(Kb, rows, col_stop)
        if times is not None:
            np.matmul(Kb, times_d[:col_stop], out=product[rows])
            panel = start - start % block_rows
            if panel:
                above[k] = Kb[:, :panel].T @ times_d[rows]

    map_row_blocks(piece, [p[0] for p in pieces][::-1])
    blocks = SymmetricBlocks(K, block_rows)
    if times is None:
        return blocks
    for part in above:
        if part is not None:
            product[:part.shape[0]] += part
    return blocks, product
