"""The thread helpers (rskpca/core/threads.py) neither hide errors nor deadlock, their BLAS and OpenMP
limits are lifted after the last holder, the shadow's screen split over threads gives the one-thread
result, and the app's fits run on one native thread. (That the kernel, weighted-kernel and eigensolver
passes give the same bits on one or several threads is tested beside each: tests/test_kernels.py,
tests/test_weighted_kernel.py, tests/test_eigen.py; the `threads` fixture is in conftest.py.)"""

import threading
import time

import numpy as np
import pytest

from rskpca.core import threads as _threads


@pytest.fixture(autouse=True)
def _libraries_at_their_original_thread_counts():
    """Start each test from the libraries' own thread counts, with no one-thread holder.

    OpenBLAS's thread count is process-wide. An earlier test that ran the package's kernels on
    Dask's threaded scheduler (tests/test_spectral.py) has, in rare runs, left it at 1 with no
    holder inside; these tests check the counting from a known start, not that earlier run.
    """
    assert _threads._one_holders == {"blas": 0, "native": 0}, "a one-thread section was left open"
    for lib, original in zip(_threads._controller.lib_controllers, _threads._original_threads):
        lib.set_num_threads(original)
    yield


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


def test_one_thread_limits_left_out_of_order_by_two_sessions_restore_the_count():
    # Two script threads (two browser sessions) enter one-thread sections and leave them in the
    # other order: the limit holds while either is inside and is lifted after the last (BLAS
    # thread counts are process-wide; a plain save-and-restore left it at 1 for good).
    def blas_counts():
        return [lib.num_threads for lib in _threads._controller.lib_controllers
                if lib.user_api == "blas"]
    before = blas_counts()
    first, second = _threads.blas_threads(1), _threads.blas_threads(1)
    first.__enter__()
    second.__enter__()
    first.__exit__(None, None, None)
    assert set(blas_counts()) <= {1}, "lifted while the second session was still inside"
    second.__exit__(None, None, None)
    assert blas_counts() == before


def test_one_thread_limit_is_released_when_the_section_raises():
    before = [lib.num_threads for lib in _threads._controller.lib_controllers]
    with pytest.raises(RuntimeError):
        with _threads.blas_threads(1):
            raise RuntimeError("inside")
    assert [lib.num_threads for lib in _threads._controller.lib_controllers] == before
    assert _threads._one_holders == {"blas": 0, "native": 0}


def _counts(api):
    return [lib.num_threads for lib in _threads._controller.lib_controllers if lib.user_api == api]


def test_native_threads_off_limits_blas_and_openmp_and_a_blas_limit_only_blas():
    before = {api: _counts(api) for api in ("blas", "openmp")}
    if max(sum(before.values(), [])) < 2:
        pytest.skip("the libraries run one thread here already")
    with _threads.native_threads_off():
        assert set(_counts("blas") + _counts("openmp")) == {1}
        with _threads.blas_threads(1):
            pass
        assert set(_counts("openmp")) == {1}, "leaving an inner BLAS limit lifted the OpenMP one"
    assert {api: _counts(api) for api in before} == before
    # out of order across two threads (two sessions): the BLAS limit stays while either is inside
    native, blas = _threads.native_threads_off(), _threads.blas_threads(1)
    native.__enter__()
    blas.__enter__()
    native.__exit__(None, None, None)
    assert set(_counts("blas")) == {1} and _counts("openmp") == before["openmp"]
    blas.__exit__(None, None, None)
    assert {api: _counts(api) for api in before} == before


def test_the_apps_fits_run_on_one_native_thread(monkeypatch):
    # the browser shares the cores: the app's comparison fits hold one BLAS and OpenMP thread
    from rskpca.ui.compute import fits

    seen = []

    def spy(*args, **kwargs):
        seen.append(set(_counts("blas") + _counts("openmp")))
        raise ValueError("stop here")

    monkeypatch.setattr(fits, "fit_method", spy)
    monkeypatch.setattr(fits, "fit_exact", spy)
    X = np.random.default_rng(0).normal(size=(30, 2))
    for call in (lambda: fits.method_result.__wrapped__("d", X, "nystrom", 1.0, "gaussian", 2, 3.0, 10),
                 lambda: fits.exact_reference.__wrapped__("d", X, 1.0, "gaussian", 2)):
        with pytest.raises(ValueError, match="stop here"):
            call()
    assert seen == [{1}, {1}]
