"""The ell scrubber on a page: a Plotly figure with frames that the browser plays, and picking an ell from it.

Dragging the figure's slider redraws in the browser only (no script run). A
click on a point of the m/n strip under it sets the sidebar's ell to that
point's ell (a click callback, which runs before the next script run, so
the sidebar's slider can still be set).

The scrubber is a live chart (:mod:`rskpca.ui.live_chart`): its figure, frames
included, comes as JSON text cached with the frames (:mod:`rskpca.ui.compute.scrubber_frames`), so
a rerun that does not change it costs neither serialization nor a redraw, and a
new sigma or rank redraws it in place with one ``Plotly.react`` instead of
mounting a new chart.
"""

from __future__ import annotations

from functools import partial

import plotly.io as pio
import streamlit as st

from rskpca.plotting import figure_html
from rskpca.ui.live_chart import live_chart
from rskpca.ui.keys import ELL_RANGE
from rskpca.ui.widgets import PLOTLY_CONFIG, slug

__all__ = ["show_scrubber", "selected_ell"]

#: The sidebar's ell slider (a key of rskpca.ui.keys.KEYS), which the scrubbers follow in the browser.
ELL_KEY = "ell"


def selected_ell(selection) -> float | None:
    """The ell of the first selected point that carries one in its customdata (None if none does).

    >>> selected_ell({"selection": {"points": [{"customdata": 3.5}]}})
    3.5
    >>> selected_ell({"selection": {"points": [{"x": 1}]}}) is None
    True
    """
    points = ((selection or {}).get("selection") or {}).get("points") or []
    for point in points:
        value = point.get("customdata")
        if isinstance(value, (list, tuple)):
            value = value[0] if value else None
        try:
            ell = float(value)
        except (TypeError, ValueError):
            continue
        if ELL_RANGE[0] <= ell <= ELL_RANGE[1]:
            return round(ell, 1)
    return None


def _use_selected_ell(key: str) -> None:
    ell = selected_ell(st.session_state.get(key))
    if ell is not None:
        st.session_state[ELL_KEY] = ell


def show_scrubber(spec: str, key: str, what: str, empty: str | None = None) -> None:
    """Draw a scrubber figure (its JSON text, from :mod:`rskpca.ui.compute.scrubber_frames`) with its instructions.

    The chart shows the frame nearest the sidebar's ell and follows the sidebar's slider in the
    browser (``live_chart(follow=)``): a new ell, from the slider or from a click on the m/n
    strip, steps it to that frame without sending the figure again (a value passed with the
    chart's arguments would make Streamlit resend the whole scrubber on every ell change).

    ``empty``: said in its place when there is no figure (no ell of the grid could be drawn), so the
    section's heading does not stand over nothing (Embeddings at a rank above every ell's m).
    """
    if not spec:
        if empty:
            st.info(empty)
        return
    st.caption(f"**Scrub ell**: drag the slider under the chart to watch {what} change with ell, drawn in "
               "your browser without waiting for the server (Play runs through the grid). Click a point of "
               "the m/n curve to use that ell in the sidebar. Its frames lie on a grid of ell: it shows the "
               "frame nearest the sidebar's ell, whose m (in its title) can differ from the page's.")
    live_chart(spec, key, config=PLOTLY_CONFIG, on_click=partial(_use_selected_ell, key),
               follow=f".st-key-{ELL_KEY} input[type='range']")
    # The downloaded page plays the frames too (plotly.js inlined): built only when clicked.
    st.download_button("Download figure (HTML)", data=lambda: figure_html(pio.from_json(spec, skip_invalid=True)),
                       file_name=f"{slug(key)}.html", mime="text/html", key=f"{key}__html",
                       on_click="ignore", icon=":material/download:")
