"""Columns of a user table: which can be features, which holds the classes, which are numbers with stray text.

Pure pandas/numpy (no Streamlit); :mod:`rskpca.data.datasets` re-exports these.
"""

from __future__ import annotations

import enum
import warnings

import numpy as np
import pandas as pd
from pandas.api.types import is_bool_dtype, is_complex_dtype, is_numeric_dtype

from rskpca.data.readers import DataError

__all__ = ["numeric_columns", "identifier_columns", "guess_label_column", "column_summary", "stray_text_cells",
           "stray_text_as_missing", "STRAY_TEXT_SHARE", "check_usable", "Unusable", "UnusableTableError",
           "NEEDS_NUMBERS"]

#: What to do about a table without numbers: said by :func:`check_usable` at upload and by the data
#: set builder (``rskpca.data.datasets``) when a choice of columns leaves none.
NEEDS_NUMBERS = "kernel PCA needs numbers: upload numeric data or convert the columns."

# Column names that usually hold the class of a row, in order of preference.
_LABEL_NAMES = ("label", "labels", "target", "class", "classes", "y", "species", "category", "digit")
#: Names of columns that identify rows (lower case; also any name ending in "_id" or " id"): with a different
#: value on every row, such a column is a key, not a measurement. "unnamed: 0" is the index pandas writes.
_IDENTIFIER_NAMES = ("id", "index", "key", "row", "rowid", "row_id", "row id", "unnamed: 0", "")
#: At least this many rows before a column of distinct whole numbers counts as a row identifier.
IDENTIFIER_MIN_ROWS = 10
#: A text column counts as "numbers with stray text" when at least this share of its filled cells are numbers.
STRAY_TEXT_SHARE = 0.9


def numeric_columns(df: pd.DataFrame) -> list[str]:
    """Names of the columns usable as features: numeric or boolean, not complex.

    Examples
    --------
    >>> numeric_columns(pd.DataFrame({"a": [1.0], "b": ["x"], "c": [True]}))
    ['a', 'c']
    """
    return [c for c in df.columns
            if (is_numeric_dtype(df[c]) or is_bool_dtype(df[c])) and not is_complex_dtype(df[c])]


class Unusable(enum.Enum):
    """Why no choice of columns can make a data set of a table (:func:`check_usable`)."""

    #: Fewer than two rows. A file's leading rows alone may be this short, so a check of a head reads the kind.
    TOO_FEW_ROWS = "too few rows"
    #: No column of numbers (numeric, or numbers with a few stray text cells).
    NO_NUMBERS = "no column of numbers"


class UnusableTableError(DataError):
    """A table that no choice on the Data page can use; :attr:`kind` says why, the message says it in words."""

    def __init__(self, message: str, kind: Unusable):
        super().__init__(message)
        self.kind = kind


def check_usable(df: pd.DataFrame, name: str) -> None:
    """Raise :class:`UnusableTableError` when no choice on the Data page can make a data set of ``df``.

    Fewer than two rows, or no column of numbers (numeric, or numbers with a few stray text cells,
    which the Data page can use): the app refuses such a file when it is uploaded or named on the
    command line, as it refuses one it cannot read, instead of selecting a table it can never use.
    ``name`` (the file's name) starts the message.

    Examples
    --------
    >>> check_usable(pd.DataFrame({"a": [1.0, 2.0]}), "ok.csv")
    >>> try:
    ...     check_usable(pd.DataFrame({"a": [1.0]}), "one.csv")
    ... except UnusableTableError as err:
    ...     print(err.kind, "|", err)
    Unusable.TOO_FEW_ROWS | one.csv cannot be used: it has 1 row; kernel PCA needs at least 2.
    >>> check_usable(pd.DataFrame({"name": ["ann", "bob"]}), "names.csv")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    rskpca.data.input_columns.UnusableTableError: names.csv cannot be used: it has no column of numbers (only ...
    """
    if len(df) < 2:
        raise UnusableTableError(f"{name} cannot be used: it has {len(df)} row{'s' if len(df) != 1 else ''}; "
                                 "kernel PCA needs at least 2.", Unusable.TOO_FEW_ROWS)
    if not numeric_columns(df) and not stray_text_cells(df, max_cells=0):
        text = [str(c) for c in df.columns][:10]
        raise UnusableTableError(f"{name} cannot be used: it has no column of numbers (only text columns "
                                 f"{text}); {NEEDS_NUMBERS}", Unusable.NO_NUMBERS)


def guess_label_column(df: pd.DataFrame) -> str | None:
    """A column that probably holds classes: a usual name (label, target, class, ...), else None.

    A last column of text with few distinct values (e.g. species names) is also taken, and a last
    column of few whole numbers (1.0, 2.0, 3.0) after features that all have fractions: the shape of
    a labelled file whose label column has another name. Whole-number features (pixels, counts)
    leave such a column a feature, since it could be one of them.

    Examples
    --------
    >>> guess_label_column(pd.DataFrame({"x": [1, 2], "Target": [0, 1]}))
    'Target'
    >>> guess_label_column(pd.DataFrame({"x": [1.0, 2.0], "z": [3.0, 4.0]})) is None
    True
    >>> guess_label_column(pd.DataFrame({"x": [0.1, 0.7, 0.3, 0.9], "y": [0.5, 0.2, 0.8, 0.4]})) is None
    True
    >>> guess_label_column(pd.DataFrame({"a": [0.1, 0.7, 0.3, 0.9], "grp": [1.0, 2.0, 1.0, 2.0]}))
    'grp'
    >>> guess_label_column(pd.DataFrame({"a": [3, 7, 3, 9], "b": [1, 2, 1, 2]})) is None
    True
    >>> guess_label_column(pd.DataFrame({"a": [0.1, 0.7, 0.3, 0.9], "sick": [True, False, True, True],
    ...                                  "site": [7, 7, 7, 7], "notes": [np.nan] * 4}))
    'sick'
    """
    by_lower = {str(c).strip().lower(): c for c in df.columns}
    for want in _LABEL_NAMES:
        if want in by_lower:
            if want == "y" and not _looks_like_classes(df[by_lower[want]]):
                continue  # "x, y" coordinates: y is a feature, not a label
            return by_lower[want]
    # the last column that says anything: an empty "notes" or a constant "site" after the label is not it
    last = next((c for c in reversed(df.columns) if df[c].nunique() > 1), None) if df.shape[1] >= 2 else None
    if last is not None:
        col = df[last]
        numeric = numeric_columns(df)
        if last not in numeric and col.nunique() <= max(2, min(50, len(df) // 2)):
            return last
        others = [c for c in numeric if c != last]
        if last in numeric and others and _looks_like_classes(col) and not any(_whole_numbers(df[c]) for c in others):
            return last  # (True / False after measurements too: "malignant")
    return None


def _whole_numbers(col: pd.Series) -> bool:
    """Whether a column holds varying whole numbers (an empty or constant column holds nothing to judge)."""
    values = pd.to_numeric(col, errors="coerce").dropna().to_numpy(dtype=np.float64)
    head = values[:1000]  # a column of measurements shows a fraction within its first rows: no full pass
    return bool(np.all(head == np.round(head)) and values.size and values.min() < values.max()
                and np.all(values == np.round(values)))


def identifier_columns(df: pd.DataFrame) -> list[str]:
    """Numeric columns that identify rows rather than measure them: a different whole number on every row,
    and either consecutive (a row counter such as 1..n in any order, or the index pandas writes) or named as
    a key (id, index, ``*_id``, ...). Distances over such a column only sort the rows by their number.

    Examples
    --------
    >>> df = pd.DataFrame({"id": range(1, 21), "x": np.linspace(0, 1, 20), "n": range(20, 0, -1)})
    >>> identifier_columns(df)
    ['id', 'n']
    >>> identifier_columns(pd.DataFrame({"customer_id": np.arange(20) * 7 + 3, "x": np.ones(20)}))
    ['customer_id']
    >>> identifier_columns(pd.DataFrame({"a": [1, 2, 3] * 7}))
    []
    """
    n = len(df)
    if n < IDENTIFIER_MIN_ROWS:
        return []
    found = []
    for c in numeric_columns(df):
        if is_bool_dtype(df[c]):
            continue
        values = df[c].to_numpy(dtype=np.float64)
        if np.isnan(values).any():
            continue
        name = str(c).strip().lower()
        named = name in _IDENTIFIER_NAMES or name.endswith(("_id", " id"))
        # consecutive first (two passes over the column); whole numbers and distinct only for a candidate
        if not (named or values.max() - values.min() == n - 1):
            continue
        if np.all(values == np.round(values)) and pd.Series(values).is_unique:
            found.append(c)
    return found


def _looks_like_classes(col: pd.Series) -> bool:
    """Text, or integers with few distinct values (at most 50 and at most half the rows)."""
    if col.name not in numeric_columns(col.to_frame()):
        return True
    values = pd.to_numeric(col, errors="coerce").dropna().to_numpy(dtype=np.float64)
    few = 1 < np.unique(values).size <= max(2, min(50, len(col) // 2))
    return bool(few and np.all(values == np.round(values)))


def _example_bad_value(series: pd.Series) -> str:
    """The first value of a column that is not a number, with its row, for error messages."""
    coerced = pd.to_numeric(series, errors="coerce")
    positions = np.flatnonzero((coerced.isna() & series.notna()).to_numpy())
    if positions.size == 0:
        return ""
    return f" (e.g. {str(series.iloc[positions[0]])[:40]!r} in row {positions[0]})"




def column_summary(df: pd.DataFrame) -> pd.DataFrame:
    """Per-column summary: dtype, count, missing, unique, mean, std, min, max (NaN for text).

    Examples
    --------
    >>> column_summary(pd.DataFrame({"a": [1.0, 3.0, None], "b": ["x", "y", "x"]}))
      column    dtype  count  missing  unique  mean       std  min  max
    0      a  float64      2        1       2   2.0  1.414214  1.0  3.0
    1      b      str      3        0       2   NaN       NaN  NaN  NaN
    """
    # Column-wise vectorised reductions: a Python loop over columns pays pandas' overhead per column.
    numeric = numeric_columns(df)
    stats = _numeric_stats(df[numeric].to_numpy(dtype=np.float64, na_value=np.nan)) if numeric else None
    out = pd.DataFrame({
        "column": [str(c) for c in df.columns],
        "dtype": [str(t) for t in df.dtypes],
        "count": df.notna().sum().to_numpy(dtype=np.int64),
        "missing": df.isna().sum().to_numpy(dtype=np.int64),
        "unique": df.nunique().to_numpy(dtype=np.int64),
    })
    for stat in ("mean", "std", "min", "max"):
        values = np.full(df.shape[1], np.nan)
        if stats is not None:
            values[[df.columns.get_loc(c) for c in numeric]] = stats[stat]
        out[stat] = values
    return out


def _numeric_stats(arr: np.ndarray) -> dict[str, np.ndarray]:
    """NaN-ignoring mean, sample std, min and max of each column (NaN for an all-missing column)."""
    with warnings.catch_warnings():  # all-NaN columns: NaN is the right answer, the warning is noise
        warnings.simplefilter("ignore", RuntimeWarning)
        return {"mean": np.nanmean(arr, axis=0), "std": np.nanstd(arr, axis=0, ddof=1),
                "min": np.nanmin(arr, axis=0), "max": np.nanmax(arr, axis=0)}


def _text_cells(series: pd.Series) -> np.ndarray:
    """Positions of the filled cells that do not read as numbers."""
    coerced = pd.to_numeric(series, errors="coerce")
    return np.flatnonzero((coerced.isna() & series.notna()).to_numpy())


def stray_text_cells(df: pd.DataFrame, max_cells: int = 5) -> dict[str, list[tuple[int, str]]]:
    """Columns that hold numbers except for a few text cells, with those cells as ``(row, text)``.

    Such a column is not numeric to pandas, so it would silently not be a feature;
    :func:`rskpca.data.datasets.prepare` names it, and with ``stray_text="missing"``
    uses it with those cells as missing values. A column counts when at least
    :data:`STRAY_TEXT_SHARE` of its filled cells are numbers. At most ``max_cells``
    cells are listed per column (0-based row positions).

    Examples
    --------
    >>> df = pd.DataFrame({"a": [1, 2, "abc"] + list(range(17)), "b": ["x"] * 20})
    >>> stray_text_cells(df)
    {'a': [(2, 'abc')]}
    """
    out = {}
    numeric = set(numeric_columns(df))
    for col in df.columns:
        if col in numeric or is_bool_dtype(df[col]) or is_complex_dtype(df[col]):
            continue
        filled = int(df[col].notna().sum())
        bad = _text_cells(df[col])
        if filled and 0 < bad.size <= (1 - STRAY_TEXT_SHARE) * filled:
            out[str(col)] = [(int(i), str(df[col].iloc[i])[:40]) for i in bad[:max_cells]]
    return out


def stray_text_as_missing(df: pd.DataFrame, columns) -> pd.DataFrame:
    """A copy of ``df`` with the text cells of ``columns`` (from :func:`stray_text_cells`) made missing (NaN).

    Examples
    --------
    >>> stray_text_as_missing(pd.DataFrame({"a": ["1.5", "abc", "3"]}), ["a"])["a"].tolist()
    [1.5, nan, 3.0]
    """
    out = df.copy()
    for col in columns:
        out[col] = pd.to_numeric(out[col], errors="coerce")
    return out
