"""Session state of the app: key names, defaults, URL sync, and the sidebar every page draws first.

Pages are discovered from ``pages/`` (no ``st.navigation``), so a widget's value
would be dropped when the user opens another page that does not draw it.
:func:`sidebar` therefore re-assigns every persistent widget key at the top of
each run (the documented way to keep widget values across pages), and keeps
app-owned results (the prepared data set, the uploaded file) in keys that no
widget owns.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

import numpy as np
import streamlit as st

from rskpca.data.datasets import SAMPLES, DataError, Dataset, guess_label_column
from rskpca.ui import compute, selection
from rskpca.ui.widgets import show_error

__all__ = ["Settings", "sidebar", "start_page", "UPLOAD", "NO_LABEL", "KEYS", "DEFAULT_SAMPLE", "accept_upload",
           "column_choice_keys", "SELECTION", "table_id"]

#: The source key of an uploaded file (sample names are the other sources).
UPLOAD = "__upload__"
#: The label selectbox's "no label" choice.
NO_LABEL = "(no label column)"
DEFAULT_SAMPLE = "two_moons"
DEFAULT_ELL = 4.0
DEFAULT_RANK = 5
ELL_RANGE = (1.0, 10.0)
RANK_RANGE = (1, 20)
DEFAULT_MAX_ROWS = 5000
KERNEL_CONVENTIONS = {
    "gaussian": r"k(x,y)=\exp\left(-\|x-y\|^2/\sigma^2\right)",
    "laplacian": r"k(x,y)=\exp\left(-\|x-y\|/\sigma\right)",
}

#: Widget keys whose values must survive page switches, with their defaults (None: set elsewhere).
KEYS = {
    "source": DEFAULT_SAMPLE,
    "kernel": "gaussian",
    "sigma": None,
    "ell": DEFAULT_ELL,
    "r": DEFAULT_RANK,
    # Data page
    "feature_columns": None,
    "label_column": None,
    "standardize": False,
    "max_rows": DEFAULT_MAX_ROWS,
    "drop_missing": False,
    "row_seed": 0,
    # page-level choices worth keeping while the user looks elsewhere
    "emb_dims": "2-D",
    "emb_groups": None,
    "speed_groups": None,
    "emb_gram_error": False,
    "classifier": None,
    "cv_folds": 5,
    "cv_live": False,
    "kde_line_a": None,
    "kde_line_b": None,
    "bounds_max_exact": 500,
    "bounds_measured_curves": False,
    "speed_curves": False,
    "run_slow": False,
    "sweep_points": 5,
}


#: App-owned key (no widget owns it): the linked selection, {"table", "rows", "from", "fresh"}
#: (see :mod:`rskpca.ui.selection`).
SELECTION = "_selection"


def table_id() -> str:
    """The table the data in use come from (a sample's name, or the upload's digest): what row numbers count in."""
    ss = st.session_state
    source = ss.get("_dataset_source", ss.get("source"))
    if source == UPLOAD:
        up = ss.get("_upload")
        return "upload:" + (up["digest"] if up else "")
    return f"sample:{source}"


def column_choice_keys() -> tuple[str, ...]:
    """Keys that depend on the columns of the current table (reset when it changes)."""
    return ("feature_columns", "label_column", "kde_line_a", "kde_line_b")


@dataclass(frozen=True)
class Settings:
    """What every page needs: the data and the shared kernel settings."""

    dataset: Dataset
    source: str
    title: str
    kernel: str
    sigma: float
    ell: float
    r: int
    sigma_median: float


def _persist_widget_values() -> None:
    ss = st.session_state
    for key, default in KEYS.items():
        if key in ss:
            ss[key] = ss[key]
        elif default is not None:
            ss[key] = default


def _load_query_params() -> None:
    """Apply a shared URL (dataset, kernel, sigma, ell, r) once per session; ignore bad values."""
    ss = st.session_state
    if ss.get("_query_loaded"):
        return
    ss["_query_loaded"] = True
    qp = st.query_params
    problems = []
    if "dataset" in qp:
        if qp["dataset"] in SAMPLES:
            ss["source"] = qp["dataset"]
        else:
            problems.append(f"dataset={qp['dataset']!r}")
    if "kernel" in qp:
        if qp["kernel"] in KERNEL_CONVENTIONS:
            ss["kernel"] = qp["kernel"]
        else:
            problems.append(f"kernel={qp['kernel']!r}")
    for name, lo, hi, cast in (("ell", *ELL_RANGE, float), ("r", *RANK_RANGE, int)):
        if name in qp:
            try:
                ss[name] = cast(min(max(cast(qp[name]), lo), hi))
            except ValueError:
                problems.append(f"{name}={qp[name]!r}")
    if "sigma" in qp:
        try:
            sigma = float(qp["sigma"])
            if not (np.isfinite(sigma) and sigma > 0):
                raise ValueError
            ss["sigma"] = sigma
            ss["_sigma_from_url"] = True
        except ValueError:
            problems.append(f"sigma={qp['sigma']!r}")
    if problems:
        ss["_url_problems"] = problems


def _write_query_params(settings: Settings) -> None:
    want = {"kernel": settings.kernel, "sigma": f"{settings.sigma:.6g}", "ell": f"{settings.ell:g}",
            "r": str(settings.r)}
    if settings.source != UPLOAD:
        want = {"dataset": settings.source, **want}
    if dict(st.query_params) != want:
        st.query_params.from_dict(want)


def accept_upload(data: bytes, filename: str) -> None:
    """Parse an uploaded file; on success make it the current source (raises DataError otherwise)."""
    digest = hashlib.sha256(data).hexdigest()
    compute.read_upload(digest, data, filename)  # raises DataError: the caller shows it
    ss = st.session_state
    ss["_upload"] = {"name": filename, "digest": digest, "bytes": data}
    # The source selectbox is already drawn in this run: switch to the upload on the next one.
    ss["_pending_source"] = UPLOAD


def _option_title(source: str) -> str:
    # Pure (no session state): Streamlit may call a format_func outside the run that drew the widget.
    return "Your uploaded file" if source == UPLOAD else SAMPLES[source].title


def _source_title(source: str) -> str:
    if source == UPLOAD:
        up = st.session_state.get("_upload")
        return f"Uploaded: {up['name']}" if up else "Uploaded file"
    return SAMPLES[source].title


def current_table():
    """``(source_key, DataFrame)`` of the selected source (a sample or the uploaded file)."""
    source = st.session_state["source"]
    if source == UPLOAD:
        up = st.session_state.get("_upload")
        if up is None:
            raise DataError("No file has been uploaded yet; upload one on the Data page.")
        return "upload:" + up["digest"], compute.read_upload(up["digest"], up["bytes"], up["name"])
    return "sample:" + source, compute.sample_table(source)


def _build_dataset():
    """Prepare the current source with the Data page's choices; keep the last good data on error."""
    ss = st.session_state
    try:
        source_key, df = current_table()
        if ss.get("_columns_for") != source_key:
            for k in column_choice_keys():
                ss.pop(k, None)
            ss["_columns_for"] = source_key
            ss["label_column"] = guess_label_column(df) or NO_LABEL
            ss["standardize"] = bool(source_key.startswith("sample:") and
                                     source_key[7:] in ("wine", "breast_cancer"))
        label = ss.get("label_column")
        label = None if label in (None, NO_LABEL) else label
        features = ss.get("feature_columns")
        features = tuple(features) if features else None
        ds = compute.prepared(source_key, df, features, label, bool(ss["standardize"]),
                              int(ss["max_rows"]), "drop" if ss["drop_missing"] else "error", int(ss["row_seed"]))
    except (ValueError, TypeError) as exc:  # DataError, or anything else the table's contents provoke
        ss["_data_error"] = str(exc)
        return ss.get("_dataset")
    ss["_dataset"] = ds
    ss["_dataset_source"] = ss["source"]
    ss.pop("_data_error", None)
    return ds


def _sync_sigma(ds: Dataset, median: float) -> None:
    """Reset sigma to the median heuristic when the data change (unless a shared URL set it)."""
    ss = st.session_state
    if ss.get("_sigma_digest") == ds.digest and ss.get("sigma"):
        return
    if ss.pop("_sigma_from_url", False) and ss.get("sigma"):
        ss["_sigma_digest"] = ds.digest
        return
    ss["sigma"] = float(f"{median:.4g}")
    ss["_sigma_digest"] = ds.digest


def _set_sigma_from_slider() -> None:
    st.session_state["sigma"] = st.session_state["sigma_slider"]


def _set_sigma(value: float) -> None:
    st.session_state["sigma"] = float(f"{value:.4g}")


def sidebar() -> Settings | None:
    """Draw the shared controls and return the current :class:`Settings`.

    Every page calls this first. Returns None (after saying why) when no data
    could be loaded at all; pages then stop.
    """
    _load_query_params()
    _persist_widget_values()
    ss = st.session_state
    sb = st.sidebar
    for problem in ss.pop("_url_problems", []):
        st.warning(f"Ignored a setting from the link that is not valid: {problem}")

    options = list(SAMPLES) + ([UPLOAD] if ss.get("_upload") else [])
    if "_pending_source" in ss:
        ss["source"] = ss.pop("_pending_source")
    if ss["source"] not in options:
        ss["source"] = DEFAULT_SAMPLE
    sb.selectbox("Data set", options, key="source", format_func=_option_title,
                 help="Bundled samples, or the file you uploaded on the Data page.")
    ds = _build_dataset()
    if ss.get("_data_error"):
        show_error(f"{ss['_data_error']}" + ("" if ds is None else
                 f"  \nStill showing the last data that worked ({_source_title(ss.get('_dataset_source', ''))})."
                 if ss.get("_dataset_source") in options else ""))
    if ds is None:
        st.info("Choose a sample data set in the sidebar, or fix the upload on the Data page.")
        return None
    if ss["source"] == UPLOAD and ss.get("_upload"):
        sb.text(f"File: {ss['_upload']['name']}")  # user text: shown as text, never markdown
    label = "no label" if ds.label_name is None else "label column"
    sb.caption(f"n = {ds.n} rows, d = {ds.d} features, {label}"
               + (", standardised" if ds.standardized else ""))

    median = compute.median_sigma(ds.digest, ds.X)
    _sync_sigma(ds, median)
    sb.selectbox("Kernel", list(KERNEL_CONVENTIONS), key="kernel", format_func=str.capitalize)
    sb.latex(KERNEL_CONVENTIONS[ss["kernel"]])
    lo, hi = float(f"{median / 20:.3g}"), float(f"{median * 5:.3g}")
    sb.number_input("sigma (bandwidth)", min_value=1e-9, key="sigma", format="%.4g", step=float(f"{median / 20:.2g}"),
                    help="Kernel bandwidth in the convention above (scikit-learn's gamma = 1/sigma^2).")
    sigma = float(ss["sigma"])
    ss["sigma_slider"] = float(min(max(sigma, lo), hi))
    sb.slider("sigma", lo, hi, key="sigma_slider", step=float(f"{(hi - lo) / 200:.2g}"), format="%.3g",
              on_change=_set_sigma_from_slider, label_visibility="collapsed")
    sb.button(f"Median heuristic (sigma = {median:.4g})", key="sigma_median", on_click=_set_sigma,
              args=(median,), help="Median pairwise distance on a seeded sample of at most 1000 rows.")
    sb.slider("ell (shadow radius eps = sigma / ell)", *ELL_RANGE, key="ell", step=0.1,
              help="Larger ell: smaller shadows, more centers, better approximation, less speedup.")
    sb.number_input("rank r (components)", *RANK_RANGE, key="r", step=1)
    # After a failed change of data the pages keep the last data that worked: name that one.
    shown = ss.get("_dataset_source", ss["source"])
    settings = Settings(dataset=ds, source=shown, title=_source_title(shown), kernel=ss["kernel"], sigma=sigma,
                        ell=float(ss["ell"]), r=int(ss["r"]), sigma_median=median)
    shadow = compute.shadow(ds.digest, ds.X, settings.sigma, settings.ell, settings.kernel)
    sb.metric("shadow centers m", f"{shadow.m}", f"{shadow.m / shadow.n:.1%} of n", delta_color="off",
              delta_arrow="off")
    selection.sync(table_id(), ds)
    _write_query_params(settings)
    return settings


def start_page(title: str, *, needs_data: bool = True) -> Settings | None:
    """Page set-up shared by every view: page config, the shared :func:`sidebar`, the title.

    With ``needs_data`` the page stops here (after the sidebar has said why)
    when no data set could be loaded.
    """
    st.set_page_config(page_title=f"{title} - RSKPCA", layout="wide")
    settings = sidebar()
    st.title(title)
    if needs_data and settings is None:
        st.stop()
    return settings
