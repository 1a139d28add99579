"""Speedups: RSKPCA on all n rows against exact KPCA measured at growing n and predicted at the full n;
every method compared at this ell on the comparison rows; the fraction of data retained, over ell."""

import pandas as pd
import streamlit as st

from rskpca.ui.first_visit import load_libraries

load_libraries()  # a server's first visit: a spinner while the libraries load, not an empty page

from rskpca import plotting as plots
from rskpca.evaluation.compare import Outcome, compare
from rskpca.evaluation.scaling import ScalingBudget
from rskpca.ui import (choose_methods, comparison_note, compute, fragment, reduction_note, show_errors, show_figure,
                       show_table, start_page, stop_unless_rank_fits, without_slow_methods)
from rskpca.ui.compute.exact_on_request import exact_all_rows_cost
from rskpca.ui.compute.scaling import scaling
from rskpca.ui.keys import SPEED_BUDGET_MB, SPEED_BUDGET_SECONDS
from rskpca.ui.speedups import show_at_ell, show_at_scale
from rskpca.ui.state import next_timing_round, setting, timing_round

settings = start_page("Speedups")
ds, sigma, ell, kernel, r = settings.dataset, settings.sigma, settings.ell, settings.kernel, settings.r


st.subheader(f"At the size of the data in use: n = {ds.n:,} rows")
st.caption("ShDE + RSKPCA is timed on all n rows (the shadow's selection included). Exact KPCA needs an n x n "
           "matrix, so it is timed on seeded nested samples of growing size (500, 1,000, 2,000, ... rows: each "
           "contains the smaller ones) until the next size would break the budget below; a power law t = a n^b, "
           "fitted by least squares on log t against log n, describes how its time grows. Its fit time at the full n "
           "is the one prediction every page quotes (Lanczos products with the n x n kernel matrix, each timed from "
           "one kernel block of this data), and its memory there is the n x n float64 matrix's, 8 n^2 bytes. "
           "Projection: the same seeded rows, projected as new points by every fit. Every fit on one BLAS and "
           "OpenMP thread, timed once per change; Time again (below) takes the best of three. Exact KPCA's times "
           "are cached per data, sigma and rank r (they do not depend on ell), RSKPCA's per ell too.")
budget_cols = st.columns([2, 2, 1], vertical_alignment="bottom")
budget_s = budget_cols[0].select_slider(
    "Exact KPCA: the most seconds one fit may take", SPEED_BUDGET_SECONDS, key="speed_budget_s",
    help="A size is timed only if its fit is predicted (from the sizes timed before it, growing at least as n^2) "
         "to take at most this. Larger: more sizes measured, a better power law, a longer first view.")
budget_mb = budget_cols[1].select_slider(
    "Exact KPCA: the most memory its n x n matrix may take (MB)", SPEED_BUDGET_MB, key="speed_budget_mb",
    help="8 n^2 bytes: 512 MB is n = 8,000; 8,192 MB is n = 32,000.")
budget_cols[2].button(
    "Time again", key="speed_retime", icon=":material/timer:", on_click=next_timing_round,
    help="Times taken while the page loads share this server's cores with your browser's drawing (and other "
         "sessions), and stay cached: this times every size here, exact KPCA and every method at this ell again.")
budget = ScalingBudget(max_fit_s=float(budget_s), max_matrix_bytes=int(budget_mb) * 1_000_000)
all_rows_m = compute.shadow(ds.digest, ds.X, sigma, ell, kernel).m  # the sidebar's m
# r above m or n - 1 fails every fit of the ladder the same way: the section below says it once.
at_scale = (scaling(ds.digest, ds.X, sigma=sigma, ell=ell, kernel=kernel, r=r, budget=budget,
                    timing_round=timing_round(), exact_full_s=lambda: exact_all_rows_cost(ds, sigma, kernel, r).seconds)
            if r <= min(all_rows_m, ds.n - 1) else None)
if at_scale is None:
    st.info(f"Not timed at this size: rank r = {r} needs at least r shadow centers and r + 1 rows (here "
            f"m = {all_rows_m:,} of {ds.n:,} rows); the message below says what to change.")
elif at_scale.failures:
    show_errors(list(at_scale.failures))
if at_scale is not None and at_scale.rows:
    show_at_scale(ds, at_scale, budget)
elif at_scale is not None:
    st.info(f"Exact KPCA cannot be timed here: rank r = {r} needs more rows than the data has.")

st.subheader("Every method at this ell")
chosen = choose_methods("speed_groups")
rows_idx, Xc, dig = compute.comparison_set(ds)
stop_unless_rank_fits(r, rows_idx.size)
st.caption(f"Every method is trained on the same {rows_idx.size:,} rows"
           + ("" if rows_idx.size == ds.n else f" (a seeded sample of the {ds.n:,}: exact KPCA's n x n problem is "
              "timed on it, so every method is too; the section above is on all rows)")
           + "; test time = projecting those rows as new "
           "points. Speedup = exact time / method time. Timings are wall-clock on this server and vary from run to "
           "run: one call per change, all on one BLAS and OpenMP thread, which a busy core slows less; Time again "
           "takes the best of up to three (exact KPCA's of two). They are cached per ell.")
shadow = compute.shadow(dig, Xc, sigma, ell, kernel)
comparison_note(shadow.m, rows_idx.size, ds.n)
reduction_note(shadow.m, shadow.n, ds.d)
methods = without_slow_methods(chosen, shadow.m)

all_solvers = st.toggle(
    "Also time exact KPCA with scikit-learn's randomized solver", key="time_randomized",
    help="The baseline is exact KPCA with scikit-learn's arpack solver: on every data set and rank measured at the "
         "app's sizes (the bundled samples and 2,000 rows of pendigits, r = 2 to 20) it was 1.1x to 17x faster "
         "than the randomized solver (python tests/benchmarks/bench_speed.py). Switched on, both are timed here "
         "and the faster one is the baseline; on a busy machine a single timing can reverse a small difference.")
round_ = timing_round()
exact = compute.exact_kpca(dig, Xc, sigma, kernel, r, all_solvers=all_solvers, timing_round=round_)
# The Gram error is measured when asked for on the Embeddings page (a shared setting: same cache entries).
fitted, failures = compute.fit_methods(dig, Xc, methods, sigma=sigma, kernel=kernel, r=r, ell=ell, m=shadow.m,
                                       gram_error=setting("gram_error"), timing_round=round_)
show_errors(failures)
now = [compare(res, exact) for res in fitted]
by_name = {row["name"]: row for row in now}


show_at_ell(exact, now, by_name, shadow)


# A fragment: the curve options rerun this section only, not the fits at the current ell above.
@fragment
def speedups_over_ell() -> None:
    st.subheader("Over ell")
    if not st.toggle("Compute the curves over ell (every method at every ell; cached per ell)", key="speed_curves"):
        return
    ells = compute.ell_curve(st.select_slider("Points on the ell curves", [5, 10, 19], key="sweep_points"))
    # The charts' place is made before the sweep runs: charts placed after its progress bar were
    # mounted while the fragment ran and stayed blank (seen on Bounds' curves, the same pattern).
    charts_area = st.container()
    rows = compute.sweep_rows(dig, Xc, exact, sigma, kernel, r, ells, chosen,
                              compute.slow_methods_cap(setting("run_slow")))
    # Said apart: a method skipped as slow at a large m, and one that could not run (r > m at small ell).
    for outcome, why in [(Outcome.SKIPPED, "was skipped as slow at that m (the 'Also run ...' switch above lifts it)"),
                         (Outcome.FAILED, "could not run (r > m at small ell; the table below says why)")]:
        failed = sorted({f"{row['method']} at ell = {row['ell']:g}" for row in rows if row["outcome"] == outcome})
        if failed:
            st.caption(f"No value where a method {why}: " + "; ".join(failed[:6]) + (" ..." if len(failed) > 6 else ""))
    # (chart: column, title, y axis, key, log scale: the speedups span decades)
    for col, title, axis, key, log_y in [("train_speedup", "Training speedup", "exact / method", "speed_train", True),
                                         ("test_speedup", "Test speedup", "exact / method", "speed_test", True),
                                         ("retained", "Fraction of data retained (m/n)", "m / n", "speed_retained",
                                          False),
                                         ("alignment_error", "Relative alignment error", "||O - O~A||_F / ||O||_F",
                                          "speed_error", False)]:
        with charts_area:
            show_figure(plots.lines_over_ell(rows, y=col, title=title, yaxis_title=axis, log_y=log_y,
                                             current_ell=ell),
                        key=key, filename=f"{col}_over_ell")
    show_table(pd.DataFrame(rows), key="speed_sweep_table", filename="speedups_over_ell")


speedups_over_ell()
