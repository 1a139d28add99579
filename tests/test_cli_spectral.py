"""``rskpca cluster`` and ``rskpca embed --method diffusion|spectral`` (issue 32), against the estimators in process."""

import numpy as np
import pandas as pd
import pytest
from synthetic import labelled_blobs_csv

from rskpca import ReducedSetDiffusionMap, ReducedSetSpectralClustering, ReducedSetSpectralEmbedding
from rskpca.cli import main
from rskpca.cli._cluster import MAX_TABLE_CLASSES, scores_text
from rskpca.evaluation.clustering_scores import cluster_class_table, clustering_scores


@pytest.fixture
def labeled_csv(tmp_path):
    return labelled_blobs_csv(tmp_path / "blobs.csv", spacing=6.0)


def test_cluster_writes_each_rows_cluster_center_and_label(labeled_csv, tmp_path, capsys):
    out = tmp_path / "labels.csv"
    assert main(["cluster", str(labeled_csv), "-k", "3", "--sigma", "3", "--ell", "3", "--affinity", "gaussian",
                 "--max-centers", "none", "--lloyd-steps", "0", "-o", str(out)]) == 0
    captured = capsys.readouterr()
    assert "shadow kept m =" in captured.err
    assert "against the label column 'label' (3 classes, 150 rows): NMI 1.0000  CA 1.0000  ARI 1.0000" in captured.out
    table = pd.read_csv(out)
    assert list(table.columns) == ["cluster", "center", "center_row", "label"]
    X = pd.read_csv(labeled_csv)[["a", "b", "c"]]
    est = ReducedSetSpectralClustering(n_clusters=3, sigma=3.0, ell=3.0, affinity="gaussian", max_centers=None,
                                       lloyd_steps=0, random_state=0).fit(X)
    np.testing.assert_array_equal(table["cluster"], est.labels_)
    np.testing.assert_array_equal(table["center"], est.shadow_labels_)
    assert (np.linalg.norm(X.to_numpy() - X.to_numpy()[table["center_row"]], axis=1) < 1.0).all()


@pytest.mark.parametrize("affinity", ["landmark", "local_scaling", "gaussian"])
def test_cluster_affinity_and_budget_are_the_estimators(affinity, labeled_csv, tmp_path, capsys):
    """--affinity and --max-centers reach the estimator: the clusters are its clusters, and the scores printed
    are clustering_scores of them, with the cluster x class table."""
    out = tmp_path / "labels.csv"
    assert main(["cluster", str(labeled_csv), "-k", "3", "--sigma", "2", "--affinity", affinity,
                 "--max-centers", "40", "--neighbors", "4", "-q", "-o", str(out)]) == 0
    printed = capsys.readouterr().out
    X, y = pd.read_csv(labeled_csv)[["a", "b", "c"]], pd.read_csv(labeled_csv)["label"]
    est = ReducedSetSpectralClustering(n_clusters=3, sigma=2.0, affinity=affinity, max_centers=40, n_neighbors=4,
                                       random_state=0).fit(X)
    assert est.m_ <= 40
    table = pd.read_csv(out)
    np.testing.assert_array_equal(table["cluster"], est.labels_)
    s = clustering_scores(y, est.labels_)
    assert f"NMI {s.nmi:.4f}  CA {s.ca:.4f}  ARI {s.ari:.4f}" in printed
    assert cluster_class_table(y, est.labels_).to_string() in printed


@pytest.mark.parametrize("value, expected", [("auto", "auto"), ("0", 0.0), ("0.3", 0.3)])
def test_cluster_regularization_reaches_the_estimator(value, expected, labeled_csv, tmp_path):
    out = tmp_path / "labels.csv"
    assert main(["cluster", str(labeled_csv), "-k", "3", "--regularization", value, "-q", "-o", str(out)]) == 0
    X = pd.read_csv(labeled_csv)[["a", "b", "c"]]
    est = ReducedSetSpectralClustering(n_clusters=3, regularization=expected, random_state=0).fit(X)
    np.testing.assert_array_equal(pd.read_csv(out)["cluster"], est.labels_)


def test_cluster_scores_go_to_stderr_when_the_table_goes_to_stdout(labeled_csv, capsys):
    assert main(["cluster", str(labeled_csv), "-k", "3", "--sigma", "3", "-q"]) == 0
    captured = capsys.readouterr()
    header = captured.out.splitlines()[0].split(",")
    assert header[0] == "cluster" and header[-1] == "label" and len(captured.out.splitlines()) == 151
    assert "NMI" not in captured.out and "against the label column 'label'" in captured.err


def test_cluster_without_a_label_prints_no_scores(labeled_csv, tmp_path, capsys):
    assert main(["cluster", str(labeled_csv), "-k", "3", "--sigma", "3", "--label", "none", "-q",
                 "-o", str(tmp_path / "out.csv")]) == 0
    assert capsys.readouterr().out == ""
    assert "label" not in pd.read_csv(tmp_path / "out.csv").columns


def test_cluster_keeps_rows_without_a_label_and_scores_the_others(labeled_csv, tmp_path, capsys):
    df = pd.read_csv(labeled_csv)
    df.loc[::10, "label"] = np.nan  # empty cells in the label column
    df.to_csv(tmp_path / "holes.csv", index=False)
    out = tmp_path / "out.csv"
    assert main(["cluster", str(tmp_path / "holes.csv"), "-k", "3", "--sigma", "3", "-q", "-o", str(out)]) == 0
    table, scored = pd.read_csv(out), df["label"].notna().to_numpy()
    assert len(table) == len(df) and table["label"].isna().sum() == (~scored).sum()
    expected = clustering_scores(df["label"][scored].to_numpy(), table["cluster"][scored].to_numpy())
    assert f" {scored.sum():,} rows): NMI {expected.nmi:.4f}" in capsys.readouterr().out
    assert main(["cluster", str(tmp_path / "holes.csv"), "-k", "3", "--sigma", "3", "-o", str(out)]) == 0
    assert f"The label 'label' is missing in {(~scored).sum():,} of {len(df):,} rows" in capsys.readouterr().err


def test_scores_text_of_a_wide_label_leaves_the_table_out():
    y = np.arange(MAX_TABLE_CLASSES + 1)
    text = scores_text(y, np.zeros_like(y), "id")
    assert f"{MAX_TABLE_CLASSES + 1} classes" in text and "table left out" in text and "cluster\n" not in text


@pytest.mark.parametrize("method, cls, prefix", [("diffusion", ReducedSetDiffusionMap, "dc"),
                                                 ("spectral", ReducedSetSpectralEmbedding, "se")])
def test_embed_method_diffusion_and_spectral_round_trip(method, cls, prefix, labeled_csv, tmp_path, capsys):
    out, model, new_out = tmp_path / "emb.csv", tmp_path / "model.joblib", tmp_path / "new.csv"
    extra = ["--alpha", "0.5", "--t", "2"] if method == "diffusion" else []
    assert main(["embed", str(labeled_csv), "--method", method, "--sigma", "3", "--ell", "3", "-r", "2",
                 "-o", str(out), "--save", str(model), *extra]) == 0
    emb = pd.read_csv(out)
    assert list(emb.columns) == [f"{prefix}1", f"{prefix}2", "center", "center_row", "label"]
    X = pd.read_csv(labeled_csv)[["a", "b", "c"]]
    kw = {"alpha": 0.5, "t": 2.0} if method == "diffusion" else {}
    est = cls(n_components=2, sigma=3.0, ell=3.0, random_state=0, **kw).fit(X)
    np.testing.assert_allclose(emb[[f"{prefix}1", f"{prefix}2"]].to_numpy(), est.transform(X), atol=1e-10)
    new = X.iloc[:7]
    new.to_csv(tmp_path / "new_in.csv", index=False)
    assert main(["transform", str(tmp_path / "new_in.csv"), "--model", str(model), "-o", str(new_out), "-q"]) == 0
    np.testing.assert_allclose(pd.read_csv(new_out)[[f"{prefix}1", f"{prefix}2"]].to_numpy(), est.transform(new),
                               atol=1e-10)


@pytest.mark.parametrize("argv, message", [
    (["-k", "500", "--affinity", "gaussian", "--ell", "4", "--max-centers", "none"],
     "n_clusters=500 exceeds the number of centers"),
    (["-k", "2", "--alpha", "2"], "--alpha 2 is outside [0, 1]"),
    (["-k", "5", "--max-centers", "3"], "--max-centers 3 is below -k 5"),
    (["-k", "2", "--affinity", "cosine"], "argument --affinity: invalid choice: 'cosine'"),
    (["-k", "2", "--max-centers", "0"], "argument --max-centers: expected a positive integer, got '0'"),
    (["-k", "2", "--max-centers", "lots"], "argument --max-centers: expected a positive integer, got 'lots'"),
    (["-k", "2", "--lloyd-steps", "-1"], "--lloyd-steps -1 is negative"),
    (["-k", "2", "--ell", "auto", "--max-centers", "none"], "--ell auto picks the radius from --max-centers"),
    (["-k", "2", "--ell", "0"], "argument --ell: expected a positive number, got '0'"),
    (["-k", "2", "--regularization", "-0.1"], "argument --regularization: -0.1 is not a number >= 0 (or auto)"),
    (["-k", "2", "--regularization", "some"], "argument --regularization: 'some' is neither auto nor a number"),
])
def test_cluster_errors_are_one_clear_line(argv, message, labeled_csv, capsys):
    try:
        status = main(["cluster", str(labeled_csv), *argv])
    except SystemExit as stop:  # argparse's own refusals, after the usage
        status = stop.code
    assert status == 2
    last = capsys.readouterr().err.strip().splitlines()[-1]
    assert last.startswith("rskpca cluster: error:") and message in last


def test_embed_diffusion_alpha_outside_the_interval_is_one_line(labeled_csv, capsys):
    assert main(["embed", str(labeled_csv), "--method", "diffusion", "--alpha", "1.5"]) == 2
    err = capsys.readouterr().err
    assert "rskpca embed: error:" in err and "'alpha' parameter" in err
