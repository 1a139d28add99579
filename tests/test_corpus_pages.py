"""Every page on every file of the realistic corpus (tests/corpus.py), uploaded as a user uploads it, in AppTest.

The browser half is tests/test_e2e_corpus.py (Chromium, ``rskpca app FILE``) on the files that broke pages
before; this half drives every file through the upload and every page in the fast tier, so a page that
raises on one of them fails here without a browser.
"""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from corpus import CORPUS, EXPECTED_FEATURES, corpus_table
from test_app import APP, PAGES, TIMEOUT, _ok, _upload


@pytest.mark.parametrize("name", list(CORPUS))
def test_every_page_runs_on_the_uploaded_file(name):
    data = corpus_table(name).to_csv(index=False).encode()
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    at.run()
    at = _upload(at, f"{name}.csv", data)
    _ok(at, f"{name}: upload")
    table = corpus_table(name)
    ds = at.session_state["_dataset"]
    assert at.session_state["source"] == "__upload__", f"{name}: the upload did not become the data set"
    assert (ds.n_original, ds.n) == (len(table), len(table)), name  # a row missing its label alone is kept
    expected_label = CORPUS[name][1]
    if expected_label is not None:
        assert at.session_state["label_column"] == expected_label, name
    if name in EXPECTED_FEATURES:  # a row id is no feature; the Data page says so in the dataset's notes
        assert ds.feature_names == EXPECTED_FEATURES[name], (name, ds.feature_names)
        assert name != "mixed_types" or any("'id' holds a different whole number on every row" in note
                                             for note in ds.notes), ds.notes
    for page in PAGES:
        at.switch_page(page).run()
        _ok(at, f"{name}: {page}")
        if name == "numeric_label" and page.endswith("Kernelization.py"):  # a measurement, not classes
            assert any("looks like a measurement or an identifier, not classes" in i.value for i in at.info), name
            assert not [b for b in at.button if b.key == "cv_run"], f"{name}: nothing to cross-validate"
        if name == "missing_label" and page.endswith("Kernelization.py"):  # the unlabelled rows are left out
            assert any("have no label: the classifiers are trained and tested on the other" in c.value
                       for c in at.caption), f"{name}: {page}"
            assert not [i.value for i in at.info if "seeded sample" in i.value], f"{name}: not a sample"
            assert any("rows the classifiers use (said above), of all" in c.value for c in at.caption), f"{name}: {page}"


def test_kernelization_leaves_out_classes_with_fewer_rows_than_folds_and_says_so():
    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(0)
    label = np.array(["a"] * 60 + ["b"] * 60 + ["rare1", "rare2", "rare2"])
    X = rng.normal(size=(label.size, 2)) + (label == "b")[:, None] * 4.0
    data = pd.DataFrame({"x": X[:, 0].round(4), "y": X[:, 1].round(4), "label": label}).to_csv(index=False).encode()
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    at.run()
    at = _upload(at, "rare.csv", data)
    at.switch_page("pages/7_Kernelization.py").run()
    _ok(at, "rare classes")
    assert any("2 of the 4 classes have fewer than 5 rows (3 rows)" in c.value and "the other 120 rows" in c.value
               for c in at.caption), [c.value for c in at.caption]
    assert not at.error and [b for b in at.button if b.key == "cv_run"]


def test_kernelization_calls_a_label_of_hundreds_of_whole_numbers_a_measurement():
    # sklearn's diabetes "progression": 214 distinct whole numbers in 442 rows were cross-validated as 214 classes
    import numpy as np
    import pandas as pd
    from sklearn.datasets import load_diabetes

    frame = load_diabetes(as_frame=True).frame.rename(columns={"target": "progression"})
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    at.run()
    at = _upload(at, "diabetes.csv", frame.to_csv(index=False).encode())
    at.session_state["label_column"] = "progression"
    at.switch_page("pages/7_Kernelization.py").run()
    _ok(at, "diabetes")
    assert np.unique(frame["progression"]).size == 214 and frame["progression"].dtype == np.float64
    assert any("a measurement rather than classes" in i.value for i in at.info), [i.value for i in at.info]
    assert not [b for b in at.button if b.key == "cv_run"]
    assert pd.api.types.is_numeric_dtype(at.session_state["_dataset"].y)
    # and the row charts draw it on a colour scale, not as 59 classes and "other"
    at.switch_page("pages/2_Shadow_centers.py").run()
    _ok(at, "diabetes: Shadow centers")
    from charts import drawn_charts

    scatter = next(spec for key, spec in drawn_charts(at) if key == "shadow_scatter")
    assert not any("other" in str(t.get("name")) for t in scatter["data"])
    assert any(t.get("marker", {}).get("colorscale") for t in scatter["data"])


def test_spectral_clustering_of_100_classes_draws_its_cluster_x_label_table_as_a_heat_map():
    # 100 clusters x 100 classes: a table of 10,000 styled cells took seconds to draw and could not be read whole
    from charts import chart_keys

    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    at.run()
    at = _upload(at, "classes_100.csv", corpus_table("classes_100").to_csv(index=False).encode())
    at.session_state["sp_method"] = "clustering"
    at.switch_page("pages/10_Spectral.py").run()
    _ok(at, "classes_100: spectral clustering")
    assert "sp_cluster_label_map" in chart_keys(at)
    assert not [df for df in at.dataframe if df.value.shape[1] >= 100]  # no 100-column table
    assert any("coloured by their count" in c.value for c in at.caption)
    labels = [b.proto.label for b in at.get("download_button")]
    assert "Download table (CSV)" in labels
