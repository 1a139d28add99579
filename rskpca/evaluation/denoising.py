"""Image denoising by kernel PCA pre-images: noise models and a side-by-side run of the methods.

A model is fitted on training images, noisy test images are projected on its r
components and mapped back (``inverse_transform``), and the result is compared
with the clean test images (mean squared error), as in Mika et al. (1999) and
scikit-learn's example "Image denoising using kernel PCA".
"""

from __future__ import annotations

import time

import numpy as np
from sklearn.decomposition import PCA
from sklearn.utils import check_random_state

from rskpca.decomposition import KernelPCA, NystromKPCA, ReducedSetKPCA

__all__ = ["NOISE_KINDS", "DENOISERS", "add_noise", "check_image_shape", "MIN_IMAGE_PIXELS", "not_images_reason",
           "likely_image_shape", "denoise"]

#: Noise models: Gaussian (level = standard deviation as a fraction of the pixel range) and
#: salt and pepper (level = fraction of pixels set to the darkest or the brightest value).
NOISE_KINDS = {"gaussian": "Gaussian", "salt_and_pepper": "Salt and pepper"}
#: Methods compared, in display order.
DENOISERS = ("linear PCA", "exact KPCA", "RSKPCA", "Nystrom")


def add_noise(X: np.ndarray, kind: str, level: float, *, random_state=None) -> np.ndarray:
    """A noisy copy of the images X (rows of pixels); the pixel range is X's own.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.zeros((2, 4)); X[:, 0] = 1.0
    >>> noisy = add_noise(X, "salt_and_pepper", 0.5, random_state=0)
    >>> bool(np.isin(noisy, [0.0, 1.0]).all())
    True
    """
    if kind not in NOISE_KINDS:
        raise ValueError(f"noise kind {kind!r} is not one of {sorted(NOISE_KINDS)}.")
    if not 0 <= level <= 1:
        raise ValueError(f"noise level {level} must lie in [0, 1] (a fraction of the pixel range or of the pixels).")
    rng = check_random_state(random_state)
    lo, hi = float(np.min(X)), float(np.max(X))
    if kind == "gaussian":
        return X + rng.normal(scale=level * (hi - lo), size=X.shape)
    noisy = np.array(X, dtype=np.float64, copy=True)
    hit = rng.random_sample(X.shape) < level
    noisy[hit] = np.where(rng.random_sample(int(hit.sum())) < 0.5, lo, hi)
    return noisy


#: Fewer columns than this (a 4 x 4 image) are not taken for images: two moons' 2 features would
#: show as 1 x 2 "images" whose denoising errors mean nothing.
MIN_IMAGE_PIXELS = 16


def check_image_shape(n_features: int, height: int, width: int) -> None:
    """A clear error when ``height x width`` pixels do not match the number of columns."""
    if height * width != n_features:
        side = int(round(n_features ** 0.5))
        hint = f" (e.g. {side} x {side})" if side * side == n_features else ""
        raise ValueError(f"an image of height {height} x width {width} has {height * width} pixels, but each row has "
                         f"{n_features} feature columns: set height x width to {n_features}{hint}, or pick the "
                         "pixel columns on the Data page.")


#: Neighbouring pixels of an image correlate more than pixels taken at random (images are locally smooth):
#: rows whose grid neighbours' mean |correlation| is not above the other pairs' by at least this are not
#: taken for images. Digits (8 x 8): 0.48 against 0.13; 16 tabular features on a 4 x 4 grid: no gap.
NEIGHBOUR_GAIN = 0.1
_CORRELATION_ROWS = 2000
_PERMUTATIONS = 500


def not_images_reason(X, height: int, width: int) -> str:
    """Why the rows of ``X`` are not ``height x width`` images, in words ("" when they look like images).

    Images have a grid: at least a 4 x 4 one (each side above 3), and neighbouring pixels on it correlate
    more than pixels at random, because an image is locally smooth: by at least :data:`NEIGHBOUR_GAIN` in
    mean |correlation|, and by more than 99% of random orders of the columns on the grid give (measured
    on at most 2,000 rows). Feature columns of a table, laid on a grid in their column order, show no such
    gap, and drawing them as images shows nothing. The check is statistical: of 40 random 16-column tables
    with correlated columns, one passed for 4 x 4 images (the page lets the user draw images anyway).

    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> not_images_reason(rng.normal(size=(300, 16)), 4, 4)[:55]
    'neighbouring cells of the 4 x 4 grid correlate no more '
    >>> not_images_reason(rng.normal(size=(300, 6)), 2, 3)[:41]
    'a 2 x 3 grid is too narrow for an image ('
    >>> smooth = np.cumsum(np.cumsum(rng.normal(size=(300, 8, 8)), axis=1), axis=2).reshape(300, 64)
    >>> not_images_reason(smooth, 8, 8)
    ''
    """
    h, w = int(height), int(width)
    if min(h, w) <= 3:
        return (f"a {h} x {w} grid is too narrow for an image (each side needs more than 3 pixels; set the images' "
                "height and width above if they have another shape)")
    X = np.asarray(X, dtype=np.float64)[:_CORRELATION_ROWS]
    check_image_shape(X.shape[1], h, w)
    with np.errstate(invalid="ignore", divide="ignore"):
        C = np.abs(np.corrcoef(X, rowvar=False))
    idx = np.arange(h * w).reshape(h, w)
    neighbours = np.zeros((h * w, h * w), dtype=bool)
    neighbours[idx[:, :-1].ravel(), idx[:, 1:].ravel()] = True
    neighbours[idx[:-1, :].ravel(), idx[1:, :].ravel()] = True
    neighbours |= neighbours.T
    others = ~neighbours & ~np.eye(h * w, dtype=bool)

    def gap(order):
        Cp = C[np.ix_(order, order)]
        return np.nanmean(Cp[neighbours]) - np.nanmean(Cp[others])

    found = gap(np.arange(h * w))
    # The same gap with the columns laid on the grid in random orders: what a table's arbitrary column
    # order gives. An image's own order must beat nearly all of them, and by a margin.
    rng = np.random.default_rng(0)
    shuffled = [gap(rng.permutation(h * w)) for _ in range(_PERMUTATIONS)]
    if not np.isfinite(found) or found < NEIGHBOUR_GAIN or found <= np.nanquantile(shuffled, 0.99):
        near = np.nanmean(C[neighbours])
        return (f"neighbouring cells of the {h} x {w} grid correlate no more than cells laid on it in a random "
                f"order (mean |r| of neighbours {near:.2f}, {found:+.2f} over the other pairs), as pixels of an "
                "image do")
    return ""


#: Above this many pixels the shape guess only tries the square (the correlation matrix grows as d^2).
SHAPE_GUESS_MAX_PIXELS = 4096


def likely_image_shape(X) -> tuple[int, int]:
    """The ``(height, width)`` of rows stored as images: the square for a square d, else the grid under which
    neighbouring columns correlate most.

    Images are mostly square (8 x 8 digits, 16 x 16 USPS, 28 x 28 MNIST), and a square d is taken as
    square. Otherwise every factorisation ``d = h w`` with both sides above 3 is tried (ties go to the
    squarer one): an image's pixels correlate with their neighbours on its own grid, and on a wrong width
    a pixel's neighbour below is another row's pixel. Above :data:`SHAPE_GUESS_MAX_PIXELS` the squarest is
    taken; without any factorisation, ``(1, d)`` (:func:`not_images_reason` says why that is no image).

    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> faces = np.cumsum(np.cumsum(rng.normal(size=(300, 30, 20)), axis=1), axis=2).reshape(300, 600)
    >>> likely_image_shape(faces)
    (30, 20)
    >>> likely_image_shape(rng.normal(size=(50, 64))), likely_image_shape(rng.normal(size=(50, 13)))
    ((8, 8), (1, 13))
    """
    X = np.asarray(X, dtype=np.float64)[:_CORRELATION_ROWS]
    d = X.shape[1]
    side = int(round(d ** 0.5))
    shapes = [(h, d // h) for h in range(4, d // 4 + 1) if d % h == 0]
    shapes.sort(key=lambda s: abs(s[0] - s[1]))  # squarer first: a tie keeps the squarer
    if not shapes:
        return (1, d)
    if side * side == d:
        return (side, side)
    if len(shapes) == 1 or d > SHAPE_GUESS_MAX_PIXELS:
        return shapes[0]
    with np.errstate(invalid="ignore", divide="ignore"):
        C = np.abs(np.corrcoef(X, rowvar=False))
    scores = []
    for h, w in shapes:
        idx = np.arange(d).reshape(h, w)
        right = np.nanmean(C[idx[:, :-1].ravel(), idx[:, 1:].ravel()])
        below = np.nanmean(C[idx[:-1, :].ravel(), idx[1:, :].ravel()])
        scores.append(np.nan_to_num(right + below, nan=-np.inf))
    return shapes[int(np.argmax(scores))]


def _fit(make, X):
    t0 = time.perf_counter()
    est = make().fit(X)
    return est, time.perf_counter() - t0


def denoise(X_train, X_test_noisy, X_test_clean, *, sigma: float, ell: float, r: int, alpha: float = 1e-3,
            kernel: str = "gaussian", preimage: str = "ridge", methods=DENOISERS, random_state=0) -> list[dict]:
    """Fit each method on ``X_train`` and denoise ``X_test_noisy``.

    Parameters
    ----------
    X_train : ndarray of shape (n, d)
    X_test_noisy, X_test_clean : ndarray of shape (k, d)
    sigma, ell, r : the kernel bandwidth, the shadow parameter, the number of components.
    alpha : float, default=1e-3
        Ridge penalty of the learned pre-image map.
    kernel : str, default="gaussian"
    preimage : {"ridge", "fixed-point"}, default="ridge"
        Pre-image method of the kernel methods (Nystrom: always ridge).
    methods : iterable of names in :data:`DENOISERS`

    Returns
    -------
    results : list of dict
        One per method, the noisy input first: ``method``, ``images`` (k, d),
        ``mse`` against the clean images, ``fit_s`` (None for the input),
        ``m`` (points the pre-image map is learned on).

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(200, 16))
    >>> out = denoise(X[:150], X[150:] + 0.3, X[150:], sigma=6.0, ell=2.0, r=3, methods=("linear PCA", "RSKPCA"))
    >>> [row["method"] for row in out]
    ['noisy input', 'linear PCA', 'RSKPCA']
    """
    unknown = set(methods) - set(DENOISERS)
    if unknown:
        raise ValueError(f"unknown denoising methods {sorted(unknown)}; choose from {DENOISERS}.")
    results = [{"method": "noisy input", "images": X_test_noisy, "fit_s": None, "m": None,
                "mse": float(np.mean((X_test_noisy - X_test_clean) ** 2))}]
    kw = dict(n_components=r, sigma=sigma, kernel=kernel, fit_inverse_transform=True, alpha=alpha)
    makers = {
        "linear PCA": lambda: PCA(n_components=min(r, *X_train.shape), random_state=random_state),
        "exact KPCA": lambda: KernelPCA(random_state=random_state, **kw),
        "RSKPCA": lambda: ReducedSetKPCA(ell=ell, random_state=random_state, **kw),
        "Nystrom": lambda: NystromKPCA(ell=ell, random_state=random_state, **kw),
    }
    for name in (m for m in DENOISERS if m in methods):
        est, fit_s = _fit(makers[name], X_train)
        Z = est.transform(X_test_noisy)
        if name == "linear PCA":
            images, m = est.inverse_transform(Z), X_train.shape[0]
        else:
            method = preimage if name != "Nystrom" else "ridge"
            images = est.inverse_transform(Z, method=method)
            m = est.X_transformed_fit_.shape[0]
        results.append({"method": name, "images": images, "fit_s": fit_s, "m": m,
                        "mse": float(np.mean((images - X_test_clean) ** 2))})
    return results
