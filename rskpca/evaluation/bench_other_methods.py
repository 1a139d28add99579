"""Benchmark: the other speed-ups of the source documents beside RSKPCA, as a printed table.

Run ``python -m rskpca.evaluation.bench_other_methods --data PATH/pendigits.csv --n 2000``
(a CSV with numeric feature columns and an optional ``label`` column, or no
``--data`` for a synthetic mixture). Every method is trained on the same n rows
at the m the shadow produces at ``--ell``, embeds a held-out set, and is
compared with exact KPCA (Section 6 alignment error, normalized-eigenvalue
deviation). Times are the median of ``--repeat`` runs; on a shared machine
they are noisy, so read ratios, not absolute seconds.

Extra columns make the trade-offs of seeds 001 and 002 visible: the
reduced-set construction's training time split into exact KPCA + construction,
and the Gram-sampling estimators' kernel evaluations and spectral-norm error.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from rskpca.core.kernels import median_heuristic
from rskpca.evaluation.methods import METHODS, make_estimator
from rskpca.core.metrics import alignment_error, eigenvalue_deviation
from rskpca.core.shadow import shadow_centers

__all__ = ["run_benchmark", "format_table", "DEFAULT_METHODS"]

DEFAULT_METHODS = ("exact", "exact_iterative", "rskpca", "nystrom", "rs_construction", "gram_sparsified",
                   "gram_quantized", "random_fourier")


def _load(path, n, n_eval, seed):
    rng = np.random.default_rng(seed)
    if path is None:
        X = np.vstack([rng.normal(size=((n + n_eval) // 3 + 1, 5)) + 3 * rng.normal(size=5)
                       for _ in range(3)])
    else:
        import pandas as pd

        frame = pd.read_csv(path)
        frame = frame.drop(columns=[c for c in frame.columns if c.lower() == "label"])
        X = frame.to_numpy(dtype=np.float64)
    if X.shape[0] < n + n_eval:
        raise ValueError(f"the data has {X.shape[0]} rows; --n {n} plus --n-eval {n_eval} needs more.")
    idx = rng.permutation(X.shape[0])[:n + n_eval]
    return X[idx[:n]], X[idx[n:]]


def run_benchmark(X_train, X_eval, *, methods=DEFAULT_METHODS, n_components=3, ell=4.0, sigma=None,
                  repeat=3, random_state=0) -> list[dict]:
    """Fit each method ``repeat`` times; rows of median times and the errors of the last fit.

    >>> X = np.random.default_rng(0).normal(size=(120, 3))
    >>> rows = run_benchmark(X[:100], X[100:], methods=("exact", "random_fourier"), repeat=1)
    >>> [r["method"] for r in rows]
    ['exact', 'random_fourier']
    """
    sigma = median_heuristic(X_train) if sigma is None else float(sigma)
    m = shadow_centers(X_train, sigma=sigma, ell=ell).m
    exact = make_estimator("exact", n_components=n_components, sigma=sigma).fit(X_train)
    O = exact.transform(X_eval)
    rows = []
    for name in methods:
        fit_s, test_s = [], []
        for _ in range(repeat):
            est = make_estimator(name, n_components=n_components, sigma=sigma, ell=ell, m=m,
                                 random_state=random_state)
            t0 = time.perf_counter()
            est.fit(X_train)
            t1 = time.perf_counter()
            Z = est.transform(X_eval)
            t2 = time.perf_counter()
            fit_s.append(t1 - t0)
            test_s.append(t2 - t1)
        row = {"method": name, "label": METHODS[name].label, "n": X_train.shape[0], "m": m,
               "sigma": sigma, "fit_s": float(np.median(fit_s)), "transform_s": float(np.median(test_s)),
               "alignment_error": alignment_error(O, Z),
               "eig_dev": eigenvalue_deviation(exact.normalized_eigenvalues_, est.normalized_eigenvalues_),
               "notes": ""}
        if hasattr(est, "fit_time_breakdown_"):
            b = est.fit_time_breakdown_
            row["notes"] = f"exact KPCA {b['exact_kpca']:.3f}s + construction {b['construction']:.3f}s"
        if hasattr(est, "gram_error"):
            g = est.gram_error(X_train)
            row["notes"] = (f"kernel evals {est.n_kernel_evaluations_}, ||K^-K||_2 = {g['spectral_norm']:.3g} "
                            f"({g['relative']:.1%} of ||K||_2), {est.centers_.shape[0]} expansion terms")
        rows.append(row)
    return rows


def format_table(rows) -> str:
    """Fixed-width text table of :func:`run_benchmark` rows."""
    head = f"{'method':<18}{'n':>6}{'m':>6}{'fit s':>9}{'test s':>9}{'align err':>11}{'eig dev':>10}  notes"
    lines = [head, "-" * len(head)]
    for r in rows:
        lines.append(f"{r['method']:<18}{r['n']:>6}{r['m']:>6}{r['fit_s']:>9.3f}{r['transform_s']:>9.3f}"
                     f"{r['alignment_error']:>11.4f}{r['eig_dev']:>10.2e}  {r['notes']}")
    return "\n".join(lines)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default=None, help="CSV file (numeric columns, optional 'label')")
    parser.add_argument("--n", type=int, default=2000, help="training rows")
    parser.add_argument("--n-eval", type=int, default=500, help="held-out rows embedded")
    parser.add_argument("--ell", type=float, default=4.0)
    parser.add_argument("--components", type=int, default=3)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--methods", default=",".join(DEFAULT_METHODS))
    args = parser.parse_args(argv)
    X_train, X_eval = _load(args.data, args.n, args.n_eval, 0)
    rows = run_benchmark(X_train, X_eval, methods=args.methods.split(","), n_components=args.components,
                         ell=args.ell, repeat=args.repeat)
    print(f"sigma = {rows[0]['sigma']:.4g} (median heuristic), m = {rows[0]['m']} (shadow at ell = {args.ell}); "
          f"times: median of {args.repeat} runs on a shared machine (noisy)")
    print(format_table(rows))


if __name__ == "__main__":
    main()
