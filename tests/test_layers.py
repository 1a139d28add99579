"""The layering in pyproject.toml's ``[tool.importlinter]`` holds, and the check can fail."""

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
pytest.importorskip("importlinter")


def _lint(cwd: Path) -> subprocess.CompletedProcess:
    # lint-imports finds the package on sys.path: run it from `cwd` with `cwd` first on the path.
    code = "import sys; from importlinter.cli import lint_imports_command; sys.exit(lint_imports_command())"
    return subprocess.run([sys.executable, "-c", code], cwd=cwd, capture_output=True, text=True,
                          env={"PYTHONPATH": str(cwd), "PATH": "/usr/bin:/bin"}, timeout=300)


def test_import_contracts_are_kept():
    result = _lint(ROOT)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "0 broken" in result.stdout


@pytest.mark.parametrize("module, offending_import", [
    ("core/metrics.py", "import rskpca.evaluation.methods"),  # a lower layer importing a higher one
    ("decomposition/_nystrom.py", "import streamlit"),  # Streamlit outside rskpca.ui
    # The seam between the library and the app's extra (tests/test_library_without_app.py runs it)
    ("cli/_embed.py", "import rskpca.plotting"),  # a library command needing the app's code
    ("cli/_cluster.py", "import plotly.graph_objects"),  # ... or Plotly
    ("data/samples.py", "import pyarrow.parquet"),  # pyarrow where no Parquet file is read
])
def test_a_broken_layer_is_reported(tmp_path, module, offending_import):
    shutil.copytree(ROOT / "rskpca", tmp_path / "rskpca", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    target = tmp_path / "rskpca" / module
    target.write_text(target.read_text() + f"\n{offending_import}  # noqa\n")
    result = _lint(tmp_path)
    assert result.returncode != 0
    assert "1 broken" in result.stdout, result.stdout



_FIND_PRIVATE_IMPORTS = """
import grimp
graph = grimp.build_graph("rskpca", include_external_packages=False, cache_dir=None)
for importer in sorted(graph.modules):
    for imported in sorted(graph.find_modules_directly_imported_by(importer)):
        parts = imported.split(".")
        if any(p.startswith("_") and not p.startswith("__") for p in parts[2:]) and importer.split(".")[:2] != parts[:2]:
            print(importer, "->", imported)
"""


def _private_imports(cwd: Path) -> str:
    """Imports of a ``_private`` module of one subpackage from another, one a line."""
    result = subprocess.run([sys.executable, "-c", _FIND_PRIVATE_IMPORTS], cwd=cwd, capture_output=True, text=True,
                            env={"PYTHONPATH": str(cwd), "PATH": "/usr/bin:/bin"}, timeout=300)
    assert result.returncode == 0, result.stderr
    return result.stdout.strip()


def test_no_private_module_is_imported_from_another_subpackage():
    assert _private_imports(ROOT) == ""


def test_a_private_import_across_subpackages_is_reported(tmp_path):
    shutil.copytree(ROOT / "rskpca", tmp_path / "rskpca", ignore=shutil.ignore_patterns("__pycache__"))
    target = tmp_path / "rskpca" / "evaluation" / "compare.py"
    target.write_text(target.read_text() + "\nfrom rskpca.core.shadow._screen import _blas_scan  # noqa\n")
    assert _private_imports(tmp_path) == "rskpca.evaluation.compare -> rskpca.core.shadow._screen"


# ``ui/compute`` computes and caches: it draws nothing itself and keeps no session state. Progress is
# drawn through ``ui/progress`` (the one renderer), widgets and session state live in the rest of ``ui``.
_COMPUTE_ST_CALLS = {"cache_data", "cache_resource"}


def _streamlit_uses(path: Path) -> set[str]:
    import ast

    tree = ast.parse(path.read_text())
    names = {alias.asname or alias.name for node in ast.walk(tree) if isinstance(node, ast.Import)
             for alias in node.names if alias.name == "streamlit"}
    used = {node.attr for node in ast.walk(tree)
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in names}
    if any(isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("streamlit")
           for node in ast.walk(tree)):
        used.add("from streamlit import ...")
    if "session_state" in path.read_text():
        used.add("session_state")
    return used


def test_the_compute_room_only_computes_and_caches():
    compute = Path(__file__).resolve().parents[1] / "rskpca" / "ui" / "compute"
    drawn = {path.name: sorted(_streamlit_uses(path) - _COMPUTE_ST_CALLS) for path in sorted(compute.glob("*.py"))}
    assert {name: uses for name, uses in drawn.items() if uses} == {}


def test_a_drawing_in_the_compute_room_is_reported(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text("import streamlit as st\n\n@st.cache_data\ndef f():\n    st.spinner('x')\n"
                   "    return st.session_state\n")
    assert _streamlit_uses(bad) - _COMPUTE_ST_CALLS == {"spinner", "session_state"}
