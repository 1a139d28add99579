"""AppTest: above the point budget the Data and Shadow centers charts draw the density of all rows and say so.

About 25,000 rows uploaded (as a file in the session, the way ``tests/benchmarks/bench_row_cap.py`` gives
one), the row cap above them: both charts are a histogram of every row (the Shadow centers chart with the
centers on top), their titles say what is aggregated, and a caption says a box selects the rows inside it.
"""

import hashlib

import numpy as np
import pandas as pd
import pytest
from charts import drawn_charts
from images import png_pixels
from streamlit.testing.v1 import AppTest
from test_app import APP, TIMEOUT, _array, _ok

from rskpca.plotting import POINT_BUDGET, density_bins
from rskpca.ui.keys import UPLOAD, UPLOADED

N = 25_000


@pytest.fixture(scope="module")
def at():
    rng = np.random.default_rng(0)
    means = np.array([[0.0, 0.0], [4.0, 0.0], [0.0, 4.0]])
    lab = rng.integers(0, 3, size=N)
    X = means[lab] + rng.normal(scale=0.6, size=(N, 2))
    data = pd.DataFrame({"a": X[:, 0].round(4), "b": X[:, 1].round(4), "label": lab}).to_csv(index=False).encode()
    app = AppTest.from_file(APP, default_timeout=TIMEOUT)
    app.session_state[UPLOADED] = {"name": "blobs.csv", "digest": hashlib.sha256(data).hexdigest(), "bytes": data}
    app.session_state["source"] = UPLOAD
    app.session_state["max_rows"] = N
    app.query_params["ell"] = "2"  # a few hundred centers: the shadow stays quick at 25,000 rows
    return app.run()


def _chart(at, key: str) -> dict:
    return dict(drawn_charts(at))[key]


@pytest.mark.parametrize("page,key,centers", [("pages/1_Data.py", "data_scatter", False),
                                              ("pages/2_Shadow_centers.py", "shadow_scatter", True)])
def test_charts_above_the_budget_draw_the_density_of_every_row_and_say_so(at, page, key, centers):
    assert N > POINT_BUDGET
    at.switch_page(page).run()
    _ok(at, page)
    spec = _chart(at, key)
    kinds = [(t["type"], t.get("name")) for t in spec["data"]]
    assert ("image", "density") in kinds, kinds  # the rows' density in the label's colours (a PNG)
    heat = next(t for t in spec["data"] if t["type"] == "image")
    bins = density_bins(N)
    assert png_pixels(heat["source"]).shape == (bins, bins, 4)
    # no trace holds a point per row
    assert all(_array(t.get("x", [])).size < 2_000 for t in spec["data"] if t["type"] != "image")
    note = spec["layout"]["title"]["subtitle"]["text"]
    assert note.startswith(f"density of {N:,} rows in {bins} x {bins} bins"), note
    if centers:
        drawn = next(t for t in spec["data"] if t.get("name") == "shadow centers")
        m = _array(drawn["x"]).size
        assert f"{m:,} shadow centers on top (sized by weight)" in note
    else:
        assert _array(heat["customdata"]).astype(np.int64).sum() == N  # hover counts: every row in a bin
    assert any("a box or lasso selects" in c.value and "every row inside it" in c.value for c in at.caption), page
