"""The data in use: the upload, the selected table, and the data set prepared from it.

The source (a bundled sample, the file the app was started with (:mod:`rskpca.ui.app_file`) or the
user's upload) is chosen in the sidebar
(:mod:`rskpca.ui.page_setup`), the upload and the column choices on the Data page. This module
reads and checks an upload, turns the selected source into the :class:`~rskpca.data.datasets.Dataset`
the pages show (keeping the last good one, with the reason, when the selection cannot be used), and
names the table the data come from (:func:`table_id`: what linked selections count rows in).
"""

from __future__ import annotations

import hashlib

import streamlit as st

from rskpca.data.input_columns import check_usable
from rskpca.data.datasets import SAMPLES, DataError, guess_label_column
from rskpca.data.readers import MissingValuesError
from rskpca.ui import compute
from rskpca.ui import keys as K
from rskpca.ui.app_file import FILE, app_file, file_key, file_table, file_title
from rskpca.ui.keys import NO_LABEL, UPLOAD
from rskpca.ui import link

__all__ = ["accept_upload", "handle_upload", "current_table", "build_dataset", "column_options",
           "table_not_in_use", "upload_error", "table_id", "shown_upload", "shown_title", "source_title",
           "sample_note"]


def table_id() -> str:
    """The table the data in use come from (a sample's name, or the upload's digest): what row numbers count in."""
    ss = st.session_state
    source = ss.get(K.DATASET_SOURCE, ss.get("source"))
    if source == UPLOAD:
        up = shown_upload()
        return "upload:" + (up["digest"] if up else "")
    if source == FILE:
        return file_key(app_file())
    return f"sample:{source}"


def shown_upload() -> dict | None:
    """The upload the data shown came from: the accepted one, unless a newer upload was read but refused
    (the data shown are then the earlier upload's, and so are its name and its row numbers)."""
    ss = st.session_state
    return ss.get(K.SHOWN_UPLOAD) or ss.get(K.UPLOADED)


def shown_title() -> str:
    """The name of the data shown, for the sidebar's "Showing" and the messages' "Still showing"."""
    return source_title(st.session_state.get(K.DATASET_SOURCE), shown_upload())


def accept_upload(data: bytes, filename: str) -> None:
    """Parse an uploaded file; on success make it the current source (raises DataError otherwise)."""
    digest = hashlib.sha256(data).hexdigest()
    table = compute.read_upload(digest, data, filename)  # raises DataError: the caller shows it
    # A table no Data page choice can use (one row, no column of numbers) is refused here, as an unreadable
    # file is, so the sidebar never names an upload while it shows the earlier data.
    check_usable(table, filename)
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
            # to another file: back to the upload shown, so that the uploader, the error and the preview
            # never name three different files.
            ss[K.UPLOADED] = dict(shown)
            ss.pop(K.DATA_ERROR, None)
            st.rerun()
    else:
        ss.pop(K.UPLOAD_ERROR, None)
        st.rerun()


def table_not_in_use() -> bool:
    """Whether the selected table could not be prepared, so the pages still show an earlier one."""
    return bool(st.session_state.get(K.DATA_ERROR))


def upload_error() -> str | None:
    """Why the last upload was refused, with what is shown instead (None when nothing was refused)."""
    ss = st.session_state
    if not ss.get(K.UPLOAD_ERROR):
        return None
    shown = ss.get(K.DATASET_SOURCE)
    return ss[K.UPLOAD_ERROR] + ("" if shown is None else f"\nStill showing: {shown_title()}.")


def source_title(source: str, upload: dict | None = None) -> str:
    """A source's name; an upload's is ``upload``'s, by default the newest upload's."""
    if source == UPLOAD:
        up = upload or st.session_state.get(K.UPLOADED)
        return f"Uploaded file {up['name']}" if up else "Uploaded file"
    if source == FILE:
        return file_title(app_file())
    return SAMPLES[source].title


def current_table():
    """``(source_key, DataFrame)`` of the selected source (a sample, the app's file or the uploaded file)."""
    source = st.session_state["source"]
    if source == UPLOAD:
        up = st.session_state.get(K.UPLOADED)
        if up is None:
            raise DataError("No file has been uploaded yet; upload one on the Data page.")
        return "upload:" + up["digest"], compute.read_upload(up["digest"], up["bytes"], up["name"])
    if source == FILE:
        file = app_file()
        if file is None:
            raise DataError("The app was not started with a data file: choose a sample or upload a file.")
        return file_key(file), file_table(file)
    return "sample:" + source, compute.sample_table(source)


def build_dataset():
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
            if ss["source"] == FILE and int(ss["max_rows"]) == K.DEFAULT_MAX_ROWS:
                # The file named on the command line is used whole (it was read, so it fits in memory): the
                # default cap, a budget for the first views, is for tables chosen in the app. A cap the user
                # or a link set stays.
                ss["max_rows"] = max(K.DEFAULT_MAX_ROWS, len(df))
            sample = SAMPLES.get(source_key[len("sample:"):]) if source_key.startswith("sample:") else None
            ss["standardize"] = bool(sample is not None and sample.standardize)  # the sample says so
            link.apply_table_link(ss["source"], source_key, df)  # a link's column choices, once its table is here
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
        # The fix is a switch of this app's: named, so the user need not look for it
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


def sample_note(ds) -> str:
    """Said next to n wherever the rows in use are the row cap's seeded sample ("" when every row is used).

    The cap's sample is the only step that leaves exactly the cap's rows out of more (dropping rows with
    missing values leaves any number).
    """
    cap = int(st.session_state.get("max_rows") or 0)
    if ds.n < ds.n_original and ds.n == cap:
        return f"a seeded sample of the {ds.n_original:,} rows (the row cap on the Data page)"
    return ""


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

