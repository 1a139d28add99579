"""A shadow (Algorithm 2) as tables: one row per center, one row per data row.

The rows are named by the data's own row labels (``row_ids``: positions in the user's table,
:attr:`~rskpca.data.datasets.Dataset.row_ids`), so a table downloaded from the app names the
rows of the user's file. Pure functions; the app offers them as CSV downloads.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

__all__ = ["centers_table", "assignment_table"]


def _row_labels(row_ids, n: int) -> np.ndarray:
    labels = np.arange(n) if row_ids is None else np.asarray(row_ids)
    if labels.shape != (n,):
        raise ValueError(f"row_ids must name each of the {n} rows the shadow was computed on; got shape "
                         f"{labels.shape}.")
    return labels


def centers_table(shadow, row_ids=None) -> pd.DataFrame:
    """One row per shadow center: its number, the data row it is, and its weight.

    Parameters
    ----------
    shadow : ShadowResult
        The shadow (:func:`~rskpca.core.shadow.shadow_centers`).
    row_ids : array-like of shape (n,), optional
        Each data row's label (default: its position).

    Returns
    -------
    pandas.DataFrame
        Columns ``center`` (0 .. m-1, in creation order), ``row`` (the center's row label) and
        ``weight`` (the rows in its shadow set, itself included; they sum to n).

    Examples
    --------
    >>> from rskpca.core.shadow import shadow_centers
    >>> s = shadow_centers(np.array([[0.0], [0.1], [3.0]]), sigma=1.0, ell=2.0)
    >>> centers_table(s, row_ids=[10, 11, 12]).to_dict("list")
    {'center': [0, 1], 'row': [10, 12], 'weight': [2, 1]}
    """
    labels = _row_labels(row_ids, shadow.n)
    return pd.DataFrame({"center": np.arange(shadow.m), "row": labels[shadow.center_indices],
                         "weight": shadow.weights})


def assignment_table(shadow, X, row_ids=None) -> pd.DataFrame:
    """One row per data row: its shadow set, whether it is that set's center, and how far from it it lies.

    Every row belongs to exactly one shadow set, within ``eps = sigma / ell`` of the set's center
    (Algorithm 2), so ``distance_to_center < eps``, and is 0 for the centers.

    Parameters
    ----------
    shadow : ShadowResult
        The shadow of ``X`` (:func:`~rskpca.core.shadow.shadow_centers`).
    X : array-like of shape (n, n_features)
        The rows the shadow was computed on.
    row_ids : array-like of shape (n,), optional
        Each row's label (default: its position).

    Returns
    -------
    pandas.DataFrame
        Columns ``row`` (the label), ``shadow_set`` (the center's number, 0 .. m-1),
        ``is_center`` and ``distance_to_center``, in the order of ``X``.

    Examples
    --------
    >>> from rskpca.core.shadow import shadow_centers
    >>> X = np.array([[0.0], [0.1], [3.0]])
    >>> t = assignment_table(shadow_centers(X, sigma=1.0, ell=2.0), X, row_ids=[10, 11, 12])
    >>> t.drop(columns="distance_to_center").to_dict("list")
    {'row': [10, 11, 12], 'shadow_set': [0, 0, 1], 'is_center': [True, False, True]}
    >>> t["distance_to_center"].round(3).tolist()
    [0.0, 0.1, 0.0]
    """
    labels = _row_labels(row_ids, shadow.n)
    is_center = np.zeros(shadow.n, dtype=bool)
    is_center[shadow.center_indices] = True
    return pd.DataFrame({"row": labels, "shadow_set": shadow.labels, "is_center": is_center,
                         "distance_to_center": shadow.distances_to_centers(X)})
