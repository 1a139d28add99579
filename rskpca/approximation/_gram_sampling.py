"""``SampledGramKPCA``: kernel PCA on a sparsified and/or quantized Gram matrix (Achlioptas, McSherry &
Schoelkopf, NIPS 2001). The randomized kernels themselves are in :mod:`rskpca.approximation._gram_samplers`.
"""

from __future__ import annotations

from numbers import Integral, Real

import numpy as np
from scipy.sparse.linalg import LinearOperator, eigsh
from sklearn.base import _fit_context
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted

from rskpca.approximation._gram_samplers import (
    _gram_operator,
    quantize,
    random_sign_projection,
    round_expansion,
    sample_upper_pairs,
    sampled_gram,
)
from rskpca.core.projection import centered_projection
from rskpca.core.radial_kernels import get_kernel, kernel_matvec
from rskpca.decomposition.base import COMMON_CONSTRAINTS, check_n_components, KPCAMixin, m_from_shadow
from rskpca.decomposition.iterative import projection_coefficients, top_eigenpairs
from rskpca.decomposition.kernel_operator import centered_operator

__all__ = ["SampledGramKPCA", "sample_upper_pairs", "quantize", "sampled_gram", "round_expansion",
           "random_sign_projection"]


class SampledGramKPCA(KPCAMixin):
    """Kernel PCA on a sparsified and/or quantized Gram matrix (Achlioptas et al., 2001).

    The leading eigenvectors of the centered sampled matrix ``H K^ H`` come from
    an iterative solver (sparse multiplies). Optional randomized rounding of the
    projection expansion makes a new point cost ``expansion_terms`` kernel
    evaluations instead of n, and optional random projections make each
    evaluation cost O(projection_dim) instead of O(d).

    Parameters
    ----------
    n_components : int, default=2
    sigma : float or "median", default="median"
        Bandwidth in ``k = exp(-||x-y||^2 / sigma^2)`` (Gaussian; scikit-learn's ``gamma = 1 / sigma**2``) or
        ``exp(-||x-y|| / sigma)`` (Laplacian). "median": the median pairwise distance on a seeded subsample (see
        ``sigma_``).
    kernel : {"gaussian", "laplacian"}, default="gaussian"
        The radial kernel (:mod:`rskpca.core.radial_kernels`); the Laplacian's distance is Euclidean.
    p : float in (0, 1] or None, default=None
        Keep-probability of each Gram entry. None: ``m / n``, the budget of a
        Nystrom method with m landmarks (about m kernel values per row).
    quantize : bool, default=False
        Round each kept entry to ``+-quantization_level`` at random (unbiased).
    quantization_level : float or None, default=None
        ``b``; None uses ``kappa`` (= 1), the largest possible entry. Must be at
        least the largest kernel value met, or the fit raises.
    projection_dim : int or None, default=None
        Randomly project the inputs to this many dimensions before every
        kernel evaluation (None: no projection).
    expansion_terms : int, "m" or None, default=None
        Expected number of training points a new point is compared with
        (randomized rounding of the expansion). "m": the budget m. None: all n.
    m : int or None, default=None
        Budget used by ``p=None`` and ``expansion_terms="m"``; None uses the m the
        shadow gives at ``ell``.
    ell : float, default=4.0
        Only used when ``m=None``: m is then the number of shadow centers at radius ``eps = sigma / ell``
        (larger gives more).
    solver : {"lanczos", "orthogonal"}, default="lanczos"
    tol : float, default=1e-8
        Eigensolver tolerance (see :func:`rskpca.decomposition.iterative.top_eigenpairs`).
    max_iter : int or None, default=None
    random_state : int, RandomState instance or None, default=None
        Seeds the fit's random choices (rows or landmarks drawn, k-means starts, solver start vectors); an int
        makes fits repeatable.

    Attributes
    ----------
    sigma_ : float
        Bandwidth used.
    p_ : float
        Keep-probability used.
    m_ : int
        The budget m: ``m`` if given, else the m the shadow gives at ``ell``
        when ``p=None`` or ``expansion_terms="m"`` uses one, else n (no budget).
    quantization_level_ : float or None
        ``b`` used (None without quantization).
    projection_ : ndarray of shape (n_features, projection_dim) or None
        The random sign projection applied before every kernel evaluation.
    n_kernel_evaluations_ : int
        Off-diagonal kernel evaluations made in training (exact KPCA: n(n-1)/2).
    gram_storage_bytes_ : int
        Bytes holding the sampled matrix.
    eigenvalues_ : ndarray of shape (n_components,)
        Eigenvalues of the centered sampled matrix ``H K^ H``.
    normalized_eigenvalues_ : ndarray of shape (n_components,)
        ``eigenvalues_ / n``.
    eigenvectors_ : ndarray of shape (n_samples, n_components)
    expansion_indices_ : ndarray of shape (n_terms,)
        Training rows a new point is compared with.
    expansion_points_ : ndarray of shape (n_terms, n_features or projection_dim)
        The kept training rows (projected, with ``projection_dim``) a new point
        is compared with: its storage and test cost, as RSKPCA's centers.
    expansion_coef_ : ndarray of shape (n_terms, n_components)
        Coefficients of the kept terms (rescaled by randomized rounding).
    expansion_offset_ : ndarray of shape (n_components,)
        The centering constant: ``z(x) = k(x, X[idx]) @ coef + offset``.
    solver_ : str
        The solver that ran: "lanczos" or "orthogonal".
    n_iter_ : int
        Lanczos steps or orthogonal iterations of the eigensolver.

    Examples
    --------
    >>> import numpy as np
    >>> from rskpca.approximation._gram_sampling import SampledGramKPCA
    >>> X = np.random.default_rng(0).normal(size=(400, 2))
    >>> est = SampledGramKPCA(n_components=2, sigma=1.0, p=0.2, expansion_terms=100,
    ...                       random_state=0).fit(X)
    >>> est.transform(X[:3]).shape
    (3, 2)
    >>> bool(est.n_kernel_evaluations_ < 0.25 * 400 * 399 / 2)
    True
    """

    _parameter_constraints: dict = {
        **COMMON_CONSTRAINTS,
        "n_components": [Interval(Integral, 1, None, closed="left")],
        "p": [Interval(Real, 0, 1, closed="right"), None],
        "quantize": ["boolean"],
        "quantization_level": [Interval(Real, 0, None, closed="neither"), None],
        "projection_dim": [Interval(Integral, 1, None, closed="left"), None],
        "expansion_terms": [Interval(Integral, 1, None, closed="left"), StrOptions({"m"}), None],
        "m": [Interval(Integral, 1, None, closed="left"), None],
        "ell": [Interval(Real, 0, None, closed="neither")],
        "solver": [StrOptions({"lanczos", "orthogonal"})],
        "tol": [Interval(Real, 0, None, closed="neither")],
        "max_iter": [Interval(Integral, 1, None, closed="left"), None],
    }

    def __init__(self, n_components=2, *, sigma="median", kernel="gaussian", p=None, quantize=False,
                 quantization_level=None, projection_dim=None, expansion_terms=None, m=None, ell=4.0,
                 solver="lanczos", tol=1e-8, max_iter=None, random_state=None):
        self.n_components = n_components
        self.sigma = sigma
        self.kernel = kernel
        self.p = p
        self.quantize = quantize
        self.quantization_level = quantization_level
        self.projection_dim = projection_dim
        self.expansion_terms = expansion_terms
        self.m = m
        self.ell = ell
        self.solver = solver
        self.tol = tol
        self.max_iter = max_iter
        self.random_state = random_state

    def _project(self, X):
        X = np.asarray(X, dtype=np.float64)
        return X if self.projection_ is None else X @ self.projection_

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None):
        """Sample the Gram matrix, solve iteratively, round the expansion.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : ignored

        Returns
        -------
        self : SampledGramKPCA
        """
        X = self._validate_fit_input(X)
        X64 = np.asarray(X, dtype=np.float64)
        n = X64.shape[0]
        check_n_components(self, n, "training points")
        rs = check_random_state(self.random_state)
        rng = np.random.default_rng(rs.randint(2**31 - 1))
        if self.p is None or self.expansion_terms == "m":
            m_from_shadow(self, X64)
        else:  # the budget is not used: record it as given, or all n points
            self.m_ = n if self.m is None else int(self.m)
        self.p_ = float(self.p) if self.p is not None else min(1.0, self.m_ / n)
        kappa = get_kernel(self.kernel).kappa
        self.quantization_level_ = None
        if self.quantize:
            self.quantization_level_ = kappa if self.quantization_level is None else float(self.quantization_level)
        self.projection_ = (None if self.projection_dim is None
                            else random_sign_projection(X64.shape[1], self.projection_dim, rng))
        Xp = self._project(X64)
        M, scale, n_eval = sampled_gram(Xp, sigma=self.sigma_, kernel=self.kernel, p=self.p_,
                                        quantization_level=self.quantization_level_, random_state=rng)
        op = _gram_operator(M, scale, kappa)
        vals, vecs, used, n_iter = top_eigenpairs(centered_operator(op), self.n_components,
                                                  solver=self.solver, tol=self.tol, max_iter=self.max_iter,
                                                  random_state=rs)
        A = projection_coefficients(vals, vecs)
        # z(x) = sum_i A_i k~(x_i, x); the eigenvectors are orthogonal to 1, so the
        # centering leaves only a constant -mean_j K^_ij weighted by A (cheap: K^ is sampled).
        row_means = op.matvec(np.full(n, 1.0 / n))
        self.expansion_offset_ = -(row_means @ A) + float(row_means.mean()) * A.sum(axis=0)
        if self.expansion_terms is None:
            idx, coef = np.arange(n), A
        else:
            terms = self.m_ if self.expansion_terms == "m" else int(self.expansion_terms)
            idx, coef, _ = round_expansion(A, terms, rng)
        self.expansion_indices_ = idx
        self.expansion_coef_ = coef
        self.expansion_points_ = Xp[idx]
        self.eigenvalues_ = vals
        self.normalized_eigenvalues_ = vals / n
        self.eigenvectors_ = vecs
        self.n_kernel_evaluations_ = n_eval
        self.gram_storage_bytes_ = int(M.nbytes if isinstance(M, np.ndarray)
                                       else M.data.nbytes + M.indices.nbytes + M.indptr.nbytes)
        self.solver_ = used
        self.n_iter_ = n_iter
        self._sampled = (M, scale)
        return self

    def transform(self, X):
        """Project X through the kept expansion terms: ``k(x, expansion_points_) @ coef + offset``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        Z : ndarray of shape (n_samples, n_components)
        """
        X = self._validate_transform_input(X)
        Xp = self._project(X)
        Z = centered_projection(Xp, self.expansion_points_, self.expansion_coef_, sigma=self.sigma_,
                                kernel=self.kernel, offset=-self.expansion_offset_)
        return Z.astype(X.dtype, copy=False)

    def gram_error(self, X, *, tol: float = 1e-4) -> dict:
        """Spectral-norm error ``||K^ - K||_2`` of the sampled Gram matrix, measured.

        ``K`` is the exact kernel matrix of the original (unprojected) training
        data, applied in blocks (O(n^2 d) per multiply, no n x n matrix).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The training data passed to ``fit``.
        tol : float, default=1e-4
            ARPACK tolerance of the two norm estimates.

        Returns
        -------
        dict
            ``spectral_norm``, ``relative`` (divided by ``||K||_2``), and
            ``theorem1_scale``: ``4 s sqrt(n)``, the high-probability size of the
            error predicted by the Furedi-Komlos bound (the paper's Theorem 1),
            with ``s^2`` the largest entry variance (``kappa^2 (1-p)/p`` sparsified,
            ``b^2/p`` quantized); it ignores any random-projection error.
        """
        check_is_fitted(self)
        X = np.asarray(X, dtype=np.float64)
        n = self.eigenvectors_.shape[0]
        if X.ndim != 2 or X.shape != (n, self.n_features_in_):
            raise ValueError(f"gram_error needs the training data, shape ({n}, {self.n_features_in_}); "
                             f"got shape {X.shape}.")
        kappa = get_kernel(self.kernel).kappa
        M, scale = self._sampled
        sampled = _gram_operator(M, scale, kappa)

        def exact(V):
            return kernel_matvec(X, X, V, sigma=self.sigma_, kernel=self.kernel)

        def diff(V):
            return sampled.matmat(np.asarray(V).reshape(n, -1)) - exact(np.asarray(V).reshape(n, -1))

        v0 = np.full(n, 1.0 / np.sqrt(n))
        E = LinearOperator((n, n), matvec=diff, matmat=diff, dtype=np.float64)
        Kop = LinearOperator((n, n), matvec=exact, matmat=exact, dtype=np.float64)
        if n > 2:
            err = float(np.abs(eigsh(E, k=1, which="LM", tol=tol, v0=v0)[0][0]))
            top = float(eigsh(Kop, k=1, which="LA", tol=tol, v0=v0)[0][0])
        else:  # ARPACK needs n > k + 1; a 2 x 2 matrix is tiny anyway
            err = float(np.abs(np.linalg.eigvalsh(E @ np.eye(n))).max())
            top = float(np.linalg.eigvalsh(Kop @ np.eye(n)).max())
        if self.quantization_level_ is not None:
            variance = self.quantization_level_ ** 2 / self.p_
        else:
            variance = kappa ** 2 * (1.0 - self.p_) / self.p_
        return {"spectral_norm": err, "relative": err / top if top > 0 else 0.0,
                "theorem1_scale": 4.0 * np.sqrt(variance * n)}
