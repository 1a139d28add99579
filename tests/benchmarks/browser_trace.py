"""Where the browser's main thread spends a control change: a Chromium trace read into three figures.

``python tests/benchmarks/bench_latency.py --browser --trace`` records a trace of each change
(Playwright's ``browser.start_tracing``) and reads it with :func:`main_thread_share`:

* ``main ms`` -- the renderer main thread busy (its top-level tasks, overlaps merged): the
  app's React updates, the live charts' draws, style, layout, paint, and the commits below.
  Everything a page does in the browser waits for this one thread.
* ``charts ms`` -- the live charts' draws (``tests/benchmarks/live_chart.py``): the message
  handlers that run in the component's page (``index.html``), JSON parsing and
  ``Plotly.react`` included.
* ``commit ms`` -- the main thread blocked handing frames to the compositor (``Commit``).
  Without a GPU this includes waiting for WebGL charts drawn in software (SwiftShader):
  on two moons an ell change on Shadow centers, whose scatter is WebGL, spent 111 of its
  402 main-thread ms in commits, one on Bounds (SVG charts only) 9 of 282
  (``python tests/benchmarks/bench_latency.py --browser --trace --changes 4 --sample two_moons``,
  2026-11-24 08:44).
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["TRACE_CATEGORIES", "MainThreadShare", "main_thread_share"]

#: Chromium trace categories holding the main thread's tasks, message handlers and commits.
TRACE_CATEGORIES = ["devtools.timeline", "disabled-by-default-devtools.timeline"]
# A task appears under both names (one nested in the other): overlaps are merged anyway.
_TASKS = ("ThreadControllerImpl::RunTask", "RunTask")
_MAIN = "CrRendererMain"
_CHART_PAGE = "index.html"  # the live chart component's page (rskpca.ui.live_chart)


@dataclass(frozen=True)
class MainThreadShare:
    """Milliseconds of one trace: main thread busy, live charts' draws, compositor commits."""

    busy_ms: float
    charts_ms: float
    commit_ms: float


def _union_ms(spans) -> float:
    total, end = 0.0, float("-inf")
    for start, stop in sorted(spans):
        if stop > end:
            total += stop - max(start, end)
            end = stop
    return total / 1000.0


def main_thread_share(events) -> MainThreadShare:
    """Read a Chromium trace's events (``traceEvents``, times in microseconds) into a :class:`MainThreadShare`.

    Every renderer main thread counts (the app and its same-site chart frames share one).

    >>> meta = {"ph": "M", "name": "thread_name", "pid": 1, "tid": 7, "args": {"name": "CrRendererMain"}}
    >>> def x(name, ts, dur, url=None):
    ...     return {"ph": "X", "pid": 1, "tid": 7, "name": name, "ts": ts, "dur": dur,
    ...             "args": {"data": {"url": url}} if url else {}}
    >>> events = [meta, x("RunTask", 0, 5000), x("ThreadControllerImpl::RunTask", 0, 5000),
    ...           x("RunTask", 10000, 30000), x("HandlePostMessage", 10000, 20000),
    ...           x("FunctionCall", 11000, 18000, "http://h/component/index.html?x=1"),
    ...           x("HandlePostMessage", 31000, 2000), x("FunctionCall", 31000, 1000, "http://h/static/js/app.js"),
    ...           x("Commit", 32000, 7000)]
    >>> main_thread_share(events)
    MainThreadShare(busy_ms=35.0, charts_ms=20.0, commit_ms=7.0)
    """
    events = list(events)
    mains = {(e.get("pid"), e.get("tid")) for e in events
             if e.get("ph") == "M" and e.get("name") == "thread_name" and e.get("args", {}).get("name") == _MAIN}
    spans = [e for e in events if e.get("ph") == "X" and "dur" in e and (e.get("pid"), e.get("tid")) in mains]
    busy = sum(_union_ms((e["ts"], e["ts"] + e["dur"]) for e in spans
                         if e["name"] in _TASKS and (e["pid"], e["tid"]) == thread) for thread in mains)
    calls = [e for e in spans if e["name"] == "FunctionCall"
             and _CHART_PAGE in str(e.get("args", {}).get("data", {}).get("url", ""))]
    charts = sum(h["dur"] for h in spans if h["name"] == "HandlePostMessage" and any(
        (c["pid"], c["tid"]) == (h["pid"], h["tid"]) and h["ts"] <= c["ts"] <= h["ts"] + h["dur"] for c in calls))
    commit = sum(e["dur"] for e in spans if e["name"] == "Commit")
    return MainThreadShare(busy, charts / 1000.0, commit / 1000.0)
