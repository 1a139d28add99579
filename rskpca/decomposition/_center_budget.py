"""A ceiling on the number of centers, and a cheap refinement of where they sit.

**Budget.** The shadow's m at ``eps = sigma / ell`` grows like ``eps^-d`` for data spread over d
dimensions: at the median-heuristic sigma it keeps most rows of 256-d images, and the m x m
problem is then as large as the n x n one; in low dimension it can leave a handful of centers,
too few for a landmark graph. :func:`shadow_within_budget` picks eps for a target instead: the
smallest radius with ``m <= max_centers``, by a bisection in log eps on a seeded subsample
(cheap; the subsample's m is at most about the full data's at the same eps, so it gives a lower
bound), then full scans, each aimed where the subsample's count times the full/subsample ratio
the last scan measured meets the target, until the radius is known to about 5 %. The result is an
ordinary shadow at the final eps (every row within eps of its center), so its exactness on the
quantized data holds at that eps.

**Refinement.** Cai & Chen (2015) found k-means landmarks better than random ones for LSC; the
shadow's centers are rows picked in scan order, as evenly spread as a cover, not placed at the
mass. :func:`lloyd_refine` takes a few Lloyd steps seeded by the centers (weighted k-means
from a good start), on a seeded subsample of rows when n is large; the rows' nearest centers
then give the weights.
"""

from __future__ import annotations

import functools

import numpy as np
import scipy.sparse as sp
from sklearn.metrics._pairwise_distances_reduction import ArgKmin

from rskpca.core.budget_target import center_target
from rskpca.core.row_draws import uniform_rows
from rskpca.core.threads import map_row_blocks
from rskpca.core.shadow import EarlierDistances, shadow_centers, shadow_centers_from_table, table_pays_off

__all__ = ["shadow_within_budget", "lloyd_refine", "nearest_center", "SUBSAMPLE_PER_CENTER"]

#: The budget's bisection runs on this many rows per allowed center, and at least BISECTION_MIN_ROWS
#: (at most all rows). Its cost grows with the square of its rows on wide data (a table of their
#: distances), and the aimed full scans correct its count for the rows it leaves out.
BISECTION_ROWS_PER_CENTER = 2
BISECTION_MIN_ROWS = 2000
#: Where the target search starts, as a multiple of 1 / sigma (the estimators' default ell).
DEFAULT_ELL = 4.0
#: The full scans stop when the radius is known to this ratio. m falls like a power of the radius (about the
#: 5th on USPS), so a looser bracket leaves m anywhere in a wide band below the budget, and two fits of the same
#: data then cluster differently (``python tests/benchmarks/bench_spectral.py --cases predict``) ...
FULL_SCAN_TOLERANCE = 1.05
#: ... or after this many aimed scans (then at most a few doublings, if none fitted).
MAX_FULL_SCANS = 6
#: Lloyd steps see at most this many rows per center: the means settle long before every row is seen.
SUBSAMPLE_PER_CENTER = 50


def _shadow(X, eps, *, kernel, order, rng):
    # shadow_centers takes sigma and ell; only eps = sigma / ell matters to the selection.
    return shadow_centers(X, sigma=eps, ell=1.0, kernel=kernel, order=order, random_state=rng)


def shadow_within_budget(X, *, sigma: float, ell: float | None, max_centers: int | None, kernel="gaussian",
                         order="input", random_state=None):
    """The shadow at ``sigma / ell``, or at the smallest radius (to about 5 %) within ``max_centers``.

    * ``ell`` a number, ``max_centers=None``: the plain shadow at ``sigma / ell``.
    * ``ell`` a number and a budget: eps is ``sigma / ell`` when that fits, else widened until
      m fits (a ceiling).
    * ``ell=None``: a target -- the smallest radius with at most ``min(max_centers,
      max(n // ROWS_PER_CENTER, MIN_TARGET))`` centers, so m lands just under it (all distinct
      rows when there are fewer).

    The result's ``eps`` is the radius used.

    >>> import numpy as np
    >>> X = np.random.default_rng(0).normal(size=(2000, 3))
    >>> s = shadow_within_budget(X, sigma=1.0, ell=None, max_centers=100, random_state=0)
    >>> 70 <= s.m <= 100
    True
    >>> shadow_within_budget(X, sigma=1.0, ell=0.5, max_centers=100, random_state=0).eps  # fits: kept
    2.0
    """
    X = np.asarray(X, dtype=np.float64)
    rng = random_state if isinstance(random_state, np.random.RandomState) \
        else np.random.RandomState(random_state)
    if max_centers is None:
        if ell is None:
            raise ValueError("ell=None picks the radius from max_centers; give max_centers or a number for ell.")
        return shadow_centers(X, sigma=sigma, ell=ell, kernel=kernel, order=order, random_state=rng)
    n = X.shape[0]
    budget = center_target(n, max_centers) if ell is None else int(max_centers)
    if n <= budget and ell is None:  # every distinct row a center: a radius below every distance between them
        return _shadow(X, float(sigma) * 1e-12, kernel=kernel, order=order, rng=rng)
    pick = uniform_rows(n, min(n, max(BISECTION_ROWS_PER_CENTER * budget, BISECTION_MIN_ROWS)), rng)
    floor = None if ell is None else float(sigma) / float(ell)
    S = X[pick]
    table = EarlierDistances(S) if table_pays_off(*S.shape) else None

    counts = {}

    def sub_m(eps):
        if eps not in counts:
            counts[eps] = _subsample_m(table, S, eps)
        return counts[eps]

    eps = _bisect_subsample(sub_m, S.shape[0], functools.cache(lambda: np.unique(S, axis=0).shape[0]),
                            float(sigma) / DEFAULT_ELL if floor is None else floor, budget, floor=floor)
    best = _shadow(X, eps, kernel=kernel, order=order, rng=rng)
    if best.m <= budget:
        return best
    # The subsample's m is a lower bound of the full data's at the same eps; their ratio changes slowly
    # with eps, so each full scan aims where the subsample's count, times the ratio the last scan
    # measured, meets the budget (a few cheap shadows on the subsample per full scan).
    lo, hi, ratio = eps, None, best.m / max(sub_m(eps), 1)
    for _ in range(MAX_FULL_SCANS):
        if hi is not None and hi / lo <= FULL_SCAN_TOLERANCE:
            break
        eps = _aim(sub_m, counts, budget / ratio, lo, hi)
        s = _shadow(X, eps, kernel=kernel, order=order, rng=rng)
        ratio = s.m / max(sub_m(eps), 1)
        if s.m <= budget:
            hi, best = eps, s
        else:
            lo = eps
    while hi is None:  # the aim kept falling short: widen by doubling
        lo, eps = eps, eps * 2.0
        s = _shadow(X, eps, kernel=kernel, order=order, rng=rng)
        if s.m <= budget:
            hi, best = eps, s
    return best


def _aim(sub_m, counts: dict, target: float, lo: float, hi: float | None) -> float:
    """Where the subsample's m crosses ``target`` above ``lo`` (and below ``hi``), kept 2 % inside the bracket.

    Bracketed by the radii the subsample was already counted at (``counts``), narrowed to 5 %,
    then interpolated in log m against log eps (the count falls like a power of the radius).
    """
    low, top = lo, None
    for eps, m in sorted(counts.items()):
        if eps > lo and (hi is None or eps < hi) and m <= target:
            top = eps
            break
    if top is None:
        top = hi if hi is not None else lo * 2.0
        while hi is None and sub_m(top) > target and top < lo * 64.0:
            low, top = top, top * 2.0
    low = max([low] + [eps for eps, m in counts.items() if low <= eps < top and m > target])
    low, top = _narrow(sub_m, target, low, top)
    m_low, m_top = counts.get(low), counts.get(top)
    aim = top
    if m_low and m_top and m_low > target >= m_top > 0:
        aim = low * (top / low) ** (np.log(m_low / target) / np.log(m_low / m_top))
    return float(np.clip(aim, lo * 1.02, hi / 1.02 if hi is not None else np.inf))


def _subsample_m(table, S, eps: float) -> int:
    s = shadow_centers_from_table(table, sigma=eps, ell=1.0) if table is not None else None
    return (s if s is not None else _shadow(S, eps, kernel="gaussian", order="input", rng=None)).m


def _bisect_subsample(sub_m, n_sub: int, n_distinct, eps0: float, budget: int, *,
                      floor: float | None = None) -> float:
    """The smallest eps (to 5 %) whose shadow on the subsample has at most ``budget`` centers.

    ``sub_m(eps)`` is the subsample's m (read off one table of distances between its rows where that
    pays, on wide data: :class:`~rskpca.core.shadow.EarlierDistances`; else a scan), ``n_distinct()``
    its number of distinct rows.
    The search starts at ``eps0``; with a ``floor`` it never goes below it (and returns it when
    it fits). The subsample's m is at most about the full data's at the same eps, so this eps
    is where the full scans start.
    """
    eps, m = eps0, sub_m(eps0)
    if m <= budget and floor is not None:
        return eps
    if m <= budget:  # walk down to a radius with too many centers
        lo, hi = eps / 2.0, eps
        while True:
            m_lo = sub_m(lo)
            if m_lo > budget:
                break
            if m_lo == n_sub or m_lo == n_distinct():  # every sampled row a center already: the full data decides
                return lo
            hi, lo = lo, lo / 2.0
    else:
        lo, hi = eps, eps * 2.0
        while sub_m(hi) > budget:
            lo, hi = hi, hi * 2.0
    return _narrow(sub_m, budget, lo, hi)[1]


def _narrow(sub_m, target: float, low: float, top: float) -> tuple[float, float]:
    """``(low, top)`` bisected in log eps to within 5 %, keeping ``sub_m(low) > target >= sub_m(top)``."""
    while top / low > 1.05:
        mid = np.sqrt(low * top)
        if sub_m(mid) <= target:
            top = mid
        else:
            low = mid
    return low, top


def nearest_center(X, C) -> np.ndarray:
    """Index of each row's nearest center (scikit-learn's chunked ``ArgKmin``; ties: lowest index)."""
    return ArgKmin.compute(np.ascontiguousarray(X, dtype=np.float64), np.ascontiguousarray(C, dtype=np.float64),
                           k=1, metric="sqeuclidean", chunk_size=256, return_distance=False)[:, 0].astype(np.intp)


#: Rows per block of the Lloyd steps' distance products (a block x m float32 matrix at a time).
_LLOYD_BLOCK_ROWS = 2048


def _nearest_center_f32(X32, C) -> np.ndarray:
    """Each row's nearest center by float32 products ``-2 x.c + |c|^2`` (about twice as fast as float64 on wide
    data): the Lloyd steps only move seeds, so a near-tie settled the other way moves a mean by a hair, while the
    assignments that weigh the centers stay exact (:func:`nearest_center`, and the landmark graph's own search)."""
    C32 = np.ascontiguousarray(C, dtype=np.float32)
    c2 = np.einsum("ij,ij->i", C32, C32)
    near = np.empty(X32.shape[0], dtype=np.intp)

    def block(start):
        G = X32[start:start + _LLOYD_BLOCK_ROWS] @ C32.T
        G *= -2.0
        G += c2[None, :]
        near[start:start + G.shape[0]] = G.argmin(axis=1)

    map_row_blocks(block, range(0, X32.shape[0], _LLOYD_BLOCK_ROWS))
    return near


def lloyd_refine(X, C, steps: int, *, random_state=None) -> np.ndarray:
    """``steps`` Lloyd steps from centers C (each center the mean of the rows nearest to it).

    On at most ``SUBSAMPLE_PER_CENTER * m`` seeded rows; a center no row picks stays where it was.

    >>> import numpy as np
    >>> X = np.array([[0.0], [1.0], [10.0], [12.0]])
    >>> lloyd_refine(X, np.array([[0.0], [10.0]]), 1).ravel().tolist()
    [0.5, 11.0]
    """
    X = np.asarray(X, dtype=np.float64)
    C = np.array(C, dtype=np.float64)
    if steps <= 0:
        return C
    n, m = X.shape[0], C.shape[0]
    if n > SUBSAMPLE_PER_CENTER * m:
        X = X[uniform_rows(n, SUBSAMPLE_PER_CENTER * m, random_state)]
    X32 = np.ascontiguousarray(X, dtype=np.float32)
    for _ in range(int(steps)):
        near = _nearest_center_f32(X32, C)
        counts = np.bincount(near, minlength=m)
        # the rows' sums per center as one sparse (m x n) product: one pass in compiled code, where a scatter-add
        # by row is several times slower (python tests/benchmarks/bench_spectral.py --cases real times the fit)
        sums = sp.csr_matrix((np.ones(X.shape[0]), (near, np.arange(X.shape[0]))), shape=(m, X.shape[0])) @ X
        hit = counts > 0
        C[hit] = sums[hit] / counts[hit, None]
    return C
