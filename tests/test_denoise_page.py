"""AppTest of the Denoise page: digits images, noise kinds, the sidebar's ell drives RSKPCA, bad image shape."""


import pytest
from streamlit.testing.v1 import AppTest

from charts import chart_specs, plotly_array
from test_app import APP, TIMEOUT, open_page, _errors, _ok

PAGE = "pages/9_Denoise.py"


def _page(**query) -> AppTest:
    return open_page(PAGE, **query)


def _metrics(at) -> dict:
    return {m.label: float(m.value) for m in at.main.get("metric")}


def _uploaded_page(df, name: str) -> AppTest:
    """The page on ``df`` uploaded as the file ``name``, checked to run."""
    import hashlib

    from rskpca.ui.keys import UPLOAD, UPLOADED

    data = df.to_csv(index=False).encode()
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    at.session_state[UPLOADED] = {"name": name, "digest": hashlib.sha256(data).hexdigest(), "bytes": data}
    at.session_state["source"] = UPLOAD
    at.run()
    at.switch_page(PAGE).run()
    _ok(at, name)
    return at


@pytest.fixture(scope="module")
def digits_page():
    return _page(dataset="digits", ell=2, r=10)


def test_digits_page_shows_every_method_with_images(digits_page):
    at = digits_page
    _ok(at, "denoise")
    mse = _metrics(at)
    assert list(mse) == ["noisy input", "linear PCA", "exact KPCA", "RSKPCA", "Nystrom"]
    assert mse["linear PCA"] < mse["noisy input"] and mse["exact KPCA"] < mse["noisy input"]
    (spec,) = chart_specs(at)
    heatmaps = [t for t in spec["data"] if t["type"] == "heatmap"]
    assert len(heatmaps) == 6  # clean + five rows
    table = at.dataframe[0].value
    assert list(table["method"]) == list(mse)
    assert table["fit time (s)"].iloc[1:].gt(0).all()


def test_ell_drives_rskpca(digits_page):
    at = digits_page
    m_before = int(at.dataframe[0].value.set_index("method").loc["RSKPCA", "points the pre-image map uses"])
    at.slider(key="ell").set_value(4.0).run()
    _ok(at, "denoise ell=4")
    m_after = int(at.dataframe[0].value.set_index("method").loc["RSKPCA", "points the pre-image map uses"])
    assert m_after > m_before


def test_salt_and_pepper_and_fixed_point(digits_page):
    at = digits_page
    at.selectbox(key="dn_noise").set_value("salt_and_pepper").run()
    at.radio(key="dn_preimage").set_value("fixed-point").run()
    _ok(at, "salt and pepper")
    mse = _metrics(at)
    assert mse["exact KPCA"] < mse["noisy input"]


def test_wrong_image_shape_is_a_clear_error():
    at = _page(dataset="digits", ell=2)
    at.number_input(key="dn_height").set_value(7).run()
    _ok(at, "bad shape")
    (msg,) = _errors(at)
    assert "56 pixels" in msg and "64 feature columns" in msg and "8 x 8" in msg
    assert not chart_specs(at)


def test_the_fixed_point_choice_survives_a_laplacian_and_back():
    # a radio with fewer options for the Laplacian reset the Gaussian's choice to ridge (a tryout)
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    at.query_params["dataset"] = "digits"
    at.run()
    at.switch_page("pages/9_Denoise.py").run()
    at.radio(key="dn_preimage").set_value("fixed-point").run()
    at.sidebar.selectbox(key="kernel").set_value("laplacian").run()
    assert not at.exception
    at.sidebar.selectbox(key="kernel").set_value("gaussian").run()
    assert not at.exception
    assert at.radio(key="dn_preimage").value == "fixed-point"


def test_the_page_says_why_when_every_method_is_worse_than_its_input(digits_page):
    """A tryout (usps, r = 5) saw every reconstruction worse than the noisy input and nothing said why."""
    assert not [i for i in digits_page.info if "further from the clean images" in i.value]
    at = _page(dataset="digits", ell=2, r=10)
    at.slider(key="dn_level").set_value(0.0).run()  # no noise: the input is the clean images
    _ok(at, "denoise without noise")
    mse = _metrics(at)
    assert mse["noisy input"] == 0.0 and all(v > 0 for k, v in mse.items() if k != "noisy input")
    notes = [i.value for i in at.info if "further from the clean images" in i.value]
    assert notes and "r = 10 components" in notes[0], [i.value for i in at.info]


def test_sixteen_tabular_features_are_said_not_to_be_images_and_drawn_as_profiles():
    # issue 38 item 9: 16 integer features of a table (a letter-recognition-like file) drawn as 4 x 4 "images"
    import numpy as np
    import pandas as pd

    # (the check is statistical: of 40 such random tables, 1 passes for images; the toggle below is the way out)
    rng = np.random.default_rng(1)
    X = np.clip(np.round(rng.normal(size=(600, 3)) @ rng.normal(size=(3, 16)) + 7), 0, 15)
    df = pd.DataFrame(X.astype(int), columns=[f"f{i}" for i in range(16)])
    df["label"] = rng.choice(list("ABCDEFGHIJKLMNOPQRSTUVWXYZ"), size=len(df))
    at = _uploaded_page(df, "letters.csv")
    (info,) = [i.value for i in at.info if "do not look like 4 x 4 images" in i.value]
    assert "profiles over their features" in info
    (spec,) = chart_specs(at)
    assert not [t for t in spec["data"] if t["type"] == "heatmap"]  # no 4 x 4 pictures
    assert {t["name"].split(" (")[0] for t in spec["data"]} >= {"clean", "noisy input", "RSKPCA"}
    # the user who knows better draws them as images
    at.toggle(key="dn_as_images").set_value(True).run()
    _ok(at, "as images")
    (spec,) = chart_specs(at)
    assert [t for t in spec["data"] if t["type"] == "heatmap"]


def test_digits_are_images():
    at = _page(dataset="digits", ell=2)
    _ok(at, "digits")
    assert not [i for i in at.info if "do not look like" in i.value]


def test_images_that_are_not_square_open_at_their_own_shape():
    # a tryout's 2,000 x 600 face images opened as "1 x 600" and were said not to be images
    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(0)
    faces = np.cumsum(np.cumsum(rng.normal(size=(200, 20, 30)), axis=1), axis=2).reshape(200, 600)
    df = pd.DataFrame(faces.round(3), columns=[f"p{i}" for i in range(600)])
    df["label"] = rng.integers(0, 3, len(df))
    at = _uploaded_page(df, "faces.csv")
    assert (at.number_input(key="dn_height").value, at.number_input(key="dn_width").value) == (20, 30)
    assert not [i for i in at.info if "do not look like" in i.value]
    # stored column by column (MATLAB's order, as the Yale faces are): the same pixels as a 30 x 20 image
    at.toggle(key="dn_column_major").set_value(True).run()
    _ok(at, "column by column")
    assert (at.number_input(key="dn_height").value, at.number_input(key="dn_width").value) == (30, 20)
    assert not [i for i in at.info if "do not look like" in i.value]
    (spec,) = chart_specs(at)
    z = spec["data"][0]["z"]
    shape = z.get("shape") if isinstance(z, dict) else None
    grid = plotly_array(z).reshape([int(v) for v in shape.split(",")]) if shape else np.array(z, dtype=float)
    clean = grid[:, :20]  # the first clean test image
    assert clean.shape == (30, 20)
    test_rows = faces.round(3)
    assert any(np.allclose(clean, row.reshape(30, 20, order="F")) for row in test_rows)
