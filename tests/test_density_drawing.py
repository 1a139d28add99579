"""Drawing n points: density panels above the point budget (Embeddings, Shadow centers and Data charts), region
selections that select rows, and the Embeddings page's all-rows fits (exact KPCA on all n or a stated seeded sample)."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
import pytest

from rskpca.evaluation.all_rows import (alignment_map, exact_memory_bytes, fit_on_all_rows, plan_exact,
                                        training_embedding)
from rskpca.evaluation.fitting import fit_method
from rskpca.evaluation.methods import make_estimator
from rskpca import plotting as plots
from rskpca.plotting import (DENSITY_BINS, axis_of_panel, density_counts, density_note, embedding_figure,
                             embedding_panels, rows_in_region, rows_in_regions, selection_regions)
from rskpca.core.shadow import shadow_centers
from images import png_pixels


def _blobs(n=3000, seed=0):
    rng = np.random.default_rng(seed)
    means = np.array([[0.0, 0.0], [4.0, 0.0], [0.0, 4.0]])
    lab = rng.integers(0, 3, size=n)
    return means[lab] + rng.normal(scale=0.5, size=(n, 2)), lab


# --------------------------------------------------------------------------- histogram

def test_density_counts_equal_numpy_histogram2d_and_count_every_point():
    rng = np.random.default_rng(1)
    x, y = rng.normal(size=5000), rng.normal(size=5000)
    counts, (x0, dx), (y0, dy) = density_counts(x, y, bins=50)
    assert counts.sum() == 5000
    ref, _, _ = np.histogram2d(y, x, bins=50, range=[[y.min(), y.max()], [x.min(), x.max()]])
    # numpy puts a value on an inner edge in the upper bin, as the arithmetic does; the last edge is closed in both
    assert np.array_equal(counts, ref.astype(int))
    assert x0 == pytest.approx(x.min()) and dx == pytest.approx((x.max() - x.min()) / 50)


def test_density_counts_of_one_value_do_not_divide_by_zero():
    counts, _, _ = density_counts(np.ones(10), np.ones(10), bins=4)
    assert counts.sum() == 10


# --------------------------------------------------------------------------- regions select rows

def test_box_selects_every_row_inside_not_only_drawn_points():
    x = np.linspace(0, 1, 100_001)
    rows = rows_in_region(x, x, np.arange(100_001) + 7, {"kind": "box", "x": [0.25, 0.5], "y": [0.0, 1.0]})
    inside = np.flatnonzero((x >= 0.25) & (x <= 0.5)) + 7
    assert np.array_equal(rows, inside)


def test_lasso_selects_rows_inside_the_polygon():
    rng = np.random.default_rng(2)
    pts = rng.uniform(-1, 1, size=(20_000, 2))
    # a diamond |x| + |y| <= 1 as a lasso
    lasso = {"kind": "lasso", "x": [1, 0, -1, 0], "y": [0, 1, 0, -1]}
    rows = rows_in_region(pts[:, 0], pts[:, 1], np.arange(pts.shape[0]), lasso)
    truth = np.flatnonzero(np.abs(pts).sum(axis=1) < 1)
    # points on the edges may go either way: none here, at float64 random positions
    assert np.array_equal(rows, truth)


def test_regions_are_read_in_the_panel_they_were_drawn_on():
    sel = {"points": [], "box": [{"xref": "x2", "yref": "y2", "x": [0.5, -0.5], "y": [-0.5, 0.5]}],
           "lasso": [{"xref": "x9", "x": [0, 1, 1], "y": [0, 0, 1]}, {"xref": "x", "x": [0, 1], "y": [0, 1]}]}
    regions = selection_regions(sel)
    assert [(r["kind"], r["xref"]) for r in regions] == [("box", "x2"), ("lasso", "x9")]  # a 2-vertex lasso is no region
    panels = {"x": (np.zeros(3), np.zeros(3), np.array([1, 2, 3])),
              "x2": (np.array([0.0, 2.0]), np.array([0.0, 2.0]), np.array([10, 11]))}
    assert rows_in_regions(sel, panels).tolist() == [10]
    assert rows_in_regions({}, panels).size == 0 and rows_in_regions(None, panels).dtype == np.int64


def test_embedding_panels_follow_the_figure_axes_and_rows():
    Z = np.arange(12.0).reshape(6, 2)
    panels = embedding_panels({"a": Z, "b": Z[[1, 4]]}, np.arange(6) + 100, {"b": np.array([1, 4])})
    assert list(panels) == [axis_of_panel(0), axis_of_panel(1)] == ["x", "x2"]
    assert panels["x2"][2].tolist() == [101, 104] and panels["x2"][0].tolist() == [2.0, 8.0]


# --------------------------------------------------------------------------- density panels

def test_above_the_point_budget_panels_draw_density_with_centers_on_top_and_say_so():
    X, lab = _blobs(3000)
    s = shadow_centers(X, sigma=1.0, ell=3.0)
    sample = np.sort(np.random.default_rng(0).choice(3000, 500, replace=False))
    fig = embedding_figure({"Exact KPCA": X[sample], "ShDE + RSKPCA": X, "Nystrom": -X}, y=lab, bins=DENSITY_BINS,
                           row_ids=np.arange(3000) + 1, rows={"Exact KPCA": sample},
                           centers=(s.center_indices, s.weights), max_points=4000,
                           panel_notes={"Exact KPCA": "seeded sample of 500 rows"})
    go.Figure(fig)  # the figure is valid (traces are built unvalidated)
    types = [(t.type, t.xaxis) for t in fig.data]
    # the sample panel (500 <= 4000 // 3) draws points, one trace per class, and the centers among its rows;
    # the others an image of the rows' density and the centers
    assert types[:3] == [("scattergl", "x")] * 3 or types[:3] == [("scatter", "x")] * 3
    assert ("image", "x2") in types and ("image", "x3") in types
    centers = [t for t in fig.data if t.name == "shadow centers" and t.customdata is not None]
    assert len(centers) == 3 and centers[0].x.size == np.isin(s.center_indices, sample).sum()
    # filled with class colours, the centers' own legend symbols stay hidden; one neutral key stands in for them
    key = [t for t in fig.data if t.name == "shadow centers" and t.customdata is None]
    assert [t.showlegend for t in centers] == [False] * 3 and len(key) == 1 and key[0].showlegend
    assert key[0].marker.color == "rgba(255,255,255,0.9)" and key[0].legendgroup == centers[0].legendgroup
    assert centers[1].x.size == s.m and centers[1].xaxis == "x2"
    assert fig.layout.title.text == density_note(3000, s.m)
    assert "seeded sample of 500 rows" in fig.layout.annotations[0].text
    # sizes grow with the weight; hover names the row (1-based ids here) and the weight
    heaviest = int(np.argmax(s.weights))
    assert centers[1].marker.size[heaviest] == max(centers[1].marker.size)
    assert centers[1].customdata[heaviest][0] == s.center_indices[heaviest] + 1
    assert "weight" in centers[1].hovertemplate
    heat = next(t for t in fig.data if t.type == "image")
    z = png_pixels(heat.source)
    assert heat.hoverinfo == "skip" and z.shape == (200, 200, 4) and z[:, :, 3].max() == 255
    # every bin with a row is coloured, every empty one transparent
    A = X  # the "ShDE + RSKPCA" panel
    lo, hi = A.min(axis=0), A.max(axis=0)
    pad = 0.02 * (hi - lo)
    counts, _, _ = density_counts(A[:, 0], A[:, 1], ranges=[[lo[0] - pad[0], hi[0] + pad[0]],
                                                            [lo[1] - pad[1], hi[1] + pad[1]]])
    assert np.array_equal(z[:, :, 3] > 0, counts > 0) and counts.sum() == 3000
    assert len(heat.source) < 60_000  # a PNG of the bins on the wire, not numbers


def test_density_panels_are_small_whatever_n():
    X = np.random.default_rng(0).normal(size=(200_000, 2))
    fig = embedding_figure({"a": X, "b": X}, max_points=20_000)
    points = sum(np.asarray(t.x).size for t in fig.data if t.type in ("scatter", "scattergl"))
    assert points == 0 and len(fig.to_json()) < 2_000_000


def test_rows_on_a_few_spots_are_drawn_as_circles_sized_by_count_not_lost_in_the_bins():
    # A graph in pieces (Spectral at k = 7 on a 26-class file) puts every row of a piece at one point: seven
    # filled bins of a 100 x 100 density read as an empty chart.
    rng = np.random.default_rng(0)
    spots = rng.normal(size=(7, 2))
    lab = rng.integers(0, 7, size=21_000)
    collapsed = spots[lab] + rng.normal(scale=1e-9, size=(lab.size, 2))
    lattice = rng.integers(0, 5, size=(lab.size, 3)) @ rng.normal(size=(3, 2))  # 3 features of 5 values each
    fig = embedding_figure({"pieces": collapsed, "spread": rng.normal(size=(lab.size, 2)), "lattice": lattice},
                           y=lab, max_points=20_000)
    drawn = [t for t in fig.data if t.name == "rows (each spot a bin)"]
    assert [t.xaxis for t in drawn] == ["x", "x3"]  # the spread panel keeps its density alone
    assert len(drawn[1].x) == 125
    counts = np.array([int(t.replace(",", "")) for t in drawn[0].text])
    assert np.sort(counts).tolist() == np.sort(np.bincount(lab)).tolist()  # every row in one spot
    # a box over a spot selects the rows inside it (the region), never the spot's count as a row number
    assert drawn[0].customdata is None and plots.rows_from_points([{"x": 0.0, "y": 0.0}]).size == 0
    sizes = np.asarray(drawn[0].marker.size)
    assert sizes[np.argmax(counts)] == sizes.max() and sizes.min() >= 7  # the fullest largest, all visible


def test_a_selection_draws_its_own_histogram_in_density_panels():
    X, _ = _blobs(3000)
    selected = np.flatnonzero(X[:, 0] > 2)
    fig = embedding_figure({"a": X, "b": X}, max_points=1000, selected_rows=selected)
    overlays = [t for t in fig.data if t.type == "heatmap" and t.name == "selected"]
    base = [t for t in fig.data if t.type == "image" and t.name == "density"]
    assert len(overlays) == 2 and len(base) == 2
    sel, every = np.asarray(overlays[0].z) > 0, png_pixels(base[0].source)[:, :, 3] > 0
    assert sel.any() and np.all(every[sel]) and sel.sum() < every.sum()


def test_under_the_budget_every_row_is_a_point():
    X, lab = _blobs(300)
    fig = embedding_figure({"a": X, "b": X}, y=lab)
    assert not plots.draws_density(fig) and fig.layout.title.text is None
    assert sum(np.asarray(t.x).size for t in fig.data) == 600


def test_three_d_above_the_budget_draws_the_centers_only():
    X = np.random.default_rng(0).normal(size=(5000, 3))
    s = shadow_centers(X, sigma=1.0, ell=2.0)
    fig = embedding_figure({"a": X, "b": X}, dims=3, max_points=1000, centers=(s.center_indices, s.weights))
    assert {t.type for t in fig.data} == {"scatter3d"} and all(t.x.size == s.m for t in fig.data)
    assert "3-D draws the" in fig.layout.title.text


# --------------------------------------------------------------------------- all rows

def test_plan_exact_is_all_rows_or_the_comparison_pages_seeded_sample():
    assert plan_exact(2000, 2000).all_rows
    plan = plan_exact(10_000, 2000)
    expected = np.sort(np.random.default_rng(0).choice(10_000, size=2000, replace=False))
    assert not plan.all_rows and np.array_equal(plan.rows, expected)
    assert plan.memory_bytes == exact_memory_bytes(10_000) == 800_000_000


def test_rskpca_on_all_rows_with_its_shadow_equals_fit_method():
    X, _ = _blobs(1500)
    s = shadow_centers(X, sigma=1.0, ell=3.0)
    ours = fit_on_all_rows("rskpca", X, n_components=3, sigma=1.0, ell=3.0, shadow=s)
    ref = fit_method("rskpca", X, n_components=3, sigma=1.0, ell=3.0)
    assert ours.embedding.shape == (1500, 3) and ours.n_train == 1500 and ours.m == s.m
    np.testing.assert_allclose(ours.embedding, ref.embedding, atol=1e-10)


@pytest.mark.parametrize("name", ["nystrom", "wnystrom"])
def test_nystrom_embeds_its_training_rows_by_the_extension_close_to_projecting_them(name):
    X, _ = _blobs(800)
    est = make_estimator(name, n_components=2, sigma=1.0, m=200, random_state=0).fit(X)
    Z = training_embedding(name, est, X)
    P = est.transform(X)  # O(n^2): through all training rows
    A = alignment_map(P, Z)
    assert np.linalg.norm(P - Z @ A) / np.linalg.norm(P) < 0.05


def test_exact_kpca_is_refused_on_all_rows():
    with pytest.raises(ValueError, match="plan_exact"):
        fit_on_all_rows("exact", np.zeros((5, 2)), n_components=2, sigma=1.0)


def test_all_rows_cost_holds_back_what_would_not_stay_live():
    from rskpca.ui.compute.all_rows_fits import all_rows_cost
    from rskpca.ui.compute.exact_plan import exact_rows_note

    assert all_rows_cost("rskpca", 1_000_000, 35).live
    assert not all_rows_cost("nystrom", 1_000_000, 1658).live  # 13 GB kernel block
    note = exact_rows_note(plan_exact(1_000_000, 2000), 17_500.0)  # the one prediction, in seconds
    assert "seeded sample of 2,000 rows" in note and "8 TB" in note and "hours" in note


# --------------------------------------------------------------------------- shadow and data figures

def _array_elements(fig) -> int:
    """How many numbers the figure's traces hold (every data array of every trace)."""
    total = 0
    for trace in fig.to_plotly_json()["data"]:
        for key in ("x", "y", "z", "customdata", "marker"):
            value = trace.get(key)
            if isinstance(value, dict):
                value = value.get("size")
            if value is not None and not isinstance(value, (str, int, float)):
                total += np.asarray(value).size
    return total


def _shadow_of(X):
    s = shadow_centers(X, sigma=1.0, ell=2.0)
    return s, (X, s.labels, s.center_indices, s.weights)


def test_shadow_figure_above_the_budget_draws_the_density_of_all_rows_and_centers_on_top():
    X, _ = _blobs(3000)
    s, args = _shadow_of(X)
    ids = np.arange(3000) + 100
    fig = plots.shadow_figure(*args, eps=s.eps, row_ids=ids, point_budget=1000, max_discs=s.m - 1, bins=DENSITY_BINS)
    go.Figure(fig)  # valid
    assert [t.name for t in fig.data] == ["density", "shadow centers"]  # m > max_discs: no eps-discs
    assert "eps-discs hidden" in fig.layout.title.text
    heat, centers = fig.data
    z = png_pixels(heat.source)[:, :, 3]
    assert z.shape == (DENSITY_BINS, DENSITY_BINS) and heat.type == "image" and heat.hoverinfo == "skip"
    # the histogram of every row (not a sample): its bins are the density's, and it counts all n
    lo, hi = X.min(axis=0), X.max(axis=0)
    pad = 0.02 * (hi - lo)
    counts, _, _ = density_counts(X[:, 0], X[:, 1], ranges=[[lo[0] - pad[0], hi[0] + pad[0]],
                                                            [lo[1] - pad[1], hi[1] + pad[1]]])
    assert counts.sum() == 3000 and np.array_equal(z > 0, counts > 0)
    # the centers on top, sized by weight; hover names the center's row and its weight
    assert centers.type == "scattergl" and centers.x.size == s.m
    assert np.argmax(centers.marker.size) == np.argmax(s.weights)
    heaviest = int(np.argmax(s.weights))
    assert centers.customdata[heaviest][0] == ids[s.center_indices[heaviest]]
    assert centers.customdata[heaviest][1] == s.weights[heaviest]
    assert "row %{customdata[0]}" in centers.hovertemplate and "weight %{customdata[1]}" in centers.hovertemplate
    # the chart says what is aggregated
    assert fig.layout.title.subtitle.text == density_note(3000, s.m)
    assert fig.layout.title.text.startswith(f"{s.m} shadow centers")


def test_shadow_figure_density_keeps_discs_and_projection_notes():
    X, _ = _blobs(3000)
    s = shadow_centers(X, sigma=3.0, ell=2.0)  # few centers: discs drawn
    fig = plots.shadow_figure(X, s.labels, s.center_indices, s.weights, eps=s.eps, point_budget=1000)
    assert [t.name for t in fig.data] == ["density", "shadow centers", "eps-discs"]
    fig = plots.shadow_figure(X, s.labels, s.center_indices, s.weights, eps=s.eps, point_budget=1000,
                              projected=True)
    assert [t.name for t in fig.data] == ["density", "shadow centers"] and "principal axes" in fig.layout.title.text


def test_shadow_figure_density_draws_the_selection_as_its_own_histogram_and_outlines_its_centers():
    X, _ = _blobs(3000)
    s, args = _shadow_of(X)
    selected = np.flatnonzero(X[:, 0] > 2)
    fig = plots.shadow_figure(*args, point_budget=1000, selected_rows=selected)
    names = [(t.type, t.name) for t in fig.data]
    assert ("image", "density") in names and ("heatmap", "selected") in names
    sel = next(t for t in fig.data if t.type == "heatmap" and t.name == "selected")
    every = next(t for t in fig.data if t.type == "image" and t.name == "density")
    assert np.all(png_pixels(every.source)[:, :, 3][np.asarray(sel.z) > 0] > 0)
    outlined = [t for t in fig.data if t.type == "scattergl" and t.name == "selected"]
    assert outlined and set(np.asarray(outlined[0].customdata)[:, 0].astype(int)) <= set(selected)


def test_data_figure_above_the_budget_draws_the_density_whose_bins_count_every_row():
    X, lab = _blobs(3000)
    fig = plots.data_figure(X, y=lab, row_ids=np.arange(3000) + 5, axis_titles=("<b>a</b>", "b%"), bins=DENSITY_BINS,
                            point_budget=1000)
    go.Figure(fig)
    heat = fig.data[0]
    assert heat.type == "image" and heat.name == "density"
    counts = np.asarray(heat.customdata)
    assert counts.shape == (DENSITY_BINS, DENSITY_BINS) and counts.sum() == 3000  # the density sums to n
    assert np.array_equal(png_pixels(heat.source)[:, :, 3] > 0, counts > 0)
    # hover gives a bin's count; user text stays text
    assert "rows in this bin" in heat.hovertemplate and "&lt;b&gt;a" in heat.hovertemplate
    assert "%{y" in heat.hovertemplate and "b&#37;" in heat.hovertemplate
    assert fig.layout.title.subtitle.text == density_note(3000, None)
    # the only points are two transparent ones (so plotly offers box and lasso), without row numbers; the
    # classes' colours as legend entries without points (the key), their clicks off
    points = [t for t in fig.data if t.type in ("scatter", "scattergl") and t.x[0] is not None]
    assert len(points) == 1 and points[0].customdata is None and points[0].marker.opacity == 0
    key = [t.name for t in fig.data if t.type == "scatter" and t.x[0] is None]
    assert key == ["0", "1", "2"] and fig.layout.legend.itemclick is False
    assert np.asarray(points[0].x).size == 2
    selected = np.flatnonzero(X[:, 1] > 2) + 5
    fig = plots.data_figure(X, row_ids=np.arange(3000) + 5, point_budget=1000, selected_rows=selected)
    sel = next(t for t in fig.data if t.name == "selected")
    assert sel.type == "heatmap"


def test_figures_above_the_budget_hold_bins_not_rows_whatever_n():
    rng = np.random.default_rng(0)
    sizes = {}
    for n in (25_000, 400_000):
        X = rng.normal(size=(n, 2))
        idx = np.arange(0, n, n // 300)  # the same number of centers at both sizes
        labels = np.minimum(np.arange(n) // (n // 300), idx.size - 1)
        w = np.bincount(labels, minlength=idx.size)
        shadow = plots.shadow_figure(X, labels, idx, w, bins=DENSITY_BINS)  # (the same bins at both sizes)
        data = plots.data_figure(X, y=rng.integers(0, 3, n), bins=DENSITY_BINS)
        for name, fig in (("shadow", shadow), ("data", data)):
            assert _array_elements(fig) <= 2 * DENSITY_BINS**2 + 3 * idx.size + 10, (name, n)
            sizes[name, n] = len(fig.to_json())
    for name in ("shadow", "data"):
        # (the PNG of a fuller density compresses a little less)
        assert sizes[name, 400_000] < 2 * sizes[name, 25_000] and sizes[name, 400_000] < 400_000, sizes


def test_below_the_budget_the_figures_draw_points_as_before():
    X, lab = _blobs(3000)
    s, args = _shadow_of(X)
    fig = plots.shadow_figure(*args, point_budget=3000)  # n == budget: points
    assert [t.name for t in fig.data] == ["points", "centers"] and fig.layout.title.subtitle.text is None
    assert np.asarray(fig.data[0].x).size == 3000
    fig = plots.data_figure(X, y=lab, point_budget=3000)
    assert not plots.draws_density(fig) and sum(np.asarray(t.x).size for t in fig.data) == 3000
    # between max_points and the budget: the seeded sample, as before
    fig = plots.shadow_figure(*args, max_points=500)
    assert np.asarray(fig.data[0].x).size == 500 and "500 of 3,000 points drawn" in fig.layout.title.text


def test_a_box_over_a_one_panel_density_selects_the_rows_inside_it():
    X, _ = _blobs(5000)
    ids = np.arange(5000) + 3
    panels = plots.data_panels(X, ids)
    box = {"points": [], "box": [{"xref": "x", "yref": "y", "x": [3.0, 5.0], "y": [-1.0, 1.0]}]}
    inside = ids[(X[:, 0] >= 3) & (X[:, 0] <= 5) & (X[:, 1] >= -1) & (X[:, 1] <= 1)]
    assert inside.size > 100 and np.array_equal(rows_in_regions(box, panels), inside)
    # one column is drawn at y = 0: a box across the line selects by x alone
    line = plots.data_panels(X[:, :1], ids)
    assert np.array_equal(rows_in_regions(box, line), ids[(X[:, 0] >= 3) & (X[:, 0] <= 5)])


def test_one_column_above_the_budget_shows_its_row_of_bins():
    x = np.random.default_rng(0).normal(size=(3000, 1))
    s = shadow_centers(x, sigma=1.0, ell=4.0)
    for fig in (plots.data_figure(x, point_budget=1000),
                plots.shadow_figure(x, s.labels, s.center_indices, s.weights, point_budget=1000)):
        heat = fig.data[0]
        full = np.flatnonzero(png_pixels(heat.source)[:, :, 3].any(axis=1))
        lo, hi = fig.layout.yaxis.range
        assert full.size == 1 and lo < heat.y0 + full[0] * heat.dy < hi and hi - lo == pytest.approx(3 * heat.dy)


def test_the_density_has_about_two_rows_a_bin_up_to_the_finest_bins():
    assert plots.density_bins(1_000) == 50
    assert plots.density_bins(20_000) == 100 and plots.density_bins(10**7) == DENSITY_BINS
    X = np.random.default_rng(0).normal(size=(20_000, 2))
    fig = plots.data_figure(X, point_budget=1000)
    assert fig.layout.title.subtitle.text == density_note(20_000, None, 100)
    assert png_pixels(fig.data[0].source).shape == (100, 100, 4)


@pytest.mark.parametrize("point_budget", [1_000, 10_000], ids=["density", "points"])
def test_thousands_of_centers_draw_the_heaviest_only_and_the_chart_says_how_many_of_how_many(point_budget):
    # Seen: 16,436 centers over 20,000 rows made the chart one mass of outlines. A small eps gives m of
    # several thousand here; the chart draws the MAX_CENTERS_DRAWN heaviest, sized among all m.
    from rskpca.plotting._density_drawing import MAX_CENTERS_DRAWN

    X, lab = _blobs(6000)
    s = shadow_centers(X, sigma=0.02, ell=1.0)
    assert s.m > MAX_CENTERS_DRAWN
    fig = plots.shadow_figure(X, s.labels, s.center_indices, s.weights, row_ids=np.arange(6000),
                              point_budget=point_budget, y=lab, bins=DENSITY_BINS)
    centers = next(t for t in fig.data if t.name in ("shadow centers", "centers"))
    kept = np.sort(np.argsort(-s.weights, kind="stable")[:MAX_CENTERS_DRAWN])
    assert centers.x.size == MAX_CENTERS_DRAWN
    np.testing.assert_array_equal(centers.customdata[:, 0], s.center_indices[kept])
    note = fig.layout.title.subtitle.text if point_budget == 1_000 else fig.layout.title.text
    assert f"{MAX_CENTERS_DRAWN:,} heaviest" in note and (point_budget != 1_000 or f"of {s.m:,} shadow" in note)
    emb = embedding_figure({"ShDE + RSKPCA": X}, y=lab, bins=DENSITY_BINS, row_ids=np.arange(6000),
                           centers=(s.center_indices, s.weights), max_points=point_budget)
    drawn = [t for t in emb.data if t.name == "shadow centers" and t.customdata is not None]
    assert drawn and all(t.x.size == MAX_CENTERS_DRAWN for t in drawn)
    if point_budget == 1_000:
        assert emb.layout.title.text == density_note(6000, MAX_CENTERS_DRAWN, DENSITY_BINS, of=s.m)
