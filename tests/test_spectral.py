"""Diffusion maps, Laplacian eigenmaps and spectral clustering on the shadow (Section 3, eqs. 14-15).

The oracles:

* a literal dense diffusion map (n' x n' matrices, ``np.linalg.eig`` of the non-symmetric
  ``P``) on the quantized data ``np.repeat(centers_, weights_, axis=0)``: it has the m x m
  problem's eigenvalues, and its eigenvectors restricted to one row per center are
  ``transform(centers_)`` (property tests with hypothesis);
* scikit-learn's ``SpectralEmbedding(affinity="precomputed")`` where every point is its
  own center (the self-loop convention matched as explained in its test);
* the measured error against the method on all n (every point a center) as ell grows.
"""

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings, strategies as st
from scipy.spatial.distance import cdist
from sklearn.datasets import make_circles, make_moons
from sklearn.manifold import SpectralEmbedding
from sklearn.metrics import adjusted_rand_score
from sklearn.utils._param_validation import InvalidParameterError

from rskpca import ReducedSetDiffusionMap, ReducedSetSpectralClustering, ReducedSetSpectralEmbedding
from rskpca.core.metrics import alignment_error
from test_bad_input import FIT_CASES

ESTIMATORS = [ReducedSetDiffusionMap, ReducedSetSpectralEmbedding, ReducedSetSpectralClustering]
#: The clustering's settings before issue 37: the global Gaussian on the plain shadow at sigma / ell.
GLOBAL = dict(affinity="gaussian", max_centers=None, lloyd_steps=0)


# ---------------------------------------------------------------------------------------------
# The literal dense method: the convention of DESIGN.md, "Spectral methods on the reduced set".
# ---------------------------------------------------------------------------------------------

def literal_kernel(X, sigma, kernel="gaussian"):
    r = cdist(X, X)
    return np.exp(-(r**2) / sigma**2) if kernel == "gaussian" else np.exp(-r / sigma)


def literal_diffusion_map(X, sigma, alpha, kernel="gaussian"):
    """Eigenvalues (descending) and right eigenvectors of the dense P on all rows of X.

    K keeps its diagonal; q = K 1; K_a = K / (q^a q^a'); d = K_a 1; P = D^-1 K_a. Each psi is
    scaled to unit norm in the stationary measure pi = d / sum(d). The first pair is the
    trivial one (eigenvalue 1, psi = 1).
    """
    K = literal_kernel(X, sigma, kernel)
    q = K.sum(axis=1)
    K_a = K / np.outer(q**alpha, q**alpha)
    d = K_a.sum(axis=1)
    P = K_a / d[:, None]
    vals, vecs = np.linalg.eig(P)
    order = np.argsort(-vals.real)
    vals, vecs = vals.real[order], vecs.real[:, order]
    pi = d / d.sum()
    vecs = vecs / np.sqrt(pi @ vecs**2)[None, :]
    return vals, vecs


def _same_up_to_sign(A, B, atol):
    signs = np.sign(np.sum(A * B, axis=0))
    np.testing.assert_allclose(A, B * signs[None, :], atol=atol, rtol=0)


def _quantized(est):
    counts = est.weights_.astype(int)
    first_row = np.r_[0, np.cumsum(counts)[:-1]]  # one row per center in the repeated data
    return np.repeat(est.centers_, counts, axis=0), first_row


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**31 - 1), n=st.integers(8, 45), d=st.integers(1, 3),
       scale=st.floats(0.3, 3.0), ell=st.floats(0.7, 4.0), alpha=st.floats(0.0, 1.0),
       t=st.sampled_from([0, 0.5, 1, 3]), kernel=st.sampled_from(["gaussian", "laplacian"]),
       k=st.integers(1, 3))
def test_reduced_problem_is_the_dense_method_on_the_quantized_data(seed, n, d, scale, ell, alpha, t, kernel, k):
    X = np.random.default_rng(seed).normal(size=(n, d))
    sigma = scale * float(np.median(cdist(X, X)))
    dm = ReducedSetDiffusionMap(n_components=k, sigma=sigma, ell=ell, alpha=alpha, t=t, kernel=kernel)
    try:
        dm.fit(X)
    except ValueError as exc:  # too few centers for k: refused in words (checked elsewhere)
        assert "nontrivial eigenvectors" in str(exc)
        assume(False)
    Q, first_row = _quantized(dm)
    assert Q.shape[0] == n
    vals, vecs = literal_diffusion_map(Q, sigma, alpha, kernel)
    np.testing.assert_allclose(vals[0], 1.0, atol=1e-10)
    # the quantized P has rank m: its nonzero spectrum is the reduced one
    np.testing.assert_allclose(dm.eigenvalues_, np.maximum(vals[1:k + 1], 0.0), atol=1e-10)
    assert np.all(np.abs(vals[dm.m_:]) < 1e-9)
    # eigenvectors are defined where the eigenvalue is simple (and not 0: no coordinate there)
    gaps = np.abs(np.diff(vals[:k + 2]))
    assume(gaps.min() > 1e-4 and vals[k] > 1e-6)
    psi = vecs[first_row, 1:k + 1]
    _same_up_to_sign(dm.eigenvectors_, psi, atol=1e-8)  # scale too: unit norm in the stationary measure
    Z = dm.transform(dm.centers_)
    _same_up_to_sign(Z, psi * vals[1:k + 1] ** t, atol=1e-8)
    # the other copies of a center carry the same entries
    np.testing.assert_allclose(vecs[:, 1:k + 1], np.repeat(psi, dm.weights_.astype(int), axis=0), atol=1e-8)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), n_new=st.integers(1, 20), alpha=st.floats(0.0, 1.0),
       t=st.sampled_from([0, 1, 2.5]))
def test_nystrom_extension_is_the_formula_written_out(seed, n_new, alpha, t):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(120, 2))
    dm = ReducedSetDiffusionMap(n_components=3, sigma=1.0, ell=2.0, alpha=alpha, t=t).fit(X)
    Xn = rng.normal(size=(n_new, 2)) * 2
    C, w = dm.centers_, dm.weights_
    K = literal_kernel(C, 1.0)
    q = K @ w
    kx = np.exp(-cdist(Xn, C) ** 2)
    qx = kx @ w
    Kax = kx / np.outer(qx**alpha, q**alpha)
    dx = Kax @ w
    Px = Kax * w[None, :] / dx[:, None]
    lam = dm.eigenvalues_
    expected = (Px @ dm.eigenvectors_) / lam * lam**t
    np.testing.assert_allclose(dm.transform(Xn), expected, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("Est", ESTIMATORS)
def test_transform_of_a_center_is_its_eigenvector_entries(Est):
    X, _ = make_moons(400, noise=0.05, random_state=0)
    est = Est(sigma=0.3, ell=3.0, random_state=0).fit(X)
    np.testing.assert_allclose(est.transform(est.centers_), est.embedding_, atol=1e-12)
    alpha, t = est._diffusion_parameters()
    np.testing.assert_allclose(est.embedding_, est.eigenvectors_ * est.eigenvalues_**t, atol=1e-14)
    assert est.m_ == est.centers_.shape[0] == est.weights_.shape[0]
    assert est.weights_.sum() == 400


def test_eigenvectors_are_right_eigenvectors_of_the_weighted_p():
    X, _ = make_moons(300, noise=0.05, random_state=1)
    dm = ReducedSetDiffusionMap(n_components=4, sigma=0.3, ell=3.0, alpha=0.5, t=1).fit(X)
    K = literal_kernel(dm.centers_, 0.3)
    w = dm.weights_
    q = K @ w
    K_a = K / np.outer(q**0.5, q**0.5)
    d = K_a @ w
    P = K_a * w[None, :] / d[:, None]
    np.testing.assert_allclose(P.sum(axis=1), 1.0)
    np.testing.assert_allclose(P @ dm.eigenvectors_, dm.eigenvectors_ * dm.eigenvalues_, atol=1e-10)
    pi = w * d / np.sum(w * d)
    np.testing.assert_allclose(dm.eigenvectors_.T @ (pi[:, None] * dm.eigenvectors_), np.eye(4), atol=1e-10)
    np.testing.assert_allclose(dm.degrees_, d)
    np.testing.assert_allclose(dm.density_, q)


# ---------------------------------------------------------------------------------------------
# Against scikit-learn
# ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("seed", [0, 1, 2])
def test_every_point_its_own_center_agrees_with_sklearn_spectral_embedding(seed):
    X = np.random.default_rng(seed).normal(size=(60, 2))
    sigma = 0.8
    se = ReducedSetSpectralEmbedding(n_components=3, sigma=sigma, ell=1e6).fit(X)
    assert se.m_ == 60 and np.all(se.weights_ == 1) and np.array_equal(se.centers_, X)
    K = literal_kernel(X, sigma)
    # How the conventions are matched. scikit-learn builds scipy's normalized Laplacian of the
    # affinity, and scipy ignores the diagonal: its walk on K is D'^-1 (K - I) with D' = D - I,
    # not our D^-1 K (the self-loop k(x, x) = 1 is dropped). Every entry it keeps is
    # off-diagonal in the bipartite double cover B = [[0, K], [K, 0]] (two copies of the
    # points, each copy linked to the other by K, self-loops included): B has a zero
    # diagonal, so nothing is dropped, and its degrees are K's row sums d. A vector equal on
    # both copies is an eigenvector of D_B^-1 B with eigenvalue lambda iff it is one of our
    # D^-1 K; one with opposite signs has -lambda <= 0. So B's top nontrivial eigenvectors
    # are ours on each copy, and scikit-learn's output (normalized Laplacian eigenvectors
    # divided by sqrt(degree): the random-walk eigenvectors) agrees up to scale and sign.
    B = np.block([[np.zeros_like(K), K], [K, np.zeros_like(K)]])
    sk = SpectralEmbedding(n_components=3, affinity="precomputed", eigen_solver="arpack",
                           random_state=0).fit_transform(B)[:60]
    scale = np.sqrt(np.mean(sk**2, axis=0) / np.mean(se.embedding_**2, axis=0))
    _same_up_to_sign(sk / scale, se.embedding_, atol=1e-6)
    # Given K directly, scikit-learn drops the self-loops and answers another problem:
    naive = SpectralEmbedding(n_components=3, affinity="precomputed", eigen_solver="arpack",
                              random_state=0).fit_transform(K)
    assert alignment_error(naive, se.embedding_) > 1e-3


# ---------------------------------------------------------------------------------------------
# Spectral clustering
# ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("make, sigma, ell", [
    (lambda n, s: make_circles(n, noise=0.05, factor=0.5, random_state=s), 0.1, 3.0),
    (lambda n, s: make_moons(n, noise=0.05, random_state=s), 0.2, 3.0),
])
def test_spectral_clustering_recovers_circles_and_moons(make, sigma, ell):
    X, y = make(3000, 0)
    sc = ReducedSetSpectralClustering(n_clusters=2, sigma=sigma, ell=ell, random_state=0, **GLOBAL).fit(X)
    assert sc.m_ < 3000 / 2
    assert adjusted_rand_score(y, sc.labels_) >= 0.99
    assert sc.labels_.shape == (3000,) and set(np.unique(sc.labels_)) == {0, 1}
    np.testing.assert_array_equal(sc.labels_, sc.center_labels_[sc.shadow_labels_])
    X_new, y_new = make(1000, 1)  # held-out rows: predict through the Nystrom coordinates
    assert adjusted_rand_score(y_new, sc.predict(X_new)) >= 0.99
    np.testing.assert_array_equal(sc.fit_predict(X), sc.labels_)


@pytest.mark.parametrize("make", [
    lambda n, s: make_circles(n, noise=0.05, factor=0.5, random_state=s),
    lambda n, s: make_moons(n, noise=0.05, random_state=s),
])
def test_the_defaults_recover_circles_and_moons_and_predict_agrees(make):
    # no sigma, no ell: the landmark graph on at most n / ROWS_PER_CENTER refined centers at the median sigma
    from rskpca.core.budget_target import ROWS_PER_CENTER

    X, y = make(3000, 0)
    sc = ReducedSetSpectralClustering(n_clusters=2, random_state=0).fit(X)
    target = 3000 // ROWS_PER_CENTER
    assert 0.66 * target < sc.m_ <= target and sc.eps_ > 0
    assert adjusted_rand_score(y, sc.labels_) == 1.0
    np.testing.assert_array_equal(sc.predict(X), sc.labels_)  # a training row's z(x) is its own
    X_new, y_new = make(1000, 1)
    assert adjusted_rand_score(y_new, sc.predict(X_new)) == 1.0


def test_clustering_weights_the_centers_in_kmeans():
    # k-means on the centers with sample_weight = weights_ is k-means on the quantized data
    X, _ = make_moons(500, noise=0.05, random_state=0)
    sc = ReducedSetSpectralClustering(n_clusters=3, sigma=0.3, ell=2.0, random_state=0, **GLOBAL).fit(X)
    E = sc.embedding_
    for c in range(3):
        members = sc.center_labels_ == c
        np.testing.assert_allclose(sc.cluster_centers_[c],
                                   np.average(E[members], axis=0, weights=sc.weights_[members]), atol=1e-8)


def test_uniform_landmarks_run_through_the_same_code():
    X, y = make_moons(2000, noise=0.05, random_state=0)
    sc = ReducedSetSpectralClustering(n_clusters=2, sigma=0.2, ell=3.0, rsde="uniform", random_state=0,
                                      **GLOBAL).fit(X)
    assert sc.m_ == sc.shadow_m_ and np.allclose(sc.weights_, 2000 / sc.m_)
    assert not hasattr(sc, "shadow_labels_")
    np.testing.assert_array_equal(sc.labels_, sc.predict(X))


# ---------------------------------------------------------------------------------------------
# Error against the method on all n (every point a center), over ell: Section 6's measures
# ---------------------------------------------------------------------------------------------

def test_error_against_the_full_method_falls_as_ell_grows():
    X, y = make_moons(1200, noise=0.08, random_state=0)
    train, held = X[:900], X[900:]
    kw = dict(n_components=3, sigma=0.3, alpha=1.0, t=1)
    full = ReducedSetDiffusionMap(ell=1e6, **kw).fit(train)
    assert full.m_ == 900
    Z_full = full.transform(held)
    eig_err, align_err = [], []
    for ell in (1.0, 2.0, 4.0, 8.0):
        dm = ReducedSetDiffusionMap(ell=ell, **kw).fit(train)
        eig_err.append(np.max(np.abs(dm.eigenvalues_ - full.eigenvalues_)))
        align_err.append(alignment_error(Z_full, dm.transform(held)))
    assert eig_err[-1] < eig_err[0] and align_err[-1] < align_err[0]
    assert eig_err[-1] < 1e-3 and align_err[-1] < 0.02, (eig_err, align_err)


# ---------------------------------------------------------------------------------------------
# Bad input and edge cases
# ---------------------------------------------------------------------------------------------

def _blobs(n=60):
    return np.random.default_rng(0).normal(size=(n, 2))


@pytest.mark.parametrize("Est", [ReducedSetDiffusionMap, ReducedSetSpectralEmbedding])
def test_n_components_at_least_m_is_refused_in_words(Est):
    est = Est(n_components=5, sigma=3.0, ell=1.0)
    with pytest.raises(ValueError, match=r"n_components=5 needs 5 nontrivial eigenvectors, but the shadow gives "
                                         r"m=\d centers at sigma=3, ell=1.*raise ell or max_centers, or lower sigma"):
        est.fit(_blobs())


def test_n_clusters_above_m_is_refused_in_words():
    with pytest.raises(ValueError, match=r"n_clusters=9 exceeds the number of centers: the shadow gives m=\d"):
        ReducedSetSpectralClustering(n_clusters=9, sigma=3.0, ell=1.0, **GLOBAL).fit(_blobs())


@pytest.mark.parametrize("params", [{"alpha": -0.1}, {"alpha": 1.5}, {"t": -1}, {"n_components": 0},
                                    {"ell": 0.0}, {"sigma": -1.0}, {"rsde": "nope"}])
def test_bad_parameters_are_refused_by_name(params):
    name = next(iter(params))
    with pytest.raises(InvalidParameterError, match=f"'{name}' parameter"):
        ReducedSetDiffusionMap(**params).fit(_blobs())


@pytest.mark.parametrize("case", ["nan", "inf", "one row", "constant", "near 1e200", "text"])
@pytest.mark.parametrize("Est", ESTIMATORS)
def test_bad_data_gets_the_package_messages(Est, case):
    make_X, pattern, _ = FIT_CASES[case]
    with pytest.raises(ValueError, match=pattern):
        Est(sigma=2.0, random_state=0).fit(make_X())


def test_far_points_get_the_limit_never_nan():
    X = _blobs(200)
    for Est in ESTIMATORS:
        extra = GLOBAL if Est is ReducedSetSpectralClustering else {}
        est = Est(n_components=2, sigma=0.5, ell=2.0, random_state=0, **extra).fit(X)
        far = np.array([[1e3, 0.0], [0.0, -1e4], [40.0, 40.0]])  # every kernel value underflows
        Z = est.transform(far)
        assert np.all(np.isfinite(Z))
        # the limit of the formula: P(x, .) all on the nearest center, so lambda^t psi(x) is
        # lambda^(t-1) psi(c), the center's coordinates divided by lambda
        nearest = np.argmin(cdist(far, est.centers_), axis=1)
        np.testing.assert_allclose(Z, est.embedding_[nearest] / est.eigenvalues_, rtol=1e-6)
    assert np.all(np.isin(est.predict(far), [0, 1]))


def test_a_disconnected_graph_is_a_stated_result():
    # two groups so far apart that every kernel value between them underflows to 0:
    # eigenvalue 1 twice; the trivial vector is dropped and the second tells the groups apart
    rng = np.random.default_rng(0)
    X = np.r_[rng.normal(size=(50, 2)), rng.normal(size=(50, 2)) + 100.0]
    dm = ReducedSetDiffusionMap(n_components=2, sigma=1.0, ell=2.0).fit(X)
    assert np.all(np.isfinite(dm.embedding_))
    np.testing.assert_allclose(dm.eigenvalues_[0], 1.0, atol=1e-12)
    side = dm.centers_[:, 0] > 50
    first = dm.embedding_[:, 0]
    assert np.ptp(first[side]) < 1e-8 and np.ptp(first[~side]) < 1e-8 and abs(first[side][0] - first[~side][0]) > 1
    for extra in (GLOBAL, {}):  # the old global Gaussian, and the defaults
        sc = ReducedSetSpectralClustering(n_clusters=2, sigma=1.0, ell=2.0, random_state=0, **extra).fit(X)
        assert adjusted_rand_score(np.r_[np.zeros(50), np.ones(50)], sc.labels_) == 1.0


@pytest.mark.parametrize("Est", ESTIMATORS)
def test_float32_in_float32_out_and_fit_transform(Est):
    X = _blobs(150)
    est = Est(n_components=2, sigma=1.0, random_state=0)
    Z = est.fit_transform(X.astype(np.float32))
    assert Z.dtype == np.float32 and Z.shape == (150, 2)
    np.testing.assert_allclose(Z, est.transform(X.astype(np.float32)), rtol=1e-6)


def test_fit_reduced_set_equals_fit():
    X = _blobs(300)
    a = ReducedSetDiffusionMap(n_components=3, sigma=1.0, ell=3.0, alpha=0.5).fit(X)
    b = ReducedSetDiffusionMap(n_components=3, sigma=1.0, alpha=0.5).fit_reduced_set(a.centers_, a.weights_)
    np.testing.assert_allclose(b.eigenvalues_, a.eigenvalues_, rtol=1e-12)
    np.testing.assert_allclose(b.transform(X), a.transform(X), atol=1e-10)


def test_dask_arrays_through_the_distributed_shadow():
    da = pytest.importorskip("dask.array")
    X = _blobs(400)
    Xd = da.from_array(X, chunks=(100, 2))
    a = ReducedSetDiffusionMap(n_components=2, sigma=1.0, ell=3.0).fit(X)
    b = ReducedSetDiffusionMap(n_components=2, sigma=1.0, ell=3.0).fit(Xd)
    np.testing.assert_array_equal(b.centers_, a.centers_)
    np.testing.assert_allclose(b.transform(Xd).compute(), a.transform(X), atol=1e-10)
    sc = ReducedSetSpectralClustering(n_clusters=3, sigma=1.0, ell=3.0, random_state=0).fit(Xd)
    np.testing.assert_array_equal(sc.labels_.compute(), sc.predict(X))


def test_arpack_path_matches_the_dense_solve():
    X, _ = make_circles(3000, noise=0.05, factor=0.5, random_state=0)
    kw = dict(n_components=4, sigma=0.15, ell=3.0, alpha=0.5, t=1)
    auto = ReducedSetDiffusionMap(random_state=0, **kw).fit(X)
    dense = ReducedSetDiffusionMap(eigen_solver="dense", **kw).fit(X)
    assert auto.m_ > 250 and auto.eigen_solver_ == "arpack" and dense.eigen_solver_ == "dense"
    np.testing.assert_allclose(auto.eigenvalues_, dense.eigenvalues_, atol=1e-10)
    assert alignment_error(dense.transform(X[:500]), auto.transform(X[:500])) < 1e-6


def test_float32_rows_are_embedded_through_float32_kernel_blocks_and_agree_with_float64(monkeypatch):
    import rskpca.decomposition._diffusion as diffusion

    X = np.random.default_rng(0).normal(size=(800, 3))
    seen = []
    real = diffusion.kernel_matvec
    monkeypatch.setattr(diffusion, "kernel_matvec", lambda *a, **kw: seen.append(kw["dtype"]) or real(*a, **kw))
    for est in (ReducedSetDiffusionMap(3, sigma=1.0, ell=2.0), ReducedSetSpectralEmbedding(3, sigma=1.0, ell=2.0)):
        est.fit(X)
        seen.clear()
        Z64, Z32 = est.transform(X), est.transform(X.astype(np.float32))
        assert seen == [np.float64, np.float32] and Z32.dtype == np.float32
        np.testing.assert_allclose(Z32, Z64, atol=1e-4 * np.abs(Z64).max())
    # a row far from every center underflows sooner in float32: it is redone in log space, in float64
    far = np.vstack([X[:5], X[:1] + 40.0]).astype(np.float32)
    np.testing.assert_allclose(est.transform(far), est.transform(far.astype(np.float64)), rtol=1e-3, atol=1e-6)
