"""Cost constants measured by ``python tests/benchmarks/bench_costs.py --write``, which regenerates this file.

Do not edit by hand: run the benchmark on the machine the app serves from. What each number means is
in :mod:`rskpca.evaluation.costs`; the runs behind them are in ``tests/benchmarks/RESULTS.md``.
"""

#: Seconds per (row x center) of fitting each O(nm) method on all n rows and embedding every row.
SECONDS_PER_NM = {
    'rskpca': 1.5e-09,
    'subsampled': 1.5e-09,
    'rskpca_uniform': 1.5e-09,
    'random_fourier': 6.8e-08,
    'nystrom': 7.3e-09,
    'wnystrom': 1.4e-07,
    'rskpca_kmeans': 1.4e-07,
    'rskpca_herding': 1.2e-07,
}
