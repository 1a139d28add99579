"""The weighted eigenproblem (rskpca/core/eigen.py) and its parts: the choice of solver, the partial
(ARPACK, block) and float32 paths, each equal to the dense float64 solution or within its stated error;
the block Krylov solver (core/_block_krylov.py) and the centered operator (core/_centered_operator.py)."""

import numpy as np
import pytest
from synthetic import clustered_centers

from rskpca.core import eigen as _core
from rskpca.core._block_krylov import block_krylov, block_width, pivoted_start
from rskpca.core.eigen import CenteredWeightedOperator, choose_eigen_solver, kpca_on_centers, weighted_kpca
from rskpca.core.metrics import alignment_error
from rskpca.core.radial_kernels import kernel_matrix, kernel_matvec
from rskpca.core.weighted_kernel import weighted_kernel_blocks, weighted_kernel_matrix


# ----------------------------------------------------------------------------- the choice of solver


def test_eigensolver_choice_by_size():
    assert choose_eigen_solver(100, 5) == "dense"
    assert choose_eigen_solver(_core.DENSE_MAX_M + 1, 5) == "arpack"
    assert choose_eigen_solver(_core.DENSE_MAX_M + 1, None) == "dense"
    assert choose_eigen_solver(_core.DENSE_MAX_M + 1, _core.DENSE_MAX_M) == "dense"
    assert choose_eigen_solver(50, 5, "arpack") == "arpack"


def test_eigensolver_choice_by_components():
    m = _core.DENSE_MAX_M + 1000
    assert choose_eigen_solver(m, 5) == "arpack"
    assert choose_eigen_solver(m, 40) == "arpack"  # the block solver only when asked for
    assert choose_eigen_solver(m, 5, "block") == "block"


def test_auto_precision_is_float32_only_for_few_components():
    # "auto" solves a partial problem (m above DENSE_MAX_M, few components) on the float32 matrix
    # only below FLOAT32_MAX_COMPONENTS: with more, the certificate fails and the float64 refinement
    # after it costs more than float64 ARPACK alone.
    C, w = clustered_centers(m=_core.DENSE_MAX_M + 100)
    few = _core.kpca_on_centers(C, w, 5, sigma=2.5)
    many = _core.kpca_on_centers(C, w, _core.FLOAT32_MAX_COMPONENTS, sigma=2.5)
    assert "float32" in few.solver
    assert many.solver == "arpack"


def test_auto_solves_large_float32_problems_with_the_block_solver(monkeypatch):
    C, w = clustered_centers(m=_core.DENSE_MAX_M + 100)
    assert "block" not in _core.kpca_on_centers(C, w, 2, sigma=2.5).solver
    monkeypatch.setattr(_core, "BLOCK_MIN_M", C.shape[0])
    auto = _core.kpca_on_centers(C, w, 2, sigma=2.5)
    assert auto.solver == "block-float32"
    exact = _core.kpca_on_centers(C, w, 2, sigma=2.5, eigen_solver="arpack", precision="float64")
    np.testing.assert_allclose(auto.eigenvalues, exact.eigenvalues, rtol=1e-5)
    assert alignment_error(exact.eigenvectors, auto.eigenvectors) < 1e-3
    # many components stay float64 ARPACK whatever m
    assert _core.kpca_on_centers(C, w, _core.FLOAT32_MAX_COMPONENTS, sigma=2.5).solver == "arpack"


# ----------------------------------------------------- each path against the dense float64 solution


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


@pytest.mark.parametrize("center", [True, False])
@pytest.mark.parametrize("solver", ["arpack", "block"])
def test_float64_partial_paths_equal_dense(solver, center):
    C, w = clustered_centers()
    dense = weighted_kpca(kernel_matrix(C, sigma=2.5), w, 5, center=center, eigen_solver="dense")
    fast = kpca_on_centers(C, w, 5, sigma=2.5, center=center, eigen_solver=solver, precision="float64")
    assert fast.solver == solver
    np.testing.assert_allclose(fast.mu, dense.mu, rtol=1e-10, atol=1e-14)
    # ARPACK (tol 0) is the exact solver; the block solver stops at SUBSPACE_TOL
    tol = 1e-9 if solver == "arpack" else 1e-6
    np.testing.assert_allclose(fast.eigenvalues, dense.eigenvalues, rtol=tol)
    assert alignment_error(dense.eigenvectors, fast.eigenvectors) < (1e-6 if solver == "arpack" else
                                                                     _core.SUBSPACE_TOL)


@pytest.mark.parametrize("solver", ["arpack", "block"])
def test_float32_paths_within_stated_tolerance(solver):
    C, w = clustered_centers()
    # r = 2: a wide gap (eigenvalues 635, 631 | 163), so the float32 answer provably passes;
    # r = 5 on these centers (gap 151 -> 140) does not and falls back (next test).
    dense = weighted_kpca(kernel_matrix(C, sigma=2.5), w, 2, eigen_solver="dense")
    fast = kpca_on_centers(C, w, 2, sigma=2.5, eigen_solver=solver, precision="float32")
    assert fast.solver == f"{solver}-float32"
    # accepted only with a subspace sine below SUBSPACE_TOL; eigenvalues move by <= ||E||
    np.testing.assert_allclose(fast.eigenvalues, dense.eigenvalues, rtol=1e-4)
    X_new = np.random.default_rng(3).normal(50.0, 4.0, size=(400, 4))
    Z = kernel_matvec(X_new, C, dense.dual_coef, sigma=2.5) - dense.mu @ dense.dual_coef
    Z32 = kernel_matvec(X_new, C, fast.dual_coef, sigma=2.5) - fast.mu @ fast.dual_coef
    assert alignment_error(Z, Z32) < _core.SUBSPACE_TOL


@pytest.mark.parametrize("solver", ["arpack", "block"])
def test_failed_residual_check_is_refined_in_float64_then_falls_back_to_exact_arpack(solver, monkeypatch):
    C, w = clustered_centers()
    dense = weighted_kpca(kernel_matrix(C, sigma=2.5), w, 5, eigen_solver="dense")
    # r = 5: the float32 error over the gap fails the check by itself; block steps from the
    # float32 vectors on the float64 matrix pass the same check (no float32 error left).
    fast = kpca_on_centers(C, w, 5, sigma=2.5, eigen_solver=solver, precision="float32")
    assert fast.solver == f"block (refined from {solver}-float32)"
    assert alignment_error(dense.eigenvectors, fast.eigenvectors) < _core.SUBSPACE_TOL
    np.testing.assert_allclose(fast.eigenvalues, dense.eigenvalues, rtol=1e-6)
    # No answer can pass: the exact float64 ARPACK runs, started from the float32 vectors.
    monkeypatch.setattr(_core, "SUBSPACE_TOL", 1e-30)
    dense = weighted_kpca(kernel_matrix(C, sigma=2.5), w, 2, eigen_solver="dense")
    fast = kpca_on_centers(C, w, 2, sigma=2.5, eigen_solver=solver, precision="float32")
    assert fast.solver == f"arpack (fallback from {solver}-float32)"
    np.testing.assert_allclose(fast.eigenvalues, dense.eigenvalues, rtol=1e-9)
    assert alignment_error(dense.eigenvectors, fast.eigenvectors) < 1e-6


def test_zero_gap_fails_the_check():
    # Two identical, far-apart clusters: eigenvalues come in equal pairs, so the 1st/2nd
    # component split (r = 1) has no gap and no float32 answer is provably accurate.
    rng = np.random.default_rng(0)
    base = rng.normal(size=(60, 2))
    C = np.concatenate([base, base + 1e3])
    w = np.ones(120)
    fast = kpca_on_centers(C, w, 1, sigma=1.0, eigen_solver="arpack", precision="float32", center=False)
    assert fast.solver.startswith("arpack (fallback")


# -------------------------------------------------------------------------- the block Krylov solver


def test_block_width_is_k_rounded_up_to_eight():
    assert [block_width(k) for k in (1, 6, 8, 9, 21)] == [8, 8, 8, 16, 24]


@pytest.mark.parametrize("width", [None, 4, 16])
def test_block_krylov_at_any_width_finds_the_dense_pairs(width):
    rng = np.random.default_rng(7)
    Q = np.linalg.qr(rng.normal(size=(400, 400)))[0]
    A = (Q * (0.8 ** np.arange(400))) @ Q.T  # eigenvalues 1, 0.8, 0.64, ...

    class Op:
        shape = A.shape

        def matmat(self, V):
            return A @ V

        def columns(self, cols):
            return A[:, cols]

    theta, V, ok = block_krylov(Op(), 6, np.random.RandomState(0), width=width,
                                tol_of=lambda t, res: np.linalg.norm(res[:5]) <= 1e-9 * (t[4] - t[5]))
    assert ok
    np.testing.assert_allclose(theta[:5], 0.8 ** np.arange(5), rtol=1e-10)
    # a width below k is raised to k (the Ritz pairs need k columns from the first block)
    assert V.shape == (400, 6)


def test_block_solver_that_never_converges_falls_back():
    C, w = clustered_centers()
    rng = np.random.RandomState(0)
    op = CenteredWeightedOperator(weighted_kernel_matrix(C, w, sigma=2.5), np.sqrt(w), True)
    assert block_krylov(op, 6, rng, tol_of=lambda theta, resid: False, max_steps=3)[2] is False


def test_pivoted_start_spans_the_top_eigenvectors_of_a_low_rank_operator():
    # rank 4: four pivots reproduce the operator exactly, so the start holds its top 3 eigenvectors
    rng = np.random.default_rng(1)
    Q = np.linalg.qr(rng.normal(size=(200, 4)))[0]
    A = (Q * [9.0, 5.0, 2.0, 1.0]) @ Q.T
    U = pivoted_start(lambda i: A[:, i], np.diagonal(A), 3, 10)
    assert U.shape == (200, 3)  # stopped at the rank, then the top 3 of 4 directions
    np.testing.assert_allclose(U.T @ U, np.eye(3), atol=1e-12)
    assert alignment_error(Q[:, :3], U) < 1e-8


def test_pivoted_start_of_a_zero_operator_is_empty():
    assert pivoted_start(lambda i: np.zeros(5), np.zeros(5), 2, 6).shape == (5, 0)


def test_block_solver_answer_does_not_depend_on_the_random_state(monkeypatch):
    # the block solver starts from a pivoted Cholesky, not random vectors: the same bits for any seed
    C, w = clustered_centers(m=_core.DENSE_MAX_M + 100)
    monkeypatch.setattr(_core, "BLOCK_MIN_M", C.shape[0])
    a, b = (_core.kpca_on_centers(C, w, 2, sigma=2.5, random_state=np.random.RandomState(seed)) for seed in (0, 7))
    assert a.solver == b.solver == "block-float32"
    np.testing.assert_array_equal(a.eigenvectors, b.eigenvectors)


def test_hopeless_block_solve_stops_without_another_pass(monkeypatch):
    # Once the float32 error alone fails the check, more steps are wasted passes: the
    # fallback starts at once, from the Ritz vectors so far.
    C, w = clustered_centers()
    op = CenteredWeightedOperator(weighted_kernel_matrix(C, w, sigma=2.5), np.sqrt(w), True)
    passes = []
    monkeypatch.setattr(op, "_matmat", lambda V: passes.append(V.shape[1]) or op.M @ V)
    theta, V, ok = block_krylov(op, 6, np.random.RandomState(0), tol_of=lambda t, r: False,
                                 hopeless=lambda t, r: len(passes) == 1)
    assert not ok and len(passes) == 1 and V.shape == (C.shape[0], 6)


# ---------------------------------------------------------------------------- the centered operator


def test_pivoted_start_columns_are_the_operators_own():
    # the centered operator's column() and diagonal() against its product with unit vectors
    C, w = clustered_centers()
    sw = np.sqrt(w)
    blocks, M_sw = weighted_kernel_blocks(C, w, sigma=2.5, times=sw, block_rows=64)
    op = CenteredWeightedOperator(blocks, sw, True, M_sw=M_sw)
    dense = op.matmat(np.eye(C.shape[0]))
    np.testing.assert_allclose(op.column(70), dense[:, 70], rtol=1e-12, atol=1e-9)
    np.testing.assert_allclose(op.diagonal(), np.diagonal(dense), rtol=1e-12, atol=1e-9)


@pytest.mark.parametrize("center", [True, False])
def test_operator_columns_are_its_products_with_unit_vectors(center):
    rng = np.random.default_rng(2)
    C, w = rng.normal(size=(60, 3)), rng.integers(1, 5, 60).astype(float)
    op = CenteredWeightedOperator(weighted_kernel_matrix(C, w, sigma=1.5), np.sqrt(w), center)
    cols = np.array([0, 7, 59])
    E = np.zeros((60, 3))
    E[cols, np.arange(3)] = 1.0
    np.testing.assert_allclose(op.columns(cols), op.matmat(E), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_parallel_passes_equal_one_product(threads, dtype):
    rng = np.random.default_rng(4)
    C, w = rng.normal(size=(600, 3)), rng.integers(1, 5, 600).astype(float)
    M = weighted_kernel_matrix(C, w, sigma=1.5, dtype=dtype)
    threads(3)
    one = CenteredWeightedOperator(M, np.sqrt(w), True)
    split = CenteredWeightedOperator(M, np.sqrt(w), True, parallel=True)  # 3 blocks of 256 rows at most
    V = rng.normal(size=(600, 7))
    tol = 1e-5 if dtype == np.float32 else 1e-12
    np.testing.assert_allclose(split.matmat(V), one.matmat(V), rtol=tol, atol=tol * np.abs(M).max())
    np.testing.assert_allclose(split.matvec(V[:, 0]), one.matvec(V[:, 0]), rtol=tol, atol=tol * np.abs(M).max())
