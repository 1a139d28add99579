"""The distributed (by rounds) and streaming shadows: equal to shadow_centers bit for bit.

Cluster tests share one LocalCluster (2 worker processes, 1 thread each, on
loopback) for the whole module; the rest use Dask's synchronous or threaded scheduler.
"""

import ast
import importlib
import logging
import os
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest

da = pytest.importorskip("dask.array")
distributed = pytest.importorskip("dask.distributed")

import dask  # noqa: E402

import rskpca  # noqa: E402
from rskpca import ReducedSetKPCA, shadow_centers  # noqa: E402
from rskpca.bounds import theorem_bounds  # noqa: E402
from rskpca.core.shadow import exact_squared_distances  # noqa: E402
from rskpca.distributed import distributed_shadow  # noqa: E402
from rskpca.evaluation.bench_distributed import lazy_clustered_rows  # noqa: E402

# Bytes per worker; the "larger than memory" data set exceeds it. A worker pauses at 80% of it, and
# the process itself takes ~370 MiB with rskpca and the compiled shadow loops loaded (numba's ~110 MiB
# included), so the tasks get ~80 MiB.
WORKER_MEMORY = 560 * 2**20


@pytest.fixture(scope="module")
def client():
    cluster = distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
        dashboard_address=None, memory_limit=WORKER_MEMORY, silence_logs=logging.CRITICAL,
    )
    with cluster, distributed.Client(cluster) as c:
        yield c
    assert cluster.status.name == "closed"  # shut down cleanly, no leaked workers


def _datasets():
    rng = np.random.default_rng(1)
    dup = np.repeat(rng.normal(size=(40, 3)), rng.integers(1, 30, size=40), axis=0)
    rng.shuffle(dup)
    means = rng.uniform(-6, 6, size=(6, 5))
    clustered = means[rng.integers(0, 6, 1500)] + 0.4 * rng.normal(size=(1500, 5))
    return {
        "random": (rng.normal(size=(1200, 4)), 0.8),
        "clustered": (clustered, 1.0),
        "duplicates": (dup, 0.5),
        # Integer lattice with eps = 1: every neighbour lies at exactly eps (outside, strict <).
        "ties": (np.array([[i, j] for i in range(30) for j in range(30)], dtype=float), 1.0),
        "big_offset": (1e6 + rng.normal(size=(600, 3)), 1.0),
    }


def _assert_same_shadow(r, s):
    np.testing.assert_array_equal(r.center_indices, s.center_indices)
    np.testing.assert_array_equal(r.centers, s.centers)
    np.testing.assert_array_equal(r.weights, s.weights)


@pytest.mark.parametrize("name", list(_datasets()))
@pytest.mark.parametrize("chunk,prefix", [(None, None), (97, None), (250, 40), (1, 300)])
def test_rounds_equal_the_single_machine_shadow(name, chunk, prefix):
    X, eps = _datasets()[name]
    if chunk == 1:
        X = X[:400]  # one row per chunk: many tasks, keep it small
    s = shadow_centers(X, sigma=3.0 * eps, ell=3.0)
    Xd = da.from_array(X, chunks=(chunk or X.shape[0], X.shape[1]))
    r = distributed_shadow(Xd, sigma=3.0 * eps, ell=3.0, prefix_rows=prefix, scheduler="threads")
    _assert_same_shadow(r, s)
    assert sum(rd.new_centers for rd in r.rounds) == s.m
    # Labels are Algorithm 2's, recomputed lazily under any other chunking.
    relabel = da.from_array(X, chunks=(113, X.shape[1]))
    np.testing.assert_array_equal(r.labels(relabel).compute(scheduler="threads"), s.labels)


def test_rounds_are_taken_while_rows_stay_uncovered():
    X = np.random.default_rng(3).uniform(-10, 10, size=(3000, 2))
    r = distributed_shadow(da.from_array(X, chunks=(100, 2)), sigma=0.3, ell=1.0, scheduler="sync")
    assert len(r.rounds) > 2  # sparse data: most rows are centers, so many rounds
    assert r.rounds[-1].uncovered_rows == 0
    assert sum(rd.prefix_rows for rd in r.rounds) == r.m or sum(rd.prefix_rows for rd in r.rounds) <= 3000
    _assert_same_shadow(r, shadow_centers(X, sigma=0.3, ell=1.0))


@pytest.mark.parametrize("kernel,sigma,ell,D", [("gaussian", 1.5, 3.0, 3), ("laplacian", 2.0, 5.0, 2)])
def test_exact_shadow_and_theorems_on_a_cluster(client, kernel, sigma, ell, D):
    X, _ = _datasets()["clustered"]
    Xd = da.from_array(X, chunks=(300, X.shape[1]))
    r = distributed_shadow(Xd, sigma=sigma, ell=ell, kernel=kernel)
    s = shadow_centers(X, sigma=sigma, ell=ell, kernel=kernel)
    _assert_same_shadow(r, s)
    shadow = r.to_shadow_result(Xd)
    np.testing.assert_array_equal(shadow.labels, s.labels)
    assert np.all(exact_squared_distances(X, r.centers[shadow.labels]) < r.eps**2)
    res = theorem_bounds(X, shadow, n_components=D)
    for theorem in ("5.1", "5.2", "5.3"):
        assert res[theorem].measured <= res[theorem].a_priori * (1 + 1e-9) + 1e-8, theorem


def _compiled_loops_here():
    """``{loop: (signatures, cache hits, cache misses)}`` of the compiled shadow loops this process has loaded."""
    from rskpca.core.shadow import _compiled

    return {name: (len(f.signatures), sum(f.stats.cache_hits.values()), sum(f.stats.cache_misses.values()))
            for name, f in (_compiled._kernels or {}).items()}


def test_workers_run_the_compiled_loops_loaded_from_the_disk_cache(client):
    # One algorithm on one machine and on the workers: the prefix and screen tasks take the
    # compiled loops (d = 5), which each worker loads from numba's disk cache, filled by the
    # driver before the first round -- no worker compiles them again.
    X, _ = _datasets()["clustered"]
    Xd = da.from_array(X, chunks=(150, X.shape[1]))
    _assert_same_shadow(distributed_shadow(Xd, sigma=1.5, ell=3.0), shadow_centers(X, sigma=1.5, ell=3.0))
    loaded = [loops for loops in client.run(_compiled_loops_here).values() if loops]
    assert any(loops["scan"][0] for loops in loaded) and any(loops["screen"][0] for loops in loaded)
    for loops in loaded:
        for name, (signatures, hits, misses) in loops.items():
            assert misses == 0 and hits >= (signatures > 0), (name, loops)


def test_reduced_set_kpca_on_dask_equals_in_memory_fit(client):
    X, _ = _datasets()["clustered"]
    ref = ReducedSetKPCA(n_components=3, ell=3.0, random_state=0).fit(X)  # sigma="median"
    est = ReducedSetKPCA(n_components=3, ell=3.0, random_state=0).fit(da.from_array(X, chunks=(400, 5)))
    assert est.sigma_ == ref.sigma_
    for attr in ("centers_", "weights_", "center_indices_", "eigenvalues_", "dual_coef_"):
        np.testing.assert_array_equal(getattr(est, attr), getattr(ref, attr))
    Z = est.transform(da.from_array(X, chunks=(500, 5)))
    assert isinstance(Z, da.Array) and Z.chunks == ((500, 500, 500), (3,))  # lazy, block by block
    np.testing.assert_allclose(Z.compute(), ref.transform(X), rtol=0, atol=1e-12)


def test_fit_reduced_set_is_the_solve_of_fit():
    # (random_state fixed: the same bits need the same start of the partial eigensolver)
    X, _ = _datasets()["random"]
    ref = ReducedSetKPCA(n_components=3, sigma=2.0, ell=3.0, random_state=0).fit(X)
    est = ReducedSetKPCA(n_components=3, sigma=2.0, ell=3.0, random_state=0).fit_reduced_set(ref.centers_, ref.weights_)
    for attr in ("eigenvalues_", "dual_coef_", "center_means_"):
        np.testing.assert_array_equal(getattr(est, attr), getattr(ref, attr))
    with pytest.raises(ValueError, match="weights must be"):
        est.fit_reduced_set(ref.centers_, -ref.weights_)
    with pytest.raises(ValueError, match="sigma="):
        ReducedSetKPCA().fit_reduced_set(ref.centers_, ref.weights_)


@pytest.mark.parametrize("batch", [1, 37, 500])
def test_partial_fit_over_batches_equals_fit(batch):
    X, _ = _datasets()["clustered"]
    X = X[:600] if batch == 1 else X
    ref = ReducedSetKPCA(n_components=3, sigma=2.0, ell=3.0, random_state=0).fit(X)
    est = ReducedSetKPCA(n_components=3, sigma=2.0, ell=3.0, random_state=0)
    for a in range(0, X.shape[0], batch):
        est.partial_fit(X[a:a + batch])
    assert "eigenvalues_" in vars(est)  # solved by partial_fit itself, not on reading
    np.testing.assert_array_equal(est.transform(X[:50]), ref.transform(X[:50]))
    for attr in ("centers_", "weights_", "center_indices_", "eigenvalues_", "dual_coef_"):
        np.testing.assert_array_equal(getattr(est, attr), getattr(ref, attr))
    est.partial_fit(X[:10])  # more rows: the model moves on, still equal to fit on all of them
    both = np.concatenate([X, X[:10]])
    again = ReducedSetKPCA(n_components=3, sigma=2.0, ell=3.0, random_state=0).fit(both)
    np.testing.assert_array_equal(est.eigenvalues_, again.eigenvalues_)


def test_partial_fit_continues_a_fit_and_only_streams_the_shadow():
    X, _ = _datasets()["random"]
    est = ReducedSetKPCA(n_components=2, sigma=2.0, ell=3.0, random_state=0).fit(X[:700]).partial_fit(X[700:])
    ref = ReducedSetKPCA(n_components=2, sigma=2.0, ell=3.0, random_state=0).fit(X)
    np.testing.assert_array_equal(est.dual_coef_, ref.dual_coef_)
    assert not hasattr(ReducedSetKPCA(rsde="kmeans"), "partial_fit")
    assert not hasattr(ReducedSetKPCA(order="random"), "partial_fit")
    with pytest.raises(ValueError, match="3 features"):
        est.partial_fit(X[:5, :3])


def _slow_rows(n_rows, d, chunk_rows, seed):
    """Lazily generated rows whose chunks take a while, so a worker can be killed mid-fit."""
    X = lazy_clustered_rows(n_rows, d, chunk_rows, seed=seed, spread=1.0)

    def slow(block):
        time.sleep(0.3)
        return block

    return X.map_blocks(slow, dtype=X.dtype)


def test_a_worker_killed_mid_fit_is_survived(client):
    X = _slow_rows(24_000, 4, 1_000, seed=11)
    s = shadow_centers(X.compute(), sigma=2.0, ell=2.0)
    victim = list(client.run(os.getpid))[0]
    killer = threading.Timer(1.5, lambda: client.run(os._exit, 1, workers=[victim], on_error="ignore"))
    killer.start()
    try:
        r = distributed_shadow(X, sigma=2.0, ell=2.0)
    finally:
        killer.join()
    _assert_same_shadow(r, s)
    client.wait_for_workers(2, timeout=60)  # the nanny restarted it


def test_data_larger_than_a_workers_memory_runs_through(client):
    # 737 MB of rows against 560 MiB per worker (of which ~300-370 MiB is the worker
    # process itself), generated chunk by chunk on the workers, never gathered.
    # Worker identity comes from client.run, not client.scheduler_info(): the client's
    # periodic refresh asks for no workers and can overwrite the answer before it is
    # returned (distributed 2026.8), which read as "0 workers" on a loaded machine.
    pids_before = client.run(os.getpid)
    X = lazy_clustered_rows(720_000, 128, 12_000, seed=8)
    assert X.nbytes > 1.2 * WORKER_MEMORY
    est = ReducedSetKPCA(n_components=2, sigma=4.0, ell=2.0).fit(X)
    assert est.weights_.sum() == X.shape[0]
    assert est.shadow_m_ == 6  # 6 tight clusters, each one center, as on one machine
    assert client.run(os.getpid) == pids_before  # the same two processes: none was killed for memory


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


@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_nan_or_inf_in_a_chunk_names_its_rows_like_numpy(bad):
    X = np.ones((30, 2))
    X[23, 1] = bad
    with pytest.raises(ValueError, match="NaN and .* infinite .* at row 23, column 1") as numpy_error:
        shadow_centers(X, sigma=1.0, ell=2.0)
    with pytest.raises(ValueError, match=r"X rows 20:30 contains .* NaN and .* at row 23, column 1") as dask_error:
        distributed_shadow(da.from_array(X, chunks=(10, 2)), sigma=1.0, ell=2.0, scheduler="sync")
    assert str(numpy_error.value).split("contains")[1] == str(dask_error.value).split("contains")[1]
    with pytest.raises(ValueError, match="NaN and .* infinite"):
        ReducedSetKPCA(sigma=1.0).fit(da.from_array(X, chunks=(10, 2)))


def test_a_chunk_that_breaks_its_declared_shape_is_named():
    parts = [da.from_delayed(dask.delayed(np.ones)((5, 2)), shape=(5, 2), dtype=float),
             da.from_delayed(dask.delayed(np.ones)((3, 2)), shape=(5, 2), dtype=float)]  # ragged: 3 rows, says 5
    with pytest.raises(ValueError, match=r"X rows 5:10.*shape \(3, 2\).*declares \(5, 2\)"):
        distributed_shadow(da.concatenate(parts), sigma=1.0, ell=2.0, scheduler="sync")


@pytest.mark.parametrize("kwargs,match", [
    ({"prefix_rows": 0}, "prefix_rows"), ({"sigma": -1.0}, "sigma"), ({"kernel": "cosine"}, "kernel"),
])
def test_bad_parameters_get_a_clear_message(kwargs, match):
    params = {"sigma": 1.0, "ell": 2.0, **kwargs}
    with pytest.raises(ValueError, match=match):
        distributed_shadow(da.zeros((4, 2), chunks=(2, 2)), scheduler="sync", **params)


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
