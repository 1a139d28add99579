"""The eigensolver choice and the fit's fast paths (partial and float32 solvers, the weighted kernel):
each must equal the dense float64 solution, or stay within its stated error. (The shadow's paths are
tested in tests/test_shadow*.py.)"""

import numpy as np
import pytest

from rskpca.core import eigen as _core
from rskpca.core.eigen import choose_eigen_solver, weighted_kpca
from rskpca.core.radial_kernels import kernel_matrix


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


# ---- levers of issue 13: each new path against the existing exact one -------------------

from rskpca.core.eigen import kpca_on_centers  # noqa: E402
from rskpca.core.radial_kernels import float32_relative_error, kernel_matvec  # noqa: E402
from rskpca.core.weighted_kernel import weighted_kernel_matrix  # noqa: E402
from rskpca.core.metrics import alignment_error  # noqa: E402
from rskpca.decomposition.iterative import IterativeKPCA, kernel_operator  # noqa: E402


def _centers(m=300, d=4, seed=0):
    rng = np.random.default_rng(seed)
    C = np.concatenate([rng.normal(c, 1.0, size=(m // 3, d)) for c in (0.0, 4.0, 9.0)]) + 50.0
    return C, rng.integers(1, 30, size=C.shape[0]).astype(float)


def test_eigensolver_choice_by_components():
    m = _core.DENSE_MAX_M + 1000
    assert choose_eigen_solver(m, 5) == "arpack"
    assert choose_eigen_solver(m, 40) == "arpack"  # the block solver only when asked for
    assert choose_eigen_solver(m, 5, "block") == "block"


def test_auto_precision_is_float32_only_for_few_components():
    # "auto" solves a partial problem (m above DENSE_MAX_M, few components) on the float32 matrix
    # only below FLOAT32_MAX_COMPONENTS: with more, the certificate fails and the float64 refinement
    # after it costs more than float64 ARPACK alone.
    C, w = _centers(m=_core.DENSE_MAX_M + 100)
    few = _core.kpca_on_centers(C, w, 5, sigma=2.5)
    many = _core.kpca_on_centers(C, w, _core.FLOAT32_MAX_COMPONENTS, sigma=2.5)
    assert "float32" in few.solver
    assert many.solver == "arpack"


def test_auto_solves_large_float32_problems_with_the_block_solver(monkeypatch):
    C, w = _centers(m=_core.DENSE_MAX_M + 100)
    assert "block" not in _core.kpca_on_centers(C, w, 2, sigma=2.5).solver
    monkeypatch.setattr(_core, "BLOCK_MIN_M", C.shape[0])
    auto = _core.kpca_on_centers(C, w, 2, sigma=2.5)
    assert auto.solver == "block-float32"
    exact = _core.kpca_on_centers(C, w, 2, sigma=2.5, eigen_solver="arpack", precision="float64")
    np.testing.assert_allclose(auto.eigenvalues, exact.eigenvalues, rtol=1e-5)
    assert alignment_error(exact.eigenvectors, auto.eigenvectors) < 1e-3
    # many components stay float64 ARPACK whatever m
    assert _core.kpca_on_centers(C, w, _core.FLOAT32_MAX_COMPONENTS, sigma=2.5).solver == "arpack"


@pytest.mark.parametrize("kernel", ["gaussian", "laplacian"])
def test_weighted_kernel_matrix_is_w_k_w(kernel):
    C, w = _centers()
    C[7] = C[3]  # a duplicate center: distance exactly 0
    sw = np.sqrt(w)
    expect = sw[:, None] * kernel_matrix(C, sigma=2.5, kernel=kernel) * sw[None, :]
    # rtol: the reference's own cancellation error, u * ||c||^2 / sigma^2 with ||c|| ~ 100
    np.testing.assert_allclose(weighted_kernel_matrix(C, w, sigma=2.5, kernel=kernel), expect,
                               rtol=1e-10, atol=1e-300)


def test_float32_weighted_kernel_within_its_stated_error():
    C, w = _centers()
    expect = weighted_kernel_matrix(C, w, sigma=2.5)
    got = weighted_kernel_matrix(C, w, sigma=2.5, dtype=np.float32)
    delta = float32_relative_error(C, 2.5, w)
    big = expect > 1e-30  # below float32's normal range the relative error is meaningless
    rel = np.abs(got[big].astype(float) - expect[big]) / expect[big]
    assert rel.max() <= delta
    assert np.all(np.diag(got) == w.astype(np.float32))
    with pytest.raises(ValueError, match="Gaussian"):
        weighted_kernel_matrix(C, w, sigma=2.5, kernel="laplacian", dtype=np.float32)


@pytest.mark.parametrize("seed", range(5))
def test_float32_bound_holds_for_heavy_weights_on_data_inside_sigma(seed):
    # Here the log-weights, not the distances, carry the exponent's rounding: the bound
    # without its log w term was exceeded 4.8 times.
    rng = np.random.default_rng(seed)
    C = rng.normal(size=(400, 3)) * 0.05
    w = rng.integers(1, 20_000, 400).astype(float)
    w[0] = 0.25  # fractional weights count by |log w|
    expect = weighted_kernel_matrix(C, w, sigma=1.0)
    got = weighted_kernel_matrix(C, w, sigma=1.0, dtype=np.float32).astype(float)
    assert np.max(np.abs(got - expect) / expect) <= float32_relative_error(C, 1.0, w)


@pytest.mark.parametrize("center", [True, False])
@pytest.mark.parametrize("solver", ["arpack", "block"])
def test_float64_partial_paths_equal_dense(solver, center):
    C, w = _centers()
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
    C, w = _centers()
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
    C, w = _centers()
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


def test_block_solver_that_never_converges_falls_back():
    C, w = _centers()
    rng = np.random.RandomState(0)
    from rskpca.core._block_krylov import block_krylov
    from rskpca.core.eigen import _CenteredWeighted
    op = _CenteredWeighted(weighted_kernel_matrix(C, w, sigma=2.5), np.sqrt(w), True)
    assert block_krylov(op, 6, rng, tol_of=lambda theta, resid: False, max_steps=3)[2] is False


def test_pivoted_start_spans_the_top_eigenvectors_of_a_low_rank_operator():
    # rank 4: four pivots reproduce the operator exactly, so the start holds its top 3 eigenvectors
    from rskpca.core._block_krylov import pivoted_start
    rng = np.random.default_rng(1)
    Q = np.linalg.qr(rng.normal(size=(200, 4)))[0]
    A = (Q * [9.0, 5.0, 2.0, 1.0]) @ Q.T
    U = pivoted_start(lambda i: A[:, i], np.diagonal(A), 3, 10)
    assert U.shape == (200, 3)  # stopped at the rank, then the top 3 of 4 directions
    np.testing.assert_allclose(U.T @ U, np.eye(3), atol=1e-12)
    assert alignment_error(Q[:, :3], U) < 1e-8


def test_pivoted_start_of_a_zero_operator_is_empty():
    from rskpca.core._block_krylov import pivoted_start
    assert pivoted_start(lambda i: np.zeros(5), np.zeros(5), 2, 6).shape == (5, 0)


def test_pivoted_start_columns_are_the_operators_own():
    # the centered operator's column() and diagonal() against its product with unit vectors
    from rskpca.core.eigen import _CenteredWeighted
    from rskpca.core.weighted_kernel import weighted_kernel_blocks
    C, w = _centers()
    sw = np.sqrt(w)
    blocks, M_sw = weighted_kernel_blocks(C, w, sigma=2.5, times=sw, block_rows=64)
    op = _CenteredWeighted(blocks, sw, True, M_sw=M_sw)
    dense = op.matmat(np.eye(C.shape[0]))
    np.testing.assert_allclose(op.column(70), dense[:, 70], rtol=1e-12, atol=1e-9)
    np.testing.assert_allclose(op.diagonal(), np.diagonal(dense), rtol=1e-12, atol=1e-9)


def test_block_solver_answer_does_not_depend_on_the_random_state(monkeypatch):
    # the block solver starts from a pivoted Cholesky, not random vectors: the same bits for any seed
    C, w = _centers(m=_core.DENSE_MAX_M + 100)
    monkeypatch.setattr(_core, "BLOCK_MIN_M", C.shape[0])
    a, b = (_core.kpca_on_centers(C, w, 2, sigma=2.5, random_state=np.random.RandomState(seed)) for seed in (0, 7))
    assert a.solver == b.solver == "block-float32"
    np.testing.assert_array_equal(a.eigenvectors, b.eigenvectors)


def test_hopeless_block_solve_stops_without_another_pass(monkeypatch):
    # Once the float32 error alone fails the check, more steps are wasted passes: the
    # fallback starts at once, from the Ritz vectors so far.
    C, w = _centers()
    from rskpca.core._block_krylov import block_krylov
    from rskpca.core.eigen import _CenteredWeighted
    op = _CenteredWeighted(weighted_kernel_matrix(C, w, sigma=2.5), np.sqrt(w), True)
    passes = []
    monkeypatch.setattr(op, "_matmat", lambda V: passes.append(V.shape[1]) or op.M @ V)
    theta, V, ok = block_krylov(op, 6, np.random.RandomState(0), tol_of=lambda t, r: False,
                                 hopeless=lambda t, r: len(passes) == 1)
    assert not ok and len(passes) == 1 and V.shape == (C.shape[0], 6)


def test_zero_gap_fails_the_check():
    # Two identical, far-apart clusters: eigenvalues come in equal pairs, so the 1st/2nd
    # component split (r = 1) has no gap and no float32 answer is provably accurate.
    rng = np.random.default_rng(0)
    base = rng.normal(size=(60, 2))
    C = np.concatenate([base, base + 1e3])
    w = np.ones(120)
    fast = kpca_on_centers(C, w, 1, sigma=1.0, eigen_solver="arpack", precision="float32", center=False)
    assert fast.solver.startswith("arpack (fallback")


def test_reduced_set_float32_fit_and_transform_match_float64(monkeypatch):
    monkeypatch.setattr(_core, "DENSE_MAX_M", 50)
    rng = np.random.default_rng(4)
    X = np.concatenate([rng.normal(c, 1.0, size=(700, 5)) for c in (0.0, 3.0, 6.0)])
    from rskpca import ReducedSetKPCA
    # r = 2: eigenvalues 153, 149 | 45, a gap the float32 error provably stays within
    fast = ReducedSetKPCA(sigma=2.0, ell=4.0, n_components=2, random_state=0).fit(X)
    exact = ReducedSetKPCA(sigma=2.0, ell=4.0, n_components=2, eigen_solver="dense").fit(X)
    assert fast.eigen_solver_ == "arpack-float32" and fast.centers_.shape[0] > 50
    np.testing.assert_allclose(fast.eigenvalues_, exact.eigenvalues_, rtol=1e-4)
    X_new = rng.normal(3.0, 2.0, size=(500, 5))
    assert alignment_error(exact.transform(X_new), fast.transform(X_new)) < _core.SUBSPACE_TOL


@pytest.mark.parametrize("squared", [False, True])
def test_fused_gaussian_products_equal_the_kernel_matrix(squared):
    rng = np.random.default_rng(5)
    X, Y, V = rng.normal(30, 3, size=(257, 6)), rng.normal(30, 3, size=(91, 6)), rng.normal(size=(91, 3))
    K = kernel_matrix(X, Y, sigma=4.0)
    K = K * K if squared else K
    np.testing.assert_allclose(kernel_matvec(X, Y, V, sigma=4.0, squared=squared, block_elements=1000),
                               K @ V, rtol=1e-10, atol=1e-12)
    got32 = kernel_matvec(X, Y, V, sigma=4.0, squared=squared, dtype=np.float32)
    bound = (2 if squared else 1) * 4 * float32_relative_error(Y, 4.0) * (np.abs(K) @ np.abs(V)) + 1e-5
    assert np.all(np.abs(got32 - K @ V) <= bound)
    with pytest.raises(ValueError, match="Gaussian"):
        kernel_matvec(X, Y, V, sigma=4.0, kernel="laplacian", dtype=np.float32)


def test_kernel_operator_blocks_kept_or_recomputed_agree():
    rng = np.random.default_rng(7)
    X = rng.normal(size=(300, 3))
    V = rng.normal(size=(300, 2))
    expect = kernel_matrix(X, sigma=1.3) @ V
    for cache in (0, 30 * 300 * 8, 10**9):  # nothing, a few blocks, everything
        op = kernel_operator(X, sigma=1.3, block_elements=9000, cache_bytes=cache)
        np.testing.assert_allclose(op.matmat(V), expect, rtol=1e-12)
        np.testing.assert_allclose(op.matmat(V), expect, rtol=1e-12)  # second product: from cache
        assert op.cached_bytes() <= cache
    assert op.cached_bytes() == 300 * 300 * 8
    kept = IterativeKPCA(n_components=3, sigma=1.3, random_state=0).fit(X)
    bounded = IterativeKPCA(n_components=3, sigma=1.3, cache_bytes=0, random_state=0).fit(X)
    assert (kept.cached_kernel_bytes_, bounded.cached_kernel_bytes_) == (300 * 300 * 8, 0)
    np.testing.assert_allclose(kept.eigenvalues_, bounded.eigenvalues_, rtol=1e-8)
    np.testing.assert_allclose(kept.transform(X[:20]), bounded.transform(X[:20]), rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("kernel,dtype", [("gaussian", np.float64), ("gaussian", np.float32),
                                          ("laplacian", np.float64)])
def test_weighted_kernel_matrix_times_is_the_product(kernel, dtype):
    # the product taken block by block, with the exact diagonal, equals one product after
    rng = np.random.default_rng(5)
    C, w = rng.normal(size=(300, 4)), rng.integers(1, 7, 300).astype(float)
    K, Kv = weighted_kernel_matrix(C, w, sigma=1.7, kernel=kernel, dtype=dtype, times=np.sqrt(w))
    np.testing.assert_array_equal(K, weighted_kernel_matrix(C, w, sigma=1.7, kernel=kernel, dtype=dtype))
    tol = 1e-5 if dtype == np.float32 else 1e-12
    np.testing.assert_allclose(Kv, K.astype(np.float64) @ np.sqrt(w), rtol=tol)
    assert Kv.dtype == dtype
