"""Session state of the app: key names, defaults, URL sync, and the sidebar every page draws first.

Pages are discovered from ``pages/`` (no ``st.navigation``), so a widget's value
would be dropped when the user opens another page that does not draw it.
:func:`sidebar` therefore re-assigns every persistent widget key at the top of
each run (the documented way to keep widget values across pages), and keeps
app-owned results (the prepared data set, the uploaded file) in keys that no
widget owns.
"""

from __future__ import annotations

import functools
import hashlib
import itertools
import threading
from dataclasses import dataclass
from pathlib import Path

import streamlit as st
from streamlit.errors import StreamlitAPIException

from rskpca.data.columns import unusable_reason
from rskpca.data.datasets import SAMPLES, DataError, Dataset, guess_label_column
from rskpca.data.readers import MissingValuesError
from rskpca.ui import compute, selection
from rskpca.ui import keys as K
from rskpca.ui.keys import DEFAULT_SAMPLE, ELL_RANGE, ELL_STEP, KEYS, NO_LABEL, RANK_RANGE, UPLOAD
from rskpca.ui.link import KERNEL_CONVENTIONS, data_param, link_sigma_for, read_link, write_link
from rskpca.ui.nav import sidebar_menu
from rskpca.ui.heavy import HEAVY_ROWS
from rskpca.ui.widgets import LITTLE_REDUCTION, plain, show_error

__all__ = ["Settings", "sidebar", "start_page", "fragment", "accept_upload", "handle_upload", "current_table",
           "setting", "column_options", "row_choice", "cv_requested", "request_cv", "upload_error", "ICON",
           "table_id"]

#: The page icon, bundled (a material icon as favicon is fetched from Google's servers: the app runs offline).
ICON = str(Path(__file__).with_name("icon.png"))


def table_id() -> str:
    """The table the data in use come from (a sample's name, or the upload's digest): what row numbers count in."""
    ss = st.session_state
    source = ss.get(K.DATASET_SOURCE, ss.get("source"))
    if source == UPLOAD:
        up = _shown_upload()
        return "upload:" + (up["digest"] if up else "")
    return f"sample:{source}"


def _shown_upload() -> dict | None:
    """The upload the data shown came from: the accepted one, unless a newer upload was read but refused
    (the data shown are then the earlier upload's, and so are its name and its row numbers)."""
    ss = st.session_state
    return ss.get(K.SHOWN_UPLOAD) or ss.get(K.UPLOADED)


def _shown_title() -> str:
    """The name of the data shown, for the sidebar's "Showing" and the messages' "Still showing"."""
    return _source_title(st.session_state.get(K.DATASET_SOURCE), _shown_upload())


@dataclass(frozen=True)
class Settings:
    """What every page needs: the data shown and the shared kernel settings."""

    dataset: Dataset
    source: str
    title: str
    kernel: str
    sigma: float
    ell: float
    r: int
    sigma_median: float


def setting(key: str):
    """The current value of a registered widget key (its default before the widget is drawn)."""
    if key not in KEYS:
        raise KeyError(f"{key!r} is not in rskpca.ui.keys.KEYS")
    return st.session_state.get(key, KEYS[key])


def _persist_widget_values() -> None:
    """Re-assign every persistent widget key, from a copy no widget owns where Streamlit let it go.

    A fragment's run draws none of the widgets outside it, and Streamlit then drops their values:
    the next page a user opened came back on the default sample, sigma and ell (a tryout: digits,
    a new row on KDE vs ShDE's line -- a fragment --, then Bounds showed two moons). So the values
    are also kept under :data:`~rskpca.ui.keys.KEPT_VALUES`, and restored from there.
    """
    ss = st.session_state
    kept = ss.setdefault(K.KEPT_VALUES, {})
    # What a fragment's widgets were set to: the session's own value of such a key can be the one
    # assigned at the start of the last full run (a tryout: Bounds' curve toggle came back off).
    fresh = ss.pop(K.KEPT_FRESH, set())
    for key, default in KEYS.items():
        if key in fresh and key in kept:
            ss[key] = kept[key]
        elif key in ss:
            ss[key] = ss[key]
        elif key in kept:
            ss[key] = kept[key]
        elif default is not None:
            ss[key] = default
    _keep_widget_values()


def _keep_widget_values() -> None:
    ss = st.session_state
    kept = ss.setdefault(K.KEPT_VALUES, {})
    kept.update((key, ss[key]) for key in KEYS if key in ss)


def _fragment_run() -> bool:
    """Whether this script run runs fragments only (a widget inside one changed), not the whole page."""
    from streamlit.runtime.scriptrunner import get_script_run_ctx

    ctx = get_script_run_ctx()
    return bool(ctx is not None and getattr(ctx, "fragment_ids_this_run", None))


def _assign_kept_values_outside_the_fragment(kept: dict) -> None:
    """Assign, at the end of a fragment's run, the kept value of every key whose widget it did not draw.

    After a fragment's run Streamlit served, at the next full run, a widget's value from an earlier
    page over the one the session had assigned (a tryout: iris, Speedups' randomized-solver toggle on,
    Bounds' curve toggle -- a fragment --, then Speedups showed the toggle off; the Data page's
    "Standardise" came back off after a row change on KDE vs ShDE's line, so the data in use silently
    went back to raw scale). A value assigned in this run outranks those; a widget the user changes
    next still outranks it (its new state comes from the browser), so a sidebar change right after a
    fragment's run is kept. Streamlit refuses the assignment for a widget this run drew: those are
    the fragment's own, kept already.
    """
    ss = st.session_state
    for key, value in kept.items():
        try:
            ss[key] = value
        except StreamlitAPIException:
            pass


def fragment(body):
    """``st.fragment`` for the pages: what its widgets were set to is kept for the next full run.

    A widget changed in a fragment's run would otherwise come back at its old value once the user
    opened another page (see :func:`_persist_widget_values`).
    """
    @functools.wraps(body)
    def run(*args, **kwargs):
        ss = st.session_state
        kept = ss.setdefault(K.KEPT_VALUES, {})
        alone = _fragment_run()
        # in a fragment's own run, the keys its widget event changed (the sidebar's start full runs)
        changed = {key for key in KEYS if key in ss and (key not in kept or kept[key] != ss[key])} if alone else set()
        try:
            return body(*args, **kwargs)
        finally:
            if alone:
                _keep_widget_values()
                ss[K.KEPT_FRESH] = ss.get(K.KEPT_FRESH, set()) | changed
                _assign_kept_values_outside_the_fragment(kept)

    return st.fragment(run)


# ---------------------------------------------------------------------------
# Data: the upload, the selected table, the data set shown
# ---------------------------------------------------------------------------


def accept_upload(data: bytes, filename: str) -> None:
    """Parse an uploaded file; on success make it the current source (raises DataError otherwise)."""
    digest = hashlib.sha256(data).hexdigest()
    table = compute.read_upload(digest, data, filename)  # raises DataError: the caller shows it
    # A table no Data page choice can use (one row, no column of numbers) is refused here, as an unreadable
    # file is: selected, it left the sidebar naming the upload over "Showing:" the earlier data (a tryout).
    reason = unusable_reason(table)
    if reason:
        raise DataError(f"{filename} cannot be used: {reason}")
    ss = st.session_state
    ss[K.UPLOADED] = {"name": filename, "digest": digest, "bytes": data}
    # The source selectbox is already drawn in this run: switch to the upload on the next one.
    ss[K.PENDING_SOURCE] = UPLOAD


def handle_upload(upload) -> None:
    """The Data page's uploader value: read a new file once; remember why it was refused, or rerun with it."""
    ss = st.session_state
    if upload is None:
        ss.pop(K.UPLOAD_ERROR, None)  # the refused file was removed from the uploader: nothing to explain
        ss.pop(K.UPLOAD_FILE_ID, None)
        return
    if upload.file_id == ss.get(K.UPLOAD_FILE_ID):
        return
    ss[K.UPLOAD_FILE_ID] = upload.file_id
    try:
        accept_upload(upload.getvalue(), upload.name)
    except Exception as exc:  # noqa: BLE001 - untrusted bytes: every failure is reported, none is a traceback
        reason = str(exc) if isinstance(exc, DataError) else f"{type(exc).__name__}: {exc}"
        # DataError messages already name the file; say it once.
        ss[K.UPLOAD_ERROR] = reason if upload.name in reason else f"Could not read {upload.name}: {reason}"
        shown = ss.get(K.SHOWN_UPLOAD)
        if ss.get(K.DATA_ERROR) and ss.get("source") == UPLOAD and ss.get(K.DATASET_SOURCE) == UPLOAD and shown:
            # The selected upload could not be used either (say, missing values), and the user has moved on
            # to another file: back to the upload shown, rather than three files in play (a tryout saw the
            # uploader, the error above it and the preview each name another one).
            ss[K.UPLOADED] = dict(shown)
            ss.pop(K.DATA_ERROR, None)
            st.rerun()
    else:
        ss.pop(K.UPLOAD_ERROR, None)
        st.rerun()


def timing_round() -> int:
    """The Speedups page's timing round of this session: 0 until the user asks to time again."""
    return int(st.session_state.get(K.TIMING_ROUND, 0))


# Rounds are numbered across the server's sessions: the timed fits are cached for all of them, and a
# per-session count replayed another session's earlier rounds digit for digit (a tryout's second
# browser session "timed again" to exactly the first one's times).
_ROUNDS = itertools.count(1)
_ROUNDS_LOCK = threading.Lock()


def next_timing_round() -> None:
    """A timing round no session has used: its fits miss every cache and are timed anew."""
    with _ROUNDS_LOCK:
        st.session_state[K.TIMING_ROUND] = next(_ROUNDS)


def table_not_in_use() -> bool:
    """Whether the selected table could not be prepared, so the pages still show an earlier one."""
    return bool(st.session_state.get(K.DATA_ERROR))


def upload_error() -> str | None:
    """Why the last upload was refused, with what is shown instead (None when nothing was refused)."""
    ss = st.session_state
    if not ss.get(K.UPLOAD_ERROR):
        return None
    shown = ss.get(K.DATASET_SOURCE)
    return ss[K.UPLOAD_ERROR] + ("" if shown is None else f"\nStill showing: {_shown_title()}.")


def _option_title(source: str) -> str:
    # Pure (no session state): Streamlit may call a format_func outside the run that drew the widget.
    return "Your uploaded file" if source == UPLOAD else SAMPLES[source].title


def _source_title(source: str, upload: dict | None = None) -> str:
    """A source's name; an upload's is ``upload``'s, by default the newest upload's."""
    if source == UPLOAD:
        up = upload or st.session_state.get(K.UPLOADED)
        return f"Uploaded file {up['name']}" if up else "Uploaded file"
    return SAMPLES[source].title


def current_table():
    """``(source_key, DataFrame)`` of the selected source (a sample or the uploaded file)."""
    source = st.session_state["source"]
    if source == UPLOAD:
        up = st.session_state.get(K.UPLOADED)
        if up is None:
            raise DataError("No file has been uploaded yet; upload one on the Data page.")
        return "upload:" + up["digest"], compute.read_upload(up["digest"], up["bytes"], up["name"])
    return "sample:" + source, compute.sample_table(source)


def _build_dataset():
    """Prepare the current source with the Data page's choices; keep the last good data on error."""
    ss = st.session_state
    try:
        source_key, df = current_table()
        if ss.get(K.COLUMNS_FOR) != source_key:
            for k in K.COLUMN_CHOICE_KEYS:  # (the kept copies too, or the next run restores them)
                ss.pop(k, None)
                ss.get(K.KEPT_VALUES, {}).pop(k, None)
            ss[K.COLUMNS_FOR] = source_key
            ss["label_column"] = guess_label_column(df) or NO_LABEL
            ss["standardize"] = bool(source_key.startswith("sample:") and
                                     source_key[7:] in ("wine", "breast_cancer"))
        if K.LINK_STANDARDIZE in ss and source_key.startswith("sample:"):
            ss["standardize"] = ss.pop(K.LINK_STANDARDIZE)
        label = ss.get("label_column")
        label = None if label in (None, NO_LABEL) else label
        features = ss.get("feature_columns")
        features = tuple(features) if features else None
        ds = compute.prepared(source_key, df, features, label, bool(ss["standardize"]), int(ss["max_rows"]),
                              "drop" if ss["drop_missing"] else "error", int(ss["row_seed"]),
                              "missing" if ss["stray_text_missing"] else "exclude")
    except (ValueError, TypeError) as exc:  # DataError, or anything else the table's contents provoke
        # The fix is a switch of this app's: named, so no one looks for it (a tryout did not see it)
        hint = (" Or tick \"Drop missing rows\" on the Data page (under Columns and preprocessing)."
                if isinstance(exc, MissingValuesError) else "")
        ss[K.DATA_ERROR] = str(exc) + hint
        return ss.get(K.DATASET)
    ss[K.DATASET] = ds
    ss[K.DATASET_SOURCE] = ss["source"]
    if ss["source"] == UPLOAD:
        ss[K.SHOWN_UPLOAD] = dict(ss[K.UPLOADED])  # (the same bytes object: no copy)
    ss.pop(K.DATA_ERROR, None)
    return ds


def column_options(df, numeric) -> tuple[list, list]:
    """``(label options, feature options)`` for the Data page, dropping stale choices of another table."""
    ss = st.session_state
    label_options = [NO_LABEL] + list(df.columns)
    if ss.get("label_column", NO_LABEL) not in label_options:
        ss["label_column"] = NO_LABEL
    feature_options = [c for c in numeric if c != ss["label_column"]]
    chosen = ss.get("feature_columns")
    if chosen is not None and any(c not in feature_options for c in chosen):
        ss["feature_columns"] = [c for c in chosen if c in feature_options]
    return label_options, feature_options


def row_choice(key: str, default: int, n: int) -> None:
    """Give a row-number widget a valid value before it is drawn (the data may have fewer rows now)."""
    ss = st.session_state
    if ss.get(key) is None or ss[key] > n - 1:
        ss[key] = default


def cv_requested(request: tuple) -> bool:
    """Whether the user asked for this cross-validation (kept per settings for the session)."""
    return request in st.session_state.setdefault(K.CV_REQUESTED, set())


def request_cv(request: tuple) -> None:
    st.session_state.setdefault(K.CV_REQUESTED, set()).add(request)


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
    return float(f"{median:.4g}"), "Default: the median heuristic (median distance between rows)."


def _sync_sigma(ds: Dataset, median: float) -> None:
    """Set sigma to the data's default when the data change (unless a link for this data set it)."""
    ss = st.session_state
    if ss.get(K.SIGMA_DIGEST) == ds.digest and ss.get("sigma"):
        return
    ss[K.SIGMA_DIGEST] = ds.digest
    if ss.pop(K.LINK_SIGMA, False) and ss.get("sigma"):
        return
    up = _shown_upload()
    from_link = link_sigma_for(up["name"]) if up and ss[K.DATASET_SOURCE] == UPLOAD else None
    if from_link is not None:  # a link named this file before it was uploaded
        ss["sigma"] = from_link
        return
    ss["sigma"] = default_sigma(ss[K.DATASET_SOURCE], ds, median)[0]


def _set_sigma_from_slider() -> None:
    st.session_state["sigma"] = st.session_state[K.SIGMA_SLIDER]


def _set_sigma(value: float) -> None:
    st.session_state["sigma"] = float(f"{value:.4g}")


def sigma_slider_range(sigma: float, median: float) -> tuple[float, float]:
    """The slider's range: median/20 .. 5 median, widened to hold sigma (so box and slider show one value)."""
    lo, hi = float(f"{median / 20:.3g}"), float(f"{median * 5:.3g}")
    return min(lo, sigma), max(hi, sigma)


def _sigma_controls(sb, ds: Dataset, median: float) -> float:
    ss = st.session_state
    sb.number_input("sigma (bandwidth)", min_value=1e-9, key="sigma", format="%.4g",
                    step=float(f"{median / 20:.2g}"),
                    help="Kernel bandwidth in the convention above (scikit-learn's gamma = 1/sigma^2).")
    sigma = float(ss["sigma"])
    lo, hi = sigma_slider_range(sigma, median)
    ss[K.SIGMA_SLIDER] = sigma
    sb.slider("sigma", lo, hi, key=K.SIGMA_SLIDER, step=float(f"{(hi - lo) / 200:.2g}"), format="%.3g",
              on_change=_set_sigma_from_slider, label_visibility="collapsed")
    sb.caption(default_sigma(ss[K.DATASET_SOURCE], ds, median)[1])
    sb.button(f"Median heuristic (sigma = {median:.4g})", key="sigma_median", on_click=_set_sigma,
              args=(median,), help="Median pairwise distance on a seeded sample of at most 1000 rows.")
    return sigma


# ---------------------------------------------------------------------------
# The sidebar every page draws first
# ---------------------------------------------------------------------------


def _data_status(sb, ds: Dataset) -> None:
    """One statement of which data is shown; an error when it is not the selected data."""
    ss = st.session_state
    sb.text(f"Showing: {_shown_title()}")  # may hold a file name: text, never markdown
    label = "no label" if ds.label_name is None else "label column"
    sb.caption(f"n = {ds.n} rows, d = {ds.d} features, {label}" + (", standardised" if ds.standardized else ""))
    if ss.get(K.DATA_ERROR):
        sb.warning(plain(f"The selected data ({_source_title(ss['source'])}) cannot be used: see the message "
                         "on the page."), icon=":material/warning:")


def sidebar() -> Settings | None:
    """Draw the menu and the shared controls and return the current :class:`Settings`.

    Every page calls this first. Returns None (after saying why) when no data
    could be loaded at all; pages then stop.
    """
    read_link()
    _persist_widget_values()
    ss = st.session_state
    sb = st.sidebar
    menu = sb.container()  # filled last: its links carry the settings this run ends with
    for note in ss.pop(K.LINK_NOTES, []):
        st.warning(plain(note), icon=":material/link:")

    options = list(SAMPLES) + ([UPLOAD] if ss.get(K.UPLOADED) else [])
    if K.PENDING_SOURCE in ss:
        ss["source"] = ss.pop(K.PENDING_SOURCE)
    if ss["source"] not in options:
        ss["source"] = DEFAULT_SAMPLE
    if ss["source"] != UPLOAD:
        ss.pop(K.UPLOAD_ERROR, None)  # a sample was chosen after a refused upload: that story is over
    sb.selectbox("Data set", options, key="source", format_func=_option_title,
                 help="Bundled samples, or the file you uploaded on the Data page.")
    ds = _build_dataset()
    if ss.get(K.DATA_ERROR):
        show_error(ss[K.DATA_ERROR] + ("" if ds is None else f"\nStill showing: {_shown_title()}."))
    if ds is None:
        st.info("Choose a sample data set in the sidebar, or fix the upload on the Data page.")
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
    sb.number_input("rank r (components)", *RANK_RANGE, key="r", step=1,
                    help=f"How many kernel principal components: {RANK_RANGE[0]} to {RANK_RANGE[1]}.")
    shown = ss[K.DATASET_SOURCE]
    settings = Settings(dataset=ds, source=shown, title=_shown_title(), kernel=ss["kernel"], sigma=sigma,
                        ell=float(ss["ell"]), r=int(ss["r"]), sigma_median=median)
    shadow = compute.shadow(ds.digest, ds.X, settings.sigma, settings.ell, settings.kernel)
    sb.metric("shadow centers m (on all n rows)", f"{shadow.m}", f"{shadow.m / shadow.n:.1%} of n = {shadow.n}",
              delta_color="off", delta_arrow="off")
    _suggest_ell(sb, ds, settings, shadow.m)
    selection.sync(table_id(), ds)
    up = _shown_upload()
    sidebar_menu(menu, write_link(data=data_param(shown, up["name"] if up else None), kernel=settings.kernel,
                                  sigma=sigma, ell=settings.ell, r=settings.r, standardized=ds.standardized,
                                  measured_rows=int(setting("bounds_max_exact"))))
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
    the scrubbers' grid that keeps at most a third (a tryout: digits opens at 94% and every page warned).
    The search (five or six shadows: 70-95 ms on usps at a new sigma) runs on the click only, not on every
    rerun of every page. Not above :data:`~rskpca.ui.heavy.HEAVY_ROWS`, where each shadow costs seconds."""
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
    settings = sidebar()
    st.title(title)
    if needs_data and settings is None:
        st.stop()
    return settings
