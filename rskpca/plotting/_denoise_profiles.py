"""Denoising of feature vectors that are not images: each test row drawn as a profile over its features."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from rskpca.plotting._style import user_text

__all__ = ["denoise_profiles_figure"]

_CLEAN = "clean"
_COLOURS = ("#636efa", "#ef553b", "#00cc96", "#ab63fa", "#ffa15a", "#19d3f3")


def denoise_profiles_figure(rows: Sequence[dict], clean: np.ndarray, feature_names: Sequence, *,
                            n_show: int = 3) -> go.Figure:
    """One panel per test row (the first ``n_show``): its value at every feature, clean, noisy and each
    method's reconstruction, one line each.

    Parameters
    ----------
    rows : sequence of dict
        As returned by :func:`rskpca.evaluation.denoising.denoise`: ``method``, ``images`` (k, d), ``mse``.
    clean : ndarray of shape (k, d)
    feature_names : sequence of length d
        The x axis (column names, shown as text).
    n_show : int, default=3

    Returns
    -------
    go.Figure

    Examples
    --------
    >>> import numpy as np
    >>> clean = np.zeros((4, 3))
    >>> rows = [{"method": "noisy input", "images": clean + 1, "mse": 1.0},
    ...         {"method": "RSKPCA", "images": clean + 0.1, "mse": 0.01}]
    >>> fig = denoise_profiles_figure(rows, clean, ["a", "b", "c"], n_show=2)
    >>> len(fig.data), [t.name for t in fig.data[:3]]  # the legend names each line with its MSE
    (6, ['clean', 'noisy input (MSE 1)', 'RSKPCA (MSE 0.01)'])
    """
    k = min(int(n_show), clean.shape[0])
    names = [user_text(str(f)) for f in feature_names]
    fig = make_subplots(rows=k, cols=1, shared_xaxes=True, vertical_spacing=0.06,
                        subplot_titles=[f"test row {i + 1}" for i in range(k)])
    lines = [(_CLEAN, clean, None)] + [(r["method"], r["images"], r["mse"]) for r in rows]
    for i in range(k):
        for j, (name, values, mse) in enumerate(lines):
            label = name if mse is None else f"{name} (MSE {mse:.3g})"
            fig.add_trace(go.Scatter(x=names, y=np.asarray(values[i], dtype=float), mode="lines+markers",
                                     name=label, legendgroup=name, showlegend=i == 0,
                                     line=dict(color=_COLOURS[j % len(_COLOURS)], width=3 if j == 0 else 1.5,
                                               dash="solid" if j < 2 else "dot")),
                          row=i + 1, col=1)
    fig.update_layout(height=220 * k + 80, margin=dict(l=40, r=10, t=40, b=40),
                      legend=dict(orientation="h", y=-0.08))
    return fig
