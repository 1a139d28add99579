"""AppTest: the app started with a data file (``streamlit run app.py -- FILE``, what ``rskpca app FILE`` runs).

Streamlit hands the words after ``--`` to the script as ``sys.argv[1:]``, with ``sys.argv[0]`` the app;
these tests set ``sys.argv`` so, then run the app in-process. Also the memory estimate that is checked
before such a file is read (:func:`rskpca.data.memory_estimate.memory_to_read`).
"""

from __future__ import annotations

import gzip
import re
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

import rskpca.ui.compute.app_file as cached
from rskpca.data.memory_estimate import check_fits_in_memory, memory_to_read
from rskpca.data.readers import DataError
from rskpca.ui.app_file import FILE

ROOT = Path(__file__).resolve().parent.parent
APP = str(ROOT / "app.py")
TIMEOUT = 300
ROWS = 400


@pytest.fixture
def data_file(tmp_path) -> Path:
    """Three blobs with a label, under a name that markdown would mangle (it must show as text)."""
    rng = np.random.default_rng(1)
    label = rng.integers(0, 3, ROWS)
    X = np.array([[0, 0], [4, 0], [0, 4]])[label] + rng.normal(0, 0.5, (ROWS, 2))
    path = tmp_path / "my_*blobs*_data.csv"
    pd.DataFrame({"x": X[:, 0], "y": X[:, 1], "label": label}).to_csv(path, index=False)
    return path


@pytest.fixture(autouse=True)
def _fresh_cache():
    cached.read_app_file.clear()
    yield
    cached.read_app_file.clear()


def _started_with(monkeypatch, *args) -> None:
    monkeypatch.setattr(sys, "argv", [APP, *map(str, args)])


def _app(**query) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    for k, v in query.items():
        at.query_params[k] = str(v)
    return at.run()


def _ok(at: AppTest, where: str = "") -> None:
    assert not at.exception, f"{where}: {[e.message for e in at.exception]}"


def _plain(text: str) -> str:
    """Text with the app's markdown escaping undone."""
    return re.sub(r"\\(.)", r"\1", text)


def _showing(at: AppTest) -> str:
    return next(t.value for t in at.sidebar.text if t.value.startswith("Showing:"))


def _n_caption(at: AppTest) -> str:
    return next(c.value for c in at.sidebar.caption if c.value.startswith("n = "))


def test_the_file_is_the_data_in_use_and_the_samples_stay_offered(monkeypatch, data_file):
    _started_with(monkeypatch, data_file)
    at = _app()
    _ok(at, "home")
    source = at.sidebar.selectbox(key="source")
    assert source.value == FILE
    assert source.options[0] == f"File {data_file.name}"
    assert "Two moons" in source.options  # the samples are still there
    assert _showing(at) == f"Showing: File {data_file.name}"  # st.text: the asterisks stay asterisks
    assert _n_caption(at).startswith(f"n = {ROWS} rows, d = 2 features, label column")
    for page in ("pages/2_Shadow_centers.py", "pages/4_Embeddings.py"):
        at.switch_page(page).run()
        _ok(at, page)
        assert at.sidebar.selectbox(key="source").value == FILE, page
        assert _showing(at) == f"Showing: File {data_file.name}", page
    at.sidebar.selectbox(key="source").set_value("two_moons").run()
    _ok(at, "sample")
    assert _showing(at) == "Showing: Two moons"
    at.sidebar.selectbox(key="source").set_value(FILE).run()
    assert _showing(at) == f"Showing: File {data_file.name}"


def test_the_row_cap_applies_as_for_an_upload(monkeypatch, data_file):
    _started_with(monkeypatch, data_file)
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    at.session_state["max_rows"] = 100
    at.run()
    _ok(at)
    assert _n_caption(at).startswith("n = 100 rows")
    ds = at.session_state["_dataset"]
    assert (ds.n, ds.n_original) == (100, ROWS)


def test_every_session_starts_on_the_file_which_is_read_once(monkeypatch, data_file):
    _started_with(monkeypatch, data_file)
    reads = []
    real = cached.read_table
    monkeypatch.setattr(cached, "read_table", lambda data, name: reads.append(name) or real(data, name))
    first = _app()
    first.sidebar.selectbox(key="source").set_value("iris").run()
    second = _app()  # another session, after the first chose a sample
    _ok(second)
    assert second.sidebar.selectbox(key="source").value == FILE
    second.switch_page("pages/2_Shadow_centers.py").run()
    _ok(second)
    assert reads == [data_file.name]


def test_a_link_to_a_sample_wins_and_a_link_to_the_file_keeps_it(monkeypatch, data_file):
    _started_with(monkeypatch, data_file)
    at = _app(data="iris")
    assert at.sidebar.selectbox(key="source").value == "iris"
    at = _app(data=f"file:{data_file.name}", sigma=1.5)
    _ok(at)
    assert at.sidebar.selectbox(key="source").value == FILE
    assert at.sidebar.number_input(key="sigma").value == 1.5  # the link's sigma: it was made for this file
    assert not at.warning
    at = _app(data="file:other.csv", sigma=1.5)
    assert at.sidebar.selectbox(key="source").value == FILE
    assert any("other.csv" in _plain(w.value) for w in at.warning)


def test_a_missing_file_says_so_and_the_samples_still_work(monkeypatch, tmp_path):
    _started_with(monkeypatch, tmp_path / "gone.csv")
    at = _app()
    _ok(at)
    assert any("gone.csv" in _plain(e.value) and "cannot be read" in _plain(e.value) for e in at.error)
    at.sidebar.selectbox(key="source").set_value("two_moons").run()
    _ok(at)
    assert _showing(at) == "Showing: Two moons"


def test_a_file_too_big_for_memory_says_so_before_it_is_read(monkeypatch, data_file):
    _started_with(monkeypatch, data_file)
    monkeypatch.setattr("rskpca.data.memory_estimate.available_memory", lambda: 1000)
    monkeypatch.setattr(cached, "read_table", lambda *a: pytest.fail("read after all"))
    at = _app()
    _ok(at)
    assert any("would not fit in memory" in _plain(e.value) for e in at.error)


def test_without_a_file_nothing_changes():
    at = _app()  # sys.argv is pytest's: no file
    _ok(at)
    source = at.sidebar.selectbox(key="source")
    assert source.value == "two_moons" and FILE not in source.options


# ---------------------------------------------------------------------------
# The memory estimate (checked before reading a file on the server)
# ---------------------------------------------------------------------------


def test_memory_estimates_come_from_metadata_headers_and_sizes(tmp_path):
    df = pd.DataFrame(np.random.default_rng(0).normal(size=(20_000, 5)), columns=list("abcde"))
    df.to_parquet(tmp_path / "t.parquet")
    np.save(tmp_path / "t.npy", df.to_numpy())
    df.to_csv(tmp_path / "t.csv", index=False)
    (tmp_path / "t.csv.gz").write_bytes(gzip.compress((tmp_path / "t.csv").read_bytes()))
    array = 20_000 * 5 * 8
    parquet, how = memory_to_read(tmp_path / "t.parquet")
    assert 3 * array < parquet < 6 * array and "Parquet" in how
    assert memory_to_read(tmp_path / "t.npy")[0] == pytest.approx(3.2 * array, rel=0.01)
    text = (tmp_path / "t.csv").stat().st_size
    assert memory_to_read(tmp_path / "t.csv")[0] == pytest.approx(7.5 * text, rel=0.01)
    gz, how = memory_to_read(tmp_path / "t.csv.gz")
    assert gz > 7.5 * text and "gzip" in how  # from the length the gzip trailer stores


def test_a_file_that_fits_passes_and_one_that_does_not_is_named(tmp_path):
    np.save(tmp_path / "t.npy", np.zeros((1000, 10)))
    assert check_fits_in_memory(tmp_path / "t.npy", available=10**9) == pytest.approx(256_000, rel=0.01)
    with pytest.raises(DataError, match=r"t\.npy would not fit in memory: reading it takes about 256\.0 kB"):
        check_fits_in_memory(tmp_path / "t.npy", available=100_000)
