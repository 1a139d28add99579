"""Benchmark: what a user waits for after moving a control, measured in Chromium.

Run ``python -m rskpca.ui.bench_latency --browser`` (``--help`` for the options).
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
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

__all__ = ["CHROMIUM_ARGS", "ELL_PAGES", "AppServer", "BrowserLatency", "measure_in_browser", "format_browser_table",
           "step_new_value"]

CHROMIUM = os.environ.get("RSKPCA_CHROMIUM", "/usr/bin/chromium")
# Headless Chromium >= 144 has no software WebGL fallback unless told: without
# --enable-unsafe-swiftshader every Scattergl chart stays blank and never redraws.
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--enable-unsafe-swiftshader"]
#: The pages whose content depends on ell, by their sidebar label.
ELL_PAGES = ("Shadow centers", "KDE vs ShDE", "Embeddings", "Bounds", "Speedups")
#: Widget keys of the sidebar controls that can be stepped with the keyboard.
CONTROLS = {"ell": ("ell", "slider"), "sigma": ("sigma_slider", "slider"), "r": ("r", "number")}
QUIET_MS = 600
CHANGE_TIMEOUT_S = 300.0

# Records, in the page's clock: key/mouse releases, every script-state change of the app,
# and every Plotly redraw (plotly_afterplot on each chart, hooked as charts appear, in the page
# and in the iframes of live charts).
_INIT_SCRIPT = """
(() => {
  // Charts drawn inside a component's iframe (rskpca.ui.live_chart) record into the top page's log,
  // in the top page's clock.
  let top = window;
  try { if (window.top !== window && window.top.document) top = window.top; } catch (e) { top = window; }
  const lat = top.__lat = top.__lat || {events: []};
  const rec = (kind) => lat.events.push([kind, performance.timeOrigin + performance.now() - top.performance.timeOrigin]);
  const keyOf = (el) => {
    const box = el && el.closest('[class*="st-key-"]');
    return box ? [...box.classList].find(c => c.startsWith('st-key-')).slice(7) : null;
  };
  if (top === window) {
    document.addEventListener('keyup', () => rec('release'), true);
    document.addEventListener('mouseup', () => rec('release'), true);
  }
  const hook = () => {
    for (const gd of document.querySelectorAll('.js-plotly-plot')) {
      if (!gd.__latHooked && typeof gd.on === 'function') {
        gd.__latHooked = true;
        const key = keyOf(gd) || keyOf(window.frameElement) || '?';
        gd.on('plotly_afterplot', () => rec('plot:' + key));
      }
    }
  };
  const start = () => {
    new MutationObserver((muts) => {
      for (const m of muts) {
        if (m.type === 'attributes' && m.attributeName === 'data-test-script-state') {
          rec('state:' + m.target.getAttribute('data-test-script-state'));
        }
      }
      hook();
    }).observe(document.documentElement, {subtree: true, childList: true, attributes: true,
                                          attributeFilter: ['data-test-script-state']});
    setInterval(hook, 100);
  };
  if (document.documentElement) start(); else document.addEventListener('DOMContentLoaded', start);
})();
"""


# Live charts (rskpca.ui.live_chart) still loading plotly.js or not yet drawn: the page is not settled
# while one is (a first visit draws nothing for a second or more while plotly.js compiles, and the
# quiet period alone took that for settled).
_LIVE_CHARTS_LOADING = """[...document.querySelectorAll('iframe')]
  .filter((f) => (f.src || '').includes('rskpca_live_chart'))
  .filter((f) => {
    try {
      const chart = f.contentDocument && f.contentDocument.getElementById('chart');
      // (a chart out of view waits to be seen: rskpca.ui.live_chart)
      return !chart || (!chart.dataset.drawn && !chart.textContent && !chart.dataset.deferred);
    } catch (e) { return false; }
  }).length"""


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class AppServer:
    """``streamlit run app`` on a free loopback port, as a context manager yielding its URL.

    The server starts in the app's folder (where ``.streamlit/config.toml`` is
    read), logs to a temporary file (a pipe could fill and block it), is ready
    when ``/_stcore/health`` answers ``ok``, and is terminated on exit.
    """

    def __init__(self, app: Path, timeout: float = 120.0):
        self.app = Path(app).resolve()
        self.timeout = timeout
        self.log = None
        self.proc = None

    def __enter__(self) -> str:
        if not self.app.is_file():
            raise FileNotFoundError(f"{self.app} does not exist: pass the app's entry file with --app PATH.")
        port = _free_port()
        self.log = tempfile.TemporaryFile()
        cmd = [sys.executable, "-m", "streamlit", "run", str(self.app), "--server.headless", "true",
               "--server.port", str(port), "--server.address", "127.0.0.1",
               "--browser.gatherUsageStats", "false", "--server.fileWatcherType", "none"]
        self.proc = subprocess.Popen(cmd, cwd=self.app.parent, stdout=self.log, stderr=subprocess.STDOUT)
        url = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + self.timeout
        while True:
            if self.proc.poll() is not None:
                raise RuntimeError(f"streamlit exited with {self.proc.returncode}:\n{self.log_tail()}")
            try:
                with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as resp:
                    if resp.read().strip() == b"ok":
                        return url
            except OSError:
                pass
            if time.monotonic() > deadline:
                self.__exit__()
                raise RuntimeError(f"streamlit did not answer /_stcore/health in {self.timeout:g} s")
            time.sleep(0.25)

    def log_tail(self, limit: int = 4000) -> str:
        self.log.seek(0)
        return self.log.read().decode(errors="replace")[-limit:]

    def __exit__(self, *exc):
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        if self.log is not None:
            self.log.close()


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
    #: With ``trace``: each change's :class:`~rskpca.ui.browser_trace.MainThreadShare`.
    main_thread: list = field(default_factory=list)
    #: With ``revisits``: release-to-settled of steps back and forth between the last two values, whose
    #: results are all cached: what a change costs the browser and the script beyond the computing.
    revisit_seconds: list[float] = field(default_factory=list)

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


class _Session:
    """One browser tab on the app, with the event log and a websocket byte counter."""

    def __init__(self, browser, url: str, width: int = 1400, height: int = 1000):
        self.context = browser.new_context(viewport={"width": width, "height": height})
        self.page = self.context.new_page()
        self.page.set_default_timeout(CHANGE_TIMEOUT_S * 1000)
        self.page.add_init_script(_INIT_SCRIPT)
        self.received = 0
        self.script_end, self.script_s = None, float("nan")  # see settle and step
        self.page.on("websocket", self._watch)
        self.page.goto(url)
        self.page.get_by_test_id("stAppViewContainer").wait_for()
        self.settle()

    def _watch(self, ws) -> None:
        ws.on("framereceived", self._count)

    def _count(self, payload) -> None:
        self.received += len(payload)

    def now(self) -> float:
        return self.page.evaluate("performance.now()")

    def settle(self, since: float | None = None, expect_run: bool = True,
               runs_since: float | None = None) -> tuple[float, int]:
        """Wait until the app is not running and quiet; returns ``(ms of the last event, runs)``.

        Runs are counted from ``runs_since`` (default ``since``): a slider commits its value on
        the key press, so the run may start just before the release.
        """
        page = self.page
        since = self.now() if since is None else since
        runs_since = since if runs_since is None else runs_since
        deadline = time.monotonic() + CHANGE_TIMEOUT_S
        # A release starts a run a moment later; allow up to 3 s for it to begin.
        run_deadline = time.monotonic() + (3.0 if expect_run else 0.0)
        busy_until = since
        while True:
            events, state, now, loading = page.evaluate(
                "(t) => [window.__lat.events.filter(e => e[1] >= t),"
                " (document.querySelector(\"[data-testid='stApp']\") || {getAttribute: () => ''})"
                ".getAttribute('data-test-script-state'), performance.now(), " + _LIVE_CHARTS_LOADING + "]",
                min(since, runs_since))
            runs = sum(1 for kind, _ in events if kind == "state:running")
            events = [e for e in events if e[1] >= since]
            self.redraws = sum(1 for kind, _ in events if kind.startswith("plot"))
            self.redrawn = sorted(kind[5:] for kind, _ in events if kind.startswith("plot"))
            last = max((t for kind, t in events if kind != "release"), default=since)
            self.script_end = max((t for kind, t in events if kind == "state:notRunning"), default=None)
            started = runs > 0 or time.monotonic() > run_deadline
            if loading:  # quiet is counted from the last moment a live chart was still loading too
                busy_until = now
            if started and state == "notRunning" and now - max(last, busy_until) >= QUIET_MS:
                return last, runs
            if time.monotonic() > deadline:
                raise TimeoutError(f"the page did not settle within {CHANGE_TIMEOUT_S:g} s")
            page.wait_for_timeout(50)

    def go_to(self, label: str) -> float:
        """Open a page through its sidebar link; returns seconds until it settled."""
        # The app draws its own menu with st.page_link (rskpca.ui.nav); a link's text starts with its icon's name.
        link = self._menu().filter(has_text=re.compile(rf"{re.escape(label)}\s*$")).first
        start = self.now()
        link.click()
        last, _ = self.settle(start)
        return (last - start) / 1000

    def step(self, control: str, direction: int = 1) -> tuple[float, int, int]:
        """One keyboard step of a sidebar control; ``(seconds release-to-settled, bytes, runs)``."""
        key, kind = CONTROLS[control]
        widget = self.page.locator(f".st-key-{key}")
        if kind == "slider":
            target = widget.get_by_role("slider")
            press = "ArrowRight" if direction > 0 else "ArrowLeft"
        else:
            target = widget.locator("input")
            press = "ArrowUp" if direction > 0 else "ArrowDown"
        target.focus()
        before = self.now()
        self.page.keyboard.down(press)
        received = self.received
        if kind == "number":
            self.page.keyboard.up(press)
            self.page.keyboard.press("Enter")  # a number input commits on Enter
        else:
            self.page.keyboard.up(press)
        releases = [t for kind_, t in self.page.evaluate("(t) => window.__lat.events.filter(e => e[1] >= t)",
                                                          before) if kind_ == "release"]
        start = releases[-1] if releases else before
        last, runs = self.settle(start, runs_since=before)
        self.script_s = float("nan") if self.script_end is None else max(self.script_end - start, 0.0) / 1000
        return max(last - start, 0.0) / 1000, self.received - received, runs

    def upload(self, path: Path, max_rows: int | None) -> None:
        """Upload a file on the Data page through the file chooser, then set the row cap."""
        data_label = next(lab for lab in self.nav_labels() if re.search(r"data", lab, re.I))
        self.go_to(data_label)
        main = self.page.get_by_test_id("stMain")
        with self.page.expect_file_chooser() as chooser:
            main.get_by_test_id("stFileUploaderDropzone").first.get_by_test_id("stBaseButton-secondary").click()
        chooser.value.set_files(files=str(path))  # by path: Playwright refuses buffers over 50 MB
        self.page.get_by_test_id("stFileChip").first.wait_for()
        self.settle()
        if max_rows is not None:
            box = self.page.locator(".st-key-max_rows input")
            box.fill(str(max_rows))
            box.press("Enter")
            self.settle()
        error = self.page.get_by_test_id("stMain").get_by_test_id("stAlert")
        if error.count() and "error" in (error.first.get_attribute("class") or "") + error.first.inner_text().lower():
            raise RuntimeError(f"the upload failed: {error.first.inner_text()[:300]}")

    def sidebar_text(self) -> str:
        return self.page.get_by_test_id("stSidebar").inner_text()

    def _menu(self):
        return self.page.get_by_test_id("stSidebar").get_by_test_id("stPageLink")

    def nav_labels(self) -> list[str]:
        links = self._menu()
        return [re.sub(r"^[a-z_]+\s+", "", links.nth(i).inner_text().strip()) for i in range(links.count())]

    def exception_text(self) -> str:
        exc = self.page.get_by_test_id("stException")
        return exc.first.inner_text()[:500] if exc.count() else ""

    def close(self) -> None:
        self.context.close()


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
                       log=print, trace: bool = False, revisits: int = 0) -> tuple[str, list[BrowserLatency]]:
    """Time ``changes`` keyboard steps of each control on each page; returns (data description, rows).

    ``trace``: also record a Chromium trace of each change and keep where its main thread went
    (:func:`~rskpca.ui.browser_trace.main_thread_share`; tracing slows the browser a little).
    ``revisits``: then as many steps back and forth between the last two values (cached results:
    the page's cost beyond computing them), kept apart in ``revisit_seconds``.
    """
    from playwright.sync_api import sync_playwright

    from rskpca.ui.browser_trace import TRACE_CATEGORIES, main_thread_share

    if not Path(CHROMIUM).exists():
        raise FileNotFoundError(f"{CHROMIUM} is missing: install Debian's chromium or set RSKPCA_CHROMIUM.")
    results: list[BrowserLatency] = []
    with AppServer(app) as url, sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        try:
            session = _Session(browser, url if csv is not None else f"{url}/?dataset={sample}")
            if csv is not None:
                session.upload(Path(csv), max_rows)
            found = re.search(r"n = \d+ rows, d = \d+", session.sidebar_text())
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
                        for i in range(revisits):  # back, forth, back...: both values' results are cached
                            sign = -direction[control] if i % 2 == 0 else direction[control]
                            row.revisit_seconds.append(session.step(control, sign)[0])
                    except Exception as exc:  # noqa: BLE001 - a page that fails is reported, the rest still run
                        row.error = f"{type(exc).__name__}: {exc}"[:300]
                    row.error = row.error or session.exception_text()
                    log(format_browser_row(row), flush=True)
            session.close()
        finally:
            browser.close()
    return described, results


def format_browser_header(traced: bool = False, revisited: bool = False) -> str:
    """The table's header; ``traced`` adds the main thread's medians (``--trace``), ``revisited`` the
    median of the cached revisits (``--revisits``)."""
    return (f"{'page':<16} {'control':<7} {'first visit s':>13} {'median s':>9} {'max s':>7} "
            f"{'median kB':>10} {'runs':>5} {'script s':>9}"
            + (f" {'main ms':>8} {'charts ms':>9} {'commit ms':>9}" if traced else "")
            + (f" {'cached s':>9}" if revisited else ""))


def format_browser_row(r: BrowserLatency) -> str:
    """One page's line (``script s``: the median of the script's share of each change).

    >>> print(format_browser_row(BrowserLatency("Bounds", "ell", 1.0, [0.2, 0.3, 0.25], [2048, 4096, 1024],
    ...                                         [1, 1, 1], script_seconds=[0.08, 0.1, 0.09])))
    Bounds           ell             1.000     0.250   0.300        2.0     1     0.090
    """
    if r.error:
        return f"{r.page:<16} {r.control:<7} ERROR: {r.error.splitlines()[0][:150]}"
    kb = statistics.median(r.payload_bytes) / 1024 if r.payload_bytes else float("nan")
    runs = statistics.median(r.runs) if r.runs else float("nan")
    line = (f"{r.page:<16} {r.control:<7} {r.first_visit:>13.3f} {r.median:>9.3f} {r.worst:>7.3f} "
            f"{kb:>10.1f} {runs:>5g} {r.median_script:>9.3f}")
    if r.main_thread:
        def med(name):
            return statistics.median(getattr(share, name) for share in r.main_thread)
        line += f" {med('busy_ms'):>8.0f} {med('charts_ms'):>9.0f} {med('commit_ms'):>9.0f}"
    if r.revisit_seconds:
        line += f" {r.median_revisit:>9.3f}"
    return line


def format_browser_table(described: str, rows) -> str:
    return "\n".join([described, format_browser_header()] + [format_browser_row(r) for r in rows])
