"""A Plotly chart that is redrawn in place when its figure changes, instead of mounted again.

``st.plotly_chart`` gives a chart a new identity whenever its figure changes, so
the browser builds it from scratch on every rerun that changes it, then draws it
a second time; a WebGL chart also creates a new WebGL context each time. For the
charts that follow the sidebar's ell that is most of what a user waits for (see
``python tests/benchmarks/bench_latency.py --browser``).

:func:`live_chart` (through :func:`rskpca.ui.widgets.show_figure`) draws a figure in a small
Streamlit component (an
iframe holding plotly.js, from the installed plotly package) that stays on the
page across reruns and draws each new figure with one ``Plotly.react``. Box and
lasso selections come back in the shape of ``st.plotly_chart``'s selection event.

A chart out of the browser's view draws a new figure only when it comes into view (an
``IntersectionObserver`` in its frame): a rerun costs the browser only the charts a user
can see. Until then its last drawing stays, and ``chart.dataset.deferred`` says that a newer
figure waits (the browser benchmark and tests read it). The browser's main thread is then spent on
what the user looks at (``python tests/benchmarks/bench_latency.py --browser --trace``).

Figures with frames (the ell scrubbers, :mod:`rskpca.ui.ell_scrubber`) are drawn the same
way: ``Plotly.react`` takes the frames with the figure, and the figure's slider plays
them in the browser. A new sigma then redraws the scrubber in place too, instead of
mounting a new ``st.plotly_chart`` (two draws and a new WebGL context each time).
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
from pathlib import Path

import plotly
import plotly.graph_objects as go
import plotly.io as pio
import streamlit.components.v1 as components

__all__ = ["live_chart", "asset_dir"]

_HTML = Path(__file__).with_name("live_chart.html")
_component = None


def asset_dir() -> Path:
    """The folder the component is served from: its page and the plotly.js of the installed plotly.

    Made once per plotly version and page text in the temporary folder, since the
    component's files must lie in one folder and plotly.js belongs to the plotly package.
    """
    page = _HTML.read_text().replace("__PLOTLY_VERSION__", plotly.__version__.replace(".", "_")).encode()
    digest = hashlib.sha256(page).hexdigest()[:12]
    folder = Path(tempfile.gettempdir()) / f"rskpca-live-chart-{plotly.__version__}-{digest}"
    if not (folder / "index.html").is_file():
        folder.mkdir(parents=True, exist_ok=True)
        source = Path(plotly.__file__).parent / "package_data" / "plotly.min.js"
        staged = folder / f"plotly.min.js.{os.getpid()}"
        shutil.copyfile(source, staged)
        staged.replace(folder / "plotly.min.js")
        staged = folder / f"index.html.{os.getpid()}"
        staged.write_bytes(page)
        staged.replace(folder / "index.html")  # written last: its presence means the folder is complete
    return folder


def _declared():
    global _component
    if _component is None:
        _component = components.declare_component("rskpca_live_chart", path=str(asset_dir()))
    return _component


def live_chart(fig: go.Figure | dict | str, key: str, *, config: dict, on_select=None, on_click=None,
               follow: str | None = None) -> None:
    """Draw ``fig`` in a chart that keeps its place across reruns.

    Parameters
    ----------
    fig : go.Figure, dict or str
        The figure, or its JSON text (``plotly.io.to_json``): a caller that draws the same
        figure on every rerun can serialize it once and cache the text.
    key : str
        The chart's key: it keeps its place (and its selection) while the key stays on the page.
    config : dict
        Plotly's ``config`` (mode bar, image export).
    on_select : callable or None
        Called with no arguments after a box or lasso selection; it also turns them on. The
        selection is then ``st.session_state[key]``, shaped as ``st.plotly_chart``'s event:
        ``{"selection": {"points": [{"customdata": [...], "curve_number": ..., "point_index": ...}]}}``.
    on_click : callable or None
        Called with no arguments after a click on a point (the value then holds that one point,
        in the same shape). At most one of ``on_select`` and ``on_click``.
    follow : str or None
        For a figure with frames named by numbers (a scrubber's ells): the CSS selector, in the
        app's page, of a slider's range input. A new figure opens at the frame nearest its value
        (instead of the first), and the chart follows it in the browser: when it changes, the
        chart steps to the nearest frame (when in view), without the value travelling in the
        arguments, which would resend the whole figure.
    """
    if on_select is not None and on_click is not None:
        raise ValueError("pass on_select or on_click, not both: a chart takes box selections or clicks.")
    spec = fig if isinstance(fig, str) else pio.to_json(fig, validate=False)
    _declared()(spec=spec, config=json.dumps(config), selectable=on_select is not None,
                clickable=on_click is not None, follow=follow, key=key, default=None,
                on_change=on_select or on_click)
