"""Spectral methods on the shadow against scikit-learn and against uniform landmarks (issue 32).

Three cases, each against scikit-learn in the same run, and each beside uniform landmarks
at the same m (``rsde="uniform"``: the same code with m rows drawn uniformly, weight n/m
each, the Roseland / Nystrom spectral clustering baseline of Fowlkes et al. 2004), so the
accuracy is compared at equal budget:

* **circles**: spectral clustering of ``make_circles(10000, noise=0.05, factor=0.5)`` at
  sigma = 0.1 against ``SpectralClustering(affinity="rbf", gamma=1/sigma**2)`` (dense n x n):
  time and ARI on the training rows, and ARI of 2,000 held-out rows (``predict``; scikit-learn
  has none).
* **pendigits**: Laplacian eigenmaps and the diffusion map (alpha = 1, t = 1) on 9,000 rows
  against ``SpectralEmbedding(affinity="rbf")`` (dense, no transform), with 1,992 held-out
  rows: eigenvalue error and held-out alignment error against the same method with every
  training row a center (``ell`` so large that m = n: the exact method, extended by Nystrom).
* **mixture**: 1,000,000 x 10 Gaussian mixture (5 components): spectral clustering and the
  embedding of every row (``fit_transform``; also ``fit`` alone, and ``fit`` then ``transform``);
  scikit-learn would need an n x n matrix (8 TB). The shadow and uniform rows use the global
  Gaussian at sigma = 5, ell = 1; "defaults" is ``ReducedSetSpectralClustering(n_clusters=5)``.
* **real** (issue 37): labelled data sets (``REAL_DATA``: the paper's sets by path, the bundled
  samples) clustered by the rskpca defaults and one-change variants (``RSKPCA_VARIANTS``),
  k-means, scikit-learn's ``SpectralClustering`` (rbf at the median heuristic, and
  nearest_neighbors; dense, so only up to ``SKLEARN_MAX_ROWS`` rows and one seed), and the lab's
  LSC-K and U-SPEC (``landmark_baselines.py``): NMI, CA, ARI in percent (mean over seeds) and
  the median seconds. Features as stored (no scaling), for every method alike.
* **predict** (issue 37): the defaults fitted without a seeded 20 % of the rows, whose predicted clusters
  are compared with those the fit on every row gave them (``predict_rows``), and the two fits' clusters on
  the rows both were fitted on (``training_rows``: how far the clusterings themselves differ).

Run::

    python tests/benchmarks/bench_spectral.py                                   # all cases
    python tests/benchmarks/bench_spectral.py --cases circles,mixture --no-sklearn
    python tests/benchmarks/bench_spectral.py --pendigits ../shared/datasets/pendigits.csv
    python tests/benchmarks/bench_spectral.py --cases real --seeds 5               # the real-data table
    python tests/benchmarks/bench_spectral.py --cases real --data pendigits,usps --methods "rskpca defaults (landmark)"
    python tests/benchmarks/bench_spectral.py --cases predict --seeds 5       # predict on held-out rows
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.cluster import SpectralClustering
from sklearn.datasets import make_circles
from sklearn.manifold import SpectralEmbedding
from sklearn.metrics import adjusted_rand_score

from rskpca.data.samples import SAMPLES as SAMPLES_INFO
from rskpca import ReducedSetDiffusionMap, ReducedSetSpectralClustering, ReducedSetSpectralEmbedding, median_heuristic
from rskpca.core.metrics import alignment_error

__all__ = ["best_of", "circles_rows", "pendigits_rows", "mixture_rows", "gaussian_mixture", "predict_rows", "format_table",
           "main"]

#: Default data path: ``$RSKPCA_DATASETS/pendigits.csv``, else ``../shared/datasets`` beside the checkout.
PENDIGITS = Path(os.environ.get("RSKPCA_DATASETS", "../shared/datasets")) / "pendigits.csv"
#: The clustering's settings before issue 37 (global Gaussian on the plain shadow at sigma / ell): the
#: circles and mixture cases compare shadow and uniform landmarks at the same m with them.
GLOBAL = dict(affinity="gaussian", max_centers=None, lloyd_steps=0)
#: An ell this large makes eps = sigma / ell smaller than any distance between distinct rows: m = n.
EVERY_ROW = 1e12


def best_of(fn, repeats: int = 3):
    """``(best wall time in seconds, result of the last call)``."""
    best, out = np.inf, None
    for _ in range(max(1, repeats)):
        t0 = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t0)
    return best, out


def circles_rows(n: int = 10_000, *, sigma: float = 0.1, ells=(1.0, 2.0, 3.0), n_held: int = 2000,
                 repeats: int = 3, sklearn: bool = True, seed: int = 0) -> list[dict]:
    """Spectral clustering of two circles: scikit-learn, then shadow and uniform landmarks per ell."""
    X, y = make_circles(n, noise=0.05, factor=0.5, random_state=seed)
    X_held, y_held = make_circles(n_held, noise=0.05, factor=0.5, random_state=seed + 1)
    rows = []
    base = np.nan
    if sklearn:
        est = SpectralClustering(n_clusters=2, affinity="rbf", gamma=1.0 / sigma**2, random_state=seed)
        base, labels = best_of(lambda: est.fit_predict(X), 1)
        rows.append(dict(case="circles", method="sklearn SpectralClustering", ell="", m=n, seconds=base,
                         speedup=1.0, ari=adjusted_rand_score(y, labels), ari_held=np.nan))
    for ell in ells:
        for rsde in ("shadow", "uniform"):
            est = ReducedSetSpectralClustering(n_clusters=2, sigma=sigma, ell=ell, rsde=rsde, random_state=seed,
                                               **GLOBAL)
            seconds, est = best_of(lambda: est.fit(X), repeats)
            rows.append(dict(case="circles", method=f"ReducedSetSpectralClustering {rsde}", ell=ell, m=est.m_,
                             seconds=seconds, speedup=base / seconds, ari=adjusted_rand_score(y, est.labels_),
                             ari_held=adjusted_rand_score(y_held, est.predict(X_held))))
    return rows


def load_pendigits(path=PENDIGITS) -> np.ndarray:
    """The 16 pen coordinates of every row (the label, last column, dropped)."""
    return pd.read_csv(path).to_numpy(dtype=np.float64)[:, :-1]


def pendigits_rows(X, *, n_train: int = 9000, sigma: float | None = None, ells=(2.0, 3.0), n_components: int = 4,
                   repeats: int = 3, sklearn: bool = True, seed: int = 0) -> list[dict]:
    """Laplacian eigenmaps and the diffusion map: time, eigenvalue and held-out alignment errors.

    sigma defaults to half the median pairwise distance (at a quarter the top eigenvalues
    crowd at 1 and the eigenvectors are ill-determined for every method).
    """
    perm = np.random.default_rng(seed).permutation(X.shape[0])
    train, held = X[perm[:n_train]], X[perm[n_train:]]
    sigma = float(median_heuristic(X) / 2.0) if sigma is None else float(sigma)
    rows = []
    base, sk_train = np.nan, None
    if sklearn:
        est = SpectralEmbedding(n_components=n_components, affinity="rbf", gamma=1.0 / sigma**2, random_state=seed)
        base, sk_train = best_of(lambda: est.fit_transform(train), 1)
        rows.append(dict(case="pendigits", method="sklearn SpectralEmbedding", ell="", m=train.shape[0],
                         seconds=base, speedup=1.0, eig_error=np.nan, held_alignment=np.nan,
                         train_alignment_sklearn=0.0))
    methods = {
        "spectral embedding": lambda **kw: ReducedSetSpectralEmbedding(n_components=n_components, sigma=sigma,
                                                                       random_state=seed, **kw),
        "diffusion map a=1 t=1": lambda **kw: ReducedSetDiffusionMap(n_components=n_components, sigma=sigma,
                                                                     alpha=1.0, t=1, random_state=seed, **kw),
    }
    for name, make in methods.items():
        exact = make(ell=EVERY_ROW)
        seconds, exact = best_of(lambda: exact.fit(train), 1)
        Z_exact = exact.transform(held)
        rows.append(dict(case="pendigits", method=f"{name}, every row a center", ell="inf", m=exact.m_,
                         seconds=seconds, speedup=base / seconds, eig_error=0.0, held_alignment=0.0,
                         train_alignment_sklearn=_vs(sk_train, exact, train)))
        for ell in ells:
            for rsde in ("shadow", "uniform"):
                est = make(ell=ell, rsde=rsde)
                seconds, Z = best_of(lambda: est.fit(train).transform(held), repeats)
                rows.append(dict(case="pendigits", method=f"{name}, {rsde}", ell=ell, m=est.m_, seconds=seconds,
                                 speedup=base / seconds,
                                 eig_error=float(np.max(np.abs(est.eigenvalues_ - exact.eigenvalues_))),
                                 held_alignment=alignment_error(Z_exact, Z),
                                 train_alignment_sklearn=_vs(sk_train, est, train)))
    return rows


def _vs(sk_train, est, train) -> float:
    # scikit-learn drops the self-loops k(x, x) = 1 (scipy's laplacian ignores the diagonal), so even
    # the every-row method differs from it a little; reported to show by how much.
    if sk_train is None or not isinstance(est, ReducedSetSpectralEmbedding):
        return np.nan
    return alignment_error(sk_train, est.transform(train))


def gaussian_mixture(n: int, d: int = 10, k: int = 5, *, spread: float = 4.0, seed: int = 0):
    """n rows from k unit-variance Gaussians in d dimensions, means drawn N(0, spread^2)."""
    rng = np.random.default_rng(seed)
    means = rng.normal(scale=spread, size=(k, d))
    y = rng.integers(k, size=n)
    return means[y] + rng.normal(size=(n, d)), y


def mixture_rows(n: int = 1_000_000, d: int = 10, k: int = 5, *, sigma: float = 5.0, ell: float = 1.0,
                 repeats: int = 1, seed: int = 0) -> list[dict]:
    """Spectral clustering of every row, alone (``fit``: every row labelled) and with every row's embedding.

    ``seconds`` is ``fit_transform`` (labels and embedding in one call: the landmark affinity finds each
    row's nearest centers once); ``fit_seconds`` is ``fit`` alone; ``fit_then_transform_seconds`` is
    ``fit`` followed by ``transform`` of the same rows, which searches them a second time.
    """
    X, y = gaussian_mixture(n, d, k, seed=seed)
    rows = []
    settings = {"shadow": dict(sigma=sigma, ell=ell, rsde="shadow", **GLOBAL),
                "uniform": dict(sigma=sigma, ell=ell, rsde="uniform", **GLOBAL), "defaults": {}}
    for rsde, kw in settings.items():
        est = ReducedSetSpectralClustering(n_clusters=k, random_state=seed, **kw)

        def fit_transform():
            return est.fit_transform(X)

        def fit():
            return est.fit(X)

        def fit_then_transform():
            return est.fit(X).transform(X)

        fit_s, _ = best_of(fit, repeats)
        both_s, _ = best_of(fit_then_transform, repeats)
        seconds, Z = best_of(fit_transform, repeats)
        rows.append(dict(case=f"mixture {n:,} x {d}", method=f"ReducedSetSpectralClustering {rsde}",
                         ell=kw.get("ell", "budget"), m=est.m_, seconds=seconds, fit_seconds=fit_s,
                         fit_then_transform_seconds=both_s, ari=adjusted_rand_score(y, est.labels_),
                         embedded_rows=Z.shape[0]))
    return rows


#: Labelled data sets of the real-data table: name -> (path, or a sample_data file name).
SAMPLES = Path(__file__).resolve().parents[2] / "sample_data"
REAL_DATA = {
    "pendigits": "pendigits.csv", "usps": "usps.csv.gz", "german": "german.csv",
    "yale_ppci_subset": "yale_ppci_subset.csv.gz", "digits": SAMPLES / "digits.csv", "iris": SAMPLES / "iris.csv",
    "wine": SAMPLES / "wine.csv", "breast_cancer": SAMPLES / "breast_cancer.csv", "blobs": SAMPLES / "blobs.csv",
    "two_moons": SAMPLES / "two_moons.csv", "circles": SAMPLES / "circles.csv",
}
#: The rskpca columns of the real-data table: the defaults, then one change each.
RSKPCA_VARIANTS = {
    "rskpca defaults (landmark)": {},
    "landmark, shadow unrefined": dict(lloyd_steps=0),
    "landmark, k-means landmarks": dict(rsde="kmeans", lloyd_steps=0),
    "landmark, uniform landmarks": dict(rsde="uniform", lloyd_steps=0),
    "local_scaling": dict(affinity="local_scaling"),
    "gaussian (budget)": dict(affinity="gaussian"),
    "gaussian, ell 4 (before issue 37)": dict(affinity="gaussian", ell=4.0, max_centers=None, lloyd_steps=0),
}
#: scikit-learn's dense SpectralClustering runs up to this many rows (an n x n matrix, one seed).
SKLEARN_MAX_ROWS = 6000


def load_labelled(name: str, datasets=Path(os.environ.get("RSKPCA_DATASETS", "../shared/datasets"))):
    """``(X, y)`` of a data set of ``REAL_DATA`` (label column last), or None when its file is absent.

    A bundled sample whose features are on different scales (wine, breast_cancer) is standardised, as the
    app and the sample's own metadata do (:data:`rskpca.data.samples.SAMPLES`).
    """
    path = Path(REAL_DATA[name])
    path = path if path.is_absolute() else Path(datasets) / path
    if not path.exists():
        return None
    df = pd.read_csv(path)
    X = df.drop(columns="label").to_numpy(dtype=np.float64)
    if name in SAMPLES_INFO and SAMPLES_INFO[name].standardize:  # as the app prepares it: every method sees it so
        X = (X - X.mean(axis=0)) / X.std(axis=0)
    return X, df["label"].to_numpy()


def real_methods(k: int, n: int, *, sklearn: bool = True) -> dict:
    """name -> ``fit_labels(X, seed)`` for the real-data table; which seeds each needs (None: all)."""
    from sklearn.cluster import KMeans

    methods = {name: (lambda X, s, kw=kw: ReducedSetSpectralClustering(n_clusters=k, random_state=s, **kw)
                      .fit(X).labels_, None) for name, kw in RSKPCA_VARIANTS.items()}
    methods["k-means"] = (lambda X, s: KMeans(k, n_init=10, random_state=s).fit(X).labels_, None)
    if sklearn and n <= SKLEARN_MAX_ROWS:
        methods["sklearn SpectralClustering rbf"] = (
            lambda X, s: SpectralClustering(k, affinity="rbf", gamma=1.0 / median_heuristic(X) ** 2,
                                            random_state=s).fit(X).labels_, 1)
        methods["sklearn SpectralClustering nearest_neighbors"] = (
            lambda X, s: SpectralClustering(k, affinity="nearest_neighbors", random_state=s).fit(X).labels_, 1)
    try:
        from landmark_baselines import lsc_k, u_spec  # the lab's LSC-K and U-SPEC (issue 37)
    except ImportError:
        return methods
    methods["LSC-K"] = (lambda X, s: lsc_k(X, k, n_landmarks=1000, n_neighbors=5, random_state=s), None)
    methods["U-SPEC"] = (lambda X, s: u_spec(X, k, n_landmarks=1000, n_neighbors=5, random_state=s), None)
    return methods


def real_rows(names, *, seeds: int = 5, sklearn: bool = True, methods=None) -> list[dict]:
    """NMI, CA, ARI (percent, mean over seeds) and median seconds of every method on every data set."""
    from rskpca.evaluation.clustering_scores import clustering_scores

    rows = []
    for name in names:
        data = load_labelled(name)
        if data is None:
            print(f"{name}: file not found (set RSKPCA_DATASETS)", flush=True)
            continue
        X, y = data
        k = int(np.unique(y).size)
        for method, (fit_labels, n_seeds) in real_methods(k, X.shape[0], sklearn=sklearn).items():
            if methods and method not in methods:
                continue
            scores, seconds = [], []
            for seed in range(seeds if n_seeds is None else n_seeds):
                t0 = time.perf_counter()
                labels = fit_labels(X, seed)
                seconds.append(time.perf_counter() - t0)
                scores.append(clustering_scores(y, labels).as_dict())
            mean = {key: 100.0 * float(np.mean([sc[key] for sc in scores])) for key in scores[0]}
            rows.append(dict(data=f"{name} ({X.shape[0]:,} x {X.shape[1]}, {k})", method=method, seeds=len(scores),
                             NMI=round(mean["NMI"], 1), CA=round(mean["CA"], 1), ARI=round(mean["ARI"], 1),
                             seconds=float(np.median(seconds))))
            print(" ".join(str(v) for v in rows[-1].values()), file=sys.stderr, flush=True)  # progress
    return rows


def predict_rows(names, *, seeds: int = 5, held_out: float = 0.2) -> list[dict]:
    """``predict`` at the defaults: fitted on all rows but a seeded ``held_out`` share, the held-out rows'
    predicted clusters against the clusters the fit on every row gave them (agreement: the share of rows
    matched under the best one-to-one map between the two fits' cluster numbers), mean over seeds."""
    from rskpca.evaluation.clustering_scores import clustering_scores

    rows = []
    for name in names:
        data = load_labelled(name)
        if data is None:
            continue
        X, y = data
        k = int(np.unique(y).size)
        agree, trained = [], []
        for seed in range(seeds):
            held = np.random.default_rng(seed).random(X.shape[0]) < held_out
            everywhere = ReducedSetSpectralClustering(n_clusters=k, random_state=seed).fit(X).labels_
            partial = ReducedSetSpectralClustering(n_clusters=k, random_state=seed).fit(X[~held])
            agree.append(clustering_scores(everywhere[held], partial.predict(X[held])).ca)
            # the same two fits on the rows both were fitted on: how far the clusterings themselves differ
            trained.append(clustering_scores(everywhere[~held], partial.labels_).ca)
        rows.append(dict(data=f"{name} ({X.shape[0]:,} x {X.shape[1]}, {k})", held_out=int(held.sum()),
                         seeds=seeds, agreement=round(100.0 * float(np.mean(agree)), 1),
                         worst=round(100.0 * float(np.min(agree)), 1),
                         training_rows=round(100.0 * float(np.mean(trained)), 1)))
        print(" ".join(str(v) for v in rows[-1].values()), file=sys.stderr, flush=True)  # progress
    return rows


def format_table(rows: list[dict]) -> str:
    """A plain-text table of rows (dicts), columns in first-seen order, floats to 4 significant digits."""
    columns = list(dict.fromkeys(key for row in rows for key in row))

    def cell(v):
        if isinstance(v, float):
            return "" if np.isnan(v) else f"{v:.4g}"
        return str(v)

    body = [[cell(row.get(c, "")) for c in columns] for row in rows]
    widths = [max(len(c), *(len(r[i]) for r in body)) for i, c in enumerate(columns)]
    lines = ["  ".join(c.ljust(w) for c, w in zip(columns, widths))]
    lines += ["  ".join(v.ljust(w) for v, w in zip(r, widths)) for r in body]
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", default="circles,pendigits,mixture")
    parser.add_argument("--pendigits", default=str(PENDIGITS), help="pendigits.csv (16 features, label last)")
    parser.add_argument("--no-sklearn", action="store_true", help="skip the dense scikit-learn baselines")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--mixture-n", type=int, default=1_000_000)
    parser.add_argument("--seeds", type=int, default=5, help="seeds of the real-data table")
    parser.add_argument("--data", default=",".join(REAL_DATA), help="data sets of the real-data table")
    parser.add_argument("--methods", default="", help="only these columns of the real-data table (comma-separated)")
    args = parser.parse_args(argv)
    cases = set(args.cases.split(","))
    sk = not args.no_sklearn
    if "circles" in cases:
        print(format_table(circles_rows(repeats=args.repeats, sklearn=sk)), "\n", flush=True)
    if "pendigits" in cases:
        if Path(args.pendigits).exists():
            print(format_table(pendigits_rows(load_pendigits(args.pendigits), repeats=args.repeats, sklearn=sk)),
                  "\n", flush=True)
        else:
            print(f"pendigits: {args.pendigits} not found; pass --pendigits PATH\n", flush=True)
    if "real" in cases:
        methods = [m for m in args.methods.split(",") if m]
        print(format_table(real_rows(args.data.split(","), seeds=args.seeds, sklearn=sk, methods=methods)), "\n",
              flush=True)
    if "predict" in cases:
        print(format_table(predict_rows(args.data.split(","), seeds=args.seeds)), "\n", flush=True)
    if "mixture" in cases:
        ReducedSetSpectralClustering(n_clusters=2, sigma=1.0).fit(gaussian_mixture(2000, k=2)[0])  # numba load
        print(format_table(mixture_rows(args.mixture_n, repeats=args.repeats)), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
