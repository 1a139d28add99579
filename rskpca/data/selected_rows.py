"""A selection of rows: where they are in the data, their table, and the shadow centers that absorbed them.

A selection is a set of *original row numbers* (positions in the user's table,
:attr:`~rskpca.data.datasets.Dataset.row_ids`), so it means the same rows in every view,
whether that view shows all the data or a sample of it. Pure functions on arrays:
the app keeps the selection in its session and the figures read row numbers
from their ``customdata``.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

__all__ = ["positions_of_rows", "selected_rows_table", "absorbing_centers"]


def positions_of_rows(row_ids, selected) -> np.ndarray:
    """Positions (in the data) of the selected original rows, in the data's order.

    Rows of the selection that the data do not hold (dropped, or left out by the
    row cap) are skipped.

    Parameters
    ----------
    row_ids : array-like of int, shape (n,)
        Original row number of each row of the data.
    selected : array-like of int
        Original row numbers.

    Returns
    -------
    ndarray of intp

    Examples
    --------
    >>> positions_of_rows([10, 4, 7, 2], [2, 10, 99]).tolist()
    [0, 3]
    """
    row_ids = np.asarray(row_ids).ravel()
    selected = np.asarray(selected, dtype=row_ids.dtype if row_ids.size else np.int64).ravel()
    return np.flatnonzero(np.isin(row_ids, selected))


def selected_rows_table(X, row_ids, selected, *, feature_names=None, y=None, label_name=None) -> pd.DataFrame:
    """The selected rows as a table: original row number, the features, the label.

    Parameters
    ----------
    X : array-like of shape (n, d)
    row_ids : array-like of int, shape (n,)
        Original row number of each row of ``X``.
    selected : array-like of int
        Original row numbers to show (those not in the data are skipped).
    feature_names : sequence of str or None
        Column names of ``X`` (default ``x0``, ``x1``, ...).
    y : array-like of shape (n,) or None
        The label, shown last.
    label_name : str or None
        Its column name (default ``label``).

    Returns
    -------
    pandas.DataFrame
        Column ``row`` first, in the data's order. A feature or label that is itself
        named ``row`` keeps its name beside it.

    Examples
    --------
    >>> import numpy as np
    >>> selected_rows_table(np.array([[1.0, 2.0], [3.0, 4.0]]), [5, 9], [9], feature_names=["a", "b"],
    ...                     y=np.array(["u", "v"]), label_name="class").to_dict("records")
    [{'row': 9, 'a': 3.0, 'b': 4.0, 'class': 'v'}]
    """
    X = np.asarray(X)
    if X.ndim != 2:
        raise ValueError(f"X must be a 2-D array (rows, features); got shape {X.shape}.")
    row_ids = np.asarray(row_ids).ravel()
    if row_ids.shape[0] != X.shape[0]:
        raise ValueError(f"row_ids has {row_ids.shape[0]} entries but X has {X.shape[0]} rows; pass one per row.")
    names = [f"x{j}" for j in range(X.shape[1])] if feature_names is None else [str(f) for f in feature_names]
    if len(names) != X.shape[1]:
        raise ValueError(f"feature_names has {len(names)} names but X has {X.shape[1]} columns.")
    pos = positions_of_rows(row_ids, selected)
    table = pd.DataFrame(X[pos], columns=names)
    table.insert(0, "row", row_ids[pos], allow_duplicates=True)
    if y is not None:
        y = np.asarray(y)
        if y.shape[0] != X.shape[0]:
            raise ValueError(f"y has {y.shape[0]} entries but X has {X.shape[0]} rows; pass one per row.")
        table.insert(table.shape[1], "label" if label_name is None else str(label_name), y[pos],
                     allow_duplicates=True)
    return table


def absorbing_centers(labels, center_indices, weights, row_ids, selected) -> pd.DataFrame:
    """Which shadow centers absorbed the selected rows, and how many of them each.

    In the shadow density estimate (Kingravi, Vela & Gray, 2013, Algorithm 2) every
    point belongs to the shadow set of exactly one center, and the center's weight is
    the size of that set; a selection therefore spreads over a few centers.

    Parameters
    ----------
    labels : array-like of int, shape (n,)
        Center (``0 .. m-1``) each row of the data belongs to
        (:attr:`~rskpca.core.shadow.ShadowResult.labels`).
    center_indices : array-like of int, shape (m,)
        Position in the data of each center.
    weights : array-like, shape (m,)
        Points each center absorbed (its weight).
    row_ids : array-like of int, shape (n,)
        Original row number of each row of the data.
    selected : array-like of int
        Original row numbers (those not in the data are skipped).

    Returns
    -------
    pandas.DataFrame
        One row per absorbing center: ``center`` (its number), ``center_row`` (its
        original row number), ``weight``, ``absorbed`` (selected rows in its shadow set)
        and ``share_of_weight`` (absorbed / weight); most absorbed first. The
        ``absorbed`` column sums to the number of selected rows in the data.

    Examples
    --------
    >>> absorbing_centers([0, 0, 1, 1, 1], [0, 2], [2, 3], [10, 11, 12, 13, 14], [11, 13, 14]).to_dict("records")
    [{'center': 1, 'center_row': 12, 'weight': 3, 'absorbed': 2, 'share_of_weight': 0.6666666666666666}, \
{'center': 0, 'center_row': 10, 'weight': 2, 'absorbed': 1, 'share_of_weight': 0.5}]
    """
    labels = np.asarray(labels, dtype=np.intp).ravel()
    centers = np.asarray(center_indices, dtype=np.intp).ravel()
    weights = np.asarray(weights).ravel()
    row_ids = np.asarray(row_ids).ravel()
    if labels.shape != row_ids.shape:
        raise ValueError(f"labels has {labels.size} entries but row_ids has {row_ids.size}; pass one per row.")
    if centers.shape != weights.shape:
        raise ValueError(f"center_indices has {centers.size} entries but weights has {weights.size}.")
    if labels.size and (labels.min() < 0 or labels.max() >= centers.size):
        raise ValueError("labels must be center numbers 0 .. m-1 (m = len(center_indices)).")
    pos = positions_of_rows(row_ids, selected)
    which, absorbed = np.unique(labels[pos], return_counts=True)
    w = weights[which]
    weight = w.astype(np.int64) if np.all(w == np.round(w)) else w
    table = pd.DataFrame({"center": which.astype(np.int64), "center_row": row_ids[centers[which]],
                          "weight": weight, "absorbed": absorbed.astype(np.int64),
                          "share_of_weight": absorbed / w.astype(np.float64)})
    return table.sort_values(["absorbed", "center"], ascending=[False, True], kind="stable").reset_index(drop=True)
