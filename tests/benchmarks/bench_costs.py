"""Benchmark: the cost constants of rskpca.evaluation.costs, measured; ``--write`` regenerates the file they live in.

``python tests/benchmarks/bench_costs.py [--rows 200000] [--slow-rows 20000] [--repeats 2] [--write]``

For each O(nm) method the app fits on all rows (:data:`rskpca.evaluation._measured_costs.SECONDS_PER_NM`'s
keys), it fits the method on a seeded 10-d Gaussian mixture and embeds every row
(:func:`rskpca.evaluation.all_rows.fit_on_all_rows`, float32 embedding, as the Embeddings page does),
on the libraries' threads, and divides the best of ``--repeats`` by n x m (m: the shadow's at ell = 4
and the median-heuristic sigma). The k-means and herding based methods and density-weighted Nystrom
cost about 100x more per (row x center): they run on ``--slow-rows`` rows. It prints one line per
method and, with ``--write``, writes ``rskpca/evaluation/_measured_costs.py``. Run it on the machine
the app serves from, with nothing else running: the constants are what the pages predict with.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(Path(__file__).resolve().parent))

#: Methods costed on ``--slow-rows`` rows (their fits iterate over the n x m distances).
SLOW = ("wnystrom", "rskpca_kmeans", "rskpca_herding")


def seconds_per_nm(name: str, X: np.ndarray, *, sigma: float, ell: float = 4.0, repeats: int = 2) -> tuple[float, int]:
    """``(best seconds / (n m), m)`` of fitting ``name`` on every row of X and embedding every row, the
    shadow given to the methods fitted on it (as the app gives them the sidebar's).

    >>> from bench_row_cap import mixture
    >>> per, m = seconds_per_nm("rskpca", mixture(2000), sigma=8.0, repeats=1)
    >>> per > 0 and m > 0
    True
    """
    from rskpca.core.shadow import shadow_centers
    from rskpca.evaluation.all_rows import fit_on_all_rows

    from rskpca.evaluation.methods import METHODS

    shadow = shadow_centers(X, sigma=sigma, ell=ell)
    m = shadow.m
    # As the app fits: a method on the shadow is given the sidebar's, already computed (not timed here).
    given = shadow if METHODS[name].fits_on_shadow else None
    best = np.inf
    for _ in range(max(1, int(repeats))):
        t0 = time.perf_counter()
        fit_on_all_rows(name, X, n_components=5, sigma=sigma, ell=ell, m=m, embed_dtype=np.float32, shadow=given)
        best = min(best, time.perf_counter() - t0)
    return best / (X.shape[0] * m), m


def main(argv=None) -> int:
    from bench_row_cap import mixture

    from rskpca.core.bandwidth_heuristic import median_heuristic
    from rskpca.evaluation._measured_costs import SECONDS_PER_NM
    from rskpca.evaluation.timing import machine_load

    parser = argparse.ArgumentParser(prog="python tests/benchmarks/bench_costs.py", description=__doc__.split("\n")[0])
    parser.add_argument("--rows", type=int, default=200_000)
    parser.add_argument("--slow-rows", type=int, default=20_000)
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--methods", nargs="+", default=list(SECONDS_PER_NM))
    parser.add_argument("--write", action="store_true", help="write rskpca/evaluation/_measured_costs.py")
    args = parser.parse_args(argv)
    print(f"# {machine_load()} at start", flush=True)
    measured = dict(SECONDS_PER_NM)
    for name in args.methods:
        X = mixture(args.slow_rows if name in SLOW else args.rows)
        per, m = seconds_per_nm(name, X, sigma=median_heuristic(X), repeats=args.repeats)
        measured[name] = float(f"{per:.2g}")
        print(f"{name:16s} n = {X.shape[0]:>9,}  m = {m:>6,}  {per:.3g} s per (row x center)", flush=True)
    print(f"# {machine_load()} at end")
    if args.write:
        target = REPO / "rskpca" / "evaluation" / "_measured_costs.py"
        target.write_text(
            '"""Cost constants measured by ``python tests/benchmarks/bench_costs.py --write``, which regenerates '
            'this file.\n\nDo not edit by hand: run the benchmark on the machine the app serves from. What each '
            'number means is\nin :mod:`rskpca.evaluation.costs`; the runs behind them are in '
            '``tests/benchmarks/RESULTS.md``.\n"""\n\n'
            "#: Seconds per (row x center) of fitting each O(nm) method on all n rows and embedding every row.\n"
            "SECONDS_PER_NM = {\n" + "".join(f"    {k!r}: {v!r},\n" for k, v in measured.items()) + "}\n")
        print(f"# wrote {target.relative_to(REPO)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
