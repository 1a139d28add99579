"""``rskpca app [FILE] [streamlit options]``: the app, with FILE read on the server as the data in use.

Runs ``python -m streamlit run <app.py> [streamlit options] -- FILE`` in the app's folder (where its
``.streamlit/config.toml`` is read); the app reads FILE itself (:mod:`rskpca.ui.app_file`), so
``streamlit run app.py -- FILE`` does the same. Before Streamlit starts, FILE is checked here: a
missing, unreadable or foreign file, or one that would not fit in memory, is refused with exit status 2.

The app is ``app.py`` with ``pages/`` beside it: the source checkout's top level when the package is
imported from one (``pip install -e .``), else the copy the wheel carries in ``rskpca/_app/`` (the build
configuration in pyproject.toml puts it there). The app needs the ``app`` extra (Streamlit, Plotly,
pyarrow); without it the command says what to install, and nothing else of ``rskpca`` needs it.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import rskpca
from rskpca.data.input_columns import Unusable, UnusableTableError, check_usable
from rskpca.data.memory_estimate import check_fits_in_memory
from rskpca.data.readers import DataError, read_table
from rskpca.data.table_head import HEAD_BYTES, read_table_head

__all__ = ["add_app_parser", "app_command", "find_app", "split_app_args", "streamlit_command", "check_data_file",
           "missing_app_packages", "FULL_CHECK_BYTES", "APP_PACKAGES", "NEEDS_APP_EXTRA"]

#: Files up to this size are read in full before Streamlit starts (under a second); larger ones have their
#: leading rows (text), metadata (Parquet) or header (NPY) checked, and are read once, by the server.
FULL_CHECK_BYTES = 16 << 20
#: What the app imports beyond the library: the ``app`` extra (pyproject.toml), checked before Streamlit starts.
APP_PACKAGES = ("streamlit", "plotly", "pyarrow")
#: What to do when one of them is missing.
NEEDS_APP_EXTRA = 'the app needs `pip install "rskpca[app]"`'
#: Where the wheel carries the app inside the package (pyproject.toml's [tool.hatch.build.targets.wheel]).
INSTALLED_APP = Path(rskpca.__file__).resolve().parent / "_app"
#: Whether Streamlit replaces this process (POSIX exec) instead of running as its child.
_EXEC = os.name == "posix"


def add_app_parser(sub) -> None:
    """The ``app`` subcommand's arguments (for ``--help``; :func:`split_app_args` parses them)."""
    ap = sub.add_parser("app", help="start the interactive app (Streamlit), optionally on a data file",
                        description="Starts the app with `python -m streamlit run`; FILE (CSV, TSV, Parquet or "
                                    "NPY, CSV/TSV may be gzip-compressed) is read on the server, with no upload "
                                    "size limit, and is the data in use when a session starts. Streamlit's own "
                                    "options pass through, e.g. rskpca app data.parquet --server.port 8600.")
    ap.add_argument("file", nargs="?", help="the data file (optional: without it the app opens on a sample)")
    ap.add_argument("streamlit_options", nargs=argparse.REMAINDER,
                    help="Streamlit options, such as --server.port 8600 or --server.headless true")


def split_app_args(args: list[str]) -> tuple[str | None, list[str]]:
    """``(FILE, streamlit options)`` from the words after ``rskpca app``, in any order.

    A Streamlit option is ``--section.name VALUE`` or ``--section.name=VALUE``; the first other word is
    FILE, and one after ``--`` is FILE even if it starts with ``-``.

    Examples
    --------
    >>> split_app_args(["--server.port", "8600", "data.csv", "--server.headless=true"])
    ('data.csv', ['--server.port', '8600', '--server.headless=true'])
    >>> split_app_args(["--", "-odd name.csv"])
    ('-odd name.csv', [])
    """
    file, options, i = None, [], 0
    while i < len(args):
        word = args[i]
        if word == "--":
            rest = args[i + 1:]
            if rest and file is None:
                file, rest = rest[0], rest[1:]
            options.extend(rest)
            break
        if word.startswith("-") and word != "-":
            options.append(word)
            takes_value = "=" not in word and i + 1 < len(args) and not args[i + 1].startswith("-")
            if takes_value:
                options.append(args[i + 1])
                i += 1
        elif file is None:
            file = word
        else:
            options.append(word)
        i += 1
    return file, options


def find_app(search=None) -> Path | None:
    """``app.py`` of the RSKPCA app (with ``pages/`` beside it), or None when it is not there.

    Looked for in the source checkout the package is imported from (its top level, beside ``rskpca/``),
    then in the copy the wheel installs (:data:`INSTALLED_APP`): a checkout runs its own app, an installed
    wheel the app built with it. ``search`` replaces those folders (tests).
    """
    places = search if search is not None else (Path(rskpca.__file__).resolve().parent.parent, INSTALLED_APP)
    for folder in places:
        app = Path(folder) / "app.py"
        if app.is_file() and (Path(folder) / "pages").is_dir() and "rskpca.ui" in app.read_text(errors="replace"):
            return app
    return None


#: What to do when neither place holds the app (a wheel built without the app's files, or a damaged install).
NO_APP = (f"the app's files (app.py and pages/) are not in this install of rskpca (looked in {INSTALLED_APP}): "
          'reinstall it with `pip install --force-reinstall "rskpca[app]"`, or run the app from a source '
          "checkout: `pip install -e \".[app]\"`, then `rskpca app FILE` there.")


def missing_app_packages(names=None) -> list[str]:
    """Those of ``names`` (default :data:`APP_PACKAGES`) that cannot be imported here, found without importing
    them (importing Streamlit takes a second).

    Examples
    --------
    >>> missing_app_packages(["json", "no_such_package_here"])
    ['no_such_package_here']
    """
    missing = []
    for name in APP_PACKAGES if names is None else names:
        try:
            found = importlib.util.find_spec(name) is not None
        except (ImportError, ValueError):  # a finder that refuses the name, or a broken half-import
            found = False
        if not found:
            missing.append(name)
    return missing


def streamlit_command(app: Path, file: Path | None, options: list[str]) -> list[str]:
    """The command that starts the app: ``python -m streamlit run APP [options] [-- FILE]``.

    Examples
    --------
    >>> streamlit_command(Path("/src/app.py"), Path("/data/x.csv"), ["--server.port", "8600"])[1:]
    ['-m', 'streamlit', 'run', '/src/app.py', '--server.port', '8600', '--', '/data/x.csv']
    """
    return ([sys.executable, "-m", "streamlit", "run", str(app), *options]
            + (["--", str(file)] if file is not None else []))


def check_data_file(path: Path) -> None:
    """Refuse, with a :class:`DataError` that says why, a file the app could not use; cheap for large files.

    Missing, not a file, unreadable, empty, or would not fit in memory
    (:func:`~rskpca.data.memory_estimate.check_fits_in_memory`); a file up to :data:`FULL_CHECK_BYTES` is read as
    the app reads it; a larger one has its Parquet metadata, NPY header or leading text rows checked.
    """
    if not path.exists():
        raise DataError(f"{path} does not exist.")
    if not path.is_file():
        raise DataError(f"{path} is not a file.")
    try:
        with open(path, "rb") as fh:
            head = fh.read(HEAD_BYTES)
    except OSError as exc:
        raise DataError(f"{path} cannot be read: {exc.strerror or exc}.") from None
    if not head.strip():
        raise DataError(f"{path} is empty: the app needs a table with a header row and at least two data rows.")
    check_fits_in_memory(path)
    size = path.stat().st_size
    whole = size <= FULL_CHECK_BYTES
    table = read_table(path.read_bytes(), path.name) if whole else read_table_head(path)
    try:
        check_usable(table, path.name)
    except UnusableTableError as exc:
        if whole or exc.kind is not Unusable.TOO_FEW_ROWS:  # a head's few rows say nothing of the file's
            raise


def app_command(args) -> int:
    """Check the app's packages and FILE, then run Streamlit on the app (2 for either missing or a refused file;
    else Streamlit's exit status)."""
    missing = missing_app_packages()
    if missing:
        print(f"rskpca app: error: {NEEDS_APP_EXTRA} (missing here: {', '.join(missing)}).", file=sys.stderr)
        return 2
    app = find_app()
    if app is None:
        print(f"rskpca app: error: {NO_APP}", file=sys.stderr)
        return 2
    file = None
    if args.file is not None:
        file = Path(args.file).expanduser().absolute()
        try:
            check_data_file(file)
        except DataError as exc:
            print(f"rskpca app: error: {' '.join(str(exc).split())}", file=sys.stderr)
            return 2
    # In the app's folder, where its .streamlit/config.toml is read; FILE is absolute already.
    return _run(streamlit_command(app, file, list(args.streamlit_options)), cwd=app.parent)


def _run(command: list[str], cwd: Path) -> int:
    """Run ``command`` in ``cwd`` as this process: on POSIX it replaces this process (exec), so that a
    signal meant for ``rskpca app`` (SIGTERM from a supervisor, Ctrl-C) reaches Streamlit and no server is
    left behind; elsewhere it runs as a child, and its exit status is returned."""
    if _EXEC:
        sys.stdout.flush()
        sys.stderr.flush()
        os.chdir(cwd)
        os.execv(command[0], command)
    try:
        return subprocess.call(command, cwd=cwd)
    except KeyboardInterrupt:  # Ctrl-C reached Streamlit too, which stops on it
        return 130
