"""``rskpca cluster``: spectral clustering of a data file through the shadow, from a shell.

Reads the table as ``rskpca embed`` does, fits :class:`~rskpca.ReducedSetSpectralClustering`
(weighted k-means on the spectral coordinates of the shadow centers) and writes each row's
cluster with the shadow center that absorbed it (and the label column, if any; then the
adjusted Rand index against it is logged). Messages go to stderr, the table to the output.
"""

from __future__ import annotations

import pandas as pd

from rskpca.cli._embed import _label, _Log, read_data_file, write_table
from rskpca.data.datasets import prepare
from rskpca.decomposition import ReducedSetSpectralClustering

__all__ = ["cluster_command", "add_cluster_parser"]


def add_cluster_parser(sub, *, positive_int, positive_float, sigma) -> None:
    """The ``cluster`` subcommand's arguments (the type checkers are the CLI's own)."""
    cl = sub.add_parser("cluster", help="spectral clustering of a data file through the shadow centers",
                        description="Reads CSV, TSV (gzip allowed), Parquet or NPY with the app's checks, fits "
                                    "ReducedSetSpectralClustering on the numeric columns and writes cluster, "
                                    "center (index of the row's shadow center), center_row (the file row of "
                                    "that center) and the label column if there is one.")
    cl.add_argument("data", help="the data file")
    cl.add_argument("-k", "--clusters", type=positive_int, required=True, help="number of clusters")
    cl.add_argument("--sigma", type=sigma, default="median", help="bandwidth, or median (default)")
    cl.add_argument("--ell", type=positive_float, default=4.0, help="shadow parameter, eps = sigma / ell "
                                                                      "(default 4)")
    cl.add_argument("--alpha", type=float, default=0.0,
                    help="diffusion-map density normalisation in [0, 1] (default 0: normalized cut)")
    cl.add_argument("--kernel", choices=["gaussian", "laplacian"], default="gaussian")
    cl.add_argument("--columns", nargs="+", help="feature columns (default: every numeric column but the label)")
    cl.add_argument("--standardize", action="store_true", help="scale each feature to unit variance first")
    cl.add_argument("--seed", type=int, default=0)
    cl.add_argument("-o", "--output", default="-",
                    help="output file: .csv, .tsv, .parquet or .npy; - (default) is CSV on stdout")
    cl.add_argument("--label", default="auto",
                    help="label column copied to the output: a name, auto (guessed as in the app) or none")
    cl.add_argument("-q", "--quiet", action="store_true", help="no progress messages on stderr")


def cluster_command(args) -> int:
    """Cluster ``args.data`` and write each row's cluster, shadow center and label."""
    from sklearn.metrics import adjusted_rand_score
    from sklearn.preprocessing import StandardScaler

    if not 0.0 <= args.alpha <= 1.0:  # before reading anything
        raise ValueError(f"--alpha {args.alpha:g} is outside [0, 1]; 0 is the normalized cut, 1 removes the "
                         "density (Laplace-Beltrami).")
    log = _Log("cluster", args.quiet)
    df = read_data_file(args.data)
    label = _label(df, args.label)
    ds = prepare(df, feature_columns=args.columns, label_column=label)
    log(f"read {args.data}: {ds.n} rows, {ds.d} features" + (f", label column {label!r}" if label else ""))
    X = pd.DataFrame(ds.X, columns=ds.feature_names)
    if args.standardize:
        X = pd.DataFrame(StandardScaler().fit_transform(X), columns=ds.feature_names)
    est = ReducedSetSpectralClustering(n_clusters=args.clusters, sigma=args.sigma, ell=args.ell, alpha=args.alpha,
                                       kernel=args.kernel, random_state=args.seed)
    log(f"fitting the shadow, the m x m eigenproblem and k-means (k={args.clusters}, sigma={args.sigma}, "
        f"ell={args.ell})")
    est.fit(X)
    log(f"shadow kept m = {est.m_} centers of {ds.n} rows ({100 * est.m_ / ds.n:.1f}%), sigma_ = {est.sigma_:.6g}")
    table = pd.DataFrame({"cluster": est.labels_, "center": est.shadow_labels_,
                          "center_row": ds.row_ids[est.center_indices_[est.shadow_labels_]]})
    if label is not None:
        table[label] = ds.y
        try:
            log(f"adjusted Rand index against {label!r}: {adjusted_rand_score(ds.y, est.labels_):.4f}")
        except (TypeError, ValueError):  # a label column that is not one value per row
            pass
    where = write_table(table, args.output)
    log(f"wrote {where}: {ds.n} rows (cluster, center, center_row" + (f", {label}" if label else "") + ")")
    return 0
