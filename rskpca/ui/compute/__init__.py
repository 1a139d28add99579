"""Cached computations for the app: the only package that uses ``st.cache_data`` (this module,
:mod:`rskpca.ui.compute.fits`, :mod:`rskpca.ui.compute.sweeps` and :mod:`rskpca.ui.compute.scrubber_frames`,
whose names it re-exports).

Every function is keyed by the data set's full content digest plus the
parameters it depends on; arrays are passed as ``_``-prefixed arguments, which
Streamlit does not hash (its own hashing samples large arrays, so two data sets
could collide). Caches are bounded (``max_entries``) because slider values
create new keys. Results that do not depend on ell (exact KPCA, the KDE) are
keyed without it, so moving ell recomputes only what does.
"""

from __future__ import annotations

import time

import numpy as np
import pandas as pd
import streamlit as st

from rskpca.bounds import apriori_bounds, bounds_table, mmd_bound, theorem_bounds
from rskpca.data.datasets import load_sample, prepare, read_table
from rskpca.core.threads import native_threads_off
from rskpca.core.validation import data_extent
from rskpca.core.bandwidth_heuristic import median_heuristic
from rskpca.core.radial_kernels import kernel_matrix, kernel_row_means
from rskpca.core.shadow import EarlierDistances, shadow_centers, shadow_centers_from_table, table_pays_off
from rskpca.evaluation.classify import cross_validate_classifier
from rskpca.evaluation.methods import SLOW_ABOVE_M

__all__ = [
    "EXACT_MAX_ROWS", "neighbour_distance", "APP_TIMING", "BASELINE_TIMING", "REFERENCE_TIMING", "sample_table",
    "read_upload", "prepared", "median_sigma", "extent", "shadow", "timed_shadow",
    "principal_axes",
    "comparison_rows", "comparison_set", "exact_reference", "exact_embedding", "exact_kpca", "method_result",
    "fit_methods", "RANK_BUCKETS", "computed_rank",
    "rank_message", "ell_curve",
    "kde_grid", "shde_grid", "densities_at",
    "bounds_rows", "bounds_sweep", "mmd", "apriori_rows", "sweep_rows", "shadow_rows", "cross_validated",
    "SCRUB_ELLS", "SCRUB_EMBED_ELLS", "SCRUB_GRID", "shadow_scrubber", "density_scrubber", "embedding_scrubber",
    "suggested_ell",
]

#: Exact kernel PCA (n x n) runs on at most this many rows; comparisons use the same rows for every method.
EXACT_MAX_ROWS = 2000
#: Points at which the KDE (an n x n_eval sum) is evaluated on the KDE page: every row up to this many;
#: above, as many as keep their kernel whole (:data:`DENSITY_KERNEL_MAX_ELEMENTS`), at least
#: :data:`DENSITY_MIN_POINTS` (:func:`density_rows`).
DENSITY_MAX_POINTS = 3000
#: The fewest sampled points the KDE page compares densities at (pendigits' 10,992 rows: 500, evaluated).
DENSITY_MIN_POINTS = 500
#: The kernel between a set of density points and every row is kept, read-only, up to this many
#: values (32 MB in float64; four sets of points at most: a page's, its line's, the scrubber's):
#: the KDE is its row mean, and the ShDE at any ell its product with the shadow's weights put on
#: their centers (eq. 16 is the KDE with each row's mass moved to its center). A density frame then
#: costs one product instead of a kernel evaluation against its centers (digits: 19 frames of 1,000
#: points, up to 19 x 4.7 ms -> 5.3 ms + 19 x 0.1 ms). A sigma change on digits' KDE vs ShDE page,
#: server side, median of 5 changes, twice:
#: 0.37 / 0.38 -> 0.35 / 0.31 s (``python tests/benchmarks/bench_latency.py --sample digits --pages
#: pages/3_KDE_vs_ShDE.py --controls sigma --repeats 2``, 2026-11-24 10:40).
DENSITY_KERNEL_MAX_ELEMENTS = 4_000_000


@st.cache_resource(show_spinner="Loading the compiled shadow scan (the first run after an install compiles it: "
                               "a few seconds)...")
def compiled_shadow_ready() -> str:
    """The shadow's path on a tiny input, run once per server process before any page needs a shadow.

    The compiled scan (:mod:`rskpca.core.shadow._compiled`) loads from numba's disk cache in about
    0.4 s, and compiles in about 4 s the first time after an install: said here, once, rather than
    as an unexplained pause in the first page's chart.
    """
    return shadow_centers(np.array([[0.0, 0.0], [1.0, 0.0]]), sigma=1.0, ell=1.0).algorithm


@st.cache_data(max_entries=16, show_spinner=False)
def sample_table(name: str) -> pd.DataFrame:
    """A bundled sample as a table."""
    return load_sample(name)


@st.cache_data(max_entries=4, show_spinner="Reading the file...")
def read_upload(digest: str, _data: bytes, filename: str) -> pd.DataFrame:
    """An uploaded file parsed into a table (DataError if it cannot be)."""
    return read_table(_data, filename)


@st.cache_data(max_entries=16, show_spinner=False)
def prepared(source_key: str, _df: pd.DataFrame, feature_columns, label_column, standardize: bool,
             max_rows: int, missing: str, seed: int = 0, stray_text: str = "exclude"):
    """The validated :class:`~rskpca.data.datasets.Dataset` for these choices."""
    return prepare(_df, feature_columns=None if feature_columns is None else list(feature_columns),
                   label_column=label_column, standardize=standardize, max_rows=max_rows, missing=missing,
                   random_state=seed, stray_text=stray_text)


@st.cache_data(max_entries=32, show_spinner=False)
def median_sigma(digest: str, _X: np.ndarray) -> float:
    """The median heuristic for sigma."""
    return median_heuristic(_X)


@st.cache_data(max_entries=32, show_spinner=False)
def extent(digest: str, _X: np.ndarray) -> float:
    """:func:`~rskpca.core.validation.data_extent` of the data, once per data set (the sidebar checks
    every sigma against it on every run: 0.7 ms on usps' 5,000 x 256 rows read each time)."""
    return data_extent(_X)


@st.cache_data(max_entries=32, show_spinner=False)
def neighbour_distance(digest: str, _X: np.ndarray, max_rows: int = 1000) -> float:
    """The median distance from a row to its nearest other row (at most ``max_rows`` seeded rows asked, against
    every row: against a sample only, the nearest rows of 2-D data are several times farther)."""
    from sklearn.neighbors import NearestNeighbors

    rows = np.random.default_rng(0).choice(_X.shape[0], size=min(max_rows, _X.shape[0]), replace=False)
    dist, _ = NearestNeighbors(n_neighbors=2).fit(_X).kneighbors(_X[rows])
    return float(np.median(dist[:, 1]))


@st.cache_resource(max_entries=2, show_spinner=False)
def _earlier_distances(digest: str, _X: np.ndarray) -> EarlierDistances:
    """The distances from each row to the earlier rows: read-only, shared by every sigma, ell and session."""
    return EarlierDistances(_X)


@st.cache_resource(max_entries=64, show_spinner=False)
def timed_shadow(digest: str, _X: np.ndarray, sigma: float, ell: float, kernel: str):
    """``(shadow, seconds)``: shadow centers (Algorithm 2) at this sigma and ell, and what they took.

    On data with many features (and at most 8,000 rows) they are read off one table of the distances
    to earlier rows, kept for the data set: the 19 shadows of the ell grid then cost a fraction of 19
    scans at every sigma (usps, 5,000 rows, median sigma: 1.41 -> 0.20 s; ``python -m
    tests/benchmarks/bench_shadow_table.py --usps /work/shared/datasets/usps.csv.gz``). The result is the
    scan's, to the bit.
    """
    t0 = time.perf_counter()
    result = None
    if table_pays_off(*_X.shape):
        result = shadow_centers_from_table(_earlier_distances(digest, _X), sigma=sigma, ell=ell, kernel=kernel)
    if result is None:
        result = shadow_centers(_X, sigma=sigma, ell=ell, kernel=kernel)
    # Kept as a resource, read-only: shared by the pages and sessions without a copy per use (as cached
    # data would be: 19 shadows of usps' 5,000 x 256 rows put 8 MB of centers each through pickle).
    # Centers read off the table are copied only when a page asks for them (ShadowResult.centers, then
    # read-only as the indices are): the ell scrubbers' frames need only indices and weights, and the
    # 19 copies (8 MB each on usps) took 13% of a sigma change on Shadow centers (py-spy, live server).
    for array in (result.center_indices, result.weights, result.labels):
        array.setflags(write=False)
    if result._centers is not None:
        result.centers.setflags(write=False)
    return result, time.perf_counter() - t0


def shadow(digest: str, X: np.ndarray, sigma: float, ell: float, kernel: str):
    """Shadow centers (Algorithm 2) at this sigma and ell (cached: the sidebar, the pages and the curves over
    ell share one computation per ell)."""
    return timed_shadow(digest, X, sigma, ell, kernel)[0]


@st.cache_data(max_entries=16, show_spinner=False)
def principal_axes(digest: str, _X: np.ndarray):
    """Coordinates on the first two principal axes and the variance share of each."""
    Xc = _X - _X.mean(axis=0)
    _, s, Vt = np.linalg.svd(Xc, full_matrices=False)
    share = s**2 / max(float(np.sum(s**2)), 1e-300)
    k = min(2, Vt.shape[0])
    return Xc @ Vt[:k].T, share[:k]


@st.cache_data(max_entries=16, show_spinner=False)
def comparison_rows(digest: str, n: int) -> np.ndarray:
    """Rows every method is compared on: all n, or a seeded sample of EXACT_MAX_ROWS."""
    if n <= EXACT_MAX_ROWS:
        return np.arange(n)
    return np.sort(np.random.default_rng(0).choice(n, size=EXACT_MAX_ROWS, replace=False))


def comparison_set(ds):
    """``(rows, X_rows, key)``: the rows the method comparisons run on and their cache key.

    Exact KPCA needs an n x n matrix, so above EXACT_MAX_ROWS every method is
    trained and compared on the same seeded sample (the pages say so).
    """
    rows = comparison_rows(ds.digest, ds.n)
    key = ds.digest if rows.size == ds.n else f"{ds.digest}:rows{rows.size}"
    return rows, ds.X[rows], key


def _grid(X2: np.ndarray, size: int):
    lo, hi = X2.min(axis=0), X2.max(axis=0)
    pad = 0.1 * np.where(hi > lo, hi - lo, 1.0)
    axes = [np.linspace(a, b, size) for a, b in zip(lo - pad, hi + pad)]
    return axes


@st.cache_resource(max_entries=4, show_spinner=False)
def _points_kernel(digest: str, _X: np.ndarray, sigma: float, kernel: str, _P: np.ndarray, points_key: str):
    """``k(P, X)``, read-only: kept whole (a resource, not copied per use as cached data is)."""
    K = kernel_matrix(_P, _X, sigma=sigma, kernel=kernel)
    K.setflags(write=False)
    return K


def _density(digest: str, X: np.ndarray, sigma: float, kernel: str, P: np.ndarray, points_key: str,
             shadow_result=None) -> np.ndarray:
    """The KDE at the points P, or with ``shadow_result`` the ShDE: from the kept ``k(P, X)`` when it
    fits :data:`DENSITY_KERNEL_MAX_ELEMENTS`, else evaluated against the rows or the centers."""
    if P.shape[0] * X.shape[0] > DENSITY_KERNEL_MAX_ELEMENTS:
        if shadow_result is None:
            return kernel_row_means(P, X, sigma=sigma, kernel=kernel)
        return kernel_row_means(P, shadow_result.centers, sigma=sigma, kernel=kernel, weights=shadow_result.weights)
    mass = np.full(X.shape[0], 1.0 / X.shape[0])
    if shadow_result is not None:
        mass[:] = 0.0
        mass[shadow_result.center_indices] = shadow_result.weights / np.sum(shadow_result.weights)
    return _points_kernel(digest, X, sigma, kernel, P, points_key) @ mass


@st.cache_data(max_entries=16, show_spinner=False)
def shde_over_ells(digest: str, _X: np.ndarray, sigma: float, kernel: str, ells: tuple, _P: np.ndarray,
                   points_key: str) -> np.ndarray:
    """The ShDE at the points P at every ell of ``ells`` (a row each): with the kept ``k(P, X)``, one
    product for all of them, one pass over the kernel instead of one per ell. The shadows come from
    :func:`shadow` (cached per ell)."""
    shadows = [shadow(digest, _X, sigma, float(ell), kernel) for ell in ells]
    if _P.shape[0] * _X.shape[0] > DENSITY_KERNEL_MAX_ELEMENTS:
        return np.stack([_density(digest, _X, sigma, kernel, _P, points_key, s) for s in shadows])
    masses = np.zeros((_X.shape[0], len(shadows)))
    for j, s in enumerate(shadows):
        masses[s.center_indices, j] = s.weights / np.sum(s.weights)
    return (_points_kernel(digest, _X, sigma, kernel, _P, points_key) @ masses).T


@st.cache_data(max_entries=16, show_spinner="Evaluating the KDE on a grid...")
def kde_grid(digest: str, _X: np.ndarray, sigma: float, kernel: str, size: int):
    """``(axes, kde)`` on a regular grid over 1-D or 2-D data (the KDE does not depend on ell)."""
    axes = _grid(_X, size)
    kde = _density(digest, _X, sigma, kernel, _grid_points(axes), f"grid{size}")
    return axes, kde.reshape(_grid_shape(axes))


def _grid_points(axes) -> np.ndarray:
    if len(axes) == 1:
        return axes[0][:, None]
    gx, gy = np.meshgrid(axes[0], axes[1])
    return np.column_stack([gx.ravel(), gy.ravel()])


def _grid_shape(axes):
    return (axes[0].size,) if len(axes) == 1 else (axes[1].size, axes[0].size)


@st.cache_data(max_entries=64, show_spinner=False)
def shde_grid(digest: str, _X: np.ndarray, sigma: float, kernel: str, ell: float, size: int):
    """The ShDE on the same grid as :func:`kde_grid`."""
    s = shadow(digest, _X, sigma, ell, kernel)
    axes = _grid(_X, size)
    return _density(digest, _X, sigma, kernel, _grid_points(axes), f"grid{size}", s).reshape(_grid_shape(axes))


@st.cache_data(max_entries=16, show_spinner="Evaluating the KDE at the data points...")
def kde_at(digest: str, _X: np.ndarray, sigma: float, kernel: str, _P: np.ndarray, points_key: str):
    """The KDE at the points P (cached by ``points_key``; independent of ell)."""
    return _density(digest, _X, sigma, kernel, _P, points_key)


@st.cache_data(max_entries=64, show_spinner=False)
def shde_at(digest: str, _X: np.ndarray, sigma: float, kernel: str, ell: float, _P: np.ndarray, points_key: str):
    """The ShDE at the points P."""
    return _density(digest, _X, sigma, kernel, _P, points_key, shadow(digest, _X, sigma, ell, kernel))


def density_rows(n: int) -> np.ndarray:
    """Rows at which densities are compared: all up to :data:`DENSITY_MAX_POINTS`, else a seeded sample of
    as many as keep their kernel against every row whole (at least :data:`DENSITY_MIN_POINTS`).

    Kept whole, the kernel is computed once per sigma: the KDE is its row mean and the ShDE at every ell
    one product (:func:`_density`), and KDE vs ShDE's scrubber draws its frames at the same points from it.
    usps, 5,000 rows: 800 points. A sample of 3,000 was evaluated against every row at each sigma (KDE) and
    against the centers at each ell (ShDE): 0.22 s of a sigma change and 0.08 s of an ell change, server
    side, beside a separate kernel for the scrubber's points.

    >>> density_rows(10).size, density_rows(5000).size, density_rows(20000).size
    (10, 800, 500)
    """
    if n <= DENSITY_MAX_POINTS:
        return np.arange(n)
    size = min(DENSITY_MAX_POINTS, max(DENSITY_MIN_POINTS, DENSITY_KERNEL_MAX_ELEMENTS // n))
    return np.sort(np.random.default_rng(1).choice(n, size=size, replace=False))


def densities_at(digest: str, X: np.ndarray, sigma: float, kernel: str, ell: float, P: np.ndarray, points_key: str):
    """``(kde, shde)`` at the points P."""
    return (kde_at(digest, X, sigma, kernel, P, points_key),
            shde_at(digest, X, sigma, kernel, ell, P, points_key))


@st.cache_data(max_entries=64, show_spinner="Computing the bounds and the measured values...")
def bounds_rows(digest: str, _X: np.ndarray, sigma: float, kernel: str, ell: float, r: int, max_exact: int):
    """Theorems 5.1-5.4 at ell as table rows (measured on at most ``max_exact`` rows)."""
    s = shadow(digest, _X, sigma, ell, kernel)
    with native_threads_off():  # the measured values fit exact KPCA: see fits.method_result
        rows = bounds_table(theorem_bounds(_X, s, sigma=sigma, kernel=kernel, n_components=r, max_exact=max_exact))
    return [{"ell": ell, "m": s.m, **row} for row in rows]


@st.cache_data(max_entries=64, show_spinner=False)
def mmd(digest: str, _X: np.ndarray, sigma: float, kernel: str, ell: float, max_exact: int) -> dict:
    """Theorem 5.1 alone (MMD measured, a-posteriori, a-priori): O(s^2) on at most ``max_exact`` rows."""
    s = shadow(digest, _X, sigma, ell, kernel)
    return mmd_bound(_X, s, sigma=sigma, kernel=kernel, max_exact=max_exact).as_dict()


def apriori_rows(ells, sigma: float, kernel: str) -> list[dict]:
    """The closed-form bounds over ell (no data needed, instant)."""
    ells = np.asarray(ells, dtype=np.float64)
    vals = apriori_bounds(ells, sigma, kernel)
    return [{"ell": float(e), "theorem": th, "a_priori": float(np.asarray(vals[th])[i]), "a_posteriori": None,
             "measured": None} for th in ("5.1", "5.2", "5.3") for i, e in enumerate(ells)]


#: Above this m the k-means and herding based methods run only when the user asks (the registry's policy).
SLOW_M = SLOW_ABOVE_M


def slow_methods_cap(run_slow: bool) -> int | None:
    """The m above which the slow methods are skipped (None: never skipped)."""
    return None if run_slow else SLOW_M


@st.cache_data(max_entries=32, show_spinner="Cross-validating...")
def cross_validated(digest: str, _X: np.ndarray, _y: np.ndarray, method: str, classifier: str, sigma: float,
                    kernel: str, r: int, ell: float | None, folds: int) -> dict:
    """Mean/std accuracy and fit/score times of Pipeline(method features, classifier)."""
    with native_threads_off():  # see fits.method_result
        return cross_validate_classifier(_X, _y, method=method, classifier=classifier, sigma=sigma, kernel=kernel,
                                         n_components=r, ell=4.0 if ell is None else ell, folds=folds)


# The fits and their timings, the curves over ell, and the ell scrubbers' computations, live beside
# (rskpca.ui.compute.fits, rskpca.ui.compute.sweeps, rskpca.ui.compute.scrubber_frames); imported last, as
# they use the functions above.
from rskpca.ui.compute.fits import (  # noqa: E402
    APP_TIMING,
    BASELINE_TIMING,
    RANK_BUCKETS,
    REFERENCE_TIMING,
    computed_rank,
    exact_embedding,
    exact_kpca,
    exact_reference,
    fit_methods,
    method_result,
    rank_message,
)
from rskpca.ui.compute.sweeps import (  # noqa: E402
    bounds_sweep,
    ell_curve,
    shadow_rows,
    sweep_rows,
)
from rskpca.ui.compute.scrubber_frames import (  # noqa: E402
    SCRUB_ELLS,
    SCRUB_EMBED_ELLS,
    SCRUB_GRID,
    density_scrubber,
    embedding_scrubber,
    shadow_scrubber,
    suggested_ell,
)
