"""The result of a shadow selection: centers, their rows, weights and labels (:class:`ShadowResult`)."""

from __future__ import annotations

import numpy as np

from rskpca.core.radial_kernels import get_kernel

__all__ = ["ShadowResult", "shadow_result"]


class ShadowResult:
    """Output of :func:`~rskpca.core.shadow.shadow_centers`.

    Attributes
    ----------
    centers : ndarray of shape (m, d)
        The shadow centers (rows of X, in creation order). Given, or read from ``source``
        the first time they are asked for: a caller that only needs the indices and
        weights (the app's ell scrubbers: 19 shadows per sigma) never copies m x d values.
        Read-only when ``center_indices`` is.
    center_indices : ndarray of shape (m,)
        Row index in X of each center.
    weights : ndarray of shape (m,)
        Number of rows absorbed by each center (including itself); sums to n.
    labels : ndarray of shape (n,)
        Center (in ``[0, m)``) that each row of X belongs to.
    eps : float
        The shadow radius ``sigma / ell``.
    sigma, ell : float
        The parameters used.
    kernel : str
        Kernel name (it only matters for the bounds; selection uses eps).
    algorithm : str
        The path that ran: ``"compiled"``, ``"blas"`` or ``"table"`` (read off an
        :class:`~rskpca.core.shadow.EarlierDistances`); the results are identical.

    Examples
    --------
    >>> X = np.array([[0.0], [0.1], [1.0]])
    >>> s = ShadowResult(center_indices=np.array([0, 2]), weights=np.array([2, 1]), labels=np.array([0, 0, 1]),
    ...                  eps=0.5, sigma=1.0, ell=2.0, kernel="gaussian", source=X)
    >>> s.centers.tolist(), s.m, s.n
    ([[0.0], [1.0]], 2, 3)
    """

    __slots__ = ("_centers", "_source", "center_indices", "weights", "labels", "eps", "sigma", "ell", "kernel",
                 "algorithm")

    def __init__(self, *, center_indices: np.ndarray, weights: np.ndarray, labels: np.ndarray, eps: float,
                 sigma: float, ell: float, kernel: str, algorithm: str = "blas", centers: np.ndarray | None = None,
                 source: np.ndarray | None = None):
        if (centers is None) == (source is None):
            raise ValueError("pass the centers or the source rows they are read from (one of them).")
        for name, value in [("_centers", centers), ("_source", source), ("center_indices", center_indices),
                            ("weights", weights), ("labels", labels), ("eps", eps), ("sigma", sigma), ("ell", ell),
                            ("kernel", kernel), ("algorithm", algorithm)]:
            object.__setattr__(self, name, value)

    def __setattr__(self, name, value):
        raise AttributeError(f"ShadowResult is read-only: cannot set {name!r}.")

    def __getstate__(self):
        return {name: getattr(self, name) for name in self.__slots__}

    def __setstate__(self, state):
        for name, value in state.items():
            object.__setattr__(self, name, value)

    def __repr__(self) -> str:
        return (f"ShadowResult(m={self.m}, n={self.n}, eps={self.eps!r}, sigma={self.sigma!r}, ell={self.ell!r}, "
                f"kernel={self.kernel!r}, algorithm={self.algorithm!r})")

    @property
    def centers(self) -> np.ndarray:
        """The shadow centers (rows of X), read from ``source`` on first use."""
        centers = self._centers
        if centers is None:
            # (the source stays referenced: a result shared between threads may be asked twice at once,
            # and each then copies; neither finds it gone)
            centers = self._source[self.center_indices]  # fancy indexing copies
            if not self.center_indices.flags.writeable:
                centers.setflags(write=False)
            object.__setattr__(self, "_centers", centers)
        return centers

    @property
    def m(self) -> int:
        """Number of centers."""
        return int(self.center_indices.shape[0])

    @property
    def n(self) -> int:
        """Number of points."""
        return int(self.labels.shape[0])

    def distances_to_centers(self, X) -> np.ndarray:
        """``||x_i - c_{alpha(i)}||`` for every row of the X this was computed on."""
        X = np.asarray(X, dtype=np.float64)
        diff = X - self.centers[self.labels]
        return np.sqrt(np.einsum("ij,ij->i", diff, diff))


def shadow_result(X, center_indices, labels, sigma, ell, kernel, used, lazy: bool = False) -> ShadowResult:
    """The :class:`ShadowResult` of a scan of ``X`` that gave ``center_indices`` and ``labels``.

    ``lazy``: X is rows nobody can change (a table's own read-only copy), read when the centers are
    first asked for; a caller's array could change after the call, so its centers are copied now.
    """
    return ShadowResult(
        centers=None if lazy else X[center_indices], source=X if lazy else None,
        center_indices=center_indices,
        weights=np.bincount(labels, minlength=center_indices.shape[0]),
        labels=labels,
        eps=float(sigma / ell),
        sigma=float(sigma),
        ell=float(ell),
        kernel=get_kernel(kernel).name,
        algorithm=used,
    )
