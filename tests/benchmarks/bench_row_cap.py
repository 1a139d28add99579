"""Benchmark: each page's first view at growing n, the table behind the app's default row cap.

``python tests/benchmarks/bench_row_cap.py [--rows 5000 20000 ...] [--repeats 2] [--dir /tmp/rskpca_row_cap] [--write]``

For each n it generates a 10-d Gaussian mixture (8 components, seeded) of n rows as ``.npy`` in
``--dir`` (never in the repository), and for each page: clears Streamlit's caches, starts an
``AppTest`` of ``app.py`` with that file as the upload and the row cap at n, runs ``app.py`` once
(the load: read, prepare, sidebar) and then the page's first run, timed. The best of ``--repeats``
is kept (other jobs only add time). It prints one JSON line per run, then the table (as Markdown, for
``tests/benchmarks/RESULTS.md``), each page's line (fixed seconds + seconds per row,
:func:`rskpca.evaluation.row_cap.fit_first_view_lines`) and the largest n within the budget; ``--write``
writes the lines to ``rskpca/evaluation/_measured_first_views.py``, which the app's row-cap estimates
and its default cap are read from. Server side only: the browser's transfer and drawing are not included.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(Path(__file__).resolve().parent))

DEFAULT_ROWS = (5_000, 20_000, 50_000, 100_000, 200_000, 500_000, 1_000_000)


def mixture(n: int, d: int = 10, components: int = 8, seed: int = 0) -> np.ndarray:
    """``n`` rows of a seeded ``d``-dimensional Gaussian mixture (unit spread, means ~ N(0, 16)).

    >>> mixture(5).shape
    (5, 10)
    """
    return labelled_mixture(n, d, components, seed)[0]


def labelled_mixture(n: int, d: int = 10, components: int = 8, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """:func:`mixture`'s rows and the component each was drawn from.

    >>> X, y = labelled_mixture(5)
    >>> bool((X == mixture(5)).all()), y.shape
    (True, (5,))
    """
    rng = np.random.default_rng(seed)
    means = rng.normal(0.0, 4.0, size=(components, d))
    labels = rng.integers(0, components, size=n)
    return means[labels] + rng.normal(size=(n, d)), labels


def page_title(page: str) -> str:
    """``"pages/2_Shadow_centers.py"`` -> ``"Shadow centers"``; ``app.py`` -> ``"Loading"`` (its run is the load).

    >>> page_title("pages/2_Shadow_centers.py"), page_title("app.py")
    ('Shadow centers', 'Loading')
    """
    if page == "app.py":
        return "Loading"
    return Path(page).stem.split("_", 1)[1].replace("_", " ")


def first_view(page: str, path: Path, n: int, timeout: float = 300.0) -> tuple[float, float, str]:
    """``(load seconds, first-view seconds, error)`` of ``page`` with the file at ``path`` and the cap at n."""
    import streamlit as st
    from streamlit.testing.v1 import AppTest

    from rskpca.bounds import _measurements
    from rskpca.ui.keys import UPLOAD, UPLOADED

    st.cache_data.clear()
    _measurements._sample_terms.clear()
    at = AppTest.from_file(str(REPO / "app.py"), default_timeout=timeout)
    data = path.read_bytes()
    at.session_state[UPLOADED] = {"name": path.name, "digest": hashlib.sha256(data).hexdigest(), "bytes": data}
    at.session_state["source"] = UPLOAD
    at.session_state["max_rows"] = int(n)
    start = time.perf_counter()
    at.run()
    load = time.perf_counter() - start
    if page == "app.py":
        return load, load, at.exception[0].message if at.exception else ""
    at.switch_page(page)
    start = time.perf_counter()
    try:
        at.run()
        error = at.exception[0].message if at.exception else ""
    except RuntimeError as exc:  # AppTest's timeout
        error = str(exc)
    return load, time.perf_counter() - start, error


def main(argv=None) -> int:
    from streamlit_logs import quiet_streamlit_logs

    from rskpca.evaluation.row_cap import FIRST_VIEW_BUDGET_S, fit_first_view_lines
    from rskpca.evaluation.timing import machine_load

    parser = argparse.ArgumentParser(prog="python tests/benchmarks/bench_row_cap.py", description=__doc__.split("\n")[0])
    parser.add_argument("--rows", type=int, nargs="+", default=list(DEFAULT_ROWS))
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--pages", nargs="+", default=None, help="page files (default: app.py and every page)")
    parser.add_argument("--dir", default="/tmp/rskpca_row_cap", help="where the generated data go")
    parser.add_argument("--write", action="store_true",
                        help="write the pages' lines to rskpca/evaluation/_measured_first_views.py")
    args = parser.parse_args(argv)
    quiet_streamlit_logs()
    pages = args.pages or ["app.py"] + sorted((str(p.relative_to(REPO)) for p in (REPO / "pages").glob("*.py")),
                                              key=lambda p: int(Path(p).stem.split("_")[0]))
    folder = Path(args.dir)
    folder.mkdir(parents=True, exist_ok=True)

    def data_file(n):
        path = folder / f"mixture_{n}x10.npy"
        if not path.exists():
            np.save(path, mixture(n))
        return path

    first_view("app.py", data_file(500), 500)  # warm-up: imports and compilation, not timed
    best: dict[str, dict[int, float]] = {}
    failed = False
    print(f"# {machine_load()} at start", flush=True)
    for n in args.rows:
        path = data_file(n)
        for page in pages:
            for rep in range(args.repeats):
                load = machine_load()
                loaded, seconds, error = first_view(page, path, n)
                failed |= bool(error)
                print(json.dumps({"n": n, "page": page, "rep": rep, "load_s": round(loaded, 3),
                                  "first_view_s": round(seconds, 3), "error": error[:200], "machine": load}), flush=True)
                if not error:
                    title = page_title(page)
                    best.setdefault(title, {})[n] = min(best.get(title, {}).get(n, np.inf), seconds)
    end_load = machine_load()
    print(f"# {end_load} at end")
    print("| page | " + " | ".join(f"{n:,}" for n in args.rows) + " |")
    print("|---|" + "---:|" * len(args.rows))
    for title, by_n in best.items():
        print(f"| {title} | " + " | ".join(f"{by_n.get(n, float(np.nan)):.2f}" for n in args.rows) + " |")
    table = {title: tuple(by_n.get(n, float(np.nan)) for n in args.rows) for title, by_n in best.items()}
    lines = fit_first_view_lines(args.rows, table)
    print("FIRST_VIEW_LINES = " + repr({k: tuple(round(v, 12) for v in line) for k, line in lines.items()}))
    if args.write:
        target = REPO / "rskpca" / "evaluation" / "_measured_first_views.py"
        target.write_text(
            '"""Each page\'s first view as a line in the rows, measured by ``python tests/benchmarks/bench_row_cap.py '
            '--write``,\nwhich regenerates this file. Do not edit by hand; the measured table is in '
            '``tests/benchmarks/RESULTS.md``\nand what the numbers mean in :mod:`rskpca.evaluation.row_cap`.\n"""\n\n'
            f"#: The row counts the first views were measured at.\nMEASURED_ROWS = {tuple(args.rows)!r}\n\n"
            "#: ``{page: (fixed seconds, seconds per row)}``: a line fitted to each page's measured first views.\n"
            "FIRST_VIEW_LINES = {\n"
            + "".join(f"    {k!r}: ({fixed!r}, {per_row!r}),\n" for k, (fixed, per_row) in lines.items())
            + "}\n")
        print(f"# wrote {target.relative_to(REPO)}")
    within = [n for n in args.rows if all(by_n.get(n, np.inf) <= max(FIRST_VIEW_BUDGET_S, by_n.get(args.rows[0], 0))
                                          for by_n in best.values())]
    print(f"# largest n with every page within {FIRST_VIEW_BUDGET_S} s (or its time at {args.rows[0]}): "
          f"{max(within) if within else None}")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
