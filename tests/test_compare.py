"""The one evaluation path: fit, time, compare with exact KPCA, classify; declared capabilities; columns."""

import math

import numpy as np
import pytest

from rskpca.evaluation import classify, compare as sweeps, fitting
from rskpca.evaluation.result_columns import COLUMNS, column_order, format_table, timing_columns, write_csv
from rskpca.evaluation.methods import METHODS, SLOW_ABOVE_M, perturbs_gram
from rskpca.evaluation.timing import Timing, run_times


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(0)
    return np.vstack([rng.normal(size=(80, 3)), rng.normal(loc=4.0, size=(80, 3))])


@pytest.fixture(scope="module")
def exact(data):
    return fitting.fit_exact(data, n_components=3, sigma=2.0)


def test_exact_against_itself(exact):
    row = sweeps.compare(exact, exact)
    assert row["alignment_error"] == pytest.approx(0.0, abs=1e-10)
    assert row["eigenvalue_deviation"] == 0.0
    assert row["m"] == 160 and row["retained"] == 1.0 and row["stored_points"] == 160


def test_exact_without_projection_embeds_the_training_rows_as_the_projection_does(data, exact):
    fitted = fitting.fit_exact(data, n_components=3, sigma=2.0, project=False)
    np.testing.assert_allclose(fitted.embedding, exact.embedding, atol=1e-10)
    np.testing.assert_array_equal(fitted.normalized_eigenvalues, exact.normalized_eigenvalues)
    assert math.isnan(fitted.test_s) and fitted.train_s > 0
    with pytest.raises(ValueError, match="training rows only"):
        fitting.fit_exact(data, data[:5], n_components=3, sigma=2.0, project=False)


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
        assert r["train_s"] > 0 and r["train_speedup"] == pytest.approx(r["exact_train_s"] / r["train_s"])
        assert r["exact_train_s"] == min(r["exact_arpack_train_s"], r["exact_randomized_train_s"])


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
        assert "n_components=3" in r["error"] and r["outcome"] is sweeps.Outcome.FAILED
        assert math.isnan(r["alignment_error"])


def test_method_sweep_reports_progress(data):
    seen = []
    rows = sweeps.method_sweep(data, ells=[2.0, 4.0, 6.0], methods=["rskpca", "subsampled"], n_components=2,
                               sigma=2.0, progress=lambda fraction, message: seen.append(fraction))
    # one report per ell, the last at 1; before it, the share of the time spent (core.progress.paced)
    assert len(seen) == 3 and seen[-1] == 1.0 and all(0.0 <= f < 1.0 for f in seen[:-1])
    assert [r["ell"] for r in rows] == [2.0, 2.0, 4.0, 4.0, 6.0, 6.0]


def test_shadow_sweep_m_grows_with_ell(data):
    rows = sweeps.shadow_sweep(data, ells=sweeps.ell_grid(1.0, 6.0, 6), sigma=2.0)
    ms = [r["m"] for r in rows]
    assert ms == sorted(ms) and all(r["retained"] == r["m"] / r["n_train"] for r in rows)


def test_aligned_embeddings_keep_exact_and_remove_signs(data, exact):
    flipped = fitting.MethodResult(**{**exact.__dict__, "label": "flipped", "embedding": -exact.embedding})
    out = sweeps.aligned_embeddings([exact, flipped], exact)
    assert out["Exact KPCA"] is exact.embedding
    assert np.allclose(out["flipped"], exact.embedding)


def test_bad_inputs():
    with pytest.raises(ValueError, match="Unknown method"):
        fitting.fit_method("nope", np.zeros((5, 2)), n_components=1, sigma=1.0)
    with pytest.raises(ValueError, match="low <= high"):
        sweeps.ell_grid(5.0, 1.0)
    with pytest.raises(ValueError, match="NaN"):
        fitting.fit_method("rskpca", np.array([[np.nan, 1.0], [0.0, 1.0]]), n_components=1, sigma=1.0)


def test_cross_validated_classifier_on_rskpca_and_exact_features(data):
    y = np.repeat([0, 1], 80)
    for method in ("rskpca", "exact"):
        for clf in classify.CLASSIFIERS:
            res = classify.cross_validate_classifier(data, y, method=method, classifier=clf, n_components=2,
                                                   sigma=2.0, ell=3.0, folds=3)
            assert res["accuracy"] > 0.9, (method, clf)
            assert len(res["scores"]) == 3 and res["train_s"] > 0 and res["test_s"] > 0


def test_cross_validated_classifier_bad_inputs(data):
    y = np.repeat([0, 1], 80)
    with pytest.raises(ValueError, match="single class"):
        classify.cross_validate_classifier(data, np.zeros(160), method="rskpca", classifier="knn", n_components=2,
                                         sigma=2.0)
    y_rare = y.copy()
    y_rare[:2] = 7
    with pytest.raises(ValueError, match="fewer than the 5 folds"):
        classify.cross_validate_classifier(data, y_rare, method="rskpca", classifier="knn", n_components=2, sigma=2.0)
    with pytest.raises(ValueError, match="one label per row"):
        classify.cross_validate_classifier(data, y[:5], method="rskpca", classifier="knn", n_components=2, sigma=2.0)
    with pytest.raises(ValueError, match="Unknown classifier"):
        classify.cross_validate_classifier(data, y, method="rskpca", classifier="svm", n_components=2, sigma=2.0)
    with pytest.raises(ValueError, match="folds"):
        classify.cross_validate_classifier(data, y, method="rskpca", classifier="knn", n_components=2, sigma=2.0,
                                         folds=1)


def test_sweep_point_skips_slow_methods_above_the_registry_cap():
    big = np.random.default_rng(1).normal(size=(SLOW_ABOVE_M + 200, 2))
    exact = fitting.fit_exact(big, n_components=2, sigma=0.3)
    rows = sweeps.sweep_point(big, big, exact, ell=6.0, methods=["rskpca", "wnystrom"], n_components=2,
                              sigma=0.3, skip_slow=True)
    by = {r["name"]: r for r in rows}
    assert by["rskpca"]["m"] > SLOW_ABOVE_M and by["rskpca"]["error"] == ""
    assert by["wnystrom"]["error"].startswith("skipped: m = ") and math.isnan(by["wnystrom"]["alignment_error"])
    # the kind of row is a value, not read off the message's words
    assert (by["rskpca"]["outcome"], by["wnystrom"]["outcome"]) == (sweeps.Outcome.OK, sweeps.Outcome.SKIPPED)


def test_train_parts_are_carried_for_methods_that_declare_them(data, exact):
    rsc = fitting.fit_method("rs_construction", data, n_components=3, sigma=2.0, m=20)
    assert set(rsc.train_parts) == {"exact_kpca", "construction"}
    assert sum(rsc.train_parts.values()) <= rsc.train_s  # a part never exceeds its whole
    row = sweeps.compare(rsc, exact)
    assert row["train_exact_kpca_s"] == rsc.train_parts["exact_kpca"]
    assert row["train_construction_s"] == rsc.train_parts["construction"]
    plain = sweeps.compare(fitting.fit_method("nystrom", data, n_components=3, sigma=2.0, m=20), exact)
    assert math.isnan(plain["train_exact_kpca_s"]) and math.isnan(plain["gram_spectral_error"])
    failed = sweeps.sweep_point(data, data, exact, ell=2.0, methods=["rskpca"], n_components=200, sigma=2.0)[0]
    assert failed["error"] and set(failed) == set(row)  # every row has the same columns, failed or not


def test_gram_error_is_measured_only_on_request(data, exact):
    assert fitting.fit_method("gram_sparsified", data, n_components=3, sigma=2.0, m=40).gram_error is None
    res = fitting.fit_method("gram_sparsified", data, n_components=3, sigma=2.0, m=40, measure_gram_error=True)
    assert res.gram_error["spectral_norm"] > 0 and 0 < res.gram_error["relative"] < 10
    row = sweeps.compare(res, exact)
    assert row["gram_spectral_error"] == res.gram_error["spectral_norm"]
    # methods without a perturbed Gram matrix ignore the request
    assert fitting.fit_method("rskpca", data, n_components=3, sigma=2.0, measure_gram_error=True).gram_error is None
    assert perturbs_gram("gram_quantized") and not perturbs_gram("random_fourier")


@pytest.mark.parametrize("name", list(METHODS))
def test_declared_capabilities_match_the_fitted_estimator(name, data):
    """m, stored points and Gram perturbation come from the registry's declarations, checked here once."""
    from rskpca.evaluation.methods import make_estimator

    method = METHODS[name]
    est = make_estimator(name, n_components=2, sigma=2.0, ell=3.0, m=20).fit(data)
    n = data.shape[0]
    size = method.reduced_size(est, n)
    if method.reduced_set is None:
        assert size == n
    elif name == "rskpca":
        assert size == est.centers_.shape[0] < n
    elif method.perturbs_gram:  # the expansion is rounded to about m terms
        assert abs(size - 20) <= 5
    else:
        assert size == 20  # the budget it was given
    assert method.stored_points(est, n) == (n if method.projects_through_training_set else size)
    assert hasattr(est, "X_fit_") == method.projects_through_training_set or name == "exact_iterative"
    assert callable(getattr(type(est), "gram_error", None)) == method.perturbs_gram
    assert hasattr(est, "fit_time_breakdown_") == method.reports_train_parts


def test_slow_policy_lives_in_the_registry():
    slow = [name for name, method in METHODS.items() if method.slow_at(SLOW_ABOVE_M + 1)]
    # reduced-set construction: one pre-image search over all n rows per constructed point (a tryout:
    # digits at m = 1693 held the Speedups page for 17-19 s)
    assert slow == ["wnystrom", "rskpca_kmeans", "rskpca_herding", "rs_construction"]
    assert not any(method.slow_at(SLOW_ABOVE_M) for method in METHODS.values())


def test_every_method_is_timed_the_same_way(data):
    calls = []
    _, times = run_times(lambda: calls.append(1), Timing(repeats=3, warmup=2))
    assert len(calls) == 5 and len(times) == 3
    with pytest.raises(ValueError, match="repeats"):
        Timing(repeats=0)
    ex = fitting.fit_exact(data, n_components=2, sigma=2.0, timing=Timing(repeats=2, warmup=1))
    assert set(ex.solver_train_s) == {"arpack", "randomized"} and ex.train_s == min(ex.solver_train_s.values())


def test_rows_use_only_the_vocabulary_and_csv_keeps_the_printed_order(data, exact, tmp_path):
    rows = sweeps.sweep_point(data, data, exact, ell=2.0, methods=list(METHODS), n_components=2, sigma=2.0)
    order = column_order(rows)
    assert order == [c for c in COLUMNS if c in order]
    path = write_csv(rows, tmp_path / "r.csv")
    assert path.read_text().splitlines()[0].split(",") == order == format_table(rows).splitlines()[0].split()
    with pytest.raises(ValueError, match="--overwrite"):
        write_csv(rows, path)
    write_csv(rows[:1], path, overwrite=True)
    with pytest.raises(ValueError, match="not in rskpca.evaluation.result_columns"):
        column_order([{"fit_seconds": 1.0}])


def test_a_precomputed_shadow_gives_rskpcas_fit_bit_for_bit(data):
    """fit_method(shadow=) solves on the given centers (fit_reduced_set): the same result as fitting,
    no fit time claimed, other methods unaffected, and a shadow of other rows refused."""
    from rskpca.core.shadow import shadow_centers

    s = shadow_centers(data, sigma=2.0, ell=3.0)
    fitted = fitting.fit_method("rskpca", data, n_components=3, sigma=2.0, ell=3.0)
    given = fitting.fit_method("rskpca", data, n_components=3, sigma=2.0, ell=3.0, shadow=s)
    assert given.m == fitted.m == s.m
    np.testing.assert_array_equal(given.embedding, fitted.embedding)
    np.testing.assert_array_equal(given.normalized_eigenvalues, fitted.normalized_eigenvalues)
    assert math.isnan(given.train_s) and fitted.train_s > 0
    nys = fitting.fit_method("nystrom", data, n_components=3, sigma=2.0, ell=3.0, m=s.m, shadow=s)
    assert nys.train_s > 0
    with pytest.raises(ValueError, match="X_train's own shadow"):
        fitting.fit_method("rskpca", data[:100], n_components=3, sigma=2.0, ell=3.0, shadow=s)


def test_timing_columns_are_chosen_by_their_unit_in_the_vocabulary():
    X = np.random.default_rng(0).normal(size=(40, 2))
    ex = fitting.fit_exact(X, n_components=2, sigma=1.0)
    row = sweeps.compare(ex, ex)
    timed = timing_columns(row)
    assert {"train_s", "test_s", "train_speedup", "test_speedup", "exact_solver"} <= set(timed)
    assert not {"method", "m", "alignment_error", "gram_spectral_error", "retained"} & set(timed)
    assert all(COLUMNS[c].unit in ("s", "ratio") for c in timed if c != "exact_solver")
    with pytest.raises(ValueError, match="not in"):
        timing_columns(["no_such_column"])
