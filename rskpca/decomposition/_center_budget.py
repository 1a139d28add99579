"""A ceiling on the number of centers, and a cheap refinement of where they sit.

**Budget.** The shadow's m at ``eps = sigma / ell`` grows like ``eps^-d`` for data spread over d
dimensions: at the median-heuristic sigma it keeps most rows of 256-d images, and the m x m
problem is then as large as the n x n one; in low dimension it can leave a handful of centers,
too few for a landmark graph. :func:`shadow_within_budget` picks eps for a target instead: the
smallest radius with ``m <= max_centers``, by a bisection in log eps on a seeded subsample
(cheap; the subsample's m is at most about the full data's at the same eps, so it gives a lower
bound), then full scans, each widening eps by the measured rate ``m ~ eps^-slope`` until the
count fits. The result is an ordinary shadow at the final eps (every row within eps of its
center), so its exactness on the quantized data holds at that eps.

**Refinement.** Cai & Chen (2015) found k-means landmarks better than random ones for LSC; the
shadow's centers are rows picked in scan order, as evenly spread as a cover, not placed at the
mass. :func:`lloyd_refine` takes a few Lloyd steps seeded by the centers (weighted k-means
from a good start), on a seeded subsample of rows when n is large; the rows' nearest centers
then give the weights.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from sklearn.metrics._pairwise_distances_reduction import ArgKmin

from rskpca.core.row_draws import uniform_rows
from rskpca.core.shadow import EarlierDistances, shadow_centers, shadow_centers_from_table, table_pays_off

__all__ = ["shadow_within_budget", "lloyd_refine", "nearest_center", "SUBSAMPLE_PER_CENTER"]

#: The budget's bisection runs on this many rows per allowed center (at most all rows).
BISECTION_ROWS_PER_CENTER = 4
#: The target leaves at least this many rows per center on average (small data): with about as many
#: landmarks as rows, each row is its own nearest landmark at distance 0, its self-link outweighs
#: its other K - 1, and the landmark graph falls into near-isolated rows whose eigenvectors pick
#: out outliers (measured by ``tests/benchmarks/bench_spectral.py --cases real``; RESULTS.md).
ROWS_PER_CENTER = 8
#: ... but never fewer than this many centers (tiny data: every row).
MIN_TARGET = 50
#: Where the target search starts, as a multiple of 1 / sigma (the estimators' default ell).
DEFAULT_ELL = 4.0
#: The full scans stop when the radius is known to this ratio.
FULL_SCAN_TOLERANCE = 1.1
#: Lloyd steps see at most this many rows per center: the means settle long before every row is seen.
SUBSAMPLE_PER_CENTER = 50


def _shadow(X, eps, *, kernel, order, rng):
    # shadow_centers takes sigma and ell; only eps = sigma / ell matters to the selection.
    return shadow_centers(X, sigma=eps, ell=1.0, kernel=kernel, order=order, random_state=rng)


def shadow_within_budget(X, *, sigma: float, ell: float | None, max_centers: int | None, kernel="gaussian",
                         order="input", random_state=None):
    """The shadow at ``sigma / ell``, or at the smallest radius (to about 10 %) within ``max_centers``.

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
    budget = int(max_centers)
    n = X.shape[0]
    if ell is None:  # a target: leave each center several rows (see ROWS_PER_CENTER)
        budget = min(budget, max(n // ROWS_PER_CENTER, MIN_TARGET))
    if n <= budget and ell is None:  # every distinct row a center: a radius below every distance between them
        return _shadow(X, float(sigma) * 1e-12, kernel=kernel, order=order, rng=rng)
    pick = uniform_rows(n, min(n, BISECTION_ROWS_PER_CENTER * budget), rng)
    floor = None if ell is None else float(sigma) / float(ell)
    eps, slope = _bisect_subsample(X[pick], float(sigma) / DEFAULT_ELL if floor is None else floor, budget,
                                   floor=floor)
    best = _shadow(X, eps, kernel=kernel, order=order, rng=rng)
    if best.m <= budget:
        return best
    lo = eps
    while best.m > budget:  # m ~ eps^-slope: widen by the rate that would bring m to the budget
        lo, eps = eps, eps * max(1.02, (best.m / budget) ** (1.0 / slope) * 1.01)
        best = _shadow(X, eps, kernel=kernel, order=order, rng=rng)
    hi = eps
    while hi / lo > FULL_SCAN_TOLERANCE:  # the last widening may overshoot: bisect back on the full data
        mid = np.sqrt(lo * hi)
        s = _shadow(X, mid, kernel=kernel, order=order, rng=rng)
        if s.m <= budget:
            hi, best = mid, s
        else:
            lo = mid
    return best


def _subsample_m(table, S, eps: float) -> int:
    s = shadow_centers_from_table(table, sigma=eps, ell=1.0) if table is not None else None
    return (s if s is not None else _shadow(S, eps, kernel="gaussian", order="input", rng=None)).m


def _bisect_subsample(S, eps0: float, budget: int, *, floor: float | None = None):
    """``(eps, slope)``: the smallest eps (to 5 %) whose shadow on S has at most ``budget`` centers, and the rate.

    The search starts at ``eps0``; with a ``floor`` it never goes below it (and returns it when
    it fits). The subsample's m is at most about the full data's at the same eps, so this eps
    is where the full scans start. Where it pays (wide data) the shadows at every trial radius
    are read off one table of distances between the subsample's rows
    (:class:`~rskpca.core.shadow.EarlierDistances`); else each is a scan.
    """
    table = EarlierDistances(S) if table_pays_off(*S.shape) else None
    eps, m = eps0, _subsample_m(table, S, eps0)
    if m <= budget and floor is not None:
        return eps, float(S.shape[1])
    if m <= budget:  # walk down to a radius with too many centers
        lo, m_lo, hi, m_hi = eps / 2.0, None, eps, m
        while True:
            m_lo = _subsample_m(table, S, lo)
            if m_lo > budget:
                break
            if m_lo == S.shape[0]:  # every sampled row a center already: the full data decides
                return lo, float(S.shape[1])
            hi, m_hi, lo = lo, m_lo, lo / 2.0
    else:
        lo, m_lo, hi = eps, m, eps * 2.0
        while (m_hi := _subsample_m(table, S, hi)) > budget:
            lo, m_lo, hi = hi, m_hi, hi * 2.0
    while hi / lo > 1.05:
        mid = np.sqrt(lo * hi)
        m_mid = _subsample_m(table, S, mid)
        if m_mid <= budget:
            hi, m_hi = mid, m_mid
        else:
            lo, m_lo = mid, m_mid
    # the rate over a halving of the radius: the bracket itself is too narrow to measure it
    slope = np.log2(max(_subsample_m(table, S, hi / 2.0), 2) / max(m_hi, 1))
    return hi, float(np.clip(slope, 1.0, S.shape[1]))


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
    for start in range(0, X32.shape[0], _LLOYD_BLOCK_ROWS):
        G = X32[start:start + _LLOYD_BLOCK_ROWS] @ C32.T
        G *= -2.0
        G += c2[None, :]
        near[start:start + G.shape[0]] = G.argmin(axis=1)
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
