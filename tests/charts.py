"""The charts an AppTest run drew, in page order: Streamlit's own and the app's live charts.

Most charts are live charts (:mod:`rskpca.ui.live_chart`, a component whose figure travels as
the JSON argument ``spec``; the ell scrubbers too); any ``st.plotly_chart`` left is read as
well. Both are returned as ``(key, figure dict)``.
"""

import json

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
