"""Linked selections: points -> rows, rows -> table and absorbing centers, highlighting, and the app's glue.

The browser half (a real box selection) is in ``tests/test_e2e_selection.py``; here the
pure functions are checked against literal loops and the app through AppTest, with the
selection set in the session as the chart's callback would set it.
"""

import base64
from pathlib import Path

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import pytest
from charts import chart_specs
from streamlit.testing.v1 import AppTest

from rskpca import plotting as plots
from rskpca.core.shadow import shadow_centers
from rskpca.plotting._selection import DIMMED_OPACITY
from rskpca.data.selected_rows import absorbing_centers, positions_of_rows, selected_rows_table
from rskpca.ui.keys import SELECTION

ROOT = Path(__file__).resolve().parent.parent
TIMEOUT = 300


# --------------------------------------------------------------------------- points -> rows


def test_rows_from_points_reads_the_first_customdata_field_of_any_trace():
    points = [
        {"curve_number": 0, "point_index": 3, "customdata": [12, 4]},       # shadow points: [row, set]
        {"curve_number": 0, "point_index": 4, "customdata": {"0": 20, "1": 4}},  # as the browser sends a row
                                                                            # of a base64-encoded array
        {"curve_number": 1, "point_index": 0, "customdata": [12, 0, 5.0]},  # the same row as a center
        {"curve_number": 2, "point_index": 1, "customdata": ["7", "setosa"]},  # embeddings: strings
        {"curve_number": 0, "point_index": 9, "customdata": 3},             # density points: a scalar
        {"curve_number": 3, "point_index": 0, "x": 1.0, "y": 2.0},          # a line: no row
        {"customdata": ["not a row"]},
    ]
    assert plots.rows_from_points(points).tolist() == [3, 7, 12, 20]
    assert plots.rows_from_points([]).dtype == np.int64


# --------------------------------------------------------------------------- rows -> positions, table, centers


def test_positions_of_rows_keeps_the_data_order_and_skips_rows_not_in_the_data():
    row_ids = np.array([40, 3, 17, 8, 25])
    assert positions_of_rows(row_ids, [8, 40, 1000]).tolist() == [0, 3]
    assert positions_of_rows(row_ids, []).tolist() == []


def test_selected_rows_table_has_row_numbers_features_and_label():
    X = np.arange(12.0).reshape(4, 3)
    table = selected_rows_table(X, [10, 11, 12, 13], [13, 11], feature_names=["a", "row", "c"],
                                y=np.array(["p", "q", "r", "s"]), label_name="class")
    assert list(table.columns) == ["row", "a", "row", "c", "class"]
    assert table.iloc[:, 0].tolist() == [11, 13]
    np.testing.assert_array_equal(table[["a", "c"]].to_numpy(), X[[1, 3]][:, [0, 2]])
    assert table["class"].tolist() == ["q", "s"]
    csv = table.to_csv(index=False).splitlines()
    assert csv[0] == "row,a,row,c,class" and csv[1].startswith("11,3.0,4.0,5.0,q")
    with pytest.raises(ValueError, match="row_ids has 2 entries"):
        selected_rows_table(X, [1, 2], [1])


def test_absorbing_centers_matches_a_literal_count_on_a_real_shadow():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(400, 2))
    s = shadow_centers(X, sigma=1.0, ell=3.0)
    row_ids = np.arange(400) * 2 + 100  # original row numbers differ from positions
    selected = row_ids[rng.choice(400, size=60, replace=False)]
    table = absorbing_centers(s.labels, s.center_indices, s.weights, row_ids, np.append(selected, 5))
    literal = {}
    for i in range(400):
        if row_ids[i] in set(selected.tolist()):
            literal[int(s.labels[i])] = literal.get(int(s.labels[i]), 0) + 1
    assert dict(zip(table["center"], table["absorbed"])) == literal
    assert table["absorbed"].sum() == 60 and table["absorbed"].is_monotonic_decreasing
    for row in table.itertuples():
        assert row.center_row == row_ids[s.center_indices[row.center]]
        assert row.weight == s.weights[row.center] >= row.absorbed
        assert row.share_of_weight == pytest.approx(row.absorbed / row.weight)
    # The selected rows each lie within eps of the center that absorbed them (Algorithm 2).
    pos = positions_of_rows(row_ids, selected)
    assert np.all(s.distances_to_centers(X)[pos] <= s.eps * (1 + 1e-12))


def test_absorbing_centers_rejects_mismatched_inputs():
    with pytest.raises(ValueError, match="labels has 2 entries"):
        absorbing_centers([0, 0], [0], [2], [1, 2, 3], [1])
    with pytest.raises(ValueError, match="center numbers"):
        absorbing_centers([0, 5], [0], [2], [1, 2], [1])


# --------------------------------------------------------------------------- highlighting


def _rows_of(trace) -> list[int]:
    custom = np.asarray(trace.customdata, dtype=object)
    return [int(v) for v in (custom[:, 0] if custom.ndim == 2 else custom)]


def _place(trace) -> tuple:
    """The subplot a trace is drawn in."""
    return (trace.scene,) if trace.type == "scatter3d" else (trace.xaxis, trace.yaxis)


@pytest.fixture
def blobs():
    rng = np.random.default_rng(0)
    X = np.vstack([rng.normal(c, 0.3, size=(60, 2)) for c in ([0, 0], [3, 3])])
    return X, shadow_centers(X, sigma=1.0, ell=2.0)


def test_every_scatter_builder_outlines_the_selected_rows_and_dims_the_rest(blobs):
    X, s = blobs
    row_ids = np.arange(120) + 1000
    selected = [1000, 1005, 1077, 5]  # 5 is in no figure
    y = np.repeat(["a", "b"], 60)
    figures = {
        "data": plots.data_figure(X, y=y, row_ids=row_ids, selected_rows=selected),
        "shadow": plots.shadow_figure(X, s.labels, s.center_indices, s.weights, eps=s.eps, row_ids=row_ids,
                                      selected_rows=selected),
        "embedding": plots.embedding_figure({"Exact": X, "Other": -X}, y=y, row_ids=row_ids, selected_rows=selected),
        "embedding3d": plots.embedding_figure({"Exact": np.c_[X, X[:, 0]]}, y=np.arange(120.0), row_ids=row_ids,
                                              dims=3, selected_rows=selected),
        "densities": plots.density_points_figure(X[:, 0], X[:, 1], row_ids=row_ids, selected_rows=selected),
    }
    for name, fig in figures.items():
        overlays = [t for t in fig.data if t.name == "selected"]
        others = [t for t in fig.data if t.name != "selected" and t.customdata is not None]
        assert overlays, name
        # Every view of a row that is selected has its outlined copy, in the same subplot.
        shown = {r for t in others for r in _rows_of(t)}
        want = sorted(set(selected) & shown)
        assert sorted({r for t in overlays for r in _rows_of(t)}) == want, name
        assert all(t.marker.opacity <= DIMMED_OPACITY for t in others), name
        assert all(t.marker.line.color == "#000000" and t.marker.opacity == 1.0 for t in overlays), name
        for t in others:
            rows = _rows_of(t)
            hit = [i for i, r in enumerate(rows) if r in selected]
            if hit:
                twin = next(o for o in overlays if _place(o) == _place(t) and set(_rows_of(o)) == {rows[i] for i in hit})
                np.testing.assert_allclose(np.asarray(twin.x, float), np.asarray(t.x, float)[hit])
                np.testing.assert_allclose(np.asarray(twin.y, float), np.asarray(t.y, float)[hit])
    assert sum(t.showlegend is True for t in figures["embedding"].data if t.name == "selected") == 1


def test_no_selection_leaves_the_figure_as_it_was(blobs):
    X, s = blobs
    plain = plots.data_figure(X, row_ids=np.arange(120))
    assert plots.highlight_rows(plain, None) is plain
    assert plots.highlight_rows(plain, []) is plain
    assert plots.data_figure(X, row_ids=np.arange(120), selected_rows=[]).to_json() == plain.to_json()
    # highlight_rows copies: the figure it was given is unchanged.
    before = plain.to_json()
    plots.highlight_rows(plain, [3])
    assert plain.to_json() == before


def test_highlight_keeps_a_colour_scale_range_and_per_point_colours():
    fig = go.Figure(go.Scatter(x=[0, 1, 2, 3], y=[0, 1, 2, 3], mode="markers", customdata=[[0], [1], [2], [3]],
                               marker=dict(color=[0.0, 1.0, 2.0, 4.0], colorscale="Viridis")))
    over = plots.highlight_rows(fig, [1]).data[1]
    assert (over.marker.cmin, over.marker.cmax) == (0.0, 4.0) and list(over.marker.color) == [1.0]
    fig = go.Figure(go.Scatter(x=[0, 1], y=[0, 1], mode="markers", customdata=[5, 6], marker=dict(color=["red", "blue"])))
    assert list(plots.highlight_rows(fig, [6]).data[1].marker.color) == ["blue"]


# --------------------------------------------------------------------------- the app (AppTest)


def _decoded(values) -> np.ndarray:
    """An array from a Plotly JSON spec (numeric arrays travel base64-encoded, with their shape)."""
    if isinstance(values, dict) and "bdata" in values:
        arr = np.frombuffer(base64.b64decode(values["bdata"]), dtype=np.dtype(values["dtype"]))
        shape = values.get("shape")
        return arr.reshape([int(k) for k in str(shape).split(",")]) if shape else arr
    return np.asarray(values, dtype=object)


def _spec_overlay_rows(at) -> dict[int, list[int]]:
    """Per chart on the page: the rows drawn in its "selected" traces."""
    out = {}
    for i, spec in enumerate(chart_specs(at)):
        rows = []
        for t in spec["data"]:
            if t.get("name") == "selected":
                cd = _decoded(t["customdata"])
                rows += [int(float(v)) for v in (cd[:, 0] if cd.ndim == 2 else cd)]
        out[i] = sorted(set(rows))
    return out


def _select(at, rows, table="sample:two_moons"):
    at.session_state[SELECTION] = {"table": table, "rows": list(rows), "from": "test", "fresh": False}


@pytest.mark.parametrize("page, sample", [("pages/1_Data.py", "two_moons"), ("pages/2_Shadow_centers.py", "two_moons"),
                                          ("pages/3_KDE_vs_ShDE.py", "wine"), ("pages/4_Embeddings.py", "two_moons"),
                                          ("pages/1_Data.py", "wine")])
def test_a_selection_is_highlighted_and_listed_on_every_page(page, sample):
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=TIMEOUT)
    at.query_params["dataset"] = sample
    at.run()
    _select(at, [0, 1, 2, 150], table=f"sample:{sample}")
    at.switch_page(page).run()
    assert not at.exception, [e.message for e in at.exception]
    highlighted = [rows for rows in _spec_overlay_rows(at).values() if rows]
    assert highlighted and all(rows == [0, 1, 2, 150] for rows in highlighted), highlighted
    tables = [d.value for d in at.dataframe if "row" in d.value.columns and len(d.value) == 4]
    assert tables and sorted(tables[0]["row"]) == [0, 1, 2, 150]
    assert any("Selected: 4 rows" in c.value for c in at.sidebar.caption)
    if "Shadow" in page:
        centers = next(d.value for d in at.dataframe if "absorbed" in d.value.columns)
        assert centers["absorbed"].sum() == 4 and {"center_row", "weight"} <= set(centers.columns)


def test_the_selection_survives_page_switches_clears_in_one_click_and_drops_with_the_data():
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=TIMEOUT).run()
    _select(at, [5, 6])
    at.switch_page("pages/2_Shadow_centers.py").run()
    at.switch_page("pages/1_Data.py").run()
    assert at.session_state[SELECTION]["rows"] == [5, 6]
    at.button(key="selection_clear").click().run()
    assert SELECTION not in at.session_state
    assert all(not rows for rows in _spec_overlay_rows(at).values())
    # Another data set: the rows would mean other rows; the selection is dropped, with a notice.
    _select(at, [5, 6])
    at.run()
    at.sidebar.selectbox(key="source").set_value("wine").run()
    assert not at.exception
    assert SELECTION not in at.session_state
    assert any("selection of 2 rows was cleared" in i.value for i in at.info)
