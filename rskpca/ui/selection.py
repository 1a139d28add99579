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

from functools import partial

import numpy as np
import streamlit as st

from rskpca.data.selected_rows import absorbing_centers, positions_of_rows, selected_rows_table
from rskpca.plotting import rows_from_points, rows_in_regions
from rskpca.ui import keys as K
from rskpca.ui import tables
from rskpca.ui.widgets import show_figure, show_table

__all__ = ["rows", "sync", "clear", "show_selectable", "selected_table", "centers_table"]

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
                                             "fresh": True}
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
               f"{table.shape[0]} centers (of m = {shadow.m}); weight is the size of the center's whole set, "
               "absorbed how many of the selected rows it holds.")
    show_table(table, key="selection_centers", filename="selection_centers",
               height=min(400, 38 + 35 * table.shape[0]))
