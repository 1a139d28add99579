"""Denoising benchmark: RSKPCA pre-images against scikit-learn's ``KernelPCA(fit_inverse_transform=True)`` on usps.

Reproduces the setting of scikit-learn's example "Image denoising using kernel
PCA" (after Bakir, Weston & Schölkopf, 2004): pixels scaled to [0, 1], Gaussian
noise of standard deviation 0.25 added to the training and the test images,
models fitted on the *noisy* training images, 100 noisy test images projected
and mapped back, and the mean squared error measured against the *clean* test
images. The example's parameters: ``PCA(n_components=32)`` and
``KernelPCA(n_components=400, kernel="rbf", gamma=1e-3, alpha=5e-3)``; in this
package's convention ``gamma = 1 / sigma**2``, so ``sigma = sqrt(1000)``.
RSKPCA learns its pre-image map on its m weighted shadow centers (an m x m
kernel ridge solve) instead of all n training images; where the shadow keeps
fewer than 400 centers it uses ``r = m`` components.

Two training sizes: 1,000 images (stratified from the usps training split, as
the example) and all 7,291 training images (the first 7,291 rows of the file).
The 100 test images come from the test split (rows 7,292 on).

Run::

    python tests/benchmarks/bench_denoise.py --data ../shared/datasets/usps.csv.gz   # both sizes, ell 4, 5, 6
    python tests/benchmarks/bench_denoise.py --sizes 1000 --ells 4,5
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.decomposition import PCA
from sklearn.decomposition import KernelPCA as SklearnKernelPCA
from sklearn.model_selection import train_test_split

from rskpca.decomposition import ReducedSetKPCA
from rskpca.evaluation.timing import Timing, best_time

__all__ = ["load_usps", "denoising_split", "run", "main"]

#: Default data path: ``$RSKPCA_DATASETS/usps.csv.gz``, else ``../shared/datasets`` beside the checkout (run from its root).
USPS = Path(os.environ.get("RSKPCA_DATASETS", "../shared/datasets")) / "usps.csv.gz"
USPS_TRAIN_ROWS = 7291
#: The parameters of scikit-learn's denoising example.
N_COMPONENTS, GAMMA, ALPHA, PCA_COMPONENTS, NOISE = 400, 1e-3, 5e-3, 32, 0.25


def load_usps(path=USPS):
    """usps as (pixels in [0, 1], labels); the file stores pixels in [-1, 1] and the label last."""
    table = pd.read_csv(path).to_numpy(dtype=np.float64)
    return (table[:, :-1] + 1.0) / 2.0, table[:, -1].astype(int)


def denoising_split(X, y, n_train, n_test=100, noise=NOISE, seed=0):
    """Clean and noisy training and test images, drawn as scikit-learn's example draws them."""
    Xtr, ytr, Xte, yte = X[:USPS_TRAIN_ROWS], y[:USPS_TRAIN_ROWS], X[USPS_TRAIN_ROWS:], y[USPS_TRAIN_ROWS:]
    if n_train < Xtr.shape[0]:
        Xtr, _, ytr, _ = train_test_split(Xtr, ytr, stratify=ytr, random_state=seed, train_size=n_train)
    Xte, _, yte, _ = train_test_split(Xte, yte, stratify=yte, random_state=seed, train_size=n_test)
    rng = np.random.RandomState(seed)
    Xte_noisy = Xte + rng.normal(scale=noise, size=Xte.shape)
    Xtr_noisy = Xtr + rng.normal(scale=noise, size=Xtr.shape)
    return Xtr_noisy, Xte, Xte_noisy


def _timed(fn):
    """One timed call, no warm-up (a fit here takes seconds to minutes): rskpca.evaluation.timing's rule."""
    return best_time(fn, Timing(repeats=1, warmup=0))


def _mse(A, B) -> float:
    return float(np.mean((A - B) ** 2))


def run(sizes=(1000, USPS_TRAIN_ROWS), ells=(4.0, 5.0, 6.0), n_test=100, path=USPS) -> pd.DataFrame:
    """One row per (training size, method): m, components, fit and denoise time, MSE against the clean images."""
    X, y = load_usps(path)
    sigma = GAMMA ** -0.5
    rows = []
    for n in sizes:
        Xtr, Xte, Xte_noisy = denoising_split(X, y, n, n_test)
        base = {"n_train": Xtr.shape[0]}
        rows.append({**base, "method": "noisy input", "mse": _mse(Xte_noisy, Xte)})
        pca, t_fit = _timed(lambda: PCA(n_components=PCA_COMPONENTS, random_state=42).fit(Xtr))
        out, t_den = _timed(lambda: pca.inverse_transform(pca.transform(Xte_noisy)))
        rows.append({**base, "method": f"PCA({PCA_COMPONENTS})", "r": PCA_COMPONENTS, "fit_s": t_fit,
                     "denoise_s": t_den, "mse": _mse(out, Xte)})
        sk, t_sk = _timed(lambda: SklearnKernelPCA(n_components=N_COMPONENTS, kernel="rbf", gamma=GAMMA,
                                                   fit_inverse_transform=True, alpha=ALPHA, random_state=42).fit(Xtr))
        out, t_den = _timed(lambda: sk.inverse_transform(sk.transform(Xte_noisy)))
        rows.append({**base, "method": "sklearn KernelPCA", "m": Xtr.shape[0], "r": N_COMPONENTS, "fit_s": t_sk,
                     "denoise_s": t_den, "mse": _mse(out, Xte), "fit_speedup": 1.0})
        del sk
        for ell in ells:
            # r = min(400, m): fitted once to learn m when the shadow keeps fewer than 400 centers.
            m = ReducedSetKPCA(n_components=1, sigma=sigma, ell=ell).fit(Xtr).centers_.shape[0]
            r = min(N_COMPONENTS, m)
            est, t_fit = _timed(lambda: ReducedSetKPCA(n_components=r, sigma=sigma, ell=ell, fit_inverse_transform=True,
                                                       alpha=ALPHA, random_state=42).fit(Xtr))
            Z = est.transform(Xte_noisy)
            out, t_den = _timed(lambda: est.inverse_transform(est.transform(Xte_noisy)))
            fixed, t_fp = _timed(lambda: est.inverse_transform(Z, method="fixed-point"))
            rows.append({**base, "method": "RSKPCA", "ell": ell, "m": m, "r": r, "fit_s": t_fit, "denoise_s": t_den,
                         "mse": _mse(out, Xte), "mse_fixed_point": _mse(fixed, Xte), "fixed_point_s": t_fp,
                         "fit_speedup": t_sk / t_fit})
    return pd.DataFrame(rows)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default=f"1000,{USPS_TRAIN_ROWS}", help="training sizes, comma-separated")
    parser.add_argument("--ells", default="4,5,6", help="shadow ell values, comma-separated")
    parser.add_argument("--n-test", type=int, default=100)
    parser.add_argument("--data", default=str(USPS), help="usps.csv.gz (pixels in [-1, 1], label last)")
    args = parser.parse_args(argv)
    if not Path(args.data).exists():
        raise SystemExit(f"{args.data} not found: pass --data PATH/usps.csv.gz or set RSKPCA_DATASETS.")
    df = run(sizes=[int(s) for s in args.sizes.split(",")], ells=[float(e) for e in args.ells.split(",")],
             n_test=args.n_test, path=args.data)
    print(f"# usps denoising, noise sd {NOISE}, {args.n_test} test images; load: {os.getloadavg()[0]:.1f}, "
          f"{os.cpu_count()} CPUs; {time.strftime('%Y-%m-%d')}")
    print(df.to_string(index=False, float_format=lambda v: f"{v:.4g}", na_rep=""))


if __name__ == "__main__":
    main()
