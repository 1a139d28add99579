"""The compiled passes of the landmark graph against the numpy lines they replace."""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rskpca.core import landmark_kernels as lk
from rskpca.core.log_space import row_softmax

SHAPES = dict(n=st.integers(1, 40), m=st.integers(1, 30), d=st.integers(1, 6), seed=st.integers(0, 10_000),
              integer=st.booleans())


def _draw(rng, size, integer):
    return rng.integers(0, 3, size=size).astype(float) if integer else rng.normal(size=size)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(**SHAPES, k=st.integers(1, 8))
def test_smallest_of_rows_and_by_products_are_the_k_smallest_ties_to_the_lower_index(n, m, d, seed, integer, k):
    rng = np.random.default_rng(seed)
    k = min(k, m)
    X, C = _draw(rng, (n, d), integer), _draw(rng, (m, d), integer)
    mean = C.mean(axis=0)
    Ct = np.ascontiguousarray((C - mean).T)
    c2 = np.einsum("ji,ji->i", Ct, Ct)
    G = (X - mean) @ Ct
    by_products, of_rows = np.empty((n, k), np.int64), np.empty((n, k), np.int64)
    lk.smallest_by_products(G, c2, k, by_products, 0)
    lk.smallest_of_rows(np.ascontiguousarray(X), mean, Ct, c2, k, of_rows)
    for i in range(n):
        # the k smallest values, each list's own values (the two round differently), ties to the lower index
        v = c2 - 2.0 * G[i]
        assert by_products[i].tolist() == np.lexsort((np.arange(m), v))[:k].tolist()
        w = c2 + ((X[i] - mean) * -2.0) @ Ct
        assert np.allclose(np.sort(w[of_rows[i]]), np.sort(w)[:k], rtol=0, atol=1e-9)


@settings(max_examples=30, deadline=None)
@given(**SHAPES)
def test_the_rows_nearest_representative_and_prefix_lengths(n, m, d, seed, integer):
    rng = np.random.default_rng(seed)
    X, P = _draw(rng, (n, d), integer), _draw(rng, (m, d), integer)
    near, r = np.empty(n, np.int64), np.empty(n)
    lk.nearest_representative(np.ascontiguousarray(X), np.ascontiguousarray(P.T), near, r, 0, n)
    sq = ((X[:, None, :] - P[None, :, :]) ** 2).sum(axis=2)
    np.testing.assert_array_equal(near, sq.argmin(axis=1))  # ties: the lowest index, as argmin
    np.testing.assert_allclose(r, np.sqrt(sq.min(axis=1)), rtol=1e-12, atol=1e-12)
    D = np.sort(rng.random((m, 7)), axis=1)
    radius = rng.random(n) * 1.2
    length = np.empty(n, np.int64)
    lk.prefix_lengths(D, near, radius, length)
    np.testing.assert_array_equal(length, [np.searchsorted(D[near[i]], radius[i], side="right") for i in range(n)])


@pytest.mark.parametrize("far", [0.0, 1e3])
def test_landmark_weights_column_moments_and_nearest_unit_row(far):
    rng = np.random.default_rng(0)
    n, K, m, k = 200, 5, 30, 4
    dist = np.sort(rng.random((n, K)), axis=1) + far  # far: every kernel value would underflow without the shift
    V = lk.landmark_weights(dist, 1.0 / (2.0 * 0.3**2))
    np.testing.assert_allclose(V, row_softmax(-(dist**2 - dist[:, :1] ** 2) / (2.0 * 0.3**2)), rtol=1e-12)
    idx = rng.integers(0, m, (n, K)).astype(np.int32)
    coef, r = rng.normal(size=(m, k)), rng.random(n)
    U = np.einsum("ia,iaj->ij", V, coef[idx])
    mass, peak = lk.column_moments(idx, V, r, coef)
    np.testing.assert_allclose(mass, (r[:, None] * U**2).sum(axis=0), rtol=1e-12)
    np.testing.assert_allclose(peak, (r[:, None] * U**4).sum(axis=0), rtol=1e-12)
    E, centers = rng.normal(size=(n, k)), rng.normal(size=(6, k + 1))
    out = np.empty(n, np.intp)
    lk.nearest_unit_row(E, centers, out)
    F = np.column_stack([np.ones(n), E])
    F /= np.linalg.norm(F, axis=1, keepdims=True)
    np.testing.assert_array_equal(out, ((F[:, None, :] - centers[None]) ** 2).sum(axis=2).argmin(axis=1))
