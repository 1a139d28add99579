"""Exact KPCA on all n rows, matrix-free, on request (rskpca/ui/compute/exact_on_request.py computes,
rskpca/ui/exact_all_rows.py offers it and keeps the run; Embeddings page).

Above EMBED_EXACT_MAX_ROWS the page fits exact KPCA on a seeded sample and offers the run on all rows with
its predicted time and memory; clicked, it runs and the page then says exact KPCA is on all n rows; a run
that did not finish (stopped) is said, and the sampled view stays.
"""

import hashlib
import io
import json

import numpy as np
import pytest
from charts import chart_specs
from streamlit.testing.v1 import AppTest

from test_app import APP, TIMEOUT

N = 2500


@pytest.fixture(scope="module")
def mixture_npy() -> bytes:
    rng = np.random.default_rng(0)
    means = rng.normal(0.0, 4.0, size=(4, 3))
    X = means[rng.integers(0, 4, size=N)] + rng.normal(size=(N, 3))
    buf = io.BytesIO()
    np.save(buf, X, allow_pickle=False)
    return buf.getvalue()


def open_page(data: bytes, page: str, **session) -> AppTest:
    """The app on ``data`` (uploaded .npy, all N rows, rank 3, and ``session`` settings), at ``page``."""
    from rskpca.ui.keys import UPLOAD, UPLOADED

    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    at.session_state[UPLOADED] = {"name": "mixture.npy", "digest": hashlib.sha256(data).hexdigest(), "bytes": data}
    at.session_state["source"] = UPLOAD
    at.session_state["max_rows"] = N
    for key, value in session.items():
        at.session_state[key] = value
    at.query_params["r"] = "3"
    at.run()
    at.switch_page(page).run()
    assert not at.exception, [e.message for e in at.exception]
    return at


def _embeddings(data: bytes) -> AppTest:
    return open_page(data, "pages/4_Embeddings.py")


def _captions(at) -> str:
    return " ".join(c.value for c in at.caption)


def _offer(at):
    return [b for b in at.button if b.key == "emb_exact_all_go"]


def test_the_run_on_all_rows_is_offered_and_once_run_exact_kpca_is_on_all_rows(mixture_npy):
    at = _embeddings(mixture_npy)
    assert f"exact KPCA on a seeded sample of 2,000 rows: on all {N:,} rows" in _captions(at)
    (go,) = _offer(at)
    assert go.label.startswith(f"Run exact KPCA on all {N:,} rows, matrix-free (predicted about ")
    assert "memory" in go.label
    go.click().run()
    assert not at.exception, [e.message for e in at.exception]
    (fitted,) = [c.value for c in at.caption if c.value.startswith("m = ")]
    assert f"exact KPCA on all {N:,} rows, matrix-free" in fitted and "seeded sample" not in fitted, fitted
    assert f"Alignment errors and spectra compare on all {N:,} rows" in fitted
    assert "measured on (all rows)" in _captions(at)
    assert not _offer(at) and not at.warning
    # the table's errors are measured on every row, and the exact panel says its rows
    table = next(df.value for df in at.dataframe if "alignment_error" in df.value.columns)
    assert set(table["n_test"]) == {N}, table[["method", "n_test"]]
    # Nystrom's training rows' embedding is Subsampled KPCA's projection through the same m rows: the page says so
    errors = dict(zip(table["method"], table["alignment_error"]))
    assert errors["Nystrom"] == pytest.approx(errors["Subsampled KPCA"], rel=1e-4)
    assert "agree by construction" in _captions(at)
    titles = " ".join(a.get("text", "") for spec in chart_specs(at) for a in spec["layout"].get("annotations", []))
    assert f"all {N:,} rows, matrix-free" in titles
    # kept for this data, sigma and kernel: a rank in the same bucket needs no new run
    at.sidebar.number_input(key="r").set_value(2).run()
    assert not at.exception and not _offer(at)
    assert f"exact KPCA on all {N:,} rows, matrix-free" in _captions(at)


def test_a_stopped_run_is_said_and_the_sampled_view_stays(mixture_npy):
    from rskpca.ui import exact_all_rows

    at = _embeddings(mixture_npy)
    # What a Stop leaves behind: Streamlit ends the script at the bar's update, so the run's marker stays.
    at.session_state[exact_all_rows._RUNNING] = {"n": N, "products": 7.4, "seconds": 3.2, "expected": 30}
    at.run()
    assert not at.exception
    (warning,) = [w.value for w in at.warning if "stopped" in w.value]
    assert f"all {N:,} rows was stopped after 7 of about 30 products" in warning
    assert "seeded sample of 2,000 rows" in warning and "seeded sample of 2,000 rows" in _captions(at)
    assert _offer(at)  # offered again
    at.run()
    assert not [w for w in at.warning if "stopped" in w.value]  # said once


def test_a_run_ended_at_an_update_stores_nothing_and_is_said_next_time(mixture_npy, monkeypatch):
    # A Stop ends the script with an exception Streamlit raises at an st call; here the same happens at the
    # progress update after two products (st.stop's exception: the script ends there, as on a Stop).
    from streamlit.runtime.scriptrunner_utils.exceptions import StopException

    import rskpca.ui.progress as progress
    from rskpca.decomposition.iterative import IterativeKPCA
    from rskpca.ui import exact_all_rows
    from rskpca.ui.compute import exact_on_request

    def stopping(**params):
        watch = params.pop("progress")

        def progress(done, seconds):
            watch(done, seconds)
            if done >= 2:
                raise StopException()
        return IterativeKPCA(**params, progress=progress)

    monkeypatch.setattr(exact_on_request, "IterativeKPCA", stopping)
    monkeypatch.setattr(progress, "UPDATE_S", 0.0)
    at = _embeddings(mixture_npy)
    _offer(at)[0].click().run()
    assert not at.exception
    assert at.session_state[exact_all_rows._RUNNING]["products"] >= 2
    assert exact_all_rows._STORED not in at.session_state
    at.run()
    assert [w for w in at.warning if "was stopped after 2 of about" in w.value]
    assert "seeded sample of 2,000 rows" in _captions(at) and _offer(at)
