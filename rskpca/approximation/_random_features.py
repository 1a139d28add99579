"""Random Fourier features followed by linear PCA: kernel PCA through an explicit feature map.

Bochner's theorem writes a shift-invariant kernel as an expectation,
``k(x, y) = E_w[cos(w.(x - y))]``, with ``w`` drawn from the kernel's Fourier
transform. With m frequencies ``w_j`` and phases ``b_j ~ U[0, 2 pi)``,
``z(x) = sqrt(2/m) cos(W^T x + b)`` satisfies ``E[z(x).z(y)] = k(x, y)``, so
linear PCA of the centered features approximates kernel PCA (Rahimi & Recht,
2007; also the kernel-approximation part of Kar's CS771 notes, IIT Kanpur, 2017).

In this package's convention (sigma as in ``k = phi(||x-y||^p / sigma^p)``):

* Gaussian ``exp(-||x-y||^2 / sigma^2)``: ``w ~ N(0, (2 / sigma^2) I)``, which is
  scikit-learn's ``RBFSampler(gamma=1/sigma**2)`` draw for draw;
* Laplacian ``exp(-||x-y|| / sigma)`` (Euclidean norm): ``w`` is multivariate
  Cauchy with scale ``1/sigma``, drawn as ``g / (sigma |c|)`` with ``g ~ N(0, I)``,
  ``c ~ N(0, 1)`` (a multivariate t with one degree of freedom).

Training costs O(n m d + n m^2 + m^3), a new point O(m d + m r): no training
point is kept.
"""

from __future__ import annotations

from numbers import Integral, Real

import numpy as np
from scipy.linalg import eigh
from sklearn.base import _fit_context
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import Interval

from rskpca.decomposition.base import COMMON_CONSTRAINTS, check_n_components, KPCAMixin, m_from_shadow
from rskpca.core.eigen import fix_signs
from rskpca.core.radial_kernels import get_kernel

__all__ = ["RandomFourierKPCA", "draw_fourier_frequencies", "fourier_features"]


def draw_fourier_frequencies(n_features_in: int, m: int, *, sigma: float, kernel="gaussian",
                             random_state=None):
    """Frequencies ``W`` (d x m) and phases ``b`` (m,) whose features approximate the kernel.

    For the Gaussian the draws are those of scikit-learn's
    ``RBFSampler(gamma=1/sigma**2, n_components=m, random_state=...)``.

    >>> W, b = draw_fourier_frequencies(3, 5, sigma=1.0, random_state=0)
    >>> W.shape, b.shape
    ((3, 5), (5,))
    """
    k = get_kernel(kernel)
    rng = check_random_state(random_state)
    if k.name == "gaussian":
        # exp(-|d|^2/sigma^2) = E[cos(w.d)] for w ~ N(0, 2/sigma^2 I).
        W = np.sqrt(2.0) / sigma * rng.normal(size=(n_features_in, m))
    else:
        # exp(-|d|/sigma) = E[cos(w.d)] for w multivariate Cauchy(scale 1/sigma).
        W = rng.normal(size=(n_features_in, m)) / (sigma * np.abs(rng.normal(size=m)))
    b = rng.uniform(0, 2 * np.pi, size=m)
    return W, b


def fourier_features(X, W, b) -> np.ndarray:
    """``sqrt(2/m) cos(X W + b)``: features whose inner products estimate the kernel.

    >>> import numpy as np
    >>> W, b = draw_fourier_frequencies(2, 4000, sigma=1.0, random_state=0)
    >>> Z = fourier_features(np.array([[0.0, 0.0], [0.5, 0.5]]), W, b)
    >>> round(float(Z[0] @ Z[1]), 1), round(float(np.exp(-0.5)), 1)
    (0.6, 0.6)
    """
    Z = np.asarray(X, dtype=np.float64) @ W
    Z += b
    np.cos(Z, out=Z)
    Z *= np.sqrt(2.0 / W.shape[1])
    return Z


class RandomFourierKPCA(KPCAMixin):
    """Kernel PCA approximated by linear PCA on m random Fourier features.

    Parameters
    ----------
    n_components : int or None, default=None
        Components kept; None keeps all with a positive eigenvalue (at most m).
    sigma : float or "median", default="median"
        Bandwidth in ``k = exp(-||x-y||^2 / sigma^2)`` (Gaussian; scikit-learn's ``gamma = 1 / sigma**2``) or
        ``exp(-||x-y|| / sigma)`` (Laplacian). "median": the median pairwise distance on a seeded subsample (see
        ``sigma_``).
    kernel : {"gaussian", "laplacian"}, default="gaussian"
        The radial kernel (:mod:`rskpca.core.radial_kernels`); the Laplacian's distance is Euclidean.
    m : int or None, default=None
        Number of random features (the budget: a new point costs O(m d), as
        RSKPCA with m centers). None uses the m the shadow gives at ``ell``.
    ell : float, default=4.0
        Only used when ``m=None``: m is then the number of shadow centers at radius ``eps = sigma / ell``
        (larger gives more).
    random_state : int, RandomState instance or None, default=None
        Seeds the fit's random choices (rows or landmarks drawn, k-means starts, solver start vectors); an int
        makes fits repeatable.

    Attributes
    ----------
    sigma_ : float
        Bandwidth used.
    m_ : int
        Number of random features used.
    random_weights_ : ndarray of shape (n_features, m_)
        Frequencies ``W`` of the features.
    random_offset_ : ndarray of shape (m_,)
        Phases ``b`` of the features.
    feature_mean_ : ndarray of shape (m_,)
        Mean feature vector of the training data (the feature-space mean).
    components_ : ndarray of shape (m_, n_components)
        Principal axes in feature space, orthonormal, deterministic signs.
    eigenvalues_ : ndarray of shape (n_components,)
        Eigenvalues of ``Zc^T Zc`` (= those of the approximate centered n x n
        kernel matrix ``Zc Zc^T``), comparable to scikit-learn's ``eigenvalues_``.
    normalized_eigenvalues_ : ndarray of shape (n_components,)
        ``eigenvalues_ / n``.

    See Also
    --------
    sklearn.kernel_approximation.RBFSampler : the same Gaussian features.

    References
    ----------
    A. Rahimi, B. Recht. Random features for large-scale kernel machines. NIPS 2007.

    Examples
    --------
    >>> import numpy as np
    >>> from rskpca.approximation._random_features import RandomFourierKPCA
    >>> X = np.random.default_rng(0).normal(size=(300, 2))
    >>> est = RandomFourierKPCA(n_components=2, sigma=1.0, m=100, random_state=0).fit(X)
    >>> est.transform(X[:4]).shape
    (4, 2)
    """

    _parameter_constraints: dict = {
        **COMMON_CONSTRAINTS,
        "m": [Interval(Integral, 1, None, closed="left"), None],
        "ell": [Interval(Real, 0, None, closed="neither")],
    }

    def __init__(self, n_components=None, *, sigma="median", kernel="gaussian", m=None, ell=4.0,
                 random_state=None):
        self.n_components = n_components
        self.sigma = sigma
        self.kernel = kernel
        self.m = m
        self.ell = ell
        self.random_state = random_state

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None):
        """Draw the features and run linear PCA on them.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : ignored

        Returns
        -------
        self : RandomFourierKPCA
        """
        X = self._validate_fit_input(X)
        X64 = np.asarray(X, dtype=np.float64)
        if self.m is None:
            m = m_from_shadow(self, X64)
        else:
            # More features than rows is allowed here: features are not rows.
            m = self.m_ = int(self.m)
        check_n_components(self, m, "random features")
        W, b = draw_fourier_frequencies(X64.shape[1], m, sigma=self.sigma_, kernel=self.kernel,
                                        random_state=self.random_state)
        Z = fourier_features(X64, W, b)
        mean = Z.mean(axis=0)
        Z -= mean
        C = Z.T @ Z
        r = m if self.n_components is None else self.n_components
        # The full m x m solve: at the m this method uses, LAPACK's subset driver is no faster.
        vals, vecs = eigh(0.5 * (C + C.T))
        vals, vecs = vals[::-1][:r], vecs[:, ::-1][:, :r]
        vals = np.where(vals > 1e-12 * max(float(vals[0]), 0.0), vals, 0.0)
        if self.n_components is None:
            keep = max(1, int(np.count_nonzero(vals)))
            vals, vecs = vals[:keep], vecs[:, :keep]
        self.random_weights_ = W
        self.random_offset_ = b
        self.feature_mean_ = mean
        self.components_ = fix_signs(vecs)
        self.eigenvalues_ = vals
        self.normalized_eigenvalues_ = vals / X64.shape[0]
        return self

    def transform(self, X):
        """Project X: ``(z(x) - feature_mean_) @ components_``, O(m d) per point.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        Z : ndarray of shape (n_samples, n_components)
        """
        X = self._validate_transform_input(X)
        Z = fourier_features(X, self.random_weights_, self.random_offset_)
        Z -= self.feature_mean_
        return (Z @ self.components_).astype(X.dtype, copy=False)
