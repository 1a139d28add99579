"""Kernels in the paper's convention k = phi(||x-y||^p / sigma^p), and their constants
(rskpca/core/radial_kernels.py): the fused products, their float32 error bound, the same bits on threads."""

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from hypothesis.extra.numpy import arrays
from sklearn.metrics.pairwise import laplacian_kernel, rbf_kernel

from rskpca.core.bandwidth_heuristic import median_heuristic
from rskpca.core.radial_kernels import (
    KERNELS,
    float32_relative_error,
    get_kernel,
    kernel_matrix,
    kernel_matvec,
    kernel_row_means,
    squared_distances,
)


def brute_force(X, Y, sigma, kernel):
    """k(x, y) from an explicit double loop over points."""
    p = get_kernel(kernel).p
    return np.array([[np.exp(-(np.linalg.norm(x - y) / sigma) ** p) for y in Y] for x in X])


@pytest.fixture
def data():
    rng = np.random.default_rng(0)
    return rng.normal(size=(23, 3)), rng.normal(size=(11, 3))


@pytest.mark.parametrize("kernel", ["gaussian", "laplacian"])
def test_kernel_matrix_equals_brute_force(data, kernel):
    X, Y = data
    np.testing.assert_allclose(kernel_matrix(X, Y, sigma=1.7, kernel=kernel), brute_force(X, Y, 1.7, kernel),
                               rtol=1e-12, atol=1e-14)
    K = kernel_matrix(X, sigma=1.7, kernel=kernel)
    np.testing.assert_allclose(K, brute_force(X, X, 1.7, kernel), rtol=1e-12, atol=1e-14)
    np.testing.assert_array_equal(np.diag(K), 1.0)  # kappa = 1 exactly
    # Symmetric to rounding (BLAS X @ X.T need not be bitwise symmetric).
    np.testing.assert_allclose(K, K.T, rtol=0, atol=1e-15)


def test_gaussian_is_sklearn_rbf_with_gamma_one_over_sigma_squared(data):
    X, Y = data
    for sigma in (0.3, 1.0, 4.0):
        np.testing.assert_allclose(kernel_matrix(X, Y, sigma=sigma),
                                   rbf_kernel(X, Y, gamma=1.0 / sigma**2), rtol=1e-12, atol=1e-14)


def test_laplacian_is_euclidean_not_sklearns_l1(data):
    X, Y = data
    K = kernel_matrix(X, Y, sigma=2.0, kernel="laplacian")
    r = np.sqrt(((X[:, None, :] - Y[None, :, :]) ** 2).sum(-1))
    np.testing.assert_allclose(K, np.exp(-r / 2.0), rtol=1e-12)
    # scikit-learn's laplacian_kernel uses the L1 norm: a different kernel for d > 1.
    assert not np.allclose(K, laplacian_kernel(X, Y, gamma=0.5))


@pytest.mark.parametrize("kernel", ["gaussian", "laplacian"])
@pytest.mark.parametrize("squared", [False, True])
def test_kernel_matvec_blocked_equals_dense(data, kernel, squared):
    X, Y = data
    K = brute_force(X, Y, 0.9, kernel)
    if squared:
        K = K**2
    V = np.random.default_rng(1).normal(size=(11, 4))
    for block_elements in (1, 7, 10**6):  # one row per block, a few rows, everything at once
        out = kernel_matvec(X, Y, V, sigma=0.9, kernel=kernel, squared=squared, block_elements=block_elements)
        np.testing.assert_allclose(out, K @ V, rtol=1e-11, atol=1e-12)
        vec = kernel_matvec(X, Y, V[:, 0], sigma=0.9, kernel=kernel, squared=squared,
                            block_elements=block_elements)
        assert vec.shape == (23,)
        np.testing.assert_allclose(vec, K @ V[:, 0], rtol=1e-11, atol=1e-12)


def test_kernel_row_means_are_the_kde_and_the_weighted_shde(data):
    X, Y = data
    K = brute_force(X, Y, 1.3, "gaussian")
    np.testing.assert_allclose(kernel_row_means(X, Y, sigma=1.3), K.mean(axis=1), rtol=1e-12)
    w = np.arange(1, 12, dtype=float)
    np.testing.assert_allclose(kernel_row_means(X, Y, sigma=1.3, weights=w), K @ w / w.sum(), rtol=1e-12)


def test_squared_distances_are_clipped_at_zero():
    X = 1e8 + np.random.default_rng(2).normal(size=(20, 3))
    D = squared_distances(X, X)
    assert D.min() >= 0.0


def test_median_heuristic():
    assert median_heuristic(np.full((30, 4), 3.25)) == 1.0  # constant data: every distance is 0
    assert median_heuristic(np.array([[0.0], [1.0], [3.0]])) == pytest.approx(2.0)
    # Duplicates are skipped: the median is over the nonzero distances {1, 3, 2}.
    assert median_heuristic(np.array([[0.0], [0.0], [1.0], [3.0]])) == pytest.approx(2.0)
    X = np.random.default_rng(3).normal(size=(3000, 2))
    assert median_heuristic(X, max_samples=500, random_state=1) == median_heuristic(X, max_samples=500,
                                                                                   random_state=1)
    assert median_heuristic(X, max_samples=500) == pytest.approx(np.sqrt(2) * 1.18, rel=0.1)


@pytest.mark.parametrize("name, factor", [("gaussian", np.sqrt(2 / np.e)), ("laplacian", 1.0)])
def test_lipschitz_constant_is_max_slope_on_a_fine_grid(name, factor):
    k = get_kernel(name)
    for sigma in (0.5, 2.0):
        r = np.linspace(0.0, 6 * sigma, 600_001)
        slope = np.abs(np.diff(k.value_at_distance(r, sigma)) / np.diff(r))
        assert k.lipschitz(sigma) == pytest.approx(factor / sigma, rel=1e-12)
        assert slope.max() <= k.lipschitz(sigma) * (1 + 1e-9)
        assert slope.max() == pytest.approx(k.lipschitz(sigma), rel=1e-4)  # attained, not just an upper bound
        assert k.c_constant(sigma) == pytest.approx(2 * k.lipschitz(sigma) ** 2)


def _eq18_ratio(kernel, sigma, a, b, c, d):
    """(k(a,b) - k(c,d))^2 / (||a-c||^2 + ||b-d||^2): eq. (18) holds with any C above it."""
    k = get_kernel(kernel)
    kab = k.value_at_distance(np.linalg.norm(a - b), sigma)
    kcd = k.value_at_distance(np.linalg.norm(c - d), sigma)
    return float((kab - kcd) ** 2 / (np.sum((a - c) ** 2) + np.sum((b - d) ** 2)))


def test_paper_constant_violates_eq_18_gaussian():
    # a, b at sigma/sqrt(2), where the Gaussian is steepest, each moved outward by t.
    sigma, t = 1.0, 1e-3
    a, b = np.array([0.0]), np.array([sigma / np.sqrt(2)])
    c, d = a - t, b + t
    ratio = _eq18_ratio("gaussian", sigma, a, b, c, d)
    k = get_kernel("gaussian")
    assert ratio > 2.9 * k.paper_c_constant(sigma)  # the printed 1/(2 sigma^2) is far too small
    assert ratio <= k.c_constant(sigma)
    assert ratio > 0.99 * k.c_constant(sigma)  # and 2 L^2 = 4/(e sigma^2) cannot be lowered


def test_paper_constant_violates_eq_18_laplacian():
    sigma, t = 2.0, 1e-4
    a = b = np.zeros(2)
    c, d = a - np.array([t, 0.0]), b + np.array([t, 0.0])
    ratio = _eq18_ratio("laplacian", sigma, a, b, c, d)
    k = get_kernel("laplacian")
    assert ratio > 1.99 * k.paper_c_constant(sigma)
    assert 0.99 * k.c_constant(sigma) < ratio <= k.c_constant(sigma)


point = st.integers(1, 4).flatmap(
    lambda dim: st.tuples(*[arrays(np.float64, dim, elements=st.floats(-3, 3, allow_nan=False))] * 4))


@settings(max_examples=200, deadline=None)
@given(abcd=point, sigma=st.floats(0.05, 10.0), kernel=st.sampled_from(sorted(KERNELS)))
def test_provable_constant_satisfies_eq_18(abcd, sigma, kernel):
    a, b, c, d = abcd
    k = get_kernel(kernel)
    gap = abs(k.value_at_distance(np.linalg.norm(a - b), sigma) - k.value_at_distance(np.linalg.norm(c - d), sigma))
    rhs = k.c_constant(sigma) * (np.sum((a - c) ** 2) + np.sum((b - d) ** 2))
    # Compared as |k - k'| <= sqrt(rhs), with the rounding of the two kernel values (in [0, 1], a few ulps of 1)
    # allowed: points one ulp apart give exp(-7e-17) = 1 - 1.1e-16 in floating point, a gap of one ulp of 1 that
    # squared (1.2e-32) exceeds the exact bound (1.1e-32).
    assert gap <= np.sqrt(rhs) * (1 + 1e-12) + 4 * np.finfo(np.float64).eps


@pytest.mark.parametrize("name", sorted(KERNELS))
def test_phi_at_shadow_radius_is_the_kernel_at_distance_eps(name):
    k = get_kernel(name)
    for sigma, ell in [(1.0, 4.0), (0.3, 1.5), (7.0, 100.0)]:
        assert k.phi_at_shadow_radius(ell) == pytest.approx(float(k.value_at_distance(sigma / ell, sigma)),
                                                            rel=1e-14)
    assert k.kappa == 1.0


def test_get_kernel():
    assert get_kernel("Gaussian") is KERNELS["gaussian"]
    assert get_kernel(KERNELS["laplacian"]) is KERNELS["laplacian"]
    with pytest.raises(ValueError, match=r"Unknown kernel 'foo'.*gaussian.*laplacian"):
        get_kernel("foo")
    with pytest.raises(ValueError, match="Unknown kernel"):
        kernel_matrix(np.zeros((2, 1)), sigma=1.0, kernel="rbf")


def test_laplacian_is_accurate_on_near_duplicates():
    # BLAS distances lose half their digits near zero; the Laplacian's square root would show it.
    rng = np.random.default_rng(0)
    X = 1e3 + rng.normal(size=(50, 4))
    Y = np.concatenate([X[:10], X[10:20] + 1e-9])
    direct = np.exp(-np.linalg.norm(X[:, None, :] - Y[None, :, :], axis=2) / 2.0)
    K = kernel_matrix(X, Y, sigma=2.0, kernel="laplacian")
    # far pairs carry the usual BLAS error (1e-16 ||x||^2 in d^2); near-duplicates no longer blow it up
    np.testing.assert_allclose(K, direct, rtol=0, atol=1e-9)
    near = np.r_[np.arange(10), np.arange(10, 20)]
    np.testing.assert_allclose(K[near, np.arange(20)], direct[near, np.arange(20)], rtol=0, atol=1e-12)
    assert np.all(np.diag(kernel_matrix(X, sigma=2.0, kernel="laplacian")) == 1.0)
    v = rng.normal(size=20)
    np.testing.assert_allclose(kernel_matvec(X, Y, v, sigma=2.0, kernel="laplacian", block_elements=100),
                               direct @ v, rtol=0, atol=1e-8)


@pytest.mark.parametrize("sigma", [1e-9, 1e-5])
def test_sigma_tiny_against_the_data_gives_exact_kernels_not_nan(sigma):
    # The fused Gaussian's exponent carries a rounding error of u ||x||^2 / sigma^2: at
    # sigma = 1e-9 on two moons it overflowed exp, and the app's Embeddings page raised on
    # the NaN. Past FUSED_MAX_RELATIVE_ERROR the clipped, near-pair-refined distances are
    # used (exact to rounding); below it each path stays within its stated bound.
    from rskpca import NystromKPCA, ReducedSetKPCA
    from rskpca.core.radial_kernels import FUSED_MAX_RELATIVE_ERROR, gaussian_relative_error, kernel_matvec
    from rskpca.core.weighted_kernel import weighted_kernel_blocks, weighted_kernel_matrix

    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 2)) + 1.0
    X[5] = X[3] + [0.1 * sigma, 0.0]  # a near pair: k = exp(-0.01) = 0.990, not 0 or 1
    w = rng.integers(1, 9, 60).astype(float)
    sw = np.sqrt(w)

    def rtol(dtype, weights=None, fallbacks=()):
        # the stated bound of the first fused precision within reach, else exact (distances)
        for dt in (dtype, *fallbacks):
            bound = gaussian_relative_error(X, sigma, weights, dtype=dt)
            if bound <= FUSED_MAX_RELATIVE_ERROR:
                return bound
        return 1e-9

    expect = brute_force(X, X, sigma, "gaussian")
    assert expect[3, 5] == pytest.approx(np.exp(-0.01))
    np.testing.assert_allclose(kernel_matrix(X, sigma=sigma), expect, rtol=rtol(np.float64), atol=1e-300)
    V = np.abs(rng.normal(size=(60, 3)))  # positive: the products' relative error is the entries'
    for dtype in (np.float64, np.float32):
        np.testing.assert_allclose(kernel_matvec(X, X, V, sigma=sigma, dtype=dtype), expect @ V,
                                   rtol=rtol(dtype, fallbacks=[np.float64]) + 1e-6 * (dtype == np.float32))
        got = weighted_kernel_matrix(X, w, sigma=sigma, dtype=dtype)
        np.testing.assert_allclose(got, sw[:, None] * expect * sw[None, :], rtol=rtol(dtype, w) + 1e-7, atol=1e-30)
        np.testing.assert_allclose(weighted_kernel_blocks(X, w, sigma=sigma, dtype=dtype).to_dense(), got)
    for est in (ReducedSetKPCA(sigma=sigma, ell=4, n_components=2), NystromKPCA(sigma=sigma, n_components=2)):
        assert np.all(np.isfinite(est.fit_transform(X))), type(est).__name__


# ----------------------------------------------------------------------- fused products and threads


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


@pytest.mark.parametrize("kernel", ["gaussian", "laplacian"])
def test_kernel_matrix_same_bits_on_one_or_several_threads(threads, kernel):
    rng = np.random.default_rng(6)
    X, Y = rng.normal(size=(900, 4)), rng.normal(size=(600, 4))
    X[5] = Y[7]  # a duplicate pair: the Laplacian's refinement runs in a block
    threads(1)
    one_xy, one_xx = kernel_matrix(X, Y, sigma=2.0, kernel=kernel), kernel_matrix(X, sigma=2.0, kernel=kernel)
    threads(3)
    np.testing.assert_array_equal(one_xy, kernel_matrix(X, Y, sigma=2.0, kernel=kernel))
    np.testing.assert_array_equal(one_xx, kernel_matrix(X, sigma=2.0, kernel=kernel))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_kernel_matvec_same_bits_on_one_or_several_threads(threads, dtype):
    rng = np.random.default_rng(3)
    X, Y, V = rng.normal(size=(900, 4)), rng.normal(size=(50, 4)), rng.normal(size=(50, 3))
    threads(1)
    one = kernel_matvec(X, Y, V, sigma=2.0, dtype=dtype, block_elements=5000)  # 9 blocks of 100 rows
    threads(3)
    np.testing.assert_array_equal(one, kernel_matvec(X, Y, V, sigma=2.0, dtype=dtype, block_elements=5000))
