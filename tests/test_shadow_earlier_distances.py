"""Shadows read off the table of distances to earlier rows (rskpca.core.shadow._earlier_distances)."""

import pickle
from unittest import mock

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from hypothesis.extra.numpy import arrays

import rskpca.core.shadow._earlier_distances as table_module
from reference import literal_shadow
from rskpca import shadow_centers
from rskpca.core.shadow import EarlierDistances, ShadowResult, shadow_centers_from_table
from rskpca.core.shadow import table_pays_off as pays_off


def _same(a, b):
    assert np.array_equal(a.center_indices, b.center_indices)
    assert np.array_equal(a.labels, b.labels)
    assert np.array_equal(a.weights, b.weights)
    assert np.array_equal(a.centers, b.centers)
    assert (a.eps, a.sigma, a.ell, a.kernel) == (b.eps, b.sigma, b.ell, b.kernel)


@settings(max_examples=150, deadline=None)
@given(
    X=st.integers(1, 50).flatmap(
        lambda n: st.integers(1, 40).flatmap(
            # few distinct values: duplicates, exact ties at eps and long chains of neighbours
            lambda d: arrays(np.float64, (n, d), elements=st.sampled_from([-1.0, 0.0, 0.5, 1.0, 3.0]))
            | arrays(np.float64, (n, d), elements=st.floats(-4, 4, allow_nan=False, width=32))
        )
    ),
    eps=st.floats(0.01, 6.0),
)
def test_the_table_gives_algorithm_2_as_written(X, eps):
    table = EarlierDistances(X)
    with mock.patch.object(table_module, "PAIRS_PER_ROW_AND_FEATURE", np.inf):  # never decline here
        s = shadow_centers_from_table(table, sigma=eps * 2.0, ell=2.0)
    centers, weights, labels = literal_shadow(X, eps * 2.0 / 2.0)
    assert s.algorithm == "table"
    assert s.center_indices.tolist() == centers.tolist()
    assert s.weights.tolist() == weights.tolist()
    assert s.labels.tolist() == labels.tolist()
    _same(s, shadow_centers(X, sigma=eps * 2.0, ell=2.0))


@pytest.fixture
def never_decline(monkeypatch):
    """Tiny data sets hold more pairs per row and feature than the table takes on."""
    monkeypatch.setattr(table_module, "PAIRS_PER_ROW_AND_FEATURE", np.inf)


def test_ties_at_eps_are_outside_as_in_the_scan(never_decline):
    # 0 -> 1 and 1 -> 2 are exactly eps = 1 apart (outside); 0 -> 0.5 inside
    X = np.array([[0.0], [1.0], [2.0], [0.5], [2.999999]])
    table = EarlierDistances(X)
    for ell in (1.0, 0.5, 4.0):
        _same(shadow_centers_from_table(table, sigma=ell, ell=ell), shadow_centers(X, sigma=ell, ell=ell))


def test_a_pair_the_float32_table_rounds_inside_is_decided_exactly(never_decline):
    # d^2 = 1 + 3.6e-8 is stored as 1.0 in float32, below eps^2 = 1 + 2.4e-8: outside, exactly
    X = np.array([[0.0], [np.sqrt(1.0 + 3.6e-8)], [0.2]])
    table = EarlierDistances(X)
    for ell in (1.0, 3.0):
        sigma = ell * np.sqrt(1.0 + 2.4e-8)
        s = shadow_centers_from_table(table, sigma=sigma, ell=ell)
        assert s.center_indices.tolist() == [0, 1]
        _same(s, shadow_centers(X, sigma=sigma, ell=ell))


@pytest.mark.parametrize("name", ["digits", "usps-like"])
def test_one_table_serves_every_sigma_and_ell_of_the_app(name):
    from sklearn.datasets import load_digits

    if name == "digits":
        X = load_digits().data.astype(float)
    else:  # 256 features, clusters of near-duplicates and scattered rows, as usps has
        rng = np.random.default_rng(0)
        X = np.repeat(rng.normal(size=(120, 256)), 5, axis=0) + 0.05 * rng.normal(size=(600, 256))
        X = np.vstack([X, rng.normal(size=(200, 256))])[rng.permutation(800)]
    table = EarlierDistances(X)
    sigma0 = float(np.median(np.linalg.norm(X[:200, None] - X[None, :200], axis=2)))
    read = 0
    for sigma in (0.3 * sigma0, sigma0, 3.0 * sigma0):
        for ell in (1.0, 2.5, 4.0, 7.5, 10.0):
            s = shadow_centers_from_table(table, sigma=sigma, ell=ell, kernel="laplacian")
            if s is not None:  # declined where too many pairs are within eps: the app scans there
                _same(s, shadow_centers(X, sigma=sigma, ell=ell, kernel="laplacian"))
                read += 1
    assert read >= 10


def test_too_many_pairs_within_eps_declines(monkeypatch):
    X = np.random.default_rng(1).normal(size=(300, 40))
    table = EarlierDistances(X)
    # 300 x 299 / 2 = 44,850 pairs, above 0.5 per row and feature (6,000): declined
    assert shadow_centers_from_table(table, sigma=100.0, ell=1.0) is None
    s = shadow_centers_from_table(table, sigma=1e-3, ell=1.0)  # no pair within eps: every row a center
    assert s is not None and s.m == 300
    monkeypatch.setattr(table_module, "PAIRS_PER_ROW_AND_FEATURE", np.inf)
    assert shadow_centers_from_table(table, sigma=100.0, ell=1.0).m == 1
    monkeypatch.setattr(table_module, "MAX_PAIRS", 100)
    assert shadow_centers_from_table(table, sigma=100.0, ell=1.0) is None


def test_the_table_refuses_what_the_shadow_refuses():
    with pytest.raises(ValueError, match="NaN"):
        EarlierDistances(np.array([[0.0, 1.0], [np.nan, 2.0]]))
    table = EarlierDistances(np.zeros((3, 2)))
    with pytest.raises(ValueError, match="sigma"):
        shadow_centers_from_table(table, sigma=0.0, ell=1.0)
    with pytest.raises(ValueError, match="ell"):
        shadow_centers_from_table(table, sigma=1.0, ell=-1.0)


def test_the_table_is_offered_where_it_was_measured_faster():
    assert pays_off(5000, 256) and pays_off(1797, 64)
    assert not pays_off(5000, 16) and not pays_off(1000, 2)  # the screen is cheaper per pair at small d
    assert not pays_off(table_module.MAX_ROWS + 1, 256)  # the table would not fit its memory budget


def test_centers_read_off_the_table_are_copied_only_when_asked_for_and_stay_put():
    X = np.random.default_rng(3).standard_normal((60, 40))
    table = EarlierDistances(X)
    X[:] = 0.0  # the caller's array changes after the table was made: the table kept its own rows
    s = shadow_centers_from_table(table, sigma=6.0, ell=1.0)
    assert s._centers is None  # nothing copied yet (the app's scrubber frames never ask)
    expected = table.X[s.center_indices]
    np.testing.assert_array_equal(s.centers, expected)
    assert s.centers is s.centers  # copied once
    assert np.any(expected != 0.0)
    # read-only when the indices are (the app's shared results)
    s2 = shadow_centers_from_table(table, sigma=6.0, ell=2.0)
    s2.center_indices.setflags(write=False)
    assert not s2.centers.flags.writeable
    # and survives pickling (st.cache_data pickles what it returns) with its centers
    restored = pickle.loads(pickle.dumps(s2))
    np.testing.assert_array_equal(restored.centers, s2.centers)
    with pytest.raises(AttributeError, match="read-only"):
        s.ell = 3.0


def test_a_scan_copies_its_centers_at_once_so_a_later_change_to_x_does_not_reach_them():
    X = np.random.default_rng(4).standard_normal((50, 3))
    s = shadow_centers(X, sigma=1.0, ell=2.0)
    before = X[s.center_indices].copy()
    X[:] = 7.0
    np.testing.assert_array_equal(s.centers, before)
    with pytest.raises(ValueError, match="one of them"):
        ShadowResult(center_indices=s.center_indices, weights=s.weights, labels=s.labels, eps=s.eps, sigma=1.0,
                     ell=2.0, kernel="gaussian")


def test_a_shared_result_asked_for_its_centers_from_many_threads_at_once_gives_them_to_each():
    from concurrent.futures import ThreadPoolExecutor

    X = np.random.default_rng(6).standard_normal((400, 40))
    table = EarlierDistances(X)
    for _ in range(20):  # a fresh lazy result each round, asked by 8 threads together
        s = shadow_centers_from_table(table, sigma=8.0, ell=2.0)
        with ThreadPoolExecutor(8) as pool:
            got = list(pool.map(lambda _: s.centers, range(8)))
        for centers in got:
            np.testing.assert_array_equal(centers, table.X[s.center_indices])


def test_a_radius_far_above_the_datas_spread_reads_the_table_without_overflow():
    # tiny rows are scaled up in the table, so a radius of 10 was beyond float32's range there: an overflow
    # warning (seen in a CI run's hypothesis example), though the answer was right
    import warnings

    X = np.array([[0.0], [1e-30], [2e-30]])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with mock.patch.object(table_module, "PAIRS_PER_ROW_AND_FEATURE", np.inf):
            s = shadow_centers_from_table(EarlierDistances(X), sigma=10.0, ell=2.0)
    assert s.center_indices.tolist() == [0] and s.weights.tolist() == [3]
