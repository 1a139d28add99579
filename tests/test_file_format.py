"""One home for file sniffing (rskpca.data.file_format), the leading rows of a large file
(rskpca.data.table_head), the kind of unusable table (rskpca.data.input_columns.check_usable), and the
message that names the extra when pyarrow is missing."""

from __future__ import annotations

import gzip
import io
import re
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from rskpca.data.file_format import FileFormat, foreign_format, sniff_format
from rskpca.data.input_columns import Unusable, UnusableTableError, check_usable
from rskpca.data.memory_estimate import memory_to_read
from rskpca.data.readers import DataError, read_table
from rskpca.data.table_head import HEAD_ROWS, read_table_head

PACKAGE = Path(__file__).resolve().parent.parent / "rskpca"


def _table(n=500) -> pd.DataFrame:
    rng = np.random.default_rng(0)
    return pd.DataFrame({"a": rng.normal(size=n), "b": rng.normal(size=n)})


def _file_bytes(kind: str) -> bytes:
    df = _table()
    buf = io.BytesIO()
    if kind == "parquet":
        df.to_parquet(buf)
    elif kind == "npy":
        np.save(buf, df.to_numpy())
    elif kind == "gzip":
        return gzip.compress(df.to_csv(index=False).encode())
    else:
        return df.to_csv(index=False).encode()
    return buf.getvalue()


@pytest.mark.parametrize("kind, expected", [("parquet", FileFormat.PARQUET), ("npy", FileFormat.NPY),
                                            ("gzip", FileFormat.GZIP), ("csv", FileFormat.TEXT)])
def test_every_reader_sees_the_same_format(tmp_path, kind, expected):
    data = _file_bytes(kind)
    assert sniff_format(data) is expected
    path = tmp_path / f"t.{kind}"
    path.write_bytes(data)
    how = memory_to_read(path)[1]  # the estimate before reading asks the same function
    assert how.startswith({"parquet": "a Parquet", "npy": "an NPY", "gzip": "a gzip", "csv": "a text"}[kind])
    whole = read_table(data, path.name)
    head = read_table_head(path)
    assert list(head.columns) == list(whole.columns) == (["x0", "x1"] if kind == "npy" else ["a", "b"])
    assert 2 <= len(head) <= len(whole)
    if kind in ("parquet", "npy"):
        assert len(head) == HEAD_ROWS
    np.testing.assert_allclose(head.to_numpy(), whole.to_numpy()[:len(head)], rtol=1e-12)


@pytest.mark.parametrize("head, what", [
    (b"\x89PNG\r\n\x1a\n", "a PNG image"),
    (b"PK\x03\x04\x14\x00", "a ZIP archive"),
    (b"\x80\x04\x95\x10\x00", "a Python pickle"),
])
def test_foreign_files_are_sniffed_once_and_refused_by_the_reader_and_the_head(tmp_path, head, what):
    assert sniff_format(head) is FileFormat.FOREIGN
    assert foreign_format(head).startswith(what)
    with pytest.raises(DataError, match=f"looks like {what}"):
        read_table(head + b"\0" * 100, "x.csv")
    path = tmp_path / "x.csv"
    path.write_bytes(head + b"\0" * 100)
    with pytest.raises(DataError, match=f"looks like {what}"):
        read_table_head(path)


_MAGIC_LITERALS = ['b"PAR1"', r'b"\x93NUMPY"', r'b"\x1f\x8b"', r'b"\x89PNG"', r'b"\x80\x04"']


def test_the_magic_numbers_have_one_home():
    """No module of the package but file_format spells a format's leading bytes."""
    offenders = []
    for path in PACKAGE.rglob("*.py"):
        if path.name == "file_format.py":
            continue
        text = path.read_text()
        offenders += [f"{path.relative_to(PACKAGE)}: {m}" for m in _MAGIC_LITERALS if m in text]
    assert offenders == []
    assert all(m in (PACKAGE / "data" / "file_format.py").read_text() for m in _MAGIC_LITERALS)


def test_a_large_gzip_files_head_is_decompressed(tmp_path):
    path = tmp_path / "big.csv.gz"
    path.write_bytes(gzip.compress(_table(20_000).to_csv(index=False).encode()))
    head = read_table_head(path)
    assert list(head.columns) == ["a", "b"] and 100 < len(head) < 20_000


def test_a_3d_npy_is_refused_from_its_header_with_its_whole_shape(tmp_path):
    path = tmp_path / "cube.npy"
    np.save(path, np.zeros((300, 2, 2)))
    with pytest.raises(DataError, match=re.escape("3-D array of shape (300, 2, 2)")):
        read_table_head(path)


def test_an_empty_parquet_file_has_no_data_rows(tmp_path):
    path = tmp_path / "empty.parquet"
    _table().iloc[:0].to_parquet(path)
    with pytest.raises(DataError, match="has no data rows"):
        read_table_head(path)


def test_the_kind_of_unusable_table_is_a_field_not_a_wording():
    with pytest.raises(UnusableTableError) as few:
        check_usable(pd.DataFrame({"a": [1.0]}), "one.csv")
    assert few.value.kind is Unusable.TOO_FEW_ROWS
    with pytest.raises(UnusableTableError) as words:
        check_usable(pd.DataFrame({"name": ["ann", "bob", "cy"]}), "names.csv")
    assert words.value.kind is Unusable.NO_NUMBERS and isinstance(words.value, DataError)
    check_usable(pd.DataFrame({"a": [str(i) for i in range(30)] + ["x"]}), "stray.csv")  # numbers, stray text


def test_no_behaviour_hangs_on_the_unusable_messages_wording():
    """The message is for people; code reads UnusableTableError.kind (issue 39: `reason.startswith("it has")`)."""
    for path in PACKAGE.rglob("*.py"):
        text = path.read_text()
        assert not re.search(r"(reason|message|str\(exc\))\.startswith\(", text), path


def test_parquet_without_pyarrow_names_the_extra(monkeypatch, tmp_path):
    data = _file_bytes("parquet")
    monkeypatch.setitem(sys.modules, "pyarrow", None)  # `import pyarrow` raises ImportError
    with pytest.raises(DataError, match=re.escape('t.parquet is a Parquet file: reading it needs pyarrow')) as err:
        read_table(data, "t.parquet")
    assert 'pip install "rskpca[parquet]"' in str(err.value) and "rskpca[app]" in str(err.value)
    path = tmp_path / "t.parquet"
    path.write_bytes(data)
    with pytest.raises(DataError, match='"rskpca\\[parquet\\]"'):
        read_table_head(path)
    assert memory_to_read(path)[0] > 0  # the estimate falls back to the file's size
