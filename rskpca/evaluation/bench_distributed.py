"""Benchmark: the exact distributed shadow (rounds) against the single-machine fit, and a cost model.

Run ``rskpca bench distributed`` (``--help`` for sizes; ``--rows 100000 --chunk-rows 25000
--large-rows 200000 --repeats 1`` for a smoke run) or ``python -m rskpca.evaluation.bench_distributed``
(the defaults). Needs the ``rskpca[dask]`` extra. It prints Markdown tables:

1. ``ReducedSetKPCA.fit`` on a Gaussian mixture (``--rows`` x ``--features``, 10
   clusters, means ~ N(0, 4^2 I), noise 0.7): in memory on one machine, on a
   dask array with the local threaded scheduler, and on a ``LocalCluster`` with
   1, 2, ... worker processes (rows generated lazily on the workers), with m,
   rounds and the ratio to the single-machine time;
2. a lazily generated large data set (``--large-rows``, never held anywhere):
   rows/s and peak resident memory per worker;
3. the rounds observed and the bytes each moved, and the cost model built on
   them for a 100-node cluster;
4. what a worker's first shadow task pays for the compiled loops: loading them
   from numba's disk cache, or compiling them where the cache is empty.

Timings on a shared machine are noisy: each is the best of ``--repeats`` runs;
``uptime`` is printed. The model's cluster numbers are a projection, not a measurement.
"""

from __future__ import annotations

import logging
import math
import resource
import tempfile
import time

import numpy as np

try:
    import dask
    import dask.array as da
    from dask.distributed import Client, LocalCluster, wait
except ImportError as exc:
    raise ImportError('The distributed benchmark needs Dask: pip install "rskpca[dask]".') from exc

from rskpca.core.shadow import earliest_center_within, load_compiled_kernels
from rskpca.decomposition import ReducedSetKPCA
from rskpca.distributed import distributed_shadow
from rskpca.evaluation.timing import Timing, best_time, machine_load

__all__ = ["lazy_clustered_rows", "run", "cost_model", "report"]


def lazy_clustered_rows(n_rows: int, n_features: int, chunk_rows: int, *, n_clusters: int = 6,
                        spread: float = 0.05, mean_scale: float = 5.0, seed: int = 0):
    """Rows around ``n_clusters`` seeded means, generated chunk by chunk where they are used.

    Nothing is held until a chunk is computed, so the array may be far
    larger than any one worker's memory. Chunk ``b`` is a pure function of
    ``(seed, its first row)``: the same rows on every run and every scheduler.

    Parameters
    ----------
    n_rows : int
        Rows; a multiple of ``chunk_rows`` is not required.
    n_features : int
    chunk_rows : int
        Rows per chunk.
    n_clusters : int, default=6
    spread : float, default=0.05
        Standard deviation of the noise around each mean.
    mean_scale : float, default=5.0
        Standard deviation of the means' coordinates.
    seed : int, default=0

    Returns
    -------
    dask.array.Array of shape (n_rows, n_features), float64

    Examples
    --------
    >>> X = lazy_clustered_rows(10, 3, 4, seed=1)
    >>> X.chunks
    ((4, 4, 2), (3,))
    >>> bool((X.compute(scheduler="sync") == X.compute(scheduler="sync")).all())
    True
    """
    means = np.random.default_rng(seed).normal(scale=mean_scale, size=(n_clusters, n_features))
    sizes = (chunk_rows,) * (n_rows // chunk_rows) + ((n_rows % chunk_rows,) if n_rows % chunk_rows else ())

    def block(block_info=None):
        (start, stop), _ = block_info[None]["array-location"]
        rng = np.random.default_rng([seed, start])
        rows = stop - start
        return means[rng.integers(0, n_clusters, rows)] + spread * rng.normal(size=(rows, n_features))

    return da.map_blocks(block, dtype=np.float64, chunks=(sizes, (n_features,)))


def _best_time(fn, repeats: int):
    out, seconds = best_time(fn, Timing(repeats=repeats, warmup=0))
    return seconds, out


#: Noise of the benchmark's mixture: tight enough that m stops growing with n (as in real data).
MIXTURE_SPREAD = 0.7


def _mixture(n_rows, n_features, chunk_rows, seed=0):
    return lazy_clustered_rows(n_rows, n_features, chunk_rows, n_clusters=10, spread=MIXTURE_SPREAD,
                               mean_scale=4.0, seed=seed)


def _peak_rss_bytes() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # Linux reports KiB


def _cluster(n_workers, env=None):
    cluster = LocalCluster(n_workers=n_workers, threads_per_worker=1, processes=True, host="127.0.0.1",
                           dashboard_address=None, silence_logs=logging.CRITICAL, env=env or {})
    return cluster, Client(cluster)


def _timed_load():
    """On a worker: ``(seconds, {loop: "cache" | "compiled"})`` to load the compiled shadow loops."""
    t0 = time.perf_counter()
    how = load_compiled_kernels()
    return time.perf_counter() - t0, how


def compiled_load_seconds(n_workers: int) -> dict:
    """Seconds each fresh worker takes to get the compiled loops: from an empty disk cache, then a filled one.

    The workers get their own empty ``NUMBA_CACHE_DIR``, so the first cluster's workers compile
    (all at once, as on a fresh install where nothing filled the cache first) and the second's
    load what those wrote.
    """
    out = {}
    with tempfile.TemporaryDirectory() as cache:
        for state in ("empty cache", "filled cache"):
            cluster, client = _cluster(n_workers, env={"NUMBA_CACHE_DIR": cache})
            with cluster, client:
                client.run(lambda: __import__("rskpca.distributed"))
                out[state] = sorted(client.run(_timed_load).values(), key=lambda r: r[0])
    return out


def run(n_rows: int, n_features: int, chunk_rows: int, sigma: float, ell: float, workers: list[int],
        large_rows: int, repeats: int) -> dict:
    """Measure everything the tables and the model need; returns plain numbers."""
    X = _mixture(n_rows, n_features, chunk_rows)
    X_mem = X.compute(scheduler="threads")

    def fit(data):
        return ReducedSetKPCA(n_components=5, sigma=sigma, ell=ell).fit(data)

    rows = []
    load_compiled_kernels()  # outside the timing, as on the workers below
    t_single, ref = _best_time(lambda: fit(X_mem), repeats)
    rows.append(("one machine, in memory (numpy)", "-", t_single, ref.centers_.shape[0], "-"))
    t, est = _best_time(lambda: fit(da.from_array(X_mem, chunks=(chunk_rows, -1))), repeats)
    with dask.config.set(scheduler="threads"):
        rounds = distributed_shadow(X, sigma=sigma, ell=ell).rounds
    rows.append(("dask array, local threads", "threads", t, est.centers_.shape[0], len(rounds)))
    per_worker_screen = large = worker_load = None
    for n_workers in workers:
        cluster, client = _cluster(n_workers)
        with cluster, client:
            client.run(lambda: __import__("rskpca.distributed"))  # warm imports outside the timing
            worker_load = sorted(client.run(_timed_load).values(), key=lambda r: r[0])
            t_gen, _ = _best_time(lambda: X.sum().compute(), repeats)
            t, est = _best_time(lambda: fit(X), repeats)
            rows.append((f"LocalCluster, {n_workers} worker process(es), lazy rows", n_workers, t,
                         est.centers_.shape[0], len(rounds), t_gen))
            # The rows already in the workers' memory, as the one-machine run has them in its own: the fit alone.
            held = X.persist()
            wait(held)
            t, est = _best_time(lambda: fit(held), repeats)
            rows.append((f"LocalCluster, {n_workers} worker process(es), rows in the workers' memory", n_workers, t,
                         est.centers_.shape[0], len(rounds)))
            del held
            if n_workers == max(workers) and large_rows:
                XL = _mixture(large_rows, n_features, chunk_rows, seed=1)
                t_large, r = _best_time(lambda: distributed_shadow(XL, sigma=sigma, ell=ell), repeats)
                peaks = client.run(_peak_rss_bytes)
                large = {"rows": large_rows, "workers": n_workers, "seconds": t_large, "m": r.m,
                         "rounds": len(r.rounds), "peak_rss_per_worker": sorted(peaks.values())}
    # Screen rate per core: rows/s of one screen task against the first round's centers.
    C = ref.centers_[: rounds[0].new_centers]
    block = X_mem[:chunk_rows]
    t_screen, _ = _best_time(lambda: earliest_center_within(block, C, sigma / ell), repeats)
    per_worker_screen = chunk_rows / t_screen
    return {"rows": rows, "single_s": t_single, "rounds": rounds, "large": large, "n_rows": n_rows,
            "n_features": n_features, "chunk_rows": chunk_rows, "m": ref.centers_.shape[0],
            "screen_rows_per_s": per_worker_screen, "worker_load": worker_load,
            "compiled_load": compiled_load_seconds(max(workers))}


#: Per-task overhead of the distributed scheduler as documented ("about 1ms",
#: https://distributed.dask.org); a scheduler on its own node, not a loaded 2-core box.
DOCUMENTED_TASK_OVERHEAD_S = 1e-3


def cost_model(meas: dict, *, nodes: int = 100, cores_per_node: int = 16, chunk_rows: int = 1_000_000,
               read_gb_per_s_per_node: float = 1.0, net_gb_per_s: float = 1.0,
               task_overhead_s: float = DOCUMENTED_TASK_OVERHEAD_S,
               n_rows_list=(10**8, 10**9, 10**10)) -> list[dict]:
    """Predicted wall time of the rounds on a cluster, from the measured rounds and rates.

    Per round ``k`` (``m_k`` new centers, a fraction ``u_k`` of the screened rows
    left uncovered, both as observed on the measured data -- the shadow's m
    does not grow with n once the data's support is covered):

    * ``T_prefix = p_k / r_p``: one task runs the shadow on ``p_k`` prefix rows
      (the first chunk, then the uncovered rows) at the single-machine rate;
    * ``T_screen = n_k / (W * min(r_s, B / (8 d)))``: the ``n_k`` rows left are
      screened by ``W = nodes * cores_per_node`` workers at ``r_s`` rows/s each
      (measured against ``C_0``), unless a node's read bandwidth ``B`` binds;
    * ``T_move = bytes_k / N + (n_k / chunk_rows) * o``: ``C_k`` to every task,
      the counts back and the uncovered rows, over the driver's network ``N``,
      plus ``o`` seconds of scheduling per task.
    """
    workers = nodes * cores_per_node
    d = meas["n_features"]
    io_rate = read_gb_per_s_per_node * 1e9 / (8 * d) / cores_per_node
    r_s = meas["screen_rows_per_s"]
    r_p = meas["n_rows"] / meas["single_s"]
    rounds = meas["rounds"]
    out = []
    for n in n_rows_list:
        tasks = math.ceil(n / chunk_rows)
        left, total, moved = n, 0.0, 0
        for k, rd in enumerate(rounds):
            prefix = chunk_rows if k == 0 else min(left, rd.prefix_rows)
            screened = max(left - prefix, 0)
            frac = rd.uncovered_rows / rd.screened_rows if rd.screened_rows else 0.0
            uncovered = int(screened * frac)
            t_tasks = math.ceil(screened / chunk_rows)
            bytes_k = t_tasks * rd.new_centers * (d + 1) * 8 + (prefix + uncovered) * (d + 1) * 8
            total += prefix / r_p + screened / (workers * min(r_s, io_rate)) \
                + bytes_k / (net_gb_per_s * 1e9) + t_tasks * task_overhead_s
            moved += bytes_k
            left = uncovered
            if not left:
                break
        out.append({"rows": n, "tasks": tasks, "rounds": k + 1, "bytes moved": moved,
                    "total s": total, "rows/s": n / total,
                    "bound by": "I/O" if io_rate < r_s else "compute"})
    return out


def _table(header, rows) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


def report(*, rows: int = 2_000_000, features: int = 16, chunk_rows: int = 250_000, sigma: float = 8.0,
           ell: float = 2.0, workers=(1, 2), large_rows: int = 10_000_000, repeats: int = 3, nodes: int = 100,
           cores_per_node: int = 16) -> str:
    """Measure, then return the Markdown tables and the model (``rskpca bench distributed``)."""
    if min(rows, chunk_rows, features, repeats) < 1 or large_rows < 0:
        raise ValueError("rows, chunk rows, features and repeats must be positive.")
    meas = run(rows, features, chunk_rows, sigma, ell, list(workers), large_rows, repeats)
    out = [f"{machine_load()}\n",
           f"## ReducedSetKPCA.fit, {rows:,} x {features} mixture, chunks of {chunk_rows:,}, "
           f"sigma={sigma}, ell={ell} (best of {repeats})\n"]
    table = []
    for row in meas["rows"]:
        name, w, t, m, nr = row[:5]
        gen = f"{row[5]:.2f}" if len(row) > 5 else "-"
        table.append((name, w, f"{t:.2f}", f"{t / meas['single_s']:.2f}", f"{rows / t:,.0f}", f"{m:,}", nr, gen))
    out.append(_table(["setup", "workers", "fit s", "x single", "rows/s", "m", "rounds", "generation-only s"],
                      table))
    if meas["large"]:
        lg = meas["large"]
        out.append(f"\n## Lazily generated {lg['rows']:,} x {features} rows, {lg['workers']} workers "
                   f"(best of {repeats})\n")
        out.append(_table(["seconds", "rows/s", "rows/s per worker", "m", "rounds", "peak RSS per worker (MiB)"], [(
            f"{lg['seconds']:.1f}", f"{lg['rows'] / lg['seconds']:,.0f}",
            f"{lg['rows'] / lg['seconds'] / lg['workers']:,.0f}", f"{lg['m']:,}", lg["rounds"],
            ", ".join(f"{b / 2**20:,.0f}" for b in lg["peak_rss_per_worker"]))]))
    out.append("\n## Rounds observed on the first table's data\n")
    out.append(_table(list(meas["rounds"][0]._fields), [tuple(f"{v:,}" for v in rd) for rd in meas["rounds"]]))
    out.append(f"\nscreen rate per core against C_0: {meas['screen_rows_per_s']:,.0f} rows/s")
    out.append("\n## The compiled loops on a fresh worker process\n")
    loads = [("the timed clusters' workers (the driver filled the cache)", meas["worker_load"])]
    loads += [(f"own NUMBA_CACHE_DIR, {state}", found) for state, found in meas["compiled_load"].items()]
    out.append(_table(["cache", "seconds per worker", "every worker's loops were"], [
        (state, ", ".join(f"{t:.2f}" for t, _ in found),
         " or ".join(sorted({v for _, how in found for v in how.values()})))
        for state, found in loads if found]))
    model = cost_model(meas, nodes=nodes, cores_per_node=cores_per_node)
    out.append(f"\n## Cost model: {nodes} nodes x {cores_per_node} cores, chunks of 1,000,000 rows, "
               "1 GB/s read per node and 1 GB/s at the driver (assumed); a projection, not a measurement\n")
    keys = list(model[0])
    out.append(_table(keys, [[f"{row[k]:,.3g}" if isinstance(row[k], float) else f"{row[k]:,}"
                              if isinstance(row[k], int) else row[k] for k in keys] for row in model]))
    out.append("\n" + cost_model.__doc__.split("\n\n", 1)[1])
    return "\n".join(out)


if __name__ == "__main__":
    print(report())
