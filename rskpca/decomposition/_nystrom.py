"""Nystrom kernel PCA baselines of Section 6: uniform and density-weighted landmarks.

Both solve a weighted m x m landmark problem and extend its eigenvectors to the
n training points (Williams & Seeger, 2001); new points project through those n
points, which is why their storage is O(n r) (the paper's Table 2).
"""

from __future__ import annotations

import numpy as np
from sklearn.base import _fit_context
from sklearn.utils import check_random_state

from rskpca.core.row_draws import uniform_rows
from rskpca.decomposition.base import (
    COMMON_CONSTRAINTS,
    _EIGEN,
    _M_OR_ELL,
    _check_kernel_budget,
    check_n_components,
    KPCAMixin,
    m_from_shadow,
)
from rskpca.core.eigen import kpca_on_centers, zero_safe_inverse
from rskpca.core.projection import centered_projection, centering_offset
from rskpca.core.rsde import kmeans_rsde
from rskpca.decomposition._preimage import _INVERSE_CONSTRAINTS, _PreimageMixin

__all__ = ["NystromKPCA", "DensityWeightedNystromKPCA"]


class _NystromBase(_PreimageMixin, KPCAMixin):
    """Landmark eigenproblem extended to the n training points (Williams & Seeger).

    With landmarks Z, weights s (sum n), p = s/n, and the weighted landmark
    problem ``S^1/2 K^c_ZZ S^1/2 = V diag(lambda) V^T``, the approximate
    eigenvectors of the n x n kernel matrix are
    ``U~ = K^c_XZ S^1/2 V diag(1/lambda)`` (for equal weights n/m this is the
    Williams-Seeger formula ``sqrt(m/n) K_XZ U diag(1/s)``), and a new point
    projects through all n training points: ``z(x) = lambda^-1/2 U~^T k^c(X, x)``.
    Centering uses the feature-space mean estimated from the landmarks,
    ``sum_j p_j psi(z_j)``. Subclasses define ``_landmarks(X, rng) -> (Z, s)``.
    """

    _parameter_constraints: dict = {**COMMON_CONSTRAINTS, **_EIGEN, **_M_OR_ELL, **_INVERSE_CONSTRAINTS,
                                    "center": ["boolean"]}

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None):
        """Pick landmarks, solve the m x m problem, extend to the training points.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : ignored

        Returns
        -------
        self
        """
        X = self._validate_fit_input(X)
        X64 = np.asarray(X, dtype=np.float64)
        rng = check_random_state(self.random_state)
        Z, s = self._landmarks(X64, rng)
        self.m_ = int(Z.shape[0])
        check_n_components(self, Z.shape[0], "landmarks")
        _check_kernel_budget(Z.shape[0])
        # The landmarks' weighted m x m problem is RSKPCA's: its fast paths (float32 kernel
        # matrix with an accuracy certificate, block solver) apply as they are.
        eig = kpca_on_centers(Z, s, self.n_components, sigma=self.sigma_, kernel=self.kernel, center=self.center,
                              eigen_solver=self.eigen_solver, random_state=rng)
        p = s / s.sum()
        # The training rows' centered kernel against the landmarks, times the landmarks'
        # eigenvectors: the projection of new rows, with m(x_i) = <psi(x_i), mean> kept for transform.
        A = np.sqrt(s)[:, None] * eig.eigenvectors
        centering = dict(mean_weights=p, offset=centering_offset(eig.mu, A, p)) if self.center else {}
        KA, mX = centered_projection(X64, Z, A, sigma=self.sigma_, kernel=self.kernel, return_means=True,
                                     **centering)
        lam = eig.eigenvalues
        U = KA * zero_safe_inverse(lam)
        self.landmarks_ = Z
        self.weights_ = s
        self.X_fit_ = X64
        self.eigenvalues_ = lam
        self.normalized_eigenvalues_ = lam / float(s.sum())
        self.train_eigenvectors_ = U
        self.dual_coef_ = U * zero_safe_inverse(lam, power=0.5)
        self._landmark_p = p
        self._train_means = mX
        self._grand_mean = float(p @ eig.mu)
        self._dual_colsum = self.dual_coef_.sum(axis=0)
        self._dual_offset = mX @ self.dual_coef_
        self.eigen_solver_ = eig.solver
        # Learned pre-image on the m weighted landmarks (an m x m solve), as RSKPCA on its centers.
        if self.fit_inverse_transform:
            self._fit_preimage(Z, s, self._project(Z))
        return self

    def _feature_expansion(self):
        raise ValueError(f"{type(self).__name__} has no fixed-point pre-image (its components expand over the n "
                         "training points with a landmark-estimated mean); use method='ridge'.")

    def transform(self, X):
        """Project X through the n training points: O(n d) per point.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        Z : ndarray of shape (n_samples, n_components)
        """
        X = self._validate_transform_input(X)
        return self._project(np.asarray(X, dtype=np.float64)).astype(X.dtype, copy=False)

    def _project(self, X64):
        # Blocked over rows of X: memory stays bounded although it projects through all n points.
        if not self.center:
            return centered_projection(X64, self.X_fit_, self.dual_coef_, sigma=self.sigma_, kernel=self.kernel)
        return centered_projection(X64, self.X_fit_, self.dual_coef_, sigma=self.sigma_, kernel=self.kernel,
                                   mean_points=self.landmarks_, mean_weights=self._landmark_p,
                                   offset=self._dual_offset - self._grand_mean * self._dual_colsum)


class NystromKPCA(_NystromBase):
    """Nystrom KPCA: m uniform landmarks, Williams-Seeger extension (Section 6 baseline).

    Training costs O(n m d + m^3); a new point costs O(n d) because it projects
    through the n training points (Table 2: storage O(n r)).

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
        Landmarks; None uses the m the shadow gives at ``ell``.
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
        Learn ``inverse_transform`` by kernel ridge on the m landmarks, each
        counting with its weight (an m x m solve; see :class:`ReducedSetKPCA`).
    alpha : float, default=1.0
        Ridge penalty of the ``inverse_transform`` regression (scikit-learn's ``alpha``).

    Attributes
    ----------
    sigma_ : float
        Bandwidth used.
    m_ : int
        Number of landmarks.
    landmarks_ : ndarray of shape (m_, n_features)
        The landmark rows.
    landmark_indices_ : ndarray of shape (m_,)
        Their rows in the training data.
    weights_ : ndarray of shape (m_,)
        ``n / m`` each.
    eigenvalues_ : ndarray of shape (n_components,)
        Approximate eigenvalues of the centered n x n kernel matrix.
    normalized_eigenvalues_ : ndarray of shape (n_components,)
        ``eigenvalues_ / n``.
    train_eigenvectors_ : ndarray of shape (n_samples, n_components)
        The landmark eigenvectors extended to the n training points.
    dual_coef_ : ndarray of shape (n_samples, n_components)
        Projection weights over the training points.
    X_fit_ : ndarray of shape (n_samples, n_features)
        The training data, which new points are projected through.
    eigen_solver_ : str
        The solver that ran on the landmark problem: "dense" or "arpack".

    Examples
    --------
    >>> import numpy as np
    >>> from rskpca import NystromKPCA
    >>> X = np.random.default_rng(0).normal(size=(300, 2))
    >>> NystromKPCA(n_components=2, sigma=1.0, m=40, random_state=0).fit_transform(X).shape
    (300, 2)
    """

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

    def _landmarks(self, X, rng):
        m = m_from_shadow(self, X)
        idx = uniform_rows(X.shape[0], m, rng)
        self.landmark_indices_ = idx
        return X[idx].copy(), np.full(m, X.shape[0] / m)


class DensityWeightedNystromKPCA(_NystromBase):
    """Density-weighted Nystrom KPCA (Zhang & Kwok, 2010).

    k-means centers as landmarks, cluster sizes as weights, the symmetrized
    weighted m x m problem ``S^1/2 K_ZZ S^1/2``, extended to the n training
    points like :class:`NystromKPCA`.

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
        k-means clusters; None uses the m the shadow gives at ``ell``.
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
        Learn ``inverse_transform`` by kernel ridge on the m landmarks, each
        counting with its weight (an m x m solve; see :class:`ReducedSetKPCA`).
    alpha : float, default=1.0
        Ridge penalty of the ``inverse_transform`` regression (scikit-learn's ``alpha``).

    Attributes
    ----------
    sigma_ : float
        Bandwidth used.
    m_ : int
        Number of landmarks: non-empty k-means clusters (at most ``m``).
    landmarks_ : ndarray of shape (m_, n_features)
        The k-means centers (cluster means, not rows: there are no landmark indices).
    weights_ : ndarray of shape (m_,)
        Cluster sizes (sum n).
    eigenvalues_ : ndarray of shape (n_components,)
        Approximate eigenvalues of the centered n x n kernel matrix.
    normalized_eigenvalues_ : ndarray of shape (n_components,)
        ``eigenvalues_ / n``.
    train_eigenvectors_ : ndarray of shape (n_samples, n_components)
        The landmark eigenvectors extended to the n training points.
    dual_coef_ : ndarray of shape (n_samples, n_components)
        Projection weights over the training points.
    X_fit_ : ndarray of shape (n_samples, n_features)
        The training data, which new points are projected through.
    eigen_solver_ : str
        The solver that ran on the landmark problem: "dense" or "arpack".

    Examples
    --------
    >>> import numpy as np
    >>> from rskpca import DensityWeightedNystromKPCA
    >>> X = np.random.default_rng(0).normal(size=(300, 2))
    >>> est = DensityWeightedNystromKPCA(n_components=2, sigma=1.0, m=20, random_state=0).fit(X)
    >>> int(est.weights_.sum())
    300
    """

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

    def _landmarks(self, X, rng):
        m = m_from_shadow(self, X)
        return kmeans_rsde(X, m, random_state=rng)
