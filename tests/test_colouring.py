"""Colouring rows by any column (rskpca.plotting.colouring) and the row charts built on it: text, integer and float
labels with any number of classes, missing values, "other", symbols, escaped hover; the density's colours; marker
size and opacity; the pages on a 26-class text label."""

from __future__ import annotations

import hashlib
import io
import json
from pathlib import Path

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import pytest
from streamlit.testing.v1 import AppTest

from images import png_pixels
from rskpca import plotting as plots
from rskpca.core.shadow import shadow_centers
from rskpca.plotting import CLASS_COLORS, CLASS_SYMBOLS, MAX_CLASSES, colouring
from rskpca.plotting._style import class_color_marker

APP = str(Path(__file__).resolve().parents[1] / "app.py")
LETTERS = [chr(ord("A") + i) for i in range(26)]


def letters_table(n: int = 1300, d: int = 16, seed: int = 0) -> pd.DataFrame:
    """A realistic labelled file: 26 Gaussian blobs rounded to integers 0..15 (many ties), label "A".."Z"."""
    rng = np.random.default_rng(seed)
    means = rng.uniform(3, 12, size=(26, d))
    lab = rng.integers(0, 26, size=n)
    X = np.clip(np.rint(means[lab] + rng.normal(scale=1.5, size=(n, d))), 0, 15).astype(int)
    df = pd.DataFrame(X, columns=[f"f{j}" for j in range(d)])
    df["letter"] = np.array(LETTERS)[lab]
    return df


# --------------------------------------------------------------------------- colouring


def test_26_text_classes_each_have_a_look_of_their_own():
    y = np.array(LETTERS * 3)
    c = colouring(y, name="letter")
    assert not c.continuous and c.classes == tuple(LETTERS) and c.counts == (3,) * 26 and c.note == ""
    looks = set(zip(c.colors, c.symbols))
    assert len(looks) == 26 and len(set(c.colors)) == 26  # 26 colours: no symbol needed yet
    assert [c.classes[k] for k in c.codes[:3]] == ["A", "B", "C"]


def test_every_class_colour_is_far_from_every_other_not_only_from_its_neighbours():
    # Seen: clusters 10, 11 and 12 took Dark24's blue, pink and green, look-alikes of D3's 1, 7 and 3; then, picked
    # by CIE76 distance, two pinks 7.5 apart in CIEDE2000 (the eye's measure: about 1 is just noticed side by side).
    from rskpca.plotting._palette import ciede2000, lab

    L = lab(CLASS_COLORS)
    gaps = ciede2000(L[:, None, :], L[None, :, :])
    np.fill_diagonal(gaps, np.inf)
    assert len(CLASS_COLORS) == 30 and gaps.min() >= 16.0
    assert list(CLASS_COLORS[:9]) == [c.upper() for c in plots.PALETTE[:7] + plots.PALETTE[8:10]]  # D3, no grey
    assert all(lab([c])[0, 0] <= 80 for c in CLASS_COLORS)  # none pale on the white background


def test_the_written_out_palettes_are_the_farthest_first_picks():
    from plotly.colors import qualitative

    from rskpca.plotting._palette import PALETTE, farthest_first

    assert farthest_first(qualitative.D3, 30) == PALETTE
    assert farthest_first([c for c in qualitative.D3 if c != "#7F7F7F"], 30) == CLASS_COLORS


def test_ciede2000_matches_sharma_wu_and_dalals_test_data():
    # Sharma, Wu & Dalal (2005), Table 1: pairs 1, 7, 13, 17, 19, 25 and 34 (hue wrap, achromatic, blue region).
    from rskpca.plotting._palette import ciede2000

    pairs = [((50.0, 2.6772, -79.7751), (50.0, 0.0, -82.7485), 2.0425),
             ((50.0, 0.0, 0.0), (50.0, -1.0, 2.0), 2.3669),
             ((50.0, 2.49, -0.001), (50.0, -2.49, 0.0011), 7.2195),
             ((50.0, 2.5, 0.0), (73.0, 25.0, -18.0), 27.1492),
             ((50.0, 2.5, 0.0), (50.0, 3.1736, 0.5854), 1.0),
             ((60.2574, -34.0099, 36.2677), (60.4626, -34.1751, 39.4387), 1.2644),
             ((2.0776, 0.0795, -1.135), (0.9033, -0.0636, -0.5514), 0.9082)]
    got = ciede2000(np.array([p[0] for p in pairs]), np.array([p[1] for p in pairs]))
    np.testing.assert_allclose(got, [p[2] for p in pairs], atol=1e-4)


def test_100_text_classes_keep_the_largest_and_merge_the_rest_as_other_said_in_the_legend():
    names = [f"class {i:03d}" for i in range(100)]
    y = np.array(names + ["class 050"] * 10 + ["class 099"] * 5)
    c = colouring(y, name="kind")
    assert len(c.classes) == MAX_CLASSES and c.classes[-1] == "other"
    assert "class 050" in c.classes and "class 099" in c.classes  # the largest kept
    assert c.counts[-1] == 100 - (MAX_CLASSES - 1) and sum(c.counts) == y.size
    assert c.note == f'the {MAX_CLASSES - 1} largest of 100 classes; the other {100 - MAX_CLASSES + 1} as "other"'
    assert "other" in c.legend_title and c.legend_title.startswith("kind")
    # up to MAX_CLASSES looks differ: past the colours, the next symbol
    own = list(zip(c.colors, c.symbols))[:-1]
    assert len(set(own)) == len(own) and c.symbols[len(CLASS_COLORS)] == CLASS_SYMBOLS[1]
    # a row of "other" still shows its own value on hover
    row = int(np.flatnonzero(y == "class 098")[0])  # (ties: the first in sorted order keep their look)
    assert c.classes[c.codes[row]] == "other" and c.row_text[row] == "class 098"


def test_numeric_labels_are_classes_and_a_float_measurement_is_continuous():
    assert colouring(np.arange(40) % 7).classes == tuple(str(i) for i in range(7))
    assert colouring(np.array([1.0, 2.0, 1.0])).classes == ("1", "2")  # class codes read as floats
    ints = colouring(np.arange(200))  # 200 integer classes: the largest and "other", never a scale
    assert not ints.continuous and ints.classes[-1] == "other"
    measured = colouring(np.random.default_rng(0).normal(size=500), name="x")
    assert measured.continuous and measured.values.shape == (500,)
    assert not colouring(np.random.default_rng(0).normal(size=500), continuous=False).continuous
    assert colouring(np.arange(5), continuous=True).continuous
    with pytest.raises(ValueError, match="holds text"):
        colouring(np.array(["a", "b"]), name="letter", continuous=True)


def test_missing_values_are_a_class_of_their_own():
    c = colouring(np.array(["a", None, "b", np.nan], dtype=object))
    assert c.classes == ("a", "b", "(missing)") and c.codes.tolist() == [0, 2, 1, 2] and c.counts == (1, 1, 2)
    f = colouring(np.array([1.0, np.nan, 2.0]))
    assert f.classes == ("1", "2", "(missing)")
    cont = colouring(np.r_[np.linspace(0, 1, 100), np.nan])
    assert cont.continuous and np.isnan(cont.values[-1])


def test_hover_escapes_user_text_and_names_row_label_and_features():
    y = np.array(["<b>x</b> & %{y}", "plain"] * 5)
    X = np.arange(20.0).reshape(10, 2)
    hover = plots.hover_columns(X, ["<i>f</i>", "g"], label=y, label_name="lab<el>")
    fig = plots.data_figure(X, y=y, label_name="lab<el>", row_ids=np.arange(10) + 100, hover_data=hover)
    tpl = fig.data[0].hovertemplate
    assert "&lt;b&gt;x&lt;/b&gt; &amp; &#37;{y}" in tpl and "lab&lt;el&gt;" in tpl  # shown as text
    assert "&lt;i&gt;f&lt;/i&gt; %{customdata[1]" in tpl and "g %{customdata[2]" in tpl
    assert fig.data[0].customdata[0].tolist() == [100.0, 0.0, 1.0]  # row first, then the features
    # colouring by a feature: the label travels per row, escaped
    fig = plots.data_figure(X, y=X[:, 1], label_name="g", hover_data=hover)
    custom = np.asarray(fig.data[0].customdata, dtype=object)
    assert "&lt;b&gt;x&lt;/b&gt; &amp; &#37;{y}" in custom[:, 1].tolist()


def test_the_rows_of_other_show_their_own_value_on_hover():
    y = np.array([f"c{i:03d}" for i in range(100)])
    fig = plots.data_figure(np.random.default_rng(0).normal(size=(100, 2)), y=y, point_budget=10_000)
    other = next(t for t in fig.data if t.name == "other")
    assert "label %{customdata[1]}" in other.hovertemplate and set(np.asarray(other.customdata)[:, 1]) <= set(y)


# --------------------------------------------------------------------------- the figures on a 26-class text label


@pytest.mark.parametrize("n", [1300, 30_000])
def test_row_figures_draw_a_26_class_text_label(n):
    df = letters_table(n)
    X = df.drop(columns="letter").to_numpy(float)
    y = df["letter"].to_numpy()
    X2 = X[:, :2] + np.random.default_rng(1).normal(scale=0.2, size=(n, 2))
    s = shadow_centers(X2, sigma=3.0, ell=3.0)
    hover = plots.hover_columns(X, list(df.columns[:-1]), label=y, label_name="letter")
    figs = [plots.data_figure(X2, y=y, label_name="letter", hover_data=hover),
            plots.shadow_figure(X2, s.labels, s.center_indices, s.weights, y=y, label_name="letter", hover_data=hover),
            plots.embedding_figure({"a": X2, "b": -X2}, y=y, label_name="letter", hover_data=hover,
                                   centers=(s.center_indices, s.weights)),
            plots.embedding_figure({"a": np.c_[X2, X2[:, :1]]}, y=y, label_name="letter", dims=3),
            plots.cluster_figure(X2, np.arange(n) % 26, label=y, label_name="letter")]
    for fig in figs:
        go.Figure(fig.to_dict())  # valid as plotly checks it
        names = {t.name for t in fig.data if t.type in ("scatter", "scattergl", "scatter3d")}
        assert set(LETTERS) <= names or set(map(str, range(1, 27))) <= names or "shadow centers" in names, names


def test_one_trace_per_class_grouped_across_panels_so_a_legend_click_hides_it_everywhere():
    y = np.array(LETTERS * 10)
    Z = np.random.default_rng(0).normal(size=(260, 2))
    fig = plots.embedding_figure({"a": Z, "b": Z, "c": Z}, y=y)
    groups = {}
    for t in fig.data:
        groups.setdefault(t.legendgroup, []).append(t)
    assert set(groups) == set(LETTERS) and all(len(g) == 3 for g in groups.values())
    assert all(sum(t.showlegend for t in g) == 1 for g in groups.values())  # one legend entry per class


# --------------------------------------------------------------------------- density in the column's colours


def test_a_bin_of_only_class_a_has_as_colour_and_a_mixed_bin_mixes():
    c = colouring(np.array(["A"] * 10 + ["B"] * 10 + ["A"] * 5 + ["B"] * 5))
    x = np.r_[np.zeros(10), np.ones(10), np.full(10, 0.5)]
    rgba, counts, _, _ = plots.class_density(x, np.zeros(30), c, bins=3, ranges=[[0, 1], [0, 1]])
    a, b = c.rgb()
    assert np.allclose(rgba[0, 0, :3], a, atol=0.5) and np.allclose(rgba[0, 2, :3], b, atol=0.5)
    assert np.allclose(rgba[0, 1, :3], (a + b) / 2, atol=0.5)  # half A, half B
    assert rgba[1, 1, 3] == 0 and rgba[0, 0, 3] > 0 and counts[0].tolist() == [10, 10, 10]


def test_the_data_figures_density_keeps_the_labels_colours():
    rng = np.random.default_rng(0)
    means = np.array([[0.0, 0.0], [10.0, 0.0]])
    lab = rng.integers(0, 2, size=30_000)
    X = means[lab] + rng.normal(size=(30_000, 2))
    fig = plots.data_figure(X, y=np.array(["left", "right"])[lab])
    image = next(t for t in fig.data if t.type == "image")
    px = png_pixels(image.source)
    c = colouring(np.array(["left", "right"]))
    col = [int((x - (image.x0 - image.dx / 2)) // image.dx) for x in (0.0, 10.0)]  # the bins at the means
    row = int((0.0 - (image.y0 - image.dy / 2)) // image.dy)
    left, right = px[row, col[0], :3].astype(float), px[row, col[1], :3].astype(float)
    assert np.allclose(left, c.rgb()[0], atol=1) and np.allclose(right, c.rgb()[1], atol=1)
    assert [t.name for t in fig.data if t.type == "scatter"] == ["left", "right"]  # the key


def test_crowded_points_switch_to_the_density_below_the_budget():
    rng = np.random.default_rng(0)
    piles = np.repeat(np.eye(2) * 20, 2500, axis=0) + rng.normal(scale=0.2, size=(5000, 2))
    assert plots.draws_density(plots.data_figure(piles))
    assert not plots.draws_density(plots.data_figure(rng.uniform(size=(5000, 2))))


# --------------------------------------------------------------------------- markers and centers


def test_marker_size_and_opacity_fall_as_points_grow():
    styles = [plots.marker_style(n) for n in (10, 100, 1_000, 10_000, 100_000)]
    sizes, opacities = [s["size"] for s in styles], [s["opacity"] for s in styles]
    assert sizes == sorted(sizes, reverse=True) and sizes[0] > sizes[-1]
    assert opacities == sorted(opacities, reverse=True) and opacities[0] > opacities[-1]
    assert plots.marker_style(100, dims=3)["size"] < plots.marker_style(100)["size"]


def test_center_sizes_grow_with_weight_within_a_bound_that_shrinks_with_m():
    few = plots.center_sizes(np.array([1, 4, 9, 16]))
    many = plots.center_sizes(np.arange(1, 5172))
    assert np.all(np.diff(few) > 0) and few.max() <= 16 and many.max() <= 8 and many.min() >= 3
    # the heaviest of the 5,171 centers stay larger than its 20,000 rows drawn as points
    assert many.max() > 1.5 * plots.marker_style(20_000)["size"]


def test_centers_can_be_hidden():
    X = np.random.default_rng(0).normal(size=(300, 2))
    s = shadow_centers(X, sigma=1.0, ell=2.0)
    fig = plots.shadow_figure(X, s.labels, s.center_indices, s.weights, eps=s.eps, show_centers=False)
    assert [t.name for t in fig.data] == ["points"]
    fig = plots.embedding_figure({"a": X}, centers=(s.center_indices, s.weights))
    centers = [t for t in fig.data if t.name == "shadow centers"]
    assert centers and centers[0].marker.line.width < 1.5 and max(centers[0].marker.size) <= 16


# --------------------------------------------------------------------------- the pages on a 26-class text label


@pytest.fixture(scope="module")
def letters_csv() -> bytes:
    buf = io.StringIO()
    table = letters_table(1300)
    # a text column that is neither label nor feature, with missing values (the label stays the last column)
    table.insert(0, "batch", np.where(np.arange(1300) % 50 == 0, None, np.where(np.arange(1300) % 2, "<odd>", "even")))
    table.to_csv(buf, index=False)
    return buf.getvalue().encode()


def _open(data: bytes, page: str, **session) -> AppTest:
    from rskpca.ui.keys import UPLOAD, UPLOADED

    at = AppTest.from_file(APP, default_timeout=300)
    at.session_state[UPLOADED] = {"name": "letters.csv", "digest": hashlib.sha256(data).hexdigest(), "bytes": data}
    at.session_state["source"] = UPLOAD
    for key, value in session.items():
        at.session_state[key] = value
    at.run()
    at.switch_page(page).run()
    assert not at.exception, [e.message for e in at.exception]
    return at


def _chart(at, key: str) -> dict:
    from charts import drawn_charts

    return next(fig for k, fig in drawn_charts(at) if k == key)


@pytest.mark.parametrize("page, chart", [("pages/1_Data.py", "data_scatter"),
                                         ("pages/2_Shadow_centers.py", "shadow_scatter"),
                                         ("pages/4_Embeddings.py", "emb_scatter")])
def test_pages_colour_by_a_26_class_text_label_and_by_any_column(letters_csv, page, chart):
    at = _open(letters_csv, page)
    names = {t.get("name") for t in _chart(at, chart)["data"]}
    assert set(LETTERS) <= names or any(t.get("type") == "image" for t in _chart(at, chart)["data"]), names
    (choice,) = [s for s in at.selectbox if s.key == "colour_column"]
    assert choice.value == "(the label column)" and {"f3", "batch"} <= set(choice.options)
    choice.set_value("f3").run()  # a feature: its own values (0..15) as classes
    assert not at.exception, [e.message for e in at.exception]
    fig = _chart(at, chart)
    assert "f3" in json.dumps(fig["layout"].get("legend", {}))
    [s for s in at.selectbox if s.key == "colour_column"][0].set_value("batch").run()  # text, missing values
    assert not at.exception, [e.message for e in at.exception]
    legend = {t.get("name") for t in _chart(at, chart)["data"]}
    assert {"&lt;odd&gt;", "even", "(missing)"} <= legend or any(t.get("type") == "image"
                                                                for t in _chart(at, chart)["data"]), legend


def test_a_chart_grows_to_show_every_class_in_its_legend_up_to_a_bound():
    # Seen: usps' ten digits showed 0-8 in the legend, the tenth behind a small scrollbar; 26 letters, 12.
    # What Chromium draws: tests/test_e2e_legends.py. Here the arithmetic, with no gap between entries.
    from rskpca.plotting._colouring import MAX_LEGEND_HEIGHT

    X = np.random.default_rng(0).normal(size=(520, 2))
    y = np.array(LETTERS * 20)
    for fig in (plots.embedding_figure({"ShDE + RSKPCA": X}, y=y, label_name="letter"),
                plots.data_figure(X, y=y, label_name="letter")):
        assert 20 * 27 + 30 <= fig.layout.height <= MAX_LEGEND_HEIGHT
        assert fig.layout.legend.tracegroupgap == 0
    assert plots.data_figure(X, y=np.arange(520) % 3).layout.height == 450  # a short legend: the usual height
    assert plots.data_figure(X, y=np.arange(520) % 100).layout.height == MAX_LEGEND_HEIGHT  # then it scrolls
    ten = plots.embedding_figure({"ShDE + RSKPCA": X}, y=np.arange(520) % 10, centers=(np.arange(50), np.ones(50)))
    assert ten.layout.height >= 30 + 20 * 11 + ten.layout.margin.t + ten.layout.margin.b  # usps: 0-8 shown before


def test_text_classes_are_ordered_as_read_numbers_within_them_compared_as_numbers():
    values = np.array(["class_10", "class_2", None, "class_1", "class_2", "b"], dtype=object)
    c = colouring(values)
    assert c.classes == ("b", "class_1", "class_2", "class_10", "(missing)")
    assert [c.classes[code] for code in c.codes] == ["class_10", "class_2", "(missing)", "class_1", "class_2", "b"]
    assert c.counts == (1, 1, 2, 1, 1)


def _plotly_js_colour(value: float, colorscale, cmin: float, cmax: float) -> str:
    """The colour plotly.js gives ``value`` on a stepped scale: its edges at ``cmin + s (cmax - cmin)``, in
    double precision, and a value on an edge taking the later stop's colour (``Colorscale.extractScale``,
    d3's ``scaleLinear``, which bisects to the right). Checked in Chromium against plotly.js at 60 colours."""
    import bisect

    edges = [cmin + float(s) * (cmax - cmin) for s, _ in colorscale]
    return colorscale[min(max(bisect.bisect_right(edges, value) - 1, 0), len(colorscale) - 1)][1]


def _colour_of_points(trace) -> list[str]:
    """Each point's colour of a trace coloured by :func:`class_color_marker`, as plotly.js computes it."""
    m = trace.marker
    return [_plotly_js_colour(float(code), m.colorscale, m.cmin, m.cmax) for code in m.color]


@pytest.mark.parametrize("ncol", range(1, 121))
def test_every_code_gets_its_own_colour_as_plotly_js_computes_the_scale(ncol):
    # Seen: with 60 colours, (31 / 60) * 60 = 31.000000000000004, so on a scale from 0 to 60 code 31 took
    # code 30's colour in the browser (one small class blue in the scrubber and orange in the main chart).
    colors = [f"#{i:06x}" for i in range(ncol)]
    m = class_color_marker(np.arange(ncol), colors)
    scale = [[float(s), c] for s, c in m["colorscale"]]
    assert [_plotly_js_colour(float(v), scale, m["cmin"], m["cmax"]) for v in m["color"]] == colors


def test_a_sample_lacking_a_class_keeps_every_other_class_colour_in_the_scrubber():
    # Seen: the Embeddings page's scrubber coloured exact KPCA's sample by its own classes, so a class missing
    # from the sample (or, past 59 classes, other largest classes) shifted every colour after it.
    from rskpca.plotting import embedding_scrubber_figure

    y = np.array(["a", "b", "c"] * 10)
    rows = np.flatnonzero(y != "b")  # the sample has no "b"
    E = np.random.default_rng(0).normal(size=(rows.size, 2))
    fig = embedding_scrubber_figure(E, [dict(ell=1.0, embedding=E, m=5, n=rows.size)],
                                    y=colouring(y, name="letter").subset(rows))
    colours = _colour_of_points(fig.data[0])
    assert {c for c, label in zip(colours, y[rows]) if label == "c"} == {CLASS_COLORS[2]}
    # a column of values is coloured by its own classes, as before
    plain = embedding_scrubber_figure(E, [dict(ell=1.0, embedding=E, m=5, n=rows.size)], y=y[rows])
    assert {c for c, label in zip(_colour_of_points(plain.data[0]), y[rows])
            if label == "c"} == {CLASS_COLORS[1]}
    with pytest.raises(ValueError, match="colours 30 rows but there are 20 points"):
        embedding_scrubber_figure(E, [dict(ell=1.0, embedding=E, m=5, n=rows.size)], y=colouring(y))


def test_two_clusterings_give_a_cluster_one_colour_whichever_clusters_each_has():
    from types import SimpleNamespace

    from rskpca.ui.spectral_views import cluster_colourings

    reduced = SimpleNamespace(clusters=np.repeat(np.arange(4), 5))
    exact = SimpleNamespace(clusters=np.repeat([2, 0, 0, 3], 5))  # three clusters: one of the four is missing
    one, two = cluster_colourings(reduced, exact)
    assert one.classes == two.classes and one.colors == two.colors
    # matched: exact's clusters take the numbers of the reduced clusters they share rows with
    assert np.array_equal(two.codes[:5], one.codes[:5]) and np.array_equal(two.codes[15:], one.codes[15:])
    assert np.unique(two.codes[5:15]).size == 1 and two.codes[5] in one.codes[5:15]
    many = SimpleNamespace(clusters=np.arange(200) % 100)
    (alone,) = cluster_colourings(many)
    assert alone.note == 'the 59 largest of 100 clusters; the other 41 as "other"'
