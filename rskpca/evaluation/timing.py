"""One way to time a call, shared by the app, the benchmarks and the experiments.

Every method in one comparison is timed under the same :class:`Timing`: ``warmup`` untimed
calls (first-call costs: BLAS thread start, lazy imports, page faults), then ``repeats``
timed calls, of which the best is reported. The best, not the mean, because on a shared
machine other jobs only ever add time.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from typing import Callable, TypeVar

__all__ = ["Timing", "run_times", "best_time", "machine_load"]

T = TypeVar("T")


@dataclass(frozen=True)
class Timing:
    """How every method of one comparison is timed.

    ``budget_s``: stop repeating once another call would take the timed calls past this
    many seconds (at least one call always runs). Fast calls are then timed several times,
    slow ones once: the app's setting, where one timed call that another job slowed down
    stays cached and a best of several costs little for the fast methods.

    >>> Timing(repeats=3, warmup=1)
    Timing(repeats=3, warmup=1, budget_s=None)
    """

    repeats: int = 1
    warmup: int = 0
    budget_s: float | None = None

    def __post_init__(self):
        if isinstance(self.repeats, bool) or int(self.repeats) < 1:
            raise ValueError(f"repeats must be an integer >= 1; got {self.repeats!r}.")
        if isinstance(self.warmup, bool) or int(self.warmup) < 0:
            raise ValueError(f"warmup must be an integer >= 0; got {self.warmup!r}.")
        if self.budget_s is not None and not self.budget_s > 0:
            raise ValueError(f"budget_s must be a positive number of seconds or None; got {self.budget_s!r}.")


def run_times(fn: Callable[[], T], timing: Timing = Timing()) -> tuple[T, list[float]]:
    """``fn()``'s last result and the wall-clock seconds of each timed call.

    >>> out, times = run_times(lambda: 42, Timing(repeats=2, warmup=1))
    >>> out, len(times)
    (42, 2)
    >>> len(run_times(lambda: time.sleep(0.03), Timing(repeats=5, budget_s=0.05))[1])
    1
    >>> len(run_times(lambda: None, Timing(repeats=5, budget_s=0.05))[1])
    5
    """
    for _ in range(timing.warmup):
        fn()
    times, out = [], None
    for _ in range(timing.repeats):
        if times and timing.budget_s is not None and sum(times) + min(times) > timing.budget_s:
            break
        start = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - start)
    return out, times


def best_time(fn: Callable[[], T], timing: Timing = Timing()) -> tuple[T, float]:
    """``fn()``'s last result and the best of the timed calls, in seconds.

    >>> best_time(lambda: "x")[0]
    'x'
    """
    out, times = run_times(fn, timing)
    return out, min(times)


def machine_load() -> str:
    """The load averages (1, 5, 15 min) and the CPU count, printed beside every benchmark's figures.

    >>> machine_load().startswith("load average")
    True
    """
    load = os.getloadavg()
    return f"load average {load[0]:.2f}, {load[1]:.2f}, {load[2]:.2f} on {os.cpu_count()} CPU(s)"
