"""``rskpca embed`` and ``rskpca transform``: kernel PCA (or a spectral embedding) of a data file from a shell.

``embed`` reads a table (CSV, TSV, Parquet or NPY, through :func:`rskpca.data.readers.read_table`,
the reader and checks the app uses), fits :class:`~rskpca.ReducedSetKPCA` (``--method kpca``),
:class:`~rskpca.ReducedSetDiffusionMap` (``diffusion``) or :class:`~rskpca.ReducedSetSpectralEmbedding`
(``spectral``) and writes each row's embedding with the shadow center that absorbed it; ``--save`` keeps the fitted model
(:mod:`rskpca.cli._models`). ``transform`` embeds a new file with a saved model. Messages
go to stderr, the table to the output file (or to stdout).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

from rskpca.cli._models import check_can_save, load_model, save_model
from rskpca.data.datasets import DataError, guess_label_column, prepare
from rskpca.data.readers import read_table, require_pyarrow
from rskpca.decomposition import ReducedSetDiffusionMap, ReducedSetKPCA, ReducedSetSpectralEmbedding

__all__ = ["read_data_file", "write_table", "embed_command", "transform_command", "OUTPUT_SUFFIXES",
           "EMBED_METHODS"]

#: ``--method`` of ``rskpca embed``: the estimator and the prefix of its output columns.
EMBED_METHODS = {"kpca": (ReducedSetKPCA, "pc"), "diffusion": (ReducedSetDiffusionMap, "dc"),
                 "spectral": (ReducedSetSpectralEmbedding, "se")}

#: Output formats by extension; anything else (and "-", stdout) is CSV.
OUTPUT_SUFFIXES = {".csv": "csv", ".gz": "csv", ".tsv": "tsv", ".tab": "tsv", ".parquet": "parquet",
                   ".pq": "parquet", ".npy": "npy"}


def read_data_file(path) -> pd.DataFrame:
    """A data file as a DataFrame, with the app's reader; a :class:`DataError` names any problem.

    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "t.csv")
    >>> _ = open(path, "w").write("a,b\\n1,2\\n3,4\\n")
    >>> read_data_file(path).shape
    (2, 2)
    """
    path = Path(path)
    if not path.exists():
        raise DataError(f"no file at {str(path)!r}; give the path of a CSV, TSV, Parquet or NPY file.")
    if not path.is_file():
        raise DataError(f"{str(path)!r} is a folder, not a data file.")
    return read_table(path.read_bytes(), path.name)


def write_table(table: pd.DataFrame, output: str) -> str:
    """Write ``table`` to ``output`` (format from the extension; ``-`` is CSV on stdout); returns where."""
    if output == "-":
        table.to_csv(sys.stdout, index=False)
        return "stdout"
    path = Path(output)
    if not path.parent.is_dir():
        raise DataError(f"cannot write {output!r}: the folder {str(path.parent)!r} does not exist.")
    kind = OUTPUT_SUFFIXES.get(path.suffix.lower(), "csv")
    if kind == "parquet":
        require_pyarrow(f"writing {path.name}")
        table.to_parquet(path, index=False)
    elif kind == "npy":
        text = [c for c in table.columns if not pd.api.types.is_numeric_dtype(table[c])]
        if text:
            raise DataError(f"a .npy file holds numbers only, and column(s) {text} are text; write .csv or "
                            ".parquet instead, or pass --label none.")
        np.save(path, table.to_numpy(dtype=np.float64), allow_pickle=False)
    else:
        table.to_csv(path, index=False, sep="\t" if kind == "tsv" else ",")
    return str(path)


def _label(df: pd.DataFrame, choice: str) -> str | None:
    """The label column: ``auto`` guesses as the app does, ``none`` means no label, else a column name."""
    if choice == "none":
        return None
    if choice == "auto":
        return guess_label_column(df)
    if choice not in df.columns:
        raise DataError(f"--label {choice!r} is not a column of the file (columns: {list(df.columns)[:10]}); "
                        "pass one of them, auto or none.")
    return choice


class _Log:
    def __init__(self, command: str, quiet: bool):
        self.command, self.quiet, self.start = command, quiet, time.perf_counter()

    def __call__(self, message: str) -> None:
        if not self.quiet:
            print(f"rskpca {self.command} [{time.perf_counter() - self.start:6.1f}s] {message}", file=sys.stderr,
                  flush=True)


def _prefix(model) -> str:
    """Output column prefix of a fitted model (or of a pipeline's last step): pc, dc or se."""
    est = model.steps[-1][1] if hasattr(model, "steps") else model
    return next((prefix for cls, prefix in EMBED_METHODS.values() if isinstance(est, cls)), "pc")


def _embedding_table(Z: np.ndarray, extra: dict, prefix: str = "pc") -> pd.DataFrame:
    table = pd.DataFrame(Z, columns=[f"{prefix}{k + 1}" for k in range(Z.shape[1])])
    for name, values in extra.items():
        table[name] = values
    return table


def embed_command(args) -> int:
    """Fit RSKPCA on ``args.data`` and write the embedding, the shadow center of each row and the label."""
    from sklearn.pipeline import Pipeline
    from sklearn.preprocessing import StandardScaler

    log = _Log("embed", args.quiet)
    if args.save is not None:  # a model that cannot be saved stops the command before the fit and any output
        check_can_save(args.save)
    df = read_data_file(args.data)
    label = _label(df, args.label)
    ds = prepare(df, feature_columns=args.columns, label_column=label)
    log(f"read {args.data}: {ds.n} rows, {ds.d} features" + (f", label column {label!r}" if label else ""))
    for note in ds.notes:  # what the app's Data page says of the same table
        log(note)
    method = getattr(args, "method", "kpca")
    cls, prefix = EMBED_METHODS[method]
    extra_params = {"alpha": args.alpha, "t": args.t} if method == "diffusion" else {}
    kpca = cls(n_components=args.rank, sigma=args.sigma, ell=args.ell, kernel=args.kernel,
               random_state=args.seed, **extra_params)
    # Standardizing inside a pipeline stores the training means and scales with the model for transform.
    model = Pipeline([("scale", StandardScaler()), ("kpca", kpca)]) if args.standardize else kpca
    X = pd.DataFrame(ds.X, columns=ds.feature_names)
    log(f"fitting the shadow and the m x m eigenproblem ({cls.__name__}, sigma={args.sigma}, ell={args.ell}, "
        f"rank={args.rank})")
    Z = model.fit(X).transform(X)
    log(f"shadow kept m = {kpca.centers_.shape[0]} centers of {ds.n} rows ({100 * kpca.centers_.shape[0] / ds.n:.1f}%),"
        f" sigma_ = {kpca.sigma_:.6g}")
    extra = {"center": kpca.labels_, "center_row": ds.row_ids[kpca.center_indices_[kpca.labels_]]}
    if label is not None:
        extra[label] = ds.y
    where = write_table(_embedding_table(Z, extra, prefix), args.output)
    log(f"wrote {where}: {ds.n} rows ({prefix}1..{prefix}{Z.shape[1]}, center, center_row"
        + (f", {label}" if label else "") + ")")
    if args.save is not None:
        log(f"saved the model to {save_model(model, args.save)}")
    return 0


def transform_command(args) -> int:
    """Embed ``args.data`` with the model saved by ``rskpca embed --save``."""
    log = _Log("transform", args.quiet)
    model = load_model(args.model)
    names = [str(c) for c in getattr(model, "feature_names_in_", [])]
    df = read_data_file(args.data)
    missing = [c for c in names if c not in df.columns]
    if missing:
        raise DataError(f"{Path(args.data).name} lacks the model's feature column(s) {missing[:10]} "
                        f"({len(missing)} of {len(names)}); give a file with the columns the model was fit on.")
    label = _label(df, args.label)
    if label in names:
        label = None  # a feature, not a label
    ds = prepare(df, feature_columns=names, label_column=label)
    log(f"read {args.data}: {ds.n} rows; model {type(model).__name__} from {args.model}")
    Z = model.transform(pd.DataFrame(ds.X, columns=names))
    prefix = _prefix(model)
    where = write_table(_embedding_table(Z, {label: ds.y} if label else {}, prefix), args.output)
    log(f"wrote {where}: {ds.n} rows ({prefix}1..{prefix}{Z.shape[1]}" + (f", {label}" if label else "") + ")")
    return 0
