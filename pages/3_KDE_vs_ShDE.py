"""KDE vs ShDE: the two densities and their difference; the MMD against its bound (Theorem 5.1)."""

import numpy as np
import pandas as pd
import streamlit as st

from rskpca.ui.first_visit import load_libraries

load_libraries()  # a server's first visit: a spinner while the libraries load, not an empty page

from rskpca import plotting as plots
from rskpca.ui import (compute, download_csv, fragment, reduction_note, selection, show_figure, show_table,
                       start_page)
from rskpca.ui.heavy import grid_work_allowed
from rskpca.ui.ell_scrubber import show_scrubber
from rskpca.ui.state import row_choice, setting

settings = start_page("KDE vs ShDE")
ds, sigma, ell, kernel = settings.dataset, settings.sigma, settings.ell, settings.kernel
shadow = compute.shadow(ds.digest, ds.X, sigma, ell, kernel)
st.markdown("The KDE averages a kernel over all n points; the ShDE over the m centers, each weighted by "
            "its share of the points: p~(x) = sum_j (w_j / n) k(x, c_j).")
reduction_note(shadow.m, shadow.n, ds.d)

# Theorem 5.1 first: it summarises the whole picture in one number.
# Measured on the rows the Bounds page measures on (its setting, shared), so that Theorem 5.1's measured MMD
# is one number on both pages.
measured_rows = int(setting("bounds_max_exact"))
bound = compute.mmd(ds.digest, ds.X, sigma, kernel, ell, measured_rows)  # O(s^2); a stated subsample above it
c = st.columns(4)
c[0].metric("MMD measured", f"{bound['measured']:.4g}")
c[1].metric("bound (a-posteriori)", f"{bound['a_posteriori']:.4g}")
c[2].metric("bound (a-priori, Thm 5.1)", f"{bound['a_priori']:.4g}")
c[3].metric("centers m", f"{shadow.m:,}")
st.caption(f"MMD between the data and the centers in the kernel's feature space; measured on "
           f"{bound['n_measured']} rows (at most {measured_rows}, the Bounds page's setting, so that both pages "
           f"measure the same rows). {bound['note']}")


# A fragment: picking the two rows redraws the line only, not the whole page.
@fragment
def along_line(ds, sigma: float, kernel: str, ell: float) -> None:
    row_choice("kde_line_a", 0, ds.n)
    row_choice("kde_line_b", min(1, ds.n - 1), ds.n)
    lc = st.columns(2)
    row_a = int(lc[0].number_input("from row (position in the data)", 0, ds.n - 1, key="kde_line_a"))
    row_b = int(lc[1].number_input("to row", 0, ds.n - 1, key="kde_line_b"))
    a, b = ds.X[row_a], ds.X[row_b]
    if np.allclose(a, b):
        st.info("The two rows are the same point; pick two different rows to draw a line.")
    else:
        t = np.linspace(-0.25, 1.25, 151)
        L = a[None, :] + t[:, None] * (b - a)[None, :]
        key = f"line{row_a}-{row_b}"
        kl, sl = compute.densities_at(ds.digest, ds.X, sigma, kernel, ell, L, key)
        show_figure(plots.density_curve_figure(t, kl, sl, xaxis_title="t (0 = first row, 1 = second row)",
                                               title="KDE and ShDE along the line"),
                    key="kde_line", filename="kde_vs_shde_line")
        show_table(pd.DataFrame({"t": t, "kde": kl, "shde": sl}), key="kde_line_table", filename="kde_line")


st.subheader("Scrub ell: the ShDE against the KDE at every ell")
if grid_work_allowed(ds, sigma, kernel, ell, what="The scrubber", key="kde_grid_go"):
    show_scrubber(compute.density_scrubber(ds.digest, ds.X, sigma, kernel, [str(n) for n in ds.feature_names][:2]),
                  key="kde_scrubber", what="the ShDE's error against the KDE")

st.subheader(f"At ell = {ell:g}")
GRID = 80
if ds.d <= 2:
    axes, kde = compute.kde_grid(ds.digest, ds.X, sigma, kernel, GRID)
    shde = compute.shde_grid(ds.digest, ds.X, sigma, kernel, ell, GRID)
    names = [str(n) for n in ds.feature_names]
    spacing = min(float(a[1] - a[0]) for a in axes)
    # The kernel is the identity between neighbouring grid points: between the points both densities are 0.
    if compute.identity_kernel(ds.digest, ds.X, sigma, kernel, distance=spacing):
        st.info(f"sigma = {sigma:.3g} is far below the grid's spacing ({spacing:.3g}): the KDE and the ShDE are "
                "0 between the points at this resolution, so the maps below are blank. Raise sigma (the "
                "median heuristic is one click away in the sidebar).")
    st.metric("max |ShDE - KDE| on the grid", f"{np.max(np.abs(shde - kde)):.4g}")
    if ds.d == 2:
        fig = plots.density_grid_figure(axes[0], axes[1], kde, shde, points=ds.X[:2000],
                                        centers=shadow.centers, axis_titles=names)
    else:
        fig = plots.density_curve_figure(axes[0], kde, shde, xaxis_title=names[0])
    show_figure(fig, key="kde_grid", filename="kde_vs_shde_grid")
    if ds.d == 2:
        gx, gy = np.meshgrid(axes[0], axes[1])
        grid_table = pd.DataFrame({names[0]: gx.ravel(), names[1]: gy.ravel(), "kde": kde.ravel(),
                                   "shde": shde.ravel()})
    else:
        grid_table = pd.DataFrame({names[0]: axes[0], "kde": kde, "shde": shde})
    download_csv(grid_table, key="kde_grid_values", filename="kde_vs_shde_grid", label="Download the grid values (CSV)")
else:
    rows = compute.density_rows(ds.n)
    P = ds.X[rows]
    kde, shde = compute.densities_at(ds.digest, ds.X, sigma, kernel, ell, P, f"rows{rows.size}")
    st.metric("max |ShDE - KDE| at the data points", f"{np.max(np.abs(shde - kde)):.4g}")
    if rows.size < ds.n:
        st.caption(f"Densities compared at a seeded sample of {rows.size:,} of the {ds.n:,} rows.")
    left, right = st.columns(2)
    with left:
        selection.show_selectable(plots.density_points_figure(kde, shde, row_ids=ds.row_ids[rows],
                                                              selected_rows=selection.rows()),
                                  key="kde_points", filename="kde_vs_shde_points")
    with right:
        show_figure(plots.error_histogram(shde - kde), key="kde_errors", filename="kde_error_histogram")
    download_csv(pd.DataFrame({"row": ds.row_ids[rows], "kde": kde, "shde": shde}), key="kde_point_values",
                 filename="kde_vs_shde_points", label="Download the densities at the points (CSV)")
    selection.selected_table(ds)

    st.subheader("Along a line through two rows")
    along_line(ds, sigma, kernel, ell)
