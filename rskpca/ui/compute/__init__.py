"""Cached computations for the app: the only package that uses ``st.cache_data``.

Its modules, whose names this package re-exports: :mod:`~rskpca.ui.compute.shadow_cache` (the shadow
per sigma and ell), :mod:`~rskpca.ui.compute.densities` (the KDE and the ShDE where the pages draw
them), :mod:`~rskpca.ui.compute.bounds_at_ell` (Theorems 5.1-5.4 measured at one ell),
:mod:`~rskpca.ui.compute.fits` (exact KPCA and the compared methods),
:mod:`~rskpca.ui.compute.app_timing` (how the app times them), :mod:`~rskpca.ui.compute.exact_plan`
(which rows exact KPCA runs on for Embeddings), :mod:`~rskpca.ui.compute.all_rows_fits` (the methods
on every row, for Embeddings),
:mod:`~rskpca.ui.compute.sweeps` (curves over ell) and :mod:`~rskpca.ui.compute.scrubber_frames`
(the ell scrubbers); the data set's own caches are here.

Every function is keyed by the data set's full content digest plus the
parameters it depends on; arrays are passed as ``_``-prefixed arguments, which
Streamlit does not hash (its own hashing samples large arrays, so two data sets
could collide). Caches are bounded (``max_entries``) because slider values
create new keys. Results that do not depend on ell (exact KPCA, the KDE) are
keyed without it, so moving ell recomputes only what does.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st

from rskpca.core.bandwidth_heuristic import median_heuristic
from rskpca.core.row_draws import rows_within
from rskpca.core.threads import native_threads_off
from rskpca.core.sigma_checks import data_extent, kernel_identity
from rskpca.core.sigma_checks import neighbour_distance as _neighbour_distance
from rskpca.data.datasets import column_summary as _column_summary
from rskpca.data.datasets import load_sample, prepare, read_table
from rskpca.evaluation.classify import cross_validate_classifier
from rskpca.evaluation.methods import REFERENCE, SLOW_ABOVE_M
from rskpca.ui.compute.bounds_at_ell import bounds_rows, mmd
from rskpca.ui.compute.densities import (
    DENSITY_KERNEL_MAX_ELEMENTS,
    DENSITY_MAX_POINTS,
    DENSITY_MIN_POINTS,
    densities_at,
    density_rows,
    kde_at,
    kde_grid,
    shde_at,
    shde_grid,
    shde_over_ells,
)
from rskpca.ui.compute.app_timing import APP_TIMING, OWN_TIMING, REFERENCE_TIMING
from rskpca.ui.compute.fits import (
    RANK_BUCKETS,
    computed_rank,
    exact_embedding,
    exact_kpca,
    exact_reference,
    fit_methods,
    method_result,
    rank_message,
)
from rskpca.ui.compute.scrubber_frames import (
    SCRUB_ELLS,
    SCRUB_EMBED_ELLS,
    SCRUB_GRID,
    density_scrubber,
    embedding_scrubber,
    shadow_scrubber,
    suggested_ell,
)
from rskpca.ui.compute.shadow_cache import compiled_shadow_ready, shadow, timed_shadow
from rskpca.ui.compute.sweeps import bounds_sweep, ell_curve, shadow_rows, sweep_rows

__all__ = [
    "EXACT_MAX_ROWS", "neighbour_distance", "identity_kernel", "APP_TIMING", "OWN_TIMING", "REFERENCE_TIMING",
    "sample_table", "read_upload", "column_summary", "prepared", "median_sigma", "extent", "compiled_shadow_ready", "shadow",
    "timed_shadow", "principal_axes", "label_colouring", "label_is_measurement",
    "comparison_rows", "comparison_set", "exact_reference", "exact_embedding", "exact_kpca", "method_result",
    "fit_methods", "RANK_BUCKETS", "computed_rank",
    "rank_message", "ell_curve",
    "DENSITY_MAX_POINTS", "DENSITY_MIN_POINTS", "DENSITY_KERNEL_MAX_ELEMENTS", "kde_grid", "shde_grid", "kde_at",
    "shde_at", "shde_over_ells", "density_rows", "densities_at",
    "bounds_rows", "bounds_sweep", "mmd", "sweep_rows", "shadow_rows", "cross_validated", "cross_validation_seconds",
    "SLOW_M", "slow_methods_cap",
    "SCRUB_ELLS", "SCRUB_EMBED_ELLS", "SCRUB_GRID", "shadow_scrubber", "density_scrubber", "embedding_scrubber",
    "suggested_ell",
]

#: Exact kernel PCA (n x n) runs on at most this many rows; comparisons use the same rows for every method.
EXACT_MAX_ROWS = 2000


@st.cache_data(max_entries=16, show_spinner=False)
def sample_table(name: str) -> pd.DataFrame:
    """A bundled sample as a table."""
    return load_sample(name)


@st.cache_data(max_entries=8, show_spinner="Summarising the columns...")
def column_summary(source_key: str, _df: pd.DataFrame) -> pd.DataFrame:
    """The Data page's per-column summary, once per table (``source_key`` names it): its unique counts read
    every row, which on a file of millions of rows takes seconds on each visit otherwise."""
    return _column_summary(_df)


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
    """:func:`~rskpca.core.sigma_checks.data_extent` of the data, once per data set (the sidebar checks
    every sigma against it on every run, which should not read every row each time)."""
    return data_extent(_X)


@st.cache_data(max_entries=32, show_spinner=False)
def neighbour_distance(digest: str, _X: np.ndarray, max_rows: int = 1000) -> float:
    """:func:`~rskpca.core.sigma_checks.neighbour_distance` of the data, once per data set."""
    return _neighbour_distance(_X, max_rows=max_rows)


def identity_kernel(digest: str, X: np.ndarray, sigma: float, kernel: str, distance: float | None = None):
    """:func:`~rskpca.core.sigma_checks.kernel_identity` at this sigma: whether the kernel is numerically the
    identity between neighbouring rows of X (their distance cached per data set), or at ``distance``."""
    if distance is None:
        distance = neighbour_distance(digest, X)
    return kernel_identity(None, sigma, kernel=kernel, distance=distance)


@st.cache_data(max_entries=16, show_spinner=False)
def principal_axes(digest: str, _X: np.ndarray):
    """Coordinates on the first two principal axes and the variance share of each."""
    Xc = _X - _X.mean(axis=0)
    _, s, Vt = np.linalg.svd(Xc, full_matrices=False)
    share = s**2 / max(float(np.sum(s**2)), 1e-300)
    k = min(2, Vt.shape[0])
    return Xc @ Vt[:k].T, share[:k]


@st.cache_data(max_entries=16, show_spinner=False)
def label_colouring(digest: str, _y: np.ndarray, name: str):
    """The label's :func:`~rskpca.plotting.colouring` on all n rows, once per data set rather than on every rerun of
    every row chart (0.12 s at a million text labels); a subset of it colours a sample (the Embeddings
    scrubber) with the classes' colours of the whole."""
    from rskpca.plotting import colouring

    return colouring(_y, name=name)


@st.cache_data(max_entries=16, show_spinner=False)
def label_is_measurement(digest: str, _y: np.ndarray) -> bool:
    """Whether the label holds numbers with more distinct values than classes get colours
    (:data:`~rskpca.plotting.MAX_CLASSES`): a measurement, drawn on a colour scale. Once per data set."""
    from rskpca.plotting import MAX_CLASSES

    return _y.dtype.kind in "iuf" and pd.Series(_y).nunique() > MAX_CLASSES


@st.cache_data(max_entries=16, show_spinner=False)
def comparison_rows(digest: str, n: int) -> np.ndarray:
    """Rows every method is compared on: all n, or a seeded sample of EXACT_MAX_ROWS."""
    return rows_within(n, EXACT_MAX_ROWS, np.random.default_rng(0))


def comparison_set(ds):
    """``(rows, X_rows, key)``: the rows the method comparisons run on and their cache key.

    Exact KPCA needs an n x n matrix, so above EXACT_MAX_ROWS every method is
    trained and compared on the same seeded sample (the pages say so).
    """
    rows = comparison_rows(ds.digest, ds.n)
    key = ds.digest if rows.size == ds.n else f"{ds.digest}:rows{rows.size}"
    return rows, ds.X[rows], key


#: Above this m the k-means and herding based methods run only when the user asks (the registry's policy).
SLOW_M = SLOW_ABOVE_M


def slow_methods_cap(run_slow: bool) -> int | None:
    """The m above which the slow methods are skipped (None: never skipped)."""
    return None if run_slow else SLOW_M


def cross_validation_seconds(digest: str, X: np.ndarray, method: str, sigma: float, kernel: str, r: int,
                             ell: float | None, folds: int) -> float:
    """The predicted seconds of :func:`cross_validated`: ``folds`` fits of the method on a fold's training rows,
    each exact KPCA's (the one model, :func:`~rskpca.evaluation.costs.exact_kpca_cost`) on those rows, or for
    RSKPCA on its m centers there (about the shadow's m on all of X)."""
    from rskpca.evaluation.costs import exact_kpca_cost
    from rskpca.ui.compute.exact_on_request import kernel_unit_cost

    n_train = X.shape[0] * (int(folds) - 1) // int(folds)
    size = n_train if method == REFERENCE.name else min(n_train, shadow(digest, X, sigma, 4.0 if ell is None else ell,
                                                                 kernel).m)
    unit = kernel_unit_cost(digest, X, float(sigma), str(kernel))
    return int(folds) * exact_kpca_cost(size, max(int(r), 1), unit, cache_bytes=8 * size * size).seconds


def cross_validated(digest: str, X: np.ndarray, y: np.ndarray, method: str, classifier: str, sigma: float,
                    kernel: str, r: int, ell: float | None, folds: int, token=None) -> dict:
    """Mean/std accuracy and fit/score times of Pipeline(method features, classifier), stored once computed.

    Above :data:`~rskpca.ui.progress.SHOW_BAR_S` predicted (:func:`cross_validation_seconds`) it runs under a
    progress bar with its prediction and a Stop button that marks ``token`` stopped
    (:func:`rskpca.ui.progress.stopped`: the page then offers to resume instead of running it again); the
    result is kept in a store, not ``st.cache_data``, which would replay the bar; a stopped run stores nothing."""
    from rskpca.ui.compute.all_rows_fits import all_rows_store
    from rskpca.ui.progress import progress_panel

    key = (digest, method, classifier, float(sigma), kernel, int(r), ell, int(folds))
    store = all_rows_store("cross_validation", 32)
    found = store.get(key)
    if found is not None:
        return found
    predicted = cross_validation_seconds(digest, X, method, sigma, kernel, r, ell, folds)
    label = f"Cross-validating {'exact KPCA' if method == REFERENCE.name else 'ShDE + RSKPCA'} features ({folds} folds)"
    with progress_panel(label, predicted, spinner="Cross-validating...", token=token) as bar, native_threads_off():
        result = cross_validate_classifier(X, y, method=method, classifier=classifier, sigma=sigma, kernel=kernel,
                                           n_components=r, ell=4.0 if ell is None else ell, folds=folds,
                                           progress=bar)
    store.put(key, result)
    return result
