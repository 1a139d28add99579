"""Cost constants measured by ``python tests/benchmarks/bench_costs.py --write``, which regenerates this file.

Do not edit by hand: run the benchmark on the machine the app serves from. What each number means is
in :mod:`rskpca.evaluation.costs`; the runs behind them are in ``tests/benchmarks/RESULTS.md``.
"""

#: Seconds per (row x center) of fitting each O(nm) method on all n rows and embedding every row.
SECONDS_PER_NM = {
    "rskpca": 5.5e-10,
    "subsampled": 5.5e-10,
    "rskpca_uniform": 5.5e-10,
    "random_fourier": 5e-09,
    "nystrom": 2.5e-08,
    "wnystrom": 3e-07,
    "rskpca_kmeans": 3e-07,
    "rskpca_herding": 3e-07,
}
