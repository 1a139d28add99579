"""Smoke tests of ``rskpca bench`` and ``rskpca experiment`` on tiny sizes, and their bad-input paths."""

import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from rskpca.cli import main, parse_ells
from rskpca.evaluation.bench import shadow_floor_flops
from rskpca.evaluation.columns import format_table
from rskpca.evaluation.experiments import load_labeled_csv, summarize
from rskpca.evaluation.methods import check_methods

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def labeled_csv(tmp_path):
    rng = np.random.default_rng(0)
    X = np.concatenate([rng.normal(c, 1.0, size=(50, 3)) for c in (0.0, 4.0, 8.0)])
    df = pd.DataFrame(X, columns=["a", "b", "c"])
    df["label"] = np.repeat([0, 1, 2], 50)
    path = tmp_path / "blobs.csv"
    df.to_csv(path, index=False)
    return path


def test_bench_prints_a_table_and_writes_csv(tmp_path, capsys):
    out = tmp_path / "bench"
    assert main(["bench", "--n", "300", "--d", "2", "9", "--ell", "4", "--n-test", "100",
                 "--repeats", "1", "--exact-max-n", "300", "--out", str(out)]) == 0
    printed = capsys.readouterr()
    assert "GEMM rate" in printed.out and "floor_ratio" in printed.out
    assert "2/2" in printed.err  # the progress bar reached the end
    df = pd.read_csv(out / "bench.csv")
    assert list(df["d"]) == [2, 9]
    assert list(df["shadow_path"]) == ["blas", "blas"]  # few centers: the screen, even in 2-d
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
