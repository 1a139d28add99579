"""Reference landmark spectral clusterings for the benchmarks: LSC-K and U-SPEC (lab code, not the package).

Written from the papers' descriptions, to compare the reduced-set spectral clustering against the
published landmark methods at the same budget (issue 37):

* **LSC-K**, landmark-based spectral clustering with k-means landmarks (Cai & Chen 2015, "Large Scale
  Spectral Clustering via Landmark-Based Sparse Representation", IEEE Trans. Cybernetics 45(8)).
  Each row is coded by its r nearest landmarks with Gaussian weights normalised to sum 1 (the sparse
  matrix Z, n x p). With D the diagonal of Z's column sums, Z_hat = Z D^-1/2 and the graph
  W = Z_hat Z_hat' has the left singular vectors of Z_hat as its eigenvectors; they are found through
  the p x p problem Z_hat' Z_hat = B Sigma^2 B', A = Z_hat B Sigma^-1. k-means on A's rows.
* **U-SPEC**, ultra-scalable spectral clustering (Huang, Wang, Wu, Lai & Kwoh 2020, IEEE TKDE 32(11)):
  hybrid representative selection (k-means on 10 p random rows), approximate K nearest representatives
  (coarse to fine through sqrt(p) clusters of representatives and each representative's 10 K nearest
  representatives), the bipartite row-representative graph with Gaussian weights whose bandwidth is
  the mean K-NN distance, and the transfer cut (Li et al. 2012): the normalised cut of the
  representative graph E_R = B' D_X^-1 B solved on the p representatives, mapped back to the rows by
  D_X^-1 B. k-means on the rows' unit-normalised embedding.
* **U-SENC**, the ensemble of the same paper: m U-SPEC base clusterings (a random number of clusters in
  [20, 60] each, independent representatives), fused by the transfer cut of the bipartite row-cluster graph.

The published numbers (U-SPEC paper, Tables 3-6; 1,000 landmarks, K = 5, mean of 20 runs) are the
targets these reproduce: PenDigits LSC-K NMI 79.7 / CA 83.1, U-SPEC 80.3 / 84.2, U-SENC 85.3 / 88.6.
Measured values are in ``tests/benchmarks/RESULTS.md``; reproduce them with (mean of 5 seeds)::

    python tests/benchmarks/landmark_baselines.py ../shared/datasets/pendigits.csv --methods lsc_k,u_spec,u_senc
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import pandas as pd
import scipy.linalg
import scipy.sparse as sp
from sklearn.cluster import KMeans
from sklearn.metrics import pairwise_distances
from sklearn.utils import check_random_state

__all__ = ["lsc_k", "u_spec", "u_senc", "main"]


def _as_rows(X) -> np.ndarray:
    X = np.asarray(X, dtype=np.float64)
    if X.ndim != 2 or X.shape[0] == 0:
        raise ValueError(f"X must be a non-empty 2-D array, got shape {X.shape}")
    return X


def _kmeans_centers(X: np.ndarray, k: int, max_iter: int, rng: np.random.RandomState, init: str) -> np.ndarray:
    km = KMeans(n_clusters=k, init=init, n_init=1, max_iter=max_iter, random_state=rng.randint(2**31 - 1))
    return km.fit(X).cluster_centers_


def _kmeans_labels(E: np.ndarray, k: int, n_init: int, rng: np.random.RandomState, max_iter: int = 100) -> np.ndarray:
    km = KMeans(n_clusters=k, n_init=n_init, max_iter=max_iter, random_state=rng.randint(2**31 - 1))
    return km.fit_predict(E)


def _distances(A: np.ndarray, B: np.ndarray) -> np.ndarray:
    """Euclidean distances between the rows of A and of B (plain NumPy: called per representative, in a loop)."""
    d2 = (A * A).sum(axis=1)[:, None] + (B * B).sum(axis=1)[None, :] - 2.0 * (A @ B.T)
    return np.sqrt(np.maximum(d2, 0.0))


def _nearest(D: np.ndarray, r: int) -> tuple[np.ndarray, np.ndarray]:
    """``(index, distance)`` of each row's r smallest entries of D, nearest first."""
    idx = np.argpartition(D, r - 1, axis=1)[:, :r]
    dist = np.take_along_axis(D, idx, axis=1)
    order = np.argsort(dist, axis=1)
    return np.take_along_axis(idx, order, axis=1), np.take_along_axis(dist, order, axis=1)


def _gaussian_knn_graph(idx: np.ndarray, dist: np.ndarray, p: int) -> sp.csr_matrix:
    """The n x p graph linking each row to its neighbours ``idx`` (n x K, distances ``dist``) with Gaussian weights.

    Both papers take the mean K-NN distance as the bandwidth; a weight that underflows is kept at machine
    epsilon (Huang et al.'s code does so) so that every row keeps K edges.
    """
    n, K = idx.shape
    h = max(dist.mean(), np.finfo(float).tiny)
    w = np.maximum(np.exp(-(dist**2) / (2 * h**2)), np.finfo(float).eps)
    return sp.csr_matrix((w.ravel(), idx.ravel(), np.arange(0, n * K + 1, K)), shape=(n, p))


def _top_eigenpairs(S: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """The k largest eigenvalues of the symmetric S, descending, and their eigenvectors.

    The divide-and-conquer driver on the whole (p x p) matrix: faster than the subset drivers at p ~ 1,000.
    """
    vals, vecs = scipy.linalg.eigh(S, driver="evd")
    return vals[::-1][:k], vecs[:, ::-1][:, :k]


def _unit_rows(E: np.ndarray) -> np.ndarray:
    return E / (np.linalg.norm(E, axis=1, keepdims=True) + 1e-10)


def _check(X, n_clusters: int, n_landmarks: int, n_neighbors: int) -> tuple[np.ndarray, int, int]:
    X = _as_rows(X)
    n = X.shape[0]
    p = min(int(n_landmarks), n)
    r = int(n_neighbors)
    if not 1 <= int(n_clusters) <= p:
        raise ValueError(f"n_clusters must be in [1, n_landmarks = {p}], got {n_clusters}")
    if not 1 <= r <= p:
        raise ValueError(f"n_neighbors must be in [1, n_landmarks = {p}], got {n_neighbors}")
    return X, p, r


def lsc_k(X, n_clusters: int, *, n_landmarks: int = 1000, n_neighbors: int = 5, random_state=None) -> np.ndarray:
    """Cluster the rows of X by LSC-K (Cai & Chen 2015); returns one label in ``range(n_clusters)`` per row.

    Landmarks are k-means centers after a few Lloyd iterations (the paper's choice: the landmarks need
    only cover the data, not converge). Each row is linked to its ``n_neighbors`` nearest landmarks with
    weights exp(-d^2 / (2 h^2)), h the mean distance of the rows to those landmarks, normalised to sum 1.

    Examples
    --------
    >>> from sklearn.datasets import make_blobs
    >>> X, y = make_blobs(600, centers=3, cluster_std=0.5, center_box=(-20, 20), random_state=0)
    >>> labels = lsc_k(X, 3, n_landmarks=60, random_state=0)
    >>> from sklearn.metrics import adjusted_rand_score
    >>> round(adjusted_rand_score(y, labels), 6)
    1.0
    """
    X, p, r = _check(X, n_clusters, n_landmarks, n_neighbors)
    k = int(n_clusters)
    rng = check_random_state(random_state)
    # Cai & Chen run k-means from random rows for a handful of iterations only (5 in their experiments).
    landmarks = _kmeans_centers(X, p, max_iter=5, rng=rng, init="random")
    G = _gaussian_knn_graph(*_nearest(pairwise_distances(X, landmarks), r), p)
    Z = sp.diags(1.0 / np.asarray(G.sum(axis=1)).ravel()) @ G  # each row's weights sum to 1
    col = np.asarray(Z.sum(axis=0)).ravel()
    keep = col > 0  # a landmark no row chose carries no edge
    Z_hat = Z[:, keep] @ sp.diags(1.0 / np.sqrt(col[keep]))
    gram = (Z_hat.T @ Z_hat).toarray()
    vals, B = _top_eigenpairs(gram, k)
    A = Z_hat @ (B / np.sqrt(np.maximum(vals, 1e-300)))
    return _kmeans_labels(_unit_rows(A), k, n_init=10, rng=rng)


def _hybrid_representatives(X: np.ndarray, p: int, rng: np.random.RandomState, oversample: int = 10) -> np.ndarray:
    """p representatives: k-means (20 iterations) on ``oversample * p`` rows drawn at random (Huang et al. 2020)."""
    n = X.shape[0]
    candidates = X[rng.choice(n, size=min(oversample * p, n), replace=False)]
    if candidates.shape[0] == p:
        return candidates
    return _kmeans_centers(candidates, p, max_iter=20, rng=rng, init="random")


def _approximate_knn(X: np.ndarray, reps: np.ndarray, K: int, rng) -> tuple[np.ndarray, np.ndarray]:
    """``(index, distance)`` of each row's K nearest representatives, found coarse to fine (Huang et al. 2020).

    The representatives are grouped into sqrt(p) clusters; a row's nearest representative is sought in the
    cluster whose center is nearest, and its K nearest among the 10 K + 1 nearest representatives of that one.
    """
    n, p = X.shape[0], reps.shape[0]
    n_groups = max(int(np.floor(np.sqrt(p))), 1)
    km = KMeans(n_clusters=n_groups, n_init=1, max_iter=20, random_state=rng.randint(2**31 - 1)).fit(reps)
    group_of_rep, group_of_row = km.labels_, pairwise_distances(X, km.cluster_centers_).argmin(axis=1)
    nearest_rep = np.empty(n, dtype=np.intp)
    for g in range(n_groups):
        rows, members = np.flatnonzero(group_of_row == g), np.flatnonzero(group_of_rep == g)
        if rows.size:
            nearest_rep[rows] = members[_distances(X[rows], reps[members]).argmin(axis=1)]
    width = min(10 * K + 1, p)
    neighbourhood = _nearest(pairwise_distances(reps), width)[0]  # each representative's candidates
    cand_dist = np.empty((n, width))
    order = np.argsort(nearest_rep, kind="stable")
    starts = np.searchsorted(nearest_rep[order], np.arange(p + 1))
    for j in range(p):
        rows = order[starts[j] : starts[j + 1]]
        if rows.size:
            cand_dist[rows] = _distances(X[rows], reps[neighbourhood[j]])
    pos, dist = _nearest(cand_dist, K)
    return np.take_along_axis(neighbourhood[nearest_rep], pos, axis=1), dist


def _transfer_cut_embedding(B: sp.csr_matrix, k: int) -> tuple[np.ndarray, np.ndarray]:
    """``(mu, rows' embedding)`` of the transfer cut of the bipartite graph B (rows x representatives), Li et al. 2012.

    The normalised cut of the whole bipartite graph, W [u; v] = lambda D [u; v], has on its representative
    side the eigenvectors of the representatives' graph E_R = B' D_X^-1 B (degrees D_R): E_R v = mu D_R v
    with mu = lambda^2, solved as the symmetric problem on D_R^-1/2 E_R D_R^-1/2; the rows' side is
    u = D_X^-1 B v / lambda. As Huang et al. 2020, the embedding is D_X^-1 B v (the 1 / lambda is dropped).
    """
    B = B[:, np.asarray(B.sum(axis=0)).ravel() > 0]
    if B.shape[1] < k:
        raise ValueError(f"only {B.shape[1]} representatives are linked to rows, fewer than n_clusters = {k}")
    dx = np.asarray(B.sum(axis=1)).ravel()
    inv_dx = sp.diags(1.0 / np.where(dx > 0, dx, 1e-10))
    E = (B.T @ inv_dx @ B).toarray()
    s = 1.0 / np.sqrt(E.sum(axis=1))
    M = s[:, None] * E * s[None, :]
    mu, vecs = _top_eigenpairs((M + M.T) / 2, k)
    return mu, inv_dx @ (B @ (s[:, None] * vecs))


def _transfer_cut(B: sp.csr_matrix, k: int, n_init: int, rng, max_iter: int = 100) -> np.ndarray:
    """Labels of B's rows: k-means on the unit-normalised rows of the transfer cut's embedding."""
    embedding = _transfer_cut_embedding(B, k)[1]
    return _kmeans_labels(_unit_rows(embedding), k, n_init=n_init, rng=rng, max_iter=max_iter)


def _bipartite_graph(X: np.ndarray, p: int, K: int, rng) -> sp.csr_matrix:
    reps = _hybrid_representatives(X, p, rng)
    return _gaussian_knn_graph(*_approximate_knn(X, reps, K, rng), reps.shape[0])


def u_spec(X, n_clusters: int, *, n_landmarks: int = 1000, n_neighbors: int = 5, random_state=None) -> np.ndarray:
    """Cluster the rows of X by U-SPEC (Huang et al. 2020); returns one label in ``range(n_clusters)`` per row.

    Examples
    --------
    >>> from sklearn.datasets import make_blobs
    >>> X, y = make_blobs(600, centers=3, cluster_std=0.5, center_box=(-20, 20), random_state=0)
    >>> labels = u_spec(X, 3, n_landmarks=60, random_state=0)
    >>> from sklearn.metrics import adjusted_rand_score
    >>> round(adjusted_rand_score(y, labels), 6)
    1.0
    """
    X, p, K = _check(X, n_clusters, n_landmarks, n_neighbors)
    rng = check_random_state(random_state)
    # The paper discretises with 3 k-means replicates of at most 100 iterations.
    return _transfer_cut(_bipartite_graph(X, p, K, rng), int(n_clusters), n_init=3, rng=rng)


def u_senc(
    X,
    n_clusters: int,
    *,
    n_members: int = 20,
    n_landmarks: int = 1000,
    n_neighbors: int = 5,
    random_state=None,
) -> np.ndarray:
    """Cluster the rows of X by U-SENC (Huang et al. 2020): an ensemble of U-SPEC clusterings fused by a transfer cut.

    Each of ``n_members`` base clusterings is a U-SPEC run with its own representatives and a number of
    clusters drawn uniformly in [20, 60] (the paper's range, for diversity), discretised by a single
    5-iteration k-means (diversity again, and speed); the consensus is the transfer cut of the bipartite
    graph between the rows and all base clusters, every edge of weight 1.

    Examples
    --------
    >>> from sklearn.datasets import make_blobs
    >>> X, y = make_blobs(600, centers=3, cluster_std=0.5, center_box=(-20, 20), random_state=0)
    >>> labels = u_senc(X, 3, n_members=2, n_landmarks=60, random_state=0)
    >>> from sklearn.metrics import adjusted_rand_score
    >>> round(adjusted_rand_score(y, labels), 6)
    1.0
    """
    X, p, K = _check(X, n_clusters, n_landmarks, n_neighbors)
    rng = check_random_state(random_state)
    k, n = int(n_clusters), X.shape[0]
    low, high = min(20, p), min(60, p)
    blocks, offset = [], 0
    for _ in range(int(n_members)):
        graph = _bipartite_graph(X, p, K, rng)
        base = _transfer_cut(graph, int(rng.randint(low, high + 1)), n_init=1, rng=rng, max_iter=5)
        blocks.append(base + offset)
        offset += int(base.max()) + 1
    cols = np.stack(blocks, axis=1)
    B = sp.csr_matrix((np.ones(cols.size), cols.ravel(), np.arange(0, cols.size + 1, cols.shape[1])), shape=(n, offset))
    return _transfer_cut(B, k, n_init=3, rng=rng)


def main(argv=None) -> int:
    """Score the baselines on a labelled file (last column the label): NMI, CA, ARI and seconds, mean of the seeds."""
    from rskpca.evaluation.clustering_scores import clustering_scores

    parser = argparse.ArgumentParser(description=main.__doc__)
    parser.add_argument("data", help="CSV (gzip allowed) whose last column is the class label")
    parser.add_argument("--methods", default="lsc_k,u_spec", help="comma-separated: lsc_k, u_spec, u_senc")
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--landmarks", type=int, default=1000)
    parser.add_argument("--neighbors", type=int, default=5)
    args = parser.parse_args(argv)
    frame = pd.read_csv(args.data)
    X, y = frame.iloc[:, :-1].to_numpy(np.float64), frame.iloc[:, -1].to_numpy()
    k = np.unique(y).size
    print(f"{args.data}: {X.shape[0]} rows x {X.shape[1]}, {k} classes; mean (sd) of {args.seeds} seeds")
    for name in args.methods.split(","):
        method = {"lsc_k": lsc_k, "u_spec": u_spec, "u_senc": u_senc}[name]
        runs = []
        for seed in range(args.seeds):
            start = time.perf_counter()
            labels = method(X, k, n_landmarks=args.landmarks, n_neighbors=args.neighbors, random_state=seed)
            runs.append([*clustering_scores(y, labels).as_dict().values(), time.perf_counter() - start])
        mean, sd = np.mean(runs, axis=0), np.std(runs, axis=0)
        print(f"{name:7s} NMI {100 * mean[0]:.1f} ({100 * sd[0]:.1f})  CA {100 * mean[1]:.1f} ({100 * sd[1]:.1f})  "
              f"ARI {100 * mean[2]:.1f} ({100 * sd[2]:.1f})  {mean[3]:.2f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
