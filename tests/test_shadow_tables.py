"""rskpca.evaluation.shadow_tables: a shadow as a table per center and a table per row."""

import numpy as np
import pandas as pd
import pytest

from rskpca.core.shadow import shadow_centers
from rskpca.evaluation.shadow_tables import assignment_table, centers_table


@pytest.fixture
def shadow_and_data():
    X = np.random.default_rng(0).normal(size=(200, 3))
    return shadow_centers(X, sigma=1.0, ell=2.0), X


def test_the_assignment_table_has_a_row_per_data_row_in_its_shadow_set(shadow_and_data):
    s, X = shadow_and_data
    ids = pd.RangeIndex(1000, 1200)  # the data's own row labels
    t = assignment_table(s, X, ids)
    assert list(t.columns) == ["row", "shadow_set", "is_center", "distance_to_center"]
    assert t.shape[0] == s.n and t["row"].tolist() == list(ids)
    assert t["is_center"].sum() == s.m and set(np.flatnonzero(t["is_center"])) == set(s.center_indices.tolist())
    np.testing.assert_array_equal(t["shadow_set"], s.labels)
    assert (t["distance_to_center"] < s.eps).all()
    assert (t.loc[t["is_center"], "distance_to_center"] == 0).all()
    literal = np.linalg.norm(X - X[s.center_indices[s.labels]], axis=1)
    np.testing.assert_allclose(t["distance_to_center"], literal, rtol=1e-12, atol=1e-15)
    # each set's size is its center's weight
    np.testing.assert_array_equal(t.groupby("shadow_set").size().to_numpy(), s.weights)


def test_the_centers_table_names_each_centers_row_and_weight(shadow_and_data):
    s, X = shadow_and_data
    ids = np.arange(200) * 2 + 1
    t = centers_table(s, ids)
    assert t["center"].tolist() == list(range(s.m))
    np.testing.assert_array_equal(t["row"], ids[s.center_indices])
    assert t["weight"].sum() == s.n
    assert centers_table(s)["row"].tolist() == s.center_indices.tolist()  # positions by default


def test_row_labels_must_name_every_row(shadow_and_data):
    s, X = shadow_and_data
    with pytest.raises(ValueError, match="each of the 200 rows"):
        assignment_table(s, X, np.arange(10))
