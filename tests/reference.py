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


def literal_landmark_graph(X, C, n_neighbors, regularization=0.0):
    """The n x n row affinity of landmark spectral clustering, built as Cai & Chen (2015) write it.

    Row by row: the K nearest landmarks (ties to the lower index), Gaussian weights
    exp(-d^2 / 2h^2) normalised to sum 1, h the mean distance of all rows to their K nearest;
    then W = Z diag(1 / column sums) Z'. Returns W (n x n); its eigenvalues, descending, are
    1 (the constant vector) and then the nontrivial ones. With ``regularization`` (Qin & Rohe
    2013) every linked column sum is raised by that fraction of their mean: W = Z diag(1 / (col
    + tau)) Z', whose top eigenvalue is below 1 and stands for the constant.
    """
    X = np.asarray(X, dtype=np.float64)
    C = np.asarray(C, dtype=np.float64)
    n, m, K = X.shape[0], C.shape[0], int(n_neighbors)
    near, dist = [], []
    for i in range(n):
        d = np.sqrt(((C - X[i]) ** 2).sum(axis=1))
        order = np.argsort(d, kind="stable")[:K]
        near.append(order)
        dist.append(d[order])
    h = float(np.mean(dist)) or 1.0
    Z = np.zeros((n, m))
    for i in range(n):
        v = np.exp(-dist[i] ** 2 / (2 * h * h))
        Z[i, near[i]] = v / v.sum()
    col = Z.sum(axis=0)
    used = col > 0
    tau = regularization * col[used].mean()
    return Z[:, used] @ np.diag(1.0 / (col[used] + tau)) @ Z[:, used].T


def literal_local_scaling(X, n_neighbors):
    """Zelnik-Manor & Perona's (2004) self-tuning affinity on the rows, with the package's scale rule.

    s_i: the distance from row i to its K-th nearest *distinct* point at a positive distance
    (duplicates of a point count once, so each copy of a repeated point has the point's own
    scale); A_ij = exp(-d_ij^2 / (s_i s_j)) with A_ii = 1.
    """
    X = np.asarray(X, dtype=np.float64)
    distinct = np.unique(X, axis=0)
    K = int(n_neighbors)
    s = np.empty(X.shape[0])
    for i, x in enumerate(X):
        d = np.sort(np.sqrt(((distinct - x) ** 2).sum(axis=1)))
        d = d[d > 0]
        s[i] = d[min(K, d.size) - 1] if d.size else 1.0
    D2 = ((X[:, None, :] - X[None, :, :]) ** 2).sum(axis=2)
    return np.exp(-D2 / np.outer(s, s))


def random_walk_eigenvalues(A):
    """Eigenvalues of P = D^-1 A (D the row sums of the symmetric A), descending, via D^-1/2 A D^-1/2."""
    d = A.sum(axis=1)
    S = A / np.sqrt(np.outer(d, d))
    return np.sort(np.linalg.eigvalsh((S + S.T) / 2))[::-1]
