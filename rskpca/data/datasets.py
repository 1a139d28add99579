"""Reading and validating user tables into a feature matrix (the bundled samples: rskpca.data.samples).

Everything here is pure (no Streamlit): the app's Data page calls :func:`read_table`
on the uploaded bytes, :func:`prepare` on the chosen columns, and shows the
:class:`DataError` message when the user's data cannot be used. Uploaded files
are parsed, never executed: NPY files are read with ``allow_pickle=False``.

The samples in ``sample_data/`` are written by :func:`main`
(``python -m rskpca.data.datasets``) from scikit-learn's bundled data sets and
generators with fixed seeds, so they can be regenerated bit for bit.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

import numpy as np
import pandas as pd
from rskpca.core.row_draws import uniform_rows
from rskpca.core.validation import MIN_SPREAD, column_extremes, overflowing_columns, underflowing_spread
from rskpca.data.input_columns import (NEEDS_NUMBERS, _example_bad_value, column_summary, guess_label_column,
                                       identifier_columns, numeric_columns, stray_text_as_missing, stray_text_cells)
from rskpca.data.readers import DataError, MissingValuesError, read_notes, read_table
from rskpca.data.samples import SAMPLE_DIR, SAMPLES, SampleInfo, load_sample, main

__all__ = [
    "DataError",
    "labelled_rows",
    "identifier_columns",
    "SampleInfo",
    "SAMPLES",
    "SAMPLE_DIR",
    "load_sample",
    "read_table",
    "Dataset",
    "numeric_columns",
    "guess_label_column",
    "prepare",
    "column_summary",
    "stray_text_cells",
    "stray_text_as_missing",
    "data_digest",
    "main",
]


# ---------------------------------------------------------------------------
# From a table to a feature matrix
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Dataset:
    """A validated feature matrix with its labels and provenance.

    Attributes
    ----------
    X : ndarray of shape (n, d), float64
        Finite features, standardised if ``standardized``.
    y : ndarray of shape (n,) or None
        The label column's values (any dtype), or None.
    feature_names : list of str
        Names of the columns of X, verbatim from the table.
    label_name : str or None
        Name of the label column.
    row_ids : ndarray of shape (n,), int
        Position (0-based) of each row in the original table, for hover text.
    n_original : int
        Rows in the table before dropping missing values and sampling.
    standardized : bool
        Whether each column was centred and scaled to unit variance.
    digest : str
        :func:`data_digest` of X and y: a content key for caches.
    notes : tuple of str
        What :func:`prepare` changed that the user should know (rows sampled
        or dropped, constant columns); show them as text.
    """

    X: np.ndarray
    y: np.ndarray | None
    feature_names: list[str]
    label_name: str | None
    row_ids: np.ndarray
    n_original: int
    standardized: bool
    digest: str
    notes: tuple[str, ...] = ()

    @property
    def n(self) -> int:
        """Number of rows."""
        return self.X.shape[0]

    @property
    def d(self) -> int:
        """Number of features."""
        return self.X.shape[1]


def prepare(df: pd.DataFrame, *, feature_columns=None, label_column=None, standardize=False,
            max_rows=None, random_state=0, missing="error", stray_text="exclude") -> Dataset:
    """Validate a table and turn it into a :class:`Dataset` for kernel PCA.

    Parameters
    ----------
    df : pandas.DataFrame
        The table (from :func:`read_table` or :func:`load_sample`).
    feature_columns : list of str, default=None
        Columns to use as features; None takes every numeric column except the label and row identifiers
        (:func:`~rskpca.data.input_columns.identifier_columns`, said in ``notes``).
    label_column : str, default=None
        Column holding classes (used for colour and classification), or None.
    standardize : bool, default=False
        Centre each feature and scale it to unit variance (constant columns are only centred).
    max_rows : int, default=None
        Keep at most this many rows, drawn uniformly without replacement with
        ``random_state`` and kept in their original order.
    random_state : int, default=0
        Seed of the row sample.
    missing : {"error", "drop"}, default="error"
        What to do with rows having NaN in a feature column: refuse (naming the
        columns) or drop them (said in ``notes``). A row whose label alone is
        missing is kept: its label is NaN or None, a class "(missing)" on the
        charts, left out of scores and classifiers (said in ``notes``).
    stray_text : {"exclude", "missing"}, default="exclude"
        Columns of numbers with a few text cells (:func:`stray_text_cells`):
        leave them out of the features, naming them and the cells in ``notes``,
        or read those cells as missing values so the columns are features.

    Returns
    -------
    Dataset

    Raises
    ------
    DataError
        No numeric columns, unknown or non-numeric chosen columns, NaN or
        infinite values, fewer than 2 rows, only constant columns, or values so
        large (> 1e150) or so close together (spread < 1e-150) that squared
        distances would overflow or underflow.

    Examples
    --------
    >>> df = pd.DataFrame({"a": [1.0, 2.0, 3.0], "b": [0.0, 0.0, 3.0], "label": ["u", "v", "u"]})
    >>> ds = prepare(df, label_column="label", standardize=True)
    >>> ds.X.shape, ds.feature_names, list(ds.y)
    ((3, 2), ['a', 'b'], ['u', 'v', 'u'])
    >>> try:
    ...     prepare(df, feature_columns=["label"])
    ... except DataError as err:
    ...     print(err)
    Column 'label' is not numeric (e.g. 'u' in row 0); choose numeric feature columns.
    """
    if not isinstance(df, pd.DataFrame):
        raise DataError(f"Expected a table (pandas DataFrame), got {type(df).__name__}.")
    if missing not in ("error", "drop"):
        raise DataError(f"missing must be 'error' or 'drop'; got {missing!r}.")
    if stray_text not in ("exclude", "missing"):
        raise DataError(f"stray_text must be 'exclude' or 'missing'; got {stray_text!r}.")
    if df.shape[0] == 0 or df.shape[1] == 0:
        raise DataError("The table is empty: it needs at least two rows and one numeric column.")
    duplicated = sorted({str(c) for c in df.columns[df.columns.duplicated()]})
    if duplicated:
        raise DataError(f"Column name(s) {duplicated} appear more than once; rename them so each is unique.")
    if label_column is not None and label_column not in df.columns:
        raise DataError(f"Label column {label_column!r} is not in the table; choose one of its columns or none.")
    notes: list[str] = list(read_notes(df))
    stray = {c: cells for c, cells in stray_text_cells(df).items() if c != label_column}
    if stray and stray_text == "missing":
        df = stray_text_as_missing(df, list(stray))
        notes.append(f"Text cells in the numeric {columns_text(stray)} are read as missing values.")
    elif stray:
        for col, cells in stray.items():
            shown = ", ".join(f"{text!r} in row {row}" for row, text in cells)
            notes.append(f"Column {col!r} holds numbers but also text ({shown}), so it is not used as a feature. "
                         "Fix those cells, or treat them as missing values.")
    row_ids_found = identifier_columns(df) if feature_columns is None else []  # once: a pass over every column
    # A column with no value at all (a spreadsheet's empty "notes") would make every row a row with a missing
    # value, and dropping them would leave none.
    # (the first cell first: a full pass only over columns that start empty)
    empty = [c for c in numeric_columns(df) if c != label_column and pd.isna(df[c].iloc[0]) and df[c].isna().all()] \
        if feature_columns is None else []
    features = _choose_features(df, feature_columns, label_column, [*row_ids_found, *empty])
    if feature_columns is None:  # said, not left out silently: a column that vanishes unexplained looks like lost data
        if empty and any(c not in features for c in empty):
            one = len(empty) == 1
            notes.append(f"The {columns_text(empty)} {'is' if one else 'are'} empty in every row: left out of the "
                         "features.")
        keys = [c for c in row_ids_found if c not in features and c != label_column]
        if keys:
            one = len(keys) == 1
            notes.append(f"The {columns_text(keys)} hold{'s' if one else ''} a different whole number on every row, "
                         f"so {'it identifies' if one else 'they identify'} rows rather than "
                         f"measure{'s' if one else ''} them: left out of the features. Name {'it' if one else 'them'} "
                         f"among the feature columns to use {'it' if one else 'them'} anyway.")
        text = [str(c) for c in df.columns
                if c not in features and c != label_column and c not in stray and c not in keys and c not in empty]
        if text:
            one = len(text) == 1
            notes.append(f"The text {columns_text(text)} {'is not a feature' if one else 'are not features'}: kernel "
                         f"PCA needs numbers. Choose {'it' if one else 'one'} as the label if it names classes.")
    n_original = len(df)
    table = df.reset_index(drop=True)
    row_ids = np.arange(n_original)

    nan_rows = table[features].isna().any(axis=1).to_numpy()
    if nan_rows.any():
        counts = table[features].isna().sum()
        # (how many in each, with the unit named: "'b' (1 missing)"; a bare "(1)" reads as a typo)
        where = ", ".join(f"{c!r} ({int(k)} missing)" for c, k in counts.items() if k)
        if missing == "error":
            raise MissingValuesError(f"Missing values (NaN or empty cells) in column(s) {where}. Drop those "
                            "rows or columns, impute them, or choose other columns.")
        if len(table) - int(nan_rows.sum()) < 2:  # (checked here: no later check would say why)
            everywhere = [c for c, k in counts.items() if k == len(table)]
            raise DataError(  # (not MissingValuesError: the app would point to dropping those rows)
                f"Dropping the rows with missing values would leave {len(table) - int(nan_rows.sum())} of "
                f"{len(table):,} rows (missing: {where}). "
                + (f"The {columns_text(everywhere)} {'is' if len(everywhere) == 1 else 'are'} empty in every row: "
                   f"leave {'it' if len(everywhere) == 1 else 'them'} out of the features." if everywhere
                   else "Leave the emptiest columns out of the features, or impute them."))
        table, row_ids = table.loc[~nan_rows].reset_index(drop=True), row_ids[~nan_rows]
        notes.append(f"Dropped {int(nan_rows.sum())} row(s) with missing values in {where}.")

    X = table[features].to_numpy(dtype=np.float64, copy=True)
    inf_cols = [c for c, ok in zip(features, np.isfinite(X).all(axis=0)) if not ok]
    if inf_cols:
        raise DataError(f"Infinite values in column(s) {inf_cols}. Replace or drop them.")
    huge, limit = overflowing_columns(X)
    if huge.size:
        raise DataError(f"Values larger than {limit:.2g} in column(s) {[features[i] for i in huge]}: squared "
                        "distances would overflow. Rescale those columns (e.g. take logs).")

    if max_rows is not None:
        if isinstance(max_rows, bool) or not isinstance(max_rows, (int, np.integer)) or max_rows < 2:
            raise DataError(f"The row cap must be an integer of at least 2; got {max_rows!r}.")
        if len(X) > max_rows:
            keep = uniform_rows(len(X), max_rows, np.random.default_rng(random_state))
            notes.append(f"Kept a random sample of {max_rows} of {len(X)} rows (seed {random_state}).")
            X, row_ids, table = X[keep], row_ids[keep], table.iloc[keep]
    if len(X) < 2:
        raise DataError(f"Only {len(X)} usable row(s); kernel PCA needs at least 2 rows.")

    high, low = extremes = column_extremes(X)
    constant = [c for c, h, lo in zip(features, high, low) if h == lo]
    if len(constant) == len(features):
        raise DataError("Every feature column is constant, so all rows are the same point and there "
                        "is no structure to find. Choose columns that vary.")
    if underflowing_spread(X, extremes=extremes) is not None:
        raise DataError(f"All features vary by less than {MIN_SPREAD:.0e}: squared distances would "
                        "underflow to zero. Rescale the data (e.g. multiply by a power of ten).")
    if constant:
        one = len(constant) == 1
        notes.append(f"The constant {columns_text(constant)} carr{'ies' if one else 'y'} no information: "
                     f"{'it changes' if one else 'they change'} no distance, so every result is the same as without "
                     f"{'it' if one else 'them'} ({'it still counts' if one else 'they still count'} in d).")
    if not standardize:
        dominant = _dominant_column(features, high - low)
        if dominant:
            notes.append(dominant)
    if standardize:
        # (each column divided by its largest value first: the squares of values near the overflow
        # limit, summed over many rows, would overflow the variance)
        top = np.maximum(np.abs(high), np.abs(low))
        top = np.where(top > 0, top, 1.0)
        std = (X / top).std(axis=0) * top
        X = (X - X.mean(axis=0)) / np.where(std > 0, std, 1.0)  # constant columns: centred only

    y = table[label_column].to_numpy() if label_column is not None else None
    unlabelled = 0 if y is None else int(pd.isna(table[label_column]).sum())
    if unlabelled:
        notes.append(f"The label {label_column!r} is missing in {unlabelled:,} of {len(y):,} rows: they are kept, "
                     "drawn as the class '(missing)', and left out of the scores and classifiers.")
    X = np.ascontiguousarray(X)
    extra = () if y is None else (np.asarray(y).astype(str),)
    return Dataset(X=X, y=y, feature_names=list(features), label_name=label_column, row_ids=row_ids,
                   n_original=n_original, standardized=bool(standardize),
                   digest=data_digest(X, *extra), notes=tuple(notes))


#: A feature whose range is this many times the median feature's takes over every distance (a square: 400x).
DOMINANT_RANGE_RATIO = 20.0


def _dominant_column(features, ranges) -> str | None:
    """A note when one feature's range dwarfs the others' (unstandardised): distances are then that column.

    >>> _dominant_column(["price", "a", "b"], np.array([4000.0, 3.0, 2.5]))[:60]
    "The column 'price' ranges about 1,455 times as widely as the"
    >>> _dominant_column(["a", "b"], np.array([2.0, 3.0])) is None
    True
    """
    live = ranges > 0
    if np.count_nonzero(live) < 2:
        return None
    top = int(np.argmax(ranges))
    others = np.median(np.delete(ranges, top)[np.delete(live, top)])
    ratio = ranges[top] / others
    if not ratio >= DOMINANT_RANGE_RATIO:
        return None
    return (f"The column '{features[top]}' ranges about {ratio:,.0f} times as widely as the median feature (from "
            f"min to max: {ranges[top]:,.4g} against {others:,.4g}), so distances, and every result here, are mostly "
            "that column. Standardise the features to weigh the columns alike, or choose it as the label if it is "
            "a target rather than a feature.")


def _choose_features(df: pd.DataFrame, feature_columns, label_column, row_ids=()) -> list[str]:
    numeric = numeric_columns(df)
    if feature_columns is None:
        keys = set(row_ids)
        features = [c for c in numeric if c != label_column and c not in keys]
        if not features:  # a table of keys alone: used as it is, rather than refused
            features = [c for c in numeric if c != label_column]
        if not features:
            text = [c for c in df.columns if c != label_column][:10]
            raise DataError(f"No numeric columns to use as features (found only text columns {text}). "
                            f"{NEEDS_NUMBERS[0].upper()}{NEEDS_NUMBERS[1:]}")
        return features
    if isinstance(feature_columns, str):
        feature_columns = [feature_columns]
    features = list(feature_columns)
    if not features:
        raise DataError("No feature columns chosen; choose at least one numeric column.")
    unknown = [c for c in features if c not in df.columns]
    if unknown:
        raise DataError(f"Column(s) {unknown} are not in the table.")
    if len(set(features)) != len(features):
        raise DataError("A feature column is chosen twice; choose each column once.")
    if label_column is not None and label_column in features:
        raise DataError(f"Column {label_column!r} is both a feature and the label; choose it as one only.")
    for c in features:
        if c not in numeric:
            raise DataError(f"Column {c!r} is not numeric{_example_bad_value(df[c])}; "
                            "choose numeric feature columns.")
    return features


def columns_text(names) -> str:
    """Column names as a sentence says them (not a Python list): ``column 'a'``, ``columns 'a', 'b' and 'c'``.

    >>> columns_text(["date"]), columns_text(["date", "comment", 3])
    ("column 'date'", "columns 'date', 'comment' and '3'")
    """
    quoted = [f"'{name}'" for name in names]
    if len(quoted) == 1:
        return f"column {quoted[0]}"
    return f"columns {', '.join(quoted[:-1])} and {quoted[-1]}"


def labelled_rows(y) -> np.ndarray:
    """Where the label ``y`` is present (not NaN or None): the rows scores and classifiers use.

    >>> labelled_rows(np.array(["a", None, "b"], dtype=object)).tolist()
    [True, False, True]
    """
    return ~pd.isna(pd.Series(np.asarray(y, dtype=object))).to_numpy()


def data_digest(X, *extra) -> str:
    """SHA-256 hex digest of an array's shape, dtype and bytes, plus any extra values.

    A full content key for caches (Streamlit's own hashing samples large arrays).
    Arrays among ``extra`` are hashed by content, anything else by ``repr``.

    Examples
    --------
    >>> a = np.zeros((2, 3))
    >>> data_digest(a) == data_digest(a.copy()), data_digest(a) == data_digest(a.reshape(3, 2))
    (True, False)
    >>> data_digest(a, 1.5) == data_digest(a, 2.0)
    False
    """
    h = hashlib.sha256()
    for item in (X, *extra):
        if isinstance(item, np.ndarray):
            arr = np.ascontiguousarray(item)
            h.update(f"ndarray{arr.shape}{arr.dtype.str}|".encode())
            if arr.dtype.kind == "O":
                h.update(repr(arr.tolist()).encode())
            else:
                h.update(arr.tobytes())
        else:
            h.update(f"{type(item).__name__}:{item!r}|".encode())
    return h.hexdigest()


if __name__ == "__main__":
    raise SystemExit(main())
