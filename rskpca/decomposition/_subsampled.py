"""``SubsampledKPCA``: kernel PCA on m uniformly drawn rows, unweighted (the paper's subsampled baseline)."""

from __future__ import annotations

import numpy as np
from sklearn.base import _fit_context

from rskpca.core.row_draws import uniform_rows
from rskpca.decomposition.base import _M_OR_ELL, m_from_shadow
from rskpca.decomposition._reduced_set import _WeightedCentersKPCA

__all__ = ["SubsampledKPCA"]


class SubsampledKPCA(_WeightedCentersKPCA):
    """Kernel PCA on m rows drawn uniformly, without weights (Section 6 baseline).

    Parameters
    ----------
    n_components : int or None, default=None
    sigma : float or "median", default="median"
        Bandwidth in ``k = exp(-||x-y||^2 / sigma^2)`` (Gaussian; scikit-learn's ``gamma = 1 / sigma**2``) or
        ``exp(-||x-y|| / sigma)`` (Laplacian). "median": the median pairwise distance on a seeded subsample (see
        ``sigma_``).
    kernel : {"gaussian", "laplacian"}, default="gaussian"
        The radial kernel (:mod:`rskpca.core.radial_kernels`); the Laplacian's distance is Euclidean.
    m : int or None, default=None
        Rows kept; None uses the m the shadow gives at ``ell``.
    ell : float, default=4.0
        Only used when ``m=None``: m is then the number of shadow centers at radius ``eps = sigma / ell``
        (larger gives more).
    center : bool, default=True
        Center the kernel in feature space, as every kernel PCA; False solves the uncentered problem (for
        :class:`ReducedSetKPCA`, Algorithm 1 literally).
    eigen_solver : {"auto", "dense", "arpack", "block"}, default="auto"
        Solver of the weighted m x m problem (:func:`rskpca.core.eigen.kpca_on_centers`). "auto": dense up to
        ``rskpca.core.eigen.DENSE_MAX_M`` points or for many components; above it the weighted matrix is built
        once in float32 (Gaussian, fewer than ``FLOAT32_MAX_COMPONENTS`` components) and solved by ARPACK, or by
        block Krylov from ``BLOCK_MIN_M``, kept only if provably within 1e-3 (subspace sine) of the float64
        answer, else refined by block Krylov steps on the float64 matrix under the same check, else exact
        float64 ARPACK. Above ``DENSE_MAX_M`` a fit is thus certified to 1e-3, not exact to rounding, and with
        ``random_state=None`` two fits need not agree to the bit (the partial solvers start from random
        vectors).
    random_state : int, RandomState instance or None, default=None
        Seeds the fit's random choices (rows or landmarks drawn, k-means starts, solver start vectors); an int
        makes fits repeatable.
    fit_inverse_transform : bool, default=False
        Learn ``inverse_transform`` by kernel ridge on the m kept rows (as
        :class:`ReducedSetKPCA`).
    alpha : float, default=1.0
        Ridge penalty of the ``inverse_transform`` regression (scikit-learn's ``alpha``).

    Attributes
    ----------
    sigma_ : float
        Bandwidth used.
    m_ : int
        Rows kept.
    centers_ : ndarray of shape (m_, n_features)
        The rows kept, in their original order.
    weights_ : ndarray of shape (m_,)
        All ones: each kept row stands for itself only.
    center_indices_ : ndarray of shape (m_,)
        Rows of the training data kept.
    eigenvalues_ : ndarray of shape (n_components,)
        Eigenvalues of the centered m x m kernel matrix of the kept rows.
    normalized_eigenvalues_ : ndarray of shape (n_components,)
        ``eigenvalues_ / m``.
    eigenvectors_ : ndarray of shape (m_, n_components)
        Orthonormal eigenvectors of that matrix.
    dual_coef_ : ndarray of shape (m_, n_components)
        Projection weights, ``eigenvectors_ / sqrt(eigenvalues_)``.
    center_means_ : ndarray of shape (m_,)
        Kernel row means of the kept rows (zeros when uncentered).
    eigen_solver_ : str
        The solver that ran: "dense" or "arpack".
    X_transformed_fit_ : ndarray of shape (m_, n_components)
        Embeddings of the centers (only with ``fit_inverse_transform=True``).
    inverse_dual_coef_ : ndarray of shape (m_, n_features_in_)
        Coefficients of the learned pre-image map (only with ``fit_inverse_transform=True``).

    Examples
    --------
    >>> import numpy as np
    >>> from rskpca import SubsampledKPCA
    >>> X = np.random.default_rng(0).normal(size=(300, 2))
    >>> SubsampledKPCA(n_components=2, sigma=1.0, m=50, random_state=0).fit(X).centers_.shape
    (50, 2)
    """

    _parameter_constraints: dict = {**_WeightedCentersKPCA._parameter_constraints, **_M_OR_ELL}

    def __init__(self, n_components=None, *, sigma="median", kernel="gaussian", m=None, ell=4.0,
                 center=True, eigen_solver="auto", random_state=None, fit_inverse_transform=False, alpha=1.0):
        self.n_components = n_components
        self.sigma = sigma
        self.kernel = kernel
        self.m = m
        self.ell = ell
        self.center = center
        self.eigen_solver = eigen_solver
        self.random_state = random_state
        self.fit_inverse_transform = fit_inverse_transform
        self.alpha = alpha

    def _centers_and_weights(self, X, rng):
        m = m_from_shadow(self, X)
        idx = uniform_rows(X.shape[0], m, rng)
        self.center_indices_ = idx
        return np.asarray(X[idx], dtype=np.float64), np.ones(m)

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None):
        """Draw m rows and fit KPCA on them.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : ignored

        Returns
        -------
        self : SubsampledKPCA
        """
        X = self._validate_fit_input(X)
        return self._fit_centers(X)
