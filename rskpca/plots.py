"""Plotly figure builders: pure functions from arrays and tidy tables to ``go.Figure``.

Nothing here touches Streamlit, so every figure the app shows can be built and
checked in a plain test. Conventions shared by the builders:

* Scatters with more than :data:`WEBGL_THRESHOLD` points use ``go.Scattergl``
  (WebGL), smaller ones SVG ``go.Scatter``. A figure with WebGL traces uses one
  WebGL context for all its 2-D subplots; each 3-D scene uses one of its own.
  Browsers allow only a handful of contexts per page, so callers keep count
  with :func:`webgl_contexts`.
* Original row numbers travel in ``customdata`` so hover labels and selections
  name the row of the user's file.
* Densities are evaluated on a server-side grid and drawn as contours; raw
  points are never handed to a client-side density trace.
* A method has one colour in every chart (:data:`METHOD_COLORS`, :func:`method_colors`),
  category names are shown in full (wrapped, or beside horizontal bars), log axes label
  decades or full numbers (never bare minor digits), and count axes whole numbers.
"""

from __future__ import annotations

import html
import re
import textwrap
import zlib
from collections.abc import Mapping, Sequence

import numpy as np
import plotly.graph_objects as go
from plotly.colors import qualitative
from plotly.subplots import make_subplots

from rskpca.methods import METHODS

__all__ = [
    "WEBGL_THRESHOLD",
    "PALETTE",
    "METHOD_COLORS",
    "method_colors",
    "user_text",
    "webgl_contexts",
    "figure_html",
    "shadow_figure",
    "weight_histogram",
    "density_grid_figure",
    "density_curve_figure",
    "density_points_figure",
    "error_histogram",
    "embedding_figure",
    "spectra_figure",
    "bar_figure",
    "fit_time_figure",
    "fit_predict_figure",
    "bounds_figure",
    "bounds_curves_figure",
    "lines_over_ell",
]

#: Above this many points a scatter is drawn with WebGL.
WEBGL_THRESHOLD = 1000
#: Colours for shadow sets, classes and methods (cycled).
PALETTE: tuple[str, ...] = tuple(qualitative.Dark24)
_BOUND_KINDS = ("a_priori", "a_posteriori", "measured")
_BOUND_COLORS = {"a_priori": "#636EFA", "a_posteriori": "#EF553B", "measured": "#00CC96"}
#: One colour per registered method (by its label), the same in every chart: exact KPCA, the
#: reference, is near-black; the others take the palette in registry order.
_REFERENCE_COLOR = "#222A2A"
METHOD_COLORS: dict[str, str] = {
    method.label: color for method, color in zip(
        METHODS.values(), [_REFERENCE_COLOR] + [c for c in PALETTE if c != _REFERENCE_COLOR])}
# Names that are not methods take these first, so that they do not look like a method.
_SPARE_COLORS = tuple(c for c in PALETTE if c not in METHOD_COLORS.values()) or PALETTE
#: Bar and category labels are wrapped to lines of about this many characters.
_LABEL_WIDTH = 14
#: Up to this many bars stand side by side (their wrapped names fit under a half-width chart);
#: more lie horizontally, their names down the side.
_MAX_COLUMNS = 5
#: Hollow markers of the approximations in a spectrum, so that coinciding points all show.
_APPROX_SYMBOLS = ("circle-open", "square-open", "diamond-open", "triangle-up-open", "triangle-down-open",
                   "star-open", "hexagon-open", "pentagon-open", "cross-open", "x-open")


def method_colors(names: Sequence[str]) -> dict[str, str]:
    """A colour for each name: a registered method's own colour, else a stable one from its name.

    Names that are not method labels (a class, a series) get a colour no method has, picked by
    a checksum of the name, so it too is the same in every chart; a clash with another name of
    the same chart moves it to the next free colour.

    >>> colors = method_colors(["Exact KPCA", "ShDE + RSKPCA"])
    >>> colors["Exact KPCA"] == METHOD_COLORS["Exact KPCA"], colors == method_colors(["ShDE + RSKPCA", "Exact KPCA"])
    (True, True)
    """
    names = [str(name) for name in names]
    colors = {name: METHOD_COLORS[name] for name in names if name in METHOD_COLORS}
    for name in sorted(set(names) - set(colors)):
        start = zlib.crc32(name.encode())
        candidates = [_SPARE_COLORS[(start + i) % len(_SPARE_COLORS)] for i in range(len(_SPARE_COLORS))]
        colors[name] = next((c for c in candidates + list(PALETTE) if c not in colors.values()), candidates[0])
    return colors


def _wrapped(label) -> str:
    """A category label on lines of about :data:`_LABEL_WIDTH` characters, so long names fit under a bar."""
    return "<br>".join(textwrap.wrap(user_text(label), _LABEL_WIDTH, break_long_words=False,
                                     break_on_hyphens=False)) or user_text(label)


def _category_axis(names: Sequence[str]) -> dict:
    """x-axis settings that show every category label in full (wrapped, with room made for it)."""
    return dict(tickmode="array", tickvals=list(names), ticktext=[_wrapped(n) for n in names], automargin=True)


def _log_axis(values) -> dict:
    """Settings for a log axis over ``values`` whose tick labels read as whole numbers.

    Plotly labels the in-between ticks of a log axis with bare digits ("2 5 2 5"). Over two
    decades or more only the decades are labelled; over less, every labelled tick is a full
    number: every digit where that makes at most seven labels, else 1-2-5 steps.
    """
    v = np.asarray([x for x in np.ravel(np.asarray(values, dtype=object))
                    if x is not None and np.isfinite(float(x)) and float(x) > 0], dtype=np.float64)
    # "e" keeps 0.1 and 0.01 as they are and writes 1e-4 past that (not "100µ" nor 10^-1).
    axis = dict(type="log", exponentformat="e", automargin=True)
    if v.size == 0:
        return axis | dict(minorloglabels="none")
    lo, hi = float(v.min()), float(v.max())
    decades_inside = int(np.floor(np.log10(hi)) - np.ceil(np.log10(lo))) + 1
    if decades_inside >= 2:
        return axis | dict(minorloglabels="none")
    digits = [d * 10.0**k for k in range(int(np.floor(np.log10(lo))), int(np.floor(np.log10(hi))) + 1)
              for d in range(1, 10) if lo <= d * 10.0**k <= hi]
    return axis | dict(dtick="D1" if len(digits) <= 7 else "D2", minorloglabels="complete")


def _integer_step(max_value: float) -> int:
    """A 1-2-5 tick step of at least 1 giving about six ticks up to ``max_value``."""
    return next(m * 10**k for k in range(16) for m in (1, 2, 5) if max_value / (m * 10**k) <= 6)


def _count_axis(max_count: float) -> dict:
    """y-axis settings for counts: whole-number ticks from zero (never 0.5), about six of them."""
    return dict(tickformat="d", tick0=0, dtick=_integer_step(max_count), rangemode="tozero", automargin=True)


def user_text(text) -> str:
    """User text (a column name, a class value) made safe for Plotly, which renders some HTML in labels.

    Entities are shown literally, and ``%`` cannot start a hover-template variable.

    >>> user_text("<b>x</b> %{y}")
    '&lt;b&gt;x&lt;/b&gt; &#37;{y}'
    """
    return html.escape(str(text), quote=False).replace("%", "&#37;")


def _scatter_type(n_points: int):
    return go.Scattergl if n_points > WEBGL_THRESHOLD else go.Scatter


def webgl_contexts(fig: go.Figure) -> int:
    """How many WebGL contexts the browser needs for ``fig``.

    All 2-D WebGL traces of a figure share one canvas; every 3-D scene has its own.

    >>> import plotly.graph_objects as go
    >>> webgl_contexts(go.Figure(go.Scattergl(x=[1], y=[1])))
    1
    """
    gl2d = any(t.type == "scattergl" for t in fig.data)
    scenes = {t.scene or "scene" for t in fig.data if t.type in ("scatter3d", "surface", "mesh3d")}
    return int(gl2d) + len(scenes)


def figure_html(fig: go.Figure) -> str:
    """A self-contained HTML page of ``fig`` (plotly.js inlined, so it opens offline).

    >>> import plotly.graph_objects as go
    >>> "<html>" in figure_html(go.Figure())[:40]
    True
    """
    return fig.to_html(include_plotlyjs=True, full_html=True)


def _as_2d(X, name: str) -> np.ndarray:
    arr = np.asarray(X, dtype=np.float64)
    if arr.ndim != 2 or arr.shape[1] < 1:
        raise ValueError(f"{name} must be a 2-D array (n_points, dims); got shape {arr.shape}.")
    return arr


def _check_len(arr, n: int, name: str) -> np.ndarray:
    arr = np.asarray(arr)
    if arr.shape[0] != n:
        raise ValueError(f"{name} has {arr.shape[0]} entries but there are {n} points; pass one per point.")
    return arr


def _row_ids(row_ids, n: int) -> np.ndarray:
    return np.arange(n) if row_ids is None else _check_len(row_ids, n, "row_ids")


def _class_groups(y, n: int, max_classes: int = len(PALETTE)):
    """``[(name, mask)]`` for a categorical label with few values, else None (continuous)."""
    y = _check_len(y, n, "y")
    values = np.unique(y.astype(str)) if y.dtype.kind in "OUSb" else np.unique(y)
    if y.dtype.kind in "fc" and values.size > max_classes:
        return None
    if values.size > max_classes:
        return None
    ys = y.astype(str) if y.dtype.kind in "OUSb" else y
    return [(str(v), ys == v) for v in values]


# --------------------------------------------------------------------------- shadow


def shadow_figure(X2, labels, center_indices, weights, *, eps: float | None = None, projected: bool = False,
                  axis_titles: Sequence[str] = ("x1", "x2"), row_ids=None, max_discs: int = 400,
                  title: str | None = None) -> go.Figure:
    """The data coloured by shadow set, with centers sized by weight and eps-discs.

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
    title : str or None

    Returns
    -------
    go.Figure

    Examples
    --------
    >>> import numpy as np
    >>> fig = shadow_figure(np.array([[0.0, 0.0], [0.1, 0.0], [2.0, 0.0]]), [0, 0, 1], [0, 2], [2, 1], eps=0.5)
    >>> [t.name for t in fig.data], len(fig.layout.shapes)
    (['points', 'centers'], 2)
    """
    X2 = _as_2d(X2, "X2")
    n = X2.shape[0]
    axis_titles = [user_text(t) for t in axis_titles]
    if X2.shape[1] == 1:
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
    colors = np.array(PALETTE, dtype=object)[labels % len(PALETTE)]
    fig = go.Figure()
    fig.add_trace(_scatter_type(n)(
        x=X2[:, 0], y=X2[:, 1], mode="markers", name="points",
        marker=dict(color=colors, size=5, opacity=0.6),
        customdata=np.column_stack([rid, labels]),
        hovertemplate="row %{customdata[0]}<br>shadow set %{customdata[1]}<extra></extra>",
    ))
    size = 6.0 + 24.0 * np.sqrt(w / w.max()) if w.size else w
    fig.add_trace(go.Scatter(
        x=X2[idx, 0], y=X2[idx, 1], mode="markers", name="centers",
        marker=dict(size=size, color="rgba(0,0,0,0)", line=dict(color="black", width=1.5), symbol="circle"),
        customdata=np.column_stack([rid[idx], np.arange(idx.size), w]),
        hovertemplate="center %{customdata[1]} (row %{customdata[0]})<br>weight %{customdata[2]}<extra></extra>",
    ))
    drew_discs = eps is not None and not projected and X2.shape[1] == 2 and axis_titles[1] != "" \
        and idx.size <= max_discs
    if drew_discs:
        for cx, cy in X2[idx]:
            fig.add_shape(type="circle", x0=cx - eps, x1=cx + eps, y0=cy - eps, y1=cy + eps,
                          line=dict(color="rgba(0,0,0,0.35)", width=1), layer="below")
        # Equal axis scales keep the discs round.
        fig.update_yaxes(scaleanchor="x", scaleratio=1)
    note = ""
    if projected:
        note = " (on the first two principal axes)"
    elif eps is not None and not drew_discs and idx.size > max_discs:
        note = f" (eps-discs hidden: m > {max_discs})"
    fig.update_layout(
        title=(title or f"{idx.size} shadow centers") + note,
        xaxis_title=axis_titles[0], yaxis_title=axis_titles[1], showlegend=True,
        margin=dict(l=40, r=10, t=50, b=40),
    )
    return fig


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


def density_grid_figure(gx, gy, kde, shde, *, points=None, centers=None,
                        axis_titles: Sequence[str] = ("x1", "x2")) -> go.Figure:
    """KDE, ShDE and their difference as contour plots on a grid.

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
    ['contour', 'contour', 'contour']
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
    fig = make_subplots(rows=1, cols=3, shared_yaxes=True, horizontal_spacing=0.06,
                        subplot_titles=("KDE", "ShDE", "ShDE - KDE"))
    common = dict(x=gx, y=gy, contours=dict(coloring="heatmap"), line=dict(width=0.5))
    fig.add_trace(go.Contour(z=kde, zmin=0, zmax=top, colorscale="Viridis", name="KDE",
                             colorbar=dict(x=0.62, len=0.9, thickness=10), **common), 1, 1)
    fig.add_trace(go.Contour(z=shde, zmin=0, zmax=top, colorscale="Viridis", name="ShDE",
                             showscale=False, **common), 1, 2)
    fig.add_trace(go.Contour(z=diff, zmin=-lim, zmax=lim, colorscale="RdBu", reversescale=True,
                             name="ShDE - KDE", colorbar=dict(x=1.0, len=0.9, thickness=10), **common), 1, 3)
    if points is not None:
        P = _as_2d(points, "points")
        fig.add_trace(_scatter_type(P.shape[0])(x=P[:, 0], y=P[:, 1], mode="markers", name="data",
                                                marker=dict(size=3, color="white", opacity=0.6),
                                                hoverinfo="skip"), 1, 1)
    if centers is not None:
        Cn = _as_2d(centers, "centers")
        fig.add_trace(go.Scatter(x=Cn[:, 0], y=Cn[:, 1], mode="markers", name="centers",
                                 marker=dict(size=6, color="white", line=dict(color="black", width=1)),
                                 hoverinfo="skip"), 1, 2)
    for col in (1, 2, 3):
        fig.update_xaxes(title_text=user_text(axis_titles[0]), row=1, col=col)
    fig.update_yaxes(title_text=user_text(axis_titles[1]), row=1, col=1)
    fig.update_layout(showlegend=False, margin=dict(l=40, r=10, t=50, b=40))
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
    fig.update_yaxes(title_text="density", row=1, col=1)
    fig.update_yaxes(title_text="difference", row=2, col=1)
    fig.update_xaxes(title_text=user_text(xaxis_title), row=2, col=1)
    fig.update_layout(title=title, margin=dict(l=40, r=10, t=50, b=40))
    return fig


def density_points_figure(kde, shde, *, row_ids=None) -> go.Figure:
    """ShDE against KDE at the data points, with the line ShDE = KDE.

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
    return fig


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


# --------------------------------------------------------------------------- embeddings


def embedding_figure(embeddings: Mapping[str, np.ndarray], *, y=None, label_name: str = "label",
                     row_ids=None, dims: int = 2, errors: Mapping[str, float] | None = None,
                     cols: int = 3) -> go.Figure:
    """Side-by-side embeddings of the same rows, one panel per method.

    Parameters
    ----------
    embeddings : mapping of str to ndarray of shape (n, r)
        Method label to its embedding (already aligned to a common frame).
        Every array must have the same n and at least ``dims`` columns.
    y : array-like of shape (n,) or None
        Colours: one colour per class for a label with few values, a
        colour scale for a continuous one.
    label_name : str, default="label"
    row_ids : array-like of shape (n,) or None
        Original row numbers, shown on hover.
    dims : {2, 3}, default=2
        2-D panels share one WebGL context; 3-D uses one scene (one WebGL
        context) per method, so pass at most a few methods.
    errors : mapping of str to float or None
        Alignment error per method, added to the panel titles.
    cols : int, default=3
        Panels per row (2-D).

    Returns
    -------
    go.Figure

    Examples
    --------
    >>> import numpy as np
    >>> Z = np.random.default_rng(0).normal(size=(20, 3))
    >>> fig = embedding_figure({"Exact": Z, "Approx": -Z}, y=np.arange(20) % 2)
    >>> len(fig.data), fig.layout.annotations[1].text
    (4, 'Approx')
    """
    if dims not in (2, 3):
        raise ValueError(f"dims must be 2 or 3; got {dims!r}.")
    if not embeddings:
        raise ValueError("embeddings is empty; pass at least one method's embedding.")
    names = list(embeddings)
    arrays = [_as_2d(embeddings[k], f"embedding {k!r}") for k in names]
    n = arrays[0].shape[0]
    for k, A in zip(names, arrays):
        if A.shape[0] != n:
            raise ValueError(f"embedding {k!r} has {A.shape[0]} rows, the first has {n}; embed the same rows.")
        if A.shape[1] < dims:
            raise ValueError(f"embedding {k!r} has {A.shape[1]} components; {dims} are needed for a "
                             f"{dims}-D plot (raise the rank r).")
    rid = _row_ids(row_ids, n)
    titles = [k if errors is None or k not in errors else f"{k} (err {errors[k]:.3f})" for k in names]
    k_panels = len(names)
    if dims == 2:
        ncols = min(cols, k_panels)
        nrows = int(np.ceil(k_panels / ncols))
        fig = make_subplots(rows=nrows, cols=ncols, subplot_titles=titles,
                            horizontal_spacing=0.05, vertical_spacing=0.12)
    else:
        ncols, nrows = k_panels, 1
        fig = make_subplots(rows=1, cols=k_panels, subplot_titles=titles,
                            specs=[[{"type": "scene"}] * k_panels], horizontal_spacing=0.02)
    groups = None if y is None else _class_groups(y, n)
    label_name = user_text(label_name)
    hover = "row %{customdata[0]}<br>" + label_name + " %{customdata[1]}<extra></extra>"
    y_text = np.full(n, "") if y is None else np.array([user_text(v) for v in np.asarray(y).astype(str)])
    custom = np.column_stack([rid.astype(str), y_text])
    # Collected and added in one call: add_trace per trace re-validates the whole figure each time.
    traces, trace_rows, trace_cols = [], [], []
    for p, (name, A) in enumerate(zip(names, arrays)):
        r, c = p // ncols + 1, p % ncols + 1
        parts = groups if groups is not None else [(None, np.ones(n, dtype=bool))]
        for g, (gname, mask) in enumerate(parts):
            marker = dict(size=4 if dims == 2 else 2.5, opacity=0.75)
            if gname is not None:
                marker["color"] = PALETTE[g % len(PALETTE)]
            elif y is not None:
                marker.update(color=np.asarray(y, dtype=np.float64), colorscale="Viridis",
                              showscale=p == 0, colorbar=dict(title=dict(text=label_name)))
            kw = dict(mode="markers", marker=marker, customdata=custom[mask], hovertemplate=hover,
                      name=user_text(gname) if gname is not None else name, legendgroup=gname or name,
                      showlegend=gname is not None and p == 0)
            if dims == 2:
                trace = _scatter_type(n)(x=A[mask, 0], y=A[mask, 1], **kw)
            else:
                trace = go.Scatter3d(x=A[mask, 0], y=A[mask, 1], z=A[mask, 2], **kw)
            traces.append(trace)
            trace_rows.append(r)
            trace_cols.append(c)
    fig.add_traces(traces, rows=trace_rows, cols=trace_cols)
    fig.update_layout(height=max(360, 330 * nrows), margin=dict(l=30, r=10, t=50, b=30),
                      legend=dict(title=dict(text=label_name)))
    return fig


def spectra_figure(spectra: Mapping[str, np.ndarray], *, log_y: bool = True,
                   reference: str | None = None) -> go.Figure:
    """Leading normalized eigenvalues (of K/n) of each method, the reference drawn on top.

    Approximations often share a spectrum (subsampled KPCA and Nystrom solve the same m x m
    problem), so each has its own hollow marker, the earlier ones larger, and thin lines; the
    reference is a thick dashed line over them, first in the legend.

    Parameters
    ----------
    spectra : mapping of str to array-like of shape (r,)
        Method label to its leading eigenvalues.
    log_y : bool, default=True
    reference : str or None, default=None
        The key of the reference spectrum (exact KPCA); None takes the first key.

    Returns
    -------
    go.Figure

    Examples
    --------
    >>> fig = spectra_figure({"Exact": [0.5, 0.2], "Approx": [0.4, 0.2]})
    >>> [t.name for t in fig.data], fig.data[-1].line.dash, fig.data[0].x.tolist()
    (['Approx', 'Exact'], 'dash', [1, 2])
    """
    names = list(spectra)
    if reference is None and names:
        reference = names[0]
    if names and reference not in spectra:
        raise ValueError(f"reference {reference!r} is not among the spectra {names}; pass one of their keys.")
    colors = method_colors(names)
    others = [name for name in names if name != reference]
    fig = go.Figure()
    longest = 1
    for j, name in enumerate(others + [reference] if names else []):
        lam = np.asarray(spectra[name], dtype=np.float64).ravel()
        longest = max(longest, lam.size)
        if name == reference:
            style = dict(mode="lines", line=dict(color=colors[name], width=4, dash="dash"), legendrank=1)
        else:
            style = dict(mode="lines+markers", line=dict(color=colors[name], width=1.5),
                         marker=dict(symbol=_APPROX_SYMBOLS[j % len(_APPROX_SYMBOLS)], size=max(6, 15 - 2 * j),
                                     line=dict(width=2, color=colors[name])))
        fig.add_trace(go.Scatter(x=np.arange(1, lam.size + 1), y=lam, name=name, **style))
    fig.update_layout(title="Eigenvalue spectra (of K/n)", xaxis_title="component", yaxis_title="eigenvalue",
                      margin=dict(l=40, r=10, t=50, b=40))
    fig.update_xaxes(tickformat="d", tick0=1, dtick=_integer_step(longest), automargin=True)
    if log_y:
        fig.update_yaxes(**_log_axis([y for t in fig.data for y in t.y]))
    return fig


def bar_figure(values: Mapping[str, float], *, title: str, yaxis_title: str, errors: Mapping[str, float] | None = None,
               log_y: bool = False, text_format: str = ".3g") -> go.Figure:
    """One bar per named value (alignment errors, accuracies, speedups), with optional error bars.

    A method keeps its colour of :func:`method_colors`, and every name is shown in full: wrapped
    under its bar, or, past :data:`_MAX_COLUMNS` bars (too narrow for their names), beside
    horizontal bars.

    >>> bar_figure({"a": 1.0, "b": 2.0}, title="t", yaxis_title="v").data[0].x
    ('a', 'b')
    """
    names = list(values)
    v = np.array([values[k] for k in names], dtype=np.float64)
    err = None if errors is None else dict(type="data", array=[errors.get(k, 0.0) for k in names])
    colors = method_colors(names)
    style = dict(marker_color=[colors[str(k)] for k in names], textposition="outside", cliponaxis=False,
                 text=[format(x, text_format) if np.isfinite(x) else "n/a" for x in v])
    if err is not None:
        # Above the bar the value would sit on its error bar: inside, at the foot of the bar.
        style.update(textposition="inside", insidetextanchor="start")
    value_axis = _log_axis(v) if log_y else dict(rangemode="tozero", automargin=True)
    value_axis["title"] = dict(text=yaxis_title)
    if len(names) > _MAX_COLUMNS:
        fig = go.Figure(go.Bar(y=names, x=v, error_x=err, orientation="h", **style))
        fig.update_xaxes(**value_axis)
        # The first name on top, as in a table.
        fig.update_yaxes(**_category_axis(names) | dict(ticktext=[user_text(n) for n in names],
                                                         autorange="reversed"))
        height = 120 + 34 * len(names)
    else:
        fig = go.Figure(go.Bar(x=names, y=v, error_y=err, **style))
        fig.update_xaxes(**_category_axis(names))
        fig.update_yaxes(**value_axis)
        height = None
    fig.update_layout(title=title, height=height, margin=dict(l=40, r=30, t=50, b=40))
    return fig


_FIT_PARTS = {"fit_exact_kpca_seconds": ("exact KPCA part", "#AB63FA"),
              "fit_construction_seconds": ("construction part", "#FFA15A")}


def fit_time_figure(rows: Sequence[Mapping], *, exact_seconds: float | None = None,
                    title: str = "Training time at this ell") -> go.Figure:
    """Training time per method as stacked bars: a fit that has parts shows them stacked.

    ``rows`` are :func:`rskpca.sweeps.compare` rows (``method``, ``fit_seconds``
    and, where known, ``fit_exact_kpca_seconds`` / ``fit_construction_seconds``).
    The reduced-set construction runs exact KPCA first, so its bar is the exact
    part plus the construction part; ``exact_seconds`` adds exact KPCA's own bar.

    >>> rows = [{"method": "A", "fit_seconds": 1.0},
    ...         {"method": "B", "fit_seconds": 3.0, "fit_exact_kpca_seconds": 2.0, "fit_construction_seconds": 1.0}]
    >>> [t.name for t in fit_time_figure(rows).data]
    ['whole fit', 'exact KPCA part', 'construction part']
    """
    names = ([] if exact_seconds is None else ["Exact KPCA"]) + [str(r["method"]) for r in rows]

    def parts_of(row) -> dict:
        parts = {k: float(row.get(k, float("nan"))) for k in _FIT_PARTS}
        return parts if all(np.isfinite(v) for v in parts.values()) else {}

    whole = ([] if exact_seconds is None else [exact_seconds]) + [
        None if parts_of(r) else float(r["fit_seconds"]) for r in rows]
    colors = method_colors(names)
    fig = go.Figure(go.Bar(x=names, y=whole, name="whole fit", marker_color=[colors[n] for n in names]))
    for key, (label, color) in _FIT_PARTS.items():
        values = ([] if exact_seconds is None else [None]) + [parts_of(r).get(key) for r in rows]
        fig.add_trace(go.Bar(x=names, y=values, name=label, marker_color=color))
    # The legend above the bars: below them it would collide with the wrapped method names.
    fig.update_layout(title=title, yaxis_title="seconds", barmode="stack", margin=dict(l=40, r=10, t=70, b=40),
                      legend=dict(orientation="h", x=1.0, xanchor="right", y=1.02, yanchor="bottom"))
    fig.update_xaxes(**_category_axis(names))
    fig.update_yaxes(rangemode="tozero", automargin=True)
    return fig


#: (key, legend name, bar pattern) of the two timed steps of a pipeline: predicting is hatched.
_FIT_PREDICT = (("fit_seconds", "fit", ""), ("predict_seconds", "predict", "/"))


def fit_predict_figure(results: Mapping[str, Mapping[str, float]], *, title: str = "Mean time per fold",
                       text_format: str = ".3g") -> go.Figure:
    """Fit and predict time per method, side by side: solid bars fit, hatched bars predict.

    Each method keeps its colour of :func:`method_colors`; the legend says which bar is which.

    Parameters
    ----------
    results : mapping of str to mapping
        Method label to its timings, with keys ``fit_seconds`` and ``predict_seconds``
        (as :func:`rskpca.sweeps.cross_validate_classifier` returns them).
    title : str, default="Mean time per fold"
    text_format : str, default=".3g"
        Format of the value written above each bar.

    Returns
    -------
    go.Figure

    Examples
    --------
    >>> fig = fit_predict_figure({"Exact KPCA": {"fit_seconds": 0.02, "predict_seconds": 0.01}})
    >>> [t.name for t in fig.data], fig.data[1].marker.pattern.shape
    (['fit', 'predict'], '/')
    """
    names = [str(k) for k in results]
    colors = method_colors(names)
    fig = go.Figure()
    for key, label, pattern in _FIT_PREDICT:
        missing = [name for name in names if key not in results[name]]
        if missing:
            raise ValueError(f"results[{missing[0]!r}] has no {key!r}; pass the fit and predict seconds of "
                             "every method.")
        seconds = np.array([results[name][key] for name in names], dtype=np.float64)
        fig.add_trace(go.Bar(x=names, y=seconds, name=label, offsetgroup=label, cliponaxis=False,
                             marker=dict(color=[colors[n] for n in names], pattern=dict(shape=pattern),
                                         line=dict(color=[colors[n] for n in names], width=1.5)),
                             text=[format(v, text_format) for v in seconds], textposition="outside"))
    fig.update_layout(title=title, yaxis_title="seconds", barmode="group", margin=dict(l=40, r=10, t=50, b=40),
                      legend=dict(orientation="h", x=1.0, xanchor="right", y=1.02, yanchor="bottom"))
    fig.update_xaxes(**_category_axis(names))
    fig.update_yaxes(rangemode="tozero", automargin=True)
    return fig


# --------------------------------------------------------------------------- bounds and sweeps


def bounds_figure(rows: Sequence[Mapping]) -> go.Figure:
    """Bound values at one ell: per theorem, the a-priori, a-posteriori and measured numbers.

    Parameters
    ----------
    rows : sequence of mapping
        One per theorem with keys ``theorem``, ``a_priori``, ``a_posteriori``, ``measured``
        (None or NaN where a value does not exist) and, optionally, ``applies`` and ``note``
        (a :class:`rskpca.bounds.BoundValue` as a dict). A theorem that does not apply shows
        the bars it has and a note over its group: "bound does not apply: <reason>".

    Returns
    -------
    go.Figure

    Examples
    --------
    >>> fig = bounds_figure([{"theorem": "5.1", "a_priori": 0.5, "a_posteriori": 0.3, "measured": 0.1},
    ...                      {"theorem": "5.4", "a_priori": None, "a_posteriori": None, "measured": 0.2,
    ...                       "applies": False, "note": "Does not apply: the gap is 0 (see Thm 3); lower D."}])
    >>> [t.name for t in fig.data], fig.layout.annotations[0].text
    (['a_priori', 'a_posteriori', 'measured'], 'bound does not apply:<br>the gap is 0')
    """
    theorems = [f"Thm {r['theorem']}" for r in rows]
    fig = go.Figure()
    values = []
    for kind in _BOUND_KINDS:
        vals = [_finite_or_none(r.get(kind)) for r in rows]
        values += vals
        fig.add_trace(go.Bar(x=theorems, y=vals, name=kind, marker_color=_BOUND_COLORS[kind]))
    for i, row in enumerate(rows):
        if not row.get("applies", True):
            # Over the empty slots of its group (grouped bars share 0.8 of a category's width), not the bars.
            slots = [k for k, kind in enumerate(_BOUND_KINDS) if _finite_or_none(row.get(kind)) is None] or [1]
            x = i + 0.8 / len(_BOUND_KINDS) * (float(np.mean(slots)) - (len(_BOUND_KINDS) - 1) / 2)
            fig.add_annotation(x=x, xref="x", y=1.0, yref="paper", yanchor="top", showarrow=False,
                               text=f"bound does not apply:<br>{_short_reason(row.get('note'))}",
                               font=dict(size=11), align="center", bgcolor="rgba(255,255,255,0.85)",
                               bordercolor="gray", borderwidth=1)
    fig.update_layout(barmode="group", title="Bounds and measured values at the current ell",
                      yaxis_title="value (log scale)", margin=dict(l=40, r=10, t=50, b=40))
    fig.update_yaxes(**_log_axis(values))
    return fig


def _short_reason(note) -> str:
    """The first clause of a bound's note (before its details), wrapped and shown literally.

    >>> _short_reason("Does not apply: lambda_D = 0 is 0 (K/n has rank < D); lower D.")
    'lambda_D = 0 is 0'
    """
    reason = re.sub(r"^\s*does not apply:\s*", "", str(note or "no reason given"), flags=re.IGNORECASE)
    reason = re.split(r" \(|; |\. ", reason, maxsplit=1)[0].strip().rstrip(".")
    return "<br>".join(textwrap.wrap(user_text(reason), 2 * _LABEL_WIDTH, break_long_words=False)) or "?"


def _finite_or_none(v):
    if v is None:
        return None
    v = float(v)
    return v if np.isfinite(v) and v > 0 else None


def bounds_curves_figure(rows: Sequence[Mapping], *, current_ell: float | None = None) -> go.Figure:
    """Bounds over ell: one panel per theorem, one line per kind of value.

    Parameters
    ----------
    rows : sequence of mapping
        Tidy rows with keys ``ell``, ``theorem`` and the kinds ``a_priori``,
        ``a_posteriori``, ``measured`` (None/NaN where absent).
    current_ell : float or None
        Marked with a vertical line.

    Returns
    -------
    go.Figure

    Examples
    --------
    >>> rows = [{"ell": e, "theorem": "5.1", "a_priori": 1 / e, "a_posteriori": None, "measured": 0.1 / e}
    ...         for e in (1.0, 2.0)]
    >>> [t.name for t in bounds_curves_figure(rows).data]
    ['a_priori', 'measured']
    """
    theorems = sorted({str(r["theorem"]) for r in rows})
    if not theorems:
        raise ValueError("rows is empty; compute the bounds at one ell at least.")
    ncols = min(2, len(theorems))
    nrows = int(np.ceil(len(theorems) / ncols))
    fig = make_subplots(rows=nrows, cols=ncols, subplot_titles=[f"Theorem {t}" for t in theorems],
                        horizontal_spacing=0.08, vertical_spacing=0.14)
    for p, th in enumerate(theorems):
        r, c = p // ncols + 1, p % ncols + 1
        sub = sorted((row for row in rows if str(row["theorem"]) == th), key=lambda row: row["ell"])
        for kind in _BOUND_KINDS:
            # Each kind may be known on its own grid (closed forms everywhere, measured values on a few ell).
            have = [row for row in sub if _finite_or_none(row.get(kind)) is not None]
            if not have:
                continue
            ell = np.array([row["ell"] for row in have], dtype=np.float64)
            vals = np.array([row[kind] for row in have], dtype=np.float64)
            fig.add_trace(go.Scatter(x=ell, y=vals, name=kind, mode="lines+markers", legendgroup=kind,
                                     showlegend=p == 0, line=dict(color=_BOUND_COLORS[kind])), r, c)
        fig.update_yaxes(**_log_axis([row.get(kind) for row in sub for kind in _BOUND_KINDS]), row=r, col=c)
        fig.update_xaxes(title_text="ell", row=r, col=c)
        if current_ell is not None:
            # A plain shape per panel: add_vline(row="all") walks every subplot for each call, far slower.
            suffix = "" if p == 0 else str(p + 1)
            fig.add_shape(type="line", x0=float(current_ell), x1=float(current_ell), y0=0, y1=1,
                          xref=f"x{suffix}", yref=f"y{suffix} domain", line=dict(color="gray", dash="dot"))
    fig.update_layout(height=max(380, 320 * nrows), margin=dict(l=40, r=10, t=50, b=40))
    return fig


def lines_over_ell(rows: Sequence[Mapping], *, y: str, title: str, yaxis_title: str | None = None,
                   color: str = "method", log_y: bool = False, current_ell: float | None = None) -> go.Figure:
    """A quantity over ell, one line per ``color`` value (a method, usually).

    Rows whose ``y`` is None or NaN (a method that failed at that ell) leave gaps.

    >>> rows = [{"ell": 1.0, "method": "a", "m": 3}, {"ell": 2.0, "method": "a", "m": 5}]
    >>> lines_over_ell(rows, y="m", title="m").data[0].y.tolist()
    [3.0, 5.0]
    """
    if not rows:
        raise ValueError("rows is empty; run the sweep over at least one ell.")
    fig = go.Figure()
    series = list(dict.fromkeys(str(r[color]) for r in rows))
    colors = method_colors(series)
    for s in series:
        sub = sorted((r for r in rows if str(r[color]) == s), key=lambda r: r["ell"])
        vals = np.array([np.nan if r.get(y) is None else r[y] for r in sub], dtype=np.float64)
        fig.add_trace(go.Scatter(x=[r["ell"] for r in sub], y=vals, name=s, mode="lines+markers",
                                 line=dict(color=colors[s])))
    if current_ell is not None:
        fig.add_vline(x=float(current_ell), line=dict(color="gray", dash="dot"))
    fig.update_layout(title=title, xaxis_title="ell", yaxis_title=yaxis_title or y,
                      margin=dict(l=40, r=10, t=50, b=40))
    if log_y:
        fig.update_yaxes(**_log_axis([v for t in fig.data for v in t.y]))
    return fig
