"""This checkout's wheel, installed in fresh virtualenvs as a user installs it: without extras (the library),
and with ``[app]`` (a copy of the first with the extra installed on top, so the library's own stays without
the app whichever test asks first). Each is built and installed once per test process.

The wheel is built by pip (hatchling in an isolated build environment); the dependencies come from the
package index or pip's cache. ``--no-compile``: a test imports a fraction of what it installs, and Python
compiles that on import.
"""

from __future__ import annotations

import atexit
import functools
import json
import shutil
import subprocess
import sys
import tempfile
import venv
from pathlib import Path

__all__ = ["built_wheel", "library_venv", "app_venv", "installed_packages"]

REPO = Path(__file__).resolve().parent.parent
INSTALL_TIMEOUT_S = 900


@functools.cache
def _workdir() -> Path:
    folder = Path(tempfile.mkdtemp(prefix="rskpca-wheel-"))
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    return folder


def _run(command, timeout: float) -> subprocess.CompletedProcess:
    proc = subprocess.run([str(c) for c in command], capture_output=True, text=True, timeout=timeout)
    if proc.returncode != 0:
        raise AssertionError(f"{' '.join(map(str, command))} failed:\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}")
    return proc


@functools.cache
def built_wheel() -> Path:
    """``rskpca-*.whl`` built from this checkout (``pip wheel --no-deps``)."""
    out = _workdir() / "wheel"
    _run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "--wheel-dir", out, REPO], timeout=600)
    [wheel] = out.glob("rskpca-*.whl")
    return wheel


@functools.cache
def library_venv() -> Path:
    """The python of a fresh virtualenv holding the wheel without extras: ``pip install rskpca``."""
    folder = _workdir() / "venv"
    venv.create(folder, with_pip=True, symlinks=True)
    python = folder / "bin" / "python"
    _run([python, "-m", "pip", "install", "--quiet", "--no-compile", built_wheel()], timeout=INSTALL_TIMEOUT_S)
    return python


@functools.cache
def app_venv() -> Path:
    """The python of a virtualenv holding the wheel with the app's extra: ``pip install "rskpca[app]"``."""
    folder = _workdir() / "app-venv"
    # A copy of the library's virtualenv: its python, run by path, finds the copy's site-packages.
    shutil.copytree(library_venv().parent.parent, folder, symlinks=True)
    python = folder / "bin" / "python"
    _run([python, "-m", "pip", "install", "--quiet", "--no-compile", f"{built_wheel()}[app]"],
         timeout=INSTALL_TIMEOUT_S)
    return python


def installed_packages(python: Path) -> set[str]:
    """Lower-case names of the distributions installed for ``python``."""
    listed = _run([python, "-m", "pip", "list", "--format=json"], timeout=120).stdout
    return {p["name"].lower() for p in json.loads(listed)}
