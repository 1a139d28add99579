"""The center budget (issue 37): the smallest shadow radius, to about 10 %, whose m fits the budget.

``shadow_within_budget`` brackets the radius on a subsample and aims its full scans by the full/subsample
ratio of counts. Whatever the path, the answer must be an ordinary shadow at its radius (Algorithm 2's,
bit for bit), within the budget, and no wider than needed.
"""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from rskpca.core.shadow import shadow_centers
from rskpca.core.budget_target import MIN_TARGET, ROWS_PER_CENTER
from rskpca.decomposition._center_budget import FULL_SCAN_TOLERANCE, shadow_within_budget


def _check(X, result, target):
    assert result.m <= target
    again = shadow_centers(X, sigma=result.eps, ell=1.0)
    assert np.array_equal(again.center_indices, result.center_indices)
    assert np.array_equal(again.weights, result.weights)
    # no wider than needed: a radius a little more than the tolerance below it does not fit (m is not
    # monotone in the radius in general, hence the margin)
    assert shadow_centers(X, sigma=result.eps / (FULL_SCAN_TOLERANCE * 1.1), ell=1.0).m > target


@pytest.mark.parametrize("n, d, max_centers", [(3000, 3, 100), (6000, 40, 300), (12000, 8, 400), (5000, 64, 1000)])
def test_the_radius_is_the_smallest_within_the_target(n, d, max_centers):
    rng = np.random.default_rng(n + d)
    X = rng.normal(size=(n, d)) * rng.uniform(0.5, 2.0, size=d)
    result = shadow_within_budget(X, sigma=float(np.sqrt(d)), ell=None, max_centers=max_centers, random_state=0)
    target = min(max_centers, max(n // ROWS_PER_CENTER, MIN_TARGET))
    _check(X, result, target)
    assert result.m >= 0.5 * target  # not far below: the radius was searched, not guessed wide


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(n=st.integers(60, 2500), d=st.integers(1, 40), levels=st.sampled_from([None, 3, 6]),
       seed=st.integers(0, 2**16), max_centers=st.integers(5, 400))
def test_any_data_gets_an_exact_shadow_within_the_budget(n, d, levels, seed, max_centers):
    # integer-valued features (levels) make ties and duplicate rows
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)) if levels is None else rng.integers(0, levels, size=(n, d)).astype(float)
    result = shadow_within_budget(X, sigma=1.0, ell=None, max_centers=max_centers, random_state=seed)
    target = min(max_centers, max(n // ROWS_PER_CENTER, MIN_TARGET))
    assert result.m <= max(target, 1)
    again = shadow_centers(X, sigma=result.eps, ell=1.0)
    assert np.array_equal(again.center_indices, result.center_indices)


def test_a_given_ell_is_kept_when_it_fits_and_widened_when_not():
    X = np.random.default_rng(1).normal(size=(4000, 5))
    kept = shadow_within_budget(X, sigma=2.0, ell=1.0, max_centers=4000, random_state=0)
    assert kept.eps == 2.0
    widened = shadow_within_budget(X, sigma=2.0, ell=8.0, max_centers=150, random_state=0)
    assert widened.eps > 2.0 / 8.0 and widened.m <= 150


def test_fewer_rows_than_the_target_keeps_every_distinct_row():
    X = np.repeat(np.arange(30.0)[:, None], 2, axis=0)  # 30 distinct rows, each twice
    result = shadow_within_budget(X, sigma=1.0, ell=None, max_centers=1000, random_state=0)
    assert result.m == 30
