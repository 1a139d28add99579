"""The Embeddings page's words and notices, drawn: what each method was fitted and measured on, the waits
(RSKPCA's go-ahead, the embeddings computed after the page is drawn), the held-back baselines and the table's
captions (the comparison itself is :func:`rskpca.ui.compute.all_rows_fits.compare_on_all_rows`'s; the page
keeps the widgets, the cached calls and the charts)."""

from __future__ import annotations

import streamlit as st

from rskpca import plotting as plots
from rskpca.evaluation.costs import ALL_ROWS_LIVE_S, ALL_ROWS_MAX_BYTES
from rskpca.evaluation.methods import METHODS, SHADOW_METHOD
from rskpca.evaluation.units import bytes_text
from rskpca.ui.compute.all_rows_fits import ALL_ROWS_ASK_S, all_rows_cost, embedding_cost_message
from rskpca.ui.compute.exact_on_request import exact_all_rows_cost
from rskpca.ui.compute.exact_plan import exact_rows_note

__all__ = ["fitted_on_caption", "go_ahead", "drawn_first_note", "held_back", "panel_notes", "table_captions"]


def _sample_words(everywhere: bool, k_rows: int) -> str:
    return f"{'a seeded sample of' if everywhere else 'exact KPCA' + chr(39) + 's'} {k_rows:,} rows"


def fitted_on_caption(ds, shadow, plan, comparison, *, sigma: float, kernel: str, r: int) -> None:
    """m, and the rows every method was fitted on and compared on."""
    exact, everywhere, k_rows = comparison.exact, comparison.plan.all_rows, plan.rows.size
    fitted_on = (f"on all {ds.n:,} rows, every row embedded" if plan.all_rows else
                 f"on all {ds.n:,} rows, every row embedded; exact KPCA on all {ds.n:,} rows, matrix-free (Lanczos "
                 f"on kernel blocks, run on request: {exact.train_s:.3g} s). Alignment errors and spectra compare on "
                 f"all {ds.n:,} rows" if everywhere else
                 f"on all {ds.n:,} rows, every row embedded; "
                 f"{exact_rows_note(plan, exact_all_rows_cost(ds, sigma, kernel, r).seconds)}. Alignment "
                 f"errors and spectra compare on those {k_rows:,} rows")
    st.caption(f"m = {plots.shadow_centers_text(shadow.m)} of all {ds.n:,} rows ({shadow.m / ds.n:.1%}), as in the "
               f"sidebar. RSKPCA and the O(nm) baselines are fitted {fitted_on}."
               + (f" Fitted on {_sample_words(everywhere, k_rows)} (they need its n x n kernel)"
                  f"{', their errors against exact KPCA on those rows' if everywhere else ''}"
                  f": {', '.join(comparison.on_exact_rows)}." if comparison.on_exact_rows else ""))


def go_ahead(ds, shadow, comparison, names, *, embed_all: bool) -> None:
    """RSKPCA on every row predicted above :data:`ALL_ROWS_ASK_S`: the wait said, and the toggle that ends it."""
    cost = all_rows_cost(SHADOW_METHOD.name, ds.n, shadow.m)
    asked = embed_all and SHADOW_METHOD.name in names and cost.seconds > ALL_ROWS_ASK_S
    if comparison.awaiting is None and not asked:
        return
    if comparison.awaiting is not None:
        st.info("RSKPCA on all rows is waiting for your go-ahead: "
                f"{embedding_cost_message(ds.n, shadow.m, cost.seconds)} Until then it is not drawn (no sample "
                "stands in for it); everything else below is.", icon=":material/timer:")
    st.toggle(f"Embed every row with RSKPCA even above {ALL_ROWS_ASK_S:g} s (a progress bar shows it; changing a "
              "setting stops it)", key="embed_all_rows")


def drawn_first_note(comparison) -> None:
    """What is drawn while every row's own projection is computed after the page."""
    if not comparison.later:
        return
    pending = [METHODS[name].label for name in comparison.later]
    st.info(("Drawn first: " + ", ".join(comparison.quantized) + " with each row at its center's coordinates "
             "(the exact embedding of the data quantized to the m centers). " if comparison.quantized else "")
            + "Every row's own projection (" + ", ".join(pending) + ") is being computed; the charts update "
            "when it is done (progress below).", icon=":material/hourglass_top:")


def held_back(ds, shadow, comparison, *, run_anyway: bool) -> None:
    """The baselines not run at this n x m, why, and the toggle that runs the slow ones anyway."""
    if not (comparison.held_back or run_anyway):
        return
    slow = [c for c in comparison.held_back if c.bytes <= ALL_ROWS_MAX_BYTES]
    big = [c for c in comparison.held_back if c.bytes > ALL_ROWS_MAX_BYTES]
    what = ", ".join(f"{METHODS[c.name].label} (about {c.seconds:.2g} s)" for c in slow)
    if slow or run_anyway:
        st.toggle("Fit the slow baselines on all rows too" + (f": {what}" if what else ""), key="emb_run_heavy")
    if comparison.held_back:
        reasons = (f"predicted above {ALL_ROWS_LIVE_S:g} s per change: {what}" if slow else "",
                   "would hold more than " + bytes_text(ALL_ROWS_MAX_BYTES) + ": " + ", ".join(
                       f"{METHODS[c.name].label} ({bytes_text(c.bytes)})" for c in big) if big else "")
        st.caption(f"Not run at this n x m ({ds.n:,} x {shadow.m:,}): " + "; ".join(p for p in reasons if p)
                   + ". RSKPCA needs only its m centers.")


def panel_notes(ds, plan, comparison) -> dict:
    """``{label: note}``: the rows a panel shows, where they are not every row's own projection."""
    exact, everywhere, k_rows = comparison.exact, comparison.plan.all_rows, plan.rows.size
    notes = ({} if plan.all_rows else {exact.label: f"all {ds.n:,} rows, matrix-free"} if everywhere else
             {exact.label: f"seeded sample of {k_rows:,} rows"})
    notes.update({label: _sample_words(everywhere, k_rows) for label in comparison.on_exact_rows})
    notes.update({label: "each row at its center, own projections follow" for label in comparison.quantized})
    return notes


def table_captions(table, comparison) -> None:
    """What the table's columns count, and why two of its methods agree."""
    everywhere = comparison.plan.all_rows
    st.caption(f"n_train: the rows each method was fitted on; n_test: the rows its alignment error and spectrum "
               f"are measured on ({'all rows' if everywhere else 'exact KPCA' + chr(39) + 's seeded sample'}"
               f"{'; the methods fitted on the sample, its rows' if everywhere and comparison.on_exact_rows else ''}).")
    if {m.label for m in METHODS.values() if m.same_rows_as_subsampled} <= set(table["method"]):
        st.caption("Nystrom and Subsampled KPCA agree by construction: they draw the same m rows (one seed), and "
                   "Nystrom's embedding of its training rows, its extension U~ diag(lambda^1/2) (Williams & Seeger "
                   "2001), is Subsampled KPCA's projection of those rows through them.")
    if table["gram_spectral_error"].notna().any():
        st.caption("gram_spectral_error = ||K^ - K||_2, the spectral-norm error of the sparsified or quantized "
                   "Gram matrix K^ on the training rows (gram_relative_error divides it by ||K||_2), measured by "
                   "Lanczos on kernel blocks. Achlioptas et al. bound the eigen-subspace error through it; "
                   "alignment_error is that subspace error as measured.")
