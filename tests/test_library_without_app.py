"""``pip install rskpca`` is the library: it imports, fits, transforms and runs its commands without the
app's packages (Streamlit, Plotly, pyarrow: the ``app`` extra), and ``rskpca app`` then says which extra
to install.

Two proofs: a subprocess in which an import hook makes those packages unimportable (fast), and a real
virtualenv with the wheel installed without the extra (marked ``e2e``, which the fast tier leaves out: it
builds the wheel and installs the library's dependencies from the package index or pip's cache).
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pandas as pd
from wheel_venv import installed_packages, library_venv

REPO = Path(__file__).resolve().parent.parent
APP_PACKAGES = ("streamlit", "plotly", "pyarrow")

# Makes the app's packages unimportable in the process it runs in, as if they were not installed.
BLOCK_APP_PACKAGES = f"""
import sys

class _WithoutAppExtra:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in {APP_PACKAGES!r}:
            raise ModuleNotFoundError(f"No module named {{name!r}}", name=name)
        return None

sys.meta_path.insert(0, _WithoutAppExtra())
"""

# What a library user does, run in a process without the app's packages; prints a JSON report.
LIBRARY_USE = """
import contextlib, io, json, sys
from pathlib import Path

import numpy as np

import rskpca
from rskpca.cli import main

folder = Path(sys.argv[1])
report = {}
rng = np.random.default_rng(0)
X = np.vstack([rng.normal(0, 0.3, (60, 2)), rng.normal(3, 0.3, (60, 2))])
Z = rskpca.ReducedSetKPCA(n_components=2, ell=3.0).fit(X).transform(X[:7])
report["kpca_shape"] = list(Z.shape)
clusters = rskpca.ReducedSetSpectralClustering(n_clusters=2, random_state=0).fit_predict(X)
report["clusters"] = sorted(set(int(c) for c in clusters))


def run(*args):
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        status = main([str(a) for a in args])
    return [status, err.getvalue()]


data = folder / "points.csv"
report["embed"] = run("embed", data, "-q", "-o", folder / "embedding.csv")
report["cluster"] = run("cluster", data, "-k", "2", "-q", "-o", folder / "clusters.csv")
report["app"] = run("app", data)
report["read_parquet"] = run("embed", folder / "points.parquet", "-q", "-o", folder / "never.csv")
report["write_parquet"] = run("embed", data, "-q", "-o", folder / "embedding.parquet")
report["experiment"] = run("experiment", "--data", data, "--out", folder / "experiment")
report["imported"] = sorted({m.split(".")[0] for m in sys.modules if m.split(".")[0] in APP_PACKAGES}
                            | {m for m in sys.modules if m.startswith(("rskpca.ui", "rskpca.plotting"))})
print(json.dumps(report))
"""


def _data_folder(folder: Path) -> Path:
    rng = np.random.default_rng(1)
    label = rng.integers(0, 2, 80)
    df = pd.DataFrame({"x": rng.normal(size=80) + 4 * label, "y": rng.normal(size=80), "label": label})
    df.to_csv(folder / "points.csv", index=False)
    df.to_parquet(folder / "points.parquet")  # written here, where pyarrow is installed
    return folder


def _check_report(report: dict, folder: Path) -> None:
    assert report["kpca_shape"] == [7, 2]
    assert report["clusters"] == [0, 1]
    assert report["embed"] == [0, ""] and (folder / "embedding.csv").is_file()
    assert report["cluster"][0] == 0 and (folder / "clusters.csv").is_file()
    status, err = report["app"]
    assert status == 2
    assert 'the app needs `pip install "rskpca[app]"`' in err and "streamlit" in err, err
    status, err = report["read_parquet"]
    assert status == 2 and "points.parquet is a Parquet file" in err and '"rskpca[parquet]"' in err, err
    status, err = report["write_parquet"]
    assert status == 2 and "writing embedding.parquet needs pyarrow" in err, err
    assert not (folder / "embedding.parquet").exists()
    status, err = report["experiment"]  # its figures are Plotly's: the extra is named before the long part
    assert status == 2 and 'needs plotly' in err and '"rskpca[app]"' in err, err
    assert report["imported"] == [], "the library imported the app's packages or modules"


def test_the_library_and_its_commands_work_without_the_app_packages(tmp_path):
    folder = _data_folder(tmp_path)
    code = BLOCK_APP_PACKAGES + f"APP_PACKAGES = {APP_PACKAGES!r}\n" + LIBRARY_USE
    proc = subprocess.run([sys.executable, "-c", code, str(folder)], capture_output=True, text=True, timeout=300,
                          cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-4000:]
    _check_report(json.loads(proc.stdout.strip().splitlines()[-1]), folder)


def test_the_import_hook_really_blocks_the_app_packages():
    """Else the test above would prove nothing: under the hook, importing each package fails."""
    code = BLOCK_APP_PACKAGES + textwrap.dedent(f"""
        failed = []
        for name in {APP_PACKAGES!r} + ("plotly.graph_objects", "pyarrow.parquet"):
            try:
                __import__(name)
            except ImportError:
                failed.append(name)
        print(failed)
    """)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=REPO)
    assert proc.stdout.strip() == str([*APP_PACKAGES, "plotly.graph_objects", "pyarrow.parquet"]), proc.stderr


# ---------------------------------------------------------------------------
# The same in a real virtualenv, with the wheel installed without its extras
# ---------------------------------------------------------------------------


def fresh_virtualenv_check(tmp_path):
    """The wheel alone in a fresh virtualenv runs the library and says which extra the app needs. Collected in
    tests/test_e2e_app_file.py, whose process builds the same wheel and virtualenv for the app (built once per
    process: tests/wheel_venv.py; pytest-xdist keeps a file's tests in one process)."""
    python = library_venv()
    installed = installed_packages(python)
    assert "rskpca" in installed and not installed & set(APP_PACKAGES), sorted(installed)
    (tmp_path / "data").mkdir()
    folder = _data_folder(tmp_path / "data")
    code = f"APP_PACKAGES = {APP_PACKAGES!r}\n" + LIBRARY_USE
    # Run away from the checkout, so that `import rskpca` can only find the installed wheel.
    proc = subprocess.run([str(python), "-c", code, str(folder)], capture_output=True, text=True, timeout=600,
                          cwd=folder)
    assert proc.returncode == 0, proc.stderr[-4000:]
    report = json.loads(proc.stdout.strip().splitlines()[-1])
    _check_report(report, folder)
    where = subprocess.run([str(python), "-c", "import rskpca; print(rskpca.__file__)"], capture_output=True,
                           text=True, cwd=folder, check=True).stdout
    assert where.startswith(str(python.parent.parent)), where
    console = subprocess.run([str(python.parent / "rskpca"), "app"], capture_output=True, text=True, cwd=folder,
                             timeout=120)
    assert console.returncode == 2 and '"rskpca[app]"' in console.stderr, console.stderr
