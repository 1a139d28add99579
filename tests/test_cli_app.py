"""``rskpca app [FILE] [streamlit options]``: the Streamlit command it builds, and the files it refuses first.

No server is started: ``subprocess.call`` is replaced by a recorder (tests/test_e2e_app_file.py starts one).
"""

from __future__ import annotations

import gzip
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import rskpca.cli._app as app_cli
from rskpca.cli import main
from rskpca.cli._app import find_app, split_app_args, streamlit_command

REPO = Path(__file__).resolve().parent.parent


@pytest.fixture
def started(monkeypatch):
    """The commands ``rskpca app`` would run, with their working folder; nothing is started."""
    calls = []

    def record(command, cwd=None):
        calls.append((command, cwd))
        return 0

    monkeypatch.setattr(app_cli, "_run", record)
    return calls


def _table(n: int = 50) -> pd.DataFrame:
    rng = np.random.default_rng(0)
    return pd.DataFrame({"a": rng.normal(size=n), "b": rng.normal(size=n), "label": rng.integers(0, 2, n)})


@pytest.fixture
def csv_file(tmp_path) -> Path:
    path = tmp_path / "points.csv"
    _table().to_csv(path, index=False)
    return path


def test_the_command_runs_the_installed_app_with_the_file_after_streamlit_options(started, csv_file, capsys):
    assert main(["app", str(csv_file), "--server.port", "8600", "--server.headless=true"]) == 0
    [(command, cwd)] = started
    assert command == [sys.executable, "-m", "streamlit", "run", str(REPO / "app.py"), "--server.port", "8600",
                       "--server.headless=true", "--", str(csv_file)]
    assert cwd == REPO  # where the app's .streamlit/config.toml is read


def test_options_may_come_first_and_a_relative_file_is_made_absolute(started, csv_file, monkeypatch):
    monkeypatch.chdir(csv_file.parent)
    assert main(["app", "--server.port", "8600", csv_file.name]) == 0
    command = started[0][0]
    assert command[-2:] == ["--", str(csv_file)]
    assert command[5:7] == ["--server.port", "8600"]


def test_without_a_file_the_app_starts_on_its_samples(started):
    assert main(["app", "--server.port", "8600"]) == 0
    assert started[0][0][3:] == ["run", str(REPO / "app.py"), "--server.port", "8600"]


def test_streamlit_replaces_the_process_on_posix_and_is_a_child_elsewhere(monkeypatch, tmp_path):
    """exec on POSIX: a SIGTERM to `rskpca app` must reach Streamlit, not leave an orphaned server."""
    seen = []

    class Replaced(Exception):
        """os.execv does not return."""

    def execv(path, command):
        seen.append(("exec", path, command, Path.cwd()))
        raise Replaced

    monkeypatch.setattr(app_cli.os, "execv", execv)
    monkeypatch.setattr(app_cli.subprocess, "call", lambda command, cwd=None: seen.append(("call", cwd)) or 3)
    monkeypatch.chdir(tmp_path)
    assert app_cli._EXEC  # (these tests run on Linux)
    with pytest.raises(Replaced):
        app_cli._run(["/bin/python", "-m", "streamlit"], cwd=REPO)
    assert seen.pop(0) == ("exec", "/bin/python", ["/bin/python", "-m", "streamlit"], REPO)
    monkeypatch.setattr(app_cli, "_EXEC", False)
    assert app_cli._run(["python"], cwd=REPO) == 3
    assert seen == [("call", REPO)]


@pytest.mark.parametrize("args, expected", [
    (["data.csv"], ("data.csv", [])),
    (["data.csv", "--server.port", "8600"], ("data.csv", ["--server.port", "8600"])),
    (["--server.port=8600", "data.csv"], ("data.csv", ["--server.port=8600"])),
    (["--server.headless", "true", "--theme.base", "dark"], (None, ["--server.headless", "true", "--theme.base",
                                                                     "dark"])),
    (["--", "-name.csv"], ("-name.csv", [])),
    ([], (None, [])),
])
def test_split_app_args(args, expected):
    assert split_app_args(args) == expected


def test_help_names_the_file_and_streamlits_options(capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["app", "--help"])
    assert exit_.value.code == 0
    out = capsys.readouterr().out
    assert "usage: rskpca app" in out and "--server.port" in out


def _refused(capsys, args, *needles) -> str:
    assert main(["app", *args]) == 2
    err = capsys.readouterr().err
    assert err.startswith("rskpca app: error:"), err
    for needle in needles:
        assert needle in err, err
    return err


def test_a_missing_file_is_refused_before_streamlit_starts(started, tmp_path, capsys):
    _refused(capsys, [str(tmp_path / "nothere.csv")], "nothere.csv does not exist")
    _refused(capsys, [str(tmp_path)], "is not a file")
    assert not started


def test_an_unreadable_file_is_refused(started, csv_file, capsys, monkeypatch):
    def denied(*args, **kwargs):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(app_cli, "open", denied, raising=False)  # (chmod does not stop root)
    _refused(capsys, [str(csv_file)], "cannot be read: Permission denied")
    assert not started


@pytest.mark.parametrize("name, content, needle", [
    ("empty.csv", b"", "is empty"),
    ("picture.csv", bytes.fromhex("89504e470d0a1a0a0000000d4948445200000001"), "PNG image"),
    ("words.csv", b"name,city\nann,oslo\nbob,rome\n", "no column of numbers"),
    ("one_row.csv", b"a,b\n1,2\n", "1 row"),
    ("cut.parquet", b"PAR1" + b"\0" * 100, "could not be read as Parquet"),
])
def test_a_file_the_app_cannot_use_is_refused(started, tmp_path, capsys, name, content, needle):
    path = tmp_path / name
    path.write_bytes(content)
    _refused(capsys, [str(path)], needle)
    assert not started


def test_a_file_too_big_for_memory_is_refused_before_reading_it(started, csv_file, capsys, monkeypatch):
    monkeypatch.setattr("rskpca.data.memory_estimate.available_memory", lambda: 1000)
    monkeypatch.setattr(app_cli, "read_table", lambda *a: pytest.fail("read after all"))
    _refused(capsys, [str(csv_file)], "points.csv would not fit in memory", "1.0 kB is available")
    assert not started


@pytest.mark.parametrize("kind", ["csv", "csv.gz", "tsv", "parquet", "npy"])
def test_large_files_are_checked_from_their_head_or_metadata(started, tmp_path, monkeypatch, kind):
    """Above FULL_CHECK_BYTES only the leading rows, the Parquet metadata or the NPY header are read."""
    monkeypatch.setattr(app_cli, "FULL_CHECK_BYTES", 0)
    df = _table(5000)
    path = tmp_path / f"big.{kind}"
    if kind == "parquet":
        df.to_parquet(path)
    elif kind == "npy":
        np.save(path, df.to_numpy(dtype=float))
    elif kind == "csv.gz":
        path.write_bytes(gzip.compress(df.to_csv(index=False).encode()))
    else:
        df.to_csv(path, index=False, sep="\t" if kind == "tsv" else ",")
    assert main(["app", str(path)]) == 0
    assert started[0][0][-1] == str(path)


def test_a_large_npy_of_objects_is_refused_from_its_header(tmp_path, monkeypatch, capsys, started):
    monkeypatch.setattr(app_cli, "FULL_CHECK_BYTES", 0)
    path = tmp_path / "objects.npy"
    np.save(path, np.array([{"a": 1}, {"b": 2}], dtype=object), allow_pickle=True)
    _refused(capsys, [str(path)], "objects.npy")
    assert not started


def test_a_checkout_runs_its_own_app_and_an_install_the_copy_its_wheel_carries(tmp_path):
    assert find_app() == REPO / "app.py"  # these tests import rskpca from the checkout
    installed = tmp_path / "site-packages" / "rskpca" / "_app"
    (installed / "pages").mkdir(parents=True)
    (installed / "app.py").write_text("from rskpca.ui import sidebar\n")
    checkout_of_nothing = tmp_path / "site-packages"  # a wheel's rskpca/ has no app.py beside it
    assert find_app([checkout_of_nothing, installed]) == installed / "app.py"
    assert find_app([REPO, installed]) == REPO / "app.py"
    (installed / "app.py").write_text("import streamlit\n")  # someone else's app.py
    assert find_app([installed]) is None
    assert app_cli.INSTALLED_APP == Path(app_cli.rskpca.__file__).resolve().parent / "_app"


def test_an_install_without_the_app_says_how_to_get_it(monkeypatch, csv_file, capsys, started):
    monkeypatch.setattr(app_cli, "find_app", lambda: None)
    _refused(capsys, [str(csv_file)], "app.py and pages/", '"rskpca[app]"', 'pip install -e ".[app]"')
    assert not started


def test_without_the_app_extra_it_says_which_extra_to_install(monkeypatch, csv_file, capsys, started):
    """`pip install rskpca` has no Streamlit: the command says what to install, before reading FILE."""
    monkeypatch.setattr(app_cli, "APP_PACKAGES", ("json", "no_such_streamlit", "no_such_plotly"))
    monkeypatch.setattr(app_cli, "check_data_file", lambda path: pytest.fail("FILE checked first"))
    err = _refused(capsys, [str(csv_file)], 'the app needs `pip install "rskpca[app]"`')
    assert "missing here: no_such_streamlit, no_such_plotly" in err
    assert not started


def test_missing_app_packages_counts_a_refusing_finder_as_missing(monkeypatch):
    class Refuse:
        def find_spec(self, name, path=None, target=None):
            if name == "refused_pkg":
                raise ModuleNotFoundError(f"No module named {name!r}", name=name)
            return None

    monkeypatch.setattr(sys, "meta_path", [Refuse(), *sys.meta_path])
    assert app_cli.missing_app_packages(["refused_pkg", "json"]) == ["refused_pkg"]
    assert app_cli.missing_app_packages() == []  # this environment has the test extra, which holds the app's


def test_a_large_files_head_of_one_row_is_no_reason_to_refuse_it_but_no_numbers_is(started, tmp_path, monkeypatch,
                                                                                     capsys):
    """The kind of unusable table decides (Unusable.TOO_FEW_ROWS), not the message's wording."""
    monkeypatch.setattr(app_cli, "FULL_CHECK_BYTES", 0)  # every file is "large": only its head is read
    monkeypatch.setattr("rskpca.data.table_head.HEAD_BYTES", 30)
    long_rows = tmp_path / "long_rows.csv"
    long_rows.write_text("a,b\n1.2500000,2.5000000\n3.7500000,4.5000000\n5,6\n")  # 30 bytes: header, 1 row
    assert main(["app", str(long_rows)]) == 0
    words = tmp_path / "words.csv"
    words.write_text("name,city\nann,oslo\nbob,rome\n")  # 30 bytes: all of it
    _refused(capsys, [str(words)], "no column of numbers")
    assert len(started) == 1


def test_streamlit_command_without_a_file_has_no_separator():
    assert streamlit_command(Path("/src/app.py"), None, []) == [sys.executable, "-m", "streamlit", "run",
                                                                "/src/app.py"]
