"""The charts an AppTest run drew, in page order: Streamlit's own and the app's live charts.

Most charts are live charts (:mod:`rskpca.ui.live_chart`, a component whose figure travels as
the JSON argument ``spec``; the ell scrubbers too); any ``st.plotly_chart`` left is read as
well. Both are returned as ``(key, figure dict)``.

A row chart draws one trace per class (a legend click hides a class, :mod:`rskpca.plotting._colouring`):
:func:`row_points` gathers the rows over all of them.
"""

import base64
import json

import numpy as np

LIVE_CHART = "rskpca_live_chart"


def _walk(node):
    yield node
    for child in (getattr(node, "children", None) or {}).values():
        yield from _walk(child)


def drawn_charts(at) -> list[tuple[str | None, dict]]:
    """``(key, figure)`` of every chart on the page, in the order drawn."""
    found = []
    for node in _walk(at._tree):
        proto = getattr(node, "proto", None)
        if node.type == "plotly_chart":
            found.append((getattr(node, "key", None), json.loads(proto.spec)))
        elif node.type == "component_instance" and proto.component_name.endswith(LIVE_CHART):
            key = proto.id.split("-", 2)[-1] if proto.id.count("-") >= 2 else None
            found.append((key, json.loads(json.loads(proto.json_args)["spec"])))
    return found


def chart_specs(at) -> list[dict]:
    """The figure of every chart on the page, in the order drawn."""
    return [spec for _, spec in drawn_charts(at)]


def chart_keys(at) -> list[str | None]:
    return [key for key, _ in drawn_charts(at)]


def plotly_array(values) -> np.ndarray:
    """A data array of a Plotly JSON spec (numeric arrays travel base64-encoded as ``bdata``)."""
    if isinstance(values, dict) and "bdata" in values:
        return np.frombuffer(base64.b64decode(values["bdata"]), dtype=np.dtype(values["dtype"]))
    return np.asarray(values)


def _is_row_trace(trace: dict) -> bool:
    # Every trace of rows hovers "row %{customdata[0]}" first (rskpca.plotting.row_hover, or the single
    # trace coloured by shadow set); centers hover "center ..." or "shadow center: ...", densities their
    # bins. The selection's outline copies the hover of the rows it repeats: named "selected", left out.
    return str(trace.get("hovertemplate", "")).startswith("row %{customdata") and trace.get("name") != "selected"


def row_points(spec: dict, *, xaxis: str | None = None) -> np.ndarray:
    """The x coordinates of every row drawn as a point in ``spec``, over all its row traces (one per
    class), in trace order; ``xaxis`` ("x", "x2", ...): one panel's rows only."""
    xs = [plotly_array(t["x"]) for t in spec["data"]
          if _is_row_trace(t) and (xaxis is None or t.get("xaxis", "x") == xaxis)]
    return np.concatenate(xs) if xs else np.empty(0)
