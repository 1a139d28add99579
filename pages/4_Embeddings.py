"""Embeddings: RSKPCA and the baselines on all n rows beside exact KPCA (on all n where it fits, else a
stated seeded sample, or on all n matrix-free when the reader asks), aligned to exact KPCA; spectra; errors."""

import pandas as pd
import streamlit as st

from rskpca.ui.first_visit import load_libraries

load_libraries()  # a server's first visit: a spinner while the libraries load, not an empty page

from rskpca import plotting as plots
from rskpca.evaluation.compare import compare
from rskpca.evaluation.result_columns import timing_columns
from rskpca.evaluation.methods import perturbs_gram
from rskpca.ui import (choose_methods, compute, fragment, plain, reduction_note, selection, show_error, show_errors,
                       show_figure, show_table, start_page, stop_unless_rank_fits, warn_if_kernel_is_identity,
                       without_slow_methods)
from rskpca.ui import embeddings, exact_all_rows
from rskpca.ui.compute.all_rows_fits import compare_on_all_rows, finish_on_all_rows
from rskpca.ui.compute.exact_plan import exact_rows
from rskpca.ui.ell_scrubber import show_scrubber
from rskpca.ui.state import setting
from rskpca.ui.widgets import centers_toggle, colour_choice

settings = start_page("Embeddings")
ds, sigma, ell, kernel, r = settings.dataset, settings.sigma, settings.ell, settings.kernel, settings.r

chosen = choose_methods("emb_groups")

plan, X_rows, rows_key = exact_rows(ds)
stop_unless_rank_fits(r, plan.rows.size)
shadow = compute.shadow(ds.digest, ds.X, sigma, ell, kernel)  # on all n rows, as the sidebar's m
reduction_note(shadow.m, shadow.n, ds.d)
if r < 2:
    show_error("The embedding plot needs at least 2 components: raise the rank r in the sidebar.")
    st.stop()

names = without_slow_methods(chosen, shadow.m)
measure_gram = any(perturbs_gram(name) for name in names) and st.toggle(
    "Measure ||K^ - K||_2 of the sampled Gram matrices (Lanczos on kernel blocks: several seconds per method "
    "on a few thousand rows, so on demand)", key="gram_error")
run_anyway = setting("emb_run_heavy")
# RSKPCA on every row, predicted above ALL_ROWS_ASK_S, waits for this (then runs with a progress bar).
embed_all = setting("embed_all_rows")
# Exact KPCA on all n rows, matrix-free, where the reader ran it (exact_on_request): the page's exact KPCA.
matrix_free = None if plan.all_rows else exact_all_rows.stored(ds, sigma, kernel, r)
# One solver, and ranks shared (fitted at compute.computed_rank, cut to r): the page shows no times,
# they are the Speedups page's.
# Draw what is ready first: an embedding of every row predicted above a second is computed after the page
# is drawn, RSKPCA's drawn meanwhile with each row at its center's coordinates.
comparison = compare_on_all_rows(ds, names, sigma=sigma, kernel=kernel, r=r, ell=ell, m=shadow.m,
                                run_anyway=run_anyway, gram_error=measure_gram, exact=matrix_free,
                                embed_all_rows=embed_all, first=True)
# Exact KPCA fitted on its planned rows: the scrubber's reference and the matrix-free run's template.
sample_exact = (comparison.exact if matrix_free is None else
                compute.exact_embedding(rows_key, X_rows, sigma, kernel, r))
exact, everywhere, reference = comparison.exact, comparison.plan.all_rows, comparison.reference
lam = exact.normalized_eigenvalues
warn_if_kernel_is_identity(ds, sigma, kernel, rows=(rows_key, X_rows),
                           consequence=f"every direction is an eigenvector (exact KPCA's top {r} eigenvalues: "
                                       f"{lam[0]:.4g} to {lam[-1]:.4g}), so the components and alignment errors "
                                       "below are arbitrary")
k_rows = plan.rows.size
embeddings.fitted_on_caption(ds, shadow, plan, comparison, sigma=sigma, kernel=kernel, r=r)
embeddings.go_ahead(ds, shadow, comparison, names, embed_all=embed_all)
later_slot = st.container()  # the progress of the embeddings computed after the page is drawn
with later_slot:
    embeddings.drawn_first_note(comparison)
request = exact_all_rows.offer(ds, plan, sigma=sigma, kernel=kernel, r=r, done=matrix_free)
with st.container():  # drawn either way (positions stay put)
    embeddings.held_back(ds, shadow, comparison, run_anyway=run_anyway)
show_errors(comparison.failures)
results = [exact, *comparison.results]

table = pd.DataFrame([compare(res, exact, reference=reference(res)) for res in comparison.results])
# Times and speedups are left to the Speedups page (exact KPCA timed with every solver); here it is
# fitted with one, for its embedding.
table = table.drop(columns=timing_columns(table.columns))
errors = {} if table.empty else dict(zip(table["method"], table["alignment_error"]))
emb = {res.label: comparison.coords[res.label] for res in results}
panel_rows = {label: plan.rows for label in ([] if everywhere else [exact.label]) + comparison.on_exact_rows}
notes = embeddings.panel_notes(ds, plan, comparison)


# A fragment: switching 2-D/3-D redraws this chart only, without rerunning the page (and its fits).
@fragment
def embedding_view(emb: dict, errors: dict) -> None:
    view, colour_slot, centers_slot = st.columns([1, 2, 1], vertical_alignment="bottom")
    with view:
        dims = 3 if st.segmented_control("View", ["2-D", "3-D"], key="emb_dims") == "3-D" else 2
    with colour_slot:
        colour = colour_choice(ds)
    with centers_slot:
        show_centers = centers_toggle()
    if dims == 3 and r < 3:
        st.warning("3-D needs r >= 3; showing 2-D.")
        dims = 2
    if dims == 3:
        drawn, left_out = plots.views_in_3d(list(emb), errors)
        if left_out:
            st.caption(f"3-D draws four views (one WebGL view each; browsers allow only a few): exact KPCA, "
                       f"ShDE + RSKPCA and the two others with the lowest alignment error (err). Left out: "
                       f"{', '.join(left_out)}; the 2-D view shows every method.")
        emb = {k: emb[k] for k in drawn}
    fig = plots.embedding_figure(emb, y=colour.values, label_name=colour.name, continuous=colour.continuous,
                                 hover_data=colour.hover, row_ids=ds.row_ids, dims=dims, errors=errors,
                                 selected_rows=selection.rows(), rows=panel_rows,
                                 centers=(shadow.center_indices, shadow.weights) if show_centers else None,
                                 panel_notes=notes, max_points=plots.POINT_BUDGET)
    st.caption("Each approximation is drawn after the least-squares map onto exact KPCA "
               "(argmin_A ||O - O~ A||_F, Section 6, fitted on exact KPCA's rows and applied to every row), so "
               "signs and rotations do not flicker as ell moves."
               + (" In 3-D the axes c1, c2, c3 are components 1-3, on one scale in every view." if dims == 3 else "")
               + (" Where points would hide one another (and always above the point budget) a panel draws the "
                  "density of its rows in the column's colours (the title says so): a box or lasso selects every "
                  "row inside it." if fig.layout.title.text else ""))
    selection.show_selectable(fig, key="emb_scatter", filename="embeddings",
                              panels=plots.embedding_panels(emb, ds.row_ids, panel_rows) if dims == 2 else None)


embedding_view(emb, errors)
selection.selected_table(ds)

# The scrubber keeps its place here but is computed last: its RSKPCA fits at ten ells (per sigma and
# rank) are the page's largest cost, and the spectra and the table below are drawn before they run.
scrubber_slot = st.container()

spectra = plots.spectra_figure({res.label: res.normalized_eigenvalues for res in results})
# With the errors: one chart of two panels (plotting.side_by_side), one figure for the browser to redraw.
show_figure(plots.side_by_side(spectra, plots.bar_figure(errors, title="Relative alignment error (0 = same subspace)",
                                                         yaxis_title="||O - O~A||_F / ||O||_F"))
            if errors else spectra, key="emb_spectra", filename="eigenvalue_spectra_and_alignment_errors")
if not table.empty:
    # The Gram-sampling methods perturb K itself: its spectral-norm error sits beside the subspace error.
    # Columns no chosen method fills (those, and the fit-time parts) are left out.
    order = ["method", "m", "n_train", "n_test", "alignment_error", "gram_spectral_error", "gram_relative_error"]
    table = table[order + [c for c in table.columns if c not in order]]
    show_table(table.drop(columns=["outcome", "error", "name"]).dropna(axis=1, how="all"), key="emb_table",
               filename="embedding_comparison")
    embeddings.table_captions(table, comparison)

with scrubber_slot:
    st.subheader("Scrub ell: RSKPCA against exact KPCA at every ell")
    # (its ten frames are fitted once per sigma and rank, and coloured with them: by the label, not by the
    # chart's colour choice above, which redraws that chart alone)
    st.caption("One colour: there is no label column." if ds.label_name is None else
               f"Coloured by the label column ({plain(ds.label_name)}), whatever the colour choice above.")
    # the label's classes and colours of all n rows, as the chart above gives them: on exact KPCA's sample a class
    # absent from it, or past the 59 largest, would shift every colour after it
    y_rows = None if ds.y is None else compute.label_colouring(ds.digest, ds.y, str(ds.label_name)).subset(plan.rows)
    show_scrubber(compute.embedding_scrubber(rows_key, X_rows, sample_exact, sigma, kernel, r, y_rows),
                  key="emb_scrubber",
                  what="RSKPCA's embedding (aligned to exact KPCA)" if plan.all_rows else
                       f"RSKPCA's embedding of exact KPCA's seeded sample of {k_rows:,} rows (fitted on them, aligned "
                       "to exact KPCA)",
                  empty=f"No frame to draw: at sigma = {sigma:.4g} no ell of the grid ({compute.SCRUB_EMBED_ELLS[0]:g} "
                        f"to {compute.SCRUB_EMBED_ELLS[-1]:g}) gives RSKPCA at least r = {r} shadow centers on these "
                        "rows. Lower the rank r or sigma.")

if comparison.later:  # every row's own projection, then the page again to draw it
    with later_slot:
        later_failures = finish_on_all_rows(ds, comparison, sigma=sigma, kernel=kernel, r=r, ell=ell, m=shadow.m)
        show_errors(later_failures)
    if not later_failures:
        st.rerun()

# Last: the sampled view above stays in sight while exact KPCA runs on all rows, if the reader asked.
exact_all_rows.run_if_asked(request, ds, sample_exact)
