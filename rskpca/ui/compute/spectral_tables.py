"""The Spectral page's scores and tables: clusters against the label column (NMI, CA, ARI and the
cluster x label table), the reduced fit against the exact one, the eigenvalues, and every row's results
for the CSV. The fits themselves are :mod:`rskpca.ui.compute.spectral`'s.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from rskpca.core.metrics import align, alignment_error
from rskpca.data.datasets import labelled_rows
from rskpca.evaluation.clustering_scores import ClusteringScores, cluster_class_table, clustering_scores, matched_labels
from rskpca.ui.compute.spectral import SpectralFit

__all__ = ["MAX_LABEL_CLASSES", "pieces_note", "LabelScores", "label_problem", "label_classes", "label_scores", "scores_table",
           "comparison", "eigenvalue_table", "rows_table"]

#: Clusters are scored against a numeric label with at most this many distinct values (more: a measurement).
MAX_LABEL_CLASSES = 100


@dataclass(frozen=True)
class LabelScores:
    """A clustering against the label column (:func:`label_scores`): NMI, CA, ARI and the cluster x label table,
    on ``rows`` rows (those with a label)."""

    scores: ClusteringScores
    table: pd.DataFrame
    rows: int


def label_problem(y) -> str | None:
    """Why clusters cannot be scored against the label ``y``, or None when they can.

    >>> label_problem(None)
    'no label column'
    >>> label_problem(np.linspace(0, 1, MAX_LABEL_CLASSES + 1))
    'the label has 101 distinct numbers, a measurement rather than classes'
    """
    if y is None:
        return "no label column"
    y = np.asarray(y)
    present = y[labelled_rows(y)]
    if present.size == 0:
        return "every label is missing"
    if y.dtype.kind in "iuf" and np.unique(present).size > MAX_LABEL_CLASSES:
        return f"the label has {np.unique(present).size} distinct numbers, a measurement rather than classes"
    return None


def label_classes(y) -> int | None:
    """How many classes the label ``y`` has, or None where it has none to score against (:func:`label_problem`).

    >>> label_classes(np.array(["a", "b", None, "a"])), label_classes(None)
    (2, None)
    """
    if label_problem(y) is not None:
        return None
    y = np.asarray(y)
    return int(pd.unique(pd.Series(y[labelled_rows(y)])).size)


def label_scores(y, clusters) -> LabelScores | None:
    """NMI, CA and ARI of ``clusters`` against the label ``y``, and the cluster x label table
    (:mod:`rskpca.evaluation.clustering_scores`), on the rows with a label; None when :func:`label_problem`
    says the label is no class label. Clusters are numbered from 1, as the page draws them.

    >>> s = label_scores(np.array(["a", "a", "b", None], dtype=object), np.array([0, 0, 1, 1]))
    >>> s.rows, s.scores.ca, s.table.index.tolist()
    (3, 1.0, [1, 2])
    """
    if label_problem(y) is not None:
        return None
    y = np.asarray(y)
    keep = labelled_rows(y)
    labels, found = y[keep], np.asarray(clusters)[keep] + 1
    return LabelScores(clustering_scores(labels, found), cluster_class_table(labels, found), int(keep.sum()))


def scores_table(scores, *, agreement: float | None = None) -> pd.DataFrame | None:
    """One row per clustering (``{name: LabelScores or None}``, the first the reduced set's): NMI, CA and ARI
    against the label and the rows scored, with ``agreement`` (the ARI between the reduced and the exact
    clusters) beside the others; None when the first is not scored.

    >>> s = label_scores(np.array(["a", "a", "b"]), np.array([1, 1, 0]))
    >>> scores_table({"reduced": s, "exact": s}, agreement=1.0).columns.tolist()
    ['clusters', 'NMI', 'CA', 'ARI', 'rows scored', 'ARI vs the reduced set']
    """
    first = next(iter(scores.values()), None)
    if first is None:
        return None
    rows = [{"clusters": name, **found.scores.as_dict(), "rows scored": found.rows,
             "ARI vs the reduced set": 1.0 if i == 0 else agreement}
            for i, (name, found) in enumerate(scores.items()) if found is not None]
    table = pd.DataFrame(rows)
    return table if len(rows) > 1 else table.drop(columns="ARI vs the reduced set")


def comparison(reduced: SpectralFit, exact: SpectralFit | None) -> dict:
    """The reduced embedding in the exact one's frame and the measured errors against it.

    Returns ``{"embedding", "alignment_error", "eigenvalue_error", "cluster_ari"}``: without the exact
    fit, the reduced embedding as it is and None for the errors.
    """
    if exact is None:
        return {"embedding": reduced.embedding, "alignment_error": None, "eigenvalue_error": None,
                "cluster_ari": None}
    k = min(reduced.eigenvalues.size, exact.eigenvalues.size)
    embedded = reduced.embedding is not None  # else the rows wait (centers_fit): no embedding to compare
    aligned = error = None
    if embedded:
        # On the components the reduced fit computed: a budgeted clustering at k = 2 computes one, drawn with
        # a zero second axis, which is no error of the method's.
        cols = min(reduced.eigenvalues.size, reduced.embedding.shape[1], exact.embedding.shape[1])
        aligned = np.array(reduced.embedding, dtype=np.float64)
        aligned[:, :cols] = align(exact.embedding[:, :cols], reduced.embedding[:, :cols])
        error = alignment_error(exact.embedding[:, :cols], reduced.embedding[:, :cols])
    return {"embedding": aligned, "alignment_error": error,
            "eigenvalue_error": float(np.linalg.norm(reduced.eigenvalues[:k] - exact.eigenvalues[:k])),
            "cluster_ari": None if reduced.clusters is None else clustering_scores(exact.clusters,
                                                                                   reduced.clusters).ari}


def eigenvalue_table(spectra) -> pd.DataFrame:
    """One row per component, one column of eigenvalues per fit (blank where a fit has fewer).

    >>> eigenvalue_table({"reduced": [0.9, 0.5], "exact": [0.91]}).to_dict("list")
    {'component': [1, 2], 'reduced': [0.9, 0.5], 'exact': [0.91, nan]}
    """
    k = max((np.asarray(v).size for v in spectra.values()), default=0)
    table = {"component": list(range(1, k + 1))}
    for name, lam in spectra.items():
        lam = np.asarray(lam, dtype=np.float64).ravel()
        table[str(name)] = np.concatenate([lam, np.full(k - lam.size, np.nan)]).tolist()
    return pd.DataFrame(table)


def rows_table(row_ids, y, label_name, center_rows, reduced: SpectralFit, exact: SpectralFit | None) -> pd.DataFrame:
    """Every row's results, for the CSV: its row number, label, shadow center, cluster(s) and coordinates
    (reduced set as computed, not aligned; exact beside them when it ran)."""
    table = {"row": np.asarray(row_ids)}
    if y is not None:
        name = "label" if label_name is None else str(label_name)
        table[name if name != "row" else "label (row)"] = np.asarray(y)
    if center_rows is not None:
        table["shadow_center_row"] = np.asarray(center_rows)
    if reduced.clusters is not None:
        table["cluster"] = reduced.clusters + 1
        if exact is not None:
            table["exact_cluster"] = matched_labels(reduced.clusters, exact.clusters) + 1
    for j in range(reduced.embedding.shape[1]):
        table[f"c{j + 1}"] = reduced.embedding[:, j]
    if exact is not None:
        for j in range(exact.embedding.shape[1]):
            table[f"exact_c{j + 1}"] = exact.embedding[:, j]
    return pd.DataFrame(table)


#: A nontrivial eigenvalue of P within this of 1 stands for a piece of the graph that no edge joins to the rest.
PIECE_TOLERANCE = 1e-9
#: What joins the pieces, per affinity.
_JOINS = {"landmark": "fewer centers (a smaller center budget: each center then links more rows)",
          "gaussian": "a larger sigma (or fewer centers)",
          "local_scaling": "fewer centers or a larger sigma"}


def pieces_note(eigenvalues, affinity: str) -> str | None:
    """Why an embedding shows a few spots: the graph is in pieces, or None when it is connected.

    P's eigenvalue 1 has one eigenvector per connected piece of the graph (von Luxburg 2007, Prop. 4): past
    the trivial one (dropped), each further eigenvalue at 1 is one more piece, and the rows of a piece share
    their coordinates along those eigenvectors.

    >>> pieces_note([0.93, 0.5], "gaussian") is None
    True
    >>> pieces_note([1.0, 1.0, 0.9], "landmark").split(":")[0]
    'The graph is in at least 3 pieces that no edge joins (2 eigenvalues equal 1 besides the trivial one)'
    """
    c = int(np.sum(np.asarray(eigenvalues, dtype=np.float64) >= 1.0 - PIECE_TOLERANCE))
    if c == 0:
        return None
    return (f"The graph is in at least {c + 1} pieces that no edge joins ({c} eigenvalue{'s' if c > 1 else ''} "
            "equal 1 besides the trivial one): along those eigenvectors every row of a piece has the same "
            "coordinate, so the chart draws each piece as a spot, and k-means splits pieces apart before it "
            f"splits anything within one. If the pieces are not the groups you expect, "
            f"{_JOINS.get(affinity, 'fewer centers or a larger sigma')} joins them.")
