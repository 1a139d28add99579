"""The exact shadow of a row-chunked ``dask.array``, by rounds, locally or on a cluster.

Needs the optional extra ``pip install "rskpca[dask]"``. Dask is the engine:
with no setup it runs on Dask's local threaded scheduler (every core of one
machine); with a ``dask.distributed.Client`` connected to a scheduler it runs
on that cluster, because Dask sends every computation to the active client.

The algorithm (rounds)
----------------------
Algorithm 2 of Kingravi, Vela & Gray (2013) makes a row a center exactly when
no earlier center lies within ``eps = sigma / ell`` of it, and otherwise gives
it to the earliest such center; centers are created in input order. So, with
the rows still undecided held as pieces in input order (at first, X's chunks):

1. *prefix*: one task runs the single-machine shadow
   (:func:`rskpca.shadow_centers`) on the first pieces, at least
   ``prefix_rows`` rows: centers ``C_k``, their indices and weights;
2. *screen*: every later piece, in parallel, gives each row its earliest
   ``C_k`` center within eps (:func:`rskpca.core.shadow.earliest_center_within`,
   the scan's own grid, or GEMM screen above ``COMPILED_MAX_DIM`` features, and exact
   float64 predicate) -- the center
   Algorithm 2 gives it, since every later center comes after ``C_k`` -- and
   returns per-center counts plus only its uncovered rows;
3. the uncovered rows, still in input order, are a shadow problem of their
   own (no ``C_k`` center covers them; among them a row is a center iff no
   earlier one of them is within eps): the next round runs 1-3 on them,
   until one prefix takes all that is left.

Every round is exact, so centers, indices, weights and (lazily recomputed)
labels equal :func:`rskpca.shadow_centers` on the whole array, bit for bit,
whatever the chunking. Per round only ``C_k`` (``m_k x d``) goes out to the
tasks and only uncovered rows and ``m_k``-vectors of counts come back.

The tasks take the paths one machine takes ("auto": the compiled loop up to
``COMPILED_MAX_DIM`` features), so a worker runs as fast per row as one machine.
Its compiled code comes from numba's disk cache on the worker's machine; the
driver loads it first (:func:`rskpca.core.shadow.load_compiled_kernels`), so
that workers started on the driver's machine load it rather than each compile it.
"""

from __future__ import annotations

from numbers import Integral
from typing import NamedTuple

import numpy as np

import dask
import dask.array as da

from rskpca.core.threads import one_thread_per_task
from rskpca.core.validation import check_positive, shadow_radius
from rskpca.core.radial_kernels import get_kernel
from rskpca.core.shadow import ShadowResult, load_compiled_kernels
from rskpca.distributed._blocks import (
    as_row_chunked_array,
    check_chunk,
    chunk_distances,
    chunk_labels,
    piece_size,
    prefix_shadow,
    screen_piece,
)

__all__ = ["DistributedShadowResult", "RoundStats", "distributed_shadow"]


class RoundStats(NamedTuple):
    """What one round did and moved (bytes are float64/int64 payloads, not counting Dask's framing)."""

    prefix_rows: int  # rows the prefix task took
    new_centers: int  # m_k
    screened_rows: int  # rows screened against C_k, in parallel
    uncovered_rows: int  # rows left for the next round
    screen_tasks: int
    bytes_centers_out: int  # C_k to every screen task: tasks * m_k * d * 8
    bytes_rows_moved: int  # prefix rows gathered to the prefix task + uncovered rows kept
    bytes_counts_back: int  # tasks * m_k * 8


class DistributedShadowResult(NamedTuple):
    """Output of :func:`distributed_shadow`: small and picklable; labels stay lazy.

    Attributes
    ----------
    centers : ndarray of shape (m, d)
        The shadow centers (rows of X) in creation order.
    center_indices : ndarray of shape (m,)
        Global row index in X of each center (increasing).
    weights : ndarray of shape (m,)
        Rows absorbed by each center (int64, sum n).
    eps : float
        ``sigma / ell``.
    sigma, ell : float
    kernel : str
    n : int
        Rows of X.
    rounds : tuple of RoundStats
        One entry per round, in order.
    """

    centers: np.ndarray
    center_indices: np.ndarray
    weights: np.ndarray
    eps: float
    sigma: float
    ell: float
    kernel: str
    n: int
    rounds: tuple

    @property
    def m(self) -> int:
        """Number of centers."""
        return int(self.center_indices.shape[0])

    def _per_block(self, X, func, dtype):
        X = as_row_chunked_array(X)
        if X.shape != (self.n, self.centers.shape[1]):
            raise ValueError(
                f"X must be the array this result was computed on: shape {(self.n, self.centers.shape[1])}, "
                f"got {X.shape}."
            )
        centers = dask.delayed(self.centers, pure=True)  # one key, sent once per worker
        pieces = [da.from_delayed(dask.delayed(func, pure=True)(block, centers, self.eps), shape=(rows,),
                                  dtype=dtype)
                  for block, rows in zip(X.to_delayed().ravel(), X.chunks[0])]
        return da.concatenate(pieces)

    def labels(self, X):
        """Algorithm 2's label of every row, as a lazy dask array recomputed chunk by chunk.

        A row belongs to its earliest center within eps, so any chunking of X gives the labels of
        :func:`rskpca.shadow_centers`.

        Parameters
        ----------
        X : dask.array.Array
            The array the result was computed on.

        Returns
        -------
        dask.array.Array of shape (n_samples,), int
        """
        return self._per_block(X, chunk_labels, np.intp)

    def distances_to_centers(self, X):
        """``||x_i - c_label(i)||`` for every row, as a lazy dask array (all < eps)."""
        return self._per_block(X, chunk_distances, np.float64)

    def to_shadow_result(self, X) -> ShadowResult:
        """Gather the labels into an in-memory :class:`rskpca.ShadowResult` (O(n) memory)."""
        return ShadowResult(
            centers=self.centers, center_indices=self.center_indices.astype(np.intp),
            weights=self.weights.astype(np.intp), labels=np.asarray(self.labels(X).compute()),
            eps=self.eps, sigma=self.sigma, ell=self.ell, kernel=self.kernel,
        )


def _sum_counts(*counts) -> np.ndarray:
    return np.sum(counts, axis=0)


def _take_prefix(sizes, prefix_rows: int) -> int:
    """Number of leading pieces that hold at least ``prefix_rows`` rows (at least one piece)."""
    total = np.cumsum(sizes)
    return int(min(len(sizes), np.searchsorted(total, prefix_rows) + 1))


def distributed_shadow(X, *, sigma: float, ell: float, kernel: str = "gaussian", prefix_rows=None,
                       scheduler=None) -> DistributedShadowResult:
    """Shadow centers of a row-chunked dask array, equal to :func:`rskpca.shadow_centers` bit for bit.

    Parameters
    ----------
    X : dask.array.Array of shape (n_samples, n_features)
        Chunked by rows (or a dask DataFrame). Each chunk is checked (numeric,
        finite, the declared shape) by the first task that reads it.
    sigma : float
        Kernel bandwidth.
    ell : float
        Shadow parameter; the radius is ``eps = sigma / ell``.
    kernel : {"gaussian", "laplacian"}, default="gaussian"
        Recorded for the bounds; the selection only depends on eps.
    prefix_rows : int or None, default=None
        Fewest rows one prefix task takes (serial work per round); None: the
        first chunk's length. Larger means fewer rounds and more serial work.
    scheduler : optional
        Passed to ``dask.compute``/``dask.persist``. None: the active
        ``dask.distributed.Client`` if there is one, else Dask's local threads.

    Returns
    -------
    DistributedShadowResult

    Examples
    --------
    >>> import numpy as np, dask.array as da
    >>> from rskpca import shadow_centers
    >>> X = np.random.default_rng(0).normal(size=(400, 3))
    >>> r = distributed_shadow(da.from_array(X, chunks=(50, 3)), sigma=1.0, ell=2.0, scheduler="sync")
    >>> s = shadow_centers(X, sigma=1.0, ell=2.0)
    >>> bool((r.center_indices == s.center_indices).all() and (r.weights == s.weights).all())
    True
    >>> bool((r.labels(da.from_array(X, chunks=(64, 3))).compute(scheduler="sync") == s.labels).all())
    True
    """
    X = as_row_chunked_array(X)
    sigma = check_positive(sigma, "sigma")
    ell = check_positive(ell, "ell")
    kernel = get_kernel(kernel).name
    eps = shadow_radius(sigma, ell)
    n, d = X.shape
    row_chunks = [int(c) for c in X.chunks[0]]
    if prefix_rows is None:
        prefix_rows = row_chunks[0]
    if isinstance(prefix_rows, bool) or not isinstance(prefix_rows, Integral) or prefix_rows < 1:
        raise ValueError(f"prefix_rows must be a positive integer or None; got {prefix_rows!r}.")
    starts = np.concatenate([[0], np.cumsum(row_chunks)[:-1]])
    pieces = [dask.delayed(check_chunk, pure=True)(b, int(a), (r, d))
              for b, a, r in zip(X.to_delayed().ravel(), starts, row_chunks) if r > 0]
    sizes = [r for r in row_chunks if r > 0]
    load_compiled_kernels()  # once per process: the disk cache that workers on this machine read

    # One BLAS thread per task and no block threads: Dask's local threads already use every
    # core, and BLAS pools called from several threads at once oversubscribe them, each thread
    # spinning while it waits for a core the others hold. Cluster workers start with one BLAS thread already; this
    # covers the threaded scheduler.
    with one_thread_per_task():
        return _rounds(pieces, sizes, prefix_rows, eps, d, scheduler, sigma, ell, kernel, n)


def _rounds(pieces, sizes, prefix_rows, eps, d, scheduler, sigma, ell, kernel, n) -> DistributedShadowResult:
    centers, indices, weights, rounds = [], [], [], []
    while pieces:
        k = _take_prefix(sizes, prefix_rows)
        prefix = dask.delayed(prefix_shadow, pure=True)(pieces[:k], eps)
        rest, rest_sizes = pieces[k:], sizes[k:]
        screened = [dask.delayed(screen_piece, nout=2, pure=True)(p, prefix, eps) for p in rest]
        if screened:
            # Keep prefix and screens where they ran; only counts and sizes come back here.
            prefix, *screened = dask.persist(prefix, *screened, scheduler=scheduler)
            counts = dask.delayed(_sum_counts, pure=True)(*[s[0] for s in screened])
            (C, idx, w), counts, new_sizes = dask.compute(
                prefix, counts, [dask.delayed(piece_size, pure=True)(s) for s in screened],
                scheduler=scheduler)
            w = w + counts
        else:
            ((C, idx, w),) = dask.compute(prefix, scheduler=scheduler)
            new_sizes = []
        m_k = C.shape[0]
        rounds.append(RoundStats(
            prefix_rows=int(sum(sizes[:k])), new_centers=m_k, screened_rows=int(sum(rest_sizes)),
            uncovered_rows=int(sum(new_sizes)), screen_tasks=len(screened),
            bytes_centers_out=len(screened) * m_k * d * 8,
            bytes_rows_moved=int(sum(sizes[:k]) + sum(new_sizes)) * (d + 1) * 8,
            bytes_counts_back=len(screened) * m_k * 8))
        centers.append(C)
        indices.append(idx)
        weights.append(w)
        kept = [i for i, s in enumerate(new_sizes) if s > 0]
        pieces = [screened[i][1] for i in kept]
        sizes = [new_sizes[i] for i in kept]
    return DistributedShadowResult(
        centers=np.concatenate(centers) if centers else np.empty((0, d)),
        center_indices=np.concatenate(indices).astype(np.int64),
        weights=np.concatenate(weights).astype(np.int64),
        eps=float(eps), sigma=sigma, ell=ell, kernel=kernel, n=int(n), rounds=tuple(rounds),
    )
