"""The data file the app was started with, read once per server process (see :mod:`rskpca.ui.app_file`)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pandas as pd
import streamlit as st

from rskpca.data.input_columns import check_usable
from rskpca.data.memory_estimate import check_fits_in_memory
from rskpca.data.readers import DataError, read_table

__all__ = ["FileTable", "read_app_file"]


@dataclass(frozen=True)
class FileTable:
    """The table read from the file, or why it could not be (the reason is kept: one read per file version)."""

    table: pd.DataFrame | None
    error: str | None


# st.cache_resource, not st.cache_data: one table shared by every session and page (cache_data would
# hand each run a copy of a table that may hold millions of rows). Keyed on the path with the file's
# mtime and size, so a file replaced on disk is read again; one entry, so the old version is let go.
# The table is shared: nothing may modify it (prepare copies what it keeps).
@st.cache_resource(max_entries=1, show_spinner="Reading the data file...")
def read_app_file(path: str, mtime_ns: int, size: int) -> FileTable:
    """The file at ``path`` (as of ``mtime_ns`` and ``size``) read as a table, after checking it fits in memory."""
    file = Path(path)
    try:
        check_fits_in_memory(file)
        table = read_table(file.read_bytes(), file.name)
        check_usable(table, file.name)
    except DataError as exc:
        return FileTable(None, str(exc))
    except (OSError, MemoryError) as exc:
        return FileTable(None, f"Could not read {file}: {type(exc).__name__}: {exc}")
    return FileTable(table, None)
