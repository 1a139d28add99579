"""rskpca.plotting.views_in_3d: which embeddings a 3-D figure draws (one WebGL context per scene)."""

from rskpca.evaluation.methods import METHODS
from rskpca.plotting import MAX_3D_VIEWS, views_in_3d

RSKPCA = METHODS["rskpca"].label


def test_the_reference_then_rskpca_then_the_lowest_errors():
    labels = ["Exact KPCA", "A", "B", RSKPCA, "C", "D"]
    errors = {"A": 0.4, "B": 0.1, RSKPCA: 0.9, "C": 0.2, "D": 0.05}
    drawn, left_out = views_in_3d(labels, errors)
    assert drawn == ["Exact KPCA", RSKPCA, "D", "B"] and len(drawn) == MAX_3D_VIEWS
    assert left_out == ["C", "A"]
    assert sorted(drawn + left_out) == sorted(labels)


def test_few_enough_views_are_all_drawn_in_their_order_of_preference():
    drawn, left_out = views_in_3d(["Exact KPCA", "A", RSKPCA], {"A": 0.1, RSKPCA: 0.2})
    assert drawn == ["Exact KPCA", RSKPCA, "A"] and left_out == []


def test_missing_errors_come_last_and_ties_keep_the_given_order():
    drawn, left_out = views_in_3d(["ref", "x", "y", "z", "w"], {"w": 0.5}, max_views=3)
    assert drawn == ["ref", "w", "x"] and left_out == ["y", "z"]
    assert views_in_3d(["ref", "x"], None) == (["ref", "x"], [])
