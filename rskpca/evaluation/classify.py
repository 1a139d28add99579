"""Classification on kernel PCA features: the one path of the app's Kernelization page and of
Figures 4-5 and 7-8 (``rskpca experiment``).

A linear classifier on kernel PCA features is a kernel classifier; with RSKPCA features it
trains and predicts through m centers instead of n points. Training time counts the fit,
embedding the training rows and the classifier's fit; test time counts embedding the
held-out rows and the prediction (Section 6 of Kingravi et al. 2013).
"""

from __future__ import annotations

import numpy as np
from sklearn.discriminant_analysis import LinearDiscriminantAnalysis
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import StratifiedKFold
from sklearn.neighbors import KNeighborsClassifier

from rskpca.core.validation import check_array_2d
from rskpca.evaluation.methods import make_estimator
from rskpca.evaluation.timing import Timing, best_time

__all__ = ["CLASSIFIERS", "make_classifier", "fit_predict", "check_labels", "rows_of_classes_with_folds",
           "cross_validate_classifier"]

#: Classifiers offered on kernel PCA features.
CLASSIFIERS = {
    "knn": "k-nearest neighbours (k = 3, as in Section 6)",
    "lda": "Linear discriminant analysis",
    "logistic": "Logistic regression",
}


def make_classifier(name: str, *, n_neighbors: int = 3):
    """A fresh classifier by name (:data:`CLASSIFIERS`).

    >>> make_classifier("knn").n_neighbors
    3
    """
    if name == "knn":
        return KNeighborsClassifier(n_neighbors=n_neighbors)
    if name == "lda":
        return LinearDiscriminantAnalysis()
    if name == "logistic":
        return LogisticRegression(max_iter=1000)
    raise ValueError(f"Unknown classifier {name!r}; choose one of {sorted(CLASSIFIERS)}.")


def fit_predict(estimator, classifier: str, X_train, y_train, X_test, y_test, *,
                timing: Timing = Timing(), n_neighbors: int = 3) -> dict:
    """Train ``classifier`` on ``estimator``'s features of ``X_train``; score it on ``X_test``.

    Returns ``accuracy``, ``train_s`` (fit + embedding the training rows + classifier fit)
    and ``test_s`` (embedding the test rows + prediction), each time the best of ``timing``.

    >>> import numpy as np
    >>> from rskpca import ReducedSetKPCA
    >>> X = np.r_[np.zeros((10, 2)), np.ones((10, 2)) * 5] + np.random.default_rng(0).normal(size=(20, 2))
    >>> y = np.repeat([0, 1], 10)
    >>> fit_predict(ReducedSetKPCA(n_components=1, sigma=3.0), "knn", X, y, X, y)["accuracy"]
    1.0
    """
    def train():
        clf = make_classifier(classifier, n_neighbors=n_neighbors)
        return clf.fit(estimator.fit(X_train).transform(X_train), y_train)
    clf, train_s = best_time(train, timing)
    pred, test_s = best_time(lambda: clf.predict(estimator.transform(X_test)), timing)
    return {"accuracy": float(np.mean(pred == np.asarray(y_test))), "train_s": train_s, "test_s": test_s}


def check_labels(X, y, folds: int):
    """``(X, y as str)`` checked for stratified ``folds``-fold cross-validation."""
    X = check_array_2d(X, name="X", min_samples=2)
    y = np.asarray(y)
    if y.shape[0] != X.shape[0]:
        raise ValueError(f"y has {y.shape[0]} labels for {X.shape[0]} rows; give one label per row.")
    y = y.astype(str)
    classes, counts = np.unique(y, return_counts=True)
    if classes.size < 2:
        raise ValueError("The label column has a single class; classification needs at least two.")
    if isinstance(folds, bool) or int(folds) < 2:
        raise ValueError(f"folds must be an integer >= 2; got {folds!r}.")
    if counts.min() < folds:
        raise ValueError(f"The smallest class has {counts.min()} row(s), fewer than the {folds} folds; "
                         "lower the number of folds or choose another label column.")
    return X, y


def rows_of_classes_with_folds(y, folds: int) -> tuple[np.ndarray, int, int]:
    """``(keep, n_classes, n_dropped)``: the rows whose class has at least ``folds`` rows (stratified
    ``folds``-fold cross-validation needs as many of each class), the classes there are, and how many are
    left out. Labels are compared as text, as :func:`check_labels` compares them.

    A label whose classes are mostly single rows is a measurement or an identifier, not classes: a caller
    says so rather than cross-validating the few classes that repeat.

    >>> keep, n_classes, dropped = rows_of_classes_with_folds(["a", "a", "b", "b", "c"], folds=2)
    >>> keep.tolist(), n_classes, dropped
    ([True, True, True, True, False], 3, 1)
    """
    y = np.asarray(y).astype(str)
    classes, codes, counts = np.unique(y, return_inverse=True, return_counts=True)
    common = counts >= int(folds)
    return common[codes.ravel()], int(classes.size), int((~common).sum())


def cross_validate_classifier(X, y, *, method: str, classifier: str, n_components: int, sigma: float,
                              kernel: str = "gaussian", ell: float = 4.0, folds: int = 5,
                              random_state=0, timing: Timing = Timing(), progress=None) -> dict:
    """Cross-validated accuracy of ``classifier`` on the features of a registered method.

    Parameters
    ----------
    X : array-like of shape (n, d)
    y : array-like of shape (n,)
        Class labels.
    method : str
        A key of :data:`rskpca.evaluation.methods.METHODS` (e.g. ``"rskpca"`` or ``"exact"``).
    classifier : {"knn", "lda", "logistic"}
    n_components, sigma, kernel, ell
        Kernel PCA settings (ell is ignored by exact KPCA).
    folds : int, default=5
        Stratified folds (shuffled with ``random_state``).
    timing : Timing, default=Timing()
    progress : callable or None, default=None
        ``progress(fraction, message)`` before each fold and at the end (:mod:`rskpca.core.progress`);
        raise in it to stop.

    Returns
    -------
    dict
        ``accuracy``, ``accuracy_std``, ``train_s`` and ``test_s`` (means over folds),
        ``folds``, ``scores`` (one per fold).

    Raises
    ------
    ValueError
        Fewer than 2 classes, a class with fewer members than folds, or bad settings.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> X = np.vstack([rng.normal(size=(30, 2)), rng.normal(loc=6.0, size=(30, 2))])
    >>> y = np.repeat([0, 1], 30)
    >>> res = cross_validate_classifier(X, y, method="rskpca", classifier="knn", n_components=2, sigma=2.0)
    >>> res["accuracy"]
    1.0
    """
    X, y = check_labels(X, y, folds)
    make_classifier(classifier)  # a clear error before any fit
    cv = StratifiedKFold(n_splits=int(folds), shuffle=True, random_state=random_state)
    runs = []
    for i, (tr, te) in enumerate(cv.split(X, y)):
        if progress is not None:
            progress(i / int(folds), f"fold {i + 1} of {int(folds)}")
        est = make_estimator(method, n_components=n_components, sigma=sigma, kernel=kernel, ell=ell,
                             random_state=random_state)
        runs.append(fit_predict(est, classifier, X[tr], y[tr], X[te], y[te], timing=timing))
    if progress is not None:
        progress(1.0, f"{int(folds)} folds done")
    scores = [r["accuracy"] for r in runs]
    return {
        "accuracy": float(np.mean(scores)),
        "accuracy_std": float(np.std(scores)),
        "train_s": float(np.mean([r["train_s"] for r in runs])),
        "test_s": float(np.mean([r["test_s"] for r in runs])),
        "folds": int(folds),
        "scores": scores,
    }
