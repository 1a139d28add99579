"""The compiled float32 exponential of the Gaussian blocks (rskpca.core.exp_float32) against float64's exp."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from rskpca.core.exp_float32 import exp_shifted_float32
from rskpca.core.radial_kernels import float32_relative_error, fused_gaussian_block, kernel_matvec

U = 2.0 ** -24  # float32's unit roundoff
SUBNORMAL_STEP = 2.0 ** -149  # below 2^-126 float32 keeps fewer bits: values are this far apart


def _exp(values, u_left=None, u_right=None):
    out = np.array(values, dtype=np.float32).reshape(1, -1) if np.ndim(values) < 2 else values.astype(np.float32)
    u_left = np.zeros(out.shape[0], np.float32) if u_left is None else u_left
    return exp_shifted_float32(out, u_left, u_right)


def test_within_two_roundoffs_of_the_exact_exp_over_the_normal_range():
    # the module says 1.5 u over every float32 exponent in [-87, 88] (tests/benchmarks/bench_exp_float32.py
    # checks them all); here a dense sample, the ends and the points where the range reduction switches k
    rng = np.random.default_rng(0)
    switches = (np.arange(-125, 128) + 0.5) * np.log(2.0)
    x = np.concatenate([rng.uniform(-87, 88, 2_000_000), np.linspace(-1, 1, 100_001), switches[np.abs(switches) < 87],
                        np.nextafter(switches[np.abs(switches) < 87], 0), [-87.0, 0.0, -0.0, 88.0]]).astype(np.float32)
    got = _exp(x)[0].astype(np.float64)
    exact = np.exp(x.astype(np.float64))
    assert np.max(np.abs(got - exact) / exact) <= 2 * U


def test_subnormals_zero_and_infinity_as_numpy_gives_them():
    x = np.float32([-87.5, -95.0, -103.0, -103.9, -104.0, -104.5, -200.0, -np.inf, 88.7, 88.8, 1e30, np.inf])
    got = _exp(x)[0]
    with np.errstate(over="ignore"):
        expected = np.exp(x.astype(np.float64)).astype(np.float32)  # float64's exp rounded once to float32
    tiny = expected < np.finfo(np.float32).tiny
    assert np.all(np.abs(got[tiny].astype(np.float64) - expected[tiny]) <= SUBNORMAL_STEP)
    assert np.all(got[x <= -104] == 0)
    assert np.all(np.isinf(got[x > 88.73])) and np.all(got[x > 88.73] > 0)
    assert abs(float(got[x == np.float32(88.7)][0]) / float(np.exp(np.float64(np.float32(88.7)))) - 1) <= 2 * U


@settings(max_examples=50, deadline=None)
@given(arrays(np.float32, st.tuples(st.integers(1, 5), st.integers(1, 40)), elements=st.floats(-60, 5, width=32)),
       st.data())
def test_the_shifts_are_added_as_numpy_adds_them_then_exponentiated(block, data):
    n, m = block.shape
    u_left = data.draw(arrays(np.float32, n, elements=st.floats(-30, 10, width=32)))
    u_right = data.draw(arrays(np.float32, m, elements=st.floats(-30, 10, width=32)))
    expected = np.exp(((block + u_left[:, None]) + u_right[None, :]).astype(np.float64))
    got = _exp(block.copy(), u_left, u_right)
    assert got.dtype == np.float32 and got.shape == (n, m)
    assert np.all(np.abs(got - expected) <= 2 * U * expected + SUBNORMAL_STEP)
    left_only = np.exp((block + u_left[:, None]).astype(np.float64))
    assert np.all(np.abs(_exp(block.copy(), u_left) - left_only) <= 2 * U * left_only + SUBNORMAL_STEP)


@pytest.mark.parametrize("sigma", [0.3, 2.0])
def test_float32_projections_stay_within_their_error_bound(sigma):
    # the fused block's bound (gaussian_relative_error) already allows the exp a few roundoffs
    rng = np.random.default_rng(1)
    X, C = rng.normal(size=(700, 5)), rng.normal(size=(300, 5))
    V = rng.random((300, 3))
    exact = kernel_matvec(X, C, V, sigma=sigma)
    fast = kernel_matvec(X.astype(np.float32), C, V, sigma=sigma, dtype=np.float32)
    bound = float32_relative_error(np.vstack([C, X]), sigma)
    assert np.all(np.abs(fast - exact) <= bound * exact + 1e-30)


def test_a_block_that_is_not_float32_or_contiguous_takes_numpys_exp():
    x, y = np.array([[0.0], [1.0]]), np.array([[1.0]])
    out64 = fused_gaussian_block(np.empty((2, 1)), x, 2 * y, -x[:, 0] ** 2, -y[:, 0] ** 2)
    assert np.allclose(out64[:, 0], np.exp(-(x[:, 0] - 1.0) ** 2), rtol=1e-15)
    strided = np.empty((2, 2), dtype=np.float32)[:, :1]
    out32 = fused_gaussian_block(strided, x.astype(np.float32), (2 * y).astype(np.float32),
                                 (-x[:, 0] ** 2).astype(np.float32), (-y[:, 0] ** 2).astype(np.float32))
    assert np.allclose(out32[:, 0], np.exp(-(x[:, 0] - 1.0) ** 2), rtol=1e-6)
