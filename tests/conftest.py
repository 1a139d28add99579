import os
import sys
from pathlib import Path

import pytest

# tests/reference.py (the literal oracles) and the lab in tests/benchmarks/ (benchmarks, the app
# server and the browser session they share with the end-to-end tests) are imported as plain modules.
sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(0, str(Path(__file__).parent / "benchmarks"))

from synthetic import three_blobs as _three_blobs  # noqa: E402

_MAIN = sys.modules["__main__"]


@pytest.fixture(autouse=True)
def _restore_main_module():
    """Streamlit's script runner installs the page it runs as ``__main__`` and leaves it there.

    A process started by spawn later (the Dask workers of tests/test_distributed.py) imports the
    parent's ``__main__`` again: it would run app.py, with Streamlit, numba and the app's first
    fits, in every worker (about 420 MB against their 400 MB budget). Put pytest's back.
    """
    yield
    sys.modules["__main__"] = _MAIN

#: The paper's data sets (german, pendigits, usps): ../shared/datasets beside the checkout, as on the
#: developers' machines and in CI, or wherever RSKPCA_DATASETS points. Tests that need them skip without.
PAPER_DATASETS = Path(
    os.environ.get("RSKPCA_DATASETS", Path(__file__).resolve().parents[1].parent / "shared" / "datasets")
)


@pytest.fixture
def threads(monkeypatch):
    """Set how many threads rskpca.core.threads' helpers use (whatever the machine has): threads(n)."""
    from rskpca.core import threads as _threads

    def use(n):
        monkeypatch.setattr(_threads, "_all_threads", n)
    return use


@pytest.fixture(scope="module")
def three_blobs():
    """Three 2-D blobs with a clear eigengap at sigma = synthetic.THREE_BLOBS_SIGMA (see synthetic.py)."""
    return _three_blobs()


def pytest_xdist_auto_num_workers(config):
    """``-n auto`` (pyproject.toml's addopts): one worker more than the cores. The browser and wheel tests wait on
    Chromium, the app's server and pip for about a third of their time (two workers on two cores used 1.24 of
    them), so a third worker fills those waits."""
    return (os.cpu_count() or 1) + 1
