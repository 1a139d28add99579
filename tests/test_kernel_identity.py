"""rskpca.core.sigma_checks.kernel_identity: the one "sigma too small for the data" test, and its threshold."""

import numpy as np
import pytest

from rskpca.core.sigma_checks import IDENTITY_KERNEL, kernel_identity, neighbour_distance


@pytest.mark.parametrize("kernel, power", [("gaussian", 2), ("laplacian", 1)])
def test_the_verdict_turns_where_the_kernel_at_the_distance_crosses_the_threshold(kernel, power):
    distance = 2.0
    # the sigma at which the kernel between points `distance` apart is exactly the threshold
    edge = distance / (-np.log(IDENTITY_KERNEL)) ** (1 / power)
    below, above = kernel_identity(None, edge * 0.99, kernel=kernel, distance=distance), \
        kernel_identity(None, edge * 1.01, kernel=kernel, distance=distance)
    assert below.is_identity and bool(below) and below.value < IDENTITY_KERNEL
    assert not above.is_identity and not above and above.value >= IDENTITY_KERNEL
    # the value is the kernel's own at that distance
    assert above.value == pytest.approx(np.exp(-(distance / (edge * 1.01)) ** power), rel=1e-12)


def test_the_threshold_is_a_parameter_and_the_reason_names_the_numbers():
    v = kernel_identity(None, 1.0, distance=3.0)  # exp(-9) = 1.2e-4
    assert not v.is_identity and kernel_identity(None, 1.0, distance=3.0, threshold=1e-3).is_identity
    assert "1.2e-04" in v.reason and "at or above" in v.reason
    assert "below" in kernel_identity(None, 0.1, distance=3.0).reason


def test_on_data_it_asks_at_the_median_distance_between_neighbours():
    X = np.arange(50.0)[:, None] * 0.5  # neighbours 0.5 apart
    assert neighbour_distance(X) == pytest.approx(0.5)
    assert kernel_identity(X, 0.1).is_identity  # exp(-25)
    assert not kernel_identity(X, 0.5).is_identity  # exp(-1)
    assert kernel_identity(X, 0.1).distance == pytest.approx(0.5)


def test_neighbour_distance_samples_rows_but_looks_against_every_row():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(3000, 2))
    full = neighbour_distance(X, max_rows=3000)
    assert neighbour_distance(X, max_rows=500) == pytest.approx(full, rel=0.15)
    assert neighbour_distance(X, max_rows=500) == neighbour_distance(X, max_rows=500)  # seeded
    assert neighbour_distance(np.zeros((4, 2))) == 0.0
    with pytest.raises(ValueError, match="at least 2 rows"):
        neighbour_distance(np.zeros((1, 2)))


def test_tiny_sigmas_and_huge_distances_do_not_overflow():
    with np.errstate(all="raise"):
        assert kernel_identity(None, 1e-300, distance=1e10).value == 0.0
    with pytest.raises(ValueError, match="sigma"):
        kernel_identity(None, 0.0, distance=1.0)


def test_above_the_tree_size_the_blocks_give_the_trees_distances_and_exact_zeros_for_duplicates(monkeypatch):
    import rskpca.core.sigma_checks as checks

    rng = np.random.default_rng(1)
    X = rng.normal(size=(5000, 4))
    X[4000:4100] = X[:100]  # duplicated rows: their nearest other row is 0 away, exactly
    by_tree = checks.neighbour_distance(X, max_rows=400)
    monkeypatch.setattr(checks, "_TREE_MAX_ROWS", 100)
    monkeypatch.setattr(checks, "_NEIGHBOUR_BLOCK_ROWS", 777)  # blocks that split the data unevenly
    monkeypatch.setattr(checks, "_PAIR_BUDGET", 10**12)  # the same 400 rows ask
    assert checks.neighbour_distance(X, max_rows=400) == pytest.approx(by_tree, rel=1e-9)
    rows = np.arange(4000, 4100)
    assert np.all(checks._nearest_other_squared(X, rows) == 0.0)
    # a budget of pairs: fewer rows ask (at least 64), each against every row
    monkeypatch.setattr(checks, "_PAIR_BUDGET", 5000 * 70)
    asked = []
    real = checks._nearest_other_squared
    monkeypatch.setattr(checks, "_nearest_other_squared", lambda arr, r: asked.append(r.size) or real(arr, r))
    checks.neighbour_distance(X)
    assert asked == [70]
