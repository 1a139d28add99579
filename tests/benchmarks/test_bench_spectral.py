"""The spectral benchmark's functions on tiny inputs: every row filled, the baselines beside the shadow."""

import numpy as np
import pandas as pd
from sklearn.datasets import make_blobs


def test_circles_rows_time_sklearn_shadow_and_uniform():
    from bench_spectral import circles_rows

    rows = circles_rows(400, sigma=0.1, ells=(2.0,), n_held=100, repeats=1)
    assert [r["method"] for r in rows] == ["sklearn SpectralClustering", "ReducedSetSpectralClustering shadow",
                                           "ReducedSetSpectralClustering uniform"]
    assert rows[1]["m"] == rows[2]["m"] < 400 and rows[1]["ari"] > 0.9 and rows[1]["speedup"] > 0


def test_pendigits_rows_measure_against_every_row_a_center():
    from bench_spectral import pendigits_rows

    X = np.random.default_rng(0).normal(size=(500, 16)) * 30 + 50  # a stand-in with pendigits' shape
    rows = pendigits_rows(X, n_train=400, ells=(1.0,), repeats=1)
    exact = [r for r in rows if r["ell"] == "inf"]
    assert len(rows) == 1 + 2 * 3 and len(exact) == 2 and all(r["m"] == 400 for r in exact)
    assert all(0 <= r["held_alignment"] <= 1 and r["eig_error"] >= 0 for r in rows[1:])
    assert 0 <= rows[1]["train_alignment_sklearn"] < 1


def test_mixture_rows_cluster_and_embed_every_row():
    from bench_spectral import format_table, mixture_rows

    rows = mixture_rows(3000, d=10, k=5, sigma=5.0, ell=1.0)
    assert [r["embedded_rows"] for r in rows] == [3000, 3000, 3000]
    assert rows[0]["m"] == rows[1]["m"] and rows[0]["ari"] > 0.9 and rows[2]["ari"] > 0.99
    assert {"fit_seconds", "fit_then_transform_seconds"} <= set(format_table(rows).splitlines()[0].split())


def test_real_rows_score_every_method_on_labelled_data(tmp_path, monkeypatch):
    import bench_spectral
    from bench_spectral import real_rows

    X, y = make_blobs(240, n_features=3, centers=3, random_state=0)
    pd.DataFrame(np.column_stack([X, y]), columns=["a", "b", "c", "label"]).to_csv(tmp_path / "b.csv", index=False)
    monkeypatch.setitem(bench_spectral.REAL_DATA, "tiny", tmp_path / "b.csv")
    rows = real_rows(["tiny"], seeds=2)
    methods = [r["method"] for r in rows]
    assert methods[:len(bench_spectral.RSKPCA_VARIANTS)] == list(bench_spectral.RSKPCA_VARIANTS)
    assert {"k-means", "sklearn SpectralClustering rbf", "sklearn SpectralClustering nearest_neighbors"} <= set(methods)
    assert all(0 <= r["NMI"] <= 100 and 0 <= r["CA"] <= 100 and r["seconds"] > 0 for r in rows)
    assert rows[0]["seeds"] == 2 and rows[0]["ARI"] == 100.0  # three well-separated blobs


def test_predict_rows_compare_held_out_predictions_with_the_fit_on_every_row(tmp_path, monkeypatch):
    import bench_spectral
    from bench_spectral import predict_rows

    X, y = make_blobs(300, n_features=3, centers=3, random_state=1)
    pd.DataFrame(np.column_stack([X, y]), columns=["a", "b", "c", "label"]).to_csv(tmp_path / "b.csv", index=False)
    monkeypatch.setitem(bench_spectral.REAL_DATA, "tiny", tmp_path / "b.csv")
    (row,) = predict_rows(["tiny"], seeds=2)
    assert row["seeds"] == 2 and 30 < row["held_out"] < 90  # a fifth of 300, seeded
    assert row["agreement"] == row["worst"] == row["training_rows"] == 100.0  # well-separated blobs: the same clusters
