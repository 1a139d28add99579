"""Projecting new points on kernel components, with the kernel centered in feature space: one home.

Every estimator's ``transform`` is ``z(x) = sum_j coef_j k(x, p_j)`` over its stored points
(training rows, centers, landmarks, constructed points), less what centering subtracts. With
``H = I - 11^T/n`` applied to the kernel (scikit-learn's ``KernelCenterer``; Schoelkopf, Smola &
Mueller 1998), the centered value ``k~(x, p_j) = k(x, p_j) - m(x) - mu_j + g`` has a part that
depends on x only through the mean ``m(x) = sum_i q_i k(x, q_points_i)`` of its kernel row, and
a part ``mu' coef - g 1' coef`` fixed at fit, so

    ``Z = K(X, points) @ coef - offset - m(X) (1' coef)``

with ``offset`` computed once by the estimator. :func:`centered_projection` takes that product
in row blocks of bounded memory (:func:`~rskpca.core.radial_kernels.kernel_matvec`), the mean
folded into the same pass as one more column when it runs over the same points, and float32
kernel blocks where the caller asks for them (within
:func:`~rskpca.core.radial_kernels.float32_relative_error`, float64 where that would be larger).
"""

from __future__ import annotations

import numpy as np

from rskpca.core.block_sizes import PROJECTION_BLOCK_ELEMENTS
from rskpca.core.radial_kernels import kernel_matvec

__all__ = ["centered_projection", "centering_offset"]


def centered_projection(X, points, coef, *, sigma: float, kernel="gaussian", offset=None, mean_weights=None,
                        mean_points=None, dtype=np.float64, block_elements: int = PROJECTION_BLOCK_ELEMENTS,
                        return_means: bool = False):
    """``K(X, points) @ coef - offset - m(X) (1' coef)``, blockwise: no n_new x n matrix held.

    Parameters
    ----------
    X : ndarray of shape (n_new, d)
        Rows to project (float32 rows are read as they are, block by block).
    points : ndarray of shape (n_points, d)
    coef : ndarray of shape (n_points, q)
    sigma : float
    kernel : str or RadialKernel, default="gaussian"
    offset : ndarray of shape (q,), optional
        Subtracted from every row (the fit-time part of the centering, or minus an intercept).
    mean_weights : ndarray, optional
        Weights ``q`` of the feature-space mean ``m(x) = sum_i q_i k(x, mean_points_i)``; None:
        no per-row centering term.
    mean_points : ndarray, optional
        Points of that mean; None: ``points`` (then the mean is one more column of the same pass).
    dtype : {np.float64, np.float32}, default=np.float64
        Precision of the kernel blocks (float32: Gaussian only, and only where accurate).
    block_elements : int
        Kernel values per row block.
    return_means : bool, default=False
        Also return ``m(X)`` (zeros without ``mean_weights``).

    Returns
    -------
    Z : ndarray of shape (n_new, q), float64
    means : ndarray of shape (n_new,)
        Only with ``return_means``.

    Examples
    --------
    As scikit-learn's ``KernelCenterer`` on the training rows' kernel:

    >>> import numpy as np
    >>> from sklearn.preprocessing import KernelCenterer
    >>> from rskpca.core.radial_kernels import kernel_matrix
    >>> rng = np.random.default_rng(0)
    >>> P, X, A = rng.normal(size=(20, 2)), rng.normal(size=(5, 2)), rng.normal(size=(20, 3))
    >>> K = kernel_matrix(P, sigma=1.0)
    >>> means = K.mean(axis=0)
    >>> Z = centered_projection(X, P, A, sigma=1.0, mean_weights=np.full(20, 1 / 20),
    ...                         offset=centering_offset(means, A))
    >>> Kx = kernel_matrix(X, P, sigma=1.0)
    >>> bool(np.allclose(Z, KernelCenterer().fit(K).transform(Kx) @ A))
    True
    """
    coef = np.asarray(coef, dtype=np.float64)
    fold = mean_weights is not None and mean_points is None
    A = np.column_stack([coef, np.asarray(mean_weights, dtype=np.float64)]) if fold else coef
    opts = dict(sigma=sigma, kernel=kernel, dtype=dtype, block_elements=block_elements)
    KA = kernel_matvec(X, points, A, **opts)
    if fold:
        Z, means = KA[:, :-1], KA[:, -1]
    elif mean_weights is not None:
        Z, means = KA, kernel_matvec(X, mean_points, mean_weights, **opts)
    else:
        Z, means = KA, None
    if offset is not None:
        Z -= np.asarray(offset, dtype=np.float64)[None, :]
    if means is not None:
        Z -= means[:, None] * coef.sum(axis=0)[None, :]
    Z = np.ascontiguousarray(Z)
    if not return_means:
        return Z
    return Z, (np.zeros(Z.shape[0]) if means is None else means)


def centering_offset(train_means, coef, weights=None) -> np.ndarray:
    """The constant part of :func:`centered_projection`'s centering: ``mu @ coef - (p @ mu) * coef.sum(axis=0)``.

    ``mu``: the training points' kernel means (each point's weighted mean kernel value against them all);
    ``p``: their weights as a distribution (uniform by default). Subtracted from ``k(x, points) @ coef``
    with the new point's own mean term, it centers the new point's kernel row in feature space as
    scikit-learn's ``KernelCenterer`` does (Scholkopf, Smola & Muller 1998).

    >>> import numpy as np
    >>> centering_offset(np.array([1.0, 3.0]), np.array([[1.0], [1.0]])).tolist()
    [0.0]
    """
    mu = np.asarray(train_means, dtype=np.float64)
    coef = np.asarray(coef, dtype=np.float64)
    grand = mu.mean() if weights is None else float(np.asarray(weights, dtype=np.float64) @ mu)
    return mu @ coef - grand * coef.sum(axis=0)
