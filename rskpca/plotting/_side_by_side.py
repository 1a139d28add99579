"""Two figures as the two panels of one: one chart for the browser to draw instead of two.

A page's pair of charts (fit and projection times, training and test speedups) costs the browser a
chart each on every change; as one figure with two subplots it costs about one. The panels keep
their traces, axes (log scales, ranges, titles), shapes and titles; the legend goes under both panels, a
legend entry the left panel already has is not repeated for the right one, a click on it hides the trace in
both panels, and an unnamed trace (a bar chart's) has none.
"""

from __future__ import annotations

import plotly.graph_objects as go

from rskpca.plotting._style import _subplot_grid

__all__ = ["side_by_side"]

#: Axis properties carried from each figure to its panel.
_AXIS_PROPERTIES = ("type", "range", "title", "tickmode", "tickvals", "ticktext", "tickformat", "exponentformat",
                    "minorloglabels", "dtick", "tick0", "rangemode", "autorange", "categoryorder", "categoryarray",
                    "automargin", "showgrid")


def side_by_side(left: go.Figure, right: go.Figure, *, height: int | None = None) -> go.Figure:
    """``left`` and ``right`` as the left and right panels of one figure.

    Parameters
    ----------
    left, right : go.Figure
        One-panel figures (x and y axes ``x``, ``y``).
    height : int or None, default=None
        The figure's height; None takes the larger of the two figures' own (if any).

    Returns
    -------
    go.Figure

    Examples
    --------
    >>> a = go.Figure(go.Scatter(x=[1, 10], y=[1, 100], name="exact")).update_yaxes(type="log")
    >>> a.update_layout(title="Fit time")  # doctest: +ELLIPSIS
    Figure(...)
    >>> b = go.Figure(go.Scatter(x=[1, 10], y=[2, 3], name="exact")).update_layout(title="Projection time")
    >>> fig = side_by_side(a, b)
    >>> [(t.xaxis, t.yaxis, t.showlegend) for t in fig.data]
    [('x', 'y', None), ('x2', 'y2', False)]
    >>> side_by_side(a, go.Figure(go.Bar(x=["a"], y=[1]))).data[1].showlegend  # unnamed: no "trace 2" entry
    False
    >>> fig.layout.yaxis.type, fig.layout.yaxis2.type, [a.text for a in fig.layout.annotations]
    ('log', None, ['Fit time', 'Projection time'])
    """
    titles = [f.layout.title.text or "" for f in (left, right)]
    layout = _subplot_grid(1, 2, titles, horizontal_spacing=0.14, vertical_spacing=0.0)[0]
    named, traces = set(), []
    for col, source in ((1, left), (2, right)):
        suffix = "" if col == 1 else "2"
        for trace in source.data:
            trace = trace.to_plotly_json()  # a plain dict: the figure below validates every trace once
            trace["xaxis"], trace["yaxis"] = "x" + suffix, "y" + suffix
            if trace.get("name"):
                trace["legendgroup"] = trace["name"]
                if col == 2 and trace["name"] in named:
                    trace["showlegend"] = False
                named.add(trace["name"])
            else:  # a figure's one unnamed trace (bars) has no legend entry of its own: none here either
                trace["showlegend"] = False
            traces.append(trace)
        for axis in ("xaxis", "yaxis"):
            own = source.layout[axis].to_plotly_json()
            layout[axis + suffix].update({k: v for k, v in own.items() if k in _AXIS_PROPERTIES})
        for shape in source.layout.shapes:
            shape = shape.to_plotly_json()  # (a copy)
            for ref in ("xref", "yref"):
                shape[ref] = _panel_ref(shape.get(ref, ref[0]), ref[0], suffix)
            layout.setdefault("shapes", []).append(shape)
    heights = [f.layout.height for f in (left, right) if f.layout.height]
    # The legend under both panels: a figure's own legend position is in its one panel's frame and would
    # land on the right panel here.
    layout.update(height=height or (max(heights) if heights else None), margin=dict(l=40, r=30, t=60, b=40),
                  legend=dict(orientation="h", yanchor="top", y=-0.2, x=0), showlegend=bool(named))
    # One figure built from plain dicts: plotly validates each trace and the layout once (traces added to an
    # existing figure are validated again on the add)
    return go.Figure(data=traces, layout=layout)


def _panel_ref(ref: str, letter: str, suffix: str) -> str:
    """A shape's axis reference moved to the panel (``"paper"`` spans that panel's domain)."""
    if ref == "paper":
        return f"{letter}{suffix} domain"
    return ref.replace(letter, letter + suffix, 1) if suffix and ref.startswith(letter) else ref
