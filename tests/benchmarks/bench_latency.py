"""Benchmark: time of an ell (or sigma, or rank) change on every page of the app, server side or in a browser.

Two modes, both run by ``python tests/benchmarks/bench_latency.py`` (``--help`` for the
options; ``--app PATH`` names the app's entry file, default ``./app.py``):

* ``--browser``: what a user waits for, release-to-settled in Chromium, with the
  websocket bytes per change (``tests/benchmarks/bench_browser.py``), for a bundled
  sample (``--sample``) or a file (``--csv PATH``, uploaded on the Data page).
* the default, server side: for each page it starts a fresh Streamlit ``AppTest`` of
``app.py`` with a bundled sample (digits by default), opens the page once (the
cold "first visit": the ell-independent work such as exact KPCA is computed and
cached there), then sets the sidebar's ell slider to several new values and
times each rerun. A new ell is a cache miss for everything that depends on ell
(the shadow, RSKPCA, the bounds at ell) and a hit for everything else, which is
what a user dragging the slider causes. Finally it returns to an ell already
seen, which should be all cache hits. ``--controls sigma r`` changes those sidebar
controls the same way (sigma to multiples of the data's default, r to other ranks);
``--csv PATH`` uses a file instead of a sample, as if uploaded on the Data page.

The times are the wall-clock of ``AppTest.run()``: the page script plus
Streamlit's element processing, no browser and no network. They are noisy on a
shared machine: the table reports the median and the maximum over the changes,
and the script can be repeated (``--repeats``) to see the spread. Caches are
cleared before each page, so every page starts cold and pages do not borrow each
other's work (pass ``--keep-caches`` to mimic one long session instead).
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import signal
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path

from rskpca.evaluation.timing import machine_load
from latency_table import TARGET_S, PageLatency, format_header, format_row
from streamlit_logs import quiet_streamlit_logs

__all__ = ["PageLatency", "StackSampler", "page_files", "measure_page", "format_header", "format_row", "main",
           "TARGET_S"]

#: The app measured: its entry file's folder (set from ``--app`` by :func:`main`; ./app.py by default).
REPO = Path.cwd()
APP_FILE = "app.py"
#: The installed package, whose frames the stack sampler counts as the project's.
PACKAGE = Path(importlib.util.find_spec("rskpca").submodule_search_locations[0]).resolve()
# A spread over the sidebar's range 1..10: small ell (few centers) to large (m close to n).
DEFAULT_ELLS = (2.0, 3.0, 4.5, 6.0, 8.0)
#: Server side, ``--controls sigma``: new sigmas as multiples of the data's default one.
DEFAULT_SIGMA_FACTORS = (1.1, 1.25, 0.9, 0.8, 1.4)
#: Server side, ``--controls r``: new ranks (the default is 5).
DEFAULT_RANKS = (3, 4, 6, 7, 8)


def page_files(repo: Path | None = None) -> list[str]:
    """``app.py`` followed by the page files, as paths relative to the repository.

    Examples
    --------
    >>> files = page_files(Path(__file__).resolve().parents[2])
    >>> files[0], all(f.startswith("pages/") for f in files[1:])
    ('app.py', True)
    """
    repo = REPO if repo is None else repo
    return [APP_FILE] + sorted(str(p.relative_to(repo)) for p in (repo / "pages").glob("*.py"))


def _exception_text(at) -> str:
    if not at.exception:
        return ""
    exc = at.exception[0]
    return (exc.message or "") + "\n" + "\n".join(exc.stack_trace or [])


def _shadow_m(at) -> int:
    """The sidebar's "shadow centers m" metric, or -1 if the page does not show it."""
    for metric in at.sidebar.metric:
        if "shadow" in metric.label.lower():
            return int(str(metric.value).replace(",", ""))
    return -1


def measure_page(page: str, *, sample: str = "digits", ells=DEFAULT_ELLS, timeout: float = 600.0,
                 clear_caches: bool = True, profile: bool = False, control: str = "ell",
                 values=None, csv: Path | None = None, max_rows: int | None = None) -> PageLatency:
    """Time the first visit of ``page`` and a rerun after each new value of a sidebar control.

    Parameters
    ----------
    page : str
        ``"app.py"`` or a ``pages/...`` file, relative to the repository.
    sample : str, default="digits"
        Bundled sample to load (a key of :data:`rskpca.data.datasets.SAMPLES`).
    ells : sequence of float, default=(2.0, 3.0, 4.5, 6.0, 8.0)
        New ell values (``control="ell"``), each set on the sidebar slider and timed;
        the first visit is at the app's default ell.
    timeout : float, default=600
        Longest a single run may take (AppTest's timeout).
    clear_caches : bool, default=True
        Empty Streamlit's data caches first, so the page starts cold.
    profile : bool, default=False
        Sample the stacks during the first change (:class:`StackSampler`)
        and keep the project functions with the largest cumulative time in
        ``PageLatency.profile``.
    control : {"ell", "sigma", "r"}, default="ell"
        The sidebar control to change.
    values : sequence or None
        Its new values; None: ``ells``, :data:`DEFAULT_SIGMA_FACTORS` times the data's
        default sigma, or :data:`DEFAULT_RANKS`.
    csv : path or None
        A file to use instead of ``sample``, as if uploaded on the Data page (parsed by the
        app's own reader, with the Data page's defaults).
    max_rows : int or None
        The Data page's row cap (None: the app's default).

    Returns
    -------
    PageLatency
    """
    import streamlit as st
    from streamlit.testing.v1 import AppTest

    if control not in ("ell", "sigma", "r"):
        raise ValueError(f"control must be 'ell', 'sigma' or 'r'; got {control!r}.")
    if clear_caches:  # the data caches and the resources (shadows, fits on all rows are resources)
        st.cache_data.clear()
        st.cache_resource.clear()
    at = AppTest.from_file(str(REPO / APP_FILE), default_timeout=timeout)
    at.session_state["source"] = sample
    if csv is not None:
        import hashlib

        from rskpca.ui.keys import UPLOAD, UPLOADED

        data = Path(csv).read_bytes()
        # What accepting an upload leaves in the session (rskpca.ui.tables.accept_upload).
        at.session_state[UPLOADED] = {"name": Path(csv).name, "digest": hashlib.sha256(data).hexdigest(),
                                      "bytes": data}
        at.session_state["source"] = UPLOAD
    if max_rows is not None:
        at.session_state["max_rows"] = int(max_rows)
    if page != APP_FILE:
        at.switch_page(page)  # open the page directly: its first run is the cold visit
    start = time.perf_counter()
    at.run()
    first = time.perf_counter() - start
    result = PageLatency(page, first, [], float("nan"), [_shadow_m(at)], _exception_text(at), control=control)
    if result.error:
        return result

    def widget():
        return at.slider(key="ell") if control == "ell" else at.sidebar.number_input(key=control)

    if values is None:
        values = {"ell": ells, "r": DEFAULT_RANKS,
                  "sigma": [f * float(widget().value) for f in DEFAULT_SIGMA_FACTORS]}[control]
    values = [int(v) if control == "r" else float(v) for v in values]
    for i, value in enumerate(values):
        widget().set_value(value)
        sampler = StackSampler() if profile and i == 0 else None
        start = time.perf_counter()
        if sampler is not None:
            with sampler:
                at.run()
        else:
            at.run()
        elapsed = time.perf_counter() - start
        if sampler is not None:
            result.profile = sampler.report()
        result.error = _exception_text(at)
        if result.error:
            return result
        result.changes.append(elapsed)
        result.m_values.append(_shadow_m(at))
    widget().set_value(values[0])  # seen before: every cache should hit
    start = time.perf_counter()
    at.run()
    result.cached = time.perf_counter() - start
    result.error = _exception_text(at)
    return result


class StackSampler:
    """A sampling profiler for the thread that runs the page script.

    AppTest runs the script in a thread of its own, which :mod:`cProfile` (one
    thread only) does not see. While active, this samples the stacks of all
    other threads about every ``interval`` seconds and counts, per project
    function (in ``rskpca/``, ``pages/`` or ``app.py``), the samples in which it
    is on the stack. A sample waits for the GIL, so samples are fewer than
    wall time / interval; the share of samples times the wall time estimates a
    function's cumulative time.

    Examples
    --------
    >>> with StackSampler(interval=0.001) as sampler:
    ...     time.sleep(0.01)
    >>> sampler.samples > 0
    True
    """

    def __init__(self, interval: float = 0.005):
        self.interval = interval
        self.samples = 0
        self.wall = 0.0
        self.counts: Counter = Counter()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self):
        self._caller = threading.get_ident()
        self._started = time.perf_counter()
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()
        self.wall = time.perf_counter() - self._started

    def _run(self):
        own = threading.get_ident()
        while not self._stop.wait(self.interval):
            self.samples += 1
            for tid, frame in sys._current_frames().items():
                if tid in (own, self._caller):
                    continue
                seen = set()
                while frame is not None:
                    code = frame.f_code
                    if _is_project_file(code.co_filename):
                        seen.add((_short_path(code.co_filename), code.co_firstlineno, code.co_name))
                    frame = frame.f_back
                self.counts.update(seen)

    def report(self, limit: int = 20) -> str:
        """The functions seen most often, with their estimated cumulative seconds."""
        total = max(self.samples, 1)
        lines = [f"{self.samples} stack samples over {self.wall:.3f} s wall time",
                 "  share  ~seconds  function (cumulative: time on the stack)"]
        for (path, line, name), count in self.counts.most_common(limit):
            lines.append(f"{count / total:>6.0%}  {count / total * self.wall:>8.3f}  {path}:{line}({name})")
        return "\n".join(lines)


def _is_project_file(filename: str) -> bool:
    path = Path(filename)
    return PACKAGE in path.parents or (REPO in path.parents and (path.parts[len(REPO.parts)] == "pages"
                                                                 or path.name == "app.py"))


def _short_path(filename: str) -> str:
    path = Path(filename)
    return str(path.relative_to(PACKAGE.parent if PACKAGE in path.parents else REPO))



def generated_mixture(n: int, folder: Path) -> Path:
    """A seeded ``n`` x 10 Gaussian mixture (``bench_row_cap.mixture``) with its component as a ``label``
    column, as Parquet in ``folder`` (written once, then reused)."""
    import pandas as pd

    from bench_row_cap import labelled_mixture

    path = folder / f"mixture_{n}x10.parquet"
    if not path.exists():
        folder.mkdir(parents=True, exist_ok=True)
        X, labels = labelled_mixture(n)
        df = pd.DataFrame(X, columns=[f"x{i}" for i in range(X.shape[1])])
        df["label"] = labels
        df.to_parquet(path.with_suffix(".tmp"), index=False)
        path.with_suffix(".tmp").rename(path)
    return path


def _use_app(app: str) -> None:
    global REPO, APP_FILE
    path = Path(app).resolve()
    if not path.is_file():
        raise SystemExit(f"{path} does not exist: pass the app's entry file with --app PATH "
                         "(the folder that holds app.py and pages/).")
    REPO, APP_FILE = path.parent, path.name


def _uptime() -> str:
    return machine_load()


def browser_main(args) -> int:
    """The ``--browser`` mode: release-to-settled per page in Chromium."""
    from bench_browser import ELL_PAGES, format_browser_header, measure_in_browser

    what = (f"--csv {args.csv}" + (" (read on the server: streamlit run app.py -- FILE)" if args.served else "")
            if args.csv else f"sample {args.sample}")
    print(f"release-to-settled in Chromium, {what}, controls {args.controls}, {args.changes} changes each; "
          f"{_uptime()} at start; app {REPO / APP_FILE}", flush=True)
    print(format_browser_header(traced=args.trace, revisited=args.revisits > 0), flush=True)
    described, rows = measure_in_browser(REPO / APP_FILE, sample=args.sample, csv=args.csv and Path(args.csv),
                                         max_rows=args.max_rows, pages=args.pages or ELL_PAGES,
                                         controls=args.controls, changes=args.changes, trace=args.trace,
                                         revisits=args.revisits, served=args.served, fresh=args.fresh)
    print(f"data: {described}; {_uptime()} at end")
    if args.per_ell:
        for r in rows:
            print(f"  {r.page} {r.control}: " + ", ".join(
                f"{s:.3f} s/{b / 1024:.0f} kB/{n} run(s)/{p} chart redraw(s)"
                for s, b, n, p in zip(r.seconds, r.payload_bytes, r.runs, r.redraws)))
    return 1 if any(r.error for r in rows) else 0


def main(argv=None) -> int:
    """Command-line entry point; prints the table and returns 1 if a page raised."""
    parser = argparse.ArgumentParser(prog="python tests/benchmarks/bench_latency.py", description=__doc__.split("\n")[0])
    parser.add_argument("--app", default="app.py", help="the app's entry file (default: ./app.py)")
    parser.add_argument("--browser", action="store_true",
                        help="measure release-to-settled in Chromium instead of AppTest's server-side time")
    parser.add_argument("--csv", default=None, help="use this file (uploaded on the Data page) instead of a sample")
    parser.add_argument("--generate", type=int, default=None, metavar="N",
                        help="use a seeded N x 10 Gaussian mixture (8 components, a label column), generated once as "
                             "Parquet in --data-dir, with the row cap at N (instead of --csv)")
    parser.add_argument("--data-dir", default=str(Path(tempfile.gettempdir()) / "rskpca_bench"),
                        help="where --generate keeps its files (never the repository; default: %(default)s)")
    parser.add_argument("--served", action="store_true",
                        help="--browser with --csv or --generate: start the app with the file as its data "
                             "(streamlit run app.py -- FILE, read on the server, as `rskpca app FILE`) instead of "
                             "uploading it in the browser")
    parser.add_argument("--fresh", action="store_true",
                        help="--browser: a new server and browser for each page, so that every page starts from "
                             "the default settings with empty caches (in one session each page starts where the "
                             "previous one left ell)")
    parser.add_argument("--max-rows", type=int, default=None,
                        help="with --csv: the Data page's row cap (default: the app's, rskpca.evaluation.row_cap.DEFAULT_ROW_CAP)")
    parser.add_argument("--controls", nargs="+", default=["ell"], choices=["ell", "sigma", "r"],
                        help="sidebar controls to change (default: ell); server side, sigma takes "
                             f"{DEFAULT_SIGMA_FACTORS} times the data's default and r {DEFAULT_RANKS}")
    parser.add_argument("--trace", action="store_true",
                        help="--browser: also record a Chromium trace of each change and print the medians of the "
                             "main thread's busy time, of the live charts' draws and of the compositor commits "
                             "(browser_trace.py; tracing slows the browser a little)")
    parser.add_argument("--changes", type=int, default=5, help="--browser: steps per control and page (default: 5)")
    parser.add_argument("--revisits", type=int, default=0,
                        help="--browser: then this many steps back and forth between the last two values, whose "
                             "results are cached; their median ('cached s') is what a change costs beyond its "
                             "computing (the browser's drawing and the script's rerun)")
    parser.add_argument("--sample", default=None, help="bundled sample (default: two_moons in the browser, digits "
                                                       "server side)")
    parser.add_argument("--ells", type=float, nargs="+", default=list(DEFAULT_ELLS),
                        help="server side: new ell values to time, in order (default: %(default)s)")
    parser.add_argument("--pages", nargs="+", default=None,
                        help="page files to time (default: app.py and every file in pages/); with --browser, "
                             "sidebar labels (default: the pages that depend on ell)")
    parser.add_argument("--repeats", type=int, default=1, help="repeat the whole measurement (default: 1)")
    parser.add_argument("--keep-caches", action="store_true", help="do not clear the caches between pages")
    parser.add_argument("--timeout", type=float, default=600.0, help="seconds allowed for one run")
    parser.add_argument("--per-ell", action="store_true", help="also print each change's time")
    parser.add_argument("--profile", action="store_true",
                        help="profile the first change of each page and print the slowest functions")
    args = parser.parse_args(argv)
    if args.generate:
        args.csv = str(generated_mixture(args.generate, Path(args.data_dir)))
        args.max_rows = args.max_rows or args.generate
    if args.csv:
        args.csv = str(Path(args.csv).resolve())  # before the server-side mode changes directory
    quiet_streamlit_logs()  # before anything imports rskpca.ui.compute (its caches warn on creation)
    _use_app(args.app)
    if args.browser:
        # Stopped with SIGTERM, still run the clean-up that stops the server and the browser.
        signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
        args.sample = args.sample or "two_moons"
        return browser_main(args)
    args.sample = args.sample or "digits"
    os.chdir(REPO)  # the app reads .streamlit/config.toml and sample_data/ from here
    from streamlit import config

    # The app's config hides exception text from users; this report is for developers.
    config.set_option("client.showErrorDetails", "full")
    if str(REPO) not in sys.path:
        sys.path.insert(0, str(REPO))
    pages = args.pages or page_files()
    missing = [page for page in pages if not (REPO / page).is_file()]
    if missing:  # AppTest's switch_page would end in a traceback
        parser.error(f"no such page file(s) {missing} under {REPO}; the app's pages: {page_files()[1:]}")
    failed = False
    what = f"csv={args.csv}" + (f" (max rows {args.max_rows})" if args.max_rows else "") if args.csv \
        else f"sample={args.sample}"
    print(f"latency of changes to {', '.join(args.controls)}, {what}, ells={args.ells}, "
          f"{_uptime()}; AppTest wall-clock (server side, no browser); noisy on a shared machine.")
    for repeat in range(args.repeats):
        print(f"\nrun {repeat + 1} of {args.repeats}")
        print(format_header(), flush=True)
        rows = []
        for page in pages:
            for control in args.controls:
                row = measure_page(page, sample=args.sample, ells=args.ells, timeout=args.timeout,
                                   clear_caches=not args.keep_caches, profile=args.profile, control=control,
                                   csv=args.csv and Path(args.csv), max_rows=args.max_rows)
                rows.append(row)
                print(format_row(row), flush=True)
                if args.per_ell:
                    # m_values[0] is the first visit's m; the rest follow the changes.
                    for i, (seconds, m) in enumerate(zip(row.changes, row.m_values[1:])):
                        print(f"    {control} change {i + 1}: {seconds:8.3f} s   m = {m}", flush=True)
        failed |= any(r.error for r in rows)
        for r in rows:
            if r.error:
                print(f"\n{r.page} raised:\n{r.error}")
            if r.profile:
                print(f"\nprofile of the first {r.control} change on {r.page}:\n{r.profile}")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
