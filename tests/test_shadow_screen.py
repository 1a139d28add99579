"""The GEMM screen of the shadow (rskpca.core.shadow._screen): its float32 and float64 screens give
the literal Algorithm 2, and earliest_center_within (screen and compiled grid) is the exact predicate's earliest
center."""

import numpy as np
import pytest

from reference import literal_shadow
from rskpca.core.shadow import SCREEN_REL_MARGIN, earliest_center_within, exact_squared_distances
from rskpca.core.shadow._screen import _blas_scan


def test_float32_screen_equals_float64_screen_and_literal():
    rng = np.random.default_rng(6)
    for X, eps in ((rng.normal(size=(3000, 8)), 1.5), (np.round(rng.uniform(0, 4, (2000, 3)) * 4) / 4, 0.25)):
        a = _blas_scan(X, eps, "float64")
        b = _blas_scan(X, eps, "float32")
        np.testing.assert_array_equal(a[0], b[0])
        np.testing.assert_array_equal(a[1], b[1])
        c, _, lab = literal_shadow(X, eps)
        np.testing.assert_array_equal(b[0], c)
        np.testing.assert_array_equal(b[1], lab)


@pytest.mark.parametrize("algorithm", ["compiled", "blas"])
@pytest.mark.parametrize("offset", [0.0, 1e6])
def test_earliest_center_within_is_the_first_center_the_exact_predicate_puts_inside(offset, algorithm):
    # Dyadic coordinates: many pairs exactly eps apart (outside), near the screen's margin after the offset.
    rng = np.random.default_rng(3)
    X = offset + np.round(rng.uniform(0, 4, size=(700, 3)) * 4) / 4
    C = offset + np.round(rng.uniform(0, 4, size=(90, 3)) * 4) / 4
    eps = 0.5
    got = earliest_center_within(X, C, eps, algorithm=algorithm)
    inside = np.stack([exact_squared_distances(x, C) < eps * eps for x in X])
    expect = np.where(inside.any(axis=1), inside.argmax(axis=1), -1)
    np.testing.assert_array_equal(got, expect)
    assert 0 < SCREEN_REL_MARGIN < 1e-6  # a rounding margin, not a change of radius


@pytest.mark.parametrize("algorithm", ["compiled", "blas"])
def test_earliest_center_within_without_rows_or_centers(algorithm):
    assert earliest_center_within(np.zeros((0, 2)), np.zeros((3, 2)), 1.0, algorithm=algorithm).shape == (0,)
    assert earliest_center_within(np.zeros((4, 2)), np.zeros((0, 2)), 1.0, algorithm=algorithm).tolist() == [-1] * 4


def test_earliest_center_within_near_the_float64_range_and_bad_arguments():
    # The compiled path cannot project values near 1e300 ("auto" falls back to the screen, which rescales).
    X = np.array([[1e300, 0.0], [-1e300, 1.0], [1e300, 5e299]])
    assert earliest_center_within(X, X[:1], 1e299).tolist() == [0, -1, -1]
    with pytest.raises(ValueError, match="algorithm='blas'"):
        earliest_center_within(X, X[:1], 1e299, algorithm="compiled")
    with pytest.raises(ValueError, match="algorithm must be one of"):
        earliest_center_within(X, X[:1], 1.0, algorithm="gemm")
    with pytest.raises(ValueError, match="same number of columns"):
        earliest_center_within(X, np.zeros((1, 3)), 1.0)
