"""Figures of the Spectral page: the eigenvalues of the diffusion operator, reduced set beside exact.

The embeddings themselves are drawn by :func:`rskpca.plotting.embedding_figure` and the clusters
on the data by :func:`rskpca.plotting.data_figure`, as on the other pages.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import plotly.graph_objects as go

from rskpca.plotting._style import PALETTE, _integer_step, user_text

__all__ = ["spectral_eigenvalues_figure"]


def spectral_eigenvalues_figure(spectra: Mapping[str, np.ndarray], *,
                                title: str = "Eigenvalues of P (the trivial eigenvalue 1 left out)") -> go.Figure:
    """The leading nontrivial eigenvalues of each fit, one line per fit over the component number.

    The first fit is drawn with filled markers, the others (the exact method) with a dashed line
    and hollow markers over it, so that coinciding values both show. Lines, not bars: eigenvalues
    close to 1 differ in the third digit, and the axis zooms onto them without the false lengths a
    bar cut off above zero would draw.

    Parameters
    ----------
    spectra : mapping of str to array-like of shape (k,)
        Fit label (the reduced set, the exact method) to its eigenvalues, largest first.
    title : str, default="Eigenvalues of P (the trivial eigenvalue 1 left out)"

    Returns
    -------
    go.Figure

    Examples
    --------
    >>> fig = spectral_eigenvalues_figure({"reduced set": [0.99, 0.9], "exact": [0.991, 0.89]})
    >>> [t.name for t in fig.data], fig.data[0].x.tolist(), fig.data[1].line.dash
    (['reduced set', 'exact'], [1, 2], 'dash')
    """
    fig = go.Figure()
    longest = 1
    for j, (name, lam) in enumerate(spectra.items()):
        lam = np.asarray(lam, dtype=np.float64).ravel()
        longest = max(longest, lam.size)
        color = PALETTE[j % len(PALETTE)]
        style = (dict(line=dict(color=color, width=2), marker=dict(size=9, color=color)) if j == 0 else
                 dict(line=dict(color=color, width=2, dash="dash"),
                      marker=dict(size=13, symbol="circle-open", line=dict(width=2, color=color))))
        fig.add_trace(go.Scatter(x=np.arange(1, lam.size + 1), y=lam, name=user_text(name), mode="lines+markers",
                                 hovertemplate="component %{x}<br>eigenvalue %{y:.6g}<extra>" + user_text(name)
                                               + "</extra>", **style))
    fig.update_layout(title=title, xaxis_title="component", yaxis_title="eigenvalue",
                      margin=dict(l=50, r=10, t=50, b=40),
                      legend=dict(orientation="h", x=0.0, xanchor="left", y=-0.2, yanchor="top"))
    fig.update_xaxes(tickformat="d", tick0=1, dtick=_integer_step(longest), range=[0.5, longest + 0.5])
    return fig
