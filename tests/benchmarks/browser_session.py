"""One Chromium tab on the app that knows when a change has settled, for the browser benchmark.

Playwright alone cannot tell when a Streamlit page is done: a run ends, then charts
keep redrawing, live charts load plotly.js, and a slider commits before its key
is released. The tab records those events in the page's own clock (a script
injected before the app loads) and counts the websocket bytes, so
``tests/benchmarks/bench_browser.py`` can time a change from the release to the last
event before a quiet period.
"""

from __future__ import annotations

import re
import time
from pathlib import Path

__all__ = ["CONTROLS", "QUIET_MS", "CHANGE_TIMEOUT_S"]

#: Widget keys of the sidebar controls that can be stepped with the keyboard.
CONTROLS = {"ell": ("ell", "slider"), "sigma": ("sigma_slider", "slider"), "r": ("r", "number")}
QUIET_MS = 600
CHANGE_TIMEOUT_S = 300.0
#: How long a tab waits for the sidebar's menu to be drawn before it reads it as empty.
MENU_TIMEOUT_S = 60.0

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
            self.first_plot = min((t for kind, t in events if kind.startswith("plot")), default=None)
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
        self.first_draw_s = float("nan") if self.first_plot is None else max(self.first_plot - start, 0.0) / 1000
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
        self.set_row_cap(max_rows)

    def set_row_cap(self, max_rows: int | None) -> None:
        """Set the Data page's row cap (None: keep the app's) and check the data were taken."""
        if max_rows is not None:
            data_label = next(lab for lab in self.nav_labels() if re.search(r"data", lab, re.I))
            self.go_to(data_label)
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
        """The sidebar menu's page names, once the menu is drawn ([] if none is within MENU_TIMEOUT_S)."""
        links = self._menu()
        self._wait_for_menu(links)
        return [re.sub(r"^[a-z_]+\s+", "", links.nth(i).inner_text().strip()) for i in range(links.count())]

    def _wait_for_menu(self, links) -> None:
        # The page links are drawn after the run that wrote them has ended: Streamlit's frontend loads
        # st.page_link's code (its own PageLink.*.js chunk) on the first link it meets, and the app fills
        # the menu last in the run (rskpca.ui.page_setup), so a fresh tab asks for that chunk as the run
        # ends and draws the links seconds after the app reads notRunning and the events went quiet;
        # settle() sees no event for it. Wait for the first link, then until their number holds.
        deadline = time.monotonic() + MENU_TIMEOUT_S
        count, held_since = links.count(), time.monotonic()
        while time.monotonic() < deadline:
            self.page.wait_for_timeout(100)
            now = links.count()
            if now != count:
                count, held_since = now, time.monotonic()
            elif count and time.monotonic() - held_since >= QUIET_MS / 1000:
                return

    def exception_text(self) -> str:
        exc = self.page.get_by_test_id("stException")
        return exc.first.inner_text()[:500] if exc.count() else ""

    def close(self) -> None:
        self.context.close()
