"""The bounds of Theorems 5.1-5.4 at one ell, measured on the data (cached per sigma, ell, rank and rows).

Part of :mod:`rskpca.ui.compute` (which re-exports these names).
"""

from __future__ import annotations

import numpy as np
import streamlit as st

from rskpca.bounds import bounds_table, mmd_bound, rows_statement, theorem_bounds
from rskpca.core.threads import native_threads_off
from rskpca.ui.compute.shadow_cache import shadow

__all__ = ["bounds_rows", "mmd"]


@st.cache_data(max_entries=64, show_spinner="Computing the bounds and the measured values...")
def bounds_rows(digest: str, _X: np.ndarray, sigma: float, kernel: str, ell: float, r: int, max_exact: int):
    """Theorems 5.1-5.4 at ell as table rows: measured on at most ``max_exact`` rows, the a-posteriori values
    of 5.1-5.3 on all n; each row's ``measured on`` and ``bound on`` say which (``rows`` in a sentence)."""
    s = shadow(digest, _X, sigma, ell, kernel)
    with native_threads_off():  # the measured values fit exact KPCA: see fits.method_result
        rows = bounds_table(theorem_bounds(_X, s, sigma=sigma, kernel=kernel, n_components=r, max_exact=max_exact))
    n = int(_X.shape[0])
    return [_with_rows({"ell": ell, "m": s.m, **row}, n) for row in rows]


def _on(rows: int, n: int) -> str:
    return f"all {n:,} rows" if rows >= n else f"{rows:,} sampled rows"


def _with_rows(row: dict, n: int) -> dict:
    """``row`` with which rows its numbers are on right after them: ``measured on`` and ``bound on``, short
    enough for a table's column, and ``rows``, the same in a sentence (:func:`rskpca.bounds.rows_statement`)."""
    out = {}
    for key, value in row.items():
        out[key] = value
        if key == "measured":
            out["measured on"] = _on(int(row["n_measured"]), n)
            out["bound on"] = _on(int(row.get("n_a_posteriori") or row["n_measured"]), n)
            out["rows"] = rows_statement({**row, "n_total": n})
    return out


@st.cache_data(max_entries=64, show_spinner=False)
def mmd(digest: str, _X: np.ndarray, sigma: float, kernel: str, ell: float, max_exact: int) -> dict:
    """Theorem 5.1 alone: the MMD measured (O(s^2) on at most ``max_exact`` rows), a-posteriori (all n), a-priori."""
    s = shadow(digest, _X, sigma, ell, kernel)
    return mmd_bound(_X, s, sigma=sigma, kernel=kernel, max_exact=max_exact).as_dict()

