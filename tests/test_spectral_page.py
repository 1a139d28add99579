"""AppTest of the Spectral page: each method on a sample, beside the exact method; bad settings keep the last
good result; the page's helpers (cluster matching, tables, the eigenvalue figure) in plain tests."""

import json

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from charts import chart_keys, chart_specs
from test_app import APP, TIMEOUT, open_page, _errors, _ok

from rskpca import ReducedSetSpectralClustering, plotting
from rskpca.ui.compute import spectral as sp
from rskpca.ui.compute import spectral_tables as tables

PAGE = "pages/10_Spectral.py"


def _page(**query) -> AppTest:
    return open_page(PAGE, **query)


def _metrics(at) -> dict:
    return {m.label: m.value for m in at.main.get("metric")}


def _metric(at, start: str) -> str:
    return next(value for label, value in _metrics(at).items() if label.startswith(start))


@pytest.fixture(scope="module")
def moons():
    return _page(dataset="two_moons", ell=4)


def test_diffusion_map_embeds_every_row_beside_the_exact_method(moons):
    at = moons
    _ok(at, "diffusion")
    assert not _errors(at)
    assert at.radio(key="sp_method").value == "diffusion"
    assert chart_keys(at) == ["sp_embedding", "sp_eigenvalues"]
    embedding, eigen = chart_specs(at)
    # two panels (reduced set, exact) of every one of the 1000 rows, one trace per class
    names = [a["text"] for a in embedding["layout"]["annotations"]]
    assert names[0].startswith("reduced set (341 shadow centers)") and names[1].startswith("exact (every row a center")
    assert len(eigen["data"]) == 2
    assert float(_metric(at, "alignment error vs exact")) < 0.05
    assert _metric(at, "shadow centers m") == "341"
    # the eigenvalue table and its CSV, and every row's coordinates as a CSV
    table = at.dataframe[0].value
    assert list(table.columns) == ["component", "reduced set (m = 341)", "exact (n = 1,000)"]
    assert table.shape[0] == 5  # the sidebar's rank r
    labels = [b.proto.label for b in at.get("download_button")]
    assert "Download every row's coordinates (CSV, 1,000 rows)" in labels
    assert labels.count("Download figure (HTML)") == 2 and labels.count("Download table (CSV)") == 1


def test_alpha_and_t_change_the_diffusion_map(moons):
    at = moons
    before = at.dataframe[0].value.iloc[:, 1].to_numpy()
    at.number_input(key="sp_t").set_value(3.0).run()
    _ok(at, "t = 3")
    at.slider(key="sp_alpha").set_value(0.0).run()
    _ok(at, "alpha = 0")
    after = at.dataframe[0].value.iloc[:, 1].to_numpy()
    assert not np.allclose(before, after)  # alpha changes the operator, so its eigenvalues


def test_laplacian_eigenmaps(moons):
    at = moons
    at.radio(key="sp_method").set_value("eigenmaps").run()
    _ok(at, "eigenmaps")
    assert not _errors(at)
    assert chart_keys(at) == ["sp_embedding", "sp_eigenvalues"]
    assert float(_metric(at, "alignment error vs exact")) < 0.05


def test_spectral_clustering_draws_the_clusters_on_the_data_and_scores_them(moons):
    at = moons
    at.radio(key="sp_method").set_value("clustering").run()
    _ok(at, "clustering")
    assert not _errors(at)
    assert chart_keys(at) == ["sp_cluster_view", "sp_exact_cluster_view", "sp_cluster_embedding", "sp_eigenvalues"]
    view = chart_specs(at)[0]
    assert [t["name"] for t in view["data"]] == ["1", "2"]  # k = 2 clusters on the data view
    assert "label" in view["data"][0]["hovertemplate"]  # hover gives each row's label beside its cluster
    for score in ("NMI", "CA", "ARI"):
        assert float(_metric(at, f"{score} vs label, reduced set")) > 0.95, score
    scores = next(df.value for df in at.dataframe if "CA" in df.value.columns)
    assert scores["clusters"].tolist() == ["reduced set", "exact (every row a center)"]
    # the cluster x label table (classes 0 and 1): its columns as wide as their widest cell (counts of 3 digits)
    (heat,) = [df for df in at.dataframe if list(df.value.columns) == ["0", "1"]]
    widths = {name: col.get("width") for name, col in json.loads(heat.proto.columns).items()}
    assert widths == {"0": 8 * 3 + 18, "1": 8 * 3 + 18}, widths
    assert scores["ARI vs the reduced set"].iloc[1] > 0.95 and (scores["rows scored"] == 1000).all()
    # every number says the rows it was computed on
    deltas = {m.label: m.delta for m in at.main.get("metric")}
    # the clustering's default center budget (at most 900 centers; the library picks eps for it)
    # on 1,000 rows the budget aims at a third of them, and says so (a tryout read "at most 900" and "m = 48" on
    # iris as a contradiction)
    m = int(_metric(at, "shadow centers m").replace(",", ""))
    assert deltas["shadow centers m"].endswith("of all n = 1,000 rows") and m <= 333
    (budget,) = [c.value for c in at.caption if c.value.startswith("Center budget: at most 900 centers")]
    assert "on 1,000 rows it aims at 333, so that each center stands for several rows" in budget, budget
    assert "The sidebar's ell (its shadow keeps" in budget and "does not change this fit" in budget, budget
    assert all(deltas[label] == "on all n = 1,000 rows" for label in deltas if label.startswith("ARI"))
    labels = [b.proto.label for b in at.get("download_button")]
    assert "Download every row's coordinates and cluster (CSV, 1,000 rows)" in labels


def test_too_many_clusters_is_a_message_and_the_last_good_result_stays():
    at = _page(dataset="two_moons", ell=1, centers="ell")  # the sidebar's shadow: 48 centers
    at.radio(key="sp_method").set_value("clustering").run()
    _ok(at, "k = 2")
    good = chart_specs(at)
    at.number_input(key="sp_clusters").set_value(60).run()
    _ok(at, "k = 60")
    (error,) = _errors(at)
    assert "k = 60 clusters need at least 60 shadow centers" in error and "Raise ell" in error
    assert any("Still showing the last settings" in i.value and "k = 2 clusters" in i.value for i in at.info)
    assert chart_specs(at) == good  # the k = 2 result, drawn as before
    # raising ell gives enough centers: the message goes, the new k is fitted
    at.slider(key="ell").set_value(10.0).run()
    _ok(at, "ell = 10")
    assert not _errors(at)
    # clusters are categories, never a colour scale: one trace (a legend entry) per cluster
    assert [t["name"] for t in chart_specs(at)[0]["data"]] == [str(c) for c in range(1, 61)]


def test_a_text_label_of_26_classes_is_scored_with_nmi_ca_ari_and_a_cluster_by_label_table():
    """Issue 38: 26 letters as the label (25+ classes crashed the page); the clusters are scored against them."""
    rng = np.random.default_rng(0)
    letters = np.array([chr(ord("A") + i) for i in range(26)])
    centers = rng.normal(0, 6, size=(26, 4))
    codes = rng.integers(0, 26, size=520)
    X = np.rint(centers[codes] + rng.normal(size=(520, 4)))  # integer-valued, with ties
    rows = "\n".join(",".join(f"{v:g}" for v in x) + f",{letters[c]}" for x, c in zip(X, codes))
    at = AppTest.from_file(APP, default_timeout=TIMEOUT).run()
    at.switch_page("pages/1_Data.py").run()
    at.file_uploader(key="uploader").set_value(("letters.csv", ("a,b,c,d,letter\n" + rows).encode(), "text/csv")).run()
    at.switch_page(PAGE).run()
    at.radio(key="sp_method").set_value("clustering").run()
    assert at.number_input(key="sp_clusters").value == 26  # k starts at the label's number of classes
    _ok(at, "26 letters")
    assert not _errors(at)
    for score in ("NMI", "CA", "ARI"):
        assert 0.3 < float(_metric(at, f"{score} vs label, reduced set")) <= 1.0, score
    table = next(df.value for df in at.dataframe if "A" in df.value.columns)
    assert table.shape == (26, 26) and table.to_numpy().sum() == 520
    # the view keeps 26 clusters apart: one legend entry each
    assert len(chart_specs(at)[0]["data"]) == 26


def test_the_affinity_and_the_center_budget_are_offered_and_change_the_fit():
    at = _page(dataset="two_moons", ell=4)
    at.radio(key="sp_method").set_value("clustering").run()
    assert at.selectbox(key="sp_affinity").value == "auto" and at.selectbox(key="sp_budget").value == "auto"
    assert int(_metric(at, "shadow centers m").replace(",", "")) <= 900  # the default budget, at most 900 centers
    at.selectbox(key="sp_budget").set_value(500).run()
    _ok(at, "budget 500")
    assert int(_metric(at, "shadow centers m").replace(",", "")) <= 500 and not _errors(at)
    at.selectbox(key="sp_budget").set_value("ell").run()
    at.selectbox(key="sp_affinity").set_value("gaussian").run()
    _ok(at, "gaussian on the sidebar's shadow")
    assert _metric(at, "shadow centers m") == "341" and not _errors(at)
    assert float(_metric(at, "ARI vs label, reduced set")) > 0.95
    at.selectbox(key="sp_affinity").set_value("local_scaling").run()
    _ok(at, "local scaling")
    assert not _errors(at)
    for method in ("diffusion", "eigenmaps"):  # a budget on the transformers too (ell=None in the library)
        at.radio(key="sp_method").set_value(method).run()
        at.selectbox(key="sp_budget").set_value(500).run()
        _ok(at, f"{method}, budget 500")
        assert not _errors(at) and int(_metric(at, "shadow centers m").replace(",", "")) <= 500


def test_a_solve_predicted_long_says_so_and_waits_for_a_click(monkeypatch):
    import streamlit as st

    st.cache_resource.clear()  # (a fit stored by an earlier test would be drawn at once)
    monkeypatch.setattr(sp, "SOLVE_S_PER_M2", 1e-4)  # 341 centers: about 12 s predicted
    at = _page(dataset="two_moons", ell=4)
    (info,) = [i.value for i in at.info if "waits for your go-ahead" in i.value]
    assert "Solving the m x m problem on m = 341 centers takes about" in info
    (solve,) = [b for b in at.button if b.key == "sp_solve"]
    assert "about" in solve.label and not chart_specs(at)
    solve.click().run()
    _ok(at, "solved")
    assert chart_keys(at) == ["sp_embedding", "sp_eigenvalues"]


def test_a_rank_the_centers_cannot_give_is_a_message_in_the_sidebars_words():
    at = _page(dataset="two_moons", ell=1, sigma=2.0, r=20)
    _ok(at, "r = 20")
    (error,) = _errors(at)
    assert "r = 20 components need at least 21 shadow centers" in error and "lower the rank r" in error
    assert not chart_specs(at)  # no earlier result on these data to keep


def test_above_the_row_limit_the_exact_method_is_skipped_and_says_why(monkeypatch):
    monkeypatch.setattr(sp, "SPECTRAL_EXACT_MAX_ROWS", 500)
    at = _page(dataset="two_moons", ell=4)
    _ok(at, "no exact")
    assert any("The exact method (every row its own center) is skipped" in i.value and "n = 1,000 rows is above 500" in i.value
               for i in at.info)
    embedding = chart_specs(at)[0]
    assert [a["text"] for a in embedding["layout"]["annotations"]] == ["reduced set (341 shadow centers)"]
    assert _metric(at, "alignment error vs exact") == "n/a"


def test_the_page_runs_on_a_sample_with_many_features():
    at = _page(dataset="digits", ell=2)
    for method in sp.SPECTRAL_METHODS:
        at.radio(key="sp_method").set_value(method).run()
        _ok(at, method)
        assert not _errors(at), method
        assert chart_specs(at), method


def test_the_learn_page_explains_the_extension_and_links_to_the_page():
    at = _page()
    at.switch_page("pages/8_Learn.py").run()
    _ok(at, "learn")
    text = " ".join(m.value for m in at.markdown)
    assert "Coifman & Lafon 2006" in text and "Belkin & Niyogi 2003" in text and "eqs. 14-15" in text
    assert "Spectral" in [link.proto.page for link in at.main.get("page_link")]


# ---------------------------------------------------------------------------
# The page's helpers, without Streamlit
# ---------------------------------------------------------------------------


def test_clusters_are_scored_against_a_class_label_only():
    assert tables.label_problem(None) == "no label column"
    assert "distinct numbers" in tables.label_problem(np.linspace(0, 1, tables.MAX_LABEL_CLASSES + 1))
    assert tables.label_scores(np.linspace(0, 1, 500), np.zeros(500, dtype=int)) is None
    assert tables.label_problem(np.array([None, None], dtype=object)) == "every label is missing"
    found = tables.label_scores(np.array(["a", "a", "b", np.nan], dtype=object), np.array([1, 1, 0, 0]))
    assert found.rows == 3 and found.scores.as_dict() == {"NMI": 1.0, "CA": 1.0, "ARI": 1.0}
    assert found.table.index.tolist() == [2, 1]  # numbered from 1 as drawn, matched to "a" then "b"


def test_exact_fit_is_every_row_a_center_and_the_reduced_fit_embeds_every_row():
    from sklearn.datasets import make_moons

    X, _ = make_moons(300, noise=0.05, random_state=0)
    request = sp.SpectralRequest.of("clustering", sigma=0.2, ell=3.0, kernel="gaussian", r=5, k=2, alpha=1.0, t=1.0,
                                    affinity="gaussian", budget="ell")
    exact, _ = sp._fit(request, X, np.ones(X.shape[0]), X, None)
    est = ReducedSetSpectralClustering(2, sigma=0.2, ell=1e12, affinity="gaussian", max_centers=None, lloyd_steps=0,
                                       random_state=sp.SEED).fit(X)
    assert exact.m == est.m_ == 300
    assert np.array_equal(exact.clusters, est.labels_)
    assert exact.embedding.shape == (300, 2)  # drawn in two components at k = 2
    table = tables.rows_table(np.arange(300), None, None, np.arange(300), exact, exact)
    assert list(table.columns) == ["row", "shadow_center_row", "cluster", "exact_cluster", "c1", "c2", "exact_c1",
                                   "exact_c2"]


def test_requests_ignore_what_their_method_does_not_use():
    a = sp.SpectralRequest.of("eigenmaps", sigma=1.0, ell=2.0, kernel="gaussian", r=3, k=4, alpha=0.5, t=2.0)
    b = sp.SpectralRequest.of("eigenmaps", sigma=1.0, ell=2.0, kernel="gaussian", r=3, k=9, alpha=1.0, t=0.0)
    assert a == b and a.components() == 3
    c = sp.SpectralRequest.of("clustering", sigma=1.0, ell=2.0, kernel="gaussian", r=3, k=4, alpha=0.5, t=2.0)
    assert c.n_components is None and c.components() == 3 and "k = 4 clusters" in c.describe()
    with pytest.raises(ValueError, match="method must be one of"):
        sp.SpectralRequest.of("pca", sigma=1.0, ell=2.0, kernel="gaussian", r=3, k=4, alpha=0.5, t=2.0)


def test_eigenvalue_figure_and_table():
    fig = plotting.spectral_eigenvalues_figure({"reduced <b>": [0.99, 0.5], "exact": [0.991, 0.52, 0.3]})
    assert [t.type for t in fig.data] == ["scatter", "scatter"] and fig.data[0].name == "reduced &lt;b&gt;"
    assert fig.data[1].x.tolist() == [1, 2, 3] and fig.layout.xaxis.range == (0.5, 3.5)
    table = tables.eigenvalue_table({"a": [0.9], "b": [0.8, 0.7]})
    assert table["a"].isna().tolist() == [False, True]


def test_k_starts_at_the_labels_classes_follows_a_new_data_set_and_keeps_a_users_choice():
    at = _page(dataset="iris")
    at.radio(key="sp_method").set_value("clustering").run()
    assert at.number_input(key="sp_clusters").value == 3  # iris: three species
    at.sidebar.selectbox(key="source").set_value("digits").run()
    assert at.number_input(key="sp_clusters").value == 10  # not typed: follows the data
    at.number_input(key="sp_clusters").set_value(4).run()
    at.sidebar.selectbox(key="source").set_value("two_moons").run()
    assert at.number_input(key="sp_clusters").value == 4  # typed by the user: kept
    _ok(at, "two moons at k = 4")


def test_the_error_against_the_exact_method_is_on_the_components_the_reduced_fit_computed():
    # a budgeted clustering at k = 2 computes one eigenvector, drawn beside a zero axis: the same first
    # component as the exact method's is no error, whatever the exact method's second component
    rng = np.random.default_rng(0)
    first, second = rng.normal(size=200), rng.normal(size=200)
    exact = sp.SpectralFit(200, np.array([0.99, 0.9]), np.column_stack([first, second]), None)
    reduced = sp.SpectralFit(20, np.array([0.99]), np.column_stack([-first, np.zeros(200)]), None)
    cmp = tables.comparison(reduced, exact)
    assert cmp["alignment_error"] < 1e-12
    np.testing.assert_allclose(cmp["embedding"][:, 0], first, atol=1e-12)  # sign fixed to the exact one's
    assert not cmp["embedding"][:, 1].any()  # the zero axis stays zero


def test_a_graph_in_pieces_is_said_beside_the_scores_and_a_connected_one_says_nothing():
    # Seen: seven eigenvalues of exactly 1 and an embedding of a few dashes, with no word on the page.
    rng = np.random.default_rng(0)
    codes = rng.integers(0, 3, size=300)
    X = np.array([[0.0, 0.0], [1000.0, 0.0], [0.0, 1000.0]])[codes] + rng.normal(size=(300, 2))
    rows = "\n".join(f"{a:.4f},{b:.4f},g{c}" for (a, b), c in zip(X, codes))
    at = AppTest.from_file(APP, default_timeout=TIMEOUT).run()
    at.switch_page("pages/1_Data.py").run()
    at.file_uploader(key="uploader").set_value(("far.csv", ("a,b,group\n" + rows).encode(), "text/csv")).run()
    at.switch_page(PAGE).run()
    at.radio(key="sp_method").set_value("clustering").run()
    _ok(at, "three far blobs")
    notes = [i.value for i in at.info if "pieces that no edge joins" in i.value]
    assert len(notes) == 1 and "at least 3 pieces" in notes[0] and "fewer centers" in notes[0]
    assert float(_metric(at, "ARI vs label, reduced set")) == 1.0  # here the pieces are the groups
    moons = _page(dataset="two_moons", ell=4)
    moons.radio(key="sp_method").set_value("clustering").run()
    assert not [i.value for i in moons.info if "pieces" in i.value]


def test_the_cluster_table_keeps_its_numbers_readable_on_the_darkest_shade():
    # a tryout read a whole cluster's count as dark blue on saturated blue
    import numpy as np
    import pandas as pd

    from rskpca.ui.spectral import heat_colours

    def luminance(rgb):
        c = np.asarray(rgb, dtype=float) / 255
        return float(np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4) @ [0.2126, 0.7152, 0.0722])

    css = heat_colours(pd.DataFrame([[50, 0]])).iloc[0, 0]
    alpha = float(css.rsplit(",", 1)[1].strip(" )"))
    cell = 255 + alpha * (np.array([59, 91, 219]) - 255)  # the shade over the white page
    text = luminance([49, 51, 63])  # Streamlit's text colour
    assert (luminance(cell) + 0.05) / (text + 0.05) >= 4.5


@pytest.mark.parametrize("classes, turned", [(26, True), (10, False)])
def test_a_cluster_table_too_wide_for_the_page_turns_one_class_a_row(classes, turned):
    # 26 letters beside 7 clusters scrolled past column U; turned, every class is in view
    from streamlit.testing.v1 import AppTest

    def page(classes):
        import numpy as np
        import pandas as pd

        from rskpca.ui.spectral import show_cluster_table

        counts = np.random.default_rng(0).integers(0, 900, size=(7, classes))
        table = pd.DataFrame(counts, index=range(1, 8), columns=[chr(65 + i) for i in range(classes)])
        show_cluster_table(table, key="t", filename="t")

    at = AppTest.from_function(page, args=(classes,)).run()
    (shown,) = at.dataframe
    assert shown.value.shape == ((classes, 7) if turned else (7, classes))
    assert any("One class a row" in c.value for c in at.caption) == turned
