"""End to end in Chromium on a corpus of realistic files (tests/corpus.py, generated): every page, no exception.

Each file of BROWSER_FILES is served as a user serves it, ``python -m rskpca app FILE`` (one server per file, shared by its
tests); Chromium opens the app, visits every page of the menu (and the Spectral page's clustering) and finds
no exception element. A link round trip: the label choice and the Spectral page's method and k, set in one
session, come back in a new session opened on the address bar's link.
"""

from __future__ import annotations

import re

import pytest

from corpus import CORPUS, write_corpus_file
# Importing the module applies its skips (no Playwright, no Chromium) to this one too.
from test_e2e import (  # noqa: F401  (fixtures are used by name)
    RUN_TIMEOUT_MS,
    app_page,
    assert_no_exception,
    chromium_browser,
    go_to,
    nav_links,
    serve,
    shoot,
    sync_api,
    wait_for_app_run,
)

pytestmark = pytest.mark.e2e


#: The file Chromium visits: the text label of 100 classes, the largest label of the corpus (a many-class label
#: is what switches the charts' colouring). Every corpus file runs every page in AppTest (tests/test_corpus_pages.py),
#: the label with missing values included (its rows kept, the label "(missing)"); a server and a browser
#: per file is the costliest setup of the suite (`pytest --durations=20` lists it), so one file visits in Chromium.
BROWSER_FILES = ("classes_100",)


@pytest.fixture(scope="module", params=[name for name in CORPUS if name in BROWSER_FILES])
def corpus_server(request, tmp_path_factory):
    """``(name, base URL)`` of ``python -m rskpca app FILE`` on the corpus file ``name``."""
    name = request.param
    path = write_corpus_file(name, tmp_path_factory.mktemp(name))
    server = serve(f"corpus_{name}.log", script_args=[path], cli=True)
    url = next(server)
    yield name, url
    for _ in server:  # stops the server, keeps its log
        pass


def _choose_method(page, label: str) -> None:
    page.locator(".st-key-sp_method").get_by_text(label, exact=True).click()
    wait_for_app_run(page)


def test_every_page_opens_without_an_exception(corpus_server, app_page):
    name, url = corpus_server
    page = app_page
    page.goto(url)
    page.get_by_test_id("stAppViewContainer").wait_for()
    wait_for_app_run(page)
    assert_no_exception(page, f"{name}: home")
    # the file is what the app shows (expect retries: the first run can still be drawing the sidebar)
    sync_api.expect(page.get_by_test_id("stSidebar")).to_contain_text(f"Showing: File {name}.csv",
                                                                      timeout=RUN_TIMEOUT_MS)
    for label in nav_links(page)[1:]:
        go_to(page, label)
        assert_no_exception(page, f"{name}: {label}")
        if label == "Spectral":
            _choose_method(page, "Spectral clustering")
            assert_no_exception(page, f"{name}: Spectral clustering")
    assert not page.page_errors, f"{name}: JavaScript errors: {page.page_errors[:5]}"
    shoot(page, f"corpus-{name}-spectral")


def test_a_link_brings_back_the_label_choice_and_the_spectral_k(corpus_server, app_page, chromium_browser):
    name, url = corpus_server
    if name != "classes_100":
        pytest.skip("the link round trip runs on the 100-class file")
    page = app_page
    page.goto(url)
    wait_for_app_run(page)
    go_to(page, "Data")
    page.locator(".st-key-label_column").get_by_test_id("stSelectbox").click()
    page.get_by_role("option", name="(no label column)", exact=True).click()
    wait_for_app_run(page)
    go_to(page, "Spectral")
    _choose_method(page, "Spectral clustering")
    k = page.locator(".st-key-sp_clusters input")
    k.fill("5")
    k.press("Enter")
    wait_for_app_run(page)
    assert_no_exception(page, f"{name}: k = 5")
    link = page.url
    assert re.search(r"[?&]k=5(&|$)", link) and re.search(r"[?&]label=(&|$)", link), link

    context = chromium_browser.new_context(viewport={"width": 1400, "height": 1000})
    try:
        other = context.new_page()
        other.set_default_timeout(RUN_TIMEOUT_MS)
        other.goto(link)
        other.get_by_test_id("stAppViewContainer").wait_for()
        wait_for_app_run(other)
        assert_no_exception(other, f"{name}: the link opened")
        # (expect retries: the widgets of the first run can show before its values settle)
        sync_api.expect(other.locator(".st-key-sp_clusters input")).to_have_value("5", timeout=60_000)
        sync_api.expect(other.locator(".st-key-sp_method").get_by_role("radio", name="Spectral clustering")
                        ).to_be_checked(timeout=60_000)
        go_to(other, "Data")
        sync_api.expect(other.locator(".st-key-label_column").get_by_role("combobox")).to_have_value(
            "(no label column)", timeout=60_000)
        assert not other.get_by_test_id("stAlert").filter(has_text="from the link").count()  # nothing refused
    finally:
        context.close()
