"""Scratch arrays kept between calls, so that their pages are faulted in once, not at every fit.

A fresh array of more than a few hundred KB is mapped from the kernel on first touch: every
page is faulted and zeroed before anything can be written into it, a cost the app pays
at every fit because it fits the same sizes again and again. The "scratch" rows of
``python tests/benchmarks/bench_speed.py --pendigits PATH`` measure the fit and its
``W K W`` with fresh and with kept buffers (timed first in the process: once frees of
large arrays have raised glibc's threshold, fresh arrays come from its heap and the
difference shrinks).

:func:`scratch_array` lends each kept buffer to one caller at a time (a caller finding none
large enough free gets a fresh one, kept afterwards). At most :data:`SCRATCH_KEPT`
buffers of at most :data:`SCRATCH_MAX_BYTES` each, :data:`SCRATCH_MAX_TOTAL` in all, stay
mapped between calls.
"""

from __future__ import annotations

import threading
from contextlib import contextmanager

import numpy as np

__all__ = ["scratch_array", "SCRATCH_MAX_BYTES", "SCRATCH_KEPT", "SCRATCH_MAX_TOTAL"]

#: Largest buffer kept between calls: 64 MiB, an m x m float32 matrix up to m = 4096.
SCRATCH_MAX_BYTES = 64 * 2**20
#: Buffers kept between calls: the solve's matrix, and two screen blocks and their masks
#: for each of two threads would be five; the smallest are dropped first.
SCRATCH_KEPT = 6
#: Bytes kept between calls in all (the smallest buffers are dropped first): what a process
#: that fits pays in memory for not faulting pages in at every fit.
SCRATCH_MAX_TOTAL = 128 * 2**20

_lock = threading.Lock()
_kept: list[np.ndarray] = []  # free flat byte buffers


@contextmanager
def scratch_array(shape, dtype):
    """Context manager: an uninitialised C-contiguous array of ``shape`` and ``dtype``, in a kept buffer if one is free.

    The array must not be used after the ``with`` block: the next caller writes into it.

    >>> with scratch_array((2, 3), np.float32) as A:
    ...     A[...] = 1.0
    ...     float(A.sum())
    6.0
    """
    dtype = np.dtype(dtype)
    shape = (shape,) if np.ndim(shape) == 0 else tuple(shape)
    nbytes = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
    if nbytes > SCRATCH_MAX_BYTES:
        yield np.empty(shape, dtype=dtype)
        return
    with _lock:
        # the smallest free buffer that is large enough
        fits = [k for k, b in enumerate(_kept) if b.size >= nbytes]
        buffer = _kept.pop(min(fits, key=lambda k: _kept[k].size)) if fits else None
    if buffer is None:
        buffer = np.empty(max(nbytes, 1), dtype=np.uint8)
    try:
        yield buffer[:nbytes].view(dtype).reshape(shape)
    finally:
        with _lock:
            _kept.append(buffer)
            while len(_kept) > SCRATCH_KEPT or sum(b.size for b in _kept) > SCRATCH_MAX_TOTAL:
                _kept.pop(min(range(len(_kept)), key=lambda k: _kept[k].size))
