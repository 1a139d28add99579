"""A server's first visit: say that the app is starting while the numerical libraries load.

A fresh server process spends several seconds importing scikit-learn, SciPy and pandas, and
loading the shadow's compiled loops, before a page can draw anything; without a word the browser
shows an empty page for all of it. Every page calls :func:`load_libraries` right after importing
Streamlit and before its own imports, which are then instant. This module imports nothing but
Streamlit (``rskpca`` and ``rskpca.ui`` load their names lazily), so the notice is on screen within
Streamlit's own start-up.
"""

from __future__ import annotations

import importlib
import sys

import streamlit as st

__all__ = ["load_libraries", "STARTING_MESSAGE"]

#: The modules whose imports are the wait: every page's own imports come from these.
HEAVY_MODULES = ("rskpca.ui.page_setup", "rskpca.plotting", "rskpca.ui.compute")

STARTING_MESSAGE = ("Starting the app: loading the numerical libraries and the compiled shadow scan (once per "
                    "server: a few seconds, more the first time after an install, which compiles the scan)...")


def load_libraries() -> None:
    """Import the app's libraries behind a spinner the first time a server process runs a page.

    On later runs the modules are loaded and this returns at once, drawing nothing.
    """
    if all(name in sys.modules for name in HEAVY_MODULES):
        return
    st.set_page_config(layout="wide")  # as every page's own call (page_setup.start_page) sets it: no jump
    with st.spinner(STARTING_MESSAGE):
        for name in HEAVY_MODULES:
            importlib.import_module(name)
        from rskpca.core.shadow import load_compiled_kernels

        load_compiled_kernels()  # under the same spinner: the sidebar's shadow then starts at once
