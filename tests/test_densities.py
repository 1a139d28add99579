"""rskpca.core.rsde's densities: the KDE (eq. 8), the ShDE (eq. 16) and the same as masses on the rows."""

import numpy as np
import pytest

from rskpca.core.rsde import kde, reduced_set_density, row_masses
from rskpca.core.shadow import shadow_centers


@pytest.fixture
def data():
    rng = np.random.default_rng(3)
    return rng.normal(size=(120, 2)), rng.normal(size=(30, 2))


@pytest.mark.parametrize("kernel", ["gaussian", "laplacian"])
def test_densities_equal_their_literal_sums(data, kernel):
    X, P = data
    s = shadow_centers(X, sigma=0.7, ell=2.0, kernel=kernel)
    assert s.weights.sum() == X.shape[0]  # the ShDE's weights count every point once
    d = np.sqrt(((P[:, None, :] - X[None, :, :]) ** 2).sum(-1))
    k = np.exp(-(d / 0.7) ** (2 if kernel == "gaussian" else 1))
    np.testing.assert_allclose(kde(P, X, sigma=0.7, kernel=kernel), k.mean(axis=1), rtol=1e-12)
    literal = sum(w * k[:, c] for c, w in zip(s.center_indices, s.weights)) / X.shape[0]
    np.testing.assert_allclose(reduced_set_density(P, s.centers, s.weights, sigma=0.7, kernel=kernel), literal,
                               rtol=1e-12)


def test_every_point_its_own_center_gives_the_kde(data):
    X, P = data
    s = shadow_centers(X, sigma=1.0, ell=1e6)  # eps = 1e-6: no point covers another
    assert s.m == X.shape[0] and np.all(s.weights == 1)
    np.testing.assert_allclose(reduced_set_density(P, s.centers, s.weights, sigma=1.0), kde(P, X, sigma=1.0),
                               rtol=1e-12)


def test_the_masses_on_the_rows_give_the_same_densities(data):
    X, P = data
    n = X.shape[0]
    s = shadow_centers(X, sigma=0.7, ell=2.0)
    K = np.exp(-((P[:, None, :] - X[None, :, :]) ** 2).sum(-1) / 0.7**2)
    assert row_masses(n).sum() == pytest.approx(1.0) and row_masses(n, s.center_indices, s.weights).sum() == \
        pytest.approx(1.0)
    np.testing.assert_allclose(K @ row_masses(n), kde(P, X, sigma=0.7), rtol=1e-12)
    np.testing.assert_allclose(K @ row_masses(n, s.center_indices, s.weights),
                               reduced_set_density(P, s.centers, s.weights, sigma=0.7), rtol=1e-12)
    masses = row_masses(n, s.center_indices, s.weights)
    assert np.count_nonzero(masses) == s.m


def test_the_shde_moves_each_points_mass_to_its_center(data):
    # eq. 16 as the KDE of the quantized data (every point replaced by its center)
    X, P = data
    s = shadow_centers(X, sigma=0.7, ell=2.0)
    np.testing.assert_allclose(reduced_set_density(P, s.centers, s.weights, sigma=0.7),
                               kde(P, s.centers[s.labels], sigma=0.7), rtol=1e-12)


@pytest.mark.parametrize("kernel", ["gaussian", "laplacian"])
def test_the_kde_at_few_points_of_many_rows_sums_blocks_of_rows_to_the_same_values(kernel, monkeypatch):
    import rskpca.core.rsde as rsde
    from rskpca.core.radial_kernels import kernel_row_means

    X = np.random.default_rng(3).normal(size=(5000, 3))
    P = X[:7] + 0.01
    monkeypatch.setattr(rsde, "PROJECTION_BLOCK_ELEMENTS", 7 * 333)  # blocks that split the rows unevenly
    blocked = rsde.kde(P, X, sigma=0.7, kernel=kernel)  # 5,000 rows for 7 points: by blocks of rows
    np.testing.assert_allclose(blocked, kernel_row_means(P, X, sigma=0.7, kernel=kernel), rtol=1e-12)


@pytest.mark.parametrize("kernel", ["gaussian", "laplacian"])
def test_the_float32_kde_is_the_kde_to_float32_rounding(kernel, monkeypatch):
    # Many rows per point: the Gaussian's float32 kernel blocks (a few points a block, uneven here); the
    # Laplacian has none and gives the float64 answer.
    import rskpca.core.rsde as rsde

    X = np.random.default_rng(4).normal(size=(6000, 4)) * 3.0 + 100.0  # far from the origin: the shift matters
    P = X[:9] + 0.05
    monkeypatch.setattr(rsde, "_FLOAT32_POINTS_PER_BLOCK", 4)
    fast = kde(P, X, sigma=1.5, kernel=kernel, dtype=np.float32)
    exact = kde(P, X, sigma=1.5, kernel=kernel)
    assert fast.dtype == np.float64 and fast.shape == (9,)
    np.testing.assert_allclose(fast, exact, rtol=1e-5 if kernel == "gaussian" else 1e-12)  # values and sums in float32
    if kernel == "gaussian":
        assert not np.array_equal(fast, exact)  # (the float32 path ran)
