"""Streamlit glue for the app (the only part of rskpca that imports Streamlit).

Pages only draw: they call :func:`start_page` (the sidebar) first, then cached computations from
:mod:`rskpca.ui.compute`, figure builders from :mod:`rskpca.plotting`, and render
with :func:`show_figure` / :func:`show_table`. Every session-state key is
registered in :mod:`rskpca.ui.keys`; :mod:`rskpca.ui.state`, :mod:`rskpca.ui.tables`
and :mod:`rskpca.ui.page_setup` own the rest.

The names below load on first use (PEP 562), so a tool in this package such as
``python tests/benchmarks/bench_latency.py`` can configure Streamlit's logging before
the cached functions of :mod:`rskpca.ui.compute` are created.
"""

import importlib

_EXPORTS = {
    "compute": "rskpca.ui.compute",
    "Settings": "rskpca.ui.state", "sidebar": "rskpca.ui.page_setup", "start_page": "rskpca.ui.page_setup",
    "setting": "rskpca.ui.state", "fragment": "rskpca.ui.state",
    **{name: "rskpca.ui.widgets" for name in (
        "choose_methods", "comparison_note", "download_csv", "plain", "reduction_note", "show_error",
        "show_errors", "show_figure", "show_table", "show_text_list", "stop_unless_rank_fits", "without_slow_methods",
        "warn_if_kernel_is_identity")},
}

__all__ = ["compute", "Settings", "sidebar", "start_page", "setting", "fragment", "show_figure", "show_table", "reduction_note",
           "show_text_list", "show_error", "plain", "without_slow_methods", "download_csv",
           "choose_methods", "comparison_note", "show_errors", "stop_unless_rank_fits", "warn_if_kernel_is_identity"]


def __getattr__(name: str):
    if name not in _EXPORTS:
        raise AttributeError(f"module 'rskpca.ui' has no attribute {name!r}")
    module = importlib.import_module(_EXPORTS[name])
    value = module if _EXPORTS[name].endswith("." + name) else getattr(module, name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(__all__))
