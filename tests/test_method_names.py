"""The registry carries the methods: no method's name is spelled outside rskpca/evaluation/methods.py.

Code asks the registry (``METHODS[...]``'s capabilities, ``REFERENCE``, ``SHADOW_METHOD``,
``methods_in(role)``) instead of comparing with a name, so a method renamed, added or given
a new capability changes one file. Docstrings may name methods (examples, prose). A string
that equals a method's name but means something else (the command's name ``rskpca``, a
parameter called ``exact``) carries the comment ``# not a method name`` on its line.
"""

import ast
import pathlib

import numpy as np
import pytest

from rskpca.core.shadow import shadow_centers
from rskpca.evaluation._measured_costs import SECONDS_PER_NM
from rskpca.evaluation.methods import METHODS, REFERENCE, SHADOW_METHOD, make_estimator, methods_in

ROOT = pathlib.Path(__file__).resolve().parents[1]
REGISTRY = ROOT / "rskpca" / "evaluation" / "methods.py"
#: Written by a benchmark, keyed by the registry's names (their keys are checked below).
GENERATED = {ROOT / "rskpca" / "evaluation" / "_measured_costs.py": "tests/benchmarks/bench_costs.py --write"}
MARKER = "# not a method name"


def method_name_literals(source: str, names=frozenset(METHODS)) -> list[tuple[int, str]]:
    """``(line, column, name)`` of each string constant equal to a method's name, docstrings and marked lines left out."""
    tree = ast.parse(source)
    lines = source.splitlines()
    docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                  if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
                  and node.body and isinstance(node.body[0], ast.Expr)
                  and isinstance(node.body[0].value, ast.Constant)}
    return sorted((node.lineno, node.col_offset, node.value) for node in ast.walk(tree)
                  if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in names
                  and id(node) not in docstrings and MARKER not in lines[node.lineno - 1])


def _sources():
    files = [*ROOT.glob("rskpca/**/*.py"), *ROOT.glob("pages/*.py"), ROOT / "app.py"]
    return sorted(f for f in files if f != REGISTRY and f not in GENERATED)


@pytest.mark.parametrize("path", _sources(), ids=lambda p: str(p.relative_to(ROOT)))
def test_no_method_name_is_spelled_outside_the_registry(path):
    found = method_name_literals(path.read_text())
    assert not found, (f"{path.relative_to(ROOT)} spells method names {found}: ask rskpca.evaluation.methods "
                       "(METHODS[name]'s capabilities, REFERENCE, SHADOW_METHOD, methods_in) instead")


def test_the_generated_costs_name_only_registered_methods_that_embed_all_rows():
    assert set(SECONDS_PER_NM) == {name for name, m in METHODS.items() if m.embeds_all_rows}


def test_the_scan_finds_a_comparison_a_tuple_and_a_call_but_not_docstrings_or_marked_lines():
    source = '''"""Mentions "rskpca" freely."""
def f(name, rows):
    """Also 'nystrom'."""
    if name == "rskpca":
        return ("subsampled", "nystrom")
    parser(prog="rskpca")  # not a method name
    return rows["exact"]
'''
    assert [(line, name) for line, _, name in method_name_literals(source)] == [
        (4, "rskpca"), (5, "subsampled"), (5, "nystrom"), (7, "exact")]


# ---------------------------------------------------------------------------
# What the registry says of each method is true of its estimator
# ---------------------------------------------------------------------------

X = np.random.default_rng(0).normal(size=(300, 3))


def _fit(name, m=40):
    return make_estimator(name, n_components=2, sigma=1.5, m=m, random_state=3).fit(X)


def test_the_methods_said_to_share_subsampled_kpcas_rows_draw_the_same_rows():
    names = [name for name, method in METHODS.items() if method.same_rows_as_subsampled]
    points = [getattr(_fit(name), METHODS[name].reduced_set[0]) for name in names]
    assert len(names) >= 2
    for other in points[1:]:
        np.testing.assert_array_equal(other, points[0])


def test_exact_kpca_methods_keep_all_rows_and_the_shadow_method_fits_on_a_given_shadow():
    assert REFERENCE.exact_kpca
    for name, method in METHODS.items():
        assert method.exact_kpca == (method.reduced_set is None), name
        if method.exact_kpca:
            assert method.reduced_size(_fit(name), X.shape[0]) == X.shape[0]
    shadow = shadow_centers(X, sigma=1.5, ell=4.0)
    est = make_estimator(SHADOW_METHOD.name, n_components=2, sigma=1.5, ell=4.0).fit_reduced_set(
        shadow.centers, shadow.weights)
    assert SHADOW_METHOD.fits_on_shadow and est.centers_.shape[0] == shadow.m


def test_every_role_lists_registered_methods_and_the_all_rows_methods_have_measured_costs():
    for role in ("paper_embeddings", "paper_rsde", "methods_bench"):
        assert methods_in(role) and set(methods_in(role)) <= set(METHODS)
    with pytest.raises(ValueError, match="Unknown role"):
        methods_in("no such role")
    for method in METHODS.values():
        assert (method.seconds_per_nm is not None) == method.embeds_all_rows, method.name
