"""The entry point of rskpca.core.shadow: every path ("compiled", "blas") and "auto" give the literal
Algorithm 2 (tests/reference.py) on ties, duplicates, chains and random data; the argument checks; the
result's invariants."""

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from hypothesis.extra.numpy import arrays

from reference import literal_shadow
from rskpca import shadow_centers
from rskpca.core.shadow import COMPILED_MAX_DIM, SHADOW_ALGORITHMS, exact_squared_distances

#: The paths "auto" chooses between.
PATHS = ["compiled", "blas"]


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


def _assert_same_as_literal(X, eps, algorithm):
    s = shadow_centers(X, sigma=eps * 4.0, ell=4.0, algorithm=algorithm)
    c, w, lab = literal_shadow(X, s.eps)
    np.testing.assert_array_equal(s.center_indices, c)
    np.testing.assert_array_equal(s.weights, w)
    np.testing.assert_array_equal(s.labels, lab)
    return s


def _lattice(d, k=9):
    axes = np.meshgrid(*[np.arange(k, dtype=float)] * d, indexing="ij")
    return np.stack(axes, -1).reshape(-1, d)


@pytest.mark.parametrize("algorithm", PATHS)
@pytest.mark.parametrize("d", [1, 2, 3])
def test_ties_at_exactly_eps_on_a_lattice(d, algorithm):
    # Integer lattice with eps = 1: neighbours sit at distance exactly eps and must
    # NOT be absorbed (strict <); shuffled so ties meet blocks in every order.
    X = _lattice(d, k=12 if d < 3 else 7)
    np.random.default_rng(d).shuffle(X)
    s = _assert_same_as_literal(X, 1.0, algorithm)
    assert s.m == X.shape[0]  # nothing is strictly closer than eps
    # just above the tie: the lattice neighbours along the axes are absorbed
    _assert_same_as_literal(X, np.nextafter(1.0, 2.0), algorithm)


@pytest.mark.parametrize("algorithm", PATHS)
@pytest.mark.parametrize("d", [1, 2, 3])
def test_duplicates_and_near_ties(d, algorithm):
    rng = np.random.default_rng(10 + d)
    base = np.round(rng.uniform(0, 4, size=(300, d)) / 0.25) * 0.25  # many exact-eps gaps
    X = np.repeat(base, rng.integers(1, 6, size=300), axis=0)
    X[::7] += 1e-13  # near ties straddling eps
    rng.shuffle(X)
    for eps in (0.25, 0.5, 1.0):
        _assert_same_as_literal(X, eps, algorithm)


@pytest.mark.parametrize("algorithm", PATHS)
def test_sorted_one_dimensional_chain(algorithm):
    # Sorted 1-d points 0.9 eps apart: every point depends on the one before it,
    # the longest possible chain for the in-order resolution.
    X = (np.arange(3000) * 0.9)[:, None]
    s = _assert_same_as_literal(X, 1.0, algorithm)
    assert s.center_indices.tolist() == list(range(0, 3000, 2))


@pytest.mark.parametrize("algorithm", PATHS)
def test_many_blocks_and_thousands_of_centers(algorithm):
    # Enough points that the screen truncates blocks (many uncovered points)
    # and later blocks screen against thousands of centers.
    rng = np.random.default_rng(2)
    X = rng.normal(size=(2500, 8))
    _assert_same_as_literal(X, 1.2, algorithm)
    _assert_same_as_literal(X, 3.0, algorithm)


@settings(max_examples=150, deadline=None)
@given(
    X=st.integers(1, 80).flatmap(
        lambda n: st.integers(1, 3).flatmap(
            lambda d: arrays(np.float64, (n, d),
                             elements=st.sampled_from([-1.0, -0.5, 0.0, 0.25, 0.5, 1.0, 1.5, 2.0]))
        )
    ),
    eps=st.sampled_from([0.25, 0.5, 0.75, 1.0, 1.5]),
)
def test_every_path_equals_literal_on_tie_heavy_inputs(X, eps):
    # Coordinates on a coarse dyadic grid: distances hit eps exactly all the time.
    for algorithm in PATHS:
        _assert_same_as_literal(X, eps, algorithm)


def test_auto_runs_the_compiled_scan_up_to_its_dimension_and_the_screen_above():
    rng = np.random.default_rng(0)
    assert shadow_centers(rng.normal(size=(200, 1)), sigma=1.0, ell=2.0).algorithm == "compiled"
    assert shadow_centers(rng.normal(size=(200, COMPILED_MAX_DIM)), sigma=5.0, ell=2.0).algorithm == "compiled"
    high = rng.normal(size=(200, COMPILED_MAX_DIM + 1))
    auto = shadow_centers(high, sigma=5.0, ell=2.0)
    assert auto.algorithm == "blas"
    np.testing.assert_array_equal(auto.labels, shadow_centers(high, sigma=5.0, ell=2.0, algorithm="compiled").labels)


def test_auto_screens_data_near_the_float64_range():
    # The compiled scan's principal frame overflows there; the screen rescales its coordinates.
    X = np.array([[0.0], [1e-300], [1e300]])
    s = shadow_centers(X, sigma=1e-3, ell=1.0)
    assert s.algorithm == "blas"
    assert s.labels.tolist() == [0, 0, 1]  # squared norms overflow unless the screen rescales
    X = np.array([[1e200, 0.0], [1e200, 1e190], [0.0, 0.0], [-1e200, 5.0], [-1e200, 6.0]])
    s = shadow_centers(X, sigma=2.0, ell=1.0)
    assert s.labels.tolist() == [0, 1, 2, 3, 3]


def test_bad_algorithm_and_radius_are_clear_errors():
    X = np.zeros((5, 4))
    assert SHADOW_ALGORITHMS == ("auto", "compiled", "blas")
    with pytest.raises(ValueError, match="algorithm must be one of"):
        shadow_centers(X, sigma=1.0, ell=1.0, algorithm="kdtree")
    with pytest.raises(ValueError, match="sigma / ell"):
        shadow_centers(X, sigma=1e-200, ell=1e200)


@pytest.mark.parametrize("d", [1, 4])
def test_the_removed_grid_path_says_what_replaces_it(d):
    with pytest.raises(ValueError, match=r"algorithm='grid'.*removed.*'auto' and 'compiled'.*low-dimensional"):
        shadow_centers(np.zeros((5, d)), sigma=1.0, ell=1.0, algorithm="grid")


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
