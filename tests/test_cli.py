"""Smoke tests of ``rskpca bench`` and ``rskpca experiment`` on tiny sizes, and their bad-input paths."""

import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from synthetic import labelled_blobs_csv

from rskpca.cli import main, parse_ells
from rskpca.evaluation.bench import shadow_floor_flops
from rskpca.evaluation.result_columns import format_table
from rskpca.evaluation.experiments import load_labeled_csv, summarize
from rskpca.evaluation.methods import check_methods

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def labeled_csv(tmp_path):
    return labelled_blobs_csv(tmp_path / "blobs.csv", spacing=4.0)


def test_bench_prints_a_table_and_writes_csv(tmp_path, capsys):
    out = tmp_path / "bench"
    assert main(["bench", "--n", "300", "--d", "2", "9", "--ell", "4", "--n-test", "100",
                 "--repeats", "1", "--exact-max-n", "300", "--out", str(out)]) == 0
    printed = capsys.readouterr()
    assert "GEMM rate" in printed.out and "floor_ratio" in printed.out
    assert "2/2" in printed.err  # the progress bar reached the end
    df = pd.read_csv(out / "bench.csv")
    assert list(df["d"]) == [2, 9]
    assert list(df["shadow_path"]) == ["compiled", "compiled"]  # the compiled scan up to COMPILED_MAX_DIM
    assert (df["m"] > 0).all() and (df["peak_mb"] > 0).all()
    # the baseline is the faster scikit-learn solver, both reported; speedups say what they divide
    assert (df["exact_train_s"] == df[["exact_arpack_train_s", "exact_randomized_train_s"]].min(axis=1)).all()
    assert np.allclose(df["train_speedup"], df["exact_train_s"] / df["train_s"])
    assert np.allclose(df["train_speedup_over_nystrom"], df["nystrom_train_s"] / df["train_s"])
    assert (df["shadow_s"] + df["eigen_s"] <= df["train_s"]).all()  # parts never exceed the whole
    assert (df["repeats"] == 1).all() and (df["warmup"] == 1).all()
    # the CSV and the printed table share one column order
    header = [line for line in printed.out.splitlines() if line.startswith("dataset")][0]
    assert header.split() == list(df.columns)
    # a second run keeps the first's results unless asked
    assert main(["bench", "--n", "300", "--d", "2", "--ell", "4", "--out", str(out)]) == 2
    assert "--overwrite" in capsys.readouterr().err and len(pd.read_csv(out / "bench.csv")) == 2


def test_bench_on_a_data_file(labeled_csv, tmp_path, capsys):
    out = tmp_path / "b"
    assert main(["bench", "--data", str(labeled_csv), "--sigma", "4", "--ell", "3", "--repeats", "1",
                 "--out", str(out)]) == 0
    df = pd.read_csv(out / "bench.csv")
    assert df["dataset"].tolist() == ["blobs"] and df["n_train"].tolist() == [120]


def test_bench_methods_uses_the_comparison_path(labeled_csv, tmp_path, capsys):
    out = tmp_path / "m"
    assert main(["bench", "methods", "--data", str(labeled_csv), "--sigma", "4", "--n", "100", "--n-test", "20",
                 "--methods", "exact", "rskpca", "gram_sparsified", "rs_construction", "--repeats", "1",
                 "--warmup", "0", "--out", str(out)]) == 0
    df = pd.read_csv(out / "methods.csv")
    assert df["name"].tolist() == ["exact", "rskpca", "gram_sparsified", "rs_construction"]
    assert df.loc[0, "alignment_error"] < 1e-8 and (df["error"].isna()).all()
    assert np.isfinite(df.loc[2, "gram_spectral_error"]) and np.isnan(df.loc[1, "gram_spectral_error"])
    rsc = df.loc[3]
    assert rsc["train_exact_kpca_s"] + rsc["train_construction_s"] <= rsc["train_s"]
    assert "ShDE + RSKPCA" in capsys.readouterr().out


def test_experiment_writes_rows_figures_and_summary(labeled_csv, tmp_path, capsys):
    out = tmp_path / "exp"
    code = main(["experiment", "--data", str(labeled_csv), "--sigma", "4", "--ells", "3:3.5:0.5",
                 "--repeats", "2", "--folds", "2", "--rank", "2", "--knn-rank", "2",
                 "--methods", "rskpca", "nystrom", "--rsde-methods", "rskpca", "rskpca_uniform",
                 "--out", str(out)])
    assert code == 0
    rows = pd.read_csv(out / "rows.csv")
    emb = rows[rows["experiment"] == "embedding"]
    assert len(emb) == 2 * 2 * 2  # splits x ells x methods
    assert set(rows.loc[rows["experiment"] == "classification", "name"]) == {
        "rskpca", "nystrom", "rskpca_uniform"}
    assert (emb["alignment_error"].between(0, 1.0 + 1e-9)).all()
    for name in ("embedding_blobs.html", "classification_blobs.html", "rsde_blobs.html", "retained.html"):
        assert (out / name).stat().st_size > 1000
    summary = (out / "summary.md").read_text()
    assert "## blobs, embedding: alignment_error" in summary and "| 3.5 |" in summary
    cls = rows[rows["experiment"] == "classification"]
    assert np.allclose(cls["total_speedup"], (cls["exact_train_s"] + cls["exact_test_s"]) / (cls["train_s"] + cls["test_s"]))
    # a second run into the same folder is refused before any work, unless --overwrite
    again = ["experiment", "--data", str(labeled_csv), "--sigma", "4", "--ells", "3", "--repeats", "1",
             "--rank", "2", "--methods", "rskpca", "--skip", "classification", "rsde", "--out", str(out)]
    assert main(again) == 2
    assert main(again + ["--overwrite"]) == 0 and len(pd.read_csv(out / "rows.csv")) == 1


def test_experiment_records_methods_that_cannot_run(labeled_csv, tmp_path):
    # rank 40 exceeds the shadow's m at ell = 3: rows carry the error, the sweep goes on
    out = tmp_path / "exp"
    assert main(["experiment", "--data", str(labeled_csv), "--sigma", "4", "--ells", "3",
                 "--repeats", "1", "--rank", "40", "--methods", "rskpca", "--skip", "classification",
                 "rsde", "--out", str(out)]) == 0
    rows = pd.read_csv(out / "rows.csv")
    assert rows["error"].str.contains("n_components").all()
    assert "could not be made" in (out / "summary.md").read_text()


@pytest.mark.parametrize("argv, message", [
    (["experiment", "--data", "no/such/file.csv"], "No data file"),
    (["experiment", "--data", "{csv}", "--methods", "warp_drive"], "Unknown method"),
    (["experiment", "--data", "{nolabel}"], "no 'label' column"),
    (["experiment", "--data", "{unnamed}"], "pass --sigma"),
])
def test_bad_input_is_one_clear_line(argv, message, labeled_csv, tmp_path, capsys):
    nolabel = tmp_path / "nolabel.csv"
    pd.DataFrame({"a": [1.0, 2.0]}).to_csv(nolabel, index=False)
    argv = [a.format(csv=labeled_csv, nolabel=nolabel, unnamed=labeled_csv) for a in argv]
    assert main(argv + ["--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_bad_ells_are_rejected_by_the_parser(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["experiment", "--data", "x.csv", "--ells", "5:3:0.1"])
    assert exc.value.code == 2
    assert "start:stop:step" in capsys.readouterr().err
    assert parse_ells("3.0:5.0:0.1") == [round(3.0 + 0.1 * k, 1) for k in range(21)]


def test_python_dash_m_runs_the_same_command():
    proc = subprocess.run([sys.executable, "-m", "rskpca", "bench", "fit", "--help"], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0 and "--exact-max-n" in proc.stdout and "--warmup" in proc.stdout


def test_every_registered_method_is_accepted():
    from rskpca.evaluation.methods import METHODS

    assert check_methods(list(METHODS)) == list(METHODS)


def test_floor_counts_centers_existing_at_each_visit():
    # centers at rows 0, 3, 4 of 6: m(i) = 0, 1, 1, 1, 2, 3
    assert shadow_floor_flops(np.array([0, 3, 4]), 6, 2) == 2 * 2 * 8


def test_load_labeled_csv_subsample_and_summary(labeled_csv):
    X, y, name = load_labeled_csv(labeled_csv, max_rows=30)
    assert X.shape == (30, 3) and y.shape == (30,) and name == "blobs"
    assert summarize([]) == {}


def test_format_table_keeps_the_given_order():
    assert format_table([{"m": 1, "ell": 2.0}], ["m", "ell"]).splitlines()[0].split() == ["m", "ell"]


# ---------------------------------------------------------------------------
# rskpca embed / rskpca transform
# ---------------------------------------------------------------------------

def _model_suffixes():
    suffixes = ["model.joblib"]
    try:
        import skops.io  # noqa: F401  (optional extra rskpca[skops])
        suffixes.append("model.skops")
    except ImportError:
        pass
    return suffixes


@pytest.mark.parametrize("model_name", _model_suffixes())
def test_embed_save_transform_round_trip_equals_in_process(model_name, labeled_csv, tmp_path, capsys):
    from rskpca import ReducedSetKPCA

    out, new_out, model = tmp_path / "emb.csv", tmp_path / "new.csv", tmp_path / model_name
    assert main(["embed", str(labeled_csv), "--sigma", "4", "--ell", "3", "-r", "2", "-o", str(out),
                 "--save", str(model)]) == 0
    err = capsys.readouterr().err
    assert "shadow kept m =" in err and "wrote" in err and "saved the model" in err  # progress on stderr
    emb = pd.read_csv(out)
    assert list(emb.columns) == ["pc1", "pc2", "center", "center_row", "label"]

    df = pd.read_csv(labeled_csv)
    X = df[["a", "b", "c"]]
    est = ReducedSetKPCA(n_components=2, sigma=4.0, ell=3.0, random_state=0).fit(X)
    np.testing.assert_allclose(emb[["pc1", "pc2"]].to_numpy(), est.transform(X), atol=1e-10)
    assert (emb["center"].to_numpy() == est.labels_).all()
    # center_row is the file row of the row's shadow center: within eps = sigma / ell of the row
    centers = X.to_numpy()[emb["center_row"].to_numpy()]
    assert (np.linalg.norm(X.to_numpy() - centers, axis=1) < 4.0 / 3.0).all()
    assert (emb["label"] == df["label"]).all()

    new = pd.DataFrame(np.random.default_rng(1).normal(4.0, 3.0, size=(20, 3)), columns=["c", "a", "b"])
    new_path = tmp_path / "new.tsv"
    new.to_csv(new_path, sep="\t", index=False)  # other column order, other format: taken by name
    assert main(["transform", str(new_path), "--model", str(model), "-o", str(new_out), "-q"]) == 0
    np.testing.assert_allclose(pd.read_csv(new_out)[["pc1", "pc2"]].to_numpy(),
                               est.transform(new[["a", "b", "c"]]), atol=1e-10)


def test_embed_standardize_is_kept_in_the_model(labeled_csv, tmp_path):
    from sklearn.preprocessing import StandardScaler

    from rskpca import ReducedSetKPCA

    model, out = tmp_path / "m.joblib", tmp_path / "t.npy"
    assert main(["embed", str(labeled_csv), "--sigma", "1.5", "-r", "3", "--standardize", "--label", "none",
                 "--save", str(model), "-o", str(tmp_path / "e.parquet"), "-q"]) == 0
    assert main(["transform", str(labeled_csv), "--model", str(model), "-o", str(out), "--label", "none",
                 "-q"]) == 0
    X = pd.read_csv(labeled_csv)[["a", "b", "c", "label"]].to_numpy(float)
    Xs = StandardScaler().fit_transform(X)
    expected = ReducedSetKPCA(n_components=3, sigma=1.5, random_state=0).fit(Xs).transform(Xs)
    np.testing.assert_allclose(np.load(out), expected, atol=1e-10)
    emb = pd.read_parquet(tmp_path / "e.parquet")
    np.testing.assert_allclose(emb[["pc1", "pc2", "pc3"]].to_numpy(), expected, atol=1e-10)


def test_embed_writes_csv_to_stdout_by_default(labeled_csv, capsys):
    assert main(["embed", str(labeled_csv), "--sigma", "4", "-r", "2", "-q"]) == 0
    captured = capsys.readouterr()
    assert captured.out.splitlines()[0] == "pc1,pc2,center,center_row,label" and captured.err == ""
    assert len(captured.out.splitlines()) == 151


@pytest.mark.parametrize("content, name, message", [
    (b"\x89PNG\r\n\x1a\nxxxx", "image.csv", "looks like a PNG image"),
    (b"", "empty.csv", "is empty"),
    (b"a,b\nx,y\nz,w\nu,v\n", "text.csv", "No numeric columns"),
    (b"a,b\n1,2\n3,\n", "nan.csv", "Missing values"),
    (b"\x80\x04\x95junk", "model.pkl", "pickle"),
    (b"It was a bright cold day in April, and the clocks were striking thirteen.\nWinston Smith, his chin nuzzled "
     b"into his breast, slipped quickly through the glass doors.\nThe hallway smelt of boiled cabbage.\n", "1984.txt",
     "1984.txt does not look like a table of numbers"),
])
def test_embed_bad_file_is_one_clear_line(content, name, message, tmp_path, capsys):
    path = tmp_path / name
    path.write_bytes(content)
    assert main(["embed", str(path), "-r", "1", "-q"]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err and len(err.strip().splitlines()) == 1


@pytest.mark.parametrize("argv, message", [
    (["embed", "no/such.csv"], "no file at"),
    (["embed", "{csv}", "--save", "{tmp}/model.txt"], "*.skops"),
    (["embed", "{csv}", "--label", "species"], "--label 'species' is not a column"),
    (["embed", "{csv}", "--sigma", "4", "--ell", "0.5", "-r", "5"], "n_components"),
    (["embed", "{csv}", "-o", "{tmp}/no/such/folder/e.csv"], "does not exist"),
    (["transform", "{csv}", "--model", "{tmp}/missing.joblib"], "no model file"),
    (["transform", "{csv}", "--model", "{tmp}/garbage.joblib"], "not a readable joblib model file"),
    (["transform", "{other}", "--model", "{tmp}/good.joblib"], "lacks the model's feature column(s) ['a'"),
])
def test_embed_and_transform_errors_are_one_clear_line(argv, message, labeled_csv, tmp_path, capsys):
    (tmp_path / "garbage.joblib").write_bytes(b"not a pickle at all")
    other = tmp_path / "other.csv"
    pd.DataFrame({"x": [1.0, 2.0, 3.0], "y": [0.0, 1.0, 0.5]}).to_csv(other, index=False)
    assert main(["embed", str(labeled_csv), "--save", str(tmp_path / "good.joblib"), "-o",
                 str(tmp_path / "e.csv"), "-q"]) == 0
    argv = [a.format(csv=labeled_csv, tmp=tmp_path, other=other) for a in argv]
    assert main(argv + ["-q"]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err and len(err.strip().splitlines()) == 1


def test_skops_model_with_foreign_types_is_refused(tmp_path, labeled_csv, capsys):
    sio = pytest.importorskip("skops.io")
    import fractions

    path = tmp_path / "evil.skops"
    sio.dump({"payload": fractions.Fraction(1, 3)}, path)
    assert main(["transform", str(labeled_csv), "--model", str(path), "-q"]) == 2
    assert "does not trust: ['fractions.Fraction']" in capsys.readouterr().err


def test_console_script_help_lists_embed_and_transform():
    proc = subprocess.run([sys.executable, "-m", "rskpca", "--help"], cwd=ROOT, capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0
    for command in ("embed", "transform", "bench", "experiment"):
        assert command in proc.stdout
    bad = subprocess.run([sys.executable, "-m", "rskpca", "embed", "no/such/file.csv"], cwd=ROOT,
                         capture_output=True, text=True, timeout=120)
    assert bad.returncode == 2 and "Traceback" not in bad.stderr
    assert bad.stderr.strip() == "rskpca embed: error: no file at 'no/such/file.csv'; give the path of a CSV, " \
                                 "TSV, Parquet or NPY file."


def test_retained_scale_is_sigma_over_scale(labeled_csv, capsys):
    from rskpca.evaluation.experiments import load_labeled_csv, retained_grid

    assert main(["retained", "--data", str(labeled_csv), "--sigma", "4", "--scales", "1", "0.25",
                 "--ells", "3,5"]) == 0
    lines = [line for line in capsys.readouterr().out.splitlines() if line.startswith("| 0.25 ")]
    assert len(lines) == 1 and lines[0].split("|")[2].strip() == "16"  # sigma / scale
    X, _, _ = load_labeled_csv(labeled_csv)
    scaled = retained_grid(X, sigma=4.0, ells=[3.0, 5.0], scales=[0.25])
    plain = retained_grid(X, sigma=16.0, ells=[3.0, 5.0], scales=[1.0])
    assert [r["m"] for r in scaled] == [r["m"] for r in plain]
    more = retained_grid(X, sigma=4.0, ells=[3.0, 5.0], scales=[1.0])
    assert all(a["m"] < b["m"] for a, b in zip(scaled, more))  # a smaller scale keeps fewer centers


def test_experiment_scale_multiplies_the_features(labeled_csv, tmp_path):
    common = ["experiment", "--data", str(labeled_csv), "--ells", "3", "--repeats", "1", "--rank", "2",
              "--methods", "rskpca", "--skip", "classification", "rsde"]
    assert main(common + ["--sigma", "2", "--scale", "0.5", "--out", str(tmp_path / "a")]) == 0
    assert main(common + ["--sigma", "4", "--out", str(tmp_path / "b")]) == 0
    a, b = (pd.read_csv(tmp_path / f / "rows.csv") for f in ("a", "b"))
    assert a["m"].tolist() == b["m"].tolist()  # the shadow sees sigma / scale on the stored data
    assert "features x 0.5" in (tmp_path / "a" / "summary.md").read_text()
    assert main(common + ["--sigma", "4", "--scale", "0", "--out", str(tmp_path / "c")]) == 2


def test_embed_save_without_skops_stops_before_any_work_or_output(labeled_csv, tmp_path, monkeypatch, capsys):
    # it used to fit, write the embedding, and only then fail to import skops
    monkeypatch.setitem(sys.modules, "skops", None)  # `import skops.io` now raises ImportError
    monkeypatch.setitem(sys.modules, "skops.io", None)
    out = tmp_path / "emb.csv"
    for output in (str(out), "-"):
        assert main(["embed", str(labeled_csv), "--sigma", "4", "-o", output, "--save", str(tmp_path / "m.skops")]) == 2
        captured = capsys.readouterr()
        assert captured.out == ""  # no embedding on stdout either
        assert captured.err.strip() == ("rskpca embed: error: saving or loading *.skops needs skops: pip install "
                                        "'rskpca[skops]' (or use a *.joblib file, which only you should load).")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["blobs.csv"]  # nothing written
    # a save folder that does not exist is found before the fit too
    assert main(["embed", str(labeled_csv), "-o", str(out), "--save", str(tmp_path / "no" / "m.joblib")]) == 2
    assert "the folder" in capsys.readouterr().err and not out.exists()


def test_embed_into_a_pipe_closed_early_exits_141_without_a_traceback(tmp_path):
    # `rskpca embed data.csv | head` exited 1; the output is larger than a pipe's buffer, so the
    # writer meets the closed pipe while writing
    path = tmp_path / "big.csv"
    pd.DataFrame(np.random.default_rng(0).normal(size=(4_000, 3)), columns=["a", "b", "c"]).to_csv(path, index=False)
    proc = subprocess.Popen([sys.executable, "-m", "rskpca", "embed", str(path), "--sigma", "2", "-q"], cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdout.readline() == b"pc1,pc2,center,center_row\n"
    proc.stdout.close()
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=120) == 141  # 128 + SIGPIPE, as a Unix tool the pipe's signal ended
    assert err == ""  # no traceback, no "Exception ignored ... BrokenPipeError"
