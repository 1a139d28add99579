"""What the app's row cap costs: each page's first view as a line in n, and the default cap.

The Data page's row cap keeps a seeded random sample of the rows above it. A larger cap makes
every page's first view (its first run after the data is loaded, caches cold) slower, in
proportion to the rows for the O(n) work (the shadow, the a-posteriori bounds, the data view's
principal axes, the densities). Each page's first view is a line, a fixed part plus a cost per row
(:data:`~rskpca.evaluation._measured_first_views.FIRST_VIEW_LINES`), fitted to times measured at
growing n by ``python tests/benchmarks/bench_row_cap.py --write``, which writes the lines (the
measured table itself is in ``tests/benchmarks/RESULTS.md``, not in the code). The app's default cap,
:data:`DEFAULT_ROW_CAP`, is the largest measured size at which every page's first view stays within
:data:`FIRST_VIEW_BUDGET_S`; the Data page says what a larger cap adds before it is applied.

How the benchmark measures: Streamlit's ``AppTest`` of ``app.py``, server side (no browser), on a
generated 10-d Gaussian mixture of n rows uploaded as ``.npy`` with the cap at n; for each page, all
caches cleared, the data loaded (the ``"Loading"`` line), then the page's first run timed. The browser
adds the transfer and drawing of the charts, which the pages bound by point budgets, not by n.
"""

from __future__ import annotations

from typing import Mapping, Sequence

import numpy as np

from rskpca.evaluation._measured_first_views import FIRST_VIEW_LINES, MEASURED_ROWS
from rskpca.evaluation.units import seconds_text

__all__ = ["MEASURED_ROWS", "FIRST_VIEW_LINES", "FIRST_VIEW_BUDGET_S", "DEFAULT_ROW_CAP", "fit_first_view_lines",
           "first_view_seconds", "per_row_costs", "slowest_first_view", "largest_cap_within", "row_cap_cost_text",
           "larger_cap_costs"]

#: The default cap keeps every page's first view within this many seconds.
FIRST_VIEW_BUDGET_S = 3.0


def fit_first_view_lines(rows: Sequence[int], first_view_s: Mapping[str, Sequence[float]]
                         ) -> dict[str, tuple[float, float]]:
    """``{page: (fixed seconds, seconds per row)}``: a line fitted to each page's first views measured at ``rows``.

    The slope is the least-squares one (at least 0); the fixed part the median of what is left at each
    size (at least 0). A line, not the points themselves: on a shared machine a single measurement
    jumps, and a page's work beyond its fixed part grows with the rows. Sizes not measured (NaN) are
    left out.

    >>> fit_first_view_lines([1000, 2000, 3000], {"Data": [0.2, 0.3, 0.4]})["Data"]
    (0.1, 0.0001)
    """
    out = {}
    for page, seconds in first_view_s.items():
        n = np.asarray(rows, dtype=np.float64)
        t = np.asarray(seconds, dtype=np.float64)
        ok = np.isfinite(t)
        n, t = n[ok], t[ok]
        per_row = max(float(np.polyfit(n, t, 1)[0]), 0.0) if n.size >= 2 else 0.0
        fixed = max(float(np.median(t - per_row * n)), 0.0) if n.size else 0.0
        out[page] = (round(fixed, 6), round(per_row, 12))
    return out


def per_row_costs() -> dict[str, tuple[float, float]]:
    """``{page: (fixed seconds, seconds per row)}`` as measured (:data:`FIRST_VIEW_LINES`).

    >>> all(fixed >= 0 and per_row >= 0 for fixed, per_row in per_row_costs().values())
    True
    """
    return dict(FIRST_VIEW_LINES)


def first_view_seconds(n: int) -> dict[str, float]:
    """Each page's first-view seconds at ``n`` rows, estimated: fixed part + per-row cost * n.

    Parameters
    ----------
    n : int
        Rows in use (the cap, or the table's rows if fewer).

    Returns
    -------
    dict
        ``{page title: seconds}``.

    Examples
    --------
    >>> t = first_view_seconds(1_000_000)
    >>> all(t[page] >= first_view_seconds(10_000)[page] for page in FIRST_VIEW_LINES)
    True
    """
    n = max(int(n), 1)
    return {page: fixed + per_row * n for page, (fixed, per_row) in FIRST_VIEW_LINES.items()}


def slowest_first_view(n: int) -> tuple[str, float]:
    """``(page, seconds)``: the page whose first view at ``n`` rows is estimated the slowest.

    >>> page, seconds = slowest_first_view(10_000)
    >>> page in FIRST_VIEW_LINES and seconds == max(first_view_seconds(10_000).values())
    True
    """
    times = first_view_seconds(n)
    page = max(times, key=times.get)
    return page, times[page]


def largest_cap_within(budget_s: float = FIRST_VIEW_BUDGET_S) -> int:
    """The largest of :data:`MEASURED_ROWS` at which every page's estimated first view is within ``budget_s``.

    A page already slower than ``budget_s`` at the smallest size (work that does not grow with n) is held to
    its own time there instead. The smallest measured size if no size qualifies.

    >>> largest_cap_within(1e9) == MEASURED_ROWS[-1]
    True
    >>> largest_cap_within(0.0) in MEASURED_ROWS
    True
    """
    smallest = first_view_seconds(MEASURED_ROWS[0])
    fits = [n for n in MEASURED_ROWS
            if all(t <= max(budget_s, smallest[page]) for page, t in first_view_seconds(n).items())]
    return max(fits) if fits else MEASURED_ROWS[0]


#: The app's default row cap (the largest measured size within the budget, :func:`largest_cap_within`).
#: A file named on the command line is used whole regardless, unless it does not fit in memory.
DEFAULT_ROW_CAP = largest_cap_within(FIRST_VIEW_BUDGET_S)


def row_cap_cost_text(n: int) -> str:
    """What a cap of ``n`` rows costs, in words: the slowest page's estimated first view, and how much of it
    grows with the rows.

    >>> text = row_cap_cost_text(200_000)
    >>> text.startswith("about ") and "at 200,000 rows" in text and "of it from the rows" in text
    True
    """
    page, seconds = slowest_first_view(n)
    per_row = FIRST_VIEW_LINES[page][1] * max(int(n), 1)
    return (f"about {seconds_text(seconds)} for the first view of {page} at {int(n):,} rows "
            f"({seconds_text(per_row)} of it from the rows)")


def larger_cap_costs(cap: int, table_rows: int) -> list[tuple[int, str, float, float]]:
    """What raising the cap above ``cap`` would cost, for a table of ``table_rows`` rows.

    Parameters
    ----------
    cap : int
        The cap in use.
    table_rows : int
        The rows of the table (no cap above it changes anything: a cap above the rows is fine).

    Returns
    -------
    list of (rows, page, seconds, added)
        The measured sizes between ``cap`` and ``table_rows``, then ``table_rows`` itself (all of
        the table), each with its slowest page, that page's estimated first view, and the seconds it
        adds over the slowest first view at ``cap`` (the same page's fixed part is no cost of the
        cap). Empty when the cap already keeps every row.

    Examples
    --------
    >>> [rows for rows, *_ in larger_cap_costs(5_000, 60_000)] == [n for n in MEASURED_ROWS if 5_000 < n < 60_000] + [60_000]
    True
    >>> larger_cap_costs(5_000, 3_000)
    []
    """
    cap, table_rows = int(cap), int(table_rows)
    if table_rows <= cap:
        return []
    now = slowest_first_view(cap)[1]
    sizes = [n for n in MEASURED_ROWS if cap < n < table_rows] + [table_rows]
    return [(n, *slowest_first_view(n), max(slowest_first_view(n)[1] - now, 0.0)) for n in sizes]
