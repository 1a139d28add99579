"""The shadow one batch at a time (rskpca.core.shadow.StreamingShadow): equal to shadow_centers on all
rows, bit for bit, whatever the batch sizes. (ReducedSetKPCA.partial_fit, which runs on it, is tested
in tests/test_distributed.py.)"""

import numpy as np
import pytest

from rskpca import shadow_centers
from rskpca.core.shadow import StreamingShadow


def _data():
    rng = np.random.default_rng(4)
    X = np.concatenate([rng.normal(c, 0.5, size=(400, 3)) for c in (0.0, 3.0, 8.0)])
    rng.shuffle(X)
    lattice = np.array([[i, j] for i in range(25) for j in range(25)], dtype=float)  # ties at exactly eps
    return {"clusters": (X, 1.0, 3.0), "ties": (lattice, 2.0, 2.0)}


@pytest.mark.parametrize("name", list(_data()))
@pytest.mark.parametrize("batch", [1, 37, 500, 10_000])
def test_batches_give_the_shadow_of_all_rows(name, batch):
    X, sigma, ell = _data()[name]
    stream = StreamingShadow(sigma=sigma, ell=ell)
    labels = np.concatenate([stream.update(X[a:a + batch]) for a in range(0, X.shape[0], batch)])
    s = shadow_centers(X, sigma=sigma, ell=ell)
    np.testing.assert_array_equal(labels, s.labels)
    np.testing.assert_array_equal(stream.center_indices, s.center_indices)
    np.testing.assert_array_equal(stream.weights, s.weights)
    np.testing.assert_array_equal(stream.centers, s.centers)
    assert stream.n_seen == X.shape[0] and stream.m == s.m
    r = stream.result(labels)
    assert (r.m, r.n, r.eps, r.kernel) == (s.m, s.n, s.eps, s.kernel)


def test_a_batch_with_other_columns_is_refused():
    stream = StreamingShadow(sigma=1.0, ell=2.0)
    stream.update(np.zeros((3, 2)))
    with pytest.raises(ValueError, match="3 features, but the stream so far has 2"):
        stream.update(np.zeros((3, 3)))


def test_skops_trusts_the_stream_under_its_module_path():
    # a fitted ReducedSetKPCA keeps its StreamingShadow; `rskpca embed --save x.skops` must load it back
    from rskpca.cli._models import TRUSTED_TYPES

    assert f"{StreamingShadow.__module__}.{StreamingShadow.__qualname__}" in TRUSTED_TYPES
