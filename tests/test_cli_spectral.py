"""``rskpca cluster`` and ``rskpca embed --method diffusion|spectral`` (issue 32), against the estimators in process."""

import numpy as np
import pandas as pd
import pytest

from rskpca import ReducedSetDiffusionMap, ReducedSetSpectralClustering, ReducedSetSpectralEmbedding
from rskpca.cli import main


@pytest.fixture
def labeled_csv(tmp_path):
    rng = np.random.default_rng(0)
    X = np.concatenate([rng.normal(c, 1.0, size=(50, 3)) for c in (0.0, 6.0, 12.0)])
    df = pd.DataFrame(X, columns=["a", "b", "c"])
    df["label"] = np.repeat([0, 1, 2], 50)
    path = tmp_path / "blobs.csv"
    df.to_csv(path, index=False)
    return path


def test_cluster_writes_each_rows_cluster_center_and_label(labeled_csv, tmp_path, capsys):
    out = tmp_path / "labels.csv"
    assert main(["cluster", str(labeled_csv), "-k", "3", "--sigma", "3", "--ell", "3", "-o", str(out)]) == 0
    err = capsys.readouterr().err
    assert "shadow kept m =" in err and "adjusted Rand index against 'label': 1.0000" in err
    table = pd.read_csv(out)
    assert list(table.columns) == ["cluster", "center", "center_row", "label"]
    X = pd.read_csv(labeled_csv)[["a", "b", "c"]]
    est = ReducedSetSpectralClustering(n_clusters=3, sigma=3.0, ell=3.0, random_state=0).fit(X)
    np.testing.assert_array_equal(table["cluster"], est.labels_)
    np.testing.assert_array_equal(table["center"], est.shadow_labels_)
    assert (np.linalg.norm(X.to_numpy() - X.to_numpy()[table["center_row"]], axis=1) < 1.0).all()


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
    (["-k", "500"], "n_clusters=500 exceeds the number of centers"),
    (["-k", "2", "--alpha", "2"], "--alpha 2 is outside [0, 1]"),
])
def test_cluster_errors_are_one_clear_line(argv, message, labeled_csv, capsys):
    assert main(["cluster", str(labeled_csv), *argv]) == 2
    last = capsys.readouterr().err.strip().splitlines()[-1]
    assert last.startswith("rskpca cluster: error:") and message in last


def test_embed_diffusion_alpha_outside_the_interval_is_one_line(labeled_csv, capsys):
    assert main(["embed", str(labeled_csv), "--method", "diffusion", "--alpha", "1.5"]) == 2
    err = capsys.readouterr().err
    assert "rskpca embed: error:" in err and "'alpha' parameter" in err
