"""AppTest: every page renders on the samples, ell drives m and the charts, uploads good and bad.

AppTest runs the scripts in-process (no browser): Plotly charts are checked
through their JSON spec. The expensive views run on small settings (digits at
ell = 2, where the shadow keeps about a fifth of the rows) to keep this file fast.
"""

import base64
import json
import re
from pathlib import Path

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

ROOT = Path(__file__).resolve().parent.parent
APP = str(ROOT / "app.py")
PAGES = sorted(f"pages/{p.name}" for p in (ROOT / "pages").glob("*.py"))
TIMEOUT = 300


def _app(**query) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    for k, v in query.items():
        at.query_params[k] = str(v)
    return at.run()


def _ok(at: AppTest, where: str = "") -> None:
    assert not at.exception, f"{where}: {[e.message for e in at.exception]}"


def _errors(at: AppTest) -> list[str]:
    """Error texts with the markdown escaping undone (the app escapes user text in messages)."""
    return [re.sub(r"\\(.)", r"\1", e.value) for e in at.error]


def _charts(at: AppTest) -> list[dict]:
    return [json.loads(c.proto.spec) for c in at.get("plotly_chart")]


def _array(values) -> np.ndarray:
    """A data array from a Plotly JSON spec (numeric arrays travel base64-encoded)."""
    if isinstance(values, dict) and "bdata" in values:
        return np.frombuffer(base64.b64decode(values["bdata"]), dtype=np.dtype(values["dtype"]))
    return np.asarray(values)


def _webgl_contexts(spec: dict) -> int:
    """2-D WebGL traces of one figure share a canvas; every 3-D scene has its own."""
    gl2d = any(t["type"] == "scattergl" for t in spec["data"])
    scenes = {t.get("scene", "scene") for t in spec["data"] if t["type"] == "scatter3d"}
    return int(gl2d) + len(scenes)


def _m(at: AppTest) -> int:
    return int(next(m for m in at.sidebar.get("metric") if m.label == "shadow centers m").value)


def _upload(at: AppTest, name: str, data: bytes, mime: str = "text/csv") -> AppTest:
    at.switch_page("pages/1_Data.py").run()
    at.file_uploader(key="uploader").set_value((name, data, mime)).run()
    return at


def test_pages_exist_in_order():
    assert [p.split("/")[1].split("_")[0] for p in PAGES] == [str(i) for i in range(1, 10)]


@pytest.mark.parametrize("sample,ell", [("two_moons", 4.0), ("digits", 2.0)])
def test_every_page_renders(sample, ell):
    at = _app(dataset=sample, ell=ell)
    _ok(at, "home")
    assert at.sidebar.selectbox(key="source").value == sample
    for page in PAGES:
        at.switch_page(page).run()
        _ok(at, page)
        assert not _errors(at), f"{page}: {_errors(at)}"
        if not page.endswith(("1_Data.py", "8_Learn.py")):
            assert _charts(at), f"{page} drew no chart"
        # every chart comes with an HTML download and every table with a CSV one
        labels = [b.proto.label for b in at.get("download_button")]
        assert labels.count("Download figure (HTML)") == len(_charts(at)), page
        assert labels.count("Download table (CSV)") == len(at.dataframe), page
        # no page asks the browser for more WebGL contexts than it allows
        assert sum(_webgl_contexts(c) for c in _charts(at)) <= 4


@pytest.mark.parametrize("sample", ["iris", "wine", "breast_cancer", "circles", "swiss_roll", "blobs"])
def test_other_samples_render_shadow_page(sample):
    at = _app(dataset=sample)
    at.switch_page("pages/2_Shadow_centers.py").run()
    _ok(at, sample)
    points = _charts(at)[0]["data"][0]
    assert _array(points["x"]).size == at.session_state["_dataset"].n


def test_changing_ell_changes_m_and_the_chart():
    at = _app(dataset="two_moons", ell=3.0)
    at.switch_page("pages/2_Shadow_centers.py").run()
    m_before = _m(at)
    spec_before = _charts(at)[0]
    at.sidebar.slider(key="ell").set_value(8.0).run()
    _ok(at)
    m_after = _m(at)
    spec_after = _charts(at)[0]
    assert m_after > m_before
    centers = [t for t in spec_after["data"] if t.get("name") == "centers"][0]
    assert _array(centers["x"]).size == m_after
    assert spec_after != spec_before
    assert at.query_params["ell"] == "8"


def test_settings_persist_across_pages_and_sync_to_the_url():
    at = _app(dataset="blobs")
    at.sidebar.slider(key="ell").set_value(6.5).run()
    at.sidebar.number_input(key="r").set_value(3).run()
    at.switch_page("pages/4_Embeddings.py").run()
    _ok(at)
    assert at.sidebar.slider(key="ell").value == 6.5
    assert at.sidebar.number_input(key="r").value == 3
    at.switch_page("pages/8_Learn.py").run()
    assert at.sidebar.slider(key="ell").value == 6.5
    assert at.query_params["dataset"] == "blobs" and at.query_params["r"] == "3"


def test_sigma_median_button_and_slider():
    at = _app(dataset="two_moons", sigma=0.5)
    assert at.sidebar.number_input(key="sigma").value == 0.5  # the shared link's sigma is kept
    at.sidebar.slider(key="sigma_slider").set_value(1.0).run()
    assert at.sidebar.number_input(key="sigma").value == pytest.approx(1.0)
    at.sidebar.button(key="sigma_median").click().run()
    _ok(at)
    median = at.sidebar.number_input(key="sigma").value
    assert median != pytest.approx(1.0) and median > 0
    assert at.query_params["sigma"] == f"{median:.6g}"


def test_bad_url_values_are_ignored_with_a_warning():
    at = _app(dataset="no_such_set", ell="abc", sigma="-1")
    _ok(at)
    assert len(at.warning) == 3
    assert at.sidebar.selectbox(key="source").value == "two_moons"


def test_good_upload_becomes_the_data_set():
    rng = np.random.default_rng(0)
    rows = "\n".join(f"{a:.4f},{b:.4f},{'ab'[i % 2]}" for i, (a, b) in enumerate(rng.normal(size=(120, 2))))
    at = _app()
    _upload(at, "mine.csv", ("<b>f1</b>,f2,group\n" + rows).encode())
    _ok(at)
    assert not _errors(at)
    assert at.sidebar.selectbox(key="source").value == "__upload__"
    # the column name is shown as text, never rendered as HTML/markdown
    assert at.selectbox(key="label_column").value == "group"
    assert "dataset" not in at.query_params  # an upload cannot be shared by URL
    at.switch_page("pages/2_Shadow_centers.py").run()
    _ok(at)
    assert _array(_charts(at)[0]["data"][0]["x"]).size == 120
    at.switch_page("pages/7_Kernelization.py").run()
    _ok(at)
    assert not _errors(at)


BAD_UPLOADS = {
    "not_csv": ("image.csv", b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 4),
    "text_only": ("words.csv", b"name,city\nann,paris\nbob,rome\n"),
    "nan": ("holes.csv", b"a,b\n1,2\n,4\n5,6\n"),
    "one_row": ("single.csv", b"a,b\n1,2\n"),
    "empty": ("empty.csv", b""),
    "huge": ("huge.csv", b"a,b\n1e200,1\n2,3\n4,5\n"),
}


@pytest.mark.parametrize("case", sorted(BAD_UPLOADS))
def test_bad_upload_shows_an_error_and_keeps_the_last_good_data(case):
    name, data = BAD_UPLOADS[case]
    at = _app(dataset="iris")
    _upload(at, name, data)
    _ok(at, case)
    errors = _errors(at)
    assert errors, f"{case}: no error shown"
    assert any(name in e or "olumn" in e or "row" in e for e in errors), errors
    # the pages keep working on the last good data
    at.switch_page("pages/2_Shadow_centers.py").run()
    _ok(at, case)
    assert _charts(at)


def test_nan_upload_can_be_used_after_dropping_rows():
    at = _app()
    _upload(at, "holes.csv", b"a,b\n1,2\n,4\n5,6\n7,1\n")
    assert _errors(at)
    at.checkbox(key="drop_missing").check().run()
    _ok(at)
    assert not _errors(at)
    assert any("Dropped 1 row" in t.value for t in at.text)


def test_embeddings_three_d_and_errors_for_too_small_rank():
    at = _app(dataset="swiss_roll", ell=3.0)
    at.switch_page("pages/4_Embeddings.py").run()
    at.segmented_control(key="emb_dims").set_value("3-D").run()
    _ok(at)
    spec = _charts(at)[0]
    scenes = {t.get("scene") for t in spec["data"] if t["type"] == "scatter3d"}
    assert 1 <= len(scenes) <= 4
    at.sidebar.number_input(key="r").set_value(1).run()
    _ok(at)
    assert any("at least 2 components" in e for e in _errors(at))


def test_rank_above_m_is_an_error_message_not_a_traceback():
    at = _app(dataset="two_moons", ell=1.0, r=20)
    at.switch_page("pages/4_Embeddings.py").run()
    _ok(at)
    assert any("n_components=20" in e for e in _errors(at))


def test_sweeps_over_ell_on_demand():
    at = _app(dataset="blobs")
    at.switch_page("pages/6_Speedups.py").run()
    n_charts = len(_charts(at))
    at.toggle(key="speed_curves").set_value(True).run()
    _ok(at)
    specs = _charts(at)
    assert len(specs) == n_charts + 4
    at.switch_page("pages/5_Bounds.py").run()
    at.toggle(key="bounds_measured_curves").set_value(True).run()
    _ok(at)
    names = {t["name"] for t in _charts(at)[1]["data"]}
    assert {"a_priori", "measured"} <= names


def test_kernelization_without_label_says_so():
    at = _app(dataset="two_moons")
    at.switch_page("pages/1_Data.py").run()
    at.selectbox(key="label_column").set_value("(no label column)").run()
    _ok(at)
    at.switch_page("pages/7_Kernelization.py").run()
    _ok(at)
    assert any("label column" in i.value for i in at.info)


def test_user_text_in_error_messages_is_escaped_not_rendered():
    at = _app()
    _upload(at, "t.csv", b"**bold**,other\nann,bob\ncy,dd\nee,ff\n")
    _ok(at)
    raw = " ".join(e.value for e in at.error)
    assert r"\*\*bold\*\*" in raw


def test_row_cap_samples_with_the_seed():
    at = _app(dataset="digits", ell=2.0)
    at.switch_page("pages/1_Data.py").run()
    at.number_input(key="max_rows").set_value(100).run()
    _ok(at)
    first = at.session_state["_dataset"]
    assert first.n == 100
    assert any("random sample of 100" in t.value for t in at.text)
    at.number_input(key="row_seed").set_value(7).run()
    second = at.session_state["_dataset"]
    assert second.n == 100 and not np.array_equal(first.row_ids, second.row_ids)
    at.switch_page("pages/2_Shadow_centers.py").run()
    _ok(at)
    assert _m(at) <= 100


def test_slow_methods_wait_for_the_user_when_m_is_large(monkeypatch):
    from rskpca.ui import compute

    monkeypatch.setattr(compute, "SLOW_M", 10)  # two moons at ell = 4 has m = 28 > 10
    at = _app(dataset="two_moons")
    at.switch_page("pages/4_Embeddings.py").run()
    _ok(at)
    titles = [a["text"] for a in _charts(at)[0]["layout"]["annotations"]]
    assert not any(t.startswith("Density-weighted") for t in titles)
    at.toggle(key="run_slow").set_value(True).run()
    _ok(at)
    titles = [a["text"] for a in _charts(at)[0]["layout"]["annotations"]]
    assert any(t.startswith("Density-weighted") for t in titles)
    at.switch_page("pages/6_Speedups.py").run()
    at.toggle(key="speed_curves").set_value(True).run()
    _ok(at)
    assert "Density-weighted Nystrom" in {t["name"] for t in _charts(at)[-1]["data"]}


def test_speedups_page_offers_the_other_speedups_and_shows_the_construction_breakdown():
    at = _app(dataset="two_moons", ell=3.0, r=2)
    at.switch_page("pages/6_Speedups.py").run()
    _ok(at)
    assert at.multiselect(key="speed_groups").value == ["rskpca", "baseline"]  # the default
    assert "speed_fit_parts" not in [c.key for c in at.get("plotly_chart")]
    at.multiselect(key="speed_groups").set_value(["rskpca", "extra"]).run()
    _ok(at)
    assert not _errors(at), _errors(at)
    table = at.dataframe[0].value  # the table at this ell (AppTest drops dataframe keys)
    shown = set(table["method"])
    assert {"ShDE + RSKPCA", "Reduced-set construction", "Random Fourier features + PCA",
            "Sparsified Gram matrix", "Quantized Gram matrix (1 bit)"} <= shown
    assert "Nystrom" not in shown
    # the breakdown: a stacked bar whose two parts add up to the construction's fit time
    rsc = table.set_index("method").loc["Reduced-set construction"]
    assert rsc["train_exact_kpca_s"] > 0 and rsc["train_construction_s"] > 0
    assert rsc["train_exact_kpca_s"] + rsc["train_construction_s"] <= rsc["train_s"] * 1.001
    spec = next(json.loads(c.proto.spec) for c in at.get("plotly_chart") if c.key == "speed_fit_parts")
    assert spec["layout"]["barmode"] == "stack"
    parts = {t["name"]: dict(zip(t["x"], _array(t["y"]))) for t in spec["data"]}
    assert parts["exact KPCA part"]["Reduced-set construction"] == pytest.approx(rsc["train_exact_kpca_s"])
    assert parts["construction part"]["Reduced-set construction"] == pytest.approx(rsc["train_construction_s"])
    assert parts["whole fit"]["Exact KPCA"] > 0
    assert any("evaluation only" in md.value for md in at.markdown)


def test_embeddings_page_shows_the_gram_error_beside_the_alignment_error_on_request():
    at = _app(dataset="two_moons", ell=3.0, r=2)
    at.switch_page("pages/4_Embeddings.py").run()
    at.multiselect(key="emb_groups").set_value(["extra"]).run()
    _ok(at)
    table = at.dataframe[0].value
    assert "gram_spectral_error" not in table.columns  # measured only on request
    assert "Reduced-set construction" in set(table["method"])
    at.toggle(key="emb_gram_error").set_value(True).run()
    _ok(at)
    table = at.dataframe[0].value.set_index("method")
    cols = list(table.columns)
    assert cols.index("gram_spectral_error") == cols.index("alignment_error") + 1
    for label in ("Sparsified Gram matrix", "Quantized Gram matrix (1 bit)"):
        assert table.loc[label, "gram_spectral_error"] > 0
        assert 0 < table.loc[label, "gram_relative_error"] < 10
    assert np.isnan(table.loc["Random Fourier features + PCA", "gram_spectral_error"])


def test_kernelization_cross_validates_rskpca_on_demand_and_keeps_it_per_ell():
    at = _app(dataset="two_moons", ell=3.0)
    at.switch_page("pages/7_Kernelization.py").run()
    _ok(at)
    assert list(at.dataframe[0].value["features"]) == ["Exact KPCA"]  # ell-independent: shown at once
    at.button(key="cv_run").click().run()
    _ok(at)
    assert list(at.dataframe[0].value["features"]) == ["Exact KPCA", "ShDE + RSKPCA"]
    at.sidebar.slider(key="ell").set_value(5.0).run()  # a new ell: RSKPCA waits for the button again
    assert list(at.dataframe[0].value["features"]) == ["Exact KPCA"]
    at.sidebar.slider(key="ell").set_value(3.0).run()  # an ell already cross-validated is shown
    assert list(at.dataframe[0].value["features"]) == ["Exact KPCA", "ShDE + RSKPCA"]
    at.toggle(key="cv_live").set_value(True).run()
    at.sidebar.slider(key="ell").set_value(6.0).run()
    _ok(at)
    assert list(at.dataframe[0].value["features"]) == ["Exact KPCA", "ShDE + RSKPCA"]
