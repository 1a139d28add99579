"""The bounds of Theorems 5.1-5.4 at one ell, measured on the data (cached per sigma, ell, rank and rows).

Part of :mod:`rskpca.ui.compute` (which re-exports these names).
"""

from __future__ import annotations

import numpy as np
import streamlit as st

from rskpca.bounds import bounds_table, mmd_bound, theorem_bounds
from rskpca.core.threads import native_threads_off
from rskpca.ui.compute.shadow_cache import shadow

__all__ = ["bounds_rows", "mmd"]


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

