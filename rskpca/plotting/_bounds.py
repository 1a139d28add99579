"""Figures of the error bounds and of quantities over ell."""

from __future__ import annotations

import re
import textwrap
from collections.abc import Mapping, Sequence

import numpy as np
import plotly.graph_objects as go

from rskpca.bounds import THEOREMS
from rskpca.plotting._style import (
    _BOUND_COLORS,
    _BOUND_KINDS,
    _BOUND_NAMES,
    _log_axis,
    _subplot_grid,
    method_colors,
    user_text,
)


#: Characters per line of a "does not apply" note: it stands over two of its group's three bar slots.
_NOTE_WIDTH = 22

# --------------------------------------------------------------------------- bounds and sweeps

#: Values below this fraction of the largest one in a bounds chart are 0 up to float64 rounding.
ROUNDING_FLOOR = 1e-12


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
    (['a-priori', 'a-posteriori', 'measured'], 'bound does not apply:<br>the gap is 0')
    >>> fig = bounds_figure([{"theorem": "5.2", "a_priori": 0.5, "a_posteriori": 0.0, "measured": 1e-32}])
    >>> fig.data[2].y
    (None,)
    >>> for line in fig.layout.title.text.split("<br>"):
    ...     print(line.removeprefix("<sup>").removesuffix("</sup>"))
    Bounds and measured values at the current ell
    not drawn (0, or below 1e-12 of the largest value): a-posteriori of Thm 5.2; measured of
    Thm 5.2
    """
    theorems = [f"Thm {r['theorem']}" for r in rows]
    fig = go.Figure()
    values = []
    # A log axis cannot show 0, and a measured value that is 0 up to rounding (1e-32, say) would
    # stretch it over thirty decades: such values are not drawn, and the title says which.
    top = max((v for r in rows for kind in _BOUND_KINDS if (v := _finite_or_none(r.get(kind))) is not None),
              default=0.0)
    hidden: dict[str, list[str]] = {}
    for kind in _BOUND_KINDS:
        vals = []
        for theorem, row in zip(theorems, rows):
            raw, v = row.get(kind), _finite_or_none(row.get(kind))
            if v is not None and v < ROUNDING_FLOOR * top:
                v = None
            if v is None and raw is not None and np.isfinite(float(raw)):
                hidden.setdefault(kind.replace("_", "-"), []).append(theorem.removeprefix("Thm "))
            vals.append(v)
        values += vals
        fig.add_trace(go.Bar(x=theorems, y=vals, name=_BOUND_NAMES[kind], marker_color=_BOUND_COLORS[kind]))
    for i, row in enumerate(rows):
        if not row.get("applies", True):
            # Over the empty slots of its group (grouped bars share 0.8 of a category's width), its right
            # edge at theirs, so that it reaches left into the gap between groups and never over the
            # bar drawn beside them (centred, it would cover a neighbouring bar in a half-width chart).
            slots = [k for k, kind in enumerate(_BOUND_KINDS) if _finite_or_none(row.get(kind)) is None] or [1]
            width = 0.8 / len(_BOUND_KINDS)
            x = i + width * (max(slots) - (len(_BOUND_KINDS) - 1) / 2 + 0.5)
            fig.add_annotation(x=x, xref="x", xanchor="right", y=1.0, yref="paper", yanchor="top", showarrow=False,
                               text=f"bound does not apply:<br>{_short_reason(row.get('note'))}",
                               font=dict(size=11), align="center", bgcolor="rgba(255,255,255,0.85)",
                               bordercolor="gray", borderwidth=1)
    title = "Bounds and measured values at the current ell"
    if hidden:
        said = "; ".join(f"{kind} of Thm {', '.join(ths)}" for kind, ths in hidden.items())
        lines = textwrap.wrap(f"not drawn (0, or below {ROUNDING_FLOOR:g} of the largest value): {said}", 90)
        title += "".join(f"<br><sup>{line}</sup>" for line in lines)
    fig.update_layout(barmode="group", title=title, yaxis_title="value (log scale)",
                      margin=dict(l=40, r=10, t=50 + 15 * len(hidden and lines), b=40))
    fig.update_yaxes(**_log_axis(values))
    return fig


def _short_reason(note) -> str:
    """The first clause of a bound's note (before its details), wrapped and shown literally.

    >>> _short_reason("Does not apply: lambda_D = 0 is 0 (K/n has rank < D); lower D.")
    'lambda_D = 0 is 0'
    """
    reason = re.sub(r"^\s*does not apply:\s*", "", str(note or "no reason given"), flags=re.IGNORECASE)
    reason = re.split(r" \(|; |\. ", reason, maxsplit=1)[0].strip().rstrip(".")
    return "<br>".join(textwrap.wrap(user_text(reason), _NOTE_WIDTH, break_long_words=False)) or "?"


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
        ``a_posteriori``, ``measured`` (None/NaN where absent), and optionally
        ``quantity``, the bounded quantity, which titles the panel's y-axis (else
        :data:`rskpca.bounds.THEOREMS` names it).
    current_ell : float or None
        Marked with a vertical line.

    Returns
    -------
    go.Figure

    Examples
    --------
    >>> rows = [{"ell": e, "theorem": "5.1", "a_priori": 1 / e, "a_posteriori": None, "measured": 0.1 / e}
    ...         for e in (1.0, 2.0)]
    >>> fig = bounds_curves_figure(rows)
    >>> [t.name for t in fig.data], fig.layout.yaxis.title.text
    (['a-priori', 'measured'], 'MMD_b(X, C-bar)')
    """
    theorems = sorted({str(r["theorem"]) for r in rows})
    if not theorems:
        raise ValueError("rows is empty; compute the bounds at one ell at least.")
    ncols = min(2, len(theorems))
    nrows = int(np.ceil(len(theorems) / ncols))
    # Traces and layout as plain dicts, made into a figure once: plotly validates each part once, where
    # per-panel updates validate the layout at every step (redrawn on every ell change of the Bounds page;
    # python tests/benchmarks/bench_latency.py --profile)
    layout, refs = _subplot_grid(nrows, ncols, [f"Theorem {t}" for t in theorems], horizontal_spacing=0.12,
                                 vertical_spacing=0.16)
    traces, shapes = [], []
    for p, th in enumerate(theorems):
        suffix = "" if p == 0 else str(p + 1)
        sub = sorted((row for row in rows if str(row["theorem"]) == th), key=lambda row: row["ell"])
        for kind in _BOUND_KINDS:
            # Each kind may be known on its own grid (closed forms everywhere, measured values on a few ell).
            have = [row for row in sub if _finite_or_none(row.get(kind)) is not None]
            if not have:
                continue
            ell = np.array([row["ell"] for row in have], dtype=np.float64)
            vals = np.array([row[kind] for row in have], dtype=np.float64)
            traces.append(dict(type="scatter", x=ell, y=vals, name=_BOUND_NAMES[kind], mode="lines+markers", legendgroup=kind,
                               showlegend=p == 0, line=dict(color=_BOUND_COLORS[kind]), **refs[p]))
        quantity = next((row["quantity"] for row in sub if row.get("quantity")), THEOREMS.get(th, "value"))
        layout[f"yaxis{suffix}"].update(_log_axis([row.get(kind) for row in sub for kind in _BOUND_KINDS]),
                                        title=dict(text=user_text(quantity), standoff=6), automargin=True)
        layout[f"xaxis{suffix}"]["title"] = dict(text="ell")
        if current_ell is not None:
            shapes.append(dict(type="line", x0=float(current_ell), x1=float(current_ell), y0=0, y1=1,
                               xref=f"x{suffix}", yref=f"y{suffix} domain", line=dict(color="gray", dash="dot")))
    layout.update(height=max(380, 320 * nrows), margin=dict(l=40, r=10, t=50, b=40), shapes=shapes)
    fig = go.Figure(data=traces, layout=layout)
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
