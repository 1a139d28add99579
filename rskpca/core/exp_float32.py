"""The exponential of a float32 kernel block, compiled (imported on first use: numba loads here).

The float32 Gaussian blocks of a projection (:func:`rskpca.core.radial_kernels.fused_gaussian_block`)
spent most of their time in ``np.exp``: on the 2-core development machine numpy's float32 exp took 2-6 ns
a value, against 0.6 ns for the block's GEMM and 0.4 ns for each of the two adds before it (a million rows
through 4,675 centers: 8.8 s, most of an ell change at that size). :func:`exp_shifted_float32` does the
adds and the exp in one pass the compiler vectorizes, about 0.8 ns a value:

* range reduction ``x = k ln 2 + r``, ``|r| <= ln 2 / 2``, with ``ln 2`` split in two (Cody & Waite 1980)
  so that ``k ln 2`` is subtracted without rounding;
* ``e^r`` by its Taylor polynomial of degree 7, whose remainder there is below 6e-9 relative;
* ``2^k`` as two exact powers of two, so that results below float32's smallest normal number are the
  subnormals they round to, and 0 below ``e^-104``; above ``e^88.7``, inf (as numpy's).

Its largest error over every float32 exponent in [-87, 88] is 1.51 units of roundoff ``u = 2^-24``
(numpy's own float32 exp: 3.57 u on the same values), within the few ``u`` that
:func:`~rskpca.core.radial_kernels.gaussian_relative_error` allows the exp. Both numbers, and the speeds,
come from ``python tests/benchmarks/bench_exp_float32.py``; ``tests/test_exp_float32.py`` holds it to 2 u.
"""

import numba as nb
import numpy as np

__all__ = ["exp_shifted_float32"]

_F = np.float32
# The flags that let the loop vectorize; "reassoc" is left out, which would undo the split of ln 2.
_FAST = {"nnan", "ninf", "nsz", "arcp", "contract", "afn"}


@nb.njit(cache=True, nogil=True, fastmath=_FAST, inline="always")
def _exp(x):
    x = _F(-104.0) if x < _F(-104.0) else (_F(89.0) if x > _F(89.0) else x)
    k = np.floor(x * _F(1.44269504) + _F(0.5))
    r = (x - k * _F(0.693359375)) - k * _F(-2.12194440e-4)  # ln 2 = 0.693359375 - 2.12194440e-4
    p = _F(1.0) + r * (_F(1.0) + r * (_F(0.5) + r * (_F(0.166666672) + r * (_F(0.0416666679) + r * (
        _F(0.00833333377) + r * (_F(0.00138888892) + r * _F(0.000198412701)))))))
    ki = np.int32(k)
    half = ki >> 1
    low = np.int32((half + np.int32(127)) << np.int32(23)).view(np.float32)
    high = np.int32((ki - half + np.int32(127)) << np.int32(23)).view(np.float32)
    return _F(0.0) if x <= _F(-104.0) else p * low * high


@nb.njit(cache=True, nogil=True, fastmath=_FAST)
def _rows_shifted(out, u_left):
    for i in range(out.shape[0]):
        a = u_left[i]
        for j in range(out.shape[1]):
            out[i, j] = _exp(out[i, j] + a)


@nb.njit(cache=True, nogil=True, fastmath=_FAST)
def _rows_and_columns_shifted(out, u_left, u_right):
    for i in range(out.shape[0]):
        a = u_left[i]
        for j in range(out.shape[1]):
            out[i, j] = _exp((out[i, j] + a) + u_right[j])


def exp_shifted_float32(out, u_left, u_right=None):
    """``out = exp(out + u_left[:, None] (+ u_right[None, :]))`` in place, for a float32 block.

    The adds are rounded as numpy rounds them (left, then right), then the exponential (the module
    notes say how, and how accurately). Releases the GIL: the row blocks of
    :func:`~rskpca.core.threads.map_row_blocks` run it side by side.

    Parameters
    ----------
    out : ndarray of shape (n, m), float32
    u_left : ndarray of shape (n,), float32
    u_right : ndarray of shape (m,), float32, default=None

    Returns
    -------
    out : ndarray of shape (n, m)

    >>> import numpy as np
    >>> block = np.zeros((2, 3), dtype=np.float32)
    >>> exp_shifted_float32(block, np.float32([0.0, -1.0]), np.float32([0.0, 1.0, -200.0])).tolist()
    [[1.0, 2.7182817459106445, 0.0], [0.3678794503211975, 1.0, 0.0]]
    """
    u_left = np.ascontiguousarray(u_left, dtype=np.float32)
    if u_right is None:
        _rows_shifted(out, u_left)
    else:
        _rows_and_columns_shifted(out, u_left, np.ascontiguousarray(u_right, dtype=np.float32))
    return out
