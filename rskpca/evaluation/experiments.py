"""Section 6 of the paper, reproduced: sweeps over ell that produce tidy rows (no plotting).

Two experiments, each a list of plain dicts (one per method, ell and split):

* :func:`embedding_experiment` (Figures 2-3 and 6): exact KPCA is fit on the whole data
  set (the paper's reference); every method is fit on an 80% split and embeds the other 20%
  with rank r = 5. Recorded: the eigenvalue deviation ``||lambda - lambda~||`` of the
  normalized eigenvalues, the relative alignment error ``min_A ||O - O~ A||_F / ||O||_F`` of
  the test embeddings, the training and testing speedups over exact KPCA on the same split
  (its fastest scikit-learn solver, timed as every method is), and the data retained ``m / n_train``.
* :func:`classification_experiment` (Figures 4-5 and 7-8): 3-NN on the rank-r embedding under
  10-fold cross-validation; training = fit + embedding the training folds + the k-NN fit,
  testing = embedding the held-out fold + the prediction, both against exact KPCA ("none").

Every method comes from :data:`rskpca.evaluation.methods.METHODS` by name, so a newly registered method
can be compared without changing this module. Baselines use the m the shadow produced on the
same split ("the same m" of the paper). A method that cannot run at some ell (for instance
fewer centers than components) gives a row with its ``error`` instead of stopping the sweep.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.model_selection import StratifiedKFold, train_test_split

from rskpca.core.bandwidth_heuristic import median_heuristic
from rskpca.core.progress import ProgressCallback, counted
from rskpca.core.row_draws import uniform_rows
from rskpca.core.shadow import shadow_centers
from rskpca.decomposition import KernelPCA
from rskpca.evaluation.classify import fit_predict
from rskpca.evaluation.result_columns import successful
from rskpca.evaluation.compare import Outcome, failed_row, sweep_point
from rskpca.evaluation.fitting import EXACT_SOLVERS, MethodResult, fit_exact
from rskpca.evaluation.methods import METHODS, REFERENCE, check_methods, make_estimator, methods_in
from rskpca.evaluation.timing import Timing

__all__ = [
    "DATASET_SIGMA",
    "DATASET_KNN_RANK",
    "PAPER_ELLS",
    "EMBEDDING_METHODS",
    "RSDE_METHODS",
    "load_labeled_csv",
    "embedding_experiment",
    "classification_experiment",
    "summarize",
    "retained_grid",
]

#: Bandwidths of the paper's Table 1 (chosen there by cross-validation), by data set name.
DATASET_SIGMA = {"german": 30.0, "pendigits": 120.0, "usps": 18.0, "yale": 17.0}
#: Rank of the embedding fed to k-NN (Table 1's row "k").
DATASET_KNN_RANK = {"german": 5, "pendigits": 5, "usps": 15, "yale": 10}
#: ell from 3.0 to 5.0 in steps of 0.1 (Section 6).
PAPER_ELLS = tuple(np.round(np.arange(3.0, 5.0 + 1e-9, 0.1), 1).tolist())
#: Figures 2-5: shadow RSKPCA against subsampled KPCA, Nystrom and density-weighted Nystrom.
EMBEDDING_METHODS = methods_in("paper_embeddings")
#: Figures 7-8: RSKPCA with other reduced-set density estimators at the shadow's m.
RSDE_METHODS = methods_in("paper_rsde")



def load_labeled_csv(path, *, max_rows: int | None = None, random_state=0):
    """Read a CSV (optionally gzipped) with a ``label`` column into ``(X, y, name)``.

    ``name`` is the file name without extensions (``german``, ``pendigits``...), used to
    look up the paper's sigma. ``max_rows`` keeps a seeded, stratified-by-chance uniform
    subsample (the paper used 3,500 of pendigits' 10,992 rows).

    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "toy.csv")
    >>> _ = open(path, "w").write("a,b,label\\n1,2,0\\n3,4,1\\n")
    >>> X, y, name = load_labeled_csv(path)
    >>> X.shape, y.tolist(), name
    ((2, 2), [0, 1], 'toy')
    """
    path = Path(path)
    if not path.is_file():
        raise ValueError(f"No data file at {str(path)!r}; give the path of a CSV with a 'label' column.")
    df = pd.read_csv(path)
    if "label" not in df.columns:
        raise ValueError(f"{path.name} has no 'label' column (columns: {list(df.columns)[:10]}...); "
                         "the experiments need the class of each row in a column named 'label'.")
    features = df.drop(columns=["label"])
    bad = [str(c) for c in features.columns if not pd.api.types.is_numeric_dtype(features[c])]
    if bad:
        raise ValueError(f"{path.name} has non-numeric feature columns {bad}; encode or drop them.")
    X = features.to_numpy(dtype=np.float64)
    y = df["label"].to_numpy()
    if not np.isfinite(X).all():
        raise ValueError(f"{path.name} has NaN or infinite feature values; drop or impute them first.")
    if max_rows is not None and X.shape[0] > max_rows:
        keep = uniform_rows(X.shape[0], max_rows, np.random.default_rng(random_state))
        X, y = X[keep], y[keep]
    name = path.name.split(".")[0]
    return X, y, name


def _reference(est, X_eval, n_train: int) -> MethodResult:
    """Exact KPCA fitted on the whole data set, evaluated on ``X_eval``: the accuracy reference."""
    return MethodResult(name=REFERENCE.name, label=REFERENCE.label, group=REFERENCE.group, ell=float("nan"),
                        m=n_train, n_train=n_train, embedding=est.transform(X_eval),
                        normalized_eigenvalues=est.normalized_eigenvalues_, train_s=float("nan"),
                        test_s=float("nan"), stored_points=n_train, train_parts={})


def embedding_experiment(X, *, sigma: float, dataset: str = "data", ells=PAPER_ELLS,
                         methods=EMBEDDING_METHODS, n_components: int = 5, n_repeats: int = 50,
                         test_size: float = 0.2, random_state: int = 0, timing: Timing = Timing(),
                         progress: ProgressCallback | None = None) -> list[dict]:
    """Figures 2-3 (and 6): eigenvalues and test embeddings against exact KPCA, per ell.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
    sigma : float
        Gaussian bandwidth, ``k = exp(-||x-y||^2 / sigma^2)``.
    dataset : str, default="data"
        Name written into every row.
    ells : sequence of float, default=PAPER_ELLS
    methods : sequence of str, default=EMBEDDING_METHODS
        Registered method names (see :data:`rskpca.evaluation.methods.METHODS`).
    n_components : int, default=5
    n_repeats : int, default=50
        Random 80/20 splits (the paper averages 50).
    test_size : float, default=0.2
    random_state : int, default=0
    timing : Timing, default=Timing()
        Warm-up and repeats of every timed call, exact KPCA's included.
    progress : callable (fraction, message) or None (:mod:`rskpca.core.progress`)

    Returns
    -------
    list of dict
        One row of :func:`rskpca.evaluation.compare.compare` per (split, ell, method), plus
        ``dataset``, ``experiment`` and ``split``.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.random.default_rng(0).normal(size=(120, 3))
    >>> rows = embedding_experiment(X, sigma=2.0, ells=[3.0], methods=["rskpca", "nystrom"],
    ...                             n_components=2, n_repeats=1)
    >>> [r["name"] for r in rows], bool(rows[0]["alignment_error"] < 1)
    (['rskpca', 'nystrom'], True)
    """
    methods = check_methods(methods)
    X = np.asarray(X, dtype=np.float64)
    tick = counted(progress, n_repeats * len(ells))
    whole = KernelPCA(n_components=n_components, sigma=sigma, eigen_solver="arpack",
                      random_state=random_state).fit(X)
    rows = []
    for split in range(n_repeats):
        idx_train, idx_test = train_test_split(np.arange(X.shape[0]), test_size=test_size,
                                               random_state=random_state + split)
        Xtr, Xte = X[idx_train], X[idx_test]
        reference = _reference(whole, Xte, X.shape[0])
        # The speedup baseline: exact KPCA trained and evaluated on the same split.
        exact = fit_exact(Xtr, Xte, n_components=n_components, sigma=sigma, random_state=random_state,
                          timing=timing)
        for ell in ells:
            tick(f"{dataset} split {split + 1} ell={ell:.1f}")
            for row in sweep_point(Xtr, Xte, exact, ell=ell, methods=methods, n_components=n_components,
                                   sigma=sigma, random_state=random_state + split, timing=timing,
                                   reference=reference):
                rows.append({"dataset": dataset, "experiment": "embedding", "split": split,
                             "n_test": len(Xte), **row})
    return rows


def classification_experiment(X, y, *, sigma: float, dataset: str = "data", ells=PAPER_ELLS,
                              methods=EMBEDDING_METHODS, n_components: int = 5, n_folds: int = 10,
                              n_neighbors: int = 3, random_state: int = 0, timing: Timing = Timing(),
                              progress: ProgressCallback | None = None) -> list[dict]:
    """Figures 4-5 and 7-8: k-NN accuracy on the embedding under k-fold CV, per ell.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
    y : ndarray of shape (n_samples,)
    sigma : float
    dataset : str, default="data"
    ells : sequence of float, default=PAPER_ELLS
    methods : sequence of str, default=EMBEDDING_METHODS
    n_components : int, default=5
        Rank of the embedding (Table 1's "k").
    n_folds : int, default=10
    n_neighbors : int, default=3
    random_state : int, default=0
    timing : Timing, default=Timing()
    progress : callable (fraction, message) or None (:mod:`rskpca.core.progress`)

    Returns
    -------
    list of dict
        One row per (fold, ell, method) with ``accuracy``, ``exact_accuracy``, ``train_s``,
        ``test_s``, the exact KPCA times, ``train_speedup``, ``test_speedup``,
        ``total_speedup``, ``m``, ``retained``.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> X = np.r_[rng.normal(0, 1, (60, 2)), rng.normal(5, 1, (60, 2))]
    >>> y = np.repeat([0, 1], 60)
    >>> rows = classification_experiment(X, y, sigma=3.0, ells=[3.0], methods=["rskpca"],
    ...                                  n_components=2, n_folds=3)
    >>> len(rows), min(r["accuracy"] for r in rows) > 0.9
    (3, True)
    """
    methods = check_methods(methods)
    X = np.asarray(X, dtype=np.float64)
    y = np.asarray(y)
    folds = StratifiedKFold(n_splits=n_folds, shuffle=True, random_state=random_state)
    tick = counted(progress, n_folds * len(ells) * len(methods))

    def run(est, Xtr, ytr, Xte, yte):
        return fit_predict(est, "knn", Xtr, ytr, Xte, yte, timing=timing, n_neighbors=n_neighbors)

    rows = []
    for fold, (tr, te) in enumerate(folds.split(X, y)):
        Xtr, ytr, Xte, yte = X[tr], y[tr], X[te], y[te]
        # Exact KPCA with each scikit-learn solver: the fastest is the baseline, ARPACK's accuracy the reference.
        exact = {solver: run(KernelPCA(n_components=n_components, sigma=sigma, eigen_solver=solver,
                                       random_state=random_state), Xtr, ytr, Xte, yte)
                 for solver in EXACT_SOLVERS}
        per_solver = {solver: r["train_s"] for solver, r in exact.items()}
        solver = min(per_solver, key=per_solver.get)
        base = {"exact_accuracy": exact[EXACT_SOLVERS[0]]["accuracy"], "exact_solver": solver,
                **{f"exact_{s}_train_s": t for s, t in per_solver.items()},
                "exact_train_s": per_solver[solver], "exact_test_s": exact[solver]["test_s"]}
        for ell in ells:
            m = shadow_centers(Xtr, sigma=sigma, ell=ell).m
            for name in methods:
                tick(f"{dataset} fold {fold + 1} ell={ell:.1f} {name}")
                head = {"dataset": dataset, "experiment": "classification", "split": fold, "n_test": len(te)}
                est = make_estimator(name, n_components=n_components, sigma=sigma, ell=ell, m=m,
                                     random_state=random_state + fold)
                try:
                    r = run(est, Xtr, ytr, Xte, yte)
                except ValueError as exc:
                    rows.append({**head, **failed_row(name, ell=ell, m=m, n_train=len(tr), message=str(exc)),
                                 **base})
                    continue
                method = METHODS[name]
                rows.append({**head, "method": method.label, "name": name, "group": method.group,
                             "ell": float(ell), "n_train": len(tr), "m": m, "retained": m / len(tr),
                             **r, **base,
                             "train_speedup": base["exact_train_s"] / r["train_s"],
                             "test_speedup": base["exact_test_s"] / r["test_s"],
                             "total_speedup": ((base["exact_train_s"] + base["exact_test_s"])
                                               / (r["train_s"] + r["test_s"])),
                             "outcome": Outcome.OK, "error": ""})
    return rows


_SUMMARY_COLUMNS = {
    "embedding": ["retained", "eigenvalue_deviation", "alignment_error", "train_speedup",
                  "test_speedup"],
    "classification": ["retained", "accuracy", "train_speedup", "test_speedup", "total_speedup"],
}


def summarize(rows, *, ells=None, methods=None) -> dict[tuple[str, str, str], pd.DataFrame]:
    """One table per (dataset, experiment, metric) over splits, ell down, methods across.

    Errors, accuracies and m are means; speedups are medians, because a ratio of two
    millisecond timings on a shared machine has outliers that would dominate a mean.

    ``ells`` and ``methods`` restrict the tables (the README shows every fifth ell).
    Classification tables get a column ``none`` (exact KPCA) for the accuracy.

    >>> rows = [{"dataset": "d", "experiment": "embedding", "ell": 3.0, "name": "rskpca",
    ...          "retained": 0.4, "eigenvalue_deviation": 0.1, "alignment_error": 0.2,
    ...          "train_speedup": 3.0, "test_speedup": 2.0, "error": ""}]
    >>> float(summarize(rows)[("d", "embedding", "alignment_error")].loc[3.0, "rskpca"])
    0.2
    """
    df = pd.DataFrame(list(rows))
    out = {}
    if df.empty:
        return out
    ok = successful(df)
    if methods is not None:
        ok = ok[ok["name"].isin(list(methods))]
    if ells is not None:
        ok = ok[np.isclose(ok["ell"].to_numpy()[:, None], np.asarray(ells)[None, :]).any(axis=1)]
    for (dataset, experiment), part in ok.groupby(["dataset", "experiment"], sort=False):
        order = list(dict.fromkeys(part["name"]))
        for metric in _SUMMARY_COLUMNS[experiment]:
            if metric not in part.columns:
                continue
            agg = "median" if metric.endswith("speedup") else "mean"
            table = part.pivot_table(index="ell", columns="name", values=metric, aggfunc=agg)
            table = table.reindex(columns=order)
            if metric == "accuracy" and "exact_accuracy" in part.columns:
                # every method's row of a fold carries the same exact accuracy: count each fold once
                exact = part.drop_duplicates(["ell", "split"]).groupby("ell")["exact_accuracy"]
                table["none"] = exact.mean()
            out[(dataset, experiment, metric)] = table.astype(float)
    return out


def retained_grid(X, *, sigma: float, ells=PAPER_ELLS, scales=(1.0,), dataset: str = "data",
                  progress: ProgressCallback | None = None) -> list[dict]:
    """The shadow's retained fraction m / n when every feature is multiplied by each of ``scales``.

    The shadow absorbs a point within ``eps = sigma / ell`` of a center, so scaling the data
    by ``c`` keeps the same centers as the bandwidth ``sigma / c`` on the data as given: a
    Table 1 sigma means something only with the pixel scale the paper used. Each row also
    gives ``sigma / (c * median distance)`` (the median pairwise distance of the given data
    on a seeded subsample of 1,000 rows), which is free of the scale.

    >>> import numpy as np
    >>> X = np.random.default_rng(0).normal(size=(300, 2))
    >>> rows = retained_grid(X, sigma=1.0, ells=[3.0], scales=[1.0, 0.1])
    >>> [r["m"] for r in rows][1] < [r["m"] for r in rows][0], rows[1]["sigma_over_scale"]
    (True, 10.0)
    """
    X = np.asarray(X, dtype=np.float64)
    median = median_heuristic(X)
    tick = counted(progress, len(scales) * len(ells))
    rows = []
    for scale in scales:
        for ell in ells:
            tick(f"{dataset} scale={scale:g} ell={ell:.1f}")
            m = shadow_centers(X * scale, sigma=sigma, ell=ell).m
            rows.append({"dataset": dataset, "scale": float(scale), "ell": float(ell), "sigma": float(sigma),
                         "sigma_over_scale": sigma / scale, "sigma_over_median": sigma / (scale * median),
                         "n_train": X.shape[0], "m": m, "retained": m / X.shape[0]})
    return rows
