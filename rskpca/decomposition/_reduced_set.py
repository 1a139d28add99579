"""Kernel PCA through m weighted centers: RSKPCA (Algorithm 1).

Both classes here share the scikit-learn estimator shape and the kernel convention
``k(x, y) = phi(||x - y||^p / sigma^p)`` (Gaussian: ``exp(-||x-y||^2 / sigma^2)``,
so scikit-learn's ``gamma = 1 / sigma**2``).

* ``_WeightedCentersKPCA`` -- the weighted m x m problem and the projection through m
  centers, shared with :class:`~rskpca.decomposition._subsampled.SubsampledKPCA` (KPCA on m
  uniformly drawn rows, no weights).
* :class:`ReducedSetKPCA` -- shadow (or k-means / KDE paring / herding) centers.
Exact KPCA is in :mod:`rskpca.decomposition._exact`, the Nystrom baselines in
:mod:`rskpca.decomposition._nystrom`. Where the
paper compares methods "at the same m", the baselines take ``m`` or,
when ``m=None``, use the m that the shadow produces at ``ell``.
"""

from __future__ import annotations

import numpy as np
from sklearn.base import _fit_context
from sklearn.exceptions import NotFittedError
from sklearn.utils import check_random_state
from sklearn.utils._available_if import available_if
from sklearn.utils._param_validation import StrOptions
from sklearn.utils.validation import validate_data

from rskpca.core.bandwidth_heuristic import resolve_sigma
from rskpca.core.projection import centered_projection
from rskpca.core.radial_kernels import get_kernel
from rskpca.core.rsde import RSDE_ESTIMATORS
from rskpca.core.shadow import StreamingShadow
from rskpca.decomposition._array_backends import distributed_backend
from rskpca.decomposition._reduced_set_choice import select_reduced_set
from rskpca.decomposition.base import (
    COMMON_CONSTRAINTS,
    _EIGEN,
    _M_OR_ELL,
    _check_kernel_budget,
    check_n_components,
    KPCAMixin,
    reduced_set_input,
)
from rskpca.decomposition._preimage import _INVERSE_CONSTRAINTS, _PreimageMixin, centers_embedding
from rskpca.core.eigen import EIGEN_SOLVERS, kpca_on_centers

__all__ = ["ReducedSetKPCA"]


class _WeightedCentersKPCA(_PreimageMixin, KPCAMixin):
    """Estimators whose projection runs through m weighted centers.

    Subclasses define ``_centers_and_weights(X, rng) -> (centers, weights)``.
    """

    _parameter_constraints: dict = {**COMMON_CONSTRAINTS, **_EIGEN, **_INVERSE_CONSTRAINTS, "center": ["boolean"],
                                    "eigen_solver": [StrOptions(set(EIGEN_SOLVERS))]}

    def _fit_centers(self, X):
        rng = check_random_state(self.random_state)
        C, w = self._centers_and_weights(X, rng)
        return self._solve_reduced_set(C, w, rng)

    def _solve_reduced_set(self, C, w, rng):
        """The weighted m x m eigenproblem on centers ``C`` with weights ``w`` (Algorithm 1)."""
        check_n_components(self, C.shape[0], "centers")
        _check_kernel_budget(C.shape[0])
        eig = kpca_on_centers(C, w, self.n_components, sigma=self.sigma_, kernel=self.kernel,
                              center=self.center, eigen_solver=self.eigen_solver, random_state=rng)
        self.centers_ = C
        self.weights_ = w
        self.m_ = int(C.shape[0])
        self.eigenvalues_ = eig.eigenvalues
        self.eigenvectors_ = eig.eigenvectors
        self.dual_coef_ = eig.dual_coef
        self.center_means_ = eig.mu
        self.eigen_solver_ = eig.solver
        self.eigen_dtype_ = eig.dtype
        self.normalized_eigenvalues_ = eig.eigenvalues / float(np.sum(w))
        if self.fit_inverse_transform:  # learned pre-image on the m weighted centers: an m x m solve
            self._fit_preimage(C, w, centers_embedding(self))
        return self

    def transform(self, X):
        """Project X on the components: O(m d) per point.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            float32 rows (Gaussian kernel) are projected through float32 kernel blocks,
            about twice as fast, each kernel value within float32 rounding of its float64
            value (float64 blocks where the data's scale against sigma would lose more).

        Returns
        -------
        Z : ndarray of shape (n_samples, n_components)
            Of X's precision.
        """
        backend = distributed_backend(X)
        if backend is not None:  # lazy, block by block
            return backend.transform(self, X)
        X = self._validate_transform_input(X)
        if "dual_coef_" not in self.__dict__:  # partial_fit has not yet seen n_components centers
            raise NotFittedError(
                f"The shadow has m={self.m_} centers so far, fewer than n_components={self.n_components}: the "
                "components are solved for once partial_fit has seen that many; feed more rows, or lower "
                "n_components.")
        # (K - 1 mu^T) A = K A - 1 (mu^T A): blocked, never the whole n_new x m matrix.
        # A model fitted on the float32 kernel is only that accurate, and float32 rows ask for
        # float32 output, so either projects through float32 kernel blocks (Gaussian: half the
        # memory traffic; float64 where float32 would round more than the fused bound allows).
        gaussian = get_kernel(self.kernel).p == 2
        dtype = np.float32 if X.dtype == np.float32 and gaussian else self.eigen_dtype_
        Z = centered_projection(X, self.centers_, self.dual_coef_, sigma=self.sigma_, kernel=self.kernel,
                                offset=self.center_means_ @ self.dual_coef_, dtype=dtype)
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
        Bandwidth in ``k = exp(-||x-y||^2 / sigma^2)`` (Gaussian; scikit-learn's ``gamma = 1 / sigma**2``) or
        ``exp(-||x-y|| / sigma)`` (Laplacian). "median": the median pairwise distance on a seeded subsample (see
        ``sigma_``).
    ell : float, default=4.0
        Shadow parameter: radius ``eps = sigma / ell``. Larger gives more centers.
    kernel : {"gaussian", "laplacian"}, default="gaussian"
        The radial kernel (:mod:`rskpca.core.radial_kernels`); the Laplacian's distance is Euclidean.
    center : bool, default=True
        Center the kernel in feature space, as every kernel PCA; False solves the uncentered problem (for
        :class:`ReducedSetKPCA`, Algorithm 1 literally).
    rsde : {"shadow", "kmeans", "uniform", "herding"}, default="shadow"
        Reduced-set density estimator. The others need ``m``; when ``m=None``
        they use the m the shadow gives at ``ell``.
    m : int or None, default=None
        Number of centers for the non-shadow estimators (ignored by "shadow").
    order : {"input", "random"}, default="input"
        Visiting order of the shadow scan.
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
        Learn ``inverse_transform`` (pre-images) as scikit-learn's ``KernelPCA``
        does: kernel ridge regression from the embeddings of the centers back
        to the centers, with this kernel and ``sigma_`` on the embeddings, each
        center counting ``weights_[j]`` times (an m x m solve; equal to
        scikit-learn's on ``np.repeat(centers_, weights_, axis=0)``).
    alpha : float, default=1.0
        Ridge penalty of the ``inverse_transform`` regression (scikit-learn's ``alpha``).

    Attributes
    ----------
    sigma_ : float
        Bandwidth used.
    m_ : int
        Number of centers: the size of the eigenproblem and the cost of a new point.
    shadow_m_ : int
        Centers the shadow gave at ``ell``. Set when the shadow ran: for
        ``rsde="shadow"`` (then equal to ``m_``) and when ``m=None`` picks m for
        another estimator (k-means may then keep fewer, ``m_ <= shadow_m_``).
    centers_ : ndarray of shape (m_, n_features)
        The reduced set a new point is projected through.
    weights_ : ndarray of shape (m_,)
        Points represented by each center (sum n).
    center_indices_ : ndarray of shape (m_,)
        Rows of the training data used as centers: set for ``rsde`` in
        {"shadow", "uniform", "herding"}; k-means centers are cluster means, not
        rows, so ``rsde="kmeans"`` leaves it unset.
    labels_ : ndarray of shape (n_samples,)
        Shadow center of each training row (``rsde="shadow"`` only).
    eigenvalues_ : ndarray of shape (n_components,)
        Eigenvalues of the weighted matrix, descending; equal to scikit-learn's
        ``KernelPCA.eigenvalues_`` on the quantized data.
    normalized_eigenvalues_ : ndarray of shape (n_components,)
        ``eigenvalues_ / n``: eigenvalues of the normalized operator.
    eigenvectors_ : ndarray of shape (m_, n_components)
        Orthonormal eigenvectors ``b_k`` of the weighted m x m matrix.
    dual_coef_ : ndarray of shape (m_, n_components)
        ``sqrt(w_j) b_kj / sqrt(lambda_k)``: the projection weights.
    center_means_ : ndarray of shape (m_,)
        ``K^C p`` (zeros when uncentered).
    eigen_solver_ : str
        The solver that ran, in words, for display: "dense", "arpack", "arpack-float32",
        "block-float32", or what a failed float32 answer fell back to ("block (refined from
        arpack-float32)", "arpack (fallback from block-float32)").
    eigen_dtype_ : type
        Precision of the kernel matrix the kept eigenvectors came from: ``np.float32`` when
        the float32 answer passed its accuracy check (``transform`` then uses float32 kernel
        blocks too), else ``np.float64``.
    X_transformed_fit_ : ndarray of shape (m_, n_components)
        Embeddings of the centers (only with ``fit_inverse_transform=True``).
    inverse_dual_coef_ : ndarray of shape (m_, n_features_in_)
        Coefficients of the learned pre-image map (only with ``fit_inverse_transform=True``).
    n_features_in_ : int
        Number of features seen in fit.
    feature_names_in_ : ndarray of shape (n_features_in_,)
        Column names, when fit on a DataFrame with string column names.

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
        "rsde": [StrOptions(set(RSDE_ESTIMATORS))],
        "order": [StrOptions({"input", "random"})],
    }

    def __init__(self, n_components=None, *, sigma="median", ell=4.0, kernel="gaussian",
                 center=True, rsde="shadow", m=None, order="input", eigen_solver="auto",
                 random_state=None, fit_inverse_transform=False, alpha=1.0):
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
        self.fit_inverse_transform = fit_inverse_transform
        self.alpha = alpha

    def _centers_and_weights(self, X, rng):
        X64 = np.asarray(X, dtype=np.float64)
        self.__dict__.pop("labels_", None)  # from an earlier fit with other rsde
        for stale in ("shadow_m_", "center_indices_"):
            self.__dict__.pop(stale, None)
        self._stream = None
        if self.rsde == "shadow" and self.order == "input":
            # The streaming state on all of X is shadow_centers(X) bit for bit, and partial_fit
            # can go on from it.
            self._stream = StreamingShadow(sigma=self.sigma_, ell=self.ell, kernel=self.kernel)
            self.labels_ = self._stream.update(X64)
            self.shadow_m_ = self._stream.m
            self.center_indices_ = self._stream.center_indices.copy()
            return self._stream.centers.copy(), self._stream.weights.astype(np.float64)
        C, w, labels = select_reduced_set(self, X64, rng)
        if labels is not None:
            self.labels_ = labels
        return C, w

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
        backend = distributed_backend(X)
        if backend is not None:  # rows stay where Dask keeps them
            return backend.fit(self, X)
        X = self._validate_fit_input(X)
        return self._fit_centers(X)

    @_fit_context(prefer_skip_nested_validation=True)
    def fit_reduced_set(self, centers, weights, *, sigma=None, center_indices=None):
        """Fit on a reduced set computed elsewhere: the m x m eigenproblem only.

        The path the distributed fit (:mod:`rskpca.distributed`) returns through;
        ``fit`` on in-memory data ends in the same solve.

        Parameters
        ----------
        centers : array-like of shape (m, n_features)
        weights : array-like of shape (m,)
            Positive; the points each center represents.
        sigma : float or None, default=None
            Bandwidth; None uses the ``sigma`` parameter, which must then be a number.
        center_indices : array-like of shape (m,) or None, default=None
            Rows of the training data used as centers, if known.

        Returns
        -------
        self : ReducedSetKPCA
        """
        C, w = reduced_set_input(self, centers, weights, sigma, center_indices)
        self._stream = None
        return self._solve_reduced_set(C, w, check_random_state(self.random_state))

    def _streams(self):
        return self.rsde == "shadow" and self.order == "input"

    @available_if(_streams)
    @_fit_context(prefer_skip_nested_validation=True)
    def partial_fit(self, X, y=None):
        """Feed the next batch of rows: the result equals ``fit`` on all rows fed so far.

        The shadow takes each batch in one screen-then-residue step
        (:class:`rskpca.core.shadow.StreamingShadow`), then the m x m
        eigenproblem is solved again, so that the fitted attributes and
        ``transform`` are current after every call. Until the shadow has
        ``n_components`` centers the eigenproblem waits (the eigen attributes
        are unset and ``transform`` says why). ``sigma="median"`` is taken on
        the first batch. Only ``rsde="shadow"`` with ``order="input"`` streams
        (with other settings the method is not available).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : ignored

        Returns
        -------
        self : ReducedSetKPCA
        """
        stream = getattr(self, "_stream", None)
        if stream is None and "centers_" in self.__dict__:
            raise ValueError(
                "This estimator was fitted without a streaming state (fit_reduced_set, or fit on a "
                "dask array), so partial_fit cannot go on from it; call partial_fit on a fresh estimator."
            )
        X = validate_data(self, X, dtype=[np.float64, np.float32], reset=stream is None)
        if stream is None:
            self.sigma_ = resolve_sigma(self.sigma, X)
            stream = self._stream = StreamingShadow(sigma=self.sigma_, ell=self.ell, kernel=self.kernel)
        stream.update(np.asarray(X, dtype=np.float64))
        self.__dict__.pop("labels_", None)  # labels of earlier rows are not kept while streaming
        for name in _EIGEN_ATTRIBUTES:
            self.__dict__.pop(name, None)
        self.centers_ = stream.centers.copy()
        self.weights_ = stream.weights.astype(np.float64)
        self.center_indices_ = stream.center_indices.copy()
        self.shadow_m_ = self.m_ = stream.m
        # Solved here, where the data changed, so that reading a fitted attribute does no work.
        if self.n_components is None or self.n_components <= stream.m:
            self._solve_reduced_set(self.centers_, self.weights_, check_random_state(self.random_state))
        return self


#: Fitted attributes of the m x m solve, dropped by partial_fit before it solves again.
_EIGEN_ATTRIBUTES = ("eigenvalues_", "eigenvectors_", "dual_coef_", "center_means_", "eigen_solver_",
                     "eigen_dtype_", "normalized_eigenvalues_", "X_transformed_fit_", "inverse_dual_coef_")
