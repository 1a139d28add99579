"""The Speedups page's two timed sections, drawn: RSKPCA on all rows against exact KPCA at growing n, and
every method at this ell (the timings are :mod:`rskpca.ui.compute.scaling`'s and
:func:`rskpca.ui.compute.fits.fit_methods`'s; the page keeps the widgets and the cached calls)."""

from __future__ import annotations

import math

import pandas as pd
import streamlit as st

from rskpca import plotting as plots
from rskpca.evaluation.methods import METHODS, SHADOW_METHOD
from rskpca.evaluation.scaling import PREDICTED
from rskpca.evaluation.units import bytes_text, seconds_text
from rskpca.ui.widgets import show_figure, show_table

__all__ = ["show_at_scale", "show_at_ell"]


def show_at_scale(ds, at_scale, budget) -> None:
    """Metrics, the power laws in words, the time-against-n chart and its table, for ``at_scale`` (rows timed)."""
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
        words.append(f"Fit time: {law.describe()}, exponent b = {law.b:.2f} (scikit-learn's dense solver, which "
                     "holds the n x n matrix; the dashed line).")
    if plaw is not None:
        words.append(f"Projection time of {at_scale.eval_rows:,} new rows: {plaw.describe()}, exponent "
                     f"b = {plaw.b:.2f}.")
    if exact_word == "predicted" and law is None:
        words.append("Only one size fitted within the budget: no power law for the dense solver, and none for the "
                     "projection at the full n (raise the time budget).")
    if exact_word == "predicted":
        words.append(f"The star at n = {ds.n:,} is the one prediction the app quotes for exact KPCA on all rows: "
                     "the matrix-free run (Lanczos products with kernel blocks evaluated as needed, their cost "
                     "timed on this data), which needs no n x n matrix; it can lie far from the dashed line, which "
                     "extends the dense solver's sizes.")
    st.caption(" ".join(words) + f" RSKPCA: measured at the same sizes and on all {ds.n:,} rows; the new rows "
               f"projected are a seeded {at_scale.eval_rows:,} of the data (in none of the smaller samples).")
    # One chart of two panels (plotting.side_by_side): each chart is a redraw in the browser on every change.
    show_figure(plots.side_by_side(
        plots.scaling_figure(at_scale.rows, stage="fit", law=(law.a, law.b) if law else None,
                             predicted_by="matrix-free"),
        plots.scaling_figure(at_scale.rows, stage="project", law=(plaw.a, plaw.b) if plaw else None,
                             eval_rows=at_scale.eval_rows)),
        key="speed_scale", filename="fit_and_projection_time_against_n")
    show_table(pd.DataFrame(at_scale.rows), key="speed_scale_table", filename="speedups_against_n")
    st.caption("exact_kpca says whether exact KPCA's numbers in a row were measured or predicted (the fit: the "
               "matrix-free prediction above; the projection: its power law; the matrix: 8 n^2 bytes); RSKPCA's are "
               "measured in every row. Speedup = exact KPCA's time "
               "/ RSKPCA's at the same n.")


def show_at_ell(exact, now: list, by_name: dict, shadow) -> None:
    """Exact KPCA's metrics, every method's speedups at this ell (table and bars) and the reduced-set
    construction's two parts, for ``now`` (:func:`~rskpca.evaluation.compare.compare` rows)."""
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
                       f"n = {exact.n_train:,} rows the n x n problem is itself cheap. Calls of a few milliseconds vary by "
                       "tens of percent from run to run; Time again takes new times.")
        parted = [name for name in by_name if METHODS[name].reports_train_parts]  # the reduced-set construction
        if parted:
            rsc = by_name[parted[0]]
            st.subheader("Training cost of the reduced-set construction")
            st.markdown(
                f"The reduced-set construction first fits **exact KPCA** ({rsc['train_exact_kpca_s']:.3g} s here), "
                f"then **constructs** m = {rsc['m']:,} points that reproduce its eigenvectors "
                f"({rsc['train_construction_s']:.3g} s). Its training therefore always costs more than exact KPCA: "
                f"it speeds up **evaluation only** (a new point is projected through m = {rsc['m']:,} constructed points "
                f"instead of the n = {exact.n_train} training points; test speedup "
                f"{rsc['test_speedup']:.2g}x). RSKPCA and the Nystrom baselines never solve the n x n problem.")
            show_figure(plots.fit_time_figure(now, exact_seconds=exact.train_s,
                                              title="Training time at this ell (stacked: the parts of one fit)"),
                        key="speed_fit_parts", filename="training_time_parts")
