"""The in-order step the screen and the table share (rskpca.core.shadow._in_order): points no older
center covers, decided among themselves as a plain loop in visiting order would."""

import numpy as np
import pytest

from rskpca.core.shadow._in_order import resolve_in_order


@pytest.mark.parametrize("chains", [False, True])
def test_resolve_in_order_matches_a_plain_loop(chains):
    rng = np.random.default_rng(0)
    k = 400
    pairs = {(int(j), int(i)) for j, i in rng.integers(0, k, size=(1500, 2)) if i < j}
    if chains:  # each point's predecessor too (sorted 1-d data): far longer chains than the vectorised rounds
        pairs |= {(j, j - 1) for j in range(1, k)}
    later = np.array([p[0] for p in pairs])
    earlier = np.array([p[1] for p in pairs])
    is_center, owner = resolve_in_order(k, later, earlier)
    expect_center = np.ones(k, dtype=bool)
    expect_owner = np.arange(k)
    for j in range(k):
        nb = sorted(i for (jj, i) in pairs if jj == j and expect_center[i])
        if nb:
            expect_center[j] = False
            expect_owner[j] = nb[0]
    np.testing.assert_array_equal(is_center, expect_center)
    np.testing.assert_array_equal(owner, expect_owner)


def test_without_pairs_every_point_is_a_center():
    is_center, owner = resolve_in_order(5, np.empty(0, dtype=np.intp), np.empty(0, dtype=np.intp))
    assert is_center.all() and owner.tolist() == [0, 1, 2, 3, 4]
