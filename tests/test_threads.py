"""The thread helpers (rskpca/core/threads.py) neither hide errors nor deadlock, their BLAS and OpenMP
limits are lifted after the last holder, the shadow's screen split over threads gives the one-thread
result, and the app's fits run on one native thread. (That the kernel, weighted-kernel and eigensolver
passes give the same bits on one or several threads is tested beside each: tests/test_kernels.py,
tests/test_weighted_kernel.py, tests/test_eigen.py; the `threads` fixture is in conftest.py.)"""

import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest

from rskpca.core import threads as _threads


def test_map_row_blocks_runs_every_block_and_propagates_errors(threads):
    threads(3)
    seen = []
    _threads.map_row_blocks(seen.append, range(7))
    assert sorted(seen) == list(range(7))

    def boom(start):
        if start == 2:
            raise ValueError("block 2 failed")
    with pytest.raises(ValueError, match="block 2 failed"):
        _threads.map_row_blocks(boom, range(4))


def test_nested_map_row_blocks_runs_in_place_instead_of_deadlocking(threads):
    threads(2)
    out = np.zeros((4, 4))

    def outer(i):
        def inner(j):
            out[i, j] = i * 10 + j
        _threads.map_row_blocks(inner, range(4))  # both pool threads busy here: must not wait on the pool
    _threads.map_row_blocks(outer, range(4))
    assert out.tolist() == [[i * 10 + j for j in range(4)] for i in range(4)]


def test_one_thread_per_task_keeps_blocks_in_the_calling_thread(threads):
    threads(4)
    names = set()
    with _threads.one_thread_per_task():
        _threads.map_row_blocks(lambda start: names.add(threading.current_thread().name), range(8))
    assert names == {threading.current_thread().name}

    def slow(start):
        time.sleep(0.02)  # long enough for the helpers to start and take some blocks
        names.add(threading.current_thread().name)
    _threads.map_row_blocks(slow, range(8))
    assert any(name.startswith("rskpca-blocks") for name in names)  # and back to threads after it


def test_helpers_that_never_start_do_not_hold_the_call(threads, monkeypatch):
    # On a busy machine the pool's threads may not run for a while: the caller must not wait
    # for them to start, only for blocks they took.
    class Stalled:
        def submit(self, fn):
            pass  # never runs
    threads(2)
    monkeypatch.setattr(_threads, "_pool", Stalled())
    done = []
    _threads.map_row_blocks(done.append, range(5))
    assert done == [0, 1, 2, 3, 4]


def test_shadow_screen_parts_on_threads_give_the_one_thread_result(threads, monkeypatch):
    # blocks above 2 x 512 rows are screened in parts, shared with a helper thread (which
    # takes a part only if it starts in time: the split itself is what is checked)
    from rskpca.core.shadow import _screen as _shadow_screen
    from rskpca.core.shadow import shadow_centers
    X = np.random.default_rng(8).normal(size=(30_000, 6))
    threads(1)
    one = shadow_centers(X, sigma=3.0, ell=1.5, algorithm="blas")
    blocks, parts = [], []
    real_block, real_part = _shadow_screen._earliest_center_on_threads, _shadow_screen._earliest_center

    def spy_block(Pa, X_, block, *rest):
        blocks.append(block.size)
        return real_block(Pa, X_, block, *rest)

    def spy_part(Pa, X_, block, *rest):
        parts.append(block.size)
        return real_part(Pa, X_, block, *rest)
    monkeypatch.setattr(_shadow_screen, "_earliest_center_on_threads", spy_block)
    monkeypatch.setattr(_shadow_screen, "_earliest_center", spy_part)
    threads(2)
    two = shadow_centers(X, sigma=3.0, ell=1.5, algorithm="blas")
    assert len(parts) > len(blocks) and sum(parts) == sum(blocks)
    np.testing.assert_array_equal(one.labels, two.labels)
    np.testing.assert_array_equal(one.center_indices, two.center_indices)


def _check_in_a_fresh_interpreter(name):
    # BLAS and OpenMP thread counts are process-wide, and OpenBLAS's can be left changed by earlier
    # tests that ran the package's kernels on Dask's threads: each check starts from a new process.
    result = subprocess.run([sys.executable, "-c", f"import thread_limit_checks as c; c.{name}()"],
                            cwd=Path(__file__).parent, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout


def test_one_thread_limits_left_out_of_order_by_two_sessions_restore_the_count():
    _check_in_a_fresh_interpreter("limits_left_out_of_order_restore_the_count")


def test_one_thread_limit_is_released_when_the_section_raises():
    _check_in_a_fresh_interpreter("limit_released_when_the_section_raises")


def test_native_threads_off_limits_blas_and_openmp_and_a_blas_limit_only_blas():
    if "skip" in _check_in_a_fresh_interpreter("native_off_limits_blas_and_openmp"):
        pytest.skip("the libraries run one thread here already")


def test_the_apps_fits_run_on_one_native_thread():
    _check_in_a_fresh_interpreter("apps_fits_run_on_one_native_thread")
