"""Screenshots of app pages at a large row cap, for before/after comparisons (not a test).

``python tests/benchmarks/screenshots.py --data FILE [--app-dir CHECKOUT] [--rows 1000000]
[--pages Embeddings Speedups] [--out tests/benchmarks/screenshots] [--prefix after] [--generate N]``

It starts ``streamlit run app.py`` in ``--app-dir`` (any checkout of this project, old or new) on a
free loopback port, with that checkout first on ``PYTHONPATH`` so the server imports that
checkout's ``rskpca`` and not the editable install (the path it imports is printed). Chromium
(Playwright) uploads ``--data`` on the Data page through the file chooser, sets the number input
labelled "Row cap ..." to ``--rows`` (Enter commits it), and waits until the app has settled. Then
each page of ``--pages`` is opened through its sidebar link; once the page has settled (script not
running, no chart redrawn for a quiet period, no live chart still loading; minutes at 1,000,000
rows) the viewport is made as tall as the page's content, so every chart is in view and drawn,
and a screenshot (1400 px wide, device scale 1) is saved to ``OUT/PREFIX_<page>.png``. A PNG over
``--max-kb`` is reduced to a 256-colour palette. The seconds each page took to settle (from the
click on its link to its last event) are printed, and the sidebar's "n = ... rows" line, so a
screenshot taken at the wrong size shows up.

``--generate N`` writes a seeded N x 10 Gaussian mixture (plus a ``label`` column, its component)
as Parquet at ``--data`` first, if that file is missing; ``--letters N`` a realistic labelled file
instead: N rows of 16 integer-valued features (0..15, many ties) and a text label of 26 classes
"A".."Z" (26 Gaussian blobs rounded to integers). ``--charts`` saves each chart of a page on its own
(``OUT/PREFIX_<page>_chart<i>.png``) beside or instead of the whole page (``--no-page``).

The row charts on the 26-class file at 1,000, 20,000 and 1,000,000 rows (issue 38):

    for rows in 1000 20000 1000000; do
      python tests/benchmarks/screenshots.py --data /tmp/letters_$rows.parquet --letters $rows --serve \\
          --rows $rows --pages Data "Shadow centers" Embeddings --charts --no-page --prefix letters_$rows
    done

Before the scale work (commit fc3186c):

    git worktree add /tmp/rskpca_before fc3186c
    python tests/benchmarks/screenshots.py --app-dir /tmp/rskpca_before --data /tmp/mix_1m.parquet \\
        --generate 1000000 --prefix before
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
sys.path.insert(0, str(HERE))

import browser_session  # noqa: E402
from app_server import AppServer  # noqa: E402
from bench_browser import CHROMIUM, CHROMIUM_ARGS  # noqa: E402

WIDTH = 1400
HEIGHT = 1000
#: The tallest viewport used for a full-page shot (a taller page is cut there).
MAX_HEIGHT = 12_000

# How tall the page's content is: the bottom of its block container (Streamlit scrolls a container, not
# the document, and the container is at least as tall as the viewport, so its scrollHeight never shrinks).
_CONTENT_HEIGHT = """() => {
  const block = document.querySelector("[data-testid='stMainBlockContainer']") || document.querySelector('.block-container');
  const main = document.querySelector("[data-testid='stMain']");
  if (!block) return document.documentElement.scrollHeight;
  // (less its bottom padding, empty space kept for scrolling past the end)
  const bottom = block.getBoundingClientRect().bottom - (parseFloat(getComputedStyle(block).paddingBottom) || 0)
    + (main ? main.scrollTop : 0);
  return Math.ceil(bottom);
}"""

# Live charts (rskpca.ui.live_chart, newer versions only) not yet drawn with their latest figure.
_CHARTS_PENDING = """() => [...document.querySelectorAll('iframe')]
  .filter((f) => (f.src || '').includes('rskpca_live_chart'))
  .filter((f) => {
    try {
      const chart = f.contentDocument && f.contentDocument.getElementById('chart');
      return !chart || chart.dataset.deferred || (!chart.dataset.drawn && !chart.textContent);
    } catch (e) { return false; }
  }).length"""


def generate(path: Path, n: int, seed: int = 0) -> None:
    """A seeded ``n`` x 10 Gaussian mixture with its component as ``label``, as Parquet at ``path``."""
    import numpy as np
    import pandas as pd

    from bench_row_cap import mixture

    X = mixture(n, seed=seed)
    # The same generator again, for the component of each row (mixture draws means, then components).
    rng = np.random.default_rng(seed)
    rng.normal(0.0, 4.0, size=(8, 10))
    label = rng.integers(0, 8, size=n)
    df = pd.DataFrame(X, columns=[f"x{i}" for i in range(X.shape[1])])
    df["label"] = label
    path.parent.mkdir(parents=True, exist_ok=True)
    df.to_parquet(path, index=False)


def generate_letters(path: Path, n: int, seed: int = 0) -> None:
    """A realistic labelled file at ``path`` (Parquet): ``n`` rows, 16 integer features 0..15 and a text label
    "A".."Z" (26 Gaussian blobs, rounded and clipped to integers, so many rows tie)."""
    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(seed)
    means = rng.uniform(3.0, 12.0, size=(26, 16))
    lab = rng.integers(0, 26, size=n)
    X = np.clip(np.rint(means[lab] + rng.normal(scale=1.5, size=(n, 16))), 0, 15).astype(np.int64)
    df = pd.DataFrame(X, columns=[f"f{j}" for j in range(16)])
    df["letter"] = np.array([chr(ord("A") + i) for i in range(26)])[lab]
    path.parent.mkdir(parents=True, exist_ok=True)
    df.to_parquet(path, index=False)


def shoot_charts(page, out_stem: Path) -> list[Path]:
    """Each live chart of the page (its iframe) as a PNG of its own: ``<out_stem>_chart<i>.png``."""
    frames = page.locator("iframe[src*='rskpca_live_chart']")
    for _ in range(60):  # (the charts' frames come after the page's first elements)
        if frames.count():
            break
        page.wait_for_timeout(500)
    saved = []
    for i in range(frames.count()):
        frame = frames.nth(i)
        frame.scroll_into_view_if_needed()
        inner = frame.content_frame
        for _ in range(240):  # until the chart replaced its "Drawing the chart..." placeholder
            if inner is None or not inner.get_by_text("Drawing the chart").count():
                break
            page.wait_for_timeout(500)
        page.wait_for_timeout(300)
        box = frame.bounding_box()
        if not box or box["height"] < 50:
            continue
        path = out_stem.parent / f"{out_stem.name}_chart{i}.png"
        frame.screenshot(path=str(path), animations="disabled")
        saved.append(path)
    return saved


def server_env(app_dir: Path) -> dict:
    """The environment with ``app_dir`` first on ``PYTHONPATH`` (its ``rskpca`` before the editable install)."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(app_dir), *filter(None, [env.get("PYTHONPATH")])])
    return env


def imported_package(app_dir: Path, env: dict) -> str:
    """Where ``import rskpca`` resolves for the server (same interpreter, folder and environment)."""
    out = subprocess.run([sys.executable, "-c", "import rskpca; print(rskpca.__file__)"], cwd=app_dir, env=env,
                         capture_output=True, text=True, check=True)
    return out.stdout.strip()


def row_cap_box(page):
    """The Data page's row cap input: by its label ("Row cap ..."), else by its widget key."""
    box = page.get_by_test_id("stMain").get_by_label(re.compile(r"^Row cap"))
    if box.count():
        return box.first
    return page.locator(".st-key-max_rows input").first


def upload(session, path: Path, rows: int | None) -> float:
    """Open the Data page, upload ``path`` through the file chooser, set the row cap; seconds it took."""
    page = session.page
    t0 = time.monotonic()
    labels, deadline = [], time.monotonic() + 120
    while not labels and time.monotonic() < deadline:  # the sidebar's links come after the first script run
        labels = session.nav_labels()
        if not labels:
            page.wait_for_timeout(500)
    data_label = next(lab for lab in labels if re.search(r"data", lab, re.I))
    session.go_to(data_label)
    main = page.get_by_test_id("stMain")
    with page.expect_file_chooser() as chooser:
        main.get_by_test_id("stFileUploaderDropzone").first.get_by_test_id("stBaseButton-secondary").click()
    chooser.value.set_files(files=str(path))  # by path: Playwright refuses buffers over 50 MB
    page.get_by_test_id("stFileChip").first.wait_for()
    session.settle()
    print(f"uploaded {path.name}: {time.monotonic() - t0:.1f} s; {sidebar_rows(session)}", flush=True)
    if rows is not None:
        set_row_cap(session, rows)
    alert = main.get_by_test_id("stAlert")
    for i in range(alert.count()):
        text = alert.nth(i).inner_text()
        if "error" in (alert.nth(i).get_attribute("class") or "") or re.search(r"could not|failed", text, re.I):
            raise RuntimeError(f"the upload failed: {text[:300]}")
    return time.monotonic() - t0


def set_row_cap(session, rows: int) -> None:
    """The Data page's row cap set to ``rows`` (the Data page open)."""
    box = row_cap_box(session.page)
    box.wait_for()
    current = box.input_value().replace(",", "")
    if current != str(rows):
        box.fill(str(rows))
        box.press("Enter")
        session.settle()
    shown = box.input_value().replace(",", "")
    if shown != str(rows):
        raise RuntimeError(f"the row cap shows {shown}, not {rows} (above the input's maximum?)")


def sidebar_rows(session) -> str:
    found = re.search(r"n = [\d,]+ rows[^\n]*", session.sidebar_text())
    return found.group(0) if found else "(no 'n = ... rows' in the sidebar)"


def wait_for_charts(page, timeout: float = 120.0) -> None:
    """Until every live chart (if the app has them) is drawn with its latest figure."""
    deadline = time.monotonic() + timeout
    while page.evaluate(_CHARTS_PENDING):
        if time.monotonic() > deadline:
            print(f"  warning: a live chart was still not drawn after {timeout:g} s", flush=True)
            return
        page.wait_for_timeout(200)


def shoot(session, out: Path, max_kb: int) -> int:
    """A screenshot of the whole page at ``out``: the viewport made as tall as the content first."""
    page = session.page
    height = HEIGHT
    for _ in range(4):  # the content grows or shrinks as charts now in view are drawn
        content = min(int(page.evaluate(_CONTENT_HEIGHT)) + 40, MAX_HEIGHT)
        if abs(content - height) < 20:
            break
        height = content
        page.set_viewport_size({"width": WIDTH, "height": height})
        page.wait_for_timeout(500)
        session.settle(expect_run=False)
        wait_for_charts(page)
    page.wait_for_timeout(1000)  # the last redraw painted
    out.parent.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(out), animations="disabled")
    page.set_viewport_size({"width": WIDTH, "height": HEIGHT})
    if out.stat().st_size > max_kb * 1024:
        from PIL import Image

        with Image.open(out) as img:
            small = img.convert("RGB").quantize(colors=256, method=Image.Quantize.MEDIANCUT)
        small.save(out, optimize=True)
    return height


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--app-dir", type=Path, default=REPO, help="a checkout holding app.py (default: this repository)")
    ap.add_argument("--data", type=Path, required=True, help="the data file to upload on the Data page")
    ap.add_argument("--rows", type=int, default=1_000_000, help="the row cap to set on the Data page")
    ap.add_argument("--pages", nargs="+", default=["Embeddings", "Speedups"], help="sidebar labels of the pages")
    ap.add_argument("--out", type=Path, default=HERE / "screenshots", help="folder for the PNGs")
    ap.add_argument("--prefix", default="after", help="file name prefix: OUT/PREFIX_<page>.png")
    ap.add_argument("--generate", type=int, metavar="N",
                    help="write a seeded N x 10 Gaussian mixture as Parquet at --data first, if it is missing")
    ap.add_argument("--letters", type=int, metavar="N",
                    help="write a realistic N-row file (16 integer features, a 26-class text label) at --data first")
    ap.add_argument("--serve", action="store_true",
                    help="start the app with --data as its own file (no upload; the row cap set only if --rows is)")
    ap.add_argument("--charts", action="store_true", help="also save each chart of a page as a PNG of its own")
    ap.add_argument("--no-page", action="store_true", help="no screenshot of the whole page (with --charts)")
    ap.add_argument("--timeout", type=float, default=1800.0, help="seconds a page may take to settle")
    ap.add_argument("--max-kb", type=int, default=400, help="a larger PNG is reduced to 256 colours")
    args = ap.parse_args(argv)
    args.rows_given = any(a == "--rows" or a.startswith("--rows=") for a in (argv if argv is not None else sys.argv))

    app_dir = args.app_dir.resolve()
    if not (app_dir / "app.py").is_file():
        ap.error(f"{app_dir} holds no app.py")
    if args.letters and not args.data.exists():
        t0 = time.monotonic()
        generate_letters(args.data, args.letters)
        print(f"generated {args.data} ({args.letters} rows, 26 classes) in {time.monotonic() - t0:.1f} s", flush=True)
    if args.generate and not args.data.exists():
        t0 = time.monotonic()
        generate(args.data, args.generate)
        print(f"generated {args.data} ({args.generate} rows) in {time.monotonic() - t0:.1f} s", flush=True)
    if not args.data.is_file():
        ap.error(f"{args.data} does not exist (--generate N writes one)")

    env = server_env(app_dir)
    print(f"app: {app_dir} (rskpca from {imported_package(app_dir, env)})", flush=True)
    # The tab's waits read this module's timeout when they start.
    browser_session.CHANGE_TIMEOUT_S = args.timeout
    os.environ["PYTHONPATH"] = env["PYTHONPATH"]  # AppServer's subprocess inherits the environment

    from playwright.sync_api import sync_playwright

    settle_s = {}
    # --serve: the file is the app's own data (streamlit run app.py -- FILE), no upload; the row cap stays as set
    server = AppServer(app_dir / "app.py", timeout=180.0, script_args=[args.data.resolve()] if args.serve else ())
    try:
        url = server.__enter__()
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
            try:
                session = browser_session._Session(browser, url, width=WIDTH, height=HEIGHT)
                if not args.serve:
                    took = upload(session, args.data.resolve(), args.rows)
                    print(f"row cap {args.rows}: settled after {took:.1f} s in all; {sidebar_rows(session)}",
                          flush=True)
                labels, deadline = [], time.monotonic() + 120
                while not labels and time.monotonic() < deadline:
                    labels = session.nav_labels() or session.page.wait_for_timeout(500) or []
                if args.serve and args.rows_given:
                    session.go_to(next(lab for lab in labels if re.search(r"data", lab, re.I)))
                    set_row_cap(session, args.rows)
                    print(f"row cap {args.rows}: {sidebar_rows(session)}", flush=True)
                for label in args.pages:
                    if label not in labels:
                        raise SystemExit(f"no sidebar link {label!r}; the sidebar has {labels}")
                    t0 = time.monotonic()
                    settled = session.go_to(label)
                    wall = time.monotonic() - t0
                    exc = session.exception_text()
                    if exc:
                        print(f"  warning: {label} shows an exception: {exc}", flush=True)
                    out = args.out / (args.prefix + "_" + re.sub(r"\W+", "_", label) + ".png")
                    settle_s[label] = settled
                    if args.charts:
                        wait_for_charts(session.page)
                        session.page.wait_for_timeout(1000)
                        for path in shoot_charts(session.page, out.with_suffix("")):
                            print(f"  {path} ({path.stat().st_size / 1024:.0f} KB)", flush=True)
                    if not args.no_page:
                        height = shoot(session, out, args.max_kb)
                        print(f"{label}: settled in {settled:.1f} s ({wall:.1f} s wall); "
                              f"{out} ({out.stat().st_size / 1024:.0f} KB, {WIDTH} x {height})", flush=True)
                session.close()
            finally:
                browser.close()
    finally:
        log = server.stop()
        if "Traceback" in log:
            print("server log (tail):\n" + log[-3000:], file=sys.stderr)
    print("settle seconds: " + ", ".join(f"{k} {v:.1f}" for k, v in settle_s.items()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
