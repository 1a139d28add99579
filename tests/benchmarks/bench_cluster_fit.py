"""One machine against a 2-worker LocalCluster, short: the fit, the row generation alone and the shadow alone.

``python tests/benchmarks/bench_cluster_fit.py [--rows 1000000] [--repeats 3]``

The first table of ``rskpca bench distributed`` (same mixture, chunks of 250,000 rows, sigma 8,
ell 2) without its threaded, large and compile rows, plus :func:`~rskpca.distributed.distributed_shadow`
on rows persisted on the workers, which leaves the generation out. The one-machine fit is timed before
and after the cluster's (a busy machine's load drifts); the ratio is to the faster. Every time is the
best of ``--repeats``. To compare two versions back to back, run it with each on ``PYTHONPATH``.
"""

from __future__ import annotations

import argparse

from rskpca.core.shadow import load_compiled_kernels
from rskpca.decomposition import ReducedSetKPCA
from rskpca.distributed import distributed_shadow
from rskpca.evaluation.bench_distributed import _best_time, _cluster, _mixture
from rskpca.evaluation.timing import machine_load


def main(rows: int, repeats: int) -> str:
    X = _mixture(rows, 16, 250_000)
    X_mem = X.compute(scheduler="threads")

    def fit(data):
        return ReducedSetKPCA(n_components=5, sigma=8.0, ell=2.0).fit(data)

    load_compiled_kernels()
    before, _ = _best_time(lambda: fit(X_mem), repeats)
    cluster, client = _cluster(2)
    with cluster, client:
        client.run(lambda: __import__("rskpca.distributed"))
        client.run(load_compiled_kernels)
        persisted = X.persist()
        generation, _ = _best_time(lambda: X.sum().compute(), repeats)
        cluster_fit, _ = _best_time(lambda: fit(X), repeats)
        shadow, _ = _best_time(lambda: distributed_shadow(persisted, sigma=8.0, ell=2.0), repeats)
    after, _ = _best_time(lambda: fit(X_mem), repeats)
    return (f"one machine {before:.2f} s, {after:.2f} s after; 2-worker LocalCluster fit (lazy rows) "
            f"{cluster_fit:.2f} s = {cluster_fit / min(before, after):.2f}x; generation alone {generation:.2f} s; "
            f"the shadow alone on persisted rows {shadow:.2f} s; {machine_load()}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    print(machine_load())
    print(main(args.rows, args.repeats))
