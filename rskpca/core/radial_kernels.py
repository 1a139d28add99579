"""Radial kernels in the paper's convention: what they are, and their matrices and products.

Every kernel here is written as in eq. (19) of Kingravi, Vela & Gray (2013)::

    k(x, y) = phi(||x - y||^p / sigma^p)

* Gaussian: ``phi(s) = exp(-s)``, ``p = 2``, so ``k = exp(-||x-y||^2 / sigma^2)``
  (scikit-learn's ``gamma`` is ``1 / sigma**2``).
* Laplacian: ``phi(s) = exp(-s)``, ``p = 1``, so ``k = exp(-||x-y|| / sigma)``
  (Euclidean norm; scikit-learn's ``laplacian_kernel`` uses the L1 norm instead).

Both have ``kappa = k(x, x) = 1``. In this module:

* the kernels: :class:`RadialKernel` (a profile and the constants the bounds need),
  :data:`KERNELS`, :func:`get_kernel`;
* the distances they are functions of: :func:`squared_distances` (one GEMM,
  ``||x||^2 + ||y||^2 - 2 x.y``) and :func:`refine_near_pairs` (near-duplicate pairs
  recomputed from their differences);
* the fused Gaussian's rounding-error bound: :func:`gaussian_relative_error`,
  :func:`float32_relative_error` and :data:`FUSED_MAX_RELATIVE_ERROR`, which decide which
  path and dtype a block may take (here, in :mod:`rskpca.core.weighted_kernel` and in
  :mod:`rskpca.core.eigen`);
* blocked, threaded evaluation: :func:`kernel_matrix`, :func:`kernel_matvec` (``K(X, Y) @ V``
  without the whole matrix) and :func:`kernel_row_means` (the KDE and the ShDE). Row blocks
  hold at most a budget of :mod:`rskpca.core.block_sizes` values and run on threads
  (:func:`~rskpca.core.threads.map_row_blocks`).

The weighted ``W K W`` of the reduced-set problem is :mod:`rskpca.core.weighted_kernel`'s;
choosing sigma is :mod:`rskpca.core.bandwidth_heuristic`'s.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from rskpca.core.block_sizes import CACHE_BLOCK_ELEMENTS, PROJECTION_BLOCK_ELEMENTS, _row_block
from rskpca.core.threads import map_row_blocks

__all__ = [
    "RadialKernel", "KERNELS", "get_kernel",
    "squared_distances", "refine_near_pairs", "NEAR_DUPLICATE_REL",
    "FUSED_MAX_RELATIVE_ERROR", "gaussian_relative_error", "float32_relative_error",
    "fused_gaussian_block", "kernel_matrix", "kernel_matvec", "kernel_row_means",
]

@dataclass(frozen=True)
class RadialKernel:
    """A radial kernel ``k(x, y) = phi(||x - y||^p / sigma^p)``.

    Parameters
    ----------
    name : str
        ``"gaussian"`` or ``"laplacian"``.
    p : int
        Power of the distance inside ``phi``.
    phi : callable
        Profile, applied elementwise to ``||x - y||^p / sigma^p``.
    kappa : float
        ``sup_x k(x, x)``; 1 for both kernels here.
    lipschitz_factor : float
        ``L * sigma`` where ``L = sup_r |d k / d r|`` is the Lipschitz constant of
        the kernel as a function of the distance ``r``. Gaussian: ``sqrt(2/e)``
        (reached at ``r = sigma / sqrt(2)``); Laplacian: 1 (at ``r = 0``).
    paper_c_factor : float
        The constant of eq. (18) as printed in the paper, times ``sigma**2``
        (1/2 for the Gaussian, 1 for the Laplacian), kept for comparison.
    """

    name: str
    p: int
    phi: Callable[[np.ndarray], np.ndarray]
    kappa: float
    lipschitz_factor: float
    paper_c_factor: float

    def profile(self, scaled: np.ndarray | float) -> np.ndarray:
        """``phi`` applied to ``||x - y||^p / sigma^p``."""
        return self.phi(np.asarray(scaled, dtype=float))

    def from_squared_distances(self, d2: np.ndarray, sigma: float, out=None) -> np.ndarray:
        """Kernel values from squared distances, in place when ``out is d2``."""
        if out is None:
            out = np.empty_like(d2)
        if self.p == 2:
            np.multiply(d2, -1.0 / sigma**2, out=out)
        else:
            np.sqrt(d2, out=out)
            np.multiply(out, -1.0 / sigma, out=out)
        np.exp(out, out=out)
        return out

    def value_at_distance(self, r, sigma: float) -> np.ndarray:
        """``k`` as a function of the distance ``r = ||x - y||``."""
        r = np.asarray(r, dtype=float)
        return self.phi(r**self.p / sigma**self.p)

    def lipschitz(self, sigma: float) -> float:
        """``L`` with ``|k(a, b) - k(c, d)| <= L | ||a-b|| - ||c-d|| |``."""
        return self.lipschitz_factor / sigma

    def c_constant(self, sigma: float) -> float:
        """A constant C that provably satisfies eq. (18) in this convention.

        ``(k(a,b) - k(c,d))^2 <= C (||a-c||^2 + ||b-d||^2)`` holds with
        ``C = 2 L^2``: the map ``(a, b) -> k(a, b)`` on R^{2d} has gradient norm
        ``sqrt(2) |dk/dr|`` (the gradients in ``a`` and ``b`` are opposite), so it
        is ``sqrt(2) L``-Lipschitz, and the constant is attained near
        ``r = sigma/sqrt(2)`` (Gaussian) or ``r = 0`` (Laplacian): no smaller C works.
        Gaussian: ``4 / (e sigma^2)``; Laplacian: ``2 / sigma^2``.
        """
        return 2.0 * self.lipschitz(sigma) ** 2

    def paper_c_constant(self, sigma: float) -> float:
        """The paper's printed constant: ``1/(2 sigma^2)`` Gaussian, ``1/sigma^2`` Laplacian.

        Too small in this convention (a counterexample is in the tests), so the
        bounds use :meth:`c_constant` and only show this one beside it.
        """
        return self.paper_c_factor / sigma**2

    def phi_at_shadow_radius(self, ell: float) -> float:
        """``phi(1 / ell^p)``: the smallest kernel value inside a shadow of radius sigma/ell."""
        return float(self.phi(np.asarray(1.0 / float(ell) ** self.p)))


def _neg_exp(s: np.ndarray) -> np.ndarray:
    return np.exp(-s)


KERNELS: dict[str, RadialKernel] = {
    "gaussian": RadialKernel("gaussian", 2, _neg_exp, 1.0, float(np.sqrt(2.0 / np.e)), 0.5),
    "laplacian": RadialKernel("laplacian", 1, _neg_exp, 1.0, 1.0, 1.0),
}


def get_kernel(kernel: str | RadialKernel) -> RadialKernel:
    """Look a kernel up by name, with a clear error for unknown names.

    >>> get_kernel("gaussian").p
    2
    """
    if isinstance(kernel, RadialKernel):
        return kernel
    try:
        return KERNELS[str(kernel).lower()]
    except KeyError:
        raise ValueError(
            f"Unknown kernel {kernel!r}. Use one of {sorted(KERNELS)} "
            "(Gaussian: exp(-|x-y|^2/sigma^2); Laplacian: exp(-|x-y|/sigma))."
        ) from None


# ---------------------------------------------------------------------------
# Squared distances
# ---------------------------------------------------------------------------


def squared_distances(X: np.ndarray, Y: np.ndarray, *, X_sq=None, Y_sq=None, out=None) -> np.ndarray:
    """Squared Euclidean distances through BLAS, clipped at zero.

    Uses ``||x||^2 + ||y||^2 - 2 x.y``: fast, with rounding error of order
    ``eps_machine * (||x||^2 + ||y||^2)``. Callers that need exact decisions at a
    threshold (the shadow selection) re-check the pairs near it.
    """
    if X_sq is None:
        X_sq = np.einsum("ij,ij->i", X, X)
    if Y_sq is None:
        Y_sq = np.einsum("ij,ij->i", Y, Y)
    D = np.matmul(X, Y.T, out=out)
    D *= -2.0
    D += X_sq[:, None]
    D += Y_sq[None, :]
    np.maximum(D, 0.0, out=D)
    return D


#: Below this fraction of ||x||^2 + ||y||^2 the BLAS squared distance has lost more than half
#: its digits; such pairs are recomputed from the differences when it matters (p = 1).
NEAR_DUPLICATE_REL = 1e-6
# Differences recomputed per chunk (pairs x features): 8 MiB, bounded even for constant data.
_REFINE_CHUNK_ELEMENTS = 1_000_000


def refine_near_pairs(D, A, B, A_sq, B_sq) -> None:
    """Recompute near-duplicate squared distances from the differences, in place.

    ``D = squared_distances(A, B)`` carries an absolute error of about
    ``1e-16 (||a||^2 + ||b||^2)``. The Laplacian takes a square root, so for
    (near-)duplicates that becomes ``1e-8 ||a|| / sigma`` in k; the Gaussian needs
    no such care. Pairs with ``D <= NEAR_DUPLICATE_REL (||a||^2 + ||b||^2)`` are
    recomputed; ``<=`` (not ``<``) so that every pair left alone lies strictly above
    the threshold and keeps a relative error below ``~1e-10``, at no extra cost.
    """
    rows, cols = np.divmod(np.flatnonzero(D <= NEAR_DUPLICATE_REL * (A_sq[:, None] + B_sq[None, :])), D.shape[1])
    step = max(1, _REFINE_CHUNK_ELEMENTS // max(A.shape[1], 1))
    for s in range(0, rows.size, step):
        r, c = rows[s:s + step], cols[s:s + step]
        diff = A[r] - B[c]
        D[r, c] = np.einsum("ij,ij->i", diff, diff)


# ---------------------------------------------------------------------------
# The fused Gaussian's rounding error
# ---------------------------------------------------------------------------


#: The fused Gaussian (one GEMM, the norms folded in, no clip) is used while its entrywise
#: relative error bound stays below this; beyond it (sigma tiny against the data's spread:
#: the exponent's cancellation error grows as ||x||^2 / sigma^2, and at a tiny enough sigma
#: it overflows exp into inf and NaN) the kernel is taken from the clipped,
#: near-pair-refined squared distances, which is exact to rounding at any sigma.
FUSED_MAX_RELATIVE_ERROR = 2.0**-10


def gaussian_relative_error(C, sigma: float, w=None, *, dtype=np.float32, others=None) -> float:
    """Entrywise relative error bound of the fused Gaussian blocks computed in ``dtype``.

    Of :func:`rskpca.core.weighted_kernel.weighted_kernel_matrix` and of :func:`kernel_matvec`'s
    blocks. ``delta = (4 + 2 (d + 3) max ||c - mean||^2 / sigma^2 + 3 max |log w|) u``,
    ``u`` the unit roundoff of ``dtype`` (``2^-24`` for float32): the GEMM's
    ``||x||^2 + ||y||^2 - 2 x.y`` is off by at most ``(d + 2) u (||x||^2 + ||y||^2)``
    (Higham 2002, inner products), plus one rounding of the operand that carries the factor
    ``2 / sigma^2``, which the exponent divides by ``sigma^2``; the exponent also carries the
    log-weights ``log sqrt(w_i) + log sqrt(w_j)``, and each of its roundings is relative to
    partial sums that hold them (the ``log w`` term: without it, heavy weights on data well
    inside sigma exceed the bound, as tests/test_weighted_kernel.py's
    ``test_float32_bound_holds_for_heavy_weights_on_data_inside_sigma`` checks); exp and the final rounding add a few
    ``u``. ``w`` omitted: unit weights. ``others``: rows paired with ``C`` (the new points of
    a projection), measured from ``C``'s mean as well.
    """
    return _error_in_roundoffs(C, sigma, w, others) * float(np.finfo(dtype).eps) / 2.0


_NORM_BLOCK_ROWS = 65_536


def _error_in_roundoffs(C, sigma: float, w=None, others=None) -> float:
    """:func:`gaussian_relative_error` in units of the roundoff (the same for every dtype)."""
    C = np.asarray(C, dtype=np.float64)
    shift = C.mean(axis=0) if C.shape[0] else np.zeros(C.shape[1])
    D = C - shift  # once: a few MB on real data, and a fit asks several times
    top = float(np.einsum("ij,ij->i", D, D).max(initial=0.0))
    if others is not None:  # in row blocks: no float64 copy of millions of new rows
        others = np.asarray(others)
        far = 0.0
        for start in range(0, others.shape[0], _NORM_BLOCK_ROWS):
            O = others[start:start + _NORM_BLOCK_ROWS].astype(np.float64) - shift
            far = max(far, float(np.einsum("ij,ij->i", O, O).max(initial=0.0)))
        top = 0.5 * (top + far)
    d = C.shape[1]
    w = np.asarray([] if w is None else w, dtype=np.float64)
    # (a zero weight's entries are exactly 0 in every path: only positive weights count)
    log_w = float(np.abs(np.log(w[w > 0])).max(initial=0.0))
    return 4.0 + 2.0 * (d + 3) * top / sigma**2 + 3.0 * log_w


def float32_relative_error(C, sigma: float, w=None) -> float:
    """:func:`gaussian_relative_error` of float32 blocks (``u = 2^-24``).

    >>> round(float32_relative_error([[0.0], [2.0]], sigma=1.0) * 2**24, 1)
    12.0
    """
    return gaussian_relative_error(C, sigma, w, dtype=np.float32)


def fused_gaussian_block(out, left, right, u_left, u_right=None):
    """The fused Gaussian block ``exp(left @ right.T + u_left[:, None] + u_right[None, :])``, in place in ``out``.

    The one definition of the fast Gaussian path, for :func:`kernel_matvec` and
    :func:`rskpca.core.weighted_kernel.weighted_kernel_matrix`: with coordinates shifted to a
    common point, one operand scaled by ``2 / sigma^2`` and ``u = log sqrt(w) - |x|^2 / sigma^2``
    (``w = 1`` unweighted), the exponent is ``log sqrt(w_i w_j) - |x_i - y_j|^2 / sigma^2``, so a
    block takes one GEMM, the adds and one exp instead of six elementwise passes. ``u_right``
    None: already folded into the GEMM (an extra column of ``right`` against ones in ``left``).
    Its rounding error is :func:`gaussian_relative_error`'s; no clip at 0 (a rounded exponent
    just above 0 is within that error too).

    >>> import numpy as np
    >>> x, y = np.array([[0.0]]), np.array([[1.0]])
    >>> round(float(fused_gaussian_block(np.empty((1, 1)), x, 2 * y, -x[:, 0] ** 2, -y[:, 0] ** 2)[0, 0]), 4)
    0.3679
    """
    np.matmul(left, right.T, out=out)
    if out.dtype == np.float32 and out.flags.c_contiguous:
        # the adds and the exp in one compiled pass, several times numpy's speed in float32
        from rskpca.core.exp_float32 import exp_shifted_float32

        return exp_shifted_float32(out, u_left, u_right)
    out += u_left[:, None]
    if u_right is not None:
        out += u_right[None, :]
    np.exp(out, out=out)
    return out


def _fused_gaussian_dtype(Y, X, sigma: float, dtype):
    """``dtype``, else float64, if its fused Gaussian blocks of X against Y stay within
    :data:`FUSED_MAX_RELATIVE_ERROR`; None if neither does (the exact path is needed)."""
    roundoffs = _error_in_roundoffs(Y, sigma, others=X)  # the same for both dtypes: computed once
    for dt in dict.fromkeys((np.dtype(dtype), np.dtype(np.float64))):
        if roundoffs * float(np.finfo(dt).eps) / 2.0 <= FUSED_MAX_RELATIVE_ERROR:
            return dt
    return None


# ---------------------------------------------------------------------------
# Kernel matrices and products, blocked and threaded
# ---------------------------------------------------------------------------


def kernel_matrix(X, Y=None, *, sigma: float, kernel="gaussian", dtype=np.float64) -> np.ndarray:
    """The full kernel matrix ``K[i, j] = k(X[i], Y[j])`` (``Y = X`` if omitted).

    Allocates ``len(X) * len(Y)`` values: meant for the small m x m and m x n_new
    matrices of the reduced-set methods, or for exact KPCA when asked for.

    >>> import numpy as np
    >>> K = kernel_matrix(np.array([[0.0], [1.0]]), sigma=1.0)
    >>> np.round(K, 4).tolist()
    [[1.0, 0.3679], [0.3679, 1.0]]
    """
    k = get_kernel(kernel)
    X = np.asarray(X, dtype=dtype)
    same = Y is None
    Y = X if same else np.asarray(Y, dtype=dtype)
    X_sq = np.einsum("ij,ij->i", X, X)
    Y_sq = X_sq if same else np.einsum("ij,ij->i", Y, Y)
    K = np.empty((X.shape[0], Y.shape[0]), dtype=dtype)
    # Row blocks small enough to stay in cache while the elementwise passes run:
    # several times faster than whole-matrix passes once the matrix exceeds memory caches.
    step = _row_block(Y.shape[0], CACHE_BLOCK_ELEMENTS)
    # Near pairs' rounding matters to the Laplacian always, to the Gaussian once sigma is
    # tiny against the data (then ||x||^2 u / sigma^2 is no longer small).
    refine = k.p == 1 or gaussian_relative_error(X, sigma, dtype=dtype, others=Y) > FUSED_MAX_RELATIVE_ERROR

    def block(start):
        stop = min(X.shape[0], start + step)
        Kb = K[start:stop]
        squared_distances(X[start:stop], Y, X_sq=X_sq[start:stop], Y_sq=Y_sq, out=Kb)
        if refine:
            refine_near_pairs(Kb, X[start:stop], Y, X_sq[start:stop], Y_sq)
        if same:  # exact zeros on the diagonal despite rounding
            idx = np.arange(start, stop)
            Kb[idx - start, idx] = 0.0
        k.from_squared_distances(Kb, sigma, out=Kb)

    map_row_blocks(block, range(0, X.shape[0], step))  # the elementwise passes on every core
    return K


def kernel_matvec(X, Y, V, *, sigma: float, kernel="gaussian", squared=False,
                  block_elements: int = PROJECTION_BLOCK_ELEMENTS, dtype=np.float64) -> np.ndarray:
    """``K(X, Y) @ V`` (or ``(K(X, Y) ** 2) @ V`` if ``squared``) without the whole matrix.

    Rows of X are processed in blocks holding at most ``block_elements`` kernel
    values, so memory stays bounded for n x n products (KDE at every point, the
    measured MMD and Hilbert-Schmidt norms).

    ``dtype=np.float32`` (Gaussian only) computes the kernel blocks in float32: each value
    is then within ``float32_relative_error(Y, sigma)`` of its float64 value, relative
    (with the distances taken from Y's mean); the product with V accumulates in float32
    and the result is returned in float64.
    """
    k = get_kernel(kernel)
    X = np.asarray(X)  # float32 rows stay float32 here: each block is converted as it is read
    if X.dtype not in (np.float32, np.float64):
        X = X.astype(np.float64)
    Y = np.asarray(Y, dtype=np.float64)
    V = np.asarray(V, dtype=np.float64)
    vec = V.ndim == 1
    V2 = V[:, None] if vec else V
    out = np.empty((X.shape[0], V2.shape[1]))
    step = _row_block(Y.shape[0], block_elements)
    if k.p != 2 and dtype != np.float64:
        raise ValueError("float32 kernel blocks are only offered for the Gaussian kernel.")
    power = 2.0 if squared else 1.0
    fused = _fused_gaussian_dtype(Y, X, sigma / np.sqrt(power), dtype) if k.p == 2 else None
    if fused is not None:
        dtype = fused
        # Gaussian, fused (fused_gaussian_block): exp(power * (2 x.y - |y|^2 - |x|^2) / sigma^2)
        # with the |y|^2 term folded into the GEMM (one extra column), so one add per block.
        # Coordinates are shifted to Y's mean (the kernel is translation invariant) to keep
        # the cancellation error small; where the rounding could still be large,
        # _fused_gaussian_dtype sends the blocks down the exact path below.
        shift = Y.mean(axis=0) if Y.shape[0] else np.zeros(Y.shape[1])
        Ys = Y - shift
        scale = power / sigma**2
        Ya = np.empty((Ys.shape[0], Ys.shape[1] + 1), dtype=dtype)
        Ya[:, :-1] = Ys * (2.0 * scale)
        Ya[:, -1] = -scale * np.einsum("ij,ij->i", Ys, Ys)
        Vd = V2.astype(dtype, copy=False)

        def block(start):
            Xb = X[start:start + step] - shift  # float64 (shift is)
            Xa = np.empty((Xb.shape[0], Xb.shape[1] + 1), dtype=dtype)
            Xa[:, :-1] = Xb
            Xa[:, -1] = 1.0
            Kb = np.empty((Xa.shape[0], Ya.shape[0]), dtype=dtype)
            fused_gaussian_block(Kb, Xa, Ya, (-scale * np.einsum("ij,ij->i", Xb, Xb)).astype(dtype))
            out[start:start + step] = Kb @ Vd

        # The exp is as long as the GEMM and numpy runs it on one core: blocks go to threads.
        map_row_blocks(block, range(0, X.shape[0], step))
        return out[:, 0] if vec else out
    # The Laplacian, and the Gaussian where sigma is tiny against the data: distances
    # clipped at 0 and near pairs recomputed from their differences, so every value is in
    # [0, 1] and within rounding of exact at any sigma.
    Y_sq = np.einsum("ij,ij->i", Y, Y)
    for start in range(0, X.shape[0], step):
        Xb = X[start:start + step].astype(np.float64, copy=False)
        Xb_sq = np.einsum("ij,ij->i", Xb, Xb)
        Kb = squared_distances(Xb, Y, X_sq=Xb_sq, Y_sq=Y_sq)
        refine_near_pairs(Kb, Xb, Y, Xb_sq, Y_sq)
        k.from_squared_distances(Kb, sigma, out=Kb)
        if squared:
            Kb *= Kb
        out[start:start + step] = Kb @ V2
    return out[:, 0] if vec else out


def kernel_row_means(X, Y, *, sigma: float, kernel="gaussian", weights=None) -> np.ndarray:
    """``mean_j k(X[i], Y[j])`` (weighted by ``weights / sum(weights)`` if given), blocked.

    With ``Y`` the data this is the KDE of eq. (8) at X; with ``Y`` the shadow
    centers and ``weights`` their counts it is the ShDE of eq. (16).
    """
    Y = np.asarray(Y, dtype=np.float64)
    w = np.ones(Y.shape[0]) if weights is None else np.asarray(weights, dtype=np.float64)
    return kernel_matvec(X, Y, w / w.sum(), sigma=sigma, kernel=kernel)
