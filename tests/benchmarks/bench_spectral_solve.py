"""Seconds of the Spectral page's m x m problem against m and d: the constants of
``rskpca.ui.compute.spectral.centers_seconds`` (SOLVE_S_PER_M2, SOLVE_S_PER_M2_D).

    python tests/benchmarks/bench_spectral_solve.py [--m 500 1000 2000 4000] [--d 16 256]

Times ``fit_reduced_set`` of a diffusion map (5 components) and of spectral clustering (k = 10, the Gaussian
affinity through given centers) on m random weighted centers, on one BLAS thread as the app runs them; best
of two. Prints seconds and seconds per m^2 for each.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from rskpca import ReducedSetDiffusionMap, ReducedSetSpectralClustering
from rskpca.core.threads import native_threads_off


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--m", type=int, nargs="+", default=[500, 1000, 2000, 4000])
    parser.add_argument("--d", type=int, nargs="+", default=[16, 256])
    args = parser.parse_args(argv)
    rng = np.random.default_rng(0)
    print("d,m,method,seconds,seconds_per_m2")
    for d in args.d:
        for m in args.m:
            C, w = rng.normal(size=(m, d)), rng.integers(1, 5, m).astype(float)
            sigma = float(np.sqrt(2 * d))
            for name, est in (("diffusion", ReducedSetDiffusionMap(5, sigma=sigma, random_state=0)),
                              ("clustering", ReducedSetSpectralClustering(10, sigma=sigma, affinity="gaussian",
                                                                          max_centers=None, lloyd_steps=0,
                                                                          random_state=0))):
                best = np.inf
                for _ in range(2):
                    start = time.perf_counter()
                    with native_threads_off():
                        est.fit_reduced_set(C, w, sigma=sigma)
                    best = min(best, time.perf_counter() - start)
                print(f"{d},{m},{name},{best:.3f},{best / m ** 2:.2e}", flush=True)


if __name__ == "__main__":
    main()
