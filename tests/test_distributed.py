"""Shadow selection and RSKPCA on dask arrays: exactness, the eps-cover, the bounds, a real cluster.

Cluster tests share one LocalCluster (2 worker processes, 1 thread each, on
loopback) for the whole module; the rest use Dask's synchronous scheduler.
"""

import ast
import importlib
import logging
import math
import sys
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

da = pytest.importorskip("dask.array")
distributed = pytest.importorskip("dask.distributed")

import rskpca  # noqa: E402
from reference import literal_shadow  # noqa: E402
from rskpca import ReducedSetKPCA, shadow_centers  # noqa: E402
from rskpca.evaluation.bench_distributed import lazy_clustered_rows  # noqa: E402
from rskpca.bounds import theorem_bounds  # noqa: E402
from rskpca.distributed import distributed_shadow  # noqa: E402
from rskpca.distributed._shadow import _split_radius  # noqa: E402
from rskpca.core.shadow import exact_squared_distances  # noqa: E402

WORKER_MEMORY = 400 * 2**20  # bytes per worker; the "larger than memory" data set exceeds it


@pytest.fixture(scope="module")
def client():
    cluster = distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
        dashboard_address=None, memory_limit=WORKER_MEMORY, silence_logs=logging.ERROR,
    )
    with cluster, distributed.Client(cluster) as c:
        yield c
    assert cluster.status.name == "closed"  # shut down cleanly, no leaked workers


def _datasets():
    rng = np.random.default_rng(1)
    dup = np.repeat(rng.normal(size=(30, 2)), rng.integers(1, 12, size=30), axis=0)
    rng.shuffle(dup)
    return {
        "random": (rng.normal(size=(600, 4)), 1.5),
        "duplicates": (dup, 0.5),
        "grid_ties": (np.array([[i, j] for i in range(20) for j in range(20)], dtype=float), 1.0),
        "big_offset": (1e6 + rng.normal(size=(400, 3)), 1.0),
    }


def _clusters(n, d, seed, spread=0.3):
    rng = np.random.default_rng(seed)
    means = rng.uniform(-3, 3, size=(5, d))
    return means[rng.integers(0, 5, n)] + spread * rng.normal(size=(n, d))


def _assert_cover(X, r, labels):
    """Every row strictly within eps of its center (the shadow's predicate), weights count rows."""
    assert np.all(exact_squared_distances(X, r.centers[labels]) < r.eps**2)
    np.testing.assert_array_equal(np.bincount(labels, minlength=r.m), r.weights)
    np.testing.assert_array_equal(r.centers, X[r.center_indices])
    assert r.weights.sum() == X.shape[0]


@pytest.mark.parametrize("name", list(_datasets()))
def test_one_chunk_equals_single_machine_shadow(name):
    X, eps = _datasets()[name]
    s = shadow_centers(X, sigma=eps * 3.0, ell=3.0)
    Xd = da.from_array(X, chunks=X.shape)
    r = distributed_shadow(Xd, sigma=eps * 3.0, ell=3.0, scheduler="sync")
    assert r.merge_radii == () and r.eps_local == s.eps == r.eps
    np.testing.assert_array_equal(r.center_indices, s.center_indices)
    np.testing.assert_array_equal(r.centers, s.centers)
    np.testing.assert_array_equal(r.weights, s.weights)
    np.testing.assert_array_equal(r.labels(Xd).compute(scheduler="sync"), s.labels)


def test_merge_is_the_weighted_shadow_of_local_centers_in_chunk_order():
    X = _clusters(900, 2, seed=2)
    sigma, ell, chunk = 1.0, 2.0, 200
    r = distributed_shadow(da.from_array(X, chunks=(chunk, 2)), sigma=sigma, ell=ell, scheduler="sync")
    eps1, eps2 = sigma / ell / 2, sigma / ell / 2
    assert (r.eps_local, r.merge_radii) == (eps1, (eps2,))
    # Oracle: each chunk's shadow with eps1, then Algorithm 2 as written on the
    # concatenated local centers with eps2, weights added.
    locals_ = [shadow_centers(X[a:a + chunk], sigma=eps1, ell=1.0) for a in range(0, 900, chunk)]
    local_idx = np.concatenate([s.center_indices + a for s, a in zip(locals_, range(0, 900, chunk))])
    local_w = np.concatenate([s.weights for s in locals_])
    c, _, lab = literal_shadow(X[local_idx], eps2)
    np.testing.assert_array_equal(r.local_center_indices, local_idx)
    np.testing.assert_array_equal(r.center_indices, local_idx[c])
    np.testing.assert_array_equal(r.weights, np.bincount(lab, weights=local_w).astype(int))
    np.testing.assert_array_equal(r.local_to_final, lab)
    labels = r.labels(da.from_array(X, chunks=(chunk, 2))).compute(scheduler="sync")
    _assert_cover(X, r, labels)
    # Centers of different chunks may be closer than eps (unlike Algorithm 2 on all
    # rows), so m is at least the single-machine m on this data.
    assert r.m >= shadow_centers(X, sigma=sigma, ell=ell).m


def test_tree_merge_keeps_the_cover_and_spends_at_most_eps():
    X = _clusters(3000, 2, seed=3, spread=1.0)
    Xd = da.from_array(X, chunks=(250, 2))  # 12 chunks
    r = distributed_shadow(Xd, sigma=1.0, ell=4.0, max_merge_centers=150, scheduler="sync")
    assert 1 < len(r.merge_radii) <= math.ceil(math.log2(12)) + 1
    assert Fraction(r.eps_local) + sum(map(Fraction, r.merge_radii)) <= Fraction(r.eps)
    _assert_cover(X, r, r.labels(Xd).compute(scheduler="sync"))
    assert r.distances_to_centers(Xd).max().compute(scheduler="sync") < r.eps


def test_refine_reassigns_to_the_earliest_center_within_eps_and_drops_unused():
    X = _clusters(1200, 6, seed=9, spread=0.6)
    Xd = da.from_array(X, chunks=(300, 6))
    plain = distributed_shadow(Xd, sigma=2.0, ell=2.0, scheduler="sync")
    r = distributed_shadow(Xd, sigma=2.0, ell=2.0, refine=True, scheduler="sync")
    assert r.refined and not plain.refined
    # Oracle, by brute force: earliest of the merged centers within eps (exact predicate).
    D2 = np.stack([exact_squared_distances(x, plain.centers) for x in X])
    inside = D2 < plain.eps**2
    assert inside.any(axis=1).all()
    earliest = inside.argmax(axis=1)
    used = np.unique(earliest)
    np.testing.assert_array_equal(r.center_indices, plain.center_indices[used])
    np.testing.assert_array_equal(r.weights, np.bincount(earliest)[used])
    labels = r.labels(Xd).compute(scheduler="sync")
    np.testing.assert_array_equal(r.center_indices[labels], plain.center_indices[earliest])
    _assert_cover(X, r, labels)
    assert r.m < plain.m  # overlapping centers of different chunks are gone


def test_refine_on_one_chunk_changes_nothing():
    X = _clusters(500, 3, seed=10)
    s = shadow_centers(X, sigma=1.0, ell=4.0)
    r = distributed_shadow(da.from_array(X, chunks=X.shape), sigma=1.0, ell=4.0, refine=True,
                           scheduler="sync")
    assert not r.refined
    np.testing.assert_array_equal(r.center_indices, s.center_indices)
    np.testing.assert_array_equal(r.weights, s.weights)


@pytest.mark.parametrize("fraction", [0.5, 0.1, 1 / 3, 0.7, 0.999])
@pytest.mark.parametrize("eps", [0.1, 1 / 3, 2.0 / 7.0, 1e-300, 12345.678])
def test_radius_split_never_exceeds_eps(fraction, eps):
    eps1, eps2 = _split_radius(eps, fraction)
    assert eps1 > 0 and eps2 > 0
    assert Fraction(eps1) + Fraction(eps2) <= Fraction(eps)
    assert eps2 == pytest.approx(eps - eps1, rel=1e-15)


@pytest.mark.parametrize("kernel,sigma,ell,D,refine", [
    ("gaussian", 1.5, 3.0, 3, False), ("laplacian", 2.0, 5.0, 2, False), ("gaussian", 8.0, 25.0, 1, False),
    ("gaussian", 1.0, 2.0, 2, True),
])
def test_eps_cover_and_theorems_hold_on_a_cluster(client, kernel, sigma, ell, D, refine):
    X = _clusters(700, 2, seed=4)
    Xd = da.from_array(X, chunks=(175, 2))
    r = distributed_shadow(Xd, sigma=sigma, ell=ell, kernel=kernel, refine=refine)
    assert r.refined == refine
    shadow = r.to_shadow_result(Xd)
    _assert_cover(X, r, shadow.labels)
    res = theorem_bounds(X, shadow, n_components=D)
    for theorem in ("5.1", "5.2", "5.3"):
        b = res[theorem]
        assert b.measured <= b.a_posteriori * (1 + 1e-9) + 1e-8 <= b.a_priori * (1 + 1e-9) + 2e-8, theorem
    b = res["5.4"]
    if ell == 25.0:  # a big gap and a tight shadow: the condition of 5.4 holds here
        assert b.applies
    if b.applies:
        assert b.measured <= b.a_priori * (1 + 1e-9) + 1e-8


def test_one_chunk_on_a_cluster_equals_single_machine_shadow(client):
    X = _clusters(2000, 3, seed=5)
    Xd = da.from_array(X, chunks=X.shape)
    s = shadow_centers(X, sigma=1.0, ell=3.0)
    r = distributed_shadow(Xd, sigma=1.0, ell=3.0)
    np.testing.assert_array_equal(r.center_indices, s.center_indices)
    np.testing.assert_array_equal(r.weights, s.weights)
    np.testing.assert_array_equal(r.labels(Xd).compute(), s.labels)


def test_reduced_set_kpca_on_one_chunk_equals_in_memory_fit():
    X = _clusters(800, 3, seed=6)
    Xd = da.from_array(X, chunks=X.shape)
    ref = ReducedSetKPCA(n_components=3, ell=4.0, random_state=0).fit(X)  # sigma="median"
    import dask

    with dask.config.set(scheduler="sync"):
        est = ReducedSetKPCA(n_components=3, ell=4.0, random_state=0).fit(Xd)
        Z = est.transform(da.from_array(X, chunks=(100, 3)))
        assert isinstance(Z, da.Array) and Z.chunks == ((100,) * 8, (3,))  # lazy, block by block
        Z = Z.compute()
    assert est.sigma_ == ref.sigma_
    for attr in ("centers_", "weights_", "center_indices_", "eigenvalues_", "dual_coef_"):
        np.testing.assert_array_equal(getattr(est, attr), getattr(ref, attr))
    np.testing.assert_allclose(Z, ref.transform(X), rtol=0, atol=1e-12)


def test_reduced_set_kpca_fits_and_transforms_on_a_cluster(client):
    X = _clusters(3000, 4, seed=7).astype(np.float32)
    Xd = da.from_array(X, chunks=(500, 4))
    est = ReducedSetKPCA(n_components=2, sigma=2.0, ell=3.0).fit(Xd)
    assert est.weights_.sum() == 3000 and est.n_features_in_ == 4
    assert est.centers_.shape == (est.shadow_m_, 4)
    np.testing.assert_array_equal(est.centers_, X[est.center_indices_].astype(np.float64))
    refined = distributed_shadow(Xd, sigma=2.0, ell=3.0, refine=True)  # what the estimator runs
    np.testing.assert_array_equal(est.center_indices_, refined.center_indices)
    assert refined.m <= distributed_shadow(Xd, sigma=2.0, ell=3.0).m
    Z = est.transform(Xd)
    assert isinstance(Z, da.Array) and Z.dtype == np.float32
    np.testing.assert_allclose(Z.compute(), est.transform(X), rtol=1e-6, atol=1e-6)


def test_data_larger_than_a_workers_memory_runs_through(client):
    # 512 MB of rows against 400 MiB per worker (of which ~220 MiB is the worker
    # process itself), generated chunk by chunk on the workers, never gathered.
    X = lazy_clustered_rows(500_000, 128, 12_500, seed=8)
    assert X.nbytes > 1.2 * WORKER_MEMORY
    est = ReducedSetKPCA(n_components=2, sigma=4.0, ell=2.0).fit(X)
    assert est.weights_.sum() == X.shape[0]
    assert est.shadow_m_ <= 6 * 40  # 6 tight clusters: at most 6 centers per chunk, merged
    info = client.scheduler_info()
    assert len(info["workers"]) == 2  # no worker was killed for memory


# ------------------------------------------------------------------ bad input


def test_in_memory_input_is_rejected_with_a_pointer():
    with pytest.raises(ValueError, match="dask.array.Array.*shadow_centers"):
        distributed_shadow(np.zeros((5, 2)), sigma=1.0, ell=2.0)


@pytest.mark.parametrize("X,match", [
    (da.zeros(10, chunks=5), "2-D"),
    (da.from_array(np.array([["a"], ["b"]])), "numeric"),
    (da.zeros((0, 2), chunks=(1, 2)), "at least 1"),
])
def test_bad_dask_arrays_get_a_clear_message(X, match):
    with pytest.raises(ValueError, match=match):
        distributed_shadow(X, sigma=1.0, ell=2.0, scheduler="sync")


def test_unknown_chunk_lengths_say_what_to_do():
    X = da.from_array(np.arange(20.0).reshape(10, 2), chunks=(5, 2))
    X = X[X[:, 0] > 3]
    with pytest.raises(ValueError, match="compute_chunk_sizes"):
        distributed_shadow(X, sigma=1.0, ell=2.0)


def test_nan_in_a_chunk_names_its_rows():
    X = np.ones((20, 2))
    X[13, 1] = np.nan
    with pytest.raises(ValueError, match=r"rows 10:20 contains 1 NaN"):
        distributed_shadow(da.from_array(X, chunks=(10, 2)), sigma=1.0, ell=2.0, scheduler="sync")


@pytest.mark.parametrize("kwargs,match", [
    ({"local_fraction": 1.0}, "local_fraction"), ({"local_fraction": 0}, "local_fraction"),
    ({"max_merge_centers": 0}, "max_merge_centers"), ({"sigma": -1.0}, "sigma"),
    ({"kernel": "cosine"}, "kernel"), ({"refine": "yes"}, "refine"),
])
def test_bad_parameters_get_a_clear_message(kwargs, match):
    params = {"sigma": 1.0, "ell": 2.0, **kwargs}
    with pytest.raises(ValueError, match=match):
        distributed_shadow(da.zeros((4, 2), chunks=(2, 2)), scheduler="sync", **params)


def test_labels_need_the_same_chunks():
    X = da.from_array(np.random.default_rng(0).normal(size=(40, 2)), chunks=(10, 2))
    r = distributed_shadow(X, sigma=1.0, ell=2.0, scheduler="sync")
    with pytest.raises(ValueError, match="same row chunks"):
        r.labels(X.rechunk((20, 2)))


@pytest.mark.parametrize("kwargs,match", [({"rsde": "kmeans"}, "rsde='shadow'"),
                                          ({"order": "random"}, "order='random'")])
def test_estimator_options_that_need_all_rows_are_refused(kwargs, match):
    X = da.zeros((10, 2), chunks=(5, 2))
    with pytest.raises(ValueError, match=match):
        ReducedSetKPCA(sigma=1.0, **kwargs).fit(X)


def test_transform_checks_the_number_of_features():
    X = np.random.default_rng(0).normal(size=(50, 3))
    est = ReducedSetKPCA(n_components=2, sigma=1.0).fit(X)
    with pytest.raises(ValueError, match="3"):
        est.transform(da.zeros((10, 2), chunks=(5, 2)))


def _module_level_imports(body):
    """Top-level modules imported when a module is executed (function bodies excluded)."""
    for node in body:
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            yield node.module
        elif isinstance(node, (ast.Try, ast.If, ast.With)):
            for part in ("body", "orelse", "finalbody", "handlers"):
                for child in getattr(node, part, []):
                    yield from _module_level_imports(getattr(child, "body", [child]) if part == "handlers"
                                                     else [child])


def test_library_imports_and_fits_without_dask(monkeypatch):
    # Only the optional modules import dask when loaded; the estimators import it lazily.
    for path in Path(rskpca.__file__).parent.rglob("*.py"):
        if path.parent.name != "distributed" and path.name != "bench_distributed.py":
            tops = {name.split(".")[0] for name in _module_level_imports(ast.parse(path.read_text()).body)}
            assert not tops & {"dask", "distributed"}, path
    monkeypatch.setitem(sys.modules, "dask", None)  # as if dask were not installed
    monkeypatch.setitem(sys.modules, "dask.array", None)
    for name in [m for m in sys.modules if m.startswith("rskpca.distributed")]:
        monkeypatch.delitem(sys.modules, name)
    with pytest.raises(ImportError, match=r'pip install "rskpca\[dask\]"'):
        importlib.import_module("rskpca.distributed")
    X = np.random.default_rng(0).normal(size=(30, 2))
    assert ReducedSetKPCA(n_components=1, sigma=1.0).fit(X).transform(X).shape == (30, 1)
