"""Session state the pages share: the :class:`Settings`, widget values kept across pages and fragments,
and the session's small records (timing rounds, row choices, cross-validations asked for).

Pages are discovered from ``pages/`` (no ``st.navigation``), so a widget's value
would be dropped when the user opens another page that does not draw it.
The sidebar (:func:`rskpca.ui.page_setup.sidebar`) therefore re-assigns every persistent widget key
at the top of each run (:func:`persist_widget_values`: the documented way to keep widget values
across pages), and app-owned results (the prepared data set, the uploaded file, see
:mod:`rskpca.ui.tables`) live in keys that no widget owns. Key names are in :mod:`rskpca.ui.keys`.
"""

from __future__ import annotations

import functools
import itertools
import threading
from dataclasses import dataclass

import streamlit as st
from streamlit.errors import StreamlitAPIException

from rskpca.data.datasets import Dataset
from rskpca.ui import keys as K
from rskpca.ui.keys import KEYS
from rskpca.ui.link import refresh_link

__all__ = ["Settings", "setting", "fragment", "persist_widget_values", "row_choice", "cv_requested",
           "request_cv", "timing_round", "next_timing_round"]


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


def persist_widget_values() -> None:
    """Re-assign every persistent widget key, from a copy no widget owns where Streamlit let it go.

    A fragment's run draws none of the widgets outside it, and Streamlit then drops their values, so
    the next page a user opens would come back on the default sample, sigma and ell. So the values
    are also kept under :data:`~rskpca.ui.keys.KEPT_VALUES`, and restored from there.
    """
    ss = st.session_state
    kept = ss.setdefault(K.KEPT_VALUES, {})
    # What a fragment's widgets were set to: the session's own value of such a key can be the one
    # assigned at the start of the last full run, which would undo the user's change in the fragment.
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

    After a fragment's run Streamlit serves, at the next full run, a widget's value from an earlier
    page over the one the session had assigned, so a toggle the user set (say "Standardise") would
    silently come back at its old value. A value assigned in this run outranks those; a widget the user changes
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
    opened another page (see :func:`persist_widget_values`).
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
                refresh_link()  # the sidebar, which writes the link, does not run in a fragment's run

    return st.fragment(run)


def timing_round() -> int:
    """The Speedups page's timing round of this session: 0 until the user asks to time again."""
    return int(st.session_state.get(K.TIMING_ROUND, 0))


# Rounds are numbered across the server's sessions: the timed fits are cached for all of them, and a
# per-session count would replay another session's earlier rounds, so "Time again" would not time.
_ROUNDS = itertools.count(1)
_ROUNDS_LOCK = threading.Lock()


def next_timing_round() -> None:
    """A timing round no session has used: its fits miss every cache and are timed anew."""
    with _ROUNDS_LOCK:
        st.session_state[K.TIMING_ROUND] = next(_ROUNDS)


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

