"""Exact kernel PCA through an iterative eigensolver, without holding the n x n matrix.

The centered kernel matrix ``K_c = H K H`` (``H = I - 11^T/n``) is only ever
applied to a block of vectors, row block by row block
(:func:`~rskpca.decomposition.kernel_operator.kernel_operator`).
Blocks are kept between multiplies up to ``cache_bytes``, so where the matrix fits
it is computed once (as scikit-learn does) and each multiply is a GEMM; beyond that
the other blocks are recomputed per multiply, O(n^2 d) each, and memory stays
O(n r + cache_bytes + block) instead of O(n^2). Two solvers are offered: the
power method of Kar's CS771 notes on kernel PCA (IIT Kanpur, 2017) in its block
form, and the Lanczos solver that Achlioptas, McSherry & Schoelkopf (2001) use
on their sampled Gram matrices:

* ``"lanczos"``: ARPACK's implicitly restarted Lanczos (``scipy.sparse.linalg.eigsh``)
  on a :class:`~scipy.sparse.linalg.LinearOperator`; ``tol`` is ARPACK's
  relative accuracy of the Ritz values.
* ``"orthogonal"``: orthogonal (subspace) iteration with a Rayleigh-Ritz step,
  stopped when every wanted Ritz pair has residual
  ``||K_c v - theta v|| <= tol * theta_1``.

:func:`top_eigenpairs` is shared with the Gram-sampling estimator, whose
sparsified or quantized matrix is applied the same way.
"""

from __future__ import annotations

from numbers import Integral, Real

import numpy as np
from scipy.linalg import eigh, qr
from scipy.sparse.linalg import ArpackNoConvergence, LinearOperator, eigsh
from sklearn.base import _fit_context
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import Interval, StrOptions

from rskpca.decomposition.base import COMMON_CONSTRAINTS, check_n_components, KPCAMixin
from rskpca.core.eigen import fix_signs, zero_safe_inverse
from rskpca.core.block_sizes import DEFAULT_BLOCK_ELEMENTS
from rskpca.core.projection import centered_projection, centering_offset
from rskpca.decomposition.kernel_operator import centered_operator, kernel_operator

__all__ = ["IterativeKPCA", "top_eigenpairs", "projection_coefficients"]


def _orthogonal_iteration(op, r, *, tol, max_iter, rng):
    """Top-r eigenpairs of a symmetric PSD operator by subspace iteration + Rayleigh-Ritz."""
    n = op.shape[0]
    # A few extra columns speed convergence (the rate depends on lambda_{k+1}/lambda_r).
    k = min(n, r + max(2, r // 2))
    Q, _ = qr(rng.normal(size=(n, k)), mode="economic")
    theta, V = np.zeros(k), Q
    for it in range(1, max_iter + 1):
        Z = op.matmat(Q)
        T = Q.T @ Z
        theta, S = eigh(0.5 * (T + T.T))
        order = np.argsort(theta)[::-1]
        theta, S = theta[order], S[:, order]
        V, AV = Q @ S, Z @ S
        resid = np.linalg.norm(AV - V * theta, axis=0)[:r]
        scale = max(abs(theta[0]), np.finfo(float).tiny)
        if np.all(resid <= tol * scale):
            return theta[:r], V[:, :r], it
        Q, _ = qr(AV, mode="economic")
    raise ValueError(
        f"Orthogonal iteration did not reach tol={tol:g} in max_iter={max_iter} iterations "
        f"(largest residual {resid.max() / scale:.2e} relative to the top eigenvalue). Raise "
        "max_iter, loosen tol, or use solver='lanczos'."
    )


def top_eigenpairs(op: LinearOperator, n_components: int, *, solver: str = "lanczos",
                   tol: float = 1e-8, max_iter: int | None = None, random_state=None):
    """Largest eigenpairs of a symmetric PSD operator, descending, with deterministic signs.

    Parameters
    ----------
    op : LinearOperator of shape (n, n)
    n_components : int
    solver : {"lanczos", "orthogonal"}, default="lanczos"
        Lanczos needs ``n_components < n - 1``; otherwise orthogonal iteration is used.
    tol : float, default=1e-8
        Lanczos: ARPACK's relative accuracy of the eigenvalues. Orthogonal
        iteration: residual norms at most ``tol`` times the top eigenvalue.
    max_iter : int or None, default=None
        None: ARPACK's default (10 n) or 1000 orthogonal iterations.
    random_state : int, RandomState instance or None

    Returns
    -------
    eigenvalues : ndarray of shape (n_components,)
        Tiny and negative values (below ``1e-12`` of the top one) set to 0.
    eigenvectors : ndarray of shape (n, n_components)
    solver : str
        The solver actually used.
    n_iter : int
        Lanczos: products with the operator (one per Lanczos step);
        orthogonal iteration: subspace iterations.

    Examples
    --------
    >>> import numpy as np
    >>> from scipy.sparse.linalg import aslinearoperator
    >>> vals, vecs, _, _ = top_eigenpairs(aslinearoperator(np.diag([1.0, 5.0, 3.0, 0.5])), 2)
    >>> np.round(vals, 8).tolist()
    [5.0, 3.0]
    """
    rng = check_random_state(random_state)
    n = op.shape[0]
    r = int(n_components)
    if solver == "lanczos" and r < n - 1:
        v0 = rng.uniform(-1.0, 1.0, n)
        op = _CountingOperator(op)
        try:
            vals, vecs = eigsh(op, k=r, which="LA", tol=tol, v0=v0, maxiter=max_iter)
        except ArpackNoConvergence as exc:
            raise ValueError(
                f"Lanczos (ARPACK) did not converge to tol={tol:g} ({exc}). Raise max_iter, loosen "
                "tol, or use solver='orthogonal'."
            ) from None
        used, n_iter = "lanczos", op.n_products
    else:
        vals, vecs, n_iter = _orthogonal_iteration(op, r, tol=tol, max_iter=max_iter or 1000, rng=rng)
        used = "orthogonal"
    order = np.argsort(vals)[::-1]
    vals, vecs = vals[order], vecs[:, order]
    top = max(float(vals[0]), 0.0)
    vals = np.where(vals > 1e-12 * top, vals, 0.0)
    return vals, fix_signs(vecs), used, n_iter


def projection_coefficients(eigenvalues, eigenvectors):
    """``u_k / sqrt(lambda_k)`` (0 where ``lambda_k = 0``): the dual coefficients of a projection."""
    return eigenvectors * zero_safe_inverse(eigenvalues, power=0.5)


class IterativeKPCA(KPCAMixin):
    """Exact kernel PCA by Lanczos or orthogonal iteration, kernel blocks recomputed per multiply.

    The honest exact baseline for larger n: no n x n matrix is held (memory
    O(n r) plus one block of ``block_elements`` kernel values), each multiply
    costs O(n^2 d). Up to the solver tolerance it equals :class:`rskpca.KernelPCA`
    (and scikit-learn's ``KernelPCA(kernel="rbf", gamma=1/sigma**2)``).

    Parameters
    ----------
    n_components : int, default=2
        Leading components computed (an iterative solver wants a small number).
    sigma : float or "median", default="median"
        Bandwidth in ``k = exp(-||x-y||^2 / sigma^2)`` (Gaussian; scikit-learn's ``gamma = 1 / sigma**2``) or
        ``exp(-||x-y|| / sigma)`` (Laplacian). "median": the median pairwise distance on a seeded subsample (see
        ``sigma_``).
    kernel : {"gaussian", "laplacian"}, default="gaussian"
        The radial kernel (:mod:`rskpca.core.radial_kernels`); the Laplacian's distance is Euclidean.
    solver : {"lanczos", "orthogonal"}, default="lanczos"
    tol : float, default=1e-8
        Stated accuracy: Lanczos, relative accuracy of the eigenvalues (ARPACK);
        orthogonal iteration, Ritz residuals at most ``tol`` times the top eigenvalue.
    max_iter : int or None, default=None
        None: ARPACK's default (10 n) or 1000 orthogonal iterations.
    block_elements : int, default=4_000_000
        Kernel values computed per block (32 MB of float64).
    cache_bytes : int, default=2**31
        Kernel blocks kept between products, up to this many bytes (2 GiB: the whole
        matrix up to n ~ 16,000). Where the matrix fits, each block is computed once, as
        scikit-learn does; beyond it the remaining blocks are recomputed per product, so
        memory stays at ``cache_bytes`` plus one block. 0 recomputes every block.
    random_state : int, RandomState instance or None, default=None
        Seeds the fit's random choices (rows or landmarks drawn, k-means starts, solver start vectors); an int
        makes fits repeatable.
    progress : callable or None, default=None
        Called as ``progress(products, seconds)`` after every row block of every product
        with the kernel matrix (see
        :func:`~rskpca.decomposition.kernel_operator.kernel_operator`): products done so far (a
        float, increasing; the last one is the pass for the kernel's row means) and
        seconds since the fit started. To stop a long fit, raise from it: the exception
        propagates out of ``fit``, and no fitted attribute is set (an estimator fitted
        before keeps its previous fit whole). :func:`~rskpca.decomposition.iterative_cost.predict_iterative_cost`
        predicts the number of products and their time before fitting.

        .. versionadded:: 0.2

    Attributes
    ----------
    sigma_ : float
        Bandwidth used.
    m_ : int
        Number of training points n: exact KPCA keeps them all.
    X_fit_ : ndarray of shape (n_samples, n_features)
        The training data, which new points are projected through.
    eigenvalues_ : ndarray of shape (n_components,)
        Eigenvalues of the centered n x n kernel matrix (as scikit-learn's).
    normalized_eigenvalues_ : ndarray of shape (n_components,)
        ``eigenvalues_ / n``.
    eigenvectors_ : ndarray of shape (n_samples, n_components)
    dual_coef_ : ndarray of shape (n_samples, n_components)
        ``eigenvectors_ / sqrt(eigenvalues_)``.
    train_kernel_means_ : ndarray of shape (n_samples,)
        Row means of the training kernel matrix, to center new kernel rows.
    solver_ : str
        The solver that ran: "lanczos" or "orthogonal".
    n_matvec_ : int
        Products of the centered kernel matrix with a vector (each O(n^2 d)).
    n_iter_ : int
        Lanczos steps, or orthogonal iterations.
    cached_kernel_bytes_ : int
        Bytes of kernel blocks that were kept between products (at most ``cache_bytes``).

    See Also
    --------
    rskpca.KernelPCA : the same result through a dense n x n matrix.

    Examples
    --------
    >>> import numpy as np
    >>> from rskpca.decomposition.iterative import IterativeKPCA
    >>> from rskpca import KernelPCA
    >>> X = np.random.default_rng(0).normal(size=(200, 3))
    >>> Z = IterativeKPCA(n_components=2, sigma=2.0, random_state=0).fit_transform(X)
    >>> Z0 = KernelPCA(n_components=2, sigma=2.0).fit_transform(X)
    >>> bool(np.allclose(np.abs(Z), np.abs(Z0), atol=1e-6))
    True
    """

    _parameter_constraints: dict = {
        **COMMON_CONSTRAINTS,
        "n_components": [Interval(Integral, 1, None, closed="left")],
        "solver": [StrOptions({"lanczos", "orthogonal"})],
        "tol": [Interval(Real, 0, None, closed="neither")],
        "max_iter": [Interval(Integral, 1, None, closed="left"), None],
        "block_elements": [Interval(Integral, 1, None, closed="left")],
        "cache_bytes": [Interval(Integral, 0, None, closed="left")],
        "progress": [callable, None],
    }

    def __init__(self, n_components=2, *, sigma="median", kernel="gaussian", solver="lanczos",
                 tol=1e-8, max_iter=None, block_elements=DEFAULT_BLOCK_ELEMENTS, cache_bytes=2**31,
                 random_state=None, progress=None):
        self.n_components = n_components
        self.sigma = sigma
        self.kernel = kernel
        self.solver = solver
        self.tol = tol
        self.max_iter = max_iter
        self.block_elements = block_elements
        self.cache_bytes = cache_bytes
        self.random_state = random_state
        self.progress = progress

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None):
        """Find the leading eigenpairs of the centered kernel matrix iteratively.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : ignored

        Returns
        -------
        self : IterativeKPCA
        """
        # Validation sets sigma_ and n_features_in_ before the solver runs; a fit stopped by
        # ``progress`` (or failing) puts them back as they were, so it leaves no partial fit.
        before = {a: self.__dict__[a] for a in _VALIDATION_ATTRIBUTES if a in self.__dict__}
        try:
            return self._fit(X)
        except BaseException:
            for a in _VALIDATION_ATTRIBUTES:
                self.__dict__.pop(a, None)
            self.__dict__.update(before)
            raise

    def _fit(self, X):
        X = self._validate_fit_input(X)
        X64 = np.asarray(X, dtype=np.float64)
        n = X64.shape[0]
        check_n_components(self, n, "training points")
        base = kernel_operator(X64, sigma=self.sigma_, kernel=self.kernel, block_elements=self.block_elements,
                               cache_bytes=self.cache_bytes, progress=self.progress)
        counter = _CountingOperator(centered_operator(base))
        vals, vecs, used, n_iter = top_eigenpairs(counter, self.n_components, solver=self.solver,
                                                  tol=self.tol, max_iter=self.max_iter,
                                                  random_state=self.random_state)
        # Row means of K, for centering new kernel rows: one more O(n^2 d) pass. Taken before any
        # attribute is set, so a progress callback that stops the fit here leaves no partial fit.
        means = base.matvec(np.full(n, 1.0 / n))
        dual_coef = projection_coefficients(vals, vecs)
        self.X_fit_ = X64
        self.m_ = n
        self.eigenvalues_ = vals
        self.normalized_eigenvalues_ = vals / n
        self.eigenvectors_ = vecs
        self.dual_coef_ = dual_coef
        self.train_kernel_means_ = means
        self.solver_ = used
        self.n_matvec_ = counter.n_products
        self.n_iter_ = n_iter
        self.cached_kernel_bytes_ = base.cached_bytes()
        return self

    def __sklearn_is_fitted__(self):
        return hasattr(self, "eigenvectors_")

    def fit_transform(self, X, y=None):
        """Fit, and embed the training rows from the eigenvectors: ``u_k sqrt(lambda_k)``.

        As scikit-learn's ``KernelPCA.fit_transform``: equal to ``fit(X).transform(X)`` up
        to the solver's tolerance, without that projection's further O(n^2 d) pass.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : ignored

        Returns
        -------
        Z : ndarray of shape (n_samples, n_components)
        """
        self.fit(X)
        Z = self.eigenvectors_ * np.sqrt(self.eigenvalues_)
        # float32 in, float32 out, as transform (the preserves_dtype tag)
        return Z.astype(np.float32, copy=False) if getattr(X, "dtype", None) == np.float32 else Z

    def transform(self, X):
        """Project X through the n training points, in blocks: O(n d) per point.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        Z : ndarray of shape (n_samples, n_components)
        """
        X = self._validate_transform_input(X)
        means, coef = self.train_kernel_means_, self.dual_coef_
        n = self.X_fit_.shape[0]
        Z = centered_projection(X, self.X_fit_, coef, sigma=self.sigma_, kernel=self.kernel,
                                mean_weights=np.full(n, 1.0 / n), offset=centering_offset(means, coef),
                                block_elements=self.block_elements)
        return Z.astype(X.dtype, copy=False)


#: Set by input validation at the start of ``fit`` (restored if the fit does not finish).
_VALIDATION_ATTRIBUTES = ("sigma_", "n_features_in_", "feature_names_in_")


class _CountingOperator(LinearOperator):
    """Wraps an operator and counts products (a matmat with r columns counts r)."""

    def __init__(self, op):
        super().__init__(dtype=np.float64, shape=op.shape)
        self._op = op
        self.n_products = 0

    def _matvec(self, v):
        self.n_products += 1
        return self._op.matvec(v)

    def _matmat(self, V):
        self.n_products += V.shape[1]
        return self._op.matmat(V)

    def _rmatvec(self, v):
        return self._matvec(v)

    def _adjoint(self):
        return self
