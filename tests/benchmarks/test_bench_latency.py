"""The latency benchmark's server mode: quiet stderr, the app named by --app, a table on stdout."""

import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parents[1]


def test_server_mode_prints_a_table_without_streamlit_runtime_noise(tmp_path):
    # Run from another folder with --app: the tool must not rely on being started in the checkout.
    cmd = [sys.executable, str(BENCH / "bench_latency.py"), "--app", str(REPO / "app.py"), "--sample", "iris",
           "--pages", "pages/8_Learn.py", "--ells", "3"]
    out = subprocess.run(cmd, cwd=tmp_path, capture_output=True, text=True, timeout=600,
                         env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"})
    assert out.returncode == 0, out.stdout + out.stderr
    assert "ScriptRunContext" not in out.stderr and "No runtime found" not in out.stderr, out.stderr[-2000:]
    assert "pages/8_Learn.py" in out.stdout and "load average" in out.stdout


def test_a_missing_app_is_named_with_the_fix(tmp_path):
    out = subprocess.run([sys.executable, str(BENCH / "bench_latency.py"), "--app", str(tmp_path / "nope.py")],
                         cwd=tmp_path, capture_output=True, text=True, timeout=120,
                         env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"})
    assert out.returncode != 0 and "--app PATH" in out.stderr


def test_a_page_file_that_does_not_exist_is_named_with_the_pages_there(tmp_path):
    out = subprocess.run([sys.executable, str(BENCH / "bench_latency.py"), "--app", str(REPO / "app.py"),
                          "--pages", "pages/7_Speedups.py"], cwd=tmp_path, capture_output=True, text=True,
                         timeout=120, env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"})
    assert out.returncode == 2 and "Traceback" not in out.stderr, out.stderr[-2000:]
    assert "no such page file(s) ['pages/7_Speedups.py']" in out.stderr and "pages/6_Speedups.py" in out.stderr


def test_server_mode_changes_sigma_and_rank_too(tmp_path):
    cmd = [sys.executable, str(BENCH / "bench_latency.py"), "--app", str(REPO / "app.py"), "--sample", "iris",
           "--pages", "pages/2_Shadow_centers.py", "--controls", "sigma", "r", "--per-ell"]
    out = subprocess.run(cmd, cwd=tmp_path, capture_output=True, text=True, timeout=600,
                         env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"})
    assert out.returncode == 0, out.stdout + out.stderr
    rows = [line.split() for line in out.stdout.splitlines() if line.startswith("pages/2_Shadow_centers.py")]
    assert [row[1] for row in rows] == ["sigma", "r"], out.stdout
    # a new sigma moves the shadow (m changes); a new rank does not
    changes = [line for line in out.stdout.splitlines() if line.strip().startswith(("sigma change", "r change"))]
    assert len(changes) == 10, out.stdout
    m_sigma = {line.split("m = ")[1] for line in changes if line.strip().startswith("sigma")}
    m_rank = {line.split("m = ")[1] for line in changes if line.strip().startswith("r change")}
    assert len(m_sigma) > 1 and len(m_rank) == 1, out.stdout


def test_server_mode_measures_a_csv_as_if_uploaded(tmp_path):
    # A relative path, resolved before the tool moves to the app's folder.
    rows = ["a,b,c"] + [f"{i % 7},{(i * 3) % 11},{i % 5}" for i in range(120)]
    (tmp_path / "small.csv").write_text("\n".join(rows) + "\n")
    cmd = [sys.executable, str(BENCH / "bench_latency.py"), "--app", str(REPO / "app.py"), "--csv", "small.csv",
           "--max-rows", "100", "--pages", "pages/2_Shadow_centers.py", "--ells", "3", "--per-ell"]
    out = subprocess.run(cmd, cwd=tmp_path, capture_output=True, text=True, timeout=600,
                         env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"})
    assert out.returncode == 0, out.stdout + out.stderr
    assert "small.csv (max rows 100)" in out.stdout
    # the sidebar's m is the upload's: at most the 100 rows kept
    m = int(next(line for line in out.stdout.splitlines() if "ell change 1" in line).split("m = ")[1])
    assert 1 <= m <= 100, out.stdout


def test_browser_mode_splits_each_change_into_the_scripts_share_and_the_rest(tmp_path):
    # What a user waits for, and how much of it is the page script (the rest is the browser's drawing)
    import os
    import statistics

    import pytest

    chromium = Path(os.environ.get("RSKPCA_CHROMIUM", "/usr/bin/chromium"))
    if not chromium.exists():
        pytest.skip(f"{chromium} is missing: install Debian's chromium")
    pytest.importorskip("playwright.sync_api")
    from bench_browser import format_browser_header, format_browser_row, measure_in_browser

    _, rows = measure_in_browser(REPO / "app.py", sample="iris", pages=["Bounds"], controls=("ell",), changes=2,
                                 log=lambda *a, **k: None, trace=True, revisits=2)
    (row,) = rows
    assert not row.error, row.error
    assert len(row.seconds) == len(row.script_seconds) == 2
    assert all(0 < script <= total for script, total in zip(row.script_seconds, row.seconds)), (row.script_seconds,
                                                                                               row.seconds)
    assert format_browser_header().split()[-2:] == ["script", "s"]
    # --trace: where the browser's main thread went in each change (Bounds redraws its live charts)
    assert len(row.main_thread) == 2
    assert all(share.busy_ms > 0 and 0 < share.charts_ms <= share.busy_ms for share in row.main_thread), row.main_thread
    assert format_browser_header(traced=True).split()[-6:] == ["main", "ms", "charts", "ms", "commit", "ms"]
    # --revisits: back and forth between the last two values (cached), apart from the timed changes
    assert len(row.revisit_seconds) == 2 and all(s > 0 for s in row.revisit_seconds)
    assert format_browser_header(traced=True, revisited=True).split()[-2:] == ["cached", "s"]
    cells = format_browser_row(row).split()
    assert float(cells[-5]) == pytest.approx(row.median_script, abs=1e-3)
    assert float(cells[-4]) == pytest.approx(statistics.median(s.busy_ms for s in row.main_thread), abs=0.5)
    assert float(cells[-1]) == pytest.approx(row.median_revisit, abs=1e-3)
