"""Scratch arrays kept between calls: each lent to one caller at a time, kept only up to their
size and number limits, and invisible in the results."""

import threading

import numpy as np
import pytest

from rskpca.core import _scratch
from rskpca.core._scratch import scratch_array
from rskpca.core.eigen import kpca_on_centers
from rskpca.core.weighted_kernel import weighted_kernel_blocks, weighted_kernel_matrix


@pytest.fixture(autouse=True)
def empty_scratch(monkeypatch):
    monkeypatch.setattr(_scratch, "_kept", [])


def test_the_same_memory_is_lent_again_once_given_back():
    with scratch_array((40, 40), np.float32) as A:
        address = A.__array_interface__["data"][0]
    with scratch_array((20, 20), np.float64) as B:  # fewer bytes: the kept buffer serves it
        assert B.shape == (20, 20) and B.dtype == np.float64 and B.flags.c_contiguous
        assert B.__array_interface__["data"][0] == address


def test_a_second_caller_at_once_gets_its_own_array():
    with scratch_array((20, 20), np.float32) as A, scratch_array((20, 20), np.float32) as B:
        assert not np.shares_memory(A, B)


def test_the_larger_buffer_is_kept():
    with scratch_array((10, 10), np.float32):
        pass
    with scratch_array((50, 50), np.float32):
        pass
    assert sorted(b.nbytes for b in _scratch._kept) == [10 * 10 * 4, 50 * 50 * 4]
    small = min(_scratch._kept, key=len).__array_interface__["data"][0]
    with scratch_array((8, 8), np.float32) as A:  # the smallest that fits is lent
        assert A.__array_interface__["data"][0] == small


def test_at_most_so_many_buffers_are_kept_the_largest(monkeypatch):
    monkeypatch.setattr(_scratch, "SCRATCH_KEPT", 2)
    from contextlib import ExitStack
    with ExitStack() as stack:  # three at once: three buffers
        for size in (10, 30, 20):
            stack.enter_context(scratch_array((size,), np.float64))
    assert sorted(b.nbytes for b in _scratch._kept) == [20 * 8, 30 * 8]


def test_nothing_above_the_limit_is_kept(monkeypatch):
    monkeypatch.setattr(_scratch, "SCRATCH_MAX_BYTES", 1000)
    with scratch_array((100, 100), np.float32) as A:
        A[...] = 1.0
    assert _scratch._kept == []


def test_threads_each_get_their_own_matrix():
    # eight threads fill and check their matrix at once: a shared one would mix their values
    errors, barrier = [], threading.Barrier(8)

    def work(value):
        with scratch_array((64, 64), np.float64) as A:
            A[...] = value
            barrier.wait()
            if not np.all(A == value):
                errors.append(value)

    threads = [threading.Thread(target=work, args=(float(v),)) for v in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []


@pytest.mark.parametrize("build", [weighted_kernel_matrix, weighted_kernel_blocks])
def test_builds_fill_the_given_array(build):
    rng = np.random.default_rng(0)
    C, w = rng.normal(size=(90, 3)), rng.integers(1, 9, 90).astype(float)
    fresh = build(C, w, sigma=1.5, dtype=np.float32)
    out = np.full((90, 90), np.nan, dtype=np.float32)
    got = build(C, w, sigma=1.5, dtype=np.float32, out=out)
    got_dense = got if build is weighted_kernel_matrix else got.to_dense()
    fresh_dense = fresh if build is weighted_kernel_matrix else fresh.to_dense()
    np.testing.assert_array_equal(got_dense, fresh_dense)
    assert np.shares_memory(got if build is weighted_kernel_matrix else got.data, out)


@pytest.mark.parametrize("out", [np.empty((90, 91), np.float32), np.empty((90, 90), np.float64),
                                 np.empty((90, 180), np.float32)[:, ::2]])
def test_builds_refuse_an_array_of_the_wrong_kind(out):
    C, w = np.zeros((90, 2)), np.ones(90)
    with pytest.raises(ValueError, match="out must be"):
        weighted_kernel_matrix(C, w, sigma=1.0, dtype=np.float32, out=out)


def test_solves_give_the_same_answer_with_the_buffer_reused():
    # a solve writes its kernel into the buffer the previous solve used: the answer must not
    # depend on what that buffer held (a second, different problem in between)
    rng = np.random.default_rng(1)
    C, w = rng.normal(size=(2100, 3)), rng.integers(1, 20, 2100).astype(float)
    first = kpca_on_centers(C, w, 4, sigma=2.0, random_state=np.random.RandomState(0))
    kpca_on_centers(C[::-1] * 3, w, 4, sigma=2.0, random_state=np.random.RandomState(0))
    again = kpca_on_centers(C, w, 4, sigma=2.0, random_state=np.random.RandomState(0))
    assert first.solver == again.solver == "block-float32"
    np.testing.assert_array_equal(first.eigenvalues, again.eigenvalues)
    np.testing.assert_array_equal(first.dual_coef, again.dual_coef)


def test_the_kept_bytes_stay_within_their_total(monkeypatch):
    monkeypatch.setattr(_scratch, "SCRATCH_MAX_TOTAL", 1000)
    from contextlib import ExitStack
    with ExitStack() as stack:
        for size in (100, 50, 60):  # float64: 800, 400, 480 bytes
            stack.enter_context(scratch_array((size,), np.float64))
    assert sum(b.nbytes for b in _scratch._kept) <= 1000
    assert [b.nbytes for b in _scratch._kept] == [800]  # the largest that fits alone stays
