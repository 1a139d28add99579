"""The data file the app was started with: ``rskpca app FILE`` or ``streamlit run app.py -- FILE``.

Streamlit hands what follows ``--`` on its command line to the script as ``sys.argv[1:]``; the
arguments belong to the server process, so every page and every session sees the same file. It is
read on the server (no upload, so no upload size limit) once per server process, shared by all
sessions and pages (:func:`rskpca.ui.compute.app_file.read_app_file`), after a check that it fits in
memory. It is offered in the sidebar beside the samples and the upload, under the source key
:data:`FILE`, and is the data in use when a session starts (:func:`default_source`).
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from rskpca.data.readers import DataError
from rskpca.ui.compute.app_file import read_app_file

__all__ = ["FILE", "AppFile", "app_file", "file_table", "file_title", "file_key"]

#: The source key of the file the app was started with (sample names and the upload are the others).
FILE = "__file__"


@dataclass(frozen=True)
class AppFile:
    """The file named on the command line, as given (relative to where the server started) and resolved."""

    given: str
    path: Path

    @property
    def name(self) -> str:
        return self.path.name


def _script_args() -> list[str]:
    """This app's command-line arguments: ``sys.argv[1:]`` when ``sys.argv[0]`` is the script Streamlit runs.

    Under ``streamlit run`` Streamlit sets ``sys.argv = [main script, *args]``; elsewhere (AppTest under
    pytest, say) ``sys.argv`` is another program's, whose arguments are no data file.
    """
    from streamlit.runtime.scriptrunner import get_script_run_ctx

    ctx = get_script_run_ctx()
    main = getattr(ctx, "main_script_path", None)
    if not main or not sys.argv:
        return []
    try:
        ours = Path(sys.argv[0]).resolve() == Path(main).resolve()
    except OSError:
        return []
    return list(sys.argv[1:]) if ours else []


def app_file() -> AppFile | None:
    """The data file the app was started with, or None."""
    args = _script_args()
    if args[:1] == ["--"]:
        args = args[1:]
    if not args or not args[0]:
        return None
    return AppFile(args[0], Path(args[0]).expanduser().absolute())


def file_table(file: AppFile) -> pd.DataFrame:
    """The file's table, read once per version of the file (:class:`DataError` when it cannot be used)."""
    try:
        stat = file.path.stat()
    except OSError as exc:
        raise DataError(f"The file the app was started with, {file.given}, cannot be read: "
                        f"{exc.strerror or exc}.") from None
    if not file.path.is_file():
        raise DataError(f"The app was started with {file.given}, which is not a file.")
    read = read_app_file(str(file.path), stat.st_mtime_ns, stat.st_size)
    if read.error is not None:
        raise DataError(read.error)
    return read.table


def file_key(file: AppFile | None) -> str:
    """The table's key (what caches and row numbers refer to): the path, with the version of the file."""
    if file is None:
        return "file:"
    try:
        stat = file.path.stat()
    except OSError:
        return f"file:{file.path}"
    return f"file:{file.path}:{stat.st_mtime_ns}:{stat.st_size}"


def file_title(file: AppFile | None) -> str:
    """The file's name as a data source (user text: show it as text, never as markdown)."""
    return f"File {file.name}" if file else "The file the app was started with"
