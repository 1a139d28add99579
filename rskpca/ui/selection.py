"""Linked selections: rows picked by box or lasso in any chart, highlighted on every page.

The selection is one app-owned session key (:data:`rskpca.ui.keys.SELECTION`) holding
the *original row numbers* of the selected rows and the table they belong to, so it
survives page switches and means the same rows in every view (a view of a sample shows
those of its rows that are selected). Changing the data set drops it, with a notice.

Charts are drawn by :func:`show_selectable`: a live chart (:mod:`rskpca.ui.live_chart`)
with box and lasso selection on. The callback runs only when the user changes the
chart's selection (not on every rerun), reads the row numbers from the points'
``customdata`` (:func:`rskpca.plotting.rows_from_points`) and stores them; the figure
builders then draw them highlighted (their ``selected_rows=`` argument), which redraws
the chart without the selection box: the stored rows, not the chart, are what every
view shows.
"""

from __future__ import annotations

import json
from functools import partial

import numpy as np
import streamlit as st

from rskpca.data.selected_rows import absorbing_centers, positions_of_rows, selected_rows_table
from rskpca.plotting import rows_from_points, rows_in_regions, selection_regions
from rskpca.ui import keys as K
from rskpca.ui import tables
from rskpca.ui.widgets import show_figure, show_table

__all__ = ["rows", "sync", "clear", "show_selectable", "selected_table", "centers_table", "link_params", "link_values",
           "restore_from_link", "rows_text", "rows_from_text", "LINK_MAX_ROWS"]

#: How a selection is made, said under the charts that take one.
HOW = ("Drag a box on a chart (or pick the lasso in its toolbar) to select rows: they are outlined in every "
       "chart on every page and listed below. Double-click the chart where you selected to let go.")


def _stored() -> dict | None:
    return st.session_state.get(K.SELECTION)


def rows(ds=None) -> np.ndarray | None:
    """The selected original row numbers (sorted), or None when nothing is selected.

    With ``ds``, only those rows that ``ds`` holds.
    """
    sel = _stored()
    if not sel or not sel["rows"]:
        return None
    selected = np.asarray(sel["rows"], dtype=np.int64)
    if ds is not None:
        selected = np.sort(np.asarray(ds.row_ids)[positions_of_rows(ds.row_ids, selected)]).astype(np.int64)
    return selected


def clear() -> None:
    """Drop the selection (a button's callback)."""
    st.session_state.pop(K.SELECTION, None)


def _on_select(chart_key: str, table_id: str, panels=None) -> None:
    """The chart's selection changed: store its rows (an empty selection made here lets go of it).

    With ``panels`` (a density chart's, see :func:`show_selectable`), every row inside the box or
    lasso is selected, not only the points drawn.
    """
    event = st.session_state.get(chart_key)
    selection = {} if event is None else event["selection"]
    selected = rows_from_points(selection.get("points") or [])
    if panels:
        selected = np.union1d(selected, rows_in_regions(selection, panels)).astype(np.int64)
    if selected.size:
        st.session_state[K.SELECTION] = {"table": table_id, "rows": selected.tolist(), "from": chart_key,
                                             "fresh": True, "regions": selection_regions(selection)}
    elif (_stored() or {}).get("from") == chart_key:
        clear()


def sync(table_id: str, ds) -> None:
    """At the top of every full run (from the sidebar): drop a selection of another table, say so; show it.

    ``table_id`` names the table the rows were counted in (the sample, or the
    upload's content digest); a different one makes the row numbers meaningless.
    """
    sel = _stored()
    if sel is None:
        return
    if sel["table"] != table_id:
        clear()
        st.info(f"The selection of {len(sel['rows'])} rows was cleared: the data set changed.",
                icon=":material/deselect:")
        return
    # A full run draws every chart with the new selection: nothing left to refresh (see show_selectable).
    sel["fresh"] = False
    here = rows(ds)
    shown = 0 if here is None else here.size
    st.sidebar.caption(f"Selected: {len(sel['rows'])} rows" +
                       ("" if shown == len(sel["rows"]) else f" ({shown} in the data in use)"))
    st.sidebar.button("Clear selection", key="selection_clear_sidebar", on_click=clear,
                      icon=":material/deselect:")


def show_selectable(fig, key: str, filename: str | None = None, *, panels=None) -> None:
    """:func:`rskpca.ui.show_figure` whose box and lasso selections become the app's selection.

    Build ``fig`` with ``selected_rows=rows()`` so the current selection shows in it. ``panels``:
    ``{xref: (x, y, row_ids)}`` (:func:`rskpca.plotting.embedding_panels`) for a chart that draws
    the density of its rows: a box or lasso then selects every row whose coordinates fall in it,
    computed here from the region, not from the points drawn.
    """
    _restore_region(fig, key, panels)
    show_figure(fig, key, filename, on_select=partial(_on_select, key, tables.table_id(), panels))
    sel = _stored()
    if sel is not None and sel.get("fresh"):
        # Only a fragment rerun gets here with a fresh selection (a full run clears the mark in
        # sync() before any chart is drawn): the rest of the page still shows the old one.
        sel["fresh"] = False
        st.rerun()


def selected_table(ds) -> None:
    """The selected rows (original row number, features, label), with a CSV download and a clear button."""
    selected = rows()
    if selected is None:
        st.caption(HOW)
        return
    table = selected_rows_table(ds.X, ds.row_ids, selected, feature_names=ds.feature_names, y=ds.y,
                                label_name=ds.label_name)
    left, right = st.columns([4, 1])
    left.subheader(f"Selected rows ({table.shape[0]})")
    right.button("Clear selection", key="selection_clear", on_click=clear, icon=":material/deselect:")
    missing = selected.size - table.shape[0]
    st.caption(("Feature values as used (standardised). " if ds.standardized else "")
               + (f"{missing} selected rows are not in the data in use (row cap or dropped rows). " if missing else "")
               + HOW)
    show_table(table, key="selection_table", filename="selected_rows", height=min(400, 38 + 35 * table.shape[0]))


def centers_table(ds, shadow) -> None:
    """Which shadow centers absorbed the selected rows (center row, weight, how many of the selection)."""
    selected = rows()
    if selected is None:
        return
    table = absorbing_centers(shadow.labels, shadow.center_indices, shadow.weights, ds.row_ids, selected)
    st.subheader(f"Centers that absorbed the selection ({table.shape[0]})")
    st.caption(f"The {int(table['absorbed'].sum())} selected rows lie in the shadow sets of these "
               f"{table.shape[0]:,} centers (of m = {shadow.m:,}); weight is the size of the center's whole set, "
               "absorbed how many of the selected rows it holds.")
    show_table(table, key="selection_centers", filename="selection_centers",
               height=min(400, 38 + 35 * table.shape[0]))


# --------------------------------------------------------------------------- the selection in the link

#: Up to this many rows the link lists the selected rows; above, it holds the box or lasso that selected
#: them (and the chart it was drawn on), which selects the same rows again on the same settings.
LINK_MAX_ROWS = 200
#: The link's parameters: the rows, or the chart and the regions drawn on it.
_ROWS, _CHART, _REGIONS = "sel", "sel_chart", "sel_region"


def rows_text(selected) -> str:
    """Row numbers as runs, for the link.

    >>> rows_text([3, 4, 5, 9, 11, 12])
    '3-5,9,11-12'
    """
    runs, values = [], sorted(int(v) for v in selected)
    start = prev = None
    for v in values + [None]:
        if v is not None and prev is not None and v == prev + 1:
            prev = v
            continue
        if start is not None:
            runs.append(str(start) if start == prev else f"{start}-{prev}")
        start = prev = v
    return ",".join(runs)


def rows_from_text(text: str) -> np.ndarray:
    """:func:`rows_text` read back (raises ValueError on anything else).

    >>> rows_from_text("3-5,9").tolist()
    [3, 4, 5, 9]
    """
    out = []
    for part in text.split(","):
        first, _, last = part.partition("-")
        a, b = int(first), int(last or first)
        if a < 0 or b < a or b - a > 100_000_000:
            raise ValueError(part)
        out.append(np.arange(a, b + 1))
    return np.unique(np.concatenate(out)).astype(np.int64) if out else np.array([], dtype=np.int64)


def _region_text(regions) -> str:
    return json.dumps([[r["kind"], r["xref"], [float(f"{v:.6g}") for v in r["x"]], [float(f"{v:.6g}") for v in r["y"]]]
                       for r in regions], separators=(",", ":"))


def link_params() -> dict:
    """The selection's part of the link: ``sel`` (its rows) or ``sel_chart`` and ``sel_region``; {} for none."""
    sel = _stored()
    if not sel or not sel["rows"]:
        return {}
    if len(sel["rows"]) > LINK_MAX_ROWS and sel.get("regions"):
        return {_CHART: sel["from"], _REGIONS: _region_text(sel["regions"])}
    return {_ROWS: rows_text(sel["rows"])}


def link_values(query_params) -> dict:
    """The selection's parameters of a link (for :func:`restore_from_link` once its table is loaded)."""
    return {name: query_params[name] for name in (_ROWS, _CHART, _REGIONS) if name in query_params}


def restore_from_link(values: dict, table_key: str, n_rows: int) -> str | None:
    """Select the link's rows in the table ``table_key`` of ``n_rows`` rows, or keep its box or lasso for
    the chart it was drawn on (applied when that chart is drawn); what to say when it cannot be."""
    if not values:
        return None
    if _ROWS in values:
        try:
            selected = rows_from_text(values[_ROWS])
        except ValueError:
            return f"Ignored sel={values[_ROWS]!r} from the link: not a list of row numbers."
        outside = selected[selected >= n_rows]
        selected = selected[selected < n_rows]
        if selected.size:
            st.session_state[K.SELECTION] = {"table": table_key, "rows": selected.tolist(), "from": "link",
                                             "fresh": False}
        if outside.size:
            return (f"The link's selection names {outside.size} rows beyond the {n_rows:,} rows of the data "
                    f"(row {int(outside[0])} and on): " + ("the other rows are selected." if selected.size else
                                                           "nothing is selected."))
        return None
    try:
        raw = json.loads(values.get(_REGIONS, ""))
        regions = selection_regions({kind: [{"xref": xref, "x": x, "y": y} for k, xref, x, y in raw if k == kind]
                                     for kind in ("box", "lasso")})
    except (ValueError, TypeError):
        regions = []
    if not regions or _CHART not in values:
        return f"Ignored the link's selection (sel_region={values.get(_REGIONS, '')!r}): not a box or lasso."
    st.session_state[K.SELECTION_PENDING] = {"table": table_key, "from": values[_CHART], "regions": regions}
    return None


def _figure_panels(fig) -> dict:
    """``{xref: (x, y, row_ids)}`` of a figure's 2-D point traces whose customdata starts with row numbers."""
    found: dict = {}
    for trace in fig.data:
        if trace.type not in ("scatter", "scattergl") or trace.customdata is None or trace.x is None:
            continue
        custom = np.asarray(trace.customdata, dtype=object)
        first = custom[:, 0] if custom.ndim == 2 else custom.ravel()
        try:
            ids = np.asarray(first, dtype=np.float64)
        except (TypeError, ValueError):
            continue
        xs, ys, rs = found.setdefault(trace.xaxis or "x", ([], [], []))
        xs.append(np.asarray(trace.x, dtype=np.float64))
        ys.append(np.asarray(trace.y, dtype=np.float64))
        rs.append(ids.astype(np.int64))
    return {ax: tuple(np.concatenate(part) for part in parts) for ax, parts in found.items()}


def _restore_region(fig, key: str, panels) -> None:
    """Select the rows inside a link's box or lasso, when the chart it was drawn on is drawn (same settings,
    same rows); the page then reruns so that every chart shows them."""
    pending = st.session_state.get(K.SELECTION_PENDING)
    if not pending or pending["from"] != key:
        return
    st.session_state.pop(K.SELECTION_PENDING)
    if pending["table"] != tables.table_id():
        return
    regions = {kind: [r for r in pending["regions"] if r["kind"] == kind] for kind in ("box", "lasso")}
    selected = rows_in_regions(regions, panels if panels else _figure_panels(fig))
    if selected.size:
        st.session_state[K.SELECTION] = {"table": pending["table"], "rows": selected.tolist(), "from": key,
                                         "fresh": False, "regions": pending["regions"]}
        st.rerun()
