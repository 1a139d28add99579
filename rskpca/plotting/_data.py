"""Figures of the data side: shadow centers, weights, KDE against ShDE."""

from __future__ import annotations

import copy
from collections.abc import Sequence
from functools import lru_cache

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from rskpca.plotting._density_drawing import DENSITY_BINS, POINT_BUDGET, _density_panel, density_note, say_density
from rskpca.plotting._selection import highlight_rows
from rskpca.plotting._style import (
    _TYPICAL_WIDTH,
    _as_2d,
    _check_len,
    _count_axis,
    _row_ids,
    _scatter_type,
    cyclic_color_marker,
    shadow_centers_text,
    user_text,
)


# --------------------------------------------------------------------------- shadow


def shadow_figure(X2, labels, center_indices, weights, *, eps: float | None = None, projected: bool = False,
                  axis_titles: Sequence[str] = ("x1", "x2"), row_ids=None, max_discs: int = 400,
                  max_points: int = POINT_BUDGET, title: str | None = None, selected_rows=None,
                  point_budget: int = POINT_BUDGET, bins: int = DENSITY_BINS) -> go.Figure:
    """The data coloured by shadow set, with centers sized by weight and eps-discs.

    Above ``point_budget`` rows the figure draws the density of all n rows (a ``bins`` x ``bins``
    histogram, as :func:`embedding_figure` does) with the centers on top, sized by weight, hover on
    the centers (row and weight); the title says what is aggregated (:func:`density_note`). A box
    or lasso over it selects rows by their coordinates (:func:`data_panels`), not by points drawn.

    Parameters
    ----------
    X2 : array-like of shape (n, 1) or (n, 2)
        Coordinates to draw (the data itself, or its first principal axes).
    labels : array-like of shape (n,)
        Shadow set (center number) of each point.
    center_indices : array-like of shape (m,)
        Row of ``X2`` that is each center.
    weights : array-like of shape (m,)
        Points absorbed by each center; marker area grows with it.
    eps : float or None, default=None
        Shadow radius. Discs of this radius are drawn only when the coordinates
        are the data itself (not ``projected``), 2-D, and ``m <= max_discs``.
    projected : bool, default=False
        Whether ``X2`` is a projection; said in the title and axis names.
    axis_titles : sequence of str, default=("x1", "x2")
    row_ids : array-like of shape (n,) or None
        Original row numbers for hover labels.
    max_discs : int, default=400
        More discs than this clutter the chart and slow the browser.
    max_points : int, default=POINT_BUDGET
        Above this many points (and up to ``point_budget``) a seeded subsample is drawn (the title says so);
        by default every row is drawn, as points up to the budget and as their density above it.
    title : str or None
    selected_rows : array-like of int or None
        Original row numbers to highlight (the rest dimmed); see :func:`highlight_rows`. Above the
        budget the selected rows are drawn as a histogram of their own.
    point_budget : int, default=POINT_BUDGET
        Above this many rows the density of all of them is drawn instead of points.
    bins : int, default=DENSITY_BINS
        Bins per axis of the density.

    Returns
    -------
    go.Figure

    Examples
    --------
    >>> import numpy as np
    >>> fig = shadow_figure(np.array([[0.0, 0.0], [0.1, 0.0], [2.0, 0.0]]), [0, 0, 1], [0, 2], [2, 1], eps=0.5)
    >>> [t.name for t in fig.data]
    ['points', 'centers', 'eps-discs']
    >>> fig = shadow_figure(np.array([[0.0, 0.0], [0.1, 0.0], [2.0, 0.0]]), [0, 0, 1], [0, 2], [2, 1], point_budget=2)
    >>> [t.name for t in fig.data], fig.layout.title.subtitle.text
    (['density', 'shadow centers'], 'density of 3 rows in 200 x 200 bins; 2 shadow centers on top (sized by weight)')
    """
    X2 = _as_2d(X2, "X2")
    n = X2.shape[0]
    axis_titles = [user_text(t) for t in axis_titles]
    one_d = X2.shape[1] == 1
    if one_d:
        X2 = np.column_stack([X2[:, 0], np.zeros(n)])
        axis_titles = (axis_titles[0], "")
    X2 = X2[:, :2]
    labels = _check_len(labels, n, "labels").astype(np.intp)
    idx = np.asarray(center_indices, dtype=np.intp)
    w = np.asarray(weights, dtype=np.float64)
    if idx.shape != w.shape:
        raise ValueError(f"center_indices has {idx.size} entries but weights has {w.size}; pass one weight per center.")
    if idx.size and (idx.min() < 0 or idx.max() >= n):
        raise ValueError("center_indices must be row numbers of X2 (0 <= index < n).")
    rid = _row_ids(row_ids, n)
    dense = n > point_budget
    fig = go.Figure()
    if dense:
        # The density of every row (O(bins^2) numbers whatever n), the centers on top, as on the Embeddings page.
        traces = []
        selected = None if selected_rows is None else np.asarray(selected_rows, dtype=np.int64).ravel()
        shown = _density_panel(traces, X2, None, rid, dict(xaxis="x", yaxis="y"), dims=2, bins=bins,
                               centers=(idx, w) if idx.size else None, groups=None, y=None, rid=rid,
                               label_name="", first=True, selected=selected)
        fig.add_traces(traces)
    else:
        _add_points(fig, X2, labels, idx, w, rid, max_points)
    drew_discs = eps is not None and not projected and X2.shape[1] == 2 and axis_titles[1] != "" \
        and idx.size <= max_discs
    if drew_discs:
        extent = float(np.max(np.ptp(X2[:, :2], axis=0)))
        fig.add_trace(_disc_outlines(X2[idx], eps, extent))
        # Equal axis scales keep the discs round.
        fig.update_yaxes(scaleanchor="x", scaleratio=1)
        if eps > _DISC_ZOOM_LIMIT * extent:
            # Discs much wider than the data (a huge sigma) would zoom the axes out until the points
            # are one dot: the view stays on the data and the discs are cut at its edges.
            lo, hi = [X2[:, 0].min(), X2[:, 1].min()], [X2[:, 0].max(), X2[:, 1].max()]  # by column: fast
            pad = 0.1 * max(extent, 1e-300)
            fig.update_xaxes(range=[float(lo[0] - pad), float(hi[0] + pad)])
            fig.update_yaxes(range=[float(lo[1] - pad), float(hi[1] + pad)])
    note = ""
    if projected:
        note = " (on the first two principal axes)"
    elif eps is not None and not drew_discs and idx.size > max_discs:
        note = f" (eps-discs hidden: m > {max_discs})"
    if not dense and n > max_points:
        note += f"; {max_points} of {n} points drawn"
    fig.update_layout(
        title=(title or shadow_centers_text(idx.size)) + note,
        xaxis_title=axis_titles[0], yaxis_title=axis_titles[1], showlegend=True,
        margin=dict(l=40, r=10, t=50, b=40),
    )
    if dense:
        say_density(fig, density_note(n, shown, bins), one_line=one_d)
    return highlight_rows(fig, selected_rows)


def _add_points(fig: go.Figure, X2, labels, idx, w, rid, max_points: int) -> None:
    """The rows as points coloured by shadow set (a seeded subsample above ``max_points``) and the centers
    as hollow circles sized by weight.

    What the eye can see: every trace is WebGL, colours travel as small integers with a cyclic colour
    scale (not one colour string per point), and the eps-discs are one outline trace, not one shape each.
    """
    n = X2.shape[0]
    drawn = np.arange(n) if n <= max_points else np.sort(
        np.random.default_rng(0).choice(n, size=max_points, replace=False))
    fig.add_trace(go.Scattergl(
        x=X2[drawn, 0].astype(np.float32), y=X2[drawn, 1].astype(np.float32), mode="markers", name="points",
        marker=dict(**cyclic_color_marker(labels[drawn]), size=5, opacity=0.6),
        customdata=np.column_stack([rid[drawn], labels[drawn]]).astype(np.float32),  # exact below 2**24
        hovertemplate="row %{customdata[0]}<br>shadow set %{customdata[1]}<extra></extra>",
    ))
    size = 6.0 + 24.0 * np.sqrt(w / w.max()) if w.size else w
    fig.add_trace(go.Scattergl(
        x=X2[idx, 0].astype(np.float32), y=X2[idx, 1].astype(np.float32), mode="markers", name="centers",
        marker=dict(size=size.astype(np.float32), color="rgba(0,0,0,0)", line=dict(color="black", width=1.5),
                    symbol="circle"),
        customdata=np.column_stack([rid[idx], w]).astype(np.float32),  # the center's number is its pointNumber
        hovertemplate="center %{pointNumber} (row %{customdata[0]})<br>weight %{customdata[1]}<extra></extra>",
    ))


#: Beyond this fraction of the data's extent, eps-discs no longer set the axis ranges.
_DISC_ZOOM_LIMIT = 0.25


def _disc_segments(eps: float, extent: float, *, width_px: int = _TYPICAL_WIDTH, low: int = 12,
                   high: int = 31) -> int:
    """Segments per eps-circle for polygons within half a pixel of the circle at the chart's usual width.

    A circle of r pixels drawn with k segments strays r (1 - cos(pi / k)) from it. The outlines
    are sent again at every ell (m circles), so a small circle is not drawn with 31 segments.

    >>> _disc_segments(0.05, 3.0), _disc_segments(0.2, 3.0), _disc_segments(2.0, 3.0)
    (13, 25, 31)
    """
    r_px = eps / max(extent, 1e-300) * width_px
    if r_px <= 0.5:
        return low
    return int(np.clip(np.ceil(np.pi / np.arccos(1.0 - 0.5 / r_px)), low, high))


def _disc_outlines(centers: np.ndarray, eps: float, extent: float) -> go.Scattergl:
    """Circles of radius eps around the centers as one line trace (gaps between circles).

    ``extent`` is the larger side of the data's box (the axes share one scale), which sets
    how large a circle is on screen and so how many segments it needs (:func:`_disc_segments`).
    """
    vertices = _disc_segments(eps, extent) + 1  # the first vertex again closes the polygon
    t = np.linspace(0.0, 2.0 * np.pi, vertices)
    ring = np.column_stack([np.cos(t), np.sin(t)]) * eps
    pts = np.full((centers.shape[0], vertices + 1, 2), np.nan)
    pts[:, :vertices] = centers[:, None, :] + ring[None]
    pts = pts.reshape(-1, 2).astype(np.float32)
    return go.Scattergl(x=pts[:, 0], y=pts[:, 1], mode="lines", name="eps-discs", hoverinfo="skip",
                        line=dict(color="rgba(0,0,0,0.35)", width=1), connectgaps=False)


def weight_histogram(weights, *, nbins: int = 40) -> go.Figure:
    """Histogram of the shadow weights (points absorbed per center).

    Weights are whole numbers: each bin is a whole number of them wide, centred on them, and
    the count axis has whole-number ticks.

    >>> fig = weight_histogram([1, 1, 3])
    >>> fig.data[0].type, fig.data[0].xbins.size, fig.layout.yaxis.dtick
    ('histogram', 1.0, 1)
    """
    w = np.asarray(weights, dtype=np.float64).ravel()
    xbins, max_count = _pinned_bins(w, nbins, whole_numbers=True)
    fig = go.Figure(go.Histogram(x=w, xbins=xbins, name="weights"))
    fig.update_layout(title="Shadow weights w_j", xaxis_title="points in the shadow set",
                      yaxis_title="centers", bargap=0.05, margin=dict(l=40, r=10, t=50, b=40))
    fig.update_yaxes(**_count_axis(max_count))
    return fig


def _pinned_bins(values: np.ndarray, nbins: int, *, whole_numbers: bool = False) -> tuple[dict, int]:
    """Histogram bins fixed here (not by the browser), and the tallest bin's count for the count axis.

    Bins are closed on the left as Plotly's are; whole numbers sit in the middle of their bins.
    """
    v = values[np.isfinite(values)]
    if v.size == 0:
        return {}, 0
    lo, hi = float(v.min()), float(v.max())
    if whole_numbers:
        size = float(max(1, int(np.ceil((hi - lo + 1) / max(nbins, 1)))))
        start = lo - 0.5
    else:
        # A hair wider than (hi - lo) / nbins, so that the largest value falls inside the last bin.
        size = (hi - lo) / max(nbins, 1) * (1 + 1e-9) or 1.0
        start = lo
    counts = np.bincount(np.floor((v - start) / size).astype(np.intp))
    return dict(start=start, end=start + size * counts.size, size=size), int(counts.max())


# --------------------------------------------------------------------------- densities

#: Horizontal slots (paper coordinates) of the KDE, ShDE and difference panels: a gap right of
#: the ShDE panel and room right of the difference panel for their colour scales.
_DENSITY_DOMAINS = ((0.0, 0.27), (0.315, 0.585), (0.705, 0.975))


@lru_cache(maxsize=None)
def _density_grid_layout() -> dict:
    """The KDE / ShDE / difference panels' grid as a layout dict (made once: make_subplots is slow)."""
    layout = make_subplots(rows=1, cols=3, shared_yaxes=True,
                           subplot_titles=("KDE", "ShDE", "ShDE - KDE")).layout.to_plotly_json()
    layout.pop("template", None)
    return layout


@lru_cache(maxsize=None)
def _named_scale(name: str):
    """A named colour scale as plotly's validation writes it into the figure (a list of [t, colour])."""
    return go.Heatmap(colorscale=name).colorscale


def density_grid_figure(gx, gy, kde, shde, *, points=None, centers=None,
                        axis_titles: Sequence[str] = ("x1", "x2")) -> go.Figure:
    """KDE, ShDE and their difference as heatmaps on a grid.

    Parameters
    ----------
    gx : array-like of shape (nx,)
    gy : array-like of shape (ny,)
    kde, shde : array-like of shape (ny, nx)
        Densities at ``(gx[j], gy[i])``.
    points : array-like of shape (n, 2) or None
        Data drawn over the KDE panel (subsampled by the caller if large).
    centers : array-like of shape (m, 2) or None
        Shadow centers drawn over the ShDE panel.
    axis_titles : sequence of str

    Returns
    -------
    go.Figure

    Examples
    --------
    >>> import numpy as np
    >>> g = np.linspace(0, 1, 5)
    >>> fig = density_grid_figure(g, g, np.ones((5, 5)), np.ones((5, 5)))
    >>> [t.type for t in fig.data]
    ['heatmap', 'heatmap', 'heatmap']
    """
    gx = np.asarray(gx, dtype=np.float64)
    gy = np.asarray(gy, dtype=np.float64)
    kde = np.asarray(kde, dtype=np.float64)
    shde = np.asarray(shde, dtype=np.float64)
    if kde.shape != (gy.size, gx.size) or shde.shape != kde.shape:
        raise ValueError(f"kde and shde must have shape (len(gy), len(gx)) = {(gy.size, gx.size)}; "
                         f"got {kde.shape} and {shde.shape}.")
    diff = shde - kde
    lim = float(np.max(np.abs(diff))) or 1.0
    top = float(max(kde.max(), shde.max()))
    # Built as dicts on a grid made once (:func:`_density_grid_layout`): plotly's validation and
    # make_subplots would be most of every ell or sigma change on 2-D data (``python
    # tests/benchmarks/bench_latency.py --profile`` shows it; tests/test_plots.py validates the figure).
    layout = copy.deepcopy(_density_grid_layout())
    # Smoothed heatmaps of float32 grids: the browser draws them as images, far faster than
    # contour lines on every redraw, and the grids travel at half the bytes.
    common = dict(type="heatmap", x=gx.astype(np.float32), y=gy.astype(np.float32), zsmooth="best")
    # KDE and ShDE share one colour scale, drawn in the gap right of the ShDE panel; the
    # difference's scale sits right of its panel. Both stand clear of the panels.
    bar = dict(len=0.9, thickness=10, xanchor="left", title=dict(side="top"), exponentformat="e")
    traces = [
        dict(z=kde.astype(np.float32), zmin=0, zmax=top, colorscale=_named_scale("Viridis"), name="KDE",
             colorbar=bar | dict(x=_DENSITY_DOMAINS[1][1] + 0.01, title=dict(side="top", text="density")),
             xaxis="x", yaxis="y", **common),
        dict(z=shde.astype(np.float32), zmin=0, zmax=top, colorscale=_named_scale("Viridis"), name="ShDE",
             showscale=False, xaxis="x2", yaxis="y2", **common),
        dict(z=diff.astype(np.float32), zmin=-lim, zmax=lim, colorscale=_named_scale("RdBu"), reversescale=True,
             name="ShDE - KDE", colorbar=bar | dict(x=_DENSITY_DOMAINS[2][1] + 0.01), xaxis="x3", yaxis="y3",
             **common),
    ]
    P = None if points is None else _as_2d(points, "points")
    Cn = None if centers is None else _as_2d(centers, "centers")
    # WebGL by the points of both panels together (one canvas), as SVG styles every point at each redraw.
    scatter = _scatter_type(sum(0 if A is None else A.shape[0] for A in (P, Cn))).__name__.lower()
    if P is not None:
        traces.append(dict(type=scatter, x=P[:, 0], y=P[:, 1], mode="markers", name="data",
                           marker=dict(size=3, color="white", opacity=0.6), hoverinfo="skip", xaxis="x", yaxis="y"))
    if Cn is not None:
        traces.append(dict(type=scatter, x=Cn[:, 0], y=Cn[:, 1], mode="markers", name="centers",
                           marker=dict(size=6, color="white", line=dict(color="black", width=1)),
                           hoverinfo="skip", xaxis="x2", yaxis="y2"))
    x_range = [float(gx.min()), float(gx.max())]
    y_range = [float(gy.min()), float(gy.max())]
    for col, domain in enumerate(_DENSITY_DOMAINS, start=1):
        suffix = "" if col == 1 else str(col)
        # Drawn to scale (one unit as long across as up): the kernel is round, so is its density's
        # picture. The panel shrinks inside its slot rather than showing space outside the grid.
        # The x title follows its tick labels (automargin), and a panel shrunk in height keeps to the
        # top, under its title.
        layout[f"xaxis{suffix}"].update(title=dict(text=user_text(axis_titles[0]), standoff=4), automargin=True,
                                        domain=list(domain), range=x_range, constrain="domain")
        layout[f"yaxis{suffix}"].update(range=y_range, scaleanchor=f"x{suffix}", scaleratio=1, constrain="domain",
                                        constraintoward="top")
    layout["yaxis"]["title"] = dict(text=user_text(axis_titles[1]))
    # The panels' titles over the panels' slots.
    for annotation, domain in zip(layout["annotations"], _DENSITY_DOMAINS):
        annotation["x"] = sum(domain) / 2
    # Tall enough that panels of a roughly square grid fill their slots at a typical width.
    aspect = (y_range[1] - y_range[0]) / ((x_range[1] - x_range[0]) or 1.0)
    panel_width = (_DENSITY_DOMAINS[0][1] - _DENSITY_DOMAINS[0][0]) * (_TYPICAL_WIDTH - 90)
    height = int(np.clip(panel_width * aspect + 100, 220, 700))
    layout.update(showlegend=False, height=height, margin=dict(l=40, r=10, t=50, b=40))
    fig = go.Figure(dict(data=traces, layout=layout), _validate=False)
    return fig


def density_curve_figure(t, kde, shde, *, xaxis_title: str = "x", title: str = "KDE and ShDE") -> go.Figure:
    """Both densities along a 1-D axis (the data axis, or a line through the data), and their difference.

    >>> import numpy as np
    >>> fig = density_curve_figure(np.arange(3.0), np.ones(3), np.ones(3))
    >>> [t.name for t in fig.data]
    ['KDE', 'ShDE', 'ShDE - KDE']
    """
    t = np.asarray(t, dtype=np.float64).ravel()
    kde = _check_len(np.asarray(kde, dtype=np.float64).ravel(), t.size, "kde")
    shde = _check_len(np.asarray(shde, dtype=np.float64).ravel(), t.size, "shde")
    fig = make_subplots(rows=2, cols=1, shared_xaxes=True, row_heights=[0.7, 0.3], vertical_spacing=0.06)
    fig.add_trace(go.Scatter(x=t, y=kde, name="KDE", mode="lines", line=dict(width=3)), 1, 1)
    fig.add_trace(go.Scatter(x=t, y=shde, name="ShDE", mode="lines", line=dict(dash="dash")), 1, 1)
    fig.add_trace(go.Scatter(x=t, y=shde - kde, name="ShDE - KDE", mode="lines",
                             line=dict(color="#EF553B")), 2, 1)
    # Each title set off from its own tick labels, the margin grown to fit both: a fixed 40 px
    # margin put "difference" over labels such as "0.004" (and "density" past the edge).
    titles = dict(automargin=True, title_standoff=8)
    fig.update_yaxes(title_text="density", row=1, col=1, **titles)
    fig.update_yaxes(title_text="difference", row=2, col=1, **titles)
    fig.update_xaxes(title_text=user_text(xaxis_title), row=2, col=1)
    fig.update_layout(title=title, margin=dict(l=40, r=10, t=50, b=40))
    return fig


def density_points_figure(kde, shde, *, row_ids=None, selected_rows=None) -> go.Figure:
    """ShDE against KDE at the data points, with the line ShDE = KDE (``selected_rows`` highlighted).

    >>> import numpy as np
    >>> density_points_figure(np.ones(3), np.ones(3)).data[1].name
    'ShDE = KDE'
    """
    kde = np.asarray(kde, dtype=np.float64).ravel()
    shde = _check_len(np.asarray(shde, dtype=np.float64).ravel(), kde.size, "shde")
    rid = _row_ids(row_ids, kde.size)
    fig = go.Figure(_scatter_type(kde.size)(
        x=kde, y=shde, mode="markers", name="data points", marker=dict(size=4, opacity=0.6),
        customdata=rid, hovertemplate="row %{customdata}<br>KDE %{x:.4g}<br>ShDE %{y:.4g}<extra></extra>"))
    lo = float(min(kde.min(initial=0.0), shde.min(initial=0.0)))
    hi = float(max(kde.max(initial=0.0), shde.max(initial=0.0)))
    fig.add_trace(go.Scatter(x=[lo, hi], y=[lo, hi], mode="lines", name="ShDE = KDE",
                             line=dict(color="gray", dash="dot")))
    fig.update_layout(title="Densities at the data points", xaxis_title="KDE", yaxis_title="ShDE",
                      margin=dict(l=40, r=10, t=50, b=40))
    return highlight_rows(fig, selected_rows)


def error_histogram(errors, *, nbins: int = 50, title: str = "ShDE - KDE at the data points") -> go.Figure:
    """Histogram of the density error at the points.

    >>> error_histogram([0.0, 0.1]).layout.title.text
    'ShDE - KDE at the data points'
    """
    e = np.asarray(errors, dtype=np.float64).ravel()
    xbins, max_count = _pinned_bins(e, nbins)
    fig = go.Figure(go.Histogram(x=e, xbins=xbins, name="error"))
    fig.update_layout(title=title, xaxis_title="ShDE - KDE", yaxis_title="points",
                      bargap=0.05, margin=dict(l=40, r=10, t=50, b=40))
    fig.update_yaxes(**_count_axis(max_count))
    return fig
