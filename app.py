"""Home page of the RSKPCA app: `streamlit run app.py` (the views are in pages/, the menu in rskpca.ui.nav).

`rskpca app FILE` or `streamlit run app.py -- FILE` opens it on a data file read on the server (every page
reads the words after `--` from sys.argv: rskpca.ui.app_file).
"""

import streamlit as st

from rskpca.ui.first_visit import load_libraries

load_libraries()  # a server's first visit: a spinner while the libraries load, not an empty page

from rskpca.ui import sidebar
from rskpca.ui.nav import view_links
from rskpca.ui.page_setup import ICON

st.set_page_config(page_title="RSKPCA explorer", page_icon=ICON, layout="wide")
st.title("Reduced-Set Kernel PCA with the Shadow Density Estimate")  # on screen while the sidebar loads the data
settings = sidebar()
st.markdown(
    "Kernel PCA on n points costs an n x n eigenproblem. The **shadow density estimate** keeps only "
    "m points (*shadow centers*), each weighted by how many points lie within eps = sigma / ell of it, "
    "and **RSKPCA** solves an m x m problem instead (Kingravi, Vela & Gray, SDM 2013). "
    "Pick data and settings in the sidebar; every page updates live and keeps your settings, "
    "and the address bar holds the sidebar's settings (with the name of the data, and the rows the Bounds "
    "page measures on) so a view can be shared; "
    "a page's other choices (a classifier, the denoising controls) stay in your session."
)
if settings is not None:
    ds = settings.dataset
    cols = st.columns(4)
    cols[0].metric("rows n", ds.n)
    cols[1].metric("features d", ds.d)
    cols[2].metric("sigma", f"{settings.sigma:.4g}")
    cols[3].metric("ell", f"{settings.ell:g}")
    st.caption("Data set:")
    st.text(settings.title)

st.subheader("Views")
view_links()
