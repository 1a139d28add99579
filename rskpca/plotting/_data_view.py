"""The data themselves as a scatter (two features, or two principal axes), coloured by label; above the point
budget, the density of all the rows."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

from rskpca.plotting._density_drawing import DENSITY_BINS, POINT_BUDGET, _density_panel, density_note, say_density
from rskpca.plotting._selection import axis_of_panel, highlight_rows
from rskpca.plotting._style import PALETTE, _as_2d, _class_groups, _row_ids, _scatter_type, user_text

__all__ = ["data_figure", "data_panels"]


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


def data_figure(X2, *, y=None, label_name: str = "label", row_ids=None,
                axis_titles: Sequence[str] = ("x1", "x2"), title: str = "The data",
                selected_rows=None, point_budget: int = POINT_BUDGET, bins: int = DENSITY_BINS) -> go.Figure:
    """The rows of the data as points, one colour per class (or a colour scale for a continuous label).

    Above ``point_budget`` rows the figure draws the density of all n rows instead (a ``bins`` x
    ``bins`` histogram, as :func:`embedding_figure` does; hover gives a bin's count), the selected
    rows as a histogram of their own; the title says what is aggregated (:func:`density_note`). A box
    or lasso over it selects rows by their coordinates (:func:`data_panels`), not by points drawn.

    Parameters
    ----------
    X2 : array-like of shape (n, 1) or (n, 2)
        Coordinates to draw (two features, or the first principal axes); one column is
        drawn along a line.
    y : array-like of shape (n,) or None
        The label, for colours and hover text.
    label_name : str, default="label"
    row_ids : array-like of shape (n,) or None
        Original row numbers (first in ``customdata``, for hover labels and selections).
    axis_titles : sequence of str, default=("x1", "x2")
    title : str, default="The data"
    selected_rows : array-like of int or None
        Original row numbers to highlight (the rest dimmed); see :func:`highlight_rows`.
    point_budget : int, default=POINT_BUDGET
        Above this many rows their density is drawn instead of points.
    bins : int, default=DENSITY_BINS
        Bins per axis of the density.

    Returns
    -------
    go.Figure

    Examples
    --------
    >>> import numpy as np
    >>> fig = data_figure(np.array([[0.0, 1.0], [1.0, 0.0], [2.0, 2.0]]), y=["a", "b", "a"], row_ids=[5, 6, 7])
    >>> [t.name for t in fig.data], fig.data[0].customdata[:, 0].tolist()
    (['a', 'b'], ['5', '7'])
    >>> data_figure(np.zeros((3, 2)), point_budget=2).layout.title.subtitle.text
    'density of 3 rows in 200 x 200 bins'
    """
    X2 = _as_2d(X2, "X2")
    n = X2.shape[0]
    titles = [user_text(t) for t in axis_titles] + ["", ""]
    one_d = X2.shape[1] == 1
    if one_d:
        X2 = np.column_stack([X2[:, 0], np.zeros(n)])
        titles[1] = ""
    rid = _row_ids(row_ids, n)
    if n > point_budget:
        return _density_figure(X2, rid, titles, title, selected_rows, bins, one_d)
    label_name = user_text(label_name)
    y_text = np.full(n, "") if y is None else np.array([user_text(v) for v in np.asarray(y).astype(str)])
    custom = np.column_stack([rid.astype(str), y_text])
    hover = "row %{customdata[0]}" + ("" if y is None else "<br>" + label_name + " %{customdata[1]}") \
        + "<extra></extra>"
    groups = None if y is None else _class_groups(y, n)
    parts = groups if groups is not None else [(None, np.ones(n, dtype=bool))]
    fig = go.Figure()
    for g, (name, mask) in enumerate(parts):
        marker = dict(size=5, opacity=0.7)
        if name is not None:
            marker["color"] = PALETTE[g % len(PALETTE)]
        elif y is not None:
            marker.update(color=np.asarray(y, dtype=np.float64)[mask], colorscale="Viridis",
                          colorbar=dict(title=dict(text=label_name), exponentformat="e"))
        fig.add_trace(_scatter_type(n)(x=X2[mask, 0], y=X2[mask, 1], mode="markers", marker=marker,
                                       customdata=custom[mask], hovertemplate=hover,
                                       name=user_text(name) if name is not None else "rows",
                                       showlegend=name is not None))
    fig.update_layout(title=title, xaxis_title=titles[0], yaxis_title=titles[1], legend=dict(title=dict(text=label_name)),
                      margin=dict(l=40, r=10, t=50, b=40))
    return highlight_rows(fig, selected_rows)


def _density_figure(X2, rid, titles, title: str, selected_rows, bins: int, one_d: bool) -> go.Figure:
    """:func:`data_figure` above the budget: the density of every row (O(bins^2) numbers whatever n), hover
    on the bins (their counts), the selection as a histogram of its own."""
    selected = None if selected_rows is None else np.asarray(selected_rows, dtype=np.int64).ravel()
    traces = []
    hover = (f"{titles[0] or 'x'} %{{x:.4g}}" + ("" if one_d else f"<br>{titles[1] or 'y'} %{{y:.4g}}")
             + "<br>%{customdata:,} rows in this bin<extra></extra>")
    _density_panel(traces, X2, None, rid, dict(xaxis="x", yaxis="y"), dims=2, bins=bins, centers=None, groups=None,
                   y=None, rid=rid, label_name="", first=True, selected=selected, hover=hover)
    # Plotly offers box and lasso in the toolbar only for figures with a point trace (a heatmap alone has
    # none): two transparent points at the corners of the rows' extent, without hover or row numbers, so
    # a selection over them selects nothing of their own.
    lo, hi = [X2[:, 0].min(), X2[:, 1].min()], [X2[:, 0].max(), X2[:, 1].max()]  # by column: fast
    traces.append(dict(type="scattergl", x=[float(lo[0]), float(hi[0])], y=[float(lo[1]), float(hi[1])],
                       mode="markers", marker=dict(size=1, opacity=0), hoverinfo="skip", showlegend=False,
                       name="extent"))
    fig = go.Figure(traces)
    fig.update_layout(title=title, xaxis_title=titles[0], yaxis_title=titles[1], showlegend=False,
                      margin=dict(l=40, r=10, t=50, b=40))
    say_density(fig, density_note(X2.shape[0], None, bins), one_line=one_d)
    return fig
