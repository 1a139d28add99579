"""Bounds: Theorems 5.1-5.4 at the current ell (a-priori, a-posteriori, measured) and over ell."""

import pandas as pd
import streamlit as st

from rskpca.ui.first_visit import load_libraries

load_libraries()  # a server's first visit: a spinner while the libraries load, not an empty page

from rskpca import plotting as plots
from rskpca.bounds import apriori_ell_grid, apriori_rows, measured_over_ell_rows
from rskpca.ui.keys import BOUNDS_ROWS, ELL_RANGE
from rskpca.ui import compute, fragment, reduction_note, show_figure, show_table, start_page

settings = start_page("Error bounds (Section 5)")
ds, sigma, ell, kernel, r = settings.dataset, settings.sigma, settings.ell, settings.kernel, settings.r
st.markdown("Each bound has three numbers: the **a-priori** value from ell alone, an **a-posteriori** value "
            "from the actual distances of the points to their centers, and the **measured** quantity. "
            "Theorem 5.4 (eigenspace projections, D = r) holds only when its gap condition does.")
max_exact = int(st.select_slider("Measured values: exact KPCA on at most this many rows (O(s^3) for the spectra; "
                                 "KDE vs ShDE measures its MMD on the same rows)", list(BOUNDS_ROWS),
                                 key="bounds_max_exact",
                                 help="The a-posteriori bounds of Theorems 5.1-5.3 need only each row's distance to "
                                      "its center, so they are computed on all n rows whatever this is."))
shadow = compute.shadow(ds.digest, ds.X, sigma, ell, kernel)
reduction_note(shadow.m, shadow.n, ds.d)

rows = compute.bounds_rows(ds.digest, ds.X, sigma, kernel, ell, r, max_exact)
measured_on = rows[0]["n_measured"]
if measured_on < ds.n:
    st.caption(f"Rows: the a-posteriori bounds of Theorems 5.1-5.3 on all n = {ds.n:,} rows; the measured values, "
               f"and Theorem 5.4's a-posteriori bound (it needs the eigengap of exact KPCA), against exact KPCA on a "
               f"seeded sample of {measured_on:,} rows. Each row of the table says which.")
else:
    st.caption(f"Rows: every number on all n = {ds.n:,} rows.")
show_figure(plots.bounds_figure(rows), key="bounds_now", filename="bounds_at_ell")
for row in rows:
    if not row["applies"]:
        st.caption(f"Theorem {row['theorem']}: {row['note']}")
# Which rows each number is on, and why a theorem does not apply, are said in full above; the CSV keeps both sentences.
show_table(pd.DataFrame(rows), key="bounds_table", filename="bounds_at_ell", csv_only=("rows", "note"))


# A fragment: the curve options rerun this section only, not the bounds at the current ell above.
@fragment
def bounds_over_ell() -> None:
    st.subheader("Over ell")
    curve_rows = apriori_rows(apriori_ell_grid(*ELL_RANGE), sigma, kernel)
    measuring = st.toggle("Add the a-posteriori and measured values over ell (cached per ell; a few seconds per "
                          "point)", key="bounds_measured_curves")
    points = st.select_slider("Points on the ell curves", [5, 10, 19], key="sweep_points") if measuring else None
    # The chart's place is made before the curves are computed: placed after the progress bar, it would be
    # mounted while the fragment runs and stay blank.
    chart_area = st.container()
    if measuring:
        sweep_max = measured_over_ell_rows(max_exact)
        measured = compute.bounds_sweep(ds.digest, ds.X, sigma, kernel, r, compute.ell_curve(points), sweep_max)
        st.caption(f"Measured on a seeded sample of at most {sweep_max:,} rows per ell; the a-posteriori values of "
                   f"Theorems 5.1-5.3 on all n = {ds.n:,} rows.")
        # Measured rows first, so that a user who switches this on sees measured values on the table's first
        # screen, not only the a-priori rows' n/a.
        curve_rows = [{**row, "a_priori": None} for row in measured] + list(curve_rows)
    with chart_area:
        show_figure(plots.bounds_curves_figure(curve_rows, current_ell=ell), key="bounds_curves",
                    filename="bounds_over_ell")
    show_table(pd.DataFrame(curve_rows), key="bounds_curves_table", filename="bounds_over_ell")


bounds_over_ell()
