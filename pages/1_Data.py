"""Data: bundled samples or an upload; columns, standardisation, row cap; preview and summary."""

import pandas as pd
import streamlit as st

from rskpca.ui.first_visit import load_libraries

load_libraries()  # a server's first visit: a spinner while the libraries load, not an empty page

from rskpca import plotting as plots
from rskpca.data.datasets import SAMPLES, DataError, numeric_columns, stray_text_cells
from rskpca.evaluation.row_cap import FIRST_VIEW_BUDGET_S, larger_cap_costs, row_cap_cost_text
from rskpca.evaluation.units import seconds_text
from rskpca.ui import compute, selection, show_error, show_table, show_text_list, start_page
from rskpca.ui.widgets import colour_choice
from rskpca.ui.tables import (column_options, current_table, handle_upload, sample_note, table_not_in_use,
                              upload_error)

settings = start_page("Data", needs_data=False)

st.subheader("Upload your own")
handle_upload(st.file_uploader("CSV, TSV, Parquet or NPY (a header row for CSV/TSV; numbers as features)",
                               type=["csv", "tsv", "txt", "parquet", "pq", "npy", "gz"], key="uploader"))
if upload_error():
    show_error(upload_error())

st.subheader("Columns and preprocessing")
try:
    source_key, df = current_table()
except DataError as exc:
    show_error(str(exc))
    st.stop()
label_options, feature_options = column_options(df, numeric_columns(df))
st.selectbox("Label column (for colours and classification)", label_options, key="label_column", format_func=str)
st.multiselect("Feature columns (empty = every numeric column except the label and row ids)", feature_options,
               key="feature_columns", format_func=str)
stray = stray_text_cells(df)
if stray:
    st.warning(f"{len(stray)} column(s) hold numbers but also a few text cells, so they are not numeric and not "
               "features (cells below; row = position in the file, from 0). Fix them in the file, or treat them "
               "as missing values (then drop those rows or choose other columns).", icon=":material/warning:")
    st.dataframe(pd.DataFrame([{"column": c, "row": row, "cell": text} for c, cells in stray.items()
                               for row, text in cells]), hide_index=True, key="stray_cells")
    st.checkbox("Treat text cells in numeric columns as missing values", key="stray_text_missing")
c1, c2, c3, c4 = st.columns(4)
# Short labels, the details in help: a quarter-width column cut the longer ones off.
c1.checkbox("Standardise features", key="standardize", help="Each feature to zero mean and unit variance.")
c2.checkbox("Drop missing rows", key="drop_missing", help="Drop the rows with a missing value in a feature.")
cap = int(c3.number_input(
    "Row cap (a random sample above it)", min_value=2, max_value=100_000_000, step=5_000, key="max_rows",
    help=f"Above this many rows a seeded random sample of them is used. The default is the largest size at which "
         f"every page's first view was measured within {FIRST_VIEW_BUDGET_S:g} s (python "
         "tests/benchmarks/bench_row_cap.py); a file named on the command line (rskpca app FILE) is used whole "
         "unless it does not fit in memory. The line below the boxes says what a larger cap adds before you "
         "apply it. A cap above the rows keeps them all."))
c4.number_input("Sampling seed", min_value=0, max_value=2**31 - 1, step=1, key="row_seed")
# What a larger cap would cost, said before it is applied: each page's first view as a line in the rows
# (rskpca.evaluation.row_cap); the slowest page's fixed part is no cost of the cap, so the added time is said.
costs = larger_cap_costs(cap, len(df))
if costs:
    st.caption(f"The table has {len(df):,} rows; the cap keeps {cap:,} (a seeded sample). A larger cap adds to the "
               "first view of the slowest page (estimated from times measured at growing n): "
               + "; ".join(f"{rows:,} rows {seconds_text(added)} more ({page}, about {seconds_text(seconds)} in all)"
                           for rows, page, seconds, added in costs) + ".")
else:
    st.caption(f"The cap keeps all {len(df):,} rows of this table: {row_cap_cost_text(len(df))} "
               "(estimated from times measured at growing n).")

if settings is None:
    st.stop()
ds = settings.dataset
st.subheader("In use")
st.text(f"{settings.title}: n = {ds.n:,} rows ({sample_note(ds) or f'of {ds.n_original:,}'}), d = {ds.d} features, "
        f"label = {ds.label_name if ds.label_name is not None else 'none'}, "
        f"{'standardised' if ds.standardized else 'raw scale'}")
show_text_list(ds.notes)
if settings.source in SAMPLES:  # (not an upload, nor the file the app was started with)
    st.caption("About this sample:")
    st.text(SAMPLES[settings.source].description)

st.subheader("Data view")
flat = ds.d <= 2  # else its first two principal axes
coords = ds.X if flat else compute.principal_axes(ds.digest, ds.X)[0]
colour = colour_choice(ds)
fig = plots.data_figure(
    coords, y=colour.values, label_name=colour.name, continuous=colour.continuous, hover_data=colour.hover,
    row_ids=ds.row_ids, selected_rows=selection.rows(),
    axis_titles=[str(f) for f in ds.feature_names] if flat else ("PC1", "PC2"),
    title="The data" if flat else "The data on its first two principal axes")
dense = plots.draws_density(fig)  # the rows' density, not points: above the point budget, or crowded
if dense:
    st.caption(f"Where points would hide one another (and always above {plots.POINT_BUDGET:,} rows) the chart draws "
               "the density of all the rows in the column's colours (its title says so): a box or lasso selects "
               "every row inside it.")
selection.show_selectable(fig, key="data_scatter", filename="data_view",
                          panels=plots.data_panels(coords, ds.row_ids) if dense else None)
selection.selected_table(ds)

# After a refused table the pages keep the last good data: say which table the preview is.
unused = table_not_in_use()
st.subheader("Preview of the selected table, not in use (first 100 rows)" if unused else
             "Preview (first 100 rows of the table)")
if unused:
    st.caption(f"This table could not be used (the message above says why); the pages still show {settings.title}.")
show_table(df.head(100), key="data_preview", filename="preview")
st.subheader("Per-column summary of the selected table, not in use" if unused else "Per-column summary")
show_table(compute.column_summary(source_key, df), key="data_summary", filename="column_summary")
