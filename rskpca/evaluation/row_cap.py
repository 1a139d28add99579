"""What the app's row cap costs: each page's first view, measured at growing n, and the default cap.

The Data page's row cap keeps a seeded random sample of the rows above it. A larger cap makes
every page's first view (its first run after the data is loaded, caches cold) slower, in
proportion to the rows for the O(n) work (the shadow, the a-posteriori bounds, the data view's
principal axes, the densities). :data:`FIRST_VIEW_S` holds those times as measured, page by page,
and :func:`first_view_seconds` estimates them at any n from each page's fixed and per-row cost
(:func:`per_row_costs`, a line fitted to the measurements). The app's default cap,
:data:`DEFAULT_ROW_CAP`, is the largest measured size at which every page's first view stays within
:data:`FIRST_VIEW_BUDGET_S`; the Data page shows the estimates before a larger cap is applied.

How the table was measured (``tests/benchmarks/bench_row_cap.py``): Streamlit's ``AppTest`` of
``app.py``, server side (no browser), on a generated 10-d Gaussian mixture (8 components) of n
rows uploaded as ``.npy`` with the cap at n; for each page, all caches cleared, the data loaded
(``app.py``'s first run: read, prepare, sidebar; the ``"Loading"`` entry), then the page's first run
timed; the best of 2 repeats (other jobs only add time). Machine: 2 cores, shared, load average 4.2-6.7
during the run (2026-11-27). The times are the server's; the browser adds the transfer and drawing of the charts,
which the pages bound by point budgets, not by n.
"""

from __future__ import annotations

import numpy as np

from rskpca.evaluation.units import seconds_text

__all__ = ["MEASURED_ROWS", "FIRST_VIEW_S", "FIRST_VIEW_BUDGET_S", "DEFAULT_ROW_CAP", "first_view_seconds",
           "per_row_costs", "slowest_first_view", "largest_cap_within", "row_cap_cost_text", "larger_cap_costs"]

#: The row counts the first views were measured at.
MEASURED_ROWS = (5_000, 20_000, 50_000, 100_000, 200_000, 500_000, 1_000_000)

#: Seconds of each page's first view at :data:`MEASURED_ROWS` (see the module's docstring for how).
FIRST_VIEW_S: dict[str, tuple[float, ...]] = {
    "Loading": (0.22, 0.34, 0.22, 0.15, 0.13, 0.85, 0.84),
    "Data": (0.16, 0.16, 0.61, 0.77, 1.15, 2.84, 7.70),
    "Shadow centers": (0.06, 0.37, 0.05, 0.16, 0.15, 0.31, 0.65),
    "KDE vs ShDE": (0.30, 0.72, 0.13, 0.25, 0.42, 1.99, 4.91),
    "Embeddings": (0.52, 1.40, 0.22, 0.32, 0.31, 0.41, 0.44),
    "Bounds": (0.13, 0.18, 0.12, 0.12, 0.16, 0.17, 0.21),
    "Speedups": (2.60, 1.63, 2.01, 1.06, 1.84, 1.56, 4.18),
    "Kernelization": (0.03, 0.01, 0.02, 0.01, 0.03, 0.04, 0.09),
    "Learn": (0.01, 0.01, 0.02, 0.03, 0.05, 0.04, 0.10),
    "Denoise": (0.02, 0.03, 0.02, 0.01, 0.01, 0.04, 0.15),
    "Spectral": (0.09, 0.13, 0.24, 0.32, 1.17, 3.28, 6.08),
}

#: The default cap keeps every page's first view within this many seconds.
FIRST_VIEW_BUDGET_S = 3.0

#: The app's default row cap: the largest measured size at which every page's first view is within the budget,
#: or within its own time at the smallest size where that is already above it (a cost the cap does not cause).
DEFAULT_ROW_CAP = 200_000


def per_row_costs() -> dict[str, tuple[float, float]]:
    """``{page: (fixed seconds, seconds per row)}``: a line fitted to each page's measured first views.

    The slope is the least-squares one over :data:`MEASURED_ROWS` (at least 0); the fixed part the median
    of what is left at each size (at least 0). A line, not the points themselves: on a shared machine a
    single measurement jumps, and a page's work beyond its fixed part grows with the rows.

    >>> fixed, per_row = per_row_costs()["Shadow centers"]
    >>> fixed >= 0 and per_row >= 0
    True
    """
    rows = np.asarray(MEASURED_ROWS, dtype=np.float64)
    out = {}
    for page, seconds in FIRST_VIEW_S.items():
        t = np.asarray(seconds, dtype=np.float64)
        per_row = max(float(np.polyfit(rows, t, 1)[0]), 0.0)
        out[page] = (max(float(np.median(t - per_row * rows)), 0.0), per_row)
    return out


def first_view_seconds(n: int) -> dict[str, float]:
    """Each page's first-view seconds at ``n`` rows, estimated: fixed part + per-row cost * n (:func:`per_row_costs`).

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
    >>> all(t[page] >= first_view_seconds(10_000)[page] for page in FIRST_VIEW_S)
    True
    """
    n = max(int(n), 1)
    return {page: fixed + per_row * n for page, (fixed, per_row) in per_row_costs().items()}


def slowest_first_view(n: int) -> tuple[str, float]:
    """``(page, seconds)``: the page whose first view at ``n`` rows is estimated the slowest.

    >>> page, seconds = slowest_first_view(10_000)
    >>> page in FIRST_VIEW_S and seconds == max(first_view_seconds(10_000).values())
    True
    """
    times = first_view_seconds(n)
    page = max(times, key=times.get)
    return page, times[page]


def largest_cap_within(budget_s: float = FIRST_VIEW_BUDGET_S) -> int:
    """The largest of :data:`MEASURED_ROWS` at which every page's estimated first view is within ``budget_s``.

    A page already slower than ``budget_s`` at the smallest size (work that does not grow with n, such
    as timing exact KPCA up to a time budget) is held to its own time there instead. The smallest
    measured size if no size qualifies.

    >>> largest_cap_within(1e9) == MEASURED_ROWS[-1]
    True
    >>> largest_cap_within(0.0) in MEASURED_ROWS
    True
    """
    smallest = first_view_seconds(MEASURED_ROWS[0])
    fits = [n for n in MEASURED_ROWS
            if all(t <= max(budget_s, smallest[page]) for page, t in first_view_seconds(n).items())]
    return max(fits) if fits else MEASURED_ROWS[0]


def row_cap_cost_text(n: int) -> str:
    """What a cap of ``n`` rows costs, in words: the slowest page's estimated first view.

    >>> row_cap_cost_text(200_000).startswith("about ") and "at 200,000 rows" in row_cap_cost_text(200_000)
    True
    """
    page, seconds = slowest_first_view(n)
    return f"about {seconds_text(seconds)} for the first view of {page} at {int(n):,} rows"


def larger_cap_costs(cap: int, table_rows: int) -> list[tuple[int, str, float]]:
    """What raising the cap above ``cap`` would cost, for a table of ``table_rows`` rows.

    Parameters
    ----------
    cap : int
        The cap in use.
    table_rows : int
        The rows of the table (no cap above it changes anything: a cap above the rows is fine).

    Returns
    -------
    list of (rows, page, seconds)
        The measured sizes between ``cap`` and ``table_rows``, then ``table_rows`` itself (all of
        the table), each with its slowest page and that page's estimated first view. Empty when
        the cap already keeps every row.

    Examples
    --------
    >>> [rows for rows, _, _ in larger_cap_costs(5_000, 60_000)]
    [20000, 50000, 60000]
    >>> larger_cap_costs(5_000, 3_000)
    []
    """
    cap, table_rows = int(cap), int(table_rows)
    if table_rows <= cap:
        return []
    sizes = [n for n in MEASURED_ROWS if cap < n < table_rows] + [table_rows]
    return [(n, *slowest_first_view(n)) for n in sizes]
