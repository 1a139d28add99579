"""How the rows of a chart are coloured by one column: classes, colours, symbols, legend, hover.

One home for every row chart (the data, the shadow centers, the embeddings, the Spectral page's clusters)
and for the density drawing, which mixes the same colours per bin:

* **Categorical** by default: text, integer (or whole-number float) and boolean columns, with any
  number of classes. Up to :data:`MAX_CLASSES` classes each get a look of their own: a colour from
  :data:`CLASS_COLORS` (D3's ten first, then colours that differ from all before them by the
  eye's measure, :mod:`rskpca.plotting._palette`; greys and pale colours left out so they stay for "other"
  and "(missing)"), and, once the colours repeat, the next marker symbol of
  :data:`CLASS_SYMBOLS`. Above that the largest ``MAX_CLASSES - 1`` classes keep their own look and the
  rest are drawn as one class "other" (grey); the legend's title says so (:attr:`Colouring.note`).
  Missing values (NaN, None) are a class of their own, "(missing)", drawn last.
* **Continuous** (a colour scale) only for a numeric column the caller marks continuous, or, by
  default, a float column holding more than :data:`CONTINUOUS_ABOVE` distinct values that are not all
  whole numbers (a measurement, not a class). A text column is never continuous.

The builders draw one trace per class with a ``legendgroup`` per class, so a legend click hides a
class in every panel and a double click isolates it (Plotly's legend behaviour).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, replace

import numpy as np
import pandas as pd
from plotly.colors import sample_colorscale

from rskpca.plotting._palette import CLASS_COLORS
from rskpca.plotting._style import _check_len, largest, user_text

__all__ = ["MAX_CLASSES", "HOVER_FEATURES", "CLASS_COLORS", "CLASS_SYMBOLS", "OTHER", "MISSING", "Colouring",
           "colouring", "hover_columns", "row_hover", "marker_style", "center_sizes", "legend_height",
           "class_legend", "as_colouring"]

#: Classes told apart by colour and symbol; above, the largest ``MAX_CLASSES - 1`` and "other".
MAX_CLASSES = 60


#: Marker symbols (all drawn by WebGL traces too), one per round of the colours.
CLASS_SYMBOLS = ("circle", "diamond", "square", "cross", "x", "triangle-up")
OTHER = "other"
MISSING = "(missing)"
_OTHER_COLOR = "#8C8C8C"
_MISSING_COLOR = "#C8C8C8"
#: The colour scale of a continuous column.
CONTINUOUS_SCALE = "Viridis"
#: A float column with more distinct values than this, not all whole numbers, is a measurement: drawn on
#: a colour scale unless the caller says otherwise. (Whole numbers are class codes read as floats.)
CONTINUOUS_ABOVE = 24
#: Hover labels show at most this many feature columns (after the row and the colour column).
HOVER_FEATURES = 4


@dataclass(frozen=True)
class Colouring:
    """How to colour n rows by one column (see :func:`colouring`).

    Attributes
    ----------
    name : str
        The column's name, as given (escape it with :func:`user_text` to draw it).
    continuous : bool
        A colour scale over :attr:`values`; else one colour (and symbol) per class.
    codes : ndarray of shape (n,) of int32, or None
        Each row's class: an index into :attr:`classes` (categorical only).
    classes : tuple of str
        Class names as shown (values as text; "other" and "(missing)" last when present).
    colors, symbols : tuple of str
        Each class's colour and marker symbol.
    counts : tuple of int
        Rows per class.
    values : ndarray of shape (n,) of float64, or None
        The column's values (continuous only), NaN where missing.
    row_text : ndarray of shape (n,) of str, or None
        Each row's own value as text, for the hover of the rows of "other" (None when there is none).
    n_distinct : int
        Distinct values in the column (missing left out).
    note : str
        What the legend should say about classes merged into "other" ("" when none are).
    """

    name: str
    continuous: bool
    codes: np.ndarray | None
    classes: tuple[str, ...]
    colors: tuple[str, ...]
    symbols: tuple[str, ...]
    counts: tuple[int, ...]
    values: np.ndarray | None
    row_text: np.ndarray | None
    n_distinct: int
    note: str

    @property
    def legend_title(self) -> str:
        """The legend's title, escaped: the column's name, and :attr:`note` when classes are merged."""
        return user_text(self.name) + (f"<br><sub>{user_text(self.note)}</sub>" if self.note else "")

    def subset(self, rows) -> "Colouring":
        """The same classes and colours for the rows ``rows`` only (a subsample drawn as points)."""
        rows = np.asarray(rows)
        pick = lambda a: None if a is None else a[rows]  # noqa: E731
        return replace(self, codes=pick(self.codes), values=pick(self.values), row_text=pick(self.row_text))

    def rgb(self) -> np.ndarray:
        """The class colours as an array of shape (K, 3) of floats 0-255 (for mixing per bin)."""
        return np.array([[int(c[i:i + 2], 16) for i in (1, 3, 5)] for c in self.colors], dtype=np.float64)


def _value_text(v) -> str:
    """A class value as text: whole-number floats without ".0" (a label read as float from a file)."""
    if isinstance(v, (float, np.floating)) and np.isfinite(v) and float(v).is_integer():
        return str(int(v))
    if isinstance(v, (float, np.floating)):
        return f"{float(v):.6g}"
    return str(v)


#: Above this many distinct text classes they stay in plain text order (a sort key per class costs more).
NATURAL_ORDER_MAX = 10_000


def _natural_order(names) -> np.ndarray:
    """The order of text class names with their runs of digits compared as numbers, as a person reads them.

    >>> [["class_10", "class_2", "class_1", "b"][i] for i in _natural_order(["class_10", "class_2", "class_1", "b"])]
    ['b', 'class_1', 'class_2', 'class_10']
    """
    def key(text):
        parts = re.split(r"(\d+)", text)  # text, digits, text, ...: each place holds one type
        return [int(p) if i % 2 else p for i, p in enumerate(parts)], text
    return np.array(sorted(range(len(names)), key=lambda i: key(names[i])), dtype=np.intp)


def _is_text(arr: np.ndarray) -> bool:
    if arr.dtype.kind in "USb":
        return True
    if arr.dtype.kind != "O":
        return False
    # an object column of numbers (and missing values) is numeric; any string makes it text
    return any(isinstance(v, (str, bytes)) for v in arr[:1000]) or any(isinstance(v, (str, bytes)) for v in arr)


def colouring(values, *, name: str = "label", continuous: bool | None = None,
              max_classes: int = MAX_CLASSES, noun: str = "classes") -> Colouring:
    """How to colour rows by ``values`` (a label, a feature, clusters).

    Parameters
    ----------
    values : array-like of shape (n,)
        Text, integers, floats or booleans; NaN and None are missing.
    name : str, default="label"
        The column's name, for the legend and hover.
    continuous : bool or None, default=None
        True: a colour scale (numeric columns only). False: classes. None: continuous only for a float
        column with more than :data:`CONTINUOUS_ABOVE` distinct values not all whole numbers.
    max_classes : int, default=MAX_CLASSES
        Classes with a look of their own; above, the largest ``max_classes - 1`` and "other".
    noun : str, default="classes"
        What the values are, for the legend's note when classes are merged ("clusters").

    Returns
    -------
    Colouring

    Raises
    ------
    ValueError
        ``continuous=True`` for a text column.

    Examples
    --------
    >>> c = colouring(["b", "a", None, "b"])
    >>> c.classes, c.codes.tolist(), c.counts
    (('a', 'b', '(missing)'), [1, 0, 2, 1], (1, 2, 1))
    >>> c = colouring([f"c{i:03d}" for i in range(100)] + ["c000"] * 5, max_classes=10)
    >>> c.classes[0], c.classes[-1], c.counts[0], c.note
    ('c000', 'other', 6, 'the 9 largest of 100 classes; the other 91 as "other"')
    >>> colouring(np.linspace(0, 1, 100)).continuous, colouring([1.0, 2.0, 2.0]).classes
    (True, ('1', '2'))
    """
    arr = np.asarray(values)
    if arr.ndim != 1:
        arr = arr.ravel()
    text = _is_text(arr)
    if continuous and text:
        raise ValueError(f"column {name!r} holds text: it cannot be drawn on a continuous colour scale; "
                         "draw it as classes.")
    values = arr.astype(np.float64) if arr.dtype.kind == "O" and not text else arr
    try:
        # the array as it is, missing values (None, NaN) coded -1: a million strings converted to str, or
        # into a pandas Series (Arrow strings), would cost more than the rest together
        codes, uniques = pd.factorize(values, sort=True, use_na_sentinel=True)
    except TypeError:  # text mixed with numbers: compared as text
        known = ~np.asarray(pd.isna(arr), dtype=bool)
        values = np.where(known, arr.astype(str), None).astype(object)
        codes, uniques = pd.factorize(values, sort=True, use_na_sentinel=True)
    missing = codes < 0
    n_distinct = len(uniques)
    names = None  # (a text per class: not made for a continuous column's many values)
    if text and 1 < n_distinct <= NATURAL_ORDER_MAX:  # "class_2" before "class_10"
        names = [_value_text(v) for v in uniques]
        order = _natural_order(names)
        rank = np.empty(n_distinct, dtype=np.intp)
        rank[order] = np.arange(n_distinct)
        codes = np.where(missing, -1, rank[np.maximum(codes, 0)])
        names = [names[i] for i in order]
    if continuous is None:
        continuous = (not text and values.dtype.kind == "f" and n_distinct > CONTINUOUS_ABOVE
                      and not np.all(np.mod(np.asarray(uniques, dtype=np.float64), 1.0) == 0))
    if continuous:
        return Colouring(name=str(name), continuous=True, codes=None, classes=(), colors=(), symbols=(), counts=(),
                         values=np.asarray(values, dtype=np.float64), row_text=None, n_distinct=n_distinct, note="")
    counts = np.bincount(codes[codes >= 0], minlength=n_distinct)
    if names is None:
        names = [_value_text(v) for v in uniques]
    row_text = None
    note = ""
    if n_distinct > max_classes:
        # the largest classes keep their look (ties: the first in sorted order), shown in sorted order
        kept = largest(counts, max_classes - 1)
        remap = np.full(n_distinct, len(kept), dtype=np.int32)
        remap[kept] = np.arange(len(kept), dtype=np.int32)
        other = (codes >= 0) & (remap[np.maximum(codes, 0)] == len(kept))
        row_text = np.where(other, np.asarray(names, dtype=object)[np.maximum(codes, 0)], "")
        new_codes = np.where(codes >= 0, remap[np.maximum(codes, 0)], -1)
        n_other = n_distinct - len(kept)
        names = [names[i] for i in kept] + [OTHER]
        counts = np.append(counts[kept], counts.sum() - counts[kept].sum())
        codes = new_codes
        note = f'the {len(kept):,} largest of {n_distinct:,} {noun}; the other {n_other:,} as "{OTHER}"'
    k_own = len(names) - (1 if note else 0)
    colors = [CLASS_COLORS[i % len(CLASS_COLORS)] for i in range(k_own)]
    symbols = [CLASS_SYMBOLS[(i // len(CLASS_COLORS)) % len(CLASS_SYMBOLS)] for i in range(k_own)]
    if note:
        colors.append(_OTHER_COLOR)
        symbols.append("circle")
    if missing.any():
        codes = np.where(codes < 0, len(names), codes)
        names.append(MISSING)
        counts = np.append(counts, int(missing.sum()))
        colors.append(_MISSING_COLOR)
        symbols.append("circle")
    return Colouring(name=str(name), continuous=False, codes=np.asarray(codes, dtype=np.int32), classes=tuple(names),
                     colors=tuple(colors), symbols=tuple(symbols), counts=tuple(int(c) for c in counts), values=None,
                     row_text=row_text, n_distinct=n_distinct, note=note)


def continuous_colors(values, lo: float, hi: float) -> np.ndarray:
    """RGB (floats 0-255, shape (n, 3)) of ``values`` on :data:`CONTINUOUS_SCALE` over [lo, hi] (NaN: grey).

    A 256-entry table looked up by index: sampling the scale per value (a string each) costs far more.

    >>> continuous_colors([0.0, 1.0, np.nan], 0.0, 1.0).astype(int).tolist()
    [[68, 1, 84], [253, 231, 37], [200, 200, 200]]
    """
    table = np.array([[float(p) for p in c[4:-1].split(",")] for c in
                      sample_colorscale(CONTINUOUS_SCALE, list(np.linspace(0.0, 1.0, 256)))])
    v = np.asarray(values, dtype=np.float64)
    t = np.clip((v - lo) / (hi - lo), 0.0, 1.0) if hi > lo else np.zeros_like(v)
    out = table[np.rint(np.nan_to_num(t) * 255).astype(np.intp)]
    out[~np.isfinite(v)] = 200.0
    return out


def hover_columns(features, feature_names, *, label=None, label_name: str | None = None,
                  max_features: int = HOVER_FEATURES) -> dict:
    """The columns a row's hover label shows after its row and colour: the label (when given), then the
    first ``max_features`` features. Pass the result as ``hover_data`` to the row charts.

    >>> cols = hover_columns(np.arange(12.0).reshape(2, 6), list("abcdef"), label=["u", "v"], label_name="class")
    >>> list(cols), cols["b"].tolist()
    (['class', 'a', 'b', 'c', 'd'], [1.0, 7.0])
    """
    out = {}
    if label is not None:
        out[str(label_name or "label")] = np.asarray(label)
    X = np.asarray(features)
    for j, fname in enumerate(list(feature_names)[:max_features]):
        out.setdefault(str(fname), X[:, j])
    return out


def _escaped(values: np.ndarray) -> np.ndarray:
    """User text per row escaped for Plotly's hover (``<``, ``>``, ``&``, ``%``), vectorised."""
    s = pd.Series(values, dtype=object).astype(str)
    s = s.str.replace("&", "&amp;", regex=False).str.replace("<", "&lt;", regex=False)
    s = s.str.replace(">", "&gt;", regex=False).str.replace("%", "&#37;", regex=False)
    return s.to_numpy(dtype=object)


def row_hover(row_ids, colour: Colouring | None, hover_data: Mapping | None = None, *, class_index=None,
              extra: Mapping | None = None, rows=None):
    """``(customdata, hovertemplate)`` for the rows of one trace: the row first (what a selection reads),
    the colour column's value (the class name in the template for a class trace), ``extra`` lines
    (e.g. the shadow set), then the ``hover_data`` columns. All arrays are already the trace's rows, but
    ``colour``'s, which are of all rows: ``rows`` (a mask or positions) picks the trace's.

    Numbers travel as float64 (a typed array); any text column makes ``customdata`` an object array,
    each text escaped (:func:`user_text`).

    >>> c = colouring(["<a>", "b"])
    >>> custom, tpl = row_hover(np.array([4]), c, {"x1": np.array([0.5])}, class_index=0)
    >>> custom.tolist(), tpl
    ([[4.0, 0.5]], 'row %{customdata[0]}<br>label &lt;a&gt;<br>x1 %{customdata[1]:.4g}<extra></extra>')
    """
    cols = [np.asarray(row_ids)]
    lines = ["row %{customdata[0]}"]
    fmt = {}

    def add(name: str, values) -> None:
        values = np.asarray(values)
        k = len(cols)
        if _is_text(values) or values.dtype.kind not in "biuf":
            cols.append(_escaped(values))
            lines.append(f"{user_text(name)} %{{customdata[{k}]}}")
            fmt[k] = "text"
        else:
            cols.append(values.astype(np.float64))
            spec = "" if values.dtype.kind in "biu" else ":.4g"
            lines.append(f"{user_text(name)} %{{customdata[{k}]{spec}}}")

    def pick(a):
        return a if rows is None else a[rows]

    if colour is not None:
        if colour.continuous:
            add(colour.name, pick(colour.values))
        elif class_index is not None and colour.row_text is not None and colour.classes[class_index] == OTHER:
            add(colour.name, pick(colour.row_text))
        elif class_index is not None:
            lines.append(f"{user_text(colour.name)} {user_text(colour.classes[class_index])}")
    for name, values in (extra or {}).items():
        add(name, values)
    for name, values in (hover_data or {}).items():
        if colour is not None and str(name) == colour.name:
            continue
        add(str(name), values)
    if fmt:
        custom = np.empty((cols[0].size, len(cols)), dtype=object)
        for j, c in enumerate(cols):
            custom[:, j] = c
    else:
        custom = np.column_stack([c.astype(np.float64) for c in cols])
    return custom, "<br>".join(lines) + "<extra></extra>"


def marker_style(n_points: int, *, dims: int = 2) -> dict:
    """Marker size (px) and opacity for ``n_points`` drawn in one panel: large and opaque for a few
    points, smaller and more transparent as they crowd, so overlaps show as darker areas rather
    than one solid mass (both fall with log10 of the points; 3-D markers are 0.6 times as large).

    >>> [marker_style(n) for n in (100, 20_000)]
    [{'size': 7.0, 'opacity': 0.9}, {'size': 3.55, 'opacity': 0.44}]
    """
    lg = np.log10(max(int(n_points), 1))
    size = float(np.clip(10.0 - 1.5 * lg, 2.5, 8.0))
    opacity = float(np.clip(1.3 - 0.2 * lg, 0.3, 0.9))
    if dims == 3:
        size *= 0.6
    return {"size": round(size, 2), "opacity": round(opacity, 2)}


def center_sizes(weights, *, dims: int = 2) -> np.ndarray:
    """Marker sizes (px, float32) of shadow centers: the square root of the weight (area grows with it)
    within a bounded range whose top shrinks as the centers grow many (16 px for ten centers, 9.8 px for
    1,197 as on pendigits, 7.9 px for five thousand), so thousands of centers do not cover the rows they
    stand for, while the heaviest stay larger than the rows (3.5-4 px at 10,000-20,000 points,
    :func:`marker_style`).

    >>> center_sizes([1, 4]).tolist(), [round(float(center_sizes(np.ones(m)).max()), 1) for m in (1197, 5000)]
    ([9.5, 16.0], [9.8, 7.9])
    """
    w = np.asarray(weights, dtype=np.float64).ravel()
    if w.size == 0:
        return w.astype(np.float32)
    top = float(np.clip(19.0 - 3.0 * np.log10(w.size), 7.0, 16.0))
    low = min(3.0, top)
    sizes = low + (top - low) * np.sqrt(w / max(float(w.max()), 1e-300))
    if dims == 3:
        sizes *= 0.6
    return sizes.astype(np.float32)


def as_colouring(y, n: int, *, name: str = "label", continuous: bool | None = None) -> Colouring | None:
    """The figure builders' ``y``: None, a column of n values (coloured by :func:`colouring`), or a
    :class:`Colouring` of the n rows made by the caller, so that two charts of other rows (a sample, two
    clusterings) give a class the same colour.

    >>> c = colouring(["a", "b", "c"])
    >>> as_colouring(c.subset([2]), 1).classes, as_colouring(["c"], 1).classes
    (('a', 'b', 'c'), ('c',))
    """
    if y is None:
        return None
    if isinstance(y, Colouring):
        rows = y.codes if y.codes is not None else y.values
        if rows.shape[0] != n:
            raise ValueError(f"y colours {rows.shape[0]} rows but there are {n} points; pass one per point.")
        return y
    return colouring(_check_len(y, n, "y"), name=name, continuous=continuous)


def class_legend(colour, title: str = "", **more) -> dict:
    """The ``legend`` of a layout whose rows are coloured by ``colour``: its title (``title`` without a
    colouring), symbols at a readable size rather than the points' few pixels, and no gap between
    entries. Each class is a legend group of its own (a click hides it in every panel), and plotly
    leaves 10 px between groups by default: 29 px an entry instead of 19 in Chromium
    (``tests/test_e2e_legends.py``).

    >>> class_legend(None, "label")["tracegroupgap"]
    0
    """
    return dict(title=dict(text=colour.legend_title if colour else title), itemsizing="constant", tracegroupgap=0,
                **more)


#: Pixels a vertical legend takes per entry (19 in Chromium with :func:`class_legend`'s gap of 0) and for its
#: title, and the usual margins above and below a chart's plot (``python tests/benchmarks/screenshots.py --data
#: letters.csv --letters 20000 --serve --pages Embeddings`` shows all 26 classes).
_LEGEND_ROW_PX, _LEGEND_TITLE_PX, _CHART_MARGINS_PX = 20, 30, 90
#: A chart grows to show its legend whole up to this height; past it the legend scrolls.
MAX_LEGEND_HEIGHT = 900
#: Plotly's height for a chart that does not set one.
DEFAULT_HEIGHT = 450


def legend_height(colour, extra: int = 0, *, at_least: int = DEFAULT_HEIGHT, margins: int = _CHART_MARGINS_PX) -> int:
    """A chart's height that shows every class of ``colour`` (and ``extra`` other entries, such as the
    centers) in its vertical legend, at least ``at_least``: at plotly's usual height a legend of more than
    about 10 entries hides the rest behind a small scrollbar. ``margins``: the chart's top and bottom margins. At most
    :data:`MAX_LEGEND_HEIGHT` (then the legend scrolls).

    >>> c = colouring(np.arange(26), name="cluster", continuous=False)
    >>> legend_height(c, 1), legend_height(None), legend_height(colouring(np.arange(3), continuous=False))
    (660, 450, 450)
    """
    if colour is None or colour.continuous:
        return at_least
    need = _LEGEND_TITLE_PX + _LEGEND_ROW_PX * (len(colour.classes) + extra) + margins
    return max(at_least, min(need, MAX_LEGEND_HEIGHT))
