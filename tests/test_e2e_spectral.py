"""End to end in Chromium: the Spectral page on a sample and on pendigits (reuses tests/test_e2e.py's fixtures).

On each: open the page, switch between the three methods, move ell, and check that every chart draws,
no exception element shows and no WebGL context is lost. Pendigits is read from
``$RSKPCA_DATASETS/pendigits.csv`` (default ``../shared/datasets`` beside the checkout) and uploaded on the
Data page, whose default row cap keeps every one of its 10,992 rows; the test skips, saying so, where the
file is missing.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

# Importing the module applies its skips (no Playwright, no Chromium) to this one too.
from test_e2e import (  # noqa: F401  (fixtures are used by name)
    REPO,
    app_page,
    app_server,
    assert_charts_render,
    assert_no_exception,
    chromium_browser,
    go_to,
    move_ell,
    nav_links,
    shoot,
    upload,
    wait_for_app_run,
)

pytestmark = pytest.mark.e2e

PENDIGITS = Path(os.environ.get("RSKPCA_DATASETS", REPO.parent / "shared" / "datasets")) / "pendigits.csv"
#: Charts per method: the embedding and the eigenvalues; clustering adds the clusters on the data
#: (reduced set, and exact where the exact method runs).
CHARTS = {"Diffusion map": 2, "Laplacian eigenmaps": 2}


def choose_method(page, label: str) -> None:
    page.locator(".st-key-sp_method").get_by_text(label, exact=True).click()
    wait_for_app_run(page)


def assert_page_well(page, where: str) -> int:
    assert_no_exception(page, where)
    n = assert_charts_render(page, where)
    assert not page.get_by_test_id("stAlert").filter(has_text=re.compile("could not be computed")).count(), where
    return n


def assert_no_lost_webgl(page) -> None:
    lost = [t for t in page.console_texts if re.search(r"too many active webgl contexts|context lost", t, re.I)]
    assert not lost, f"WebGL contexts were dropped: {lost[:3]}"
    assert not page.page_errors, f"JavaScript errors: {page.page_errors[:5]}"


def visit_every_method(page, name: str, *, exact: bool) -> None:
    """Each method in turn, an ell change on the clustering, each checked."""
    assert assert_page_well(page, f"{name}-diffusion") == CHARTS["Diffusion map"]
    shoot(page, f"spectral-{name}-diffusion")
    choose_method(page, "Spectral clustering")
    clusters = 4 if exact else 3
    assert assert_page_well(page, f"{name}-clustering") == clusters
    before = page.locator(".st-key-sp_cluster_view").bounding_box()
    move_ell(page, 3)
    assert assert_page_well(page, f"{name}-clustering-ell") == clusters
    assert page.locator(".st-key-sp_cluster_view").bounding_box() is not None and before is not None
    shoot(page, f"spectral-{name}-clustering")
    choose_method(page, "Laplacian eigenmaps")
    assert assert_page_well(page, f"{name}-eigenmaps") == CHARTS["Laplacian eigenmaps"]
    assert_no_lost_webgl(page)


def test_spectral_page_on_a_sample(app_server, app_page):
    page = app_page
    page.goto(f"{app_server}/?data=two_moons&ell=4")
    wait_for_app_run(page)
    # (the first run of a fresh server can still be drawing the sidebar when the page reads idle)
    page.get_by_test_id("stSidebar").get_by_test_id("stPageLink").first.wait_for()
    assert "Spectral" in nav_links(page)
    go_to(page, "Spectral")
    main = page.get_by_test_id("stMain")
    assert main.get_by_text(re.compile(r"Every number below is on all 1,000 rows")).count() == 1
    visit_every_method(page, "two_moons", exact=True)


def test_spectral_page_on_pendigits(app_server, app_page):
    if not PENDIGITS.is_file():
        pytest.skip(f"{PENDIGITS} is missing: set RSKPCA_DATASETS to the folder that holds pendigits.csv")
    page = app_page
    page.goto(app_server)
    wait_for_app_run(page)
    go_to(page, "Data")
    upload(page, PENDIGITS.read_bytes(), "pendigits.csv")
    assert_no_exception(page, "pendigits-data")
    sidebar = page.get_by_test_id("stSidebar").inner_text()
    assert re.search(r"n = 10,992 rows", sidebar), sidebar
    go_to(page, "Spectral")
    main = page.get_by_test_id("stMain")
    # 10,992 rows: the exact method is skipped, and the page says why; every row is embedded
    assert main.get_by_text(re.compile(r"The exact method \(every row its own center\) is skipped")).count() == 1
    visit_every_method(page, "pendigits", exact=False)
