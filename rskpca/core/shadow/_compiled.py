"""Algorithm 2 as one compiled in-order loop, candidates found on a grid of the data's principal axes.

Each point is visited in order, as the paper writes it (Kingravi, Vela & Gray 2013,
Algorithm 2), and compared only with the centers that can lie within eps of it:

* **a grid over the first G <= 3 principal axes** (cells of side just above eps): a
  projection onto orthonormal axes never lengthens a difference, so every center within
  eps of a point sits in one of the ``3^G`` cells around the point's own;
* **a lower bound from the first K = 8 principal coordinates**: the squared length of the
  projected difference is at most the squared distance, so a candidate whose bound is
  above eps^2 (by more than the rounding of the projections) is out without touching its
  d coordinates;
* **the exact predicate** for the few candidates left: ``sum((c - x) ** 2) < eps ** 2``
  summed in numpy's own pairwise order, so every decision has the bits of
  :func:`~rskpca.core.shadow.exact_squared_distances` and the result is the BLAS
  screen's and the literal algorithm's.

Each cell keeps its centers in creation order, so a point stops reading a cell at its first
center inside eps or at the first center created after the best one found so far: the
earliest-created center within eps is found without visiting the rest.

From ``_THREADED_MIN_ROWS`` rows on, the rows are taken a chunk at a time: each chunk is first
looked up on the threads against the centers filed before it (a row with one of them within eps
takes the earliest, as in order), and only its other rows are then visited in order
(:func:`_scan_on_threads`; 1.5-2x on two cores at a million rows, ``python
tests/benchmarks/bench_threaded_scan.py``).

"auto" runs this scan up to ``COMPILED_MAX_DIM`` features, where its pruning leaves few
candidates and it beats the GEMM screen, as the shadow rows of ``python
tests/benchmarks/bench_speed.py --pendigits PATH`` measure.

Compiled with numba on first use (cached on disk); without numba this path is not offered.
"""

from __future__ import annotations

import math

import numpy as np

from rskpca.core.threads import all_threads, map_row_blocks
from rskpca.core.validation import column_extremes, column_reduce

#: Coordinates of the lower bound (the first principal axes; zero-padded below 8 features).
LOWER_BOUND_AXES = 8
#: The grid is built on at most this many principal axes (3^G neighbour cells per point).
MAX_GRID_AXES = 3
#: Cells in the grid at most (three int64 per cell, each allocated and read once per scan): at most
#: ``_CELLS_PER_ROW`` per row, and never more than ``_MAX_CELLS``; past it, fewer axes or wider
#: cells (still correct). The per-row limit keeps a few spread-out rows from allocating millions of
#: empty cells.
_MAX_CELLS = 1 << 22
_CELLS_PER_ROW = 8
_MIN_CELLS = 1 << 12
# Cells are this much wider than the projected eps, so that rounding in floor(p / side)
# can never put two points whose projections are closer than eps into non-adjacent cells.
_SIDE_FACTOR = 1.0 + 1e-6
#: Rows whose scatter gives the principal axes (the axes only steer pruning, never decisions).
_AXES_SAMPLE = 2048

_kernels = None


def compiled_available() -> bool:
    """Whether numba can be imported (the compiled path is offered only then)."""
    try:
        import numba  # noqa: F401
    except ImportError:  # pragma: no cover - numba is a dependency; this guards broken installs
        return False
    return True


def _build_kernels():
    """The compiled loops (numba compiles them once per machine; its disk cache serves later processes)."""
    global _kernels
    if _kernels is None:
        from rskpca.core.shadow import _compiled_kernels as kernels

        _kernels = {"scan": kernels.scan, "scan_rows": kernels.scan_rows, "screen_rows": kernels.screen_rows,
                    "screen": kernels.screen, "squared_distance": kernels.squared_distance, "cells": kernels.cells}
    return _kernels


def load_compiled_kernels() -> dict:
    """Load (or, the first time on a machine, compile) every compiled loop; ``{name: "cache" | "compiled"}``.

    numba keeps the machine code on disk (``cache=True``: beside this package's sources, or in
    ``NUMBA_CACHE_DIR``), so only the first process on a machine compiles and every later one
    (a Dask worker, an app server) loads. A process that calls this before starting workers on
    its machine leaves them the cache to load, instead of each compiling the same code at once.
    An empty dict without numba.

    Examples
    --------
    >>> sorted(load_compiled_kernels())
    ['cells', 'scan', 'scan_rows', 'screen', 'screen_rows', 'squared_distance']
    """
    if not compiled_available():  # pragma: no cover - numba is a dependency
        return {}
    X = np.array([[0.0, 0.0], [1.0, 0.0]])
    compiled_scan(X, 0.5)
    _scan_on_threads(X, *_prepared(X, 0.5), chunk=1)  # the path of large inputs
    compiled_earliest_center(X, X[:1], 0.5)
    exact_squared_distance(X[0], X[1])
    return {name: "cache" if sum(f.stats.cache_hits.values()) else "compiled" if f.signatures else "not loaded"
            for name, f in _build_kernels().items()}


def exact_squared_distance(x: np.ndarray, c: np.ndarray) -> float:
    """The compiled predicate's ``sum((c - x) ** 2)`` for two points (tests compare its bits with numpy's)."""
    x = np.ascontiguousarray(x, dtype=np.float64).reshape(1, -1)
    c = np.ascontiguousarray(c, dtype=np.float64).reshape(1, -1)
    return float(_build_kernels()["squared_distance"](x, 0, c, 0))


#: Rows of the principal frame computed at a time.
_FRAME_BLOCK_ROWS = 65_536


def _principal_frame(X: np.ndarray):
    """``(P, rounding)``: coordinates on principal axes (most spread first) and their error bound.

    Any orthonormal axes give a valid grid and lower bound; the leading principal axes
    prune best. They come from the scatter of at most ``_AXES_SAMPLE`` rows (evenly
    spaced), shifted to the mean and scaled by a power of two (exact) so it stays finite.
    ``rounding`` bounds the error of each computed coordinate (Higham 2002: a d-term dot
    product errs by at most ``gamma_d`` times the sum of its terms' magnitudes, here at most
    ``||x - mean||`` for a unit axis, itself at most the norm of the columns' largest
    deviations), with room to spare.
    """
    with np.errstate(over="ignore", invalid="ignore"):  # near the float64 range: not finite, refused
        return _principal_frame_unchecked(X)


def _principal_frame_unchecked(X: np.ndarray):
    n, d = X.shape
    shift = column_reduce(np.add, X) / n
    high, low = column_extremes(X)
    deviation = np.maximum(high - shift, shift - low)
    top = float(deviation.max(initial=0.0))
    scale = 2.0 ** -np.frexp(top)[1] if top > 0 else 1.0
    sample = (X[:: max(1, n // _AXES_SAMPLE)] - shift) * scale
    # eigh of the d x d scatter, descending: the leading axes spread the points most
    _, V = np.linalg.eigh(sample.T @ sample)
    k = min(d, LOWER_BOUND_AXES)
    V = np.ascontiguousarray(V[:, ::-1][:, :k])
    P = np.empty((n, LOWER_BOUND_AXES))
    P[:, k:] = 0.0

    # In row blocks, on the threads: no n x d centered copy, whose fresh pages cost more to fault in
    # than the product itself at ten million rows (tests/benchmarks/RESULTS.md).
    def block(start):
        P[start:start + _FRAME_BLOCK_ROWS, :k] = (X[start:start + _FRAME_BLOCK_ROWS] - shift) @ V

    map_row_blocks(block, range(0, n, _FRAME_BLOCK_ROWS))
    rounding = 16.0 * (d + 4) * 2.0**-53 * float(np.sqrt(np.sum(deviation * deviation)))
    return P, rounding


def _grid(P: np.ndarray, side: float, d: int):
    """Cells of the first G principal coordinates: (cell of each row, cell starts, neighbour offsets)."""
    axes = min(MAX_GRID_AXES, d)  # (P's columns past d are zero padding)
    limit = min(_MAX_CELLS, max(_MIN_CELLS, _CELLS_PER_ROW * P.shape[0]))
    high, low = column_extremes(P[:, :axes])
    span = high - low
    while True:
        # wider cells than eps stay correct (neighbours still hold every center within eps)
        cell_side = max(side, float(span.max()) / 2**30)
        extent = np.floor(span / cell_side).astype(np.int64) + 3  # +1 each side: neighbours stay inside
        if float(np.prod(extent.astype(np.float64))) <= limit or axes == 1:
            break
        axes -= 1
        low, span = low[:axes], span[:axes]
    if float(np.prod(extent.astype(np.float64))) > limit:  # one axis, very spread: wider cells
        cell_side = float(span[0]) / (limit - 3)
        extent = np.floor(span / cell_side).astype(np.int64) + 3
    strides = np.cumprod(np.r_[1, extent[:-1]]).astype(np.int64)
    cell_of, cell_start = _build_kernels()["cells"](P, low, 1.0 / cell_side, extent, strides)
    offsets = np.stack(np.meshgrid(*[[-1, 0, 1]] * axes, indexing="ij"), -1).reshape(-1, axes) @ strides
    offsets = offsets[np.argsort(offsets != 0, kind="stable")]  # the point's own cell first
    return cell_of, cell_start, offsets.astype(np.int64)


def _prepared(X: np.ndarray, eps: float):
    """``(P, cell_of, cell_start, offsets, eps2, bound2)`` for the compiled loops on X, or None.

    None when the principal frame is not finite (data near the float64 range).
    """
    P, rounding = _principal_frame(X)
    if not (np.isfinite(rounding) and np.all(np.isfinite(P))):
        return None
    # A pair the exact predicate puts inside has a distance below eps (1 + d 2^-53); its
    # projected difference is shorter still, up to twice the coordinates' rounding each.
    reach = eps * (1.0 + 1e-9) + 2.0 * math.sqrt(LOWER_BOUND_AXES) * rounding
    bound2 = reach * reach * (1.0 + 1e-9)
    cell_of, cell_start, offsets = _grid(P, reach * _SIDE_FACTOR, X.shape[1])
    return P, cell_of, cell_start, offsets, eps * eps, bound2


def compiled_scan(X: np.ndarray, eps: float):
    """Algorithm 2 on float64 X in visiting order: ``(center_rows, labels)``, or None.

    None when the principal frame is not finite (data near the float64 range): the BLAS
    screen, which scales its coordinates, takes those.
    """
    X = np.ascontiguousarray(X, dtype=np.float64)
    prepared = _prepared(X, eps)
    if prepared is None:
        return None
    if X.shape[0] >= _THREADED_MIN_ROWS and all_threads() > 1:
        rows, labels = _scan_on_threads(X, *prepared)
    else:
        rows, labels = _build_kernels()["scan"](X, *prepared)
    return rows.astype(np.intp, copy=False), labels.astype(np.intp, copy=False)


#: Rows from which the scan screens blocks of rows on the threads (:func:`_scan_on_threads`).
_THREADED_MIN_ROWS = 262_144
#: Rows a chunk: the first is scanned in order; each later one is screened on the threads, then its
#: other rows scanned in order.
_CHUNK_ROWS = 65_536
#: Rows each thread screens at a time.
_SCREEN_BLOCK_ROWS = 4_096


def _scan_on_threads(X, P, cell_of, cell_start, offsets, eps2, bound2, chunk=None):
    """The scan's ``(center_rows, labels)``, most rows looked up on the threads.

    Centers are created in visiting order, so every center filed before a chunk of rows is
    older than any the chunk creates. A row with one of them within eps therefore takes the
    earliest of those, whatever the chunk adds: those lookups read the filed centers only and
    run on the threads. The chunk's other rows -- few, once the data's regions have centers --
    are then scanned in order, as Algorithm 2 visits them. Each decision is the sequential
    scan's, so the result is too (tests/test_shadow_compiled.py compares them).
    """
    kernels = _build_kernels()
    chunk = chunk or _CHUNK_ROWS
    n, K = X.shape[0], P.shape[1]
    filled = np.zeros(cell_start.size - 1, np.int64)
    slot_center, slot_P = np.empty(n, np.int64), np.empty((n, K))
    center_rows, labels = np.empty(n, np.int64), np.empty(n, np.int64)
    state = (filled, slot_center, slot_P, center_rows, labels)
    grid = (X, P, cell_of, cell_start, offsets, eps2, bound2)
    m = kernels["scan_rows"](*grid, np.arange(min(chunk, n)), *state, 0)
    for start in range(chunk, n, chunk):
        stop = min(start + chunk, n)

        def screen(block, m=m, stop=stop):
            kernels["screen_rows"](*grid, block, min(block + _SCREEN_BLOCK_ROWS, stop), *state, m)

        map_row_blocks(screen, range(start, stop, _SCREEN_BLOCK_ROWS))
        m = kernels["scan_rows"](*grid, start + np.flatnonzero(labels[start:stop] < 0), *state, m)
    return center_rows[:m].copy(), labels


def compiled_earliest_center(X: np.ndarray, centers: np.ndarray, eps: float):
    """Per row of X, the first row of ``centers`` strictly within eps (-1 if none), or None.

    The scan's loop with the centers filed first and no row becoming a center: the rows and
    the centers share one principal frame and grid, and every decision is the exact
    predicate's, so the labels are the GEMM screen's
    (:func:`~rskpca.core.shadow.earliest_center_within`) to the bit. None where the frame is
    not finite, as for :func:`compiled_scan`.
    """
    C = np.ascontiguousarray(centers, dtype=np.float64)
    Z = np.concatenate([C, np.asarray(X, dtype=np.float64)])
    prepared = _prepared(Z, eps)
    if prepared is None:
        return None
    return _build_kernels()["screen"](Z, *prepared, C.shape[0]).astype(np.intp, copy=False)
