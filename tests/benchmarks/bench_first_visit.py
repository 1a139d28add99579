"""A fresh server's first visit in Chromium: when the page first shows any text, and when it is done.

A new server process imports the numerical libraries before a page can draw; the app says so with a
spinner (``rskpca.ui.first_visit``). For each page this starts a fresh server and browser, opens the
page's address and prints the seconds from navigation to the first text in the main area (the
spinner's or the page's own), to the sidebar's controls, and to the script done::

    python tests/benchmarks/bench_first_visit.py                      # the home page, Data and Spectral
    python tests/benchmarks/bench_first_visit.py --pages "" Embeddings --app /tmp/old/app.py

The operating system's file cache is warm after the first server: the first row of a run is the
slowest.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from app_server import AppServer
from playwright.sync_api import sync_playwright

CHROMIUM = "/usr/bin/chromium"
STATE = """() => ({
  text: document.querySelectorAll('[data-testid="stMain"] [data-testid="stMarkdownContainer"], '
                                  + '[data-testid="stMain"] [data-testid="stHeading"], '
                                  + '[data-testid="stMain"] [data-testid="stSpinner"]').length > 0,
  sidebar: document.querySelectorAll('[data-testid="stSidebarUserContent"] [data-testid="stWidgetLabel"]').length > 0,
  running: !!document.querySelector('[data-testid="stStatusWidget"]'),
})"""


def first_visit(browser, app: Path, page: str, timeout: float = 90.0) -> dict:
    """Seconds from navigation to the first text, to the sidebar's controls and to done, on a fresh server."""
    with AppServer(app) as url:
        tab = browser.new_page(viewport={"width": 1400, "height": 1000})
        t0 = time.perf_counter()
        tab.goto(f"{url}/{page}")
        marks = {}
        while time.perf_counter() - t0 < timeout:
            state, now = tab.evaluate(STATE), round(time.perf_counter() - t0, 2)
            for mark in ("text", "sidebar"):
                if state[mark]:
                    marks.setdefault(mark, now)
            if "text" in marks and "sidebar" in marks and not state["running"]:
                marks["done"] = now
                break
            tab.wait_for_timeout(50)
        tab.close()
    return marks


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", nargs="+", default=["", "Data", "Spectral"],
                        help='page addresses ("" is the home page)')
    parser.add_argument("--app", type=Path, default=Path("app.py"))
    args = parser.parse_args(argv)
    print(f"{'page':<16} {'first text s':>12} {'sidebar s':>10} {'done s':>7}")
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        for page in args.pages:
            marks = first_visit(browser, args.app, page)
            print(f"{page or 'home':<16} {marks.get('text', float('nan')):12.2f} "
                  f"{marks.get('sidebar', float('nan')):10.2f} {marks.get('done', float('nan')):7.2f}", flush=True)
        browser.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
