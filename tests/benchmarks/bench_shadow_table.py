"""The shadows of the app's ell grid: scanned each time, or read off one table of distances to earlier rows.

``python tests/benchmarks/bench_shadow_table.py --usps /work/shared/datasets/usps.csv.gz
--pendigits /work/shared/datasets/pendigits.csv``

For each data set (digits and two moons from scikit-learn; a seeded 5,000-row sample of usps
and the first 5,000 rows of pendigits, as the app caps an upload) and three sigmas (half, one and
two median pairwise distances, the median heuristic), the 19 shadows of :data:`~rskpca.ui.compute.SCRUB_ELLS`, what a
sigma change costs the app's ell scrubbers and curves:

* ``screen_s``: :func:`~rskpca.core.shadow.shadow_centers` at each ell;
* ``table_s``: :func:`~rskpca.core.shadow.shadow_centers_from_table` at each ell, falling back to
  the scan where it declines (``declined`` counts those); ``build_s``: the table, once per data set.

Every shadow is checked to be the scan's, to the bit. One run each (the work is not repeated: a
repeat would read a warm cache); the date, the machine's load and the command are printed.
"""

from __future__ import annotations

import argparse
import datetime
import sys
import time

import numpy as np

from rskpca.core.bandwidth_heuristic import median_heuristic
from rskpca.core.shadow import EarlierDistances, shadow_centers, shadow_centers_from_table
from rskpca.core.shadow import table_pays_off as pays_off
from rskpca.evaluation.timing import machine_load
from streamlit_logs import quiet_streamlit_logs

quiet_streamlit_logs()  # before rskpca.ui.compute: its caches warn that no server runs
from rskpca.ui.compute import SCRUB_ELLS  # noqa: E402

#: The app's ell grid: the shadows a sigma change on the app's scrubbers asks for.
ELLS = tuple(float(e) for e in SCRUB_ELLS)
ROWS = 5000


def data_sets(usps: str | None, pendigits: str | None) -> dict[str, np.ndarray]:
    """The data sets named in the module docstring (those whose file was given)."""
    import pandas as pd
    from sklearn.datasets import load_digits, make_moons

    out = {"digits": load_digits().data.astype(float),
           "two moons": make_moons(1000, noise=0.1, random_state=0)[0]}
    if usps:
        out["usps (5,000 rows)"] = pd.read_csv(usps).sample(n=ROWS, random_state=0).to_numpy(float)[:, 1:]
    if pendigits:
        out["pendigits (5,000 rows)"] = np.loadtxt(pendigits, delimiter=",", skiprows=1)[:ROWS, :-1]
    return out


def grid_rows(X: np.ndarray):
    """``(sigma factor, m range, screen_s, table_s, declined)`` per sigma, and ``build_s``."""
    t0 = time.perf_counter()
    table = EarlierDistances(X)
    build = time.perf_counter() - t0
    median = median_heuristic(X)  # the app's default sigma
    rows = []
    for factor in (0.5, 1.0, 2.0):
        sigma = factor * median
        screen = read = 0.0
        declined, ms = 0, []
        for ell in ELLS:
            t0 = time.perf_counter()
            scanned = shadow_centers(X, sigma=sigma, ell=ell)
            screen += time.perf_counter() - t0
            t0 = time.perf_counter()
            found = shadow_centers_from_table(table, sigma=sigma, ell=ell)
            if found is None:
                declined += 1
                found = shadow_centers(X, sigma=sigma, ell=ell)
            read += time.perf_counter() - t0
            if not (np.array_equal(found.center_indices, scanned.center_indices)
                    and np.array_equal(found.labels, scanned.labels)):
                raise AssertionError(f"the table's shadow differs from the scan's at sigma={sigma:g}, ell={ell:g}")
            ms.append(scanned.m)
        rows.append((factor, f"{min(ms)}..{max(ms)}", screen, read, declined))
    return rows, build


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--usps", default=None, help="path of usps.csv.gz")
    parser.add_argument("--pendigits", default=None, help="path of pendigits.csv")
    args = parser.parse_args(argv)
    print(f"# bench_shadow_table {datetime.datetime.now().isoformat(timespec='seconds')}")
    print(f"# command: python tests/benchmarks/bench_shadow_table.py {' '.join(argv or sys.argv[1:])}")
    print(f"# load before: {machine_load()}")
    print(f"\n{'data':<24} {'n':>5} {'d':>4} {'sigma/median':>12} {'m':>10} {'screen_s':>9} {'table_s':>8} "
          f"{'screen/table':>12} {'declined':>8} {'build_s':>8}  app uses the table")
    for name, X in data_sets(args.usps, args.pendigits).items():
        rows, build = grid_rows(X)
        for factor, ms, screen, read, declined in rows:
            print(f"{name:<24} {X.shape[0]:>5} {X.shape[1]:>4} {factor:12g} {ms:>10} {screen:9.3f} {read:8.3f} "
                  f"{screen / read:12.2f} {declined:>8} {build:8.3f}  {pays_off(*X.shape)}")
    print(f"\n# load after: {machine_load()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
