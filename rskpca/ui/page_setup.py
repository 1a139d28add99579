"""What every page draws first: the page config and the sidebar with the shared settings.

:func:`start_page` sets up a page and calls :func:`sidebar`, which restores the widget values
kept across pages (:func:`rskpca.ui.state.persist_widget_values`), draws the data set chooser
(the data come from :mod:`rskpca.ui.tables`), the kernel, sigma, ell and rank controls and the
menu with the shareable link, and returns the :class:`~rskpca.ui.state.Settings` the page uses.
"""

from __future__ import annotations

import functools
from pathlib import Path

import numpy as np
import streamlit as st

from rskpca.core.sigma_checks import check_kernel_spread
from rskpca.core.radial_kernels import get_kernel
from rskpca.data.datasets import SAMPLES, Dataset
from rskpca.evaluation.units import bytes_text, seconds_text
from rskpca.ui import compute, selection
from rskpca.ui.compute.exact_on_request import CENTERS_COST_SHOWN_M, centers_solve_cost
from rskpca.ui import keys as K
from rskpca.ui.app_file import FILE, app_file
from rskpca.ui.keys import DEFAULT_RANK, DEFAULT_SAMPLE, ELL_RANGE, ELL_STEP, RANK_RANGE, UPLOAD
from rskpca.ui.link import KERNEL_CONVENTIONS, data_param, link_sigma_for, read_link, write_link
from rskpca.ui.nav import sidebar_menu
from rskpca.ui.heavy import HEAVY_ROWS
from rskpca.ui.state import Settings, persist_widget_values
from rskpca.ui.tables import build_dataset, sample_note, shown_title, shown_upload, source_title, table_id
from rskpca.ui.widgets import LITTLE_REDUCTION, plain, show_error

__all__ = ["ICON", "sidebar", "start_page", "default_sigma", "sigma_slider_range"]


#: The page icon, bundled (a material icon as favicon is fetched from Google's servers: the app runs offline).
ICON = str(Path(__file__).with_name("icon.png"))


# ---------------------------------------------------------------------------
# sigma: the default, the box and the slider
# ---------------------------------------------------------------------------


def default_sigma(source: str, ds: Dataset, median: float) -> tuple[float, str]:
    """``(sigma, how it was chosen)`` for newly loaded data."""
    info = SAMPLES.get(source)
    if info is not None and info.sigma and not ds.standardized and ds.d == info.d:
        return info.sigma, (f"Default for {info.title}: sigma = {info.sigma:g}, the bandwidth at which kernel PCA's "
                            "first two components separate the sample's classes best (the median heuristic, "
                            f"{median:.3g}, blurs them into one blob).")
    return median, "Default: the median heuristic (median distance between rows)."


def _sync_sigma(ds: Dataset, median: float) -> None:
    """Set sigma to the data's default when the data change (unless a link for this data set it)."""
    ss = st.session_state
    # (an emptied box, with a usable sigma for these data already seen, is _keep_usable_sigma's to answer)
    if ss.get(K.SIGMA_DIGEST) == ds.digest and (ss.get("sigma") or (ss.get(K.SIGMA_GOOD) or ("",))[0] == ds.digest):
        return
    ss[K.SIGMA_DIGEST] = ds.digest
    if ss.pop(K.LINK_SIGMA, False) and ss.get("sigma"):
        return
    up = shown_upload()
    from_link = link_sigma_for(up["name"]) if up and ss[K.DATASET_SOURCE] == UPLOAD else None
    if from_link is not None:  # a link named this file before it was uploaded
        ss["sigma"] = from_link
        return
    ss["sigma"] = default_sigma(ss[K.DATASET_SOURCE], ds, median)[0]


def _set_sigma_from_slider() -> None:
    st.session_state["sigma"] = st.session_state[K.SIGMA_SLIDER]


def _set_sigma(value: float) -> None:
    st.session_state["sigma"] = float(value)


def sigma_slider_range(sigma: float, median: float) -> tuple[float, float, float]:
    """The slider's ``(min, max, step)``: median/20 .. 5 median in about 200 steps, widened to hold sigma and
    shifted so that sigma is on its grid. The browser's slider snaps its value to ``min + k step``: off the
    grid, the median 2.362 of iris showed as 2.38 beside the box's 2.362.

    >>> lo, hi, step = sigma_slider_range(2.362, 2.362)
    >>> round((2.362 - lo) / step, 9).is_integer(), lo > 0, hi >= 5 * 2.362 - step
    (True, True, True)
    """
    lo, hi = float(f"{median / 20:.3g}"), float(f"{median * 5:.3g}")
    lo, hi = min(lo, sigma), max(hi, sigma)
    step = float(f"{(hi - lo) / 200:.2g}")
    lo = sigma - step * int((sigma - lo) // step)  # whole steps down from sigma, no lower than lo (> 0)
    return lo, lo + step * int(np.ceil((hi - lo) / step)), step


def _keep_usable_sigma(ds: Dataset, median: float) -> str | None:
    """Before the sigma box is drawn: an emptied box, or a sigma so large that every kernel value on these
    data is 1 (:func:`~rskpca.core.sigma_checks.check_kernel_spread`), gives back the last usable sigma (the
    data's default if none); returns what to say, or None.

    An emptied box must not become its minimum silently (Streamlit's default for a number box), and a
    sigma far outside the data's scale makes exact KPCA fail inside ARPACK.
    """
    ss = st.session_state
    value = ss.get("sigma")
    problem = "The sigma box was emptied" if value is None else None
    if problem is None:
        try:
            check_kernel_spread(None, float(value), power=get_kernel(ss.get("kernel", "gaussian")).p,
                                name="the data", extent=compute.extent(ds.digest, ds.X))
        except ValueError as exc:
            problem = str(exc)
    if problem is None:
        ss[K.SIGMA_GOOD] = (ds.digest, float(value))
        return None
    good = ss.get(K.SIGMA_GOOD)
    kept = good[1] if good and good[0] == ds.digest else default_sigma(ss[K.DATASET_SOURCE], ds, median)[0]
    ss["sigma"] = kept
    return f"{problem.rstrip('.')}. Kept sigma = {kept:.4g}."


def _keep_usable_rank() -> str | None:
    """Before the rank box is drawn: an emptied box gives back the last rank, not the box's minimum
    silently; returns what to say, or None."""
    ss = st.session_state
    if ss.get("r") is not None:
        ss[K.RANK_GOOD] = int(ss["r"])
        return None
    kept = ss.get(K.RANK_GOOD, DEFAULT_RANK)
    ss["r"] = kept
    return f"The rank box was emptied. Kept r = {kept}."


def _sigma_controls(sb, ds: Dataset, median: float) -> float:
    ss = st.session_state
    refused = _keep_usable_sigma(ds, median)
    # value=None: an emptied box gives None (kept above on the next run), not the minimum
    sb.number_input("sigma (bandwidth)", min_value=1e-9, value=None, key="sigma", format="%.4g",
                    step=float(f"{median / 20:.2g}"),
                    help="Kernel bandwidth in the convention above (scikit-learn's gamma = 1/sigma^2).")
    if refused:
        sb.error(plain(refused))
    sigma = float(ss["sigma"])
    lo, hi, step = sigma_slider_range(sigma, median)
    ss[K.SIGMA_SLIDER] = sigma
    sb.slider("sigma", lo, hi, key=K.SIGMA_SLIDER, step=step, format="%.3g",
              on_change=_set_sigma_from_slider, label_visibility="collapsed")
    sb.caption(default_sigma(ss[K.DATASET_SOURCE], ds, median)[1])
    sb.button(f"Median heuristic (sigma = {median:.4g})", key="sigma_median", on_click=_set_sigma,
              args=(median,), help="Median pairwise distance on a seeded sample of at most 1000 rows.")
    return sigma


# ---------------------------------------------------------------------------
# The sidebar every page draws first
# ---------------------------------------------------------------------------


def _option_title(source: str, file_name: str | None = None) -> str:
    # Pure (no session state): Streamlit may call a format_func outside the run that drew the widget.
    if source == FILE:
        return f"File {file_name}"
    return "Your uploaded file" if source == UPLOAD else SAMPLES[source].title


def _data_status(sb, ds: Dataset) -> None:
    """One statement of which data is shown; an error when it is not the selected data."""
    ss = st.session_state
    sb.text(f"Showing: {shown_title()}")  # may hold a file name: text, never markdown
    label = "no label" if ds.label_name is None else "label column"
    sampled = sample_note(ds)  # said in the same line as n, wherever the rows in use are a sample
    sb.caption(f"n = {ds.n:,} rows, d = {ds.d:,} features, {label}" + (", standardised" if ds.standardized else "")
               + (f"; n is {sampled}" if sampled else ""))
    if ss.get(K.DATA_ERROR):
        sb.warning(plain(f"The selected data ({source_title(ss['source'])}) cannot be used: see the message "
                         "on the page."), icon=":material/warning:")


def _start_on_app_file(file) -> None:
    """A session starts on the file the app was started with (unless its link named a sample)."""
    ss = st.session_state
    if file is not None and "source" not in ss and "source" not in ss.get(K.KEPT_VALUES, {}):
        ss["source"] = FILE


def sidebar() -> Settings | None:
    """Draw the menu and the shared controls and return the current :class:`Settings`.

    Every page calls this first. Returns None (after saying why) when no data
    could be loaded at all; pages then stop.
    """
    read_link()
    file = app_file()
    _start_on_app_file(file)
    persist_widget_values()
    compute.compiled_shadow_ready()
    ss = st.session_state
    sb = st.sidebar
    menu = sb.container()  # filled last: its links carry the settings this run ends with
    link_notes = st.container()  # filled once the data are loaded (the link's column choices are checked then)

    options = ([FILE] if file else []) + list(SAMPLES) + ([UPLOAD] if ss.get(K.UPLOADED) else [])
    if K.PENDING_SOURCE in ss:
        ss["source"] = ss.pop(K.PENDING_SOURCE)
    if ss["source"] not in options:
        ss["source"] = DEFAULT_SAMPLE
    if ss["source"] != UPLOAD:
        ss.pop(K.UPLOAD_ERROR, None)  # a sample was chosen after a refused upload: that story is over
    sb.selectbox("Data set", options, key="source",
                 format_func=functools.partial(_option_title, file_name=file.name if file else None),
                 help="Bundled samples, the file the app was started with (rskpca app FILE), or the file you "
                      "uploaded on the Data page.")
    ds = build_dataset()
    with link_notes:
        for note in ss.pop(K.LINK_NOTES, []):
            st.warning(plain(note), icon=":material/link:")
    if ss.get(K.DATA_ERROR):
        show_error(ss[K.DATA_ERROR] + ("" if ds is None else f"\nStill showing: {shown_title()}."))
    if ds is None:
        st.info("Nothing to show until a data set loads: choose a sample in the sidebar, or do what the message "
                "above says (the Data page has the file's options: columns, dropping rows with missing values).")
        sidebar_menu(menu, dict(st.query_params))
        return None
    _data_status(sb, ds)

    median = compute.median_sigma(ds.digest, ds.X)
    _sync_sigma(ds, median)
    sb.selectbox("Kernel", list(KERNEL_CONVENTIONS), key="kernel", format_func=str.capitalize)
    sb.latex(KERNEL_CONVENTIONS[ss["kernel"]])
    sigma = _sigma_controls(sb, ds, median)
    sb.slider("ell (shadow radius eps = sigma / ell)", *ELL_RANGE, key="ell", step=ELL_STEP,
              help="Larger ell: smaller shadows, more centers, better approximation, less speedup.")
    refused = _keep_usable_rank()
    sb.number_input("rank r (components)", *RANK_RANGE, value=None, key="r", step=1,
                    help=f"How many kernel principal components: {RANK_RANGE[0]} to {RANK_RANGE[1]}.")
    if refused:
        sb.error(refused)
    shown = ss[K.DATASET_SOURCE]
    settings = Settings(dataset=ds, source=shown, title=shown_title(), kernel=ss["kernel"], sigma=sigma,
                        ell=float(ss["ell"]), r=int(ss["r"]), sigma_median=median)
    shadow = compute.shadow(ds.digest, ds.X, settings.sigma, settings.ell, settings.kernel)
    sb.metric("shadow centers m (on all n rows)", f"{shadow.m:,}", f"{shadow.m / shadow.n:.1%} of n = {shadow.n:,}",
              delta_color="off", delta_arrow="off")
    if shadow.m > CENTERS_COST_SHOWN_M:  # a large m is a cost: said where m is set
        solve = centers_solve_cost(ds.digest, ds.X, settings.sigma, settings.kernel, settings.r, shadow.m)
        sb.caption(f"The m x m problem on {shadow.m:,} centers: about {seconds_text(solve.seconds)} per change of "
                   f"sigma or ell, {bytes_text(8 * shadow.m ** 2)} (predicted). Lower ell or raise sigma for fewer "
                   "centers.")
    _suggest_ell(sb, ds, settings, shadow.m)
    selection.sync(table_id(), ds)
    up = shown_upload()
    name = up["name"] if up and shown == UPLOAD else file.name if file and shown == FILE else None
    sidebar_menu(menu, write_link(data=data_param(shown, name), sigma=sigma, standardized=ds.standardized))
    return settings


def _apply_suggested_ell(digest: str, X, sigma: float, kernel: str) -> None:
    """The button's click: the largest grid ell that keeps at most a third of the rows, or why there is none."""
    found = compute.suggested_ell(digest, X, sigma, kernel)
    if found is None:
        st.toast(f"Even ell = {ELL_RANGE[0]:g} keeps more than a third of the rows at sigma = {sigma:.4g}: "
                 "raise sigma for fewer centers.", icon=":material/info:")
        return
    st.session_state["ell"] = float(found[0])


def _suggest_ell(sb, ds: Dataset, settings: Settings, m: int) -> None:
    """Where ell keeps nearly every row (the pages warn of little reduction), a button to the largest ell of
    the scrubbers' grid that keeps at most a third, so a user whose data open with little reduction has
    one click out of the warning. The search (a few shadows) runs on the click only, not on every rerun
    of every page. Not above :data:`~rskpca.ui.heavy.HEAVY_ROWS`, where each shadow costs seconds."""
    if m <= LITTLE_REDUCTION * ds.n or ds.n > HEAVY_ROWS:
        return
    sb.button("Find an ell that keeps at most a third of the rows", key="ell_suggest", icon=":material/compress:",
              on_click=_apply_suggested_ell, args=(ds.digest, ds.X, settings.sigma, settings.kernel),
              help="Sets ell to the largest ell of the scrubbers' grid (steps of 0.5) whose shadow keeps at most "
                   "a third of the rows at this sigma: enough reduction to see the method work.")


def start_page(title: str, *, needs_data: bool = True) -> Settings | None:
    """Page set-up shared by every view: page config, the shared :func:`sidebar`, the title.

    With ``needs_data`` the page stops here (after the sidebar has said why)
    when no data set could be loaded.
    """
    st.set_page_config(page_title=f"{title} - RSKPCA", page_icon=ICON, layout="wide")
    st.title(title)  # first: on screen while the sidebar loads the data and its shadow
    settings = sidebar()
    if needs_data and settings is None:
        st.stop()
    return settings

