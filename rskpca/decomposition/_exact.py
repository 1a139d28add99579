"""Exact kernel PCA on all n points, in this package's sigma convention (the reference method)."""

from __future__ import annotations

import numpy as np
from sklearn.base import _fit_context
from sklearn.decomposition import KernelPCA as _SklearnKernelPCA
from sklearn.utils._param_validation import StrOptions

from rskpca.core.projection import centered_projection, centering_offset
from rskpca.core.radial_kernels import kernel_matrix
from rskpca.decomposition.base import COMMON_CONSTRAINTS, _check_kernel_budget, check_n_components, KPCAMixin
from rskpca.decomposition._preimage import _INVERSE_CONSTRAINTS, _PreimageMixin

__all__ = ["KernelPCA"]


class KernelPCA(_PreimageMixin, KPCAMixin):
    """Exact kernel PCA on all n points, in this package's sigma convention.

    Builds the n x n kernel matrix with BLAS and hands it to scikit-learn's
    ``KernelPCA(kernel="precomputed")`` with the chosen solver. For the Gaussian
    kernel this equals ``sklearn.decomposition.KernelPCA(kernel="rbf",
    gamma=1/sigma**2)``. Memory is n^2 floats: 10^4 points need 800 MB.

    Parameters
    ----------
    n_components : int or None, default=None
    sigma : float or "median", default="median"
        Bandwidth in ``k = exp(-||x-y||^2 / sigma^2)`` (Gaussian; scikit-learn's ``gamma = 1 / sigma**2``) or
        ``exp(-||x-y|| / sigma)`` (Laplacian). "median": the median pairwise distance on a seeded subsample (see
        ``sigma_``).
    kernel : {"gaussian", "laplacian"}, default="gaussian"
        The radial kernel (:mod:`rskpca.core.radial_kernels`); the Laplacian's distance is Euclidean.
    eigen_solver : {"auto", "dense", "arpack", "randomized"}, default="auto"
        Passed to scikit-learn ("randomized" is usually fastest for few
        components of a large matrix).
    random_state : int, RandomState instance or None, default=None
        Seeds the fit's random choices (rows or landmarks drawn, k-means starts, solver start vectors); an int
        makes fits repeatable.
    fit_inverse_transform : bool, default=False
        Learn ``inverse_transform`` by kernel ridge on all n rows (an n x n
        solve), exactly as scikit-learn's ``KernelPCA(fit_inverse_transform=True)``.
    alpha : float, default=1.0
        Ridge penalty of the ``inverse_transform`` regression (scikit-learn's ``alpha``).

    Attributes
    ----------
    sigma_ : float
        Bandwidth used.
    m_ : int
        Number of training points n: exact KPCA keeps them all.
    X_fit_ : ndarray of shape (n_samples, n_features)
        The training data, which new points are projected through.
    eigenvalues_ : ndarray of shape (n_components,)
        Eigenvalues of the centered n x n kernel matrix.
    normalized_eigenvalues_ : ndarray of shape (n_components,)
        ``eigenvalues_ / n``.
    eigenvectors_ : ndarray of shape (n_samples, n_components)
        Its orthonormal eigenvectors.
    train_kernel_means_ : ndarray of shape (n_samples,)
        Column means of the uncentered training kernel matrix, which centering new rows needs.
    kpca_ : sklearn.decomposition.KernelPCA
        The fitted scikit-learn estimator on the precomputed kernel.

    Examples
    --------
    >>> import numpy as np
    >>> from rskpca import KernelPCA
    >>> X = np.random.default_rng(0).normal(size=(100, 2))
    >>> KernelPCA(n_components=2, sigma=1.0).fit_transform(X).shape
    (100, 2)
    """

    _parameter_constraints: dict = {
        **COMMON_CONSTRAINTS,
        **_INVERSE_CONSTRAINTS,
        "eigen_solver": [StrOptions({"auto", "dense", "arpack", "randomized"})],
    }

    def __init__(self, n_components=None, *, sigma="median", kernel="gaussian", eigen_solver="auto",
                 random_state=None, fit_inverse_transform=False, alpha=1.0):
        self.n_components = n_components
        self.sigma = sigma
        self.kernel = kernel
        self.eigen_solver = eigen_solver
        self.random_state = random_state
        self.fit_inverse_transform = fit_inverse_transform
        self.alpha = alpha

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None):
        """Eigendecompose the centered n x n kernel matrix.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : ignored

        Returns
        -------
        self : KernelPCA
        """
        X = self._validate_fit_input(X)
        check_n_components(self, X.shape[0], "training points")
        _check_kernel_budget(X.shape[0])
        X64 = np.asarray(X, dtype=np.float64)
        self.m_ = X64.shape[0]
        K = kernel_matrix(X64, sigma=self.sigma_, kernel=self.kernel)
        self.train_kernel_means_ = K.mean(axis=0)  # before scikit-learn centers K in place
        self.kpca_ = _SklearnKernelPCA(n_components=self.n_components, kernel="precomputed",
                                       eigen_solver=self.eigen_solver, random_state=self.random_state,
                                       copy_X=False).fit(K)
        self.X_fit_ = X64
        self.eigenvalues_ = self.kpca_.eigenvalues_
        self.eigenvectors_ = self.kpca_.eigenvectors_
        self.normalized_eigenvalues_ = self.eigenvalues_ / X64.shape[0]
        # scikit-learn's shortcut: the training embedding is eigenvectors * sqrt(eigenvalues).
        return self._fit_preimage(X64, None, self.eigenvectors_ * np.sqrt(self.eigenvalues_))

    def fit_transform(self, X, y=None):
        """Fit, and embed the training rows without projecting them again.

        As scikit-learn's ``KernelPCA.fit_transform``: the training rows' embedding is
        ``eigenvectors_ * sqrt(eigenvalues_)``, what :meth:`transform` computes from a second
        n x n kernel matrix (equal to rounding; skipping that second matrix saves a large share
        of fit and transform, as the "exact KPCA for Embeddings" rows of ``python
        tests/benchmarks/bench_speed.py --pendigits PATH --skip fit shadow iterative projection``
        measure).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : ignored

        Returns
        -------
        Z : ndarray of shape (n_samples, n_components)
        """
        self.fit(X)
        # transform's dtype: float32 input stays float32 (validated X was fit's to keep)
        dtype = np.float32 if np.asarray(X).dtype == np.float32 else np.float64
        return (self.eigenvectors_ * np.sqrt(self.eigenvalues_)).astype(dtype, copy=False)

    def _feature_expansion(self):
        lam = self.eigenvalues_
        scale = np.where(lam > 0, 1.0 / np.sqrt(np.where(lam > 0, lam, 1.0)), 0.0)
        n = self.X_fit_.shape[0]
        return self.X_fit_, np.full(n, 1.0 / n), self.eigenvectors_ * scale, True

    def transform(self, X):
        """Project X through the n training points, in row blocks (no n_new x n matrix held).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        Z : ndarray of shape (n_samples, n_components)
        """
        X = self._validate_transform_input(X)
        points, mean_weights, coef, _ = self._feature_expansion()
        means = self.train_kernel_means_
        Z = centered_projection(X, points, coef, sigma=self.sigma_, kernel=self.kernel, mean_weights=mean_weights,
                                offset=centering_offset(means, coef))
        return Z.astype(X.dtype, copy=False)
