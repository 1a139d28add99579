"""The shareable link: the view in the address bar, read once per session and kept in sync.

A link names its data (``data=two_moons``, ``data=upload:<file name>`` or, for the file the app was
started with, ``data=file:<file name>``)
because sigma is a length on that data's scale: a sigma chosen for one data set
means nothing on another (29.77 on Two moons keeps one center). So sigma is
applied only when the data the link names is what the app shows; otherwise the
app says so and keeps its own sigma. ``std=1`` says the sample was standardised
and ``std=0`` that it was not (the Data page's choice, which sets that scale).
An upload cannot travel in a link: the link names the file, and its sigma is applied
if a file of that name is uploaded later in the session; a started-with file's, on a server started
with a file of that name.

Every other setting that changes what a page shows (the kernel, ell and r, the label and colour
columns, the row cap, each page's options) is an entry of one registry,
:data:`rskpca.ui.link_settings.LINKED`, read and written here the same way; the selection travels as
its rows, or as the box or lasso that made it (:mod:`rskpca.ui.selection`). Column choices and the
selection are applied when the table the link names is loaded (:func:`apply_table_link`). What a link
asks that cannot be applied (a file not here, a column not in the data, a number out of range) is
said, part by part, and the rest applied.
"""

from __future__ import annotations

import numpy as np
import streamlit as st

from rskpca.data.datasets import SAMPLES, numeric_columns
from rskpca.ui import keys as K
from rskpca.ui import selection
from rskpca.ui.app_file import FILE, app_file
from rskpca.ui.keys import KEYS
from rskpca.ui.link_settings import LINKED, Clamped, TableColumns

__all__ = ["KERNEL_CONVENTIONS", "UPLOAD_PREFIX", "FILE_PREFIX", "read_link", "write_link", "refresh_link",
           "apply_table_link", "linked_params", "link_sigma_for", "data_param"]

KERNEL_CONVENTIONS = {
    # as exponents: the exp(...) form ran 8 px past the sidebar and lost its closing bracket
    "gaussian": r"k(x,y)=e^{-\|x-y\|^2/\sigma^2}",
    "laplacian": r"k(x,y)=e^{-\|x-y\|/\sigma}",
}
#: ``data=upload:<name>`` names an uploaded file.
UPLOAD_PREFIX = "upload:"
#: ``data=file:<name>`` names the file the app was started with.
FILE_PREFIX = "file:"


def data_param(source: str, file_name: str | None) -> str:
    """The ``data`` value of a link to ``source`` (a sample name, the upload or the app's file, named ``file_name``)."""
    if source == FILE:
        return f"{FILE_PREFIX}{file_name}"
    return f"{UPLOAD_PREFIX}{file_name}" if source == K.UPLOAD else source


def _parse_sigma(value: str) -> float:
    sigma = float(value)
    if not (np.isfinite(sigma) and sigma > 0):
        raise ValueError(value)
    return sigma


def _raw(qp, entry):
    return qp.get_all(entry.param) if entry.many else qp[entry.param]


def _apply(entry, raw, *args) -> str | None:
    """Parse ``raw`` for ``entry`` and set its session value; what to say when it was changed or refused."""
    shown = ", ".join(map(str, raw)) if entry.many else raw
    try:
        st.session_state[entry.key] = entry.parse(raw, *args)
    except Clamped as exc:
        st.session_state[entry.key] = exc.value
        return f"The link's {entry.param}={shown} is {exc}: {entry.param} = {exc.value:g}."
    except ValueError as exc:
        return f"Ignored {entry.param}={shown!r} from the link: {exc}."
    return None


def read_link() -> None:
    """Apply the address bar's settings once per session; record what was not applied and why.

    The settings of :data:`~rskpca.ui.link_settings.LINKED` that need no table are applied here; those
    that name columns or rows wait for the table the link names (:func:`apply_table_link`).
    """
    ss = st.session_state
    if ss.get(K.LINK_READ):
        return
    ss[K.LINK_READ] = True
    qp = st.query_params
    notes: list[str] = []
    table_bound = {}
    for entry in LINKED.values():
        if entry.param not in qp:
            continue
        if entry.table:
            table_bound[entry.key] = _raw(qp, entry)
        else:
            notes.append(_apply(entry, _raw(qp, entry)))
    sigma = None
    if "sigma" in qp:
        try:
            sigma = _parse_sigma(qp["sigma"])
        except ValueError:
            notes.append(f"Ignored sigma={qp['sigma']!r} from the link: sigma must be a positive number.")
    data = qp.get("data", qp.get("dataset"))  # "dataset" in links made before the link named uploads
    selected = selection.link_values(qp)
    if table_bound or selected:
        ss[K.LINK_TABLE] = {"data": data, "values": table_bound, "selection": selected}
    data_here = False
    if data is None:
        if sigma is not None:
            notes.append(f"The link does not say which data its sigma = {sigma:g} was chosen for, so it was not "
                         "applied (sigma is a length on one data set's scale). Set sigma in the sidebar.")
    elif data.startswith(UPLOAD_PREFIX):
        name = data[len(UPLOAD_PREFIX):]
        if sigma is not None:
            ss[K.LINK_PENDING] = {"name": name, "sigma": sigma}
        notes.append(f"The link was made with an uploaded file, {name!r}, which is not loaded here (files do not "
                     "travel in links). Showing a sample instead, with its own sigma"
                     + (f"; upload {name!r} on the Data page to use the link's sigma = {sigma:g}"
                        if sigma is not None else "; upload the file on the Data page to use it")
                     + (" and its column choices and selection." if K.LINK_TABLE in ss else "."))
    elif data.startswith(FILE_PREFIX):
        name, here = data[len(FILE_PREFIX):], app_file()
        if here is not None and here.name == name:
            ss["source"] = FILE
            data_here = True
        else:
            notes.append(f"The link was made on an app started with the file {name!r}, which this app was not "
                         "started with. Showing " + (f"its own file, {here.name!r}" if here else "a sample")
                         + ", with its own sigma" + (", without the link's column choices and selection"
                                                     if K.LINK_TABLE in ss else "") + ".")
            ss.pop(K.LINK_TABLE, None)
    elif data in SAMPLES:
        ss["source"] = data
        data_here = True
        if "std" in qp:  # (links made before it carried "std" keep the sample's default)
            if qp["std"] in ("0", "1"):
                # applied once the sample's column choices are set (a new table resets them to its defaults)
                ss[K.LINK_STANDARDIZE] = qp["std"] == "1"
            else:
                notes.append(f"Ignored std={qp['std']!r} from the link: use 1 (standardised) or 0 (raw scale).")
    else:
        notes.append(f"Ignored data={data!r} from the link: not a sample here ({', '.join(SAMPLES)}).")
        ss.pop(K.LINK_TABLE, None)
    if sigma is not None and data_here:
        ss["sigma"] = sigma
        ss[K.LINK_SIGMA] = True
    notes = [note for note in notes if note]
    if notes:
        ss[K.LINK_NOTES] = notes


def _data_in_use(source: str) -> str:
    """The ``data`` value of a link to the table of ``source`` as it is now (the upload's, the app file's name)."""
    ss = st.session_state
    if source == K.UPLOAD:
        return data_param(source, (ss.get(K.UPLOADED) or {}).get("name"))
    file = app_file()
    return data_param(source, file.name if file else None)


def apply_table_link(source: str, table_key: str, df) -> None:
    """Apply the link's column choices and selection to the table the link names, once it is loaded.

    Called when the column choices are set for a newly loaded table (``table_key``: what its row numbers
    count in, :func:`rskpca.ui.tables.table_id`); a link naming another table (an upload not here yet)
    keeps waiting. A column not in this table is said, and the rest applied.
    """
    ss = st.session_state
    pending = ss.get(K.LINK_TABLE)
    if pending is None or pending["data"] not in (None, _data_in_use(source)):
        return
    ss.pop(K.LINK_TABLE)
    table = TableColumns(tuple(str(c) for c in df.columns), tuple(str(c) for c in numeric_columns(df)), len(df))
    notes = [_apply(LINKED[key], raw, table) for key, raw in pending["values"].items()]
    notes.append(selection.restore_from_link(pending["selection"], table_key, len(df)))
    notes = [note for note in notes if note]
    if notes:
        ss[K.LINK_NOTES] = ss.get(K.LINK_NOTES, []) + notes


def link_sigma_for(upload_name: str) -> float | None:
    """The sigma of a link that named this upload before it was here (once), else None."""
    ss = st.session_state
    pending = ss.get(K.LINK_PENDING)
    if pending and pending["name"] == upload_name:
        ss.pop(K.LINK_PENDING)
        return pending["sigma"]
    return None


def linked_params() -> dict:
    """The registry's settings and the selection as the address bar holds them (defaults left out)."""
    ss = st.session_state
    params = {}
    for entry in LINKED.values():
        text = entry.text(ss.get(entry.key, KEYS[entry.key]))
        if text is not None:
            params[entry.param] = text
    params.update(selection.link_params())
    return params


def write_link(*, data: str, sigma: float, standardized: bool = False) -> dict:
    """Put the view into the address bar (only when it changed: each write is a browser history entry).

    The data, sigma and ``std`` (whether the data were standardised, so a reloaded or shared link does
    not show raw-scale data under a sigma chosen for standardised data), then every linked setting of
    :data:`~rskpca.ui.link_settings.LINKED` and the selection. Returns the parameters, for the menu's links.
    """
    want = {"data": data, "sigma": f"{sigma:.6g}", "std": "1" if standardized else "0", **linked_params()}
    _set(want)
    return want


def refresh_link() -> None:
    """After a fragment's run (the sidebar did not run): the linked settings its widgets changed, into the link."""
    qp = st.query_params
    kept = {name: qp[name] for name in ("data", "sigma", "std") if name in qp}
    if "data" in kept:  # (before the first full run wrote the link there is nothing to refresh)
        _set({**kept, **linked_params()})


def _set(want: dict) -> None:
    qp = st.query_params
    have = {name: (qp.get_all(name) if isinstance(value, list) else qp[name]) for name, value in want.items()
            if name in qp}
    if have != want or len(qp) != len(want):
        qp.from_dict(want)
