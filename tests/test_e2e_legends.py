"""In Chromium: a chart coloured by a 26-class label shows every class in its legend, without a scrollbar.

The figure builders size a chart from the legend's pixels per entry (``plotting._colouring.legend_height``);
only a browser says what those are. Seen: with a legend group per class plotly left 10 px between entries,
and a 26-class legend scrolled past Y on every Embeddings panel.
"""

from __future__ import annotations

import numpy as np
import plotly.io as pio
import pytest

from rskpca import plotting as plots
# Importing the module applies its skips (no Playwright, no Chromium) to this one too.
from test_e2e import chromium_browser  # noqa: F401  (a fixture, used by name)

pytestmark = pytest.mark.e2e

LETTERS = [chr(ord("A") + i) for i in range(26)]


FIGURES = ("data, points", "data, density", "embeddings, with centers", "embeddings, density")


def _figure(name):
    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(520, 2)), np.array(LETTERS * 20)
    big, y_big = rng.normal(size=(62_400, 2)), np.array(LETTERS * 2400)  # past the point budget: a density
    centers = (np.arange(40), np.ones(40))
    return {
        "data, points": plots.data_figure(X, y=y, label_name="letter"),
        "data, density": plots.data_figure(big, y=y_big, label_name="letter"),
        "embeddings, with centers": plots.embedding_figure({"ShDE + RSKPCA": X, "Exact KPCA": X}, y=y,
                                                           label_name="letter", centers=centers),
        "embeddings, density": plots.embedding_figure({"ShDE + RSKPCA": big}, y=y_big, label_name="letter"),
    }[name]


@pytest.mark.parametrize("name", FIGURES)
def test_a_26_class_legend_shows_every_class_without_scrolling(chromium_browser, tmp_path, name):  # noqa: F811
    fig = _figure(name)
    page_file = tmp_path / "chart.html"
    page_file.write_text(pio.to_html(fig, include_plotlyjs=True, full_html=True), encoding="utf-8")
    page = chromium_browser.new_page(viewport={"width": 1200, "height": 1400})
    try:
        page.goto(page_file.as_uri())
        page.locator(".legend .traces").first.wait_for()
        entries = page.evaluate("""() => {
            const box = document.querySelector('.legend .bg').getBoundingClientRect();
            const shown = [...document.querySelectorAll('.legend .traces')].filter(e => {
                const r = e.getBoundingClientRect();
                return r.height > 0 && r.top >= box.top - 1 && r.bottom <= box.bottom + 1;
            });
            const bar = document.querySelector('.legend .scrollbar');
            return {names: shown.map(e => e.textContent.trim()),
                    scrollbar: bar ? bar.getBoundingClientRect().height : 0};
        }""")
    finally:
        page.close()
    assert set(LETTERS) <= set(entries["names"]), entries
    assert entries["scrollbar"] == 0, entries
