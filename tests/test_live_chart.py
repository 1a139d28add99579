"""The live chart's files: its page and the plotly.js of the installed plotly, served from one folder."""

from pathlib import Path

import plotly

from rskpca.ui.live_chart import asset_dir


def test_the_component_folder_holds_its_page_and_the_installed_plotly_js():
    folder = asset_dir()
    page = (folder / "index.html").read_text()
    source = (Path(__file__).parents[1] / "rskpca" / "ui" / "live_chart.html").read_text()
    # the page, with the plotly version in the name its copy of plotly.js is shared under
    assert page == source.replace("__PLOTLY_VERSION__", plotly.__version__.replace(".", "_"))
    assert 'fetch("plotly.min.js")' in page  # served beside it: the app needs no internet
    bundled = Path(plotly.__file__).parent / "package_data" / "plotly.min.js"
    assert (folder / "plotly.min.js").read_bytes() == bundled.read_bytes()
    assert asset_dir() == folder  # made once, then reused
