"""The one-thread limits of rskpca/core/threads.py, checked in a process of their own (tests/test_threads.py).

BLAS and OpenMP thread counts are process-wide: each function here runs in a fresh interpreter
so that what earlier tests did to them cannot decide the result.
"""

import pytest

from rskpca.core import threads as _threads


def _counts(api=None):
    return [lib.num_threads for lib in _threads._controller.lib_controllers if api in (None, lib.user_api)]


def limits_left_out_of_order_restore_the_count():
    # Two script threads (two browser sessions) enter one-thread sections and leave them in the
    # other order: the limit holds while either is inside and is lifted after the last (a plain
    # save-and-restore would leave it at 1 for good).
    before = _counts("blas")
    first, second = _threads.blas_threads(1), _threads.blas_threads(1)
    first.__enter__()
    second.__enter__()
    first.__exit__(None, None, None)
    assert set(_counts("blas")) <= {1}, "lifted while the second session was still inside"
    second.__exit__(None, None, None)
    assert _counts("blas") == before


def limit_released_when_the_section_raises():
    before = _counts()
    with pytest.raises(RuntimeError):
        with _threads.blas_threads(1):
            raise RuntimeError("inside")
    assert _counts() == before
    assert _threads._one_holders == {"blas": 0, "native": 0}


def native_off_limits_blas_and_openmp():
    before = {api: _counts(api) for api in ("blas", "openmp")}
    if max(sum(before.values(), [])) < 2:
        print("skip")
        return
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


def apps_fits_run_on_one_native_thread():
    # the browser shares the cores: the app's comparison fits hold one BLAS and OpenMP thread
    import numpy as np

    from rskpca.ui.compute import fits

    seen = []

    def spy(*args, **kwargs):
        seen.append(set(_counts("blas") + _counts("openmp")))
        raise ValueError("stop here")

    fits.fit_method = fits.fit_exact = spy
    X = np.random.default_rng(0).normal(size=(30, 2))
    for call in (lambda: fits.method_result.__wrapped__("d", X, "nystrom", 1.0, "gaussian", 2, 3.0, 10),
                 lambda: fits.exact_reference.__wrapped__("d", X, 1.0, "gaussian", 2)):
        with pytest.raises(ValueError, match="stop here"):
            call()
    assert seen == [{1}, {1}]
