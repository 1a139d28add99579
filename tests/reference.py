"""Literal, slow implementations used as oracles by the tests (not shipped in the package)."""

import numpy as np

from rskpca.core.shadow import exact_squared_distances


def literal_shadow(X, eps):
    """Algorithm 2 as written: take the first remaining point, remove its shadow, repeat.

    Uses the package's stated predicate: sum((y - c)**2) < eps**2 in float64.
    """
    X = np.asarray(X, dtype=np.float64)
    remaining = list(range(X.shape[0]))
    centers, weights = [], []
    labels = np.full(X.shape[0], -1)
    while remaining:
        c = remaining[0]
        rem = np.array(remaining)
        d2 = exact_squared_distances(X[c], X[rem])
        in_shadow = d2 < eps * eps
        in_shadow[0] = True
        labels[rem[in_shadow]] = len(centers)
        centers.append(c)
        weights.append(int(in_shadow.sum()))
        remaining = rem[~in_shadow].tolist()
    return np.array(centers), np.array(weights), labels
