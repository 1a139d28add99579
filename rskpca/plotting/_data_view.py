"""The data themselves as a scatter (two features, or two principal axes), coloured by a column; when crowded, the
density of all the rows in the same colours."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

from rskpca.plotting._colouring import as_colouring, class_legend, legend_height, marker_style, row_hover
from rskpca.plotting._density_drawing import (POINT_BUDGET, _density_panel, crowded, density_bins, density_note,
                                              image_axes, say_density)
from rskpca.plotting._selection import axis_of_panel, highlight_rows
from rskpca.plotting._style import _as_2d, _check_len, _row_ids, _scatter_type, colour_bar, user_text

__all__ = ["data_figure", "data_panels", "legend_key"]

#: The rows' colour without a colour column.
_ONE_POINT_COLOR = "#1F77B4"


def data_panels(X2, row_ids=None) -> dict:
    """What a region selection needs of a one-panel figure of the rows (:func:`data_figure`,
    :func:`shadow_figure`): ``{"x": (x, y, row_ids)}``, one column drawn at y = 0.

    Pass it as ``panels`` to the app's selectable chart when the figure draws the rows' density: a
    box or lasso then selects every row inside it (:func:`rows_in_regions`), not pixels.

    >>> panels = data_panels(np.array([[1.0], [2.0]]), [7, 8])
    >>> list(panels), panels["x"][1].tolist(), panels["x"][2].tolist()
    (['x'], [0.0, 0.0], [7, 8])
    """
    X2 = _as_2d(X2, "X2")
    n = X2.shape[0]
    y = X2[:, 1] if X2.shape[1] > 1 else np.zeros(n)
    return {axis_of_panel(0): (X2[:, 0], y, np.asarray(_row_ids(row_ids, n)))}


def data_figure(X2, *, y=None, label_name: str = "label", continuous: bool | None = None, row_ids=None,
                hover_data=None, axis_titles: Sequence[str] = ("x1", "x2"), title: str = "The data",
                selected_rows=None, point_budget: int = POINT_BUDGET, bins: int | None = None) -> go.Figure:
    """The rows of the data as points coloured by a column (:func:`rskpca.plotting.colouring`): one trace
    per class (a legend click hides it, a double click isolates it), or a colour scale for a continuous one.

    Above ``point_budget`` rows, or when the points would hide one another (:func:`crowded`), the figure
    draws the density of all n rows instead, in the column's colours (:func:`class_density`; hover gives
    a bin's count, the legend stays as the colours' key); the selected rows as a histogram of their own;
    the title says what is aggregated (:func:`density_note`). A box or lasso over it selects rows by
    their coordinates (:func:`data_panels`), not by points drawn.

    Parameters
    ----------
    X2 : array-like of shape (n, 1) or (n, 2)
        Coordinates to draw (two features, or the first principal axes); one column is
        drawn along a line.
    y : array-like of shape (n,) or None
        The column to colour by (the label, a feature, clusters): text, integers or floats, any number
        of classes, missing values a class of their own.
    label_name : str, default="label"
        Its name, for the legend and hover.
    continuous : bool or None, default=None
        Whether ``y`` is drawn on a colour scale; None decides (:func:`rskpca.plotting.colouring`).
    row_ids : array-like of shape (n,) or None
        Original row numbers (first in ``customdata``, for hover labels and selections).
    hover_data : mapping of str to array-like of shape (n,), optional
        More columns for the hover label (the label, the first features: :func:`hover_columns`).
    axis_titles : sequence of str, default=("x1", "x2")
    title : str, default="The data"
    selected_rows : array-like of int or None
        Original row numbers to highlight (the rest dimmed); see :func:`highlight_rows`.
    point_budget : int, default=POINT_BUDGET
        Above this many rows their density is drawn instead of points.
    bins : int or None, default=None
        Bins per axis of the density; None: :func:`density_bins` of the rows.

    Returns
    -------
    go.Figure

    Examples
    --------
    >>> import numpy as np
    >>> fig = data_figure(np.array([[0.0, 1.0], [1.0, 0.0], [2.0, 2.0]]), y=["a", "b", "a"], row_ids=[5, 6, 7])
    >>> [t.name for t in fig.data], fig.data[0].customdata[:, 0].tolist()
    (['a', 'b'], [5.0, 7.0])
    >>> data_figure(np.zeros((3, 2)), point_budget=2).layout.title.subtitle.text
    'density of 3 rows in 50 x 50 bins'
    """
    X2 = _as_2d(X2, "X2")
    n = X2.shape[0]
    titles = [user_text(t) for t in axis_titles] + ["", ""]
    one_d = X2.shape[1] == 1
    if one_d:
        X2 = np.column_stack([X2[:, 0], np.zeros(n)])
        titles[1] = ""
    rid = _row_ids(row_ids, n)
    colour = as_colouring(y, n, name=label_name, continuous=continuous)
    hover_data = {k: _check_len(v, n, f"hover_data[{k!r}]") for k, v in (hover_data or {}).items()}
    if n > point_budget or crowded(X2[:, 0], X2[:, 1]):
        return _density_figure(X2, rid, titles, title, selected_rows, bins or density_bins(n), one_d, colour)
    fig = go.Figure(_point_traces(X2, rid, colour, hover_data, dict(xaxis="x", yaxis="y")))
    fig.update_layout(title=title, xaxis_title=titles[0], yaxis_title=titles[1],
                      legend=class_legend(colour),
                      margin=dict(l=40, r=10, t=50, b=40), height=legend_height(colour))
    return highlight_rows(fig, selected_rows)


def _point_traces(X2, rid, colour, hover_data, ref: dict, *, extra=None) -> list:
    """The rows as markers (:func:`marker_style` for their number): one trace per class, legend grouped by
    class, or one trace on a colour scale, or one of one colour without a column. ``extra``: more hover
    columns (name to values of every row) put before ``hover_data``'s."""
    n = X2.shape[0]
    style = marker_style(n)
    scatter = _scatter_type(n)

    def trace(mask, marker, name, class_index=None, showlegend=True):
        custom, tpl = row_hover(rid[mask], colour, {k: v[mask] for k, v in hover_data.items()}, rows=mask,
                                class_index=class_index, extra={k: v[mask] for k, v in (extra or {}).items()})
        return scatter(x=X2[mask, 0].astype(np.float32), y=X2[mask, 1].astype(np.float32), mode="markers",
                       marker=marker, customdata=custom, hovertemplate=tpl, name=name, showlegend=showlegend,
                       legendgroup=name, **ref)

    everyone = np.ones(n, dtype=bool)
    if colour is None:
        return [trace(everyone, dict(color=_ONE_POINT_COLOR, **style), "rows", showlegend=False)]
    if colour.continuous:
        marker = dict(color=colour.values.astype(np.float32), colorscale="Viridis", **style,
                      colorbar=colour_bar(user_text(colour.name)))
        return [trace(everyone, marker, "rows", showlegend=False)]
    return [trace(colour.codes == k, dict(color=colour.colors[k], symbol=colour.symbols[k], **style), user_text(name),
                  class_index=k) for k, name in enumerate(colour.classes)]


def legend_key(colour, ref: dict | None = None) -> list:
    """Legend entries only (no points) naming the colours of a density drawing: the chart's key, its
    clicks turned off by the caller (hiding an entry would hide no rows of the density)."""
    if colour is None or colour.continuous:
        return []
    ref = ref or {}
    kind, empty = (go.Scatter3d, dict(z=[None])) if "scene" in ref else (go.Scatter, {})
    return [kind(x=[None], y=[None], mode="markers", name=user_text(name), legendgroup=user_text(name),
                 marker=dict(color=colour.colors[k], symbol=colour.symbols[k], size=8), hoverinfo="skip", **empty,
                 **ref)
            for k, name in enumerate(colour.classes)]


def _density_figure(X2, rid, titles, title: str, selected_rows, bins: int, one_d: bool, colour) -> go.Figure:
    """:func:`data_figure` above the budget: the density of every row in the colour column's colours
    (O(bins^2) numbers whatever n), hover on the bins (their counts), the selection as a histogram of its own."""
    selected = None if selected_rows is None else np.asarray(selected_rows, dtype=np.int64).ravel()
    traces = []
    hover = (f"{titles[0] or 'x'} %{{x:.4g}}" + ("" if one_d else f"<br>{titles[1] or 'y'} %{{y:.4g}}")
             + "<br>%{customdata:,} rows in this bin<extra></extra>")
    ref = dict(xaxis="x", yaxis="y")
    _density_panel(traces, X2, None, rid, ref, dims=2, bins=bins, centers=None, colour=colour, rid=rid,
                   first=True, selected=selected, hover=hover)
    # Plotly offers box and lasso in the toolbar only for figures with a point trace (an image alone has
    # none): two transparent points at the corners of the rows' extent, without hover or row numbers, so
    # a selection over them selects nothing of their own.
    lo, hi = [X2[:, 0].min(), X2[:, 1].min()], [X2[:, 0].max(), X2[:, 1].max()]  # by column: fast
    traces.append(dict(type="scattergl", x=[float(lo[0]), float(hi[0])], y=[float(lo[1]), float(hi[1])],
                       mode="markers", marker=dict(size=1, opacity=0), hoverinfo="skip", showlegend=False,
                       name="extent"))
    layout = dict(title=title, xaxis_title=titles[0], yaxis_title=titles[1], margin=dict(l=40, r=10, t=50, b=40))
    image_axes(layout, [ref])
    key = legend_key(colour)
    if colour is not None and colour.continuous:
        # the scale's key: an invisible marker carrying the colour bar
        key = [go.Scatter(x=[None], y=[None], mode="markers", showlegend=False, hoverinfo="skip", marker=dict(
            color=[float(np.nanmin(colour.values))], cmin=float(np.nanmin(colour.values)),
            cmax=float(np.nanmax(colour.values)), colorscale="Viridis", showscale=True,
            colorbar=colour_bar(user_text(colour.name))))]
    fig = go.Figure(traces + key)
    fig.update_layout(layout, showlegend=bool(key) and not colour.continuous, height=legend_height(colour),
                      legend=class_legend(colour, itemclick=False, itemdoubleclick=False))
    say_density(fig, density_note(X2.shape[0], None, bins), one_line=one_d)
    return fig
