"""Benchmark: distributed shadow throughput (rows/s) vs Dask workers, and a cost model for 100 nodes.

Run ``rskpca bench distributed`` (``--help`` for sizes). Needs the
``rskpca[dask]`` extra. It prints Markdown tables:

1. rows/s of the in-memory shadow (one core, no Dask), of Dask's local
   threaded scheduler, and of a ``LocalCluster`` with 1, 2, ... worker
   processes (one thread each), on the same lazily generated rows, with the
   generation-only rate beside them so the shadow's own share is visible;
2. the measured constants of the cost model (per-worker rate, merge rate,
   scheduler overhead per task);
3. the model's prediction for a 100-node cluster at 10^8 to 10^10 rows.

Timings on a shared 2-core machine are noisy: each is repeated (``--repeats``)
and reported as median [min, max]. The model's cluster numbers are a
projection from these constants and the stated assumptions, not a
measurement.
"""

from __future__ import annotations

import logging
import math
import time

import numpy as np

try:
    import dask
    import dask.array as da
    from dask.distributed import Client, LocalCluster
except ImportError as exc:
    raise ImportError('The distributed benchmark needs Dask: pip install "rskpca[dask]".') from exc

from rskpca.distributed._shadow import _local_part, _merge_parts, distributed_shadow
from rskpca.core.shadow import shadow_centers
from rskpca.evaluation.timing import Timing, run_times

__all__ = ["lazy_clustered_rows", "run", "cost_model", "report"]


def lazy_clustered_rows(n_rows: int, n_features: int, chunk_rows: int, *, n_clusters: int = 6,
                        spread: float = 0.05, seed: int = 0):
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
        Standard deviation of the noise around each mean (means have scale 5).
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
    means = np.random.default_rng(seed).normal(scale=5.0, size=(n_clusters, n_features))
    sizes = (chunk_rows,) * (n_rows // chunk_rows) + ((n_rows % chunk_rows,) if n_rows % chunk_rows else ())

    def block(block_info=None):
        (start, stop), _ = block_info[None]["array-location"]
        rng = np.random.default_rng([seed, start])
        rows = stop - start
        return means[rng.integers(0, n_clusters, rows)] + spread * rng.normal(size=(rows, n_features))

    return da.map_blocks(block, dtype=np.float64, chunks=(sizes, (n_features,)))


def _timed(fn, repeats: int) -> list[float]:
    return run_times(fn, Timing(repeats=repeats))[1]


def _rate(n_rows: int, times) -> str:
    rates = sorted(n_rows / t for t in times)
    return f"{np.median(rates):,.0f} [{rates[0]:,.0f}, {rates[-1]:,.0f}]"


def _scheduler_overhead(client, n_tasks: int = 400) -> float:
    """Seconds per trivial task on this cluster (submit, run, gather)."""
    t0 = time.perf_counter()
    client.gather(client.map(lambda i: i, range(n_tasks), pure=False))
    return (time.perf_counter() - t0) / n_tasks


def run(n_rows: int, n_features: int, chunk_rows: int, sigma: float, ell: float,
        workers: list[int], repeats: int) -> dict:
    """Measure everything the tables and the model need; returns plain numbers."""
    X = lazy_clustered_rows(n_rows, n_features, chunk_rows)
    rows = []
    # In-memory, one core, no Dask: the single-machine baseline on one chunk's worth of rows.
    sample = X[: min(n_rows, 4 * chunk_rows)].compute(scheduler="sync")
    t = _timed(lambda: shadow_centers(sample, sigma=sigma, ell=ell), repeats)
    rows.append(("in-memory shadow_centers (no Dask)", 1, _rate(sample.shape[0], t), "-"))
    per_worker = sample.shape[0] / float(np.median(t))

    t_gen = _timed(lambda: X.sum().compute(scheduler="threads"), repeats)
    t = _timed(lambda: distributed_shadow(X, sigma=sigma, ell=ell, scheduler="threads"), repeats)
    result = distributed_shadow(X, sigma=sigma, ell=ell, scheduler="threads")
    rows.append(("dask local threads (default, no setup)", "threads", _rate(n_rows, t), _rate(n_rows, t_gen)))

    overhead = []
    for n_workers in workers:
        with LocalCluster(n_workers=n_workers, threads_per_worker=1, processes=True, host="127.0.0.1",
                          dashboard_address=None, silence_logs=logging.CRITICAL) as cluster, \
                Client(cluster) as client:
            client.run(lambda: __import__("rskpca.distributed"))  # warm imports outside the timing
            t_gen = _timed(lambda: X.sum().compute(), repeats)
            t = _timed(lambda: distributed_shadow(X, sigma=sigma, ell=ell), repeats)
            overhead.append(_scheduler_overhead(client))
        rows.append((f"LocalCluster, {n_workers} worker process(es)", n_workers, _rate(n_rows, t),
                     _rate(n_rows, t_gen)))

    # Merge rate: the merge pass alone on all of this run's local centers, timed on the client.
    offsets = np.concatenate([[0], np.cumsum(X.chunks[0])[:-1]])
    parts = dask.compute(*[dask.delayed(_local_part)(b, result.eps_local, int(o))
                           for b, o in zip(X.to_delayed().ravel(), offsets)], scheduler="threads")
    radius = result.merge_radii[-1] if result.merge_radii else result.eps
    m_local = result.n_local_centers / len(parts)
    # Repeat the chunks' parts up to >= 5,000 centers so the rate is not just fixed overhead
    # (chunks of one data set produce near-duplicate local centers, as here).
    parts = list(parts) * max(1, math.ceil(5_000 / max(result.n_local_centers, 1)))
    n_merged = sum(len(p.indices) for p in parts)
    t_merge = float(np.median(_timed(lambda: _merge_parts(parts, radius), repeats)))
    return {
        "rows": rows, "n_rows": n_rows, "n_features": n_features, "chunk_rows": chunk_rows,
        "m": result.m, "M0": result.n_local_centers, "m_local_per_chunk": m_local,
        "per_worker_rows_per_s": per_worker,
        "merge_centers_per_s": n_merged / max(t_merge, 1e-9),
        "task_overhead_s": float(np.median(overhead)) if overhead else float("nan"),
    }


#: Per-task overhead of the distributed scheduler as documented ("about 1ms",
#: https://distributed.dask.org); a scheduler on its own node, not a loaded 2-core box.
DOCUMENTED_TASK_OVERHEAD_S = 1e-3


def cost_model(meas: dict, *, nodes: int = 100, cores_per_node: int = 16, chunk_rows: int = 1_000_000,
               read_gb_per_s_per_node: float = 1.0, max_merge_centers: int = 50_000,
               task_overhead_s: float = DOCUMENTED_TASK_OVERHEAD_S,
               n_rows_list=(10**8, 10**9, 10**10)) -> list[dict]:
    """Predicted wall time and rows/s on a cluster, from the measured constants.

    ``T = T_local + T_sched + T_merge`` where

    * ``T_local = n / (W * min(r, B / (8 d)))``: ``W = nodes * cores_per_node``
      workers each shadowing ``r`` rows/s (measured), unless a node's read
      bandwidth ``B`` (assumed, per core share) is the bottleneck;
    * ``T_sched = k * o``: ``k = n / chunk_rows`` tasks through one central
      scheduler at ``o`` seconds each (default: the documented ~1 ms; the value
      measured on this machine is printed beside it);
    * ``T_merge = L * g / s``: ``M0 = k * m_b`` local centers (``m_b`` measured
      per chunk; the shadow's m per chunk does not grow with chunk length once
      the chunk covers the data's support), merged in groups of at most
      ``g = max_merge_centers`` at ``s`` centers/s (measured), ``L`` levels, the
      groups of one level in parallel.
    """
    workers = nodes * cores_per_node
    d = meas["n_features"]
    r = meas["per_worker_rows_per_s"]
    io_rate = read_gb_per_s_per_node * 1e9 / (8 * d) / cores_per_node
    out = []
    for n in n_rows_list:
        k = math.ceil(n / chunk_rows)
        M0 = k * meas["m_local_per_chunk"]
        levels = 1 if M0 <= max_merge_centers else 1 + math.ceil(math.log2(max(2.0, M0 / max_merge_centers)))
        t_local = n / (workers * min(r, io_rate))
        t_sched = k * task_overhead_s
        t_merge = levels * min(M0, max_merge_centers) / meas["merge_centers_per_s"]
        total = t_local + t_sched + t_merge
        out.append({"rows": n, "tasks": k, "local centers M0": int(M0), "merge levels": levels,
                    "T_local s": t_local, "T_sched s": t_sched, "T_merge s": t_merge,
                    "total s": total, "rows/s": n / total,
                    "bound by": "I/O" if io_rate < r else "compute"})
    return out


def _table(header, rows) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


def report(*, rows: int = 500_000, features: int = 32, chunk_rows: int = 25_000, sigma: float = 4.0,
           ell: float = 2.0, workers=(1, 2), repeats: int = 3, nodes: int = 100, cores_per_node: int = 16) -> str:
    """Measure, then return the Markdown tables and the model (``rskpca bench distributed``)."""
    if min(rows, chunk_rows, features, repeats) < 1:
        raise ValueError("rows, chunk rows, features and repeats must be positive.")
    meas = run(rows, features, chunk_rows, sigma, ell, list(workers), repeats)
    out = [f"## Distributed shadow throughput ({rows:,} rows x {features} features, "
           f"chunks of {chunk_rows:,}, sigma={sigma}, ell={ell}; m={meas['m']}, "
           f"M0={meas['M0']} local centers)\n",
           f"rows/s: median [min, max] of {repeats} runs; generation = producing the rows only.\n",
           _table(["setup", "workers", "shadow rows/s", "generation-only rows/s"], meas["rows"]),
           "\n## Measured constants\n",
           _table(["constant", "value"], [
               ("r: rows/s per worker (in-memory shadow, one core)", f"{meas['per_worker_rows_per_s']:,.0f}"),
               ("m_b: local centers per chunk", f"{meas['m_local_per_chunk']:.1f}"),
               ("s: merge rate, local centers/s", f"{meas['merge_centers_per_s']:,.0f}"),
               ("o: scheduler overhead per task, measured here (s)", f"{meas['task_overhead_s']:.2e}"),
               ("o: per task, documented, used by the model (s)", f"{DOCUMENTED_TASK_OVERHEAD_S:.0e}"),
           ])]
    model = cost_model(meas, nodes=nodes, cores_per_node=cores_per_node)
    out.append(f"\n## Cost model: {nodes} nodes x {cores_per_node} cores, chunks of 1,000,000 rows, "
               "1 GB/s read per node (assumed), same data shape (a projection, not a measurement)\n")
    keys = list(model[0])
    out.append(_table(keys, [[f"{row[k]:,.3g}" if isinstance(row[k], float) else f"{row[k]:,}"
                              if isinstance(row[k], int) else row[k] for k in keys] for row in model]))
    out.append("\n" + cost_model.__doc__.split("\n\n", 1)[1])
    return "\n".join(out)
