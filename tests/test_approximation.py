"""The other speed-ups (rskpca/approximation/), as registered in rskpca.evaluation.methods, checked
against exact kernel PCA.

Reduced-set construction (Burges 1996; Hoffmann 2005, appendix B.2), Gram sampling,
randomized rounding and random projections (Achlioptas, McSherry & Schoelkopf 2001) and
random Fourier features (Rahimi & Recht 2007). One fixed data set with a clear eigengap
(conftest's ``three_blobs``, see synthetic.py) so that "approaches exact KPCA" is measurable.
(The iterative exact solver, also registered here as "exact_iterative", is tested in
tests/test_iterative.py.)
"""

import numpy as np
import pytest
from conftest import PAPER_DATASETS
from sklearn.kernel_approximation import RBFSampler
from synthetic import THREE_BLOBS_SIGMA as SIGMA

from rskpca import KernelPCA
from rskpca.approximation._gram_sampling import (
    SampledGramKPCA,
    quantize,
    random_sign_projection,
    round_expansion,
    sample_upper_pairs,
    sampled_gram,
)
from rskpca.core.radial_kernels import kernel_matrix, kernel_row_means
from rskpca.evaluation.methods import METHODS, make_estimator, method_names
from rskpca.core.metrics import alignment_error
from rskpca.approximation._random_features import RandomFourierKPCA, draw_fourier_frequencies, fourier_features
from rskpca.approximation._reduced_set_construction import ReducedSetConstructionKPCA


@pytest.fixture(scope="module")
def exact(three_blobs):
    est = KernelPCA(n_components=2, sigma=SIGMA).fit(three_blobs)
    return est, est.transform(three_blobs)


def _error(exact, est, X):
    return alignment_error(exact[1], est.transform(X))


# ----------------------------------------------------------------------------- registry


def test_extra_methods_are_registered():
    extra = method_names("extra")
    assert set(extra) == {"exact_iterative", "rs_construction", "gram_sparsified", "gram_quantized",
                          "random_fourier"}
    for name in extra:
        est = make_estimator(name, n_components=2, sigma=1.0, m=10)
        assert hasattr(est, "fit") and hasattr(est, "transform")
        assert METHODS[name].label and METHODS[name].description


#: Budgets m per method; the randomized ones are averaged over seeds (one draw is noisy:
#: e.g. expansion rounding with 20 terms ranges 0.08-0.47 over eight seeds on this set).
BUDGETS = {"rs_construction": ((3, 8, 25), (0,)), "gram_sparsified": ((10, 40, 160), range(4)),
           "gram_quantized": ((10, 40, 160), range(4)), "random_fourier": ((10, 40, 160), range(4))}


@pytest.mark.parametrize("name", sorted(BUDGETS))
def test_registered_method_approaches_exact_as_budget_grows(three_blobs, exact, name):
    budgets, seeds = BUDGETS[name]
    errors = [np.mean([_error(exact, make_estimator(name, n_components=2, sigma=SIGMA, m=m, random_state=s)
                              .fit(three_blobs), three_blobs) for s in seeds]) for m in budgets]
    assert errors[0] > errors[1] > errors[2], errors
    assert errors[2] < 0.5 * errors[0], errors


@pytest.mark.parametrize("name", method_names("extra"))
def test_registered_method_reports_normalized_eigenvalues(three_blobs, exact, name):
    m = 30 if name == "rs_construction" else 120  # the construction is exact by m = 30 here
    est = make_estimator(name, n_components=2, sigma=SIGMA, m=m, random_state=0).fit(three_blobs)
    assert est.normalized_eigenvalues_.shape == (2,)
    assert np.all(np.diff(est.normalized_eigenvalues_) <= 1e-12)
    np.testing.assert_allclose(est.normalized_eigenvalues_, exact[0].normalized_eigenvalues_, atol=0.06)


# ----------------------------------------------------------------------------- random Fourier features


def test_gaussian_features_are_rbfsampler_in_our_sigma_convention(three_blobs):
    W, b = draw_fourier_frequencies(2, 50, sigma=SIGMA, random_state=3)
    ref = RBFSampler(gamma=1.0 / SIGMA**2, n_components=50, random_state=3).fit(three_blobs)
    np.testing.assert_allclose(fourier_features(three_blobs, W, b), ref.transform(three_blobs), atol=1e-12)


@pytest.mark.parametrize("kernel", ["gaussian", "laplacian"])
def test_fourier_features_estimate_the_kernel(kernel):
    X = np.random.default_rng(1).normal(size=(6, 3))
    W, b = draw_fourier_frequencies(3, 40_000, sigma=1.5, kernel=kernel, random_state=0)
    Z = fourier_features(X, W, b)
    np.testing.assert_allclose(Z @ Z.T, kernel_matrix(X, sigma=1.5, kernel=kernel), atol=0.03)


def test_random_fourier_kpca_approaches_exact(three_blobs, exact):
    errors = [_error(exact, RandomFourierKPCA(n_components=2, sigma=SIGMA, m=m, random_state=0).fit(three_blobs),
                     three_blobs) for m in (20, 80, 320)]
    assert errors[0] > errors[1] > errors[2], errors
    assert errors[2] < 0.05


# ----------------------------------------------------------------------------- Gram sampling


def test_sample_upper_pairs_are_distinct_upper_and_at_rate_p():
    rng = np.random.default_rng(0)
    n, p = 400, 0.1
    I, J = sample_upper_pairs(n, p, rng)
    assert np.all(I < J) and np.all(J < n)
    assert np.unique(I * n + J).size == I.size
    total = n * (n - 1) / 2
    assert abs(I.size - p * total) < 5 * np.sqrt(total * p * (1 - p))


@pytest.mark.parametrize("p, level", [(0.3, None), (0.1, None), (1.0, 1.0), (0.2, 1.0), (0.6, 1.5)])
def test_sampled_gram_is_unbiased(p, level):
    """Mean of many independent draws, entry by entry, within 5 standard errors of K (fixed seed)."""
    X = np.random.default_rng(2).normal(size=(20, 2))
    K = kernel_matrix(X, sigma=1.0)
    rng = np.random.default_rng(12345)
    draws = 600
    total = np.zeros_like(K)
    for _ in range(draws):
        M, scale, _ = sampled_gram(X, sigma=1.0, p=p, quantization_level=level, random_state=rng)
        dense = M.toarray() if hasattr(M, "toarray") else M
        total += scale * dense + np.eye(20)
    mean = total / draws
    variance = (level**2 / p - K**2) if level is not None else K**2 * (1 - p) / p
    se = np.sqrt(variance / draws)
    off = ~np.eye(20, dtype=bool)
    z = np.abs(mean - K)[off] / se[off]
    assert z.max() < 5.0, z.max()
    assert abs(z.mean() - np.sqrt(2 / np.pi)) < 0.1  # |N(0,1)| has mean 0.80: no bias, no excess spread
    np.testing.assert_array_equal(np.diag(mean), 1.0)  # the diagonal is exact


@pytest.mark.parametrize("p, level", [(1.0, None), (0.5, None), (0.6, 1.0), (0.1, None), (0.1, 1.0)])
def test_sampled_gram_is_symmetric_across_blocks_and_exact_at_p_one(p, level):
    X = np.random.default_rng(8).normal(size=(45, 3))
    K = kernel_matrix(X, sigma=1.0)
    # 100 kernel values per block: 2 rows at a time, so the mirroring crosses many blocks.
    M, scale, _ = sampled_gram(X, sigma=1.0, p=p, quantization_level=level, random_state=0, block_elements=100)
    dense = scale * (M.toarray() if hasattr(M, "toarray") else M.astype(np.float64)) + np.eye(45)
    np.testing.assert_array_equal(dense, dense.T)
    off = ~np.eye(45, dtype=bool)
    if level is None:
        kept = dense[off] != 0
        np.testing.assert_allclose(dense[off][kept], K[off][kept] / p)
        if p == 1.0:
            np.testing.assert_allclose(dense, K)
    else:
        assert set(np.unique(np.abs(dense[off]))) <= {0.0, level / p}


def test_quantize_is_unbiased_and_rejects_a_level_below_the_entries():
    values = np.linspace(-0.9, 0.9, 7)
    signs = np.stack([quantize(values, 1.0, np.random.default_rng(s)) for s in range(4000)])
    np.testing.assert_allclose(signs.mean(axis=0), values, atol=5 * np.sqrt(1 / 4000))
    with pytest.raises(ValueError, match="quantization_level=0.5 is below the largest kernel entry"):
        quantize(values, 0.5, np.random.default_rng(0))


def test_round_expansion_is_unbiased_and_keeps_the_asked_number_on_average():
    A = np.random.default_rng(3).standard_t(2, size=(200, 3))
    rng = np.random.default_rng(7)
    draws = 3000
    total, kept = np.zeros_like(A), 0
    for _ in range(draws):
        idx, coef, prob = round_expansion(A, 40, rng)
        total[idx] += coef
        kept += idx.size
    assert prob.sum() == pytest.approx(40.0)
    assert np.all(prob <= 1.0)
    assert kept / draws == pytest.approx(40.0, abs=0.5)
    var = (A**2) * (1 - prob[:, None]) / np.where(prob > 0, prob, 1.0)[:, None]
    se = np.sqrt(var / draws)
    mask = se > 0
    assert np.all(np.abs(total / draws - A)[mask] <= 5 * se[mask])
    np.testing.assert_allclose((total / draws)[~mask], A[~mask], rtol=1e-10)  # p = 1 rows are exact


def test_random_sign_projection_preserves_squared_norms_in_expectation():
    x = np.random.default_rng(0).normal(size=10)
    rng = np.random.default_rng(1)
    norms = [np.sum((x @ random_sign_projection(10, 8, rng)) ** 2) for _ in range(4000)]
    assert np.mean(norms) == pytest.approx(np.sum(x**2), rel=0.03)


def test_sparsification_approaches_exact_and_its_error_norm_shrinks(three_blobs, exact):
    errors, norms = [], []
    for p in (0.1, 0.3, 1.0):
        est = SampledGramKPCA(n_components=2, sigma=SIGMA, p=p, random_state=0).fit(three_blobs)
        errors.append(_error(exact, est, three_blobs))
        report = est.gram_error(three_blobs)
        norms.append(report["spectral_norm"])
        if p < 1:
            assert report["spectral_norm"] <= report["theorem1_scale"]
    assert errors[0] > errors[1] > errors[2] and errors[2] < 1e-8, errors
    assert norms[0] > norms[1] > norms[2] and norms[2] < 1e-8, norms


def test_quantization_keeps_the_leading_subspace(three_blobs, exact):
    est = SampledGramKPCA(n_components=2, sigma=SIGMA, p=1.0, quantize=True, random_state=0).fit(three_blobs)
    assert _error(exact, est, three_blobs) < 0.02
    assert est.gram_storage_bytes_ == three_blobs.shape[0] ** 2  # one int8 per entry
    report = est.gram_error(three_blobs)
    assert 0 < report["spectral_norm"] <= report["theorem1_scale"]


def test_expansion_rounding_approaches_exact(three_blobs, exact):
    n = three_blobs.shape[0]
    errors = []
    for terms in (10, 40, 160):
        errors.append(np.mean([_error(exact, SampledGramKPCA(n_components=2, sigma=SIGMA, p=1.0,
                                                             expansion_terms=terms, random_state=s)
                                      .fit(three_blobs), three_blobs) for s in range(6)]))
    assert errors[0] > errors[1] > errors[2], errors
    full = SampledGramKPCA(n_components=2, sigma=SIGMA, p=1.0, expansion_terms=n, random_state=0).fit(three_blobs)
    assert full.expansion_indices_.size == n
    assert _error(exact, full, three_blobs) < 1e-8


def test_random_projection_approaches_exact():
    rng = np.random.default_rng(4)
    X = np.vstack([0.5 * rng.normal(size=(80, 30)) + s for s in (0.0, 1.5, -1.5)])
    sigma = 8.0
    O = KernelPCA(n_components=2, sigma=sigma).fit(X).transform(X)
    errors = [alignment_error(O, SampledGramKPCA(n_components=2, sigma=sigma, p=1.0, projection_dim=k,
                                                 random_state=0).fit(X).transform(X))
              for k in (3, 30, 1000)]
    assert errors[0] > errors[1] > errors[2] and errors[2] < 0.03, errors


@pytest.mark.parametrize("params, message", [
    ({"p": 0.0}, "'p' parameter"),
    ({"p": 1.5}, "'p' parameter"),
    ({"m": 0}, "'m' parameter"),
    ({"projection_dim": 0}, "'projection_dim' parameter"),
    ({"expansion_terms": 0}, "'expansion_terms' parameter"),
    ({"quantize": True, "quantization_level": 0.3}, "below the largest kernel entry"),
])
def test_gram_sampling_rejects_bad_parameters(three_blobs, params, message):
    with pytest.raises(ValueError, match=message):
        SampledGramKPCA(n_components=2, sigma=SIGMA, **{"p": 0.5, **params}).fit(three_blobs)


def test_gram_error_needs_the_training_data(three_blobs):
    est = SampledGramKPCA(n_components=2, sigma=SIGMA, p=0.5, random_state=0).fit(three_blobs)
    with pytest.raises(ValueError, match="needs the training data"):
        est.gram_error(three_blobs[:10])


# ----------------------------------------------------------------------------- reduced-set construction


def test_reduced_set_construction_with_m_equal_n_reproduces_the_full_expansion():
    X = np.random.default_rng(5).normal(size=(60, 2))
    ref = KernelPCA(n_components=3, sigma=1.5).fit(X)
    est = ReducedSetConstructionKPCA(n_components=3, sigma=1.5, m=60, preimage="training_points").fit(X)
    assert est.m_ <= 60  # stops once the rest of the points add nothing to the span
    X_new = np.random.default_rng(6).normal(size=(25, 2))
    expected = ref.transform(X_new)
    np.testing.assert_allclose(est.transform(X_new), expected, atol=1e-6 * np.abs(expected).max())
    assert est.residuals_[-1].max() < 1e-9
    # beta^0 rebuilds the feature-space mean: its expansion is the KDE.
    kde = kernel_row_means(X_new, X, sigma=1.5)
    np.testing.assert_allclose(kernel_matrix(X_new, est.reduced_set_, sigma=1.5) @ est.mean_coef_, kde,
                               atol=1e-6)


def test_fixed_point_construction_with_m_equal_n_is_close_but_not_exact():
    """Constructed points are not training points, so their span need not hold w exactly."""
    X = np.random.default_rng(5).normal(size=(60, 2))
    ref = KernelPCA(n_components=3, sigma=1.5).fit(X)
    est = ReducedSetConstructionKPCA(n_components=3, sigma=1.5, m=60, preimage="fixed_point").fit(X)
    X_new = np.random.default_rng(6).normal(size=(25, 2))
    expected = ref.transform(X_new)
    np.testing.assert_allclose(est.transform(X_new), expected, atol=1e-3 * np.abs(expected).max())
    assert est.residuals_[-1].max() < 1e-4


def test_reduced_set_construction_approaches_exact_and_times_both_parts(three_blobs, exact):
    errors = []
    for m in (3, 8, 25):
        est = ReducedSetConstructionKPCA(n_components=2, sigma=SIGMA, m=m).fit(three_blobs)
        errors.append(_error(exact, est, three_blobs))
        assert np.all(np.diff(est.residuals_, axis=0) <= 1e-12)  # every step helps
    assert errors[0] > errors[1] > errors[2], errors
    assert est.reduced_set_.shape == (25, 2)
    assert set(est.fit_time_breakdown_) == {"exact_kpca", "construction"}
    assert all(v > 0 for v in est.fit_time_breakdown_.values())
    np.testing.assert_allclose(est.eigenvalues_, exact[0].eigenvalues_)


def test_reduced_set_construction_on_laplacian_uses_training_points(three_blobs):
    est = ReducedSetConstructionKPCA(n_components=2, sigma=SIGMA, kernel="laplacian", m=10).fit(three_blobs)
    assert all(any(np.array_equal(y, x) for x in three_blobs) for y in est.reduced_set_)
    with pytest.raises(ValueError, match="needs the Gaussian kernel"):
        ReducedSetConstructionKPCA(sigma=SIGMA, kernel="laplacian", m=10, preimage="fixed_point").fit(three_blobs)


def test_reduced_set_construction_from_the_iterative_exact_solver_matches_the_dense_one(three_blobs):
    X_new = three_blobs[::5] + 0.05
    dense = ReducedSetConstructionKPCA(n_components=2, sigma=SIGMA, m=25).fit(three_blobs)
    iterative = ReducedSetConstructionKPCA(n_components=2, sigma=SIGMA, m=25, exact_solver="iterative",
                                           random_state=0).fit(three_blobs)
    np.testing.assert_allclose(iterative.transform(X_new), dense.transform(X_new), atol=1e-6)


@pytest.mark.parametrize("m", [0, -3])
def test_reduced_set_construction_rejects_m_below_one(three_blobs, m):
    with pytest.raises(ValueError, match="'m' parameter"):
        ReducedSetConstructionKPCA(sigma=SIGMA, m=m).fit(three_blobs)


def test_random_fourier_rejects_m_below_one(three_blobs):
    with pytest.raises(ValueError, match="'m' parameter"):
        RandomFourierKPCA(sigma=SIGMA, m=0).fit(three_blobs)


def test_reduced_set_construction_without_the_mean(three_blobs, exact):
    est = ReducedSetConstructionKPCA(n_components=2, sigma=SIGMA, m=25, include_mean=False).fit(three_blobs)
    assert est.mean_coef_ is None and est.residuals_.shape[1] == 2
    assert _error(exact, est, three_blobs) < 0.01


# ----------------------------------------------------------------------------- a real data set

PENDIGITS = str(PAPER_DATASETS / "pendigits.csv")


def test_extra_methods_on_pendigits_at_the_shadow_budget():
    """600 pendigits rows, sigma by the median heuristic, every extra method at the shadow's m."""
    pd = pytest.importorskip("pandas")
    import os

    if not os.path.exists(PENDIGITS):
        pytest.skip("the shared pendigits data set is not on this machine")
    X = pd.read_csv(PENDIGITS).drop(columns="label").to_numpy(dtype=np.float64)
    X = X[np.random.default_rng(0).permutation(X.shape[0])[:800]]
    X_train, X_eval = X[:600], X[600:]
    from rskpca.core.bandwidth_heuristic import median_heuristic
    from rskpca.core.shadow import shadow_centers

    sigma = median_heuristic(X_train)
    m = shadow_centers(X_train, sigma=sigma, ell=3.0).m
    assert 20 < m < 600
    O = KernelPCA(n_components=3, sigma=sigma).fit(X_train).transform(X_eval)
    limits = {"exact_iterative": 1e-6, "rs_construction": 0.01, "gram_sparsified": 0.3,
              "gram_quantized": 0.35, "random_fourier": 0.3}
    for name, limit in limits.items():
        est = make_estimator(name, n_components=3, sigma=sigma, ell=3.0, m=m, random_state=0).fit(X_train)
        assert alignment_error(O, est.transform(X_eval)) < limit, name
