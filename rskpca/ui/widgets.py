"""Rendering helpers shared by the pages: charts and tables with their downloads, common notes."""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from rskpca.evaluation.methods import METHODS
from rskpca.plotting import figure_html, shadow_centers_text
from rskpca.evaluation.methods import SLOW_AT_LARGE_M
from rskpca import plotting as plots
from rskpca.data.datasets import DataError
from rskpca.ui import compute
from rskpca.ui.heavy import HEAVY_ROWS
from rskpca.ui.keys import LABEL_COLOUR
from rskpca.ui.live_chart import live_chart

__all__ = ["PLOTLY_CONFIG", "METHOD_GROUPS", "DEFAULT_GROUPS", "choose_methods",
           "without_slow_methods", "show_figure", "show_table", "download_csv", "reduction_note",
           "show_text_list", "slug", "plain", "show_error", "comparison_note", "show_errors",
           "stop_unless_rank_fits", "warn_if_kernel_is_identity", "LABEL_COLOUR", "ColourChoice", "colour_choice",
           "centers_toggle"]

# CommonMark lets any ASCII punctuation be backslash-escaped; "$" (LaTeX) and ":" (emoji and
# colour directives) matter to Streamlit's markdown too.
_MARKDOWN_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+\-.!|<>~$:&])")


def plain(text: str) -> str:
    """``text`` with markdown/HTML syntax escaped, for messages that quote user text (column names).

    >>> print(plain("**a** <b>"))
    \\*\\*a\\*\\* \\<b\\>
    """
    return _MARKDOWN_SPECIAL.sub(r"\\\1", str(text))


def show_error(message: str) -> None:
    """An error box whose text is shown literally (it may quote the user's column names or file name)."""
    st.error(plain(message), icon=":material/error:")


# Every helper here that shows something only sometimes draws one element either way (a
# container or an empty slot): Streamlit places elements by position, so an element that comes
# and goes above a chart would make the chart below it mounted again instead of redrawn in place
# (rskpca.ui.live_chart).

def show_errors(messages) -> None:
    """:func:`show_error` for each message, in one container that is always drawn."""
    with st.container():
        for message in messages:
            show_error(message)


#: Plotly's ``config`` for every chart. plotly.js offers a "Share chart" button by default that posts the
#: figure (the user's data) to Plotly's cloud: never shown.
PLOTLY_CONFIG = {"displaylogo": False, "showSendToCloud": False, "toImageButtonOptions": {"format": "png", "scale": 2}}
#: Above this m/n the shadow barely reduces the data and the app says so. (At half the rows the m x m
#: problem is still 4x smaller to store and more to solve, so a warning there would overstate.)
LITTLE_REDUCTION = 0.8


def slug(text: str) -> str:
    """A file-name-safe version of ``text``."""
    return re.sub(r"[^A-Za-z0-9]+", "_", text).strip("_").lower() or "figure"


def show_figure(fig: go.Figure, key: str, filename: str | None = None, *, on_select=None) -> None:
    """Draw a Plotly figure and offer it as a self-contained HTML file.

    The chart is a live chart (:mod:`rskpca.ui.live_chart`): when a rerun brings a
    new figure for the same key, the browser redraws it in place, once. The HTML
    (with plotly.js inlined, about 5 MB, so it opens offline) is only built when
    the button is clicked: the download's data is a callable. ``on_select`` (a
    callback) turns on box and lasso selection (:func:`rskpca.ui.selection.show_selectable`).
    """
    live_chart(fig, key, config=PLOTLY_CONFIG, on_select=on_select)
    st.download_button("Download figure (HTML)", data=lambda: figure_html(fig),
                       file_name=f"{slug(filename or key)}.html", mime="text/html", key=f"{key}__html",
                       on_click="ignore", icon=":material/download:")


#: Text cells longer than this many characters get a column as wide as their text (:func:`show_table`), at
#: about this many pixels per character, up to a bound.
_LONG_TEXT, _CHAR_PX, _MAX_TEXT_PX = 30, 7, 760


def show_table(df: pd.DataFrame, key: str, filename: str | None = None, *, height="auto",
               csv_only: tuple[str, ...] = ()) -> None:
    """Show a table (cells as text, never markdown; a missing value as "n/a", not "None") with a CSV download.

    Floats show four significant digits ("9e-12", not a column of zeros cut off at the left, which
    reads as a different number), integers the reader's thousands separators; the CSV keeps them all.
    ``csv_only``: columns left off the screen but kept in the CSV (sentences that the page says in its
    captions, which a cell would cut off).
    """
    floats = {c: st.column_config.NumberColumn(format="%.4g") for c in df.columns
              if pd.api.types.is_float_dtype(df[c])}
    # counts with the reader's thousands separators ("16,436", as the captions print them)
    floats.update({c: st.column_config.NumberColumn(format="localized") for c in df.columns
                   if pd.api.types.is_integer_dtype(df[c]) and not pd.api.types.is_bool_dtype(df[c])})
    # A column of sentences (the Bounds table's rows: which rows a number is on) gets the width of its text,
    # up to a bound, not a cell cut off after a few words; longer ones show whole on hover and in the CSV.
    lengths = {c: df[c].map(lambda v: len(v) if isinstance(v, str) else 0).max() for c in df.columns
               if df[c].dtype == object and len(df)}
    texts = {c: st.column_config.TextColumn(width=int(min(_CHAR_PX * chars, _MAX_TEXT_PX)))
             for c, chars in lengths.items() if chars > _LONG_TEXT}
    hidden = {c: None for c in csv_only if c in df.columns}
    st.dataframe(df, hide_index=True, width="stretch", height=height, key=key, placeholder="n/a",
                 column_config={**floats, **texts, **hidden} or None)
    download_csv(df, key, filename)


def download_csv(df, key: str, filename: str | None = None, label: str = "Download table (CSV)") -> None:
    """A CSV download of ``df`` (a DataFrame, or a function that returns one: then even the table is
    made only on a click), built only when clicked (for numbers too long to show as a table)."""
    st.download_button(label, data=lambda: (df() if callable(df) else df).to_csv(index=False).encode(),
                       file_name=f"{slug(filename or key)}.csv", mime="text/csv", key=f"{key}__csv",
                       on_click="ignore", icon=":material/download:")


#: From this many features on, the little-reduction warning names the curse of dimensionality as the cause.
HIGH_DIMENSION = 10


def reduction_note(m: int, n: int, d: int) -> None:
    """Warn when the shadow keeps most of the data (so there is little to gain); an empty slot otherwise."""
    slot = st.empty()  # drawn either way: see the note above show_errors
    if m == 1 and n > 1:
        slot.warning(f"The shadow keeps one center for all {n:,} points: every point lies within eps = sigma / ell of "
                     "the first, so the reduced methods see a single point and have nothing to learn. Lower sigma "
                     "or raise ell for more centers.")
    elif n and m / n > LITTLE_REDUCTION:
        why = ("in high dimensions points are far apart relative to sigma, so the shadows rarely cover anything"
               if d >= HIGH_DIMENSION else
               "eps = sigma / ell is small against the distances between neighbouring points, so few shadows "
               "cover another point")
        button = (" The sidebar's \"Find an ell that keeps at most a third of the rows\" does it in one click."
                  if n <= HEAVY_ROWS else "")
        slot.warning(f"The shadow keeps m = {m:,} of n = {n:,} points ({m / n:.0%}): little reduction, so little to "
                     f"gain from it. Raise sigma or lower ell for fewer centers ({why}).{button}")


def warn_if_kernel_is_identity(ds, sigma: float, kernel: str, *, rows=None,
                               consequence: str = "kernel PCA finds no structure; the results below are "
                                                  "arbitrary") -> None:
    """Warn when sigma is so far below the distances between neighbouring rows that K is close to the identity
    (:func:`~rskpca.core.sigma_checks.kernel_identity`); an empty slot otherwise.

    Then kernel PCA finds no structure and what a page shows (a denoising error, a classifier's accuracy,
    the components) is arbitrary, and the user must be told why rather than read it as a result.
    ``rows``: ``(key, X)``, the rows the page computes on when they are not all of ``ds`` (a comparison
    sample); ``consequence`` says what that means on the page.
    """
    slot = st.empty()  # drawn either way: see the note above show_errors
    key, X = (ds.digest, ds.X) if rows is None else rows
    identity = compute.identity_kernel(key, X, sigma, kernel)
    if identity:
        slot.warning(f"sigma = {sigma:.3g} is far below the distance between neighbouring rows (median "
                     f"{identity.distance:.3g}): the kernel between neighbours is {identity.value:.1e}, so the kernel "
                     f"matrix is close to the identity and {consequence}. Raise sigma.")


def stop_unless_rank_fits(r: int, n_rows: int) -> None:
    """Stop the page with a message when centered kernel PCA on ``n_rows`` rows cannot give r informative components."""
    if r > n_rows - 1:
        show_error(f"rank r = {r} is more than the {n_rows:,} rows compared allow: centered kernel PCA on "
                   f"{n_rows:,} rows has at most {n_rows - 1:,} informative components. Lower rank r to "
                   f"{n_rows - 1:,} in the sidebar, or load more rows.")
        st.stop()


def comparison_note(m: int, n_rows: int, n: int, *, drawn: int | None = None) -> None:
    """Say which rows a comparison page's m and m/n are counted on (the sidebar's m counts all n rows).

    ``drawn``: the rows of the comparison set before the classifiers' rows were picked (Kernelization: rows with
    a label, in classes with enough rows for the folds); None when ``n_rows`` are the set itself.
    """
    drawn = n_rows if drawn is None else drawn
    labelled = "" if drawn == n_rows else f", the {n_rows:,} of them the classifiers use"
    if drawn < n:
        st.info(f"Exact KPCA needs an n x n matrix, so every method here is trained and compared on a seeded "
                f"sample of {drawn:,} of the {n:,} rows{labelled}: m = {shadow_centers_text(m)} of these "
                f"{n_rows:,} rows ({m / n_rows:.1%}). The sidebar's m counts all {n:,} rows.")
    elif labelled:
        st.caption(f"On the {n_rows:,} rows the classifiers use (said above), of all {n:,}: m = {shadow_centers_text(m)} "
                   f"({m / n_rows:.1%}); the sidebar's m counts all {n:,} rows.")
    else:
        st.caption(f"On all {n:,} rows: m = {shadow_centers_text(m)} ({m / n:.1%}), as in the sidebar.")


def show_text_list(lines) -> None:
    """Notes that may contain user text (column names), shown as plain text."""
    for line in lines:
        st.text(line)


#: The groups of :data:`rskpca.evaluation.methods.METHODS` as the pages name them (exact KPCA is always the reference).
METHOD_GROUPS = {"rskpca": "RSKPCA",  # not a method name: the group of that name
                 "baseline": "Section 6 baselines", "rsde": "other reduced-set estimators",
                 "extra": "other speed-ups (reduced-set construction, Gram sampling, random features, Lanczos)"}
#: What a page compares by default: the paper's method and its Section 6 baselines (all fast at any m).
DEFAULT_GROUPS = ("rskpca", "baseline")  # not a method name: group names


def choose_methods(key: str, container=st) -> list[str]:
    """A multiselect of method groups (kept in ``st.session_state[key]``); returns the chosen methods' names."""
    available = [g for g in METHOD_GROUPS if any(m.group == g for m in METHODS.values())]
    if st.session_state.get(key) is None:
        st.session_state[key] = list(DEFAULT_GROUPS)
    container.multiselect("Methods to compare with exact KPCA", available, key=key, format_func=METHOD_GROUPS.get)
    return [name for name, m in METHODS.items() if m.group in st.session_state[key]]


def without_slow_methods(names, m: int) -> list[str]:
    """``names``, less the methods slow at large m (k-means, herding, reduced-set construction) when m is
    large and the user has not asked for them.

    Those methods cost about n * m * iterations to train: seconds to minutes at
    m in the thousands, which would freeze every ell change.
    """
    slot = st.container()  # drawn either way: see the note above show_errors
    slow = [name for name in names if name in SLOW_AT_LARGE_M]
    if m <= compute.SLOW_M or not slow:
        return list(names)
    labels = ", ".join(METHODS[name].label for name in slow)
    slot.toggle(f"Also run {labels} at m = {m:,} (training grows with n x m: slow)", key="run_slow")
    if st.session_state["run_slow"]:
        return list(names)
    slot.caption(f"Skipped at m = {m:,} > {compute.SLOW_M:,} to keep the page live: {labels}.")
    return [name for name in names if name not in slow]


@dataclass(frozen=True)
class ColourChoice:
    """What the row charts colour by (:func:`colour_choice`): pass ``values`` as ``y``, ``name`` as
    ``label_name``, ``continuous`` as ``continuous`` and ``hover`` as ``hover_data``. ``values`` may be a
    :class:`~rskpca.plotting.Colouring` made for several charts (the Spectral page's clusters)."""

    values: np.ndarray | plots.Colouring | None
    name: str
    continuous: bool | None
    hover: dict


def colour_choice(ds, container=st) -> ColourChoice:
    """The page-level "Colour rows by" choice (kept in ``st.session_state["colour_column"]``, one value
    for every page): the label column (the default), a feature, or any other column of the table in use.

    A feature's values come from the table (not standardised), so the legend reads as the file does.
    A numeric column (the label too) with more distinct values than :data:`rskpca.plotting.MAX_CLASSES` is drawn
    on a colour scale; other labels and text columns as classes (:func:`rskpca.plotting.colouring`).
    """
    from rskpca.ui import tables  # (tables draws with these widgets: imported when first needed)

    table = None
    if not tables.table_not_in_use():
        try:
            table = tables.current_table()[1]
        except DataError:
            table = None
    by_name = {LABEL_COLOUR: None}
    by_name.update((str(f), ("feature", j)) for j, f in enumerate(ds.feature_names))
    if table is not None:
        by_name.update((str(c), ("table", c)) for c in table.columns
                       if str(c) not in by_name and c != ds.label_name)
    if st.session_state.get("colour_column") not in by_name:
        st.session_state["colour_column"] = LABEL_COLOUR
    # (without a label each chart keeps its own colours: one colour, or the shadow sets on Shadow centers)
    label = "the chart's own (no label column)" if ds.label_name is None else f"the label ({ds.label_name})"
    chosen = container.selectbox("Colour rows by", list(by_name), key="colour_column",
                                 format_func=lambda c: label if c == LABEL_COLOUR else c,
                                 help="The column the charts of rows colour by (one choice for every page). "
                                      "Classes each get a colour (a legend click hides one, a double click "
                                      "isolates it); a numeric column with many values gets a colour scale.")
    hover = plots.hover_columns(ds.X, ds.feature_names, label=ds.y, label_name=ds.label_name)
    where = by_name[chosen]
    if where is None:
        if ds.y is None:  # nothing to colour by: no legend title either (a lone "label" over "shadow centers")
            return ColourChoice(None, "", None, hover)
        name = str(ds.label_name or "label")
        if ds.y is not None and compute.label_is_measurement(ds.digest, ds.y):
            # a label of measurements (diabetes' 214 progression values): a scale, as for any such column
            return ColourChoice(ds.y, name, True, hover)
        return ColourChoice(compute.label_colouring(ds.digest, ds.y, name), name, None, hover)
    kind, col = where
    if kind == "table":
        values = table[col].to_numpy()[ds.row_ids]
    elif table is not None and ds.feature_names[col] in table.columns:
        values = table[ds.feature_names[col]].to_numpy()[ds.row_ids]
    else:  # (the table is not at hand: the feature as in use)
        values = ds.X[:, col]
    numeric = values.dtype.kind in "biuf"
    many = numeric and pd.Series(values).nunique() > plots.MAX_CLASSES
    return ColourChoice(values, chosen, True if many else None, hover)


def centers_toggle(container=st) -> bool:
    """The "Show shadow centers" toggle (one setting for the Shadow centers and Embeddings pages)."""
    return container.toggle("Show shadow centers", key="show_centers",
                            help="The centers are drawn as small outlined markers sized by weight; hide them to "
                                 "see the rows underneath.")
