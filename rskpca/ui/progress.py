"""The app's renderer of the one progress protocol, ``progress(fraction, message)`` (:mod:`rskpca.core.progress`).

:class:`ProgressPanel` draws, in one placeholder, a bar with what is being done, the seconds so far
and the seconds left (:class:`~rskpca.core.progress.TimeLeft`: the prediction said before the work
started, corrected by the pace measured), and a Stop button. It is the callback a long computation
is given; every page's long work shows its progress through it.

Stopping: Streamlit stops a running script at its next ``st`` call once a widget is used (a rerun
request), so the Stop button, or any other control, takes effect at the bar's next update. The Stop
button also records the work's token in the session (:func:`stopped`): the next run does not start
the same work again by itself; the page says it was stopped and offers to resume
(:func:`resume_button`). Caches filled before the stop stay filled.
"""

from __future__ import annotations

import contextlib
import time

import streamlit as st

from rskpca.core.progress import TimeLeft
from rskpca.evaluation.units import seconds_text
from rskpca.ui import keys as K

__all__ = ["UPDATE_S", "SHOW_BAR_S", "MISS_S", "ProgressPanel", "progress_panel", "progress_on_miss", "stopped",
           "resume_button", "prediction_text"]

#: Seconds between a bar's updates (each is a message to the browser, and the point a Stop takes effect).
UPDATE_S = 0.25
#: Work predicted above this many seconds shows a bar with its prediction and a Stop button; shorter work a
#: spinner at most (the project's rule: no silent wait over about two seconds, progress for anything over one).
SHOW_BAR_S = 1.0
#: A step of cached work that takes longer than this computed (a cache miss): :func:`progress_on_miss` shows its bar.
MISS_S = 0.05


def prediction_text(seconds: float | None) -> str:
    """The prediction said before work starts.

    >>> prediction_text(24.5), prediction_text(None)
    ('predicted about 24.5 s', 'no prediction')
    """
    return "no prediction" if seconds is None else f"predicted about {seconds_text(seconds)}"


def _stopped_tokens() -> set:
    return st.session_state.setdefault(K.STOPPED_WORK, set())


def stopped(token) -> bool:
    """Whether the user stopped the work named ``token`` (with a :class:`ProgressPanel`'s Stop button) and has
    not resumed it."""
    return token in _stopped_tokens()


def resume_button(token, what: str, *, key: str) -> bool:
    """Say that ``what`` was stopped and offer to resume it; True on the run the button was clicked in."""
    st.info(f"{what} was stopped. What it had computed is kept; Resume carries on from there.",
            icon=":material/stop_circle:")
    if st.button("Resume", key=key, icon=":material/play_arrow:"):
        _stopped_tokens().discard(token)
        return True
    return False


class ProgressPanel:
    """``progress(fraction, message)`` drawn as a bar, the time so far and left, and a Stop button.

    Parameters
    ----------
    label : str
        What runs, as the start of the bar's text ("Exact KPCA on all 20,000 rows").
    predicted_s : float or None
        The prediction, said on the bar before the first update and blended into the time left.
    token : hashable or None
        Names the work for :func:`stopped` (and draws a Stop button).
    stop_key : str or None
        The Stop button's key; with it and no token, a Stop button that only ends the run (the caller says
        what was stopped). Without either, no Stop button (any control still stops the work).
    slot : a placeholder (``st.empty()``) or None
        Where to draw (a new one at the call's place by default); emptied by :meth:`close`.
    started : float or None
        When the work began (``time.perf_counter()``), if before the panel was drawn.
    """

    def __init__(self, label: str, *, predicted_s: float | None = None, token=None, slot=None,
                 stop_key: str | None = None, started: float | None = None) -> None:
        self.label = label
        self._time_left = TimeLeft(predicted_s)
        self._start = time.perf_counter() if started is None else float(started)
        self._shown = -float("inf")
        self._slot = st.empty() if slot is None else slot
        with self._slot.container():
            self._bar = st.progress(0.0, text=f"{label}: starting ({prediction_text(predicted_s)})")
            if token is not None or stop_key is not None:
                # A click is a rerun request, which ends the script at the bar's next update; with a token
                # the work is also marked stopped, so the next run does not start it again by itself.
                st.button("Stop", key=stop_key or f"stop_{abs(hash(token))}", icon=":material/stop:",
                          on_click=None if token is None else _stopped_tokens().add,
                          args=None if token is None else (token,),
                          help="Stops it at its next update; what it computed so far stays cached.")

    @property
    def elapsed(self) -> float:
        return time.perf_counter() - self._start

    def text(self, fraction: float, message: str) -> str:
        """The bar's words at ``fraction`` done."""
        elapsed = self.elapsed
        left = self._time_left.seconds_left(fraction, elapsed)
        words = f"{self.label}: {message}" if message else self.label
        words += f", {seconds_text(elapsed)} so far"
        return words + (f", about {seconds_text(left)} left" if left is not None and fraction < 1 else "")

    def __call__(self, fraction: float, message: str = "") -> None:
        now = time.perf_counter()
        if now - self._shown < UPDATE_S and fraction < 1:
            return
        self._shown = now
        # The st call where a Stop (a rerun request) stops the script.
        self._bar.progress(min(max(float(fraction), 0.0), 1.0), text=self.text(fraction, message))

    def close(self) -> None:
        """Empty the placeholder."""
        with contextlib.suppress(Exception):
            self._slot.empty()


@contextlib.contextmanager
def progress_panel(label: str, predicted_s: float | None, *, spinner: str | None = None, token=None,
                   stop_key: str | None = None, slot=None, show_above: float = SHOW_BAR_S):
    """A :class:`ProgressPanel` while the block runs when ``predicted_s`` is above ``show_above`` (or
    unknown), else a spinner (``spinner``, or none) and ``None`` as the callback. The panel is emptied however
    the block ends (a stop included), and the exception goes on. Use it outside any ``st.cache_*`` function
    (the bar's updates would be recorded for replay there).
    """
    if predicted_s is not None and predicted_s <= show_above:
        with (st.spinner(spinner) if spinner else contextlib.nullcontext()):
            yield None
        return
    panel = ProgressPanel(label, predicted_s=predicted_s, token=token, stop_key=stop_key, slot=slot)
    try:
        yield panel
    finally:
        panel.close()


class _BarOnMiss:
    """The callback :func:`progress_on_miss` yields (see there)."""

    def __init__(self, label: str, slot) -> None:
        self._label, self._slot, self._panel = label, slot, None
        self._last_t, self._last_fraction = time.perf_counter(), 0.0

    def __call__(self, fraction: float, message: str = "") -> None:
        now = time.perf_counter()
        if self._panel is None:
            if now - self._last_t <= MISS_S:  # read from the caches: nothing to show
                self._last_t, self._last_fraction = now, float(fraction)
                return
            # The first step that computed: the bar starts with it, and its pace is measured from there.
            self._panel = ProgressPanel(self._label, slot=self._slot, started=self._last_t)
            self._first = self._last_fraction
        self._panel((float(fraction) - self._first) / max(1.0 - self._first, 1e-12), message)


@contextlib.contextmanager
def progress_on_miss(label: str):
    """``progress(fraction, message)`` for work made of cached steps: a :class:`ProgressPanel` appears at the
    first step that computes (over :data:`MISS_S` since the previous call), none while every step is read from
    the caches. Call it after each step. The bar's place is held from the start, so the elements after it keep
    their places whether or not a bar shows (a bar that came and went would shift them, and the charts after
    it can be left blank), and it is emptied however the block ends. Use it outside any ``st.cache_*``
    function.
    """
    slot = st.empty()
    try:
        yield _BarOnMiss(label, slot)
    finally:
        with contextlib.suppress(Exception):
            slot.empty()
