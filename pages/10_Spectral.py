"""Spectral: diffusion maps, Laplacian eigenmaps and spectral clustering on the shadow, beside the exact method."""

import numpy as np
import streamlit as st

from rskpca import plotting as plots
from rskpca.plotting import shadow_centers_text
from rskpca.ui import (compute, download_csv, reduction_note, selection, setting, show_figure, show_table, start_page,
                       warn_if_kernel_is_identity)
from rskpca.ui.compute import spectral as sp
from rskpca.evaluation.clustering_scores import matched_labels
from rskpca.ui.widgets import ColourChoice, colour_choice
from rskpca.ui.spectral import default_clusters, embed_every_row, fit_for_page, show_cluster_table

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
    st.caption(f"Center budget: at most {request.max_centers:,} centers, eps picked for it: m = {m:,} of the "
               f"{n:,} rows" + (" (every row: choose a smaller budget to reduce them)" if m >= n else "") + ".")
warn_if_kernel_is_identity(ds, request.sigma, request.kernel,
                           consequence="the kernel graph links no two rows and the eigenvectors below are arbitrary")

skip = sp.exact_skip_reason(n)
exact = None
if skip is None:
    try:
        exact = sp.exact_fit(ds.digest, ds.X, request)
    except (*sp.FIT_ERRORS, MemoryError) as exc:
        skip = f"The exact method (every row its own center) could not be computed at these settings: {exc}"
cmp = sp.comparison(reduced, exact)
if skip is None:
    st.caption(f"Reduced set: the m x m problem on {shadow_centers_text(m)} (of all n = {n} rows), every one "
               f"of the {n} rows embedded through them. Exact: every one of the {n} rows its own center (an "
               f"{n} x {n} problem, cached: ell does not change it). Every number below is on all {n} rows.")
else:
    st.info(skip, icon=":material/info:")

embedded = reduced.embedding is not None  # else it waits for the toggle (said above)
y = ds.y
label_name = str(ds.label_name or "label")
cols = st.columns(4)
cols[0].metric("shadow centers m", m, f"{m / n:.1%} of all n = {n} rows", delta_color="off",
               delta_arrow="off")


def _value(x, fmt="{:.3g}"):
    return "n/a" if x is None else fmt.format(x)


rows = f"on all n = {n} rows"
scored = scored_exact = None
if clustering:
    unscored = sp.label_problem(y)
    scored = sp.label_scores(y, reduced.clusters)
    scored_exact = None if exact is None else sp.label_scores(y, exact.clusters)
    on_rows = rows if scored is None or scored.rows == n else f"on the {scored.rows:,} rows with a label"
    for col, name, what in ((cols[1], "NMI", "Normalized mutual information (0: independent, 1: the same partition)"),
                            (cols[2], "CA", "Clustering accuracy: the share of rows whose cluster, matched one-to-one "
                                            "to a class (Hungarian matching), is their class"),
                            (cols[3], "ARI", "Adjusted Rand index (0: chance, 1: the same partition)")):
        value = None if scored is None else scored.scores.as_dict()[name]
        exact_value = None if scored_exact is None else scored_exact.scores.as_dict()[name]
        col.metric(f"{name} vs label, reduced set", _value(value), on_rows, delta_color="off", delta_arrow="off",
                   help=f"{what}, of the clusters against the label column {label_name!r}."
                        + (f" n/a: {unscored}." if value is None else "")
                        + ("" if exact_value is None else f" The exact method's: {exact_value:.3g}."))
else:
    cols[1].metric("rows embedded", n if embedded else 0, "every row, through the m centers" if embedded else
                   f"of {n}: " + ("being computed (above)" if later else "waiting for your go-ahead (above)"), delta_color="off", delta_arrow="off")
    cols[2].metric("alignment error vs exact", _value(cmp["alignment_error"]), rows, delta_color="off",
                   delta_arrow="off",
                   help="min_A ||Z - Z~ A||_F / ||Z||_F between the exact embedding Z and the reduced one Z~ of every "
                        "row (0: the same subspace)." + ("" if embedded else " n/a: the rows are not embedded yet.")
                   if exact is not None else skip)
    cols[3].metric("eigenvalue error vs exact", _value(cmp["eigenvalue_error"]), f"over {reduced.eigenvalues.size} "
                   "eigenvalues of P", delta_color="off", delta_arrow="off",
                   help="||lambda - lambda~||_2 over the leading nontrivial eigenvalues of P." if exact is not None
                   else skip)

reduced_name = f"reduced set ({shadow_centers_text(m)})"
exact_name = f"exact (every row a center, n = {n})"
if clustering:
    flat = ds.d <= 2  # else its first two principal axes
    coords = ds.X if flat else compute.principal_axes(ds.digest, ds.X)[0]
    titles = [str(f) for f in ds.feature_names] if flat else ("PC1", "PC2")
    views = st.columns(2) if exact is not None else [st.container()]
    hover = plots.hover_columns(ds.X, ds.feature_names, label=y, label_name=label_name)
    with views[0]:
        selection.show_selectable(plots.data_figure(
            coords, y=reduced.clusters + 1, label_name="cluster", continuous=False, row_ids=ds.row_ids,
            hover_data=hover, axis_titles=titles, selected_rows=selection.rows(),
            title=f"Clusters on the data: {reduced_name}"),
            key="sp_cluster_view", filename="spectral_clusters")
    if exact is not None:
        with views[1]:
            selection.show_selectable(plots.data_figure(
                coords, y=matched_labels(reduced.clusters, exact.clusters) + 1, label_name="cluster",
                continuous=False, row_ids=ds.row_ids, hover_data=hover, axis_titles=titles,
                selected_rows=selection.rows(),
                title=f"Clusters on the data: {exact_name}"), key="sp_exact_cluster_view",
                filename="spectral_exact_clusters")
    st.caption(("The data on its first two principal axes. " if not flat else "")
               + ("Each row's cluster is that of its own coordinates (from its nearest centers)."
                  if request.affinity == "landmark" else "Each row takes the cluster of its shadow center.")
               + (" The exact clusters are renumbered to match the reduced ones, so one cluster has one colour in "
                  "both views." if exact is not None else ""))
    scores = {"reduced set": scored, "exact (every row a center)": scored_exact}
    table = sp.scores_table(scores, agreement=cmp["cluster_ari"])
    if table is not None:
        st.subheader("Clusters against the label")
        show_table(table, key="sp_scores", filename="spectral_scores")
        show_cluster_table(scored.table, key="sp_cluster_label", filename="spectral_clusters_by_label")
        st.caption(f"Rows of each cluster (reduced set) in each class of {label_name!r}, shaded by the share of the "
                   "cluster's rows; clusters matched one-to-one to classes (as for CA) come first, so the matched "
                   "counts run down the diagonal." + ("" if scored.rows == n else
                                                      f" Rows without a label ({n - scored.rows:,}) are left out."))
    else:
        st.caption(f"Clusters are not scored against the label: {sp.label_problem(y)}.")

# While every row's own coordinates wait, each row is drawn at its center's: the exact embedding of the data
# quantized to the centers, ready with the m x m problem.
quantized = reduced.quantized if not embedded else None
if embedded or quantized is not None:
    panels = ({reduced_name: cmp["embedding"]} if embedded
              else {f"{reduced_name}: each row at its center's coordinates": quantized})
    if exact is not None and embedded:
        panels[exact_name] = exact.embedding
    if clustering:  # clusters are always categories
        colour = ColourChoice(reduced.clusters + 1, "cluster", False,
                              plots.hover_columns(ds.X, ds.feature_names, label=y, label_name=label_name))
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
if request.method == "diffusion":
    what = f"diffusion coordinates lambda^t psi (t = {request.t:g})"
elif request.method == "eigenmaps":
    what = "Laplacian eigenmaps (the random-walk eigenvectors psi)"
else:
    k = request.n_clusters
    if k > 2:
        what = f"the first two of the {k - 1} eigenvectors k-means clusters"
    elif request.max_centers is None:
        what = "the eigenvector k-means clusters at k = 2 (the next one drawn beside it)"
    else:  # the budget's fit computes only the one eigenvector it clusters (compute.spectral._fit_on_rows)
        what = "the one eigenvector k-means clusters at k = 2 (the second axis is 0: no second one is computed)"
st.caption((f"Every one of the {n} rows, in {what}, components 1 and 2." if embedded else
            f"Every one of the {n} rows at its shadow center's coordinates, in {what}, components 1 and 2: the exact "
            "embedding of the data quantized to the centers. Each row's own coordinates "
            + ("are being computed (above)." if later else "wait for your go-ahead (above).") if quantized is not None else
            f"The embedding of every one of the {n} rows, in {what}, waits for your go-ahead (above).")
           + (" The reduced-set embedding is drawn after the least-squares map onto the exact one "
              "(eigenvectors have arbitrary signs), its alignment error in its title." if exact is not None and embedded
              else ""))
selection.selected_table(ds)

left, right = st.columns(2)
spectra = {reduced_name: reduced.eigenvalues}
if exact is not None:
    spectra[exact_name] = exact.eigenvalues
with left:
    show_figure(plots.spectral_eigenvalues_figure(spectra), key="sp_eigenvalues",
                filename=f"spectral_{request.method}_eigenvalues")
with right:
    short = {f"reduced set (m = {m})": reduced.eigenvalues}
    if exact is not None:
        short[f"exact (n = {n})"] = exact.eigenvalues
    show_table(sp.eigenvalue_table(short), key="sp_eigen_table", filename=f"spectral_{request.method}_eigenvalues")
    st.caption(f"Eigenvalues of P on the {m} centers" + (f" and on all {n} rows (exact)" if exact else "")
               + ": the reduced ones are exact for the data quantized to the centers (each center repeated w times).")
# (with a center budget the centers are the library's, not the sidebar's shadow's rows)
center_rows = np.asarray(ds.row_ids)[shadow.center_indices[shadow.labels]] if request.max_centers is None else None
if embedded:
    download_csv(lambda: sp.rows_table(ds.row_ids, y, ds.label_name, center_rows, reduced, exact), key="sp_rows",
                 filename=f"spectral_{request.method}_rows",
                 label=f"Download every row's coordinates{' and cluster' if clustering else ''} (CSV, {n} rows)")
if later:  # each row was drawn at its center's coordinates: now every row's own, then the page again
    embed_every_row(ds, request, notes)
