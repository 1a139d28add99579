"""The settings and helpers that every table of ``python tests/benchmarks/bench_speed.py`` shares.

Apart from the command's module so that the modules of its rows (``bench_fit_levers``,
``bench_eigensolver_rows``, ``bench_shadow_rows``,
``bench_app_fits``) time the same problem the same way without importing the
command that imports them.
"""

from __future__ import annotations

import numpy as np

from rskpca.evaluation import timing

SIGMA, ELL, R = 120.0, 4.0, 5
#: UCI pendigits: the first 7494 rows are the training file, the rest the test file.
PENDIGITS_TRAIN_ROWS = 7494


def best_time(fn, repeats: int) -> float:
    """Best wall time of ``repeats`` calls of ``fn`` after one warm-up call (rskpca.evaluation.timing)."""
    return timing.best_time(fn, timing.Timing(repeats=repeats, warmup=1))[1]


def load_pendigits(path: str) -> np.ndarray:
    """Features of ``pendigits.csv`` (header row, label last), as given (not standardised)."""
    return _load_labelled(path)


def _load_labelled(path: str) -> np.ndarray:
    """Features of a CSV (``.gz`` too) with a header row and the label last."""
    return np.loadtxt(path, delimiter=",", skiprows=1)[:, :-1]
