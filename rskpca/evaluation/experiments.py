"""Section 6 of the paper, reproduced: sweeps over ell that produce tidy rows (no plotting).

Two experiments, each a list of plain dicts (one per method, ell and split):

* :func:`embedding_experiment` (Figures 2-3 and 6): exact KPCA is fit on the whole data
  set (the paper's reference); every method is fit on an 80% split and embeds the other 20%
  with rank r = 5. Recorded: the eigenvalue deviation ``||lambda - lambda~||`` of the
  normalized eigenvalues, the relative alignment error ``min_A ||O - O~ A||_F / ||O||_F`` of
  the test embeddings, the training and testing speedups over exact KPCA on the same split,
  and the data retained ``100 m / n_train``.
* :func:`classification_experiment` (Figures 4-5 and 7-8): 3-NN on the rank-r embedding under
  10-fold cross-validation; training = fit + embedding the training folds + the k-NN fit,
  testing = embedding the held-out fold + the prediction, both against exact KPCA ("none").

Every method comes from :data:`rskpca.evaluation.methods.METHODS` by name, so a newly registered method
can be compared without changing this module. Baselines use the m the shadow produced on the
same split ("the same m" of the paper). A method that cannot run at some ell (for instance
fewer centers than components) gives a row with its ``error`` instead of stopping the sweep.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Callable, Sequence

import numpy as np
import pandas as pd
from sklearn.model_selection import StratifiedKFold, train_test_split
from sklearn.neighbors import KNeighborsClassifier

from rskpca.decomposition._reduced_set import KernelPCA
from rskpca.evaluation.methods import METHODS, make_estimator
from rskpca.core.metrics import alignment_error, eigenvalue_deviation
from rskpca.core.shadow import shadow_centers

__all__ = [
    "DATASET_SIGMA",
    "DATASET_KNN_RANK",
    "PAPER_ELLS",
    "EMBEDDING_METHODS",
    "RSDE_METHODS",
    "load_labeled_csv",
    "check_methods",
    "embedding_experiment",
    "classification_experiment",
    "summarize",
    "successful",
]

#: Bandwidths of the paper's Table 1 (chosen there by cross-validation), by data set name.
DATASET_SIGMA = {"german": 30.0, "pendigits": 120.0, "usps": 18.0, "yale": 17.0}
#: Rank of the embedding fed to k-NN (Table 1's row "k").
DATASET_KNN_RANK = {"german": 5, "pendigits": 5, "usps": 15, "yale": 10}
#: ell from 3.0 to 5.0 in steps of 0.1 (Section 6).
PAPER_ELLS = tuple(np.round(np.arange(3.0, 5.0 + 1e-9, 0.1), 1).tolist())
#: Figures 2-5: shadow RSKPCA against subsampled KPCA, Nystrom and density-weighted Nystrom.
EMBEDDING_METHODS = ("rskpca", "subsampled", "nystrom", "wnystrom")
#: Figures 7-8: RSKPCA with other reduced-set density estimators at the shadow's m.
RSDE_METHODS = ("rskpca", "rskpca_kmeans", "rskpca_uniform", "rskpca_herding")

Progress = Callable[[int, int, str], None]


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
        keep = np.sort(np.random.default_rng(random_state).choice(X.shape[0], max_rows, replace=False))
        X, y = X[keep], y[keep]
    name = path.name.split(".")[0]
    return X, y, name


def check_methods(names: Sequence[str]) -> list[str]:
    """The names, each checked against the registry (a clear error lists the choices)."""
    names = list(names)
    unknown = [n for n in names if n not in METHODS]
    if unknown:
        raise ValueError(f"Unknown method(s) {unknown}; registered: {sorted(METHODS)}.")
    if not names:
        raise ValueError("No methods given; name at least one of " f"{sorted(METHODS)}.")
    return names


def successful(df: pd.DataFrame) -> pd.DataFrame:
    """The rows of a results table whose ``error`` is empty (also after a CSV round trip).

    >>> successful(pd.DataFrame({"error": ["", float("nan"), "too few centers"]})).shape[0]
    2
    """
    if "error" not in df.columns:
        return df
    return df[df["error"].isna() | (df["error"].astype(str) == "")]


def _timed(fn):
    start = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - start


def _shadow_m(X, sigma, ell) -> int:
    return shadow_centers(X, sigma=sigma, ell=ell).m


def _row(dataset, experiment, split, ell, name, m, n_train, n_test, **values):
    method = METHODS[name]
    return {"dataset": dataset, "experiment": experiment, "split": split, "ell": float(ell),
            "method": name, "label": method.label, "group": method.group, "m": m,
            "n_train": n_train, "n_test": n_test,
            "retained_pct": 100.0 * m / n_train if m else np.nan, "error": "", **values}


def _ticker(progress: Progress | None, total: int):
    state = {"done": 0}

    def tick(label: str) -> None:
        state["done"] += 1
        if progress is not None:
            progress(state["done"], total, label)
    return tick


def embedding_experiment(X, *, sigma: float, dataset: str = "data", ells=PAPER_ELLS,
                         methods=EMBEDDING_METHODS, n_components: int = 5, n_repeats: int = 50,
                         test_size: float = 0.2, random_state: int = 0,
                         progress: Progress | None = None) -> list[dict]:
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
    progress : callable (done, total, label) or None

    Returns
    -------
    list of dict
        One row per (split, ell, method) with ``eigenvalue_deviation``,
        ``alignment_error``, ``fit_s``, ``test_s``, ``train_speedup``,
        ``test_speedup``, ``m`` and ``retained_pct``.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.random.default_rng(0).normal(size=(120, 3))
    >>> rows = embedding_experiment(X, sigma=2.0, ells=[3.0], methods=["rskpca", "nystrom"],
    ...                             n_components=2, n_repeats=1)
    >>> [r["method"] for r in rows], bool(rows[0]["alignment_error"] < 1)
    (['rskpca', 'nystrom'], True)
    """
    methods = check_methods(methods)
    X = np.asarray(X, dtype=np.float64)
    tick = _ticker(progress, n_repeats * len(ells) * len(methods))
    reference = KernelPCA(n_components=n_components, sigma=sigma, eigen_solver="arpack",
                          random_state=random_state).fit(X)
    rows = []
    for split in range(n_repeats):
        idx_train, idx_test = train_test_split(np.arange(X.shape[0]), test_size=test_size,
                                               random_state=random_state + split)
        Xtr, Xte = X[idx_train], X[idx_test]
        O_exact = reference.transform(Xte)
        # The speedup baseline: exact KPCA trained and evaluated on the same split.
        exact, exact_fit_s = _timed(lambda: KernelPCA(n_components=n_components, sigma=sigma,
                                                      eigen_solver="randomized",
                                                      random_state=random_state).fit(Xtr))
        _, exact_test_s = _timed(lambda: exact.transform(Xte))
        for ell in ells:
            m = _shadow_m(Xtr, sigma, ell)
            for name in methods:
                tick(f"{dataset} split {split + 1} ell={ell:.1f} {name}")
                est = make_estimator(name, n_components=n_components, sigma=sigma, ell=ell, m=m,
                                     random_state=random_state + split)
                base = dict(exact_fit_s=exact_fit_s, exact_test_s=exact_test_s)
                try:
                    _, fit_s = _timed(lambda: est.fit(Xtr))
                    O, test_s = _timed(lambda: est.transform(Xte))
                except ValueError as exc:
                    rows.append(_row(dataset, "embedding", split, ell, name, m, len(Xtr), len(Xte),
                                     **base) | {"error": str(exc)})
                    continue
                lam = getattr(est, "normalized_eigenvalues_", None)
                rows.append(_row(
                    dataset, "embedding", split, ell, name, m, len(Xtr), len(Xte), **base,
                    fit_s=fit_s, test_s=test_s,
                    train_speedup=exact_fit_s / fit_s, test_speedup=exact_test_s / test_s,
                    eigenvalue_deviation=(eigenvalue_deviation(reference.normalized_eigenvalues_, lam)
                                          if lam is not None else np.nan),
                    alignment_error=alignment_error(O_exact, O),
                ))
    return rows


def classification_experiment(X, y, *, sigma: float, dataset: str = "data", ells=PAPER_ELLS,
                              methods=EMBEDDING_METHODS, n_components: int = 5, n_folds: int = 10,
                              n_neighbors: int = 3, random_state: int = 0,
                              progress: Progress | None = None) -> list[dict]:
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
    progress : callable (done, total, label) or None

    Returns
    -------
    list of dict
        One row per (fold, ell, method) with ``accuracy``, ``exact_accuracy``,
        ``train_s``, ``test_s``, ``train_speedup``, ``test_speedup``,
        ``total_speedup``, ``m``, ``retained_pct``.

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
    tick = _ticker(progress, n_folds * len(ells) * len(methods))

    def run(est, Xtr, ytr, Xte, yte):
        def train():
            knn = KNeighborsClassifier(n_neighbors=n_neighbors)
            return knn.fit(est.fit(Xtr).transform(Xtr), ytr)
        knn, train_s = _timed(train)
        pred, test_s = _timed(lambda: knn.predict(est.transform(Xte)))
        return float(np.mean(pred == yte)), train_s, test_s

    rows = []
    for fold, (tr, te) in enumerate(folds.split(X, y)):
        Xtr, ytr, Xte, yte = X[tr], y[tr], X[te], y[te]
        exact = KernelPCA(n_components=n_components, sigma=sigma, eigen_solver="randomized",
                          random_state=random_state)
        exact_acc, exact_train_s, exact_test_s = run(exact, Xtr, ytr, Xte, yte)
        base = dict(exact_accuracy=exact_acc, exact_train_s=exact_train_s, exact_test_s=exact_test_s)
        for ell in ells:
            m = _shadow_m(Xtr, sigma, ell)
            for name in methods:
                tick(f"{dataset} fold {fold + 1} ell={ell:.1f} {name}")
                est = make_estimator(name, n_components=n_components, sigma=sigma, ell=ell, m=m,
                                     random_state=random_state + fold)
                try:
                    acc, train_s, test_s = run(est, Xtr, ytr, Xte, yte)
                except ValueError as exc:
                    rows.append(_row(dataset, "classification", fold, ell, name, m, len(tr), len(te),
                                     **base) | {"error": str(exc)})
                    continue
                rows.append(_row(
                    dataset, "classification", fold, ell, name, m, len(tr), len(te), **base,
                    accuracy=acc, train_s=train_s, test_s=test_s,
                    train_speedup=exact_train_s / train_s, test_speedup=exact_test_s / test_s,
                    total_speedup=(exact_train_s + exact_test_s) / (train_s + test_s),
                ))
    return rows


_SUMMARY_COLUMNS = {
    "embedding": ["retained_pct", "eigenvalue_deviation", "alignment_error", "train_speedup",
                  "test_speedup"],
    "classification": ["retained_pct", "accuracy", "train_speedup", "test_speedup", "total_speedup"],
}


def summarize(rows, *, ells=None, methods=None) -> dict[tuple[str, str, str], pd.DataFrame]:
    """One table per (dataset, experiment, metric) over splits, ell down, methods across.

    Errors, accuracies and m are means; speedups are medians, because a ratio of two
    millisecond timings on a shared machine has outliers that would dominate a mean.

    ``ells`` and ``methods`` restrict the tables (the README shows every fifth ell).
    Classification tables get a column ``none`` (exact KPCA) for the accuracy.

    >>> rows = [{"dataset": "d", "experiment": "embedding", "ell": 3.0, "method": "rskpca",
    ...          "retained_pct": 40.0, "eigenvalue_deviation": 0.1, "alignment_error": 0.2,
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
        ok = ok[ok["method"].isin(list(methods))]
    if ells is not None:
        ok = ok[np.isclose(ok["ell"].to_numpy()[:, None], np.asarray(ells)[None, :]).any(axis=1)]
    for (dataset, experiment), part in ok.groupby(["dataset", "experiment"], sort=False):
        order = list(dict.fromkeys(part["method"]))
        for metric in _SUMMARY_COLUMNS[experiment]:
            if metric not in part.columns:
                continue
            agg = "median" if metric.endswith("speedup") else "mean"
            table = part.pivot_table(index="ell", columns="method", values=metric, aggfunc=agg)
            table = table.reindex(columns=order)
            if metric == "accuracy" and "exact_accuracy" in part.columns:
                # every method's row of a fold carries the same exact accuracy: count each fold once
                exact = part.drop_duplicates(["ell", "split"]).groupby("ell")["exact_accuracy"]
                table["none"] = exact.mean()
            out[(dataset, experiment, metric)] = table.astype(float)
    return out
