"""A server's first visit says that the app is starting instead of showing an empty page.

``import rskpca`` and ``rskpca.ui.first_visit`` load nothing heavy (their names resolve on first use),
so every page can put a spinner on screen before scikit-learn's seconds of imports; each page does so
before any other import of the package.
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

import rskpca

REPO = Path(__file__).resolve().parent.parent
SCRIPTS = [REPO / "app.py", *sorted((REPO / "pages").glob("*.py"))]
HEAVY = ("sklearn", "scipy", "numba", "rskpca.decomposition", "rskpca.ui.page_setup")

# Run in a fresh interpreter, where nothing is imported yet; Streamlit's spinner records its text.
FIRST_VISIT = f"""
import contextlib, json, sys
import streamlit as st

shown = []
st.spinner = lambda text, **kw: (shown.append(text), contextlib.nullcontext())[1]
import rskpca
from rskpca.ui import first_visit

report = {{"heavy_after_import": sorted(m for m in {HEAVY!r} if m in sys.modules)}}
first_visit.load_libraries()
report["loaded"] = all(name in sys.modules for name in first_visit.HEAVY_MODULES)
first_visit.load_libraries()  # a later run: already loaded, nothing drawn
report["shown"] = shown
report["message"] = first_visit.STARTING_MESSAGE
import rskpca
report["names_resolve"] = all(getattr(rskpca, name) is not None for name in rskpca.__all__)
print(json.dumps(report))
"""


def test_the_first_visit_shows_a_spinner_while_the_libraries_load_and_later_runs_draw_nothing():
    """In a fresh interpreter: ``import rskpca`` and first_visit load nothing heavy; then the spinner, once."""
    proc = subprocess.run([sys.executable, "-c", FIRST_VISIT], capture_output=True, text=True, timeout=300, cwd=REPO)
    assert proc.returncode == 0, proc.stderr[-4000:]
    report = json.loads(proc.stdout.strip().splitlines()[-1])
    assert report["heavy_after_import"] == [], "importing first_visit loaded what it is meant to announce"
    assert report["loaded"]
    assert report["shown"] == [report["message"]]
    assert report["names_resolve"]  # rskpca's public names, loaded on first use


def test_rskpca_lists_its_public_names_and_refuses_others():
    assert set(rskpca.__all__) <= set(dir(rskpca))
    with pytest.raises(AttributeError, match="no attribute 'not_a_name'"):
        rskpca.not_a_name


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: p.name)
def test_every_page_calls_load_libraries_before_its_other_imports_of_the_package(script):
    body = ast.parse(script.read_text()).body
    call = next(i for i, node in enumerate(body) if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call)
                and getattr(node.value.func, "id", None) == "load_libraries")
    package_imports = [i for i, node in enumerate(body) if isinstance(node, ast.ImportFrom)
                       and (node.module or "").split(".")[0] == "rskpca" and node.module != "rskpca.ui.first_visit"]
    assert package_imports and call < min(package_imports)
