"""Method comparison rows: consistent with the library, robust to methods that cannot run."""

import math

import numpy as np
import pytest

from rskpca.evaluation import sweeps
from rskpca.evaluation.methods import METHODS


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(0)
    return np.vstack([rng.normal(size=(80, 3)), rng.normal(loc=4.0, size=(80, 3))])


@pytest.fixture(scope="module")
def exact(data):
    return sweeps.fit_method("exact", data, n_components=3, sigma=2.0)


def test_exact_against_itself(exact):
    row = sweeps.compare(exact, exact)
    assert row["alignment_error"] == pytest.approx(0.0, abs=1e-10)
    assert row["eigenvalue_deviation"] == 0.0
    assert row["m"] == 160 and row["retained"] == 1.0 and row["stored_points"] == 160


def test_rskpca_row_matches_the_shadow(data, exact):
    from rskpca import shadow_centers

    rows = sweeps.sweep_point(data, data, exact, ell=2.0, methods=list(METHODS), n_components=3, sigma=2.0)
    m = shadow_centers(data, sigma=2.0, ell=2.0).m
    by = {r["name"]: r for r in rows}
    assert "exact" not in by  # the reference is not compared with itself
    assert set(by) == set(METHODS) - {"exact"}
    assert by["rskpca"]["m"] == m and by["rskpca"]["stored_points"] == m
    assert by["nystrom"]["m"] == m and by["nystrom"]["stored_points"] == 160  # projects through the training set
    for r in rows:
        assert r["error"] == ""
        assert 0.0 <= r["alignment_error"] <= 1.0
        assert r["fit_seconds"] > 0 and r["train_speedup"] > 0


def test_higher_ell_approximates_better(data, exact):
    lo = sweeps.sweep_point(data, data, exact, ell=1.5, methods=["rskpca"], n_components=3, sigma=2.0)[0]
    hi = sweeps.sweep_point(data, data, exact, ell=8.0, methods=["rskpca"], n_components=3, sigma=2.0)[0]
    assert hi["m"] > lo["m"]
    assert hi["alignment_error"] < lo["alignment_error"]


def test_a_method_that_cannot_run_gives_a_row_with_the_reason(data, exact):
    # ell tiny: the shadow keeps 1-2 centers, fewer than the 3 components asked for
    rows = sweeps.sweep_point(data, data, exact, ell=0.05, methods=["rskpca", "nystrom"], n_components=3, sigma=2.0)
    assert len(rows) == 2
    for r in rows:
        assert "n_components=3" in r["error"]
        assert math.isnan(r["alignment_error"])


def test_method_sweep_reports_progress(data):
    seen = []
    rows = sweeps.method_sweep(data, ells=[2.0, 4.0, 6.0], methods=["rskpca", "subsampled"], n_components=2,
                               sigma=2.0, progress=seen.append)
    assert seen == pytest.approx([1 / 3, 2 / 3, 1.0])
    assert [r["ell"] for r in rows] == [2.0, 2.0, 4.0, 4.0, 6.0, 6.0]


def test_shadow_sweep_m_grows_with_ell(data):
    rows = sweeps.shadow_sweep(data, ells=sweeps.ell_grid(1.0, 6.0, 6), sigma=2.0)
    ms = [r["m"] for r in rows]
    assert ms == sorted(ms) and rows[0]["eps"] == pytest.approx(2.0)


def test_aligned_embeddings_keep_exact_and_remove_signs(data, exact):
    flipped = sweeps.MethodResult(**{**exact.__dict__, "label": "flipped", "embedding": -exact.embedding})
    out = sweeps.aligned_embeddings([exact, flipped], exact)
    assert out["Exact KPCA"] is exact.embedding
    assert np.allclose(out["flipped"], exact.embedding)


def test_bad_inputs():
    with pytest.raises(ValueError, match="Unknown method"):
        sweeps.fit_method("nope", np.zeros((5, 2)), n_components=1, sigma=1.0)
    with pytest.raises(ValueError, match="low <= high"):
        sweeps.ell_grid(5.0, 1.0)
    with pytest.raises(ValueError, match="NaN"):
        sweeps.fit_method("rskpca", np.array([[np.nan, 1.0], [0.0, 1.0]]), n_components=1, sigma=1.0)


def test_cross_validated_classifier_on_rskpca_and_exact_features(data):
    y = np.repeat([0, 1], 80)
    for method in ("rskpca", "exact"):
        for clf in sweeps.CLASSIFIERS:
            res = sweeps.cross_validate_classifier(data, y, method=method, classifier=clf, n_components=2,
                                                   sigma=2.0, ell=3.0, folds=3)
            assert res["accuracy"] > 0.9, (method, clf)
            assert len(res["scores"]) == 3 and res["fit_seconds"] > 0


def test_cross_validated_classifier_bad_inputs(data):
    y = np.repeat([0, 1], 80)
    with pytest.raises(ValueError, match="single class"):
        sweeps.cross_validate_classifier(data, np.zeros(160), method="rskpca", classifier="knn", n_components=2,
                                         sigma=2.0)
    y_rare = y.copy()
    y_rare[:2] = 7
    with pytest.raises(ValueError, match="fewer than the 5 folds"):
        sweeps.cross_validate_classifier(data, y_rare, method="rskpca", classifier="knn", n_components=2, sigma=2.0)
    with pytest.raises(ValueError, match="one label per row"):
        sweeps.cross_validate_classifier(data, y[:5], method="rskpca", classifier="knn", n_components=2, sigma=2.0)
    with pytest.raises(ValueError, match="Unknown classifier"):
        sweeps.cross_validate_classifier(data, y, method="rskpca", classifier="svm", n_components=2, sigma=2.0)
    with pytest.raises(ValueError, match="folds"):
        sweeps.cross_validate_classifier(data, y, method="rskpca", classifier="knn", n_components=2, sigma=2.0,
                                         folds=1)


def test_sweep_point_skips_methods_above_their_m_cap(data, exact):
    rows = sweeps.sweep_point(data, data, exact, ell=4.0, methods=["rskpca", "wnystrom"], n_components=2,
                              sigma=2.0, max_m={"wnystrom": 3})
    by = {r["name"]: r for r in rows}
    assert by["rskpca"]["error"] == ""
    assert by["wnystrom"]["error"].startswith("skipped: m = ") and math.isnan(by["wnystrom"]["alignment_error"])


def test_fit_time_breakdown_is_carried_for_any_estimator_that_has_one(data, exact):
    rsc = sweeps.fit_method("rs_construction", data, n_components=3, sigma=2.0, m=20)
    assert set(rsc.fit_time_breakdown) == {"exact_kpca", "construction"}
    assert sum(rsc.fit_time_breakdown.values()) <= rsc.fit_seconds
    row = sweeps.compare(rsc, exact)
    assert row["fit_exact_kpca_seconds"] == rsc.fit_time_breakdown["exact_kpca"]
    assert row["fit_construction_seconds"] == rsc.fit_time_breakdown["construction"]
    plain = sweeps.compare(sweeps.fit_method("nystrom", data, n_components=3, sigma=2.0, m=20), exact)
    assert math.isnan(plain["fit_exact_kpca_seconds"]) and math.isnan(plain["gram_spectral_error"])
    failed = sweeps.sweep_point(data, data, exact, ell=2.0, methods=["rskpca"], n_components=200, sigma=2.0)[0]
    assert failed["error"] and set(failed) == set(row)  # every row has the same columns, failed or not


def test_gram_error_is_measured_only_on_request(data, exact):
    assert sweeps.fit_method("gram_sparsified", data, n_components=3, sigma=2.0, m=40).gram_error is None
    res = sweeps.fit_method("gram_sparsified", data, n_components=3, sigma=2.0, m=40, measure_gram_error=True)
    assert res.gram_error["spectral_norm"] > 0 and 0 < res.gram_error["relative"] < 10
    row = sweeps.compare(res, exact)
    assert row["gram_spectral_error"] == res.gram_error["spectral_norm"]
    # methods without a perturbed Gram matrix ignore the request
    assert sweeps.fit_method("rskpca", data, n_components=3, sigma=2.0, measure_gram_error=True).gram_error is None
    assert sweeps.perturbs_gram("gram_quantized") and not sweeps.perturbs_gram("random_fourier")
