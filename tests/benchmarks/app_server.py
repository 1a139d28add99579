"""The app behind a real Streamlit server, for the browser benchmark and the end-to-end tests.

AppTest runs a page without a server, so it cannot show what a browser waits for;
``bench_browser.py`` and ``tests/test_e2e*.py`` need the app served as a user gets it, but by a
server of their own that cannot block on its log or outlive the measurement.
"""

from __future__ import annotations

import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

__all__ = ["AppServer"]


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

    def __init__(self, app: Path, timeout: float = 120.0, script_args=(), cli: bool = False, python=None):
        self.app = Path(app).resolve()
        self.timeout = timeout
        self.script_args = [str(a) for a in script_args]  # the app's own: a data file
        # cli: started as a user starts it, `python -m rskpca app FILE` (which runs `streamlit run` on this
        # checkout's app, the options passed through); else `streamlit run APP -- FILE`
        self.cli = cli
        # the interpreter that serves it: this one, or a virtualenv's where the app was pip-installed
        self.python = str(python or sys.executable)
        self.log = None
        self.proc = None

    def __enter__(self) -> str:
        if not self.app.is_file():
            raise FileNotFoundError(f"{self.app} does not exist: pass the app's entry file with --app PATH.")
        port = _free_port()
        self.log = tempfile.TemporaryFile()
        options = ["--server.headless", "true", "--server.port", str(port), "--server.address", "127.0.0.1",
                   "--browser.gatherUsageStats", "false", "--server.fileWatcherType", "none"]
        if self.cli:
            cmd = [self.python, "-m", "rskpca", "app", *self.script_args, *options]
        else:
            cmd = [self.python, "-m", "streamlit", "run", str(self.app), *options]
            if self.script_args:
                cmd += ["--", *self.script_args]
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
                log = self.stop()
                raise RuntimeError(f"streamlit did not answer /_stcore/health in {self.timeout:g} s:\n{log[-4000:]}")
            time.sleep(0.25)

    def peak_memory_bytes(self) -> int | None:
        """The server process's peak resident memory so far (Linux ``VmHWM``), or None where unknown."""
        try:
            with open(f"/proc/{self.proc.pid}/status") as status:
                for line in status:
                    if line.startswith("VmHWM:"):
                        return int(line.split()[1]) * 1024
        except (OSError, AttributeError, ValueError):
            pass
        return None

    def log_tail(self, limit: int = 4000) -> str:
        self.log.seek(0)
        return self.log.read().decode(errors="replace")[-limit:]

    def __exit__(self, *exc):
        self.stop()

    def stop(self, log_limit: int = 200_000) -> str:
        """Terminate the server (if it runs) and return the end of its log, shutdown included."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        text = ""
        if self.log is not None and not self.log.closed:
            text = self.log_tail(log_limit)
            self.log.close()
        return text
