"""W K W (rskpca/core/weighted_kernel.py), dense and as its lower panels (:class:`SymmetricBlocks`): the
textbook sqrt(w) K sqrt(w), the float32 build within its stated error, the same matrix and products from
both builds, the same bits on any number of threads, and the block solver on the panels."""

import numpy as np
import pytest
from synthetic import clustered_centers

from rskpca.core.eigen import kpca_on_centers, weighted_kpca
from rskpca.core.radial_kernels import float32_relative_error, kernel_matrix
from rskpca.core.weighted_kernel import SymmetricBlocks, weighted_kernel_blocks, weighted_kernel_matrix

CASES = [("gaussian", np.float64), ("gaussian", np.float32), ("laplacian", np.float64)]


def _centers(m=530, d=4, seed=0):
    rng = np.random.default_rng(seed)
    return rng.normal(size=(m, d)), rng.integers(1, 30, m).astype(float)


@pytest.mark.parametrize("kernel,dtype", CASES)
@pytest.mark.parametrize("block_rows", [1, 7, 256, 1000])
def test_blocks_hold_the_dense_matrix(kernel, dtype, block_rows):
    C, w = _centers()
    dense = weighted_kernel_matrix(C, w, sigma=1.9, kernel=kernel, dtype=dtype)
    S = weighted_kernel_blocks(C, w, sigma=1.9, kernel=kernel, dtype=dtype, block_rows=block_rows)
    full = S.to_dense()
    assert full.dtype == dtype
    tol = 1e-5 if dtype == np.float32 else 1e-12
    # mirrored from one stored copy outside the diagonal blocks, computed twice inside them
    np.testing.assert_allclose(full, full.T, rtol=tol, atol=0)
    np.testing.assert_allclose(full, dense, rtol=tol, atol=0)
    # and the dense build is the textbook W K W
    expect = np.sqrt(w)[:, None] * kernel_matrix(C, sigma=1.9, kernel=kernel) * np.sqrt(w)[None, :]
    np.testing.assert_allclose(dense, expect, rtol=10 * tol)


@pytest.mark.parametrize("kernel,dtype", CASES)
def test_block_product_and_fused_times_are_the_dense_products(kernel, dtype):
    C, w = _centers(seed=1)
    S, Sv = weighted_kernel_blocks(C, w, sigma=1.3, kernel=kernel, dtype=dtype, times=np.sqrt(w), block_rows=100)
    full = S.to_dense().astype(np.float64)
    tol = 1e-5 if dtype == np.float32 else 1e-12
    assert Sv.dtype == dtype
    np.testing.assert_allclose(Sv, full @ np.sqrt(w), rtol=tol)
    V = np.random.default_rng(2).normal(size=(len(w), 5))
    # a sum's rounding is relative to the sum of its terms' sizes
    assert np.all(np.abs(S.matmat(V) - full @ V) <= tol * np.abs(full) @ np.abs(V))
    v = V[:, 0]
    assert S.matmat(v).shape == (len(w),)
    assert np.all(np.abs(S.matmat(v) - full @ v) <= tol * np.abs(full) @ np.abs(v))
    idx = [0, 99, 100, 101, len(w) - 1]
    np.testing.assert_array_equal(S.rows(idx), S.to_dense()[idx])


@pytest.mark.parametrize("kernel,dtype", CASES)
def test_dense_and_block_builds_same_bits_on_one_or_several_threads(threads, kernel, dtype):
    C, w = _centers(m=700, seed=3)
    V = np.random.default_rng(4).normal(size=(700, 12))
    threads(1)
    dense1 = weighted_kernel_matrix(C, w, sigma=2.0, kernel=kernel, dtype=dtype)  # 2 row blocks of 374
    S1, p1 = weighted_kernel_blocks(C, w, sigma=2.0, kernel=kernel, dtype=dtype, times=np.sqrt(w), block_rows=128)
    y1 = S1.matmat(V)
    threads(3)
    np.testing.assert_array_equal(dense1, weighted_kernel_matrix(C, w, sigma=2.0, kernel=kernel, dtype=dtype))
    S2, p2 = weighted_kernel_blocks(C, w, sigma=2.0, kernel=kernel, dtype=dtype, times=np.sqrt(w), block_rows=128)
    np.testing.assert_array_equal(S1.to_dense(), S2.to_dense())
    np.testing.assert_array_equal(p1, p2)
    np.testing.assert_array_equal(y1, S2.matmat(V))


def test_untouched_upper_panels_are_never_read():
    # poison what the panels do not hold: a product or row that read it would carry NaN
    C, w = _centers(m=300, seed=5)
    S = weighted_kernel_blocks(C, w, sigma=1.0, block_rows=64)
    for p in range(0, 300, 64):
        S.data[p:p + 64, p + 64:] = np.nan
    assert np.isfinite(S.matmat(np.ones((300, 3)))).all()
    assert np.isfinite(S.rows(np.arange(300))).all()


def test_block_solver_on_panels_matches_the_dense_solution():
    # m above the block solver's size: "auto" runs block-float32 on the panels
    C, w = _centers(m=3000, d=3, seed=6)
    got = kpca_on_centers(C, w, 4, sigma=2.5, eigen_solver="block", precision="float64")
    assert got.solver == "block"
    exact = weighted_kpca(kernel_matrix(C, sigma=2.5), w, 4, eigen_solver="dense")
    np.testing.assert_allclose(got.eigenvalues, exact.eigenvalues, rtol=1e-6)
    cos = np.abs(np.sum(got.eigenvectors * exact.eigenvectors, axis=0))
    np.testing.assert_allclose(cos, 1.0, atol=1e-6)


def test_symmetric_blocks_is_a_plain_container():
    S = SymmetricBlocks(np.eye(5, dtype=np.float32), block_rows=2)
    assert S.shape == (5, 5) and S.dtype == np.float32
    np.testing.assert_array_equal(S.to_dense(), np.eye(5))


@pytest.mark.parametrize("kernel", ["gaussian", "laplacian"])
def test_weighted_kernel_matrix_is_w_k_w(kernel):
    C, w = clustered_centers()
    C[7] = C[3]  # a duplicate center: distance exactly 0
    sw = np.sqrt(w)
    expect = sw[:, None] * kernel_matrix(C, sigma=2.5, kernel=kernel) * sw[None, :]
    # rtol: the reference's own cancellation error, u * ||c||^2 / sigma^2 with ||c|| ~ 100
    np.testing.assert_allclose(weighted_kernel_matrix(C, w, sigma=2.5, kernel=kernel), expect,
                               rtol=1e-10, atol=1e-300)


def test_float32_weighted_kernel_within_its_stated_error():
    C, w = clustered_centers()
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
