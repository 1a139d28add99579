"""Denoising helpers: noise models, the image-shape check, the side-by-side run and its figure."""

import numpy as np
import pytest

from rskpca.evaluation.denoising import add_noise, check_image_shape, denoise
from rskpca.plotting import denoise_figure


def test_gaussian_noise_scales_with_the_pixel_range():
    X = np.zeros((200, 50))
    X[:, 0] = 16.0
    noisy = add_noise(X, "gaussian", 0.25, random_state=0)
    assert np.std(noisy - X) == pytest.approx(0.25 * 16.0, rel=0.05)


def test_salt_and_pepper_hits_the_given_fraction_with_extreme_values():
    X = np.full((100, 100), 0.5)
    X[0, 0], X[0, 1] = 0.0, 1.0
    noisy = add_noise(X, "salt_and_pepper", 0.3, random_state=1)
    changed = noisy != X
    assert changed.mean() == pytest.approx(0.3, abs=0.02)
    assert set(np.unique(noisy[changed])) <= {0.0, 1.0}


def test_noise_errors():
    with pytest.raises(ValueError, match="noise kind"):
        add_noise(np.zeros((2, 2)), "speckle", 0.1)
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        add_noise(np.zeros((2, 2)), "gaussian", 2.0)


def test_image_shape_check_names_the_fix():
    check_image_shape(64, 8, 8)
    with pytest.raises(ValueError, match=r"has 56 pixels.*64 feature columns.*8 x 8"):
        check_image_shape(64, 7, 8)


def test_denoise_improves_on_the_noisy_input():
    from sklearn.datasets import load_digits
    X = load_digits().data
    noisy = add_noise(X, "gaussian", 0.2, random_state=0)
    out = denoise(X[:500], noisy[500:600], X[500:600], sigma=50.0, ell=3.0, r=20, alpha=1e-3,
                  preimage="fixed-point")
    mse = {row["method"]: row["mse"] for row in out}
    assert list(mse) == ["noisy input", "linear PCA", "exact KPCA", "RSKPCA", "Nystrom"]
    for method in ("linear PCA", "exact KPCA", "RSKPCA", "Nystrom"):
        assert mse[method] < 0.8 * mse["noisy input"], mse
    rs = next(row for row in out if row["method"] == "RSKPCA")
    assert rs["m"] < 500 and rs["fit_s"] > 0  # the map is learned on the shadow centers only
    with pytest.raises(ValueError, match="unknown denoising methods"):
        denoise(X[:50], X[50:60], X[50:60], sigma=50.0, ell=3.0, r=2, methods=("ICA",))


def test_denoise_figure_has_one_strip_per_row():
    rng = np.random.default_rng(0)
    clean = rng.random((10, 12))
    rows = [{"method": "noisy input", "images": clean + 0.1, "mse": 0.01, "fit_s": None},
            {"method": "RSKPCA", "images": clean, "mse": 0.0, "fit_s": 0.5}]
    fig = denoise_figure(rows, clean, (3, 4), n_show=5)
    assert [t.type for t in fig.data] == ["heatmap"] * 3
    z = np.asarray(fig.data[2].z, dtype=float)
    assert z.shape == (3, 5 * 4 + 4)  # five 3 x 4 images, one blank column between neighbours
    np.testing.assert_allclose(z[:, :4], clean[0].reshape(3, 4))
    assert np.isnan(z[:, 4]).all()
    titles = [a.text for a in fig.layout.annotations]
    assert titles[0] == "clean" and "RSKPCA: MSE 0" in titles[2] and "fit 0.5 s" in titles[2]
