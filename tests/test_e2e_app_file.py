"""End to end in Chromium: ``rskpca app FILE`` serves the app with FILE as the data in use.

The server is started as a user starts it (``python -m rskpca app FILE --server.port ...``), on a small
generated CSV whose name markdown would mangle; the sidebar must name it as text, the data in use must
be its rows, and Shadow centers must draw its charts. Once from this checkout, once from the wheel
installed with ``[app]`` in a fresh virtualenv (tests/wheel_venv.py), where no checkout is.
"""

from __future__ import annotations

import subprocess

import numpy as np
import pandas as pd
import pytest
from test_library_without_app import fresh_virtualenv_check
from wheel_venv import app_venv

# Importing the module applies its skips (no Playwright, no Chromium) to this one too.
from test_e2e import (  # noqa: F401  (fixtures are used by name)
    app_page,
    assert_charts_render,
    assert_no_exception,
    chromium_browser,
    go_to,
    nav_links,
    serve,
    shoot,
    wait_for_app_run,
)

pytestmark = pytest.mark.e2e

ROWS = 300


@pytest.fixture(scope="module")
def data_file(tmp_path_factory):
    rng = np.random.default_rng(3)
    label = rng.integers(0, 3, ROWS)
    X = np.array([[0, 0], [5, 0], [0, 5]])[label] + rng.normal(0, 0.6, (ROWS, 2))
    path = tmp_path_factory.mktemp("data") / "e2e_*blobs*_file.csv"
    pd.DataFrame({"x": X[:, 0].round(5), "y": X[:, 1].round(5), "label": label}).to_csv(path, index=False)
    return path


@pytest.fixture(scope="module")
def file_server(data_file):
    """Base URL of ``python -m rskpca app FILE`` on a free loopback port (its log kept in test-artifacts/e2e)."""
    yield from serve("app_file_server.log", script_args=[data_file], cli=True)


@pytest.fixture(scope="module")
def wheel_server(data_file):
    """Base URL of ``rskpca app FILE`` run by the wheel installed with [app] in a fresh virtualenv."""
    python = app_venv()
    [app] = python.parent.parent.glob("lib/python*/site-packages/rskpca/_app/app.py")
    found = subprocess.run([python, "-c", "from rskpca.cli._app import find_app; print(find_app())"],
                           capture_output=True, text=True, cwd=data_file.parent, check=True).stdout.strip()
    assert found == str(app), found  # the copy the wheel carries, not this checkout's app.py
    yield from serve("app_wheel_server.log", app=app, script_args=[data_file], cli=True, python=python)


def test_a_fresh_virtualenv_with_the_wheel_alone_runs_the_library_without_the_app(tmp_path):
    """pip install "rskpca-*.whl" without extras: the library works and ``rskpca app`` names the extra (the check
    is tests/test_library_without_app.py's; run here to share this file's wheel and virtualenv). First in the
    file: the [app] virtualenv is a copy of this one, made later, and so starts with the compiled loops that
    numba cached here on the library's first run (the app's first page then does not compile them again)."""
    fresh_virtualenv_check(tmp_path)


def test_the_sidebar_names_the_file_and_shadow_centers_draws_it(file_server, data_file, app_page):
    _the_file_is_the_data_in_use(app_page, file_server, data_file, "app-file")


def test_the_app_from_the_wheel_serves_the_file(wheel_server, data_file, app_page):
    """pip install "rskpca-*.whl[app]" in a fresh virtualenv, then rskpca app FILE: the app the wheel carries."""
    _the_file_is_the_data_in_use(app_page, wheel_server, data_file, "app-wheel")


def _the_file_is_the_data_in_use(page, url, data_file, shots):
    page.goto(url)
    page.get_by_test_id("stAppViewContainer").wait_for()
    wait_for_app_run(page)
    assert_no_exception(page, "home")
    sidebar = page.get_by_test_id("stSidebar")
    sidebar.get_by_text(f"Showing: File {data_file.name}", exact=True).wait_for()  # text: the asterisks stay
    assert not sidebar.locator("em, strong").filter(has_text="blobs").count(), "the file name was read as markdown"
    assert f"n = {ROWS} rows" in sidebar.inner_text()
    shoot(page, f"{shots}-home")

    go_to(page, "Shadow centers")
    assert_no_exception(page, "shadow centers")
    assert assert_charts_render(page, "shadow centers") >= 1
    assert f"Showing: File {data_file.name}" in sidebar.inner_text()
    shoot(page, f"{shots}-shadow-centers")
    assert not page.page_errors, page.page_errors
    assert "Shadow centers" in nav_links(page)
