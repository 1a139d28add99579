"""What a data file is, from its leading bytes: the one place that knows the formats' magic numbers.

:func:`sniff_format` is asked by the reader (:func:`rskpca.data.readers.read_table`), by the memory
estimate made before reading (:mod:`rskpca.data.memory_estimate`) and by the check of a large file's
leading rows (:mod:`rskpca.data.table_head`). Pure: it refuses nothing; the reader says what to do.
"""

from __future__ import annotations

import enum

__all__ = ["FileFormat", "sniff_format", "foreign_format", "SUPPORTED_FORMATS", "MAGIC_BYTES"]

#: What the readers read, as said to a user whose file is something else.
SUPPORTED_FORMATS = "CSV, TSV, Parquet or NPY (CSV/TSV may be gzip-compressed)"

#: Enough leading bytes to tell every format below apart.
MAGIC_BYTES = 8


class FileFormat(enum.Enum):
    """A file's format as its leading bytes say (magic numbers), before any parsing.

    ``TEXT`` means none of the magic numbers matched: a text table, or a binary file that the reader
    refuses from its content (NUL bytes, control characters). ``FOREIGN`` is a known format that is no
    table (an image, an archive, a pickle...): :func:`foreign_format` names it.
    """

    NPY = "npy"
    PARQUET = "parquet"
    GZIP = "gzip"
    FOREIGN = "foreign"
    TEXT = "text"


_NPY_MAGIC = b"\x93NUMPY"
_PARQUET_MAGIC = b"PAR1"
_GZIP_MAGIC = b"\x1f\x8b"
# Leading bytes of formats people upload by mistake, with what to tell them.
_FOREIGN_MAGIC = [
    (b"\x89PNG", "a PNG image"),
    (b"\xff\xd8\xff", "a JPEG image"),
    (b"GIF8", "a GIF image"),
    (b"%PDF", "a PDF document"),
    (b"PK\x03\x04", "a ZIP archive (an Excel .xlsx workbook is one)"),
    (b"\xd0\xcf\x11\xe0", "an old Office document (.xls/.doc)"),
    (b"\x7fELF", "an executable program"),
    # Pickle protocols 2-5 start with PROTO and the version; loading one would run code from it.
    (b"\x80\x02", "a Python pickle"),
    (b"\x80\x03", "a Python pickle"),
    (b"\x80\x04", "a Python pickle"),
    (b"\x80\x05", "a Python pickle"),
]


def sniff_format(head: bytes) -> FileFormat:
    """The format a file's leading bytes (``head``, at least :data:`MAGIC_BYTES` of them) say it has.

    Examples
    --------
    >>> sniff_format(b"PAR1\\x15\\x04"), sniff_format(b"\\x93NUMPY\\x01\\x00"), sniff_format(b"a,b\\n1,2\\n")
    (<FileFormat.PARQUET: 'parquet'>, <FileFormat.NPY: 'npy'>, <FileFormat.TEXT: 'text'>)
    >>> sniff_format(b"\\x1f\\x8b\\x08\\x00"), sniff_format(b"\\x89PNG\\r\\n")
    (<FileFormat.GZIP: 'gzip'>, <FileFormat.FOREIGN: 'foreign'>)
    """
    head = bytes(head[:MAGIC_BYTES])
    if head.startswith(_NPY_MAGIC):
        return FileFormat.NPY
    if head.startswith(_PARQUET_MAGIC):
        return FileFormat.PARQUET
    if head.startswith(_GZIP_MAGIC):
        return FileFormat.GZIP
    if foreign_format(head) is not None:
        return FileFormat.FOREIGN
    return FileFormat.TEXT


def foreign_format(head: bytes) -> str | None:
    """What a :attr:`FileFormat.FOREIGN` file is, in words (None for any other file).

    Examples
    --------
    >>> foreign_format(b"PK\\x03\\x04\\x14\\x00")
    'a ZIP archive (an Excel .xlsx workbook is one)'
    """
    for magic, what in _FOREIGN_MAGIC:
        if head.startswith(magic):
            return what
    return None

