"""Time against n: exact KPCA measured at growing n, its fitted power law, its time predicted at the full n.

The Speedups page's scaling chart (:mod:`rskpca.evaluation.scaling` makes the rows). Measured points
are filled markers on solid lines; the power law is a dashed line and the prediction at the full n
an open star, both named "predicted" in the legend and the hover text, so a number that was not
measured never looks like one that was.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import plotly.graph_objects as go

from rskpca.plotting._style import _log_axis, method_colors

__all__ = ["scaling_figure"]

_EXACT, _RSKPCA = "Exact KPCA", "ShDE + RSKPCA"
_STAGES = {"fit": ("fit", "Fit time"), "project": ("project", "Projection time")}


def scaling_figure(rows: Sequence[Mapping], *, stage: str = "fit", law: tuple[float, float] | None = None,
                   title: str | None = None, eval_rows: int | None = None, predicted_by: str | None = None
                   ) -> go.Figure:
    """Seconds against n on log-log axes for exact KPCA and RSKPCA.

    Parameters
    ----------
    rows : sequence of mappings
        :func:`rskpca.evaluation.scaling.scaling_table`'s rows: ``n``, ``exact_kpca`` ("measured" or
        "predicted"), ``exact_<stage>_s``, ``rskpca_<stage>_s``.
    stage : {"fit", "project"}
        Which times to draw.
    law : (a, b) or None
        Exact KPCA's power law ``t = a n^b`` for this stage, drawn dashed from the smallest n to the largest.
    title : str or None
        The chart's title (a default names the stage).
    eval_rows : int or None
        How many new rows the projection times are for (said on the axis).
    predicted_by : str or None
        How the predicted rows' times were predicted, when not by ``law`` (said in the star's legend entry).

    Returns
    -------
    go.Figure

    Examples
    --------
    >>> rows = [{"n": 1000, "exact_kpca": "measured", "exact_fit_s": 0.1, "rskpca_fit_s": 0.01},
    ...         {"n": 2000, "exact_kpca": "measured", "exact_fit_s": 0.4, "rskpca_fit_s": 0.02},
    ...         {"n": 10**6, "exact_kpca": "predicted", "exact_fit_s": 1e5, "rskpca_fit_s": 1.0}]
    >>> fig = scaling_figure(rows, law=(1e-7, 2.0))
    >>> [t.name for t in fig.data]  # doctest: +NORMALIZE_WHITESPACE
    ['Exact KPCA, measured', 'Exact KPCA, power law t = 1e-07 n^2 (predicted)',
     'Exact KPCA at n = 1,000,000, predicted', 'ShDE + RSKPCA, measured']
    >>> fig.data[2].marker.symbol, fig.data[1].line.dash
    ('star-open', 'dash')
    """
    if stage not in _STAGES:
        raise ValueError(f"stage must be one of {sorted(_STAGES)}; got {stage!r}.")
    if not rows:
        raise ValueError("rows is empty: time at least one size.")
    key, what = _STAGES[stage]
    rows = sorted(rows, key=lambda r: r["n"])
    colors = method_colors([_EXACT, _RSKPCA])

    def values(sub, column):
        return np.array([np.nan if r.get(column) is None else float(r[column]) for r in sub], dtype=np.float64)

    measured = [r for r in rows if r["exact_kpca"] == "measured"]
    # (a prediction not made, e.g. no power law for the projection, gets no star: a legend entry with no point)
    predicted = [r for r in rows if r["exact_kpca"] == "predicted" and np.isfinite(values([r], f"exact_{key}_s")[0])]
    hover = "n = %{x:,}<br>%{y:.3g} s<extra>%{fullData.name}</extra>"
    # Traces and layout as plain dicts, made into a figure once: plotly validates each part once, where every
    # update_layout / update_axes call validates the layout again
    traces = [dict(type="scatter", x=[r["n"] for r in measured], y=values(measured, f"exact_{key}_s"),
                   name=f"{_EXACT}, measured", mode="lines+markers", hovertemplate=hover,
                   line=dict(color=colors[_EXACT]), marker=dict(symbol="circle", size=8))]
    if law is not None:
        a, b = (float(v) for v in law)
        xs = np.geomspace(rows[0]["n"], rows[-1]["n"], 60)
        traces.append(dict(type="scatter", x=xs, y=a * xs**b,
                           name=f"{_EXACT}, power law t = {a:.3g} n^{b:.3g} (predicted)", mode="lines",
                           hovertemplate=hover, line=dict(color=colors[_EXACT], dash="dash")))
    if predicted:
        traces.append(dict(
            type="scatter", x=[r["n"] for r in predicted], y=values(predicted, f"exact_{key}_s"), mode="markers+text",
            name=", ".join(f"{_EXACT} at n = {r['n']:,}" for r in predicted) + ", predicted"
            + (f" ({predicted_by})" if predicted_by else ""),
            text=["predicted"] * len(predicted), textposition="top left", hovertemplate=hover,
            marker=dict(symbol="star-open", size=16, line=dict(width=2), color=colors[_EXACT])))
    timed = [r for r in rows if np.isfinite(values([r], f"rskpca_{key}_s")[0])]
    traces.append(dict(type="scatter", x=[r["n"] for r in timed], y=values(timed, f"rskpca_{key}_s"),
                       name=f"{_RSKPCA}, measured", mode="lines+markers", hovertemplate=hover,
                       line=dict(color=colors[_RSKPCA]), marker=dict(symbol="circle", size=8)))
    per = f" of {eval_rows:,} new rows" if eval_rows else ""
    y_axis = _log_axis([v for t in traces for v in t["y"]])
    y_axis["title"] = dict(text=f"{what.lower()}{per}, seconds")
    fig = go.Figure(data=traces, layout=dict(
        title=dict(text=title or f"{what}{per} against n (log-log)"), margin=dict(l=40, r=10, t=50, b=40),
        legend=dict(orientation="h", yanchor="top", y=-0.2),
        xaxis=_log_axis([v for t in traces for v in t["x"]]) | dict(title=dict(text="training rows n")),
        yaxis=y_axis))
    return fig
