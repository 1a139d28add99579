"""rskpca.evaluation.clustering_scores against scikit-learn and against hand-counted cases."""

import numpy as np
import pytest
from sklearn.metrics import adjusted_rand_score, normalized_mutual_info_score

from rskpca.evaluation.clustering_scores import cluster_class_table, clustering_scores, matched_labels


def test_perfect_clustering_under_renaming_scores_one():
    y = np.array(["W", "W", "A", "Q", "Q", "A"])
    s = clustering_scores(y, [5, 5, 2, 9, 9, 2])
    assert (s.nmi, s.ca, s.ari) == pytest.approx((1.0, 1.0, 1.0))


def test_ca_is_the_best_one_to_one_matching():
    # clusters {0: a,a,b}, {1: b,b,c}: best matching 0->a, 1->b gives 2 + 2 of 6
    s = clustering_scores(list("aabbbc"), [0, 0, 0, 1, 1, 1])
    assert s.ca == pytest.approx(4 / 6)


def test_more_clusters_than_classes_leaves_the_extra_unmatched():
    s = clustering_scores([0, 0, 1, 1], [0, 1, 2, 3])
    assert s.ca == pytest.approx(0.5)


def test_agrees_with_scikit_learn_on_random_labels():
    rng = np.random.default_rng(0)
    y, c = rng.integers(0, 26, 500), rng.integers(0, 20, 500)
    s = clustering_scores(y.astype(str), c)
    assert s.nmi == pytest.approx(normalized_mutual_info_score(y, c))
    assert s.ari == pytest.approx(adjusted_rand_score(y, c))


def test_table_puts_the_matched_counts_on_the_diagonal():
    t = cluster_class_table(["x"] * 3 + ["y"] * 2, [7, 7, 7, 3, 3])
    assert list(t.columns) == ["x", "y"] and t.values.tolist() == [[3, 0], [0, 2]]
    assert t.values.sum() == 5


@pytest.mark.parametrize("y_true, y_pred, match", [
    ([0, 1], [0], "rows"),
    ([], [], "no rows"),
    (np.zeros((2, 2)), [0, 1], "one-dimensional"),
])
def test_bad_input_is_a_clear_error(y_true, y_pred, match):
    with pytest.raises(ValueError, match=match):
        clustering_scores(y_true, y_pred)


def test_matched_labels_renames_to_the_reference():
    assert matched_labels([0, 0, 1, 1], [1, 1, 0, 0]).tolist() == [0, 0, 1, 1]
