"""Figures of the data side: shadow centers, their weights (the KDE against the ShDE: :mod:`._densities`)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

from rskpca.core.row_draws import rows_within
from rskpca.plotting._colouring import as_colouring, class_legend, center_sizes, legend_height, marker_style
from rskpca.plotting._data_view import _point_traces, legend_key
from rskpca.plotting._density_drawing import (MAX_CENTERS_DRAWN, POINT_BUDGET, _density_panel, capped_total,
                                              centers_legend_key, centers_trace, crowded, density_bins, density_note,
                                              image_axes, say_density)
from rskpca.plotting._selection import highlight_rows
from rskpca.plotting._style import (
    _TYPICAL_WIDTH,
    _as_2d,
    _check_len,
    largest,
    _count_axis,
    _row_ids,
    cyclic_color_marker,
    shadow_centers_text,
    user_text,
)


# --------------------------------------------------------------------------- shadow


def shadow_figure(X2, labels, center_indices, weights, *, eps: float | None = None, projected: bool = False,
                  axis_titles: Sequence[str] = ("x1", "x2"), row_ids=None, max_discs: int = 400,
                  max_points: int = POINT_BUDGET, title: str | None = None, selected_rows=None,
                  point_budget: int = POINT_BUDGET, bins: int | None = None, y=None, label_name: str = "label",
                  continuous: bool | None = None, hover_data=None, show_centers: bool = True) -> go.Figure:
    """The data coloured by shadow set (or by a column ``y``), with the centers as small outlined markers
    sized by weight (:func:`center_sizes`: a bounded range, smaller as the centers grow many) and eps-discs.

    Above ``point_budget`` rows, or when the points would hide one another (:func:`crowded`), the
    figure draws the density of all n rows (in ``y``'s colours, as :func:`embedding_figure` does)
    with the centers on top, hover on the centers (row and weight); the title says what is
    aggregated (:func:`density_note`). A box or lasso over it selects rows by their coordinates
    (:func:`data_panels`), not by points drawn.

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
    bins : int or None, default=None
        Bins per axis of the density; None: :func:`density_bins` of the rows.
    y : array-like of shape (n,) or None
        A column to colour the rows by instead of their shadow set (the label, a feature); the hover
        still names each row's shadow set.
    label_name : str, default="label"
    continuous : bool or None, default=None
        Whether ``y`` is drawn on a colour scale (:func:`rskpca.plotting.colouring`).
    hover_data : mapping of str to array-like of shape (n,), optional
        More columns for the rows' hover label (:func:`hover_columns`).
    show_centers : bool, default=True
        False draws neither the centers nor their eps-discs, only the rows.

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
    >>> [t.name for t in fig.data]  # 3 rows fill 2 bins: spots over the density (a few pixels each)
    ['density', 'rows (each spot a bin)', 'shadow centers']
    >>> fig.layout.title.subtitle.text
    'density of 3 rows in 50 x 50 bins; 2 shadow centers on top (sized by weight)'
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
    colour = as_colouring(y, n, name=label_name, continuous=continuous)
    hover_data = {k: _check_len(v, n, f"hover_data[{k!r}]") for k, v in (hover_data or {}).items()}
    dense = n > point_budget or crowded(X2[:, 0], X2[:, 1])
    bins = bins or density_bins(n)
    centers = (idx, w) if idx.size and show_centers else None
    # Traces and layout as plain dicts, made into a figure once (redrawn on every ell change).
    traces, layout = [], {}
    if dense:
        # The density of every row (O(bins^2) numbers whatever n), the centers on top, as on the Embeddings page.
        selected = None if selected_rows is None else np.asarray(selected_rows, dtype=np.int64).ravel()
        ref = dict(xaxis="x", yaxis="y")
        shown = _density_panel(traces, X2, None, rid, ref, dims=2, bins=bins, centers=centers, colour=colour,
                               rid=rid, first=True, selected=selected)
        traces += legend_key(colour)
        image_axes(layout, [ref])
        layout["legend"] = dict(itemclick=False, itemdoubleclick=False)
    else:
        traces += _point_traces_of_shadow(X2, labels, idx, w, rid, max_points, colour, hover_data, show_centers)
    drew_discs = show_centers and eps is not None and not projected and X2.shape[1] == 2 and axis_titles[1] != "" \
        and idx.size <= max_discs
    xaxis, yaxis = layout.setdefault("xaxis", {}), layout.setdefault("yaxis", {})
    if drew_discs:
        extent = float(np.max(np.ptp(X2[:, :2], axis=0)))
        traces.append(_disc_outlines(X2[idx], eps, extent))
        # Equal axis scales keep the discs round.
        yaxis.update(scaleanchor="x", scaleratio=1)
        if eps > _DISC_ZOOM_LIMIT * extent:
            # Discs much wider than the data (a huge sigma) would zoom the axes out until the points
            # are one dot: the view stays on the data and the discs are cut at its edges.
            lo, hi = [X2[:, 0].min(), X2[:, 1].min()], [X2[:, 0].max(), X2[:, 1].max()]  # by column: fast
            pad = 0.1 * max(extent, 1e-300)
            xaxis["range"] = [float(lo[0] - pad), float(hi[0] + pad)]
            yaxis["range"] = [float(lo[1] - pad), float(hi[1] + pad)]
    note = ""
    if projected:
        note = " (on the first two principal axes)"
    elif eps is not None and not drew_discs and idx.size > max_discs:
        note = f" (eps-discs hidden: m > {max_discs})"
    if not dense and n > max_points:
        note += f"; {max_points:,} of {n:,} points drawn"
    if not dense and show_centers and idx.size > MAX_CENTERS_DRAWN:
        note += f"; the {MAX_CENTERS_DRAWN:,} heaviest centers drawn"
    xaxis["title"] = dict(text=axis_titles[0])
    yaxis["title"] = dict(text=axis_titles[1])
    # without a colour column the rows take their shadow set's colour, which the legend's one "points" dot cannot show
    layout.setdefault("legend", {}).update(class_legend(colour, "rows by shadow set"))
    layout.update(title=dict(text=(title or shadow_centers_text(idx.size)) + note), showlegend=True,
                  margin=dict(l=40, r=10, t=50, b=40), height=legend_height(colour, int(show_centers and idx.size > 0)))
    fig = go.Figure(dict(data=traces, layout=layout))
    if dense:
        say_density(fig, density_note(n, shown, bins, of=capped_total(shown, centers)), one_line=one_d)
    return highlight_rows(fig, selected_rows)


def _point_traces_of_shadow(X2, labels, idx, w, rid, max_points: int, colour, hover_data, show_centers: bool) -> list:
    """The rows as points (a seeded subsample above ``max_points``) coloured by shadow set, or by
    ``colour`` (one trace per class), and the centers as small outlined markers sized by weight.

    What the eye can see: every trace is WebGL, colours travel as small integers with a cyclic colour
    scale (not one colour string per point), and the eps-discs are one outline trace, not one shape each.
    """
    n = X2.shape[0]
    drawn = rows_within(n, max_points, np.random.default_rng(0))
    style = marker_style(drawn.size)
    if colour is None:
        traces = [dict(
            type="scattergl", x=X2[drawn, 0].astype(np.float32), y=X2[drawn, 1].astype(np.float32), mode="markers",
            name="points", marker=dict(**cyclic_color_marker(labels[drawn]), **style),
            customdata=np.column_stack([rid[drawn], labels[drawn]]).astype(np.float32),  # exact below 2**24
            hovertemplate="row %{customdata[0]}<br>shadow set %{customdata[1]}<extra></extra>",
        )]
    else:
        traces = _point_traces(X2[drawn], rid[drawn], colour if drawn.size == n else colour.subset(drawn),
                               {k: v[drawn] for k, v in hover_data.items()}, {}, extra={"shadow set": labels[drawn]})
    if show_centers and idx.size:
        keep = largest(w, MAX_CENTERS_DRAWN)  # sized among all m, drawn the heaviest (outlines hide rows)
        traces.append(dict(centers_trace(X2, idx[keep], idx[keep], w[keep], dict(), dims=2, colour=colour, rid=rid,
                                         first=True, sizes=center_sizes(w, dims=2)[keep]),
                           type="scattergl", name="centers", hovertemplate=(
                               "center %{pointNumber} (row %{customdata[0]})<br>weight %{customdata[1]}<extra></extra>")))
        if colour is not None:
            traces.append(dict(centers_legend_key({}), name="centers"))
    return traces


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


def _disc_outlines(centers: np.ndarray, eps: float, extent: float) -> dict:
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
    return dict(type="scattergl", x=pts[:, 0], y=pts[:, 1], mode="lines", name="eps-discs", hoverinfo="skip",
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
    fig = counts_histogram(w, nbins=nbins, name="weights", title="Shadow weights w_j",
                           xaxis_title="points in the shadow set", yaxis_title="centers", whole_numbers=True)
    if w.size and np.all(w == 1):
        # Every center holds only itself: one bar at 1, which would otherwise fill the chart's width.
        fig.add_annotation(text="Every center holds one row: no reduction at this ell (m = n).<br>"
                                "A smaller ell gives each center a larger shadow set.",
                           xref="paper", yref="paper", x=0.98, y=0.95, xanchor="right", showarrow=False,
                           align="right")
    return fig


def counts_histogram(values: np.ndarray, *, nbins: int, name: str, title: str, xaxis_title: str, yaxis_title: str,
                     whole_numbers: bool = False) -> go.Figure:
    """A histogram with its bins fixed here (:func:`_pinned_bins`) and a whole-number count axis, built as
    one dict (the histograms are redrawn on every ell change). Where the tallest bin is more than
    :data:`LOG_COUNTS_RATIO` times the lowest filled one, the count axis is logarithmic: on a linear one
    the lower bins are a pixel high, and the chart shows one bar (USPS' weights: 8,000 centers of weight 1
    beside a few up to 513).

    >>> counts_histogram(np.array([1.0, 1.0, 3.0]), nbins=3, name="w", title="t", xaxis_title="x",
    ...                  yaxis_title="n", whole_numbers=True).layout.yaxis.dtick
    1
    >>> skewed = counts_histogram(np.r_[np.ones(500), 40.0], nbins=10, name="w", title="t", xaxis_title="x",
    ...                           yaxis_title="n", whole_numbers=True).layout.yaxis
    >>> skewed.type, skewed.title.text
    ('log', 'n (log scale)')
    """
    xbins, max_count, min_count = _pinned_bins(values, nbins, whole_numbers=whole_numbers)
    if min_count and max_count > LOG_COUNTS_RATIO * min_count:
        # (decades only: plotly.js labels the 2-9 between them too, a pile of small digits on a short axis)
        counts = dict(title=dict(text=f"{yaxis_title} (log scale)"), type="log", minorloglabels="none")
    else:
        counts = dict(title=dict(text=yaxis_title), **_count_axis(max_count))
    xaxis = dict(title=dict(text=xaxis_title))
    if whole_numbers and xbins and xbins["end"] - xbins["start"] < MIN_WHOLE_SPAN:
        # A few bins of one-wide whole numbers fill the plot as one block; a fixed span keeps them bars.
        xaxis["range"] = [xbins["start"], xbins["start"] + MIN_WHOLE_SPAN]
    layout = dict(title=dict(text=title), xaxis=xaxis, yaxis=counts, bargap=0.05, margin=dict(l=40, r=10, t=50, b=40))
    return go.Figure(dict(data=[dict(type="histogram", x=values, xbins=xbins, name=name)], layout=layout))


#: A count axis turns logarithmic past this ratio of the tallest bin to the lowest filled one.
LOG_COUNTS_RATIO = 50
#: The least span of a whole-number value axis, in values (so one filled bin is at most a fifth of it).
MIN_WHOLE_SPAN = 5


def _pinned_bins(values: np.ndarray, nbins: int, *, whole_numbers: bool = False) -> tuple[dict, int, int]:
    """Histogram bins fixed here (not by the browser), and the tallest and lowest filled bins' counts.

    Bins are closed on the left as Plotly's are; whole numbers sit in the middle of their bins.
    """
    v = values[np.isfinite(values)]
    if v.size == 0:
        return {}, 0, 0
    lo, hi = float(v.min()), float(v.max())
    if whole_numbers:
        size = float(max(1, int(np.ceil((hi - lo + 1) / max(nbins, 1)))))
        start = lo - 0.5
    else:
        # A hair wider than (hi - lo) / nbins, so that the largest value falls inside the last bin.
        size = (hi - lo) / max(nbins, 1) * (1 + 1e-9) or 1.0
        start = lo
    counts = np.bincount(np.floor((v - start) / size).astype(np.intp))
    bins = dict(start=start, end=start + size * counts.size, size=size)
    return bins, int(counts.max()), int(counts[counts > 0].min())
