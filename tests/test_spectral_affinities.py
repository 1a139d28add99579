"""The landmark and local-scaling affinities against the dense n x n methods built literally (issue 37).

Oracles (tests/reference.py): the landmark graph W = Z D_c^-1 Z' of Cai & Chen (2015) written row
by row, and Zelnik-Manor & Perona's (2004) self-tuning affinity on every row; the reduced methods
must give their eigenvalues to 1e-8 -- with every row its own center, with fewer centers
(the m x m identity of the landmark graph), and on the quantized data (each center w times).
"""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st
import scipy.sparse as sp
from sklearn.datasets import make_blobs, make_circles, make_moons
from sklearn.metrics import adjusted_rand_score
from sklearn.utils._param_validation import InvalidParameterError

from reference import literal_landmark_graph, literal_local_scaling, random_walk_eigenvalues
from rskpca import ReducedSetDiffusionMap, ReducedSetSpectralClustering, ReducedSetSpectralEmbedding
from rskpca.core.metrics import alignment_error
from rskpca.decomposition._landmark_graph import AUTO_REGULARIZATION, AUTO_STEPS, localized

EVERY_ROW = 1e12  # ell so large that eps is below every distance between distinct rows: m = n


def _rows(n=40, d=3, seed=0):
    return np.random.default_rng(seed).normal(size=(n, d))


@pytest.mark.parametrize("regularization", [0.0, 0.05, 0.5])
@pytest.mark.parametrize("ell", [EVERY_ROW, 1.5])
def test_landmark_eigenvalues_equal_the_dense_graph_on_the_rows(ell, regularization):
    # every row a landmark (m = n), and fewer landmarks (m < n): the m x m problem is exact both ways
    X = _rows()
    k = 4
    se = ReducedSetSpectralEmbedding(n_components=k, sigma=1.0, ell=ell, affinity="landmark", n_neighbors=5,
                                     regularization=regularization).fit(X)
    assert (se.m_ == 40) == (ell == EVERY_ROW)
    assert se.regularization_ == regularization
    W = literal_landmark_graph(X, se.centers_, 5, regularization)
    vals, vecs = np.linalg.eigh(W)
    vals, vecs = vals[::-1], vecs[:, ::-1]
    assert (abs(vals[0] - 1.0) < 1e-12) == (regularization == 0)
    np.testing.assert_allclose(se.eigenvalues_, vals[1:k + 1], atol=1e-8)
    # the rows' coordinates are W's unit eigenvectors times sqrt(n) (unit in the uniform measure)
    assert alignment_error(vecs[:, 1:k + 1] * np.sqrt(40), se.transform(X)) < 1e-8


@pytest.mark.parametrize("regularization", [0.0, 0.05])
def test_a_graph_in_pieces_on_the_sparse_solver_equals_the_dense_graph(monkeypatch, regularization):
    # Seen: every row its own landmark on a 100-class mixture gave a graph in 30 pieces, eigenvalue 1 thirty
    # times, and ARPACK gave up after 30,000 restarts (70 s, then an error). Each piece is now solved alone.
    import rskpca.decomposition._landmark_graph as graph

    monkeypatch.setattr(graph, "DENSE_MAX_M", 8)  # the sparse path from 9 landmarks up
    X, _ = make_blobs(72, n_features=3, centers=6, cluster_std=0.3, center_box=(-60, 60), random_state=3)
    W = literal_landmark_graph(X, X, 5, regularization)
    vals, vecs = np.linalg.eigh(W)
    vals, vecs = vals[::-1], vecs[:, ::-1]
    ones = int(np.sum(vals > 1 - 1e-9))
    k = ones + 2 if regularization == 0 else 7  # past the eigenvalue-1 pairs: a separated k-th eigenvalue
    assert (regularization > 0 or ones >= 6) and vals[k] - vals[k + 1] > 1e-6
    se = ReducedSetSpectralEmbedding(n_components=k, sigma=1.0, ell=EVERY_ROW, affinity="landmark", n_neighbors=5,
                                     regularization=regularization).fit(X)
    assert se.m_ == 72 and se.eigen_solver_ == "arpack"
    np.testing.assert_allclose(se.eigenvalues_, vals[1:k + 1], atol=1e-8)
    reference = vecs[:, 1:k + 1]
    if regularization == 0:  # eigenvalue 1 is multiple: its space less the constant, not eigh's basis of it
        ones_space = vecs[:, :ones] - np.outer(np.full(72, 72**-0.5), np.full(72, 72**-0.5) @ vecs[:, :ones])
        reference = np.hstack([np.linalg.svd(ones_space, full_matrices=False)[0][:, :ones - 1], vecs[:, ones:k + 1]])
    assert alignment_error(reference * np.sqrt(72), se.transform(X)) < 1e-8


@pytest.mark.parametrize("k", [1, 3])
def test_many_pieces_and_few_eigenvectors_give_eigenvectors_of_the_dense_graph(monkeypatch, k):
    # The case ARPACK gave up on: eigenvalue 1 many times over and only the top few asked for (k clusters - 1).
    # Any basis of that eigenspace is right: the rows' coordinates must be eigenvectors of the literal W.
    import rskpca.decomposition._landmark_graph as graph

    monkeypatch.setattr(graph, "DENSE_MAX_M", 8)
    X, _ = make_blobs(300, n_features=3, centers=30, cluster_std=0.2, center_box=(-200, 200), random_state=1)
    W = literal_landmark_graph(X, X, 5, 0.0)
    assert np.sum(np.linalg.eigvalsh(W) > 1 - 1e-9) >= k + 1
    se = ReducedSetSpectralEmbedding(n_components=k, sigma=1.0, ell=EVERY_ROW, affinity="landmark",
                                     n_neighbors=5).fit(X)
    assert se.eigen_solver_ == "arpack"
    np.testing.assert_allclose(se.eigenvalues_, 1.0, atol=1e-8)
    U = se.transform(X) / np.sqrt(300)
    np.testing.assert_allclose(U.T @ U, np.eye(k), atol=1e-8)
    np.testing.assert_allclose(U.sum(axis=0), 0.0, atol=1e-8)  # orthogonal to the constant
    np.testing.assert_allclose(W @ U, U, atol=1e-8)


def test_where_arpack_stalls_the_graph_is_solved_densely_or_refused_in_words(monkeypatch):
    # Pieces joined by a few weak links put the top eigenvalues within 1e-7 of one another: ARPACK stalled there
    # (a 600-row sample of a 100-class mixture). Stalled here on purpose: the dense answer, or above
    # DENSE_FALLBACK_M landmarks a message that says what to change.
    import rskpca.decomposition._landmark_graph as graph
    from scipy.sparse.linalg import ArpackNoConvergence

    def stall(*args, **kwargs):
        raise ArpackNoConvergence("no convergence", np.zeros(0), np.zeros((0, 0)))

    X = _rows(60)
    dense = ReducedSetSpectralEmbedding(n_components=3, sigma=1.0, ell=EVERY_ROW, affinity="landmark").fit(X)
    monkeypatch.setattr(graph, "DENSE_MAX_M", 8)
    monkeypatch.setattr(graph, "eigsh", stall)
    fallen = ReducedSetSpectralEmbedding(n_components=3, sigma=1.0, ell=EVERY_ROW, affinity="landmark").fit(X)
    assert dense.eigen_solver_ == "dense" and fallen.eigen_solver_ == "arpack"
    np.testing.assert_allclose(fallen.eigenvalues_, dense.eigenvalues_, atol=1e-12)
    assert alignment_error(dense.transform(X), fallen.transform(X)) < 1e-10
    monkeypatch.setattr(graph, "DENSE_FALLBACK_M", 50)
    with pytest.raises(ValueError, match="too close together for ARPACK on 60 landmarks.*max_centers"):
        ReducedSetSpectralEmbedding(n_components=3, sigma=1.0, ell=EVERY_ROW, affinity="landmark").fit(X)


def _two_blobs_and_outliers():
    """Two blobs of 300 rows and three rows far from both (and from each other)."""
    X, y = make_blobs(600, n_features=4, centers=[[0, 0, 0, 0], [6, 0, 0, 0]], random_state=0)
    far = np.array([[40.0, 40, 0, 0], [-40, 40, 0, 0], [0, -40, 40, 0]])
    return np.vstack([X, far]), np.concatenate([y, [0, 1, 0]])


def test_auto_regularization_splits_the_classes_where_the_plain_graph_isolates_outliers():
    # Zhang & Rohe (2018): the plain graph's second eigenvector lives on the outlying rows
    X, y = _two_blobs_and_outliers()
    plain = ReducedSetSpectralClustering(n_clusters=2, regularization=0.0, random_state=0).fit(X)
    assert np.bincount(plain.labels_).min() <= 3 and adjusted_rand_score(y, plain.labels_) < 0.1
    auto = ReducedSetSpectralClustering(n_clusters=2, random_state=0).fit(X)
    assert auto.regularization_ == AUTO_REGULARIZATION
    assert adjusted_rand_score(y[:600], auto.labels_[:600]) == 1.0


def test_auto_regularization_goes_on_while_a_dangling_set_remains(monkeypatch):
    # breast_cancer with a center for every second row: at 0.05 its plain graph's dangling set stays (2 rows
    # against 567), and "auto" goes on to the next step, where the classes split as they should
    import rskpca.core.budget_target as budget
    from sklearn.datasets import load_breast_cancer

    monkeypatch.setattr(budget, "ROWS_PER_CENTER", 2)
    X, y = load_breast_cancer(return_X_y=True)
    X = (X - X.mean(axis=0)) / X.std(axis=0)
    first = ReducedSetSpectralClustering(n_clusters=2, regularization=AUTO_REGULARIZATION, random_state=0).fit(X)
    assert np.bincount(first.labels_).min() <= 3
    auto = ReducedSetSpectralClustering(n_clusters=2, random_state=0).fit(X)
    assert auto.regularization_ in AUTO_STEPS[1:]
    assert np.bincount(auto.labels_).min() > 100 and adjusted_rand_score(y, auto.labels_) > 0.6


@pytest.mark.parametrize("make", [lambda: make_circles(2000, noise=0.05, factor=0.5, random_state=0),
                                  lambda: make_moons(2000, noise=0.05, random_state=0)])
def test_auto_regularization_leaves_a_graph_without_dangling_sets_alone(make):
    # regularization would lower the sparser ring's eigenvalue below a mode along the denser one
    X, y = make()
    sc = ReducedSetSpectralClustering(n_clusters=2, random_state=0).fit(X)
    assert sc.regularization_ == 0.0 and adjusted_rand_score(y, sc.labels_) == 1.0


def test_localized_measures_participation():
    Z = sp.identity(100, format="csr")
    spread, single = np.ones((100, 1)), np.eye(100)[:, :1]
    assert not localized(Z, np.ones(100), spread, 2) and localized(Z, np.ones(100), single, 2)
    # 2 of 100 rows carry the vector: participation 0.02, under 0.1 / k (a tenth of an average cluster) for k < 5
    two = np.r_[np.ones(2), np.zeros(98)][:, None]
    assert localized(Z, np.ones(100), two, 4) and not localized(Z, np.ones(100), two, 6)
    # row weights count: the same two rows standing for 30 rows each carry 60 of 158
    assert not localized(Z, np.r_[30.0, 30.0, np.ones(98)], two, 4)


def test_landmark_fit_reduced_set_is_exact_on_the_quantized_data():
    X = _rows(60)
    a = ReducedSetSpectralEmbedding(n_components=3, sigma=1.0, ell=2.0).fit(X)
    C, w = a.centers_, a.weights_
    b = ReducedSetDiffusionMap(n_components=3, sigma=1.0, affinity="landmark", n_neighbors=4,
                               t=1).fit_reduced_set(C, w)
    Xq = np.repeat(C, w.astype(int), axis=0)
    vals = np.linalg.eigvalsh(literal_landmark_graph(Xq, C, 4))[::-1]
    np.testing.assert_allclose(b.eigenvalues_, vals[1:4], atol=1e-8)
    np.testing.assert_allclose(np.sort(b.weights_), np.sort(w))


@pytest.mark.parametrize("ell", [EVERY_ROW, 2.0])
def test_local_scaling_equals_the_dense_self_tuning_method_on_the_quantized_data(ell):
    X = _rows(50)
    k = 3
    se = ReducedSetSpectralEmbedding(n_components=k, sigma=1.0, ell=ell, affinity="local_scaling",
                                     n_neighbors=4).fit(X)
    Xq = np.repeat(se.centers_, se.weights_.astype(int), axis=0)
    if ell == EVERY_ROW:
        assert se.m_ == 50
    vals = random_walk_eigenvalues(literal_local_scaling(Xq, 4))
    np.testing.assert_allclose(se.eigenvalues_, vals[1:k + 1], atol=1e-8)
    # a center's transform is its row of the embedding (the scale rule is the same for it)
    np.testing.assert_allclose(se.transform(se.centers_), se.embedding_, atol=1e-10)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(n=st.integers(12, 40), d=st.integers(1, 4), k=st.integers(1, 3), K=st.integers(1, 5),
       affinity=st.sampled_from(["landmark", "local_scaling"]), regularization=st.sampled_from([0.0, 0.05, 1.0]),
       seed=st.integers(0, 10_000))
def test_integer_features_with_ties_and_duplicates_match_the_oracle(n, d, k, K, affinity, regularization, seed):
    # small integers: many equal distances (ties) and repeated rows
    X = np.random.default_rng(seed).integers(0, 4, size=(n, d)).astype(float)
    m = np.unique(X, axis=0).shape[0]
    if m < 3 or k >= m - 1 or K > m - 1:
        return
    se = ReducedSetSpectralEmbedding(n_components=k, sigma=1.0, ell=EVERY_ROW, affinity=affinity,
                                     n_neighbors=K, regularization=regularization).fit(X)
    assert se.m_ == m and se.eigenvalues_.shape == (k,) and se.transform(X).shape == (n, k)
    if affinity == "landmark":
        W = literal_landmark_graph(X, se.centers_, K, regularization)
        vals = np.linalg.eigvalsh(W)[::-1]
    else:
        vals = random_walk_eigenvalues(literal_local_scaling(X, K))
    # the landmark graph of duplicated rows can be in pieces: eigenvalue 1 repeats, kept as coordinates
    np.testing.assert_allclose(se.eigenvalues_, vals[1:k + 1], atol=1e-8)
    assert np.all(np.isfinite(se.transform(X)))


@settings(max_examples=10, deadline=None)
@given(k=st.integers(2, 5), seed=st.integers(0, 1000))
def test_clustering_shapes_and_predict_equal_labels_on_training_rows(k, seed):
    X, _ = make_blobs(300, n_features=3, centers=k, random_state=seed)
    sc = ReducedSetSpectralClustering(n_clusters=k, max_centers=100, random_state=seed).fit(X)
    assert sc.labels_.shape == (300,) and set(np.unique(sc.labels_)) <= set(range(k))
    assert sc.m_ <= 100 and sc.cluster_centers_.shape == (k, k)
    np.testing.assert_array_equal(sc.predict(X), sc.labels_)


def test_held_out_rows_get_their_blob():
    X, y = make_blobs(3000, n_features=5, centers=4, random_state=0)
    sc = ReducedSetSpectralClustering(n_clusters=4, random_state=0).fit(X[:2000])
    assert adjusted_rand_score(y[:2000], sc.labels_) == 1.0
    assert adjusted_rand_score(y[2000:], sc.predict(X[2000:])) == 1.0


@pytest.mark.parametrize("params, pattern", [
    (dict(n_neighbors=0), InvalidParameterError),
    (dict(max_centers=1), InvalidParameterError),
    (dict(affinity="cosine"), InvalidParameterError),
])
def test_bad_parameters_are_refused_by_name(params, pattern):
    with pytest.raises(pattern, match=f"'{next(iter(params))}' parameter"):
        ReducedSetSpectralClustering(n_clusters=2, **params).fit(_rows())


def test_bad_combinations_are_refused_in_words():
    X = _rows(200)
    with pytest.raises(ValueError, match=r"max_centers=3 is below n_clusters=4.*Raise max_centers"):
        ReducedSetSpectralClustering(n_clusters=4, max_centers=3).fit(X)
    with pytest.raises(ValueError, match=r"n_neighbors=50 exceeds the \d+ centers of this fit \(m=\d+\)"):
        ReducedSetSpectralClustering(n_clusters=2, max_centers=30, n_neighbors=50).fit(X)
    with pytest.raises(ValueError, match=r"n_neighbors=30 exceeds the \d+ other centers"):
        ReducedSetSpectralClustering(n_clusters=2, max_centers=30, n_neighbors=30, affinity="local_scaling").fit(X)
    with pytest.raises(ValueError, match=r"ell=None picks the radius from max_centers"):
        ReducedSetSpectralClustering(n_clusters=2, max_centers=None).fit(X)


def test_the_budget_picks_eps_and_a_number_for_ell_is_a_ceiling():
    X = _rows(3000, d=4)
    sc = ReducedSetSpectralClustering(n_clusters=3, max_centers=200, random_state=0).fit(X)
    assert 150 <= sc.m_ <= sc.shadow_m_ <= 200  # refinement may drop a center no row is nearest to
    coarse = ReducedSetSpectralClustering(n_clusters=3, sigma=1.0, ell=0.5, max_centers=200, lloyd_steps=0).fit(X)
    assert coarse.eps_ == 2.0 and coarse.m_ < 200  # sigma / ell fits: kept
    fine = ReducedSetSpectralClustering(n_clusters=3, sigma=1.0, ell=20.0, max_centers=200, lloyd_steps=0).fit(X)
    assert fine.eps_ > 1.0 / 20.0 and fine.m_ <= 200  # widened to fit


@pytest.mark.parametrize("cls", [ReducedSetDiffusionMap, ReducedSetSpectralEmbedding])
def test_the_transformers_take_a_target_budget_as_the_clustering_does(cls):
    # ell=None: the radius picked for max_centers (the app's "at most N centers" on every method)
    X = _rows(3000, d=4)
    est = cls(2, sigma=1.0, ell=None, max_centers=200, random_state=0).fit(X)
    assert 100 <= est.m_ <= 200 and est.transform(X[:7]).shape == (7, 2)
    with pytest.raises(ValueError, match=r"ell=None picks the radius from max_centers"):
        cls(2, sigma=1.0, ell=None).fit(X)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_landmark_fit_transform_is_fit_then_transform_with_one_search_of_the_rows(monkeypatch, dtype):
    from rskpca.decomposition import _landmark_graph, _spectral_affinities

    X = np.random.default_rng(0).normal(size=(1500, 3)).astype(dtype)
    expected = ReducedSetSpectralClustering(n_clusters=3, max_centers=100, random_state=0).fit(X).transform(X)
    searches = []
    real = _landmark_graph.nearest_centers
    for module in (_landmark_graph, _spectral_affinities):  # the fit's search and transform's
        monkeypatch.setattr(module, "nearest_centers", lambda A, C, K: searches.append(A.shape[0]) or real(A, C, K))
    est = ReducedSetSpectralClustering(n_clusters=3, max_centers=100, random_state=0)
    Z = est.fit_transform(X)
    assert Z.dtype == dtype and searches.count(X.shape[0]) == 1  # the fit's search, none after it
    np.testing.assert_array_equal(Z, expected)
    assert not hasattr(est, "_row_coordinates")


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(n=st.integers(1, 60), m=st.integers(1, 50), d=st.integers(1, 5), K=st.integers(1, 6),
       offset=st.sampled_from([0.0, 1e6]), integer=st.booleans(), seed=st.integers(0, 10_000))
@pytest.mark.parametrize("pruned", [False, True])
def test_nearest_centers_are_a_literal_sort_by_distance_then_index(pruned, n, m, d, K, offset, integer, seed):
    # The candidates come from GEMM products (rounded); the answer must still be the literal one, ties
    # (integer features, duplicate centers) to the lower index, also far from the origin. ``pruned``: every
    # row's products cover only the centers the triangle inequality leaves it (clustered centers, so that
    # the prefixes are short), as on many rows.
    from unittest import mock

    from rskpca.decomposition import _nearest_centers

    K = min(K, m)
    rng = np.random.default_rng(seed)
    def draw(size):
        return rng.integers(0, 3, size=size).astype(float) if integer else rng.normal(size=size)

    X, C = offset + draw((n, d)), offset + draw((m, d))
    if pruned:  # a few far-apart groups of centers and rows
        X[:, 0] += 20.0 * rng.integers(0, 4, size=n)
        C[:, 0] += 20.0 * rng.integers(0, 4, size=m)
    force = dict(PRUNE_MIN_ROWS=1, PRUNE_MIN_CENTERS=1, PRUNE_MAX_FRACTION=np.inf) if pruned else dict(PRUNE_MIN_ROWS=n + 1)
    with mock.patch.multiple(_nearest_centers, **force):
        if pruned:
            assert _nearest_centers._prefixes(X, C, min(m, K + _nearest_centers.TIE_MARGIN)) is not None or n == 0
        idx, dist = _nearest_centers.nearest_centers(X, C, K)
    for i in range(n):
        sq = np.array([((C[j] - X[i]) ** 2).sum() for j in range(m)])
        order = np.lexsort((np.arange(m), sq))[:K]
        assert idx[i].tolist() == order.tolist()
        np.testing.assert_array_equal(dist[i], np.sqrt(sq[order]))
