"""Before/after timings of the speed levers of the reduced-set fit, measured in one run.

``python tests/benchmarks/bench_speed.py --pendigits /work/shared/datasets/pendigits.csv``

Prints, with the date, the machine load (``uptime``) before and after and the command:

* **fit**: scikit-learn's ``KernelPCA`` (arpack and randomized) against
  ``ReducedSetKPCA(sigma=120, ell=4, n_components=5).fit`` on all pendigits rows, and
  each lever of the fit (shadow screen precision, the m x m kernel, the eigensolver)
  timed before (the float64 path: ``kernel_matrix`` + :func:`weighted_kpca`) and after
  (:func:`kpca_on_centers`); the embedding of held-out rows is compared with the
  float64 dense solution of the same m x m problem (``alignment_error``);
* **shadow path**: GEMM screen, compiled scan and ``auto`` on 1-3-d data, auto over the better;
  the screen (with threads) against the compiled scan on pendigits, digits and usps;
* **IterativeKPCA** against scikit-learn's arpack (blocks kept, and recomputed);
* **projection**: transform time over its GEMM floor (the ``n_new x m x d`` GEMM alone);
* **exact solvers at the app's sizes**: scikit-learn's arpack and randomized ``KernelPCA``
  as the app times them (``compare.fit_exact``) on every bundled
  sample and a 2,000-row sample of pendigits (the app's comparison sets), r = 2, 5, 10, 20:
  the evidence for the Speedups page timing arpack only unless asked; exact KPCA with and without
  projecting the training rows again (how Embeddings fits it); and two of the app's
  fits (arpack, density-weighted Nystrom's k-means) with the libraries' threads and with one BLAS
  and OpenMP thread, the other core idle and busy (why the app fits its comparisons on one); these
  rows are ``tests/benchmarks/bench_app_fits.py``'s.

Every timing is the best of ``--repeats`` runs after one warm-up run (the memory-bounded
IterativeKPCA on the first 4000 rows, where recomputing every block per product stays short). ``--csv PATH`` also
writes the rows (``after_over_before``: for the projection, transform time over the GEMM
floor; for the shadow path, auto over the better of screen and compiled scan); an existing file is
never overwritten (a suffix ``-1``, ``-2``... is added).

The rows are built in ``bench_fit_levers`` (fit and accuracy),
``bench_eigensolver_rows`` (block solve, dense crossover),
``bench_shadow_rows`` (screen threads, compiled scan, shadow path) and
``bench_app_fits`` (the app's sizes), on the settings of
``bench_speed_settings``; the IterativeKPCA and projection rows are here.
"""

from __future__ import annotations

import argparse
import datetime
import os
import sys

import numpy as np

from rskpca.core.radial_kernels import kernel_matrix
from rskpca.decomposition.iterative import IterativeKPCA
from rskpca.decomposition._reduced_set import ReducedSetKPCA
from bench_eigensolver_rows import _block_solve_rows, dense_crossover_rows
from bench_fit_levers import accuracy_rows, fit_rows, scratch_rows
from bench_shadow_rows import screen_thread_rows, shadow_path_rows
from bench_speed_settings import ELL, PENDIGITS_TRAIN_ROWS, R, SIGMA, best_time, load_pendigits
from rskpca.evaluation.timing import machine_load

#: What this module gave before its rows moved out (tests and notes reach them here).
__all__ = ["main", "fresh_path", "iterative_rows", "projection_rows", "fit_rows", "scratch_rows", "accuracy_rows",
           "_block_solve_rows", "dense_crossover_rows", "screen_thread_rows", "shadow_path_rows",
           "SIGMA", "ELL", "R", "PENDIGITS_TRAIN_ROWS", "best_time", "load_pendigits"]


def fresh_path(path: str) -> str:
    """``path``, or ``stem-1.ext``, ``stem-2.ext``... the first that does not exist yet."""
    stem, ext = os.path.splitext(path)
    k, out = 0, path
    while os.path.exists(out):
        k += 1
        out = f"{stem}-{k}{ext}"
    return out


def iterative_rows(X, repeats, n_bounded=4000):
    """IterativeKPCA against scikit-learn's arpack: all rows with the blocks kept, and the
    memory-bounded mode (blocks recomputed per product) on the first ``n_bounded`` rows."""
    from sklearn.decomposition import KernelPCA as SkKernelPCA

    def sk_fit(Xs):
        return SkKernelPCA(n_components=R, kernel="rbf", gamma=1 / SIGMA**2, eigen_solver="arpack",
                           random_state=0).fit(Xs)

    kept = IterativeKPCA(n_components=R, sigma=SIGMA, random_state=0)
    bounded = IterativeKPCA(n_components=R, sigma=SIGMA, cache_bytes=0, random_state=0)
    Xb = X[:n_bounded]
    return [("IterativeKPCA blocks kept (sklearn arpack -> ours)", best_time(lambda: sk_fit(X), repeats),
             best_time(lambda: kept.fit(X), repeats), f"{kept.cached_kernel_bytes_ / 2**20:.0f} MiB kept"),
            (f"IterativeKPCA recomputed, n={n_bounded} (sklearn arpack -> ours)",
             best_time(lambda: sk_fit(Xb), repeats), best_time(lambda: bounded.fit(Xb), repeats),
             f"memory: one block; {bounded.n_matvec_} products")]


def projection_rows(X, repeats, n_new=100_000):
    """Transform of n_new rows: before (unfused float64), after, and the GEMM floor."""
    est = ReducedSetKPCA(sigma=SIGMA, ell=ELL, n_components=R, random_state=0).fit(X)
    rng = np.random.default_rng(1)
    Xn = X[rng.integers(0, X.shape[0], n_new)] + rng.normal(scale=0.5, size=(n_new, X.shape[1]))
    C, A = est.centers_, est.dual_coef_
    step = max(1, 4_000_000 // C.shape[0])

    def before():
        for s in range(0, n_new, step):
            kernel_matrix(Xn[s:s + step], C, sigma=SIGMA) @ A

    def floor():
        for s in range(0, n_new, step):
            Xn[s:s + step] @ C.T

    t_floor = best_time(floor, repeats)
    t_before = best_time(before, repeats)
    t_after = best_time(lambda: est.transform(Xn), repeats)
    flops = 2.0 * n_new * C.shape[0] * C.shape[1]
    return t_floor, t_before, t_after, flops / t_floor / 1e9, est.eigen_solver_


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pendigits", required=True, help="path of pendigits.csv")
    parser.add_argument("--usps", default=None, help="path of usps.csv.gz: adds its rows to the screen's thread rows")
    parser.add_argument("--repeats", type=int, default=3, help="best of this many runs (after a warm-up)")
    parser.add_argument("--csv", default=None, help="also write the rows here (never overwritten)")
    parser.add_argument("--skip", nargs="*", default=(),
                        choices=("fit", "shadow", "iterative", "projection", "solvers"))
    args = parser.parse_args(argv)
    from bench_app_fits import app_embedding_rows, app_solver_rows, app_thread_rows

    X = load_pendigits(args.pendigits)
    print(f"# bench_speed {datetime.datetime.now().isoformat(timespec='seconds')}")
    print(f"# command: python tests/benchmarks/bench_speed.py {' '.join(argv or sys.argv[1:])}")
    print(f"# load before: {machine_load()}")
    print(f"# pendigits {X.shape[0]} x {X.shape[1]}, sigma={SIGMA:g}, ell={ELL:g}, r={R}; best of {args.repeats}")
    csv = []
    lever_rows = []
    if "fit" not in args.skip:
        lever_rows += fit_rows(X, args.repeats)
        lever_rows += screen_thread_rows(X, args.repeats, args.usps)
        lever_rows += dense_crossover_rows(args.repeats)
    if "iterative" not in args.skip:
        lever_rows += iterative_rows(X, args.repeats)
    if lever_rows:
        print(f"\n{'lever':<58} {'before_s':>9} {'after_s':>9} {'before/after':>12}  note")
        for lever, b, a, note in lever_rows:
            print(f"{lever:<58} {b:9.4f} {a:9.4f} {b / a:12.2f}  {note}")
            csv.append(("lever", lever, b, a, a / b, note))
    if "fit" not in args.skip:
        print(f"\n{'accuracy (vs float64 dense m x m solution)':<50} {'align_err':>10} {'max_rel_eig_err':>15}  solver")
        for label, err, lam, used in accuracy_rows(X):
            print(f"{label:<50} {err:10.2e} {lam:15.2e}  {used}")
            csv.append(("accuracy", label, "", "", "", f"align_err={err:.3e}; max_rel_eig_err={lam:.3e}; {used}"))
    if "shadow" not in args.skip:
        print(f"\n{'d':>2} {'eps':>6} {'m':>6} {'auto path':>10} {'screen_s':>8} {'compiled_s':>10} "
              f"{'auto_s':>8} {'auto/best':>9}   (n = 200,000 standard normal, one BLAS thread)")
        for d, eps, m, path, b, c, a in shadow_path_rows(args.repeats):
            best = min(b, c)
            print(f"{d:>2} {eps:6.3f} {m:6d} {path:>10} {b:8.4f} {c:10.4f} {a:8.4f} {a / best:9.2f}")
            csv.append(("shadow", f"d={d} eps={eps} m={m}", best, a, a / best,
                        f"before = better of screen {b:.4f} and compiled {c:.4f}; after = auto ({path})"))
    if "projection" not in args.skip:
        t_floor, t_before, t_after, rate, used = projection_rows(X, args.repeats)
        print(f"\nprojection of 100,000 rows (m x d GEMM floor {t_floor:.4f} s at {rate:.1f} GFlop/s, fit {used}):")
        print(f"  before (unfused float64) {t_before:.4f} s = {t_before / t_floor:.2f}x floor; "
              f"after {t_after:.4f} s = {t_after / t_floor:.2f}x floor (goal <= 2x)")
        csv.append(("projection", "transform 1e5 rows", t_floor, t_after, t_after / t_floor,
                    f"before = GEMM floor; unfused float64 transform {t_before:.4f} s"))
    if "solvers" not in args.skip:
        print(f"\n{'exact KPCA at the app sizes':<28} {'n':>5} {'r':>3} {'arpack_s':>9} {'randomized_s':>12} "
              f"{'randomized/arpack':>17}")
        for name, n, r, a, b in app_solver_rows(X, args.repeats):
            print(f"{name:<28} {n:>5} {r:>3} {a:9.4f} {b:12.4f} {b / a:17.2f}")
            csv.append(("solvers", f"{name} n={n} r={r}", a, b, b / a, "before = arpack; after = randomized"))
        print(f"\n{'exact KPCA for Embeddings':<28} {'n':>5} {'r':>3} {'projected_s':>11} {'fit_only_s':>10} "
              f"{'projected/fit_only':>18}   (arpack, one thread)")
        for name, n, r, a, b in app_embedding_rows(X, args.repeats):
            print(f"{name:<28} {n:>5} {r:>3} {a:11.4f} {b:10.4f} {a / b:18.2f}")
            csv.append(("embedding", f"{name} n={n} r={r}", a, b, b / a,
                        "before = fit + projection; after = fit alone"))
        print(f"\n{'app fits and threads':<22} {'fit':<25} {'threads':>7} {'quiet_s':>9} {'busy_core_s':>12}   "
              f"(fit + transform, r = {R}, median of 7; busy: a process spinning beside it; "
              "threads: the libraries' default or one BLAS and OpenMP thread)")
        for name, fit, threads, quiet, busy in app_thread_rows(X):
            print(f"{name:<22} {fit:<25} {threads:>7} {quiet:9.4f} {busy:12.4f}")
            csv.append(("threads", f"{name} {fit} threads={threads}", quiet, busy, busy / quiet,
                        "before = quiet; after = busy"))
    print(f"\n# load after: {machine_load()}")
    if args.csv:
        path = fresh_path(args.csv)
        with open(path, "w") as fh:
            fh.write("table,row,before_s,after_s,after_over_before,note\n")
            for row in csv:
                fh.write(",".join(str(v).replace(",", ";") for v in row) + "\n")
        print(f"# wrote {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
