"""A classroom at once: N sessions (default 30) on one app server, each changing ell and sigma.

``python tests/benchmarks/load_test.py --sessions 30 --changes 5 --csv load.csv``

Starts the app on a loopback port (``app_server.AppServer``), opens ``--sessions`` headless sessions
spread over the pages Shadow centers, KDE vs ShDE, Embeddings, Bounds and Speedups, and has each make
``--changes`` ell changes and as many sigma changes, alternated, through the sidebar's own widget keys
(``ell`` and ``sigma_slider``, :mod:`rskpca.ui.page_setup`), with a think time between changes.
It reports, per change, the time from sending the change to the end of the session's script run, the
errors (must be 0) and the server's peak memory (RSS of the streamlit process and its children).

The sessions speak Streamlit's own websocket protocol (``/_stcore/stream``): a ``BackMsg`` with
``rerun_script`` carrying the page and the widget states, as the browser's frontend sends it, and the
``ForwardMsg`` stream back, read until ``script_finished``. That costs the client a few MB and little CPU
per session, where a Chromium tab costs 100+ MB and a share of the 2 cores the server needs too
(``--browser-tabs`` measures it). A few Chromium tabs (``--browser-tabs``, Debian's
``/usr/bin/chromium`` through Playwright, default 2 where it is installed) make the same changes
alongside, by keyboard, to show what a user sees under that load: release to script end (comparable to
the websocket rows) and release to settled (charts drawn, ``browser_session._Session.settle``).

An error is an exception element in a run (``ForwardMsg`` delta with an ``exception``), a script that
fails to compile, a disconnect or a change that does not finish within ``--timeout`` seconds. The
app's own ``st.error`` alerts are counted apart (a message the app means to show, not a failure).
Everything stays on 127.0.0.1; every loop is bounded by the number of changes and the timeout.
"""

from __future__ import annotations

import argparse
import asyncio
import csv
import datetime as _dt
import math
import os
import random
import re
import sys
import threading
import time
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from app_server import AppServer  # noqa: E402

__all__ = ["PAGES", "Change", "LoadResult", "StreamlitSession", "run_load", "format_table", "main"]

#: (URL path, label) of the pages the sessions are spread over, in turn.
PAGES = [("Shadow_centers", "Shadow centers"), ("KDE_vs_ShDE", "KDE vs ShDE"), ("Embeddings", "Embeddings"),
         ("Bounds", "Bounds"), ("Speedups", "Speedups")]
#: The sidebar's widget keys (rskpca.ui.page_setup); the same as browser_session.CONTROLS.
WIDGET_KEYS = {"ell": "ell", "sigma": "sigma_slider"}
DEFAULT_TIMEOUT_S = 120.0


@dataclass
class Change:
    """One timed step of one session: the first view of its page, or one change of a control."""

    client: str          # "websocket", "chromium script" or "chromium settled"
    session: int
    page: str
    control: str         # "first view", "ell" or "sigma"
    index: int
    value: float
    seconds: float       # NaN when it failed
    error: str = ""
    started: float = 0.0  # monotonic, seconds since the load started


@dataclass
class LoadResult:
    changes: list[Change] = field(default_factory=list)
    alerts: list[str] = field(default_factory=list)
    peak_rss: int = 0
    start_rss: int = 0
    wall_s: float = 0.0
    server_cpu_s: float = 0.0
    client_cpu_s: float = 0.0
    client_peak_rss: int = 0
    load_before: tuple = ()
    load_after: tuple = ()
    notes: list[str] = field(default_factory=list)


# ----------------------------------------------------------------------------------------------------
# Server memory


def _tree_usage(pid: int, exclude: int | None = None) -> tuple[int, float]:
    """(RSS bytes, CPU seconds) of a process and all its descendants, less the subtree of ``exclude``.

    psutil where installed, else /proc. CPU seconds are those of the processes alive now.
    """
    try:
        import psutil
    except ImportError:
        psutil = None
    if psutil is not None:
        try:
            root = psutil.Process(pid)
            procs = [root] + root.children(recursive=True)
            skip = set()
            if exclude is not None:
                try:
                    gone = psutil.Process(exclude)
                    skip = {gone.pid} | {c.pid for c in gone.children(recursive=True)}
                except psutil.Error:
                    pass
        except psutil.Error:
            return 0, 0.0
        rss, cpu = 0, 0.0
        for p in procs:
            if p.pid in skip:
                continue
            try:
                rss += p.memory_info().rss
                times = p.cpu_times()
                cpu += times.user + times.system
            except psutil.Error:
                pass
        return rss, cpu
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    ppid = int(f.read().rsplit(")", 1)[1].split()[1])
            except (OSError, ValueError, IndexError):
                continue
            children.setdefault(ppid, []).append(int(entry))
    rss, cpu, todo = 0, 0.0, [pid]
    page, tick = os.sysconf("SC_PAGE_SIZE"), os.sysconf("SC_CLK_TCK")
    while todo:
        p = todo.pop()
        if p == exclude:
            continue
        try:
            with open(f"/proc/{p}/statm") as f:
                rss += int(f.read().split()[1]) * page
            with open(f"/proc/{p}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            cpu += (int(fields[11]) + int(fields[12])) / tick  # utime, stime
        except (OSError, ValueError, IndexError):
            continue
        todo.extend(children.get(p, []))
    return rss, cpu


class _UsageSampler(threading.Thread):
    """Samples a process tree's RSS and CPU every ``interval`` seconds until stopped; keeps the peaks."""

    def __init__(self, pid: int, exclude: int | None = None, interval: float = 0.2):
        super().__init__(daemon=True)
        self.pid, self.exclude, self.interval = pid, exclude, interval
        self.first, self.cpu_first = _tree_usage(pid, exclude)
        self.peak, self.cpu = self.first, self.cpu_first
        self._halt = threading.Event()

    def sample(self) -> None:
        rss, cpu = _tree_usage(self.pid, self.exclude)
        self.peak, self.cpu = max(self.peak, rss), max(self.cpu, cpu)

    def run(self) -> None:
        while not self._halt.wait(self.interval):
            self.sample()

    def stop(self) -> None:
        self._halt.set()
        self.join(timeout=5)
        self.sample()

    @property
    def cpu_used(self) -> float:
        return self.cpu - self.cpu_first


# ----------------------------------------------------------------------------------------------------
# The websocket client


class SessionError(RuntimeError):
    """A run that raised, failed to compile, lost its connection or did not finish in time."""


class StreamlitSession:
    """One app session over Streamlit's websocket protocol, as the browser's frontend drives it.

    ``await rerun(page)`` opens a page; ``await change(key, value)`` sets one widget, by its
    ``st.session_state`` key, and reruns. Both return once the run's ``script_finished`` arrives and
    raise :class:`SessionError` on an exception element, a compile error, a disconnect or a timeout.
    Like the frontend, the session sends back the query string the app last wrote and the values of
    the widgets it set, refreshed from the values the server assigns (``set_value``).
    """

    def __init__(self, url: str, timeout: float = DEFAULT_TIMEOUT_S):
        self.ws_url = url.replace("http://", "ws://", 1).rstrip("/") + "/_stcore/stream"
        self.timeout = timeout
        self.ws = None
        self.page = ""
        self.query = ""
        self.widgets: dict[str, object] = {}   # key -> the widget's element proto (latest run)
        self.states: dict[str, object] = {}    # key -> WidgetState this session sends
        self.exceptions: list[str] = []
        self.alerts: list[str] = []
        self.received = 0

    async def connect(self) -> None:
        import websockets

        # The first subprotocol entry selects "streamlit"; no XSRF token or session to resume.
        self.ws = await asyncio.wait_for(
            websockets.connect(self.ws_url, subprotocols=["streamlit"], max_size=None, open_timeout=self.timeout),
            self.timeout)

    async def close(self) -> None:
        if self.ws is not None:
            await self.ws.close()

    async def rerun(self, page: str | None = None, query: str | None = None) -> float:
        """Run ``page`` (its URL path; default: the current one); seconds until the run finished."""
        from streamlit.proto.BackMsg_pb2 import BackMsg

        if page is not None:
            self.page = page
        if query is not None:
            self.query = query
        msg = BackMsg()
        state = msg.rerun_script
        state.query_string = self.query
        state.page_name = self.page
        state.page_script_hash = ""  # resolved by page_name, as on a fresh load of the page's URL
        for ws_state in self.states.values():
            state.widget_states.widgets.append(ws_state)
        start = time.monotonic()
        try:
            await self.ws.send(msg.SerializeToString())
            await asyncio.wait_for(self._read_run(), self.timeout)
        except asyncio.TimeoutError:
            raise SessionError(f"the run did not finish within {self.timeout:g} s") from None
        except SessionError:
            raise
        except Exception as exc:  # websockets.ConnectionClosed and kin
            raise SessionError(f"disconnected: {type(exc).__name__}: {exc}") from exc
        return time.monotonic() - start

    async def change(self, control: str, value: float) -> float:
        """Set a slider (``control`` in :data:`WIDGET_KEYS`) to ``value`` and rerun; seconds to run end."""
        from streamlit.proto.WidgetStates_pb2 import WidgetState

        key = WIDGET_KEYS[control]
        element = self.widgets.get(key)
        if element is None:
            raise SessionError(f"no widget with key {key!r} on {self.page}")
        ws_state = WidgetState(id=element.id)
        ws_state.double_array_value.data.append(float(value))
        self.states[key] = ws_state
        return await self.rerun()

    def slider(self, control: str):
        """The latest slider proto of ``control`` (value, min, max, step)."""
        return self.widgets[WIDGET_KEYS[control]]

    async def _read_run(self) -> None:
        from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

        seen: dict[str, object] = {}
        exceptions_before = len(self.exceptions)
        while True:
            raw = await self.ws.recv()
            self.received += len(raw)
            msg = ForwardMsg()
            msg.ParseFromString(raw)
            kind = msg.WhichOneof("type")
            if kind == "delta" and msg.delta.WhichOneof("type") == "new_element":
                element = msg.delta.new_element
                etype = element.WhichOneof("type")
                if etype == "exception":
                    self.exceptions.append(f"{element.exception.type}: {element.exception.message}"[:300])
                elif etype == "alert" and element.alert.format == 1:  # Alert.ERROR
                    self.alerts.append(element.alert.body[:300])
                elif etype == "slider":
                    key = element.slider.id.rsplit("-", 1)[-1] if element.slider.id.startswith("$$ID") else ""
                    if key in WIDGET_KEYS.values():
                        seen[key] = element.slider
            elif kind == "page_info_changed":
                self.query = msg.page_info_changed.query_string
            elif kind == "script_finished":
                status = msg.script_finished
                if status == ForwardMsg.FINISHED_WITH_COMPILE_ERROR:
                    raise SessionError("the script failed to compile")
                if status in (ForwardMsg.FINISHED_SUCCESSFULLY, ForwardMsg.FINISHED_FRAGMENT_RUN_SUCCESSFULLY):
                    break
                # FINISHED_EARLY_FOR_RERUN: the app called st.rerun(); its next run follows.
        self.widgets.update(seen)
        # As the frontend: a widget that is gone sends no state; one the server set takes the new value.
        for key in list(self.states):
            element = seen.get(key)
            if element is None:
                del self.states[key]
                continue
            state = self.states[key]
            state.id = element.id
            if element.set_value:
                del state.double_array_value.data[:]
                state.double_array_value.data.extend(element.value)
        if len(self.exceptions) > exceptions_before:
            raise SessionError("exception in the run: " + " | ".join(self.exceptions[exceptions_before:]))


def _snap(value: float, lo: float, hi: float, step: float) -> float:
    value = min(max(value, lo), hi)
    if step > 0:
        value = lo + round((value - lo) / step) * step
    return float(f"{min(max(value, lo), hi):.6g}")


def _next_value(session: StreamlitSession, control: str, i: int, k: int, base_sigma: float,
                same_values: bool) -> float:
    """The value session ``i`` sets at its ``k``-th change: spread over sessions (or the same for all)."""
    slider = session.slider(control)
    j = 0 if same_values else i
    if control == "ell":
        target = 2.0 + ((j * 13 + k * 7 + 5) % 61) / 10  # 2.0 .. 8.0
    else:
        target = base_sigma * (0.7 + ((j * 11 + k * 5 + 3) % 41) / 50)  # 0.7 .. 1.5 x the data's default
    value = _snap(target, slider.min, slider.max, slider.step)
    current = slider.value[0] if slider.value else math.nan
    if math.isclose(value, current, rel_tol=1e-9):
        value = _snap(value + slider.step, slider.min, slider.max, slider.step)
        if math.isclose(value, current, rel_tol=1e-9):
            value = _snap(value - 2 * slider.step, slider.min, slider.max, slider.step)
    return value


async def _one_session(i: int, url: str, page: tuple[str, str], n_changes: int, think: float, delay: float,
                       timeout: float, query: str, same_values: bool, t0: float, out: LoadResult) -> None:
    """Session ``i``: open its page, then ``n_changes`` rounds of an ell change and a sigma change."""
    rng = random.Random(i)
    session = StreamlitSession(url, timeout)
    path, label = page
    plan = [(k, control) for k in range(n_changes) for control in ("ell", "sigma")]
    opened = False
    await asyncio.sleep(delay)
    started = time.monotonic() - t0
    try:
        try:
            await session.connect()
        except Exception as exc:
            raise SessionError(f"could not connect: {type(exc).__name__}: {exc}") from exc
        seconds = await session.rerun(path, query)
        if WIDGET_KEYS["ell"] not in session.widgets or WIDGET_KEYS["sigma"] not in session.widgets:
            raise SessionError(f"the page drew no ell or sigma slider (widgets: {sorted(session.widgets)})")
        out.changes.append(Change("websocket", i, label, "first view", 0, math.nan, seconds, "", started))
        opened = True
        base_sigma = session.slider("sigma").value[0]
        while plan:
            k, control = plan[0]
            await asyncio.sleep(think * rng.uniform(0.5, 1.5))
            value = _next_value(session, control, i, k, base_sigma, same_values)
            started = time.monotonic() - t0
            try:
                seconds = await session.change(control, value)
                out.changes.append(Change("websocket", i, label, control, k, value, seconds, "", started))
            except SessionError as exc:
                out.changes.append(Change("websocket", i, label, control, k, value, math.nan, str(exc), started))
                plan.pop(0)
                if str(exc).startswith(("disconnected", "the run did not finish")):
                    raise SessionError("not made: the session was lost at an earlier change") from None
                continue
            plan.pop(0)
    except SessionError as exc:
        if not opened:
            out.changes.append(Change("websocket", i, label, "first view", 0, math.nan, math.nan, str(exc), started))
            exc = SessionError("not made: the page did not open")
        # A lost session makes none of its other changes: each counts as an error.
        out.changes += [Change("websocket", i, label, control, k, math.nan, math.nan, str(exc), started)
                        for k, control in plan]
    finally:
        out.alerts.extend(session.alerts)
        await _close_quietly(session)


async def _close_quietly(session: StreamlitSession) -> None:
    try:
        await asyncio.wait_for(session.close(), 10)
    except Exception:
        pass


async def _websocket_load(url: str, sessions: int, n_changes: int, think: float, ramp: float, timeout: float,
                          query: str, same_values: bool, pages, t0: float, out: LoadResult) -> None:
    tasks = [_one_session(i, url, pages[i % len(pages)], n_changes, think, ramp * i / max(sessions, 1), timeout,
                          query, same_values, t0, out) for i in range(sessions)]
    await asyncio.gather(*tasks)


# ----------------------------------------------------------------------------------------------------
# Chromium tabs alongside


def _browser_tabs(url: str, tabs: int, n_changes: int, think: float, timeout: float, query: str, pages,
                  t0: float, out: LoadResult, ready: threading.Event) -> None:
    """``tabs`` Chromium tabs, one after the other in one thread, each making the same changes by keyboard."""
    try:
        import browser_session
        from bench_browser import CHROMIUM, CHROMIUM_ARGS
        from playwright.sync_api import sync_playwright
    except ImportError as exc:
        out.notes.append(f"Chromium tabs skipped: {exc}")
        ready.set()
        return
    if not Path(CHROMIUM).exists():
        out.notes.append(f"Chromium tabs skipped: {CHROMIUM} is missing")
        ready.set()
        return
    browser_session.CHANGE_TIMEOUT_S = timeout
    rng = random.Random(1000)
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
            try:
                opened = []
                for t in range(tabs):
                    path, label = pages[(t * 2 + 1) % len(pages)]
                    started = time.monotonic() - t0
                    try:
                        clock = time.monotonic()
                        tab = browser_session._Session(browser, f"{url}/{path}?{query}")
                        opened.append((t, label, tab))
                        out.changes.append(Change("chromium settled", t, label, "first view", 0, math.nan,
                                                  time.monotonic() - clock, "", started))
                    except Exception as exc:
                        out.changes.append(Change("chromium settled", t, label, "first view", 0, math.nan,
                                                  math.nan, f"{type(exc).__name__}: {exc}"[:300], started))
                ready.set()
                for k in range(n_changes):
                    for control in ("ell", "sigma"):
                        for t, label, tab in opened:
                            time.sleep(think * rng.uniform(0.5, 1.5) / max(len(opened), 1))
                            direction = 1 if k % 2 == 0 else -1
                            started = time.monotonic() - t0
                            try:
                                settled, _, _ = tab.step(control, direction)
                                problems = tab.page.get_by_test_id("stException").count()
                                error = f"{problems} exception element(s) on the page" if problems else ""
                                out.changes.append(Change("chromium script", t, label, control, k, math.nan,
                                                          tab.script_s, error, started))
                                out.changes.append(Change("chromium settled", t, label, control, k, math.nan,
                                                          settled, error, started))
                            except Exception as exc:
                                for client in ("chromium script", "chromium settled"):
                                    out.changes.append(Change(client, t, label, control, k, math.nan, math.nan,
                                                              f"{type(exc).__name__}: {exc}"[:300], started))
            finally:
                browser.close()
    except Exception as exc:
        out.notes.append(f"Chromium tabs failed: {type(exc).__name__}: {exc}"[:300])
    finally:
        ready.set()


# ----------------------------------------------------------------------------------------------------
# The run and its table


def run_load(app: Path = Path("app.py"), sessions: int = 30, n_changes: int = 5, *, think: float = 1.0,
             ramp: float = 10.0, timeout: float = DEFAULT_TIMEOUT_S, data: str | None = None,
             same_values: bool = False, browser_tabs: int = 0, pages=None) -> LoadResult:
    """Serve ``app`` and run the load; returns every timed change, the alerts and the server's peak RSS."""
    pages = list(pages or PAGES)
    query = f"data={data}" if data else ""
    out = LoadResult(load_before=os.getloadavg())
    server = AppServer(Path(app))
    with server as url:
        sampler = _UsageSampler(server.proc.pid)
        client = _UsageSampler(os.getpid(), exclude=server.proc.pid)
        sampler.start()
        client.start()
        out.start_rss = sampler.first
        t0 = time.monotonic()
        ready = threading.Event()
        browser = None
        if browser_tabs > 0:
            # The tabs open first (their first view is not part of the load) and then change along with it.
            browser = threading.Thread(target=_browser_tabs, args=(url, browser_tabs, n_changes, think, timeout, query,
                                                                   pages, t0, out, ready), daemon=True)
            browser.start()
            ready.wait(timeout=timeout * browser_tabs + 60)
        asyncio.run(_websocket_load(url, sessions, n_changes, think, ramp, timeout, query, same_values, pages, t0, out))
        if browser is not None:
            browser.join(timeout=timeout * 2 * n_changes * browser_tabs + 60)
            if browser.is_alive():
                out.notes.append("the Chromium tabs had not finished when the load ended")
        out.wall_s = time.monotonic() - t0
        sampler.stop()
        client.stop()
        out.peak_rss, out.server_cpu_s = sampler.peak, sampler.cpu_used
        out.client_peak_rss, out.client_cpu_s = client.peak, client.cpu_used
        log = server.stop()
    if any(c.error for c in out.changes):
        # The exceptions' own lines from the server's log (the page shows them redacted).
        plain = re.sub(r"\x1b\[[0-9;]*m", "", log)
        found = re.findall(r"^([A-Za-z_.]*(?:Error|Exception)\b.*)$", plain, re.M)
        out.notes += [f"server log: {line.strip()[:300]}" for line in dict.fromkeys(found)]
    out.load_after = os.getloadavg()
    return out


def _quantile(values: list[float], q: float) -> float:
    """The q-quantile by linear interpolation (numpy's default), NaN when empty."""
    values = sorted(values)
    if not values:
        return math.nan
    pos = (len(values) - 1) * q
    lo, hi = math.floor(pos), math.ceil(pos)
    return values[lo] + (values[hi] - values[lo]) * (pos - lo)


def summary_rows(result: LoadResult) -> list[dict]:
    """One row per (client, what): sessions, changes, errors, p50, p95 and max seconds."""
    rows = []
    groups: dict[tuple[str, str], list[Change]] = {}
    for c in result.changes:
        what = "first view" if c.control == "first view" else "all changes"
        groups.setdefault((c.client, what), []).append(c)
        if c.control != "first view":
            groups.setdefault((c.client, f"  {c.control}"), []).append(c)
            if c.client == "websocket":  # (the tabs sit on two pages: their page rows would repeat these)
                groups.setdefault((c.client, f"  {c.page}"), []).append(c)
    order = {"websocket": 0, "chromium script": 1, "chromium settled": 2}

    def sort_key(item):
        (client, what), _ = item
        ranks = {"all changes": 0, "  ell": 1, "  sigma": 1, "first view": 3}  # then the pages (2)
        rank = ranks.get(what, 2)
        return order.get(client, 9), rank, what

    for (client, what), changes in sorted(groups.items(), key=sort_key):
        ok = [c.seconds for c in changes if not c.error and not math.isnan(c.seconds)]
        rows.append({"client": client, "what": what, "sessions": len({c.session for c in changes}),
                     "changes": len(changes), "errors": sum(1 for c in changes if c.error),
                     "p50_s": _quantile(ok, 0.5), "p95_s": _quantile(ok, 0.95), "max_s": max(ok, default=math.nan)})
    return rows


def format_table(result: LoadResult, described: str = "") -> str:
    rows = summary_rows(result)
    lines = []
    if described:
        lines += [described, ""]
    lines += ["| client | what | sessions | changes | errors | p50 s | p95 s | max s |",
              "|---|---|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        lines.append(f"| {r['client']} | {r['what'].strip()} | {r['sessions']} | {r['changes']} | {r['errors']} "
                     f"| {r['p50_s']:.2f} | {r['p95_s']:.2f} | {r['max_s']:.2f} |")
    errors = sum(1 for c in result.changes if c.error)
    browsers = any(c.client != "websocket" for c in result.changes)
    lines += ["",
              f"errors: {errors} (exceptions, compile errors, disconnects, changes over the timeout); "
              f"the app's st.error alerts: {len(result.alerts)}",
              f"server RSS (streamlit and its children): peak {result.peak_rss / 2**20:.0f} MB, "
              f"{result.start_rss / 2**20:.0f} MB before the sessions; {result.server_cpu_s:.0f} s CPU",
              f"load client (this process{' with Playwright and Chromium' if browsers else ''}): "
              f"peak RSS {result.client_peak_rss / 2**20:.0f} MB, {result.client_cpu_s:.0f} s CPU; "
              f"wall {result.wall_s:.0f} s",
              "machine load (1/5/15 min) before: " + " ".join(f"{x:.2f}" for x in result.load_before)
              + ", after: " + " ".join(f"{x:.2f}" for x in result.load_after) + f" ({os.cpu_count()} cores)"]
    failed = [c for c in sorted(result.changes, key=lambda c: c.started) if c.error]
    for c in failed[:20]:
        lines.append(f"  error: {c.client} session {c.session} ({c.page}) {c.control} #{c.index}: {c.error}")
    if len(failed) > 20:
        lines.append(f"  ... and {len(failed) - 20} more errors (--csv lists them all)")
    for a in sorted(set(result.alerts)):
        lines.append(f"  st.error: {a}")
    lines += [f"  note: {n}" for n in result.notes]
    return "\n".join(lines)


def write_csv(result: LoadResult, path: Path) -> None:
    with open(path, "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=[f.name for f in fields(Change)])
        writer.writeheader()
        for c in sorted(result.changes, key=lambda c: c.started):
            writer.writerow(asdict(c))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--app", type=Path, default=Path("app.py"), help="the app's entry file (default app.py)")
    parser.add_argument("--sessions", type=int, default=30, help="websocket sessions on the one server (default 30)")
    parser.add_argument("--changes", type=int, default=5,
                        help="ell changes, and as many sigma changes, per session (default 5)")
    parser.add_argument("--think", type=float, default=1.0,
                        help="mean seconds a session waits before each change (uniform 0.5x-1.5x; default 1)")
    parser.add_argument("--ramp", type=float, default=10.0,
                        help="seconds over which the sessions arrive (default 10)")
    parser.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT_S,
                        help=f"seconds after which a change counts as an error (default {DEFAULT_TIMEOUT_S:g})")
    parser.add_argument("--data", default=None, help="a sample's name for every session (default: the app's default)")
    parser.add_argument("--same-values", action="store_true",
                        help="every session sets the same values (shared caches hit); default: spread values")
    parser.add_argument("--browser-tabs", type=int, default=2,
                        help="Chromium tabs making the same changes alongside (default 2; 0: none)")
    parser.add_argument("--csv", type=Path, default=None, help="write every timed change to this CSV")
    args = parser.parse_args(argv)
    for name in ("sessions", "changes", "browser_tabs"):
        if getattr(args, name) < 0:
            parser.error(f"--{name.replace('_', '-')} must be >= 0")
    when = _dt.datetime.now().strftime("%Y-%m-%d %H:%M")
    print(f"{when}: {args.sessions} websocket sessions + {args.browser_tabs} Chromium tabs, {args.changes} ell and "
          f"{args.changes} sigma changes each, think {args.think:g} s, ramp {args.ramp:g} s; machine load "
          + " ".join(f"{x:.2f}" for x in os.getloadavg()), flush=True)
    result = run_load(args.app, args.sessions, args.changes, think=args.think, ramp=args.ramp, timeout=args.timeout,
                      data=args.data, same_values=args.same_values, browser_tabs=args.browser_tabs)
    command = "python tests/benchmarks/load_test.py " + " ".join(sys.argv[1:] if argv is None else argv)
    print(format_table(result, f"`{command.strip()}` ({when}); seconds from the change to the end of the "
                               "session's script run (chromium settled: to the last chart drawn)"))
    if args.csv is not None:
        write_csv(result, args.csv)
        print(f"wrote {args.csv}")
    return 1 if any(c.error for c in result.changes) else 0


if __name__ == "__main__":
    sys.exit(main())
