"""README.md holds for a user who pastes from it.

* every ```python block runs on its own: each in a fresh namespace, in a fresh interpreter, in an empty
  folder that has only ``sample_data/`` beside it (as a checkout's root has); a block that raises fails
  with its line in README.md, and a ``# prints: ...`` comment must match a line the block printed;
* every fence names its language, and only ``python`` blocks are run (``bash`` and ``text`` are not);
* every ``rskpca ...`` command in a ``bash`` block parses with the CLI's own parser, and every
  ``python tests/benchmarks/*.py ...`` command names a script that exists and only options it has;
* the test command of "## Set up" is what ``.ci/run`` runs: the same extra installed, then pytest with
  no other arguments.
"""

import json
import re
import shlex
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
LANGUAGES = {"python", "bash", "text"}

#: Runs each block given on stdin (a JSON list of [line, code]) in a fresh namespace, its stdout captured,
#: and writes [line, printed, traceback-or-null] per block as JSON to the file named in argv[1].
RUNNER = textwrap.dedent("""
    import contextlib, io, json, os, sys, tempfile, traceback
    blocks, results = json.load(sys.stdin), []
    samples = sys.argv[2]
    for line, code in blocks:
        out = io.StringIO()
        with tempfile.TemporaryDirectory() as cwd:
            os.symlink(samples, os.path.join(cwd, "sample_data"))
            os.chdir(cwd)
            # Padded so that a traceback's line numbers are README.md's.
            source = "\\n" * (line - 1) + code
            try:
                with contextlib.redirect_stdout(out):
                    exec(compile(source, "README.md", "exec"), {"__name__": "__main__"})
                error = None
            except BaseException:
                error = traceback.format_exc()
            os.chdir(os.path.dirname(samples))
        results.append([line, out.getvalue(), error])
    with open(sys.argv[1], "w") as f:
        json.dump(results, f)
""")


def fenced_blocks():
    """``(language, line of the first code line, code)`` for every fenced block of README.md."""
    lines = README.read_text(encoding="utf-8").splitlines()
    blocks, i = [], 0
    while i < len(lines):
        opening = re.match(r"^```(.*)$", lines[i])
        if not opening:
            i += 1
            continue
        end = next(j for j in range(i + 1, len(lines)) if lines[j].startswith("```"))
        blocks.append((opening.group(1).strip(), i + 2, "\n".join(lines[i + 1:end]) + "\n"))
        i = end + 1
    return blocks


PYTHON_BLOCKS = [(line, code) for lang, line, code in fenced_blocks() if lang == "python"]


@pytest.fixture(scope="module")
def block_results(tmp_path_factory):
    """Every python block run once, in order, by one fresh interpreter (imports are paid once)."""
    out = tmp_path_factory.mktemp("readme") / "results.json"
    proc = subprocess.run([sys.executable, "-c", RUNNER, str(out), str(ROOT / "sample_data")],
                          input=json.dumps(PYTHON_BLOCKS), capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0 and out.exists(), proc.stderr[-4000:]
    return {line: (printed, error) for line, printed, error in json.loads(out.read_text())}


def test_readme_has_python_examples():
    assert len(PYTHON_BLOCKS) >= 5


def test_every_fence_names_a_language():
    for lang, line, _ in fenced_blocks():
        assert lang in LANGUAGES, f"README.md line {line - 1}: fence language {lang!r} is not one of {LANGUAGES}"


def _promised(code):
    """The lines a block promises to print, from its ``# prints: ...`` comments, in order."""
    return [" ".join(m.split()) for m in re.findall(r"#\s*prints:\s*(.+?)\s*$", code, re.M)]


@pytest.mark.parametrize("line,code", PYTHON_BLOCKS, ids=[f"README.md:{line}" for line, _ in PYTHON_BLOCKS])
def test_python_block_runs(line, code, block_results):
    printed, error = block_results[line]
    assert error is None, f"the python block at README.md line {line} raised:\n{error}"
    lines = [" ".join(s.split()) for s in printed.splitlines()]
    rest = iter(lines)
    for promise in _promised(code):
        assert any(got == promise for got in rest), (
            f"README.md block at line {line} promises to print {promise!r}; it printed:\n{printed}")


def _commands(prefix):
    """Lines of bash blocks that start with ``prefix``, with their README line, comments and pipes cut."""
    found = []
    for lang, first, code in fenced_blocks():
        if lang != "bash":
            continue
        for k, text in enumerate(code.splitlines()):
            if text.startswith(prefix):
                found.append((first + k, shlex.split(text.split("|")[0], comments=True)))
    return found


def test_cli_commands_parse():
    from rskpca.cli import BENCH_MODES, build_parser

    commands = _commands("rskpca ")
    assert len(commands) >= 8
    for line, argv in commands:
        argv = argv[1:]
        if argv[:1] == ["bench"] and (len(argv) == 1 or argv[1] not in BENCH_MODES):
            argv.insert(1, "fit")  # what rskpca.cli.main does for a bare `rskpca bench`
        try:
            build_parser().parse_args(argv)
        except SystemExit as exc:
            pytest.fail(f"README.md line {line}: `rskpca {' '.join(argv)}` does not parse (exit {exc.code})")


def test_benchmark_commands_name_scripts_and_options_that_exist():
    helps = {}
    for line, argv in _commands("python tests/benchmarks/"):
        script = ROOT / argv[1]
        assert script.is_file(), f"README.md line {line}: no script {argv[1]}"
        if script not in helps:
            helps[script] = subprocess.run([sys.executable, str(script), "--help"], cwd=ROOT, capture_output=True,
                                           text=True, timeout=120).stdout
        for option in (a for a in argv[2:] if a.startswith("--")):
            assert re.search(rf"{re.escape(option)}\b", helps[script]), (
                f"README.md line {line}: {argv[1]} has no option {option}")


def test_readme_test_command_is_what_ci_runs():
    setup = README.read_text(encoding="utf-8").split("## Set up", 1)[1].split("\n## ", 1)[0]
    readme_test = next(text for text in setup.splitlines() if ".[test]" in text)
    assert re.fullmatch(r'pip install -e "\.\[test\]" && pytest', readme_test.strip()), readme_test
    assert re.search(r'pip install -e "\.\[app\]" && streamlit run app\.py', setup)
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    installs = [text for text in ci if "pip install" in text and ".[test]" in text]
    runs = [shlex.split(text) for text in ci if "pytest" in text and not text.lstrip().startswith("#")]
    assert installs and all('-e ".[test]"' in text for text in installs), installs
    assert len(runs) == 1 and runs[0][:3] == ["python", "-m", "pytest"], runs
    # pytest's own options only (-q): no paths, markers or deselections beyond what README's `pytest` runs.
    assert all(arg.startswith("-") and arg in ("-q", "-v", "-x") for arg in runs[0][3:]), runs
