"""Linked selections in a real browser: a box dragged on one page's chart highlights the same rows on the others.

``streamlit run app.py`` driven by Playwright through Debian's Chromium, with the
server, browser and waiting helpers of ``tests/test_e2e.py`` (imported from it, so
this file skips with it where Playwright or Chromium is missing). The rows a chart
highlights are read from the Plotly graph in the page (``gd.data``: the traces named
"selected" and the row numbers in their ``customdata``), so the test checks what the
browser draws, not what the server meant to send.
"""

from __future__ import annotations

import re
import warnings

import pytest

from test_e2e import (  # noqa: F401 - fixtures are used by name
    app_page,
    app_server,
    PLOT_OF_KEY,
    assert_no_exception,
    chart_frame,
    chromium_browser,
    go_to,
    nav_links,
    shoot,
    wait_for_app_run,
)

pytestmark = pytest.mark.e2e

#: Row numbers in the "selected" traces of the chart with this key, as the browser holds them.
_HIGHLIGHTED_JS = """(key) => {
  """ + PLOT_OF_KEY + """
  const gd = plotOf(key);
  if (!gd || !gd.data) return null;
  // Numeric arrays travel base64-encoded ({bdata, dtype, shape}); strings as plain arrays of rows.
  const TYPES = {i1: Int8Array, u1: Uint8Array, i2: Int16Array, u2: Uint16Array, i4: Int32Array,
                 u4: Uint32Array, f4: Float32Array, f8: Float64Array};
  const firstColumn = (cd) => {
    if (Array.isArray(cd)) return cd.map((c) => Number(Array.isArray(c) ? c[0] : c));
    const raw = Uint8Array.from(atob(cd.bdata), (ch) => ch.charCodeAt(0));
    const values = new TYPES[cd.dtype](raw.buffer);
    const width = cd.shape ? Number(String(cd.shape).split(',')[1] || 1) : 1;
    return Array.from({length: values.length / width}, (_, i) => Number(values[i * width]));
  };
  const rows = new Set();
  for (const t of gd.data) {
    if (t.name === 'selected' && t.customdata) firstColumn(t.customdata).forEach((r) => rows.add(r));
  }
  return [...rows].sort((a, b) => a - b);
}"""


def highlighted(page, key: str) -> list[int] | None:
    """The rows chart ``key`` draws as selected (None while it is not drawn)."""
    # A live chart's frame below the fold may not draw until it is scrolled into view (the Data page's did not
    # within 120 s after a page switch; it drew once a screenshot had grown the viewport over it).
    page.locator(f".st-key-{key}").scroll_into_view_if_needed()
    chart_frame(page, key).locator(".js-plotly-plot").first.wait_for(state="attached")
    page.wait_for_function("(key) => { " + PLOT_OF_KEY + " const gd = plotOf(key); return gd && gd.data; }", arg=key)
    return page.evaluate(_HIGHLIGHTED_JS, key)


def box_select(page, key: str, frac=(0.15, 0.15, 0.6, 0.85), subplot: str | None = None) -> None:
    """Drag a box over the plot area of chart ``key``, its first subplot or ``subplot`` ("x2y2"; the charts
    open in "select" drag mode)."""
    page.locator(f".st-key-{key}").scroll_into_view_if_needed()
    wait_for_chart_drawn(page, key)
    drag = ".nsewdrag" if subplot is None else f".nsewdrag[data-subplot='{subplot}']"  # a plot area's drag layer
    area = chart_frame(page, key).locator(drag).first
    area.wait_for(state="attached")
    box = area.bounding_box()
    x0, y0 = box["x"] + frac[0] * box["width"], box["y"] + frac[1] * box["height"]
    x1, y1 = box["x"] + frac[2] * box["width"], box["y"] + frac[3] * box["height"]
    page.mouse.move(x0, y0)
    page.mouse.down()
    for i in range(1, 9):  # in steps, as a hand drags: plotly draws the box as the mouse moves
        page.mouse.move(x0 + (x1 - x0) * i / 8, y0 + (y1 - y0) * i / 8)
    page.mouse.up()
    wait_for_selection(page)


def wait_for_chart_drawn(page, key: str) -> None:
    """Wait until chart ``key`` has drawn its newest figure (none waiting, none being drawn): a box dragged
    while Plotly replaces the figure can lose its drag layer under the mouse.

    Best effort: in full runs of the suite (three Chromium workers on two cores) the chart still said it
    was drawing after 30-60 s (``{"plotted":true,"drawing":"1"}``: its first draw's promise pending), which
    the test alone under three CPU burners never showed. The chart now listens for selections from the
    start of its first draw and keeps a box let go of during a drawing (live_chart.html), so the test goes
    on after 30 s, with the chart's state in a warning, and judges the selection itself."""
    script = ("(key) => { " + PLOT_OF_KEY + " const gd = plotOf(key); return gd && gd.data && "
              "(gd.dataset.drawing || '0') === '0' && !gd.dataset.deferred; }")
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    try:
        page.wait_for_function(script, arg=key, timeout=30_000)
    except PlaywrightTimeout:
        state = page.evaluate("(key) => { " + PLOT_OF_KEY + " const gd = plotOf(key); return gd ? "
                              "JSON.stringify(Object.assign({plotted: Boolean(gd.data)}, gd.dataset)) : null; }", key)
        warnings.warn(f"chart {key} had not finished drawing after 30 s: {state}", stacklevel=2)


def wait_for_selection(page) -> None:
    """Wait until the sidebar states a selection, then for the rerun to end. On a loaded machine the chart's
    selection event can reach the server after a plain wait for the rerun has already returned, and the
    rerun it starts (Embeddings at 5,000 rows) took over 30 s in a CI run that shared the cores."""
    page.wait_for_function("() => /Selected:\\s*\\d+\\s*rows/.test("
                           "document.querySelector(\"[data-testid='stSidebar']\").innerText)", timeout=60_000)
    wait_for_app_run(page)


def selected_count(page) -> int | None:
    """The count the sidebar states ("Selected: N rows"), or None without a selection."""
    found = re.search(r"Selected:\s*(\d+)\s*rows", page.get_by_test_id("stSidebar").inner_text())
    return int(found.group(1)) if found else None


def _label(page, pattern: str) -> str:
    return next(lab for lab in nav_links(page) if re.search(pattern, lab, re.I))


def test_a_box_selection_on_one_page_highlights_the_same_rows_on_the_others(app_server, app_page):
    page = app_page
    page.goto(app_server)
    page.get_by_test_id("stAppViewContainer").wait_for()
    wait_for_app_run(page)

    # Select on the Shadow centers page: the data coloured by shadow set.
    go_to(page, _label(page, r"shadow"))
    assert highlighted(page, "shadow_scatter") == []
    box_select(page, "shadow_scatter")
    assert_no_exception(page, "shadow-after-select")
    rows = highlighted(page, "shadow_scatter")
    count = selected_count(page)
    shoot(page, "sel-01-shadow-selected")
    assert rows, "the box selection highlighted nothing on the chart it was made on"
    assert count == len(rows), f"the sidebar says {count} rows, the chart outlines {len(rows)}"
    main = page.get_by_test_id("stMain")
    assert main.get_by_text(re.compile(rf"Selected rows \({count}\)")).count() == 1
    assert main.get_by_text(re.compile(r"Centers that absorbed the selection")).count() == 1

    # The same rows on the Embeddings page (every panel).
    go_to(page, _label(page, r"embedding"))
    assert_no_exception(page, "embeddings-with-selection")
    assert highlighted(page, "emb_scatter") == rows
    assert selected_count(page) == count
    shoot(page, "sel-02-embeddings-highlighted")

    # A selection made here (a chart inside a fragment) replaces it, and the whole page follows:
    # the sidebar and the table outside the fragment show the new rows too.
    box_select(page, "emb_scatter", frac=(0.05, 0.05, 0.9, 0.45))
    assert_no_exception(page, "embeddings-after-select")
    rows2 = highlighted(page, "emb_scatter")
    assert rows2 and rows2 != rows, "the second box selection did not replace the first"
    assert selected_count(page) == len(rows2)
    assert main.get_by_text(re.compile(rf"Selected rows \({len(rows2)}\)")).count() == 1
    shoot(page, "sel-03-embeddings-selected")

    # On the Data page's view: the new rows; then one click clears the selection everywhere.
    go_to(page, _label(page, r"^\s*data\s*$"))
    assert highlighted(page, "data_scatter") == rows2
    shoot(page, "sel-04-data-highlighted")
    page.get_by_test_id("stSidebar").get_by_role("button", name=re.compile("Clear selection")).click()
    wait_for_app_run(page)
    assert selected_count(page) is None
    assert highlighted(page, "data_scatter") == []
    go_to(page, _label(page, r"shadow"))
    assert highlighted(page, "shadow_scatter") == []
    assert not page.page_errors, f"JavaScript errors: {page.page_errors[:5]}"


def test_a_box_on_a_density_panel_selects_the_rows_inside_it_not_the_points_drawn(app_server, app_page):
    # 5,000 rows: the Embeddings panels of all rows hold more than their share of the point budget and
    # draw densities (bins, not points); a box on one must select every row inside it, server side.
    import numpy as np
    import pandas as pd
    from test_e2e import upload

    rng = np.random.default_rng(0)
    means = np.array([[0.0, 0.0], [4.0, 0.0], [0.0, 4.0]])
    lab = rng.integers(0, 3, size=5000)
    X = means[lab] + rng.normal(scale=0.6, size=(5000, 2))
    data = pd.DataFrame({"a": X[:, 0].round(4), "b": X[:, 1].round(4), "label": lab}).to_csv(index=False).encode()
    page = app_page
    page.goto(app_server)
    page.get_by_test_id("stAppViewContainer").wait_for()
    wait_for_app_run(page)
    go_to(page, _label(page, r"^\s*data\s*$"))
    upload(page, data, "blobs5000.csv")
    go_to(page, _label(page, r"embedding"))
    assert_no_exception(page, "embeddings-5000")
    frame = chart_frame(page, "emb_scatter")
    frame.locator(".js-plotly-plot").first.wait_for(state="attached")
    page.wait_for_function("(key) => { " + PLOT_OF_KEY + " const gd = plotOf(key); return gd && gd.data; }",
                           arg="emb_scatter")
    kinds = page.evaluate("(key) => { " + PLOT_OF_KEY + " return plotOf(key).data.map((t) => [t.type, t.name]); }",
                          "emb_scatter")
    # the rows' density is an image in their classes' colours (plotting._density_drawing), the centers on top
    assert ["image", "density"] in kinds and ["scattergl", "shadow centers"] in kinds, kinds
    # the centers as drawn (plotly's full data holds the decoded arrays)
    centers = page.evaluate("(key) => { " + PLOT_OF_KEY + " const t = plotOf(key)._fullData.find((t) => t.name === "
                            "'shadow centers'); return t.x.length; }", "emb_scatter")
    wait_for_app_run(page)
    # drag over most of the second panel (the first density panel: ShDE + RSKPCA on all rows)
    page.locator(".st-key-emb_scatter").scroll_into_view_if_needed()
    wait_for_chart_drawn(page, "emb_scatter")
    area = frame.locator(".nsewdrag").nth(1)
    box = area.bounding_box()
    page.mouse.move(box["x"] + 0.02 * box["width"], box["y"] + 0.02 * box["height"])
    page.mouse.down()
    for i in range(1, 9):
        page.mouse.move(box["x"] + (0.02 + 0.5 * i / 8) * box["width"], box["y"] + (0.02 + 0.96 * i / 8) * box["height"])
    page.mouse.up()
    wait_for_selection(page)
    assert_no_exception(page, "embeddings-density-select")
    count = selected_count(page)
    shoot(page, "sel-05-density-selected")
    assert count is not None and count > 5 * centers, f"{count} rows selected, {centers} centers drawn: pixels, not rows?"
    kinds = page.evaluate("(key) => { " + PLOT_OF_KEY + " return plotOf(key).data.map((t) => [t.type, t.name]); }",
                          "emb_scatter")
    assert ["heatmap", "selected"] in kinds, kinds
    assert not page.page_errors, f"JavaScript errors: {page.page_errors[:5]}"
