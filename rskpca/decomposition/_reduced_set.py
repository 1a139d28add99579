"""Kernel PCA estimators: RSKPCA (Algorithm 1) and the baselines of Section 6.

All share the scikit-learn estimator shape and the kernel convention
``k(x, y) = phi(||x - y||^p / sigma^p)`` (Gaussian: ``exp(-||x-y||^2 / sigma^2)``,
so scikit-learn's ``gamma = 1 / sigma**2``).

* :class:`ReducedSetKPCA` -- shadow (or k-means / KDE paring / herding) centers,
  weighted m x m problem, projection through m centers.
* :class:`SubsampledKPCA` -- KPCA on m uniformly drawn rows, no weights.
* :class:`NystromKPCA` (in :mod:`rskpca.decomposition._nystrom`) -- m uniform landmarks, eigenvectors extended to the n
  training points (Williams & Seeger, 2001), projection through the n points.
* :class:`DensityWeightedNystromKPCA` -- k-means landmarks weighted by cluster
  size (Zhang & Kwok, 2010), extended and projected the same way.
* :class:`KernelPCA` -- exact KPCA on all n points (scikit-learn's solver on
  our kernel matrix).

Where the paper compares methods "at the same m", the baselines take ``m`` or,
when ``m=None``, use the m that the shadow produces at ``ell``.
"""

from __future__ import annotations

import numpy as np
from sklearn.base import _fit_context
from sklearn.decomposition import KernelPCA as _SklearnKernelPCA
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import StrOptions

from rskpca.decomposition._base import (  # noqa: F401  (MAX_KERNEL_BYTES and helpers re-exported for callers)
    _COMMON_CONSTRAINTS,
    _EIGEN,
    _M_OR_ELL,
    MAX_KERNEL_BYTES,
    _check_kernel_budget,
    _check_n_components,
    _KPCAMixin,
    _m_from_shadow,
    _resolve_sigma,
)
from rskpca.core.eigen import EIGEN_SOLVERS, kpca_on_centers
from rskpca.core.kernels import PROJECTION_BLOCK_ELEMENTS, kernel_matrix, kernel_matvec
from rskpca.decomposition._nystrom import DensityWeightedNystromKPCA, NystromKPCA
from rskpca.core.rsde import herding_rsde, kmeans_rsde, uniform_rsde
from rskpca.core.shadow import shadow_centers

__all__ = [
    "ReducedSetKPCA",
    "SubsampledKPCA",
    "NystromKPCA",
    "DensityWeightedNystromKPCA",
    "KernelPCA",
]


class _WeightedCentersKPCA(_KPCAMixin):
    """Estimators whose projection runs through m weighted centers.

    Subclasses define ``_centers_and_weights(X, rng) -> (centers, weights)``.
    """

    _parameter_constraints: dict = {**_COMMON_CONSTRAINTS, **_EIGEN, "center": ["boolean"],
                                    "eigen_solver": [StrOptions(set(EIGEN_SOLVERS))]}

    def _fit_centers(self, X):
        rng = check_random_state(self.random_state)
        C, w = self._centers_and_weights(X, rng)
        _check_n_components(self.n_components, C.shape[0], "centers")
        _check_kernel_budget(C.shape[0])
        eig = kpca_on_centers(C, w, self.n_components, sigma=self.sigma_, kernel=self.kernel,
                              center=self.center, eigen_solver=self.eigen_solver, random_state=rng)
        self.centers_ = C
        self.weights_ = w
        self.eigenvalues_ = eig.eigenvalues
        self.eigenvectors_ = eig.eigenvectors
        self.dual_coef_ = eig.dual_coef
        self.center_means_ = eig.mu
        self.eigen_solver_ = eig.solver
        self.normalized_eigenvalues_ = eig.eigenvalues / float(np.sum(w))
        return self

    def transform(self, X):
        """Project X on the components: O(m d) per point.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        Z : ndarray of shape (n_samples, n_components)
        """
        if callable(getattr(X, "__dask_graph__", None)):  # dask: lazy, block by block
            from rskpca.distributed import _shadow as distributed
            return distributed.transform(self, X)
        X = self._validate_transform_input(X)
        # (K - 1 mu^T) A = K A - 1 (mu^T A): blocked, never the whole n_new x m matrix.
        # A model fitted on the float32 kernel (eigen_solver_ "...-float32") is only that
        # accurate, so its projection uses float32 kernel blocks too (about 2x the throughput).
        dtype = np.float32 if self.eigen_solver_.endswith("float32") else np.float64
        Z = kernel_matvec(X, self.centers_, self.dual_coef_, sigma=self.sigma_, kernel=self.kernel,
                          dtype=dtype, block_elements=PROJECTION_BLOCK_ELEMENTS)
        Z -= (self.center_means_ @ self.dual_coef_)[None, :]
        return Z.astype(X.dtype, copy=False)


class ReducedSetKPCA(_WeightedCentersKPCA):
    """Reduced-Set Kernel PCA with the shadow density estimate (Algorithm 1 + 2).

    Picks shadow centers with ``eps = sigma / ell`` in one pass, weights each by
    the number of points it absorbed, eigendecomposes the weighted m x m kernel
    matrix, and projects new points through the m centers. Centered (the
    default), it is exactly kernel PCA on the quantized data set
    ``np.repeat(centers_, weights_, axis=0)``.

    Parameters
    ----------
    n_components : int or None, default=None
        Number of components; None keeps all with a positive eigenvalue.
        More than the number of centers m is an error.
    sigma : float or "median", default="median"
        Bandwidth in ``k = exp(-||x-y||^2 / sigma^2)`` (Gaussian) or
        ``exp(-||x-y|| / sigma)`` (Laplacian). "median": the median pairwise
        distance on a seeded subsample (see ``sigma_``).
    ell : float, default=4.0
        Shadow parameter: radius ``eps = sigma / ell``. Larger gives more centers.
    kernel : {"gaussian", "laplacian"}, default="gaussian"
    center : bool, default=True
        Center in feature space (as every KPCA); False is Algorithm 1 literally.
    rsde : {"shadow", "kmeans", "uniform", "herding"}, default="shadow"
        Reduced-set density estimator. The others need ``m``; when ``m=None``
        they use the m the shadow gives at ``ell``.
    m : int or None, default=None
        Number of centers for the non-shadow estimators (ignored by "shadow").
    order : {"input", "random"}, default="input"
        Visiting order of the shadow scan.
    eigen_solver : {"auto", "dense", "arpack", "block"}, default="auto"
        "auto": dense up to m = 500 (or for many components); above it the weighted
        matrix is built once in float32 (Gaussian) and solved by ARPACK (block Krylov from
        16 components), kept only if provably within 1e-3 (subspace sine) of the float64
        answer, else exact float64 ARPACK (``rskpca.core.eigen.kpca_on_centers``).
    random_state : int, RandomState instance or None, default=None

    Attributes
    ----------
    sigma_ : float
        Bandwidth used.
    centers_ : ndarray of shape (m, n_features)
    weights_ : ndarray of shape (m,)
        Points represented by each center (sum n).
    center_indices_ : ndarray of shape (m,)
        Rows of the training data used as centers (shadow, uniform, herding).
    labels_ : ndarray of shape (n_samples,)
        Shadow center of each training row (shadow only).
    eigenvalues_ : ndarray of shape (n_components,)
        Eigenvalues of the weighted matrix, descending; equal to scikit-learn's
        ``KernelPCA.eigenvalues_`` on the quantized data.
    normalized_eigenvalues_ : ndarray of shape (n_components,)
        ``eigenvalues_ / n``: eigenvalues of the normalized operator.
    eigenvectors_ : ndarray of shape (m, n_components)
    dual_coef_ : ndarray of shape (m, n_components)
        ``sqrt(w_j) b_kj / sqrt(lambda_k)``: the projection weights.
    center_means_ : ndarray of shape (m,)
        ``K^C p`` (zeros when uncentered).
    eigen_solver_ : str
    n_features_in_ : int
    feature_names_in_ : ndarray of shape (n_features_in_,)

    See Also
    --------
    rskpca.shadow_centers : the shadow selection alone.
    KernelPCA : exact kernel PCA.

    References
    ----------
    H. A. Kingravi, P. A. Vela, A. Gray. Reduced-Set Kernel Principal Components
    Analysis for Improving the Training and Execution Speed of Kernel Machines.
    SIAM SDM 2013.

    Examples
    --------
    >>> import numpy as np
    >>> from rskpca import ReducedSetKPCA
    >>> X = np.random.default_rng(0).normal(size=(500, 3))
    >>> est = ReducedSetKPCA(n_components=2, sigma=2.0, ell=4.0).fit(X)
    >>> est.transform(X[:3]).shape
    (3, 2)
    >>> int(est.weights_.sum())
    500
    """

    _parameter_constraints: dict = {
        **_WeightedCentersKPCA._parameter_constraints,
        **_M_OR_ELL,
        "rsde": [StrOptions({"shadow", "kmeans", "uniform", "herding"})],
        "order": [StrOptions({"input", "random"})],
    }

    def __init__(self, n_components=None, *, sigma="median", ell=4.0, kernel="gaussian",
                 center=True, rsde="shadow", m=None, order="input", eigen_solver="auto",
                 random_state=None):
        self.n_components = n_components
        self.sigma = sigma
        self.ell = ell
        self.kernel = kernel
        self.center = center
        self.rsde = rsde
        self.m = m
        self.order = order
        self.eigen_solver = eigen_solver
        self.random_state = random_state

    def _centers_and_weights(self, X, rng):
        if callable(getattr(X, "__dask_graph__", None)):  # rows stay on the Dask workers
            from rskpca.distributed import _shadow as distributed
            return distributed.centers_and_weights(self, X)
        X64 = np.asarray(X, dtype=np.float64)
        need_shadow = self.rsde == "shadow" or self.m is None
        if need_shadow:
            s = shadow_centers(X64, sigma=self.sigma_, ell=self.ell, kernel=self.kernel,
                               order=self.order, random_state=rng)
            self.shadow_m_ = s.m
        if self.rsde == "shadow":
            self.center_indices_ = s.center_indices
            self.labels_ = s.labels
            return s.centers, s.weights.astype(np.float64)
        m = s.m if self.m is None else self.m
        if self.rsde == "kmeans":
            return kmeans_rsde(X64, m, random_state=rng)
        if self.rsde == "uniform":
            return uniform_rsde(X64, m, random_state=rng)
        return herding_rsde(X64, m, sigma=self.sigma_, kernel=self.kernel, random_state=rng)

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None):
        """Select the reduced set and solve the m x m eigenproblem.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : ignored

        Returns
        -------
        self : ReducedSetKPCA
        """
        if callable(getattr(X, "__dask_graph__", None)):  # dask array: needs rskpca[dask]
            from rskpca.distributed import _shadow as distributed
            X = distributed.validate_fit_input(self, X)
        else:
            X = self._validate_fit_input(X)
        return self._fit_centers(X)


class SubsampledKPCA(_WeightedCentersKPCA):
    """Kernel PCA on m rows drawn uniformly, without weights (Section 6 baseline).

    Parameters
    ----------
    n_components : int or None, default=None
    sigma : float or "median", default="median"
    kernel : {"gaussian", "laplacian"}, default="gaussian"
    m : int or None, default=None
        Rows kept; None uses the m the shadow gives at ``ell``.
    ell : float, default=4.0
        Only used to pick m when ``m=None``.
    center : bool, default=True
    eigen_solver : {"auto", "dense", "arpack", "block"}, default="auto"
    random_state : int, RandomState instance or None, default=None

    Attributes
    ----------
    sigma_, centers_, weights_ (all ones), center_indices_, eigenvalues_,
    normalized_eigenvalues_ (``eigenvalues_ / m``), dual_coef_, center_means_

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
                 center=True, eigen_solver="auto", random_state=None):
        self.n_components = n_components
        self.sigma = sigma
        self.kernel = kernel
        self.m = m
        self.ell = ell
        self.center = center
        self.eigen_solver = eigen_solver
        self.random_state = random_state

    def _centers_and_weights(self, X, rng):
        m = _m_from_shadow(self, X)
        idx = np.sort(rng.choice(X.shape[0], size=m, replace=False))
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


class KernelPCA(_KPCAMixin):
    """Exact kernel PCA on all n points, in this package's sigma convention.

    Builds the n x n kernel matrix with BLAS and hands it to scikit-learn's
    ``KernelPCA(kernel="precomputed")`` with the chosen solver. For the Gaussian
    kernel this equals ``sklearn.decomposition.KernelPCA(kernel="rbf",
    gamma=1/sigma**2)``. Memory is n^2 floats: 10^4 points need 800 MB.

    Parameters
    ----------
    n_components : int or None, default=None
    sigma : float or "median", default="median"
    kernel : {"gaussian", "laplacian"}, default="gaussian"
    eigen_solver : {"auto", "dense", "arpack", "randomized"}, default="auto"
        Passed to scikit-learn ("randomized" is usually fastest for few
        components of a large matrix).
    random_state : int, RandomState instance or None, default=None

    Attributes
    ----------
    sigma_, X_fit_, eigenvalues_, normalized_eigenvalues_ (``eigenvalues_ / n``),
    eigenvectors_ (n x r), kpca_ (the fitted scikit-learn estimator)

    Examples
    --------
    >>> import numpy as np
    >>> from rskpca import KernelPCA
    >>> X = np.random.default_rng(0).normal(size=(100, 2))
    >>> KernelPCA(n_components=2, sigma=1.0).fit_transform(X).shape
    (100, 2)
    """

    _parameter_constraints: dict = {
        **_COMMON_CONSTRAINTS,
        "eigen_solver": [StrOptions({"auto", "dense", "arpack", "randomized"})],
    }

    def __init__(self, n_components=None, *, sigma="median", kernel="gaussian", eigen_solver="auto",
                 random_state=None):
        self.n_components = n_components
        self.sigma = sigma
        self.kernel = kernel
        self.eigen_solver = eigen_solver
        self.random_state = random_state

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
        _check_n_components(self.n_components, X.shape[0], "training points")
        _check_kernel_budget(X.shape[0])
        X64 = np.asarray(X, dtype=np.float64)
        K = kernel_matrix(X64, sigma=self.sigma_, kernel=self.kernel)
        self.kpca_ = _SklearnKernelPCA(n_components=self.n_components, kernel="precomputed",
                                       eigen_solver=self.eigen_solver, random_state=self.random_state,
                                       copy_X=False).fit(K)
        self.X_fit_ = X64
        self.eigenvalues_ = self.kpca_.eigenvalues_
        self.eigenvectors_ = self.kpca_.eigenvectors_
        self.normalized_eigenvalues_ = self.eigenvalues_ / X64.shape[0]
        return self

    def transform(self, X):
        """Project X through the n training points.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        Z : ndarray of shape (n_samples, n_components)
        """
        X = self._validate_transform_input(X)
        K = kernel_matrix(np.asarray(X, dtype=np.float64), self.X_fit_, sigma=self.sigma_, kernel=self.kernel)
        return self.kpca_.transform(K).astype(X.dtype, copy=False)
