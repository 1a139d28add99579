"""Spectral: diffusion maps, Laplacian eigenmaps and spectral clustering on the shadow, beside the exact method."""

import numpy as np
import streamlit as st

from rskpca.ui.first_visit import load_libraries

load_libraries()  # a server's first visit: a spinner while the libraries load, not an empty page

from rskpca import plotting as plots
from rskpca.plotting import shadow_centers_text
from rskpca.ui import (compute, download_csv, reduction_note, selection, setting, start_page,
                       warn_if_kernel_is_identity)
from rskpca.ui.compute import spectral as sp
from rskpca.ui.compute import spectral_tables as tables
from rskpca.ui.widgets import ColourChoice, colour_choice
from rskpca.ui import spectral_views as views
from rskpca.ui.spectral import default_clusters, embed_every_row, fit_for_page

settings = start_page("Spectral methods on the shadow")
ds = settings.dataset
st.markdown("Diffusion maps (Coifman & Lafon 2006), Laplacian eigenmaps (Belkin & Niyogi 2003) and spectral "
            "clustering solved on the m weighted shadow centers instead of all n rows (Section 3, eqs. 14-15): "
            "the operator P = D^-1 K_alpha W on the centers, its trivial eigenvector (eigenvalue 1) dropped, and "
            "every row of the data embedded through the m centers (the Nystrom extension). Beside it, where the "
            "data are small enough, the exact method: every row its own center.")

c1, c2, c3 = st.columns([2, 1, 1])
c1.radio("Method", list(sp.SPECTRAL_METHODS), key="sp_method", format_func=sp.SPECTRAL_METHODS.get, horizontal=True)
method = setting("sp_method")
if method == "diffusion":
    c2.slider("alpha (density normalisation)", 0.0, 1.0, step=0.05, key="sp_alpha",
              help="K_alpha = K / (q^alpha q^alpha'), q = K w: 0 is the graph Laplacian's random walk, 1 removes the "
                   "density (the Laplace-Beltrami operator of the data's manifold), 0.5 the Fokker-Planck one.")
    c3.number_input("t (diffusion time)", min_value=0.0, max_value=100.0, step=0.5, key="sp_t",
                    help="Coordinates lambda^t psi: a larger t shrinks the components with smaller eigenvalues.")
elif method == "clustering":
    default_clusters(ds)
    c2.number_input("clusters k", min_value=2, max_value=100, step=1, key="sp_clusters",
                    help="The label's number of classes until you change it (2 without a label). k-means on the "
                         "first k - 1 nontrivial eigenvectors (with the landmark affinity on every row's own "
                         "coordinates; else on the centers', each row taking its center's cluster).")
else:
    c2.caption("Laplacian eigenmaps: the random-walk eigenvectors (alpha = 0, t = 0). Its rank is the sidebar's r.")
default_affinity, default_budget = sp.library_defaults(method)
c4, c5 = st.columns(2)
c4.selectbox("Affinity", list(sp.AFFINITIES), key="sp_affinity",
             format_func=lambda a: f"default ({sp.AFFINITIES[default_affinity]})" if a == "auto" else sp.AFFINITIES[a],
             help="landmark: each row linked to its nearest centers by a local Gaussian, solved through the centers "
                  "(Cai & Chen 2015; Huang et al. 2020); locally scaled: each center's own bandwidth (Zelnik-Manor "
                  "& Perona 2004); Gaussian: one global sigma between the centers (the textbook method).")
c5.selectbox("Centers", list(sp.CENTER_BUDGETS), key="sp_budget",
             format_func=lambda b: ("default (" + (f"at most {default_budget:,}" if default_budget else "the sidebar's ell")
                                    + ")" if b == "auto" else "the sidebar's ell (the shadow it shows)" if b == "ell"
                                    else f"at most {b:,} (eps picked for it)"),
             help="A center budget: eps is picked so that the shadow keeps at most this many centers, so wide data "
                  "get a small m x m problem (the sidebar's ell then does not change the fit); or the shadow at the "
                  "sidebar's ell, as every other page shows it.")

request = sp.SpectralRequest.of(method, sigma=settings.sigma, ell=settings.ell, kernel=settings.kernel,
                                r=settings.r, k=setting("sp_clusters"), alpha=setting("sp_alpha"),
                                t=setting("sp_t"), affinity=setting("sp_affinity"), budget=setting("sp_budget"))
shadow = compute.shadow(ds.digest, ds.X, settings.sigma, settings.ell, settings.kernel)  # the sidebar's
notes = st.container()  # drawn either way, so that the charts below keep their place when a message comes and goes
request, shadow, reduced, later = fit_for_page(ds, request, shadow, notes)
clustering = request.n_clusters is not None

n = ds.n
m = reduced.m  # the sidebar's shadow's, or the center budget's
if request.max_centers is None:
    reduction_note(m, n, ds.d)
else:  # (the budget sets m, not sigma and ell: reduction_note's advice would not apply)
    target = sp.center_target(n, request.max_centers)
    aim = (f"at most {request.max_centers:,} centers" if target == request.max_centers else
           f"at most {request.max_centers:,} centers; on {n:,} rows it aims at {target:,}, so that each center "
           "stands for several rows")
    st.caption(f"Center budget: {aim}. eps is picked for it: m = {m:,} of the "
               f"{n:,} rows" + (" (every row: choose a smaller budget to reduce them)" if m >= n else "") + ". The "
               f"sidebar's ell (its shadow keeps {shadow_centers_text(shadow.m)}) does not change this fit; "
               "\"Centers: the sidebar's ell\" uses it.")
warn_if_kernel_is_identity(ds, request.sigma, request.kernel,
                           consequence="the kernel graph links no two rows and the eigenvectors below are arbitrary")

skip = sp.exact_skip_reason(n)
exact = None
if skip is None:
    try:
        exact = sp.exact_fit(ds.digest, ds.X, request)
    except (*sp.FIT_ERRORS, MemoryError) as exc:
        skip = f"The exact method (every row its own center) could not be computed at these settings: {exc}"
cmp = tables.comparison(reduced, exact)
if skip is None:
    st.caption(f"Reduced set: the m x m problem on {shadow_centers_text(m)} (of all n = {n:,} rows), every one "
               f"of the {n:,} rows embedded through them. Exact: every one of the {n:,} rows its own center (the "
               f"n x n problem, cached: ell does not change it). Every number below is on all {n:,} rows.")
else:
    st.info(skip, icon=":material/info:")

embedded = reduced.embedding is not None  # else it waits for the toggle (said above)
scored, scored_exact = views.show_metrics(ds, reduced, exact, cmp, clustering=clustering, embedded=embedded,
                                          later=later, skip=skip)
pieces = tables.pieces_note(reduced.eigenvalues, request.affinity)
if pieces:
    st.info(pieces, icon=":material/call_split:")

reduced_name = f"reduced set ({shadow_centers_text(m)})"
exact_name = f"exact (every row a center, n = {n:,})"
# one colouring of both clusterings for every chart of the page: a cluster has one colour
cluster_colours = views.cluster_colourings(reduced, exact) if clustering else None
if clustering:
    views.show_clusters(ds, request, reduced, exact, cmp, scored, scored_exact, cluster_colours,
                        reduced_name=reduced_name, exact_name=exact_name)

# While every row's own coordinates wait, each row is drawn at its center's: the exact embedding of the data
# quantized to the centers, ready with the m x m problem.
quantized = reduced.quantized if not embedded else None
if embedded or quantized is not None:
    panels = ({reduced_name: cmp["embedding"]} if embedded
              else {f"{reduced_name}: each row at its center's coordinates": quantized})
    if exact is not None and embedded:
        panels[exact_name] = exact.embedding
    if clustering:  # clusters are always categories
        colour = ColourChoice(cluster_colours[0], "cluster", False,
                              plots.hover_columns(ds.X, ds.feature_names, label=ds.y,
                                                  label_name=str(ds.label_name or "label")))
    else:
        colour = colour_choice(ds)
    errors = None if cmp["alignment_error"] is None or not embedded else {reduced_name: cmp["alignment_error"]}
    selection.show_selectable(plots.embedding_figure(panels, y=colour.values, label_name=colour.name,
                                                     continuous=colour.continuous, row_ids=ds.row_ids,
                                                     hover_data=colour.hover, errors=errors,
                                                     selected_rows=selection.rows()),
                              # (its own key with the clusters above it: a chart that a rerun moves below
                              # new ones is remounted, and Streamlit would drop its new frame's messages)
                              key="sp_cluster_embedding" if clustering else "sp_embedding",
                              filename=f"spectral_{request.method}_embedding")
views.embedding_caption(n, request, embedded=embedded, quantized=quantized is not None, later=later,
                        with_exact=exact is not None)
selection.selected_table(ds)

views.show_spectra(n, request.method, reduced, exact, reduced_name=reduced_name, exact_name=exact_name)
# (with a center budget the centers are the library's, not the sidebar's shadow's rows)
center_rows = np.asarray(ds.row_ids)[shadow.center_indices[shadow.labels]] if request.max_centers is None else None
if embedded:
    download_csv(lambda: tables.rows_table(ds.row_ids, ds.y, ds.label_name, center_rows, reduced, exact), key="sp_rows",
                 filename=f"spectral_{request.method}_rows",
                 label=f"Download every row's coordinates{' and cluster' if clustering else ''} (CSV, {n:,} rows)")
if later:  # each row was drawn at its center's coordinates: now every row's own, then the page again
    embed_every_row(ds, request, notes)
