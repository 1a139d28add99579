"""Linked selections in figures: rows picked in one chart, highlighted in every other.

Every scatter builder puts the original row number of each point first in its
``customdata`` (see :mod:`rskpca.plotting`). That is the one thing a selection
needs: :func:`rows_from_points` reads the row numbers out of the points a box or
lasso selection returns (from any trace, in any chart), and :func:`highlight_rows`
draws a figure with those rows standing out and the rest dimmed. Both are pure:
the app keeps the selected rows in its session and passes them to the builders'
``selected_rows=`` argument.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import numpy as np
import plotly.graph_objects as go

__all__ = ["rows_from_points", "highlight_rows", "SELECTION_COLOR", "DIMMED_OPACITY", "selection_regions",
           "rows_in_region", "rows_in_regions", "axis_of_panel"]

#: Outline of the selected points (and the legend entry "selected").
SELECTION_COLOR = "#000000"
#: Opacity of the points outside the selection: still there to give context, but in the background.
DIMMED_OPACITY = 0.12
_POINT_TRACES = ("scatter", "scattergl", "scatter3d")


def _first_of(customdata):
    """The first field of one point's customdata (a list for several fields, a scalar for one).

    A row of a numeric 2-D customdata (sent base64-encoded by Plotly >= 6) comes back from
    the browser as an object keyed by position, ``{"0": 12, "1": 4}``.
    """
    if isinstance(customdata, Mapping):
        return customdata.get("0", customdata.get(0))
    if isinstance(customdata, (list, tuple, np.ndarray)):
        return customdata[0] if len(customdata) else None
    return customdata


def _as_row(value) -> int | None:
    """``value`` as a row number, or None when it is not a whole number (a label, a missing field)."""
    try:
        f = float(value)
    except (TypeError, ValueError):
        return None
    return int(f) if np.isfinite(f) and f == int(f) else None


def rows_from_points(points: Iterable[Mapping]) -> np.ndarray:
    """The original row numbers of selected points, sorted and without repeats.

    Parameters
    ----------
    points : iterable of mapping
        The points of a Plotly selection event (Streamlit's ``event.selection.points``):
        each may carry ``customdata``, whose first field (a list's first item, a scalar,
        or key ``"0"`` of a row of a numeric array) is the point's row number.
        Points without it (a line, a contour) are skipped; a row selected in two traces
        (a shadow center is also a data point) counts once.

    Returns
    -------
    ndarray of int64

    Examples
    --------
    >>> rows_from_points([{"customdata": [7, "a"]}, {"customdata": ["3", "b"]}, {"customdata": 7},
    ...                   {"customdata": {"0": 9, "1": 2}}, {"x": 0.5}]).tolist()
    [3, 7, 9]
    """
    rows = set()
    for point in points:
        row = _as_row(_first_of(point.get("customdata")))
        if row is not None:
            rows.add(row)
    return np.array(sorted(rows), dtype=np.int64)


def _trace_rows(trace) -> np.ndarray | None:
    """Row number of each point of ``trace`` (from its customdata), or None if it has none."""
    if trace.type not in _POINT_TRACES or trace.customdata is None or "markers" not in (trace.mode or "markers"):
        return None
    custom = np.asarray(trace.customdata, dtype=object)
    first = custom[:, 0] if custom.ndim == 2 else custom.ravel()
    rows = [_as_row(v) for v in first]
    if any(r is None for r in rows):
        return None
    return np.array(rows, dtype=np.int64)


def _subset(value, mask: np.ndarray, n: int):
    """A per-point property restricted to ``mask``; a scalar (one value for all points) as it is."""
    if value is None or isinstance(value, str):
        return value
    arr = np.asarray(value)
    return arr[mask] if arr.ndim >= 1 and arr.shape[0] == n else value


def _overlay(trace, mask: np.ndarray, n: int, first: bool):
    """A copy of ``trace`` holding only the points in ``mask``, outlined, at full opacity."""
    marker = trace.marker
    color = marker.color
    style = dict(opacity=1.0, line=dict(color=SELECTION_COLOR, width=1.5))
    if color is not None and not isinstance(color, str) and marker.colorscale is not None:
        # Numbers on a colour scale: the subset keeps the whole trace's range, so colours match.
        values = np.asarray(color, dtype=np.float64)
        style.update(colorscale=marker.colorscale, cmin=float(np.nanmin(values)) if marker.cmin is None else marker.cmin,
                     cmax=float(np.nanmax(values)) if marker.cmax is None else marker.cmax, showscale=False)
    style["color"] = _subset(color, mask, n)
    size = _subset(marker.size, mask, n)
    style["size"] = size if size is not None else (4 if trace.type == "scatter3d" else 6)
    if marker.symbol is not None:
        style["symbol"] = _subset(marker.symbol, mask, n)
    kw = dict(mode="markers", marker=style, name="selected", legendgroup="selected", showlegend=first,
              customdata=_subset(trace.customdata, mask, n), hovertemplate=trace.hovertemplate,
              hoverinfo=trace.hoverinfo, x=_subset(trace.x, mask, n), y=_subset(trace.y, mask, n))
    if trace.type == "scatter3d":
        return go.Scatter3d(z=_subset(trace.z, mask, n), scene=trace.scene, **kw)
    cls = go.Scattergl if trace.type == "scattergl" else go.Scatter
    return cls(xaxis=trace.xaxis, yaxis=trace.yaxis, **kw)


def highlight_rows(fig: go.Figure, selected_rows, *, dimmed_opacity: float = DIMMED_OPACITY) -> go.Figure:
    """``fig`` with the points of ``selected_rows`` outlined on top and every other point dimmed.

    Works on any figure whose point traces carry row numbers first in ``customdata``
    (every scatter builder of :mod:`rskpca.plotting`): each such trace is dimmed and a
    copy of its selected points (same colours, same subplot) is drawn over it, named
    "selected" in the legend. Traces without row numbers (lines, contours) are left as
    they are. ``fig`` itself is not changed.

    Parameters
    ----------
    fig : go.Figure
    selected_rows : array-like of int or None
        Original row numbers. None or empty: no selection, ``fig`` is returned as it is.
    dimmed_opacity : float, default=DIMMED_OPACITY
        Marker opacity of the points outside the selection.

    Returns
    -------
    go.Figure

    Examples
    --------
    >>> import plotly.graph_objects as go
    >>> fig = go.Figure(go.Scatter(x=[0, 1, 2], y=[0, 1, 4], mode="markers", customdata=[[10], [11], [12]]))
    >>> out = highlight_rows(fig, [12, 99])
    >>> [t.name for t in out.data], out.data[1].x.tolist(), out.data[0].marker.opacity
    ([None, 'selected'], [2], 0.12)
    """
    if selected_rows is None:
        return fig
    selected = np.unique(np.asarray(selected_rows, dtype=np.int64).ravel())
    if selected.size == 0:
        return fig
    out = go.Figure(fig)
    overlays = []
    for trace in out.data:
        rows = _trace_rows(trace)
        if rows is None:
            continue
        mask = np.isin(rows, selected)
        opacity = trace.marker.opacity
        scalar = opacity is None or np.ndim(opacity) == 0
        trace.marker.opacity = min(dimmed_opacity, 1.0 if opacity is None else float(opacity)) if scalar \
            else np.minimum(np.asarray(opacity, dtype=np.float64), dimmed_opacity)
        if mask.any():
            overlays.append(_overlay(trace, mask, rows.size, first=not overlays))
    if overlays:
        out.add_traces(overlays)
    return out


# --------------------------------------------------------------------------- rows in a region (density charts)

def axis_of_panel(p: int) -> str:
    """The x axis id (``"x"``, ``"x2"``, ...) of panel ``p`` (0-based) of a subplot grid: a region's ``xref``.

    >>> axis_of_panel(0), axis_of_panel(2)
    ('x', 'x3')
    """
    return "x" if p == 0 else f"x{p + 1}"


def selection_regions(selection: Mapping | None) -> list[dict]:
    """The boxes and lassos of a selection event, each ``{"kind", "xref", "x", "y"}``.

    ``selection`` is the event's ``selection`` (Streamlit's shape): ``"box"`` and ``"lasso"``
    are lists of ``{"xref", "yref", "x": [...], "y": [...]}`` (a box: its two corners; a lasso:
    its vertices), in data coordinates of the subplot ``xref``.

    >>> selection_regions({"points": [], "box": [{"xref": "x2", "yref": "y2", "x": [1, 0], "y": [0, 2]}]})
    [{'kind': 'box', 'xref': 'x2', 'x': [1.0, 0.0], 'y': [0.0, 2.0]}]
    """
    regions = []
    for kind in ("box", "lasso"):
        for region in (selection or {}).get(kind) or []:
            try:
                xs = [float(v) for v in region.get("x") or []]
                ys = [float(v) for v in region.get("y") or []]
            except (TypeError, ValueError):
                continue
            if len(xs) >= 2 and len(xs) == len(ys) and (kind == "box" or len(xs) >= 3):
                regions.append({"kind": kind, "xref": str(region.get("xref") or "x"), "x": xs, "y": ys})
    return regions


def _inside_polygon(x: np.ndarray, y: np.ndarray, px: np.ndarray, py: np.ndarray) -> np.ndarray:
    """Even-odd rule: which points (x, y) lie inside the polygon (px, py), vectorized over the points."""
    inside = np.zeros(x.shape, dtype=bool)
    j = px.size - 1
    for i in range(px.size):
        xi, yi, xj, yj = px[i], py[i], px[j], py[j]
        crosses = (yi > y) != (yj > y)
        if yj != yi:
            at = (xj - xi) * (y[crosses] - yi) / (yj - yi) + xi
            inside[crosses] ^= x[crosses] < at
        j = i
    return inside


def rows_in_region(x, y, row_ids, region: Mapping) -> np.ndarray:
    """The row numbers of the points (x, y) inside one region of :func:`selection_regions`.

    Every row whose coordinates fall in the box (or lasso), not only those drawn as points: how a
    density chart (which draws bins, not rows) selects rows.

    >>> rows_in_region([0, 1, 2, 3], [0, 1, 2, 3], [10, 11, 12, 13], {"kind": "box", "x": [0.5, 2.5], "y": [0, 9]})
    array([11, 12])
    >>> tri = {"kind": "lasso", "x": [0, 4, 0], "y": [0, 0, 4]}
    >>> rows_in_region([1, 3, 1], [1, 3, 0.5], [5, 6, 7], tri)
    array([5, 7])
    """
    x = np.asarray(x, dtype=np.float64).ravel()
    y = np.asarray(y, dtype=np.float64).ravel()
    ids = np.asarray(row_ids).ravel()
    xs, ys = np.asarray(region["x"], dtype=np.float64), np.asarray(region["y"], dtype=np.float64)
    # the region's bounding box first: the polygon test then runs on the few rows inside it
    box = (x >= xs.min()) & (x <= xs.max()) & (y >= ys.min()) & (y <= ys.max())
    if region.get("kind", "box") == "lasso":
        candidates = np.flatnonzero(box)
        box[candidates] = _inside_polygon(x[candidates], y[candidates], xs, ys)
    return np.sort(ids[box].astype(np.int64))


def rows_in_regions(selection: Mapping | None, panels: Mapping[str, tuple]) -> np.ndarray:
    """The rows inside the selection's boxes and lassos, each read in the panel it was drawn on.

    Parameters
    ----------
    selection : mapping or None
        A selection event's ``selection`` (see :func:`selection_regions`).
    panels : mapping of str to (x, y, row_ids)
        By x axis id (:func:`axis_of_panel`): the coordinates every row of that panel has
        and the rows' original numbers. A region on an axis not in ``panels`` selects nothing.

    Returns
    -------
    ndarray of int64
        Sorted, without repeats.

    Examples
    --------
    >>> sel = {"box": [{"xref": "x2", "x": [0, 1], "y": [0, 1]}]}
    >>> rows_in_regions(sel, {"x": ([0.5], [0.5], [1]), "x2": ([0.5, 5], [0.5, 5], [2, 3])}).tolist()
    [2]
    """
    found = [rows_in_region(*panels[r["xref"]], r) for r in selection_regions(selection) if r["xref"] in panels]
    return np.unique(np.concatenate(found)).astype(np.int64) if found else np.array([], dtype=np.int64)
