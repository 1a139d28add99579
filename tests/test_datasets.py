"""Bundled samples, file reading and table validation (rskpca.data.datasets, rskpca.data.readers)."""

from __future__ import annotations

import gzip
import io
import re

import numpy as np
import pandas as pd
import pytest

from rskpca.data.datasets import (
    SAMPLE_DIR,
    SAMPLES,
    DataError,
    Dataset,
    column_summary,
    data_digest,
    guess_label_column,
    labelled_rows,
    load_sample,
    main,
    numeric_columns,
    prepare,
    read_table,
    stray_text_cells,
)
from rskpca.data.readers import MissingValuesError
from rskpca.data.samples import _generate_sample

# A 1x1 PNG, the start of a real image file.
PNG_BYTES = bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082"
)


def _npy_bytes(arr, **kw) -> bytes:
    buf = io.BytesIO()
    np.save(buf, arr, **kw)
    return buf.getvalue()


# ---------------------------------------------------------------------------
# Samples
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(SAMPLES))
def test_sample_files_match_their_description(name):
    info = SAMPLES[name]
    assert info.name == name
    assert (SAMPLE_DIR / info.filename).is_file(), "run `python -m rskpca.data.datasets` to regenerate"
    df = load_sample(name)
    assert df.shape == (info.n, info.d + 1)
    assert df.columns[-1] == info.label == "label"
    ds = prepare(df, label_column="label")
    assert ds.X.shape == (info.n, info.d)
    assert ds.y is not None and len(np.unique(ds.y)) >= 2
    assert guess_label_column(df) == "label"


def test_samples_regenerate_to_the_committed_bytes(tmp_path):
    main([str(tmp_path)])
    for info in SAMPLES.values():
        assert (tmp_path / info.filename).read_bytes() == (SAMPLE_DIR / info.filename).read_bytes(), info.name


def test_sample_csv_equals_generator_up_to_rounding():
    for name in ("two_moons", "digits", "iris"):
        fresh = _generate_sample(name)
        stored = load_sample(name)
        num = numeric_columns(fresh)
        np.testing.assert_allclose(stored[num].to_numpy(float), fresh[num].to_numpy(float), rtol=1e-5, atol=1e-6)
        assert list(stored["label"].astype(str)) == list(fresh["label"].astype(str))


def test_missing_sample_file_is_rebuilt_in_memory(monkeypatch, tmp_path):
    import rskpca.data.samples as samples

    stored = pd.read_csv(SAMPLE_DIR / SAMPLES["blobs"].filename)
    monkeypatch.setattr(samples, "SAMPLE_DIR", tmp_path)  # e.g. an install without sample_data/
    df = samples.load_sample("blobs")
    assert df.shape == stored.shape
    np.testing.assert_allclose(df[["x", "y"]].to_numpy(), stored[["x", "y"]].to_numpy(), atol=1e-5)
    np.testing.assert_array_equal(df["label"], stored["label"])


def test_unknown_sample_is_a_data_error():
    with pytest.raises(DataError, match="Unknown sample 'mnist'.*digits"):
        load_sample("mnist")


# ---------------------------------------------------------------------------
# read_table: good files
# ---------------------------------------------------------------------------


def test_csv_roundtrip_and_verbatim_names():
    names = ["<b>bold</b>", "**x**", "é ünï", "a,b" , "label"]
    df = pd.DataFrame([[1.0, 2.0, 3.0, 4.0, "p"], [5.0, 6.0, 7.0, 8.0, "q"]], columns=names)
    got = read_table(df.to_csv(index=False).encode(), "x.csv")
    assert list(got.columns) == names
    np.testing.assert_array_equal(got.iloc[:, :4].to_numpy(float), df.iloc[:, :4].to_numpy(float))
    ds = prepare(got, label_column="label")
    assert ds.feature_names == names[:4]


@pytest.mark.parametrize(
    "content, filename",
    [
        (b"a\tb\n1\t2\n3\t4\n", "t.tsv"),
        (b"a\tb\n1\t2\n3\t4\n", "t.txt"),  # sniffed tab
        (b"a;b\n1;2\n3;4\n", "s.csv"),  # semicolons
        (b"a|b\n1|2\n3|4\n", "p.csv"),
        (b"\xef\xbb\xbfa,b\r\n1,2\r\n3,4\r\n", "bom.csv"),  # UTF-8 BOM, CRLF
        (b"a, b\n1, 2\n3, 4\n", "spaces.csv"),
    ],
)
def test_text_variants(content, filename):
    df = read_table(content, filename)
    assert list(df.columns) == ["a", "b"]
    np.testing.assert_array_equal(df.to_numpy(float), [[1, 2], [3, 4]])


def test_semicolon_with_decimal_commas_and_latin1():
    df = read_table("größe;wert;label\n1,5;2;ä\n3;4,25;b\n".encode("latin-1"), "eu.csv")
    assert list(df.columns) == ["größe", "wert", "label"]
    np.testing.assert_array_equal(df[["größe", "wert"]].to_numpy(), [[1.5, 2.0], [3.0, 4.25]])


def test_headerless_and_whitespace_files_from_savetxt():
    arr = np.arange(12.0).reshape(4, 3) / 7
    for kwargs, filename in (({}, "spaces.txt"), ({"delimiter": ","}, "commas.csv"), ({"delimiter": "\t"}, "t.tsv")):
        buf = io.BytesIO()
        np.savetxt(buf, arr, **kwargs)
        df = read_table(buf.getvalue(), filename)
        assert list(df.columns) == ["x0", "x1", "x2"], filename
        np.testing.assert_allclose(df.to_numpy(), arr, rtol=1e-15)
    named = read_table(b"a b c\n1 2 3\n4 5 6\n", "w.txt")
    assert list(named.columns) == ["a", "b", "c"] and named.shape == (2, 3)
    one = read_table(b"my value\n1\n2\n", "one.txt")  # a name with a space is not two columns
    assert list(one.columns) == ["my value"] and one.shape == (2, 1)


def test_gzip_csv():
    df = read_table(gzip.compress(b"a,b\n1,2\n3,4\n"), "x.csv.gz")
    assert df.shape == (2, 2)


def test_single_column_csv_is_fine():
    df = read_table(b"v\n1\n2\n3\n", "one.csv")
    ds = prepare(df)
    assert ds.X.shape == (3, 1)


def test_parquet():
    src = pd.DataFrame({"a": [1.0, 2.0, 3.0], "b": [1, 2, 2], "label": ["x", "y", "x"]})
    buf = io.BytesIO()
    src.to_parquet(buf)
    got = read_table(buf.getvalue(), "data.parquet")
    pd.testing.assert_frame_equal(got, src, check_dtype=False)


def test_npy_2d_and_1d():
    arr = np.arange(12, dtype=float).reshape(4, 3)
    df = read_table(_npy_bytes(arr), "a.npy")
    assert list(df.columns) == ["x0", "x1", "x2"]
    np.testing.assert_array_equal(df.to_numpy(), arr)
    assert read_table(_npy_bytes(np.arange(5)), "v.npy").shape == (5, 1)


def test_npy_record_array_gives_named_columns():
    rec = np.array([(1.0, 2), (3.0, 4)], dtype=[("u", "f8"), ("v", "i4")])
    assert list(read_table(_npy_bytes(rec), "r.npy").columns) == ["u", "v"]


def test_format_is_sniffed_even_with_a_wrong_extension():
    arr = np.ones((3, 2))
    assert read_table(_npy_bytes(arr), "renamed.csv").shape == (3, 2)


# ---------------------------------------------------------------------------
# read_table: bad files
# ---------------------------------------------------------------------------


class _Evil:
    """Unpickling this would run code; the reader must refuse object arrays instead."""

    def __reduce__(self):
        return (pytest.fail, ("an uploaded pickle was executed",))


@pytest.mark.parametrize(
    "content, filename, match",
    [
        (b"", "e.csv", "is empty"),
        (b"   \n\n", "blank.csv", "is empty"),
        (PNG_BYTES, "image.csv", "PNG image"),
        (b"PK\x03\x04" + b"\x00" * 40, "book.csv", "ZIP archive"),
        (b"%PDF-1.7\n...", "paper.csv", "PDF"),
        (bytes(range(256)) * 8, "garbage.csv", "binary file"),
        (b"a,b,c\n", "header.csv", "no data rows"),
        (b"a,b\n1,2\n3,4,5,6\n", "ragged.csv", "could not be read"),
        (b"just text, not npy", "x.npy", "not a NumPy array"),
        (b"a,b\n1,2\n", "x.parquet", "not a Parquet file"),
        (b"PAR1 truncated", "x.parquet", "incomplete"),
        (b"{}", "x.json", "not supported"),
        (b"\x1f\x8b\x08\x00garbage", "x.csv.gz", "cannot be decompressed"),
        (gzip.compress(b"", mtime=0), "x.csv.gz", "empty after decompression"),
    ],
)
def test_bad_files_give_a_data_error(content, filename, match):
    with pytest.raises(DataError, match=match):
        read_table(content, filename)


ORWELL = (b"It was a bright cold day in April, and the clocks were striking thirteen.\n"
          b"Winston Smith, his chin nuzzled into his breast in an effort to escape the vile wind, slipped quickly "
          b"through the glass doors of Victory Mansions, though not quickly enough to prevent a swirl of gritty "
          b"dust from entering along with him.\n"
          b"The hallway smelt of boiled cabbage and old rag mats.\n")


@pytest.mark.parametrize("content, filename, shape", [
    (ORWELL, "1984.txt", "split at ',' into 1 to 4 fields"),  # was: "missing values in column 'and the clocks ..."
    (ORWELL.replace(b",", b""), "1984.csv", "a single column"),
    (ORWELL.replace(b",", b"\t"), "1984.tsv", "split at tabs"),
    (b"Dear all,\nplease find the numbers attached, 3 of them.\nBest,\nAnn\n", "mail.txt", "fields"),
])
def test_prose_is_refused_as_not_a_table_of_numbers(content, filename, shape):
    with pytest.raises(DataError, match=r"does not look like a table of numbers: .*" + shape) as info:
        read_table(content, filename)
    assert "It was a bright" in str(info.value) or filename == "mail.txt"  # the message shows how the file starts
    assert "missing values" not in str(info.value).lower()


@pytest.mark.parametrize("content, filename, columns", [
    (b"v\n1\n2.5\n-3e2\n", "one.csv", ["v"]),  # one numeric column with a header
    (b"1\n2\n3\n", "one.txt", ["x0"]),  # and without
    (b"value\n1\nNA\n3\n\n4\n", "holes.csv", ["value"]),  # missing values are not text
    (b"a,b,label\n1,2,x\n3,4,y\n", "labelled.csv", ["a", "b", "label"]),  # a header and a text column
    (b"a,b,c\n1,2,3\n4,5\n", "short_row.csv", ["a", "b", "c"]),  # ragged numbers: the column checks say so
    (b"name,city\nann,paris\nbob,rome\n", "words.csv", ["name", "city"]),  # a table of text: named by prepare
    (b"id;note\n1;a, b and c\n2;d\n", "notes.csv", ["id", "note"]),  # commas inside a semicolon file's text
])
def test_tables_are_not_taken_for_prose(content, filename, columns):
    assert list(read_table(content, filename).columns) == columns


def test_pickled_npy_is_refused_never_unpickled():
    obj = np.array([_Evil(), 1], dtype=object)
    data = _npy_bytes(obj, allow_pickle=True)
    with pytest.raises(DataError, match="never loaded"):
        read_table(data, "evil.npy")


def test_npy_3d_and_non_numeric_are_refused():
    with pytest.raises(DataError, match=r"3-D array of shape \(2, 3, 4\).*reshape"):
        read_table(_npy_bytes(np.zeros((2, 3, 4))), "cube.npy")
    with pytest.raises(DataError, match="numeric"):
        read_table(_npy_bytes(np.array(["a", "b"])), "strings.npy")
    with pytest.raises(DataError, match="readable NPY"):
        read_table(_npy_bytes(np.zeros((50, 3)))[:-40], "truncated.npy")


def test_non_bytes_input():
    with pytest.raises(DataError, match="bytes"):
        read_table("a,b\n1,2", "x.csv")


# ---------------------------------------------------------------------------
# prepare
# ---------------------------------------------------------------------------


def test_prepare_defaults_take_numeric_columns_except_label():
    df = pd.DataFrame({"a": [1.0, 2.0, 3.0], "name": ["p", "q", "r"], "b": [1, 0, 1],
                       "flag": [True, False, True], "label": [0, 1, 0]})
    ds = prepare(df, label_column="label")
    assert isinstance(ds, Dataset)
    assert ds.feature_names == ["a", "b", "flag"]
    assert ds.X.dtype == np.float64 and ds.X.flags.c_contiguous
    assert ds.label_name == "label" and list(ds.y) == [0, 1, 0]
    assert ds.n_original == 3 and list(ds.row_ids) == [0, 1, 2]
    assert ds.n == 3 and ds.d == 3
    assert not ds.standardized


def test_standardize_centres_and_scales_and_keeps_constant_columns_finite():
    df = pd.DataFrame({"a": [1.0, 2.0, 3.0, 6.0], "c": [5.0] * 4})
    ds = prepare(df, standardize=True)
    np.testing.assert_allclose(ds.X.mean(axis=0), 0, atol=1e-12)
    np.testing.assert_allclose(ds.X[:, 0].std(), 1)
    np.testing.assert_array_equal(ds.X[:, 1], 0)
    assert ds.standardized and any("constant column" in note for note in ds.notes)


def test_row_cap_samples_reproducibly_in_original_order():
    df = pd.DataFrame({"a": np.arange(100.0), "label": np.arange(100) % 3})
    one = prepare(df, label_column="label", max_rows=10, random_state=3)
    two = prepare(df, label_column="label", max_rows=10, random_state=3)
    other = prepare(df, label_column="label", max_rows=10, random_state=4)
    assert one.n == 10 and one.n_original == 100
    np.testing.assert_array_equal(one.row_ids, two.row_ids)
    assert one.digest == two.digest != other.digest
    assert np.all(np.diff(one.row_ids) > 0)
    np.testing.assert_array_equal(one.X[:, 0], one.row_ids)  # rows carry their original ids
    np.testing.assert_array_equal(one.y, one.row_ids % 3)
    assert any("sample of 10 of 100" in note for note in one.notes)
    assert prepare(df, max_rows=1000).n == 100  # a cap above n changes nothing


@pytest.mark.parametrize("cap", [0, 1, 2.5, True, "10"])
def test_bad_row_cap(cap):
    with pytest.raises(DataError, match="row cap"):
        prepare(pd.DataFrame({"a": [1.0, 2.0, 3.0]}), max_rows=cap)


def test_text_columns_only():
    df = read_table(b"name,city\nann,paris\nbob,rome\n", "text.csv")
    with pytest.raises(DataError, match=r"No numeric columns.*\['name', 'city'\]"):
        prepare(df)


def test_nan_names_the_columns_and_drop_mode_drops_rows():
    df = read_table(b"a,b,c\n1,2,3\n4,,6\n7,8,9\n,11,12\n", "nan.csv")
    with pytest.raises(DataError, match=r"Missing values.*'a' \(1 missing\).*'b' \(1 missing\)"):
        prepare(df)
    ds = prepare(df, missing="drop")
    assert ds.n == 2 and list(ds.row_ids) == [0, 2] and ds.n_original == 4
    assert any("Dropped 2 row(s)" in note for note in ds.notes)
    # NaN in an unused column does not matter
    assert prepare(df, feature_columns=["c"]).n == 4


def test_a_row_missing_only_its_label_is_kept_and_the_notes_say_so():
    # A label with empty cells used to refuse the whole file; the row's features are complete, so it is data.
    df = pd.DataFrame({"a": [1.0, 2.0, 3.0, 4.0], "label": ["x", None, "y", np.nan]})
    ds = prepare(df, label_column="label")
    assert ds.n == 4 and list(ds.y[[0, 2]]) == ["x", "y"] and pd.isna(ds.y[[1, 3]]).all()
    assert any("'label' is missing in 2 of 4 rows" in note for note in ds.notes)
    assert labelled_rows(ds.y).tolist() == [True, False, True, False]
    assert prepare(df, label_column="label", missing="drop").n == 4  # "drop" is for features: nothing to drop
    with pytest.raises(DataError, match="'a' \\(1 missing\\)"):  # a missing feature is still refused
        prepare(pd.DataFrame({"a": [1.0, None, 3.0], "label": ["x", None, "y"]}), label_column="label")


def test_inf_names_the_column():
    df = read_table(b"a,b\n1,inf\n2,3\n", "inf.csv")
    with pytest.raises(DataError, match=r"Infinite values in column\(s\) \['b'\]"):
        prepare(df)


def test_huge_values_would_overflow():
    df = pd.DataFrame({"ok": [1.0, 2.0], "big": [1e200, -3.0]})
    with pytest.raises(DataError, match=r"larger than 4.7e\+153 in column\(s\) \['big'\]"):
        prepare(df)
    assert prepare(df, feature_columns=["ok"]).n == 2


def test_tiny_spread_would_underflow():
    df = pd.DataFrame({"a": [1e-200, 2e-200, 3e-200], "b": [0.0, 0.0, 0.0]})
    with pytest.raises(DataError, match="underflow"):
        prepare(df)
    assert prepare(df * 1e200).n == 3


@pytest.mark.parametrize("content", [b"a,b\n1,2\n", b"a\n5\n"])
def test_one_row(content):
    with pytest.raises(DataError, match="at least 2 rows"):
        prepare(read_table(content, "one.csv"))


def test_constant_columns_only():
    with pytest.raises(DataError, match="constant"):
        prepare(pd.DataFrame({"a": [1.0, 1.0, 1.0], "b": [2, 2, 2]}))


def test_empty_frames():
    with pytest.raises(DataError, match="empty"):
        prepare(pd.DataFrame())
    with pytest.raises(DataError, match="DataFrame"):
        prepare(np.zeros((3, 2)))


def test_bad_column_choices():
    df = pd.DataFrame({"a": [1.0, 2.0], "b": [3.0, 4.0], "t": ["x", "zz"]})
    with pytest.raises(DataError, match=r"\['nope'\] are not in the table"):
        prepare(df, feature_columns=["a", "nope"])
    with pytest.raises(DataError, match="Label column 'nope'"):
        prepare(df, label_column="nope")
    with pytest.raises(DataError, match="both a feature and the label"):
        prepare(df, feature_columns=["a", "b"], label_column="a")
    with pytest.raises(DataError, match=r"'t' is not numeric \(e.g. 'x' in row 0\)"):
        prepare(df, feature_columns=["a", "t"])
    with pytest.raises(DataError, match="chosen twice"):
        prepare(df, feature_columns=["a", "a"])
    with pytest.raises(DataError, match="No feature columns chosen"):
        prepare(df, feature_columns=[])
    with pytest.raises(DataError, match="missing must be"):
        prepare(df, missing="ignore")
    assert prepare(df, feature_columns="b").feature_names == ["b"]


def test_duplicate_column_names_and_bad_value_position():
    dup = pd.DataFrame([[1.0, 2.0], [3.0, 4.0]], columns=["a", "a"])
    with pytest.raises(DataError, match=r"\['a'\] appear more than once"):
        prepare(dup)
    odd_index = pd.DataFrame({"a": [1.0, 2.0, 3.0], "t": ["1", "2", "oops"]}, index=[7, 7, 7])
    with pytest.raises(DataError, match=r"'oops' in row 2"):
        prepare(odd_index, feature_columns=["a", "t"])


def test_data_error_is_a_value_error():
    assert issubclass(DataError, ValueError)


# ---------------------------------------------------------------------------
# helpers
# ---------------------------------------------------------------------------


def test_guess_label_column():
    assert guess_label_column(pd.DataFrame({"x": [1, 2], "Class": [0, 1]})) == "Class"
    species = pd.DataFrame({"x": [1.0, 2.0, 3.0, 4.0], "kind": ["a", "b", "a", "b"]})
    assert guess_label_column(species) == "kind"
    free_text = pd.DataFrame({"x": [1.0, 2.0, 3.0, 4.0], "note": ["a", "b", "c", "d"]})
    assert guess_label_column(free_text) is None
    assert guess_label_column(pd.DataFrame({"x": [1.0, 2.0]})) is None


def _breast_cancer_as_a_spreadsheet():
    # sklearn's breast cancer data as a user exports it: a True/False label, a constant and an empty column
    from sklearn.datasets import load_breast_cancer

    data = load_breast_cancer(as_frame=True)
    df = data.data.copy()
    df["malignant"] = (data.target == 0).map({True: "True", False: "False"})
    df["site"], df["notes"] = 7, ""
    return pd.read_csv(io.StringIO(df.to_csv(index=False)))  # read back as a file is: bool, int, all-NaN


def test_a_true_false_label_before_a_constant_and_an_empty_column_is_guessed():
    df = _breast_cancer_as_a_spreadsheet()
    assert df["malignant"].dtype == bool and df["notes"].isna().all()
    assert guess_label_column(df) == "malignant"


def test_an_empty_column_is_left_out_of_the_features_and_said():
    # with it, every row had a missing value, and "Drop missing rows" dropped all 569
    df = _breast_cancer_as_a_spreadsheet()
    ds = prepare(df, label_column="malignant")
    assert ds.n == 569 and "notes" not in ds.feature_names and ds.d == 31  # 30 measurements and the constant site
    assert any("'notes' is empty in every row" in note for note in ds.notes)
    assert not any("text" in note and "notes" in note for note in ds.notes)


def test_dropping_missing_rows_that_would_leave_none_says_which_column_is_empty():
    df = _breast_cancer_as_a_spreadsheet()
    features = [c for c in df.columns if c != "malignant"]
    with pytest.raises(DataError, match=r"would leave 0 of 569 rows .*'notes' is empty in every row") as err:
        prepare(df, feature_columns=features, label_column="malignant", missing="drop")
    assert not isinstance(err.value, MissingValuesError)  # (the app's hint to drop them would loop)
    with pytest.raises(MissingValuesError, match="'notes' \\(569 missing\\)"):
        prepare(df, feature_columns=features, label_column="malignant")


def test_column_summary_numbers():
    df = pd.DataFrame({"a": [1.0, 2.0, np.nan, 5.0], "s": ["x", "y", "y", None], "<i>h</i>": [1, 1, 1, 1]})
    summary = column_summary(df)
    assert list(summary["column"]) == ["a", "s", "<i>h</i>"]
    a = summary.set_index("column").loc["a"]
    assert (a["count"], a["missing"], a["min"], a["max"]) == (3, 1, 1.0, 5.0)
    assert a["mean"] == pytest.approx(8 / 3)
    s = summary.set_index("column").loc["s"]
    assert (s["count"], s["missing"], s["unique"]) == (3, 1, 2) and np.isnan(s["mean"])


def test_digest_is_a_content_key():
    X = np.arange(6.0).reshape(2, 3)
    assert data_digest(X) == data_digest(X.copy()) == data_digest(np.asfortranarray(X))
    assert data_digest(X) != data_digest(X.reshape(3, 2))
    assert data_digest(X) != data_digest(X.astype(np.float32))
    Y = X.copy()
    Y[1, 2] += 1e-12
    assert data_digest(X) != data_digest(Y)
    assert data_digest(X, np.array(["a", "b"], dtype=object)) != data_digest(X, np.array(["a", "c"], dtype=object))
    assert len(data_digest(X)) == 64
    df = pd.DataFrame(X, columns=["a", "b", "c"])
    labelled = df.assign(label=["u", "v"])
    assert prepare(df).digest == data_digest(prepare(df).X)
    assert prepare(labelled, label_column="label").digest != prepare(df).digest


def test_xy_coordinates_keep_y_as_a_feature():
    from rskpca.data.datasets import guess_label_column, prepare

    rng = np.random.default_rng(0)
    df = pd.DataFrame({"x": rng.normal(size=50), "y": rng.normal(size=50)})
    assert guess_label_column(df) is None
    assert prepare(df).X.shape == (50, 2)
    classes = pd.DataFrame({"x": rng.normal(size=50), "z": rng.normal(size=50), "y": rng.integers(0, 3, 50)})
    assert guess_label_column(classes) == "y"


# ---------------------------------------------------------------------------
# What a first-time user hit (issue 11, "Data you can trust")
# ---------------------------------------------------------------------------


def _stray_text_table() -> pd.DataFrame:
    """199 numbers and one 'abc' in column a, as read from a CSV."""
    values = [f"{v:.3f}" for v in np.random.default_rng(0).normal(size=200)]
    values[57] = "abc"
    b = np.random.default_rng(1).normal(size=200)
    text = "a,b\n" + "\n".join(f"{x},{y:.3f}" for x, y in zip(values, b))
    return read_table(text.encode(), "stray.csv")


def test_a_numeric_column_with_a_stray_text_cell_is_named_with_the_cell():
    df = _stray_text_table()
    assert stray_text_cells(df) == {"a": [(57, "abc")]}
    ds = prepare(df)
    assert ds.feature_names == ["b"]
    assert any("'a'" in note and "'abc' in row 57" in note for note in ds.notes), ds.notes


def test_stray_text_cells_can_be_treated_as_missing():
    df = _stray_text_table()
    with pytest.raises(DataError, match=r"Missing values .*'a' \(1 missing\)"):
        prepare(df, stray_text="missing")
    ds = prepare(df, stray_text="missing", missing="drop")
    assert ds.feature_names == ["a", "b"] and ds.n == 199
    assert 57 not in ds.row_ids
    # a text column (labels) is not mistaken for numbers with stray text
    assert stray_text_cells(pd.DataFrame({"c": ["u", "v"] * 10, "d": [1, "x"] * 10})) == {}


def test_renamed_duplicate_column_names_are_reported():
    df = read_table(b"a,a,b\n1,2,3\n4,5,6\n7,8,9\n", "dup.csv")
    assert list(df.columns) == ["a", "a.1", "b"]
    ds = prepare(df)
    assert any("'a' -> 'a', 'a.1'" in note for note in ds.notes), ds.notes
    assert not any("renamed" in note for note in prepare(read_table(b"a,b\n1,2\n3,4\n", "ok.csv")).notes)


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-le", "utf-16-be", "utf-32"])
def test_utf16_and_utf32_text_is_read_and_its_encoding_named(encoding):
    df = read_table("x,y,label\n1.5,2,é\n3,4.25,ü\n".encode(encoding), "wide.csv")
    assert list(df.columns) == ["x", "y", "label"] and df["y"].tolist() == [2.0, 4.25]
    assert df["label"].tolist() == ["é", "ü"]
    assert any(encoding.split("-")[0].upper() in note for note in prepare(df).notes)


def test_a_truncated_parquet_file_is_explained_in_plain_words():
    data = pd.DataFrame({"x": np.arange(100.0), "y": np.arange(100.0)}).to_parquet()
    with pytest.raises(DataError) as err:
        read_table(data[: len(data) - 40], "cut.parquet")
    assert "incomplete" in str(err.value) and "not a Parquet file" in str(err.value)
    assert not re.search(r"Arrow|magic|footer", str(err.value)), str(err.value)


def test_two_moons_default_sigma_is_the_one_that_shows_the_moons():
    """The stored default reproduces (python -m rskpca.data.bandwidth) and beats the median heuristic."""
    from rskpca.data.bandwidth import GRID_EXPONENTS, separating_sigma

    df = load_sample("two_moons")
    sigma, accuracy, scores = separating_sigma(df[["x", "y"]].to_numpy(), df["label"].to_numpy())
    assert SAMPLES["two_moons"].sigma == sigma
    at_median = scores[GRID_EXPONENTS.index(0)][1]
    assert accuracy > 0.95 > 0.85 > at_median  # the moons apart at the default, one blob at the median


def test_prepare_says_which_columns_it_leaves_out_and_what_constant_ones_do():
    # a tryout's text column vanished without a word, and "carry no information" beside "d = 3" read as a contradiction
    df = pd.DataFrame({"name": list("abcdef"), "a": [0.0, 1, 2, 3, 4, 5], "const": [7.0] * 6,
                       "b": [1.0, 0, 1, 0, 1, 0]})
    ds = prepare(df)
    assert ds.feature_names == ["a", "const", "b"]
    assert any("text column 'name' is not a feature" in note for note in ds.notes), ds.notes
    assert any("column 'const' carries" in note and "changes no distance" in note for note in ds.notes), ds.notes
    labelled = prepare(df, label_column="name")  # the label is not "left out"
    assert not any("are not features" in note for note in labelled.notes), labelled.notes


def test_a_sample_says_it_wants_standardising_exactly_when_its_column_scales_differ_a_thousandfold():
    # the app reads SampleInfo.standardize for its default; no caller keys that on a sample's name
    for name, info in SAMPLES.items():
        df = pd.read_csv(SAMPLE_DIR / info.filename).drop(columns=[info.label])
        spread = df.std().to_numpy()
        spread = spread[spread > 0]
        assert info.standardize == (spread.max() / spread.min() > 1000), name


def test_a_feature_that_dwarfs_the_others_is_named_unless_the_features_are_standardised():
    # Seen: a price column (std 711, the others about 1) taken as a feature at its scale without a word.
    rng = np.random.default_rng(0)
    df = pd.DataFrame(rng.normal(size=(300, 4)), columns=list("abcd"))
    df["price"] = rng.normal(1337, 711, size=300)
    notes = [n for n in prepare(df).notes if "ranges about" in n]
    assert len(notes) == 1 and "'price'" in notes[0] and "Standardise" in notes[0]
    assert not [n for n in prepare(df, standardize=True).notes if "ranges about" in n]
    assert not [n for n in prepare(df, label_column="price").notes if "ranges about" in n]
    assert not [n for n in prepare(df.drop(columns="price")).notes if "ranges about" in n]


def test_row_ids_are_left_out_of_the_default_features_and_said():
    # a tryout's "id" column (1..5,000) became a feature: sigma 1,445 and the first component ordered by row number
    rng = np.random.default_rng(0)
    df = pd.DataFrame({"id": rng.permutation(np.arange(1, 51)), "Unnamed: 0": np.arange(50),
                       "x": rng.normal(size=50), "y": rng.normal(size=50), "cls": rng.choice(["a", "b"], 50)})
    ds = prepare(df, label_column="cls")
    assert ds.feature_names == ["x", "y"]
    assert any("columns 'id' and 'Unnamed: 0' hold a different whole number on every row" in note
               and "use them anyway" in note for note in ds.notes), ds.notes
    chosen = prepare(df, feature_columns=["id", "x"], label_column="cls")  # the user's choice stands, unremarked
    assert chosen.feature_names == ["id", "x"] and not any("whole number" in note for note in chosen.notes)
    # a measurement that happens to be whole numbers, not all distinct or not consecutive, stays a feature
    counts = pd.DataFrame({"count": rng.integers(0, 5, 50), "x": rng.normal(size=50)})
    assert prepare(counts).feature_names == ["count", "x"]
    spread = pd.DataFrame({"year": np.arange(50) * 2 + 1900, "x": rng.normal(size=50)})
    assert prepare(spread).feature_names == ["year", "x"]
    # a table of nothing but a counter is used as it is rather than refused
    assert prepare(pd.DataFrame({"id": np.arange(20)})).feature_names == ["id"]


def test_a_last_column_of_few_whole_numbers_after_fractional_features_is_guessed_as_the_label():
    rng = np.random.default_rng(1)
    df = pd.DataFrame({"a": rng.normal(size=60), "b": rng.normal(size=60), "grp": rng.choice([1.0, 2.0, 3.0], 60)})
    assert guess_label_column(df) == "grp"
    pixels = pd.DataFrame({"p0": rng.integers(0, 16, 60), "p1": rng.integers(0, 16, 60), "p2": rng.integers(0, 3, 60)})
    assert guess_label_column(pixels) is None  # whole-number features: the last may be one of them
    measured = df.assign(grp=rng.normal(size=60))
    assert guess_label_column(measured) is None
