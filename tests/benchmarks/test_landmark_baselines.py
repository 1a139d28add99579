"""The benchmark's LSC-K, U-SPEC and U-SENC baselines: they find well-separated clusters, reproduce with a seed,
refuse impossible budgets, and the transfer cut equals the normalised cut of the whole bipartite graph."""

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import make_blobs
from sklearn.metrics import adjusted_rand_score

from landmark_baselines import _transfer_cut_embedding, lsc_k, u_senc, u_spec

METHODS = {"lsc_k": lsc_k, "u_spec": u_spec}


@pytest.fixture(scope="module")
def blobs():
    return make_blobs(n_samples=800, centers=5, n_features=4, cluster_std=0.6, center_box=(-20, 20), random_state=3)


@pytest.mark.parametrize("name", METHODS)
def test_separated_blobs_are_found(blobs, name):
    X, y = blobs
    labels = METHODS[name](X, 5, n_landmarks=60, random_state=0)
    assert labels.shape == (800,)
    assert set(np.unique(labels)) == set(range(5))
    assert adjusted_rand_score(y, labels) == pytest.approx(1.0)


@pytest.mark.parametrize("name", METHODS)
def test_same_seed_same_labels(blobs, name):
    X, _ = blobs
    a = METHODS[name](X[:600], 4, n_landmarks=50, random_state=7)
    b = METHODS[name](X[:600], 4, n_landmarks=50, random_state=7)
    np.testing.assert_array_equal(a, b)


def test_ensemble_finds_separated_blobs(blobs):
    X, y = blobs
    labels = u_senc(X, 5, n_members=3, n_landmarks=60, random_state=0)
    assert adjusted_rand_score(y, labels) == pytest.approx(1.0)


@pytest.mark.parametrize("name", METHODS)
def test_more_clusters_than_landmarks_is_refused(blobs, name):
    X, _ = blobs
    with pytest.raises(ValueError, match="n_clusters"):
        METHODS[name](X, 20, n_landmarks=10)


def test_transfer_cut_is_the_bipartite_normalised_cut():
    """Li et al. 2012: with W the (rows + representatives) bipartite graph and D its degrees, the top
    generalized eigenpairs W [u; v] = lambda D [u; v] have mu = lambda^2 and rows' side u spanning the
    transfer cut's embedding, built here literally on the (n + q) x (n + q) matrix."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(150, 3))
    reps = X[rng.choice(150, 20, replace=False)]
    d = np.linalg.norm(X[:, None] - reps[None], axis=2)
    idx = np.argsort(d, axis=1)[:, :4]
    w = np.exp(-np.take_along_axis(d, idx, 1) ** 2)
    B = sp.csr_matrix((w.ravel(), idx.ravel(), np.arange(0, 601, 4)), shape=(150, 20))
    B = B[:, np.asarray(B.sum(axis=0)).ravel() > 0]
    n, q = B.shape
    W = np.block([[np.zeros((n, n)), B.toarray()], [B.toarray().T, np.zeros((q, q))]])
    s = 1 / np.sqrt(W.sum(axis=1))
    lam, vecs = np.linalg.eigh(s[:, None] * W * s[None])
    k = 4
    lam, rows_side = lam[::-1][:k], (s[:, None] * vecs)[:n, ::-1][:, :k]
    mu, embedding = _transfer_cut_embedding(B, k)
    np.testing.assert_allclose(mu, lam**2, atol=1e-10)
    coef = np.linalg.lstsq(embedding, rows_side, rcond=None)[0]
    np.testing.assert_allclose(embedding @ coef, rows_side, atol=1e-10)
