"""The server-side latency benchmark's results and its table, apart from how they are measured.

A page's timings are judged against one aim, :data:`TARGET_S`, so the table says at
a glance which pages meet it on every change, only on the median, or not at all.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass

__all__ = ["TARGET_S", "PageLatency", "format_header", "format_row"]

#: The aim for one ell change on one page (seconds), on the project's 2-core machine.
TARGET_S = 0.5


@dataclass
class PageLatency:
    """Timings of one page (seconds); ``error`` holds the exception text if a run failed.

    ``changes`` are the reruns after each new value of ``control`` (a sidebar control: ell,
    sigma or r); ``cached`` the rerun back at a value seen before.
    """

    page: str
    first_visit: float
    changes: list[float]
    cached: float
    m_values: list[int]
    error: str = ""
    profile: str = ""
    control: str = "ell"

    @property
    def median(self) -> float:
        """Median time of a change (NaN if none succeeded)."""
        return statistics.median(self.changes) if self.changes else float("nan")

    @property
    def worst(self) -> float:
        """Slowest change (NaN if none succeeded)."""
        return max(self.changes) if self.changes else float("nan")


def format_header(target: float = TARGET_S) -> str:
    """The header line of :func:`format_row`'s table."""
    return (f"{'page':<28}  {'control':<7}  {'first visit s':>13}  {'change median s':>15}  {'change max s':>12}  "
            f"{'back s':>6}  {'m (n/a = -1)':<14}  {'< ' + format(target, 'g') + ' s':>7}")


def format_row(r: PageLatency, target: float = TARGET_S) -> str:
    """One page's line: the timings, the range of m seen, and whether every change met the target.

    Examples
    --------
    ``back s`` is the rerun back at the first value (every cache should hit).

    >>> print(format_header())
    page                          control  first visit s  change median s  change max s  back s  m (n/a = -1)    < 0.5 s
    >>> print(format_row(PageLatency("pages/1_Data.py", 1.5, [0.2, 0.3, 0.1], 0.05, [10, 12])))
    pages/1_Data.py               ell              1.500            0.200         0.300   0.050  10..12              yes
    """
    if r.error:
        first_line = r.error.strip().splitlines()[0][:150] if r.error.strip() else "?"
        return f"{r.page:<28}  ERROR: {first_line}"
    ok = "yes" if r.worst < target else ("median" if r.median < target else "no")
    m_range = f"{min(r.m_values)}..{max(r.m_values)}" if r.m_values else "-"
    return (f"{r.page:<28}  {r.control:<7}  {r.first_visit:>13.3f}  {r.median:>15.3f}  {r.worst:>12.3f}  "
            f"{r.cached:>6.3f}  {m_range:<14}  {ok:>7}")
