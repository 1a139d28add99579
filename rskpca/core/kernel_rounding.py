"""Rounding-error bounds of the fused Gaussian kernel blocks, and the dtype they allow.

The fast Gaussian folds the norms into one GEMM, so its exponent carries a rounding error
that grows as ``||x||^2 / sigma^2``. :func:`gaussian_relative_error` bounds it for a given
dtype (:func:`float32_relative_error` for float32); while it stays below
:data:`FUSED_MAX_RELATIVE_ERROR` the fused blocks are used, and beyond it the kernel is
taken from clipped, near-pair-refined distances instead
(:mod:`rskpca.core.kernel_evaluation`, :mod:`rskpca.core.weighted_kernel`,
:mod:`rskpca.core.eigen` ask here which path and dtype they may take).
"""

from __future__ import annotations

import numpy as np

__all__ = ["FUSED_MAX_RELATIVE_ERROR", "gaussian_relative_error", "float32_relative_error"]

#: The fused Gaussian (one GEMM, the norms folded in, no clip) is used while its entrywise
#: relative error bound stays below this; beyond it (sigma tiny against the data's spread:
#: the exponent's cancellation error grows as ||x||^2 / sigma^2, and at sigma = 1e-9 on
#: two moons it overflowed exp into inf and NaN) the kernel is taken from the clipped,
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
    partial sums that hold them (the ``log w`` term: without it, weights up to 2e4 on data
    well inside sigma measured 4.8 times the bound); exp and the final rounding add a few
    ``u``. ``w`` omitted: unit weights. ``others``: rows paired with ``C`` (the new points of
    a projection), measured from ``C``'s mean as well.
    """
    return _error_in_roundoffs(C, sigma, w, others) * float(np.finfo(dtype).eps) / 2.0


def _error_in_roundoffs(C, sigma: float, w=None, others=None) -> float:
    """:func:`gaussian_relative_error` in units of the roundoff (the same for every dtype)."""
    C = np.asarray(C, dtype=np.float64)
    shift = C.mean(axis=0) if C.shape[0] else np.zeros(C.shape[1])
    D = C - shift  # once: a few MB on real data, and a fit asks several times
    top = float(np.einsum("ij,ij->i", D, D).max(initial=0.0))
    if others is not None:
        O = np.asarray(others, dtype=np.float64) - shift
        top = 0.5 * (top + float(np.einsum("ij,ij->i", O, O).max(initial=0.0)))
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


def _fused_gaussian_dtype(Y, X, sigma: float, dtype):
    """``dtype``, else float64, if its fused Gaussian blocks of X against Y stay within
    :data:`FUSED_MAX_RELATIVE_ERROR`; None if neither does (the exact path is needed)."""
    roundoffs = _error_in_roundoffs(Y, sigma, others=X)  # the same for both dtypes: computed once
    for dt in dict.fromkeys((np.dtype(dtype), np.dtype(np.float64))):
        if roundoffs * float(np.finfo(dt).eps) / 2.0 <= FUSED_MAX_RELATIVE_ERROR:
            return dt
    return None
