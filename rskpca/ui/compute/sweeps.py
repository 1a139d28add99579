"""Curves over ell: one point per ell, each point cached on its own, with a progress bar.

Part of :mod:`rskpca.ui.compute` (which re-exports these names): a curve over ell costs a fit or a
shadow per point, so its points are cached one by one: a stopped or interrupted sweep keeps what it
computed, and the next run resumes where it stopped.
"""

from __future__ import annotations


import numpy as np
import streamlit as st

from rskpca.core.threads import native_threads_off
from rskpca.evaluation.compare import ell_grid, sweep_point
from rskpca.ui.compute.app_timing import APP_TIMING
from rskpca.ui.compute.bounds_at_ell import bounds_rows
from rskpca.ui.compute.shadow_cache import timed_shadow
from rskpca.ui.keys import ELL_RANGE
from rskpca.core.progress import paced
from rskpca.ui.progress import progress_on_miss

__all__ = ["sweep_rows", "ell_curve", "shadow_rows", "bounds_sweep"]


@st.cache_data(max_entries=512, show_spinner=False)
def _sweep_point(digest: str, _X: np.ndarray, _exact, sigma: float, kernel: str, r: int, ell: float,
                 methods: tuple[str, ...], slow_cap: int | None):
    with native_threads_off():  # see fits.method_result
        return sweep_point(_X, _X, _exact, ell=ell, methods=list(methods), n_components=r, sigma=sigma,
                           kernel=kernel, timing=APP_TIMING, skip_slow=slow_cap is not None)


@st.cache_data(max_entries=512, show_spinner=False)
def _shadow_point(digest: str, _X: np.ndarray, sigma: float, kernel: str, ell: float):
    s, seconds = timed_shadow(digest, _X, sigma, ell, kernel)
    return {"ell": ell, "m": s.m, "retained": s.m / s.n, "eps": s.eps, "shadow_seconds": seconds}


def _with_progress(label: str, ells, point):
    """Call ``point(ell)`` for every ell (each call cached), with a progress bar while anything runs.

    The bar (:func:`~rskpca.ui.progress.progress_on_miss`) appears at the first point that computes
    (cached ones cost nothing) and estimates the time left from the points computed since and their growth
    (:func:`~rskpca.core.progress.paced`: later ells have more centers). Any
    widget change interrupts the loop; the points already computed stay cached, so the next run
    resumes where this one stopped.
    """
    rows: list[dict] = []
    with progress_on_miss(label) as show:
        tick = paced(show, len(ells))
        for ell in ells:
            rows += point(float(ell))
            tick("values of ell; cached as it goes, so stopping loses nothing")
    return rows


def sweep_rows(digest: str, X: np.ndarray, exact, sigma: float, kernel: str, r: int, ells, methods,
               slow_cap: int | None = None) -> list[dict]:
    """Method comparison rows over ell (cached per ell, with progress); see :func:`slow_methods_cap`."""
    return _with_progress("Sweeping ell", ells,
                          lambda ell: _sweep_point(digest, X, exact, sigma, kernel, r, ell, tuple(methods),
                                                   slow_cap))


def ell_curve(points: int) -> np.ndarray:
    """``points`` values of ell spread over the ell slider's range (the x of every curve over ell)."""
    return ell_grid(*ELL_RANGE, int(points))


def shadow_rows(digest: str, X: np.ndarray, sigma: float, kernel: str, ells) -> list[dict]:
    """m over ell (cached per ell, with progress)."""
    return _with_progress("Shadow sizes over ell", ells, lambda ell: [_shadow_point(digest, X, sigma, kernel, ell)])


def bounds_sweep(digest: str, X: np.ndarray, sigma: float, kernel: str, r: int, ells, max_exact: int) -> list[dict]:
    """Bounds over ell (cached per ell, with progress)."""
    return _with_progress("Bounds over ell", ells,
                          lambda ell: bounds_rows(digest, X, sigma, kernel, ell, r, max_exact))
