"""The figure builders: right trace types, WebGL above the threshold, row ids on hover, clear errors."""


import numpy as np
import plotly.graph_objects as go
import pytest

from rskpca import plotting as plots
from rskpca import shadow_centers


@pytest.fixture
def blobs():
    rng = np.random.default_rng(0)
    return np.vstack([rng.normal(size=(60, 2)), rng.normal(loc=5.0, size=(60, 2))])


def test_shadow_figure_marks_every_center_and_draws_eps_discs(blobs):
    s = shadow_centers(blobs, sigma=1.0, ell=2.0)
    fig = plots.shadow_figure(blobs, s.labels, s.center_indices, s.weights, eps=s.eps, row_ids=np.arange(120) + 10)
    points, centers, discs = fig.data
    assert points.type == "scattergl" and len(points.x) == 120
    assert len(centers.x) == s.m
    # the eps-discs are one outline trace (a circle per center, separated by gaps), not m shapes
    assert len(fig.layout.shapes) == 0
    ring = np.column_stack([discs.x, discs.y])
    ring = ring[~np.isnan(ring[:, 0])].reshape(s.m, -1, 2)
    radii = np.linalg.norm(ring - blobs[s.center_indices][:, None, :], axis=2)
    assert np.allclose(radii, s.eps, rtol=1e-5)
    # each polygon within half a pixel of its circle at the chart's usual width, no finer
    segments = ring.shape[1] - 1
    r_px = s.eps / np.ptp(blobs, axis=0).max() * 900
    assert r_px * (1 - np.cos(np.pi / segments)) <= 0.5 and segments < 31
    # marker area grows with the weight: the heaviest center has the largest marker
    assert np.argmax(centers.marker.size) == np.argmax(s.weights)
    # original row numbers travel with the points for hover labels
    assert points.customdata[0][0] == 10


def test_huge_eps_discs_do_not_zoom_the_axes_away_from_the_data(blobs):
    # sigma 1e6 on two moons zoomed the axes to +-200,000 around the 1,000 points (a tryout)
    lo, hi = blobs.min(axis=0), blobs.max(axis=0)
    for sigma, fixed in [(1e6, True), (1.0, False)]:
        s = shadow_centers(blobs, sigma=sigma, ell=4.0)
        fig = plots.shadow_figure(blobs, s.labels, s.center_indices, s.weights, eps=s.eps)
        assert (fig.layout.xaxis.range is not None) == fixed, sigma
        if fixed:
            span = (hi - lo).max()
            assert lo[0] - 0.2 * span < fig.layout.xaxis.range[0] < lo[0] < hi[0] < fig.layout.xaxis.range[1]
            assert fig.layout.xaxis.range[1] < hi[0] + 0.2 * span


def test_shadow_figure_projected_says_so_and_skips_discs(blobs):
    s = shadow_centers(blobs, sigma=1.0, ell=2.0)
    fig = plots.shadow_figure(blobs, s.labels, s.center_indices, s.weights, eps=s.eps, projected=True)
    assert "principal axes" in fig.layout.title.text
    assert [t.name for t in fig.data] == ["points", "centers"]


def test_shadow_figure_hides_discs_when_too_many(blobs):
    s = shadow_centers(blobs, sigma=1.0, ell=8.0)
    fig = plots.shadow_figure(blobs, s.labels, s.center_indices, s.weights, eps=s.eps, max_discs=3)
    assert len(fig.data) == 2 and "hidden" in fig.layout.title.text


def test_shadow_figure_draws_a_subsample_above_its_budget_and_says_so():
    X = np.random.default_rng(3).normal(size=(900, 2))
    s = shadow_centers(X, sigma=1.0, ell=2.0)
    fig = plots.shadow_figure(X, s.labels, s.center_indices, s.weights, eps=s.eps, max_points=300)
    assert len(fig.data[0].x) == 300 and len(fig.data[1].x) == s.m
    assert "300 of 900 points drawn" in fig.layout.title.text


def test_shadow_figure_one_dimensional_data():
    X = np.linspace(0, 1, 30)[:, None]
    s = shadow_centers(X, sigma=1.0, ell=4.0)
    fig = plots.shadow_figure(X, s.labels, s.center_indices, s.weights, eps=s.eps)
    assert np.all(np.asarray(fig.data[0].y) == 0.0)


def test_large_scatters_use_webgl_and_count_contexts():
    n = plots.WEBGL_THRESHOLD + 1
    X = np.random.default_rng(0).normal(size=(n, 2))
    fig = plots.shadow_figure(X, np.zeros(n, int), [0], [n])
    assert fig.data[0].type == "scattergl"
    assert plots.webgl_contexts(fig) == 1
    Z = {"a": X, "b": X, "c": X}
    assert plots.webgl_contexts(plots.embedding_figure(Z)) == 1
    # panels of one figure count together: 5 x 300 points are WebGL, 3 x 300 are SVG
    small = X[:300]
    assert {t.type for t in plots.embedding_figure(dict.fromkeys("abcde", small)).data} == {"scattergl"}
    assert {t.type for t in plots.embedding_figure(dict.fromkeys("abc", small)).data} == {"scatter"}
    g = np.linspace(0, 1, 5)
    fig = plots.density_grid_figure(g, g, np.ones((5, 5)), np.ones((5, 5)), points=X[:700], centers=X[:400])
    assert {t.type for t in fig.data if t.name in ("data", "centers")} == {"scattergl"}
    assert plots.webgl_contexts(plots.embedding_figure({"a": np.c_[X, X[:, 0]]}, dims=3)) == 1


def test_shadow_figure_rejects_mismatched_inputs(blobs):
    with pytest.raises(ValueError, match="labels has 3 entries"):
        plots.shadow_figure(blobs, [0, 1, 2], [0], [120])
    with pytest.raises(ValueError, match="one weight per center"):
        plots.shadow_figure(blobs, np.zeros(120, int), [0, 1], [120])
    with pytest.raises(ValueError, match="row numbers of X2"):
        plots.shadow_figure(blobs, np.zeros(120, int), [500], [120])


def test_density_grid_figure_difference_panel_is_symmetric():
    g = np.linspace(-1, 1, 7)
    kde = np.exp(-np.add.outer(g**2, g**2))
    fig = plots.density_grid_figure(g, g, kde, 0.9 * kde, points=np.zeros((3, 2)), centers=np.zeros((1, 2)))
    diff = fig.data[2]
    assert np.allclose(diff.z, -0.1 * kde)
    assert diff.zmin == -diff.zmax
    with pytest.raises(ValueError, match="shape"):
        plots.density_grid_figure(g, g, kde[:3], kde)


def test_density_curve_points_and_histogram():
    t = np.linspace(0, 1, 11)
    fig = plots.density_curve_figure(t, np.ones(11), np.full(11, 0.5))
    assert np.allclose(fig.data[2].y, -0.5)
    fig = plots.density_points_figure(np.array([0.1, 0.2]), np.array([0.1, 0.3]), row_ids=[7, 8])
    assert list(fig.data[0].customdata) == [7, 8]
    assert plots.error_histogram(np.zeros(5)).data[0].type == "histogram"
    with pytest.raises(ValueError, match="shde has 2 entries"):
        plots.density_curve_figure(t, np.ones(11), np.ones(2))


def test_embedding_figure_one_trace_per_class_and_panel():
    rng = np.random.default_rng(1)
    Z = rng.normal(size=(40, 3))
    y = np.array(["cat", "dog"] * 20)
    fig = plots.embedding_figure({"Exact": Z, "RSKPCA": Z, "Nystrom": Z}, y=y, errors={"RSKPCA": 0.1234})
    assert len(fig.data) == 3 * 2
    assert [t.name for t in fig.data[:2]] == ["cat", "dog"]
    assert sum(t.showlegend for t in fig.data) == 2  # legend entries once, not per panel
    titles = [a.text for a in fig.layout.annotations]
    assert "RSKPCA<br>(err 0.123)" in titles  # the error on a line of its own
    # the row number travels as a number, the class in its trace's hover template
    assert fig.data[0].customdata.dtype.kind == "f" and fig.data[0].customdata[:2, 0].tolist() == [0.0, 2.0]
    assert "label cat" in fig.data[0].hovertemplate and "label dog" in fig.data[1].hovertemplate
    hostile = plots.embedding_figure({"Exact": Z}, y=np.array(["<b>x</b> %{y}", "b"] * 20))
    assert "&lt;b&gt;x&lt;/b&gt; &#37;{y}" in hostile.data[0].hovertemplate  # shown as text, not a variable


def test_embedding_figure_continuous_label_uses_a_colorscale_and_3d_scenes():
    Z = np.random.default_rng(2).normal(size=(50, 3))
    fig = plots.embedding_figure({"Exact": Z, "Other": Z}, y=np.linspace(0, 1, 50), dims=3)
    assert [t.type for t in fig.data] == ["scatter3d", "scatter3d"]
    assert fig.data[0].marker.colorscale is not None
    assert plots.webgl_contexts(fig) == 2
    assert fig.data[0].customdata.shape == (50, 2) and "%{customdata[1]" in fig.data[0].hovertemplate


def test_embedding_figure_errors():
    Z = np.zeros((10, 2))
    with pytest.raises(ValueError, match="raise the rank"):
        plots.embedding_figure({"a": Z}, dims=3)
    with pytest.raises(ValueError, match="same rows"):
        plots.embedding_figure({"a": Z, "b": Z[:5]})
    with pytest.raises(ValueError, match="empty"):
        plots.embedding_figure({})
    with pytest.raises(ValueError, match="dims"):
        plots.embedding_figure({"a": Z}, dims=4)


def test_spectra_bar_and_bounds_figures():
    fig = plots.spectra_figure({"Exact": [0.5, 0.25, 0.1], "RSKPCA": [0.49, 0.26]})
    assert fig.layout.yaxis.type == "log" and len({t.name: t for t in fig.data}["RSKPCA"].x) == 2
    fig = plots.bar_figure({"a": 1.0, "b": float("nan")}, title="t", yaxis_title="v", errors={"a": 0.1})
    assert list(fig.data[0].text) == ["1", "n/a"]
    rows = [{"theorem": "5.1", "a_priori": 0.5, "a_posteriori": 0.2, "measured": 0.1},
            {"theorem": "5.4", "a_priori": float("inf"), "a_posteriori": None, "measured": 0.3}]
    fig = plots.bounds_figure(rows)
    assert list(fig.data[0].y) == [0.5, None]  # an infinite or missing bound is left out, not drawn at 0


def test_bounds_curves_and_lines_over_ell():
    rows = [{"ell": e, "theorem": th, "a_priori": 1 / e, "a_posteriori": 0.5 / e, "measured": 0.1 / e}
            for e in (3.0, 1.0, 2.0) for th in ("5.1", "5.2", "5.3")]
    fig = plots.bounds_curves_figure(rows, current_ell=2.0)
    assert len(fig.data) == 9
    assert list(fig.data[0].x) == [1.0, 2.0, 3.0]  # sorted by ell
    assert len(fig.layout.shapes) == 3  # the current-ell marker, once per panel
    rows = [{"ell": 1.0, "method": "a", "v": 1.0}, {"ell": 2.0, "method": "a", "v": None},
            {"ell": 1.0, "method": "b", "v": 3.0}]
    fig = plots.lines_over_ell(rows, y="v", title="v", log_y=True)
    assert [t.name for t in fig.data] == ["a", "b"]
    assert np.isnan(fig.data[0].y[1])
    with pytest.raises(ValueError, match="empty"):
        plots.lines_over_ell([], y="v", title="v")
    with pytest.raises(ValueError, match="empty"):
        plots.bounds_curves_figure([])


def test_figure_html_is_self_contained():
    html = plots.figure_html(go.Figure(go.Scatter(x=[1], y=[2])))
    assert '<script src="https://cdn' not in html and "Plotly.newPlot" in html
    assert len(html) > 1_000_000  # plotly.js itself is inside


def test_user_text_is_shown_literally_not_as_html():
    X = np.zeros((4, 2))
    X[:, 0] = np.arange(4)
    fig = plots.shadow_figure(X, [0, 0, 1, 1], [0, 2], [2, 2], axis_titles=("<b>x</b>", "50%{y}"))
    assert fig.layout.xaxis.title.text == "&lt;b&gt;x&lt;/b&gt;"
    assert "%{" not in fig.layout.yaxis.title.text
    Z = np.random.default_rng(0).normal(size=(4, 2))
    fig = plots.embedding_figure({"a": Z}, y=np.array(["<i>u</i>", "v", "v", "v"]), label_name="<script>")
    assert "<script>" not in fig.data[0].hovertemplate and fig.data[0].name == "&lt;i&gt;u&lt;/i&gt;"
    assert "&lt;i&gt;u&lt;/i&gt;" in fig.data[0].hovertemplate and "<i>" not in fig.data[0].hovertemplate


def test_fit_time_figure_stacks_the_parts_of_a_fit():
    rows = [{"method": "RSKPCA", "train_s": 0.1, "train_exact_kpca_s": float("nan"),
             "train_construction_s": float("nan")},
            {"method": "Reduced-set construction", "train_s": 2.5, "train_exact_kpca_s": 2.0,
             "train_construction_s": 0.5}]
    fig = plots.fit_time_figure(rows, exact_seconds=1.8)
    assert fig.layout.barmode == "stack"
    by = {t.name: dict(zip(t.x, t.y)) for t in fig.data}
    assert by["whole fit"] == {"Exact KPCA": 1.8, "RSKPCA": 0.1, "Reduced-set construction": None}
    assert by["exact KPCA part"]["Reduced-set construction"] == 2.0
    assert by["construction part"]["Reduced-set construction"] == 0.5
    assert by["exact KPCA part"]["RSKPCA"] is None and by["construction part"]["Exact KPCA"] is None


# --------------------------------------------------------------------------- visual polish (issue 3)

LONG_NAMES = ["ShDE + RSKPCA", "Subsampled KPCA", "Nystrom", "Density-weighted Nystrom"]


def _unwrapped(ticktext):
    return [t.replace("<br>", " ") for t in ticktext]


def test_bar_labels_are_shown_in_full_with_room_made_for_them():
    fig = plots.bar_figure(dict(zip(LONG_NAMES, [0.7, 1.6, 1.4, 0.09])), title="t", yaxis_title="v", log_y=True)
    axis = fig.layout.xaxis
    assert list(axis.tickvals) == LONG_NAMES and axis.automargin
    assert _unwrapped(axis.ticktext) == LONG_NAMES  # every label present in full, only wrapped
    assert all(len(line) <= len("Density-weighted") for t in axis.ticktext for line in t.split("<br>"))
    assert fig.data[0].cliponaxis is False  # the value above the tallest bar is not cut off


def test_many_bars_lie_horizontally_with_their_names_down_the_side():
    names = [f"Method number {i} with a long name" for i in range(9)]
    fig = plots.bar_figure(dict(zip(names, np.arange(1.0, 10.0))), title="t", yaxis_title="speedup", log_y=True)
    bar = fig.data[0]
    assert bar.orientation == "h" and list(bar.y) == names
    assert list(fig.layout.yaxis.ticktext) == names and fig.layout.yaxis.automargin
    assert fig.layout.yaxis.autorange == "reversed"  # the first name on top
    assert fig.layout.xaxis.type == "log" and fig.layout.xaxis.title.text == "speedup"


@pytest.mark.parametrize("values", [[0.088, 1.64], [1e-4, 0.6], [1.6, 5.35], [0.3, 1.12], [0.15, 3.0]])
def test_log_axes_never_label_ticks_with_bare_minor_digits(values):
    fig = plots.bar_figure(dict(zip("ab", values)), title="t", yaxis_title="v", log_y=True)
    axis = fig.layout.yaxis
    assert axis.type == "log" and axis.exponentformat == "e"
    assert axis.minorloglabels in ("none", "complete")  # plotly's default "small digits" is the clutter
    if np.floor(np.log10(max(values))) - np.ceil(np.log10(min(values))) >= 1:
        assert axis.minorloglabels == "none" and axis.dtick is None  # two decades or more: decades only
    else:  # less: the ticks listed, every one a full number (plotly's minor labels are smaller)
        assert len(axis.tickvals) >= 2 and all(min(values) <= v <= max(values) for v in axis.tickvals)
        assert list(axis.ticktext) == [f"{v:g}" for v in axis.tickvals]


def test_linear_bars_start_at_zero():
    fig = plots.bar_figure({"a": 0.2, "b": 0.3}, title="t", yaxis_title="v")
    assert fig.layout.yaxis.rangemode == "tozero" and fig.layout.yaxis.type is None


def test_spectra_reference_is_a_thick_dashed_line_on_top_and_approximations_stay_visible():
    lam = [0.3, 0.2, 0.1]
    fig = plots.spectra_figure({"Exact KPCA": lam, "Subsampled KPCA": lam, "Nystrom": lam, "ShDE + RSKPCA": lam})
    names = [t.name for t in fig.data]
    assert names[-1] == "Exact KPCA"  # drawn last, so on top
    ref, approx = fig.data[-1], fig.data[:-1]
    assert ref.line.dash == "dash" and ref.line.width > max(t.line.width for t in approx)
    assert ref.legendrank < 1000  # still first in the legend
    symbols = [t.marker.symbol for t in approx]
    assert len(set(symbols)) == len(approx) and all(s.endswith("-open") for s in symbols)
    sizes = [t.marker.size for t in approx]
    assert sizes == sorted(sizes, reverse=True) and len(set(sizes)) == len(sizes)  # earlier ones peek out
    assert fig.layout.xaxis.dtick == 1 and fig.layout.xaxis.tickformat == "d"  # components are whole numbers
    with pytest.raises(ValueError, match="reference 'Exact' is not among"):
        plots.spectra_figure({"Exact KPCA": lam}, reference="Exact")


@pytest.mark.parametrize("weights, span", [([1] * 3000, 5), ([1, 1, 2], 5), ([1, 2, 3, 4, 5, 6, 9], None)])
def test_weight_histogram_keeps_few_bars_narrow_and_says_when_nothing_was_reduced(weights, span):
    # With every row its own center (a wide file at the paper's ell) the one bar filled the chart.
    fig = plots.weight_histogram(weights)
    axis_range = fig.layout.xaxis.range
    assert (axis_range is None) if span is None else (axis_range[1] - axis_range[0] == span)
    says = " ".join(a.text for a in fig.layout.annotations)
    assert ("no reduction" in says) == (max(weights) == 1)


@pytest.mark.parametrize("weights", [[1, 1, 1, 1, 2, 2, 3, 7, 29], list(range(1, 301)), [5]])
def test_weight_histogram_counts_on_whole_number_ticks(weights):
    fig = plots.weight_histogram(weights)
    axis = fig.layout.yaxis
    assert axis.tickformat == "d" and axis.rangemode == "tozero" and axis.tick0 == 0
    assert float(axis.dtick).is_integer() and axis.dtick >= 1  # never a 0.5 tick
    bins = fig.data[0].xbins
    assert float(bins.size).is_integer()  # whole-number weights, whole-number bins, centred on them
    counts, _ = np.histogram(weights, bins=np.arange(bins.start, bins.end + bins.size / 2, bins.size))
    assert counts.sum() == len(weights)  # the pinned bins hold every weight
    assert counts.max() / axis.dtick <= 6  # about six ticks, not one per count on a tall axis


def test_error_histogram_counts_on_whole_number_ticks():
    e = np.random.default_rng(0).normal(size=40)
    fig = plots.error_histogram(e)
    bins = fig.data[0].xbins
    assert bins.start <= e.min() and e.max() < bins.end
    assert fig.layout.yaxis.tickformat == "d" and float(fig.layout.yaxis.dtick).is_integer()
    assert plots.error_histogram([]).layout.yaxis.dtick == 1


def test_a_bound_that_does_not_apply_shows_its_bars_and_says_why():
    note = ("Does not apply: the condition 2 sqrt(kappa) mean e_i = 0.335 < delta_D / 2 = 0.00397 fails "
            "(Zwald & Blanchard need the perturbation below half the gap); increase ell or lower D.")
    rows = [{"theorem": "5.3", "a_priori": 0.6, "a_posteriori": 0.3, "measured": 0.04, "applies": True, "note": "ok"},
            {"theorem": "5.4", "a_priori": float("nan"), "a_posteriori": None, "measured": 0.2, "applies": False,
             "note": note}]
    fig = plots.bounds_figure(rows)
    by_kind = {t.name: list(t.y) for t in fig.data}
    assert by_kind["measured"] == [0.04, 0.2]  # the bar that exists is drawn
    assert by_kind["a-priori"][1] is None and by_kind["a-posteriori"][1] is None  # (legend names, not field names)
    (note_shown,) = fig.layout.annotations  # one note, for the theorem that does not apply
    text = note_shown.text.replace("<br>", " ")
    assert text.startswith("bound does not apply: the condition 2 sqrt(kappa)") and text.endswith("fails")
    assert "&lt; delta_D" in text  # shown literally, not as an HTML tag
    # over Thm 5.4's empty slots, its right edge at the left edge of the measured bar (centre 1.27)
    assert note_shown.xanchor == "right" and note_shown.x == pytest.approx(1 + 0.8 / 3 / 2)
    assert list(fig.layout.yaxis.tickvals) == [0.05, 0.1, 0.2, 0.5]  # 0.04 .. 0.6: 1-2-5 ticks, in full
    rows[1]["applies"] = True
    assert not plots.bounds_figure(rows).layout.annotations


def test_bound_curves_panels_have_tidy_log_axes():
    rows = [{"ell": e, "theorem": th, "a_priori": s / e, "a_posteriori": None, "measured": None}
            for th, s in (("5.1", 1.0), ("5.2", 1e-3)) for e in (1.0, 4.0, 10.0)]
    fig = plots.bounds_curves_figure(rows)
    for axis in (fig.layout.yaxis, fig.layout.yaxis2):
        assert axis.type == "log" and axis.minorloglabels in ("none", "complete")


def test_a_method_has_the_same_colour_in_every_chart():
    exact, rskpca, wnys = "Exact KPCA", "ShDE + RSKPCA", "Density-weighted Nystrom"
    bars = plots.bar_figure({wnys: 0.1, rskpca: 0.2}, title="t", yaxis_title="v")  # a different order
    bar_colors = dict(zip(bars.data[0].x, bars.data[0].marker.color))
    spectra = plots.spectra_figure({exact: [0.5, 0.2], rskpca: [0.5, 0.2], wnys: [0.4, 0.1]})
    line_colors = {t.name: t.line.color for t in spectra.data}
    rows = [{"ell": 1.0, "method": name, "v": 1.0} for name in (rskpca, "Nystrom", wnys)]
    curve_colors = {t.name: t.line.color for t in plots.lines_over_ell(rows, y="v", title="v").data}
    fit = plots.fit_time_figure([{"method": wnys, "train_s": 1.0}, {"method": rskpca, "train_s": 0.1}],
                                exact_seconds=2.0)
    fit_colors = dict(zip(fit.data[0].x, fit.data[0].marker.color))
    for name in (rskpca, wnys):
        expected = plots.METHOD_COLORS[name]
        assert bar_colors[name] == line_colors[name] == curve_colors[name] == fit_colors[name] == expected
    assert line_colors[exact] == fit_colors[exact] == plots.METHOD_COLORS[exact]
    assert len(set(plots.METHOD_COLORS.values())) == len(plots.METHOD_COLORS)  # no two methods alike


def test_names_that_are_not_methods_get_stable_colours_unlike_any_method():
    colors = plots.method_colors(["shadow", "Nystrom", "upper", "lower"])
    assert colors == plots.method_colors(["lower", "upper", "Nystrom", "shadow"])  # order does not matter
    others = [colors[k] for k in ("shadow", "upper", "lower")]
    assert len(set(others)) == 3 and not set(others) & set(plots.METHOD_COLORS.values())


def test_fit_time_chart_names_every_method_in_full_from_zero():
    rows = [{"method": "Reduced-set construction", "train_s": 2.5, "train_exact_kpca_s": 2.0,
             "train_construction_s": 0.5}, {"method": "Density-weighted Nystrom", "train_s": 0.3}]
    fig = plots.fit_time_figure(rows, exact_seconds=1.8)
    assert _unwrapped(fig.layout.xaxis.ticktext) == ["Exact KPCA", "Reduced-set construction",
                                                     "Density-weighted Nystrom"]
    assert fig.layout.xaxis.automargin and fig.layout.yaxis.rangemode == "tozero"
    assert fig.layout.legend.y > 1  # above the bars, clear of the wrapped names below them


def test_fit_predict_chart_says_which_bar_is_which_and_starts_at_zero():
    results = {"Exact KPCA": {"train_s": 0.0219, "test_s": 0.0101},
               "ShDE + RSKPCA": {"train_s": 0.012, "test_s": 0.009}}
    fig = plots.fit_predict_figure(results)
    fit, predict = fig.data
    assert (fit.name, predict.name) == ("train", "test") and fig.layout.showlegend is not False
    assert not fit.marker.pattern.shape and predict.marker.pattern.shape  # solid vs hatched
    assert list(fit.y) == [0.0219, 0.012] and list(predict.y) == [0.0101, 0.009]
    assert list(fit.marker.color) == list(predict.marker.color) == [plots.METHOD_COLORS[k] for k in results]
    assert fig.layout.barmode == "group" and fig.layout.yaxis.type is None  # linear, so it can start at zero
    assert fig.layout.yaxis.rangemode == "tozero" and fig.layout.yaxis.automargin
    assert _unwrapped(fig.layout.xaxis.ticktext) == list(results)
    with pytest.raises(ValueError, match="no 'test_s'"):
        plots.fit_predict_figure({"Exact KPCA": {"train_s": 1.0}})


def test_bar_values_do_not_sit_on_their_error_bars():
    fig = plots.bar_figure({"Exact KPCA": 1.0, "ShDE + RSKPCA": 0.9}, errors={"Exact KPCA": 0.0, "ShDE + RSKPCA": 0.05},
                           title="accuracy", yaxis_title="accuracy")
    assert fig.data[0].textposition == "inside" and list(fig.data[0].error_y.array) == [0.0, 0.05]
    assert plots.bar_figure({"a": 1.0}, title="t", yaxis_title="v").data[0].textposition == "outside"


# --------------------------------------------------------------------------- charts that do not mislead (issue 11)


@pytest.mark.parametrize("n_methods", [4, 7])  # upright bars, and horizontal ones past _MAX_COLUMNS
def test_ratio_bars_start_at_one_so_slowdowns_point_down(n_methods):
    names = [f"method {i}" for i in range(n_methods)]
    speedups = dict(zip(names, [12.3, 0.64, 3.1, 0.79, 0.05, 1.5, 2.0][:n_methods]))
    fig = plots.bar_figure(speedups, title="Training speedup", yaxis_title="exact / method", log_y=True,
                           baseline=1.0)
    bar = fig.data[0]
    horizontal = bar.orientation == "h"
    assert horizontal == (n_methods > 5)
    lengths = np.asarray(bar.x if horizontal else bar.y)
    value_axis = fig.layout.xaxis if horizontal else fig.layout.yaxis
    assert bar.base == 1.0 and value_axis.type == "log"
    assert np.allclose(bar.base + lengths, list(speedups.values()))  # each bar ends at its value ...
    assert np.all((lengths < 0) == (np.array(list(speedups.values())) < 1))  # ... and slowdowns point down
    assert list(bar.text[:2]) == ["12.3", "0.64"] and list(bar.customdata[:2]) == [12.3, 0.64]  # values, not lengths
    lo, hi = value_axis.range  # plotly cannot autorange bars with a base on a log axis: set here, in log10
    assert lo < np.log10(0.64) < 0 < np.log10(12.3) < hi and lo > -3
    (line,) = fig.layout.shapes  # the 1x line, in data units
    assert (line.x0, line.x1) == (1.0, 1.0) if horizontal else (line.y0, line.y1) == (1.0, 1.0)
    with pytest.raises(ValueError, match="positive on a log axis"):
        plots.bar_figure(speedups, title="t", yaxis_title="v", log_y=True, baseline=0.0)


def test_density_panels_are_drawn_to_scale_with_colour_bars_clear_of_them():
    gx, gy = np.linspace(-2.0, 6.0, 9), np.linspace(0.0, 3.0, 5)
    kde = np.exp(-np.add.outer(gy**2, gx**2))
    fig = plots.density_grid_figure(gx, gy, kde, 0.9 * kde)
    L = fig.layout
    panels = [(L.xaxis, L.yaxis, "x"), (L.xaxis2, L.yaxis2, "x2"), (L.xaxis3, L.yaxis3, "x3")]
    for xaxis, yaxis, x_id in panels:
        # one unit as long across as up, over exactly the grid (the panel shrinks, no blank range)
        assert yaxis.scaleanchor == x_id and yaxis.scaleratio == 1
        assert list(xaxis.range) == [-2.0, 6.0] and list(yaxis.range) == [0.0, 3.0]
        assert xaxis.constrain == yaxis.constrain == "domain"
    shared, diff = (t.colorbar for t in fig.data if t.type == "heatmap" and t.showscale is not False)
    domains = [tuple(xaxis.domain) for xaxis, _, _ in panels]
    room = 60 / 700  # a 10 px bar, its padding and tick labels, at 700 px wide
    for bar in (shared, diff):
        assert bar.xanchor == "left"
        assert not any(lo - room < bar.x < hi for lo, hi in domains)  # neither on a panel nor running into one
    assert domains[1][1] <= shared.x < domains[2][0] and diff.x >= domains[2][1]  # the shared scale beside ShDE
    assert [a.text for a in L.annotations] == ["KDE", "ShDE", "ShDE - KDE"]
    assert [a.x for a in L.annotations] == pytest.approx([sum(d) / 2 for d in domains])  # titles over their panels


def test_density_curve_axis_titles_stand_clear_of_their_tick_labels():
    t = np.linspace(0, 1, 11)
    fig = plots.density_curve_figure(t, np.full(11, 0.375), np.full(11, 0.38) - 0.006 * t)
    for axis, title in ((fig.layout.yaxis, "density"), (fig.layout.yaxis2, "difference")):
        assert axis.title.text == title
        # automargin places the title past the tick labels (standoff from them) and grows the margin to fit
        assert axis.automargin is True and axis.title.standoff >= 5


EMBEDDINGS = {"Exact KPCA": None, "ShDE + RSKPCA": 0.056, "Subsampled KPCA": 0.140, "Density-weighted Nystrom": 0.007}


def _title_extents(fig, width_px=760, default_font=16):
    """(row, left, right) of each panel title in paper units, its widest line at ~0.6 em a character."""
    out = []
    for a in fig.layout.annotations:
        size = a.font.size or default_font
        half = max(len(line) for line in a.text.split("<br>")) * 0.6 * size / width_px / 2
        out.append((round(a.y, 3), a.x - half, a.x + half))
    return sorted(out)


@pytest.mark.parametrize("dims", [2, 3])
def test_embedding_panel_titles_do_not_run_together(dims):
    Z = np.random.default_rng(3).normal(size=(30, 3))
    fig = plots.embedding_figure({k: Z for k in EMBEDDINGS}, dims=dims,
                                 errors={k: v for k, v in EMBEDDINGS.items() if v is not None})
    texts = [a.text.replace("<br>", " ") for a in fig.layout.annotations]
    assert texts == ["Exact KPCA", "ShDE + RSKPCA (err 0.056)", "Subsampled KPCA (err 0.140)",
                     "Density-weighted Nystrom (err 0.007)"]  # every title in full, only wrapped
    extents = _title_extents(fig)
    for (row_a, _, right), (row_b, left, _) in zip(extents, extents[1:]):
        if row_a == row_b:
            assert right < left  # neighbours in a row keep apart at a 760 px wide figure


def test_embedding_panels_name_their_axes():
    Z = np.random.default_rng(4).normal(size=(30, 3))
    fig = plots.embedding_figure({k: Z for k in EMBEDDINGS})  # 2-D, 3 columns: rows of 3 and 1
    panels = sorted({(t.xaxis, t.yaxis) for t in fig.data})  # the axes the panels are drawn on
    assert len(panels) == 4
    for x_id, y_id in panels:
        assert fig.layout["xaxis" + x_id[1:]].title.text == "component 1"
    first_column = {"y", "y4"}  # the first panel of each row names the vertical axis
    assert {y_id for _, y_id in panels if fig.layout["yaxis" + y_id[1:]].title.text == "component 2"} == first_column
    fig = plots.embedding_figure({k: Z for k in EMBEDDINGS}, dims=3)
    scenes = [fig.layout[k] for k in fig.layout if k.startswith("scene")]
    assert len(scenes) == 4
    for scene in scenes:  # short titles: three long ones ran together at a scene's corner
        assert (scene.xaxis.title.text, scene.yaxis.title.text, scene.zaxis.title.text) == ("c1", "c2", "c3")
    # one scale for every scene: the panels are aligned to exact KPCA, and a smaller embedding must look smaller
    small = plots.embedding_figure({"Exact KPCA": Z, "Shrunk": 0.1 * Z}, dims=3)
    ranges = {tuple(tuple(small.layout[k][f"{a}axis"].range) for a in "xyz") for k in small.layout if k.startswith("scene")}
    assert len(ranges) == 1
    (x_range, _, _), = ranges
    assert x_range[0] <= Z[:, 0].min() and x_range[1] >= Z[:, 0].max()


def test_bound_panels_over_ell_name_the_bounded_quantity():
    rows = [{"ell": e, "theorem": th, "a_priori": 1 / e, "a_posteriori": None, "measured": None}
            for th in ("5.1", "5.2", "5.3") for e in (1.0, 4.0)]
    rows += [{"ell": 4.0, "theorem": "5.4", "quantity": "||P^D(K_n) - P^D(K-bar_n)||_HS", "a_priori": None,
              "a_posteriori": 0.2, "measured": 0.1}]
    fig = plots.bounds_curves_figure(rows)
    titles = [fig.layout[f"yaxis{'' if p == 1 else p}"].title.text for p in (1, 2, 3, 4)]
    assert titles == ["MMD_b(X, C-bar)", "sum_i (lambda_i - lambda-bar_i)^2", "||K_n - K-bar_n||_HS",
                      "||P^D(K_n) - P^D(K-bar_n)||_HS"]
    assert all(fig.layout[f"yaxis{'' if p == 1 else p}"].automargin for p in (1, 2, 3, 4))
    assert fig.layout.xaxis.title.text == "ell"


def test_denoise_figure_rows_are_as_tall_as_their_images():
    # Wide, flat images get a thin strip, not a fixed row height with empty bands around them.
    rng = np.random.default_rng(0)

    def height(shape):
        clean = rng.random((8, shape[0] * shape[1]))
        rows = [{"method": m, "images": clean, "mse": 0.1, "fit_s": 0.1} for m in ("noisy input", "RSKPCA")]
        return plots.denoise_figure(rows, clean, shape).layout.height

    assert height((4, 16)) < height((8, 8)) < height((16, 4))


def test_downloaded_figures_write_exponents_not_si_prefixes():
    import plotly.graph_objects as go

    from rskpca.plotting import figure_html

    fig = go.Figure(go.Scatter(y=[1e-15, 3e-15]))
    fig.update_yaxes(exponentformat="power")  # a figure's own choice stays
    html = figure_html(fig)
    assert '"xaxis":{"exponentformat":"e"' in html.replace(" ", "") and '"exponentformat":"power"' in html
    assert fig.layout.xaxis.exponentformat is None, "the caller's figure is not changed"


def test_colour_bars_write_exponents_not_si_prefixes():
    # A tryout read the ShDE - KDE scale as "-100µ, 0, 100µ" (two moons, sigma 0.02).
    from rskpca.plotting import density_grid_figure

    g = np.linspace(0, 1, 5)
    kde = np.full((5, 5), 1e-4)
    fig = density_grid_figure(g, g, kde, kde + 1e-5)
    bars = [t.colorbar for t in fig.data if t.type == "heatmap" and t.showscale is not False]
    assert bars and all(bar.exponentformat == "e" for bar in bars)


@pytest.mark.parametrize("rows,cols,n_titles,scenes", [(1, 1, 1, False), (2, 3, 5, False), (3, 2, 6, False),
                                                        (1, 2, 2, True), (2, 2, 3, True)])
def test_subplot_grid_is_make_subplots_layout(rows, cols, n_titles, scenes):
    # the embedding chart's grid, built as a dict without plotly's validation, is make_subplots' own
    from plotly.subplots import make_subplots

    from rskpca.plotting._style import _subplot_grid

    titles = [f"panel {k}" for k in range(n_titles)]
    h, v = (0.02, 0.08) if scenes else (0.07, 0.18)
    specs = [[{"type": "scene"}] * cols] * rows if scenes else None
    reference = make_subplots(rows=rows, cols=cols, subplot_titles=titles, horizontal_spacing=h, vertical_spacing=v,
                              specs=specs).to_dict()["layout"]
    reference.pop("template")
    layout, refs = _subplot_grid(rows, cols, titles, horizontal_spacing=h, vertical_spacing=v, scenes=scenes)
    assert set(layout) == set(reference)
    for key, value in reference.items():
        if key == "annotations":
            for mine, theirs in zip(layout[key], value, strict=True):
                assert mine.keys() == theirs.keys() and mine["text"] == theirs["text"]
                assert mine["x"] == pytest.approx(theirs["x"]) and mine["y"] == pytest.approx(theirs["y"])
        else:
            np.testing.assert_allclose(*(np.concatenate([np.ravel(d) for d in ((x["domain"]["x"], x["domain"]["y"])
                                                                          if scenes else (x["domain"],))])
                                         for x in (layout[key], value)))
    assert len(refs) == rows * cols


@pytest.mark.parametrize("dims", [2, 3])
@pytest.mark.parametrize("label", ["classes", "continuous", None])
def test_embedding_figure_passes_plotlys_validation(dims, label):
    # built from plain dicts without validation (speed): every property must still be one plotly knows
    import plotly.graph_objects as go

    rng = np.random.default_rng(0)
    emb = {name: rng.normal(size=(50, 3)) for name in ("Exact KPCA", "RSKPCA", "Nystrom")}
    y = {"classes": rng.integers(0, 3, 50), "continuous": rng.normal(size=50), None: None}[label]
    fig = plots.embedding_figure(emb, y=y, dims=dims, errors={"RSKPCA": 0.01}, selected_rows=[3, 4])
    checked = go.Figure(fig.to_dict())  # raises ValueError on any unknown property or bad value
    assert len(checked.data) == len(fig.data) and checked.layout.annotations[1].text.startswith("RSKPCA")


def test_a_long_spectra_legend_goes_below_the_plot():
    # 13 methods' legend inside the plot covered the lines (a tryout): beyond a few it goes below
    few = plots.spectra_figure({f"m{i}": [0.5, 0.2, 0.1] for i in range(3)})
    many = plots.spectra_figure({f"method {i}": [0.5, 0.2, 0.1] for i in range(13)})
    assert few.layout.legend.y > 0.5 and few.layout.legend.orientation is None
    assert many.layout.legend.orientation == "h" and many.layout.legend.y < 0


def test_the_embedding_scrubber_holds_every_frame_in_its_range():
    # frames do not autorange: the opening frame's range cut a wider frame's points off (a tryout)
    rng = np.random.default_rng(0)
    exact = rng.normal(size=(50, 2))
    frames = [{"ell": e, "m": 10, "n": 50, "embedding": exact * scale, "error": 0.1}
              for e, scale in ((1.0, 3.0), (4.0, 1.0))]
    fig = plots.embedding_scrubber_figure(exact, frames, active=1)
    for axis, col in ((fig.layout.xaxis, 0), (fig.layout.yaxis, 1)):
        assert axis.range[0] <= 3.0 * exact[:, col].min() and axis.range[1] >= 3.0 * exact[:, col].max()
    assert fig.layout.modebar.orientation == "v"


def test_horizontal_bars_leave_room_for_the_smallest_values_label():
    """Past the column limit the bars lie down; the label beside the shortest (0.02x) must not run into
    the method names (a tryout saw it do so): the axis reaches a fifth of its span beyond the values."""
    from rskpca.plotting._method_comparison import bar_figure

    values = {"a": 1.55, "b": 2.26, "c": 0.31, "d": 0.07, "e": 0.5, "f": 0.02, "g": 3.4}
    fig = bar_figure(values, title="t", yaxis_title="exact / method", log_y=True, baseline=1.0)
    assert fig.data[0].orientation == "h"
    lo, hi = fig.layout.xaxis.range
    span = np.log10(3.4) - np.log10(0.02)
    assert np.log10(0.02) - lo >= 0.2 * span and hi - np.log10(3.4) >= 0.2 * span


@pytest.mark.parametrize("with_points", [False, True])
def test_density_grid_figure_passes_plotlys_validation(with_points):
    # built from plain dicts without validation (speed): every property must still be one plotly knows
    import plotly.graph_objects as go

    rng = np.random.default_rng(2)
    g = np.linspace(0, 1, 6)
    K = rng.random((6, 6))
    P = rng.normal(size=(20, 2)) if with_points else None
    fig = plots.density_grid_figure(g, g, K, K * 1.1, points=P, centers=None if P is None else P[:5])
    checked = go.Figure(fig.to_dict())  # raises ValueError on any unknown property or bad value
    assert len(checked.data) == (5 if with_points else 3)
    assert [a.text for a in checked.layout.annotations] == ["KDE", "ShDE", "ShDE - KDE"]


def test_side_by_side_keeps_each_panels_axes_shapes_and_one_legend_entry_per_name():
    from rskpca.plotting import bar_figure, scaling_figure, side_by_side

    left = bar_figure({"a": 4.0, "b": 0.5}, title="Training", yaxis_title="x", log_y=True, baseline=1.0)
    right = bar_figure({"a": 2.0, "b": 8.0}, title="Test", yaxis_title="x", log_y=True, baseline=1.0)
    fig = side_by_side(left, right)
    assert [t.yaxis for t in fig.data] == ["y", "y2"]
    assert fig.layout.yaxis.type == fig.layout.yaxis2.type == "log"
    assert list(fig.layout.yaxis2.range) == list(right.layout.yaxis.range)  # its own range, not the left's
    # each panel's 1x line sits on that panel
    assert [(s.xref, s.yref) for s in fig.layout.shapes] == [("x domain", "y"), ("x2 domain", "y2")]
    rows = [{"n": 500, "exact_kpca": "measured", "exact_fit_s": 0.1, "rskpca_fit_s": 0.01, "exact_project_s": 0.2,
             "rskpca_project_s": 0.02},
            {"n": 1000, "exact_kpca": "measured", "exact_fit_s": 0.4, "rskpca_fit_s": 0.02, "exact_project_s": 0.5,
             "rskpca_project_s": 0.03}]
    both = side_by_side(scaling_figure(rows, stage="fit"), scaling_figure(rows, stage="project"))
    shown = [t.name for t in both.data if t.showlegend is not False]
    assert sorted(shown) == sorted({t.name for t in both.data})  # each name once in the legend
    assert all(t.legendgroup == t.name for t in both.data)  # a click hides it in both panels


def test_a_3d_embedding_of_points_draws_the_shadow_centers_in_each_scene():
    from rskpca.plotting import embedding_figure

    Z = np.random.default_rng(0).normal(size=(200, 3))
    fig = embedding_figure({"Exact": Z, "Approx": -Z}, centers=([0, 5, 9], [12.0, 8.0, 1.0]), dims=3)
    centers = [t for t in fig.data if t.name == "shadow centers"]
    assert [t.type for t in centers] == ["scatter3d", "scatter3d"] and [t.scene for t in centers] == ["scene", "scene2"]
    assert np.allclose(centers[1].z, -Z[[0, 5, 9], 2]) and sum(t.showlegend is not False for t in centers) == 1
