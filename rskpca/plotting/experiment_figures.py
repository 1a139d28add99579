"""Figures of Section 6 from the tidy rows of :mod:`rskpca.evaluation.experiments`: rows in, ``go.Figure`` out.

Pure builders (no files, no Streamlit). Each panel shows, per method, the mean over
splits against ell with a band of one standard deviation, as in the paper's Figures 2-8.
"""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go
from plotly.colors import qualitative
from plotly.subplots import make_subplots

from rskpca.evaluation.methods import SHADOW_METHOD
from rskpca.evaluation.result_columns import successful

__all__ = ["EMBEDDING_PANELS", "CLASSIFICATION_PANELS", "panels_figure", "retained_figure"]

#: Figures 2-3: (column, panel title).
EMBEDDING_PANELS = (
    ("eigenvalue_deviation", "(a) Eigenvalue deviation"),
    ("alignment_error", "(b) Embedding error (relative, aligned)"),
    ("train_speedup", "(c) Training speedup over KPCA"),
    ("test_speedup", "(d) Testing speedup over KPCA"),
)
#: Figures 4-5 and 7-8.
CLASSIFICATION_PANELS = (
    ("accuracy", "(a) 3-NN accuracy"),
    ("train_speedup", "(b) Training speedup"),
    ("test_speedup", "(c) Testing speedup"),
    ("total_speedup", "(d) Total speedup"),
)


def _ok(rows) -> pd.DataFrame:
    df = pd.DataFrame(list(rows))
    if df.empty:
        raise ValueError("No rows to plot; run an experiment first.")
    return successful(df)


def _band(fig, x, mean, std, color, name, row, col, showlegend):
    upper, lower = (mean + std).tolist(), (mean - std).tolist()
    fig.add_trace(go.Scatter(x=list(x) + list(x)[::-1], y=upper + lower[::-1], fill="toself",
                             fillcolor=color, opacity=0.15, line=dict(width=0), hoverinfo="skip",
                             showlegend=False, legendgroup=name), row=row, col=col)
    fig.add_trace(go.Scatter(x=list(x), y=mean.tolist(), mode="lines+markers", name=name,
                             line=dict(color=color), legendgroup=name, showlegend=showlegend),
                  row=row, col=col)


def panels_figure(rows, panels=EMBEDDING_PANELS, *, title: str = "", exact_column: str | None = None
                  ) -> go.Figure:
    """A 2 x 2 grid of metric-vs-ell panels, one line (mean +- std over splits) per method.

    ``exact_column`` (e.g. ``"exact_accuracy"``) adds the exact KPCA value ("none") to the
    first panel as a dashed line.

    >>> rows = [{"ell": e, "name": "rskpca", "method": "ShDE", "error": "", "eigenvalue_deviation": 0.1,
    ...          "alignment_error": 0.2, "train_speedup": 3.0, "test_speedup": 4.0} for e in (3.0, 3.1)]
    >>> len(panels_figure(rows).data)
    8
    """
    df = _ok(rows)
    fig = make_subplots(rows=2, cols=2, subplot_titles=[t for _, t in panels],
                        horizontal_spacing=0.1, vertical_spacing=0.14)
    colors = qualitative.Plotly
    for i, (_, part) in enumerate(df.groupby("name", sort=False)):
        stats = part.groupby("ell")
        name = str(part["method"].iloc[0])
        for k, (column, _) in enumerate(panels):
            if column not in part.columns:
                continue
            mean = stats[column].mean()
            std = stats[column].std().fillna(0.0)
            _band(fig, mean.index, mean, std, colors[i % len(colors)], name, k // 2 + 1, k % 2 + 1,
                  showlegend=(k == 0))
    if exact_column and exact_column in df.columns:
        exact = df.groupby("ell")[exact_column].mean()
        fig.add_trace(go.Scatter(x=exact.index.tolist(), y=exact.tolist(), mode="lines",
                                 name="none (exact KPCA)", line=dict(color="black", dash="dash")),
                      row=1, col=1)
    for k in range(4):
        fig.update_xaxes(title_text="ell", row=k // 2 + 1, col=k % 2 + 1)
    fig.update_layout(title=title, height=720, template="plotly_white")
    return fig


def retained_figure(rows, *, title: str = "Figure 6: percentage of data retained by the shadow") -> go.Figure:
    """Figure 6: ``100 m / n_train`` (100 x the ``retained`` column) of the shadow against ell, one line per data set.

    >>> rows = [{"dataset": "d", "ell": 3.0, "name": "rskpca", "error": "", "retained": 0.05}]
    >>> retained_figure(rows).data[0].y
    (5.0,)
    """
    df = _ok(rows)
    df = df[df["name"] == SHADOW_METHOD.name]
    fig = go.Figure()
    for dataset, part in df.groupby("dataset", sort=False):
        mean = 100.0 * part.groupby("ell")["retained"].mean()
        fig.add_trace(go.Scatter(x=mean.index.tolist(), y=mean.tolist(), mode="lines+markers",
                                 name=str(dataset)))
    fig.update_layout(title=title, xaxis_title="ell", yaxis_title="% of training data kept (100 m / n)",
                      template="plotly_white")
    return fig
