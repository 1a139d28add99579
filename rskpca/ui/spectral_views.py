"""The Spectral page's results, drawn: the metrics, the clusters on the data and against the label, the
embedding's caption and the spectra (the fits are :mod:`rskpca.ui.compute.spectral`'s and
:func:`rskpca.ui.spectral.fit_for_page`'s; the page keeps the widgets, the cached calls and the embedding
chart)."""

from __future__ import annotations

import numpy as np
import streamlit as st

from rskpca import plotting as plots
from rskpca.evaluation.clustering_scores import matched_labels
from rskpca.ui import compute, selection
from rskpca.ui.compute import spectral_tables as tables
from rskpca.ui.spectral import show_cluster_table
from rskpca.ui.widgets import show_figure, show_table

__all__ = ["show_metrics", "show_clusters", "embedding_caption", "show_spectra"]

_METRICS = (("NMI", "Normalized mutual information (0: independent, 1: the same partition)"),
            ("CA", "Clustering accuracy: the share of rows whose cluster, matched one-to-one to a class (Hungarian "
                   "matching), is their class"),
            ("ARI", "Adjusted Rand index (0: chance, 1: the same partition)"))


def _value(x, fmt="{:.3g}") -> str:
    return "n/a" if x is None else fmt.format(x)


def show_metrics(ds, reduced, exact, cmp, *, clustering: bool, embedded: bool, later: bool, skip: str | None):
    """m and three scores in a row: NMI / CA / ARI against the label for clusters, else the rows embedded and the
    errors against the exact method. -> ``(reduced scores, exact scores)`` (None where not scored)."""
    n, m = ds.n, reduced.m
    label_name = str(ds.label_name or "label")
    cols = st.columns(4)
    cols[0].metric("shadow centers m", f"{m:,}", f"{m / n:.1%} of all n = {n:,} rows", delta_color="off", delta_arrow="off")
    rows = f"on all n = {n:,} rows"
    if clustering:
        unscored = tables.label_problem(ds.y)
        scored = tables.label_scores(ds.y, reduced.clusters)
        scored_exact = None if exact is None else tables.label_scores(ds.y, exact.clusters)
        on_rows = rows if scored is None or scored.rows == n else f"on the {scored.rows:,} rows with a label"
        for col, (name, what) in zip(cols[1:], _METRICS):
            value = None if scored is None else scored.scores.as_dict()[name]
            exact_value = None if scored_exact is None else scored_exact.scores.as_dict()[name]
            col.metric(f"{name} vs label, reduced set", _value(value), on_rows, delta_color="off", delta_arrow="off",
                       help=f"{what}, of the clusters against the label column {label_name!r}."
                            + (f" n/a: {unscored}." if value is None else "")
                            + ("" if exact_value is None else f" The exact method's: {exact_value:.3g}."))
        return scored, scored_exact
    cols[1].metric("rows embedded", f"{n:,}" if embedded else "0", "every row, through the m centers" if embedded else
                   f"of {n:,}: " + ("being computed (above)" if later else "waiting for your go-ahead (above)"),
                   delta_color="off", delta_arrow="off")
    versus = rows if exact is not None else "no exact method to compare with"
    cols[2].metric("alignment error vs exact", _value(cmp["alignment_error"]), versus, delta_color="off",
                   delta_arrow="off",
                   help="min_A ||Z - Z~ A||_F / ||Z||_F between the exact embedding Z and the reduced one Z~ of every "
                        "row (0: the same subspace)." + ("" if embedded else " n/a: the rows are not embedded yet.")
                   if exact is not None else skip)
    cols[3].metric("eigenvalue error vs exact", _value(cmp["eigenvalue_error"]), f"over {reduced.eigenvalues.size} "
                   "eigenvalues of P", delta_color="off", delta_arrow="off",
                   help="||lambda - lambda~||_2 over the leading nontrivial eigenvalues of P." if exact is not None
                   else skip)
    return None, None


def cluster_colourings(reduced, exact=None) -> list:
    """One :class:`~rskpca.plotting.Colouring` per clustering: the reduced set's, then the exact method's (its
    clusters renumbered to match), made together, so that a cluster has one colour in every chart of the page
    even where one view lacks a cluster or, past 59 clusters, merges another into "other"."""
    labels = [reduced.clusters + 1]
    if exact is not None:
        labels.append(matched_labels(reduced.clusters, exact.clusters) + 1)
    n = labels[0].shape[0]
    both = plots.colouring(np.concatenate(labels), name="cluster", continuous=False, noun="clusters")
    return [both.subset(np.arange(i * n, (i + 1) * n)) for i in range(len(labels))]


def show_clusters(ds, request, reduced, exact, cmp, scored, scored_exact, colours, *, reduced_name: str,
                  exact_name: str) -> None:
    """The clusters on the data (beside the exact method's, renumbered to match), and the scores and the cluster x
    label table. ``colours``: :func:`cluster_colourings` of the two."""
    n = ds.n
    label_name = str(ds.label_name or "label")
    flat = ds.d <= 2  # else its first two principal axes
    coords = ds.X if flat else compute.principal_axes(ds.digest, ds.X)[0]
    titles = [str(f) for f in ds.feature_names] if flat else ("PC1", "PC2")
    views = st.columns(2) if exact is not None else [st.container()]
    hover = plots.hover_columns(ds.X, ds.feature_names, label=ds.y, label_name=label_name)
    drawn = [(reduced_name, "sp_cluster_view", "spectral_clusters")]
    if exact is not None:
        drawn.append((exact_name, "sp_exact_cluster_view", "spectral_exact_clusters"))
    for view, colour, (name, key, filename) in zip(views, colours, drawn):
        with view:
            selection.show_selectable(plots.data_figure(
                coords, y=colour, label_name="cluster", continuous=False, row_ids=ds.row_ids,
                hover_data=hover, axis_titles=titles, selected_rows=selection.rows(),
                title=f"Clusters on the data: {name}"), key=key, filename=filename)
    st.caption(("The data on its first two principal axes. " if not flat else "")
               + ("Each row's cluster is that of its own coordinates (from its nearest centers)."
                  if request.affinity == "landmark" else "Each row takes the cluster of its shadow center.")
               + (" The exact clusters are renumbered to match the reduced ones, so one cluster has one colour in "
                  "both views." if exact is not None else ""))
    table = tables.scores_table({"reduced set": scored, "exact (every row a center)": scored_exact},
                            agreement=cmp["cluster_ari"])
    if table is None:
        st.caption(f"Clusters are not scored against the label: {tables.label_problem(ds.y)}.")
        return
    st.subheader("Clusters against the label")
    show_table(table, key="sp_scores", filename="spectral_scores")
    as_map = show_cluster_table(scored.table, key="sp_cluster_label", filename="spectral_clusters_by_label")
    st.caption(f"Rows of each cluster (reduced set) in each class of {label_name!r}, "
               + ("coloured by their count (hover for the numbers; the CSV holds them all)" if as_map else
                  "shaded by the share of the cluster's rows")
               + "; clusters matched one-to-one to classes (as for CA) come first, so the matched counts run down "
               "the diagonal." + ("" if scored.rows == n else f" Rows without a label ({n - scored.rows:,}) are left out."))


def embedding_caption(n: int, request, *, embedded: bool, quantized: bool, later: bool, with_exact: bool) -> None:
    """What the embedding chart draws: which coordinates, and of which rows."""
    if request.method == "diffusion":
        what = f"diffusion coordinates lambda^t psi (t = {request.t:g})"
    elif request.method == "eigenmaps":
        what = "Laplacian eigenmaps (the random-walk eigenvectors psi)"
    elif request.n_clusters > 2:
        what = f"the first two of the {request.n_clusters - 1} eigenvectors on which k-means finds the clusters"
    elif request.max_centers is None:
        what = "the eigenvector on which k-means finds the clusters at k = 2 (the next one drawn beside it)"
    else:  # the budget's fit computes only the one eigenvector it clusters (compute.spectral._fit_on_rows)
        what = ("the one eigenvector on which k-means finds the clusters at k = 2 (the reduced set's second axis is "
                "0: no second one is computed; the exact method's panel draws its second, and the error against it "
                "is on the first)")
    st.caption((f"Every one of the {n:,} rows, in {what}, components 1 and 2." if embedded else
                f"Every one of the {n:,} rows at its shadow center's coordinates, in {what}, components 1 and 2: the "
                "exact embedding of the data quantized to the centers. Each row's own coordinates "
                + ("are being computed (above)." if later else "wait for your go-ahead (above).") if quantized else
                f"The embedding of every one of the {n:,} rows, in {what}, waits for your go-ahead (above).")
               + (" The reduced-set embedding is drawn after the least-squares map onto the exact one "
                  "(eigenvectors have arbitrary signs), its alignment error in its title." if with_exact and embedded
                  else ""))


def show_spectra(n: int, method: str, reduced, exact, *, reduced_name: str, exact_name: str) -> None:
    """The eigenvalues of P, reduced beside exact: a chart and its table."""
    m = reduced.m
    left, right = st.columns(2)
    spectra = {reduced_name: reduced.eigenvalues}
    if exact is not None:
        spectra[exact_name] = exact.eigenvalues
    with left:
        show_figure(plots.spectral_eigenvalues_figure(spectra), key="sp_eigenvalues",
                    filename=f"spectral_{method}_eigenvalues")
    with right:
        short = {f"reduced set (m = {m:,})": reduced.eigenvalues}
        if exact is not None:
            short[f"exact (n = {n:,})"] = exact.eigenvalues
        show_table(tables.eigenvalue_table(short), key="sp_eigen_table", filename=f"spectral_{method}_eigenvalues")
        st.caption(f"Eigenvalues of P on the {m:,} centers" + (f" and on all {n:,} rows (exact)" if exact else "")
                   + ": the reduced ones are exact for the data quantized to the centers (each center repeated w "
                   "times).")
