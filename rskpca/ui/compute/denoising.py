"""The Denoise page's computations: whether the rows are images, and each method's denoising, cached.

Part of :mod:`rskpca.ui.compute`. Every function is keyed by the data set's digest and every setting;
each method's run is cached on its own (:func:`denoised`), so a new setting that one method ignores
(the pre-image map of the kernel methods, say) reruns the others only, and a run stopped half way keeps
the methods it finished. While methods run, a progress bar says which and how long is left
(:class:`~rskpca.ui.progress.ProgressPanel`).
"""

from __future__ import annotations


import numpy as np
import streamlit as st

from rskpca.core.threads import native_threads_off
from rskpca.evaluation.denoising import add_noise, denoise, likely_image_shape, not_images_reason
from rskpca.ui.progress import progress_on_miss

__all__ = ["MAX_TRAIN", "N_TEST", "split_images", "images_reason", "image_shape_guess", "denoised"]

#: Training images at most: exact KPCA builds an n x n kernel matrix and solves an n x n ridge system.
MAX_TRAIN = 1000
#: Test images denoised (the MSE is over all of them; the figure shows the first few).
N_TEST = 100


def split_images(n: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Seeded, disjoint training and test rows: at most MAX_TRAIN and N_TEST (a fifth of n when n is small).

    >>> train, test = split_images(50)
    >>> train.size, test.size, bool(np.intersect1d(train, test).size)
    (40, 10, False)
    """
    perm = np.random.default_rng(seed).permutation(n)
    n_test = min(N_TEST, max(1, n // 5))
    return perm[n_test:n_test + MAX_TRAIN], perm[:n_test]


@st.cache_data(max_entries=32, show_spinner=False)
def image_shape_guess(digest: str, _X: np.ndarray) -> tuple[int, int]:
    """:func:`~rskpca.evaluation.denoising.likely_image_shape` of this data, once."""
    return likely_image_shape(_X)


@st.cache_data(max_entries=32, show_spinner=False)
def images_reason(digest: str, _X: np.ndarray, height: int, width: int) -> str:
    """:func:`~rskpca.evaluation.denoising.not_images_reason` for this data and image shape, once."""
    return not_images_reason(_X, height, width)


@st.cache_data(max_entries=8, show_spinner=False)
def _noisy_split(digest: str, _X: np.ndarray, noise: str, level: float):
    train, test = split_images(_X.shape[0])
    # Noise on every row (seeded), as the figure and the errors have always been computed; then the rows used.
    noisy = add_noise(_X, noise, level, random_state=0)
    return train, test, noisy[train], noisy[test]


@st.cache_data(max_entries=64, show_spinner=False)
def _one_method(digest: str, _X: np.ndarray, noise: str, level: float, fit_on_noisy: bool, sigma: float,
                ell: float, r: int, alpha: float, kernel: str, preimage: str, method: str) -> list[dict]:
    """``[noisy input's row, the method's row]`` of :func:`~rskpca.evaluation.denoising.denoise`."""
    train, test, noisy_train, noisy_test = _noisy_split(digest, _X, noise, level)
    X_train = noisy_train if fit_on_noisy else _X[train]
    with native_threads_off():  # as the app's other fits: the browser shares the machine
        return denoise(X_train, noisy_test, _X[test], sigma=sigma, ell=ell, r=r, alpha=alpha, kernel=kernel,
                       preimage=preimage, methods=(method,))


def denoised(digest: str, X: np.ndarray, noise: str, level: float, fit_on_noisy: bool, sigma: float, ell: float,
             r: int, alpha: float, kernel: str, preimage: str, methods: tuple[str, ...]):
    """``(clean test rows, results of denoise (the noisy input first), training rows used)``, each method
    cached on its own, with a progress bar while any runs (any control stops it; the finished methods stay
    cached)."""
    train, test, _, _ = _noisy_split(digest, X, noise, level)
    results: list[dict] = []
    with progress_on_miss(f"Denoising {test.size} rows with {len(methods)} methods fitted on {train.size:,}") as bar:
        for i, method in enumerate(methods):
            rows = _one_method(digest, X, noise, level, fit_on_noisy, sigma, ell, r, alpha, kernel, preimage, method)
            results = results or rows[:1]
            results.append(rows[1])
            bar((i + 1) / len(methods), f"{method} done ({i + 1} of {len(methods)}; each method is cached when done)")
    return X[test], results, train.size
