"""The README's ten-line example runs and prints the numbers it promises."""

import contextlib
import io
import re
from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"


def test_readme_example_prints_what_it_says():
    text = README.read_text(encoding="utf-8")
    section = text.split("## Ten lines of Python", 1)[1]
    code = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, "README.md", "exec"), {})
    first, eig = out.getvalue().strip().split("\n", 1)
    assert first == "733 20000 0.5"
    promised = re.search(r"# \[([\d. ]+)\]", code).group(1).split()
    printed = re.findall(r"[\d.]+", eig)
    assert [round(float(p), 2) for p in printed] == [float(p) for p in promised]
