"""Cached computation of the Denoise page (keyed by the data set's digest and every setting)."""

from __future__ import annotations

import numpy as np
import streamlit as st

from rskpca.evaluation.denoising import add_noise, denoise
from rskpca.ui import keys as K

__all__ = ["MAX_TRAIN", "N_TEST", "split_images", "denoised", "init_image_shape", "remember_image_shape"]

#: Training images at most: exact KPCA builds an n x n kernel matrix and solves an n x n ridge system.
MAX_TRAIN = 1000
#: Test images denoised (the MSE is over all of them; the figure shows the first few).
N_TEST = 100


def split_images(n: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Seeded, disjoint training and test rows: at most MAX_TRAIN and N_TEST (a fifth of n when n is small)."""
    perm = np.random.default_rng(seed).permutation(n)
    n_test = min(N_TEST, max(1, n // 5))
    return perm[n_test:n_test + MAX_TRAIN], perm[:n_test]


@st.cache_data(max_entries=16, show_spinner="Fitting and denoising...")
def denoised(digest: str, _X: np.ndarray, noise: str, level: float, fit_on_noisy: bool, sigma: float, ell: float,
             r: int, alpha: float, kernel: str, preimage: str, methods: tuple[str, ...]):
    """(clean test images, results of :func:`~rskpca.evaluation.denoising.denoise`, training rows used)."""
    train, test = split_images(_X.shape[0])
    noisy = add_noise(_X, noise, level, random_state=0)
    X_train = noisy[train] if fit_on_noisy else _X[train]
    results = denoise(X_train, noisy[test], _X[test], sigma=sigma, ell=ell, r=r, alpha=alpha, kernel=kernel,
                      preimage=preimage, methods=methods)
    return _X[test], results, train.size


def init_image_shape(digest: str, d: int) -> None:
    """Set the image-shape widgets for this data set: the shape given before, else square, else one row.

    The shape is kept per data set in an app-owned key, since widget keys are dropped when the
    user visits another page.
    """
    ss = st.session_state
    saved = ss.get(K.IMAGE_SHAPES, {}).get(digest)
    if "dn_height" not in ss or "dn_width" not in ss or ss.get(K.IMAGE_SHAPE_FOR) != digest:
        side = int(round(d ** 0.5))
        ss[K.IMAGE_SHAPE_FOR] = digest
        ss["dn_height"], ss["dn_width"] = saved or ((side, side) if side * side == d else (1, d))


def remember_image_shape(digest: str) -> tuple[int, int]:
    """The (height, width) the widgets show, remembered for this data set."""
    ss = st.session_state
    h, w = int(ss["dn_height"]), int(ss["dn_width"])
    ss.setdefault(K.IMAGE_SHAPES, {})[digest] = (h, w)
    return h, w
