"""The ``rskpca`` command: ``app``, ``embed``, ``transform``, ``cluster``, ``retained``, ``bench`` and
``experiment`` (also ``python -m rskpca``).

* ``rskpca app [FILE] [streamlit options]`` starts the interactive app with FILE read on the server as
  the data in use (no upload size limit); ``--server.port 8600`` and Streamlit's other options pass through.
  It needs the app's extra (``pip install "rskpca[app]"``); the other commands need none of it, but
  ``experiment``'s figures (Plotly).
* ``rskpca embed data.csv --sigma median --ell 4 -r 5 -o embedding.csv`` runs kernel PCA (RSKPCA)
  on a CSV/TSV/Parquet/NPY file and writes each row's embedding and shadow center; ``--save
  model.skops`` keeps the model, and ``rskpca transform new.csv --model model.skops`` applies it.
  ``--method diffusion`` or ``spectral`` embeds by a diffusion map or Laplacian eigenmaps instead.
* ``rskpca cluster data.csv -k 3 -o labels.csv`` clusters the rows (spectral clustering through the
  shadow) and writes each row's cluster and shadow center.
* ``rskpca retained`` tabulates the shadow's m / n against the data's scale and ell.

* ``rskpca bench [fit]`` times shadow selection, the eigenproblem, the whole fit, exact KPCA and
  Nystrom on a grid of n, d and ell (or on a data file), prints a table and writes CSV;
  ``rskpca bench methods`` compares every registered method; ``rskpca bench distributed``
  measures the Dask shadow. Columns: :mod:`rskpca.evaluation.result_columns`.
* ``rskpca experiment`` reproduces Section 6 of the paper on labelled CSV files: tidy CSV,
  one self-contained Plotly HTML per figure, and a markdown summary.

A progress bar is drawn on stderr; results go to stdout and to the output folder.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

import numpy as np

from rskpca.cli._app import add_app_parser, split_app_args
from rskpca.cli._bench import _bench
from rskpca.cli._cluster import add_cluster_parser
from rskpca.cli._experiment import _experiment, _retained, markdown_table
from rskpca.cli._progress import ProgressBar, parse_ells

__all__ = ["main", "build_parser", "ProgressBar", "parse_ells", "markdown_table", "missing_package_text"]


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}")
    return value


def _positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not (np.isfinite(value) and value > 0):
        raise argparse.ArgumentTypeError(f"expected a positive number, got {text!r}")
    return value


def _sigma(text: str):
    """``median`` or a positive number."""
    return "median" if text == "median" else _positive_float(text)


def _add_embed_parsers(sub) -> None:
    em = sub.add_parser("embed", help="kernel PCA (RSKPCA) of a data file: the embedding and each row's shadow "
                                      "center", description="Reads CSV, TSV (gzip allowed), Parquet or NPY with "
                                      "the app's checks, fits ReducedSetKPCA (--method: or a diffusion map, "
                                      "or Laplacian eigenmaps) on the numeric columns and writes "
                                      "pc1..pcR (dc1.. or se1..), center (index of the row's shadow "
                                      "center), center_row (the file row of that center) and the label "
                                      "column if there is one.")
    em.add_argument("data", type=Path, help="the data file")
    em.add_argument("--sigma", type=_sigma, default="median", help="bandwidth, or median (default)")
    em.add_argument("--ell", type=_positive_float, default=4.0, help="shadow parameter, eps = sigma / ell "
                                                                       "(default 4)")
    em.add_argument("-r", "--rank", type=_positive_int, default=2, help="number of components (default 2)")
    em.add_argument("--method", choices=["kpca", "diffusion", "spectral"], default="kpca",
                    help="kpca (ReducedSetKPCA, columns pc1..), diffusion (ReducedSetDiffusionMap, dc1..) or "
                         "spectral (Laplacian eigenmaps, ReducedSetSpectralEmbedding, se1..); default kpca")
    em.add_argument("--alpha", type=float, default=1.0,
                    help="diffusion: density normalisation in [0, 1] (default 1)")
    em.add_argument("--t", type=float, default=1.0, help="diffusion: time, coordinates lambda^t psi (default 1)")
    em.add_argument("--kernel", choices=["gaussian", "laplacian"], default="gaussian")
    em.add_argument("--columns", nargs="+", help="feature columns (default: every numeric column but the label)")
    em.add_argument("--standardize", action="store_true",
                    help="scale each feature to unit variance first (kept in the saved model)")
    em.add_argument("--save", type=Path, help="save the fitted model: *.skops (safe to load; needs "
                                              "rskpca[skops]) or *.joblib (pickle: load only your own files)")
    em.add_argument("--seed", type=int, default=0)
    tr = sub.add_parser("transform", help="embed a new data file with a model saved by rskpca embed --save",
                        description="Reads the file as embed does, takes the model's feature columns by name, "
                                    "and writes pc1..pcR (and the label column if there is one).")
    tr.add_argument("data", type=Path, help="the data file")
    tr.add_argument("--model", type=Path, required=True, help="*.skops or *.joblib from rskpca embed --save")
    for p in (em, tr):
        p.add_argument("-o", "--output", default="-",
                       help="output file: .csv, .tsv, .parquet or .npy; - (default) is CSV on stdout")
        p.add_argument("--label", default="auto",
                       help="label column copied to the output: a name, auto (guessed as in the app: "
                            "label, target, class, ...) or none")
        p.add_argument("-q", "--quiet", action="store_true", help="no progress messages on stderr")


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``rskpca`` command."""
    parser = argparse.ArgumentParser(prog="rskpca", description=__doc__.split("\n\n")[0])  # not a method name
    sub = parser.add_subparsers(dest="command", required=True)
    add_app_parser(sub)
    _add_embed_parsers(sub)
    add_cluster_parser(sub, positive_int=_positive_int, positive_float=_positive_float, sigma=_sigma)

    b = sub.add_parser("bench", help="time the fit (mode fit, the default), every method (methods), or Dask "
                                     "(distributed)",
                       description="rskpca bench [fit|methods|distributed] ...; without a mode: fit. Every "
                                   "method is timed with the same --repeats after the same --warmup.")
    modes = b.add_subparsers(dest="mode")
    f = modes.add_parser("fit", help="where RSKPCA's fit time goes, against exact KPCA and Nystrom",
                         description="Gaussian-mixture data (sigma by the median heuristic) on a grid of "
                                     "n, d, ell; or, with --data, a labelled CSV split 80/20.")
    f.add_argument("--n", type=_positive_int, nargs="+", default=[2_000, 5_000], help="training sizes")
    f.add_argument("--d", type=_positive_int, nargs="+", default=[2, 16], help="dimensions")
    f.add_argument("--ell", type=parse_ells, nargs="+", default=[[3.0, 4.0]],
                   help="ell values: 3 4, 3,4 or 3:5:0.5")
    f.add_argument("--n-test", type=_positive_int, default=2_000, help="points projected per case")
    f.add_argument("--exact-max-n", type=_positive_int, default=12_000,
                   help="largest n for exact KPCA and Nystrom (n x n matrix: 8 n^2 bytes); default 12000")
    m = modes.add_parser("methods", help="every registered method at the shadow's m against exact KPCA",
                         description="The app's comparison path on a labelled CSV (--data) or a mixture.")
    m.add_argument("--n", type=_positive_int, default=2_000, help="training rows")
    m.add_argument("--n-test", type=_positive_int, default=500, help="held-out rows embedded")
    m.add_argument("--ell", type=float, default=4.0)
    m.add_argument("--methods", nargs="+", default=None, help="registered names (default: exact, "
                   "exact_iterative, rskpca, nystrom, rs_construction, gram_sparsified, gram_quantized, "
                   "random_fourier)")
    for mode, rank, repeats in ((f, 5, 2), (m, 3, 2)):
        mode.add_argument("--rank", type=_positive_int, default=rank, help="number of components")
        mode.add_argument("--repeats", type=_positive_int, default=repeats,
                          help=f"timed calls per time, the best reported (default {repeats})")
        mode.add_argument("--warmup", type=int, default=1, help="untimed calls before them (default 1)")
        mode.add_argument("--data", type=Path, help="labelled CSV instead of synthetic data")
        mode.add_argument("--sigma", type=float, help="bandwidth (default: the paper's for --data by file name, "
                                                      "else the median heuristic)")
        mode.add_argument("--out", type=Path, default=Path("bench-results"), help="output folder")
        mode.add_argument("--overwrite", action="store_true", help="replace an earlier run's CSV in --out")
        mode.add_argument("--seed", type=int, default=0)
    dist = modes.add_parser("distributed", help="exact distributed shadow vs one machine, rows/s vs Dask workers, "
                                                "and a cost model (needs rskpca[dask])")
    dist.add_argument("--rows", type=_positive_int, default=2_000_000)
    dist.add_argument("--features", type=_positive_int, default=16)
    dist.add_argument("--chunk-rows", type=_positive_int, default=250_000)
    dist.add_argument("--large-rows", type=int, default=10_000_000, help="lazily generated rows (0: skip)")
    dist.add_argument("--sigma", type=float, default=8.0)
    dist.add_argument("--ell", type=float, default=2.0)
    dist.add_argument("--workers", type=_positive_int, nargs="+", default=[1, 2])
    dist.add_argument("--repeats", type=_positive_int, default=3)
    dist.add_argument("--nodes", type=_positive_int, default=100)
    dist.add_argument("--cores-per-node", type=_positive_int, default=16)

    e = sub.add_parser("experiment", help="reproduce Section 6 (Figures 2-8) on labelled CSV files",
                       description="Each file needs a 'label' column. sigma defaults to the paper's "
                                   "Table 1 by file name (german 30, pendigits 120, usps 18).")
    e.add_argument("--data", type=Path, nargs="+", required=True, help="CSV files (may be .csv.gz)")
    e.add_argument("--sigma", type=float, help="bandwidth for every file (overrides the paper's)")
    e.add_argument("--ells", type=parse_ells, default=None, help="default 3.0:5.0:0.1")
    e.add_argument("--repeats", type=_positive_int, default=50, help="80/20 splits (paper: 50)")
    e.add_argument("--folds", type=_positive_int, default=10, help="CV folds for 3-NN (paper: 10)")
    e.add_argument("--rank", type=_positive_int, default=5, help="rank of the embedding (paper: 5)")
    e.add_argument("--knn-rank", type=_positive_int, help="rank fed to 3-NN (default: Table 1's k)")
    e.add_argument("--methods", nargs="+", default=None,
                   help="registered methods for Figures 2-5 (default: rskpca subsampled nystrom wnystrom)")
    e.add_argument("--rsde-methods", nargs="+", default=None,
                   help="methods for Figures 7-8 (default: rskpca rskpca_kmeans rskpca_uniform "
                        "rskpca_herding)")
    e.add_argument("--max-rows", type=_positive_int, help="seeded uniform subsample of each file")
    e.add_argument("--scale", type=float, default=1.0,
                   help="multiply every feature by this factor first (e.g. 0.5 maps usps' [-1, 1] pixels to a "
                        "range of 1, as in [0, 1]); the shadow sees sigma / scale on the stored data")
    e.add_argument("--skip", nargs="*", default=[], choices=["embedding", "classification", "rsde"],
                   help="parts to leave out")
    e.add_argument("--out", type=Path, default=Path("experiment-results"), help="output folder")
    e.add_argument("--overwrite", action="store_true", help="replace an earlier run's results in --out")
    e.add_argument("--seed", type=int, default=0)

    rt = sub.add_parser("retained", help="the shadow's retained fraction m/n against the data's scale and ell",
                        description="Multiplies every feature by each --scales factor (the same as sigma / "
                                    "factor on the file's values) and prints m / n in percent per ell.")
    rt.add_argument("--data", type=Path, required=True, help="CSV with a 'label' column (may be .csv.gz)")
    rt.add_argument("--sigma", type=float, help="bandwidth (default: Table 1's by file name)")
    rt.add_argument("--scales", type=_positive_float, nargs="+", default=[1.0], help="feature scale factors")
    rt.add_argument("--ells", type=parse_ells, default=[3.0, 4.0, 5.0], help="default 3,4,5")
    rt.add_argument("--max-rows", type=_positive_int, help="seeded uniform subsample of the file")
    rt.add_argument("--seed", type=int, default=0)
    return parser


#: Exit status when the reader of stdout left early: 128 + SIGPIPE, what a Unix tool killed by the
#: signal reports (``seq 1e9 | head`` under ``set -o pipefail``); the command stopped there, so
#: anything after the output (``embed --save``) was not done, and a script can tell.
EXIT_BROKEN_PIPE = 141

#: The extra of pyproject.toml that brings each optional package a command may import (``pip install rskpca``
#: is the library alone): a missing one is named with what to install, not shown as a traceback.
EXTRA_OF_PACKAGE = {"streamlit": "app", "plotly": "app", "pyarrow": "parquet", "dask": "dask",
                    "distributed": "dask", "skops": "skops"}

#: Modes of ``rskpca bench``; a bare ``rskpca bench`` (or one followed by options) means ``fit``.
BENCH_MODES = ("fit", "methods", "distributed")


def main(argv=None) -> int:
    """Entry point of the ``rskpca`` console script; returns the exit status.

    Bad input (missing file, unknown method, unreadable values) or a missing optional package
    (:func:`missing_package_text` names its extra) prints one clear line to stderr and returns 2
    instead of a traceback; a closed stdout (``| head``) returns
    :data:`EXIT_BROKEN_PIPE` (141) quietly.
    """
    parser = build_parser()
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["bench"] and (len(argv) == 1 or argv[1] not in BENCH_MODES + ("-h", "--help")):
        argv.insert(1, "fit")
    if argv[:1] == ["app"]:  # FILE and Streamlit's options in any order, which argparse cannot split
        file, options = split_app_args(argv[1:])
        if {"-h", "--help"} & set(options):
            parser.parse_args(["app", "--help"])
        args = argparse.Namespace(command="app", file=file, streamlit_options=options)
    else:
        args = parser.parse_args(argv)
    if args.command == "app":
        from rskpca.cli._app import app_command

        command = app_command
    elif args.command in ("embed", "transform"):
        from rskpca.cli._embed import embed_command, transform_command

        command = embed_command if args.command == "embed" else transform_command
    elif args.command == "cluster":
        from rskpca.cli._cluster import cluster_command

        command = cluster_command
    else:
        command = {"bench": _bench, "experiment": _experiment, "retained": _retained}[args.command]
    try:
        status = command(args)
        sys.stdout.flush()  # a reader that left shows here at the latest, not in the interpreter's exit
        return status
    except BrokenPipeError:
        # `rskpca embed data.csv | head`: the reader left. Python docs' "Note on SIGPIPE": point
        # stdout at devnull so that the exit's flush cannot fail again, and stop without a traceback.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_BROKEN_PIPE
    except (ValueError, OSError) as exc:  # DataError is a ValueError; OSError: unwritable output, full disk
        print(f"rskpca {args.command}: error: {' '.join(str(exc).split())}", file=sys.stderr)
        return 2
    except ImportError as exc:  # an optional package (`rskpca experiment` draws with Plotly, ...)
        print(f"rskpca {args.command}: error: {missing_package_text(exc)}", file=sys.stderr)
        return 2


def missing_package_text(exc: ImportError) -> str:
    """What to install for a missing optional package: its extra when :data:`EXTRA_OF_PACKAGE` knows it.

    Examples
    --------
    >>> missing_package_text(ModuleNotFoundError("No module named 'plotly'", name="plotly.graph_objects"))
    'this command needs plotly, which `pip install rskpca` leaves out: pip install "rskpca[app]"'
    """
    package = (getattr(exc, "name", None) or "").split(".")[0]
    if isinstance(exc, ModuleNotFoundError) and package in EXTRA_OF_PACKAGE:
        return (f"this command needs {package}, which `pip install rskpca` leaves out: "
                f'pip install "rskpca[{EXTRA_OF_PACKAGE[package]}]"')
    return " ".join(str(exc).split())


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
