"""Exact KPCA's cost against n (rskpca.evaluation.scaling) and its figure: the power law, the budget, the marks."""

import numpy as np
import pytest

from rskpca.evaluation.scaling import (
    MEASURED,
    PREDICTED,
    LadderStep,
    ScalingBudget,
    eval_rows,
    fit_power_law,
    kernel_matrix_bytes,
    lookahead_s,
    nested_rows,
    run_ladder,
    scaling_table,
    size_ladder,
    time_exact_at,
    time_rskpca_at,
)
from rskpca.plotting import scaling_figure


@pytest.mark.parametrize("a, b", [(3e-9, 2.0), (1e-10, 2.7), (2e-6, 1.0)])
def test_the_power_law_recovers_a_known_exponent_from_noisy_timings(a, b):
    n = np.array([1000, 2000, 4000, 8000, 16000], dtype=float)
    noise = np.exp(np.random.default_rng(0).normal(scale=0.05, size=n.size))  # +-5% jitter, as timings have
    law = fit_power_law(n, a * n**b * noise)
    assert law.b == pytest.approx(b, abs=0.1)
    assert law.points == 5
    assert law.predict(1e6) == pytest.approx(a * 1e6**b, rel=0.5)
    exact = fit_power_law(n, a * n**b)
    assert (exact.b, exact.a) == (pytest.approx(b), pytest.approx(a, rel=1e-6))
    np.testing.assert_allclose(exact.predict(n), a * n**b, rtol=1e-9)


@pytest.mark.parametrize("n, t", [([1000], [0.1]), ([1000, 1000], [0.1, 0.2]), ([1000, 2000], [0.1, 0.0]),
                                  ([1000, 2000], [0.1, np.nan])])
def test_the_power_law_refuses_what_it_cannot_fit(n, t):
    with pytest.raises(ValueError):
        fit_power_law(n, t)


def _quadratic_fits(record=None, a=1e-7, b=2.0):
    """A measure whose fit takes a n^b seconds (no clock involved), recording the sizes asked for."""
    def measure(size):
        if record is not None:
            record.append(size)
        return LadderStep(n=size, fit_s=a * size**b, project_s=1e-6 * size, matrix_points=size)
    return measure


def test_the_time_budget_stops_the_ladder_before_a_fit_predicted_over_it():
    asked = []
    # 0.1, 0.4, 1.6 s at 1k, 2k, 4k; 8k would take 6.4 s
    ladder = run_ladder(_quadratic_fits(asked), size_ladder(1_000_000), ScalingBudget(max_fit_s=2.0))
    assert asked == [1000, 2000, 4000] == ladder.measured_n
    assert (ladder.stopped_at, ladder.reason) == (8000, "time")
    assert ladder.predicted_s == pytest.approx(6.4)
    assert "8,000" in ladder.stop_text() and "2 s" in ladder.stop_text()
    # a larger budget goes on; a smaller one stops earlier
    assert run_ladder(_quadratic_fits(), size_ladder(1_000_000), ScalingBudget(max_fit_s=7.0)).measured_n[-1] == 8000
    # the second size is allowed SECOND_SIZE_ALLOWANCE times the budget (a power law needs two points), the third not
    assert run_ladder(_quadratic_fits(), size_ladder(1_000_000), ScalingBudget(max_fit_s=0.3)).measured_n == [1000, 2000]
    assert run_ladder(_quadratic_fits(), size_ladder(1_000_000), ScalingBudget(max_fit_s=0.09)).measured_n == [1000]


def test_the_look_ahead_never_assumes_less_than_quadratic_growth():
    # times dominated by fixed costs at small n fit an exponent near 0; the next fit is still predicted as n^2
    steps = [LadderStep(1000, 0.50, 0.0, 1000), LadderStep(2000, 0.51, 0.0, 2000)]
    assert lookahead_s(steps, 4000) == pytest.approx(0.51 * 4)
    ladder = run_ladder(lambda k: {1000: steps[0], 2000: steps[1]}.get(k, LadderStep(k, 9.9, 0.0, k)),
                        [1000, 2000, 4000], ScalingBudget(max_fit_s=2.0))
    assert ladder.measured_n == [1000, 2000] and ladder.reason == "time"
    # a measured fit over the budget stops it too, whatever the prediction says
    slow = run_ladder(lambda k: LadderStep(k, 3.0, 0.0, k), [1000, 2000], ScalingBudget(max_fit_s=2.0))
    assert slow.measured_n == [1000] and slow.reason == "time"


def test_the_memory_budget_stops_the_ladder_at_the_first_matrix_over_it():
    asked = []
    ladder = run_ladder(_quadratic_fits(asked, a=1e-12), size_ladder(1_000_000),
                        ScalingBudget(max_fit_s=1e9, max_matrix_bytes=512_000_000))
    # 8 n^2 bytes: 8,000 rows are 512 MB exactly (kept), 16,000 are 2 GB
    assert ladder.measured_n == [1000, 2000, 4000, 8000] == asked
    assert (ladder.stopped_at, ladder.reason) == (16000, "memory")
    assert "2.05 GB" in ladder.stop_text()
    assert kernel_matrix_bytes(8000) == 512_000_000 and kernel_matrix_bytes(10, 3) == 240


def test_a_small_data_set_is_measured_up_to_all_its_rows_and_nothing_is_predicted():
    ladder = run_ladder(_quadratic_fits(), size_ladder(1797), ScalingBudget())
    assert ladder.measured_n == [449, 898, 1797] and ladder.stopped_at is None and ladder.stop_text() == ""
    rs = [LadderStep(k, 0.01, 0.001, 50) for k in ladder.measured_n]
    rows = scaling_table(1797, ladder, rs)
    assert [r["exact_kpca"] for r in rows] == [MEASURED] * 3
    assert [r["rows"] for r in rows][-1] == "all rows"


def test_the_table_marks_the_full_n_as_predicted_with_the_power_law_and_8_n_squared_bytes():
    n = 1_000_000
    ladder = run_ladder(_quadratic_fits(), size_ladder(n), ScalingBudget(max_fit_s=2.0))
    rs = [LadderStep(k, 1e-3 * k / 1000, 1e-4, 40) for k in ladder.measured_n] + [LadderStep(n, 0.5, 1e-4, 40)]
    rows = scaling_table(n, ladder, rs)
    assert [(r["n"], r["exact_kpca"], r["rows"]) for r in rows] == [
        (1000, MEASURED, "seeded nested subsample"), (2000, MEASURED, "seeded nested subsample"),
        (4000, MEASURED, "seeded nested subsample"), (n, PREDICTED, "all rows")]
    full = rows[-1]
    assert full["exact_fit_s"] == pytest.approx(1e-7 * n**2)  # the law's value, b = 2 recovered
    assert full["exact_project_s"] == pytest.approx(1e-6 * n)
    assert full["exact_matrix_MB"] == pytest.approx(8e6)  # 8 TB
    assert full["rskpca_m"] == 40 and full["rskpca_matrix_MB"] == pytest.approx(8 * 40**2 / 1e6)
    assert full["fit_speedup"] == pytest.approx(1e-7 * n**2 / 0.5)
    assert rows[0]["fit_speedup"] == pytest.approx(0.1 / 1e-3)  # measured against measured at 1,000 rows


def test_the_figure_marks_the_prediction_apart_from_what_was_measured():
    n = 1_000_000
    ladder = run_ladder(_quadratic_fits(), size_ladder(n), ScalingBudget(max_fit_s=2.0))
    rs = [LadderStep(k, 1e-3, 1e-4, 40) for k in [*ladder.measured_n, n]]
    rows = scaling_table(n, ladder, rs)
    law = ladder.fit_law()
    fig = scaling_figure(rows, stage="fit", law=(law.a, law.b))
    by_name = {t.name: t for t in fig.data}
    measured = next(t for name, t in by_name.items() if name.startswith("Exact KPCA, measured"))
    assert list(measured.x) == [1000, 2000, 4000] and measured.marker.symbol == "circle"
    predicted = next(t for name, t in by_name.items() if name.endswith(", predicted"))
    assert list(predicted.x) == [n] and predicted.marker.symbol == "star-open" and list(predicted.text) == ["predicted"]
    line = next(t for name, t in by_name.items() if "power law" in name)
    assert "(predicted)" in line.name and line.line.dash == "dash" and "n^2" in line.name
    assert list(by_name["ShDE + RSKPCA, measured"].x) == [1000, 2000, 4000, n]
    assert fig.layout.xaxis.type == "log" and fig.layout.yaxis.type == "log"
    project = scaling_figure(rows, stage="project", eval_rows=1000)
    assert "1,000 new rows" in project.layout.yaxis.title.text
    assert not any("power law" in t.name for t in project.data)
    with pytest.raises(ValueError):
        scaling_figure(rows, stage="other")
    # a prediction that was not made (no projection time at the full n) draws no star and no legend entry for one
    unpredicted = [dict(row, exact_project_s=None) if row["exact_kpca"] == "predicted" else row for row in rows]
    assert not any("predicted" in t.name for t in scaling_figure(unpredicted, stage="project").data)


def test_the_subsamples_are_nested_and_seeded_and_the_new_rows_are_in_none_of_them():
    n = 20_000
    sizes = size_ladder(n)
    samples = [nested_rows(n, k) for k in sizes]
    assert [s.size for s in samples] == sizes
    for small, big in zip(samples, samples[1:]):
        assert np.isin(small, big).all()
    np.testing.assert_array_equal(nested_rows(n, 4000, seed=0), samples[2])
    assert not np.array_equal(nested_rows(n, 4000, seed=1), samples[2])
    new = eval_rows(n)
    assert new.size == 1000 and not np.isin(new, samples[-2]).any()
    assert eval_rows(10).size == 5  # at most half the rows


def test_the_timed_fits_on_real_estimators():
    X = np.random.default_rng(0).normal(size=(600, 3))
    step = time_exact_at(X, 300, n_components=2, sigma=1.5)
    assert (step.n, step.matrix_points) == (300, 300) and step.fit_s > 0 and step.project_s > 0
    rs = time_rskpca_at(X, 600, n_components=2, sigma=1.5, ell=3.0)
    assert rs.n == 600 and 2 <= rs.matrix_points < 600 and rs.fit_s > 0 and rs.project_s > 0


def test_on_all_rows_the_shadow_timed_when_it_ran_stands_for_the_fits_selection(monkeypatch):
    import rskpca.decomposition._reduced_set as reduced_set
    from rskpca.core.shadow import shadow_centers

    X = np.random.default_rng(0).normal(size=(600, 3))
    shadow = shadow_centers(X, sigma=2.0, ell=3.0)
    plain = time_rskpca_at(X, 600, n_components=2, sigma=2.0, ell=3.0)
    scans = []
    real = reduced_set.ReducedSetKPCA._centers_and_weights
    monkeypatch.setattr(reduced_set.ReducedSetKPCA, "_centers_and_weights",
                        lambda self, *a, **kw: scans.append(1) or real(self, *a, **kw))
    reused = time_rskpca_at(X, 600, n_components=2, sigma=2.0, ell=3.0, shadow=shadow, shadow_s=5.0)
    assert scans == []  # not selected again
    assert reused.matrix_points == plain.matrix_points == shadow.m
    assert 5.0 < reused.fit_s < 5.0 + 1.0  # its time counted, plus the solve's
    # below n the sample's own shadow is selected and timed as before
    time_rskpca_at(X, 300, n_components=2, sigma=2.0, ell=3.0, shadow=shadow, shadow_s=5.0)
    assert scans == [1]


def test_the_first_timed_call_of_a_process_follows_an_untimed_one_on_a_few_rows(monkeypatch):
    # the smallest size timed first in a process counted numba's cache loading and imports (953 ms at 500
    # pendigits rows against 19 ms at 1,000): one untimed call on a few rows comes before, once per kind
    from rskpca.evaluation import scaling

    monkeypatch.setattr(scaling, "_warmed", set())
    calls = []
    real = scaling.fit_method

    def counting(name, X_train, *args, **kwargs):
        calls.append(X_train.shape[0])
        return real(name, X_train, *args, **kwargs)

    monkeypatch.setattr(scaling, "fit_method", counting)
    X = np.random.default_rng(0).normal(size=(300, 3))
    for size in (100, 200):
        scaling.time_rskpca_at(X, size, n_components=2, sigma=1.5, ell=3.0)
    assert calls == [scaling._WARM_ROWS, 100, 200]
    # a warm-up that fails is only skipped: the timed call says what is wrong
    monkeypatch.setattr(scaling, "_warmed", set())
    scaling._warm_once("x", lambda: 1 / 0)
    assert "x" in scaling._warmed
