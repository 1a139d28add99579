"""The iterative exact solver (rskpca/decomposition/iterative.py): IterativeKPCA equals exact kernel
PCA, and its kernel operator gives the same products whether its blocks are kept or recomputed."""

import numpy as np
import pytest
from synthetic import THREE_BLOBS_SIGMA as SIGMA

from rskpca import KernelPCA
from rskpca.core.radial_kernels import kernel_matrix
from rskpca.decomposition.iterative import IterativeKPCA
from rskpca.decomposition.kernel_operator import kernel_operator


@pytest.mark.parametrize("solver", ["lanczos", "orthogonal"])
@pytest.mark.parametrize("kernel", ["gaussian", "laplacian"])
def test_iterative_kpca_equals_exact(three_blobs, solver, kernel):
    ref = KernelPCA(n_components=3, sigma=SIGMA, kernel=kernel).fit(three_blobs)
    # A tiny block forces many kernel blocks per multiply: the blocked path is what runs.
    est = IterativeKPCA(n_components=3, sigma=SIGMA, kernel=kernel, solver=solver, tol=1e-10,
                        block_elements=5000, random_state=0).fit(three_blobs)
    assert est.solver_ == solver
    np.testing.assert_allclose(est.eigenvalues_, ref.eigenvalues_, rtol=1e-8)
    X_new = three_blobs[::7] + 0.1
    np.testing.assert_allclose(np.abs(est.transform(X_new)), np.abs(ref.transform(X_new)), atol=1e-6)
    assert est.n_matvec_ > 0 and est.n_iter_ >= 1


def test_iterative_kpca_reports_non_convergence(three_blobs):
    with pytest.raises(ValueError, match="did not reach tol"):
        IterativeKPCA(n_components=2, sigma=SIGMA, solver="orthogonal", tol=1e-14, max_iter=1,
                      random_state=0).fit(three_blobs)


def test_iterative_kpca_rejects_more_components_than_points():
    with pytest.raises(ValueError, match="exceeds the number of training points"):
        IterativeKPCA(n_components=5, sigma=1.0).fit(np.random.default_rng(0).normal(size=(4, 2)))


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


# --- Watching and stopping a fit (progress), and predicting its cost (iterative_cost) ---

def _points(n, d=3, seed=0):
    return np.random.default_rng(seed).normal(size=(n, d))


def test_progress_is_called_with_increasing_products_and_seconds():
    X = _points(300)
    seen = []
    # 3,000 values a block: 10 rows, 30 calls per product
    est = IterativeKPCA(n_components=3, sigma=2.0, block_elements=3000, random_state=0,
                        progress=lambda p, s: seen.append((p, s))).fit(X)
    products, seconds = np.array(seen).T
    assert np.all(np.diff(products) > 0) and np.all(np.diff(seconds) >= 0)
    assert products[0] == pytest.approx(10 / 300)  # the first row block of the first product
    # every centered product, then the pass for the kernel's row means
    assert products[-1] == pytest.approx(est.n_matvec_ + 1)
    assert len(seen) == 30 * (est.n_matvec_ + 1)


class _Stop(Exception):
    pass


def _stop_after(products):
    def progress(done, seconds):
        if done >= products:
            raise _Stop(done)
    return progress


def test_a_raising_progress_stops_the_fit_and_leaves_no_fitted_state():
    from sklearn.exceptions import NotFittedError
    from sklearn.utils.validation import check_is_fitted

    X = _points(200)
    est = IterativeKPCA(n_components=2, sigma=2.0, random_state=0, progress=_stop_after(3))
    with pytest.raises(_Stop):
        est.fit(X)
    with pytest.raises(NotFittedError):
        check_is_fitted(est)
    assert not [a for a in vars(est) if a.endswith("_")]
    # stopped in the last pass (the row means), after the eigensolver
    fitted = IterativeKPCA(n_components=2, sigma=2.0, random_state=0).fit(X)
    est.set_params(progress=_stop_after(fitted.n_matvec_ + 0.5))
    with pytest.raises(_Stop):
        est.fit(X)
    assert not [a for a in vars(est) if a.endswith("_")]
    # a stopped refit keeps the previous fit whole (its data's width included)
    fitted.set_params(progress=_stop_after(2))
    before = fitted.transform(X[:5])
    with pytest.raises(_Stop):
        fitted.fit(_points(150, d=5))
    assert fitted.n_features_in_ == 3
    np.testing.assert_array_equal(fitted.transform(X[:5]), before)


def test_iterative_eigenvalues_equal_scikit_learns_kernel_pca_on_300_rows():
    from sklearn.decomposition import KernelPCA as SkKernelPCA

    X = _points(300, d=4, seed=3)
    sigma = 2.5
    ref = SkKernelPCA(n_components=5, kernel="rbf", gamma=1 / sigma**2, eigen_solver="dense").fit(X)
    est = IterativeKPCA(n_components=5, sigma=sigma, random_state=0, progress=lambda p, s: None)
    Z = est.fit_transform(X)
    np.testing.assert_allclose(est.eigenvalues_, ref.eigenvalues_, rtol=1e-7)
    # the training rows' embedding read off the eigenvectors equals projecting them
    np.testing.assert_allclose(np.abs(Z), np.abs(ref.transform(X)), atol=1e-6)
    np.testing.assert_allclose(Z, est.transform(X), atol=1e-6)


def test_cost_model_scales_as_n_squared_and_with_the_kept_share():
    from rskpca.decomposition.iterative_cost import KernelCost, predict_iterative_cost

    unit = KernelCost(evaluate=2e-9, multiply=2e-10)
    small, big = (predict_iterative_cost(n, 5, unit, cache_bytes=0) for n in (10_000, 20_000))
    assert big.products == small.products  # ARPACK's products do not grow with n
    assert big.seconds / small.seconds == pytest.approx(4.0)
    assert big.first_s == big.later_s  # nothing kept: every product evaluates every block
    kept = predict_iterative_cost(10_000, 5, unit, cache_bytes=10**12)
    assert kept.cached_fraction == 1 and kept.later_s == pytest.approx(1e8 * 2e-10)
    assert kept.memory_bytes >= 8 * 10_000**2 > small.memory_bytes
    # the upper end is more restarts (5 against 0.5), each ncv - k = 20 - 5 products
    assert big.restart_products == 15
    assert big.most_products - big.products == pytest.approx(4.5 * 15, abs=1)


def test_expected_products_bracket_the_products_arpack_takes(three_blobs):
    from rskpca.decomposition.iterative_cost import expected_products

    for k in (2, 5, 10):
        est = IterativeKPCA(n_components=k, sigma=SIGMA, random_state=0).fit(three_blobs)
        n = three_blobs.shape[0]
        assert expected_products(n, k, restarts=0) <= est.n_matvec_ + 1 <= expected_products(n, k, restarts=5)


def test_predicted_seconds_are_within_a_few_times_the_measured_ones():
    # A sanity check of the per-value model, not a speed test: the prediction for the products the fit
    # actually took, with no block kept (each product evaluates the kernel), against the fit's time.
    import time

    from rskpca.decomposition.iterative_cost import measure_kernel_cost, predict_iterative_cost

    # The unit cost and the fit are timed a moment apart: on a loaded machine (the whole suite on two cores) one
    # of them can be slowed alone, so up to three tries; a model off by more than 5x fails every one.
    X = _points(1500, d=5)
    tries = []
    for _ in range(3):
        unit = measure_kernel_cost(X, sigma=2.0)
        cost = predict_iterative_cost(1500, 5, unit, cache_bytes=0)
        t0 = time.perf_counter()
        est = IterativeKPCA(n_components=5, sigma=2.0, cache_bytes=0, random_state=0).fit(X)
        took = time.perf_counter() - t0
        predicted = cost.seconds_for(est.n_matvec_ + 1)
        tries.append((predicted, took))
        if predicted / 5 < took < predicted * 5:
            break
    else:
        raise AssertionError(f"(predicted, measured) seconds, each try: {tries}")
