"""Kernelization: a classifier on RSKPCA features vs on exact KPCA features."""

import numpy as np
import pandas as pd
import streamlit as st

from rskpca.ui.first_visit import load_libraries

load_libraries()  # a server's first visit: a spinner while the libraries load, not an empty page

from rskpca import plotting as plots
from rskpca.data.datasets import labelled_rows
from rskpca.evaluation.classify import CLASSIFIERS, rows_of_classes_with_folds
from rskpca.evaluation.methods import REFERENCE, SHADOW_METHOD
from rskpca.ui import (comparison_note, compute, plain, reduction_note, show_error, show_figure, show_table,
                       start_page, warn_if_kernel_is_identity)
from rskpca.evaluation.units import seconds_text
from rskpca.ui.compute.spectral_tables import MAX_LABEL_CLASSES, label_problem
from rskpca.ui.progress import resume_button, stopped
from rskpca.ui.state import cv_requested, request_cv

settings = start_page("Kernelization: classify on kernel PCA features")
ds, sigma, ell, kernel, r = settings.dataset, settings.sigma, settings.ell, settings.kernel, settings.r
st.markdown("A linear method on kernel PCA features is a kernel method. Here a classifier is trained on the "
            "r features of RSKPCA and of exact KPCA inside one scikit-learn Pipeline, with stratified "
            "cross-validation; time is the mean per fold.")
if ds.y is None:
    st.info("This needs a label column: choose one on the Data page (the bundled samples all have one).")
    st.stop()
c1, c2 = st.columns(2)
clf = c1.selectbox("Classifier", list(CLASSIFIERS), key="classifier", format_func=CLASSIFIERS.get)
folds = int(c2.slider("Folds", 2, 10, key="cv_folds"))

rows_idx, Xc, dig = compute.comparison_set(ds)
drawn = rows_idx.size
yc = ds.y[rows_idx]
labelled = labelled_rows(yc)
if not labelled.all():  # a row without a label can neither train nor test a classifier
    st.caption(f"{int((~labelled).sum()):,} of these {labelled.size:,} rows have no label: the classifiers are "
               f"trained and tested on the other {int(labelled.sum()):,}.")
    rows_idx, Xc, yc, dig = rows_idx[labelled], Xc[labelled], yc[labelled], f"{dig}:labelled"
    if rows_idx.size < 2:
        st.info("Fewer than two rows have a label here: there is nothing to classify.")
        st.stop()
keep, n_classes, rare = rows_of_classes_with_folds(yc, folds)
label_name = plain(repr(str(ds.label_name or "label")))  # the user's text, shown as text
if n_classes > yc.size / 2:  # mostly one row a class: a measurement or an identifier
    st.info(f"The label column {label_name} has {n_classes:,} distinct values among these {yc.size:,} rows, "
            "most of them on a single row: it looks like a measurement or an identifier, not classes, and a "
            "classifier has nothing to learn from it. Choose a column of classes on the Data page.",
            icon=":material/category:")
    st.stop()
if label_problem(yc) is not None:  # more distinct numbers than classes have (diabetes' 214 progression values)
    st.info(f"The label column {label_name} holds {n_classes:,} distinct numbers among these {yc.size:,} rows: a "
            f"measurement rather than classes (more than {MAX_LABEL_CLASSES} distinct numbers), and a classifier needs "
            "classes. Choose a column of classes on the Data page; the row charts can colour by this one.",
            icon=":material/category:")
    st.stop()
if rare:
    if n_classes - rare < 2:
        st.info(f"Fewer than two classes of {label_name} have {folds} or more rows here, and stratified "
                f"{folds}-fold cross-validation needs that many of each: lower the folds, or choose another label "
                "column on the Data page.", icon=":material/category:")
        st.stop()
    st.caption(f"{rare:,} of the {n_classes:,} classes have fewer than {folds} rows ({int((~keep).sum()):,} rows), "
               f"too few for stratified {folds}-fold cross-validation: the classifiers are trained and tested on "
               f"the other {int(keep.sum()):,} rows.")
    rows_idx, Xc, yc, dig = rows_idx[keep], Xc[keep], yc[keep], f"{dig}:folds{folds}"
shadow = compute.shadow(dig, Xc, sigma, ell, kernel)
comparison_note(shadow.m, rows_idx.size, ds.n, drawn=drawn)
reduction_note(shadow.m, shadow.n, ds.d)  # as on every page that uses the shadow
warn_if_kernel_is_identity(ds, sigma, kernel)

# Exact KPCA's features do not depend on ell: cross-validated once and cached. RSKPCA's do, and
# cross-validating them costs `folds` fits per ell value, which would freeze the ell slider: it runs
# when asked (or at every change, if the user turns that on).
runs = [(REFERENCE.name, REFERENCE.label, None)]
request = (dig, clf, sigma, kernel, r, ell, folds)
live = st.toggle(f"Cross-validate RSKPCA at every ell change ({folds} fits per change)", key="cv_live")
if live or cv_requested(request):
    runs.append((SHADOW_METHOD.name, SHADOW_METHOD.label, ell))
elif st.button(f"Cross-validate RSKPCA at ell = {ell:g} (predicted about "
               + seconds_text(compute.cross_validation_seconds(dig, Xc, SHADOW_METHOD.name, sigma, kernel, r, ell,
                                                               folds)) + ")",
               key="cv_run", type="primary", icon=":material/play_arrow:"):
    request_cv(request)
    runs.append((SHADOW_METHOD.name, SHADOW_METHOD.label, ell))
else:
    st.info(f"RSKPCA features change with ell, so their {folds}-fold cross-validation runs on demand: press the "
            "button (results are kept per ell and settings) or turn on the live toggle. Exact KPCA is shown "
            "already: it does not depend on ell.")
results = {}
for method, label, method_ell in runs:
    token = ("cv", dig, method, clf, sigma, kernel, r, method_ell, folds)
    if stopped(token):  # its Stop button was pressed: not started again until asked
        if not resume_button(token, f"{label}'s cross-validation", key=f"cv_resume_{method}"):
            continue
    try:
        results[label] = compute.cross_validated(dig, Xc, yc, method, clf, sigma, kernel, r, method_ell, folds,
                                                 token=token)
    except (ValueError, np.linalg.LinAlgError, MemoryError) as exc:
        show_error(compute.rank_message(r, shadow.m, rows_idx.size, ell, sigma)
                   if method == SHADOW_METHOD.name and r > shadow.m
                   else f"{label}: {exc}")
if not results:
    st.stop()
# Column names a reader understands, not the result's keys ("accuracy_std", "train_s", "test_s")
NAMES = {"accuracy": "accuracy (mean)", "accuracy_std": "accuracy (std over folds)",
         "train_s": "fit time per fold (s)", "test_s": "predict time per fold (s)"}
table = pd.DataFrame([{"features": k, **{NAMES.get(f, f): v for f, v in res.items() if f != "scores"}}
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
