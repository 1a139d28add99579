"""One progress protocol for every long computation: the library's, the command line's and the app's.

A long computation takes ``progress=None`` or a callable ``progress(fraction, message)``
(:data:`ProgressCallback`): ``fraction`` is the share of the work done, from 0 to 1, ``message`` says
what is being done in a few words. The callback is also the stop check: to stop the computation it
raises (:class:`Stopped` by convention, any exception works), and the computation leaves no partial
result behind. The command line draws it as a text bar (:class:`rskpca.cli.ProgressBar`), the app as a
bar with a Stop button (:mod:`rskpca.ui.progress`).

What both renderers say about the time left is :class:`TimeLeft`'s: the prediction made before the
work started, corrected by the pace actually measured (elapsed / fraction) as the work advances, so it
converges to the truth.
"""

from __future__ import annotations

import math
import time
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass
from typing import Callable

import numpy as np

__all__ = ["ProgressCallback", "Stopped", "TimeLeft", "scaled", "counted", "paced", "ticking", "TICK_S"]

#: ``progress(fraction, message)``: fraction of the work done (0 to 1) and what is being done; raise to stop.
ProgressCallback = Callable[[float, str], None]


class Stopped(Exception):
    """Raised by a progress callback to stop the computation that calls it."""


@dataclass(frozen=True)
class TimeLeft:
    """Seconds left of a computation predicted to take ``predicted_s`` (None: no prediction).

    The estimated total is a blend of the prediction and the measured pace (``elapsed / fraction``),
    weighted by the fraction done: at the start it is the prediction, at the end the measured time. A
    prediction that was off by a factor therefore stops mattering as the work advances, and one early
    slow step (a first block that allocates memory, say) does not make the estimate jump.

    >>> TimeLeft(10.0).seconds_left(0.0, 0.0)
    10.0
    >>> TimeLeft(10.0).seconds_left(0.5, 5.0)  # on the predicted pace
    5.0
    >>> round(TimeLeft(40.0).seconds_left(0.5, 10.0), 6)  # twice as fast as predicted: the blend of 40 and 20
    20.0
    >>> TimeLeft(None).seconds_left(0.25, 3.0)  # no prediction: the measured pace alone
    9.0
    >>> TimeLeft(None).seconds_left(0.0, 1.0) is None
    True
    """

    predicted_s: float | None = None

    def seconds_left(self, fraction: float, elapsed: float) -> float | None:
        """Seconds still expected after ``fraction`` of the work took ``elapsed`` seconds (None: unknown)."""
        f = min(max(float(fraction), 0.0), 1.0)
        predicted = self.predicted_s if self.predicted_s is not None and math.isfinite(self.predicted_s) else None
        measured = float(elapsed) / f if f > 0 else None
        if measured is None and predicted is None:
            return None
        if measured is None:
            total = predicted
        elif predicted is None:
            total = measured
        else:
            total = f * measured + (1.0 - f) * predicted
        return max(float(total) - float(elapsed), 0.0)


def scaled(progress: ProgressCallback | None, start: float, stop: float) -> ProgressCallback | None:
    """``progress`` for one part of a larger computation: the part's fraction mapped onto [start, stop].

    >>> seen = []
    >>> part = scaled(lambda f, m: seen.append((f, m)), 0.5, 1.0)
    >>> part(0.5, "second half")
    >>> seen
    [(0.75, 'second half')]
    >>> scaled(None, 0.0, 0.5) is None
    True
    """
    if progress is None:
        return None
    return lambda fraction, message: progress(start + (stop - start) * min(max(fraction, 0.0), 1.0), message)


def counted(progress: ProgressCallback | None, total: int) -> Callable[[str], None]:
    """A ticker for ``total`` steps of equal weight: each call ``tick(message)`` reports one more done.

    >>> seen = []
    >>> tick = counted(lambda f, m: seen.append((f, m)), 4)
    >>> tick("a"); tick("b")
    >>> seen
    [(0.25, '1/4 a'), (0.5, '2/4 b')]
    """
    state = {"done": 0}

    def tick(message: str = "") -> None:
        state["done"] += 1
        if progress is not None:
            progress(state["done"] / max(int(total), 1), f"{state['done']}/{total} {message}".rstrip())

    return tick


#: A step that took less than this was read from a cache: it says nothing of the pace.
CACHED_STEP_S = 0.005
#: The growth per step that :func:`paced` extrapolates is kept within these factors.
STEP_GROWTH = (0.5, 4.0)


def paced(progress: ProgressCallback | None, total: int, *, clock: Callable[[], float] = time.perf_counter
          ) -> Callable[[str], None]:
    """A ticker for ``total`` steps whose cost grows from one to the next (the points of a curve over a growing
    ell, where m grows): each call ``tick(message)`` reports one more step done.

    Equal weights (:func:`counted`) would put the time left at the steps left times the mean step so far,
    too little when the later steps are the longer ones, so the estimate would climb as the work goes. Here
    the fraction reported is the time spent over the time spent plus the steps left, each predicted from
    the computed steps' durations by their trend (a geometric growth fitted on their logs, within
    :data:`STEP_GROWTH`). Steps read from a cache (under :data:`CACHED_STEP_S`) are counted, not timed.

    >>> seen, clock = [], iter([0.0, 1.0, 3.0, 7.0])  # steps of 1, 2 and 4 seconds
    >>> tick = paced(lambda f, m: seen.append((round(f, 3), m)), 4, clock=lambda: next(clock))
    >>> tick("a"); tick("b"); tick("c")
    >>> seen  # after 1 + 2 s, the next two predicted at 4 and 8 s: 3 / 15
    [(0.25, '1/4 a'), (0.2, '2/4 b'), (0.467, '3/4 c')]
    """
    state = {"last": clock(), "times": []}

    def tick(message: str = "") -> None:
        now = clock()
        state["times"].append(now - state["last"])
        state["last"] = now
        if progress is None:
            return
        times = np.asarray(state["times"])
        done, left = times.size, int(total) - times.size
        computed = np.flatnonzero(times >= CACHED_STEP_S)
        if left <= 0:
            fraction = 1.0
        elif computed.size == 0:
            fraction = 0.0
        else:
            growth, latest = 1.0, times[computed[-1]]
            if computed.size >= 2:
                slope, intercept = np.polyfit(computed, np.log(times[computed]), 1)
                growth = float(np.clip(np.exp(slope), *STEP_GROWTH))
                latest = float(np.exp(intercept + slope * computed[-1]))
            ahead = latest * growth ** np.arange(done - computed[-1], total - computed[-1])  # the steps left, by index
            spent = float(times.sum())
            fraction = spent / (spent + float(ahead.sum()))
        progress(fraction, f"{done}/{total} {message}".rstrip())

    return tick


#: A tick of the bar while work that reports nothing runs (:func:`ticking`).
TICK_S = 0.25


def ticking(work: Callable, progress: ProgressCallback | None, seconds: float, message: str = ""):
    """``work()``, with ``progress`` (or None) told the time spent against the prediction ``seconds`` every
    :data:`TICK_S` while it runs, up to 95 %: for work that reports nothing (an eigensolver), run on a thread
    of its own so the ticks go on here. The callback may raise to stop (a UI's Stop button): the work is then
    left to finish on its thread and its result dropped.

    >>> ticks = []
    >>> ticking(lambda: time.sleep(0.6) or 7, lambda f, msg: ticks.append(f), 1.0, "solving")
    7
    >>> len(ticks) >= 1 and all(0 < f <= 0.95 for f in ticks)
    True
    """
    if progress is None:
        return work()
    pool = ThreadPoolExecutor(max_workers=1)
    future = pool.submit(work)
    start = time.perf_counter()
    try:
        while True:
            try:
                return future.result(timeout=TICK_S)
            except FutureTimeout:
                progress(min((time.perf_counter() - start) / max(seconds, 1e-9), 0.95), message)
    finally:
        pool.shutdown(wait=False)  # (a stop does not wait for the work)
