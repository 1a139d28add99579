"""Denoise: noisy images (or feature vectors) mapped back through linear PCA, exact KPCA, RSKPCA and Nystrom
pre-images."""

import numpy as np
import pandas as pd
import streamlit as st

from rskpca.ui.first_visit import load_libraries

load_libraries()  # a server's first visit: a spinner while the libraries load, not an empty page

from rskpca import plotting as plots
from rskpca.evaluation.denoising import DENOISERS, MIN_IMAGE_PIXELS, NOISE_KINDS, check_image_shape
from rskpca.ui import setting, show_error, show_figure, show_table, start_page, warn_if_kernel_is_identity
from rskpca.ui.compute.denoising import MAX_TRAIN, denoised, images_reason
from rskpca.ui.denoise import init_image_shape, remember_image_shape, swap_image_sides

settings = start_page("Denoise: pre-images of noisy images")
ds = settings.dataset
st.markdown("Noise is added to images, each method projects the noisy images on its r components and maps them "
            "back to pixels (`inverse_transform`: a kernel ridge map learned on the points the method keeps, "
            "RSKPCA's on its m weighted shadow centers, or the Gaussian fixed-point iteration of Mika et al. "
            "1999). The error is the mean squared difference from the clean images. Use the **digits** sample "
            "(8 x 8 pixels) or your own images (rows of pixels) uploaded on the Data page.")
if ds.d < MIN_IMAGE_PIXELS:
    st.info(f"This page denoises images, one image per row of pixels; the data in use has {ds.d} feature "
            f"column(s), fewer than a {int(MIN_IMAGE_PIXELS ** 0.5)} x {int(MIN_IMAGE_PIXELS ** 0.5)} image. Pick the "
            "digits sample in the sidebar (8 x 8 images) or upload your own images on the Data page.")
    st.stop()
init_image_shape(ds.digest, ds.X)
c1, c2, c3, c4 = st.columns(4)
c1.number_input("Image height (pixels)", min_value=1, step=1, key="dn_height")
c2.number_input("Image width (pixels)", min_value=1, step=1, key="dn_width")
c3.selectbox("Noise", list(NOISE_KINDS), key="dn_noise", format_func=NOISE_KINDS.get)
c4.slider("Noise level", 0.0, 0.5, step=0.01, key="dn_level",
          help="Gaussian: standard deviation as a fraction of the pixel range. Salt and pepper: fraction of pixels.")
c5, c6, c7 = st.columns(3)
gaussian = settings.kernel == "gaussian"
PREIMAGE_HELP = ("ridge: learned map (scikit-learn's inverse_transform). fixed-point: Mika et al. (1999), Gaussian "
                 "kernel only, started from the ridge pre-image. Nystrom always uses ridge.")
if gaussian:
    c5.radio("Pre-image", ["ridge", "fixed-point"], key="dn_preimage", horizontal=True, help=PREIMAGE_HELP)
else:
    # Another widget for the Laplacian's single choice, so the user's Gaussian choice is kept (one radio with
    # fewer options would reset it to ridge)
    c5.radio("Pre-image", ["ridge"], key="dn_preimage_laplacian", horizontal=True, help=PREIMAGE_HELP)
c6.select_slider("Ridge alpha", [1e-5, 1e-4, 1e-3, 1e-2, 1e-1, 1.0], key="dn_alpha")
c7.toggle("Fit on noisy training images", key="dn_fit_noisy",
          help="Off: fit on clean images (the shadow then keeps the m the sidebar shows). On: as scikit-learn's "
               "example, fit on noisy ones (noise spreads the points, so the shadow keeps more centers).")
h, w = remember_image_shape(ds.digest)
try:
    check_image_shape(ds.d, h, w)
except ValueError as exc:
    show_error(f"Image shape: {exc}")
    st.stop()
if ds.n < 10:
    show_error(f"Denoising needs at least 10 images; this data set has {ds.n} rows.")
    st.stop()
column_major = bool(setting("dn_column_major"))
# (column by column, an h x w image has the neighbours of a w x h one stored row by row: the check's grid)
why_not = images_reason(ds.digest, ds.X, *((w, h) if column_major else (h, w)))
not_images = bool(why_not) and not st.toggle("Draw the rows as images anyway", key="dn_as_images",
                                             help="The check looks at the data, not at what they mean: if these "
                                                  "are pictures, draw them.")
if why_not:
    st.info(f"These rows do not look like {h} x {w} images: {why_not}. Denoising still applies to any feature "
            "vectors: each method below reconstructs the noisy rows from its r components, and the rows are "
            "drawn as profiles over their features instead of as pictures"
            + (" (switched off: drawn as images)." if not not_images else "."), icon=":material/info:")
preimage = setting("dn_preimage") if gaussian else "ridge"
try:
    clean, results, n_train = denoised(ds.digest, ds.X, setting("dn_noise"), float(setting("dn_level")),
                                       bool(setting("dn_fit_noisy")), settings.sigma, settings.ell, settings.r,
                                       float(setting("dn_alpha")), settings.kernel, preimage, DENOISERS)
except (ValueError, np.linalg.LinAlgError, MemoryError) as exc:
    show_error(f"Denoising failed: {exc}")
    st.stop()
warn_if_kernel_is_identity(ds, settings.sigma, settings.kernel)
st.caption(f"Fitted on {n_train} training images (at most {MAX_TRAIN}: exact KPCA is n x n), errors over "
           f"{clean.shape[0]} test images; sigma = {settings.sigma:.4g}, ell = {settings.ell:g}, r = {settings.r}.")
table = pd.DataFrame([{"method": r["method"], "MSE vs clean": r["mse"], "fit time (s)": r["fit_s"],
                       "points the pre-image map uses": r["m"]} for r in results])
cols = st.columns(len(results))
for col, r in zip(cols, results):
    col.metric(r["method"], f"{r['mse']:.4g}", None if r["fit_s"] is None else f"fit {r['fit_s']:.3g} s",
               delta_color="off", delta_arrow="off", help="Mean squared error against the clean images")
noisy_mse = results[0]["mse"]  # the noisy input comes first
if all(r["mse"] > noisy_mse for r in results[1:]):
    # said, with its cause and fix, so the user does not read it as denoising failing
    st.info(f"Every reconstruction is further from the clean images than the noisy input (MSE {noisy_mse:.4g}): "
            f"at this noise level r = {settings.r} components drop more of the images than of the noise. Raise "
            "the rank r in the sidebar or the noise level above to see where denoising pays.",
            icon=":material/info:")
if not_images:
    show_figure(plots.denoise_profiles_figure(results, clean, ds.feature_names), key="dn_profiles",
                filename="denoise_profiles")
    st.caption("Each panel is one test row: its value at every feature, clean, noisy and as each method "
               "reconstructs it (the legend gives each method's mean squared error over all test rows).")
else:
    c8, c9 = st.columns(2)
    c8.toggle("Pixels stored column by column", key="dn_column_major", on_change=swap_image_sides,
              help="Each row's pixels fill the image column by column (MATLAB's order, as the Yale faces are "
                   "stored): images that lie on their side stand up. Height and width swap with it, so the "
                   "same pixels stay neighbours.")
    c9.toggle("Bright values light", key="dn_light_high",
              help="Off: high values dark, as ink on paper (digits). On: high values light, as in photographs.")
    show_figure(plots.denoise_figure(results, clean, (h, w), order="F" if column_major else "C",
                                     light_high=bool(setting("dn_light_high"))), key="dn_images", filename="denoise")
show_table(table, key="dn_table", filename="denoise")
