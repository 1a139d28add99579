"""Drawing n points as their density: the 2-D histogram an embedding panel draws above the point budget.

Above :data:`POINT_BUDGET` points in one figure a panel draws its rows as a ``DENSITY_BINS`` x ``DENSITY_BINS``
histogram (:func:`density_counts`, coloured by :func:`density_levels`), the selected rows as a histogram of their
own, and the shadow centers on top (:func:`_density_panel`, called by
:func:`rskpca.plotting.embedding_figure`, :func:`rskpca.plotting.shadow_figure` and
:func:`rskpca.plotting.data_figure`); :func:`density_note` says what is aggregated.
"""

from __future__ import annotations

import base64
import struct
import zlib

import numpy as np

from rskpca.plotting._colouring import center_sizes, continuous_colors, marker_style
from rskpca.plotting._selection import SELECTION_COLOR
from rskpca.plotting._style import _padded_ranges, class_color_marker, largest

__all__ = ["POINT_BUDGET", "DENSITY_BINS", "MIN_DENSITY_BINS", "density_bins", "CROWD_BINS", "CROWDED_CELL", "CROWD_MIN_POINTS", "density_counts",
           "density_levels", "class_density", "png_data_uri", "crowded", "draws_density", "density_note",
           "say_density", "MAX_CENTERS_DRAWN", "centers_note", "capped_total"]


#: Above this many points in one figure (all panels together) an embedding panel draws the density
#: of its rows (a 2-D histogram) with the shadow centers on top instead of one marker per row.
#: Measured in headless Chromium (``python tests/benchmarks/bench_latency.py --browser``): the
#: Scattergl panels stay responsive up to some tens of thousands of points; a 200 x 200 histogram
#: per panel costs the browser the same at any n.
POINT_BUDGET = 20_000
#: Bins per axis of a density panel, at most (:func:`density_bins`).
DENSITY_BINS = 200
#: Bins per axis of a density panel, at least.
MIN_DENSITY_BINS = 50
#: A crowded chart (:func:`crowded`) is drawn as a density from this many points on; fewer stay points.
CROWD_MIN_POINTS = 2_000
#: Cells per axis of the crowding test: about a marker wide on a panel a few hundred pixels wide.
CROWD_BINS = 80
#: A cell holding more points than this is a solid blot (at the markers' opacity for thousands of points).
CROWDED_CELL = 6
#: The density's colour without a colour column (its opacity grows with the count).
_ONE_COLOR = (8, 48, 107)
#: The selection's bins: the selection's colour (no class has it), the density showing through.
_SELECTED_SCALE = [[0.0, "rgba(255,255,255,0)"], [0.5 / 255, "rgba(255,255,255,0)"], [0.5 / 255, SELECTION_COLOR],
                   [1.0, SELECTION_COLOR]]
#: Outline of the shadow centers: dark and thin, so a center shows over rows of its own colour.
_CENTER_LINE = dict(color="rgba(20,20,20,0.85)", width=0.8)
_CENTER_LINE_THIN = dict(color="rgba(20,20,20,0.5)", width=0.4)
#: Above this many centers in a panel their outlines thin (:func:`centers_trace`).
_MANY_CENTERS = 1_000
#: A panel draws at most this many centers, the heaviest: more only stack outlines into a mass over the rows
#: they stand for (at m = 16,436 of 20,000 rows nothing else showed); the note under the title says so. The
#: ell scrubbers' frames draw as many (one number on a page).
MAX_CENTERS_DRAWN = 1_500


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
    cell, xb, yb = _binned(x, y, bins, ranges)
    return np.bincount(cell, minlength=bins * bins).reshape(bins, bins), xb, yb


def _binned(x, y, bins: int, ranges):
    """Each point's bin (y bin * bins + x bin) and the bins' ``(x0, dx), (y0, dy)``, as :func:`density_counts`
    bins them."""
    x = np.asarray(x, dtype=np.float64).ravel()
    y = np.asarray(y, dtype=np.float64).ravel()
    if ranges is None:
        ranges = [[float(x.min()), float(x.max())], [float(y.min()), float(y.max())]] if x.size else [[0, 1], [0, 1]]
    (xlo, xhi), (ylo, yhi) = ranges
    dx = (xhi - xlo) / bins if xhi > xlo else 1.0
    dy = (yhi - ylo) / bins if yhi > ylo else 1.0
    ix = np.clip(((x - xlo) / dx).astype(np.int64), 0, bins - 1)
    iy = np.clip(((y - ylo) / dy).astype(np.int64), 0, bins - 1)
    return iy * bins + ix, (float(xlo), float(dx)), (float(ylo), float(dy))


def density_bins(n_rows: int, most: int = DENSITY_BINS) -> int:
    """Bins per axis for the density of ``n_rows`` rows: about two rows per bin over the whole square (some
    eight in the bins the rows fill), between :data:`MIN_DENSITY_BINS` and ``most``. Fewer rows in finer
    bins would draw grain (one row a bin), not a density.

    >>> density_bins(20_000), density_bins(1_000_000), density_bins(3_000)
    (100, 200, 50)
    """
    return int(np.clip(np.sqrt(max(int(n_rows), 1) / 2.0), MIN_DENSITY_BINS, most))


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
    the centers (the selection's histogram, drawn in one colour over the rows' density)."""
    trace = dict(type="heatmap", z=density_levels(counts), zmin=0, zmax=255, x0=xb[0] + xb[1] / 2, dx=xb[1],
                 y0=yb[0] + yb[1] / 2, dy=yb[1], colorscale=scale, showscale=False, hoverinfo="skip",
                 opacity=opacity, name=name, zsmooth=False, **ref)
    if hover is not None:
        top = int(np.asarray(counts).max(initial=0))
        trace.update(customdata=np.asarray(counts).astype(np.min_scalar_type(max(top, 1))), hovertemplate=hover)
        del trace["hoverinfo"]
    return trace


def class_density(x, y, colour=None, *, rows=None, bins: int = DENSITY_BINS, ranges=None):
    """The rows' density coloured as their column is: ``(rgba, counts, (x0, dx), (y0, dy))``.

    A categorical aggregation as datashader's ``count_cat`` and ``shade`` make it: per bin the count
    of each class, the bin's colour the count-weighted mix of the class colours, its opacity from the
    total count (:func:`density_levels`: log-spaced, one row still visible). A continuous column mixes
    the mean value's colour on its scale; no column, one blue. ``rgba`` is uint8 of shape
    (bins, bins, 4), indexed [y bin, x bin] as ``counts``.

    Parameters
    ----------
    x, y : array-like of shape (k,)
    colour : Colouring or None
        Of all n rows; ``rows`` picks this panel's k of them (all when None).
    rows : array-like of int or None
    bins : int, default=DENSITY_BINS
    ranges : [[xlo, xhi], [ylo, yhi]] or None

    Examples
    --------
    >>> from rskpca.plotting._colouring import colouring
    >>> c = colouring(["A", "A", "B"])
    >>> rgba, counts, _, _ = class_density([0.0, 0.0, 1.0], [0.0, 0.0, 1.0], c, bins=2)
    >>> rgba[0, 0, :3].tolist() == c.rgb()[0].astype(int).tolist(), int(rgba[1, 0, 3]), counts.tolist()
    (True, 0, [[2, 0], [0, 1]])
    """
    cell, xb, yb = _binned(x, y, bins, ranges)
    counts = np.bincount(cell, minlength=bins * bins).reshape(bins, bins)
    flat = counts.ravel().astype(np.float64)
    filled = flat > 0
    if colour is None:
        rgb = np.tile(np.asarray(_ONE_COLOR, dtype=np.float64), (flat.size, 1))
    elif colour.continuous:
        v = colour.values if rows is None else colour.values[np.asarray(rows)]
        known = np.isfinite(v)
        sums = np.bincount(cell[known], weights=v[known], minlength=bins * bins)
        seen = np.bincount(cell[known], minlength=bins * bins)
        with np.errstate(invalid="ignore", divide="ignore"):
            mean = np.where(seen > 0, sums / np.maximum(seen, 1), np.nan)
        lo, hi = (float(np.min(v[known])), float(np.max(v[known]))) if known.any() else (0.0, 1.0)
        rgb = continuous_colors(mean, lo, hi)
    else:
        codes = colour.codes if rows is None else colour.codes[np.asarray(rows)]
        k = len(colour.classes)
        per_class = np.bincount(cell * k + codes, minlength=bins * bins * k).reshape(bins * bins, k)
        # (float32: an integer matrix product has no BLAS and is ten times slower)
        rgb = (per_class.astype(np.float32) @ colour.rgb().astype(np.float32)) / np.maximum(flat, 1.0)[:, None]
    alpha = np.where(filled, 70.0 + 185.0 * density_levels(counts).ravel() / 255.0, 0.0)
    rgba = np.concatenate([np.rint(rgb), alpha[:, None]], axis=1).clip(0, 255).astype(np.uint8)
    return rgba.reshape(bins, bins, 4), counts, xb, yb


def png_data_uri(rgba) -> str:
    """An RGBA image (uint8, shape (h, w, 4), row 0 first) as a PNG ``data:`` URI.

    A 200 x 200 density travels as a few tens of kB this way, where the same pixels as numbers would
    take 160,000 of them; zlib and the PNG chunks by hand (the format is five lines), no imaging library.

    >>> png_data_uri(np.zeros((1, 1, 4), dtype=np.uint8))[:22]
    'data:image/png;base64,'
    """
    rgba = np.ascontiguousarray(rgba, dtype=np.uint8)
    h, w, _ = rgba.shape
    raw = np.zeros((h, 1 + 4 * w), dtype=np.uint8)  # each scan line: filter 0, then its pixels
    raw[:, 1:] = rgba.reshape(h, 4 * w)

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    png = (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 6, 0, 0, 0))
           + chunk(b"IDAT", zlib.compress(raw.tobytes(), 6)) + chunk(b"IEND", b""))
    return "data:image/png;base64," + base64.b64encode(png).decode("ascii")


def _image_trace(rgba, counts, xb, yb, ref: dict, *, hover: str | None = None) -> dict:
    """The coloured density as an image in one panel (a PNG), its bins' counts for the hover when ``hover``
    (a hover template reading ``%{customdata}``), else the hover left to the centers."""
    trace = dict(type="image", source=png_data_uri(rgba), x0=xb[0] + xb[1] / 2, dx=xb[1], y0=yb[0] + yb[1] / 2,
                 dy=yb[1], name="density", hoverinfo="skip", **ref)
    if hover is not None:
        top = int(np.asarray(counts).max(initial=0))
        trace.update(customdata=np.asarray(counts).astype(np.min_scalar_type(max(top, 1))), hovertemplate=hover)
        del trace["hoverinfo"]
    return trace


#: A density panel whose rows fill at most this many bins, and at most :data:`SPOT_SHARE` of its bins, draws them
#: as spots too (:func:`_spots_trace`): rows on a lattice or in pieces, not a spread density.
MAX_SPOTS, SPOT_SHARE = 400, 0.02
#: Pixel sizes of the spots: one row's, the fullest bin's.
SPOT_SIZES = (7.0, 28.0)


def _spots_trace(rgba, counts, xb, yb, ref: dict) -> dict | None:
    """Rows that all fall in a few bins (a graph in pieces: every row of a piece at one point; features of a few
    values each) as circles sized by their count and coloured as the bins are; None where the rows fill more
    bins than :data:`MAX_SPOTS` or :data:`SPOT_SHARE` of them.

    A bin is a few pixels on screen, so seven filled bins of 20,000 rows read as an empty chart.

    >>> counts = np.zeros((20, 20), dtype=int); counts[0, 0], counts[3, 2] = 9, 1
    >>> rgba = np.zeros((20, 20, 4), dtype=np.uint8); rgba[..., 0] = 200
    >>> t = _spots_trace(rgba, counts, (0.0, 1.0), (0.0, 1.0), {})
    >>> t["x"].tolist(), t["y"].tolist(), t["marker"]["size"].tolist(), t["marker"]["color"][0]
    ([0.5, 2.5], [0.5, 3.5], [28.0, 14.0], 'rgb(200,0,0)')
    """
    iy, ix = np.nonzero(counts)
    if iy.size == 0 or iy.size > min(MAX_SPOTS, SPOT_SHARE * counts.size):
        return None
    n = counts[iy, ix]
    # Area grows with the count, between a visible dot and a fifth of a small panel.
    size = SPOT_SIZES[0] + (SPOT_SIZES[1] - SPOT_SIZES[0]) * np.sqrt(n / n.max())
    colors = [f"rgb({r},{g},{b})" for r, g, b in rgba[iy, ix, :3].tolist()]
    return dict(type="scattergl", mode="markers", name="rows (each spot a bin)", showlegend=False,
                x=(xb[0] + (ix + 0.5) * xb[1]).astype(np.float32), y=(yb[0] + (iy + 0.5) * yb[1]).astype(np.float32),
                marker=dict(size=np.round(size, 1), color=colors, opacity=0.8, line=dict(color="white", width=1)),
                # the count as text, not customdata: a selection reads a point's customdata as its row number
                text=[f"{int(c):,}" for c in n], hovertemplate="%{text} rows in this bin<extra></extra>", **ref)


def image_axes(layout: dict, refs) -> None:
    """Axis settings of panels drawing a density image, in place: plotly.js turns an image's y axis upside
    down and locks its aspect ratio by default; the density keeps y upwards and the panel's shape."""
    for ref in refs:
        for axis in ("xaxis", "yaxis"):
            name = "xaxis" + ref["xaxis"][1:] if axis == "xaxis" else "yaxis" + ref["yaxis"][1:]
            layout.setdefault(name, {}).update(autorange=True, **({"scaleanchor": False} if axis == "yaxis" else {}))


def crowded(x, y, *, bins: int = CROWD_BINS, per_cell: int = CROWDED_CELL) -> bool:
    """Whether points drawn at (x, y) would hide one another: more than half of them in marker-sized
    cells (``bins`` x ``bins`` over their extent) holding more than ``per_cell`` points each.

    The switch to the density drawing goes by this, not by a row count alone: 20,000 rows spread
    thin stay points, 5,000 rows on a few piles become their density.

    >>> rng = np.random.default_rng(0)
    >>> piles = np.repeat([0.0, 10.0, 20.0], 2000) + rng.normal(scale=0.3, size=6000)
    >>> crowded(piles, rng.normal(scale=0.3, size=6000)), crowded(rng.uniform(size=20_000), rng.uniform(size=20_000))
    (True, False)
    """
    x = np.asarray(x, dtype=np.float64).ravel()
    if x.size < CROWD_MIN_POINTS:
        return False
    counts, _, _ = density_counts(x, y, bins=bins)
    full = counts[counts > per_cell].sum()
    return bool(full > 0.5 * x.size)


def density_note(n_rows: int, n_centers: int | None, bins: int = DENSITY_BINS, *, of: int | None = None) -> str:
    """What a density panel aggregates, in the chart's words; ``of``: the centers in all, when only the
    ``n_centers`` heaviest are drawn (:data:`MAX_CENTERS_DRAWN`).

    >>> density_note(1_000_000, 35)
    'density of 1,000,000 rows in 200 x 200 bins; 35 shadow centers on top (sized by weight)'
    >>> density_note(20_000, 1_500, 100, of=16_436)
    'density of 20,000 rows in 100 x 100 bins; the 1,500 heaviest of 16,436 shadow centers on top (sized by weight)'
    """
    return f"density of {n_rows:,} rows in {bins} x {bins} bins{centers_note(n_centers, of)}"


def centers_note(n_centers: int | None, of: int | None = None) -> str:
    """``"; N shadow centers on top (sized by weight)"``, naming the heaviest of how many when capped
    (:func:`capped_total`); empty without centers."""
    if not n_centers:
        return ""
    if of is not None and of > n_centers:
        return f"; the {n_centers:,} heaviest of {of:,} shadow centers on top (sized by weight)"
    return f"; {n_centers:,} shadow center{'' if n_centers == 1 else 's'} on top (sized by weight)"


def capped_total(shown: int, centers) -> int | None:
    """The number of ``centers`` (``(positions, weights)`` or None) when a panel drew only the heaviest
    ``shown`` of them, else None: for :func:`density_note`'s ``of``."""
    total = 0 if centers is None else np.asarray(centers[0]).size
    return total if total > MAX_CENTERS_DRAWN and shown == MAX_CENTERS_DRAWN else None


def say_density(fig, note: str, *, one_line: bool = False) -> None:
    """Write ``note`` (:func:`density_note`) under the title of a one-panel density figure, in place.

    ``one_line``: the rows lie on a line (1-D data drawn at y = 0), so they fill one row of bins; the
    y axis then shows that row, not 200 rows of empty bins around it.
    """
    fig.update_layout(title=dict(subtitle=dict(text=note)), margin=dict(t=75))
    drawn = next((t for t in fig.data if t.type in ("image", "heatmap")), None)
    if one_line and drawn is not None:
        # the rows lie at y = 0: the one row of bins holding it
        row = np.floor((0.0 - (drawn.y0 - drawn.dy / 2)) / drawn.dy)
        lo = drawn.y0 + (row - 0.5) * drawn.dy
        hi = drawn.y0 + (row + 0.5) * drawn.dy
        fig.update_yaxes(range=[lo - (hi - lo), hi + (hi - lo)], showticklabels=False, autorange=False)


def draws_density(fig) -> bool:
    """Whether a row chart draws (some of) its rows as their density, not as points: the page then lets a
    box or lasso select rows by their coordinates (:func:`rskpca.plotting.data_panels`).

    >>> import plotly.graph_objects as go
    >>> draws_density(go.Figure(go.Scatter(x=[1], y=[1])))
    False
    """
    return any(t.name == "density" for t in fig.data)


def centers_trace(A: np.ndarray, local, c_pos, c_w, ref: dict, *, dims: int, colour, rid, first: bool,
                  sizes=None) -> dict:
    """The shadow centers of one panel as small outlined markers sized by weight (:func:`center_sizes`),
    filled with the colour of their row's class (white without a colour column), hover on their row and
    weight. ``local``: the centers' positions among the panel's coordinates ``A``; ``c_pos`` among the n rows."""
    # Thousands of centers: thinner, fainter outlines and the rows' opacity, or the outlines alone make a dark mass.
    many = c_w.size > _MANY_CENTERS
    marker = dict(size=center_sizes(c_w, dims=dims) if sizes is None else sizes, color="rgba(255,255,255,0.9)",
                  opacity=min(0.95, marker_style(c_w.size)["opacity"] + 0.25) if many else 0.95,
                  line=_CENTER_LINE_THIN if many else _CENTER_LINE)
    if colour is not None and colour.continuous:
        v = colour.values
        marker.update(color=v[c_pos].astype(np.float32), colorscale="Viridis", cmin=float(np.nanmin(v)),
                      cmax=float(np.nanmax(v)), showscale=False)
    elif colour is not None:
        # coloured by class as numbers on a stepped scale (no string per center on every redraw)
        marker.update(class_color_marker(colour.codes[c_pos], colour.colors))
    trace = dict(type="scattergl" if dims == 2 else "scatter3d", mode="markers", marker=marker,
                 customdata=np.column_stack([rid[c_pos], c_w]).astype(np.float64),
                 hovertemplate="shadow center: row %{customdata[0]}<br>weight %{customdata[1]}<extra></extra>",
                 # filled with class colours, its legend symbol would take the first center's and read as a
                 # class: centers_legend_key stands in for it
                 name="shadow centers", legendgroup="shadow centers", showlegend=first and colour is None,
                 x=A[local, 0].astype(np.float32), y=A[local, 1].astype(np.float32), **ref)
    if dims == 3:
        trace.update(x=A[local, 0], y=A[local, 1], z=A[local, 2])
    return trace


def centers_legend_key(ref: dict, *, dims: int = 2) -> dict:
    """The legend's entry for centers filled with class colours (:func:`centers_trace`): an empty trace
    drawn as the centers are without a colour column (white, outlined), in their legend group, so a
    click on it still hides every panel's centers.

    >>> key = centers_legend_key({})
    >>> key["name"], key["legendgroup"], key["marker"]["color"], key["x"]
    ('shadow centers', 'shadow centers', 'rgba(255,255,255,0.9)', [None])
    """
    trace = dict(type="scattergl" if dims == 2 else "scatter3d", mode="markers", x=[None], y=[None],
                 marker=dict(size=8, color="rgba(255,255,255,0.9)", line=_CENTER_LINE), name="shadow centers",
                 legendgroup="shadow centers", showlegend=True, hoverinfo="skip", **ref)
    if dims == 3:
        trace["z"] = [None]
    return trace


def _density_panel(traces: list, A: np.ndarray, pos, panel_ids: np.ndarray, ref: dict, *, dims: int, bins: int,
                   centers, colour, rid, first: bool, selected, hover: str | None = None,
                   rows_drawn: bool = True) -> int:
    """Append one density panel's traces (2-D: the rows' density in their colours, the selection's histogram,
    the centers; 3-D: the centers) to ``traces``; returns how many centers it draws. ``pos``: the panel's
    rows among the n (None: all); ``colour``: a Colouring of the n rows, or None. ``hover``: a hover
    template for the density, whose bins then carry their counts (``%{customdata}``); None leaves the
    hover to the centers. ``rows_drawn=False``: the centers only (over a panel that draws its rows as points)."""
    if dims == 2 and rows_drawn:
        ranges = _padded_ranges([A], 2, pad=0.02)
        rgba, counts, xb, yb = class_density(A[:, 0], A[:, 1], colour, rows=pos, bins=bins, ranges=ranges)
        traces.append(_image_trace(rgba, counts, xb, yb, ref, hover=hover))
        spots = _spots_trace(rgba, counts, xb, yb, ref)
        if spots is not None:
            traces.append(spots)
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
    # sized among all m centers, so a panel of some of the rows (a sample) draws its centers as the others do
    sizes = center_sizes(c_w, dims=dims)
    if pos is None:
        local = c_pos
    else:  # the centers among this panel's rows (sorted positions)
        where = np.clip(np.searchsorted(pos, c_pos), 0, max(pos.size - 1, 0))
        keep = pos[where] == c_pos
        local, c_pos, c_w, sizes = where[keep], c_pos[keep], c_w[keep], sizes[keep]
    if local.size == 0:
        return 0
    keep = largest(c_w, MAX_CENTERS_DRAWN)  # sized among all m above, drawn the heaviest
    local, c_pos, c_w, sizes = local[keep], c_pos[keep], c_w[keep], sizes[keep]
    traces.append(centers_trace(A, local, c_pos, c_w, ref, dims=dims, colour=colour, rid=rid, first=first,
                                sizes=sizes))
    if first and colour is not None:
        traces.append(centers_legend_key(ref, dims=dims))
    return int(local.size)
