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
])
def test_a_broken_layer_is_reported(tmp_path, module, offending_import):
    shutil.copytree(ROOT / "rskpca", tmp_path / "rskpca", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    target = tmp_path / "rskpca" / module
    target.write_text(target.read_text() + f"\n{offending_import}  # noqa\n")
    result = _lint(tmp_path)
    assert result.returncode != 0
    assert "1 broken" in result.stdout, result.stdout
