"""Shadow center selection (Algorithm 2 of Kingravi, Vela & Gray, 2013).

Points are visited in order. A point becomes a center iff no existing center
lies strictly within ``eps = sigma / ell`` of it; every other point joins the
*earliest-created* center within ``eps``. This is Algorithm 2 read one point at
a time: the algorithm's "first remaining element" is exactly the first point
not yet absorbed, and a point is absorbed by the first center that covers it.

The predicate is fixed so results are reproducible to the bit:
``sum((x - c) ** 2) < eps ** 2`` in float64, where the sum runs over the
feature axis of a C-contiguous ``(k, d)`` difference array
(:func:`exact_squared_distances`). The fast path screens candidate pairs with
BLAS (``||x||^2 + ||c||^2 - 2 x.c``) and re-decides, with that exact predicate,
every pair whose screened distance lies within the rounding margin of
``eps ** 2``, so it agrees with the literal algorithm even on near-ties.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from sklearn.utils import check_random_state

from rskpca._validation import check_array_2d, check_positive
from rskpca.kernels import get_kernel, squared_distances

__all__ = ["ShadowResult", "shadow_centers", "exact_squared_distances"]

# Relative rounding margin for the BLAS screen. The error of ||x||^2+||c||^2-2x.c
# is below ~ (d + 3) * 2^-53 * (||x||^2 + ||c||^2); this margin is far wider, and
# pairs inside it are re-decided exactly, so it costs time only, never correctness.
_SCREEN_REL_MARGIN = 1e-9
# Upper bounds on rows per block and on screened values per block.
_MAX_BLOCK_ROWS = 2048
_BLOCK_ELEMENTS = 4_000_000


@dataclass(frozen=True)
class ShadowResult:
    """Output of :func:`shadow_centers`.

    Attributes
    ----------
    centers : ndarray of shape (m, d)
        The shadow centers (rows of X, in creation order).
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
    """

    centers: np.ndarray
    center_indices: np.ndarray
    weights: np.ndarray
    labels: np.ndarray
    eps: float
    sigma: float
    ell: float
    kernel: str

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


def exact_squared_distances(x: np.ndarray, C: np.ndarray) -> np.ndarray:
    """The reference predicate's distances: ``((C - x) ** 2).sum(axis=1)`` in float64.

    ``x`` may be one point (``(d,)``) against many ``C`` rows, or a ``(k, d)``
    array paired row by row with ``C``.
    """
    diff = np.ascontiguousarray(np.asarray(C, dtype=np.float64) - np.asarray(x, dtype=np.float64))
    return (diff * diff).sum(axis=1)


def _decide(D, eps2, margin, exact_pairs):
    """Boolean ``D < eps2`` with every entry within ``margin`` re-decided exactly.

    ``exact_pairs(rows, cols)`` returns exact squared distances for those pairs.
    """
    inside = D < eps2
    unsure = np.abs(D - eps2) <= margin
    if unsure.any():
        rows, cols = np.nonzero(unsure)
        inside[rows, cols] = exact_pairs(rows, cols) < eps2
    return inside


class _CenterStore:
    """Growing array of centers with their squared norms (amortised doubling)."""

    def __init__(self, d: int, capacity: int = 256):
        self.C = np.empty((capacity, d))
        self.sq = np.empty(capacity)
        self.idx = np.empty(capacity, dtype=np.intp)
        self.m = 0

    def extend(self, rows: np.ndarray, sq: np.ndarray, idx: np.ndarray) -> None:
        need = self.m + rows.shape[0]
        if need > self.C.shape[0]:
            cap = max(need, 2 * self.C.shape[0])
            for name in ("C", "sq", "idx"):
                old = getattr(self, name)
                new = np.empty((cap,) + old.shape[1:], dtype=old.dtype)
                new[: self.m] = old[: self.m]
                setattr(self, name, new)
        self.C[self.m:need] = rows
        self.sq[self.m:need] = sq
        self.idx[self.m:need] = idx
        self.m = need


def _shadow_scan(X: np.ndarray, eps: float):
    """Fast Algorithm 2 on float64 X in visiting order: (center_rows, labels)."""
    n, d = X.shape
    eps2 = eps * eps
    # Screen on mean-centered coordinates: smaller norms mean a tighter margin.
    # Exact re-checks always use the original X, as the reference does.
    Xs = X - X.mean(axis=0)
    sq = np.einsum("ij,ij->i", Xs, Xs)
    store = _CenterStore(d)
    labels = np.empty(n, dtype=np.intp)
    start = 0
    while start < n:
        rows = int(min(_MAX_BLOCK_ROWS, max(64, _BLOCK_ELEMENTS // max(store.m, 1))))
        stop = min(n, start + rows)
        block = np.arange(start, stop)
        Xb, sqb = Xs[start:stop], sq[start:stop]
        unassigned = np.ones(stop - start, dtype=bool)

        # 1. Earliest existing center within eps, for every point in the block.
        if store.m:
            m = store.m
            D = squared_distances(Xb, store.C[:m], X_sq=sqb, Y_sq=store.sq[:m])
            margin = _SCREEN_REL_MARGIN * (float(sqb.max()) + float(store.sq[:m].max()) + eps2)
            inside = _decide(
                D, eps2, margin,
                lambda r, c: exact_squared_distances(X[block[r]], X[store.idx[c]]),
            )
            has = inside.any(axis=1)
            labels[block[has]] = inside[has].argmax(axis=1)  # argmax = first True
            unassigned = ~has

        # 2. The rest decide among themselves, in order. A point with no earlier
        #    free neighbour within eps is a center outright (vectorised); only
        #    points that have one need the sequential rule, one Python step each.
        free = np.flatnonzero(unassigned)
        if free.size:
            F = Xb[free]
            sqf = sqb[free]
            D = squared_distances(F, F, X_sq=sqf, Y_sq=sqf)
            margin = _SCREEN_REL_MARGIN * (2.0 * float(sqf.max()) + eps2)
            gidx = block[free]
            inside = _decide(
                D, eps2, margin,
                lambda r, c: exact_squared_distances(X[gidx[r]], X[gidx[c]]),
            )
            earlier = np.tril(inside, -1)
            is_center = np.ones(free.size, dtype=bool)
            owner = np.arange(free.size)
            for j in np.flatnonzero(earlier.any(axis=1)):
                nb = np.flatnonzero(earlier[j])
                nb = nb[is_center[nb]]
                if nb.size:
                    is_center[j] = False
                    owner[j] = nb[0]  # earliest-created center within eps
            new_local = np.flatnonzero(is_center)
            center_label = np.empty(free.size, dtype=np.intp)
            center_label[new_local] = store.m + np.arange(new_local.size)
            labels[gidx] = center_label[owner]
            store.extend(Xs[gidx[new_local]], sqf[new_local], gidx[new_local])
        start = stop
    return store.idx[: store.m].copy(), labels


def shadow_centers(X, *, sigma: float, ell: float, kernel: str = "gaussian",
                   order: str = "input", random_state=None) -> ShadowResult:
    """Select shadow centers with ``eps = sigma / ell`` (Algorithm 2).

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        Data; NaN/inf are rejected.
    sigma : float
        Kernel bandwidth (``k = exp(-||x-y||^2 / sigma^2)`` for the Gaussian).
    ell : float
        Shadow parameter; the radius is ``sigma / ell``. Larger ell gives more centers.
    kernel : {"gaussian", "laplacian"}, default="gaussian"
        Recorded for the bounds; the selection only depends on eps.
    order : {"input", "random"}, default="input"
        Visit points in input order (the paper) or in a random order drawn from
        ``random_state``. Indices and labels always refer to the original rows.
    random_state : int, RandomState instance or None, default=None
        Seed for ``order="random"``.

    Returns
    -------
    ShadowResult
        ``centers``, ``center_indices``, ``weights`` (sum n), ``labels``, ``eps``.

    Examples
    --------
    >>> import numpy as np
    >>> from rskpca import shadow_centers
    >>> X = np.array([[0.0], [0.1], [1.0], [1.05], [5.0]])
    >>> s = shadow_centers(X, sigma=1.0, ell=4.0)
    >>> s.center_indices.tolist(), s.weights.tolist(), s.labels.tolist()
    ([0, 2, 4], [2, 2, 1], [0, 0, 1, 1, 2])
    """
    X = check_array_2d(X, name="X")
    sigma = check_positive(sigma, "sigma")
    ell = check_positive(ell, "ell")
    get_kernel(kernel)
    eps = sigma / ell
    if order not in ("input", "random"):
        raise ValueError(f"order must be 'input' or 'random', got {order!r}.")
    n = X.shape[0]
    if order == "random":
        perm = check_random_state(random_state).permutation(n)
        idx_p, labels_p = _shadow_scan(np.ascontiguousarray(X[perm]), eps)
        center_indices = perm[idx_p]
        labels = np.empty(n, dtype=np.intp)
        labels[perm] = labels_p
    else:
        center_indices, labels = _shadow_scan(X, eps)
    weights = np.bincount(labels, minlength=center_indices.shape[0])
    return ShadowResult(
        centers=X[center_indices].copy(),
        center_indices=center_indices,
        weights=weights,
        labels=labels,
        eps=float(eps),
        sigma=float(sigma),
        ell=float(ell),
        kernel=get_kernel(kernel).name,
    )
