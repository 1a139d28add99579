"""Diffusion maps on a weighted reduced set: the m x m linear algebra and the Nystrom extension.

The paper's Section 3 ("Extension to KMLAs", eqs. 14-15): any method whose operator is
``g(x, y) k(x, y) f(y) p(y)`` can be solved on the reduced set as KPCA is, with ``p`` the
shadow density estimate (centers ``C``, weights ``w``, sum n). For diffusion maps (Coifman
& Lafon 2006), with ``K`` the kernel matrix on C *with its diagonal* (``k(c, c) = 1``)::

    q = K w                          density at the centers (times n)
    K_a = K / (q^alpha q^alpha')     the alpha normalisation
    d = K_a w                        degrees
    P = D^-1 K_a W                   row-stochastic, W = diag(w), D = diag(d)

``P`` is similar to the symmetric ``S = W^1/2 D^-1/2 K_a D^-1/2 W^1/2``: if ``S v = lambda v``
then ``psi = v / sqrt(w d)`` is a right eigenvector of ``P``. ``S sqrt(w d) = sqrt(w d)``
exactly, so the trivial eigenvector (eigenvalue 1, ``psi`` constant) is known in closed form
and deflated before the solve: ``S - v0 v0'`` with ``v0 = sqrt(w d) / ||sqrt(w d)||``.

**Normalisation of psi** (as datafold and pyDiffMap): unit norm in the stationary measure
``pi = w d / sum(w d)`` of ``P``, ``sum_j pi_j psi_j^2 = 1`` (then the trivial ``psi_0 = 1``);
eigenvectors are orthogonal in that measure; each column's largest-magnitude entry is
positive. On the quantized data (center j repeated ``w_j`` times) the dense n x n ``P``
has rank m, the same nonzero spectrum, and the same psi (constant on the copies of a
center) with the same normalisation: the reduced answer is exact for the quantized data.

**New points** (Nystrom): ``psi(x) = (1/lambda) sum_j P(x, c_j) psi(c_j)`` with ``q(x)`` and
``d(x)`` computed as for a center. ``q(x)^alpha`` cancels in ``P(x, .)``, so
``P(x, c_j) = k(x, c_j) w_j q_j^-alpha / sum_l k(x, c_l) w_l q_l^-alpha``. For a center this
is its row of ``P``, and the extension returns its eigenvector entries. A point so far
from every center that all its kernel values underflow is evaluated in log space (a
softmax over ``-||x - c||^p / sigma^p + log(w q^-alpha)``): the limit of the same formula,
which gives it the coordinates of its nearest center(s), divided by lambda, never NaN.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.linalg import eigh
from scipy.sparse.linalg import eigsh

from rskpca.core.log_space import row_softmax
from rskpca.core.radial_kernels import get_kernel, kernel_matrix, kernel_matvec, refine_near_pairs, squared_distances
from rskpca.core.threads import blas_threads
from rskpca.core.eigen import SINGLE_THREAD_MAX_M, choose_eigen_solver, column_signs

__all__ = ["DiffusionEigen", "diffusion_on_centers", "diffusion_coefficients", "diffusion_transform",
           "diffusion_coordinates", "ZERO_EIGENVALUE", "UNDERFLOW_FRACTION"]

#: Eigenvalues below this are treated as zero: their coordinates are 0 (a new point's psi
#: would be noise divided by a tiny number). The nontrivial spectrum of P lies in [0, 1).
ZERO_EIGENVALUE = 1e-12
#: A new point whose weighted kernel sum ``d(x)`` is below this fraction of the largest
#: ``w_j q_j^-alpha`` has lost digits to underflow: it is evaluated in log space.
UNDERFLOW_FRACTION = 1e-250


@dataclass(frozen=True)
class DiffusionEigen:
    """The nontrivial eigenpairs of ``P`` on the centers.

    Attributes
    ----------
    eigenvalues : ndarray of shape (k,)
        Descending, in [0, 1]; below ``ZERO_EIGENVALUE`` set to 0.
    eigenvectors : ndarray of shape (m, k)
        Right eigenvectors ``psi`` of ``P`` at the centers, ``sum_j pi_j psi_j^2 = 1``.
    density : ndarray of shape (m,)
        ``q = K w``.
    degrees : ndarray of shape (m,)
        ``d = K_a w``.
    solver : str
        "dense" or "arpack".
    """

    eigenvalues: np.ndarray
    eigenvectors: np.ndarray
    density: np.ndarray
    degrees: np.ndarray
    solver: str


def _symmetric_operator(K: np.ndarray, w: np.ndarray, alpha: float):
    """``S`` (overwriting K), ``q``, ``d`` and the trivial eigenvector ``v0`` of S."""
    q = K @ w
    s = q ** -alpha if alpha else np.ones_like(q)
    K *= s[:, None]
    K *= s[None, :]
    d = K @ w
    u = np.sqrt(w / d)
    K *= u[:, None]
    K *= u[None, :]
    v0 = np.sqrt(w * d)
    v0 /= np.linalg.norm(v0)
    return K, q, d, v0


def diffusion_on_centers(C, w, n_components: int, *, sigma: float, kernel="gaussian", alpha: float = 1.0,
                         eigen_solver: str = "auto", random_state=None, affinity=None) -> DiffusionEigen:
    """The top ``n_components`` nontrivial eigenpairs of ``P`` on centers ``C`` with weights ``w``.

    ``n_components`` must be below m (P has m - 1 nontrivial eigenvectors). ``affinity``: an
    m x m symmetric matrix with unit diagonal used in place of the kernel matrix (local
    scaling, :mod:`rskpca.decomposition._local_scaling`); it is overwritten.

    >>> import numpy as np
    >>> C = np.array([[0.0], [1.0], [3.0]])
    >>> e = diffusion_on_centers(C, np.array([2.0, 1.0, 1.0]), 1, sigma=1.0)
    >>> e.eigenvectors.shape, bool(0 <= e.eigenvalues[0] < 1)
    ((3, 1), True)
    """
    C = np.asarray(C, dtype=np.float64)
    w = np.asarray(w, dtype=np.float64)
    m = C.shape[0]
    k = int(n_components)
    if not 1 <= k < m:
        raise ValueError(f"n_components={k} must be between 1 and m - 1 = {m - 1} (m={m} centers).")
    K = kernel_matrix(C, sigma=sigma, kernel=kernel) if affinity is None else np.asarray(affinity, dtype=np.float64)
    S, q, d, v0 = _symmetric_operator(K, w, alpha)
    # Deflate the trivial pair: S v0 = v0 exactly, so S - v0 v0' keeps every other pair. A kernel
    # graph cut into blocks (kernel values that underflow between them) has eigenvalue 1 more
    # than once; its other eigenvalue-1 vectors are kept as coordinates (one per extra block).
    S -= np.outer(v0, v0)
    solver = choose_eigen_solver(m, k, eigen_solver)
    # One BLAS thread up to SINGLE_THREAD_MAX_M, as for KPCA: ARPACK's many small products gain
    # less from threads than they lose when the cores are shared (tests/benchmarks/RESULTS.md).
    with blas_threads(1 if m <= SINGLE_THREAD_MAX_M else None):
        if solver == "dense":
            vals, vecs = eigh(S, subset_by_index=[m - k, m - 1], overwrite_a=True, check_finite=False)
        else:
            rng = random_state if isinstance(random_state, np.random.RandomState) \
                else np.random.RandomState(random_state)
            vals, vecs = eigsh(S, k=k, which="LA", v0=rng.uniform(-1.0, 1.0, m), tol=0.0)
    order = np.argsort(vals)[::-1]
    vals, vecs = vals[order], vecs[:, order]
    vals = np.where(vals < ZERO_EIGENVALUE, 0.0, np.minimum(vals, 1.0))
    psi = vecs * (np.sqrt(np.sum(w * d)) / np.sqrt(w * d))[:, None]
    psi *= column_signs(psi)
    return DiffusionEigen(vals, psi, q, d, solver)


def diffusion_coordinates(eig: DiffusionEigen, t: float) -> np.ndarray:
    """``lambda^t psi`` at the centers (0 where lambda is 0), shape (m, k)."""
    lam = eig.eigenvalues
    return eig.eigenvectors * np.where(lam > 0, lam ** t, 0.0)[None, :]


def diffusion_coefficients(eig: DiffusionEigen, w, *, alpha: float, t: float):
    """What a new point's coordinates need: ``(A, b)`` with ``z(x) = k(x, C) A / k(x, C) b``.

    ``b = w q^-alpha`` and ``A = b psi lambda^(t-1)`` (column k zero where lambda is 0).
    """
    w = np.asarray(w, dtype=np.float64)
    b = w * (eig.density ** -alpha if alpha else 1.0)
    lam = eig.eigenvalues
    scale = np.where(lam > 0, np.where(lam > 0, lam, 1.0) ** (t - 1.0), 0.0)
    return b[:, None] * eig.eigenvectors * scale[None, :], b


def diffusion_transform(X, C, A, b, *, sigma: float, kernel="gaussian", dtype=np.float64) -> np.ndarray:
    """Diffusion coordinates of new rows X through the centers C (the Nystrom extension).

    One blocked pass ``k(X, C) [A, b]`` (its kernel blocks in ``dtype``: float32 is offered for the
    Gaussian, see :func:`~rskpca.core.radial_kernels.kernel_matvec`); rows whose ``k(x, C) b``
    underflowed (sooner in float32) are redone in log space, in float64 (see the module notes).
    """
    X = np.asarray(X)
    if X.dtype not in (np.float32, np.float64):
        X = X.astype(np.float64)
    AB = np.column_stack([A, b])
    Y = kernel_matvec(X, C, AB, sigma=sigma, kernel=kernel, dtype=dtype)
    den = Y[:, -1]
    Z = Y[:, :-1]
    low = ~(den >= UNDERFLOW_FRACTION * float(np.max(b)))
    if np.any(low):
        Z[low] = _log_space_transform(X[low].astype(np.float64), C, A, b, sigma=sigma, kernel=kernel)
    keep = ~low
    Z[keep] /= den[keep, None]
    return np.ascontiguousarray(Z)


def _log_space_transform(X, C, A, b, *, sigma: float, kernel) -> np.ndarray:
    """``softmax_j(-||x - c_j||^p / sigma^p + log b_j) @ (A / b)`` for rows whose kernel values underflow."""
    k = get_kernel(kernel)
    X_sq = np.einsum("ij,ij->i", X, X)
    C_sq = np.einsum("ij,ij->i", C, C)
    D = squared_distances(X, C, X_sq=X_sq, Y_sq=C_sq)
    refine_near_pairs(D, X, C, X_sq, C_sq)
    s = D / sigma**2 if k.p == 2 else np.sqrt(D) / sigma
    return row_softmax(np.log(b)[None, :] - s) @ (A / b[:, None])
