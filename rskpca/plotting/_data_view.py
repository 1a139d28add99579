"""The data themselves as a scatter (two features, or two principal axes), coloured by label."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

from rskpca.plotting._selection import highlight_rows
from rskpca.plotting._style import PALETTE, _as_2d, _class_groups, _row_ids, _scatter_type, user_text

__all__ = ["data_figure"]


def data_figure(X2, *, y=None, label_name: str = "label", row_ids=None,
                axis_titles: Sequence[str] = ("x1", "x2"), title: str = "The data",
                selected_rows=None) -> go.Figure:
    """The rows of the data as points, one colour per class (or a colour scale for a continuous label).

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

    Returns
    -------
    go.Figure

    Examples
    --------
    >>> import numpy as np
    >>> fig = data_figure(np.array([[0.0, 1.0], [1.0, 0.0], [2.0, 2.0]]), y=["a", "b", "a"], row_ids=[5, 6, 7])
    >>> [t.name for t in fig.data], fig.data[0].customdata[:, 0].tolist()
    (['a', 'b'], ['5', '7'])
    """
    X2 = _as_2d(X2, "X2")
    n = X2.shape[0]
    titles = [user_text(t) for t in axis_titles] + ["", ""]
    if X2.shape[1] == 1:
        X2 = np.column_stack([X2[:, 0], np.zeros(n)])
        titles[1] = ""
    rid = _row_ids(row_ids, n)
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
