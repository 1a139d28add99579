"""Reading uploaded files (CSV, TSV, Parquet, NPY) into DataFrames, safely.

The format is decided from the file's leading bytes where they are decisive and
otherwise from its extension; anything that is not a table (an image, an
archive, a pickle, binary garbage) is refused with a :class:`DataError` that says
what the file looks like and what to upload instead. NPY files are read with
``allow_pickle=False``: uploaded bytes are parsed, never executed.
:mod:`rskpca.data.datasets` re-exports :func:`read_table` and :class:`DataError`; whether a file
on disk fits in memory before it is read is :mod:`rskpca.data.memory_estimate`'s.
"""

from __future__ import annotations

import csv
import gzip
import io
from pathlib import Path

import numpy as np
import pandas as pd
from pandas.api.types import is_bool_dtype, is_numeric_dtype

from rskpca.data.file_format import SUPPORTED_FORMATS, FileFormat, foreign_format, sniff_format

__all__ = ["DataError", "MissingValuesError", "read_table", "read_notes", "require_pyarrow", "MAX_DECOMPRESSED_BYTES"]

# A gzip upload may expand to at most this many bytes (guards against zip bombs).
MAX_DECOMPRESSED_BYTES = 1 << 30


class DataError(ValueError):
    """A problem with user data; the message names the problem and what to do about it.

    Examples
    --------
    >>> try:
    ...     read_table(b"", "empty.csv")
    ... except DataError as err:
    ...     print(err)
    empty.csv is empty: upload a file with a header row and at least two data rows.
    """


class MissingValuesError(DataError):
    """Missing values in the columns used: an app can name its own control for dropping those rows."""


def read_table(data: bytes, filename: str) -> pd.DataFrame:
    """Parse an uploaded file into a DataFrame: CSV, TSV, Parquet or NPY.

    The format is taken from the file's leading bytes where they are decisive
    (Parquet, NPY, gzip) and otherwise from the extension; text is decoded as
    UTF-8 (with or without BOM), falling back to Latin-1, and the delimiter of
    CSV/TXT files is sniffed among ``, ; \\t |`` (runs of spaces when none of
    those fits, as ``np.savetxt`` writes). A semicolon file with decimal commas
    (``1,5``) is read as numbers; a file whose first row is all numbers has no
    header and gets columns ``x0, x1, ...``. Other column names are kept
    verbatim (they are user text: show them as text, never as markdown or HTML).

    Parameters
    ----------
    data : bytes
        The file's content.
    filename : str
        The file's name; only its extension is used.

    Returns
    -------
    pandas.DataFrame
        With string column names; NPY arrays and header-less text get
        columns ``x0, x1, ...``. What reading changed or assumed (an encoding
        other than UTF-8, repeated column names renamed) is in
        ``df.attrs["notes"]`` (see :func:`read_notes`), which
        :func:`rskpca.data.datasets.prepare` passes on to the user.

    Raises
    ------
    DataError
        When the bytes are not a readable table (an image, a binary file, an
        empty file, a header without rows, a pickled or 3-D NPY array, ...).

    Examples
    --------
    >>> read_table(b"a;b;label\\n1,5;2;x\\n3;4,25;y\\n", "eu.csv")
         a     b label
    0  1.5   2.0     x
    1  3.0  4.25     y
    """
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise DataError(f"Expected the file's bytes, got {type(data).__name__}.")
    data = bytes(data)
    name = str(filename) if filename else "the file"
    ext = Path(name.lower()).suffixes
    if not data or not data.strip():
        raise DataError(f"{name} is empty: upload a file with a header row and at least two data rows.")
    if sniff_format(data) is FileFormat.GZIP:
        data = _gunzip(data, name)
        ext = [e for e in ext if e != ".gz"]
    notes: list[str] = []
    encoding = _wide_text_encoding(data)
    if encoding is not None:  # UTF-16/32 text has NUL bytes: read it as text, not refuse it as binary
        data = _decode_wide(data, name, encoding)
        notes.append(f"{name} is {encoding.upper()} text; it was read as such.")
    kind = _sniff_kind(data, name, ext[-1] if ext else "")
    if kind == "npy":
        df = _read_npy(data, name)
    elif kind == "parquet":
        df = _read_parquet(data, name)
    else:
        df = _read_text(data, name, sep="\t" if kind == "tsv" else None, notes=notes)
    if df.shape[1] == 0:
        raise DataError(f"{name} has no columns: upload a table with at least one numeric column.")
    if df.shape[0] == 0:
        raise DataError(f"{name} has a header ({df.shape[1]} column(s)) but no data rows.")
    df.columns = [str(c) for c in df.columns]
    df.attrs["notes"] = tuple(notes)
    return df


def read_notes(df: pd.DataFrame) -> tuple[str, ...]:
    """What :func:`read_table` changed or assumed while reading ``df`` (empty for other tables).

    Examples
    --------
    >>> read_notes(read_table(b"a,a,b\\n1,2,3\\n4,5,6\\n", "dup.csv"))
    ("Repeated column names in dup.csv were renamed to keep them apart: 'a' -> 'a', 'a.1'.",)
    """
    return tuple(df.attrs.get("notes", ()))


# Byte order marks of the wide Unicode encodings (UTF-32 first: its LE mark starts with UTF-16's).
_WIDE_BOMS = [(b"\xff\xfe\x00\x00", "utf-32"), (b"\x00\x00\xfe\xff", "utf-32"),
              (b"\xff\xfe", "utf-16"), (b"\xfe\xff", "utf-16")]


def _wide_text_encoding(data: bytes) -> str | None:
    """'utf-16'/'utf-32' (with a BOM), 'utf-16-le'/'utf-16-be' (NUL in every other byte of ASCII text), or None."""
    for bom, encoding in _WIDE_BOMS:
        if data.startswith(bom):
            return encoding
    head = data[:4096]
    if len(head) >= 4 and len(head) % 2 == 0:
        even, odd = head[0::2], head[1::2]
        # ASCII text in UTF-16: one byte of every pair is NUL, the other printable.
        if odd.count(0) == len(odd) and even.count(0) == 0:
            return "utf-16-le"
        if even.count(0) == len(even) and odd.count(0) == 0:
            return "utf-16-be"
    return None


def _decode_wide(data: bytes, name: str, encoding: str) -> bytes:
    try:
        return data.decode(encoding).lstrip("\ufeff").encode("utf-8")
    except UnicodeDecodeError:
        raise DataError(f"{name} starts like {encoding.upper()} text but does not decode as it; save it as "
                        "UTF-8 CSV (in Excel: CSV UTF-8) and upload it again.") from None


def _gunzip(data: bytes, name: str) -> bytes:
    try:
        with gzip.GzipFile(fileobj=io.BytesIO(data)) as fh:
            out = fh.read(MAX_DECOMPRESSED_BYTES + 1)
    except (OSError, EOFError) as exc:
        raise DataError(f"{name} looks gzip-compressed but cannot be decompressed ({exc}).") from None
    if len(out) > MAX_DECOMPRESSED_BYTES:
        raise DataError(f"{name} expands to more than {MAX_DECOMPRESSED_BYTES >> 20} MB; upload a smaller file.")
    if not out.strip():
        raise DataError(f"{name} is empty after decompression.")
    return out


def _sniff_kind(data: bytes, name: str, ext: str) -> str:
    """'npy', 'parquet', 'tsv' or 'csv', from the magic bytes first, then the extension."""
    sniffed = sniff_format(data)
    if sniffed in (FileFormat.NPY, FileFormat.PARQUET):
        return sniffed.value
    if sniffed is FileFormat.FOREIGN:
        raise DataError(f"{name} looks like {foreign_format(data)}, not a table. Upload {SUPPORTED_FORMATS}.")
    if ext == ".npy":
        raise DataError(f"{name} has the .npy extension but is not a NumPy array file (no NPY header).")
    if ext in (".parquet", ".pq"):
        raise DataError(f"{name} has a Parquet extension but is not a Parquet file (no PAR1 header).")
    if ext in (".xlsx", ".xls", ".json", ".npz", ".pkl", ".pickle", ".h5", ".hdf5", ".feather"):
        raise DataError(f"{name}: {ext} files are not supported. Upload {SUPPORTED_FORMATS}.")
    head = data[:8192]
    # Text tables have no NUL bytes and few control characters; binary files have many.
    controls = sum(b < 32 and b not in (9, 10, 13) for b in head)
    if b"\x00" in head or controls > len(head) // 100:
        raise DataError(f"{name} is a binary file, not a text table. Upload {SUPPORTED_FORMATS}.")
    return "tsv" if ext in (".tsv", ".tab") else "csv"


def _read_npy(data: bytes, name: str) -> pd.DataFrame:
    try:
        # allow_pickle=False: an object array would otherwise run arbitrary code on load.
        arr = np.load(io.BytesIO(data), allow_pickle=False)
    except ValueError as exc:
        if "pickle" in str(exc).lower() or "object" in str(exc).lower():
            raise DataError(f"{name} holds Python objects (a pickled array), which are never loaded "
                            "for safety. Save a numeric array: np.save(path, X.astype(float)).") from None
        raise DataError(f"{name} is not a readable NPY array ({exc}).") from None
    except (OSError, EOFError) as exc:
        raise DataError(f"{name} is not a readable NPY array ({exc}); it may be truncated.") from None
    if arr.ndim not in (1, 2):
        raise DataError(f"{name} holds a {arr.ndim}-D array of shape {arr.shape}; a table needs a 2-D "
                        "array (rows x features). Flatten it first, e.g. X.reshape(len(X), -1).")
    if arr.dtype.names:  # a structured (record) array: one column per field
        if arr.ndim != 1:
            raise DataError(f"{name} holds a 2-D record array; save a 1-D record array or a plain 2-D array.")
        return pd.DataFrame({f: arr[f] for f in arr.dtype.names})
    if arr.dtype.kind not in "biuf":
        raise DataError(f"{name} holds values of type {arr.dtype}; a numeric (int or float) array is needed.")
    if arr.ndim == 1:
        arr = arr.reshape(-1, 1)
    return pd.DataFrame(arr, columns=[f"x{j}" for j in range(arr.shape[1])])


def require_pyarrow(what: str) -> None:
    """Raise a :class:`DataError` that says which extra to install when pyarrow, the Parquet engine, is missing.

    ``pip install rskpca`` leaves it out (the app's extra brings it); ``what`` names what needs it.
    """
    try:
        import pyarrow  # noqa: F401
    except ImportError:
        raise DataError(f'{what} needs pyarrow, which `pip install rskpca` leaves out: install it with '
                        '`pip install "rskpca[parquet]"` (the app\'s extra, rskpca[app], includes it), '
                        'or use CSV or NPY.') from None


def _read_parquet(data: bytes, name: str) -> pd.DataFrame:
    require_pyarrow(f"{name} is a Parquet file: reading it")
    try:
        return pd.read_parquet(io.BytesIO(data))
    except Exception:  # pyarrow raises many types (ArrowInvalid, OSError, ...), in its own words
        raise DataError(f"{name} could not be read as Parquet: the file is incomplete (cut off while saving, "
                        "copying or uploading) or is not a Parquet file. Upload the complete file, or save the "
                        "table again (DataFrame.to_parquet) or as CSV.") from None


def _decode(data: bytes, name: str) -> str:
    for encoding in ("utf-8-sig", "latin-1"):
        try:
            return data.decode(encoding)
        except UnicodeDecodeError:
            continue
    raise DataError(f"{name} is not UTF-8 or Latin-1 text.")  # unreachable: Latin-1 decodes any bytes


def _read_text(data: bytes, name: str, sep: str | None, notes: list[str]) -> pd.DataFrame:
    text = _decode(data, name)
    lines = [line for line in text.splitlines()[:50] if line.strip()]
    if sep is None:
        try:
            sep = csv.Sniffer().sniff("\n".join(lines), delimiters=",;\t|").delimiter
        except csv.Error:  # one column, or too irregular to tell
            sep = ","
        # np.savetxt and many instruments separate fields by runs of spaces.
        widths = {len(line.split()) for line in lines}
        if sep == "," and not any("," in line for line in lines) and len(widths) == 1 and widths != {1}:
            sep = r"\s+"
    _check_looks_numeric(lines, sep, name)
    df = _parse(text, name, sep, header=0)
    if _header_is_data(df.columns):  # no header row: the first row holds numbers, keep it as data
        df = _parse(text, name, sep, header=None)
        df.columns = [f"x{j}" for j in range(df.shape[1])]
    else:
        notes.extend(_renamed_duplicates(text, sep, df.columns, name))
    if sep == ";":  # European CSV: ';' between fields, ',' as the decimal mark
        df = _decimal_commas(df)
    return df


# Cells that pandas reads as missing: neither numbers nor text when judging what a file holds.
_MISSING_WORDS = frozenset({"", "na", "n/a", "nan", "null", "none", "-nan", "#n/a", "<na>", "-", "?"})


def _is_number(cell: str) -> bool:
    try:
        float(cell.replace(",", "."))
    except ValueError:
        return False
    return True


def _check_looks_numeric(lines: list[str], sep: str, name: str) -> None:
    """Refuse text that is not delimited numbers (prose, a list of words) before any column check.

    Judged on the sampled lines split at the chosen delimiter. A file is refused when fewer
    than half of its data cells (the rows after a header, missing-value words left out) are
    numbers, and it either has a single column or its rows have different numbers of fields:
    in prose the "delimiter" is the comma of a sentence. So a one-column file of numbers, a
    CSV with a header and a table with a few text columns or stray cells are all read; a
    consistent table of text goes on to the column checks, which name its columns.
    """
    if sep == r"\s+":
        rows = [line.split() for line in lines]
    else:
        rows = list(csv.reader(lines, delimiter=sep, skipinitialspace=True))
    rows = [row for row in rows if row]
    if not rows:
        return
    widths = [len(row) for row in rows]
    one_column, ragged = max(widths) == 1, len(set(widths)) > 1
    if not (one_column or ragged):
        return
    data = rows if all(_is_number(c.strip()) for c in rows[0]) else rows[1:]
    cells = [c.strip() for row in data for c in row if c.strip().lower() not in _MISSING_WORDS]
    if not cells:
        return  # a header alone: said by the reader's own checks
    numbers = sum(_is_number(c) for c in cells)
    if numbers >= 0.5 * len(cells):
        return
    where = "tabs" if sep == "\t" else "runs of spaces" if sep == r"\s+" else repr(sep)
    shape = "it has a single column" if one_column else \
        f"its lines split at {where} into {min(widths)} to {max(widths)} fields"
    first = lines[0].strip()
    first = first if len(first) <= 40 else first[:37] + "..."
    raise DataError(f"{name} does not look like a table of numbers: {shape}, and {numbers} of its {len(cells)} "
                    f"values are numbers (it starts {first!r}). Upload {SUPPORTED_FORMATS}: a header row, then one "
                    "row of numbers per sample, with the same delimiter between every field.")


def _parse(text: str, name: str, sep: str, header) -> pd.DataFrame:
    try:
        return pd.read_csv(io.StringIO(text), sep=sep, header=header,
                           skipinitialspace=sep != r"\s+", engine="python" if sep == r"\s+" else "c")
    except pd.errors.EmptyDataError:
        raise DataError(f"{name} is empty: upload a file with a header row and data rows.") from None
    except (pd.errors.ParserError, ValueError) as exc:
        raise DataError(f"{name} could not be read as a table ({exc}). Check that every row has "
                        "the same number of fields as the header.") from None


def _renamed_duplicates(text: str, sep: str, columns, name: str) -> list[str]:
    """A note when pandas renamed repeated header names (``a``, ``a`` -> ``a``, ``a.1``)."""
    header = pd.read_csv(io.StringIO(text), sep=sep, header=None, nrows=1, dtype=str,
                         skipinitialspace=sep != r"\s+", engine="python" if sep == r"\s+" else "c")
    raw = [str(c) for c in header.iloc[0].tolist()] if len(header) else []
    if len(raw) != len(columns) or len(set(raw)) == len(raw):
        return []
    renamed = {}
    for original, new in zip(raw, (str(c) for c in columns)):
        if raw.count(original) > 1:
            renamed.setdefault(original, []).append(new)
    parts = "; ".join(f"{k!r} -> {', '.join(repr(v) for v in vs)}" for k, vs in renamed.items())
    return [f"Repeated column names in {name} were renamed to keep them apart: {parts}."]


def _header_is_data(columns) -> bool:
    """True when every column name reads as a number, i.e. the file has no header row."""
    for c in columns:
        try:
            float(str(c).replace(",", "."))
        except ValueError:
            return False
    return len(columns) > 0


def _decimal_commas(df: pd.DataFrame) -> pd.DataFrame:
    """Turn text columns such as ``"1,5"`` into numbers when every value parses that way."""
    out = df.copy()
    for col in df.columns:
        if is_numeric_dtype(df[col]) or is_bool_dtype(df[col]):
            continue
        values = df[col].dropna().astype(str)
        if values.empty or not values.str.contains(",", regex=False).any():
            continue
        converted = pd.to_numeric(values.str.replace(",", ".", regex=False), errors="coerce")
        if converted.notna().all():
            out[col] = pd.to_numeric(df[col].astype("string").str.replace(",", ".", regex=False))
    return out
