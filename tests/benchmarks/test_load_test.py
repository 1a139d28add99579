"""The classroom load test on a small scale: two websocket sessions against a real server."""

import math
from pathlib import Path

from load_test import Change, LoadResult, format_table, run_load, summary_rows

APP = Path(__file__).resolve().parents[2] / "app.py"


def test_two_sessions_change_ell_and_sigma_without_errors_and_record_each_latency():
    result = run_load(APP, sessions=2, n_changes=1, think=0.1, ramp=0.5, timeout=60)
    errors = [f"{c.page} {c.control}: {c.error}" for c in result.changes if c.error]
    assert errors == [], "\n".join(errors + result.notes)
    steps = sorted((c.session, c.control) for c in result.changes)
    assert steps == [(0, "ell"), (0, "first view"), (0, "sigma"), (1, "ell"), (1, "first view"), (1, "sigma")]
    assert {c.page for c in result.changes} == {"Shadow centers", "KDE vs ShDE"}  # spread over pages
    assert all(math.isfinite(c.seconds) and c.seconds > 0 for c in result.changes)
    assert all(math.isfinite(c.value) for c in result.changes if c.control != "first view")
    assert result.peak_rss >= result.start_rss > 0
    assert "errors: 0 " in format_table(result)


def test_summary_counts_errors_apart_from_the_latencies():
    changes = [Change("websocket", s, "Bounds", "ell", 0, 4.0, seconds) for s, seconds in enumerate((1.0, 2.0, 3.0))]
    changes.append(Change("websocket", 3, "Bounds", "ell", 0, 4.0, math.nan, "disconnected"))
    row = next(r for r in summary_rows(LoadResult(changes=changes)) if r["what"] == "all changes")
    assert (row["sessions"], row["changes"], row["errors"]) == (4, 4, 1)
    assert (row["p50_s"], row["max_s"]) == (2.0, 3.0)
    assert math.isclose(row["p95_s"], 2.9)
