"""The shadow's fast paths (hash grid for d <= 3, blocked GEMM screen for any d) and the
eigensolver choice: each must equal the literal algorithm / the dense solver exactly."""

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from hypothesis.extra.numpy import arrays

from reference import literal_shadow
from rskpca import shadow_centers
from rskpca.core import eigen as _core
from rskpca.core.eigen import choose_eigen_solver, weighted_kpca
from rskpca.core.kernels import kernel_matrix
from rskpca.core.shadow import _resolve_in_order


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


@pytest.mark.parametrize("algorithm", ["grid", "blas"])
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


@pytest.mark.parametrize("algorithm", ["grid", "blas"])
@pytest.mark.parametrize("d", [1, 2, 3])
def test_duplicates_and_near_ties(d, algorithm):
    rng = np.random.default_rng(10 + d)
    base = np.round(rng.uniform(0, 4, size=(300, d)) / 0.25) * 0.25  # many exact-eps gaps
    X = np.repeat(base, rng.integers(1, 6, size=300), axis=0)
    X[::7] += 1e-13  # near ties straddling eps
    rng.shuffle(X)
    for eps in (0.25, 0.5, 1.0):
        _assert_same_as_literal(X, eps, algorithm)


@pytest.mark.parametrize("algorithm", ["grid", "blas"])
def test_sorted_one_dimensional_chain(algorithm):
    # Sorted 1-d points 0.9 eps apart: every point depends on the one before it,
    # the longest possible chain for the in-order resolution.
    X = (np.arange(3000) * 0.9)[:, None]
    s = _assert_same_as_literal(X, 1.0, algorithm)
    assert s.center_indices.tolist() == list(range(0, 3000, 2))


def test_grid_and_blas_agree_on_large_low_dimensional_data():
    rng = np.random.default_rng(5)
    X = np.concatenate([rng.normal(c, 0.4, size=(3000, 2)) for c in (0.0, 3.0, 7.0)])
    rng.shuffle(X)
    for eps in (0.02, 0.1, 0.6):
        g = shadow_centers(X, sigma=eps * 2, ell=2.0, algorithm="grid")
        b = shadow_centers(X, sigma=eps * 2, ell=2.0, algorithm="blas")
        assert (g.algorithm, b.algorithm) == ("grid", "blas")
        np.testing.assert_array_equal(g.center_indices, b.center_indices)
        np.testing.assert_array_equal(g.labels, b.labels)


def test_blas_path_with_many_blocks_matches_literal():
    # Enough points that the blocked scan truncates blocks (many uncovered points)
    # and later blocks screen against thousands of centers.
    rng = np.random.default_rng(2)
    X = rng.normal(size=(2500, 8))
    _assert_same_as_literal(X, 1.2, "blas")
    _assert_same_as_literal(X, 3.0, "blas")


def test_auto_screens_first_and_hands_over_to_the_grid(monkeypatch):
    rng = np.random.default_rng(0)
    assert shadow_centers(rng.normal(size=(50, 3)), sigma=1.0, ell=2.0).algorithm == "blas"
    assert shadow_centers(rng.normal(size=(50, 4)), sigma=1.0, ell=2.0).algorithm == "blas"
    # A low switch point forces the hand-over mid-scan; the grid resumes on the screen's
    # centers and labels, and the result is still the literal algorithm's.
    from rskpca.core import shadow as shadow_module
    for d in (1, 2, 3):
        monkeypatch.setitem(shadow_module.GRID_SWITCH_M, d, 5)
        X = rng.normal(size=(3000, d))
        s = _assert_same_as_literal(X, 0.3, "auto")
        assert s.algorithm == "blas+grid"


def test_grid_falls_back_when_cells_would_overflow():
    X = np.array([[0.0], [1e-300], [1e300]])
    s = shadow_centers(X, sigma=1e-3, ell=1.0)
    assert s.algorithm == "blas"
    assert s.labels.tolist() == [0, 0, 1]  # squared norms overflow unless the screen rescales
    X = np.array([[1e200, 0.0], [1e200, 1e190], [0.0, 0.0], [-1e200, 5.0], [-1e200, 6.0]])
    s = shadow_centers(X, sigma=2.0, ell=1.0)
    assert s.labels.tolist() == [0, 1, 2, 3, 3]
    with pytest.raises(ValueError, match="algorithm='blas'"):
        shadow_centers(X, sigma=1e-3, ell=1.0, algorithm="grid")


def test_bad_algorithm_and_grid_in_high_dimension_are_clear_errors():
    X = np.zeros((5, 4))
    with pytest.raises(ValueError, match="at most 3 features"):
        shadow_centers(X, sigma=1.0, ell=1.0, algorithm="grid")
    with pytest.raises(ValueError, match="algorithm must be one of"):
        shadow_centers(X, sigma=1.0, ell=1.0, algorithm="kdtree")
    with pytest.raises(ValueError, match="sigma / ell"):
        shadow_centers(X, sigma=1e-200, ell=1e200)


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
def test_grid_equals_literal_on_tie_heavy_inputs(X, eps):
    # Coordinates on a coarse dyadic grid: distances hit eps exactly all the time.
    for algorithm in ("grid", "blas"):
        _assert_same_as_literal(X, eps, algorithm)


def test_resolve_in_order_matches_a_plain_loop():
    rng = np.random.default_rng(0)
    k = 400
    pairs = {(int(j), int(i)) for j, i in rng.integers(0, k, size=(1500, 2)) if i < j}
    later = np.array([p[0] for p in pairs])
    earlier = np.array([p[1] for p in pairs])
    is_center, owner = _resolve_in_order(k, later, earlier)
    expect_center = np.ones(k, dtype=bool)
    expect_owner = np.arange(k)
    for j in range(k):
        nb = sorted(i for (jj, i) in pairs if jj == j and expect_center[i])
        if nb:
            expect_center[j] = False
            expect_owner[j] = nb[0]
    np.testing.assert_array_equal(is_center, expect_center)
    np.testing.assert_array_equal(owner, expect_owner)


def test_eigensolver_choice_by_size():
    assert choose_eigen_solver(100, 5) == "dense"
    assert choose_eigen_solver(_core.DENSE_MAX_M + 1, 5) == "arpack"
    assert choose_eigen_solver(_core.DENSE_MAX_M + 1, None) == "dense"
    assert choose_eigen_solver(_core.DENSE_MAX_M + 1, _core.DENSE_MAX_M) == "dense"
    assert choose_eigen_solver(50, 5, "arpack") == "arpack"


def test_partial_solver_equals_dense(monkeypatch):
    rng = np.random.default_rng(0)
    C = rng.normal(size=(300, 3))
    w = rng.integers(1, 20, size=300).astype(float)
    KC = kernel_matrix(C, sigma=1.5)
    dense = weighted_kpca(KC, w, 5, eigen_solver="dense")
    monkeypatch.setattr(_core, "DENSE_MAX_M", 100)  # make "auto" choose the partial solver
    part = weighted_kpca(KC, w, 5, eigen_solver="auto")
    assert (dense.solver, part.solver) == ("dense", "arpack")
    np.testing.assert_allclose(part.eigenvalues, dense.eigenvalues, rtol=1e-10)
    np.testing.assert_allclose(part.dual_coef, dense.dual_coef, rtol=1e-6, atol=1e-9)
