"""Categorical colours the eye tells apart: the palettes of methods, shadow sets and classes.

A colour is told from the others by its CIEDE2000 difference (Luo, Cui & Rigg 2001; the formulas as
Sharma, Wu & Dalal 2005 give them), which follows the eye across hues; CIE76's straight distance in
L*a*b* overstates it between saturated colours, where two pinks can be far apart in CIE76 and look alike.

Each palette starts with D3's category10, then takes, one at a time, the colour of a grid over the
sRGB cube farthest from every colour already taken (Glasbey et al. 2007 pick categorical colours
so). The grid leaves out greys (kept for "other" and "(missing)"), pale colours, which vanish on
the white background, and near-blacks. ``python -m pytest tests/test_colouring.py -k "palettes or far_from"``
derives the palettes again and checks their closest pair (16.0 in CIEDE2000).
"""

from __future__ import annotations

import numpy as np
from plotly.colors import qualitative, unlabel_rgb

__all__ = ["PALETTE", "CLASS_COLORS", "lab", "ciede2000", "farthest_first"]


def _hex(color: str) -> str:
    """``#RRGGBB`` of a ``#rrggbb`` or ``rgb(r, g, b)`` colour."""
    if color.startswith("rgb"):
        return "#" + "".join(f"{int(v):02X}" for v in unlabel_rgb(color))
    return color.upper()


def lab(hex_colors) -> np.ndarray:
    """CIE 1976 L*a*b* (D65 white) of ``#RRGGBB`` sRGB colours, one row each.

    >>> lab(["#FFFFFF", "#FF0000"]).round(1).tolist()
    [[100.0, -0.0, 0.0], [53.2, 80.1, 67.2]]
    """
    rgb = np.array([[int(c[i:i + 2], 16) for i in (1, 3, 5)] for c in hex_colors], dtype=np.float64)
    return _lab_of_rgb(rgb.reshape(-1, 3))


def _lab_of_rgb(rgb) -> np.ndarray:
    rgb = np.asarray(rgb, dtype=np.float64) / 255.0
    linear = np.where(rgb <= 0.04045, rgb / 12.92, ((rgb + 0.055) / 1.055) ** 2.4)
    xyz = linear @ np.array([[0.4124564, 0.3575761, 0.1804375], [0.2126729, 0.7151522, 0.0721750],
                             [0.0193339, 0.1191920, 0.9503041]]).T
    t = xyz / np.array([0.95047, 1.0, 1.08883])
    f = np.where(t > (6 / 29) ** 3, np.cbrt(t), t / (3 * (6 / 29) ** 2) + 4 / 29)
    return np.column_stack([116 * f[:, 1] - 16, 500 * (f[:, 0] - f[:, 1]), 200 * (f[:, 1] - f[:, 2])])


def ciede2000(lab1, lab2) -> np.ndarray:
    """The CIEDE2000 colour difference between L*a*b* colours (rows; broadcast), ``kL = kC = kH = 1``.

    About 1 is the smallest difference an eye notices side by side; categorical colours need ten or more.

    >>> ciede2000([50.0, 2.6772, -79.7751], [50.0, 0.0, -82.7485]).round(4)  # Sharma et al. (2005), pair 1
    np.float64(2.0425)
    >>> ciede2000([50.0, 2.5, 0.0], [73.0, 25.0, -18.0]).round(4)  # their pair 17
    np.float64(27.1492)
    """
    L1, a1, b1 = np.moveaxis(np.asarray(lab1, dtype=np.float64), -1, 0)
    L2, a2, b2 = np.moveaxis(np.asarray(lab2, dtype=np.float64), -1, 0)
    c_mean7 = ((np.hypot(a1, b1) + np.hypot(a2, b2)) / 2) ** 7
    g = 0.5 * (1 - np.sqrt(c_mean7 / (c_mean7 + 25.0**7)))
    a1, a2 = (1 + g) * a1, (1 + g) * a2
    c1, c2 = np.hypot(a1, b1), np.hypot(a2, b2)
    h1, h2 = np.degrees(np.arctan2(b1, a1)) % 360, np.degrees(np.arctan2(b2, a2)) % 360
    chromatic = c1 * c2 != 0
    dh = h2 - h1
    dh = np.where(dh > 180, dh - 360, np.where(dh < -180, dh + 360, dh))
    dH = 2 * np.sqrt(c1 * c2) * np.sin(np.radians(np.where(chromatic, dh, 0.0) / 2))
    L, C = (L1 + L2) / 2, (c1 + c2) / 2
    hs = h1 + h2
    h = np.where(~chromatic, hs, np.where(np.abs(h1 - h2) <= 180, hs / 2, np.where(hs < 360, hs + 360, hs - 360) / 2))
    t = (1 - 0.17 * np.cos(np.radians(h - 30)) + 0.24 * np.cos(np.radians(2 * h))
         + 0.32 * np.cos(np.radians(3 * h + 6)) - 0.20 * np.cos(np.radians(4 * h - 63)))
    c7 = C**7
    rotation = -np.sin(np.radians(60 * np.exp(-(((h - 275) / 25) ** 2)))) * 2 * np.sqrt(c7 / (c7 + 25.0**7))
    sL = 1 + 0.015 * (L - 50) ** 2 / np.sqrt(20 + (L - 50) ** 2)
    sC, sH = 1 + 0.045 * C, 1 + 0.015 * C * t
    dL, dC = (L2 - L1) / sL, (c2 - c1) / sC
    dH = dH / sH
    return np.sqrt(dL**2 + dC**2 + dH**2 + rotation * dC * dH)


#: The candidates: every 15th level of each sRGB channel, with L* in [30, 80] and chroma at least 30 (no
#: greys, pale colours or near-blacks).
_GRID_STEP, _L_RANGE, _MIN_CHROMA = 15, (30.0, 80.0), 30.0


def _grid_pool() -> tuple[np.ndarray, np.ndarray]:
    """``(rgb, lab)`` of the candidate colours (see :data:`_GRID_STEP`)."""
    levels = np.arange(0, 256, _GRID_STEP)
    rgb = np.array(np.meshgrid(levels, levels, levels, indexing="ij")).reshape(3, -1).T
    lab_ = _lab_of_rgb(rgb)
    keep = ((lab_[:, 0] >= _L_RANGE[0]) & (lab_[:, 0] <= _L_RANGE[1])
            & (np.hypot(lab_[:, 1], lab_[:, 2]) >= _MIN_CHROMA))
    return rgb[keep], lab_[keep]


def farthest_first(start, size: int, pool=None) -> tuple[str, ...]:
    """``start``, then colours of ``pool`` (``(rgb, lab)``; the grid by default) one at a time, each the
    farthest in CIEDE2000 from every colour already taken, up to ``size``: each new class gets the colour
    least like all the others', not only unlike the last.

    >>> pool = (np.array([[17, 17, 17], [255, 0, 0], [34, 0, 0]]), lab(["#111111", "#FF0000", "#220000"]))
    >>> farthest_first(["#000000"], 2, pool)
    ('#000000', '#FF0000')
    """
    taken = [_hex(c) for c in start]
    rgb, lab_rest = _grid_pool() if pool is None else pool
    nearest = np.min(ciede2000(lab_rest[:, None, :], lab(taken)[None, :, :]), axis=1)
    while len(taken) < size:
        i = int(np.argmax(nearest))
        taken.append("#" + "".join(f"{int(v):02X}" for v in rgb[i]))
        nearest = np.minimum(nearest, ciede2000(lab_rest, lab_rest[i]))
    return tuple(taken)


#: The grid's colours :func:`farthest_first` takes after D3's ten, with or without D3's grey (the same
#: 21 either way), written out here so that importing the package computes nothing;
#: ``tests/test_colouring.py`` derives them again.
_GRID_PICKS = (
    "#4B4B00", "#B4C3FF", "#0000F0", "#007869", "#960069", "#FFB4A5", "#00E1A5", "#A57800", "#FFB400",
    "#5AE100", "#00690F", "#F06978", "#3C4B87", "#3CB4FF", "#784B0F", "#7887FF", "#5AA587", "#96002D",
    "#E10078", "#A5C387", "#78783C",
)
_D3 = tuple(c.upper() for c in qualitative.D3)
#: Colours for shadow sets and methods (cycled): D3's category10 first, whose ten hues are distinct so the
#: ten digit classes never share a look-alike, then 20 more from the grid; 30 in all
#: (``farthest_first(qualitative.D3, 30)``).
PALETTE: tuple[str, ...] = _D3 + _GRID_PICKS[:20]
#: Class colours: the same, less D3's grey (grey is "other"); 30 in all, every two at least 16 apart in
#: CIEDE2000, as D3's own closest pair is. The eye does not tell more colours apart, so past 30
#: classes the colours repeat with the next symbol.
CLASS_COLORS: tuple[str, ...] = tuple(c for c in _D3 if c != "#7F7F7F") + _GRID_PICKS
