"""Shadow centers: the data coloured by shadow set, centers sized by weight, eps-discs, m over ell."""

import streamlit as st

from rskpca.ui.first_visit import load_libraries

load_libraries()  # a server's first visit: a spinner while the libraries load, not an empty page

from rskpca import plotting as plots
from rskpca.evaluation.shadow_tables import assignment_table, centers_table
from rskpca.ui import compute, download_csv, reduction_note, selection, show_figure, show_table, start_page
from rskpca.ui.heavy import grid_work_allowed
from rskpca.ui.ell_scrubber import show_scrubber
from rskpca.ui.widgets import centers_toggle, colour_choice

settings = start_page("Shadow centers")
ds, sigma, ell, kernel = settings.dataset, settings.sigma, settings.ell, settings.kernel
shadow = compute.shadow(ds.digest, ds.X, sigma, ell, kernel)

c = st.columns(4)
c[0].metric("centers m", f"{shadow.m:,}")
c[1].metric("m / n", f"{shadow.m / shadow.n:.1%}")
c[2].metric("eps = sigma / ell", f"{shadow.eps:.4g}")
c[3].metric("largest weight", int(shadow.weights.max()))
reduction_note(shadow.m, shadow.n, ds.d)

if ds.d <= 2:
    coords, projected = ds.X, False
    titles = [str(n) for n in ds.feature_names] + ([""] if ds.d == 1 else [])
else:
    coords, share = compute.principal_axes(ds.digest, ds.X)
    projected = True
    titles = [f"PC{i + 1} ({s:.0%} of variance)" for i, s in enumerate(share)]
    st.caption(f"The data have d = {ds.d} features: shown on their first two principal axes. "
               "Shadows are balls in the full space, so sets may overlap in this view; no eps-discs.")
left, right = st.columns([3, 1], vertical_alignment="bottom")
with left:
    colour = colour_choice(ds)
with right:
    show_centers = centers_toggle()
# Without a colour column the rows take their shadow set's colour.
fig = plots.shadow_figure(coords, shadow.labels, shadow.center_indices, shadow.weights, eps=shadow.eps,
                          projected=projected, axis_titles=titles, row_ids=ds.row_ids,
                          selected_rows=selection.rows(), y=colour.values, label_name=colour.name,
                          continuous=colour.continuous, hover_data=colour.hover, show_centers=show_centers)
dense = plots.draws_density(fig)  # the rows' density with the centers on top: above the point budget, or crowded
if dense:
    st.caption(f"Where points would hide one another (and always above {plots.POINT_BUDGET:,} rows) the chart draws "
               "the density of all the rows with the centers on top (its title says so): a box or lasso selects "
               "every row inside it.")
selection.show_selectable(fig, key="shadow_scatter", filename="shadow_centers",
                          panels=plots.data_panels(coords, ds.row_ids) if dense else None)
selection.selected_table(ds)
selection.centers_table(ds, shadow)

st.subheader("Scrub ell: watch the reduced set grow and shrink")
over_grid = grid_work_allowed(ds, sigma, kernel, ell, what="The scrubber and the curve of m over ell",
                              key="shadow_grid_go")
if over_grid:
    show_scrubber(compute.shadow_scrubber(ds.digest, ds.X, coords, sigma, kernel, titles, projected),
                  key="shadow_scrubber", what="the shadow centers (circle area grows with the weight)")

left, right = st.columns(2)
with left:
    show_figure(plots.weight_histogram(shadow.weights), key="shadow_weights", filename="shadow_weights")
if over_grid:
    with right:
        rows = compute.shadow_rows(ds.digest, ds.X, sigma, kernel, compute.ell_curve(19))
        show_figure(plots.lines_over_ell([{**r, "method": "shadow"} for r in rows], y="retained",
                                         title="Fraction of data kept (m/n) over ell", yaxis_title="m / n",
                                         current_ell=ell), key="shadow_m_curve", filename="shadow_m_over_ell")

with st.expander("Centers table"):
    show_table(centers_table(shadow, ds.row_ids), key="shadow_centers_table", filename="shadow_centers")

# Every row's shadow set: made on a click only (the distances read every row and center).
download_csv(lambda: assignment_table(shadow, ds.X, ds.row_ids), key="shadow_assignment",
             filename="shadow_assignment", label="Download every row's shadow set (CSV)")
