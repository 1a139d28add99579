"""Default bandwidths of the bundled samples made to show a nonlinear structure (Two moons, Circles).

The median heuristic (median pairwise distance) sets sigma to the data's overall
size; on Two moons (median 1.16) the kernel then spans both moons and kernel PCA
sees one blob, which is the first thing a class sees. For the samples built to show
what linear PCA cannot, the default is instead **the sigma whose exact kernel PCA
features show the sample's classes best**: among ``median * 2**(k/2)``,
k = -10, ..., 4, the one where a logistic regression on the first two kernel PCA
components separates the classes with the highest 5-fold accuracy (ties: the larger
sigma). The values stored in :data:`rskpca.data.datasets.SAMPLES` come from
``python -m rskpca.data.bandwidth`` (seconds); ``tests/test_datasets.py`` checks
they still do. The app keeps the median heuristic one click away.
"""

from __future__ import annotations

import sys

import numpy as np

from rskpca.core.bandwidth_heuristic import median_heuristic

__all__ = ["GRID_EXPONENTS", "separating_sigma", "main"]

#: sigma = median * 2**(k/2) for these k.
GRID_EXPONENTS = tuple(range(-10, 5))


def _separation(X: np.ndarray, y: np.ndarray, sigma: float) -> float:
    from sklearn.decomposition import KernelPCA
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import StratifiedKFold, cross_val_score

    Z = KernelPCA(n_components=2, kernel="rbf", gamma=1.0 / sigma**2).fit_transform(X)
    folds = StratifiedKFold(5, shuffle=True, random_state=0)
    return float(cross_val_score(LogisticRegression(), Z, y, cv=folds).mean())


def separating_sigma(X: np.ndarray, y: np.ndarray) -> tuple[float, float, list[tuple[float, float]]]:
    """``(sigma, accuracy, [(sigma_k, accuracy_k), ...])``: the grid point whose 2-D KPCA shows the classes best.

    sigma is rounded to 3 significant digits (the value the app shows).
    """
    X = np.asarray(X, dtype=np.float64)
    median = median_heuristic(X, max_samples=len(X))  # over all pairs: the grid's anchor
    scores = [(median * 2.0 ** (k / 2), _separation(X, y, median * 2.0 ** (k / 2))) for k in GRID_EXPONENTS]
    best = max(scores, key=lambda s: (round(s[1], 3), s[0]))
    return float(f"{best[0]:.3g}"), best[1], scores


def main(argv=None) -> int:
    """Print the default sigma of every sample that has one, with the accuracy at it and at the median."""
    from rskpca.data.datasets import SAMPLES, load_sample

    names = list(sys.argv[1:] if argv is None else argv) or [n for n, s in SAMPLES.items() if s.sigma]
    for name in names:
        df = load_sample(name)
        X, y = df.drop(columns=SAMPLES[name].label).to_numpy(np.float64), df[SAMPLES[name].label].to_numpy()
        sigma, acc, scores = separating_sigma(X, y)
        at_median = scores[GRID_EXPONENTS.index(0)]
        print(f"{name}: sigma = {sigma:g} (accuracy {acc:.3f}); median {at_median[0]:.3g} "
              f"(accuracy {at_median[1]:.3f}); stored {SAMPLES[name].sigma}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
