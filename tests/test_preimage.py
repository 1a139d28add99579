"""Pre-images (``inverse_transform``): scikit-learn equivalence on the quantized data, error over ell, errors."""

import numpy as np
import pytest
from sklearn.datasets import load_digits
from sklearn.decomposition import KernelPCA as SklearnKernelPCA
from sklearn.exceptions import NotFittedError

from rskpca import DensityWeightedNystromKPCA, KernelPCA, NystromKPCA, ReducedSetKPCA, SubsampledKPCA
from rskpca.core.preimage import expansion_coefficients, fit_preimage_ridge, fixed_point_preimage, preimage_ridge


@pytest.fixture(scope="module")
def digits():
    X = load_digits().data / 16.0
    return X[:600], X[600:700]


def _sklearn(sigma, r, alpha):
    return SklearnKernelPCA(n_components=r, kernel="rbf", gamma=1.0 / sigma**2, fit_inverse_transform=True,
                            alpha=alpha)


@pytest.mark.parametrize("alpha", [1.0, 1e-2])
def test_rskpca_inverse_equals_sklearn_on_quantized_data(digits, alpha):
    Xtr, Xte = digits
    sigma = 4.0
    # the dense float64 solver, as scikit-learn's: the oracle holds to rounding (the paths "auto" takes
    # above DENSE_MAX_M are certified to SUBSPACE_TOL)
    est = ReducedSetKPCA(n_components=15, sigma=sigma, ell=3.0, fit_inverse_transform=True, alpha=alpha,
                         eigen_solver="dense").fit(Xtr)
    assert 30 < est.centers_.shape[0] < Xtr.shape[0]  # a real reduction, with repeated rows in the oracle
    Xq = np.repeat(est.centers_, est.weights_.astype(int), axis=0)
    sk = _sklearn(sigma, 15, alpha).fit(Xq)
    ours = est.inverse_transform(est.transform(Xte))
    theirs = sk.inverse_transform(sk.transform(Xte))
    np.testing.assert_allclose(ours, theirs, rtol=1e-7, atol=1e-9)
    # The map learned on m centers: its training embedding has m rows, not n.
    assert est.X_transformed_fit_.shape == (est.centers_.shape[0], 15)


def test_exact_inverse_equals_sklearn(digits):
    Xtr, Xte = digits
    Xtr = Xtr[:300]
    ours = KernelPCA(n_components=10, sigma=3.0, fit_inverse_transform=True, alpha=0.1).fit(Xtr)
    sk = _sklearn(3.0, 10, 0.1).fit(Xtr)
    np.testing.assert_allclose(ours.inverse_transform(ours.transform(Xte)), sk.inverse_transform(sk.transform(Xte)),
                               rtol=1e-7, atol=1e-9)


def test_weighted_ridge_equals_repeated_rows():
    rng = np.random.default_rng(0)
    Z, X = rng.normal(size=(20, 3)), rng.normal(size=(20, 4))
    w = rng.integers(1, 5, size=20)
    B = fit_preimage_ridge(Z, X, w, sigma=2.0, alpha=0.3)
    Zr, Xr = np.repeat(Z, w, axis=0), np.repeat(X, w, axis=0)
    Br = fit_preimage_ridge(Zr, Xr, None, sigma=2.0, alpha=0.3)
    Zq = rng.normal(size=(7, 3))
    np.testing.assert_allclose(preimage_ridge(Zq, Z, B, sigma=2.0), preimage_ridge(Zq, Zr, Br, sigma=2.0), atol=1e-10)


def test_reconstruction_error_decreases_with_ell(digits):
    """More shadow centers (larger ell) -> a finer quantization -> pre-images closer to the inputs."""
    Xtr, Xte = digits
    errors = []
    for ell in (1.5, 2.5, 4.0):
        est = ReducedSetKPCA(n_components=10, sigma=4.0, ell=ell, fit_inverse_transform=True, alpha=1e-2).fit(Xtr)
        errors.append(np.mean((est.inverse_transform(est.transform(Xte)) - Xte) ** 2))
    assert errors[0] > errors[1] > errors[2], errors
    assert errors[0] > 1.3 * errors[2]  # a clear trend (m = 17, 162, 489), not noise


@pytest.mark.parametrize("make", [
    lambda: ReducedSetKPCA(n_components=20, sigma=4.0, ell=3.0, fit_inverse_transform=True, alpha=1e-2),
    lambda: KernelPCA(n_components=20, sigma=4.0, fit_inverse_transform=True, alpha=1e-2),
    lambda: SubsampledKPCA(n_components=20, sigma=4.0, m=200, random_state=0, fit_inverse_transform=True, alpha=1e-2),
    lambda: NystromKPCA(n_components=20, sigma=4.0, m=200, random_state=0, fit_inverse_transform=True, alpha=1e-2),
    lambda: DensityWeightedNystromKPCA(n_components=20, sigma=4.0, m=100, random_state=0,
                                       fit_inverse_transform=True, alpha=1e-2),
])
def test_preimage_beats_the_mean_image(digits, make):
    Xtr, Xte = digits
    est = make().fit(Xtr)
    err = np.mean((est.inverse_transform(est.transform(Xte)) - Xte) ** 2)
    baseline = np.mean((Xtr.mean(axis=0) - Xte) ** 2)
    assert err < 0.5 * baseline


@pytest.mark.parametrize("cls", [ReducedSetKPCA, KernelPCA])
def test_fixed_point_is_a_fixed_point_and_denoises(digits, cls):
    Xtr, Xte = digits
    est = cls(n_components=20, sigma=4.0, fit_inverse_transform=True, alpha=1e-2).fit(Xtr)
    Z = est.transform(Xte)
    X = est.inverse_transform(Z, method="fixed-point", max_iter=500, tol=1e-10)
    points, p, A, center = est._feature_expansion()
    G = expansion_coefficients(Z, A, p, center=center)
    again = fixed_point_preimage(G, points, X, sigma=est.sigma_, max_iter=1)
    np.testing.assert_allclose(again, X, atol=1e-6)
    assert np.mean((X - Xte) ** 2) < 0.5 * np.mean((Xtr.mean(axis=0) - Xte) ** 2)


def test_fixed_point_without_learned_map(digits):
    Xtr, Xte = digits
    est = ReducedSetKPCA(n_components=20, sigma=4.0, ell=3.0).fit(Xtr)
    X = est.inverse_transform(est.transform(Xte), method="fixed-point")
    assert X.shape == Xte.shape and np.all(np.isfinite(X))


def test_expansion_reproduces_the_projection(digits):
    """sum_i g_i phi(c_i) has the same embedding as x: <Pphi - mu, v_k> = z_k."""
    Xtr, Xte = digits
    est = ReducedSetKPCA(n_components=10, sigma=4.0, ell=3.0, eigen_solver="dense").fit(Xtr)  # float64 throughout
    Z = est.transform(Xte)
    C, p, A, center = est._feature_expansion()
    from rskpca.core.radial_kernels import kernel_matrix
    K = kernel_matrix(C, sigma=est.sigma_)
    G = expansion_coefficients(Z, A, p, center=center)
    # z_k = g^T K A_k - p^T K A_k
    np.testing.assert_allclose(G @ K @ A - (p @ K @ A)[None, :], Z, atol=1e-8)


def test_errors(digits):
    Xtr, _ = digits
    est = ReducedSetKPCA(n_components=5, sigma=4.0, ell=2.0).fit(Xtr)
    Z = est.transform(Xtr[:3])
    with pytest.raises(NotFittedError, match="fit_inverse_transform=True"):
        est.inverse_transform(Z)
    with pytest.raises(ValueError, match="5 components"):
        est.inverse_transform(Z[:, :3], method="fixed-point")
    with pytest.raises(ValueError, match="pre-image method"):
        est.inverse_transform(Z, method="newton")
    lap = ReducedSetKPCA(n_components=5, sigma=4.0, kernel="laplacian", fit_inverse_transform=True).fit(Xtr)
    with pytest.raises(ValueError, match="Gaussian"):
        lap.inverse_transform(lap.transform(Xtr[:3]), method="fixed-point")
    ny = NystromKPCA(n_components=5, sigma=4.0, m=50, random_state=0, fit_inverse_transform=True).fit(Xtr)
    with pytest.raises(ValueError, match="method='ridge'"):
        ny.inverse_transform(ny.transform(Xtr[:3]), method="fixed-point")
    with pytest.raises(ValueError, match="alpha"):
        ReducedSetKPCA(alpha=-1.0, fit_inverse_transform=True).fit(Xtr)


def test_partial_fit_learns_the_same_map_as_fit(digits):
    Xtr, Xte = digits
    kw = dict(n_components=10, sigma=4.0, ell=2.5, fit_inverse_transform=True, alpha=1e-2)
    full = ReducedSetKPCA(**kw).fit(Xtr)
    streamed = ReducedSetKPCA(**kw).partial_fit(Xtr[:300]).partial_fit(Xtr[300:])
    np.testing.assert_allclose(streamed.inverse_transform(streamed.transform(Xte)),
                               full.inverse_transform(full.transform(Xte)), atol=1e-8)
