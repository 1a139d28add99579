"""The Spectral page's session and tables: the last settings whose fit succeeded, shown again when new ones
cannot be fitted; the cluster x label table as a heat map.

A bad setting (more clusters than shadow centers, a rank the centers cannot give) is said on the page,
and the page goes on showing the last good result for the same data instead of going blank, as the
sidebar keeps the last usable sigma.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st

from rskpca import plotting as plots
from rskpca.evaluation.units import seconds_text
from rskpca.ui import keys as K
from rskpca.ui.compute import all_rows_fits
from rskpca.ui.compute import spectral as sp
from rskpca.ui.compute import spectral_tables as tables
from rskpca.ui.compute.shadow_cache import shadow as compute_shadow
from rskpca.ui.progress import resume_button, stopped
from rskpca.ui.widgets import download_csv, show_error, show_figure

__all__ = ["remember_good", "last_good", "default_clusters", "solve_waits", "fit_for_page", "embed_every_row",
           "heat_colours", "show_cluster_table"]


def remember_good(digest: str, request) -> None:
    """Keep ``request`` (a :class:`~rskpca.ui.compute.spectral.SpectralRequest`) as the last good one for this data."""
    st.session_state[K.SPECTRAL_GOOD] = (digest, request)


def last_good(digest: str):
    """The last request fitted on the data of ``digest``, or None."""
    kept = st.session_state.get(K.SPECTRAL_GOOD)
    return kept[1] if kept and kept[0] == digest else None


def _allow(token) -> None:
    st.session_state.setdefault(K.SPECTRAL_ASKED, set()).add(token)


def default_clusters(ds) -> None:
    """Set k to the label's number of classes (2 to 100; else 2) unless the user has chosen one.

    A k set this way follows the data set: another file gets its own label's count, while a k the user
    typed stays.
    """
    ss = st.session_state
    auto = ss.get(K.SPECTRAL_AUTO_K)  # (data set, k) of the last k set here
    if ss.get("sp_clusters") is not None and (auto is None or auto[1] != ss["sp_clusters"] or auto[0] == ds.digest):
        return
    classes = tables.label_classes(ds.y)
    k = classes if classes is not None and 2 <= classes <= 100 else 2
    ss["sp_clusters"] = k
    ss[K.SPECTRAL_AUTO_K] = (ds.digest, k)


def solve_waits(ds, request, m: int) -> str | None:
    """Whether the m x m problem of ``request`` on ``m`` centers waits for the user; if so, what it has said.

    Predicted above :data:`~rskpca.ui.compute.all_rows_fits.ALL_ROWS_ASK_S` (the issue's sigma change gave
    m = 13,492 centers and 28 s behind a spinner), the page says the prediction and waits for a click; a
    solve stopped with its Stop button waits for Resume. Returns None when it may run now.
    """
    token = (ds.digest, request)
    what = f"Solving the m x m problem on m = {m:,} centers"
    if stopped(token):
        return None if resume_button(token, what, key="sp_resume") else f"{what} was stopped."
    seconds = sp.centers_seconds(m, ds.d)
    if seconds <= all_rows_fits.ALL_ROWS_ASK_S or token in st.session_state.get(K.SPECTRAL_ASKED, set()):
        return None
    st.info(f"{what} takes about {seconds_text(seconds)} here (it grows with m squared), so it waits for your "
            "go-ahead; a progress bar and a Stop button show while it runs. Fewer centers: lower ell or raise sigma "
            "in the sidebar, or choose a center budget above.", icon=":material/timer:")
    st.button(f"Solve on m = {m:,} centers (about {seconds_text(seconds)})", key="sp_solve",
              icon=":material/play_arrow:", on_click=_allow, args=(token,))
    return f"{what} waits for your go-ahead."



def _fit_or_wait(ds, request, m: int, embed_all: bool, *, first: bool = False):
    """``(fit, waiting, later)``: every row embedded (stored, or run now with a progress bar above
    ALL_ROWS_PROGRESS_S); or the centers' fit, embedding None, and what the embedding would cost while it waits
    for the toggle; or (``first``, an embedding predicted above ALL_ROWS_PROGRESS_S) the centers' fit now and
    ``later`` True: the page draws each row at its center's coordinates first, then :func:`embed_every_row`."""
    fit = sp.stored_reduced_fit(ds.digest, request)
    if fit is not None:
        return fit, None, False
    seconds = sp.embedding_seconds(ds.n, m)
    if seconds > all_rows_fits.ALL_ROWS_ASK_S and not embed_all and not sp.embeds_with_fit(request):
        return sp.centers_fit(ds.digest, ds.X, request), all_rows_fits.embedding_cost_message(ds.n, m, seconds), False
    if first and seconds > all_rows_fits.ALL_ROWS_PROGRESS_S and request.max_centers is None:
        return sp.centers_fit(ds.digest, ds.X, request), None, True
    return sp.reduced_fit(ds.digest, ds.X, request), None, False


def embed_every_row(ds, request, notes) -> None:
    """Embed every row for ``request`` (a progress bar with a Stop button in ``notes``), then run the page again
    to draw them: called at the end of a page that drew each row at its center's coordinates first."""
    with notes:
        sp.reduced_fit(ds.digest, ds.X, request)
    st.rerun()


def fit_for_page(ds, request, shadow, notes):
    """``(request, shadow, fit, later)`` the page draws: ``request``'s fit, or the last good request's where this
    one cannot be fitted, waits for a click (a long m x m solve), or was stopped; messages go in ``notes``.
    ``later``: every row's own coordinates are computed after the page is drawn (:func:`embed_every_row`), each
    row at its center's meanwhile (``fit.quantized``).

    ``fit.embedding`` is None while embedding every row, predicted above ``ALL_ROWS_ASK_S``, waits for the
    toggle "embed_all_rows" (one setting with the Embeddings page), which is offered here then. Stops the page
    (``st.stop``) when nothing was ever fitted on these data.
    """
    ask_s = all_rows_fits.ALL_ROWS_ASK_S
    embed_all = bool(st.session_state.get("embed_all_rows"))
    m = sp.expected_m(request, shadow.m, ds.n)
    problem = held = waiting = reduced = None
    if request.n_components is not None and request.n_components < 2:
        problem = "The embedding drawn needs at least 2 components: raise the rank r in the sidebar."
    if problem is None:
        problem = sp.rank_problem(request, m, ds.n)
    if problem is None and sp.stored_reduced_fit(ds.digest, request, embed=False) is None:
        with notes:
            held = solve_waits(ds, request, m)  # the m x m problem waits for a click: predicted long, or stopped
    later = False
    if problem is None and held is None:
        try:
            reduced, waiting, later = _fit_or_wait(ds, request, m, embed_all, first=True)
        except sp.FIT_ERRORS as exc:
            problem = f"{sp.SPECTRAL_METHODS[request.method]} could not be computed at these settings: {exc}"
    with notes:
        if problem is None and held is None:
            remember_good(ds.digest, request)
        else:
            if problem is not None:
                show_error(problem)
            kept = last_good(ds.digest)
            if kept is None:
                st.stop()
            request = kept
            if request.ell is not None:
                shadow = compute_shadow(ds.digest, ds.X, request.sigma, request.ell, request.kernel)
            # fitted before: stored
            reduced, waiting, _ = _fit_or_wait(ds, request, sp.expected_m(request, shadow.m, ds.n), embed_all)
            st.info(f"Still showing the last settings that could be computed: {request.describe()}.",
                    icon=":material/history:")
        if waiting is not None:
            clustering = request.n_clusters is not None
            drawn = ("the m x m problem's eigenvalues" + (" and every row's cluster" if clustering else "")
                     + (", every row at its center's coordinates (the exact embedding of the data quantized to "
                        "the centers)" if reduced.quantized is not None else "")
                     + (", and the exact method beside them," if sp.exact_skip_reason(ds.n) is None else ""))
            st.info(f"{sp.SPECTRAL_METHODS[request.method]}: embedding every row is waiting for your go-ahead: "
                    f"{waiting} Until then each row's own coordinates are not drawn and their CSV not offered (no "
                    f"sample stands in for them); {drawn} drawn below.", icon=":material/timer:")
        if waiting is not None or (embed_all and sp.embedding_seconds(ds.n, reduced.m) > ask_s
                                   and not sp.embeds_with_fit(request)):
            st.toggle(f"Embed every row even above {ask_s:g} s (a progress bar shows it; changing a setting stops "
                      "it)", key="embed_all_rows",
                      help="One setting for the Spectral and Embeddings pages: embedding every row through the m "
                           f"centers, when predicted above {ask_s:g} s, waits for it. The last 16 results are kept, "
                           "so returning to settings already embedded draws them at once.")
    return request, shadow, reduced, later

def heat_colours(table: pd.DataFrame) -> pd.DataFrame:
    """CSS backgrounds for the cluster x label table: each cell shaded by its share of its cluster's rows,
    so the classes a cluster holds stand out whatever the cluster's size.

    >>> heat_colours(pd.DataFrame([[3, 1], [0, 0]])).iloc[0].tolist()
    ['background-color: rgba(59, 91, 219, 0.41)', 'background-color: rgba(59, 91, 219, 0.14)']
    """
    values = table.to_numpy(dtype=np.float64)
    share = values / np.maximum(values.sum(axis=1, keepdims=True), 1.0)
    # the theme's primary colour (.streamlit/config.toml), its alpha the share up to MAX_SHADE
    css = np.vectorize(lambda a: f"background-color: rgba(59, 91, 219, {MAX_SHADE * a:.2f})")(share)
    return pd.DataFrame(css, index=table.index, columns=table.columns)


#: The cluster x label table shows this many clusters without scrolling; a column takes about this many pixels
#: a character of its widest cell, plus its padding.
_CLUSTERS_IN_VIEW, _CHAR_PX, _CELL_PAD_PX = 30, 8, 18
#: Wider than this (the main column at a 1,400-pixel window, less the row names), the table turns.
_TABLE_PX = 880
#: The darkest shade's alpha: over it the theme's dark text keeps a WCAG 2 contrast of 5.2 (AA asks 4.5). At
#: full alpha a whole cluster's count read at 2.2, dark blue on blue.
MAX_SHADE = 0.55


def show_cluster_table(table: pd.DataFrame, *, key: str, filename: str) -> bool:
    """The cluster x label table (:func:`rskpca.evaluation.clustering_scores.cluster_class_table`) as a table
    shaded by each cluster's shares, the matched class of each cluster on the diagonal, with a CSV download;
    past 30 clusters or classes as a heat map of the counts (:func:`rskpca.plotting.cluster_class_figure`),
    where a table of thousands of styled cells is slow to draw and cannot be read whole. Class names are
    shown as text (they are the user's). Returns whether it drew the heat map."""
    if max(table.shape) > _CLUSTERS_IN_VIEW:
        show_figure(plots.cluster_class_figure(table), key=f"{key}_map", filename=filename)
        download_csv(lambda: table.reset_index(), key=key, filename=filename)
        return True
    shown = table.copy()
    shown.columns = [str(c) for c in shown.columns]
    shown.index = [f"cluster {c}" for c in shown.index]
    css = heat_colours(shown)
    # each column as wide as its name or its largest count (26 letters: about 40 px each, where Streamlit's
    # narrowest named width is 75)
    digits = len(f"{int(table.to_numpy().max(initial=0)):,}")

    def widths(columns) -> dict:
        return {c: _CHAR_PX * max(len(c), digits) + _CELL_PAD_PX for c in columns}

    turned = sum(widths(shown.columns).values()) > _TABLE_PX and shown.shape[1] > shown.shape[0]
    if turned:  # more classes than fit across (26 letters beside 7 clusters): one class a row, no scrolling
        shown, css = shown.T, css.T
        shown.index.name = "class"  # (the corner cell: the rows are classes now, the columns clusters)
    st.dataframe(shown.style.apply(lambda _: css, axis=None), key=key, width="stretch",
                 height=38 + 35 * min(shown.shape[0], _CLUSTERS_IN_VIEW),
                 column_config={c: st.column_config.NumberColumn(width=w) for c, w in widths(shown.columns).items()})
    if turned:
        st.caption(f"One class a row: its {table.shape[1]} classes do not fit across the page.")
    download_csv(lambda: table.reset_index(), key=key, filename=filename)
    return False
