"""The one column vocabulary of every results table: the app's, ``rskpca bench``'s, ``rskpca experiment``'s.

Each column is defined once here with its unit and meaning, in the order tables and CSV
files show it; rows use no other names (:func:`column_order` refuses an unknown one);
:func:`timing_columns` picks the ones that report times. Conventions:

* ``*_s`` are wall-clock seconds, each the best of the comparison's :class:`~rskpca.evaluation.timing.Timing`.
* ``train`` is what a method needs before it can embed new points (the estimator's fit; in
  classification also embedding the training rows and fitting the classifier); ``test`` is
  embedding the held-out rows (in classification also predicting).
* ``*_speedup`` = exact KPCA's time / this method's time for the same stage, both from the
  same run (above 1: faster than exact KPCA). ``*_speedup_over_nystrom`` divides Nystrom's
  time instead. Exact KPCA's time is its fastest scikit-learn solver's (``exact_solver``).
* A part never exceeds its whole: ``shadow_s + eigen_s <= train_s`` (both parts are timed inside
  the same fit call), ``train_exact_kpca_s + train_construction_s <= train_s``.

The table is printed by ``python -c "from rskpca.evaluation.result_columns import markdown; print(markdown())"``.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Mapping, Sequence

import numpy as np
import pandas as pd

__all__ = ["Column", "COLUMNS", "column_order", "format_table", "write_csv", "successful", "markdown",
           "TIMING_UNITS", "timing_columns"]


@dataclass(frozen=True)
class Column:
    """One column: its name, unit and meaning."""

    name: str
    unit: str
    meaning: str


COLUMNS: dict[str, Column] = {c.name: c for c in (
    # what was run
    Column("dataset", "", "data set name (file name without extensions, or 'mixture')"),
    Column("experiment", "", "'embedding' (Figures 2-3) or 'classification' (Figures 4-5, 7-8)"),
    Column("split", "", "index of the random 80/20 split or of the CV fold"),
    Column("method", "", "display label of the method"),
    Column("name", "", "registry key of the method (rskpca.evaluation.methods.METHODS)"),
    Column("group", "", "registry group: exact, rskpca, baseline, rsde, extra"),
    Column("n_train", "rows", "training rows"),
    Column("n_test", "rows", "held-out rows embedded (test)"),
    Column("d", "", "features"),
    Column("ell", "", "the shadow's ell"),
    Column("sigma", "", "Gaussian bandwidth, k = exp(-||x-y||^2 / sigma^2)"),
    Column("m", "points", "reduced-set size the method used (the shadow's m at ell; n_train for exact KPCA)"),
    Column("retained", "fraction", "m / n_train"),
    Column("stored_points", "points", "points a new x is projected through (n_train for Nystrom and exact)"),
    # accuracy
    Column("alignment_error", "relative", "min_A ||O - O~ A||_F / ||O||_F against exact KPCA's test embedding"),
    Column("eigenvalue_deviation", "", "||lambda - lambda~||_2 of the normalized eigenvalues (of K/n)"),
    Column("accuracy", "fraction", "classifier accuracy on the held-out rows"),
    Column("exact_accuracy", "fraction", "the same classifier on exact KPCA features"),
    Column("gram_spectral_error", "", "||K^ - K||_2 of a sampled Gram matrix (methods that perturb it)"),
    Column("gram_relative_error", "fraction", "gram_spectral_error / ||K||_2"),
    # where the time goes (rskpca bench fit)
    Column("shadow_path", "", "the shadow's scan: 'compiled' (the in-order loop on a principal-axis grid) "
           "or 'blas' (GEMM screen)"),
    Column("shadow_s", "s", "shadow selection, timed inside the fit (part of train_s)"),
    Column("floor_ratio", "ratio", "shadow_s / (2 d sum_i m(i) flops at the measured GEMM rate): the "
           "screen's floor; below 1 when the compiled scan skips pairs"),
    Column("eigen_solver", "", "solver of the m x m eigenproblem"),
    Column("eigen_s", "s", "centers' kernel matrix + eigenproblem, timed inside the fit (part of train_s)"),
    Column("train_exact_kpca_s", "s", "reduced-set construction: its exact KPCA part (part of train_s)"),
    Column("train_construction_s", "s", "reduced-set construction: its construction part (part of train_s)"),
    # times
    Column("train_s", "s", "training time of the method"),
    Column("test_s", "s", "test time of the method on the n_test held-out rows"),
    Column("test_per_1e4_s", "s", "test time per 10^4 held-out rows"),
    Column("exact_solver", "", "fastest scikit-learn solver of exact KPCA in this run (the baseline)"),
    Column("exact_arpack_train_s", "s", "exact KPCA training with eigen_solver='arpack'"),
    Column("exact_randomized_train_s", "s", "exact KPCA training with eigen_solver='randomized'"),
    Column("exact_train_s", "s", "exact KPCA training: the faster of the two solvers"),
    Column("exact_test_s", "s", "exact KPCA test time on the same held-out rows"),
    Column("exact_test_per_1e4_s", "s", "exact_test_s per 10^4 held-out rows"),
    Column("nystrom_train_s", "s", "Nystrom at the same m: training"),
    Column("nystrom_test_per_1e4_s", "s", "Nystrom at the same m: test time per 10^4 held-out rows"),
    # ratios
    Column("train_speedup", "ratio", "exact_train_s / train_s"),
    Column("test_speedup", "ratio", "exact_test_s / test_s"),
    Column("total_speedup", "ratio", "(exact_train_s + exact_test_s) / (train_s + test_s)"),
    Column("train_speedup_over_nystrom", "ratio", "nystrom_train_s / train_s"),
    Column("test_speedup_over_nystrom", "ratio", "nystrom_test_per_1e4_s / test_per_1e4_s"),
    # machine
    Column("peak_mb", "MiB", "peak traced allocations of one RSKPCA fit"),
    Column("gemm_gflops", "GFLOP/s", "float64 GEMM rate measured in the same run"),
    Column("repeats", "", "timed calls per time (the best is reported)"),
    Column("warmup", "", "untimed calls before them"),
    Column("outcome", "", "ok (ran), skipped (slow at this m, not run) or failed (could not run); "
                          "rskpca.evaluation.compare.Outcome"),
    Column("error", "", "why the method could not run (empty when it ran)"),
)}


def column_order(rows: Iterable[Mapping]) -> list[str]:
    """The columns present in ``rows``, in vocabulary order; an undefined name is an error.

    >>> column_order([{"train_s": 1.0, "m": 3}])
    ['m', 'train_s']
    """
    present = set()
    for row in rows:
        present.update(row)
    unknown = sorted(present - set(COLUMNS))
    if unknown:
        raise ValueError(f"Columns {unknown} are not in rskpca.evaluation.result_columns.COLUMNS; define them there.")
    return [name for name in COLUMNS if name in present]


def format_table(rows: Sequence[Mapping], columns: Sequence[str] | None = None) -> str:
    """A fixed-width text table of the rows (3 significant digits), columns in vocabulary order.

    >>> print(format_table([{"n_train": 10, "train_s": 0.012345}]))
    n_train train_s
    10      0.0123
    """
    columns = column_order(rows) if columns is None else list(columns)

    def fmt(v):
        if isinstance(v, (float, np.floating)):
            return "nan" if not np.isfinite(v) else f"{v:.3g}"
        return str(v)
    cells = [list(columns)] + [[fmt(r.get(c, "")) for c in columns] for r in rows]
    widths = [max(len(line[i]) for line in cells) for i in range(len(columns))]
    return "\n".join(" ".join(v.ljust(w) for v, w in zip(line, widths)).rstrip() for line in cells)


def write_csv(rows: Sequence[Mapping], path, *, overwrite: bool = False) -> Path:
    """Write the rows to ``path`` in the same column order as :func:`format_table`.

    An existing file is kept unless ``overwrite``: a second run must not silently replace
    the first one's results.
    """
    path = Path(path)
    if path.exists() and not overwrite:
        raise ValueError(f"{path} exists (an earlier run's results); pass --overwrite to replace it, "
                         "or --out another folder.")
    path.parent.mkdir(parents=True, exist_ok=True)
    pd.DataFrame(list(rows), columns=column_order(rows)).to_csv(path, index=False)
    return path


def successful(df: pd.DataFrame) -> pd.DataFrame:
    """The rows of a results table whose ``error`` is empty (also after a CSV round trip).

    >>> successful(pd.DataFrame({"error": ["", float("nan"), "too few centers"]})).shape[0]
    2
    """
    if "error" not in df.columns:
        return df
    return df[df["error"].isna() | (df["error"].astype(str) == "")]


def markdown() -> str:
    """The vocabulary as a markdown table (for the README)."""
    lines = ["| column | unit | meaning |", "|---|---|---|"]
    lines += [f"| `{c.name}` | {c.unit} | {c.meaning} |" for c in COLUMNS.values()]
    return "\n".join(lines)


#: The units (:data:`~rskpca.evaluation.result_columns.COLUMNS`) of the columns that report times:
#: seconds, and ratios of times (the speedups).
TIMING_UNITS = ("s", "ratio")


def timing_columns(columns) -> list[str]:
    """The columns among ``columns`` that report times, by their unit in the column vocabulary.

    Seconds and ratios of times (:data:`TIMING_UNITS`), and ``exact_solver`` (the solver exact
    KPCA's times are from). A view that fits without timing (the app's Embeddings page) leaves
    them out; the vocabulary refuses a column it does not define.

    Parameters
    ----------
    columns : iterable of str
        Column names of a :func:`~rskpca.evaluation.compare.compare` table.

    Returns
    -------
    list of str
        The timing columns, in the order given.

    Examples
    --------
    >>> timing_columns(["method", "alignment_error", "train_s", "test_speedup", "exact_solver", "m"])
    ['train_s', 'test_speedup', 'exact_solver']
    """
    columns = list(columns)
    unknown = [c for c in columns if c not in COLUMNS]
    if unknown:
        raise ValueError(f"Columns {unknown} are not in rskpca.evaluation.result_columns.COLUMNS; define them there.")
    return [c for c in columns if COLUMNS[c].unit in TIMING_UNITS or c == "exact_solver"]
