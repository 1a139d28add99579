"""Learn: the method explained for a classroom, with the formulas and where each idea is shown."""

import streamlit as st

from rskpca.ui.first_visit import load_libraries

load_libraries()  # a server's first visit: a spinner while the libraries load, not an empty page

from rskpca.ui import start_page


def see(page: str, label: str) -> None:
    """A link to the page that shows what a section explains (with an arrow: plain text read as a caption)."""
    st.page_link(page, label=label, icon=":material/arrow_forward:")


start_page("How RSKPCA works", needs_data=False)

st.header("1. Kernel PCA")
st.markdown("Kernel PCA finds the directions of largest variance after mapping each point x to psi(x) in a "
            "feature space defined by a kernel. Here the kernel is radial:")
st.latex(r"k(x,y)=\phi\!\left(\frac{\|x-y\|^p}{\sigma^p}\right),\qquad "
         r"\text{Gaussian: } k(x,y)=e^{-\|x-y\|^2/\sigma^2},\quad \text{Laplacian: } k(x,y)=e^{-\|x-y\|/\sigma}")
st.markdown("On n points it needs the n x n matrix K and its eigenvectors: O(n^2) memory, O(n^3) time, and "
            "every new point is compared with all n training points.")
st.latex(r"K_{ij}=k(x_i,x_j),\qquad \tfrac1n K\,v_k=\lambda_k v_k")
see("pages/4_Embeddings.py", label="See exact KPCA embeddings on the Embeddings page")

st.header("2. Kernel PCA sees the data through a density")
st.markdown("The kernel matrix only enters through the kernel density estimate (KDE) of the data. "
            "Replace the KDE by a density built on m << n weighted points and the eigenproblem shrinks to m x m.")
st.latex(r"\hat p(x)=\frac1n\sum_{i=1}^n k(x,x_i)\quad\longrightarrow\quad "
         r"\tilde p(x)=\sum_{j=1}^m \frac{w_j}{n}\,k(x,c_j),\qquad \sum_j w_j=n")
see("pages/3_KDE_vs_ShDE.py", label="Compare the two densities on the KDE vs ShDE page")

st.header("3. The shadow density estimate (Algorithm 2)")
st.markdown("Visit the points in order. A point becomes a **center** unless an earlier center lies within "
            "eps of it; otherwise it joins the earliest such center. The weight of a center is the number "
            "of points in its shadow. The radius is tied to the kernel by one number ell:")
st.latex(r"\varepsilon=\frac{\sigma}{\ell},\qquad w_j=|S_j|,\qquad "
         r"\|x_i-c_{\alpha(i)}\|<\varepsilon")
st.markdown("Larger ell: smaller shadows, more centers, a closer approximation and less speedup. In high "
            "dimensions points are far apart relative to sigma, so m/n grows quickly with ell.")
see("pages/2_Shadow_centers.py", label="Watch the centers change with ell on the Shadow centers page")

st.header("4. Reduced-set KPCA (Algorithm 1)")
st.markdown("Solve the weighted m x m problem (centered as in ordinary KPCA, with p = w/n):")
st.latex(r"\tilde K=W\,(I-\mathbf 1p^\top)\,K^{C}\,(I-p\mathbf 1^\top)\,W,\qquad "
         r"K^C_{ij}=k(c_i,c_j),\quad W=\mathrm{diag}(\sqrt{w_1},\dots,\sqrt{w_m})")
st.latex(r"z_k(x)=\lambda_k^{-1/2}\sum_{j=1}^m \sqrt{w_j}\,b_{kj}\,\big(k(c_j,x)-\mu_j\big),\qquad \mu=K^Cp")
st.markdown("This is exactly kernel PCA on the data set where each center is repeated w_j times. Training "
            "costs O(mnd + m^3); a new point costs O(md) instead of O(nd).")
see("pages/6_Speedups.py", label="Measure the training and test speedups on the Speedups page")

st.header("5. What ell guarantees (Section 5)")
st.markdown("Every point is within eps of its center, so in feature space it is within "
            "sqrt(2(kappa - phi(1/ell^p))) of it (kappa = k(x,x) = 1). The bounds follow:")
st.latex(r"\text{5.1: } \mathrm{MMD}(X,\bar C)\le\sqrt{2(\kappa-\phi(1/\ell^p))}")
st.latex(r"\text{5.2: } \sum_i(\lambda_i-\bar\lambda_i)^2\le 2C\,(\sigma/\ell)^2")
st.latex(r"\text{5.3: } \|K_n-\bar K_n\|_{HS}\le 2\sqrt{\kappa}\sqrt{2(\kappa-\phi(1/\ell^p))}")
st.latex(r"\text{5.4: } \|P^D(K_n)-P^D(\bar K_n)\|_{HS}\le \frac{2\sqrt{2\kappa(\kappa-\phi(1/\ell^p))}}{\delta_D}"
         r"\quad\text{(when the gap condition holds)}")
st.markdown("The constant C of 5.2 as printed in the paper is too small for the kernel convention above; the "
            "app uses a constant that provably holds and shows the paper's value beside it.")
see("pages/5_Bounds.py", label="Check each bound against the measured value on the Bounds page")

st.header("6. Compared with Nystrom")
st.markdown("Nystrom also solves an m x m problem on m landmarks, but extends the eigenvectors to all n "
            "training points and projects new points through them (storage O(nr)). Density-weighted "
            "Nystrom weights k-means landmarks by cluster size. Subsampled KPCA drops the weights; the "
            "Embeddings page shows why the weights matter.")
see("pages/7_Kernelization.py", label="Use the features in a classifier on the Kernelization page")
see("pages/1_Data.py", label="Try your own data on the Data page")

st.header("7. Beyond kernel PCA: spectral methods on the shadow (Section 3)")
st.markdown("The construction is not special to kernel PCA. Any method whose operator has the form "
            "g(x, y) k(x, y) f(y) p(y) (eqs. 14-15) only sees the data through the density p, so it can be solved on "
            "the reduced set exactly as KPCA is, with p the shadow density: an m x m eigenproblem on the weighted "
            "centers, exact for the data quantized to the centers (each center repeated w_j times), and new points "
            "extended through the m centers.")
st.latex(r"q=K^C w,\quad K_\alpha=\frac{K^C}{q^\alpha\,q^{\alpha\top}},\quad D=\mathrm{diag}(K_\alpha w),\quad "
         r"P=D^{-1}K_\alpha\,\mathrm{diag}(w),\qquad P\,\psi_k=\lambda_k\psi_k,\quad x\mapsto\lambda_k^t\,\psi_k(x)")
st.markdown("Diffusion maps (Coifman & Lafon 2006) take the right eigenvectors of this random walk on the "
            "centers, drop the trivial one (eigenvalue 1) and embed each point as lambda^t psi: alpha = 1 removes "
            "the density, so the embedding follows the geometry of the data's manifold. Laplacian eigenmaps "
            "(Belkin & Niyogi 2003) are the alpha = 0, t = 0 eigenvectors, and spectral clustering runs k-means "
            "on them, weighted by w, so every row takes its center's cluster.")
see("pages/10_Spectral.py", label="Embed and cluster every row through the shadow on the Spectral page")
