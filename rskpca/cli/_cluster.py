"""``rskpca cluster``: spectral clustering of a data file through the shadow, from a shell.

Reads the table as ``rskpca embed`` does, fits :class:`~rskpca.ReducedSetSpectralClustering`
with the chosen affinity and center budget, and writes each row's cluster (with the shadow
center that absorbed it, where rows take their center's cluster) and the label column, if any.
With a label column, NMI, CA and ARI against it and the cluster x class table
(:mod:`rskpca.evaluation.clustering_scores`) are printed as plain text: on stdout when the
table goes to a file, else on stderr. Progress messages go to stderr.
"""

from __future__ import annotations

import sys

import numpy as np
import pandas as pd

from rskpca.cli._embed import _label, _Log, read_data_file, write_table
from rskpca.data.datasets import labelled_rows, prepare
from rskpca.decomposition import ReducedSetSpectralClustering
from rskpca.evaluation.clustering_scores import cluster_class_table, clustering_scores

__all__ = ["cluster_command", "add_cluster_parser", "AFFINITIES", "MAX_TABLE_CLASSES"]

#: ``--affinity`` choices, as :class:`~rskpca.ReducedSetSpectralClustering` names them.
AFFINITIES = ("landmark", "local_scaling", "gaussian")
#: The cluster x class table is printed up to this many classes (a wider one is unreadable as text).
MAX_TABLE_CLASSES = 100


def _defaults() -> dict:
    """The estimator's own defaults, so the command's defaults are the library's."""
    return ReducedSetSpectralClustering().get_params()


def _ell(positive_float):
    def parse(text: str):
        """A positive number, or ``auto`` (the radius chosen from the center budget)."""
        return None if text == "auto" else positive_float(text)
    return parse


def _center_budget(positive_int):
    def parse(text: str):
        """A positive number of centers, or ``none`` (the shadow at sigma / ell, whatever its size)."""
        return None if text == "none" else positive_int(text)
    return parse


def _regularization(text: str):
    """A number >= 0, or ``auto`` (regularize only a graph with a dangling set)."""
    import argparse

    if text == "auto":
        return text
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is neither auto nor a number") from None
    if not np.isfinite(value) or value < 0:
        raise argparse.ArgumentTypeError(f"{text} is not a number >= 0 (or auto)")
    return value


def add_cluster_parser(sub, *, positive_int, positive_float, sigma) -> None:
    """The ``cluster`` subcommand's arguments (the type checkers are the CLI's own)."""
    defaults = _defaults()
    cl = sub.add_parser("cluster", help="spectral clustering of a data file through the shadow centers",
                        description="Reads CSV, TSV (gzip allowed), Parquet or NPY with the app's checks, fits "
                                    "ReducedSetSpectralClustering on the numeric columns and writes cluster, "
                                    "center (index of the row's shadow center) where each row takes its "
                                    "center's cluster, center_row (the file row of that center) where the "
                                    "centers are rows, and the label "
                                    "column if there is one; then prints NMI, CA and ARI against the label "
                                    "and the cluster x class table.")
    cl.add_argument("data", help="the data file")
    cl.add_argument("-k", "--clusters", type=positive_int, required=True, help="number of clusters")
    cl.add_argument("--sigma", type=sigma, default="median", help="bandwidth, or median (default)")
    cl.add_argument("--ell", type=_ell(positive_float), default=defaults["ell"],
                    help="shadow parameter, eps = sigma / ell (at least: widened to fit --max-centers); auto: "
                         "the smallest radius whose m fits --max-centers (default "
                         f"{'auto' if defaults['ell'] is None else defaults['ell']})")
    cl.add_argument("--alpha", type=float, default=0.0,
                    help="diffusion-map density normalisation in [0, 1] (default 0: normalized cut)")
    cl.add_argument("--kernel", choices=["gaussian", "laplacian"], default="gaussian")
    cl.add_argument("--affinity", choices=AFFINITIES, default=defaults["affinity"],
                    help=f"landmark: each row linked to its nearest centers with a local bandwidth (Cai & Chen "
                         f"2015; Huang et al. 2020); local_scaling: self-tuning bandwidths on the centers "
                         f"(Zelnik-Manor & Perona 2004); gaussian: one global sigma between centers "
                         f"(default {defaults['affinity']})")
    cl.add_argument("--neighbors", type=positive_int, default=defaults["n_neighbors"],
                    help=f"nearest centers of the landmark and local_scaling affinities "
                         f"(default {defaults['n_neighbors']})")
    cl.add_argument("--regularization", type=_regularization, default=defaults["regularization"],
                    help="landmark affinity: fraction of the mean landmark degree added to each landmark's degree, "
                         "which keeps the eigenvectors off a few outlying rows; auto: only when the plain graph's "
                         f"eigenvectors single out such rows (default {defaults['regularization']})")
    cl.add_argument("--max-centers", type=_center_budget(positive_int), default=defaults["max_centers"],
                    help=f"center budget: the shadow's radius widens until m is at most this; none: the "
                         f"shadow at sigma / ell, whatever its size (default {defaults['max_centers']})")
    cl.add_argument("--lloyd-steps", type=int, default=defaults["lloyd_steps"],
                    help=f"Lloyd steps moving the centers to the means of their rows; 0 keeps them rows "
                         f"(default {defaults['lloyd_steps']})")
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
    from sklearn.preprocessing import StandardScaler

    if not 0.0 <= args.alpha <= 1.0:  # before reading anything
        raise ValueError(f"--alpha {args.alpha:g} is outside [0, 1]; 0 is the normalized cut, 1 removes the "
                         "density (Laplace-Beltrami).")
    if args.lloyd_steps < 0:
        raise ValueError(f"--lloyd-steps {args.lloyd_steps} is negative; 0 keeps the centers as rows.")
    if args.ell is None and args.max_centers is None:
        raise ValueError("--ell auto picks the radius from --max-centers; give --max-centers a number, or --ell "
                         "a number.")
    if args.max_centers is not None and args.max_centers < args.clusters:
        raise ValueError(f"--max-centers {args.max_centers} is below -k {args.clusters}: each cluster needs a "
                         "center. Raise --max-centers (or none) or lower -k.")
    log = _Log("cluster", args.quiet)
    df = read_data_file(args.data)
    label = _label(df, args.label)
    ds = prepare(df, feature_columns=args.columns, label_column=label)
    log(f"read {args.data}: {ds.n} rows, {ds.d} features" + (f", label column {label!r}" if label else ""))
    for note in ds.notes:  # what the app's Data page says of the same table
        log(note)
    X = pd.DataFrame(ds.X, columns=ds.feature_names)
    if args.standardize:
        X = pd.DataFrame(StandardScaler().fit_transform(X), columns=ds.feature_names)
    est = ReducedSetSpectralClustering(n_clusters=args.clusters, sigma=args.sigma, ell=args.ell, alpha=args.alpha,
                                       kernel=args.kernel, affinity=args.affinity, n_neighbors=args.neighbors,
                                       regularization=args.regularization, max_centers=args.max_centers,
                                       lloyd_steps=args.lloyd_steps, random_state=args.seed)
    budget = "no center budget" if args.max_centers is None else f"at most {args.max_centers} centers"
    log(f"fitting the shadow, the m x m eigenproblem and k-means (k={args.clusters}, affinity={args.affinity}, "
        f"sigma={args.sigma}, ell={'auto' if args.ell is None else args.ell}, {budget})")
    est.fit(X)
    radius = f", eps_ = {est.eps_:.4g}" if hasattr(est, "eps_") else ""
    if getattr(est, "regularization_", 0.0):
        radius += f", regularization_ = {est.regularization_:g} (the plain graph singled out a few outlying rows)"
    log(f"shadow kept m = {est.m_} centers of {ds.n} rows ({100 * est.m_ / ds.n:.1f}%), sigma_ = {est.sigma_:.6g}"
        + radius)
    table = pd.DataFrame({"cluster": est.labels_})
    shadow_labels = getattr(est, "shadow_labels_", None)
    if shadow_labels is not None:  # rows that take their center's cluster: say which center
        table["center"] = shadow_labels
        if hasattr(est, "center_indices_"):  # centers that are rows (not moved to means by Lloyd steps)
            table["center_row"] = ds.row_ids[est.center_indices_[shadow_labels]]
    if label is not None:
        table[label] = ds.y
    where = write_table(table, args.output)
    log(f"wrote {where}: {ds.n} rows ({', '.join(map(str, table.columns))})")
    if label is not None:
        scored = labelled_rows(ds.y)  # rows without a label are clustered, not scored
        text = (scores_text(ds.y[scored], est.labels_[scored], label) if scored.any()
                else f"not scored: the label column {label!r} is missing in every row")
        print(text, file=sys.stdout if args.output != "-" else sys.stderr, flush=True)
    return 0


def scores_text(y, clusters, label: str) -> str:
    """NMI, CA and ARI of ``clusters`` against the classes ``y`` and the cluster x class table, as plain text.

    >>> print(scores_text(["a", "a", "b", "b"], [0, 0, 1, 0], "kind"))  # doctest: +NORMALIZE_WHITESPACE
    against the label column 'kind' (2 classes, 4 rows): NMI 0.3437  CA 0.7500  ARI 0.0000
    cluster x class (rows; clusters in the order of their matched class, matched counts on the diagonal):
             a  b
    cluster
    0        2  1
    1        0  1
    """
    scores = clustering_scores(y, clusters)
    table = cluster_class_table(y, clusters)
    head = (f"against the label column {label!r} ({table.shape[1]} classes, {len(y):,} rows): "
            f"NMI {scores.nmi:.4f}  CA {scores.ca:.4f}  ARI {scores.ari:.4f}")
    if table.shape[1] > MAX_TABLE_CLASSES:
        return f"{head}\ncluster x class table left out: {table.shape[1]} classes (printed up to {MAX_TABLE_CLASSES})"
    return (f"{head}\ncluster x class (rows; clusters in the order of their matched class, matched counts on the "
            f"diagonal):\n{table.to_string()}")
