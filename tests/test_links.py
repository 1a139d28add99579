"""The link is the view: every linked setting (rskpca/ui/link_settings.py) round-trips through the address bar.

Each test sets values in one session, reads the address bar the app wrote, opens a new session on those
parameters and checks the same values (and, on the pages that draw them, the same widget values). A link
that cannot be restored in full says which part and why, and keeps the rest.
"""

import re

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from test_app import APP, TIMEOUT, _ok

from rskpca.plotting import rows_in_region
from rskpca.ui.keys import NO_LABEL, SELECTION
from rskpca.ui.link_settings import LINKED
from rskpca.ui.selection import LINK_MAX_ROWS

#: A value other than the default for every linked setting (the table-bound ones are for iris).
NOT_DEFAULT = {
    "kernel": "laplacian", "ell": 6.5, "r": 3, "max_rows": 120, "row_seed": 7, "drop_missing": True,
    "stray_text_missing": True, "gram_error": True, "sweep_points": 10, "emb_groups": ["rskpca", "extra"],
    "emb_dims": "3-D", "bounds_max_exact": 250, "bounds_measured_curves": True, "speed_groups": ["baseline"],
    "time_randomized": True, "speed_curves": True, "speed_budget_s": 1.0, "speed_budget_mb": 2048, "dn_as_images": True, "classifier": "lda", "cv_folds": 4, "dn_noise": "salt_and_pepper",
    "dn_level": 0.3, "dn_preimage": "fixed-point", "dn_alpha": 0.01, "dn_fit_noisy": True, "dn_column_major": True, "dn_light_high": True, "dn_height": 1, "dn_width": 4, "sp_method": "clustering",
    "sp_clusters": 7, "sp_alpha": 0.5, "sp_t": 2.5, "sp_affinity": "gaussian", "sp_budget": 1000,
}
#: ... and of the table-bound ones (set once the table is loaded: a new table resets them).
NOT_DEFAULT_TABLE = {"label_column": NO_LABEL, "colour_column": "petal width (cm)", "feature_columns": ["sepal length (cm)", "petal length (cm)"],
                     "kde_line_a": 3, "kde_line_b": 17}


def _open(page: str | None = None, **query) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    for k, v in query.items():
        at.query_params[k] = v if isinstance(v, list) else str(v)
    at.run()
    if page:
        at.switch_page(page).run()
    _ok(at, f"{page} {query}")
    return at


def _params(at: AppTest) -> dict:
    """The address bar, as a new session is given it (a repeated parameter as a list)."""
    return dict(at.query_params)


def _notes(at: AppTest) -> list[str]:
    return [re.sub(r"\\(.)", r"\1", w.value) for w in at.warning]


def test_every_linked_setting_has_a_round_trip_below():
    assert set(LINKED) == set(NOT_DEFAULT) | (set(NOT_DEFAULT_TABLE) & set(LINKED))


def test_every_linked_setting_round_trips_through_the_address_bar():
    at = _open(data="iris")
    values = {**NOT_DEFAULT, **{k: v for k, v in NOT_DEFAULT_TABLE.items() if k in LINKED}}
    for key, value in values.items():
        at.session_state[key] = value
    at.run()
    _ok(at, "set")
    params = _params(at)
    for key in values:
        assert LINKED[key].param in params, (key, params)
    again = _open(**params)
    assert not _notes(again), _notes(again)
    for key, value in values.items():
        assert again.session_state[key] == value, key
    # and the address bar of the new session is the same link
    assert _params(again) == params


def test_defaults_stay_out_of_the_link_and_the_label_choice_always_travels():
    at = _open(data="iris")
    params = _params(at)
    assert set(params) == {"data", "sigma", "std", "kernel", "ell", "r", "cap", "label"}, params
    assert params["label"] == "label"
    # "(no label column)" travels as an empty label: the way round a label a page cannot colour by
    at.session_state["label_column"] = NO_LABEL
    at.run()
    assert at.query_params["label"] == ""
    assert _open(**_params(at)).session_state["label_column"] == NO_LABEL


def test_the_spectral_pages_widgets_come_back_from_the_link():
    page = "pages/10_Spectral.py"
    at = _open(page, data="two_moons", ell=4)
    at.radio(key="sp_method").set_value("clustering").run()
    at.number_input(key="sp_clusters").set_value(3).run()
    _ok(at, "k = 3")
    assert at.query_params["method"] == "clustering" and at.query_params["k"] == "3"
    again = _open(page, **_params(at))
    assert again.radio(key="sp_method").value == "clustering"
    assert again.number_input(key="sp_clusters").value == 3
    again.radio(key="sp_method").set_value("diffusion").run()
    again.slider(key="sp_alpha").set_value(0.25).run()
    again.number_input(key="sp_t").set_value(4.0).run()
    third = _open(page, **_params(again))
    assert third.slider(key="sp_alpha").value == 0.25 and third.number_input(key="sp_t").value == 4.0


def test_the_denoise_image_shape_comes_back_from_the_link():
    page = "pages/9_Denoise.py"
    at = _open(page, data="digits")
    assert (at.number_input(key="dn_height").value, at.number_input(key="dn_width").value) == (8, 8)
    at.number_input(key="dn_height").set_value(4).run()
    at.number_input(key="dn_width").set_value(16).run()
    _ok(at, "4 x 16")
    assert at.query_params["height"] == "4" and at.query_params["width"] == "16"
    again = _open(page, **_params(at))
    assert (again.number_input(key="dn_height").value, again.number_input(key="dn_width").value) == (4, 16)


def test_the_data_pages_choices_come_back_from_the_link():
    page = "pages/1_Data.py"
    at = _open(page, data="iris")
    at.selectbox(key="label_column").set_value(NO_LABEL).run()
    at.multiselect(key="feature_columns").set_value(["sepal length (cm)", "petal width (cm)"]).run()
    at.number_input(key="max_rows").set_value(60).run()
    _ok(at, "choices")
    again = _open(page, **_params(at))
    assert again.selectbox(key="label_column").value == NO_LABEL
    assert again.multiselect(key="feature_columns").value == ["sepal length (cm)", "petal width (cm)"]
    assert again.number_input(key="max_rows").value == 60
    assert again.session_state["_dataset"].n == 60  # the cap is applied: the view has 60 rows, not 150


def test_a_few_selected_rows_travel_as_row_numbers():
    at = _open(data="iris")
    at.session_state[SELECTION] = {"table": "sample:iris", "rows": [3, 4, 5, 40], "from": "data_scatter",
                                   "fresh": False}
    at.run()
    assert at.query_params["sel"] == "3-5,40"
    again = _open(**_params(at))
    assert again.session_state[SELECTION]["rows"] == [3, 4, 5, 40]


def test_a_large_selection_travels_as_its_box_and_selects_the_same_rows():
    at = _open("pages/1_Data.py", data="two_moons")
    ds = at.session_state["_dataset"]
    box = {"kind": "box", "xref": "x", "x": [-1.2, 0.6], "y": [-0.6, 1.2]}
    rows = rows_in_region(ds.X[:, 0], ds.X[:, 1], ds.row_ids, box)
    assert rows.size > LINK_MAX_ROWS
    at.session_state[SELECTION] = {"table": "sample:two_moons", "rows": rows.tolist(), "from": "data_scatter",
                                   "fresh": False, "regions": [box]}
    at.run()
    params = _params(at)
    assert "sel" not in params and params["sel_chart"] == "data_scatter" and "box" in params["sel_region"]
    again = _open("pages/1_Data.py", **params)
    assert np.array_equal(again.session_state[SELECTION]["rows"], rows)


@pytest.mark.parametrize("query, says", [
    ({"label": "no_such_column"}, "Ignored label='no_such_column' from the link: the data have no column of that name"),
    ({"k": "500"}, "The link's k=500 is outside 2..100 here: k = 100"),
    ({"method": "pca"}, "Ignored method='pca' from the link: use one of diffusion, eigenmaps, clustering"),
    ({"features": ["sepal length (cm)", "nope"]}, "'nope' is not a numeric column of the data"),
    ({"cap": "many"}, "Ignored cap='many' from the link: not a number"),
    ({"sel": "1-x"}, "Ignored sel='1-x' from the link: not a list of row numbers"),
    ({"sel": "2,5000"}, "The link's selection names 1 rows beyond the 150 rows of the data"),
])
def test_a_link_that_cannot_be_restored_in_full_says_which_part_and_keeps_the_rest(query, says):
    at = _open(data="iris", ell=6.5, dims="3-D", **query)
    notes = _notes(at)
    assert any(says in note for note in notes), notes
    assert len(notes) == 1, notes
    assert at.session_state["ell"] == 6.5 and at.session_state["emb_dims"] == "3-D"  # the rest is applied


def test_a_link_to_a_file_not_here_says_so_and_keeps_the_rest():
    at = _open(data="file:gone.csv", label="label", k=5)
    notes = _notes(at)
    assert any("gone.csv" in n and "without the link's column choices" in n for n in notes), notes
    assert at.session_state["sp_clusters"] == 5


def test_a_link_to_an_upload_applies_its_column_choices_once_the_file_is_uploaded():
    at = _open(data="upload:mine.csv", label="", k=4)
    notes = _notes(at)
    assert any("mine.csv" in n and "column choices" in n for n in notes), notes
    rows = "\n".join(f"{a:.4f},{b:.4f},{'xyz'[i % 3]}" for i, (a, b) in
                     enumerate(np.random.default_rng(0).normal(size=(90, 2))))
    at.switch_page("pages/1_Data.py").run()
    at.file_uploader(key="uploader").set_value(("mine.csv", ("p,q,group\n" + rows).encode(), "text/csv")).run()
    _ok(at, "uploaded")
    assert at.session_state["_dataset"].label_name is None  # the link's "no label", not the guessed "group"
    assert at.query_params["label"] == "" and at.query_params["k"] == "4"
