"""The ell scrubbers: frames carry only what changes, within budgets, as compact arrays."""

import numpy as np
import plotly.io as pio
import pytest

from rskpca import plotting as plots
from rskpca.core.shadow import shadow_centers
from rskpca.ui.ell_scrubber import selected_ell


def _frames(X, ells, sigma=1.0):
    out = []
    for ell in ells:
        s = shadow_centers(X, sigma=sigma, ell=ell)
        out.append(dict(ell=ell, center_indices=s.center_indices, weights=s.weights, m=s.m, n=s.n))
    return out


def test_shadow_scrubber_frames_hold_each_ells_centers_only():
    X = np.random.default_rng(0).normal(size=(300, 2))
    frames = _frames(X, [1.0, 3.0, 6.0])
    fig = plots.shadow_scrubber_figure(X, frames)
    assert [f.name for f in fig.frames] == ["1", "3", "6"]
    for fr, f in zip(frames, fig.frames):
        centers, marker = f.data
        assert sorted(zip(centers.x, centers.y)) == sorted(zip(X[fr["center_indices"], 0].astype(np.float32),
                                                                X[fr["center_indices"], 1].astype(np.float32)))
        assert list(marker.x) == [fr["ell"]]
        assert f"m = {fr['m']}" in f.layout.title.text
        # the data points (trace 0) never travel in a frame
        assert 0 not in f.traces
    assert [s.label for s in fig.layout.sliders[0].steps] == ["1", "3", "6"]
    # the m/n strip carries each ell for the click that sets it
    strip = next(t for t in fig.data if t.name.startswith("m/n over ell"))
    assert list(strip.customdata) == [1.0, 3.0, 6.0]
    assert list(strip.y) == pytest.approx([fr["m"] / fr["n"] for fr in frames])


def test_scrubber_budgets_are_kept_and_said():
    X = np.random.default_rng(1).normal(size=(5000, 2))
    frames = [dict(ell=2.0, center_indices=np.arange(3000), weights=np.ones(3000))]
    fig = plots.shadow_scrubber_figure(X, frames, max_points=1000, max_centers=500)
    assert len(fig.data[0].x) == 1000
    assert len(fig.frames[0].data[0].x) == 500
    title = fig.frames[0].layout.title.text
    assert "500 heaviest centers drawn" in title and "1,000 of 5,000 points drawn" in title
    # what was drawn on a second line: one line ran past both edges of the chart (a tryout, usps)
    head, details = title.split("<br>")
    assert head == "ell = 2: m = 3,000 shadow centers, 60.0% of n" and "heaviest" in details
    # float32 arrays travel base64-encoded: the JSON stays small
    spec = pio.to_json(fig, validate=False)
    assert '"dtype":"f4"' in spec
    assert len(spec) < 60_000


def test_density_and_embedding_scrubbers():
    g = np.linspace(0, 1, 4)
    kde = np.ones((4, 4))
    fig = plots.density_scrubber_figure([dict(ell=1.0, shde=kde * 0.5, m=1, n=9),
                                         dict(ell=2.0, shde=kde, m=9, n=9)], kde=kde, gx=g, gy=g)
    assert fig.frames[0].data[0].type == "heatmap"
    assert np.allclose(fig.frames[1].data[0].z, 0.0)
    # every scrubber's frame title begins "ell = X: " (the e2e tests and a reader look for it)
    assert [f.layout.title.text.split(": ")[0] for f in fig.frames] == ["ell = 1", "ell = 2"]
    assert fig.frames[1].layout.title.text.startswith("ell = 2: m = 9 shadow centers, ")
    assert fig.frames[0].layout.title.text.startswith("ell = 1: m = 1 shadow center, ")  # one, singular
    # One symmetric scale for all frames, its colours stretched near 0: a difference at 4% of
    # the range is as coloured as one at 20% on a linear scale (later frames were all white).
    from plotly.colors import sample_colorscale, unlabel_rgb
    heat = fig.data[0]
    assert heat.zmin == -heat.zmax
    stops = np.array([p for p, _ in heat.colorscale])
    rgb = np.array([unlabel_rgb(c) for _, c in heat.colorscale], dtype=float)
    at = lambda value: np.array([np.interp(value, stops, rgb[:, k]) for k in range(3)])  # plotly interpolates so
    linear = np.array(unlabel_rgb(sample_colorscale("RdBu_r", [0.5 + 0.5 * 0.2])[0]))
    white = np.array(unlabel_rgb(sample_colorscale("RdBu_r", [0.5])[0]))
    assert np.abs(at(0.5 + 0.5 * 0.04) - white).sum() >= 0.9 * np.abs(linear - white).sum()
    E = np.random.default_rng(2).normal(size=(20, 2))
    fig = plots.embedding_scrubber_figure(E, [dict(ell=1.0, embedding=E * 2, m=5, n=20, error=0.1)],
                                          y=np.arange(20) % 3)
    assert np.allclose(fig.frames[0].data[0].x, 2 * E[:, 0].astype(np.float32))
    assert "alignment error 0.1" in fig.frames[0].layout.title.text
    # classes travel as numbers with a stepped colour scale, not one colour string per point
    color = fig.data[0].marker.color
    assert color.dtype == np.float32 and sorted(set(color.tolist())) == [0.0, 1.0, 2.0]
    assert fig.data[1].marker.colorscale == fig.data[0].marker.colorscale
    with pytest.raises(ValueError, match="frames is empty"):
        plots.embedding_scrubber_figure(E, [])


def test_selected_ell_reads_the_clicked_point():
    assert selected_ell({"selection": {"points": [{"customdata": [4.0]}]}}) == 4.0
    assert selected_ell({"selection": {"points": [{"customdata": 99.0}]}}) is None  # outside the slider
    assert selected_ell(None) is None



def test_a_flat_m_over_n_strip_stays_near_its_value():
    # Every point its own center at every ell (a tiny sigma): Plotly's autorange ran the strip 0%-200%.
    X = np.random.default_rng(0).normal(size=(60, 2))
    fig = plots.shadow_scrubber_figure(X, _frames(X, [1.0, 3.0], sigma=1e-6))
    strip = next(t for t in fig.data if t.name.startswith("m/n over ell"))
    assert list(strip.y) == [1.0, 1.0]
    axis = fig.layout[strip.yaxis.replace("y", "yaxis")]
    assert list(axis.range) == pytest.approx([0.9, 1.05])
    # a strip that moves keeps Plotly's autorange
    moving = plots.shadow_scrubber_figure(X, _frames(X, [1.0, 3.0]))
    moving_strip = next(t for t in moving.data if t.name.startswith("m/n over ell"))
    assert moving.layout[moving_strip.yaxis.replace("y", "yaxis")].range is None


@pytest.mark.parametrize("width", [700, 850, 1050])
def test_the_strips_points_sit_above_the_sliders_steps(width):
    # plotly.js puts step i of a slider spanning the plot area at stepInset + (W - 2 stepInset) i / (N - 1)
    # pixels; the strip's points were 30 px off them with Plotly's autorange (a tryout).
    X = np.random.default_rng(0).normal(size=(200, 2))
    ells = [1.0, 1.5, 2.0, 2.5, 3.0]
    fig = plots.shadow_scrubber_figure(X, _frames(X, ells))
    strip = next(t for t in fig.data if t.name.startswith("m/n over ell"))
    low, high = fig.layout[strip.xaxis.replace("x", "xaxis")].range
    points_px = (np.asarray(strip.x) - low) / (high - low) * width
    steps_px = 10 + (width - 20) * np.arange(len(ells)) / (len(ells) - 1)
    # exact at the usual plot width (850 px), within 2.5 px from 700 to 1050 px
    assert np.abs(points_px - steps_px).max() <= (0.01 if width == 850 else 2.5)


@pytest.mark.parametrize("kernel", ["gaussian", "laplacian"])
def test_densities_from_the_kept_kernel_equal_the_kernel_sums(kernel, monkeypatch):
    """The KDE and the ShDE read from the kept k(P, X) (a product with the shadow's weights put on
    their centers) are eq. (8) and eq. (16) evaluated directly; above the budget they are evaluated."""
    from rskpca.core.radial_kernels import kernel_row_means
    from rskpca.ui import compute
    from rskpca.ui.compute import densities

    rng = np.random.default_rng(3)
    X, P = rng.normal(size=(400, 3)), rng.normal(size=(50, 3))
    digest = f"density-test-{kernel}"
    s = shadow_centers(X, sigma=0.8, ell=3.0, kernel=kernel)
    kde_want = kernel_row_means(P, X, sigma=0.8, kernel=kernel)
    shde_want = kernel_row_means(P, s.centers, sigma=0.8, kernel=kernel, weights=s.weights)
    for budget, key in ((compute.DENSITY_KERNEL_MAX_ELEMENTS, "kept"), (0, "evaluated")):
        monkeypatch.setattr(densities, "DENSITY_KERNEL_MAX_ELEMENTS", budget)
        kde, shde = compute.densities_at(digest + key, X, 0.8, kernel, 3.0, P, key)
        np.testing.assert_allclose(kde, kde_want, rtol=1e-12)
        np.testing.assert_allclose(shde, shde_want, rtol=1e-12)
    # the kept kernel is shared read-only: nothing can write into the cached values
    K = densities._points_kernel(digest + "kept", X, 0.8, kernel, P, "kept")
    assert not K.flags.writeable
    with pytest.raises(ValueError):
        K[0, 0] = 0.0


def test_embedding_scrubber_reuses_a_frame_when_the_shadow_has_stopped_changing(monkeypatch):
    """Rows far apart against sigma are each their own center from a small ell on: every later ell has the
    same shadow, hence the same RSKPCA, so the scrubber fits once and shows the frame at every ell."""
    import json

    import rskpca.ui.compute.fits as fits
    from rskpca.ui import compute
    from rskpca.ui.compute.scrubber_frames import SCRUB_EMBED_ELLS

    X = np.repeat(np.arange(12.0)[:, None] * 50.0, 2, axis=1) + np.random.default_rng(0).normal(size=(12, 2))
    digest, sigma = "scrubber-reuse-test", 10.0
    assert all(shadow_centers(X, sigma=sigma, ell=ell).m == 12 for ell in SCRUB_EMBED_ELLS)
    ells = []
    original = fits.fit_method
    monkeypatch.setattr(fits, "fit_method",
                        lambda name, *a, _f=original, **k: ells.append(k["ell"]) or _f(name, *a, **k))
    exact = compute.exact_embedding(digest, X, sigma, "gaussian", 3)
    fig = json.loads(compute.embedding_scrubber(digest, X, exact, sigma, "gaussian", 3))
    assert ells == [SCRUB_EMBED_ELLS[0]]
    frames = fig["frames"]
    assert [f["name"] for f in frames] == [f"{e:g}" for e in SCRUB_EMBED_ELLS]
    # one embedding in every frame (the frames differ only in their marker of ell)
    assert len({json.dumps(f["data"][0], sort_keys=True) for f in frames}) == 1


def test_the_apps_shadows_come_off_the_table_where_it_pays_and_equal_the_scan():
    """Digits (64 features): the app reads its shadows off one table of distances to earlier rows, at
    every sigma; two moons (2 features): it scans. Either way the shadow is Algorithm 2's."""
    from sklearn.datasets import load_digits, make_moons

    from rskpca.ui import compute

    for name, X, path in (("digits", load_digits().data.astype(float), "table"),
                          ("moons", make_moons(300, noise=0.1, random_state=0)[0], "compiled")):
        for sigma, ell in ((20.0, 2.0), (40.0, 7.5), (0.3, 4.0)):
            got = compute.shadow(f"test-{name}", X, sigma, ell, "gaussian")
            want = shadow_centers(X, sigma=sigma, ell=ell)
            assert got.algorithm in (path, "compiled", "blas")
            assert np.array_equal(got.center_indices, want.center_indices)
            assert np.array_equal(got.labels, want.labels)
        if path == "table":
            assert compute.shadow(f"test-{name}", X, 20.0, 2.0, "gaussian").algorithm == "table"


def test_the_density_scrubber_and_the_kde_page_share_their_points_and_one_kernel(monkeypatch):
    """Above 3,000 rows the KDE page compares densities at as many points as keep their kernel whole,
    and the scrubber draws its frames at those points: one kernel per sigma for both (usps: 800 points)."""
    from rskpca.ui import compute
    from rskpca.ui.compute import densities

    rng = np.random.default_rng(5)
    X = rng.normal(size=(5000, 3))
    rows = compute.density_rows(X.shape[0])
    assert rows.size == compute.DENSITY_KERNEL_MAX_ELEMENTS // X.shape[0] == 800
    assert compute.density_rows(20_000).size == compute.DENSITY_MIN_POINTS
    built = []
    real = densities.kernel_matrix
    monkeypatch.setattr(densities, "kernel_matrix", lambda *a, **k: built.append(a[0].shape) or real(*a, **k))
    digest = "density-share-test"
    compute.density_scrubber(digest, X, 1.5, "gaussian", ["a", "b"])
    kde, shde = compute.densities_at(digest, X, 1.5, "gaussian", 4.5, X[rows], f"rows{rows.size}")
    assert built == [(800, 3)]  # the scrubber's kernel, read again by the page
    s = shadow_centers(X, sigma=1.5, ell=4.5)
    from rskpca.core.radial_kernels import kernel_row_means
    np.testing.assert_allclose(shde, kernel_row_means(X[rows], s.centers, sigma=1.5, weights=s.weights), rtol=1e-12)
    np.testing.assert_allclose(kde, kernel_row_means(X[rows], X, sigma=1.5), rtol=1e-12)


def test_the_density_scrubber_draws_1000_of_the_pages_points_off_its_kernel(monkeypatch):
    """Between 1,000 and 3,000 rows the page evaluates the densities at every row (its kernel kept whole);
    the scrubber draws 1,000 of those points, read off that kernel, not off a second one (digits)."""
    import base64
    import json

    from rskpca.core.radial_kernels import kernel_row_means
    from rskpca.core.row_draws import rows_within
    from rskpca.ui import compute
    from rskpca.ui.compute import densities

    X = np.random.default_rng(7).normal(size=(1500, 3))
    built = []
    real = densities.kernel_matrix
    monkeypatch.setattr(densities, "kernel_matrix", lambda *a, **k: built.append(a[0].shape) or real(*a, **k))
    spec = json.loads(compute.density_scrubber("density-page-kernel-test", X, 1.5, "gaussian", ["a", "b"]))
    assert built == [(1500, 3)]  # the page's kernel, over all 1,500 rows
    drawn = rows_within(1500, 1000, np.random.default_rng(1))
    frame = next(f for f in spec["frames"] if float(f["name"]) == 4.5)
    y = frame["data"][0]["y"]  # a typed array (base64) or a list
    shde = np.frombuffer(base64.b64decode(y["bdata"]), dtype=np.dtype(y["dtype"])) if isinstance(y, dict) else y
    assert "1,000 of 1,500 points" in json.dumps(spec["layout"])
    s = shadow_centers(X, sigma=1.5, ell=4.5)
    np.testing.assert_allclose(shde, kernel_row_means(X[drawn], s.centers, sigma=1.5, weights=s.weights), rtol=1e-6)


@pytest.mark.parametrize("n_points", [40, 900])  # the kept kernel (40 x 300), and above its budget, per ell
def test_the_shde_of_every_ell_in_one_product_equals_each_ells_own(n_points, monkeypatch):
    from rskpca.core.radial_kernels import kernel_row_means
    from rskpca.ui import compute
    from rskpca.ui.compute import densities

    monkeypatch.setattr(densities, "DENSITY_KERNEL_MAX_ELEMENTS", 100_000)
    rng = np.random.default_rng(6)
    X, P = rng.normal(size=(300, 4)), rng.normal(size=(n_points, 4))
    ells = (1.0, 2.5, 4.0, 9.5)
    got = compute.shde_over_ells(f"shde-over-ells-{n_points}", X, 2.0, "gaussian", ells, P, f"p{n_points}")
    assert got.shape == (len(ells), n_points)
    for row, ell in zip(got, ells):
        s = shadow_centers(X, sigma=2.0, ell=ell)
        np.testing.assert_allclose(row, kernel_row_means(P, s.centers, sigma=2.0, weights=s.weights), rtol=1e-12)


@pytest.mark.parametrize("kind", ["shadow", "density grid", "density curve", "density points", "embedding"])
def test_scrubber_figures_built_from_dicts_pass_plotlys_validation(kind):
    # built without validation (speed: a sigma change rebuilds them): every property must be one plotly knows
    import plotly.graph_objects as go

    rng = np.random.default_rng(1)
    ells = [1.0, 1.5, 2.0]
    if kind == "shadow":
        X = rng.normal(size=(40, 2))
        fig = plots.shadow_scrubber_figure(X, [dict(ell=e, center_indices=np.arange(0, 40, 2 + i),
                                                    weights=np.ones(len(range(0, 40, 2 + i))))
                                               for i, e in enumerate(ells)], active=1)
    elif kind == "embedding":
        E = rng.normal(size=(30, 3))
        fig = plots.embedding_scrubber_figure(E, [dict(ell=e, embedding=rng.normal(size=(30, 2)), m=10, n=30,
                                                       error=0.1) for e in ells], y=rng.integers(0, 3, 30))
    else:
        g = np.linspace(0, 1, 5)
        kde = {"density grid": rng.random((5, 5)), "density curve": rng.random(5),
               "density points": rng.random(12)}[kind]
        axes = {"density grid": dict(gx=g, gy=g), "density curve": dict(gx=g), "density points": {}}[kind]
        fig = plots.density_scrubber_figure([dict(ell=e, m=3, n=12, shde=kde * (1 + 0.1 * i))
                                             for i, e in enumerate(ells)], kde=kde, **axes)
    checked = go.Figure(fig.to_dict())  # raises ValueError on any unknown property or bad value
    assert len(checked.frames) == len(ells) and len(checked.data) == len(fig.data)
    assert [f.name for f in checked.frames] == ["1", "1.5", "2"]
