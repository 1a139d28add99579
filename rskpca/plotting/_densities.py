"""Figures of the KDE and the ShDE: on a grid (three panels: KDE, ShDE, their difference), along a line,
at the data points, and the histogram of their differences."""

from __future__ import annotations

import copy
from collections.abc import Sequence
from functools import lru_cache

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from rskpca.plotting._data import counts_histogram
from rskpca.plotting._selection import highlight_rows
from rskpca.plotting._style import (
    _TYPICAL_WIDTH,
    _as_2d,
    _check_len,
    _row_ids,
    _scatter_type,
    user_text,
)

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
    layout = copy.deepcopy(_curve_grid())
    # Each title set off from its own tick labels, the margin grown to fit both: a fixed 40 px
    # margin put "difference" over labels such as "0.004" (and "density" past the edge).
    titles = dict(automargin=True, title=dict(standoff=8))
    layout["yaxis"].update(titles, title=dict(text="density", standoff=8))
    layout["yaxis2"].update(titles, title=dict(text="difference", standoff=8))
    layout["xaxis2"]["title"] = dict(text=user_text(xaxis_title))
    layout.update(title=dict(text=title), margin=dict(l=40, r=10, t=50, b=40))
    # Traces and layout as plain dicts, made into a figure once (redrawn on every ell change).
    data = [dict(type="scatter", x=t, y=kde, name="KDE", mode="lines", line=dict(width=3), xaxis="x", yaxis="y"),
            dict(type="scatter", x=t, y=shde, name="ShDE", mode="lines", line=dict(dash="dash"), xaxis="x",
                 yaxis="y"),
            dict(type="scatter", x=t, y=shde - kde, name="ShDE - KDE", mode="lines", line=dict(color="#EF553B"),
                 xaxis="x2", yaxis="y2")]
    return go.Figure(dict(data=data, layout=layout))


@lru_cache(maxsize=1)
def _curve_grid() -> dict:
    """``make_subplots``' layout of the density and difference panels (shared x), without its template."""
    layout = make_subplots(rows=2, cols=1, shared_xaxes=True, row_heights=[0.7, 0.3],
                           vertical_spacing=0.06).layout.to_plotly_json()
    layout.pop("template", None)
    return layout


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
    return counts_histogram(e, nbins=nbins, name="error", title=title, xaxis_title="ShDE - KDE", yaxis_title="points")
