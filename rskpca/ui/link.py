"""The shareable link: settings in the address bar, read once per session and kept in sync.

A link names its data (``data=two_moons``, ``data=upload:<file name>`` or, for the file the app was
started with, ``data=file:<file name>``)
because sigma is a length on that data's scale: a sigma chosen for one data set
means nothing on another (29.77 on Two moons keeps one center). So sigma is
applied only when the data the link names is what the app shows; otherwise the
app says so and keeps its own sigma. ``std=1`` says the sample was standardised
and ``std=0`` that it was not (the Data page's choice, which sets that scale).
Kernel, ell and r do not depend on the data's scale and are always applied. An
upload cannot travel in a link: the link names the file, and its sigma is applied
if a file of that name is uploaded later in the session; a started-with file's, on a server started
with a file of that name.
"""

from __future__ import annotations

import numpy as np
import streamlit as st

from rskpca.data.datasets import SAMPLES
from rskpca.ui import keys as K
from rskpca.ui.app_file import FILE, app_file

__all__ = ["KERNEL_CONVENTIONS", "UPLOAD_PREFIX", "FILE_PREFIX", "read_link", "write_link", "link_sigma_for", "data_param"]

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


def read_link() -> None:
    """Apply the address bar's settings once per session; record what was not applied and why."""
    ss = st.session_state
    if ss.get(K.LINK_READ):
        return
    ss[K.LINK_READ] = True
    qp = st.query_params
    notes: list[str] = []
    if "kernel" in qp:
        if qp["kernel"] in KERNEL_CONVENTIONS:
            ss["kernel"] = qp["kernel"]
        else:
            notes.append(f"Ignored kernel={qp['kernel']!r} from the link: use gaussian or laplacian.")
    for name, (lo, hi), cast in (("ell", K.ELL_RANGE, float), ("r", K.RANK_RANGE, int)):
        if name in qp:
            try:
                asked = cast(qp[name])
            except ValueError:
                notes.append(f"Ignored {name}={qp[name]!r} from the link: not a number.")
                continue
            ss[name] = cast(min(max(asked, lo), hi))
            if ss[name] != asked:  # said, so the user knows the page does not show the link's value
                notes.append(f"The link's {name}={qp[name]} is outside {lo:g}..{hi:g} here: {name} = {ss[name]:g}.")
    if "rows" in qp:  # the rows the Bounds page (and KDE vs ShDE's MMD) measure on
        try:
            rows = int(qp["rows"])
        except ValueError:
            rows = None
        if rows in K.BOUNDS_ROWS:
            ss["bounds_max_exact"] = rows
        else:
            notes.append(f"Ignored rows={qp['rows']!r} from the link: the measured rows are one of "
                         f"{', '.join(str(v) for v in K.BOUNDS_ROWS)}.")
    sigma = None
    if "sigma" in qp:
        try:
            sigma = _parse_sigma(qp["sigma"])
        except ValueError:
            notes.append(f"Ignored sigma={qp['sigma']!r} from the link: sigma must be a positive number.")
    data = qp.get("data", qp.get("dataset"))  # "dataset" in links made before the link named uploads
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
                     + (f"; upload {name!r} on the Data page to use the link's sigma = {sigma:g}."
                        if sigma is not None else "; upload the file on the Data page to use it."))
    elif data.startswith(FILE_PREFIX):
        name, here = data[len(FILE_PREFIX):], app_file()
        if here is not None and here.name == name:
            ss["source"] = FILE
            data_here = True
        else:
            notes.append(f"The link was made on an app started with the file {name!r}, which this app was not "
                         "started with. Showing " + (f"its own file, {here.name!r}" if here else "a sample")
                         + ", with its own sigma.")
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
    if sigma is not None and data_here:
        ss["sigma"] = sigma
        ss[K.LINK_SIGMA] = True
    if notes:
        ss[K.LINK_NOTES] = notes


def link_sigma_for(upload_name: str) -> float | None:
    """The sigma of a link that named this upload before it was here (once), else None."""
    ss = st.session_state
    pending = ss.get(K.LINK_PENDING)
    if pending and pending["name"] == upload_name:
        ss.pop(K.LINK_PENDING)
        return pending["sigma"]
    return None


def write_link(*, data: str, kernel: str, sigma: float, ell: float, r: int, standardized: bool = False,
               measured_rows: int | None = None) -> dict:
    """Put the settings in use into the address bar (only when they changed: each write is a browser event).

    ``std`` says whether the data were standardised, so a reloaded or shared link does not show raw-scale
    data under a sigma chosen for standardised data. ``rows``: the rows the Bounds page measures on, when
    not its default, so a shared link to Bounds shows the sender's measured values.
    """
    want = {"data": data, "kernel": kernel, "sigma": f"{sigma:.6g}", "ell": f"{ell:g}", "r": str(r),
            "std": "1" if standardized else "0"}
    if measured_rows is not None and measured_rows != K.KEYS["bounds_max_exact"]:
        want["rows"] = str(int(measured_rows))
    if dict(st.query_params) != want:
        st.query_params.from_dict(want)
    return want
