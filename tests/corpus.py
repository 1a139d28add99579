"""A corpus of realistic files, generated (nothing committed): the shapes of data people bring (issue 38).

Each :data:`CORPUS` entry makes a small table with one trait the bundled samples lack: a text label of 26 or
100 classes, integer-valued features with many ties, 256 columns, a numeric label, no label, a label with
missing values, a text feature column among numeric ones beside a row id and a date, classes written as
1.0, 2.0, 3.0 under another name, a True/False label before a constant and an empty column. Small n keeps the browser tests quick.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

__all__ = ["CORPUS", "EXPECTED_FEATURES", "corpus_table", "write_corpus_file"]


def _clusters(rng, n: int, k: int, d: int, spread: float = 6.0):
    """``(X, codes)``: n rows around k centers in d dimensions."""
    centers = rng.normal(0.0, spread, size=(k, d))
    codes = rng.integers(0, k, size=n)
    return centers[codes] + rng.normal(size=(n, d)), codes


def _letters(rng):
    """A text label of 26 classes (A..Z) over 16 integer-valued features in 0..15, with many ties (as the
    UCI letter-recognition file the issue was found on)."""
    X, codes = _clusters(rng, 600, 26, 16, spread=3.0)
    X = np.clip(np.rint(X + 7.5), 0, 15).astype(int)
    df = pd.DataFrame(X, columns=[f"x{j + 1}" for j in range(16)])
    df["letter"] = np.array([chr(ord("A") + c) for c in codes])
    return df


def _hundred_classes(rng):
    X, codes = _clusters(rng, 1000, 100, 5)
    df = pd.DataFrame(X.round(4), columns=[f"f{j}" for j in range(5)])
    df["class"] = np.array([f"species {c:03d}" for c in codes])
    return df


def _wide(rng):
    """256 feature columns (a 16 x 16 image per row, as USPS), an integer label of 10 classes."""
    X, codes = _clusters(rng, 300, 10, 256, spread=1.0)
    df = pd.DataFrame(np.tanh(X / 3).round(3), columns=[f"p{j}" for j in range(256)])
    df["label"] = codes
    return df


def _numeric_label(rng):
    X = rng.normal(size=(400, 4))
    df = pd.DataFrame(X.round(4), columns=["a", "b", "c", "d"])
    df["target"] = (X @ np.array([1.0, -2.0, 0.5, 0.0]) + rng.normal(0, 0.1, 400)).round(5)  # a measurement
    return df


def _no_label(rng):
    X, _ = _clusters(rng, 400, 3, 3)
    return pd.DataFrame(X.round(4), columns=["u", "v", "w"])


def _missing_label(rng):
    X, codes = _clusters(rng, 400, 4, 3)
    label = np.array(["north", "south", "east", "west"], dtype=object)[codes]
    label[rng.random(400) < 0.1] = None  # an empty cell in the file
    df = pd.DataFrame(X.round(4), columns=["p", "q", "r"])
    df["label"] = label
    return df


def _mixed(rng):
    """A row id and a date first (as exports have them), a text column (a city) between numeric ones, a label."""
    X, codes = _clusters(rng, 400, 3, 3)
    return pd.DataFrame({"id": np.arange(1, 401), "date": pd.date_range("2024-01-01", periods=400).strftime("%Y-%m-%d"),
                         "height": X[:, 0].round(3), "city": rng.choice(["Oslo", "Lima", "Pune"], 400),
                         "weight": X[:, 1].round(3), "age": np.rint(np.abs(X[:, 2]) * 10).astype(int),
                         "label": np.array(["low", "mid", "high"])[codes]})


def _float_label(rng):
    """Classes written as 1.0, 2.0, 3.0 in a last column with no usual label name, after fractional features."""
    X, codes = _clusters(rng, 300, 3, 4)
    df = pd.DataFrame(X.round(4), columns=["a", "b", "c", "d"])
    df["grp"] = (codes + 1).astype(float)
    return df


def _spreadsheet(rng):
    """As a spreadsheet exports a table: a True/False label, then a constant column and an empty one."""
    X, codes = _clusters(rng, 300, 2, 4)
    df = pd.DataFrame(X.round(4), columns=["a", "b", "c", "d"])
    df["sick"] = np.where(codes == 1, "True", "False")  # read back as booleans
    df["site"], df["notes"] = 7, ""
    return df


#: name -> (maker, the label column the app should guess, or None).
CORPUS = {
    "letters_26": (_letters, "letter"),
    "classes_100": (_hundred_classes, "class"),
    "wide_256": (_wide, "label"),
    "numeric_label": (_numeric_label, "target"),
    "no_label": (_no_label, None),
    "missing_label": (_missing_label, "label"),
    "mixed_types": (_mixed, "label"),
    "float_label": (_float_label, "grp"),
    "spreadsheet": (_spreadsheet, "sick"),
}

#: name -> the features the app should use when the user chose none (row ids and text left out).
EXPECTED_FEATURES = {"mixed_types": ["height", "weight", "age"], "float_label": ["a", "b", "c", "d"],
                     "spreadsheet": ["a", "b", "c", "d", "site"]}


def corpus_table(name: str, seed: int = 0) -> pd.DataFrame:
    """The corpus table ``name``, the same for a seed."""
    return CORPUS[name][0](np.random.default_rng(seed))


def write_corpus_file(name: str, folder) -> Path:
    """Write ``name`` as ``folder/name.csv`` and return its path."""
    path = Path(folder) / f"{name}.csv"
    corpus_table(name).to_csv(path, index=False)
    return path
