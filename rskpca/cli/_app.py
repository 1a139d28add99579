"""``rskpca app [FILE] [streamlit options]``: the app, with FILE read on the server as the data in use.

Runs ``python -m streamlit run <app.py> [streamlit options] -- FILE`` in the app's folder (where its
``.streamlit/config.toml`` is read); the app reads FILE itself (:mod:`rskpca.ui.app_file`), so
``streamlit run app.py -- FILE`` does the same. Before Streamlit starts, FILE is checked here: a
missing, unreadable or foreign file, or one that would not fit in memory, is refused with exit status 2.

The app is ``app.py`` with ``pages/`` beside the package, as in a source checkout (README: ``pip install
-e .``). A wheel holds the library only (``rskpca*``); moving the app into the package would move
``pages/``, whose place Streamlit's page discovery and the product fix. Without the app's files, the
command says where to get them and what to run instead.
"""

from __future__ import annotations

import argparse
import io
import os
import subprocess
import sys
import zlib
from pathlib import Path

import numpy as np

import rskpca
from rskpca.data.input_columns import unusable_reason
from rskpca.data.memory_estimate import check_fits_in_memory
from rskpca.data.readers import DataError, read_table

__all__ = ["add_app_parser", "app_command", "find_app", "split_app_args", "streamlit_command", "check_data_file",
           "FULL_CHECK_BYTES"]

#: Files up to this size are read in full before Streamlit starts (under a second); larger ones have their
#: leading rows (text), metadata (Parquet) or header (NPY) checked, and are read once, by the server.
FULL_CHECK_BYTES = 16 << 20
_HEAD_BYTES = 1 << 16
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
    """``app.py`` of the RSKPCA app (with ``pages/`` beside it): beside the package, as in a source checkout
    or an editable install, else in the current folder; None when neither holds it."""
    places = search if search is not None else (Path(rskpca.__file__).resolve().parent.parent, Path.cwd())
    for folder in places:
        app = Path(folder) / "app.py"
        if app.is_file() and (Path(folder) / "pages").is_dir() and "rskpca.ui" in app.read_text(errors="replace"):
            return app
    return None


#: What to do when the app's files are not installed (a wheel holds the library only).
NO_APP = ("the app's files (app.py and pages/) are not installed: a wheel of rskpca holds the library only. "
          "Get the source (the folder with app.py, pages/ and pyproject.toml), install it with `pip install -e .` "
          "and run `rskpca app FILE` (or, in that folder, `streamlit run app.py -- FILE`).")


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
            head = fh.read(_HEAD_BYTES)
    except OSError as exc:
        raise DataError(f"{path} cannot be read: {exc.strerror or exc}.") from None
    if not head.strip():
        raise DataError(f"{path} is empty: the app needs a table with a header row and at least two data rows.")
    check_fits_in_memory(path)
    size = path.stat().st_size
    if size <= FULL_CHECK_BYTES:
        table = read_table(path.read_bytes(), path.name)
    elif head.startswith(b"PAR1"):
        table = _parquet_head(path)
    elif head.startswith(b"\x93NUMPY"):
        table = _npy_head(path)
    else:
        table = read_table(_text_head(head, path), path.name.removesuffix(".gz"))
    reason = unusable_reason(table)
    if reason and not (size > FULL_CHECK_BYTES and reason.startswith("it has")):  # (a head may hold one row)
        raise DataError(f"{path.name} cannot be used: {reason}")


def _parquet_head(path: Path):
    try:
        import pyarrow.parquet as pq

        pf = pq.ParquetFile(path)
        if pf.metadata.num_rows == 0:
            raise DataError(f"{path.name} has no data rows.")
        return pf.read_row_group(0).slice(0, 100).to_pandas()
    except DataError:
        raise
    except Exception:  # pyarrow's own error types
        raise DataError(f"{path.name} could not be read as Parquet: the file is incomplete or is not a Parquet "
                        "file. Save the table again (DataFrame.to_parquet) or as CSV.") from None


def _npy_head(path: Path):
    try:
        arr = np.load(path, mmap_mode="r", allow_pickle=False)
    except ValueError as exc:
        raise DataError(f"{path.name} is not a numeric NPY array ({exc}); save one with np.save(path, "
                        "X.astype(float)).") from None
    except (OSError, EOFError) as exc:
        raise DataError(f"{path.name} is not a readable NPY array ({exc}); it may be truncated.") from None
    if arr.ndim not in (1, 2):
        raise DataError(f"{path.name} holds a {arr.ndim}-D array of shape {arr.shape}; the app needs a 2-D array "
                        "(rows x features).")
    buf = io.BytesIO()
    np.save(buf, np.ascontiguousarray(arr[:100]))
    return read_table(buf.getvalue(), path.name)


def _text_head(head: bytes, path: Path) -> bytes:
    """The leading complete lines of a text file (decompressed first if it is gzip)."""
    if head.startswith(b"\x1f\x8b"):
        try:
            head = zlib.decompressobj(wbits=31).decompress(head, _HEAD_BYTES)
        except zlib.error as exc:
            raise DataError(f"{path.name} looks gzip-compressed but cannot be decompressed ({exc}).") from None
    cut = head.rfind(b"\n")
    return head[:cut + 1] if cut > 0 else head


def app_command(args) -> int:
    """Check FILE, then run Streamlit on the app (2 for a refused file; else Streamlit's exit status)."""
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
