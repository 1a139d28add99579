"""Figures of the Spectral page: the eigenvalues of the diffusion operator, reduced set beside exact; the
clusters on the data (always categorical, hover naming row, cluster and label); the cluster x class table.

The embeddings themselves are drawn by :func:`rskpca.plotting.embedding_figure`, as on the other pages.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import plotly.graph_objects as go

from rskpca.plotting._colouring import hover_columns
from rskpca.plotting._data_view import data_figure
from rskpca.plotting._style import PALETTE, _integer_step, user_text

__all__ = ["spectral_eigenvalues_figure", "cluster_figure", "cluster_class_figure"]


def cluster_figure(X2, clusters, *, label=None, label_name: str = "label", features=None, feature_names=(),
                   **kwargs) -> go.Figure:
    """The rows coloured by cluster (:func:`data_figure`), always as classes, never a colour scale:
    clusters are numbered 1..k, their hover names the row, the cluster, the label (when there is
    one) and the first features.

    ``kwargs`` go to :func:`data_figure` (``row_ids``, ``axis_titles``, ``title``, ``selected_rows``).

    >>> import numpy as np
    >>> fig = cluster_figure(np.zeros((30, 2)), np.arange(30), label=np.array(["a"] * 30), label_name="class")
    >>> len(fig.data), fig.data[0].name, "class %{customdata[1]}" in fig.data[0].hovertemplate
    (30, '1', True)
    """
    clusters = np.asarray(clusters).astype(np.int64) + 1
    X2 = np.asarray(X2, dtype=np.float64)
    hover = hover_columns(np.zeros((X2.shape[0], 0)) if features is None else features,
                          [] if features is None else feature_names, label=label, label_name=label_name)
    return data_figure(X2, y=clusters, label_name="cluster", continuous=False, hover_data=hover, **kwargs)


def cluster_class_figure(table, *, title: str = "Clusters x classes (rows of each cluster in each class)") -> go.Figure:
    """The cluster x class table (:func:`rskpca.evaluation.clustering_scores.cluster_class_table`) as a
    heatmap with its counts written in the cells: matched clusters down the diagonal, so a good
    clustering is a dark diagonal. At most 900 px tall: past about 35 clusters their rows narrow (and plotly
    thins the labels) rather than the chart growing past a screen.

    >>> import pandas as pd
    >>> t = pd.DataFrame([[5, 0], [1, 4]], index=pd.Index([1, 0], name="cluster"), columns=["<a>", "b"])
    >>> fig = cluster_class_figure(t)
    >>> fig.data[0].z.tolist(), list(fig.data[0].x), list(fig.data[0].y)
    ([[5, 0], [1, 4]], ['&lt;a&gt;', 'b'], ['cluster 1', 'cluster 0'])
    """
    z = np.asarray(table.to_numpy(), dtype=np.int64)
    classes = [user_text(c) for c in table.columns]
    clusters = [f"cluster {user_text(c)}" for c in table.index]
    big = z.shape[0] * z.shape[1] > 900  # numbers in the cells only where they fit
    heatmap = dict(type="heatmap", z=z, x=classes, y=clusters, colorscale="Blues", showscale=False,
                   texttemplate=None if big else "%{z}", hovertemplate="%{y}<br>class %{x}<br>%{z} rows<extra></extra>")
    layout = dict(title=dict(text=title), margin=dict(l=80, r=10, t=50, b=40), height=max(300, min(22 * len(clusters) + 120, 900)),
                  # (the class axis below the cells: above them its labels, turned when many, meet the title)
                  xaxis=dict(title=dict(text="class"), type="category", automargin=True),
                  yaxis=dict(autorange="reversed", automargin=True))
    return go.Figure(dict(data=[heatmap], layout=layout))


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
    data, longest = [], 1
    for j, (name, lam) in enumerate(spectra.items()):
        lam = np.asarray(lam, dtype=np.float64).ravel()
        longest = max(longest, lam.size)
        color = PALETTE[j % len(PALETTE)]
        style = (dict(line=dict(color=color, width=2), marker=dict(size=9, color=color)) if j == 0 else
                 dict(line=dict(color=color, width=2, dash="dash"),
                      marker=dict(size=13, symbol="circle-open", line=dict(width=2, color=color))))
        data.append(dict(type="scatter", x=np.arange(1, lam.size + 1), y=lam, name=user_text(name), mode="lines+markers",
                         hovertemplate="component %{x}<br>eigenvalue %{y:.6g}<extra>" + user_text(name) + "</extra>",
                         **style))
    # Traces and layout as plain dicts, made into a figure once (redrawn on every change of the page).
    layout = dict(title=dict(text=title), margin=dict(l=50, r=10, t=50, b=40),
                  legend=dict(orientation="h", x=0.0, xanchor="left", y=-0.2, yanchor="top"),
                  xaxis=dict(title=dict(text="component"), tickformat="d", tick0=1, dtick=_integer_step(longest),
                             range=[0.5, longest + 0.5]),
                  yaxis=dict(title=dict(text="eigenvalue")))
    return go.Figure(dict(data=data, layout=layout))
