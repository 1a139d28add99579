"""The compiled shadow scan (rskpca.core.shadow._compiled): its exact predicate has numpy's bits, and its centers and labels are
the literal Algorithm 2's (and the GEMM screen's) on clustered, offset, tie-heavy and spread data."""

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from hypothesis.extra.numpy import arrays

from reference import literal_shadow
from rskpca import shadow_centers
from rskpca.core.shadow import _compiled as _shadow_compiled
from rskpca.core.shadow._compiled import compiled_earliest_center, compiled_scan, exact_squared_distance
from rskpca.core.shadow._screen import blas_earliest_center
from rskpca.core.shadow import exact_squared_distances


@settings(max_examples=300, deadline=None)
@given(d=st.integers(1, 700), seed=st.integers(0, 2**32 - 1), spread=st.floats(1e-3, 1e6))
def test_the_compiled_distance_has_numpys_bits(d, seed, spread):
    # numpy sums a row pairwise (8 accumulators up to 128 terms, halves above): the compiled
    # predicate must give the same float64, or a tie at eps could be decided differently.
    rng = np.random.default_rng(seed)
    x, c = rng.standard_normal(d) * spread, rng.standard_normal(d) * rng.uniform(0, spread)
    assert exact_squared_distance(x, c) == exact_squared_distances(x, c[None])[0]


def _same(X, eps):
    got = shadow_centers(X, sigma=eps * 2.0, ell=2.0, algorithm="compiled")
    assert got.algorithm == "compiled"
    centers, weights, labels = literal_shadow(X, got.eps)
    np.testing.assert_array_equal(got.center_indices, centers)
    np.testing.assert_array_equal(got.weights, weights)
    np.testing.assert_array_equal(got.labels, labels)
    return got


@pytest.mark.parametrize("d", [4, 9, 16, 40, 130])
def test_compiled_equals_literal_on_clusters(d):
    rng = np.random.default_rng(d)
    X = np.concatenate([rng.normal(c, 1.0, size=(300, d)) for c in (0.0, 3.0, 8.0)])
    rng.shuffle(X)
    for eps in (0.5 * np.sqrt(d), np.sqrt(d), 2.0 * np.sqrt(d)):
        _same(X, eps)


def test_compiled_on_data_far_from_the_origin():
    # A large offset against a small spread: the projections' rounding margin must still hold.
    rng = np.random.default_rng(3)
    X = 1e8 + rng.normal(size=(2000, 6)) * 1e-3
    for eps in (5e-4, 2e-3, 1e-2):
        _same(X, eps)


def test_compiled_with_few_cells_allowed(monkeypatch):
    # Spread-out data with a tiny eps would need more cells than allowed: fewer axes, then
    # wider cells. The result may not change.
    monkeypatch.setattr(_shadow_compiled, "_MAX_CELLS", 50)
    rng = np.random.default_rng(4)
    X = rng.uniform(-100, 100, size=(1500, 3))
    got = _same(X, 3.0)
    assert got.m > 100


def dyadic_rows(max_rows):
    """Up to ``max_rows`` rows of 1-10 dyadic coordinates: distances hit eps exactly all the time."""
    return st.integers(1, max_rows).flatmap(lambda n: st.integers(1, 10).flatmap(
        lambda d: arrays(np.float64, (n, d), elements=st.sampled_from([-1.0, -0.5, 0.0, 0.25, 0.5, 1.0, 2.0]))))


@settings(max_examples=150, deadline=None)
@given(
    X=dyadic_rows(60),
    eps=st.sampled_from([0.25, 0.5, 1.0, 1.5, 3.0]),
)
def test_compiled_equals_literal_on_tie_heavy_inputs(X, eps):
    # Dyadic coordinates: distances hit eps exactly all the time, in up to 10 dimensions.
    _same(X, eps)


@pytest.mark.parametrize("max_cells", [None, 50])
def test_compiled_screen_equals_the_gemm_screen(monkeypatch, max_cells):
    # The distributed shadow's screen step: each row's earliest center within eps, against the
    # first shadow centers and against arbitrary rows (some within eps of each other, duplicates).
    if max_cells:
        monkeypatch.setattr(_shadow_compiled, "_MAX_CELLS", max_cells)
    rng = np.random.default_rng(7)
    for d in (2, 9, 16):
        X = np.concatenate([rng.normal(c, 1.0, size=(400, d)) for c in (0.0, 3.0, 9.0)])
        eps = 0.8 * np.sqrt(d)
        first = shadow_centers(X[:500], sigma=eps, ell=1.0).centers
        for C in (first, X[rng.integers(0, X.shape[0], 60)]):
            got = compiled_earliest_center(X, C, eps)
            np.testing.assert_array_equal(got, blas_earliest_center(X, C, eps))
            assert (got == -1).any() and (got >= 0).any()


def test_compiled_refuses_data_it_cannot_project():
    X = np.array([[0.0], [1e-300], [1e300]])
    with pytest.raises(ValueError, match="algorithm='blas'"):
        shadow_centers(X, sigma=1e-3, ell=1.0, algorithm="compiled")
    assert compiled_scan(X, 1e-3) is None


def test_the_app_loads_the_compiled_scan_once_before_its_first_shadow():
    from rskpca.ui import compute

    assert compute.compiled_shadow_ready() == "compiled"


def test_the_grid_has_at_most_a_few_cells_per_row():
    # 1,500 rows spread over a cube 70 eps wide would need 72^3 cells of side eps: the grid takes
    # fewer axes or wider cells instead (at most 8 per row), and the shadow is unchanged.
    rng = np.random.default_rng(6)
    X = rng.uniform(-100, 100, size=(1500, 3))
    P, _ = _shadow_compiled._principal_frame(X)
    _, cell_start, _ = _shadow_compiled._grid(P, 3.0, 3)
    assert cell_start.size - 2 <= max(_shadow_compiled._MIN_CELLS, 8 * 1500)
    _same(X, 3.0)


def _threaded_everywhere(monkeypatch, chunk, block):
    """Every scan takes the threaded path (chunks of ``chunk`` rows screened ``block`` rows at a time)."""
    monkeypatch.setattr(_shadow_compiled, "_THREADED_MIN_ROWS", 1)
    monkeypatch.setattr(_shadow_compiled, "_CHUNK_ROWS", chunk)
    monkeypatch.setattr(_shadow_compiled, "_SCREEN_BLOCK_ROWS", block)
    monkeypatch.setattr(_shadow_compiled, "all_threads", lambda: 2)


@settings(max_examples=100, deadline=None)
@given(
    X=dyadic_rows(80),
    eps=st.sampled_from([0.25, 0.5, 1.0, 1.5, 3.0]),
    chunk=st.integers(1, 20),
    block=st.integers(1, 7),
)
def test_the_threaded_scan_equals_the_literal_algorithm_on_tie_heavy_inputs(X, eps, chunk, block):
    # (hypothesis runs the examples inside one test call: the patch is undone by hand)
    with pytest.MonkeyPatch.context() as monkeypatch:
        _threaded_everywhere(monkeypatch, chunk, block)
        _same(X, eps)


@pytest.mark.parametrize("order", ["shuffled", "by cluster"])
def test_the_threaded_scan_equals_the_sequential_one(monkeypatch, order):
    # Rows sorted by cluster leave most of each chunk unabsorbed by the centers before it: the
    # in-order pass over those rows must still decide as the sequential scan does.
    rng = np.random.default_rng(8)
    X = np.concatenate([rng.normal(c, 1.0, size=(1500, 5)) for c in (0.0, 4.0, 9.0, 15.0)])
    if order == "shuffled":
        rng.shuffle(X)
    for eps in (0.5, 1.5, 4.0):
        expected = compiled_scan(X, eps)
        _threaded_everywhere(monkeypatch, 500, 128)
        got = compiled_scan(X, eps)
        monkeypatch.undo()
        np.testing.assert_array_equal(got[0], expected[0])
        np.testing.assert_array_equal(got[1], expected[1])
    _threaded_everywhere(monkeypatch, 500, 128)
    _same(X, 1.5)
