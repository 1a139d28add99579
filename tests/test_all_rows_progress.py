"""Progress while every row is embedded, and RSKPCA on all rows asking first when it would take long.

Library: transform_in_blocks reports each block as progress(fraction, message) (rskpca.core.progress). App (Embeddings page):
above ALL_ROWS_ASK_S predicted, RSKPCA on all rows waits for the toggle, the page meanwhile shows exact
KPCA's seeded sample and says RSKPCA is waiting; after the toggle it is drawn, and the progress bar
that showed the run is gone.
"""

import numpy as np
import pytest

import rskpca.evaluation.all_rows as all_rows
from rskpca import ReducedSetKPCA
from rskpca.evaluation.methods import METHODS
from test_exact_on_request import N, _captions, _embeddings, mixture_npy  # noqa: F401 (a fixture)


def test_progress_is_called_once_per_block_with_rows_growing_to_n(monkeypatch):
    monkeypatch.setattr(all_rows, "_EMBED_BLOCK_ROWS", 64)
    X = np.random.default_rng(0).normal(size=(300, 3))
    est = ReducedSetKPCA(n_components=2, sigma=1.0, ell=2.0).fit(X)
    calls = []
    Z = all_rows.transform_in_blocks(est, X, dtype=np.float32, progress=lambda *a: calls.append(a))
    # the one progress protocol (rskpca.core.progress): (fraction done, message)
    assert [c[0] for c in calls] == pytest.approx([64 / 300, 128 / 300, 192 / 300, 256 / 300, 1.0])
    assert calls[-1][1] == "300 of 300 rows embedded"
    assert np.allclose(Z, est.transform(X), atol=1e-5)


def test_a_stop_raised_by_progress_returns_nothing(monkeypatch):
    monkeypatch.setattr(all_rows, "_EMBED_BLOCK_ROWS", 50)
    X = np.random.default_rng(1).normal(size=(200, 2))

    def stop(fraction, message):
        if fraction >= 0.5:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        all_rows.fit_on_all_rows("rskpca", X, n_components=2, sigma=1.0, ell=2.0, progress=stop)


RSKPCA = METHODS["rskpca"].label


def _methods(at) -> set:
    table = next((df.value for df in at.dataframe if "alignment_error" in df.value.columns), None)
    return set() if table is None else set(table["method"])


def test_embeddings_asks_before_rskpca_on_all_rows_and_shows_the_sample_meanwhile(monkeypatch, mixture_npy):
    import streamlit as st

    import rskpca.ui.compute.all_rows_fits as fits

    st.cache_resource.clear()  # a fit stored by an earlier test would skip the bar
    monkeypatch.setattr(fits, "ALL_ROWS_ASK_S", 0.0)  # every RSKPCA on all rows asks first
    monkeypatch.setattr(fits, "ALL_ROWS_PROGRESS_S", 0.0)  # ... and runs with a bar
    at = _embeddings(mixture_npy)
    (info,) = [i.value for i in at.info if "waiting for your go-ahead" in i.value]
    assert f"Embedding all {N:,} rows through m = " in info and "no sample stands in" in info
    assert "exact KPCA on a seeded sample of 2,000 rows" in _captions(at)
    assert RSKPCA not in _methods(at) and _methods(at)  # the others are drawn meanwhile
    assert not at.get("progress")

    at.toggle(key="embed_all_rows").set_value(True).run()
    assert not at.exception, [e.message for e in at.exception]
    assert RSKPCA in _methods(at)
    assert not [i for i in at.info if "waiting for your go-ahead" in i.value]
    assert not at.get("progress"), "the progress bar is emptied after the run"
    # a rerun reads the stored fit: no bar, no refit
    calls = []
    monkeypatch.setattr(fits, "fit_on_all_rows", lambda *a, **k: calls.append(a) or pytest.fail("refitted"))
    at.run()
    assert not at.exception and not calls and RSKPCA in _methods(at) and not at.get("progress")


def test_sessions_asking_for_the_same_fit_at_once_compute_it_once(monkeypatch):
    import threading
    import time

    import rskpca.ui.compute.all_rows_fits as fits

    fits._stores.clear()
    X = np.random.default_rng(0).normal(size=(300, 3))
    calls, results = [], []
    real = fits.fit_on_all_rows

    def slow_fit(*args, **kwargs):
        calls.append(1)
        time.sleep(0.3)  # long enough for the other sessions to ask meanwhile
        return real(*args, **kwargs)

    monkeypatch.setattr(fits, "fit_on_all_rows", slow_fit)
    ask = lambda: results.append(fits._fitted_on_all_rows("d", X, "subsampled", 1.0, "gaussian", 2, 3.0, 20))  # noqa: E731
    threads = [threading.Thread(target=ask) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(calls) == 1 and len(results) == 3 and all(r is results[0] for r in results)

    def stopped(*args, **kwargs):  # a new setting raises out of the progress bar's update
        raise KeyboardInterrupt

    monkeypatch.setattr(fits, "fit_on_all_rows", stopped)
    with pytest.raises(KeyboardInterrupt):
        fits._fitted_on_all_rows("d", X, "subsampled", 1.0, "gaussian", 2, 4.0, 20)
    monkeypatch.setattr(fits, "fit_on_all_rows", real)  # the key is free again: the next ask computes it
    assert fits._fitted_on_all_rows("d", X, "subsampled", 1.0, "gaussian", 2, 4.0, 20).n_train == 300


def test_quantized_fit_puts_each_row_at_its_centers_coordinates():
    from rskpca.core.shadow import shadow_centers

    X = np.random.default_rng(2).normal(size=(400, 3))
    shadow = shadow_centers(X, sigma=1.0, ell=2.0)
    full = all_rows.fit_on_all_rows("rskpca", X, n_components=2, sigma=1.0, ell=2.0, shadow=shadow)
    first = all_rows.fit_on_all_rows("rskpca", X, n_components=2, sigma=1.0, ell=2.0, shadow=shadow, quantized=True)
    # the same model: its embedding of the quantized data is its projection of each row's center
    centers_coords = full.embedding[shadow.center_indices]
    np.testing.assert_allclose(first.embedding, centers_coords[shadow.labels], atol=1e-10)
    assert np.abs(first.embedding - full.embedding).max() > 1e-3  # and not the rows' own projections
    with pytest.raises(ValueError, match="quantized and fitted need a method fitted on the shadow"):
        all_rows.fit_on_all_rows("nystrom", X, n_components=2, sigma=1.0, m=20, quantized=True)


def test_a_fit_on_the_centers_serves_both_passes_without_solving_again(monkeypatch):
    from rskpca import ReducedSetKPCA
    from rskpca.core.shadow import shadow_centers

    X = np.random.default_rng(3).normal(size=(400, 3))
    shadow = shadow_centers(X, sigma=1.0, ell=2.0)
    fitted = all_rows.fit_on_centers("rskpca", shadow, n_components=2, sigma=1.0, ell=2.0)
    full = all_rows.fit_on_all_rows("rskpca", X, n_components=2, sigma=1.0, ell=2.0, shadow=shadow)
    monkeypatch.setattr(ReducedSetKPCA, "fit_reduced_set", lambda *a, **k: pytest.fail("solved again"))
    first = all_rows.fit_on_all_rows("rskpca", X, n_components=2, sigma=1.0, ell=2.0, shadow=shadow,
                                     quantized=True, fitted=fitted)
    then = all_rows.fit_on_all_rows("rskpca", X, n_components=2, sigma=1.0, ell=2.0, shadow=shadow, fitted=fitted)
    np.testing.assert_allclose(then.embedding, full.embedding, atol=1e-10)
    np.testing.assert_allclose(first.embedding, full.embedding[shadow.center_indices][shadow.labels], atol=1e-10)
    with pytest.raises(ValueError, match="not fitted on the shadow"):
        all_rows.fit_on_centers("nystrom", shadow, n_components=2, sigma=1.0, m=20)


def test_embeddings_draws_rskpca_at_its_centers_first_then_every_rows_own(monkeypatch, mixture_npy):
    import streamlit as st

    import rskpca.ui.compute.all_rows_fits as fits

    st.cache_resource.clear()
    monkeypatch.setattr(fits, "ALL_ROWS_PROGRESS_S", 0.0)  # every embedding of all rows counts as long
    real_finish = fits.finish_on_all_rows
    # first pass only: the rest is "computed" but fails, so the page says so and does not run again
    monkeypatch.setattr(fits, "finish_on_all_rows", lambda *a, **k: ["ShDE + RSKPCA: held for the test"])
    at = _embeddings(mixture_npy)
    assert not at.exception, [e.message for e in at.exception]
    (info,) = [i.value for i in at.info if i.value.startswith("Drawn first")]
    assert "with each row at its center's coordinates" in info and RSKPCA in info
    assert RSKPCA in _methods(at)  # drawn, quantized
    assert [e.value for e in at.error if "held for the test" in e.value]
    # then: every row's own projection computed after the page, and the page drawn again with it
    monkeypatch.setattr(fits, "finish_on_all_rows", real_finish)
    real_fit, given = fits.fit_on_all_rows, []
    monkeypatch.setattr(fits, "fit_on_all_rows",
                        lambda name, *a, **k: given.append((name, k.get("fitted") is not None)) or real_fit(name, *a, **k))
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    assert not [i for i in at.info if i.value.startswith("Drawn first")]
    assert RSKPCA in _methods(at) and not at.get("progress")
    store = fits._stores()["views"]
    assert any(key[1] == "rskpca" and not key[-1] for key in store._items)
    assert ("rskpca", True) in given and ("rskpca", False) not in given  # every row projected through the first pass's fit on the centers, not a second one


def test_the_bar_over_cached_steps_appears_at_the_first_step_that_computes(monkeypatch):
    import time

    import rskpca.ui.progress as progress

    made, shown = [], []

    class Panel:  # records what ProgressPanel would draw
        def __init__(self, label, *, slot, started):
            made.append(label)

        def __call__(self, fraction, message=""):
            shown.append(round(fraction, 6))

    monkeypatch.setattr(progress, "ProgressPanel", Panel)
    bar = progress._BarOnMiss("work", slot=None)
    bar(0.25, "read from the cache")
    bar(0.5, "read from the cache")
    assert made == []  # nothing computed: no bar
    time.sleep(2 * progress.MISS_S)
    bar(0.75, "computed")  # the bar starts here, its fraction counted from the first step that computed
    bar(1.0, "computed")
    assert made == ["work"] and shown == [0.5, 1.0]


def test_the_first_pass_is_predicted_as_the_m_by_m_problem_and_ticks_while_it_solves(monkeypatch, mixture_npy):
    # Seen: 15.8 s at m = 16,436 behind "Fitting ShDE + RSKPCA on all 20,000 rows..." with no bar: the pass that
    # draws each row at its center's coordinates was predicted at 0 s, and its solve reported nothing.
    import contextlib
    from types import SimpleNamespace

    import streamlit as st

    import rskpca.core.progress as core_progress
    import rskpca.ui.compute.all_rows_fits as fits

    st.cache_resource.clear()
    monkeypatch.setattr(fits, "ALL_ROWS_PROGRESS_S", 0.0)
    monkeypatch.setattr(fits, "finish_on_all_rows", lambda *a, **k: ["ShDE + RSKPCA: held for the test"])
    monkeypatch.setattr(fits, "centers_solve_cost", lambda *a, **k: SimpleNamespace(seconds=12.5))
    monkeypatch.setattr(core_progress, "TICK_S", 0.001)
    asked, ticks = [], []

    @contextlib.contextmanager
    def recorded(label, m, seconds, spinner):
        asked.append((seconds, spinner))
        yield lambda fraction, message="": ticks.append(message)

    monkeypatch.setattr(fits, "with_progress", recorded)
    real = fits.fit_on_centers
    monkeypatch.setattr(fits, "fit_on_centers", lambda *a, **k: __import__("time").sleep(0.05) or real(*a, **k))
    at = _embeddings(mixture_npy)
    assert not at.exception, [e.message for e in at.exception]
    first = [(s, text) for s, text in asked if text.startswith("Solving")]
    assert first and first[0][0] == 12.5 and "m x m problem on" in first[0][1]
    assert "solving the m x m problem on the centers" in ticks


def test_a_fit_of_every_row_without_the_first_pass_ticks_through_its_solve_then_counts_the_rows(monkeypatch):
    # Seen: 6-9 s behind "Fitting ShDE + RSKPCA on all 20,000 rows..." after a sigma change: the O(nm) rate
    # predicted well under a second, and the m x m solve (m = 16,436) reported nothing while it ran.
    import time

    import streamlit as st

    import rskpca.core.progress as core_progress
    import rskpca.ui.compute.all_rows_fits as fits

    st.cache_resource.clear()
    monkeypatch.setattr(core_progress, "TICK_S", 0.001)
    monkeypatch.setattr(fits, "_solve_seconds", lambda *a, **k: 3.0)
    real = fits.fit_on_centers
    monkeypatch.setattr(fits, "fit_on_centers", lambda *a, **k: time.sleep(0.05) or real(*a, **k))
    X = np.random.default_rng(4).normal(size=(500, 3))
    m = fits.shadow("solve-ticks", X, 1.0, 2.0, "gaussian").m
    calls = []
    fits._fitted_on_all_rows("solve-ticks", X, "rskpca", 1.0, "gaussian", 2, 2.0, m,
                             progress=lambda f, msg="": calls.append((f, msg)))
    solving = [f for f, msg in calls if msg == "solving the m x m problem on the centers"]
    rows = [f for f, msg in calls if "rows embedded" in msg]
    assert solving and rows and max(solving) <= min(rows) and rows[-1] == pytest.approx(1.0)
