"""rskpca.evaluation.row_cap: the measured first views, their per-row estimates and the default row cap."""

from pathlib import Path

import pytest

from rskpca.evaluation.row_cap import (DEFAULT_ROW_CAP, FIRST_VIEW_BUDGET_S, FIRST_VIEW_S, MEASURED_ROWS,
                                       first_view_seconds, larger_cap_costs, largest_cap_within, per_row_costs,
                                       row_cap_cost_text, slowest_first_view)
from rskpca.evaluation.units import seconds_text
from rskpca.ui.keys import DEFAULT_MAX_ROWS

ROOT = Path(__file__).resolve().parents[1]


def test_the_default_cap_is_the_largest_measured_size_within_the_budget():
    assert DEFAULT_ROW_CAP == largest_cap_within(FIRST_VIEW_BUDGET_S) == DEFAULT_MAX_ROWS
    assert DEFAULT_ROW_CAP in MEASURED_ROWS
    i = MEASURED_ROWS.index(DEFAULT_ROW_CAP)
    smallest = first_view_seconds(MEASURED_ROWS[0])
    assert all(t <= max(FIRST_VIEW_BUDGET_S, smallest[p]) for p, t in first_view_seconds(DEFAULT_ROW_CAP).items())
    if i + 1 < len(MEASURED_ROWS):  # the next size breaks the budget on some page
        assert any(t > max(FIRST_VIEW_BUDGET_S, smallest[p]) for p, t in first_view_seconds(MEASURED_ROWS[i + 1]).items())


def test_the_table_covers_every_page_at_every_measured_size():
    titles = {p.stem.split("_", 1)[1].replace("_", " ") for p in (ROOT / "pages").glob("*.py")}
    assert titles | {"Loading"} <= set(FIRST_VIEW_S), (
        "a page was added or renamed: measure it (python tests/benchmarks/bench_row_cap.py) and update FIRST_VIEW_S")
    assert all(len(v) == len(MEASURED_ROWS) and min(v) >= 0 for v in FIRST_VIEW_S.values())
    assert list(MEASURED_ROWS) == sorted(MEASURED_ROWS)


def test_estimates_are_the_fixed_part_plus_the_per_row_cost():
    costs = per_row_costs()
    for n in (1, 5_000, 123_456, 3_000_000):
        est = first_view_seconds(n)
        for page, (fixed, per_row) in costs.items():
            assert est[page] == pytest.approx(fixed + per_row * n)
            assert fixed >= 0 and per_row >= 0
    assert first_view_seconds(0) == first_view_seconds(1)  # no negative or empty sizes
    # the estimates follow the measurements: within a factor 2 (plus 0.5 s of noise) of the largest size's
    for page, seconds in FIRST_VIEW_S.items():
        assert first_view_seconds(MEASURED_ROWS[-1])[page] <= 2 * seconds[-1] + 0.5, page


def test_what_a_larger_cap_costs_is_said_for_the_rows_it_would_add():
    costs = larger_cap_costs(5_000, 300_000)
    assert [n for n, _, _ in costs] == [n for n in MEASURED_ROWS if 5_000 < n < 300_000] + [300_000]
    for n, page, seconds in costs:
        assert (page, seconds) == slowest_first_view(n)
    assert [s for _, _, s in costs] == sorted(s for _, _, s in costs)
    assert larger_cap_costs(300_000, 300_000) == [] and larger_cap_costs(10**8, 5) == []  # a cap above the rows: fine
    page, seconds = slowest_first_view(1_000_000)
    assert row_cap_cost_text(1_000_000) == f"about {seconds_text(seconds)} for the first view of {page} at 1,000,000 rows"
