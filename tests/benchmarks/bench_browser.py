"""Benchmark: what a user waits for after moving a control, measured in Chromium.

Run ``python tests/benchmarks/bench_latency.py --browser`` (``--help`` for the options).
It starts ``streamlit run APP`` on a free loopback port (the log goes to a
temporary file; the server is stopped at the end), drives ``/usr/bin/chromium``
with Playwright, opens every page that depends on ell and moves a sidebar
control several times with the keyboard, one step per change, as a person
tapping an arrow key on the slider's thumb does.

One change is timed from the key's release (a ``keyup`` listener in the page,
in the browser's clock) until the page has settled: the app's script state is
back to ``notRunning`` and no Plotly chart has redrawn (``plotly_afterplot``)
for a quiet period. The time reported is that of the last such event, so the
quiet period itself is not counted. Each change also records the bytes the
server sent over the websocket, how many script runs (full or fragment) it
caused, and when the page marked the script run finished (``script s``). The page
sets that state after handling the deltas sent before it, so ``script s`` is the
run and the browser's handling of its messages together; the rest of a change is
the charts' last redraws.

Pages are opened through the sidebar's links, so one browser session keeps
its caches the way a user's does: the first visit of a page computes what does
not depend on ell, and the changes measure what does.
"""

from __future__ import annotations

import json
import os
import re
import statistics
from dataclasses import dataclass, field
from pathlib import Path

from app_server import AppServer
from browser_session import CHANGE_TIMEOUT_S, CONTROLS, QUIET_MS, _Session

__all__ = ["CHROMIUM_ARGS", "ELL_PAGES", "AppServer", "BrowserLatency", "measure_in_browser",
           "step_new_value", "CONTROLS", "QUIET_MS", "CHANGE_TIMEOUT_S"]

CHROMIUM = os.environ.get("RSKPCA_CHROMIUM", "/usr/bin/chromium")
# Headless Chromium >= 144 has no software WebGL fallback unless told: without
# --enable-unsafe-swiftshader every Scattergl chart stays blank and never redraws.
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--enable-unsafe-swiftshader"]
#: The pages whose content depends on ell, by their sidebar label.
ELL_PAGES = ("Shadow centers", "KDE vs ShDE", "Embeddings", "Bounds", "Speedups", "Spectral")


@dataclass
class BrowserLatency:
    """One page's changes of one control: release-to-settled seconds, bytes received, script runs,
    and the script's share of each change."""

    page: str
    control: str
    first_visit: float
    seconds: list[float] = field(default_factory=list)
    payload_bytes: list[int] = field(default_factory=list)
    runs: list[int] = field(default_factory=list)
    redraws: list[int] = field(default_factory=list)
    error: str = ""
    #: Seconds from the release until the page marked the script run finished (its state back to
    #: ``notRunning``, set after the deltas sent before it were handled); the rest is the last redraws.
    script_seconds: list[float] = field(default_factory=list)
    #: With ``trace``: each change's ``browser_trace.MainThreadShare``.
    main_thread: list = field(default_factory=list)
    #: With ``revisits``: release-to-settled of steps back and forth between the last two values, whose
    #: results are all cached: what a change costs the browser and the script beyond the computing.
    revisit_seconds: list[float] = field(default_factory=list)
    #: Seconds from the release to the first chart redrawn: where a page draws what is ready first (each
    #: row at its center, then every row's own projection), when the user first sees the new setting.
    first_draw_seconds: list[float] = field(default_factory=list)

    @property
    def median_first_draw(self) -> float:
        return statistics.median(self.first_draw_seconds) if self.first_draw_seconds else float("nan")

    @property
    def median_revisit(self) -> float:
        return statistics.median(self.revisit_seconds) if self.revisit_seconds else float("nan")

    @property
    def median_script(self) -> float:
        return statistics.median(self.script_seconds) if self.script_seconds else float("nan")

    @property
    def median(self) -> float:
        return statistics.median(self.seconds) if self.seconds else float("nan")

    @property
    def worst(self) -> float:
        return max(self.seconds) if self.seconds else float("nan")




def step_new_value(session, control: str, direction: dict) -> tuple[float, int, int]:
    """One step of ``control`` in ``direction[control]``; at the end of its range, one the other way.

    A step that starts no script run left the value where it was (the end of the range):
    the direction is turned for this and later steps, so every step times a new value
    while the range lasts (rank r, 5..20, runs out after 15 steps).

    >>> class AtTheTop:
    ...     def step(self, control, sign):
    ...         return (0.0, 0, 0) if sign > 0 else (0.2, 100, 1)
    >>> way = {"r": 1}
    >>> step_new_value(AtTheTop(), "r", way), way
    ((0.2, 100, 1), {'r': -1})
    """
    seconds, nbytes, runs = session.step(control, direction[control])
    if runs == 0:
        direction[control] = -direction[control]
        seconds, nbytes, runs = session.step(control, direction[control])
    return seconds, nbytes, runs


def measure_in_browser(app: Path, *, sample: str | None = "two_moons", csv: Path | None = None,
                       max_rows: int | None = None, pages=ELL_PAGES, controls=("ell",), changes: int = 5,
                       log=print, trace: bool = False, revisits: int = 0, served: bool = False,
                       fresh: bool = False) -> tuple[str, list[BrowserLatency]]:
    """Time ``changes`` keyboard steps of each control on each page; returns (data description, rows).

    ``trace``: also record a Chromium trace of each change and keep where its main thread went
    (``browser_trace.main_thread_share``; tracing slows the browser a little).
    ``revisits``: then as many steps back and forth between the last two values (cached results:
    the page's cost beyond computing them), kept apart in ``revisit_seconds``.
    ``served``: the app is started with ``csv`` as its data file (``streamlit run app.py -- FILE``, read
    on the server, as ``rskpca app FILE`` does) instead of uploading it; the row cap is set either way.
    ``fresh``: a new server and browser for each page, so that every page starts from the app's
    default settings with empty caches (in one session the steps add up: the fifth page would start
    25 steps of ell above the default, where m, and every cost, is several times larger).
    """
    if not Path(CHROMIUM).exists():
        raise FileNotFoundError(f"{CHROMIUM} is missing: install Debian's chromium or set RSKPCA_CHROMIUM.")
    served = served and csv is not None
    described, results, peaks = "", [], []
    for group in ([[label] for label in pages] if fresh else [list(pages)]):
        described, rows, peak = _measure_pages(app, group, sample=sample, csv=csv, max_rows=max_rows,
                                               controls=controls, changes=changes, log=log, trace=trace,
                                               revisits=revisits, served=served)
        results += rows
        peaks += [peak] if peak is not None else []
    if peaks:
        described += f"; server peak memory {max(peaks) / 1e6:,.0f} MB"
    return described, results


def _measure_pages(app: Path, pages, *, sample, csv, max_rows, controls, changes, log, trace, revisits, served):
    """:func:`measure_in_browser` on one server and one browser: ``(description, rows, peak memory)``."""
    from playwright.sync_api import sync_playwright

    from browser_trace import TRACE_CATEGORIES, main_thread_share

    results: list[BrowserLatency] = []
    server = AppServer(app, script_args=[Path(csv).resolve()] if served else ())
    with server as url, sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        try:
            session = _Session(browser, url if csv is not None else f"{url}/?dataset={sample}")
            if served:
                session.set_row_cap(max_rows)
            elif csv is not None:
                session.upload(Path(csv), max_rows)
            found = re.search(r"n = [\d,]+ rows, d = [\d,]+", session.sidebar_text())
            described = f"{csv.name if csv is not None else sample}: {found.group(0) if found else '?'}"
            labels = session.nav_labels()
            direction = dict.fromkeys(controls, 1)  # see step_new_value
            for label in pages:
                if label not in labels:
                    results.append(BrowserLatency(label, "-", float("nan"), error=f"no page {label!r} in {labels}"))
                    continue
                first = session.go_to(label)
                for control in controls:
                    row = BrowserLatency(label, control, first)
                    results.append(row)
                    try:
                        for i in range(changes):
                            if not trace:
                                seconds, nbytes, runs = step_new_value(session, control, direction)
                            else:
                                browser.start_tracing(page=session.page, categories=TRACE_CATEGORIES)
                                try:
                                    seconds, nbytes, runs = step_new_value(session, control, direction)
                                finally:  # a failed change must not leave tracing on for the next page
                                    recorded = json.loads(browser.stop_tracing())
                                row.main_thread.append(main_thread_share(
                                    recorded["traceEvents"] if isinstance(recorded, dict) else recorded))
                            row.seconds.append(seconds)
                            row.payload_bytes.append(nbytes)
                            row.runs.append(runs)
                            row.redraws.append(session.redraws)
                            row.script_seconds.append(session.script_s)
                            row.first_draw_seconds.append(session.first_draw_s)
                        for i in range(revisits):  # back, forth, back...: both values' results are cached
                            sign = -direction[control] if i % 2 == 0 else direction[control]
                            row.revisit_seconds.append(session.step(control, sign)[0])
                    except Exception as exc:  # noqa: BLE001 - a page that fails is reported, the rest still run
                        row.error = f"{type(exc).__name__}: {exc}"[:300]
                    row.error = row.error or session.exception_text()
                    log(format_browser_row(row), flush=True)
            session.close()
            peak = server.peak_memory_bytes()
        finally:
            browser.close()
    return described, results, peak


def format_browser_header(traced: bool = False, revisited: bool = False) -> str:
    """The table's header; ``traced`` adds the main thread's medians (``--trace``), ``revisited`` the
    median of the cached revisits (``--revisits``)."""
    return (f"{'page':<16} {'control':<7} {'first visit s':>13} {'median s':>9} {'max s':>7} "
            f"{'median kB':>10} {'runs':>5} {'first draw s':>12} {'script s':>9}"
            + (f" {'main ms':>8} {'charts ms':>9} {'commit ms':>9}" if traced else "")
            + (f" {'cached s':>9}" if revisited else ""))


def format_browser_row(r: BrowserLatency) -> str:
    """One page's line (``script s``: the median of the script's share of each change).

    >>> print(format_browser_row(BrowserLatency("Bounds", "ell", 1.0, [0.2, 0.3, 0.25], [2048, 4096, 1024],
    ...                                         [1, 1, 1], script_seconds=[0.08, 0.1, 0.09],
    ...                                         first_draw_seconds=[0.15, 0.2, 0.18])))
    Bounds           ell             1.000     0.250   0.300        2.0     1        0.180     0.090
    """
    if r.error:
        return f"{r.page:<16} {r.control:<7} ERROR: {r.error.splitlines()[0][:150]}"
    kb = statistics.median(r.payload_bytes) / 1024 if r.payload_bytes else float("nan")
    runs = statistics.median(r.runs) if r.runs else float("nan")
    line = (f"{r.page:<16} {r.control:<7} {r.first_visit:>13.3f} {r.median:>9.3f} {r.worst:>7.3f} "
            f"{kb:>10.1f} {runs:>5g} {r.median_first_draw:>12.3f} {r.median_script:>9.3f}")
    if r.main_thread:
        def med(name):
            return statistics.median(getattr(share, name) for share in r.main_thread)
        line += f" {med('busy_ms'):>8.0f} {med('charts_ms'):>9.0f} {med('commit_ms'):>9.0f}"
    if r.revisit_seconds:
        line += f" {r.median_revisit:>9.3f}"
    return line

