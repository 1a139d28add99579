"""Denoising figure: a strip of images per method (noisy input, linear PCA, exact KPCA, RSKPCA, ...)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from rskpca.plotting._style import _TYPICAL_WIDTH

__all__ = ["denoise_figure"]


def _strip(images: np.ndarray, height: int, width: int, gap: int = 1, order: str = "C") -> np.ndarray:
    """Images side by side in one array, separated by ``gap`` blank (NaN) columns; ``order`` as numpy's
    ``reshape`` ("C": each row's pixels fill the image row by row, "F": column by column)."""
    k = images.shape[0]
    strip = np.full((height, k * (width + gap) - gap), np.nan)
    for i, img in enumerate(images):
        strip[:, i * (width + gap): i * (width + gap) + width] = img.reshape(height, width, order=order)
    return strip


def denoise_figure(rows: Sequence[dict], clean: np.ndarray, image_shape: tuple[int, int], *,
                   n_show: int = 8, order: str = "C", light_high: bool = False) -> go.Figure:
    """One row of images per method, the clean images on top, each titled with its error and fit time.

    Parameters
    ----------
    rows : sequence of dict
        As returned by :func:`rskpca.evaluation.denoising.denoise`: ``method``,
        ``images`` (k, h*w), ``mse``, ``fit_s`` (None for the input).
    clean : ndarray of shape (k, h*w)
        The clean images (the reference).
    image_shape : (height, width)
    n_show : int, default=8
        Images shown per row (the first ones).
    order : {"C", "F"}, default="C"
        How each row's pixels fill its image: row by row, or column by column (as MATLAB stores
        images, the Yale faces among them).
    light_high : bool, default=False
        High values light (photographs); the default draws them dark (ink on paper: digits).

    Returns
    -------
    go.Figure
        A heatmap per row on a shared grey scale (the clean images' range),
        so a method that leaves noise looks noisy.

    Examples
    --------
    >>> import numpy as np
    >>> clean = np.random.default_rng(0).random((3, 4))
    >>> fig = denoise_figure([{"method": "noisy input", "images": clean + 0.1, "mse": 0.01, "fit_s": None}],
    ...                      clean, (2, 2))
    >>> len(fig.data)
    2
    >>> denoise_figure([], np.arange(6.0)[None], (3, 2), order="F").data[0].z.tolist()
    [[0.0, 3.0], [1.0, 4.0], [2.0, 5.0]]
    """
    h, w = (int(v) for v in image_shape)
    clean = np.asarray(clean, dtype=np.float64)
    k = min(n_show, clean.shape[0])
    titles = ["clean"]
    for row in rows:
        t = f"{row['method']}: MSE {row['mse']:.4g}"
        if row.get("fit_s") is not None:
            t += f", fit {row['fit_s']:.3g} s"
        titles.append(t)
    fig = make_subplots(rows=len(rows) + 1, cols=1, subplot_titles=titles, vertical_spacing=0.25 / (len(rows) + 1))
    zmin, zmax = float(np.min(clean)), float(np.max(clean))
    for i, images in enumerate([clean] + [np.asarray(r["images"], dtype=np.float64) for r in rows], start=1):
        strip = _strip(images[:k], h, w, order=order)
        fig.add_trace(go.Heatmap(z=strip, zmin=zmin, zmax=zmax, colorscale="gray" if light_high else "gray_r",
                                 showscale=False,
                                 name=titles[i - 1], hovertemplate="pixel value %{z:.3g}<extra></extra>",
                                 hoverongaps=False),  # the gaps between images are NaN: no label there
                      row=i, col=1)
        fig.update_yaxes(autorange="reversed", scaleanchor=f"x{i if i > 1 else ''}", showticklabels=False,
                         ticks="", showgrid=False, zeroline=False, row=i, col=1)
        fig.update_xaxes(showticklabels=False, ticks="", showgrid=False, zeroline=False, row=i, col=1)
    # A row as tall as its images are at the chart's usual width (square pixels), within bounds:
    # 8 x 8 digits give about 110 px, a 4 x 16 shape a thin strip, with no empty bands around the images.
    strip_w = k * (w + 1) - 1
    row_px = float(np.clip(_TYPICAL_WIDTH * h / max(strip_w, 1), 40, 200)) + 30  # + the row's title
    fig.update_layout(height=int(row_px * (len(rows) + 1)) + 40, margin=dict(l=10, r=10, t=40, b=10),
                      plot_bgcolor="white")
    return fig
