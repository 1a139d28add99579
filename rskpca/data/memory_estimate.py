"""Will a file on disk fit in memory? Asked before reading it all.

:func:`memory_to_read` estimates, without reading the table, about the most memory
:func:`rskpca.data.readers.read_table` takes to read a file (from a Parquet file's metadata, an NPY
header, a gzip trailer or the file's size); :func:`available_memory` says how much this process can
still take; :func:`check_fits_in_memory` refuses a file that would not fit, with a
:class:`~rskpca.data.readers.DataError` that says what to do.
"""

from __future__ import annotations

import os
import struct
from pathlib import Path

import numpy as np

from rskpca.data.file_format import MAGIC_BYTES, FileFormat, sniff_format
from rskpca.data.readers import MAX_DECOMPRESSED_BYTES, DataError

__all__ = ["memory_to_read", "available_memory", "check_fits_in_memory"]

# Peak memory of read_table over the table's size, a measured peak with a margin: text holds its bytes, the
# decoded text and pandas' parse of it at once; Parquet the file plus its uncompressed columns and their
# conversion; NPY the file's bytes and the array (the runs: tests/benchmarks/RESULTS.md, *Thresholds in the code*).
_TEXT_FACTOR = 7.5
_PARQUET_FACTOR = 3.0
_NPY_FACTOR = 3.2


def memory_to_read(path) -> tuple[int, str]:
    """``(bytes, how)``: about the most memory :func:`read_table` takes to read the file at ``path``.

    Estimated without reading the table: from a Parquet file's metadata (its uncompressed size),
    an NPY file's header (shape and dtype), a gzip file's stored length, or a text file's size.

    Examples
    --------
    >>> import tempfile, numpy as np
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     np.save(f"{tmp}/x.npy", np.zeros((1000, 10)))
    ...     print(memory_to_read(f"{tmp}/x.npy")[1])
    an NPY array of 80.0 kB, about 3.2 times that
    """
    path = Path(path)
    size = path.stat().st_size
    with open(path, "rb") as fh:
        sniffed = sniff_format(fh.read(MAGIC_BYTES))
        if sniffed is FileFormat.PARQUET:
            try:
                import pyarrow.parquet as pq

                meta = pq.read_metadata(path)
                columns = sum(meta.row_group(i).total_byte_size for i in range(meta.num_row_groups))
            except Exception:  # unreadable metadata: read_table says why; estimate from the file's size
                columns = 3 * size
            return int(size + _PARQUET_FACTOR * columns), (f"a Parquet file of {_size(size)} holding "
                                                           f"{_size(columns)} of columns")
        if sniffed is FileFormat.NPY:
            fh.seek(0)
            try:
                version = np.lib.format.read_magic(fh)
                read_header = (np.lib.format.read_array_header_1_0 if version == (1, 0)
                               else np.lib.format.read_array_header_2_0)
                shape, _, dtype = read_header(fh)
                array = int(np.prod(shape, dtype=np.float64) * dtype.itemsize)
            except (ValueError, OSError, EOFError):
                array = size
            return int(_NPY_FACTOR * array), f"an NPY array of {_size(array)}, about {_NPY_FACTOR:g} times that"
        text = size
        if sniffed is FileFormat.GZIP:
            fh.seek(-4, os.SEEK_END)  # ISIZE: the uncompressed length modulo 2**32 (RFC 1952)
            stored = struct.unpack("<I", fh.read(4))[0]
            text = min(MAX_DECOMPRESSED_BYTES, max(stored, size))
            return int(size + text + _TEXT_FACTOR * text), (f"a gzip file of {_size(size)} expanding to about "
                                                            f"{_size(text)} of text")
    return int(_TEXT_FACTOR * text), f"a text file of {_size(size)}, about {_TEXT_FACTOR:g} times that"


def available_memory() -> int | None:
    """Bytes of memory this process can still take (None when unknown): the machine's available memory
    (``MemAvailable``, or psutil's, or free pages), less where a container (cgroup v2) caps it lower."""
    found = None
    try:
        with open("/proc/meminfo") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    found = int(line.split()[1]) * 1024
                    break
    except OSError:
        pass
    if found is None:
        try:
            import psutil

            found = int(psutil.virtual_memory().available)
        except Exception:  # not installed, or no answer on this platform
            try:
                found = os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
            except (ValueError, OSError, AttributeError):
                found = None
    try:
        limit = Path("/sys/fs/cgroup/memory.max").read_text().strip()
        used = int(Path("/sys/fs/cgroup/memory.current").read_text().strip())
        if limit != "max":
            left = int(limit) - used
            found = left if found is None else min(found, left)
    except (OSError, ValueError):
        pass
    return found


def check_fits_in_memory(path, available: int | None = None) -> int:
    """Raise :class:`DataError` when reading the file at ``path`` would take more memory than is available.

    ``available`` defaults to :func:`available_memory` (no check when that is unknown). Returns the
    estimate of :func:`memory_to_read`, in bytes.

    Examples
    --------
    >>> import tempfile, numpy as np
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     np.save(f"{tmp}/x.npy", np.zeros((1000, 10)))
    ...     check_fits_in_memory(f"{tmp}/x.npy", available=100_000)
    Traceback (most recent call last):
    ...
    rskpca.data.readers.DataError: x.npy would not fit in memory: reading it takes about 256.0 kB (an NPY array of 80.0 kB, about 3.2 times that), and 100.0 kB is available. Use fewer rows or columns (a seeded sample of the rows), store it as Parquet or NPY (read with less memory than text), or free memory.
    """
    needed, how = memory_to_read(path)
    available = available_memory() if available is None else available
    if available is not None and needed > available:
        raise DataError(f"{Path(path).name} would not fit in memory: reading it takes about {_size(needed)} ({how}), "
                        f"and {_size(available)} is available. Use fewer rows or columns (a seeded sample of the "
                        "rows), store it as Parquet or NPY (read with less memory than text), or free memory.")
    return needed


def _size(nbytes: float) -> str:
    for unit in ("bytes", "kB", "MB", "GB"):
        if nbytes < 1000 or unit == "GB":
            return f"{nbytes:.0f} {unit}" if unit == "bytes" else f"{nbytes:.1f} {unit}"
        nbytes /= 1000
    return f"{nbytes:.1f} TB"  # pragma: no cover
