"""Shadow center selection (Algorithm 2 of Kingravi, Vela & Gray, 2013).

Points are visited in order. A point becomes a center iff no existing center
lies strictly within ``eps = sigma / ell`` of it; every other point joins the
*earliest-created* center within ``eps``. This is Algorithm 2 read one point at
a time: the algorithm's "first remaining element" is exactly the first point
not yet absorbed, and a point is absorbed by the first center that covers it.

The predicate is fixed so results are reproducible to the bit:
``sum((x - c) ** 2) < eps ** 2`` in float64, where the sum runs over the
feature axis of a C-contiguous ``(k, d)`` difference array
(:func:`exact_squared_distances`). Three fast paths find the candidate pairs and
every decision is then taken with that exact predicate, so all agree with the
literal algorithm even on exact and near ties:

The paths live in private modules: ``_shadow_compiled``, ``_shadow_screen`` and
``_shadow_grid`` (``_shadow_resolve`` holds the in-order step the last two share).

* ``"compiled"`` (the default up to ``COMPILED_MAX_DIM`` features): the literal in-order
  loop, compiled with numba, each point compared only with the centers in the ``3^G``
  cells of a grid over the data's first ``G <= 3`` principal axes around it, and of those
  only with the ones a lower bound from 8 principal coordinates cannot rule out; the exact
  predicate is summed in numpy's own order, so its bits are
  :func:`exact_squared_distances`'.

* ``"blas"`` (any d): points are taken in blocks; one GEMM per block screens
  the block against the existing centers (``(eps^2 - ||x - c||^2) / 2 > 0``, with
  the norms folded into the GEMM as two extra columns), and every pair
  that the screen cannot rule out -- its value within a rounding margin of the
  threshold or beyond it -- is re-decided exactly. Its cost is the floor
  ``2 n m d`` flops plus O(n) work per block.
* ``"grid"`` (d <= 3): a hash grid of cell side slightly above eps. A center
  within eps of a point lies in one of the ``3^d`` cells around it, and a cell
  holds at most ``2^d`` eps-separated centers, so each point checks a bounded
  number of candidates: the cost stops growing with m.

Inside a block, the points that no existing center covers decide among
themselves in visiting order (:func:`~rskpca.core._shadow_resolve._resolve_in_order`):
a few vectorised propagation rounds settle almost all of them, a short Python loop the rest.
"""

from __future__ import annotations

import numpy as np
from sklearn.utils import check_random_state

from rskpca.core.threads import blas_threads
from rskpca.core.validation import check_array_2d, check_positive
from rskpca.core._shadow_compiled import compiled_available, compiled_scan
from rskpca.core._shadow_grid import _grid_cells, _grid_scan
from rskpca.core._shadow_neighbours import EarlierDistances
from rskpca.core._shadow_neighbours import pays_off as table_pays_off
from rskpca.core._shadow_screen import SCREEN_REL_MARGIN, _blas_scan, earliest_center_within, exact_squared_distances
from rskpca.core.bandwidth_heuristic import resolve_sigma
from rskpca.core.radial_kernels import get_kernel

__all__ = ["ShadowResult", "shadow_centers", "shadow_centers_from_table", "EarlierDistances", "table_pays_off",
           "exact_squared_distances", "earliest_center_within", "SHADOW_ALGORITHMS", "GRID_MAX_DIM",
           "COMPILED_MAX_DIM", "SCREEN_REL_MARGIN"]

#: Accepted values of ``shadow_centers(..., algorithm=)``.
SHADOW_ALGORITHMS = ("auto", "blas", "grid", "compiled")
#: "auto" runs the compiled scan up to this many features (the screen above it). Its pruning
#: works on the leading principal axes; with many features spread over many axes more
#: candidates reach the d-term exact test. Screen (with threads) -> compiled, ms, from the
#: 2026-11-27 18:00 run of ``python tests/benchmarks/bench_speed.py --pendigits PATH --usps PATH
#: --repeats 10`` (rows "shadow screen (threads) -> compiled" and the shadow-path table):
#: pendigits (d = 16) at ell 2 / 4 / 8: 5.2 -> 4.3, 17.4 -> 8.9, 50.2 -> 9.6; the 13 cases of
#: d = 1-3 (n = 200,000): the compiled scan the fastest path in each, up to 5.9x the better of
#: grid and screen; digits (d = 64): 2.7 -> 3.9, 4.4 -> 3.8, 4.7 -> 1.8; usps (d = 256):
#: 43.7 -> 200.5, 71.1 -> 59.2, 77.3 -> 24.5. Up to d = 16 it never lost; at 64 and 256 it can.
COMPILED_MAX_DIM = 32
#: The grid is offered up to this dimension (3^d neighbour cells, 2^d centers per cell).
GRID_MAX_DIM = 3
#: "auto" (d <= 3) screens while the screen is expected to stay cheaper than the grid. The
#: screen costs about one unit per point and center, the grid about this many units per point
#: whatever m is: the measured crossovers in mean m over the scan (n = 200,000 standard normal,
#: ``python tests/benchmarks/bench_speed.py``, shadow-path table). In 1-d it was 200 until the
#: 2026-11-25 run put "auto" at 1.31x and 1.52x the grid at eps = 0.03 (m = 206, the screen kept
#: to the end); with 120 that case hands over to the grid (1.03x; every row of the table at most 1.10x).
GRID_SWITCH_M = {1: 120, 2: 2000, 3: 7000}
#: The growth of m is extrapolated only once this many rows (and 1% of them) are done.
_GROWTH_MIN_ROWS = 2048
#: The share of the grid's cost it pays for all rows even when it takes over late (sorting the
#: cells): a hand-over near the end of the scan costs about this much of a whole grid scan.
_GRID_FIXED_SHARE = 0.3

# Up to this n * d the scan runs on one BLAS thread: its GEMMs are too small to share,
# and threads that wait on each other cost more than they give on a busy 2-core machine.
_SINGLE_THREAD_MAX_ND = 200_000


class ShadowResult:
    """Output of :func:`shadow_centers`.

    Attributes
    ----------
    centers : ndarray of shape (m, d)
        The shadow centers (rows of X, in creation order). Given, or read from ``source``
        the first time they are asked for: a caller that only needs the indices and
        weights (the app's ell scrubbers: 19 shadows per sigma) never copies m x d values.
        Read-only when ``center_indices`` is.
    center_indices : ndarray of shape (m,)
        Row index in X of each center.
    weights : ndarray of shape (m,)
        Number of rows absorbed by each center (including itself); sums to n.
    labels : ndarray of shape (n,)
        Center (in ``[0, m)``) that each row of X belongs to.
    eps : float
        The shadow radius ``sigma / ell``.
    sigma, ell : float
        The parameters used.
    kernel : str
        Kernel name (it only matters for the bounds; selection uses eps).
    algorithm : str
        The path that ran: ``"compiled"``, ``"grid"``, ``"blas"`` or ``"blas+grid"`` (the
        screen, then the grid once that was expected to cost less, see ``GRID_SWITCH_M``);
        the results are identical.

    Examples
    --------
    >>> X = np.array([[0.0], [0.1], [1.0]])
    >>> s = ShadowResult(center_indices=np.array([0, 2]), weights=np.array([2, 1]), labels=np.array([0, 0, 1]),
    ...                  eps=0.5, sigma=1.0, ell=2.0, kernel="gaussian", source=X)
    >>> s.centers.tolist(), s.m, s.n
    ([[0.0], [1.0]], 2, 3)
    """

    __slots__ = ("_centers", "_source", "center_indices", "weights", "labels", "eps", "sigma", "ell", "kernel",
                 "algorithm")

    def __init__(self, *, center_indices: np.ndarray, weights: np.ndarray, labels: np.ndarray, eps: float,
                 sigma: float, ell: float, kernel: str, algorithm: str = "blas", centers: np.ndarray | None = None,
                 source: np.ndarray | None = None):
        if (centers is None) == (source is None):
            raise ValueError("pass the centers or the source rows they are read from (one of them).")
        for name, value in [("_centers", centers), ("_source", source), ("center_indices", center_indices),
                            ("weights", weights), ("labels", labels), ("eps", eps), ("sigma", sigma), ("ell", ell),
                            ("kernel", kernel), ("algorithm", algorithm)]:
            object.__setattr__(self, name, value)

    def __setattr__(self, name, value):
        raise AttributeError(f"ShadowResult is read-only: cannot set {name!r}.")

    def __getstate__(self):
        return {name: getattr(self, name) for name in self.__slots__}

    def __setstate__(self, state):
        for name, value in state.items():
            object.__setattr__(self, name, value)

    def __repr__(self) -> str:
        return (f"ShadowResult(m={self.m}, n={self.n}, eps={self.eps!r}, sigma={self.sigma!r}, ell={self.ell!r}, "
                f"kernel={self.kernel!r}, algorithm={self.algorithm!r})")

    @property
    def centers(self) -> np.ndarray:
        """The shadow centers (rows of X), read from ``source`` on first use."""
        centers = self._centers
        if centers is None:
            # (the source stays referenced: a result shared between threads may be asked twice at once,
            # and each then copies; neither finds it gone)
            centers = self._source[self.center_indices]  # fancy indexing copies
            if not self.center_indices.flags.writeable:
                centers.setflags(write=False)
            object.__setattr__(self, "_centers", centers)
        return centers

    @property
    def m(self) -> int:
        """Number of centers."""
        return int(self.center_indices.shape[0])

    @property
    def n(self) -> int:
        """Number of points."""
        return int(self.labels.shape[0])

    def distances_to_centers(self, X) -> np.ndarray:
        """``||x_i - c_{alpha(i)}||`` for every row of the X this was computed on."""
        X = np.asarray(X, dtype=np.float64)
        diff = X - self.centers[self.labels]
        return np.sqrt(np.einsum("ij,ij->i", diff, diff))


def _shadow_scan(X: np.ndarray, eps: float, algorithm: str = "auto"):
    """Fast Algorithm 2 on float64 X in visiting order: (center_rows, labels, algorithm used)."""
    threads = 1 if X.size <= _SINGLE_THREAD_MAX_ND else None
    with blas_threads(threads):
        return _dispatch_backend(X, eps, algorithm)


def _grid_pays_off(n: int, crossover: float):
    """The screen's stop rule for "auto": hand over once the grid is expected to cost less.

    In units of one screened (point, center) pair, the screen's cost for the rows left is
    their count times the mean m over them; the grid's is ``crossover`` per row, a share
    :data:`_GRID_FIXED_SHARE` of which it pays for all n rows even when it starts late.
    m grows along the scan like ``i^alpha`` (fitted from halfway through the rows done to
    now), which predicts the mean m over the rest. Only the path changes: both give the
    same result.
    """
    seen: list[tuple[int, int]] = []

    def stop(done: int, m: int) -> bool:
        seen.append((done, m))
        if done < max(_GROWTH_MIN_ROWS, n // 100) or m == 0:
            return m >= 2 * crossover  # too early to extrapolate: only a clear case
        half = next((mm for dd, mm in seen if 2 * dd >= done), m)  # m about halfway
        alpha = min(1.0, max(0.0, np.log(max(m, 1) / max(half, 1)) / np.log(2.0)))
        ratio = n / done
        rest = n - done
        mean_rest = m * (ratio ** (alpha + 1.0) - 1.0) / ((alpha + 1.0) * (ratio - 1.0))
        grid = crossover * (_GRID_FIXED_SHARE * n + (1.0 - _GRID_FIXED_SHARE) * rest)
        return mean_rest * rest >= grid

    return stop


def _dispatch_backend(X: np.ndarray, eps: float, algorithm: str):
    """Run the compiled, grid or BLAS scan, as ``algorithm`` asks and the data allows."""
    d = X.shape[1]
    if algorithm == "compiled" or (algorithm == "auto" and d <= COMPILED_MAX_DIM and compiled_available()):
        if not compiled_available():
            raise ValueError("algorithm='compiled' needs numba, which could not be imported; "
                             "reinstall rskpca (numba is a dependency) or use algorithm='blas'.")
        found = compiled_scan(X, eps)
        if found is not None:
            return (*found, "compiled")
        if algorithm == "compiled":
            raise ValueError("algorithm='compiled' cannot project this data (values near the float64 range); "
                             "use algorithm='blas' (or 'auto', which picks it).")
        algorithm = "blas"  # data near the float64 range: the screen rescales its coordinates
    if algorithm == "blas" or d > GRID_MAX_DIM:
        if algorithm == "grid":
            raise ValueError(
                f"algorithm='grid' works for at most {GRID_MAX_DIM} features (3^d neighbour cells); "
                f"X has {d}. Use algorithm='blas' (or 'auto', which picks it)."
            )
        return (*_blas_scan(X, eps)[:2], "blas")
    if algorithm == "grid":
        grid = _grid_cells(X, eps)
        if grid is None:
            raise ValueError(
                "algorithm='grid' needs the data span divided by eps = sigma/ell below 2^30 cells per "
                "axis; this data is too spread out for that eps. Use algorithm='blas' (or 'auto')."
            )
        return (*_grid_scan(X, eps, *grid), "grid")
    # auto: the screen costs O(m d) per point and the grid O(3^d) with a much larger
    # constant, so the screen runs first and hands over to the grid once the grid is expected
    # to cost less for the rest; the grid resumes where the screen stopped (nothing is redone).
    rows, labels, done = _blas_scan(X, eps, stop_rule=_grid_pays_off(X.shape[0], GRID_SWITCH_M[d]))
    if done == X.shape[0]:
        return rows, labels, "blas"
    grid = _grid_cells(X, eps)
    if grid is None:  # too spread out for integer cells: the screen does it all
        return (*_blas_scan(X, eps)[:2], "blas")
    return (*_grid_scan(X, eps, *grid, resume=(rows, labels, done)), "blas+grid")


def shadow_centers(X, *, sigma: float | str, ell: float, kernel: str = "gaussian",
                   order: str = "input", random_state=None, algorithm: str = "auto") -> ShadowResult:
    """Select shadow centers with ``eps = sigma / ell`` (Algorithm 2).

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        Real data; NaN, inf, complex values and text are refused with a message
        naming the fix.
    sigma : float or "median"
        Kernel bandwidth (``k = exp(-||x-y||^2 / sigma^2)`` for the Gaussian).
        "median": the median pairwise distance on a subsample seeded by
        ``random_state``, as the estimators' ``sigma="median"`` (the result's
        ``sigma`` holds the value).
    ell : float
        Shadow parameter; the radius is ``sigma / ell``. Larger ell gives more centers.
    kernel : {"gaussian", "laplacian"}, default="gaussian"
        Recorded for the bounds; the selection only depends on eps.
    order : {"input", "random"}, default="input"
        Visit points in input order (the paper) or in a random order drawn from
        ``random_state``. Indices and labels always refer to the original rows.
    random_state : int, RandomState instance or None, default=None
        Seed for ``order="random"`` and ``sigma="median"``.
    algorithm : {"auto", "compiled", "blas", "grid"}, default="auto"
        How candidate pairs are found; the result is identical. "compiled" (the
        in-order loop compiled with numba, candidates from a grid over the leading
        principal axes) is for any d; "grid" (a hash grid, cost independent of m) for
        at most 3 features; "blas" (blocked GEMM screens) for any. "auto" runs
        "compiled" up to ``COMPILED_MAX_DIM`` features; above it (or without numba, or
        for data near the float64 range) it starts with the screen and, for at most 3
        features, hands over to the grid once the growth of m so far says the grid will
        cost less for the rest (``GRID_SWITCH_M``).

    Returns
    -------
    ShadowResult
        ``centers``, ``center_indices``, ``weights`` (sum n), ``labels``, ``eps``,
        ``algorithm``.

    Examples
    --------
    >>> import numpy as np
    >>> from rskpca import shadow_centers
    >>> X = np.array([[0.0], [0.1], [1.0], [1.05], [5.0]])
    >>> s = shadow_centers(X, sigma=1.0, ell=4.0)
    >>> s.center_indices.tolist(), s.weights.tolist(), s.labels.tolist()
    ([0, 2, 4], [2, 2, 1], [0, 0, 1, 1, 2])
    >>> s.algorithm, shadow_centers(X, sigma=1.0, ell=4.0, algorithm="blas").labels.tolist()
    ('compiled', [0, 0, 1, 1, 2])
    """
    X = check_array_2d(X, name="X")
    sigma = resolve_sigma(sigma, X, random_state)
    ell = check_positive(ell, "ell")
    get_kernel(kernel)
    eps = sigma / ell
    if not np.isfinite(eps * eps) or eps * eps == 0.0:
        raise ValueError(
            f"eps = sigma / ell = {eps!r} has a square that is 0 or overflows in float64; "
            "choose sigma and ell so that sigma / ell lies roughly in [1e-150, 1e150]."
        )
    if order not in ("input", "random"):
        raise ValueError(f"order must be 'input' or 'random', got {order!r}.")
    if algorithm not in SHADOW_ALGORITHMS:
        raise ValueError(f"algorithm must be one of {SHADOW_ALGORITHMS}, got {algorithm!r}.")
    n = X.shape[0]
    if order == "random":
        perm = check_random_state(random_state).permutation(n)
        idx_p, labels_p, used = _shadow_scan(np.ascontiguousarray(X[perm]), eps, algorithm)
        center_indices = perm[idx_p]
        labels = np.empty(n, dtype=np.intp)
        labels[perm] = labels_p
    else:
        center_indices, labels, used = _shadow_scan(X, eps, algorithm)
    return _result(X, center_indices, labels, sigma, ell, kernel, used)


def _result(X, center_indices, labels, sigma, ell, kernel, used, lazy: bool = False) -> ShadowResult:
    # ``lazy``: X is rows nobody can change (a table's own read-only copy), read when the centers are
    # first asked for; a caller's array could change after the call, so its centers are copied now.
    return ShadowResult(
        centers=None if lazy else X[center_indices], source=X if lazy else None,
        center_indices=center_indices,
        weights=np.bincount(labels, minlength=center_indices.shape[0]),
        labels=labels,
        eps=float(sigma / ell),
        sigma=float(sigma),
        ell=float(ell),
        kernel=get_kernel(kernel).name,
        algorithm=used,
    )


def shadow_centers_from_table(table: EarlierDistances, *, sigma: float, ell: float,
                              kernel: str = "gaussian") -> ShadowResult | None:
    """:func:`shadow_centers` (input order) read off a table of the distances to earlier rows.

    The table (:class:`~rskpca.core._shadow_neighbours.EarlierDistances`) is computed once per
    data set and serves every sigma and ell: where shadows are needed at many radii (the
    app's ell grid, again at each sigma) and d is large, this is several times faster than
    scanning each time. The result is identical to ``shadow_centers(table.X, ...)``, with
    ``algorithm="table"``. Returns None where the radius holds too many pairs
    (``MAX_PAIRS``): the data are dense there and :func:`shadow_centers` is the fast way.

    Examples
    --------
    >>> import numpy as np
    >>> from rskpca.core.shadow import EarlierDistances
    >>> X = np.array([[0.0], [0.1], [1.0], [1.05], [5.0]])
    >>> s = shadow_centers_from_table(EarlierDistances(X), sigma=1.0, ell=4.0)
    >>> s.center_indices.tolist(), s.weights.tolist(), s.algorithm
    ([0, 2, 4], [2, 2, 1], 'table')
    """
    sigma, ell = check_positive(sigma, "sigma"), check_positive(ell, "ell")
    found = table.shadow(sigma / ell)
    if found is None:
        return None
    return _result(table.X, *found, sigma, ell, kernel, "table", lazy=True)
