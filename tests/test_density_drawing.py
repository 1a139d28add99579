"""Drawing n points: density panels above the point budget, region selections that select rows, and the
Embeddings page's all-rows fits (exact KPCA on all n or a stated seeded sample)."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
import pytest

from rskpca.evaluation.all_rows import (alignment_map, exact_memory_bytes, fit_on_all_rows, plan_exact,
                                        training_embedding)
from rskpca.evaluation.fitting import fit_method
from rskpca.evaluation.methods import make_estimator
from rskpca.plotting import (axis_of_panel, density_counts, density_note, embedding_figure, embedding_panels,
                             rows_in_region, rows_in_regions, selection_regions)
from rskpca.core.shadow import shadow_centers


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
    fig = embedding_figure({"Exact KPCA": X[sample], "ShDE + RSKPCA": X, "Nystrom": -X}, y=lab,
                           row_ids=np.arange(3000) + 1, rows={"Exact KPCA": sample},
                           centers=(s.center_indices, s.weights), max_points=4000,
                           panel_notes={"Exact KPCA": "seeded sample of 500 rows"})
    go.Figure(fig)  # the figure is valid (traces are built unvalidated)
    types = [(t.type, t.xaxis) for t in fig.data]
    # the sample panel (500 <= 4000 // 3) draws points, one trace per class; the others a heatmap and the centers
    assert types[:3] == [("scattergl", "x")] * 3 or types[:3] == [("scatter", "x")] * 3
    assert ("heatmap", "x2") in types and ("heatmap", "x3") in types
    centers = [t for t in fig.data if t.name == "shadow centers"]
    assert len(centers) == 2 and centers[0].x.size == s.m
    assert fig.layout.title.text == density_note(3000, s.m)
    assert "seeded sample of 500 rows" in fig.layout.annotations[0].text
    # sizes grow with the weight; hover names the row (1-based ids here) and the weight
    heaviest = int(np.argmax(s.weights))
    assert centers[0].marker.size[heaviest] == max(centers[0].marker.size)
    assert centers[0].customdata[heaviest][0] == s.center_indices[heaviest] + 1
    assert "weight" in centers[0].hovertemplate
    heat = next(t for t in fig.data if t.type == "heatmap")
    z = np.asarray(heat.z)
    assert heat.hoverinfo == "skip" and z.shape == (200, 200) and z.dtype == np.uint8 and z.max() == 255
    # every bin with a row is coloured, every empty one transparent
    A = X  # the "ShDE + RSKPCA" panel
    lo, hi = A.min(axis=0), A.max(axis=0)
    pad = 0.02 * (hi - lo)
    counts, _, _ = density_counts(A[:, 0], A[:, 1], ranges=[[lo[0] - pad[0], hi[0] + pad[0]],
                                                            [lo[1] - pad[1], hi[1] + pad[1]]])
    assert np.array_equal(z > 0, counts > 0) and counts.sum() == 3000
    assert '"dtype":"u1"' in fig.to_json().replace(" ", "")  # one byte a bin on the wire


def test_density_panels_are_small_whatever_n():
    X = np.random.default_rng(0).normal(size=(200_000, 2))
    fig = embedding_figure({"a": X, "b": X}, max_points=20_000)
    points = sum(np.asarray(t.x).size for t in fig.data if t.type in ("scatter", "scattergl"))
    assert points == 0 and len(fig.to_json()) < 2_000_000


def test_a_selection_draws_its_own_histogram_in_density_panels():
    X, _ = _blobs(3000)
    selected = np.flatnonzero(X[:, 0] > 2)
    fig = embedding_figure({"a": X, "b": X}, max_points=1000, selected_rows=selected)
    overlays = [t for t in fig.data if t.type == "heatmap" and t.name == "selected"]
    base = [t for t in fig.data if t.type == "heatmap" and t.name == "density"]
    assert len(overlays) == 2 and len(base) == 2
    sel, every = np.asarray(overlays[0].z) > 0, np.asarray(base[0].z) > 0
    assert sel.any() and np.all(every[sel]) and sel.sum() < every.sum()


def test_under_the_budget_every_row_is_a_point():
    X, lab = _blobs(300)
    fig = embedding_figure({"a": X, "b": X}, y=lab)
    assert not any(t.type == "heatmap" for t in fig.data) and fig.layout.title.text is None
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
    note = exact_rows_note(plan_exact(1_000_000, 2000), 0.07)
    assert "seeded sample of 2,000 rows" in note and "8 TB" in note and "hours" in note
