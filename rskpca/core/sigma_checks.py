"""Checks of sigma against the data: so large that the kernel is constant, so small that it is the identity.

Both ends make kernel PCA meaningless while every number stays finite: a constant kernel
matrix centers to rounding noise, an identity one has every direction as an eigenvector.
The estimators refuse the first (:func:`check_kernel_spread`); the app warns about the
second (:func:`kernel_identity`), where a sigma is legal but shows nothing.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from sklearn.neighbors import NearestNeighbors

from rskpca.core.radial_kernels import get_kernel, squared_distances
from rskpca.core.row_draws import uniform_rows
from rskpca.core.threads import map_row_blocks
from rskpca.core.validation import check_positive, column_extremes

__all__ = ["CONSTANT_KERNEL_SPREAD", "data_extent", "check_kernel_spread", "IDENTITY_KERNEL", "neighbour_distance",
           "KernelIdentity", "kernel_identity"]


#: Above this many data extents per sigma (to the kernel's power), every kernel value is 1 to within
#: 1e-10: the centered kernel matrix is then float64 rounding (about 1e-16) magnified, and kernel PCA
#: would return noise (or ARPACK fails with "Starting vector is zero" where every value is exactly 1).
CONSTANT_KERNEL_SPREAD = 1e-10


def data_extent(arr: np.ndarray, extremes=None) -> float:
    """``sqrt(sum_j (max_j - min_j)^2)``: at least every distance between rows of ``arr``.

    >>> data_extent(np.array([[0.0, 0.0], [3.0, 4.0]]))
    5.0
    """
    high, low = column_extremes(arr) if extremes is None else extremes
    return float(np.sqrt(np.sum((high.astype(np.float64) - low) ** 2)))


def check_kernel_spread(arr: np.ndarray | None, sigma: float, *, power: float = 2.0, name: str = "X",
                        extent: float | None = None, extremes=None) -> None:
    """A ``ValueError`` if sigma is so large against the data's extent that the kernel is constant.

    The extent ``sqrt(sum_j (max_j - min_j)^2)`` bounds every distance between rows, so when
    ``(extent / sigma) ** power`` (``power``: the kernel's exponent, 2 for the Gaussian) is below
    :data:`CONSTANT_KERNEL_SPREAD`, every kernel value ``exp(-(d / sigma) ** power)`` is 1 to within it.
    Constant data (extent 0) is :func:`check_not_constant`'s case. ``extent`` (or the column
    ``extremes``), when the caller has it, saves reading ``arr`` again.

    >>> check_kernel_spread(np.array([[0.0], [2.0]]), 1e3)
    >>> check_kernel_spread(np.array([[0.0], [2.0]]), 1e9)
    Traceback (most recent call last):
    ...
    ValueError: sigma = 1e+09 is 5e+08 times the extent of X (2): every kernel value is 1 to within 1e-10, ...
    """
    extent = data_extent(arr, extremes) if extent is None else float(extent)
    if extent > 0 and (extent / sigma) ** power < CONSTANT_KERNEL_SPREAD:
        raise ValueError(
            f"sigma = {sigma:.4g} is {sigma / extent:.3g} times the extent of {name} ({extent:.4g}): every kernel "
            f"value is 1 to within {CONSTANT_KERNEL_SPREAD:g}, so the kernel matrix is constant up to rounding and "
            "kernel PCA would return noise. Lower sigma (sigma='median' uses the median distance between rows)."
        )


#: Below this kernel value at the distance asked (by default between neighbouring rows) the kernel
#: matrix is the identity to the eye: kernel PCA finds no structure and a density is a spike per point.
IDENTITY_KERNEL = 1e-6


def neighbour_distance(arr: np.ndarray, *, max_rows: int = 1000, random_state=0) -> float:
    """The median distance from a row of ``arr`` to its nearest other row.

    At most ``max_rows`` rows, drawn with ``random_state``, ask; each against every row (against a
    sample only, the nearest rows of 2-D data are several times farther). Above 250,000 rows fewer
    ask, so that about 2 x 10^8 pairs are compared (at least 64 rows ask). The scale at which
    :func:`kernel_identity` asks whether a sigma is too small for the data.

    Parameters
    ----------
    arr : ndarray of shape (n_samples, n_features)
        The data, at least 2 rows.
    max_rows : int, default=1000
        The most rows whose nearest neighbour is looked up.
    random_state : int, default=0
        Seed of the rows drawn when there are more than ``max_rows``.

    Returns
    -------
    float
        The median nearest-neighbour distance (0 when most rows have a duplicate).

    Examples
    --------
    >>> neighbour_distance(np.array([[0.0], [1.0], [3.0]]))
    1.0
    """
    arr = np.asarray(arr, dtype=np.float64)
    n = arr.shape[0]
    if n < 2:
        raise ValueError(f"the distance to the nearest other row needs at least 2 rows; got {n}.")
    if n > _TREE_MAX_ROWS:  # each asking row is compared with every row: a budget of pairs, not of rows
        max_rows = min(max_rows, max(_MIN_ASKING_ROWS, _PAIR_BUDGET // n))
    rows = uniform_rows(n, min(max_rows, n), np.random.default_rng(random_state))  # a median: order is moot
    if n <= _TREE_MAX_ROWS:
        dist, _ = NearestNeighbors(n_neighbors=2).fit(arr).kneighbors(arr[rows])
        return float(np.median(dist[:, 1]))
    return float(np.median(np.sqrt(_nearest_other_squared(arr, rows))))


#: Up to this many rows a tree answers :func:`neighbour_distance`; above, building the tree over every row
#: costs more than comparing the few asking rows with every row by GEMM (a tree's build is O(n log n) with a
#: large constant, the GEMM O(n * asking rows) at BLAS speed; the crossover: tests/benchmarks/RESULTS.md, *Thresholds in the code*).
_TREE_MAX_ROWS = 250_000
#: ...where at most this many pairs are compared, and at least this many rows ask: the median of their
#: distances decides an order of magnitude (kernel_identity), which a few hundred rows settle.
_PAIR_BUDGET = 200_000_000
_MIN_ASKING_ROWS = 64
_NEIGHBOUR_BLOCK_ROWS = 16_384


def _nearest_other_squared(arr: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """Squared distance from each ``arr[rows]`` to its nearest other row, by GEMM over blocks of rows (on
    the threads); the nearest pair's distance is then recomputed from its difference, so a duplicate row
    gives exactly 0 rather than a rounding error."""
    Q = arr[rows]
    Q_sq = np.einsum("ij,ij->i", Q, Q)
    starts = range(0, arr.shape[0], _NEIGHBOUR_BLOCK_ROWS)
    best = np.full((len(starts), rows.size), np.inf)
    where = np.zeros((len(starts), rows.size), dtype=np.intp)

    def block(start):
        B = arr[start:start + _NEIGHBOUR_BLOCK_ROWS]
        D = squared_distances(Q, B, Y_sq=np.einsum("ij,ij->i", B, B), X_sq=Q_sq)
        own = (rows >= start) & (rows < start + B.shape[0])
        D[np.flatnonzero(own), rows[own] - start] = np.inf  # a row is not its own neighbour
        j = np.argmin(D, axis=1)
        k = start // _NEIGHBOUR_BLOCK_ROWS
        best[k], where[k] = D[np.arange(rows.size), j], start + j

    map_row_blocks(block, starts)
    nearest = where[np.argmin(best, axis=0), np.arange(rows.size)]
    diff = Q - arr[nearest]
    return np.einsum("ij,ij->i", diff, diff)


@dataclass(frozen=True)
class KernelIdentity:
    """Whether a kernel is numerically the identity at a distance, and why (:func:`kernel_identity`).

    Attributes
    ----------
    sigma : float
        The bandwidth asked about.
    distance : float
        The distance asked at: the median distance between neighbouring rows, or a grid's spacing.
    value : float
        The kernel's value at ``distance``.
    threshold : float
        The value below which the kernel counts as the identity.
    """

    sigma: float
    distance: float
    value: float
    threshold: float

    @property
    def is_identity(self) -> bool:
        """True when ``value < threshold``: points ``distance`` apart do not see each other."""
        return self.value < self.threshold

    def __bool__(self) -> bool:
        return self.is_identity

    @property
    def reason(self) -> str:
        """One sentence with the numbers that decided."""
        relation = "below" if self.is_identity else "at or above"
        return (f"at sigma = {self.sigma:.3g} the kernel at distance {self.distance:.3g} is {self.value:.1e}, "
                f"{relation} {self.threshold:g}")


def kernel_identity(arr: np.ndarray | None, sigma: float, *, kernel="gaussian", distance: float | None = None,
                    threshold: float = IDENTITY_KERNEL) -> KernelIdentity:
    """Whether sigma is so small against the data that the kernel matrix is numerically the identity.

    The kernel is evaluated at ``distance``, by default :func:`neighbour_distance` of ``arr``: below ``threshold`` neighbouring rows do not see each other, so kernel PCA finds no
    structure (every direction is an eigenvector) and a density is a spike at each point. Asked
    at a grid's spacing instead, it says whether densities drawn on that grid are 0 between the
    points. The other end, a sigma so large the kernel is constant, is :func:`check_kernel_spread`.

    Parameters
    ----------
    arr : ndarray of shape (n_samples, n_features) or None
        The data; may be None when ``distance`` is given.
    sigma : float
        The bandwidth.
    kernel : str or RadialKernel, default="gaussian"
        The kernel (:func:`~rskpca.core.radial_kernels.get_kernel`).
    distance : float, optional
        The distance to ask at (saves the nearest-neighbour search when the caller has it).
    threshold : float, default=IDENTITY_KERNEL
        The kernel value below which the kernel counts as the identity.

    Returns
    -------
    KernelIdentity
        True in a boolean context when the kernel is the identity; ``reason`` says why.

    See Also
    --------
    check_kernel_spread : sigma so large that every kernel value is 1.

    Examples
    --------
    >>> X = np.array([[0.0], [1.0], [2.0]])
    >>> bool(kernel_identity(X, 1.0)), bool(kernel_identity(X, 0.1))
    (False, True)
    >>> kernel_identity(None, 0.1, distance=1.0).reason
    'at sigma = 0.1 the kernel at distance 1 is 3.7e-44, below 1e-06'
    """
    sigma = check_positive(sigma, "sigma")
    kernel = get_kernel(kernel)
    distance = neighbour_distance(arr) if distance is None else float(distance)
    with np.errstate(over="ignore"):  # a distance far beyond sigma: the kernel is 0
        value = float(kernel.profile((np.float64(distance) / sigma) ** kernel.p))
    return KernelIdentity(sigma=sigma, distance=distance, value=value, threshold=float(threshold))
