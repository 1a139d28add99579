"""Diffusion maps and Laplacian eigenmaps on the shadow (Section 3, eqs. 14-15).

* :class:`ReducedSetDiffusionMap` -- Coifman & Lafon (2006) with the alpha normalisation.
* :class:`~rskpca.decomposition._spectral_embedding.ReducedSetSpectralEmbedding` -- Laplacian
  eigenmaps: the alpha = 0 random-walk eigenvectors (no lambda^t scaling), built on the shared
  ``_ReducedSetDiffusion`` here.

Both pick the reduced set as :class:`~rskpca.decomposition.ReducedSetKPCA` does (same
``sigma``, ``ell``, ``kernel``, ``rsde``, ``m``, ``order`` parameters), solve the m x m problem
of :mod:`rskpca.decomposition._diffusion` and extend to new rows through the m centers.
The spectral clustering built on them is in :mod:`rskpca.decomposition._spectral_clustering`.
"""

from __future__ import annotations

from numbers import Integral, Real

import numpy as np
from sklearn.base import _fit_context
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import Interval, StrOptions

from rskpca.core.radial_kernels import get_kernel
from rskpca.core.rsde import RSDE_ESTIMATORS
from rskpca.decomposition._array_backends import distributed_backend
from rskpca.decomposition._spectral_affinities import AFFINITY_CONSTRAINTS, _AffinityMixin
from rskpca.decomposition._diffusion import (diffusion_coefficients, diffusion_coordinates, diffusion_on_centers,
                                             diffusion_transform)
from rskpca.decomposition.base import (COMMON_CONSTRAINTS, _M_OR_ELL, KPCAMixin, _check_kernel_budget,
                                      reduced_set_input)

__all__ = ["ReducedSetDiffusionMap"]


class _ReducedSetDiffusion(_AffinityMixin, KPCAMixin):
    """Shared fit and transform: reduced set, the m x m diffusion problem, Nystrom extension.

    Subclasses give ``_diffusion_parameters() -> (alpha, t)`` and ``_n_eigen() -> k``.
    """

    _parameter_constraints: dict = {
        **COMMON_CONSTRAINTS,
        **_M_OR_ELL,
        "n_components": [Interval(Integral, 1, None, closed="left")],
        "rsde": [StrOptions(set(RSDE_ESTIMATORS))],
        "order": [StrOptions({"input", "random"})],
        "eigen_solver": [StrOptions({"auto", "dense", "arpack"})],
        **AFFINITY_CONSTRAINTS,
        # None: the radius picked for a target of max_centers centers, as the clustering's default
        "ell": [Interval(Real, 0, None, closed="neither"), None],
    }

    def _n_eigen(self) -> int:
        return int(self.n_components)

    def _fit_rows(self, X):
        """Validate X, select the centers, solve: ``(row labels or None, row coordinates or None)``.

        The row labels are each row's center (the shadow's, or the nearest after refinement);
        the "landmark" affinity gives the rows' own coordinates instead.
        """
        X = self._validate_fit_input(X)
        rng = check_random_state(self.random_state)
        C, w, labels = self._select_centers(X, rng)
        if self.affinity == "landmark":
            self._check_rank(C.shape[0])
            rows = self._solve_landmark(X, C, rng, drop_empty=w is None)  # (w None: refined centers)
            if getattr(self, "_keep_rows", False):  # for fit_transform
                self._row_coordinates = rows
            return None, rows
        self._solve(C, w, rng)
        return labels, None

    def fit_transform(self, X, y=None):
        """Fit on X and return its rows' coordinates: ``fit(X).transform(X)``.

        With the "landmark" affinity the fit has already found every row's nearest centers,
        so the coordinates come from it, without a second search over the rows.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : ignored

        Returns
        -------
        Z : ndarray of shape (n_samples, n_components)
            Of X's precision, as :meth:`transform` gives it.
        """
        if self.affinity != "landmark" or distributed_backend(X) is not None:
            return self.fit(X, y).transform(X)
        self._keep_rows = True
        try:
            self.fit(X, y)
        finally:
            del self._keep_rows
        Z = self.__dict__.pop("_row_coordinates")
        return Z.astype(np.float32 if getattr(X, "dtype", None) == np.float32 else np.float64, copy=False)

    def _check_rank(self, m: int) -> None:
        k = self._n_eigen()
        if k < m:
            return
        name = "n_clusters" if hasattr(self, "n_clusters") and self.n_components is None else "n_components"
        source = self._shadow_source(m)
        fix = "raise ell or max_centers, or lower sigma, for more centers" if self.rsde == "shadow" or self.m is None \
            else "raise m"
        raise ValueError(
            f"{name}={getattr(self, name)} needs {k} nontrivial eigenvectors, but {source}, and P on m centers "
            f"has only m - 1 = {m - 1} besides the trivial one (eigenvalue 1). Lower {name} to at most "
            f"{m - 1 if name == 'n_components' else m}, or {fix}."
        )

    def _solve(self, C, w, rng):
        m = C.shape[0]
        self._check_rank(m)
        _check_kernel_budget(m)
        alpha, t = self._diffusion_parameters()
        affinity = self._local_scaling_affinity(C) if self.affinity == "local_scaling" else None
        eig = diffusion_on_centers(C, w, self._n_eigen(), sigma=self.sigma_, kernel=self.kernel, alpha=alpha,
                                   eigen_solver=self.eigen_solver, random_state=rng, affinity=affinity)
        self.centers_ = C
        self.weights_ = w
        self.m_ = int(m)
        self.eigenvalues_ = eig.eigenvalues
        self.eigenvectors_ = eig.eigenvectors
        self.density_ = eig.density
        self.degrees_ = eig.degrees
        self.eigen_solver_ = eig.solver
        self.embedding_ = diffusion_coordinates(eig, t)
        self._coef, self._denominator = diffusion_coefficients(eig, w, alpha=alpha, t=t)
        return self

    @_fit_context(prefer_skip_nested_validation=True)
    def fit_reduced_set(self, centers, weights, *, sigma=None, center_indices=None):
        """Fit on a reduced set computed elsewhere (the distributed shadow): the m x m problem only.

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
        self : object
        """
        C, w = reduced_set_input(self, centers, weights, sigma, center_indices)
        for stale in ("eps_", "bandwidth_", "scales_"):
            self.__dict__.pop(stale, None)
        rng = check_random_state(self.random_state)
        if self.affinity == "landmark":  # the quantized rows: each center w times (exact, see _landmark_graph)
            self._check_rank(C.shape[0])
            self._solve_landmark(C, C, rng, row_weights=w)
            return self
        return self._solve(C, w, rng)

    def transform(self, X):
        """Coordinates of new rows through the m centers (Nystrom): O(m d) per row.

        For a center, the result is its row of ``embedding_``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            float32 rows (Gaussian kernel) go through float32 kernel blocks, about twice as
            fast, as :meth:`ReducedSetKPCA.transform` does.

        Returns
        -------
        Z : ndarray of shape (n_samples, n_components)
            Of X's precision.
        """
        backend = distributed_backend(X)
        if backend is not None:  # lazy, block by block
            return backend.transform(self, X)
        X = self._validate_transform_input(X)
        if self.affinity == "landmark":
            return self._landmark_transform(X).astype(X.dtype, copy=False)
        if self.affinity == "local_scaling":
            return self._local_scaling_transform(X).astype(X.dtype, copy=False)
        gaussian = get_kernel(self.kernel).p == 2
        Z = diffusion_transform(X, self.centers_, self._coef, self._denominator, sigma=self.sigma_,
                                kernel=self.kernel, dtype=np.float32 if X.dtype == np.float32 and gaussian
                                else np.float64)
        return Z.astype(X.dtype, copy=False)


class _TransformerFit:
    """``fit`` of the two transformers: rows, or a dask array through the distributed shadow."""

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None):
        """Select the reduced set and solve the m x m diffusion eigenproblem.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : ignored

        Returns
        -------
        self : object
        """
        backend = distributed_backend(X)
        if backend is not None:  # rows stay where Dask keeps them
            return backend.fit(self, X)
        self.__dict__.pop("labels_", None)
        labels, _ = self._fit_rows(X)
        if labels is not None:
            self.labels_ = labels
        return self


class ReducedSetDiffusionMap(_TransformerFit, _ReducedSetDiffusion):
    """Diffusion maps (Coifman & Lafon 2006) on the shadow centers, with out-of-sample transform.

    With ``K`` the kernel matrix on the centers (diagonal included), ``q = K w``,
    ``K_a = K / (q^alpha q^alpha')``, ``d = K_a w`` and ``P = D^-1 K_a W``, the coordinates are
    ``lambda_k^t psi_k`` for the top nontrivial right eigenvectors ``psi_k`` of ``P`` (the
    trivial one, eigenvalue 1, is dropped). ``psi`` is normalised to unit norm in the
    stationary measure ``pi = w d / sum(w d)``. On the quantized data
    ``np.repeat(centers_, weights_, axis=0)`` this is the exact dense method.

    Parameters
    ----------
    n_components : int, default=2
        Number of nontrivial coordinates; at most m - 1.
    sigma : float or "median", default="median"
        Bandwidth in ``k = exp(-||x-y||^2 / sigma^2)`` (Gaussian) or ``exp(-||x-y|| / sigma)``
        (Laplacian); scikit-learn's ``gamma = 1 / sigma**2``. "median": the median pairwise
        distance on a seeded subsample (see ``sigma_``).
    ell : float or None, default=4.0
        Shadow parameter: radius ``eps = sigma / ell``. Larger gives more centers. None: the
        radius is picked for a target of ``max_centers`` centers (which must then be given).
    alpha : float in [0, 1], default=1.0
        Density normalisation: 0 is the normalized graph Laplacian (Laplacian eigenmaps),
        1/2 Fokker-Planck, 1 the Laplace-Beltrami operator (density removed).
    t : float >= 0, default=1
        Diffusion time: coordinates are ``lambda^t psi``.
    kernel : {"gaussian", "laplacian"}, default="gaussian"
    affinity : {"gaussian", "landmark", "local_scaling"}, default="gaussian"
        "gaussian": ``kernel`` with the global ``sigma`` on the centers, exact on the quantized
        data (the paper's Section 3). "landmark": every row linked to its ``n_neighbors``
        nearest centers by a local Gaussian whose bandwidth is the rows' mean distance to them
        (Cai & Chen 2015), solved through the centers (``alpha`` has no effect: the graph is
        already degree-normalised). "local_scaling": ``exp(-d^2 / (s_i s_j))`` on the centers
        with ``s`` the distance to the ``n_neighbors``-th nearest center (Zelnik-Manor & Perona
        2004). See :mod:`rskpca.decomposition._spectral_affinities`.
    n_neighbors : int, default=5
        K of the "landmark" and "local_scaling" affinities (ignored by "gaussian").
    regularization : float >= 0 or "auto", default=0.0
        "landmark" only: this fraction of the mean landmark degree is added to every landmark's degree (Qin &
        Rohe 2013), which keeps the leading eigenvectors off a few outlying rows (Zhang & Rohe 2018); the rows'
        degrees are then slightly below 1. 0: the plain random walk. "auto": 0, or the smallest of
        ``AUTO_STEPS`` (0.05, 0.1, 0.2) after which no eigenvector lives on a handful of rows (see
        ``regularization_`` and :mod:`rskpca.decomposition._landmark_graph`).
    max_centers : int or None, default=None
        Ceiling on m: the shadow's eps is widened from ``sigma / ell`` until m fits (see
        ``eps_``). None: the shadow at ``sigma / ell``, whatever its size.
    lloyd_steps : int, default=0
        Lloyd steps that move the centers to the means of their nearest rows (seeded by the
        reduced set); each row then belongs to its nearest center.
    rsde : {"shadow", "kmeans", "uniform", "herding"}, default="shadow"
        Reduced-set density estimator; the others need ``m`` (``m=None``: the shadow's m).
    m : int or None, default=None
        Number of centers for the non-shadow estimators (ignored by "shadow").
    order : {"input", "random"}, default="input"
        Visiting order of the shadow scan.
    eigen_solver : {"auto", "dense", "arpack"}, default="auto"
        "auto": dense up to m = 250 or for many components, else ARPACK.
    random_state : int, RandomState instance or None, default=None

    Attributes
    ----------
    sigma_ : float
    m_ : int
        Number of centers.
    shadow_m_ : int
        Centers the shadow gave at ``ell`` (when it ran).
    centers_ : ndarray of shape (m_, n_features)
    weights_ : ndarray of shape (m_,)
        Points represented by each center (sum n).
    center_indices_ : ndarray of shape (m_,)
        Rows used as centers (not for ``rsde="kmeans"``).
    labels_ : ndarray of shape (n_samples,)
        Shadow center of each training row (``rsde="shadow"`` only).
    eigenvalues_ : ndarray of shape (n_components,)
        Nontrivial eigenvalues of ``P``, descending, in [0, 1) (below 1e-12 set to 0; the
        coordinates of a zero eigenvalue are 0). Eigenvalue 1 repeats when the kernel graph
        falls apart into blocks whose kernel values underflow between them: the extra
        eigenvalue-1 coordinates then tell the blocks apart.
    eigenvectors_ : ndarray of shape (m_, n_components)
        ``psi`` at the centers, ``sum_j pi_j psi_j^2 = 1``, largest-magnitude entry positive.
    embedding_ : ndarray of shape (m_, n_components)
        ``lambda^t psi`` at the centers: ``transform(centers_)``.
    density_ : ndarray of shape (m_,)
        ``q = K w``.
    degrees_ : ndarray of shape (m_,)
        ``d = K_a w``.
    eigen_solver_ : str
    eps_ : float
        Shadow radius used (when the shadow ran).
    bandwidth_ : float
        ``h`` of the "landmark" affinity.
    regularization_ : float
        The regularization the "landmark" fit used (``"auto"`` resolved: 0 or one of ``AUTO_STEPS``).
    scales_ : ndarray of shape (m_,)
        The centers' local scales ("local_scaling").
    n_features_in_ : int
    feature_names_in_ : ndarray of shape (n_features_in_,)

    See Also
    --------
    ReducedSetSpectralEmbedding : alpha = 0, no lambda^t scaling.
    ReducedSetSpectralClustering : k-means on these coordinates.

    Notes
    -----
    A new point x gets ``lambda^t psi(x)`` with ``psi(x) = (1/lambda) sum_j P(x, c_j) psi(c_j)``,
    ``q(x)`` and ``d(x)`` computed as for a center; a point whose kernel values all underflow
    is evaluated in log space (the limit: its nearest center's coordinates over lambda),
    never NaN. ``partial_fit`` is not offered. A dask array is fitted through the
    distributed shadow (``rsde="shadow"``, ``order="input"``) and transformed block by block.

    References
    ----------
    R. R. Coifman, S. Lafon. Diffusion maps. Appl. Comput. Harmon. Anal. 21 (2006) 5-30.

    H. A. Kingravi, P. A. Vela, A. Gray. Reduced-Set Kernel Principal Components
    Analysis for Improving the Training and Execution Speed of Kernel Machines.
    SIAM SDM 2013, Section 3.

    Examples
    --------
    >>> import numpy as np
    >>> from rskpca import ReducedSetDiffusionMap
    >>> X = np.random.default_rng(0).normal(size=(500, 3))
    >>> dm = ReducedSetDiffusionMap(n_components=2, sigma=1.0, ell=4.0).fit(X)
    >>> dm.transform(X[:3]).shape
    (3, 2)
    >>> bool(np.allclose(dm.transform(dm.centers_), dm.embedding_))
    True
    """

    _parameter_constraints: dict = {
        **_ReducedSetDiffusion._parameter_constraints,
        "alpha": [Interval(Real, 0, 1, closed="both")],
        "t": [Interval(Real, 0, None, closed="left")],
    }

    def __init__(self, n_components=2, *, sigma="median", ell=4.0, alpha=1.0, t=1, kernel="gaussian",
                 affinity="gaussian", n_neighbors=5, regularization=0.0, max_centers=None, lloyd_steps=0,
                 rsde="shadow", m=None, order="input", eigen_solver="auto", random_state=None):
        self.n_components = n_components
        self.affinity = affinity
        self.n_neighbors = n_neighbors
        self.regularization = regularization
        self.max_centers = max_centers
        self.lloyd_steps = lloyd_steps
        self.sigma = sigma
        self.ell = ell
        self.alpha = alpha
        self.t = t
        self.kernel = kernel
        self.rsde = rsde
        self.m = m
        self.order = order
        self.eigen_solver = eigen_solver
        self.random_state = random_state

    def _diffusion_parameters(self):
        return float(self.alpha), float(self.t)
