"""One median heuristic (issue 38 item 6): the app's default sigma, ``rskpca cluster``'s and the library's
``sigma_`` are the same number on the same file, whatever the estimator's seed.

The file is the kind that showed two medians (12.61 in the app, 12.49 in the CLI): 20,000 rows of 16
integer-valued features (many ties) and a text label with 26 classes.
"""

from __future__ import annotations

import re
import string
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

import rskpca.ui.compute.app_file as cached
from rskpca import ReducedSetSpectralClustering, median_heuristic, shadow_centers
from rskpca.cli import main

APP = str(Path(__file__).resolve().parent.parent / "app.py")


@pytest.fixture(scope="module")
def letters_file(tmp_path_factory) -> Path:
    rng = np.random.default_rng(38)
    classes = np.array(list(string.ascii_uppercase))
    label = rng.integers(0, 26, 20_000)
    means = rng.uniform(2, 13, (26, 16))
    X = np.clip(np.rint(means[label] + rng.normal(0, 2.0, (20_000, 16))), 0, 15).astype(int)
    path = tmp_path_factory.mktemp("letters") / "letters.csv"
    frame = pd.DataFrame(X, columns=[f"x{j}" for j in range(16)])
    frame.insert(0, "letter", classes[label])
    frame.to_csv(path, index=False)
    return path


@pytest.fixture(scope="module")
def features(letters_file) -> np.ndarray:
    return pd.read_csv(letters_file).drop(columns="letter").to_numpy(np.float64)


def test_the_median_is_rounded_and_the_rounding_round_trips(features):
    sigma = median_heuristic(features)
    assert sigma == float(f"{sigma:.4g}") == float(f"{sigma:.6g}")  # what the app and the CLI print is the value


def test_every_estimator_seed_takes_the_one_median(features):
    sigma = median_heuristic(features)
    for seed in (None, 0, 7):
        est = ReducedSetSpectralClustering(n_clusters=2, ell=1.5, random_state=seed).fit(features)
        assert est.sigma_ == sigma
    assert shadow_centers(features, sigma="median", ell=1.5, random_state=3).sigma == sigma


def _cli_sigma(path: Path, capsys) -> float:
    assert main(["cluster", str(path), "-k", "2", "--ell", "1.5", "-o", str(path.with_suffix(".out.csv"))]) == 0
    found = re.search(r"sigma_ = ([0-9.e+-]+)", capsys.readouterr().err)
    assert found, "rskpca cluster no longer logs sigma_"
    return float(found.group(1))


def _app_sigma(path: Path, monkeypatch) -> float:
    monkeypatch.setattr(sys, "argv", [APP, str(path)])  # what `rskpca app FILE` runs
    cached.read_app_file.clear()
    try:
        at = AppTest.from_file(APP, default_timeout=300)
        at.query_params["ell"] = "1.5"  # the sidebar's shadow kept small: the page's fits are not what is tested
        at.run()
        assert not at.exception, [e.message for e in at.exception]
        return float(at.session_state["sigma"])
    finally:
        cached.read_app_file.clear()


def test_app_cli_and_library_agree_exactly(letters_file, features, capsys, monkeypatch):
    library = ReducedSetSpectralClustering(n_clusters=2, ell=1.5).fit(features).sigma_
    cli = _cli_sigma(letters_file, capsys)
    app = _app_sigma(letters_file, monkeypatch)
    assert app == cli == library == median_heuristic(features)
