"""Shared style of the figure builders: colours, axes, escaping of user text, WebGL bookkeeping.

See :mod:`rskpca.plotting` for the conventions; this module holds the pieces every builder uses."""

from __future__ import annotations

import html
import textwrap
import zlib
from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go
from plotly.colors import sample_colorscale

from rskpca.evaluation.methods import METHODS
from rskpca.plotting._palette import PALETTE


def shadow_centers_text(m: int) -> str:
    """``"m shadow centers"``, in the singular for one (every title and note that counts them).

    >>> shadow_centers_text(1), shadow_centers_text(341)
    ('1 shadow center', '341 shadow centers')
    >>> shadow_centers_text(7890)
    '7,890 shadow centers'
    """
    return f"{m:,} shadow center{'' if m == 1 else 's'}"


def largest(values, limit: int) -> np.ndarray:
    """Positions of the ``limit`` largest ``values`` (ties to the earlier), in their given order: the heaviest
    centers a chart draws, the largest classes a legend keeps.

    >>> largest([1, 5, 2, 5, 3], 3).tolist()
    [1, 3, 4]
    """
    v = np.asarray(values, dtype=np.float64).ravel()
    if v.size <= limit:
        return np.arange(v.size)
    return np.sort(np.argsort(-v, kind="stable")[:limit])


#: Above this many points a scatter is drawn with WebGL.
WEBGL_THRESHOLD = 1000


_BOUND_KINDS = ("a_priori", "a_posteriori", "measured")
_BOUND_COLORS = {"a_priori": "#636EFA", "a_posteriori": "#EF553B", "measured": "#00CC96"}
#: The kinds as the legends name them (the tables keep the field names, as the CSV does).
_BOUND_NAMES = {"a_priori": "a-priori", "a_posteriori": "a-posteriori", "measured": "measured"}
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


#: Width in pixels a figure is drawn at in the app's wide layout, used to pick a height.
_TYPICAL_WIDTH = 900
#: Font size of the panel titles, and the width of one of their characters relative to it.
_TITLE_FONT = 14
_CHAR_WIDTH = 0.6
#: Panel titles are wrapped to fit a figure this many pixels wide (the app's main column on a laptop).
_TITLE_WIDTH = 760


def _title_chars(panel_fraction: float) -> int:
    """How many title characters fit over a panel taking ``panel_fraction`` of the figure's width."""
    return max(8, int(panel_fraction * (_TITLE_WIDTH - 40) / (_CHAR_WIDTH * _TITLE_FONT)))


def _panel_title(name: str, error: float | None, chars: int) -> str:
    """A panel's title (the method, and its alignment error), wrapped to ``chars`` characters a line.

    The error always has a line of its own, so the titles of a row read alike and the errors
    line up for comparison, short names or long.

    >>> _panel_title("Density-weighted Nystrom", 0.0071, 20)
    'Density-weighted<br>Nystrom<br>(err 0.007)'
    >>> _panel_title("Nystrom", 0.387, 20)
    'Nystrom<br>(err 0.387)'
    >>> _panel_title("Exact KPCA", None, 20)
    'Exact KPCA'
    """
    err = "" if error is None else f"(err {error:.3f})"
    lines = textwrap.wrap(name, chars, break_long_words=False, break_on_hyphens=False) or [name]
    return "<br>".join(user_text(line) for line in lines + ([err] if err else []))


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
    decades or more only the decades are labelled; over less, the ticks are listed, each a
    full number at the normal font size: every digit where that makes at most seven labels,
    else 1-2-5 steps, and three rounded values where no two digits fall inside. (Plotly's own
    ``dtick="D1"`` with complete minor labels drew them at a smaller size, and in the app's
    half-width spectra chart showed only one, "0.05", for eigenvalues 0.043-0.051.)

    >>> _log_axis([0.012, 0.058])["ticktext"]
    ['0.02', '0.03', '0.04', '0.05']
    >>> _log_axis([0.031, 0.038])["ticktext"]
    ['0.031', '0.034', '0.038']
    >>> _log_axis([0.001, 0.001])["ticktext"]
    ['0.001']
    >>> _log_axis([0.0431, 0.0496])["ticktext"]
    ['0.043', '0.046', '0.05']
    """
    v = np.asarray([x for x in np.ravel(np.asarray(values, dtype=object))
                    if x is not None and np.isfinite(float(x)) and float(x) > 0], dtype=np.float64)
    # "e" keeps 0.1 and 0.01 as they are and writes 1e-4 past that (not "100µ" nor 10^-1).
    axis = dict(type="log", exponentformat="e", automargin=True)
    if v.size == 0:
        return axis | dict(minorloglabels="none")
    lo, hi = float(v.min()), float(v.max())
    if hi < (1.0 + 1e-3) * lo:
        # one value (to 0.1%), e.g. a flat spectrum at a tiny sigma: Plotly's autorange put the lines
        # on the chart's top edge with no tick label at all; one labelled tick in a padded range
        mid = float(f"{np.sqrt(lo * hi):.3g}")
        return axis | dict(range=[np.log10(lo) - 0.1, np.log10(hi) + 0.1], tickmode="array", tickvals=[mid],
                           ticktext=[f"{mid:g}"], minorloglabels="none")
    decades_inside = int(np.floor(np.log10(hi)) - np.ceil(np.log10(lo))) + 1
    if decades_inside >= 2:
        return axis | dict(minorloglabels="none")
    digits = [float(f"{d * 10.0**k:.1g}") for k in range(int(np.floor(np.log10(lo))), int(np.floor(np.log10(hi))) + 1)
              for d in range(1, 10) if lo <= d * 10.0**k <= hi]
    if len(digits) > 7:
        digits = [v for v in digits if f"{v:.1e}"[0] in "125"]
    if len(digits) < 2:
        digits = sorted({float(f"{v:.2g}") for v in np.geomspace(lo, hi, 3)})
    return axis | dict(tickmode="array", tickvals=digits, ticktext=[f"{v:g}" for v in digits],
                       minorloglabels="none")


def _integer_step(max_value: float) -> int:
    """A 1-2-5 tick step of at least 1 giving about six ticks up to ``max_value``."""
    return next(m * 10**k for k in range(16) for m in (1, 2, 5) if max_value / (m * 10**k) <= 6)


def _count_axis(max_count: float) -> dict:
    """y-axis settings for counts: whole-number ticks from zero (never 0.5), about six of them."""
    return dict(tickformat="d", tick0=0, dtick=_integer_step(max_count), rangemode="tozero", automargin=True)


def signed_sqrt_colorscale(base: str = "RdBu_r", stops: int = 41) -> list:
    """A diverging colour scale whose colour moves as the square root of the value's size.

    For a difference shown on one symmetric scale across frames (the density scrubber's
    ShDE - KDE, whose largest frame, ell = 1, sets the scale), a linear scale turned the
    later frames, ten times smaller, all white: here a value at 1% of the range is coloured
    as one at 10% would be linearly. The colour bar's ticks stay the values.

    >>> scale = signed_sqrt_colorscale(stops=5)
    >>> [p for p, _ in scale], scale[2][1]
    ([0.0, 0.25, 0.5, 0.75, 1.0], 'rgb(247, 247, 247)')
    """
    positions = np.linspace(0.0, 1.0, stops)
    t = 2.0 * positions - 1.0
    q = 0.5 + 0.5 * np.sign(t) * np.sqrt(np.abs(t))
    colors = sample_colorscale(base, [float(v) for v in q])
    return [[float(p), c] for p, c in zip(positions, colors)]


def colour_bar(title: str) -> dict:
    """A continuous colouring's colour bar: the lower 60 % of the right margin, under the legend (rows,
    centers, eps-discs) that holds its top, so that neither is drawn over the other.

    >>> colour_bar("target")["yanchor"]
    'bottom'
    """
    return dict(title=dict(text=title), exponentformat="e", len=0.6, y=0.0, yanchor="bottom")


def user_text(text) -> str:
    """User text (a column name, a class value) made safe for Plotly, which renders some HTML in labels.

    Entities are shown literally, and ``%`` cannot start a hover-template variable.

    >>> user_text("<b>x</b> %{y}")
    '&lt;b&gt;x&lt;/b&gt; &#37;{y}'
    """
    return html.escape(str(text), quote=False).replace("%", "&#37;")


def _scatter_type(n_points: int):
    return go.Scattergl if n_points > WEBGL_THRESHOLD else go.Scatter


def _padded_ranges(arrays, columns: int, pad: float = 0.05) -> list[list[float]]:
    """One ``[low, high]`` per column over every array, widened by ``pad`` of its span: an axis range
    that holds all of them (panels or frames on one scale).

    >>> _padded_ranges([np.array([[0.0, 1.0]]), np.array([[10.0, 1.0]])], 2)
    [[-0.5, 10.5], [0.95, 1.05]]
    """
    # Column by column: numpy reduces one strided column of a million rows some 50x faster than the
    # (n, columns) block along axis 0.
    lo = np.array([min(float(A[:, j].min()) for A in arrays) for j in range(columns)])
    hi = np.array([max(float(A[:, j].max()) for A in arrays) for j in range(columns)])
    margin = pad * np.where(hi > lo, hi - lo, 1.0)
    return [[float(a), float(b)] for a, b in zip(lo - margin, hi + margin)]


def _subplot_grid(nrows: int, ncols: int, titles: Sequence[str], *, horizontal_spacing: float,
                  vertical_spacing: float, scenes: bool = False, title_size: int = 16) -> tuple[dict, list[dict]]:
    """``make_subplots``'s layout of a plain grid as a dict, and each cell's trace references (row-major).

    The same domains, anchors and title annotations as ``make_subplots(rows, cols,
    subplot_titles=titles, horizontal_spacing=, vertical_spacing=)`` (with ``specs`` of
    scenes when ``scenes``), built without plotly's validation: for the charts redrawn on
    every ell change, where ``make_subplots`` and the per-panel updates after it are most of
    the figure's build (``python tests/benchmarks/bench_latency.py --profile`` shows it).

    >>> layout, refs = _subplot_grid(1, 2, ["a", "b"], horizontal_spacing=0.1, vertical_spacing=0.1)
    >>> layout["xaxis2"], refs[1]
    ({'anchor': 'y2', 'domain': [0.55, 1.0]}, {'xaxis': 'x2', 'yaxis': 'y2'})
    """
    width = (1.0 - horizontal_spacing * (ncols - 1)) / ncols
    height = (1.0 - vertical_spacing * (nrows - 1)) / nrows
    layout, refs, annotations = {}, [], []
    for row in range(nrows):
        for col in range(ncols):
            k = row * ncols + col + 1
            suffix = "" if k == 1 else str(k)
            x0 = col * (width + horizontal_spacing)
            y0 = (nrows - 1 - row) * (height + vertical_spacing)
            x, y = [x0, min(1.0, x0 + width)], [y0, min(1.0, y0 + height)]
            if scenes:
                layout[f"scene{suffix}"] = {"domain": {"x": x, "y": y}}
                refs.append({"scene": f"scene{suffix}"})
            else:
                layout[f"xaxis{suffix}"] = {"anchor": f"y{suffix}", "domain": x}
                layout[f"yaxis{suffix}"] = {"anchor": f"x{suffix}", "domain": y}
                refs.append({"xaxis": f"x{suffix}", "yaxis": f"y{suffix}"})
            if k <= len(titles) and titles[k - 1]:  # as make_subplots: no annotation for an empty title
                annotations.append({"font": {"size": title_size}, "showarrow": False, "text": titles[k - 1],
                                    "x": (x[0] + x[1]) / 2, "xanchor": "center", "xref": "paper", "y": y[1],
                                    "yanchor": "bottom", "yref": "paper"})
    layout["annotations"] = annotations
    return layout, refs


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
    fig = go.Figure(fig)  # a copy: the axis defaults below are the download's, not the caller's
    # exponents as "1e-15", not SI prefixes ("1f"), where the figure sets none (as the app's live charts)
    for axes in (fig.for_each_xaxis, fig.for_each_yaxis):
        axes(lambda axis: axis.update(exponentformat="e") if axis.exponentformat is None else None)
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


def class_color_marker(codes, colors) -> dict:
    """Marker colours for integer codes 0..len(colors)-1 (classes), each its colour of ``colors``.

    The colours travel as small numbers (float32, base64 in the JSON) with a stepped colour
    scale, not as one colour string per point: plotly validates each string, a cost that grows
    with the points, and the JSON grows by about ten bytes per point.

    Each code sits in the middle of its band, not on an edge: plotly.js places edge k at
    ``cmin + (k / ncol) (cmax - cmin)``, which rounds (at 60 colours, ``(31 / 60) * 60`` is
    31.000000000000004), and a code on an edge that rounds up takes the colour below it.

    >>> m = class_color_marker([0, 2], ["#000000", "#111111", "#222222"])
    >>> m["color"].tolist(), (m["cmin"], m["cmax"]), m["colorscale"][4]
    ([0.0, 2.0], (-0.5, 2.5), [0.6666666666666666, '#222222'])
    """
    ncol = len(colors)
    colorscale = [[edge, c] for i, c in enumerate(colors) for edge in (i / ncol, (i + 1) / ncol)]
    return dict(color=np.asarray(codes).astype(np.float32), colorscale=colorscale, cmin=-0.5, cmax=ncol - 0.5)


def cyclic_color_marker(codes) -> dict:
    """Marker colours for integer codes (shadow sets), cycling through :data:`PALETTE` (:func:`class_color_marker`).

    >>> m = cyclic_color_marker([0, 1, 31])
    >>> m["color"].tolist(), m["cmin"], m["cmax"] == len(PALETTE) - 0.5
    ([0.0, 1.0, 1.0], -0.5, True)
    """
    return class_color_marker(np.asarray(codes) % len(PALETTE), PALETTE)

