"""One m x m scratch buffer kept between reduced-set solves, so that its pages are faulted in once.

A fresh ``np.empty((m, m))`` is mapped from the kernel on first touch: every page is
faulted and zeroed before the kernel matrix's entries can be written into it. On
pendigits (m = 2949, float32, 35 MB; this 2-core virtual machine) the lower half's build
took 7.1 ms into fresh pages and 3.8 ms into pages already mapped, at every fit; the app
and the benchmarks fit the same sizes again and again. :func:`scratch_matrix` lends
the same buffer to one caller at a time (a second caller at once gets a fresh array), and
keeps it only up to :data:`SCRATCH_MAX_BYTES`, so a large problem does not pin its memory
after the fit. ``python -m rskpca.evaluation.bench_speed --pendigits PATH`` prints the "scratch buffer" row.
"""

from __future__ import annotations

import threading
from contextlib import contextmanager

import numpy as np

__all__ = ["scratch_matrix", "SCRATCH_MAX_BYTES"]

#: Largest buffer kept between solves: 64 MiB, an m x m float32 matrix up to m = 4096.
SCRATCH_MAX_BYTES = 64 * 2**20

_lock = threading.Lock()
_kept: np.ndarray | None = None  # flat bytes, free to lend when not None


@contextmanager
def scratch_matrix(shape, dtype):
    """Context manager: an uninitialised array of ``shape`` and ``dtype``, the kept buffer's if free.

    The array must not be used after the ``with`` block: the next caller writes into it.

    >>> with scratch_matrix((2, 3), np.float32) as A:
    ...     A[...] = 1.0
    ...     float(A.sum())
    6.0
    """
    global _kept
    dtype = np.dtype(dtype)
    nbytes = int(np.prod(shape)) * dtype.itemsize
    if nbytes > SCRATCH_MAX_BYTES:
        yield np.empty(shape, dtype=dtype)
        return
    with _lock:
        buffer, _kept = _kept, None
    if buffer is None or buffer.size < nbytes:
        buffer = np.empty(nbytes, dtype=np.uint8)
    try:
        yield buffer[:nbytes].view(dtype).reshape(shape)
    finally:
        with _lock:
            if _kept is None or _kept.size < buffer.size:
                _kept = buffer
