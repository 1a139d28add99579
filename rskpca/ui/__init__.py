"""Streamlit glue for the app (the only part of rskpca that imports Streamlit).

Pages call :func:`sidebar` first, then cached computations from
:mod:`rskpca.ui.compute`, figure builders from :mod:`rskpca.plotting`, and render
with :func:`show_figure` / :func:`show_table`.
"""

from rskpca.ui import compute
from rskpca.ui.state import Settings, sidebar, start_page
from rskpca.ui.widgets import (choose_methods, download_csv, plain, reduction_note, show_error, show_figure,
                               show_table, show_text_list, without_slow_methods)

__all__ = ["compute", "Settings", "sidebar", "start_page", "show_figure", "show_table", "reduction_note",
           "show_text_list", "show_error", "plain", "without_slow_methods", "download_csv",
           "choose_methods"]
