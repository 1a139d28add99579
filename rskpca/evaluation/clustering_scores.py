"""How well a clustering agrees with known classes: NMI, clustering accuracy, ARI, the cluster x class table.

The three scores the spectral clustering literature reports (Cai & Chen 2015; Huang et al. 2020):

* NMI, normalized mutual information (arithmetic mean normalisation, scikit-learn's default);
* CA, clustering accuracy: the fraction of rows whose cluster maps to their class under the best
  one-to-one matching of clusters to classes (Hungarian algorithm, Kuhn 1955);
* ARI, the adjusted Rand index (Hubert & Arabie 1985).

Labels of any type (text, integers, floats) are compared as categories.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy.optimize import linear_sum_assignment
from sklearn.metrics import adjusted_rand_score, normalized_mutual_info_score

__all__ = ["ClusteringScores", "clustering_scores", "cluster_class_table", "matched_labels"]


@dataclass(frozen=True)
class ClusteringScores:
    """NMI, CA and ARI of a clustering against classes, each in [0, 1] (ARI may be negative)."""

    nmi: float
    ca: float
    ari: float

    def as_dict(self) -> dict:
        """``{"NMI": ..., "CA": ..., "ARI": ...}``, the order papers print them in."""
        return {"NMI": self.nmi, "CA": self.ca, "ARI": self.ari}


def _codes(values) -> tuple[np.ndarray, np.ndarray]:
    """``(distinct values, code of each row)``; text and mixed columns compare as strings."""
    values = np.asarray(values)
    if values.ndim != 1:
        raise ValueError(f"labels must be one-dimensional, got shape {values.shape}")
    if values.dtype.kind == "O":
        values = values.astype(str)
    return np.unique(values, return_inverse=True)


def _contingency(y_true, y_pred) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(classes, clusters, table)`` with ``table[i, j]`` the rows of cluster i in class j."""
    classes, class_codes = _codes(y_true)
    clusters, cluster_codes = _codes(y_pred)
    if class_codes.size != cluster_codes.size:
        raise ValueError(f"y_true has {class_codes.size} rows but y_pred has {cluster_codes.size}")
    if class_codes.size == 0:
        raise ValueError("no rows to score")
    table = np.zeros((clusters.size, classes.size), dtype=np.int64)
    np.add.at(table, (cluster_codes, class_codes), 1)
    return classes, clusters, table


def clustering_scores(y_true, y_pred) -> ClusteringScores:
    """NMI, CA (best one-to-one matching of clusters to classes) and ARI of ``y_pred`` against ``y_true``.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        The known classes (any type).
    y_pred : array-like of shape (n_samples,)
        The clusters (any type).

    Returns
    -------
    ClusteringScores

    Examples
    --------
    >>> s = clustering_scores(["a", "a", "b", "b", "c"], [1, 1, 0, 0, 0])
    >>> round(s.ca, 2), round(s.nmi, 3), round(s.ari, 3)
    (0.8, 0.779, 0.545)
    """
    classes, clusters, table = _contingency(y_true, y_pred)
    rows, cols = linear_sum_assignment(-table)
    ca = table[rows, cols].sum() / table.sum()
    _, true_codes = _codes(y_true)
    _, pred_codes = _codes(y_pred)
    return ClusteringScores(nmi=float(normalized_mutual_info_score(true_codes, pred_codes)), ca=float(ca),
                            ari=float(adjusted_rand_score(true_codes, pred_codes)))


def cluster_class_table(y_true, y_pred) -> pd.DataFrame:
    """Rows of each cluster (index) in each class (columns), clusters ordered by their matched class.

    Clusters matched one-to-one to classes (as for CA) come first, in the order of their class, so the
    matched counts run down the diagonal; unmatched clusters follow.

    Examples
    --------
    >>> cluster_class_table(["a", "a", "b", "b", "c"], [1, 1, 0, 0, 0])  # doctest: +NORMALIZE_WHITESPACE
             a  b  c
    cluster
    1        2  0  0
    0        0  2  1
    """
    classes, clusters, table = _contingency(y_true, y_pred)
    rows, cols = linear_sum_assignment(-table)
    order = list(rows[np.argsort(cols)]) + [i for i in range(clusters.size) if i not in set(rows)]
    frame = pd.DataFrame(table[order], index=pd.Index(clusters[order], name="cluster"),
                         columns=pd.Index(classes.astype(str)))
    return frame


def matched_labels(reference, labels) -> np.ndarray:
    """``labels`` renamed to agree with ``reference`` as far as they can (Hungarian matching on the
    contingency table), so that one cluster has one colour in two views.

    Both must be integer labels; clusters left unmatched get new numbers above both.

    >>> matched_labels([0, 0, 1, 1, 2], [2, 2, 0, 0, 1]).tolist()
    [0, 0, 1, 1, 2]
    """
    ref, lab = np.asarray(reference), np.asarray(labels)
    ref_values, ref_codes = np.unique(ref, return_inverse=True)
    lab_values, lab_codes = np.unique(lab, return_inverse=True)
    table = np.zeros((lab_values.size, ref_values.size))
    np.add.at(table, (lab_codes, ref_codes), 1)
    rows, cols = linear_sum_assignment(-table)
    new = {int(r): ref_values[c] for r, c in zip(rows, cols)}
    spare = iter(range(int(max(ref_values.max(initial=0), lab_values.max(initial=0))) + 1, 1 << 62))
    mapping = np.array([new[i] if i in new else next(spare) for i in range(lab_values.size)])
    return mapping[lab_codes]
