"""The Spectral page at scale: embedding every row predicted above ALL_ROWS_ASK_S waits for the embed_all_rows
toggle (shared with the Embeddings page), saying what it would cost and drawing the centers' results meanwhile;
after the toggle it runs with a progress bar (above ALL_ROWS_PROGRESS_S) that is gone afterwards, and a rerun
reads the stored fit. A run stopped at the bar stores nothing. Thresholds lowered so a few thousand rows count.
"""

import hashlib
import json

import numpy as np
import pytest
from charts import chart_keys, chart_specs
from streamlit.testing.v1 import AppTest

from test_app import APP, TIMEOUT
from test_exact_on_request import N, mixture_npy, open_page  # noqa: F401 (a fixture)

import rskpca.ui.compute.all_rows_fits as fits
from rskpca.ui.compute import spectral as sp


def _spectral(data: bytes, method: str = "diffusion") -> AppTest:
    return open_page(data, "pages/10_Spectral.py", sp_method=method)


def _waiting(at) -> list:
    return [i.value for i in at.info if "waiting for your go-ahead" in i.value]


@pytest.fixture
def bars(monkeypatch):
    """Thresholds at 0 (every embedding asks first, then runs with a bar), empty stores; the bars drawn, listed."""
    import streamlit as st

    import rskpca.ui.progress as progress

    st.cache_resource.clear()  # a fit stored by an earlier test would skip the bar
    monkeypatch.setattr(fits, "ALL_ROWS_ASK_S", 0.0)
    monkeypatch.setattr(fits, "ALL_ROWS_PROGRESS_S", 0.0)
    monkeypatch.setattr(progress, "SHOW_BAR_S", 0.0)
    monkeypatch.setattr(sp, "SOLVE_S_PER_M2", 0.0)  # the m x m problem itself never asks here
    monkeypatch.setattr(sp, "SOLVE_S_PER_M2_D", 0.0)
    drawn = []

    class Panel(progress.ProgressPanel):
        def __init__(self, label, **kwargs):
            drawn.append(label)
            super().__init__(label, **kwargs)

    monkeypatch.setattr(progress, "ProgressPanel", Panel)
    return drawn


def test_spectral_asks_before_embedding_every_row_then_runs_with_a_bar_and_stores_it(monkeypatch, bars,
                                                                                      mixture_npy):
    at = _spectral(mixture_npy)
    (info,) = _waiting(at)
    assert f"Embedding all {N:,} rows through m = " in info and "no sample stands in" in info
    assert "eigenvalues" in info
    toggle = at.toggle(key="embed_all_rows")
    assert not toggle.value and "Spectral and Embeddings pages" in toggle.help
    # the centers' eigenvalues, and every row at its center's coordinates (the quantized data's embedding)
    assert chart_keys(at) == ["sp_embedding", "sp_eigenvalues"]
    assert "each row at its center's coordinates" in json.dumps(chart_specs(at)[0]["layout"])
    assert at.dataframe[0].value.shape[0] == 3
    assert not [b for b in at.get("download_button") if "every row's coordinates" in b.proto.label]
    assert not bars and not at.get("progress")

    at.toggle(key="embed_all_rows").set_value(True).run()
    assert not at.exception, [e.message for e in at.exception]
    assert not _waiting(at)
    assert chart_keys(at) == ["sp_embedding", "sp_eigenvalues"]
    (bar,) = bars
    assert bar.startswith("Diffusion map on m = ") and bar.endswith(f"every one of the {N:,} rows embedded")
    assert not at.get("progress"), "the progress bar is emptied after the run"
    assert at.toggle(key="embed_all_rows").value  # still offered, to turn it off

    # a rerun reads the stored fit: no bar, no refit
    monkeypatch.setattr(sp, "_fit", lambda *a, **k: pytest.fail("refitted"))
    at.run()
    assert not at.exception and len(bars) == 1 and not at.get("progress")
    assert chart_keys(at) == ["sp_embedding", "sp_eigenvalues"]
    # turned off again, the stored fit is still drawn (it costs nothing now)
    at.toggle(key="embed_all_rows").set_value(False).run()
    assert not at.exception and not _waiting(at) and chart_keys(at) == ["sp_embedding", "sp_eigenvalues"]


def test_spectral_clustering_while_waiting_draws_every_rows_cluster(bars, mixture_npy):
    # the paper's route (Gaussian affinity on the sidebar's shadow), whose rows are embedded after the fit
    at = open_page(mixture_npy, "pages/10_Spectral.py", sp_method="clustering", sp_affinity="gaussian",
                   sp_budget="ell")
    (info,) = _waiting(at)
    assert "every row's cluster" in info
    # N = 2,500: the exact method runs too (its clusters beside the reduced ones); the rows at their centers'
    # coordinates until each row's own are asked for
    assert chart_keys(at) == ["sp_cluster_view", "sp_exact_cluster_view", "sp_cluster_embedding", "sp_eigenvalues"]
    assert "and the exact method beside them" in info
    assert not [bar for bar in bars if "rows embedded" in bar]  # (the center budget's fit on the rows may show one)


def test_a_stopped_embedding_stores_nothing(monkeypatch):
    import streamlit as st

    import rskpca.ui.progress as progress

    st.cache_resource.clear()
    monkeypatch.setattr(fits, "ALL_ROWS_PROGRESS_S", 0.0)
    monkeypatch.setattr(progress, "SHOW_BAR_S", 0.0)
    monkeypatch.setattr("rskpca.evaluation.all_rows._EMBED_BLOCK_ROWS", 100)
    X = np.random.default_rng(0).normal(size=(400, 2))
    request = sp.SpectralRequest.of("eigenmaps", sigma=1.0, ell=3.0, kernel="gaussian", r=2, k=2, alpha=0.5, t=1.0)
    calls = []

    def stop(self, fraction, message=""):  # the one progress protocol: (fraction done, message)
        calls.append(fraction)
        if len(calls) >= 2:
            raise KeyboardInterrupt  # as Streamlit's stop, raised at the bar's update

    monkeypatch.setattr(progress.ProgressPanel, "__call__", stop)
    with pytest.raises(KeyboardInterrupt):
        sp.reduced_fit("stop-test", X, request)
    assert len(calls) == 2 and calls[0] < calls[1] < 1 and sp.stored_reduced_fit("stop-test", request) is None
    monkeypatch.undo()
    fit = sp.reduced_fit("stop-test", X, request)
    assert fit.embedding.shape == (400, 2) and sp.stored_reduced_fit("stop-test", request) is fit


def test_the_m_by_m_problem_shows_its_prediction_and_progress_while_it_solves(monkeypatch):
    """The eigensolver reports nothing while it runs: the bar ticks on the time spent against the prediction,
    and a stop at a tick ends the page's run (the solve left to finish on its thread, its result dropped)."""
    import threading
    import time

    gate = threading.Event()
    ticks = []
    from rskpca.core import progress as core_progress

    monkeypatch.setattr(core_progress, "TICK_S", 0.01)

    def slow():
        gate.wait(5)
        return "solved"

    def progress(fraction, message):
        ticks.append((fraction, message))
        if len(ticks) == 3:
            gate.set()

    assert sp.ticking(slow, progress, 0.05, sp.SOLVING) == "solved"
    assert len(ticks) >= 3 and all(m == "solving the m x m problem on the centers" for _, m in ticks)
    assert all(0 < f <= 0.95 for f, _ in ticks)

    def stopping(fraction, message):
        raise KeyboardInterrupt

    start = time.perf_counter()
    with pytest.raises(KeyboardInterrupt):
        sp.ticking(lambda: time.sleep(2), stopping, 1.0, sp.SOLVING)
    assert time.perf_counter() - start < 1.0  # the page's run does not wait for the solve
    assert sp.centers_seconds(13_492, 16) > fits.ALL_ROWS_ASK_S  # the m asks first


def test_the_quantized_embedding_is_each_rows_center_and_the_centers_own_coordinates(monkeypatch):
    """What the page draws while every row's own coordinates wait: row i at its shadow center's coordinates,
    which are the center's own coordinates in the embedding of every row (the Nystrom extension of a center is
    its eigenvector entries). The m x m problem is solved once for both passes."""
    from rskpca.core.shadow import shadow_centers

    solves = []
    real_solving = sp.ticking
    monkeypatch.setattr(sp, "ticking", lambda *a, **k: solves.append(1) or real_solving(*a, **k))
    X = np.random.default_rng(1).normal(size=(600, 3))
    request = sp.SpectralRequest.of("diffusion", sigma=1.5, ell=3.0, kernel="gaussian", r=3, k=2, alpha=1.0, t=1.0)
    waiting = sp.centers_fit("quantized-test", X, request)
    full = sp.reduced_fit("quantized-test", X, request)
    assert len(solves) == 1  # the embedding pass projects through the first pass's solve
    s = shadow_centers(X, sigma=1.5, ell=3.0)
    fresh, _ = sp._fit(request, s.centers, np.asarray(s.weights, dtype=float), X, s.labels)
    np.testing.assert_array_equal(full.embedding, fresh.embedding)  # the same as solving again
    assert waiting.embedding is None and full.quantized is None
    np.testing.assert_array_equal(waiting.quantized, waiting.quantized[s.center_indices][s.labels])
    np.testing.assert_allclose(waiting.quantized[s.center_indices], full.embedding[s.center_indices], atol=1e-5)


def test_the_landmark_clustering_embeds_every_row_with_its_fit_and_never_waits(bars, mixture_npy):
    at = _spectral(mixture_npy, "clustering")  # the defaults: landmark graph on a center budget
    assert not at.exception and not _waiting(at)
    assert "sp_cluster_embedding" in chart_keys(at)
    assert len(bars) <= 1  # at most the fit's one bar: no second pass over the rows


def test_an_embedding_over_a_second_draws_each_row_at_its_center_first_then_every_rows_own(monkeypatch, bars,
                                                                                          mixture_npy):
    """Issue 38, "draw what is ready first": the page is drawn from the centers' fit (each row at its center's
    coordinates), then every row is embedded and the page runs again to draw them."""
    monkeypatch.setattr(fits, "ALL_ROWS_ASK_S", 1e9)  # predicted above the progress threshold, below the ask
    calls = []
    real_centers, real_reduced = sp.centers_fit, sp.reduced_fit
    monkeypatch.setattr(sp, "centers_fit", lambda *a, **k: calls.append("centers") or real_centers(*a, **k))
    monkeypatch.setattr(sp, "reduced_fit", lambda *a, **k: calls.append(
        "rows" if k.get("embed", True) else "centers inside") or real_reduced(*a, **k))
    at = open_page(mixture_npy, "pages/10_Spectral.py", sp_method="diffusion")
    assert not at.exception and not _waiting(at)
    assert calls.index("centers") < calls.index("rows")  # the quantized drawing first, every row's own after
    spec = json.dumps(chart_specs(at)[0]["layout"])
    assert "each row at its center's coordinates" not in spec  # the page ran again with every row's own
    assert any(b.endswith(f"every one of the {N:,} rows embedded") for b in bars)
