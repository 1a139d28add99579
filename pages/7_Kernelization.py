"""Kernelization (seed 003): a classifier on RSKPCA features vs on exact KPCA features."""

import numpy as np
import pandas as pd
import streamlit as st

from rskpca import plotting as plots
from rskpca.evaluation.classify import CLASSIFIERS
from rskpca.ui import compute, reduction_note, show_error, show_figure, show_table, start_page

settings = start_page("Kernelization: classify on kernel PCA features")
ds, sigma, ell, kernel, r = settings.dataset, settings.sigma, settings.ell, settings.kernel, settings.r
st.markdown("A linear method on kernel PCA features is a kernel method. Here a classifier is trained on the "
            "r features of RSKPCA and of exact KPCA inside one scikit-learn Pipeline, with stratified "
            "cross-validation; time is the mean per fold.")
if ds.y is None:
    st.info("This needs a label column: choose one on the Data page (the bundled samples all have one).")
    st.stop()
if st.session_state.get("classifier") is None:
    st.session_state["classifier"] = "knn"
c1, c2 = st.columns(2)
c1.selectbox("Classifier", list(CLASSIFIERS), key="classifier", format_func=CLASSIFIERS.get)
c2.slider("Folds", 2, 10, key="cv_folds")
clf, folds = st.session_state["classifier"], int(st.session_state["cv_folds"])

rows_idx, Xc, dig = compute.comparison_set(ds)
yc = ds.y[rows_idx]
if rows_idx.size < ds.n:
    st.info(f"Cross-validated on a seeded sample of {rows_idx.size} of the {ds.n} rows (exact KPCA needs an "
            "n x n matrix per fold).")
shadow = compute.shadow(dig, Xc, sigma, ell, kernel)
reduction_note(shadow.m, shadow.n)

# Exact KPCA's features do not depend on ell: cross-validated once and cached. RSKPCA's do, and
# cross-validating them costs `folds` fits per ell value, which would freeze the ell slider: it runs
# when asked (or at every change, if the user turns that on).
runs = [("exact", "Exact KPCA", None)]
requested = st.session_state.setdefault("_cv_requested", set())
request = (dig, clf, sigma, kernel, r, ell, folds)
live = st.toggle(f"Cross-validate RSKPCA at every ell change ({folds} fits per change)", key="cv_live")
if live or request in requested:
    runs.append(("rskpca", "ShDE + RSKPCA", ell))
elif st.button(f"Cross-validate RSKPCA at ell = {ell:g}", key="cv_run", type="primary",
               icon=":material/play_arrow:"):
    requested.add(request)
    runs.append(("rskpca", "ShDE + RSKPCA", ell))
else:
    st.info(f"RSKPCA features change with ell, so their {folds}-fold cross-validation runs on demand: press the "
            "button (results are kept per ell and settings) or turn on the live toggle. Exact KPCA is shown "
            "already: it does not depend on ell.")
results = {}
for method, label, method_ell in runs:
    try:
        results[label] = compute.cross_validated(dig, Xc, yc, method, clf, sigma, kernel, r, method_ell, folds)
    except (ValueError, np.linalg.LinAlgError, MemoryError) as exc:
        show_error(f"{label}: {exc}")
if not results:
    st.stop()
table = pd.DataFrame([{"features": k, **{f: v for f, v in res.items() if f != "scores"}}
                      for k, res in results.items()])
cols = st.columns(len(results))
for col, (k, res) in zip(cols, results.items()):
    col.metric(f"{k} accuracy", f"{res['accuracy']:.3f}", f"± {res['accuracy_std']:.3f}", delta_color="off",
               delta_arrow="off")
show_table(table, key="cv_table", filename="classification")
left, right = st.columns(2)
with left:
    show_figure(plots.bar_figure({k: v["accuracy"] for k, v in results.items()},
                                 errors={k: v["accuracy_std"] for k, v in results.items()},
                                 title=f"Cross-validated accuracy ({folds} folds)", yaxis_title="accuracy"),
                key="cv_accuracy", filename="classification_accuracy")
with right:
    show_figure(plots.fit_predict_figure(results, title="Mean time per fold"),
                key="cv_time", filename="classification_time")
