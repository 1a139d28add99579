"""BLAS thread limits at the cost of a context switch, not of a library scan; row blocks on threads.

``threadpoolctl.threadpool_limits`` inspects every loaded shared library on each
call, a cost a small fit would pay at every limit it enters; one controller, made when this
module is imported (after numpy's and scipy's OpenBLAS and scikit-learn's OpenMP runtime, which
it imports for that), only sets the counts. A library loaded later is not limited by it. The
thread count it finds then is "all" (:func:`all_threads`): taken at import, so that the
package's own one-thread limits do not hide it; a limit active while rskpca is imported becomes it.

OpenBLAS (0.3.x) ignores a thread count set from another thread once the process's
main thread has set one. The app's script runs are threads of their own and its main
thread never sets one, so their limits hold there; in a process whose main thread has
set a count (a test run), limits entered on other threads may not.
"""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager, nullcontext

import numpy  # noqa: F401  (both OpenBLAS builds loaded before the controller looks for them)
import scipy.linalg  # noqa: F401
import sklearn.utils._openmp_helpers  # noqa: F401  (and scikit-learn's OpenMP runtime, which its k-means runs on)
from threadpoolctl import ThreadpoolController

__all__ = ["blas_threads", "native_threads_off", "all_threads", "map_row_blocks", "one_thread_per_task"]

_controller = ThreadpoolController()
_all_threads = max([lib.num_threads for lib in _controller.lib_controllers] or [1])
_pool: ThreadPoolExecutor | None = None
_POOL_NAME = "rskpca-blocks"
_one_per_task = 0  # > 0 while some caller runs its own threads (see one_thread_per_task)


def blas_threads(limits: int | str | None):
    """Context manager: at most ``limits`` BLAS threads inside (None: as they are).

    ``"all"``: as many as the libraries had at import (their default, one per core
    unless the user set ``OPENBLAS_NUM_THREADS`` and the like), also inside an
    enclosing one-thread limit.

    BLAS thread counts are process-wide, and the app runs one script thread per browser
    session: the one-thread limit is therefore counted (:func:`_one_thread`), so that
    sections entered and left out of order by different threads neither lift it while one
    of them is still inside nor leave it on when the last one is gone.

    >>> import numpy as np
    >>> with blas_threads(1):
    ...     float(np.ones((2, 2)) @ np.ones(2) @ np.ones(2))
    4.0
    """
    if limits == 1:
        return _one_thread("blas")
    if limits is None:
        return nullcontext()
    if limits == "all":
        limits = _all_threads
    return _controller.limit(limits=limits, user_api="blas")


_one_lock = threading.Lock()
# Callers inside a one-thread section, per kind: "blas" (BLAS only) and "native" (BLAS and OpenMP).
_one_holders = {"blas": 0, "native": 0}
# Every library's thread count when this module was imported: what the last holder restores.
_original_threads = [lib.num_threads for lib in _controller.lib_controllers]


def _apply_one_thread_limits():
    """Set every library to 1 thread where a holder asks for it, to its original count elsewhere.

    Recomputed from the counts on every entry and exit, so sections left in any order by
    different threads leave the right limits behind. Called with ``_one_lock`` held.
    """
    blas = _one_holders["blas"] + _one_holders["native"] > 0
    native = _one_holders["native"] > 0
    for lib, original in zip(_controller.lib_controllers, _original_threads):
        one = blas if lib.user_api == "blas" else native
        wanted = 1 if one else original
        if lib.num_threads != wanted:  # (a property: the library is asked)
            lib.set_num_threads(wanted)


def _enter(kind: str) -> None:
    with _one_lock:
        _one_holders[kind] += 1
        _apply_one_thread_limits()


def _leave(kind: str) -> None:
    with _one_lock:
        _one_holders[kind] -= 1
        _apply_one_thread_limits()


@contextmanager
def _one_thread(kind: str):
    """One thread (in the libraries ``kind`` names) while any caller, on any thread, is inside."""
    _enter(kind)
    try:
        yield
    finally:
        _leave(kind)


def native_threads_off():
    """Context manager: one BLAS thread and one OpenMP thread inside (counted like ``blas_threads(1)``).

    For small fits on a machine shared with other work -- the app's comparisons, with the
    browser on the same cores: scikit-learn's BLAS and OpenMP (k-means) threads wait for
    each other when another process holds a core, so a small fit is faster on one thread
    beside a busy core and no slower on a quiet machine, as measured by the thread rows of
    ``python tests/benchmarks/bench_speed.py --pendigits PATH --skip fit shadow iterative
    projection``. The row-block threads of :func:`map_row_blocks` are not
    affected: they never wait for a core.

    >>> import numpy as np
    >>> with native_threads_off():
    ...     float(np.ones((2, 2)) @ np.ones(2) @ np.ones(2))
    4.0
    """
    return _one_thread("native")


def all_threads() -> int:
    """The BLAS libraries' thread count at import (see :func:`blas_threads`)."""
    return _all_threads


def map_row_blocks(fn, starts) -> None:
    """``fn(start)`` for every start, on the calling thread and up to :func:`all_threads` - 1 helpers.

    For the elementwise passes of an m x m kernel matrix, which numpy runs on one core
    whatever BLAS does (it releases the GIL for them, and for the GEMM): each block's
    GEMM then runs on one BLAS thread, so the threads do not oversubscribe the cores.
    ``fn`` must write disjoint rows. Exceptions propagate (the first one raised).

    The caller takes blocks from the same queue as its helpers and waits only for blocks a
    helper has started: on a busy machine a helper that is not scheduled in time finds the
    queue empty, and the call costs what one thread costs rather than waiting on a helper
    the scheduler has not run (the screen's thread rows of ``python
    tests/benchmarks/bench_speed.py --pendigits PATH`` measure it).

    >>> import numpy as np
    >>> out = np.zeros(6)
    >>> def fill(start):
    ...     out[start:start + 2] = start
    >>> map_row_blocks(fill, range(0, 6, 2)); out.tolist()
    [0.0, 0.0, 2.0, 2.0, 4.0, 4.0]
    """
    global _pool
    starts = list(starts)
    threads = min(all_threads(), len(starts))
    if _one_per_task or threading.current_thread().name.startswith(_POOL_NAME):
        threads = 1  # inside a task that is itself one of many threads: no more of them
    with blas_threads(1):
        if threads <= 1:
            for start in starts:
                fn(start)
            return
        if _pool is None:
            _pool = ThreadPoolExecutor(max_workers=_all_threads, thread_name_prefix=_POOL_NAME)
        _share(fn, starts, threads - 1)


def _share(fn, starts, helpers):
    """Run ``fn`` over ``starts`` here and on ``helpers`` pool threads, from one queue."""
    queue = iter(starts)
    lock = threading.Lock()
    finished = threading.Condition(lock)
    state = {"taken": 0, "done": 0, "error": None}

    def work():
        while True:
            with lock:
                if state["error"] is not None:
                    return
                start = next(queue, _END)
                if start is _END:
                    return
                state["taken"] += 1
            try:
                fn(start)
            except BaseException as exc:  # re-raised by the caller
                with lock:
                    state["error"] = state["error"] or exc
            with lock:
                state["done"] += 1
                finished.notify_all()

    for _ in range(helpers):
        _pool.submit(work)
    work()
    with lock:
        finished.wait_for(lambda: state["done"] == state["taken"])
        if state["error"] is not None:
            raise state["error"]


_END = object()


@contextmanager
def one_thread_per_task():
    """One BLAS thread and no row-block threads inside, for callers that run tasks on threads.

    Dask's threaded scheduler already uses every core; a BLAS pool or a block pool in each
    of its tasks oversubscribes them. Process-wide while active (Dask's threads do not
    inherit a context variable).
    """
    global _one_per_task
    with blas_threads(1):
        _one_per_task += 1
        try:
            yield
        finally:
            _one_per_task -= 1
