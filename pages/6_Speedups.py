"""Speedups: RSKPCA on all n rows against exact KPCA measured at growing n and predicted at the full n;
every method compared at this ell on the comparison rows; the fraction of data retained, over ell."""

import math

import pandas as pd
import streamlit as st

from rskpca import plotting as plots
from rskpca.evaluation.compare import Outcome, compare
from rskpca.evaluation.methods import METHODS, SHADOW_METHOD
from rskpca.evaluation.scaling import PREDICTED, ScalingBudget
from rskpca.evaluation.units import bytes_text, seconds_text
from rskpca.ui import (choose_methods, comparison_note, compute, fragment, reduction_note, show_errors, show_figure,
                       show_table, start_page, stop_unless_rank_fits, without_slow_methods)
from rskpca.ui.compute.exact_on_request import exact_all_rows_cost
from rskpca.ui.compute.scaling import scaling
from rskpca.ui.keys import SPEED_BUDGET_MB, SPEED_BUDGET_SECONDS
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
    full = at_scale.full
    rs_full = at_scale.rskpca_full
    exact_word = "predicted" if full["exact_kpca"] == PREDICTED else "measured"
    c = st.columns(4)
    if rs_full is not None:
        c[0].metric("RSKPCA fit, all rows", seconds_text(rs_full.fit_s),
                    help=f"m = {rs_full.matrix_points:,} shadow centers of all {ds.n:,} rows; its m x m matrix takes "
                         f"{bytes_text(full['rskpca_matrix_MB'] * 1e6)}. Measured.")
    c[1].metric(f"Exact KPCA fit, {exact_word}", seconds_text(full["exact_fit_s"]),
                help=(f"Exact KPCA on all {ds.n:,} rows, predicted: the one prediction the Embeddings page quotes "
                      "too (Lanczos products with the n x n kernel matrix, each timed from one kernel block of this "
                      "data)." if exact_word == "predicted" else f"Measured on all {ds.n:,} rows."))
    c[2].metric("Exact KPCA's n x n matrix", bytes_text(full["exact_matrix_MB"] * 1e6),
                help=f"8 n^2 bytes at n = {ds.n:,}: what exact KPCA must hold to fit on all rows"
                     + (" (predicted)." if exact_word == "predicted" else "."))
    if not math.isnan(full["fit_speedup"]):
        c[3].metric(f"Fit speedup, {exact_word}", f"{full['fit_speedup']:.3g}x",
                    help=f"Exact KPCA's fit time at n = {ds.n:,} ({exact_word}) over ShDE + RSKPCA's, measured on "
                         "all rows.")
    measured = at_scale.exact.measured_n
    law, plaw = at_scale.fit_law, at_scale.project_law
    words = [f"Exact KPCA measured on seeded nested samples of {', '.join(f'{k:,}' for k in measured)} rows"
             + (" (the last is all rows)" if ds.n in measured else "")
             + f" within the budget ({budget.describe()})"
             + (f"; {at_scale.exact.stop_text()}" if at_scale.exact.stop_text() else "") + "."]
    if law is not None:
        words.append(f"Fit time: {law.describe()}, exponent b = {law.b:.2f}.")
    if plaw is not None:
        words.append(f"Projection time of {at_scale.eval_rows:,} new rows: {plaw.describe()}, exponent "
                     f"b = {plaw.b:.2f}.")
    if exact_word == "predicted" and law is None:
        words.append("Only one size fitted within the budget: no power law, so nothing is predicted at the full n "
                     "(raise the time budget).")
    st.caption(" ".join(words) + f" RSKPCA: measured at the same sizes and on all {ds.n:,} rows; the new rows "
               f"projected are a seeded {at_scale.eval_rows:,} of the data (in none of the smaller samples).")
    # One chart of two panels: the browser redraws one figure per change instead of two.
    show_figure(plots.side_by_side(
        plots.scaling_figure(at_scale.rows, stage="fit", law=(law.a, law.b) if law else None),
        plots.scaling_figure(at_scale.rows, stage="project", law=(plaw.a, plaw.b) if plaw else None,
                             eval_rows=at_scale.eval_rows)),
        key="speed_scale", filename="fit_and_projection_time_against_n")
    show_table(pd.DataFrame(at_scale.rows), key="speed_scale_table", filename="speedups_against_n")
    st.caption("exact_kpca says whether exact KPCA's numbers in a row were measured or predicted (power law for the "
               "times, 8 n^2 bytes for the matrix); RSKPCA's are measured in every row. Speedup = exact KPCA's time "
               "/ RSKPCA's at the same n.")
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


fastest = min(exact.solver_train_s, key=exact.solver_train_s.get)
c = st.columns(4)
c[0].metric("Exact KPCA training", seconds_text(exact.train_s),
            help=f"scikit-learn's KernelPCA, {fastest} solver, on {exact.n_train:,} rows")
c[1].metric("Exact KPCA test", seconds_text(exact.test_s), help=f"Projecting the {exact.n_train:,} compared rows as "
            "new points with the fitted exact KPCA (a kernel row against every training row per point)")
c[2].metric("Data retained m/n", f"{shadow.m / shadow.n:.1%}", help=f"m = {shadow.m:,} of the {shadow.n:,} rows compared")
if SHADOW_METHOD.name in by_name:
    speedup = by_name[SHADOW_METHOD.name]["train_speedup"]
    why = ("Two things make RSKPCA faster: it solves an m x m problem instead of n x n, and its solver is faster "
           "than scikit-learn's (float32 where that is provably accurate enough). When m is close to n only the "
           "second is left." if speedup >= 1 else
           "Below 1, RSKPCA took longer than exact KPCA here: on few rows exact KPCA's n x n problem is itself "
           "cheap, and the shadow scan and the set-up cost about as much; or this call was slowed by other work "
           "on the machine (Time again takes new times).")
    c[3].metric("RSKPCA training speedup", f"{speedup:.3g}x",  # as the bars write it
                help=f"Exact KPCA's training time over ShDE + RSKPCA's, on the same {exact.n_train:,} rows. {why}")
others = "; ".join(f"{name} {seconds_text(t)}" for name, t in sorted(exact.solver_train_s.items()) if name != fastest)
st.caption(f"Baseline: exact KPCA with scikit-learn's KernelPCA, {fastest} solver, trained in "
           f"{seconds_text(exact.train_s)}"
           + (f" (the faster one; {others})" if others else " (the randomized solver is timed on request, above)")
           + ".")
if now:
    # Columns that no chosen method fills (the fit-time parts, the Gram error) are left out.
    now_df = pd.DataFrame(now).drop(columns=["name", "group", "ell", "outcome", "error"]).dropna(axis=1, how="all")
    show_table(now_df, key="speed_now", filename="speedups_at_ell")
    show_figure(plots.side_by_side(*[
        plots.bar_figure(dict(zip(now_df["method"], now_df[column])), title=f"{what} speedup at this ell",
                         yaxis_title="exact / method", log_y=True, baseline=1.0)
        for column, what in (("train_speedup", "Training"), ("test_speedup", "Test"))]),
        key="speed_now_bars", filename="training_and_test_speedup")
    if SHADOW_METHOD.name in by_name:
        rs = by_name[SHADOW_METHOD.name]
        st.caption(f"A speedup can exceed n / m = {exact.n_train / rs['m']:.3g}: a method that projects through m "
                   "points does n / m times fewer kernel evaluations than exact KPCA, and RSKPCA's kernel "
                   "evaluations are also cheaper (fused blocks, in float32 where that is provably accurate enough) "
                   "than scikit-learn's float64 pairwise kernel. Below 1, a method took longer than exact KPCA: on "
                   f"n = {exact.n_train} rows the n x n problem is itself cheap. Calls of a few milliseconds vary by "
                   "tens of percent from run to run; Time again takes new times.")
    parted = [name for name in by_name if METHODS[name].reports_train_parts]  # the reduced-set construction
    if parted:
        rsc = by_name[parted[0]]
        st.subheader("Training cost of the reduced-set construction")
        st.markdown(
            f"The reduced-set construction first fits **exact KPCA** ({rsc['train_exact_kpca_s']:.3g} s here), "
            f"then **constructs** m = {rsc['m']} points that reproduce its eigenvectors "
            f"({rsc['train_construction_s']:.3g} s). Its training therefore always costs more than exact KPCA: "
            f"it speeds up **evaluation only** (a new point is projected through m = {rsc['m']} constructed points "
            f"instead of the n = {exact.n_train} training points; test speedup "
            f"{rsc['test_speedup']:.2g}x). RSKPCA and the Nystrom baselines never solve the n x n problem.")
        show_figure(plots.fit_time_figure(now, exact_seconds=exact.train_s,
                                          title="Training time at this ell (stacked: the parts of one fit)"),
                    key="speed_fit_parts", filename="training_time_parts")


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
