"""The app's pages, named once: the sidebar menu and the home page's list of views both come from here.

Streamlit names the entry page after its file (``app.py`` -> "app") when it builds
the menu from ``pages/`` by itself; that menu is turned off in
``.streamlit/config.toml`` (``client.showSidebarNavigation = false``) and
:func:`sidebar_menu` draws the same links with ``st.page_link`` and proper names
(the documented way to build a custom menu), so the first entry reads "Home".
"""

from __future__ import annotations

import streamlit as st

__all__ = ["HOME", "VIEWS", "sidebar_menu", "view_links"]

HOME = ("app.py", "Home", ":material/home:")
#: (file, label, what it shows, icon) of every view, in menu order.
VIEWS = [
    ("pages/1_Data.py", "Data", "pick a sample or upload CSV/TSV/Parquet/NPY; columns, scaling, row cap",
     ":material/table:"),
    ("pages/2_Shadow_centers.py", "Shadow centers", "which points the shadow keeps, and their weights",
     ":material/scatter_plot:"),
    ("pages/3_KDE_vs_ShDE.py", "KDE vs ShDE", "the full density estimate against the reduced one, MMD bound",
     ":material/area_chart:"),
    ("pages/4_Embeddings.py", "Embeddings",
     "exact KPCA beside RSKPCA, the Nystrom baselines and the other speed-ups", ":material/bubble_chart:"),
    ("pages/5_Bounds.py", "Bounds", "Theorems 5.1-5.4: closed form, data-dependent and measured",
     ":material/functions:"),
    ("pages/6_Speedups.py", "Speedups", "training and test time against exact KPCA, over ell, for any method group",
     ":material/speed:"),
    ("pages/7_Kernelization.py", "Kernelization", "a classifier on RSKPCA features vs exact KPCA features",
     ":material/category:"),
    ("pages/8_Learn.py", "Learn", "the method explained, with formulas", ":material/school:"),
    ("pages/9_Denoise.py", "Denoise", "noisy images back through PCA, exact KPCA, RSKPCA and Nystrom pre-images",
     ":material/auto_fix_high:"),
    ("pages/10_Spectral.py", "Spectral", "diffusion maps, Laplacian eigenmaps and spectral clustering on the shadow, "
     "beside the exact method", ":material/hub:"),
]

# Page links render as plain grey text; in the main area they are links to read, so they look like links.
# A constant style sheet of this app (never user text); the colour is the theme's primaryColor (.streamlit/config.toml).
_LINK_STYLE = """<style>
[data-testid="stMain"] [data-testid="stPageLink"] a span { color: #3b5bdb;
  text-decoration: underline; text-underline-offset: 3px; }
</style>"""


def sidebar_menu(where=None, query_params: dict | None = None) -> None:
    """The menu at the top of the sidebar: Home, then every view.

    ``where``: the container to draw in (the sidebar's top, kept for it); ``query_params``: the
    link's settings, carried by every link, so that Back takes one press: a link without them opens
    its page on a bare address, which the page then rewrites with its settings (two history entries).
    """
    where = where if where is not None else st.sidebar
    where.page_link(HOME[0], label=HOME[1], icon=HOME[2], query_params=query_params)
    for path, label, _, icon in VIEWS:
        where.page_link(path, label=label, icon=icon, query_params=query_params)
    where.divider()


def view_links() -> None:
    """The home page's list of views: each a link (styled as one, carrying the link's settings) with what it shows."""
    st.html(_LINK_STYLE)
    params = dict(st.query_params)
    for path, label, what, icon in VIEWS:
        st.page_link(path, label=f"{label}: {what}", icon=icon, query_params=params)
