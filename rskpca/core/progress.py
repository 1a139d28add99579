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

__all__ = ["ProgressCallback", "Stopped", "TimeLeft", "scaled", "counted", "ticking", "TICK_S"]

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
