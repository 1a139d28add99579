"""Synthetic data shared by several test files (imported as a plain module: conftest.py puts tests/ on
the path). Fixtures that wrap them live in conftest.py."""

import numpy as np

#: The bandwidth at which :func:`three_blobs` has its clear eigengap.
THREE_BLOBS_SIGMA = 2.0


def three_blobs():
    """Three 2-D blobs of 100 points with a clear eigengap at sigma = THREE_BLOBS_SIGMA (top-2 normalized
    eigenvalues 0.26 and 0.25, the third 0.04): the leading subspace is well defined, so "approaches
    exact KPCA" is measurable."""
    rng = np.random.default_rng(0)
    centers = np.array([[0.0, 0.0], [4.0, 0.0], [2.0, 3.0]])
    return np.vstack([0.5 * rng.normal(size=(100, 2)) + c for c in centers])


def clustered_centers(m=300, d=4, seed=0):
    """Centers and integer weights for the weighted eigenproblem: three clusters far from the origin
    (offset 50, so that float32 cancellation in ||x||^2 + ||y||^2 - 2 x.y is exercised), weights 1-29."""
    rng = np.random.default_rng(seed)
    C = np.concatenate([rng.normal(c, 1.0, size=(m // 3, d)) for c in (0.0, 4.0, 9.0)]) + 50.0
    return C, rng.integers(1, 30, size=C.shape[0]).astype(float)


def labelled_blobs_csv(path, spacing: float):
    """Three 3-D blobs of 50 rows, centers ``spacing`` apart on the diagonal, written to ``path`` as a CSV with
    columns a, b, c and an integer ``label`` (0, 1, 2); returns ``path``."""
    import pandas as pd

    rng = np.random.default_rng(0)
    X = np.concatenate([rng.normal(c, 1.0, size=(50, 3)) for c in (0.0, spacing, 2 * spacing)])
    df = pd.DataFrame(X, columns=["a", "b", "c"])
    df["label"] = np.repeat([0, 1, 2], 50)
    df.to_csv(path, index=False)
    return path
