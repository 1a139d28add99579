"""Reduced-set construction of the kernel PCA eigenvectors (Burges 1996; Schoelkopf et al. 1998).

Exact kernel PCA gives q feature-space eigenvectors ``w^l = sum_i alpha_li psi(x_i)``
(and the feature-space mean ``w^0 = (1/n) sum_i psi(x_i)``), each a sum of n
kernel functions, so projecting a new point costs n kernel evaluations. The
reduced-set construction replaces all of them by expansions over the same m
constructed points ``y_1, ..., y_m``: ``w'^l = sum_t beta_lt psi(y_t)``, so a new
point costs m evaluations (speed-up n/m at evaluation).

The points are found one at a time (H. Hoffmann, PhD thesis, 2005, appendix B.2,
eq. B.7): ``y_t`` maximises ``sum_l <w^l_t, psi(y)>^2 / k(y, y)`` over the residuals
``w^l_t = w^l - sum_{s<t} beta_ls psi(y_s)``, and after each step all ``beta``
are recomputed as ``beta^l = (K^y)^-1 K^yx alpha^l`` (eq. B.6), the orthogonal
projection of ``w^l`` on ``span psi(y_1..y_t)``.

* The search starts at the training point with the largest objective (a cheap
  look-up: the residual inner products at the training points are kept
  up to date by Gram-Schmidt in feature space).
* For the Gaussian kernel it then runs the fixed-point pre-image iteration
  (setting the gradient to zero): ``y <- sum_j c_j z_j / sum_j c_j`` with
  ``c_j = (sum_l g_l gamma_lj) k(z_j, y)``, over the expansion points
  ``z = (x_1..x_n, y_1..y_{t-1})`` with coefficients ``gamma`` and
  ``g_l = <w^l_t, psi(y)>``; the result is kept only if it beats the start.
* With ``preimage="training_points"`` (and for the Laplacian kernel, whose
  fixed point is singular at the data) ``y_t`` is the best training point; with
  m = n this reaches the full expansion exactly.

Training costs exact KPCA **plus** the construction (O(m n d) per fixed-point
sweep and O(n m^2) for the projections): it speeds up evaluation only.
``fit_time_breakdown_`` shows both parts.
"""

from __future__ import annotations

import time
from numbers import Integral, Real

import numpy as np
from scipy.linalg import solve_triangular
from sklearn.base import _fit_context
from sklearn.utils._param_validation import Interval, StrOptions

from rskpca.decomposition.base import COMMON_CONSTRAINTS, KPCAMixin, m_from_shadow
from rskpca.decomposition import KernelPCA
from rskpca.decomposition.iterative import IterativeKPCA, projection_coefficients
from rskpca.core.projection import centered_projection
from rskpca.core.radial_kernels import get_kernel, kernel_matrix, kernel_matvec, squared_distances

__all__ = ["ReducedSetConstructionKPCA", "construct_reduced_set"]

#: A candidate whose feature vector has less than this squared distance to the
#: span of the points already chosen adds nothing numerically and is skipped.
SPAN_TOLERANCE = 1e-12
_GAUSSIAN = get_kernel("gaussian")


def _gaussian_column(Z, Z_sq, y, sigma):
    """``k(Z, y)`` for the Gaussian kernel with the squared norms of Z precomputed (once per point, not per step)."""
    d2 = squared_distances(Z, y[None, :], X_sq=Z_sq)[:, 0]
    return _GAUSSIAN.from_squared_distances(d2, sigma, out=d2)


def _fixed_point_preimage(y, Z, gamma, *, sigma, max_iter, tol):
    """Gaussian fixed-point iteration for ``max_y sum_l (gamma_l^T k(Z, y))^2``.

    Returns the last point, its objective and the iterations run.
    """
    Z_sq = np.einsum("ij,ij->i", Z, Z)
    it = 0
    for it in range(1, max_iter + 1):
        kz = _gaussian_column(Z, Z_sq, y, sigma)
        g = gamma.T @ kz
        c = (gamma @ g) * kz
        denom = float(c.sum())
        if abs(denom) <= 1e-300:
            break  # the update is undefined: keep the last point
        y_new = (c @ Z) / denom
        step = float(np.linalg.norm(y_new - y))
        y = y_new
        if step <= tol * sigma:
            break
    g = gamma.T @ _gaussian_column(Z, Z_sq, y, sigma)
    return y, float(g @ g), it


def _coefficients(chol, Q, t):
    """``beta = (K^y)^-1 K^yx alpha = chol^-T Q`` for the first t points (eq. B.6)."""
    if t == 0:
        return np.zeros((0, Q.shape[1]))
    # One vector solve per column: a matrix right-hand side goes through threaded BLAS trsm,
    # whose threads wait for busy cores far longer than these small systems take to solve.
    return np.column_stack([solve_triangular(chol[:t, :t], Q[:t, j], trans="T", lower=True, check_finite=False)
                            for j in range(Q.shape[1])])


def construct_reduced_set(X, alpha, m: int, *, sigma: float, kernel="gaussian",
                          preimage="fixed_point", max_iter: int = 20, tol: float = 1e-12):
    """Greedy reduced set ``(Y, beta)`` approximating ``w^l = sum_i alpha_il psi(x_i)`` for all l.

    Parameters
    ----------
    X : ndarray of shape (n, d)
    alpha : ndarray of shape (n, L)
        One column of expansion coefficients per feature-space vector.
    m : int
        Maximum number of constructed points.
    sigma : float
    kernel : {"gaussian", "laplacian"}, default="gaussian"
    preimage : {"fixed_point", "training_points"}, default="fixed_point"
        "fixed_point" needs the Gaussian kernel.
    max_iter : int, default=20
        Fixed-point iterations per point.
    tol : float, default=1e-12
        Stop early once ``sum_l ||w^l - w'^l||^2 <= tol * sum_l ||w^l||^2``.

    Returns
    -------
    Y : ndarray of shape (m_, d)
    beta : ndarray of shape (m_, L)
    residuals : ndarray of shape (m_, L)
        ``||w^l - w'^l||^2 / ||w^l||^2`` after each step (non-increasing).
    n_iter : int
        Fixed-point iterations run in all (0 with training points).

    Examples
    --------
    >>> import numpy as np
    >>> X = np.random.default_rng(0).normal(size=(40, 2))
    >>> Y, beta, res, _ = construct_reduced_set(X, np.full((40, 1), 1 / 40), 5, sigma=2.0)
    >>> Y.shape, bool(res[-1, 0] < res[0, 0] < 1)
    ((5, 2), True)
    """
    X = np.asarray(X, dtype=np.float64)
    alpha = np.asarray(alpha, dtype=np.float64)
    n, d = X.shape
    L = alpha.shape[1]
    G = kernel_matvec(X, X, alpha, sigma=sigma, kernel=kernel)  # <w^l, psi(x_j)>
    norms = np.einsum("il,il->l", alpha, G)  # ||w^l||^2
    R = G.copy()  # residual inner products <w^l_t, psi(x_j)>
    chol = np.zeros((m, m))  # Cholesky factor of K^y, grown a row at a time
    Q = np.zeros((m, L))  # chol^-1 K^yx alpha: coordinates of w^l in an orthonormal basis
    Phi = np.zeros((n, m))  # <psi(x_j), e_t>, the same basis at the training points
    Y = np.zeros((m, d))
    residuals = np.zeros((m, L))
    available = np.ones(n, dtype=bool)
    t = n_iter = 0
    while t < m and available.any():
        scores = np.where(available, np.einsum("il,il->i", R, R), -np.inf)
        j = int(np.argmax(scores))
        available[j] = False
        y = X[j]
        if preimage == "fixed_point":
            beta = _coefficients(chol, Q, t)
            Z = np.vstack([X, Y[:t]])
            gamma = np.vstack([alpha, -beta])
            y_fp, value, used = _fixed_point_preimage(y.copy(), Z, gamma, sigma=sigma, max_iter=max_iter,
                                                      tol=1e-6)
            n_iter += used
            if value > scores[j]:
                y = y_fp
        k_xy = kernel_matrix(X, y[None, :], sigma=sigma, kernel=kernel)[:, 0]
        k_yy = kernel_matrix(Y[:t], y[None, :], sigma=sigma, kernel=kernel)[:, 0]
        l_row = solve_triangular(chol[:t, :t], k_yy, lower=True, check_finite=False) if t else np.zeros(0)
        d2 = 1.0 - float(l_row @ l_row)  # k(y, y) = kappa = 1 for both kernels
        if d2 <= SPAN_TOLERANCE:
            continue  # psi(y) is (numerically) in the span already
        diag = np.sqrt(d2)
        chol[t, :t], chol[t, t] = l_row, diag
        Phi[:, t] = (k_xy - Phi[:, :t] @ l_row) / diag
        Q[t] = (alpha.T @ k_xy - l_row @ Q[:t]) / diag
        R -= np.outer(Phi[:, t], Q[t])
        Y[t] = y
        with np.errstate(divide="ignore", invalid="ignore"):
            residuals[t] = np.where(norms > 0, 1.0 - np.cumsum(Q[:t + 1] ** 2, axis=0)[-1] / norms, 0.0)
        t += 1
        if residuals[t - 1] @ norms <= tol * norms.sum():
            break
    beta = _coefficients(chol, Q, t)
    return Y[:t].copy(), beta, np.maximum(residuals[:t], 0.0), n_iter


class ReducedSetConstructionKPCA(KPCAMixin):
    """Exact KPCA, then its eigenvectors and mean rebuilt from m constructed points.

    Parameters
    ----------
    n_components : int, default=2
        Eigenvectors q to approximate.
    sigma : float or "median", default="median"
        Bandwidth in ``k = exp(-||x-y||^2 / sigma^2)`` (Gaussian; scikit-learn's ``gamma = 1 / sigma**2``) or
        ``exp(-||x-y|| / sigma)`` (Laplacian). "median": the median pairwise distance on a seeded subsample (see
        ``sigma_``).
    kernel : {"gaussian", "laplacian"}, default="gaussian"
        The radial kernel (:mod:`rskpca.core.radial_kernels`); the Laplacian's distance is Euclidean.
    m : int or None, default=None
        Constructed points (evaluation costs m kernel values). None uses the m
        the shadow gives at ``ell``.
    ell : float, default=4.0
        Only used when ``m=None``: m is then the number of shadow centers at radius ``eps = sigma / ell``
        (larger gives more).
    preimage : {"auto", "fixed_point", "training_points"}, default="auto"
        "auto": fixed-point iteration for the Gaussian kernel, training points
        for the Laplacian.
    include_mean : bool, default=True
        Also approximate the feature-space mean ``w^0`` (eq. B.7 sums l = 0..q).
    exact_solver : {"dense", "iterative"}, default="dense"
        The exact KPCA it starts from: :class:`rskpca.KernelPCA` (n x n matrix)
        or :class:`rskpca.decomposition.iterative.IterativeKPCA` (blocked Lanczos).
    max_iter : int, default=20
        Fixed-point iterations per constructed point.
    tol : float, default=1e-12
        Stop constructing once the summed squared residual is below ``tol``
        times the summed squared norms of the vectors.
    random_state : int, RandomState instance or None, default=None
        Seeds the fit's random choices (rows or landmarks drawn, k-means starts, solver start vectors); an int
        makes fits repeatable.

    Attributes
    ----------
    sigma_ : float
        Bandwidth used.
    m_ : int
        Points actually constructed (fewer than m if ``tol`` is reached or the
        feature vectors span everything).
    reduced_set_ : ndarray of shape (m_, n_features)
        The constructed points ``y_t``.
    centers_ : ndarray of shape (m_, n_features)
        The same points under the name the other reduced-set estimators use
        for "what a new point is projected through".
    reduced_coef_ : ndarray of shape (m_, n_components)
        ``beta`` of the eigenvectors, scaled so that ``z(x) = k(x, Y) beta - offset``.
    mean_coef_ : ndarray of shape (m_,) or None
        ``beta^0``: ``k(x, Y) @ mean_coef_`` approximates the KDE ``(1/n) sum_i k(x_i, x)``.
    offset_ : ndarray of shape (n_components,)
        Centering constants, computed exactly from the training kernel.
    residuals_ : ndarray of shape (m_, n_components + include_mean)
        Relative squared residual ``||w - w'||^2 / ||w||^2`` of each vector after
        each step (eigenvectors first, the mean last).
    n_iter_ : int
        Greedy construction steps (one per constructed point, ``m_``).
    n_fixed_point_iter_ : int
        Fixed-point iterations run in all (0 when the points are training points).
    eigenvalues_ : ndarray of shape (n_components,)
        Those of the exact KPCA (the construction does not change them).
    normalized_eigenvalues_ : ndarray of shape (n_components,)
        ``eigenvalues_ / n``.
    exact_ : KernelPCA or IterativeKPCA
        The fitted exact KPCA.
    fit_time_breakdown_ : dict
        Seconds spent in ``"exact_kpca"`` and in ``"construction"``: training
        is never cheaper than exact KPCA.

    References
    ----------
    C. J. C. Burges. Simplified support vector decision rules. ICML 1996.
    B. Schoelkopf et al. Input space vs. feature space in kernel-based methods. IEEE TNN 1999.
    H. Hoffmann. PhD thesis (2005), appendix B.2: Kernel PCA speed-up.

    Examples
    --------
    >>> import numpy as np
    >>> from rskpca.approximation._reduced_set_construction import ReducedSetConstructionKPCA
    >>> X = np.random.default_rng(0).normal(size=(200, 2))
    >>> est = ReducedSetConstructionKPCA(n_components=2, sigma=1.5, m=20).fit(X)
    >>> est.reduced_set_.shape, sorted(est.fit_time_breakdown_)
    ((20, 2), ['construction', 'exact_kpca'])
    """

    _parameter_constraints: dict = {
        **COMMON_CONSTRAINTS,
        "n_components": [Interval(Integral, 1, None, closed="left")],
        "m": [Interval(Integral, 1, None, closed="left"), None],
        "ell": [Interval(Real, 0, None, closed="neither")],
        "preimage": [StrOptions({"auto", "fixed_point", "training_points"})],
        "include_mean": ["boolean"],
        "exact_solver": [StrOptions({"dense", "iterative"})],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "tol": [Interval(Real, 0, None, closed="left")],
    }

    def __init__(self, n_components=2, *, sigma="median", kernel="gaussian", m=None, ell=4.0,
                 preimage="auto", include_mean=True, exact_solver="dense", max_iter=20, tol=1e-12,
                 random_state=None):
        self.n_components = n_components
        self.sigma = sigma
        self.kernel = kernel
        self.m = m
        self.ell = ell
        self.preimage = preimage
        self.include_mean = include_mean
        self.exact_solver = exact_solver
        self.max_iter = max_iter
        self.tol = tol
        self.random_state = random_state

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None):
        """Fit exact KPCA, then construct the reduced set.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : ignored

        Returns
        -------
        self : ReducedSetConstructionKPCA
        """
        X = self._validate_fit_input(X)
        X64 = np.asarray(X, dtype=np.float64)
        n = X64.shape[0]
        preimage = self.preimage
        if preimage == "auto":
            preimage = "fixed_point" if self.kernel == "gaussian" else "training_points"
        if preimage == "fixed_point" and self.kernel != "gaussian":
            raise ValueError(
                f"preimage='fixed_point' needs the Gaussian kernel (the {self.kernel} kernel's "
                "fixed-point step is singular at the data); use preimage='training_points'."
            )
        budget = m_from_shadow(self, X64)
        start = time.perf_counter()
        exact_cls = KernelPCA if self.exact_solver == "dense" else IterativeKPCA
        self.exact_ = exact_cls(n_components=self.n_components, sigma=self.sigma_, kernel=self.kernel,
                                random_state=self.random_state).fit(X64)
        exact_seconds = time.perf_counter() - start
        start = time.perf_counter()
        alpha = projection_coefficients(self.exact_.eigenvalues_, self.exact_.eigenvectors_)
        vectors = np.column_stack([alpha, np.full(n, 1.0 / n)]) if self.include_mean else alpha
        Y, beta, residuals, n_iter = construct_reduced_set(X64, vectors, budget, sigma=self.sigma_,
                                                   kernel=self.kernel, preimage=preimage,
                                                   max_iter=self.max_iter, tol=self.tol)
        # Centering as scikit-learn's KernelCenterer: z(x) = alpha^T k(X, x) - Kbar^T alpha
        # (+ terms in 1^T alpha, which is 0 for eigenvectors of the centered matrix).
        row_means = kernel_matvec(X64, X64, np.full(n, 1.0 / n), sigma=self.sigma_, kernel=self.kernel)
        colsum = alpha.sum(axis=0)
        self.offset_ = row_means @ alpha - float(row_means.mean()) * colsum
        q = alpha.shape[1]
        self.reduced_set_ = Y
        self.centers_ = Y
        self.reduced_coef_ = beta[:, :q]
        self.mean_coef_ = beta[:, q] if self.include_mean else None
        self.residuals_ = residuals
        self.n_fixed_point_iter_ = n_iter
        self.m_ = Y.shape[0]
        self.n_iter_ = self.m_  # one greedy step per constructed point
        self.eigenvalues_ = self.exact_.eigenvalues_
        self.normalized_eigenvalues_ = self.exact_.normalized_eigenvalues_
        self.fit_time_breakdown_ = {"exact_kpca": exact_seconds,
                                    "construction": time.perf_counter() - start}
        return self

    def transform(self, X):
        """Project X through the m constructed points: O(m d) per point.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        Z : ndarray of shape (n_samples, n_components)
        """
        X = self._validate_transform_input(X)
        Z = centered_projection(X, self.reduced_set_, self.reduced_coef_, sigma=self.sigma_, kernel=self.kernel,
                                offset=self.offset_)
        return Z.astype(X.dtype, copy=False)
