"""The bundled sample data sets: what each is, reading it, and writing ``sample_data/`` anew.

The samples in ``sample_data/`` are written by :func:`main` (``python -m rskpca.data.datasets``
or ``python -m rskpca.data.samples``) from scikit-learn's bundled data sets and generators with
fixed seeds, so they can be regenerated bit for bit.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from rskpca.data.readers import DataError

__all__ = ["SampleInfo", "SAMPLES", "SAMPLE_DIR", "load_sample", "main"]

#: Where the bundled CSV files live (the repository's ``sample_data/``).
SAMPLE_DIR = Path(__file__).resolve().parents[2] / "sample_data"


# ---------------------------------------------------------------------------
# Bundled samples
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class SampleInfo:
    """Description of one bundled sample (a CSV in ``sample_data/`` with a ``label`` column).

    Attributes
    ----------
    name : str
        Key in :data:`SAMPLES`.
    title : str
        Human-readable name.
    description : str
        One or two sentences: what the rows are and where they come from.
    filename : str
        File name inside :data:`SAMPLE_DIR`.
    n, d : int
        Number of rows and of feature columns (the label excluded).
    label : str
        Name of the label column.
    sigma : float or None
        Default bandwidth on the raw features, for samples made to show a
        nonlinear structure (:mod:`rskpca.data.bandwidth` says how it is
        chosen); None: the median heuristic.
    standardize : bool
        Whether its features should be standardised before a kernel sees them by
        default: their units differ by orders of magnitude, so one Gaussian bandwidth
        would see only the largest-scale columns.
    """

    name: str
    title: str
    description: str
    filename: str
    n: int
    d: int
    label: str = "label"
    sigma: float | None = None
    standardize: bool = False


SAMPLES: dict[str, SampleInfo] = {
    s.name: s
    for s in [
        SampleInfo("digits", "Handwritten digits (8x8)",
                   "1797 images of handwritten digits 0-9, 8x8 pixels with intensities 0-16 "
                   "(scikit-learn's load_digits, UCI optdigits test set).",
                   "digits.csv", 1797, 64),
        SampleInfo("iris", "Iris flowers",
                   "150 iris flowers of three species, four measurements in cm (Fisher 1936; "
                   "scikit-learn's load_iris).",
                   "iris.csv", 150, 4),
        SampleInfo("wine", "Wine recognition",
                   "178 wines from three cultivars, 13 chemical measurements on very different "
                   "scales: standardise first (scikit-learn's load_wine).",
                   "wine.csv", 178, 13, standardize=True),
        SampleInfo("breast_cancer", "Breast cancer (Wisconsin)",
                   "569 tumours, 30 features of cell nuclei, labelled malignant or benign; "
                   "standardise first (scikit-learn's load_breast_cancer).",
                   "breast_cancer.csv", 569, 30, standardize=True),
        SampleInfo("two_moons", "Two moons",
                   "1000 points on two interleaving half circles with Gaussian noise 0.08 "
                   "(make_moons, seed 0).",
                   "two_moons.csv", 1000, 2, sigma=0.205),
        SampleInfo("circles", "Concentric circles",
                   "1000 points on two concentric circles (radius ratio 0.5, noise 0.05; "
                   "make_circles, seed 0): the classic case linear PCA cannot separate.",
                   "circles.csv", 1000, 2, sigma=0.122),
        SampleInfo("swiss_roll", "Swiss roll",
                   "1200 points on a rolled-up 2-D sheet in 3-D (noise 0.2; make_swiss_roll, "
                   "seed 0); the label is the position along the roll cut into 4 equal bands.",
                   "swiss_roll.csv", 1200, 3),
        SampleInfo("blobs", "Gaussian blobs",
                   "800 points in 2-D from 4 isotropic Gaussian clusters of different spreads "
                   "(make_blobs, seed 0).",
                   "blobs.csv", 800, 2),
    ]
}


def _generate_sample(name: str) -> pd.DataFrame:
    """Build sample ``name`` from scikit-learn, deterministically (the CSVs are this, rounded)."""
    from sklearn import datasets as skd

    if name in ("digits", "iris", "wine", "breast_cancer"):
        bunch = getattr(skd, f"load_{name}")()
        df = pd.DataFrame(bunch.data, columns=[str(c) for c in bunch.feature_names])
        if name == "digits":  # integer pixel intensities; class numbers are the digits
            df = df.astype(np.int64)
            df["label"] = bunch.target.astype(np.int64)
        else:  # class names read better than codes in a legend
            df["label"] = np.asarray(bunch.target_names)[bunch.target]
        return df
    if name == "two_moons":
        X, y = skd.make_moons(n_samples=1000, noise=0.08, random_state=0)
    elif name == "circles":
        X, y = skd.make_circles(n_samples=1000, noise=0.05, factor=0.5, random_state=0)
    elif name == "swiss_roll":
        X, t = skd.make_swiss_roll(n_samples=1200, noise=0.2, random_state=0)
        # Bands of equal length along the roll's parameter t in [1.5 pi, 4.5 pi].
        y = np.minimum(((t - 1.5 * np.pi) / (3 * np.pi) * 4).astype(np.int64), 3)
    elif name == "blobs":
        X, y = skd.make_blobs(n_samples=800, centers=4, cluster_std=[0.6, 1.0, 1.4, 0.8],
                              n_features=2, random_state=0)
    else:
        raise DataError(f"Unknown sample {name!r}; choose one of {sorted(SAMPLES)}.")
    names = ["x", "y", "z"][: X.shape[1]]
    df = pd.DataFrame(np.round(X, 6), columns=names)
    df["label"] = y.astype(np.int64)
    return df


def load_sample(name: str) -> pd.DataFrame:
    """Read bundled sample ``name`` from ``sample_data/`` (every sample has a ``label`` column).

    If the CSV is missing (e.g. a non-editable install without the repository's
    ``sample_data/``), the same table is rebuilt from scikit-learn in memory.

    Parameters
    ----------
    name : str
        A key of :data:`SAMPLES`.

    Returns
    -------
    pandas.DataFrame
        The feature columns followed by ``label``.

    Examples
    --------
    >>> df = load_sample("iris")
    >>> df.shape, df.columns[-1]
    ((150, 5), 'label')
    """
    if name not in SAMPLES:
        raise DataError(f"Unknown sample {name!r}; choose one of {sorted(SAMPLES)}.")
    path = SAMPLE_DIR / SAMPLES[name].filename
    if path.is_file():
        return pd.read_csv(path)
    return _generate_sample(name)


def main(argv=None) -> int:
    """Write every sample to ``sample_data/`` (or the folder given as the only argument).

    Deterministic: the same scikit-learn version writes the same bytes.
    """
    argv = sys.argv[1:] if argv is None else list(argv)
    out = Path(argv[0]) if argv else SAMPLE_DIR
    out.mkdir(parents=True, exist_ok=True)
    for name, info in SAMPLES.items():
        df = _generate_sample(name)
        if df.shape != (info.n, info.d + 1):
            raise RuntimeError(f"sample {name} has shape {df.shape}, SAMPLES says ({info.n}, {info.d + 1})")
        df.to_csv(out / info.filename, index=False, float_format="%.6g", lineterminator="\n")
        print(f"wrote {out / info.filename}: {info.n} rows, {info.d} features + label")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
