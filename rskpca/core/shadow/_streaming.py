"""The shadow (Algorithm 2 of Kingravi, Vela & Gray, 2013) one batch at a time, exactly.

Algorithm 2 makes a point a center exactly when no earlier center lies within
``eps`` of it, and otherwise gives it to the earliest such center. Centers are
created in input order, so every center of earlier data precedes every center
a later row can create. Hence one batch is handled in two steps:

1. *screen*: each row takes its earliest existing center within eps
   (:func:`~rskpca.core.shadow.earliest_center_within`, the scan's own GEMM
   screen and exact float64 predicate); that center is the one Algorithm 2
   would give it, whatever comes later;
2. *residue*: the rows no existing center covers are, in input order, a
   shadow problem of their own -- a row among them is a center iff no
   earlier one of them is a center within eps -- so the single-machine
   scan on them yields the new centers and their labels.

Fed batch by batch, the state therefore ends with the centers, indices,
weights and labels of :func:`rskpca.shadow_centers` on all rows, bit for bit.
The same step, with the screen run on many chunks at once, is the round of
the distributed shadow (:mod:`rskpca.distributed`).
"""

from __future__ import annotations

import numpy as np

from rskpca.core.validation import check_array_2d, check_positive
from rskpca.core.shadow._result import ShadowResult
from rskpca.core.shadow._screen import blas_earliest_center
from rskpca.core.shadow._select import shadow_centers

__all__ = ["StreamingShadow", "screen_then_residue"]


def screen_then_residue(X: np.ndarray, centers: np.ndarray, eps: float):
    """One exact shadow step of rows ``X`` that come after the rows that made ``centers``.

    Parameters
    ----------
    X : ndarray of shape (n, d), float64
    centers : ndarray of shape (m, d)
        The shadow centers so far, in creation order.
    eps : float

    Returns
    -------
    labels : ndarray of shape (n,), int
        Center of each row: ``< m`` an existing one, ``>= m`` a new one (numbered on).
    new_rows : ndarray of shape (k,), int
        Rows of X that become centers, in creation order.

    Examples
    --------
    >>> X = np.array([[0.2], [3.0], [3.5], [9.0]])
    >>> labels, new = screen_then_residue(X, np.array([[0.0]]), 1.0)
    >>> labels.tolist(), new.tolist()
    ([0, 1, 1, 2], [1, 3])
    """
    m = centers.shape[0]
    if m == 0:  # the first batch: every row is residue (no screen, no copy of X)
        s = shadow_centers(X, sigma=eps, ell=1.0)
        return s.labels, s.center_indices
    labels = blas_earliest_center(X, centers, eps)
    residue = np.flatnonzero(labels < 0)
    if residue.size == 0:
        return labels, residue
    # eps / 1.0 == eps exactly, so the residue scan uses the same radius to the bit.
    s = shadow_centers(X[residue], sigma=eps, ell=1.0)
    labels[residue] = m + s.labels
    return labels, residue[s.center_indices]


class StreamingShadow:
    """Shadow centers of a stream of row batches, equal to :func:`rskpca.shadow_centers` on all rows.

    Parameters
    ----------
    sigma : float
        Kernel bandwidth.
    ell : float
        Shadow parameter; the radius is ``eps = sigma / ell``.
    kernel : {"gaussian", "laplacian"}, default="gaussian"
        Recorded in :meth:`result`; the selection only depends on eps.

    Attributes
    ----------
    centers : ndarray of shape (m, d)
    center_indices : ndarray of shape (m,)
        Row of each center in the concatenated stream.
    weights : ndarray of shape (m,)
        Rows absorbed by each center so far (int64).
    n_seen : int
        Rows fed so far.

    Examples
    --------
    >>> import numpy as np
    >>> from rskpca import shadow_centers
    >>> X = np.random.default_rng(0).normal(size=(300, 2))
    >>> stream = StreamingShadow(sigma=1.0, ell=2.0)
    >>> labels = np.concatenate([stream.update(X[a:a + 70]) for a in range(0, 300, 70)])
    >>> s = shadow_centers(X, sigma=1.0, ell=2.0)
    >>> bool((labels == s.labels).all() and (stream.weights == s.weights).all())
    True
    """

    def __init__(self, *, sigma: float, ell: float, kernel: str = "gaussian"):
        self.sigma = check_positive(sigma, "sigma")
        self.ell = check_positive(ell, "ell")
        self.kernel = kernel
        self.eps = self.sigma / self.ell
        self.centers = None
        self.center_indices = np.empty(0, dtype=np.intp)
        self.weights = np.empty(0, dtype=np.int64)
        self.n_seen = 0

    @property
    def m(self) -> int:
        """Number of centers so far."""
        return int(self.center_indices.shape[0])

    def update(self, X) -> np.ndarray:
        """Feed the next batch of rows; returns their labels (centers in creation order).

        Parameters
        ----------
        X : array-like of shape (n_batch, n_features)
            NaN/inf are rejected; the number of features must not change.

        Returns
        -------
        ndarray of shape (n_batch,), int
        """
        X = check_array_2d(X, name="X")
        if self.centers is None:
            self.centers = np.empty((0, X.shape[1]))
        elif X.shape[1] != self.centers.shape[1]:
            raise ValueError(
                f"X has {X.shape[1]} features, but the stream so far has {self.centers.shape[1]}; "
                "feed batches with the same columns."
            )
        labels, new_rows = screen_then_residue(X, self.centers, self.eps)
        self.centers = np.concatenate([self.centers, X[new_rows]])
        self.center_indices = np.concatenate([self.center_indices, self.n_seen + new_rows])
        weights = np.bincount(labels, minlength=self.m).astype(np.int64)
        weights[: self.weights.shape[0]] += self.weights
        self.weights = weights
        self.n_seen += X.shape[0]
        return labels

    def result(self, labels=None) -> ShadowResult:
        """The state as a :class:`rskpca.ShadowResult` (``labels``: all rows', if kept by the caller)."""
        return ShadowResult(
            centers=self.centers.copy(), center_indices=self.center_indices.copy(),
            weights=self.weights.copy(),
            labels=np.empty(0, dtype=np.intp) if labels is None else np.asarray(labels),
            eps=float(self.eps), sigma=float(self.sigma), ell=float(self.ell), kernel=self.kernel,
        )
