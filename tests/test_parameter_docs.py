"""Shared parameter docs do not drift: one text per shared parameter, options as the code accepts them."""

import inspect
import re

import pytest
from sklearn.externals._numpydoc.docscrape import ClassDoc
from sklearn.utils._param_validation import StrOptions

import rskpca
import rskpca.decomposition as decomposition
from rskpca.decomposition._parameter_docs import SHARED_PARAMETER_DOCS

ESTIMATORS = sorted({getattr(rskpca, name) for name in dir(rskpca) if name.endswith("KPCA")}
                    | {getattr(decomposition, name) for name in decomposition.__all__}, key=lambda c: c.__name__)


def _documented(cls) -> dict:
    return {p.name: (p.type, " ".join(line.strip() for line in p.desc)) for p in ClassDoc(cls)["Parameters"]}


def test_the_estimators_found_include_every_one_the_shared_docs_name():
    names = {cls.__name__ for cls in ESTIMATORS}
    for doc in SHARED_PARAMETER_DOCS.values():
        assert set(doc.estimators) <= names


@pytest.mark.parametrize(("parameter", "estimator"),
                         [(p, e) for p, doc in SHARED_PARAMETER_DOCS.items() for e in doc.estimators])
def test_a_shared_parameter_reads_the_same_in_every_estimator_that_shares_it(parameter, estimator):
    documented = _documented(getattr(rskpca, estimator))
    canonical = SHARED_PARAMETER_DOCS[parameter]
    assert documented[parameter] == (canonical.type, canonical.description), (
        f"{estimator}'s {parameter} drifted from rskpca/decomposition/_parameter_docs.py; "
        f"paste docstring_entry({parameter!r}) there")


@pytest.mark.parametrize("cls", ESTIMATORS, ids=lambda c: c.__name__)
def test_every_init_parameter_is_documented_and_nothing_else(cls):
    init = [p for p in inspect.signature(cls.__init__).parameters if p != "self"]
    assert list(_documented(cls)) == init


@pytest.mark.parametrize("cls", ESTIMATORS, ids=lambda c: c.__name__)
def test_documented_options_are_the_options_the_estimator_accepts(cls):
    documented = _documented(cls)
    for name, constraints in cls._parameter_constraints.items():
        accepted = set().union(*[c.options for c in constraints if isinstance(c, StrOptions)])
        braces = re.match(r"\{(.*?)\}", documented[name][0])
        if braces:  # {"a", "b"}, default=...: exactly the accepted strings
            assert {o.strip().strip('"') for o in braces.group(1).split(",")} == accepted, name
        for option in accepted:  # float or "median": every accepted string is named
            assert f'"{option}"' in documented[name][0], (name, option)


@pytest.mark.parametrize("cls", ESTIMATORS, ids=lambda c: c.__name__)
def test_documented_defaults_are_the_signatures(cls):
    signature = inspect.signature(cls.__init__).parameters
    for name, (type_line, _) in _documented(cls).items():
        default = re.search(r"default=(.*)$", type_line)
        if default:  # "1e-8", "2**31", '"median"', "None": read as Python
            assert eval(default.group(1), {"__builtins__": {}}) == signature[name].default, name


def test_the_drift_the_test_exists_for_is_caught():
    """A docstring listing fewer solvers than the estimator accepts fails the options check."""

    class Drifted(rskpca.NystromKPCA):
        __doc__ = rskpca.NystromKPCA.__doc__.replace('{"auto", "dense", "arpack", "block"}',
                                                     '{"auto", "dense", "arpack"}')

    with pytest.raises(AssertionError, match="eigen_solver"):
        test_documented_options_are_the_options_the_estimator_accepts(Drifted)
