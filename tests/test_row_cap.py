"""rskpca.evaluation.row_cap: the pages' first views as lines in n (measured by the benchmark, not kept in the
code), the default row cap, what a larger cap adds; a file named on the command line used whole; the sample
said next to n."""

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

import rskpca.evaluation.row_cap as row_cap
from rskpca.evaluation import _measured_first_views
from rskpca.evaluation.row_cap import (DEFAULT_ROW_CAP, FIRST_VIEW_BUDGET_S, FIRST_VIEW_LINES, MEASURED_ROWS,
                                       first_view_seconds, fit_first_view_lines, larger_cap_costs, largest_cap_within,
                                       row_cap_cost_text, slowest_first_view)
from rskpca.ui.keys import DEFAULT_MAX_ROWS
from test_app import APP, TIMEOUT, _ok
from test_app_file import ROWS, _n_caption, _started_with, data_file  # noqa: F401 (a fixture)

ROOT = Path(__file__).resolve().parents[1]


def test_the_default_cap_is_the_largest_measured_size_within_the_budget():
    assert DEFAULT_ROW_CAP == largest_cap_within(FIRST_VIEW_BUDGET_S) == DEFAULT_MAX_ROWS
    assert DEFAULT_ROW_CAP in MEASURED_ROWS
    i = MEASURED_ROWS.index(DEFAULT_ROW_CAP)
    smallest = first_view_seconds(MEASURED_ROWS[0])
    assert all(t <= max(FIRST_VIEW_BUDGET_S, smallest[p]) for p, t in first_view_seconds(DEFAULT_ROW_CAP).items())
    if i + 1 < len(MEASURED_ROWS):  # the next size breaks the budget on some page
        assert any(t > max(FIRST_VIEW_BUDGET_S, smallest[p]) for p, t in first_view_seconds(MEASURED_ROWS[i + 1]).items())


def test_a_named_file_of_a_million_rows_is_used_whole(monkeypatch, tmp_path):
    # issue 38 item 11: `rskpca app FILE` on 1,000,000 rows kept a seeded 200,000-row sample by default
    import numpy as np

    path = tmp_path / "million.npy"
    np.save(path, np.random.default_rng(0).normal(size=(1_000_000, 2)).astype(np.float32))
    _started_with(monkeypatch, path)
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    at.run()
    _ok(at)
    ds = at.session_state["_dataset"]
    assert ds.n == ds.n_original == 1_000_000 > DEFAULT_ROW_CAP
    assert "sample" not in _n_caption(at)


def test_the_measurements_are_the_benchmarks_not_a_table_in_the_code():
    source = (ROOT / "rskpca" / "evaluation" / "row_cap.py").read_text()
    assert "FIRST_VIEW_S" not in source and "2026" not in source
    assert "bench_row_cap.py --write" in (ROOT / "rskpca" / "evaluation" / "_measured_first_views.py").read_text()
    titles = {p.stem.split("_", 1)[1].replace("_", " ") for p in (ROOT / "pages").glob("*.py")}
    assert titles | {"Loading"} <= set(FIRST_VIEW_LINES), (
        "a page was added or renamed: measure it (python tests/benchmarks/bench_row_cap.py --write)")
    assert list(MEASURED_ROWS) == sorted(MEASURED_ROWS) and MEASURED_ROWS is _measured_first_views.MEASURED_ROWS


def test_a_line_is_fitted_to_each_pages_measurements():
    lines = fit_first_view_lines([1000, 2000, 4000], {"a": [1.1, 1.2, 1.4], "b": [0.5, 0.4, float("nan")]})
    assert lines["a"] == pytest.approx((1.0, 1e-4))
    assert lines["b"][1] == 0.0  # never a negative cost per row


def test_estimates_are_the_fixed_part_plus_the_per_row_cost():
    for n in (1, 5_000, 123_456, 3_000_000):
        est = first_view_seconds(n)
        for page, (fixed, per_row) in FIRST_VIEW_LINES.items():
            assert est[page] == pytest.approx(fixed + per_row * n)
            assert fixed >= 0 and per_row >= 0
    assert first_view_seconds(0) == first_view_seconds(1)  # no negative or empty sizes


def test_what_a_larger_cap_adds_is_said_for_the_rows_it_would_add(monkeypatch):
    monkeypatch.setattr(row_cap, "MEASURED_ROWS", (5_000, 20_000, 200_000))
    monkeypatch.setattr(row_cap, "FIRST_VIEW_LINES", {"Speedups": (1.6, 1e-7), "Data": (0.1, 1e-5)})
    costs = row_cap.larger_cap_costs(5_000, 300_000)
    assert [n for n, *_ in costs] == [20_000, 200_000, 300_000]
    # issue 38 item 10: the slowest page's fixed part is the same at every size, so what differs is said
    added = [a for *_, a in costs]
    assert added == sorted(added) and len(set(added)) == 3
    assert costs[0][:2] == (20_000, "Speedups") and costs[-1][1] == "Data"
    assert costs[0][3] == pytest.approx(1.6 + 2e-3 - (1.6 + 5e-4))
    assert row_cap.larger_cap_costs(300_000, 300_000) == [] and row_cap.larger_cap_costs(10**8, 5) == []


def test_the_cost_text_says_how_much_grows_with_the_rows():
    page, seconds = slowest_first_view(1_000_000)
    assert row_cap_cost_text(1_000_000).startswith(f"about ") and "of it from the rows" in row_cap_cost_text(1_000_000)
    assert larger_cap_costs(1_000_000, 1_000_000) == []


def test_a_file_named_on_the_command_line_is_used_whole(monkeypatch, data_file):
    import rskpca.ui.keys as K

    # a default cap below the file's rows (the real one is above this test file's): the file is still used whole
    monkeypatch.setattr(K, "DEFAULT_MAX_ROWS", 100)
    monkeypatch.setitem(K.KEYS, "max_rows", 100)
    _started_with(monkeypatch, data_file)
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    at.run()
    _ok(at)
    ds = at.session_state["_dataset"]
    assert (ds.n, ds.n_original) == (ROWS, ROWS)
    assert "sample" not in _n_caption(at)


def test_a_sample_in_use_is_said_next_to_n(monkeypatch, data_file):
    _started_with(monkeypatch, data_file)
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    at.session_state["max_rows"] = 100  # a cap the user (or a link) set stays
    at.run()
    _ok(at)
    assert _n_caption(at).startswith("n = 100 rows") and f"a seeded sample of the {ROWS:,} rows" in _n_caption(at)
