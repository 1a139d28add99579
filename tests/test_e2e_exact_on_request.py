"""In Chromium: exact KPCA on all n rows, matrix-free, on request (Embeddings), stopped and then finished.

Streamlit stops a running script at its next st call once a widget is used; the run's progress bar is
that call. This checks it in a real server: on 10,000 rows the run is offered, started, stopped with its
Stop button (the page then says so and keeps exact KPCA on the seeded sample), and started again to the
end (the page then says exact KPCA is on all 10,000 rows).
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest
from test_e2e import (app_page, app_server, assert_no_exception, chromium_browser, go_to, shoot,  # noqa: F401
                      upload, wait_for_app_run)

pytestmark = pytest.mark.e2e

ROWS = 10_000


def _mixture_csv() -> bytes:
    rng = np.random.default_rng(0)
    means = rng.normal(0.0, 4.0, size=(6, 3))
    X = means[rng.integers(0, 6, size=ROWS)] + rng.normal(size=(ROWS, 3))
    return pd.DataFrame(X.round(4), columns=["a", "b", "c"]).to_csv(index=False).encode()


def test_the_matrix_free_run_stops_on_its_button_and_finishes_when_left(app_server, app_page):  # noqa: F811
    page = app_page
    page.goto(app_server)
    page.get_by_test_id("stAppViewContainer").wait_for()
    wait_for_app_run(page)
    go_to(page, "Data")
    upload(page, _mixture_csv(), "mixture.csv")
    go_to(page, "Embeddings")
    assert_no_exception(page, "embeddings")
    main = page.get_by_test_id("stMain")
    go = main.get_by_role("button", name=re.compile("Run exact KPCA on all"))
    assert re.search(rf"Run exact KPCA on all {ROWS:,} rows, matrix-free \(predicted about .+, memory .+\)",
                     go.inner_text()), go.inner_text()

    go.click()
    bar = main.get_by_test_id("stProgress")
    bar.filter(has_text="products with the kernel matrix").wait_for()
    text = bar.inner_text()
    assert re.search(r"of about \d+ products .* so far, about .+ left", text), text
    shoot(page, "exact-all-running")
    main.get_by_role("button", name=re.compile("^Stop")).first.click()
    wait_for_app_run(page)
    assert_no_exception(page, "embeddings-stopped")
    body = main.inner_text()
    assert re.search(rf"Exact KPCA on all {ROWS:,} rows was stopped after \d+ of about \d+ products", body), body[:3000]
    assert "seeded sample of 2,000 rows" in body
    assert not bar.count()
    shoot(page, "exact-all-stopped")

    go.click()
    bar.filter(has_text="products with the kernel matrix").wait_for()
    main.get_by_text(f"exact KPCA on all {ROWS:,} rows, matrix-free").first.wait_for(timeout=300_000)
    wait_for_app_run(page)
    assert_no_exception(page, "embeddings-finished")
    body = main.inner_text()
    assert f"exact KPCA on all {ROWS:,} rows, matrix-free" in body, body[:3000]
    assert f"Alignment errors and spectra compare on all {ROWS:,} rows" in body
    shoot(page, "exact-all-finished")
