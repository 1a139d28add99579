"""The ell scrubbers' cached computations: results at every ell of a fixed grid, and their figures.

Part of :mod:`rskpca.ui.compute` (which re-exports these names): results at every ell of a
fixed grid are computed once per (data, sigma, kernel[, r]) and cached per ell, so the browser
can play them as animation frames (:mod:`rskpca.plotting._ell_scrubber_figures`). The grid, not the
sidebar's ell, keys them: moving ell never recomputes a scrubber. The figure is cached as its
JSON text, what the live chart sends: a rerun draws it without serializing it again.
"""

from __future__ import annotations

import numpy as np
import plotly.io as pio
import streamlit as st

from rskpca.core.row_draws import rows_within
from rskpca.core.threads import native_threads_off
from rskpca.evaluation.methods import SHADOW_METHOD
from rskpca.ui.compute.densities import (DENSITY_KERNEL_MAX_ELEMENTS, _grid_points, _grid_shape, density_rows,
                                         kde_at, kde_grid, shde_over_ells)
from rskpca.ui.compute.shadow_cache import shadow
from rskpca.ui.compute.fits import fit_methods
from rskpca.ui.compute.sweeps import _with_progress
from rskpca.ui.keys import ELL_RANGE

__all__ = ["SCRUB_ELLS", "SCRUB_EMBED_ELLS", "SCRUB_GRID", "SUGGESTED_SHARE", "shadow_scrubber", "density_scrubber",
           "embedding_scrubber", "suggested_ell"]

#: The scrubbers' ell grid (the sidebar's range in steps of 0.5).
SCRUB_ELLS = tuple(float(e) for e in np.round(np.linspace(*ELL_RANGE, 19), 2))
#: The embedding scrubber fits RSKPCA at each ell, so it uses a coarser grid (steps of 1).
SCRUB_EMBED_ELLS = tuple(float(e) for e in np.round(np.linspace(*ELL_RANGE, 10), 2))
#: The sidebar's suggested ell keeps at most this share of the rows (:func:`suggested_ell`).
SUGGESTED_SHARE = 1 / 3
#: Grid cells per axis of the density scrubber (coarser than the page's 80: frames multiply it).
SCRUB_GRID = 50


@st.cache_data(max_entries=512, show_spinner=False)
def _shadow_frame(digest: str, _X: np.ndarray, sigma: float, kernel: str, ell: float) -> dict:
    s = shadow(digest, _X, sigma, ell, kernel)
    return {"ell": ell, "center_indices": s.center_indices, "weights": s.weights, "m": s.m, "n": s.n}


@st.cache_data(max_entries=8, show_spinner=False)
def _shadow_scrubber(digest: str, _X2: np.ndarray, _frames, sigma: float, kernel: str, axis_titles: tuple,
                     projected: bool) -> str:
    from rskpca.plotting import shadow_scrubber_figure

    return pio.to_json(shadow_scrubber_figure(_X2, _frames, axis_titles=axis_titles, projected=projected),
                       validate=False)


def shadow_scrubber(digest: str, X: np.ndarray, X2: np.ndarray, sigma: float, kernel: str, axis_titles,
                    projected: bool) -> str:
    """The shadow-centers scrubber's figure (JSON text): frames over :data:`SCRUB_ELLS`, with progress."""
    frames = _with_progress("Shadow centers over the ell grid", SCRUB_ELLS,
                            lambda ell: [_shadow_frame(digest, X, sigma, kernel, ell)])
    return _shadow_scrubber(digest, X2, frames, sigma, kernel, tuple(str(t) for t in axis_titles), projected)


@st.cache_data(max_entries=8, show_spinner=False)
def _density_scrubber(key: str, _frames, _kde, _gx, _gy, axis_titles: tuple, note: str) -> str:
    from rskpca.plotting import density_scrubber_figure

    return pio.to_json(density_scrubber_figure(_frames, kde=_kde, gx=_gx, gy=_gy, axis_titles=axis_titles,
                                               note=note), validate=False)


def density_scrubber(digest: str, X: np.ndarray, sigma: float, kernel: str, axis_titles) -> str:
    """The KDE-vs-ShDE scrubber's figure (JSON text): ShDE on a grid (d <= 2) or at sampled points, over :data:`SCRUB_ELLS`."""
    from rskpca.plotting import SCRUB_POINTS

    drawn = slice(None)  # the frames' points among P's
    if X.shape[1] <= 2:
        axes, kde = kde_grid(digest, X, sigma, kernel, SCRUB_GRID)
        P, key, shape = _grid_points(axes), f"grid{SCRUB_GRID}", _grid_shape(axes)  # kde_grid's kernel
        gx, gy, note = axes[0], (axes[1] if len(axes) > 1 else None), ""
    else:
        # At most as many points as keep k(P, X) whole (DENSITY_KERNEL_MAX_ELEMENTS): a frame is then one
        # product, not a kernel against each frame's centers on every sigma change (usps: 800 points).
        # When the page's own points are kept whole, the frames are drawn at
        # (at most 1,000 of) them, read off the page's kernel: one kernel per sigma serves the frames and the
        # page (usps: the same 800; digits: 1,000 of its 1,797, no second 1,000 x 1,797 kernel).
        # (Not below 200 points: above 20,000 rows the frames evaluate against the centers again.)
        page_rows = density_rows(X.shape[0])
        if page_rows.size * X.shape[0] <= DENSITY_KERNEL_MAX_ELEMENTS:
            P, key = X[page_rows], f"rows{page_rows.size}"  # the page's key (pages/3_KDE_vs_ShDE.py)
            drawn = rows_within(page_rows.size, 1000, np.random.default_rng(1))
            rows = page_rows[drawn]
        else:
            points = min(SCRUB_POINTS, 1000, max(200, DENSITY_KERNEL_MAX_ELEMENTS // X.shape[0]))
            rows = rows_within(X.shape[0], points, np.random.default_rng(1))
            P, key = X[rows], f"scrub{rows.size}"
        shape = (rows.size,)
        kde = kde_at(digest, X, sigma, kernel, P, key)[drawn]
        gx = gy = None
        note = f" ({rows.size:,} of {X.shape[0]:,} points)" if rows.size < X.shape[0] else ""

    def point(ell):
        s = shadow(digest, X, sigma, ell, kernel)
        return [{"ell": ell, "m": s.m, "n": s.n}]

    frames = _with_progress("Shadows over the ell grid", SCRUB_ELLS, point)
    # every frame's ShDE in one product with the kept kernel (see shde_over_ells)
    for frame, shde in zip(frames, shde_over_ells(digest, X, sigma, kernel, SCRUB_ELLS, P, key)[:, drawn]):
        frame["shde"] = shde.reshape(shape)
    return _density_scrubber(f"{digest}:{sigma!r}:{kernel}", frames, kde, gx, gy,
                             tuple(str(t) for t in axis_titles), note)


@st.cache_data(max_entries=8, show_spinner=False)
def _embedding_scrubber(key: str, _exact, _frames, _y, note: str) -> str:
    from rskpca.plotting import embedding_scrubber_figure

    return pio.to_json(embedding_scrubber_figure(_exact, _frames, y=_y, note=note), validate=False)


def embedding_scrubber(digest: str, X: np.ndarray, exact, sigma: float, kernel: str, r: int, y=None) -> str:
    """The embedding scrubber's figure (JSON text): RSKPCA aligned to exact KPCA at each ell of
    :data:`SCRUB_EMBED_ELLS` ("" when no ell of the grid has r centers or more). ``y``: the rows' labels,
    or their :class:`~rskpca.plotting.Colouring` (the page's, so that a class keeps its colour).

    Ells whose shadow has fewer than r centers (RSKPCA cannot give r components), or where
    RSKPCA cannot be fitted, are left out.
    """
    from rskpca.core.metrics import align
    from rskpca.plotting import SCRUB_POINTS

    rows = rows_within(X.shape[0], min(SCRUB_POINTS, 1500), np.random.default_rng(2))
    last = {"shadow": None, "frame": None}

    def point(ell):
        s = shadow(digest, X, sigma, ell, kernel)
        if s.m < r:
            return []
        before = last["shadow"]
        if last["frame"] is not None and np.array_equal(before.center_indices, s.center_indices) \
                and np.array_equal(before.weights, s.weights):
            # the previous ell's centers and weights, so its RSKPCA: once (nearly) every row is its
            # own center the shadow stops changing (digits at its median sigma, ell = 7, 8, 9: two fits of ten saved)
            return [{**last["frame"], "ell": ell}]
        # fitted as Embeddings fits it (one cache entry: its result at this ell is a frame, and r moves
        # cheaply); a call with other arguments made a second entry of the same fit (st.cache_data
        # keys the arguments as passed: a default left out is not the default passed)
        fitted, _ = fit_methods(digest, X, [SHADOW_METHOD.name], sigma=sigma, kernel=kernel, r=r, ell=ell, m=s.m,
                                timed=False)
        if not fitted:  # (the page says why RSKPCA cannot run, at its own ell)
            return []
        emb = align(exact.embedding, fitted[0].embedding)
        err = np.linalg.norm(exact.embedding - emb) / max(np.linalg.norm(exact.embedding), 1e-300)
        frame = {"ell": ell, "m": s.m, "n": s.n, "embedding": emb[rows, :2], "error": float(err)}
        last.update(shadow=s, frame=frame)
        return [frame]

    with native_threads_off():  # the alignments' LAPACK calls: see fits.method_result
        frames = _with_progress("RSKPCA over the ell grid", SCRUB_EMBED_ELLS, point)
    if not frames:
        return ""
    note = f" ({rows.size:,} of {X.shape[0]:,} rows drawn)" if rows.size < X.shape[0] else ""
    y = None if y is None else y.subset(rows) if hasattr(y, "subset") else np.asarray(y)[rows]
    return _embedding_scrubber(f"{digest}:{sigma!r}:{kernel}:{r}", exact.embedding[rows, :2], frames, y, note)


def suggested_ell(digest: str, X: np.ndarray, sigma: float, kernel: str) -> tuple[float, int] | None:
    """``(ell, m)``: the largest ell of :data:`SCRUB_ELLS` whose shadow keeps at most :data:`SUGGESTED_SHARE`
    of the rows at this sigma, or None when even the smallest keeps more (sigma is then what to change).

    For data where the default ell keeps nearly every row (digits at its median sigma: 94% at ell = 4,
    23% at ell = 2), the sidebar offers it in one click. A bisection over the grid (m grows with ell):
    five or six shadows, from the cache the scrubbers' frames share.
    """
    n = X.shape[0]

    def fits(i):
        return shadow(digest, X, sigma, SCRUB_ELLS[i], kernel).m <= SUGGESTED_SHARE * n

    lo, hi = 0, len(SCRUB_ELLS) - 1
    if not fits(lo):
        return None
    if fits(hi):
        lo = hi
    while hi - lo > 1:  # fits(lo) and not fits(hi)
        mid = (lo + hi) // 2
        lo, hi = (mid, hi) if fits(mid) else (lo, mid)
    return SCRUB_ELLS[lo], shadow(digest, X, sigma, SCRUB_ELLS[lo], kernel).m
