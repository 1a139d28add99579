"""End to end in Chromium: the all-n path on a generated large file (issue 31).

A seeded 30,000 x 10 Gaussian mixture (four classes) is written as Parquet and served as a user serves
it, ``python -m rskpca app FILE --server.port P --server.headless true``. 30,000 rows is above both
limits that switch the pages to their all-n path: exact KPCA's 2,000 rows on Embeddings
(``EMBED_EXACT_MAX_ROWS``) and the 20,000-point budget of a chart (``POINT_BUDGET``). So:

* Embeddings fits RSKPCA on all 30,000 rows, exact KPCA on a seeded sample of 2,000 (its caption says
  both), and draws the all-rows panels as densities (the chart's title says what is aggregated);
* a box on a density panel selects the rows inside it (the sidebar and the selected-rows table);
* moving ell with the keyboard changes m in the caption, still on all 30,000 rows;
* Speedups times RSKPCA on all 30,000 rows and marks exact KPCA's value at 30,000 as predicted;
* Bounds computes the a-posteriori bounds on all 30,000 rows.

Small enough for CI (about 25 s on a loaded two-core machine, the server's start included); the large
runs are the benchmarks': ``python tests/benchmarks/bench_latency.py --browser --generate 1000000 --served``
(in Chromium) and ``tests/benchmarks/bench_row_cap.py`` (server side, up to 1,000,000 rows). Every wait is
on a condition (the app's run state, a text, the chart's figure), with test_e2e's generous timeouts.
Screenshots go to ``test-artifacts/e2e/scale-*.png``; the server's log to
``test-artifacts/e2e/scale_server.log``.
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

from rskpca import plotting as plots

# Importing the module applies its skips (no Playwright, no Chromium) to this one too.
from test_e2e import (  # noqa: F401  (fixtures are used by name)
    PLOT_OF_KEY,
    app_page,
    assert_charts_render,
    assert_no_exception,
    chart_frame,
    chromium_browser,
    ell_value,
    go_to,
    move_ell,
    nav_links,
    serve,
    shoot,
    wait_for_app_run,
)
from test_e2e_selection import box_select

pytestmark = pytest.mark.e2e

ROWS = 30_000
COLUMNS = 10
CLASSES = 4
EXACT_SAMPLE = 2_000  # rskpca.ui.compute.exact_plan.EMBED_EXACT_MAX_ROWS: exact KPCA's seeded sample
N = f"{ROWS:,}"  # as the pages and the sidebar write it: "30,000"
FILE_NAME = f"mixture_{ROWS}x{COLUMNS}.parquet"


@pytest.fixture(scope="module")
def large_file(tmp_path_factory):
    """A seeded Gaussian mixture: ROWS x COLUMNS features and an integer class label, as Parquet."""
    rng = np.random.default_rng(31)
    means = rng.normal(0.0, 4.0, (CLASSES, COLUMNS))
    label = rng.integers(0, CLASSES, ROWS)
    X = means[label] + rng.normal(0.0, 1.0, (ROWS, COLUMNS))
    table = pd.DataFrame(X.astype(np.float32), columns=[f"f{j}" for j in range(COLUMNS)])
    table["label"] = label
    path = tmp_path_factory.mktemp("scale") / FILE_NAME
    table.to_parquet(path, index=False)
    return path


@pytest.fixture(scope="module")
def scale_server(large_file):
    """Base URL of ``python -m rskpca app FILE`` on a free loopback port (its log kept in test-artifacts/e2e)."""
    yield from serve("scale_server.log", script_args=[large_file], cli=True)


def open_page(page, url: str, pattern: str, query: str = "") -> None:
    """Open the app on the file (``query``: link settings), check the sidebar says all ROWS rows are in use, then
    open the page."""
    page.goto(f"{url}/?{query}" if query else url)
    page.get_by_test_id("stAppViewContainer").wait_for()
    wait_for_app_run(page)
    assert_no_exception(page, "home")
    sidebar = page.get_by_test_id("stSidebar").inner_text()
    assert f"Showing: File {FILE_NAME}" in sidebar, sidebar
    assert re.search(rf"\bn = {N} rows, d = {COLUMNS} features", sidebar), f"not all {N} rows in use: {sidebar!r}"
    go_to(page, next(lab for lab in nav_links(page) if re.search(pattern, lab, re.I)))
    assert_no_exception(page, pattern)


def main_text(page) -> str:
    return page.get_by_test_id("stMain").inner_text()


def embeddings_caption(page) -> str:
    """The Embeddings caption that says which rows each fit is on ("m = ... of all N rows ...")."""
    caption = page.get_by_test_id("stCaptionContainer").filter(has_text=re.compile(r"^m = \d[\d,]* shadow center"))
    caption.first.wait_for()
    return caption.first.inner_text()


def sidebar_m(page) -> int:
    """The m the sidebar shows ("shadow centers m (on all n rows)")."""
    sidebar = page.get_by_test_id("stSidebar").inner_text()
    found = re.search(r"shadow centers m \(on all n rows\)\s+(\d[\d,]*)", sidebar)
    assert found, sidebar
    return int(found.group(1).replace(",", ""))


def caption_m(caption: str) -> int:
    found = re.match(r"m = (\d[\d,]*) shadow centers? of all ", caption)
    assert found, caption
    return int(found.group(1).replace(",", ""))


#: The chart's figure as the browser holds it: its title, its panels' titles and, per trace, its type, name
#: and subplot.
_FIGURE = """(key) => {
  """ + PLOT_OF_KEY + """
  const gd = plotOf(key);
  if (!gd || !gd.data || !gd.layout) return null;
  return {title: gd.layout.title && gd.layout.title.text,
          panels: (gd.layout.annotations || []).map((a) => a.text),
          traces: gd.data.map((t) => ({type: t.type, name: t.name,
                                       subplot: (t.xaxis || 'x') + (t.yaxis || 'y')}))};
}"""


def figure(page, key: str) -> dict:
    chart_frame(page, key).locator(".js-plotly-plot").first.wait_for(state="attached")
    page.wait_for_function("(key) => { " + PLOT_OF_KEY + " const gd = plotOf(key); return !!(gd && gd.data); }",
                           arg=key)
    return page.evaluate(_FIGURE, key)


def _grid(page, key: str):
    """The accessibility table (role="grid", hidden) that Streamlit's data frame keeps beside its canvas, of the table
    shown with key ``key`` (rskpca.ui.widgets.show_table: the data frame, then its CSV download keyed
    ``{key}__csv``; a data frame's own element has no key class)."""
    grid = (page.locator(f".st-key-{key}__csv").locator("xpath=preceding-sibling::*[1]")
            .get_by_test_id("stDataFrame").locator("table[role=grid]"))
    grid.wait_for(state="attached")
    return grid


def table_rows(page, key: str) -> int:
    """How many data rows the table with key ``key`` holds (its grid's aria-rowcount, less the header)."""
    return int(_grid(page, key).get_attribute("aria-rowcount")) - 1


def table_records(page, key: str) -> list[dict]:
    """The rows of the table with key ``key`` that its accessibility table holds (the rows in view: keep the
    table short), as dicts of column name to the text of the cell."""
    cells = _grid(page, key).evaluate(
        "t => [...t.querySelectorAll('tr')].map(tr => [...tr.children].map(c => c.textContent.trim()))")
    header, *rows = cells
    return [dict(zip(header, row)) for row in rows]


def selected_count(page) -> int | None:
    """The count the sidebar states ("Selected: N rows"), or None without a selection."""
    found = re.search(r"Selected:\s*(\d+)\s*rows", page.get_by_test_id("stSidebar").inner_text())
    return int(found.group(1)) if found else None


def test_embeddings_fit_all_rows_draw_densities_select_rows_and_follow_ell(scale_server, app_page):
    page = app_page
    open_page(page, scale_server, r"embedding")

    caption = embeddings_caption(page)
    assert f"of all {N} rows" in caption, caption
    assert f"RSKPCA and the O(nm) baselines are fitted on all {N} rows, every row embedded" in caption, caption
    assert f"exact KPCA on a seeded sample of {EXACT_SAMPLE:,} rows" in caption, caption
    assert f"on all {N} rows its kernel matrix alone would need" in caption, caption
    m = caption_m(caption)
    assert 2 <= m < ROWS and m == sidebar_m(page), (caption, sidebar_m(page))

    # The chart: the all-rows panels as densities of all 30,000 rows, exact KPCA's sample as points.
    assert assert_charts_render(page, "embeddings") >= 1
    drawn = figure(page, "emb_scatter")
    bins = plots.density_bins(ROWS)  # about two rows a bin (at most 200 a side)
    assert drawn["title"] and drawn["title"].startswith(f"density of {N} rows in {bins} x {bins} bins"), drawn["title"]
    assert f"{m:,} shadow centers on top" in drawn["title"], drawn["title"]
    # The density is an image in the classes' colours (743b4c3). Exact KPCA's panel (the first, subplot xy)
    # shows its seeded sample, as points or, when they crowd the panel, as their density (9fdf2c5).
    densities = [t for t in drawn["traces"] if t["type"] == "image" and t["name"] == "density"
                 and t["subplot"] != "xy"]
    assert len(densities) >= 2, drawn["traces"]  # RSKPCA's panel and the baselines' (on all rows too)
    assert re.search(rf"^Exact KPCA.*seeded sample of {EXACT_SAMPLE:,} rows", drawn["panels"][0], re.S), drawn["panels"]
    assert "a panel draws the density of its rows" in main_text(page)
    assert_no_exception(page, "embeddings")
    shoot(page, "scale-01-embeddings")

    # A box on the first density panel selects the rows inside it: every row, not the points drawn.
    assert selected_count(page) is None
    box_select(page, "emb_scatter", frac=(0.02, 0.02, 0.98, 0.6), subplot=densities[0]["subplot"])
    # the selection's run may start a moment after the mouse is let go (later on a loaded machine)
    page.get_by_test_id("stSidebar").get_by_text(re.compile(r"^Selected: \d+ rows")).wait_for()
    wait_for_app_run(page)
    assert_no_exception(page, "embeddings-after-box")
    count = selected_count(page)
    assert count is not None and 10 * m < count < ROWS, f"{count} rows selected, {m} centers drawn: pixels, not rows?"
    main = page.get_by_test_id("stMain")
    main.get_by_text(f"Selected rows ({count})", exact=True).wait_for()
    assert table_rows(page, "selection_table") == count, "the selected-rows table does not hold the selected rows"
    shown = table_records(page, "selection_table")
    assert shown and {"row", "f0", f"f{COLUMNS - 1}", "label"} <= set(shown[0]), shown[:2]
    assert all(0 <= int(rec["row"]) < ROWS and rec["label"] in {str(c) for c in range(CLASSES)} for rec in shown), \
        shown[:5]
    # the density panels draw the selection as a histogram of its own, on top
    page.wait_for_function("(key) => { " + PLOT_OF_KEY + " const gd = plotOf(key); "
                           "return !!(gd && gd.data && gd.data.some((t) => t.name === 'selected')); }",
                           arg="emb_scatter")
    kinds = figure(page, "emb_scatter")["traces"]
    assert {"type": "heatmap", "name": "selected", "subplot": densities[0]["subplot"]} in kinds, kinds
    shoot(page, "scale-02-embeddings-selected")

    # ell moved with the keyboard: a new m, still every row.
    ell = float(ell_value(page))
    move_ell(page, 1)
    assert float(ell_value(page)) == pytest.approx(ell + 0.1), f"ell did not move: {ell} -> {ell_value(page)}"
    page.wait_for_function(
        "(m) => [...document.querySelectorAll(\"[data-testid='stCaptionContainer']\")]"
        ".some((c) => /^m = \\d/.test(c.innerText) && !c.innerText.startsWith('m = ' + m + ' '))", arg=m)
    moved = embeddings_caption(page)
    assert caption_m(moved) != m, f"m did not follow ell: {caption} -> {moved}"
    assert caption_m(moved) == sidebar_m(page), (moved, sidebar_m(page))
    assert f"fitted on all {N} rows, every row embedded" in moved, moved
    assert_no_exception(page, "embeddings-after-ell")
    assert assert_charts_render(page, "embeddings-after-ell") >= 1
    assert figure(page, "emb_scatter")["title"].startswith(f"density of {N} rows"), "the density is gone"
    shoot(page, "scale-03-embeddings-ell-moved")
    assert not page.page_errors, f"JavaScript errors: {page.page_errors[:5]}"


def test_speedups_time_rskpca_on_all_rows_and_predict_exact_kpca(scale_server, app_page):
    page = app_page
    # a time budget for exact KPCA's ladder of sizes that a busy CI core fits two sizes in (the second size may take
    # four times the budget: under CI's load a 500-row fit over 0.25 s stopped the ladder at one size before)
    open_page(page, scale_server, r"speed", query="exact_s=1.0")
    assert re.search(r"[?&]exact_s=1(\.0)?(&|$)", page.url), page.url  # the link's budget is the one in use
    main = page.get_by_test_id("stMain")
    main.get_by_text(f"At the size of the data in use: n = {N} rows").wait_for()
    metrics = main.get_by_test_id("stMetric")
    rskpca = metrics.filter(has_text="RSKPCA fit, all rows")
    rskpca.first.wait_for()
    assert re.search(r"\d(\.\d+)? m?s\b", rskpca.first.inner_text()), rskpca.first.inner_text()
    predicted = metrics.filter(has_text="Exact KPCA fit, predicted")
    assert predicted.count() == 1, [metrics.nth(i).inner_text() for i in range(metrics.count())]
    assert metrics.filter(has_text="Fit speedup, predicted").count() == 1
    text = main_text(page)
    sizes = re.search(r"Exact KPCA measured on seeded nested samples of ([\d, ]+) rows", text)
    assert sizes, text[:3000]
    measured = [int(s.replace(",", "")) for s in re.findall(r"\d[\d,]*\d|\d", sizes.group(1))]
    assert measured and max(measured) < ROWS, sizes.group(0)
    assert "Fit time: " in text and "exponent b = " in text, "no power law was fitted"
    assert f"RSKPCA: measured at the same sizes and on all {N} rows" in text
    # The table: a row per size measured, then the full n, whose exact KPCA numbers are predicted and
    # whose RSKPCA numbers are measured on all rows (with the sidebar's m).
    ladder = table_records(page, "speed_scale_table")
    assert len(ladder) == table_rows(page, "speed_scale_table") >= 3, ladder  # two sizes or more, and all n
    *smaller, full = ladder
    assert (full["n"], full["rows"], full["exact_kpca"]) == (str(ROWS), "all rows", "predicted"), full
    assert int(full["rskpca_m"]) == sidebar_m(page), (full, sidebar_m(page))
    assert 0 < float(full["rskpca_fit_s"]) < float(full["exact_fit_s"]), full
    assert [int(row["n"]) for row in smaller] == measured, (smaller, measured)
    assert {row["exact_kpca"] for row in smaller} == {"measured"}, smaller
    assert_charts_render(page, "speedups")
    assert_no_exception(page, "speedups")
    shoot(page, "scale-04-speedups")
    assert not page.page_errors, f"JavaScript errors: {page.page_errors[:5]}"


def test_bounds_are_computed_on_all_rows(scale_server, app_page):
    page = app_page
    open_page(page, scale_server, r"bounds")
    main = page.get_by_test_id("stMain")
    caption = main.get_by_test_id("stCaptionContainer").filter(has_text=re.compile(r"^Rows: "))
    caption.first.wait_for()
    words = caption.first.inner_text()
    assert f"the a-posteriori bounds of Theorems 5.1-5.3 on all n = {N} rows" in words, words
    assert re.search(r"against exact KPCA on a seeded sample of \d[\d,]* rows", words), words
    # The table: Theorems 5.1-5.3 have an a-posteriori value, on all rows (5.4's needs exact KPCA's eigengap).
    table = {row["theorem"]: row for row in table_records(page, "bounds_table")}
    # the sentences a cell would cut off are said in the captions, and kept in the CSV only
    assert not {"rows", "note"} & set(table["5.1"]), table["5.1"]
    for theorem in ("5.1", "5.2", "5.3"):
        row = table[theorem]
        assert row["bound on"] == f"all {N} rows", row
        assert float(row["a_posteriori"]) > 0, row
        assert int(row["m"]) == sidebar_m(page), (row, sidebar_m(page))
    assert assert_charts_render(page, "bounds") >= 1
    assert_no_exception(page, "bounds")
    shoot(page, "scale-05-bounds")
    assert not page.page_errors, f"JavaScript errors: {page.page_errors[:5]}"
