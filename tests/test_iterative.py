"""The iterative exact solver (rskpca/decomposition/iterative.py): IterativeKPCA equals exact kernel
PCA, and its kernel operator gives the same products whether its blocks are kept or recomputed."""

import numpy as np
import pytest
from synthetic import THREE_BLOBS_SIGMA as SIGMA

from rskpca import KernelPCA
from rskpca.core.radial_kernels import kernel_matrix
from rskpca.decomposition.iterative import IterativeKPCA, kernel_operator


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
