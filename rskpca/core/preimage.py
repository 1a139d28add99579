"""Pre-images: map a kernel PCA embedding back to input space.

Two routes, both pure functions of arrays:

* **Learned pre-image** (Bakir, Weston & Schölkopf, 2004), scikit-learn's
  ``KernelPCA(fit_inverse_transform=True)``: kernel ridge regression from the
  embeddings ``Z`` of the training points to the points themselves, with the
  same kernel and bandwidth applied to the embeddings. On weighted points (the
  shadow centers, each standing for ``w_j`` training rows) the ridge problem on
  the repeated data ``np.repeat(C, w)`` collapses to an m x m system:
  with ``P`` the n x m 0/1 indicator of which center each repeated row is,
  ``(P K P^T + alpha I) A = P C`` forces ``A = P a`` and the prediction
  ``k(z, Z) P^T A = k(z, Z) B`` with ``B = W a``, where
  ``(K + alpha W^-1) B = C``. So a center of weight ``w_j`` counts like
  ``w_j`` identical rows, and the solve costs O(m^3) instead of O(n^3).
* **Fixed-point pre-image** for the Gaussian kernel (Mika, Schölkopf, Smola,
  Müller, Scholz & Rätsch, 1999): the projection of ``phi(x)`` on the
  components is ``Pphi = sum_i g_i phi(c_i)`` over the expansion points ``c_i``,
  and a point ``x`` whose image is closest to it satisfies
  ``x = sum_i g_i k(x, c_i) c_i / sum_i g_i k(x, c_i)``, iterated from a start.
"""

from __future__ import annotations

import numpy as np
from scipy import linalg

from rskpca.core.radial_kernels import get_kernel, kernel_matrix, kernel_matvec

__all__ = ["fit_preimage_ridge", "preimage_ridge", "expansion_coefficients", "fixed_point_preimage"]

#: Rows of queries per block in the fixed-point iteration (each block holds block x m kernel values).
_FIXED_POINT_BLOCK_ELEMENTS = 4_000_000


def fit_preimage_ridge(Z: np.ndarray, X: np.ndarray, weights: np.ndarray | None = None, *, sigma: float,
                       kernel="gaussian", alpha: float = 1.0) -> np.ndarray:
    """Dual coefficients ``B`` of the weighted kernel ridge map ``z -> k(z, Z) B``.

    Solves ``(K(Z, Z) + alpha W^-1) B = X``: kernel ridge regression where row
    j counts ``weights[j]`` times (equal to plain kernel ridge on the rows
    repeated ``weights[j]`` times, for integer weights).

    Parameters
    ----------
    Z : ndarray of shape (m, r)
        Embeddings of the training points (the regression inputs).
    X : ndarray of shape (m, d)
        The training points (the regression targets).
    weights : ndarray of shape (m,) or None
        Positive weights; None means all ones.
    sigma : float
        Bandwidth of the kernel on the embeddings.
    kernel : str, default="gaussian"
    alpha : float, default=1.0
        Ridge penalty, as scikit-learn's ``KernelPCA(alpha=...)``.

    Returns
    -------
    B : ndarray of shape (m, d)

    Examples
    --------
    >>> import numpy as np
    >>> Z = np.array([[0.0], [1.0]]); X = np.array([[0.0, 0.0], [2.0, 2.0]])
    >>> B = fit_preimage_ridge(Z, X, np.array([1.0, 3.0]), sigma=1.0, alpha=1e-8)
    >>> np.round(preimage_ridge(Z, Z, B, sigma=1.0), 6)
    array([[0., 0.],
           [2., 2.]])
    """
    Z = np.asarray(Z, dtype=np.float64)
    X = np.asarray(X, dtype=np.float64)
    m = Z.shape[0]
    w = np.ones(m) if weights is None else np.asarray(weights, dtype=np.float64)
    if np.any(w <= 0):
        raise ValueError("pre-image weights must be positive (each is the number of rows a center stands for).")
    K = kernel_matrix(Z, sigma=sigma, kernel=kernel)
    K.flat[:: m + 1] += alpha / w
    try:
        return linalg.solve(K, X, assume_a="pos", overwrite_a=True)
    except linalg.LinAlgError as exc:
        raise ValueError(
            f"the pre-image ridge system is singular at alpha={alpha:g}: the kernel matrix of the embeddings "
            "is not positive definite. Use a positive alpha (scikit-learn's default is 1.0)."
        ) from exc


def preimage_ridge(Z_new: np.ndarray, Z: np.ndarray, B: np.ndarray, *, sigma: float, kernel="gaussian") -> np.ndarray:
    """Learned pre-images ``k(Z_new, Z) B`` (blocked; never the whole kernel matrix)."""
    return kernel_matvec(Z_new, Z, B, sigma=sigma, kernel=kernel)


def expansion_coefficients(Z_new: np.ndarray, dual_coef: np.ndarray, p: np.ndarray, *, center: bool) -> np.ndarray:
    """Coefficients ``g`` of the projected feature vector ``Pphi(x) = sum_i g_i phi(c_i)``.

    With components ``v_k = sum_i A_ik (phi(c_i) - mu)`` and the mean
    ``mu = sum_i p_i phi(c_i)``, the projection of ``phi(x)`` is
    ``mu + sum_k z_k v_k``, so ``g = A z + p (1 - 1^T A z)`` (centered) or
    ``g = A z`` (uncentered).

    Parameters
    ----------
    Z_new : ndarray of shape (n_queries, r)
    dual_coef : ndarray of shape (m, r)
    p : ndarray of shape (m,)
        Mean weights (sum 1).
    center : bool

    Returns
    -------
    G : ndarray of shape (n_queries, m)
    """
    G = np.asarray(Z_new, dtype=np.float64) @ dual_coef.T
    if center:
        G += (1.0 - G.sum(axis=1))[:, None] * p[None, :]
    return G


def fixed_point_preimage(G: np.ndarray, points: np.ndarray, X0: np.ndarray, *, sigma: float, kernel="gaussian",
                         max_iter: int = 100, tol: float = 1e-6) -> np.ndarray:
    """Mika et al. (1999) fixed-point pre-images for the Gaussian kernel.

    Iterates ``x <- sum_i g_i k(x, c_i) c_i / sum_i g_i k(x, c_i)`` from ``X0``
    until no point moves more than ``tol * sigma``. Where the denominator
    vanishes (the start lies where the expansion has no mass) the point stays
    where it is rather than jump to infinity.

    Parameters
    ----------
    G : ndarray of shape (n_queries, m)
        Expansion coefficients (:func:`expansion_coefficients`).
    points : ndarray of shape (m, d)
        Expansion points ``c_i``.
    X0 : ndarray of shape (n_queries, d)
        Starting points.
    sigma : float
    kernel : {"gaussian"}
    max_iter : int, default=100
    tol : float, default=1e-6

    Returns
    -------
    X : ndarray of shape (n_queries, d)

    Examples
    --------
    >>> import numpy as np
    >>> C = np.array([[0.0, 0.0], [1.0, 0.0]])
    >>> X = fixed_point_preimage(np.array([[1.0, 1.0]]), C, np.array([[0.2, 0.3]]), sigma=1.0)
    >>> np.round(X, 4)  # the midpoint, where both centers pull equally
    array([[0.5, 0. ]])
    """
    if get_kernel(kernel).p != 2:
        raise ValueError(f"the fixed-point pre-image needs the Gaussian kernel, not {kernel!r}; "
                         "use the learned pre-image (method='ridge') instead.")
    points = np.asarray(points, dtype=np.float64)
    X = np.array(X0, dtype=np.float64, copy=True)
    step = max(1, _FIXED_POINT_BLOCK_ELEMENTS // max(points.shape[0], 1))
    for start in range(0, X.shape[0], step):
        rows = slice(start, start + step)
        Xb, Gb = X[rows], G[rows]
        for _ in range(max_iter):
            Wt = kernel_matrix(Xb, points, sigma=sigma, kernel=kernel)
            Wt *= Gb
            den = Wt.sum(axis=1)
            ok = np.abs(den) > 1e-300
            new = Xb.copy()
            new[ok] = (Wt[ok] @ points) / den[ok, None]
            moved = np.max(np.linalg.norm(new - Xb, axis=1)) if new.size else 0.0
            Xb = new
            if moved <= tol * sigma:
                break
        X[rows] = Xb
    return X
