"""The leading rows of a table file on disk, read without reading the whole file.

A file too large to read in full before a server starts (``rskpca app FILE``) is still checked: its
Parquet metadata and first row group, its NPY header and first rows (memory-mapped), or its first
complete lines of text (gunzipped if need be) are read as :func:`~rskpca.data.readers.read_table` reads
them, so the same formats are refused with the same messages.
"""

from __future__ import annotations

import io
import zlib
from pathlib import Path

import numpy as np
import pandas as pd

from rskpca.data.file_format import FileFormat, sniff_format
from rskpca.data.readers import DataError, read_table, require_pyarrow

__all__ = ["read_table_head", "HEAD_BYTES", "HEAD_ROWS"]

#: Bytes of a text file read (before decompression, and at most that many after it).
HEAD_BYTES = 1 << 16
#: Rows of a Parquet or NPY file read.
HEAD_ROWS = 100


def read_table_head(path) -> pd.DataFrame:
    """The first rows of the table in the file at ``path`` (:class:`DataError` when it is none).

    Text yields its complete lines among the first :data:`HEAD_BYTES`; Parquet and NPY their first
    :data:`HEAD_ROWS` rows. Fewer rows than the file holds: a check of the head must not count rows.

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     np.save(f"{tmp}/x.npy", np.arange(1000.0).reshape(500, 2))
    ...     read_table_head(f"{tmp}/x.npy").shape
    (100, 2)
    """
    path = Path(path)
    with open(path, "rb") as fh:
        head = fh.read(HEAD_BYTES)
    sniffed = sniff_format(head)
    if sniffed is FileFormat.PARQUET:
        return _parquet_head(path)
    if sniffed is FileFormat.NPY:
        return _npy_head(path)
    if sniffed is FileFormat.GZIP:
        try:
            head = zlib.decompressobj(wbits=31).decompress(head, HEAD_BYTES)
        except zlib.error as exc:
            raise DataError(f"{path.name} looks gzip-compressed but cannot be decompressed ({exc}).") from None
    cut = head.rfind(b"\n")
    return read_table(head[:cut + 1] if cut > 0 else head, path.name.removesuffix(".gz"))


def _parquet_head(path: Path) -> pd.DataFrame:
    require_pyarrow(f"{path.name} is a Parquet file: reading it")
    import pyarrow.parquet as pq

    try:
        pf = pq.ParquetFile(path)
        rows = pf.metadata.num_rows
        table = pf.read_row_group(0).slice(0, HEAD_ROWS).to_pandas() if rows else None
    except Exception:  # pyarrow's own error types
        raise DataError(f"{path.name} could not be read as Parquet: the file is incomplete or is not a Parquet "
                        "file. Save the table again (DataFrame.to_parquet) or as CSV.") from None
    if table is None:
        raise DataError(f"{path.name} has no data rows.")
    return table


def _npy_head(path: Path) -> pd.DataFrame:
    try:
        arr = np.load(path, mmap_mode="r", allow_pickle=False)
    except ValueError as exc:
        raise DataError(f"{path.name} is not a numeric NPY array ({exc}); save one with np.save(path, "
                        "X.astype(float)).") from None
    except (OSError, EOFError) as exc:
        raise DataError(f"{path.name} is not a readable NPY array ({exc}); it may be truncated.") from None
    if arr.ndim not in (1, 2):  # said here: the head's shape would not be the file's
        raise DataError(f"{path.name} holds a {arr.ndim}-D array of shape {arr.shape}; a table needs a 2-D "
                        "array (rows x features).")
    buf = io.BytesIO()
    np.save(buf, np.ascontiguousarray(arr[:HEAD_ROWS]))
    return read_table(buf.getvalue(), path.name)
