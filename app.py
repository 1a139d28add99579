"""Home page of the RSKPCA app: `streamlit run app.py` (the views are discovered from pages/)."""

import streamlit as st

from rskpca.ui import sidebar

st.set_page_config(page_title="RSKPCA explorer", page_icon=":material/scatter_plot:", layout="wide")
settings = sidebar()

st.title("Reduced-Set Kernel PCA with the Shadow Density Estimate")
st.markdown(
    "Kernel PCA on n points costs an n x n eigenproblem. The **shadow density estimate** keeps only "
    "m points (*shadow centers*), each weighted by how many points lie within eps = sigma / ell of it, "
    "and **RSKPCA** solves an m x m problem instead (Kingravi, Vela & Gray, SDM 2013). "
    "Pick data and settings in the sidebar; every page updates live and keeps your settings, "
    "and the address bar holds them so a view can be shared."
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
for page, label, what in [
    ("pages/1_Data.py", "Data", "pick a sample or upload CSV/TSV/Parquet/NPY; columns, scaling, row cap"),
    ("pages/2_Shadow_centers.py", "Shadow centers", "which points the shadow keeps, and their weights"),
    ("pages/3_KDE_vs_ShDE.py", "KDE vs ShDE", "the full density estimate against the reduced one, MMD bound"),
    ("pages/4_Embeddings.py", "Embeddings", "exact KPCA beside RSKPCA, the Nystrom baselines and the other speed-ups"),
    ("pages/5_Bounds.py", "Bounds", "Theorems 5.1-5.4: closed form, data-dependent and measured"),
    ("pages/6_Speedups.py", "Speedups", "training and test time against exact KPCA, over ell, for any method group"),
    ("pages/7_Kernelization.py", "Kernelization", "a classifier on RSKPCA features vs exact KPCA features"),
    ("pages/8_Learn.py", "Learn", "the method explained, with formulas"),
    ("pages/9_Denoise.py", "Denoise", "noisy images back through PCA, exact KPCA, RSKPCA and Nystrom pre-images"),
]:
    st.page_link(page, label=f"{label}: {what}")
