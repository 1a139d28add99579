"""``rskpca experiment`` (Section 6 of the paper on labelled CSV files) and ``rskpca retained``."""

from __future__ import annotations

import sys

import numpy as np
import pandas as pd

from rskpca.cli._progress import ProgressBar


def markdown_table(table: pd.DataFrame) -> str:
    """A DataFrame indexed by ell as a markdown table (3 significant digits).

    >>> print(markdown_table(pd.DataFrame({"a": [0.5]}, index=[3.0])))
    | ell | a |
    |---|---|
    | 3.0 | 0.5 |
    """
    header = ["ell"] + [str(c) for c in table.columns]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for ell, values in table.iterrows():
        cells = [f"{ell:.1f}"] + ["" if not np.isfinite(v) else f"{v:.3g}" for v in values]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def _experiment(args) -> int:
    from rskpca.plotting.experiment_figures import CLASSIFICATION_PANELS, EMBEDDING_PANELS, panels_figure, retained_figure
    from rskpca.evaluation.result_columns import successful, write_csv
    from rskpca.evaluation.experiments import (DATASET_KNN_RANK, DATASET_SIGMA, EMBEDDING_METHODS, PAPER_ELLS,
                                               RSDE_METHODS, classification_experiment, embedding_experiment,
                                               load_labeled_csv, summarize)
    from rskpca.evaluation.methods import check_methods

    ells = args.ells or list(PAPER_ELLS)
    methods = check_methods(args.methods or EMBEDDING_METHODS)
    rsde_methods = check_methods(args.rsde_methods or RSDE_METHODS)
    datasets = []
    for path in args.data:  # read and check everything before the long part starts
        X, y, name = load_labeled_csv(path, max_rows=args.max_rows, random_state=args.seed)
        if not (np.isfinite(args.scale) and args.scale > 0):
            raise ValueError(f"--scale must be a positive number; got {args.scale}.")
        X = X * args.scale
        sigma = args.sigma if args.sigma is not None else DATASET_SIGMA.get(name)
        if sigma is None:
            raise ValueError(f"No paper sigma for data set {name!r}; pass --sigma.")
        datasets.append((X, y, name, sigma))
    out = args.out
    if (out / "rows.csv").exists() and not args.overwrite:  # before the long part, not after it
        raise ValueError(f"{out / 'rows.csv'} exists (an earlier run's results); pass --overwrite to replace "
                         "it, or --out another folder.")
    out.mkdir(parents=True, exist_ok=True)
    rows = []
    bar = ProgressBar()
    for X, y, name, sigma in datasets:
        print(f"{name}: n={X.shape[0]} d={X.shape[1]} sigma={sigma} scale={args.scale} "
              f"classes={len(np.unique(y))}",
              file=sys.stderr)
        if "embedding" not in args.skip:
            rows += embedding_experiment(X, sigma=sigma, dataset=name, ells=ells, methods=methods,
                                         n_components=args.rank, n_repeats=args.repeats,
                                         random_state=args.seed, progress=bar)
        knn_rank = args.knn_rank or DATASET_KNN_RANK.get(name, args.rank)
        class_methods = list(dict.fromkeys(
            (methods if "classification" not in args.skip else [])
            + (rsde_methods if "rsde" not in args.skip else [])))
        if class_methods:
            rows += classification_experiment(X, y, sigma=sigma, dataset=name, ells=ells,
                                              methods=class_methods, n_components=knn_rank,
                                              n_folds=args.folds, random_state=args.seed, progress=bar)
    write_csv(rows, out / "rows.csv", overwrite=args.overwrite)
    df = pd.DataFrame(rows)

    written = [out / "rows.csv"]
    for X, y, name, sigma in datasets:
        part = df[df["dataset"] == name]
        figures = {
            f"embedding_{name}.html": (part[part["experiment"] == "embedding"], EMBEDDING_PANELS, None,
                                       f"Figures 2-3: eigen-embedding vs exact KPCA, {name}"),
            f"classification_{name}.html": (
                part[(part["experiment"] == "classification") & part["name"].isin(methods)],
                CLASSIFICATION_PANELS, "exact_accuracy", f"Figures 4-5: 3-NN with 10-fold CV, {name}"),
            f"rsde_{name}.html": (
                part[(part["experiment"] == "classification") & part["name"].isin(rsde_methods)],
                CLASSIFICATION_PANELS, "exact_accuracy", f"Figures 7-8: RSKPCA with other RSDEs, {name}"),
        }
        for filename, (sub, panels, exact_col, title) in figures.items():
            if len(sub):
                panels_figure(sub.to_dict("records"), panels, title=title, exact_column=exact_col
                              ).write_html(out / filename, include_plotlyjs=True)
                written.append(out / filename)
    if len(df):
        retained_figure(df.to_dict("records")).write_html(out / "retained.html", include_plotlyjs=True)
        written.append(out / "retained.html")

    lines = ["# rskpca experiment summary", "",
             f"Command: `rskpca experiment {' '.join(sys.argv[2:]) if len(sys.argv) > 2 else ''}`", "",
             f"ell: {ells[0]} to {ells[-1]} ({len(ells)} values); features x {args.scale:g}; "
             f"{args.repeats} random 80/20 splits "
             f"(embedding); {args.folds}-fold CV (3-NN). Means over splits/folds; speedups are medians.", ""]
    for (dataset, experiment, metric), table in summarize(rows).items():
        lines += [f"## {dataset}, {experiment}: {metric}", "", markdown_table(table), ""]
    errors = df.drop(successful(df).index) if len(df) else df
    if len(errors):
        lines += ["## Runs that could not be made", ""]
        for (dataset, method, ell), grp in errors.groupby(["dataset", "name", "ell"]):
            lines.append(f"* {dataset} {method} ell={ell:.1f}: {grp['error'].iloc[0]}")
    (out / "summary.md").write_text("\n".join(lines) + "\n")
    written.append(out / "summary.md")
    print("\n".join(lines))
    print("\nwrote " + ", ".join(str(p) for p in written))
    return 0


def _retained(args) -> int:
    from rskpca.evaluation.experiments import DATASET_SIGMA, load_labeled_csv, retained_grid

    X, _, name = load_labeled_csv(args.data, max_rows=args.max_rows, random_state=args.seed)
    sigma = args.sigma if args.sigma is not None else DATASET_SIGMA.get(name)
    if sigma is None:
        raise ValueError(f"No paper sigma for data set {name!r}; pass --sigma.")
    rows = retained_grid(X, sigma=sigma, ells=args.ells, scales=args.scales, dataset=name, progress=ProgressBar())
    print(f"{name}: n = {X.shape[0]}, d = {X.shape[1]}, values in [{X.min():g}, {X.max():g}], sigma = {sigma:g}; "
          "retained = m / n in %")
    print("\n| scale | sigma / scale | sigma / median distance | " + " | ".join(f"ell {e:g}" for e in args.ells)
          + " |")
    print("|" + "---|" * (3 + len(args.ells)))
    for k in range(0, len(rows), len(args.ells)):
        group = rows[k:k + len(args.ells)]
        print(f"| {group[0]['scale']:g} | {group[0]['sigma_over_scale']:.3g} | {group[0]['sigma_over_median']:.3g} | "
              + " | ".join(f"{100 * r['retained']:.1f}" for r in group) + " |")
    return 0
