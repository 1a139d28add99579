"""Ell scrubbers: figures whose frames over an ell grid are drawn in the browser, with no server round trip.

Each builder takes results precomputed at every ell of a grid and returns one
Plotly figure with a frame per ell and a slider (plus a play button). Dragging
the slider redraws in the browser at animation speed: the reduced set grows and
shrinks under the user's hand. A frame carries only what changes with ell (the
centers, the ShDE values, the RSKPCA coordinates); what does not (the data, the
KDE, exact KPCA) is drawn once in the base figure. Points are subsampled to a
budget and frames are sent as float32 arrays (base64 in Plotly's JSON), so the
figure stays small. Under the main panel a strip shows m/n over the grid with
the current frame marked; its points carry their ell in ``customdata``, so a
click on one can set the app's ell (the app handles the selection).

The figure depends only on the grid, not on the app's current ell, so
re-sending it unchanged costs nothing (Streamlit refers the browser to the copy
it already has).
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from functools import lru_cache

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from rskpca.core.row_draws import rows_within
from rskpca.plotting._colouring import as_colouring, center_sizes
from rskpca.plotting._density_drawing import MAX_CENTERS_DRAWN
from rskpca.plotting._style import (_TYPICAL_WIDTH, _as_2d, _padded_ranges, class_color_marker, largest,
                                    shadow_centers_text,
                                    signed_sqrt_colorscale, user_text)

__all__ = ["shadow_scrubber_figure", "density_scrubber_figure", "embedding_scrubber_figure",
           "SCRUB_POINTS", "SCRUB_CENTERS"]

#: Points drawn per frame at most (a seeded subsample above it; the chart says so).
SCRUB_POINTS = 2000
#: Centers drawn per frame at most (the heaviest ones; the frame's title says so): the row charts' number.
SCRUB_CENTERS = MAX_CENTERS_DRAWN


def _f32(a) -> np.ndarray:
    return np.ascontiguousarray(a, dtype=np.float32)


def _frame_name(ell: float) -> str:
    return f"{float(ell):g}"


@lru_cache(maxsize=None)
def _subplot_layout(two_panels: bool) -> dict:
    """The scrubbers' subplot grid, as a layout dict: one (or two) panels over the m/n strip.

    Made once, because ``make_subplots`` is a large share of a scrubber's build, which a sigma change
    pays again (the frames, traces and layout are plain dicts for the same reason: plotly's validation
    of 19 frames would be most of the rest; ``tests/test_plots.py`` validates them once; ``python
    tests/benchmarks/bench_latency.py --profile`` measures the build).
    """
    if two_panels:
        grid = make_subplots(rows=2, cols=2, row_heights=[0.78, 0.22], vertical_spacing=0.2,
                             specs=[[{}, {}], [{"colspan": 2}, None]], subplot_titles=("exact KPCA", "RSKPCA", ""))
    else:
        grid = make_subplots(rows=2, cols=1, row_heights=[0.78, 0.22], vertical_spacing=0.2)
    layout = grid.layout.to_plotly_json()
    layout.pop("template", None)  # the figure's own default, as for any figure
    return layout


def _axis(layout: dict, name: str, **props) -> None:
    """Merge ``props`` into the layout's axis ``name`` ("xaxis", "yaxis2", ...)."""
    layout.setdefault(name, {}).update(props)


def _with_scrubber(layout: dict, traces: list, ells, retained, frame_data, frame_traces, titles, *,
                   strip: str, active: int = 0) -> go.Figure:
    """Add the m/n strip (on axes ``x{strip}``/``y{strip}``), one frame per ell, the slider and a play button."""
    ells = np.asarray(ells, dtype=np.float64)
    retained = np.asarray(retained, dtype=np.float64)
    on_strip = dict(xaxis=f"x{strip}", yaxis=f"y{strip}")
    traces.append(dict(type="scatter", x=ells, y=retained, mode="lines+markers",
                       name="m/n over ell (click: use this ell)", customdata=ells,
                       marker=dict(size=9, color="#3b5bdb"), line=dict(color="#3b5bdb"),
                       hovertemplate="ell %{x:.3~g}: m/n %{y:.1%}<br>click to use this ell<extra></extra>",
                       **on_strip))
    traces.append(dict(type="scatter", x=[float(ells[active])], y=[float(retained[active])], mode="markers",
                       name="this frame", marker=dict(size=16, color="rgba(0,0,0,0)",
                                                      line=dict(color="#e03131", width=3)),
                       hoverinfo="skip", **on_strip))
    marker_trace = len(traces) - 1
    frames = [dict(name=_frame_name(ell), data=list(frame_data[i]) + [dict(type="scatter", x=[float(ell)],
                                                                           y=[float(retained[i])])],
                   traces=list(frame_traces) + [marker_trace], layout=dict(title=dict(text=titles[i])))
              for i, ell in enumerate(ells)]
    step_args = dict(mode="immediate", frame=dict(duration=0, redraw=True), transition=dict(duration=0))
    layout.update(
        title=dict(text=titles[active]),
        sliders=[dict(active=active, currentvalue=dict(prefix="ell = ", font=dict(size=14)), pad=dict(t=40),
                      steps=[dict(method="animate", label=_frame_name(ell), args=[[_frame_name(ell)], step_args])
                             for ell in ells])],
        updatemenus=[dict(type="buttons", direction="left", x=0.0, y=-0.02, xanchor="right", yanchor="top",
                          pad=dict(t=40, r=10), showactive=False,
                          buttons=[dict(label="Play", method="animate",
                                        args=[None, dict(mode="immediate", fromcurrent=True,
                                                         frame=dict(duration=250, redraw=True),
                                                         transition=dict(duration=0))]),
                                   dict(label="Pause", method="animate",
                                        args=[[None], dict(mode="immediate", frame=dict(duration=0, redraw=False),
                                                           transition=dict(duration=0))])])],
        margin=dict(l=40, r=10, t=60, b=40), showlegend=False, height=540,
        # the mode bar down the right edge: across the top it would cover the end of the frame's title,
        # where the number the user reads (the alignment error) is
        modebar=dict(orientation="v"),
    )
    # m/n is a fraction: a flat strip (m = n at every ell) gets a fixed range, since Plotly's autorange
    # would run it from 0% to 200%, past the most m/n can be
    low, high = float(retained.min()), float(retained.max())
    flat = dict(range=[max(0.0, low - 0.1), min(1.05, high + 0.05)]) if high - low < 1e-3 else {}
    _axis(layout, f"yaxis{strip}", title=dict(text="m / n"), tickformat=".0%", nticks=4, **flat)
    strip_range = _strip_range(ells)
    _axis(layout, f"xaxis{strip}", title=dict(text="ell"), **({} if strip_range is None else dict(range=strip_range)))
    return go.Figure(dict(data=traces, layout=layout, frames=frames), _validate=False)


#: Pixels between the ends of a Plotly slider's rail and its first and last steps (plotly.js
#: ``sliders`` constants: ``stepInset``).
_SLIDER_STEP_INSET = 10


def _strip_range(ells, width_px: int = _TYPICAL_WIDTH - 50):
    """The strip's x range that puts each ell above its step of the slider below it.

    The slider spans the plot area and places its steps evenly from ``stepInset`` pixels
    inside either end; with the grid's evenly spaced ells, the strip's points line up with
    them when its range reaches that far past the first and last ell. (Autorange pads by a
    marker's width instead, which sets each ell visibly off its slider step.)
    ``width_px``: the plot area's usual width (the figure's, less its margins); at other
    widths the ends are off by at most 2.5 px (from 700 to 1050 px wide).

    >>> [round(v, 3) for v in _strip_range([1.0, 10.0], width_px=920)]
    [0.9, 10.1]
    """
    first, last = float(ells[0]), float(ells[-1])
    if last <= first:
        return None
    pad = (last - first) * _SLIDER_STEP_INSET / (width_px - 2 * _SLIDER_STEP_INSET)
    return [first - pad, last + pad]


def _check_frames(frames) -> list[dict]:
    frames = list(frames)
    if not frames:
        raise ValueError("frames is empty: pass one result per ell of the grid.")
    return frames


def shadow_scrubber_figure(X2, frames: Sequence[dict], *, axis_titles: Sequence[str] = ("x1", "x2"),
                           projected: bool = False, max_points: int = SCRUB_POINTS,
                           max_centers: int = SCRUB_CENTERS, active: int = 0) -> go.Figure:
    """The data with the shadow centers of every ell on a grid, one frame per ell.

    Parameters
    ----------
    X2 : array-like of shape (n, 1) or (n, 2)
        Coordinates drawn (the data, or its first principal axes).
    frames : sequence of dict
        One per ell, in order, with keys ``ell``, ``center_indices`` (rows of
        ``X2``) and ``weights`` (points absorbed per center).
    axis_titles : sequence of str, default=("x1", "x2")
    projected : bool, default=False
        Whether ``X2`` is a projection (said in the titles).
    max_points, max_centers : int
        Drawing budgets: a seeded subsample of the points, the heaviest centers.
    active : int, default=0
        The frame shown first.

    Returns
    -------
    go.Figure

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0.0, 0.0], [0.1, 0.0], [2.0, 0.0]])
    >>> fig = shadow_scrubber_figure(X, [dict(ell=1.0, center_indices=[0, 2], weights=[2, 1]),
    ...                                  dict(ell=2.0, center_indices=[0, 1, 2], weights=[1, 1, 1])])
    >>> [f.name for f in fig.frames], len(fig.frames[1].data[0].x), len(fig.layout.sliders[0].steps)
    (['1', '2'], 3, 2)
    """
    X2 = _as_2d(X2, "X2")
    n = X2.shape[0]
    if X2.shape[1] == 1:
        X2 = np.column_stack([X2[:, 0], np.zeros(n)])
    X2 = X2[:, :2]
    frames = _check_frames(frames)
    rows = rows_within(n, max_points, np.random.default_rng(0))
    layout = copy.deepcopy(_subplot_layout(False))
    traces = [dict(type="scattergl", x=_f32(X2[rows, 0]), y=_f32(X2[rows, 1]), mode="markers", name="points",
                   marker=dict(size=4, color="#adb5bd", opacity=0.6), hoverinfo="skip", xaxis="x", yaxis="y")]
    data, titles, retained = [], [], []
    sampled = f"; {rows.size:,} of {n:,} points drawn" if rows.size < n else ""
    where = " on the first two principal axes" if projected else ""
    for fr in frames:
        idx = np.asarray(fr["center_indices"], dtype=np.intp)
        w = np.asarray(fr["weights"], dtype=np.float64)
        if idx.shape != w.shape:
            raise ValueError(f"frame at ell = {fr['ell']:g}: center_indices and weights differ in length.")
        keep = largest(w, max_centers)
        shown = idx[keep]
        size = center_sizes(w)[keep]  # as in the Shadow centers chart: sized among all m, bounded
        data.append([dict(type="scattergl", x=_f32(X2[shown, 0]), y=_f32(X2[shown, 1]), marker=dict(size=_f32(size)))])
        capped = f"the {max_centers:,} heaviest centers drawn" if idx.size > max_centers else ""
        # What was drawn goes on a second, smaller line, so that the title fits a half-width chart
        # instead of running past both of its edges and losing ell and m at the start.
        details = "; ".join(part for part in (where.strip(), capped, sampled.strip("; ")) if part)
        titles.append(f"ell = {fr['ell']:g}: m = {shadow_centers_text(idx.size)}, {idx.size / n:.1%} of n"
                      + (f"<br><span style='font-size:12px'>{details}</span>" if details else ""))
        retained.append(idx.size / n)
    first = data[active][0]
    traces.append(dict(type="scattergl", x=first["x"], y=first["y"], mode="markers", name="centers",
                       marker=dict(size=first["marker"]["size"], color="rgba(59,91,219,0.25)",
                                   line=dict(color="#1c2f8c", width=1.2)),
                       hovertemplate="center<extra></extra>", xaxis="x", yaxis="y"))
    _axis(layout, "xaxis", title=dict(text=user_text(axis_titles[0])))
    _axis(layout, "yaxis", title=dict(text=user_text(axis_titles[1]) if len(axis_titles) > 1 else ""))
    return _with_scrubber(layout, traces, [fr["ell"] for fr in frames], retained, data, [1], titles, strip="2",
                          active=active)


def density_scrubber_figure(frames: Sequence[dict], *, kde, gx=None, gy=None, active: int = 0,
                            axis_titles: Sequence[str] = ("x1", "x2"), note: str = "") -> go.Figure:
    """The ShDE at every ell of a grid against the KDE, one frame per ell.

    With ``gx`` and ``gy`` the densities are grids of shape (len(gy), len(gx))
    and each frame is a heatmap of ShDE - KDE; with ``gx`` alone they are
    curves over ``gx``; otherwise they are values at data points and each
    frame is ShDE against KDE (the diagonal is a perfect match).

    Parameters
    ----------
    frames : sequence of dict
        One per ell with keys ``ell``, ``shde`` (same shape as ``kde``) and ``m``.
    kde : array-like
        The KDE (independent of ell), drawn once.
    gx, gy : array-like or None
    active : int, default=0
    axis_titles : sequence of str
    note : str
        Appended to every frame's title (e.g. a subsample).

    Returns
    -------
    go.Figure

    Examples
    --------
    >>> import numpy as np
    >>> fig = density_scrubber_figure([dict(ell=1.0, shde=np.zeros(3), m=1, n=3),
    ...                                dict(ell=2.0, shde=np.ones(3), m=3, n=3)], kde=np.ones(3))
    >>> len(fig.frames), fig.frames[1].data[0].type
    (2, 'scattergl')
    """
    frames = _check_frames(frames)
    kde = np.asarray(kde, dtype=np.float64)
    layout = copy.deepcopy(_subplot_layout(False))
    traces, data = [], []
    on_main = dict(xaxis="x", yaxis="y")
    if gx is not None and gy is not None:
        lim = max(float(np.max(np.abs(np.asarray(fr["shde"]) - kde))) for fr in frames) or 1.0
        for fr in frames:
            data.append([dict(type="heatmap", z=_f32(np.asarray(fr["shde"]) - kde))])
        # The bar's title goes under it, clear of the mode bar above.
        bar = dict(len=0.75, y=0.62, exponentformat="e", title=dict(text="ShDE - KDE", side="bottom"))
        traces.append(dict(type="heatmap", x=_f32(gx), y=_f32(gy), z=data[active][0]["z"], zmin=-lim, zmax=lim,
                           colorscale=signed_sqrt_colorscale(), colorbar=bar, name="ShDE - KDE",
                           hovertemplate="(%{x:.3g}, %{y:.3g})<br>ShDE - KDE %{z:.3g}<extra></extra>", **on_main))
        _axis(layout, "xaxis", title=dict(text=user_text(axis_titles[0])))
        _axis(layout, "yaxis", title=dict(text=user_text(axis_titles[1])))
        what = "ShDE - KDE on the grid (one colour scale for every frame, stretched near 0)"
    elif gx is not None:
        traces.append(dict(type="scatter", x=_f32(gx), y=_f32(kde), mode="lines", name="KDE", line=dict(width=3),
                           **on_main))
        for fr in frames:
            data.append([dict(type="scatter", y=_f32(fr["shde"]))])
        traces.append(dict(type="scatter", x=_f32(gx), y=data[active][0]["y"], mode="lines", name="ShDE",
                           line=dict(dash="dash"), **on_main))
        _axis(layout, "xaxis", title=dict(text=user_text(axis_titles[0])))
        _axis(layout, "yaxis", title=dict(text="density"))
        what = "KDE (solid) and ShDE (dashed)"
    else:
        top = max(float(kde.max(initial=0.0)), max(float(np.max(fr["shde"])) for fr in frames))
        traces.append(dict(type="scatter", x=[0, top], y=[0, top], mode="lines", name="ShDE = KDE",
                           line=dict(color="gray", dash="dot"), **on_main))
        for fr in frames:
            data.append([dict(type="scattergl", y=_f32(fr["shde"]))])
        traces.append(dict(type="scattergl", x=_f32(kde), y=data[active][0]["y"], mode="markers", name="data points",
                           marker=dict(size=4, opacity=0.6), hoverinfo="skip", **on_main))
        _axis(layout, "xaxis", title=dict(text="KDE"))
        _axis(layout, "yaxis", title=dict(text="ShDE"), range=[0, top * 1.05])
        what = "ShDE against KDE at the data points"
    # "ell = X: ..." as the other scrubbers' titles begin, so the frames of every scrubber read alike
    titles = [f"ell = {fr['ell']:g}: m = {shadow_centers_text(fr['m'])}, {what}{note}" for fr in frames]
    retained = [fr["m"] / fr["n"] for fr in frames]
    animated = len(traces) - 1  # the trace just added is the one the frames update
    return _with_scrubber(layout, traces, [fr["ell"] for fr in frames], retained, data, [animated], titles,
                          strip="2", active=active)


def embedding_scrubber_figure(exact, frames: Sequence[dict], *, y=None, active: int = 0, note: str = "",
                              method_label: str = "RSKPCA") -> go.Figure:
    """Exact KPCA beside RSKPCA at every ell of a grid (aligned to exact KPCA), one frame per ell.

    Parameters
    ----------
    exact : array-like of shape (n, >=2)
        Exact KPCA's coordinates (drawn once).
    frames : sequence of dict
        One per ell with keys ``ell``, ``embedding`` (shape (n, >=2), aligned),
        ``m``, ``n`` and optionally ``error`` (relative alignment error).
    y : array-like of shape (n,), Colouring or None
        Class labels for colours, or their :func:`~rskpca.plotting.colouring` (a ``subset`` of the page's,
        so that a class has the colour it has in the page's other charts).
    active : int, default=0
    note : str
        Appended to every frame's title.
    method_label : str, default="RSKPCA"

    Returns
    -------
    go.Figure

    Examples
    --------
    >>> import numpy as np
    >>> E = np.eye(3)[:, :2]
    >>> fig = embedding_scrubber_figure(E, [dict(ell=1.0, embedding=E, m=2, n=3)])
    >>> len(fig.frames), [t.name for t in fig.data][:2]
    (1, ['exact KPCA', 'RSKPCA'])
    """
    frames = _check_frames(frames)
    E = _as_2d(exact, "exact")  # not a method name: the argument's
    if E.shape[1] < 2:
        raise ValueError("exact needs at least 2 components to draw an embedding.")
    colour = as_colouring(y, E.shape[0])
    if colour is None:
        color = dict(color="#3b5bdb")
    elif colour.continuous:
        color = dict(color=colour.values.astype(np.float32), colorscale="Viridis")
    else:  # the classes' colours of every other row chart (rskpca.plotting.colouring)
        color = class_color_marker(colour.codes, colour.colors)
    layout = copy.deepcopy(_subplot_layout(True))
    layout["annotations"][1]["text"] = method_label  # the second panel's title
    marker = dict(size=4, opacity=0.7, **color)
    traces = [dict(type="scattergl", x=_f32(E[:, 0]), y=_f32(E[:, 1]), mode="markers", name="exact KPCA",
                   marker=marker, hoverinfo="skip", xaxis="x", yaxis="y")]
    embeddings = [_as_2d(fr["embedding"], "embedding") for fr in frames]
    data = [[dict(type="scattergl", x=_f32(F[:, 0]), y=_f32(F[:, 1]))] for F in embeddings]
    traces.append(dict(type="scattergl", x=data[active][0]["x"], y=data[active][0]["y"], mode="markers",
                       name=method_label, marker=marker, hoverinfo="skip", xaxis="x2", yaxis="y2"))
    # The approximation's axes follow exact KPCA's, so the eye compares like with like, over a range
    # that holds every frame: frames do not autorange, so the opening frame's range alone would cut
    # the points of other frames (ell = 1's spread widest) off the chart.
    x_range, y_range = _padded_ranges([E, *embeddings], 2)
    _axis(layout, "xaxis", range=x_range)
    _axis(layout, "yaxis", range=y_range)
    _axis(layout, "xaxis2", matches="x")
    _axis(layout, "yaxis2", matches="y")
    titles = []
    for fr in frames:
        err = f", alignment error {fr['error']:.3g}" if fr.get("error") is not None else ""
        # the rows named: a scrubber on a sample has an n (and an error) of its own beside the page's
        titles.append(f"ell = {fr['ell']:g}: {method_label} on m = {fr['m']:,} centers ({fr['m'] / fr['n']:.1%} "
                      f"of its {fr['n']:,} rows){err}{note}")
    retained = [fr["m"] / fr["n"] for fr in frames]
    return _with_scrubber(layout, traces, [fr["ell"] for fr in frames], retained, data, [1], titles, strip="3",
                          active=active)
