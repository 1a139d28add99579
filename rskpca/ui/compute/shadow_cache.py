"""The shadow (Algorithm 2) per data set, sigma, ell and kernel, kept for every page and session.

Part of :mod:`rskpca.ui.compute` (which re-exports these names). A shadow is a cached resource,
read-only, shared without a copy per use; on data with many features the shadows of many ells are
read off one table of distances kept per data set.
"""

from __future__ import annotations

import time

import numpy as np
import streamlit as st

from rskpca.core.shadow import EarlierDistances, shadow_centers, shadow_centers_from_table, table_pays_off

__all__ = ["compiled_shadow_ready", "timed_shadow", "shadow"]


@st.cache_resource(show_spinner="Loading the compiled shadow scan (once per server; a few seconds more the first "
                               "time after an install, which compiles it)...")
def compiled_shadow_ready() -> str:
    """The shadow's path on a tiny input, run once per server process before any page needs a shadow.

    The compiled scan (:mod:`rskpca.core.shadow._compiled`) loads from numba's disk cache, or compiles
    the first time after an install: said here, once, so the user does not meet it as an unexplained
    pause in the first page's chart.
    """
    return shadow_centers(np.array([[0.0, 0.0], [1.0, 0.0]]), sigma=1.0, ell=1.0).algorithm


@st.cache_resource(max_entries=2, show_spinner=False)
def _earlier_distances(digest: str, _X: np.ndarray) -> EarlierDistances:
    """The distances from each row to the earlier rows: read-only, shared by every sigma, ell and session."""
    return EarlierDistances(_X)


@st.cache_resource(max_entries=64, show_spinner=False)
def timed_shadow(digest: str, _X: np.ndarray, sigma: float, ell: float, kernel: str):
    """``(shadow, seconds)``: shadow centers (Algorithm 2) at this sigma and ell, and what they took.

    On data with many features (and at most 8,000 rows) they are read off one table of the distances
    to earlier rows, kept for the data set, so that a sigma change does not wait for 19 scans of the ell
    grid (``python tests/benchmarks/bench_shadow_table.py --usps PATH``). The result is the scan's, to
    the bit.
    """
    t0 = time.perf_counter()
    result = None
    if table_pays_off(*_X.shape):
        result = shadow_centers_from_table(_earlier_distances(digest, _X), sigma=sigma, ell=ell, kernel=kernel)
    from_table = result is not None
    if not from_table:
        result = shadow_centers(_X, sigma=sigma, ell=ell, kernel=kernel)
    # Kept as a resource, read-only: shared by the pages and sessions without a copy per use, because
    # cached data would put every shadow's centers through pickle on a sigma change.
    # Centers read off the table are copied only when a page asks for them (ShadowResult.centers, then
    # read-only as the indices are): the ell scrubbers' frames need only indices and weights.
    # The scan's centers are already a copy: made read-only here.
    for array in (result.center_indices, result.weights, result.labels):
        array.setflags(write=False)
    if not from_table:
        result.centers.setflags(write=False)
    return result, time.perf_counter() - t0


def shadow(digest: str, X: np.ndarray, sigma: float, ell: float, kernel: str):
    """Shadow centers (Algorithm 2) at this sigma and ell (cached: the sidebar, the pages and the curves over
    ell share one computation per ell)."""
    return timed_shadow(digest, X, sigma, ell, kernel)[0]

