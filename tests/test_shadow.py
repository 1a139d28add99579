import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from hypothesis.extra.numpy import arrays

from reference import literal_shadow
from rskpca import shadow_centers
from rskpca.core.shadow import exact_squared_distances


def _datasets():
    rng = np.random.default_rng(1)
    clustered = np.concatenate([rng.normal(c, 0.3, size=(150, 3)) for c in (0.0, 4.0, 9.0)])
    rng.shuffle(clustered)
    dup = np.repeat(rng.normal(size=(30, 2)), rng.integers(1, 12, size=30), axis=0)
    rng.shuffle(dup)
    return {
        "random": (rng.normal(size=(600, 4)), 1.5),
        "clustered": (clustered, 0.8),
        "duplicates": (dup, 0.5),
        "one_d": (rng.uniform(0, 10, size=(700, 1)), 0.3),
        "grid_ties": (np.array([[i, j] for i in range(20) for j in range(20)], dtype=float), 1.0),
        "big_offset": (1e6 + rng.normal(size=(400, 3)), 1.0),
        "constant": (np.full((50, 3), 7.0), 0.1),
    }


@pytest.mark.parametrize("name", list(_datasets()))
def test_fast_shadow_equals_literal_algorithm_2(name):
    X, eps = _datasets()[name]
    s = shadow_centers(X, sigma=eps * 4.0, ell=4.0)
    c, w, lab = literal_shadow(X, s.eps)
    np.testing.assert_array_equal(s.center_indices, c)
    np.testing.assert_array_equal(s.weights, w)
    np.testing.assert_array_equal(s.labels, lab)
    np.testing.assert_array_equal(s.centers, X[c])
    assert s.eps == pytest.approx(eps)


def test_exact_ties_are_excluded():
    # Points exactly eps apart are NOT in each other's shadow (strict <).
    X = np.array([[0.0], [1.0], [2.0], [0.5]])
    s = shadow_centers(X, sigma=4.0, ell=4.0)  # eps = 1
    assert s.center_indices.tolist() == [0, 1, 2]
    assert s.labels.tolist() == [0, 1, 2, 0]  # 0.5 is within eps of 0 and 1: earliest wins


def test_random_order_is_seeded_and_maps_back():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(300, 2))
    a = shadow_centers(X, sigma=1.0, ell=2.0, order="random", random_state=7)
    b = shadow_centers(X, sigma=1.0, ell=2.0, order="random", random_state=7)
    np.testing.assert_array_equal(a.center_indices, b.center_indices)
    perm = np.random.RandomState(7).permutation(300)
    c, w, lab = literal_shadow(X[perm], 0.5)
    np.testing.assert_array_equal(a.center_indices, perm[c])
    np.testing.assert_array_equal(a.labels[perm], lab)
    np.testing.assert_array_equal(a.centers, X[a.center_indices])


def test_float32_input_gives_float64_centers():
    X = np.random.default_rng(0).normal(size=(100, 3)).astype(np.float32)
    s = shadow_centers(X, sigma=1.0, ell=4.0)
    assert s.centers.dtype == np.float64
    assert s.weights.sum() == 100


@settings(max_examples=300, deadline=None)
@given(
    X=st.integers(1, 60).flatmap(
        lambda n: st.integers(1, 4).flatmap(
            lambda d: arrays(np.float64, (n, d), elements=st.floats(-5, 5, allow_nan=False, width=32))
        )
    ),
    eps=st.floats(0.05, 3.0),
)
def test_shadow_invariants(X, eps):
    s = shadow_centers(X, sigma=eps * 3.0, ell=3.0)
    n = X.shape[0]
    assert s.weights.sum() == n
    assert np.all((s.labels >= 0) & (s.labels < s.m))
    # every point lies strictly within eps of its center (stated predicate)
    d2 = exact_squared_distances(X, s.centers[s.labels])
    assert np.all(d2 < s.eps**2)
    # centers are pairwise at least eps apart
    for i in range(s.m):
        assert np.all(exact_squared_distances(s.centers[i], s.centers[:i]) >= s.eps**2)
    # and the result is exactly the literal algorithm
    c, w, lab = literal_shadow(X, s.eps)
    np.testing.assert_array_equal(s.center_indices, c)
    np.testing.assert_array_equal(s.labels, lab)


@pytest.mark.parametrize("shape", [(0, 3), (1, 3), (5, 2), (300, 16), (7, 2000)])
def test_column_reduce_is_numpys_reduction_over_rows(shape):
    from rskpca.core.validation import column_reduce
    A = np.random.default_rng(0).normal(size=shape)
    for ufunc, start in ((np.add, 0.0), (np.maximum, -np.inf), (np.minimum, np.inf)):
        expect = ufunc.reduce(A, axis=0, initial=start)
        for B in (A, np.asfortranarray(A)):
            got = column_reduce(ufunc, B)
            if ufunc is np.add:  # summed in another order
                np.testing.assert_allclose(got, expect, rtol=1e-12, atol=1e-12)
            else:
                np.testing.assert_array_equal(got, expect)
