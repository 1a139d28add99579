"""Bar charts of one number per method: errors, accuracies, speedups, and fit and predict times.

Apart from the scatters of :mod:`rskpca.plotting._method_comparison` (which re-exports these names): bars have
concerns of their own, every method name shown in full under or beside its bar, ratios drawn from a
baseline on a log axis, timings stacked or grouped by their parts.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import plotly.graph_objects as go

from rskpca.plotting._style import _MAX_COLUMNS, _category_axis, _log_axis, method_colors, user_text

__all__ = ["bar_figure", "fit_time_figure", "fit_predict_figure"]


def bar_figure(values: Mapping[str, float], *, title: str, yaxis_title: str, errors: Mapping[str, float] | None = None,
               log_y: bool = False, baseline: float | None = None, text_format: str = ".3g") -> go.Figure:
    """One bar per named value (alignment errors, accuracies, speedups), with optional error bars.

    A method keeps its colour of :func:`method_colors`, and every name is shown in full: wrapped
    under its bar, or, past :data:`_MAX_COLUMNS` bars (too narrow for their names), beside
    horizontal bars.

    Parameters
    ----------
    values : mapping of str to float
        Name to value.
    title, yaxis_title : str
        The chart's title and the value axis's title.
    errors : mapping of str to float or None
        Half-length of an error bar per name.
    log_y : bool, default=False
        A log value axis.
    baseline : float or None, default=None
        Where the bars start. None starts them at zero (linear axis) or at the axis's foot
        (log axis). A ratio such as a speedup passes 1 (with ``log_y``): every bar then
        starts at 1x, values above it point up, values below it (slowdowns) point down,
        and a line marks 1x. On a log axis a bar drawn from the foot of the axis would
        show 0.64x as a bar pointing up, like a speedup.
    text_format : str, default=".3g"
        Format of the value written at each bar.

    Returns
    -------
    go.Figure

    Examples
    --------
    >>> bar_figure({"a": 1.0, "b": 2.0}, title="t", yaxis_title="v").data[0].x
    ('a', 'b')
    >>> bar = bar_figure({"a": 4.0, "b": 0.5}, title="t", yaxis_title="x", log_y=True, baseline=1.0).data[0]
    >>> bar.base, bar.y.tolist()
    (1.0, [3.0, -0.5])
    """
    names = list(values)
    v = np.array([values[k] for k in names], dtype=np.float64)
    if baseline is not None and not (np.isfinite(baseline) and (baseline > 0 or not log_y)):
        raise ValueError(f"baseline must be a finite number (positive on a log axis); got {baseline!r}.")
    err = None if errors is None else dict(type="data", array=[errors.get(k, 0.0) for k in names])
    colors = method_colors(names)
    style = dict(marker_color=[colors[str(k)] for k in names], textposition="outside", cliponaxis=False,
                 text=[format(x, text_format) if np.isfinite(x) else "n/a" for x in v])
    if err is not None:
        # Above the bar the value would sit on its error bar: inside, at the foot of the bar.
        style.update(textposition="inside", insidetextanchor="start")
    # A bar spans base .. base + length; the hover label gives the value itself, not the length.
    lengths = v if baseline is None else v - baseline
    if baseline is not None:
        style.update(base=float(baseline), customdata=v)
    value_axis = _log_axis(v if baseline is None else np.append(v, baseline)) if log_y \
        else dict(rangemode="tozero", automargin=True)
    value_axis["title"] = dict(text=yaxis_title)
    horizontal = len(names) > _MAX_COLUMNS
    if baseline is not None:
        # Beside a horizontal bar the label is as long as the value's digits, and the axis is the
        # narrower one: more room, so the smallest value's label stays clear of the method names.
        value_axis["range"] = _padded_range(np.append(v, baseline), log=log_y, room=0.22 if horizontal else 0.12)
        style["hovertemplate"] = ("%{y}" if horizontal else "%{x}") + ": %{customdata:" + text_format + "}<extra></extra>"
    # Bar and layout as plain dicts, made into a figure once: plotly validates each part once.
    if horizontal:
        bar = dict(type="bar", y=names, x=lengths, error_x=err, orientation="h", **style)
        # The first name on top, as in a table.
        axes = dict(xaxis=value_axis, yaxis=_category_axis(names) | dict(ticktext=[user_text(n) for n in names],
                                                                         autorange="reversed"))
        height = 120 + 34 * len(names)
    else:
        bar = dict(type="bar", x=names, y=lengths, error_y=err, **style)
        axes = dict(xaxis=_category_axis(names), yaxis=value_axis)
        height = None
    shapes = []
    if baseline is not None:
        at = float(baseline)  # in data units, on a log axis too (plotly >= 6)
        line = dict(type="line", line=dict(color="#444", width=1.5), layer="above")
        shapes.append(dict(x0=at, x1=at, xref="x", y0=0, y1=1, yref="paper", **line) if horizontal
                      else dict(y0=at, y1=at, yref="y", x0=0, x1=1, xref="paper", **line))
    fig = go.Figure(data=[bar], layout=dict(title=dict(text=title), height=height,
                                            margin=dict(l=40, r=30, t=50, b=40), shapes=shapes, **axes))
    return fig


def _padded_range(values: np.ndarray, *, log: bool, room: float = 0.12) -> list[float]:
    """An axis range over ``values`` with room for the value labels at the bars' ends.

    Plotly's autorange does not read bars with a ``base`` on a log axis (it runs down to
    1e-60), so bars from a baseline get their range here, in the axis's own units (log10 on a
    log axis).
    """
    v = values[np.isfinite(values) & ((values > 0) if log else True)]
    t = np.log10(v) if log else v
    lo, hi = float(t.min()), float(t.max())
    pad = room * (hi - lo) or (0.3 if log else max(abs(hi), 1.0) * 0.3)
    return [lo - pad, hi + pad]


_FIT_PARTS = {"train_exact_kpca_s": ("exact KPCA part", "#AB63FA"),
              "train_construction_s": ("construction part", "#FFA15A")}


def fit_time_figure(rows: Sequence[Mapping], *, exact_seconds: float | None = None,
                    title: str = "Training time at this ell") -> go.Figure:
    """Training time per method as stacked bars: a fit that has parts shows them stacked.

    ``rows`` are :func:`rskpca.evaluation.compare.compare` rows (``method``, ``train_s``
    and, where known, ``train_exact_kpca_s`` / ``train_construction_s``).
    The reduced-set construction runs exact KPCA first, so its bar is the exact
    part plus the construction part; ``exact_seconds`` adds exact KPCA's own bar.

    >>> rows = [{"method": "A", "train_s": 1.0},
    ...         {"method": "B", "train_s": 3.0, "train_exact_kpca_s": 2.0, "train_construction_s": 1.0}]
    >>> [t.name for t in fit_time_figure(rows).data]
    ['whole fit', 'exact KPCA part', 'construction part']
    """
    names = ([] if exact_seconds is None else ["Exact KPCA"]) + [str(r["method"]) for r in rows]

    def parts_of(row) -> dict:
        parts = {k: float(row.get(k, float("nan"))) for k in _FIT_PARTS}
        return parts if all(np.isfinite(v) for v in parts.values()) else {}

    whole = ([] if exact_seconds is None else [exact_seconds]) + [
        None if parts_of(r) else float(r["train_s"]) for r in rows]
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
_FIT_PREDICT = (("train_s", "train", ""), ("test_s", "test", "/"))


def fit_predict_figure(results: Mapping[str, Mapping[str, float]], *, title: str = "Mean time per fold",
                       text_format: str = ".3g") -> go.Figure:
    """Training and test time per method, side by side: solid bars train (fit + embedding + classifier
    fit), hatched bars test (embedding + prediction).

    Each method keeps its colour of :func:`method_colors`; the legend says which bar is which.

    Parameters
    ----------
    results : mapping of str to mapping
        Method label to its timings, with keys ``train_s`` and ``test_s``
        (as :func:`rskpca.evaluation.classify.cross_validate_classifier` returns them).
    title : str, default="Mean time per fold"
    text_format : str, default=".3g"
        Format of the value written above each bar.

    Returns
    -------
    go.Figure

    Examples
    --------
    >>> fig = fit_predict_figure({"Exact KPCA": {"train_s": 0.02, "test_s": 0.01}})
    >>> [t.name for t in fig.data], fig.data[1].marker.pattern.shape
    (['train', 'test'], '/')
    """
    names = [str(k) for k in results]
    colors = method_colors(names)
    fig = go.Figure()
    for key, label, pattern in _FIT_PREDICT:
        missing = [name for name in names if key not in results[name]]
        if missing:
            raise ValueError(f"results[{missing[0]!r}] has no {key!r}; pass the train and test seconds of "
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
