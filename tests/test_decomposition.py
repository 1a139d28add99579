"""RSKPCA and the baselines against scikit-learn and against literal n x n computations."""

import numpy as np
import pytest
from sklearn.decomposition import KernelPCA as SklearnKernelPCA
from sklearn.model_selection import GridSearchCV
from sklearn.neighbors import KNeighborsClassifier
from sklearn.pipeline import make_pipeline

from rskpca import (
    DensityWeightedNystromKPCA,
    KernelPCA,
    NystromKPCA,
    ReducedSetKPCA,
    SubsampledKPCA,
    kernel_matrix,
    shadow_centers,
)
from rskpca.core import eigen as _core
from rskpca.core.metrics import alignment_error
from sklearn.exceptions import NotFittedError

ALL = [ReducedSetKPCA, SubsampledKPCA, NystromKPCA, DensityWeightedNystromKPCA, KernelPCA]


def _data(n=400, d=3, seed=0):
    rng = np.random.default_rng(seed)
    return np.concatenate([rng.normal(c, 0.6, size=(n // 4, d)) for c in range(4)])


def _match_signs(A, B):
    s = np.sign(np.sum(A * B, axis=0))
    s[s == 0] = 1
    return B * s


@pytest.mark.parametrize("ell", [1.5, 3.0, 6.0])
def test_rskpca_equals_sklearn_kpca_on_quantized_data(ell):
    X = _data()
    X_new = _data(80, seed=5)
    est = ReducedSetKPCA(n_components=5, sigma=2.0, ell=ell).fit(X)
    Q = np.repeat(est.centers_, est.weights_.astype(int), axis=0)
    sk = SklearnKernelPCA(n_components=5, kernel="rbf", gamma=1 / 2.0**2, eigen_solver="dense").fit(Q)
    np.testing.assert_allclose(est.eigenvalues_, sk.eigenvalues_, rtol=1e-8, atol=1e-8)
    A = est.transform(X_new)
    B = _match_signs(A, sk.transform(X_new))
    np.testing.assert_allclose(A, B, atol=1e-8)


def test_uncentered_rskpca_equals_literal_quantized_eigenproblem():
    X = _data(200)
    est = ReducedSetKPCA(n_components=4, sigma=1.5, ell=2.0, center=False).fit(X)
    s = shadow_centers(X, sigma=1.5, ell=2.0)
    Cbar = s.centers[s.labels]  # the quantized data set, n x d
    Kbar = kernel_matrix(Cbar, sigma=1.5)
    vals, vecs = np.linalg.eigh(Kbar)
    vals, vecs = vals[::-1][:4], vecs[:, ::-1][:, :4]
    np.testing.assert_allclose(est.eigenvalues_, vals, rtol=1e-9)
    X_new = _data(30, seed=9)
    ref = kernel_matrix(X_new, Cbar, sigma=1.5) @ vecs / np.sqrt(vals)
    np.testing.assert_allclose(est.transform(X_new), _match_signs(est.transform(X_new), ref), atol=1e-8)


def test_large_ell_converges_to_exact_kpca():
    X = _data(300)
    exact = KernelPCA(n_components=3, sigma=2.0).fit(X)
    # the dense float64 solver: the identity holds to rounding (the float32 and partial paths "auto" takes
    # above DENSE_MAX_M are certified to SUBSPACE_TOL only)
    errs = [alignment_error(exact.transform(X), ReducedSetKPCA(n_components=3, sigma=2.0, ell=ell, eigen_solver="dense")
                            .fit(X).transform(X)) for ell in (1.0, 3.0, 1e6)]
    assert errs[0] > errs[2] and errs[1] >= errs[2]
    assert errs[2] < 1e-8  # every point its own center: exact KPCA


def test_exact_kernel_pca_equals_sklearn_rbf():
    X = _data(150)
    ours = KernelPCA(n_components=3, sigma=1.7, eigen_solver="dense").fit(X)
    sk = SklearnKernelPCA(n_components=3, kernel="rbf", gamma=1 / 1.7**2, eigen_solver="dense").fit(X)
    np.testing.assert_allclose(ours.eigenvalues_, sk.eigenvalues_, rtol=1e-9)
    np.testing.assert_allclose(ours.transform(X), _match_signs(ours.transform(X), sk.transform(X)), atol=1e-8)


def test_exact_fit_transform_reads_the_training_embedding_off_the_fit():
    # scikit-learn's shortcut: eigenvectors * sqrt(eigenvalues) is transform(X) without a second n x n kernel
    X = _data(150)
    est = KernelPCA(n_components=3, sigma=1.7, eigen_solver="arpack", random_state=0)
    Z = est.fit_transform(X)
    np.testing.assert_allclose(Z, est.transform(X), atol=1e-10)
    sk = SklearnKernelPCA(n_components=3, kernel="rbf", gamma=1 / 1.7**2, eigen_solver="arpack", random_state=0)
    np.testing.assert_allclose(Z, _match_signs(Z, sk.fit_transform(X)), atol=1e-8)
    assert est.fit_transform(X.astype(np.float32)).dtype == np.float32


def test_signs_are_deterministic_and_largest_coefficient_positive():
    X = _data()
    a = ReducedSetKPCA(n_components=4, sigma=2.0).fit(X)
    b = ReducedSetKPCA(n_components=4, sigma=2.0).fit(X.copy())
    np.testing.assert_array_equal(a.transform(X), b.transform(X))
    coef = a.dual_coef_
    assert np.all(coef[np.argmax(np.abs(coef), axis=0), np.arange(4)] > 0)


def test_nystrom_with_all_points_as_landmarks_is_exact_kpca():
    X = _data(120)
    exact = KernelPCA(n_components=3, sigma=2.0, eigen_solver="dense").fit(X)
    ny = NystromKPCA(n_components=3, sigma=2.0, m=120, random_state=0).fit(X)
    np.testing.assert_allclose(ny.eigenvalues_, exact.eigenvalues_, rtol=1e-8)
    assert alignment_error(exact.transform(X), ny.transform(X)) < 1e-8


@pytest.mark.parametrize("cls", [SubsampledKPCA, NystromKPCA, DensityWeightedNystromKPCA])
def test_baselines_default_m_is_the_shadow_m(cls):
    X = _data()
    m = shadow_centers(X, sigma=2.0, ell=3.0).m
    est = cls(n_components=2, sigma=2.0, ell=3.0, random_state=0).fit(X)
    assert est.m_ == m


@pytest.mark.parametrize("rsde", ["kmeans", "uniform", "herding"])
def test_other_rsdes_use_given_m_and_weights_sum_to_n(rsde):
    X = _data()
    est = ReducedSetKPCA(n_components=3, sigma=2.0, rsde=rsde, m=25, random_state=0).fit(X)
    assert est.centers_.shape[0] <= 25
    assert est.weights_.sum() == pytest.approx(X.shape[0])
    assert est.transform(X).shape == (X.shape[0], 3)


def test_median_sigma_is_recorded():
    X = _data()
    est = ReducedSetKPCA(n_components=2, random_state=0).fit(X)
    assert est.sigma == "median" and est.sigma_ > 0


def test_laplacian_kernel_equals_kpca_on_quantized_data():
    X = _data(200)
    est = ReducedSetKPCA(n_components=3, sigma=2.0, ell=3.0, kernel="laplacian").fit(X)
    Q = np.repeat(est.centers_, est.weights_.astype(int), axis=0)
    K = kernel_matrix(Q, sigma=2.0, kernel="laplacian")
    sk = SklearnKernelPCA(n_components=3, kernel="precomputed", eigen_solver="dense").fit(K)
    np.testing.assert_allclose(est.eigenvalues_, sk.eigenvalues_, rtol=1e-8)
    Kn = kernel_matrix(X[:20], Q, sigma=2.0, kernel="laplacian")
    A = est.transform(X[:20])
    np.testing.assert_allclose(A, _match_signs(A, sk.transform(Kn)), atol=1e-8)


@pytest.mark.parametrize("cls", ALL)
def test_float32_input_gives_float32_output(cls):
    X = _data(120).astype(np.float32)
    Z = cls(n_components=2, sigma=2.0, random_state=0).fit(X).transform(X)
    assert Z.dtype == np.float32 and Z.shape == (120, 2)


@pytest.mark.parametrize("cls", ALL)
def test_constant_data_is_refused_and_duplicates_work(cls):
    X = np.full((40, 3), 2.5)
    with pytest.raises(ValueError, match="X is constant: all 40 rows are identical"):
        cls(n_components=1, random_state=0).fit(X)
    D = np.repeat(_data(40), 5, axis=0)
    Z = cls(n_components=2, sigma=2.0, random_state=0).fit(D).transform(D)
    assert np.all(np.isfinite(Z))


def test_pipeline_and_grid_search():
    X = _data(200)
    y = np.repeat(np.arange(4), 50)
    pipe = make_pipeline(ReducedSetKPCA(n_components=3, sigma=2.0), KNeighborsClassifier(3))
    gs = GridSearchCV(pipe, {"reducedsetkpca__ell": [2.0, 4.0]}, cv=3).fit(X, y)
    assert gs.best_score_ > 0.8
    assert list(ReducedSetKPCA(n_components=2, sigma=2.0).fit(X).get_feature_names_out()) == [
        "reducedsetkpca0", "reducedsetkpca1"]


# --- bad input: one test per case -------------------------------------------------------------

def test_nan_is_rejected_with_advice():
    X = _data(50)
    X[3, 1] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        ReducedSetKPCA(sigma=1.0).fit(X)
    with pytest.raises(ValueError, match="NaN"):
        shadow_centers(X, sigma=1.0, ell=4.0)


def test_inf_is_rejected():
    X = _data(50)
    X[0, 0] = np.inf
    with pytest.raises(ValueError, match="infinity|infinite"):
        ReducedSetKPCA(sigma=1.0).fit(X)
    with pytest.raises(ValueError, match="infinite"):
        shadow_centers(X, sigma=1.0, ell=4.0)


def test_non_2d_input_is_rejected():
    with pytest.raises(ValueError, match="2D|2-D"):
        ReducedSetKPCA(sigma=1.0).fit(np.arange(10.0))
    with pytest.raises(ValueError, match="Expected 2D array"):
        shadow_centers(np.arange(10.0), sigma=1.0, ell=4.0)


def test_zero_rows_are_rejected():
    with pytest.raises(ValueError, match="0 sample"):
        ReducedSetKPCA(sigma=1.0).fit(np.empty((0, 3)))
    with pytest.raises(ValueError, match="0 samples"):
        shadow_centers(np.empty((0, 3)), sigma=1.0, ell=4.0)


def test_one_row_is_rejected_for_kpca_but_fine_for_the_shadow():
    with pytest.raises(ValueError, match="1 sample"):
        ReducedSetKPCA(sigma=1.0).fit(np.ones((1, 3)))
    assert shadow_centers(np.ones((1, 3)), sigma=1.0, ell=4.0).m == 1


@pytest.mark.parametrize("sigma", [0.0, -1.0, float("nan")])
def test_bad_sigma_is_rejected(sigma):
    with pytest.raises(ValueError, match="sigma"):
        ReducedSetKPCA(sigma=sigma).fit(_data(40))
    with pytest.raises(ValueError, match="sigma"):
        shadow_centers(_data(40), sigma=sigma, ell=4.0)


@pytest.mark.parametrize("ell", [0.0, -2.0])
def test_bad_ell_is_rejected(ell):
    with pytest.raises(ValueError, match="ell"):
        ReducedSetKPCA(sigma=1.0, ell=ell).fit(_data(40))
    with pytest.raises(ValueError, match="ell"):
        shadow_centers(_data(40), sigma=1.0, ell=ell)


def test_unknown_kernel_is_rejected():
    with pytest.raises(ValueError, match="kernel"):
        ReducedSetKPCA(sigma=1.0, kernel="poly").fit(_data(40))
    with pytest.raises(ValueError, match="Unknown kernel"):
        shadow_centers(_data(40), sigma=1.0, ell=4.0, kernel="poly")


def test_n_components_larger_than_m_says_why():
    X = _data(200)
    m = shadow_centers(X, sigma=20.0, ell=1.0).m
    with pytest.raises(ValueError, match=rf"n_components=10 \(the rank r\) exceeds the number of centers m={m} "
                       r"that the shadow gives at sigma=20, ell=1.*raise ell"):
        ReducedSetKPCA(n_components=10, sigma=20.0, ell=1.0).fit(X)


def test_transform_with_wrong_number_of_features():
    est = ReducedSetKPCA(n_components=2, sigma=1.0).fit(_data(40))
    with pytest.raises(ValueError, match="features"):
        est.transform(np.ones((5, 7)))


@pytest.mark.parametrize("cls", ALL)
def test_transform_before_fit(cls):
    from sklearn.exceptions import NotFittedError

    with pytest.raises(NotFittedError, match="not fitted"):
        cls().transform(_data(10))


def test_non_numeric_input_is_rejected():
    import pandas as pd

    df = pd.DataFrame({"a": [1.0, 2.0, 3.0], "b": ["x", "y", "z"]})
    with pytest.raises(ValueError):
        ReducedSetKPCA(sigma=1.0).fit(df)
    with pytest.raises(ValueError, match="non-numeric columns \\['b'\\]"):
        shadow_centers(df, sigma=1.0, ell=4.0)


def test_too_many_centers_for_memory_is_a_clear_error(monkeypatch):
    import rskpca.decomposition.base as dec

    monkeypatch.setattr(dec, "MAX_KERNEL_BYTES", 8 * 50 * 50)
    with pytest.raises(ValueError, match=r"m x m kernel matrix would need .*lower ell or raise sigma"):
        ReducedSetKPCA(n_components=2, sigma=0.01, ell=4.0).fit(_data(200))


# ---------------------------------------------------------------------------
# The solver's precision is a value; partial_fit solves where the data changes
# ---------------------------------------------------------------------------

def test_the_float32_projection_is_chosen_by_the_recorded_precision_not_by_the_solver_name(monkeypatch):
    import rskpca.core.projection as projection

    X = _data(3_000, d=4)
    fast = ReducedSetKPCA(n_components=3, sigma=1.0, ell=4.0, random_state=0).fit(X)  # m > DENSE_MAX_M: float32
    small = ReducedSetKPCA(n_components=3, sigma=2.0, ell=2.0, random_state=0).fit(X)  # dense, float64
    assert fast.eigen_solver_ in ("arpack-float32", "block-float32") and fast.eigen_dtype_ == np.float32
    assert small.eigen_solver_ == "dense" and small.eigen_dtype_ == np.float64
    laplacian = ReducedSetKPCA(n_components=3, sigma=1.0, ell=4.0, kernel="laplacian", random_state=0).fit(X)
    assert laplacian.eigen_solver_ == "arpack" and laplacian.eigen_dtype_ == np.float64  # no float32 Laplacian
    seen = []
    real = projection.kernel_matvec
    monkeypatch.setattr(projection, "kernel_matvec", lambda *a, **kw: seen.append(kw["dtype"]) or real(*a, **kw))
    expected = fast.transform(X[:50])
    fast.eigen_solver_ = "renamed for display"  # the words are for people: the projection does not read them
    np.testing.assert_array_equal(fast.transform(X[:50]), expected)
    small.transform(X[:5])
    assert seen == [np.float32, np.float32, np.float64]


def test_float32_rows_are_projected_through_float32_kernel_blocks_and_agree_with_float64(monkeypatch):
    import rskpca.core.projection as projection
    from rskpca.evaluation.all_rows import training_embedding

    X = _data(600, d=4)
    est = ReducedSetKPCA(n_components=3, sigma=2.0, ell=2.0, random_state=0).fit(X)  # dense: float64 model
    seen = []
    real = projection.kernel_matvec
    monkeypatch.setattr(projection, "kernel_matvec", lambda *a, **kw: seen.append(kw["dtype"]) or real(*a, **kw))
    Z64 = est.transform(X)
    Z32 = est.transform(X.astype(np.float32))
    assert seen == [np.float64, np.float32] and Z32.dtype == np.float32
    np.testing.assert_allclose(Z32, Z64, atol=1e-5 * np.abs(Z64).max())
    # the Laplacian has no float32 path: float32 rows are projected in float64, returned as float32
    lap = ReducedSetKPCA(n_components=3, sigma=2.0, ell=2.0, kernel="laplacian").fit(X)
    assert lap.transform(X.astype(np.float32)).dtype == np.float32 and seen[-1] == np.float64
    # the app's all-rows embedding: converted block by block, the same numbers
    Z = training_embedding("rskpca", est, X, dtype=np.float32)
    assert Z.dtype == np.float32
    np.testing.assert_array_equal(Z, Z32)


def test_partial_fit_solves_at_its_end_so_reading_an_attribute_does_no_work(monkeypatch):
    import rskpca.decomposition._reduced_set as rs

    assert not any("__getattr__" in vars(c) for c in ReducedSetKPCA.__mro__[:-1])  # no attribute is computed
    X = _data(400)
    est = ReducedSetKPCA(n_components=3, sigma=2.0, ell=3.0, random_state=0)
    est.partial_fit(X[:1])  # one center, three components asked: the eigenproblem waits
    assert est.m_ == 1 and "eigenvalues_" not in vars(est)
    with pytest.raises(NotFittedError, match=r"m=1 centers so far, fewer than n_components=3.*feed more rows"):
        est.transform(X[:2])
    ref = ReducedSetKPCA(n_components=3, sigma=2.0, ell=3.0, random_state=0).fit(X)
    solves = []
    real = rs.kpca_on_centers
    monkeypatch.setattr(rs, "kpca_on_centers", lambda *a, **kw: solves.append(1) or real(*a, **kw))
    for a in range(1, 400, 100):
        est.partial_fit(X[a:a + 100])
    assert len(solves) == 4 and "eigenvalues_" in vars(est)  # one solve per batch, inside partial_fit
    for attr in ("eigenvalues_", "eigenvectors_", "dual_coef_", "eigen_dtype_"):
        np.testing.assert_array_equal(getattr(est, attr), getattr(ref, attr))
    np.testing.assert_array_equal(est.transform(X[:20]), ref.transform(X[:20]))
    assert len(solves) == 4  # reading and transforming solved nothing


# ----------------------------------------------------------------- the estimators on the fast eigen path


def test_reduced_set_float32_fit_and_transform_match_float64(monkeypatch):
    monkeypatch.setattr(_core, "DENSE_MAX_M", 50)
    rng = np.random.default_rng(4)
    X = np.concatenate([rng.normal(c, 1.0, size=(700, 5)) for c in (0.0, 3.0, 6.0)])
    from rskpca import ReducedSetKPCA
    # r = 2: eigenvalues 153, 149 | 45, a gap the float32 error provably stays within
    fast = ReducedSetKPCA(sigma=2.0, ell=4.0, n_components=2, random_state=0).fit(X)
    exact = ReducedSetKPCA(sigma=2.0, ell=4.0, n_components=2, eigen_solver="dense").fit(X)
    assert fast.eigen_solver_ == "arpack-float32" and fast.centers_.shape[0] > 50
    np.testing.assert_allclose(fast.eigenvalues_, exact.eigenvalues_, rtol=1e-4)
    X_new = rng.normal(3.0, 2.0, size=(500, 5))
    assert alignment_error(exact.transform(X_new), fast.transform(X_new)) < _core.SUBSPACE_TOL


@pytest.mark.parametrize("cls", ["NystromKPCA", "DensityWeightedNystromKPCA"])
def test_nystrom_landmark_problem_on_the_fast_path_matches_the_dense_one(cls):
    # "auto" solves the landmarks' m x m problem as RSKPCA solves its centers' (float32 with its
    # certificate above DENSE_MAX_M): the embedding equals the dense float64 one within it.
    import rskpca.decomposition as dec
    rng = np.random.default_rng(7)
    X = np.concatenate([rng.normal(c, 1.0, size=(400, 4)) for c in (0.0, 4.0)])
    kwargs = dict(n_components=2, sigma=3.0, m=600, random_state=0)
    fast = getattr(dec, cls)(**kwargs).fit(X)
    dense = getattr(dec, cls)(eigen_solver="dense", **kwargs).fit(X)
    assert fast.m_ > 500 and fast.eigen_solver_ != "dense"
    np.testing.assert_allclose(fast.eigenvalues_, dense.eigenvalues_, rtol=1e-4)
    assert alignment_error(dense.transform(X), fast.transform(X)) < 1e-3


def test_nystrom_accepts_every_solver_of_the_weighted_problem_it_shares_with_rskpca():
    # the landmarks' m x m problem is kpca_on_centers', so it takes the same solvers ("block" included)
    X = _data(600, d=3)
    dense = NystromKPCA(n_components=3, sigma=1.0, m=300, eigen_solver="dense", random_state=0).fit(X)
    block = NystromKPCA(n_components=3, sigma=1.0, m=300, eigen_solver="block", random_state=0).fit(X)
    assert block.eigen_solver_.startswith("block")
    np.testing.assert_allclose(block.eigenvalues_, dense.eigenvalues_, rtol=1e-6)
