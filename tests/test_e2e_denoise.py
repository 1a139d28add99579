"""End to end in Chromium: the Denoise page draws its image strips (reuses tests/test_e2e.py's fixtures)."""

from __future__ import annotations

import pytest

# Importing the module applies its skips (no Playwright, no Chromium) to this one too.
from test_e2e import (  # noqa: F401  (fixtures are used by name)
    app_page,
    app_server,
    LIVE_CHARTS,
    assert_charts_render,
    assert_no_exception,
    chromium_browser,
    go_to,
    nav_links,
    shoot,
    wait_for_app_run,
)

pytestmark = pytest.mark.e2e


def test_denoise_page_renders_images(app_server, app_page):
    page = app_page
    page.goto(f"{app_server}/?dataset=digits&ell=2&r=8")
    wait_for_app_run(page)
    assert "Denoise" in nav_links(page)
    go_to(page, "Denoise")
    assert_no_exception(page, "denoise")
    assert assert_charts_render(page, "denoise") == 1
    chart = page.frame_locator(LIVE_CHARTS).first
    # Plotly draws each heatmap as an <image> inside its SVG: clean + noisy + four methods.
    images = chart.locator("g.hm image")
    images.nth(5).wait_for(state="attached")
    assert images.count() == 6
    for label in ("noisy input", "linear PCA", "exact KPCA", "RSKPCA", "Nystrom"):
        assert page.get_by_test_id("stMetric").filter(has_text=label).count() == 1, label
    shoot(page, "denoise")
    assert not page.page_errors, page.page_errors
