"""Drawing n points as their density: the 2-D histogram an embedding panel draws above the point budget.

Above :data:`POINT_BUDGET` points in one figure a panel draws its rows as a ``DENSITY_BINS`` x ``DENSITY_BINS``
histogram (:func:`density_counts`, coloured by :func:`density_levels`), the selected rows as a histogram of their
own, and the shadow centers on top (:func:`_density_panel`, called by
:func:`rskpca.plotting.embedding_figure`, :func:`rskpca.plotting.shadow_figure` and
:func:`rskpca.plotting.data_figure`); :func:`density_note` says what is aggregated.
"""

from __future__ import annotations

import numpy as np

from rskpca.plotting._selection import SELECTION_COLOR
from rskpca.plotting._style import _padded_ranges, cyclic_color_marker

__all__ = ["POINT_BUDGET", "DENSITY_BINS", "density_counts", "density_levels", "density_note", "say_density"]


#: Above this many points in one figure (all panels together) an embedding panel draws the density
#: of its rows (a 2-D histogram) with the shadow centers on top instead of one marker per row.
#: Measured in headless Chromium (``python tests/benchmarks/bench_latency.py --browser``): the
#: Scattergl panels stay responsive up to some tens of thousands of points; a 200 x 200 histogram
#: per panel costs the browser the same at any n.
POINT_BUDGET = 20_000
#: Bins per axis of a density panel.
DENSITY_BINS = 200
#: Colours of a density panel: empty bins (level 0) transparent, then light to dark with log10 of the count.
_DENSITY_SCALE = [[0.0, "rgba(255,255,255,0)"], [0.5 / 255, "rgba(255,255,255,0)"], [0.5 / 255, "#dfe9f5"],
                  [0.5, "#6a9bd1"], [1.0, "#08306b"]]
#: The selection's bins: the selection's colour (no class has it), the density showing through.
_SELECTED_SCALE = [[0.0, "rgba(255,255,255,0)"], [0.5 / 255, "rgba(255,255,255,0)"], [0.5 / 255, SELECTION_COLOR],
                   [1.0, SELECTION_COLOR]]
_CENTER_COLOR = "#d62728"


def density_counts(x, y, *, bins: int = DENSITY_BINS, ranges=None):
    """A 2-D histogram of the points (x, y): ``(counts, (x0, dx), (y0, dy))``, counts of shape (bins, bins)
    indexed [y bin, x bin] (a heatmap's ``z``).

    Bin by arithmetic and ``np.bincount`` (one pass, about 20 ms per million points), not
    ``np.histogram2d`` (a sort per axis). ``ranges``: ``[[xlo, xhi], [ylo, yhi]]``; the points' own
    extent if None. Points outside the ranges fall in the edge bins.

    >>> c, (x0, dx), (y0, dy) = density_counts([0.0, 1.0, 1.0], [0.0, 1.0, 1.0], bins=2)
    >>> c.tolist(), x0, dx
    ([[1, 0], [0, 2]], 0.0, 0.5)
    """
    x = np.asarray(x, dtype=np.float64).ravel()
    y = np.asarray(y, dtype=np.float64).ravel()
    if ranges is None:
        ranges = [[float(x.min()), float(x.max())], [float(y.min()), float(y.max())]] if x.size else [[0, 1], [0, 1]]
    (xlo, xhi), (ylo, yhi) = ranges
    dx = (xhi - xlo) / bins if xhi > xlo else 1.0
    dy = (yhi - ylo) / bins if yhi > ylo else 1.0
    ix = np.clip(((x - xlo) / dx).astype(np.int64), 0, bins - 1)
    iy = np.clip(((y - ylo) / dy).astype(np.int64), 0, bins - 1)
    counts = np.bincount(iy * bins + ix, minlength=bins * bins).reshape(bins, bins)
    return counts, (float(xlo), float(dx)), (float(ylo), float(dy))


def density_levels(counts) -> np.ndarray:
    """Counts as colour levels 0-255 (uint8: a quarter of float32's bytes on every redraw): 0 for an empty
    bin, 1 for one row, 255 for the fullest bin, log-spaced between.

    >>> density_levels(np.array([[0, 1], [10, 100]])).tolist()
    [[0, 1], [128, 255]]
    """
    counts = np.asarray(counts)
    top = float(np.log10(max(int(counts.max()), 2)))
    with np.errstate(divide="ignore"):
        levels = 1.0 + 254.0 * np.log10(np.maximum(counts, 1)) / top
    return np.where(counts > 0, np.rint(levels), 0).astype(np.uint8)


def _density_trace(counts, xb, yb, ref: dict, *, scale, opacity: float = 1.0, name: str = "density",
                   hover: str | None = None) -> dict:
    """A heatmap of ``counts`` (:func:`density_levels`, empty bins transparent) in one panel, hover left to
    the centers; with ``hover`` (a hover template), each bin's count travels as its ``customdata``."""
    trace = dict(type="heatmap", z=density_levels(counts), zmin=0, zmax=255, x0=xb[0] + xb[1] / 2, dx=xb[1],
                 y0=yb[0] + yb[1] / 2, dy=yb[1], colorscale=scale, showscale=False, hoverinfo="skip",
                 opacity=opacity, name=name, zsmooth=False, **ref)
    if hover is not None:
        # the smallest unsigned type that holds the fullest bin: the bytes on the wire stay O(bins^2)
        top = int(np.asarray(counts).max(initial=0))
        trace.update(customdata=np.asarray(counts).astype(np.min_scalar_type(max(top, 1))), hovertemplate=hover)
        del trace["hoverinfo"]
    return trace


def density_note(n_rows: int, n_centers: int | None, bins: int = DENSITY_BINS) -> str:
    """What a density panel aggregates, in the chart's words.

    >>> density_note(1_000_000, 35)
    'density of 1,000,000 rows in 200 x 200 bins; 35 shadow centers on top (sized by weight)'
    """
    centers = "" if not n_centers else f"; {n_centers:,} shadow center{'' if n_centers == 1 else 's'} on top (sized by weight)"
    return f"density of {n_rows:,} rows in {bins} x {bins} bins{centers}"


def say_density(fig, note: str, *, one_line: bool = False) -> None:
    """Write ``note`` (:func:`density_note`) under the title of a one-panel density figure, in place.

    ``one_line``: the rows lie on a line (1-D data drawn at y = 0), so they fill one row of bins; the
    y axis then shows that row, not 200 rows of empty bins around it.
    """
    fig.update_layout(title=dict(subtitle=dict(text=note)), margin=dict(t=75))
    heat = next((t for t in fig.data if t.type == "heatmap"), None)
    if one_line and heat is not None:
        full = np.flatnonzero(np.asarray(heat.z).any(axis=1))
        if full.size:
            lo = heat.y0 + (full.min() - 0.5) * heat.dy
            hi = heat.y0 + (full.max() + 0.5) * heat.dy
            fig.update_yaxes(range=[lo - (hi - lo), hi + (hi - lo)], showticklabels=False)


def _density_panel(traces: list, A: np.ndarray, pos, panel_ids: np.ndarray, ref: dict, *, dims: int, bins: int,
                   centers, groups, y, rid, label_name: str, first: bool, selected, hover: str | None = None) -> int:
    """Append one density panel's traces (2-D: the rows' histogram, the selection's, the centers; 3-D: the
    centers) to ``traces``; returns how many centers it draws. ``hover``: a hover template for the rows'
    histogram, whose bins then carry their counts (``%{customdata}``); None leaves the hover to the centers."""
    if dims == 2:
        ranges = _padded_ranges([A], 2, pad=0.02)
        counts, xb, yb = density_counts(A[:, 0], A[:, 1], bins=bins, ranges=ranges)
        traces.append(_density_trace(counts, xb, yb, ref, scale=_DENSITY_SCALE, hover=hover))
        if selected is not None and selected.size:
            mask = np.isin(panel_ids, selected)
            if mask.any():
                sel, _, _ = density_counts(A[mask, 0], A[mask, 1], bins=bins, ranges=ranges)
                traces.append(_density_trace(sel, xb, yb, ref, scale=_SELECTED_SCALE, opacity=0.55, name="selected"))
    if centers is None:
        return 0
    c_pos, c_w = (np.asarray(v).ravel() for v in centers)
    c_pos = c_pos.astype(np.int64)
    c_w = c_w.astype(np.float64)
    if pos is None:
        local = c_pos
    else:  # the centers among this panel's rows (sorted positions)
        where = np.clip(np.searchsorted(pos, c_pos), 0, max(pos.size - 1, 0))
        keep = pos[where] == c_pos
        local, c_pos, c_w = where[keep], c_pos[keep], c_w[keep]
    if local.size == 0:
        return 0
    size = 5.0 + 13.0 * np.sqrt(c_w / c_w.max())
    marker = dict(size=size.astype(np.float32), color=_CENTER_COLOR, opacity=0.9,
                  line=dict(color="white", width=0.8))
    hover = "shadow center: row %{customdata[0]}<br>weight %{customdata[1]}"
    if groups is not None:
        # coloured by class as numbers on a stepped scale (no string per center on every redraw)
        codes = np.zeros(c_pos.size, dtype=np.int64)
        for g, (_, mask) in enumerate(groups):
            codes[mask[c_pos]] = g
        marker.update(cyclic_color_marker(codes))
    trace = dict(type="scattergl" if dims == 2 else "scatter3d", mode="markers", marker=marker,
                 customdata=np.column_stack([rid[c_pos], c_w]).astype(np.float64),
                 hovertemplate=hover + "<extra></extra>", name="shadow centers", legendgroup="shadow centers",
                 showlegend=first, x=A[local, 0].astype(np.float32), y=A[local, 1].astype(np.float32), **ref)
    if dims == 3:
        marker["size"] = (marker["size"] * 0.6).astype(np.float32)
        trace.update(x=A[local, 0], y=A[local, 1], z=A[local, 2])
    traces.append(trace)
    return int(local.size)
