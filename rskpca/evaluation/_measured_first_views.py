"""Each page's first view as a line in the rows, measured by ``python tests/benchmarks/bench_row_cap.py --write``,
which regenerates this file. Do not edit by hand; the measured table is in ``tests/benchmarks/RESULTS.md``
and what the numbers mean in :mod:`rskpca.evaluation.row_cap`.
"""

#: The row counts the first views were measured at.
MEASURED_ROWS = (5000, 20000, 50000, 100000, 200000, 500000, 1000000)

#: ``{page: (fixed seconds, seconds per row)}``: a line fitted to each page's measured first views.
FIRST_VIEW_LINES = {
    'Loading': (0.183264, 7.3473e-07),
    'Data': (0.036274, 7.337261e-06),
    'Shadow centers': (0.064931, 4.90138e-07),
    'KDE vs ShDE': (0.0, 4.621854e-06),
    'Embeddings': (0.41, 0.0),
    'Bounds': (0.134227, 7.1545e-08),
    'Speedups': (1.590175, 1.991258e-06),
    'Kernelization': (0.015827, 7.0867e-08),
    'Learn': (0.015966, 8.0689e-08),
    'Denoise': (0.013774, 1.24517e-07),
    'Spectral': (0.0, 6.209105e-06),
}
