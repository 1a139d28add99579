"""Figures comparing methods: embeddings and spectra (the bar charts live in :mod:`rskpca.plotting._bars`).

A panel above the point budget is drawn by :mod:`rskpca.plotting._density_drawing`; which embeddings a 3-D
figure draws is chosen by :mod:`rskpca.plotting._views_in_3d`.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import plotly.graph_objects as go
from plotly.colors import get_colorscale

from rskpca.plotting._bars import bar_figure, fit_predict_figure, fit_time_figure
from rskpca.plotting._colouring import as_colouring, class_legend, legend_height, marker_style, row_hover
from rskpca.plotting._data_view import _ONE_POINT_COLOR, legend_key
from rskpca.plotting._density_drawing import (POINT_BUDGET, _density_panel, capped_total, crowded, density_bins,
                                              density_note, image_axes)
from rskpca.plotting._selection import axis_of_panel, highlight_rows
from rskpca.plotting._style import (
    _APPROX_SYMBOLS,
    _check_len,
    _TITLE_FONT,
    _as_2d,
    _integer_step,
    _log_axis,
    _padded_ranges,
    _panel_title,
    _row_ids,
    _scatter_type,
    _subplot_grid,
    _title_chars,
    colour_bar,
    method_colors,
    user_text,
)

#: The bar charts stay importable from here, where they were first written.
__all__ = ["embedding_figure", "spectra_figure", "bar_figure", "fit_time_figure", "fit_predict_figure",
           "embedding_panels"]


# --------------------------------------------------------------------------- embeddings


def embedding_panels(embeddings: Mapping[str, np.ndarray], row_ids, rows: Mapping[str, np.ndarray] | None = None):
    """What a region selection needs of :func:`embedding_figure`'s 2-D panels: ``{xref: (x, y, row_ids)}``.

    ``row_ids`` are the original numbers of all rows; ``rows[label]`` the positions of a panel's
    rows among them (all rows when absent), as passed to :func:`embedding_figure`. Feed the
    result to :func:`~rskpca.plotting.rows_in_regions`.

    >>> import numpy as np
    >>> panels = embedding_panels({"a": np.zeros((3, 2)), "b": np.ones((1, 2))}, [7, 8, 9], {"b": [2]})
    >>> sorted(panels), panels["x2"][2].tolist()
    (['x', 'x2'], [9])
    """
    ids = np.asarray(row_ids)
    rows = rows or {}
    out = {}
    for p, (label, A) in enumerate(embeddings.items()):
        positions = rows.get(label)
        A = np.asarray(A)
        out[axis_of_panel(p)] = (A[:, 0], A[:, 1], ids if positions is None else ids[np.asarray(positions)])
    return out


def embedding_figure(embeddings: Mapping[str, np.ndarray], *, y=None, label_name: str = "label",
                     continuous: bool | None = None, hover_data=None, row_ids=None, dims: int = 2,
                     errors: Mapping[str, float] | None = None,
                     cols: int = 3, selected_rows=None, rows: Mapping[str, np.ndarray] | None = None,
                     centers=None, panel_notes: Mapping[str, str] | None = None,
                     max_points: int = POINT_BUDGET, bins: int | None = None) -> go.Figure:
    """Side-by-side embeddings of the same rows, one panel per method.

    Rows are coloured by a column (:func:`rskpca.plotting.colouring`): one trace per class, grouped
    across panels, so a legend click hides a class in every panel and a double click isolates it.
    Above ``max_points`` points in all (every panel together), a panel with more than its share
    of them draws the density of its rows in the column's colours (:func:`class_density`), as does
    a 2-D panel whose points would hide one another (:func:`crowded`); the figure's title says what
    is aggregated (:func:`density_note`). In 3-D such a panel draws the centers only (the title
    says so). Selected rows in a density panel are drawn as a histogram of their own, on top. The
    shadow centers (``centers``) are small outlined markers over every 2-D panel, sized by weight
    within a bounded range (:func:`center_sizes`), filled with their row's colour.

    Parameters
    ----------
    embeddings : mapping of str to ndarray of shape (n_k, r)
        Method label to its embedding (already aligned to a common frame), each with at least
        ``dims`` columns: of all n rows, or of the rows ``rows[label]``.
    y : array-like of shape (n,) or None
        The column to colour by (the label, a feature, clusters): classes of any type and number,
        or a colour scale for a continuous one.
    label_name : str, default="label"
        Its name, for the legend and hover.
    continuous : bool or None, default=None
        Whether ``y`` is drawn on a colour scale; None decides (:func:`rskpca.plotting.colouring`).
    hover_data : mapping of str to array-like of shape (n,), optional
        More columns for the hover label (:func:`hover_columns`).
    row_ids : array-like of shape (n,) or None
        Original row numbers, shown on hover.
    dims : {2, 3}, default=2
        2-D panels share one WebGL context; 3-D uses one scene (one WebGL
        context) per method, so pass at most a few methods.
    errors : mapping of str to float or None
        Alignment error per method, added to the panel titles.
    cols : int, default=3
        Panels per row in 2-D (3-D scenes go two to a row).
    selected_rows : array-like of int or None
        Original row numbers to highlight in every panel (the rest dimmed); see :func:`highlight_rows`.
    rows : mapping of str to array-like of int, optional
        For a panel that embeds only some of the n rows (exact KPCA on a sample): their
        positions among the n (sorted). Other panels embed all n.
    centers : (positions, weights) or None
        The shadow centers: their positions among the n rows and their weights, drawn over the
        2-D panels and in 3-D density panels; None draws none (the page's toggle).
    panel_notes : mapping of str to str, optional
        A line added to a panel's title (which rows it shows).
    max_points : int, default=POINT_BUDGET
    bins : int or None, default=None
        Bins per axis of a density panel; None: :func:`density_bins` of the n rows.

    Returns
    -------
    go.Figure

    Examples
    --------
    >>> import numpy as np
    >>> Z = np.random.default_rng(0).normal(size=(20, 3))
    >>> fig = embedding_figure({"Exact": Z, "Approx": -Z}, y=np.arange(20) % 2)
    >>> len(fig.data), fig.layout.annotations[1].text
    (4, 'Approx')
    >>> fig = embedding_figure({"Exact": Z, "Approx": -Z}, centers=([0, 5], [12.0, 8.0]), max_points=30)
    >>> [t.name for t in fig.data[:3]], fig.layout.title.text  # 20 rows in 20 bins: each also a spot
    (['density', 'rows (each spot a bin)', 'shadow centers'], 'density of 20 rows in 50 x 50 bins; 2 shadow centers on top (sized by weight)')
    """
    if dims not in (2, 3):
        raise ValueError(f"dims must be 2 or 3; got {dims!r}.")
    if not embeddings:
        raise ValueError("embeddings is empty; pass at least one method's embedding.")
    names = list(embeddings)
    arrays = [_as_2d(embeddings[k], f"embedding {k!r}") for k in names]
    rows = rows or {}
    positions = [None if rows.get(k) is None else np.asarray(rows[k], dtype=np.int64).ravel() for k in names]
    whole = [A.shape[0] for A, pos in zip(arrays, positions) if pos is None]
    n = len(row_ids) if row_ids is not None else (len(y) if y is not None else (whole[0] if whole else
                                                                                  int(max(p.max() for p in positions)) + 1))
    for k, A, pos in zip(names, arrays, positions):
        expected = n if pos is None else pos.size
        if A.shape[0] != expected:
            raise ValueError(f"embedding {k!r} has {A.shape[0]} rows, the first has {n}; embed the same rows."
                             if pos is None else f"embedding {k!r} has {A.shape[0]} rows, rows[{k!r}] {pos.size}.")
        if A.shape[1] < dims:
            raise ValueError(f"embedding {k!r} has {A.shape[1]} components; {dims} are needed for a "
                             f"{dims}-D plot (raise the rank r).")
    rid = _row_ids(row_ids, n)
    bins = bins or density_bins(n)
    k_panels = len(names)
    sizes = [A.shape[0] for A in arrays]
    total = sum(sizes)
    # Above the point budget, the panels holding more than their share draw densities; so does a 2-D panel
    # whose points would hide one another (crowded).
    dense = [(total > max_points and size > max_points // k_panels) or (dims == 2 and crowded(A[:, 0], A[:, 1]))
             for size, A in zip(sizes, arrays)]
    # 3-D scenes two to a row: four in a row are too small to turn, their titles run together.
    ncols = min(cols if dims == 2 else 2, k_panels)
    nrows = int(np.ceil(k_panels / ncols))
    spacing = 0.07 if dims == 2 else 0.02
    chars = _title_chars((1 - spacing * (ncols - 1)) / ncols)
    notes = panel_notes or {}
    titles = [_panel_title(k, None if errors is None else errors.get(k), chars)
              + (f"<br>{user_text(notes[k])}" if notes.get(k) else "") for k in names]
    height = max(380, 360 * nrows)
    # The gap between rows in pixels (titles of up to three lines, the axis title and ticks above them),
    # not a fraction of the figure's height, which would squeeze many rows of panels between wide gaps.
    layout, refs = _subplot_grid(nrows, ncols, titles, horizontal_spacing=spacing, title_size=_TITLE_FONT,
                                 vertical_spacing=(100 if dims == 2 else 60) / height, scenes=dims == 3)
    colour = as_colouring(y, n, name=label_name, continuous=continuous)
    hover_data = {k: _check_len(v, n, f"hover_data[{k!r}]") for k, v in (hover_data or {}).items()}
    label_name = user_text(label_name)
    # WebGL by the points of all panels: they share one canvas, while SVG styles every point at every
    # redraw (``python tests/benchmarks/bench_latency.py --browser --trace`` measures the redraws).
    drawn_points = sum(size for size, d in zip(sizes, dense) if not d)
    scatter = _scatter_type(drawn_points).__name__.lower() if dims == 2 else "scatter3d"
    selected = None if selected_rows is None else np.unique(np.asarray(selected_rows, dtype=np.int64).ravel())
    # Traces and layout as plain dicts, validated once by the tests (tests/test_plots.py) instead of
    # on every build, where plotly's validation would be most of the figure's time per ell change
    # (``python tests/benchmarks/bench_latency.py --profile``).
    traces = []
    centers_shown = 0
    in_legend = set()
    for p, (name, A, pos) in enumerate(zip(names, arrays, positions)):
        take = (lambda v: v) if pos is None else (lambda v, pos=pos: v[pos])
        if dense[p]:
            centers_shown = max(centers_shown, _density_panel(traces, A, pos, take(rid), refs[p], dims=dims, bins=bins,
                                                              centers=centers, colour=colour, rid=rid,
                                                              first=not centers_shown, selected=selected))
            continue
        style = marker_style(A.shape[0], dims=dims)
        panel_ids = take(rid)
        panel_hover = {k: take(v) for k, v in hover_data.items()}
        if colour is None:
            parts = [(None, np.ones(A.shape[0], dtype=bool), dict(color=_ONE_POINT_COLOR))]
        elif colour.continuous:
            v = colour.values
            parts = [(None, np.ones(A.shape[0], dtype=bool),
                      dict(color=take(v).astype(np.float32), colorscale=get_colorscale("Viridis"),
                           cmin=float(np.nanmin(v)), cmax=float(np.nanmax(v)), showscale=p == 0,
                           colorbar=colour_bar(label_name)))]
        else:
            codes = take(colour.codes)
            parts = [(k, codes == k, dict(color=colour.colors[k], symbol=colour.symbols[k]))
                     for k in range(len(colour.classes))]
        for k, mask, marker in parts:
            if not mask.any():
                continue
            custom, hover = row_hover(panel_ids[mask], colour, {c: v[mask] for c, v in panel_hover.items()},
                                      class_index=k, rows=mask if pos is None else pos[mask])
            gname = name if k is None else user_text(colour.classes[k])
            trace = dict(type=scatter, mode="markers", marker={**marker, **style}, customdata=custom,
                         hovertemplate=hover, name=gname, legendgroup=gname,
                         showlegend=k is not None and gname not in in_legend, **refs[p])
            in_legend.add(gname)
            if dims == 2:
                # float32 halves the base64 payload; the eye cannot tell the difference.
                trace.update(x=A[mask, 0].astype(np.float32), y=A[mask, 1].astype(np.float32))
            else:
                trace.update(x=A[mask, 0], y=A[mask, 1], z=A[mask, 2])
            traces.append(trace)
        if centers is not None:
            shown = _density_panel(traces, A, pos, panel_ids, refs[p], dims=dims, bins=bins, centers=centers,
                                   colour=colour, rid=rid, first=not centers_shown, selected=None, rows_drawn=False)
            centers_shown = max(centers_shown, shown)
    legend_only = colour is not None and not colour.continuous and not in_legend
    if legend_only:
        # every panel a density: the classes' colours as the chart's key (clicks off: they would hide no rows)
        traces.extend(t.to_plotly_json() for t in legend_key(colour, refs[0]))
    axis_names = [f"component {i}" for i in (1, 2, 3)]
    if dims == 2:
        # Every panel names its horizontal axis; the first of each row its vertical one (the panels
        # of a row show the same components, aligned to exact KPCA).
        for p in range(k_panels):
            suffix = refs[p]["xaxis"][1:]
            layout[f"xaxis{suffix}"]["title"] = dict(text=axis_names[0], standoff=4)
            if p % ncols == 0:
                layout[f"yaxis{suffix}"]["title"] = dict(text=axis_names[1], standoff=4)
    else:
        # One range per component for every scene (the panels are aligned to exact KPCA, and a scene
        # scaled on its own would make an embedding ten times smaller look alike), short titles
        # (three long ones run together at a scene's corner).
        ranges = _padded_ranges(arrays, 3)
        for ref in refs:
            layout[ref["scene"]].update(
                **{f"{axis}axis": dict(title=dict(text=f"c{i + 1}"), range=ranges[i]) for i, axis in enumerate("xyz")},
                aspectmode="cube",
                # A step back from plotly's default view, so the axis titles stay inside the scene, yet
                # close enough that the scene still fills most of its panel.
                camera=dict(eye=dict(x=1.6, y=1.6, z=1.3)))
    top = 60
    if any(dense):
        image_axes(layout, [ref for ref, d in zip(refs, dense) if d] if dims == 2 else [])
        biggest = max(size for size, d in zip(sizes, dense) if d)
        of = capped_total(centers_shown, centers)
        note = (density_note(biggest, centers_shown, bins, of=of) if dims == 2 else
                f"3-D draws the {centers_shown:,} {'' if of is None else f'heaviest of {of:,} '}shadow centers "
                f"(sized by weight) of {biggest:,} rows; "
                "the 2-D view draws the rows' density")
        layout["title"] = dict(text=note, font=dict(size=13), x=0.0, xanchor="left", y=0.995, yanchor="top")
        top = 90
    # Fixed margins, no automargin: measuring every panel's tick labels to fit the margins is a large
    # share of the chart's redraw at each ell change (``python tests/benchmarks/bench_latency.py
    # --browser --trace``).
    layout.update(height=legend_height(colour, int(centers is not None), at_least=height + (top - 60),
                                       margins=top + 50),
                  margin=dict(l=70 if dims == 2 else 30, r=10, t=top, b=50),
                  # legend symbols at a readable size, not the 2.5-4 px of the points
                  legend=class_legend(colour, "",  # (no colouring: no title over the centers' key)
                                      **(dict(itemclick=False, itemdoubleclick=False) if legend_only else {})))
    fig = go.Figure(dict(data=traces, layout=layout), _validate=False)
    return highlight_rows(fig, selected_rows)


#: At most this many spectra keep their legend inside the plot (the top right corner).
_LEGEND_INSIDE_MAX = 5


def spectra_figure(spectra: Mapping[str, np.ndarray], *, log_y: bool = True,
                   reference: str | None = None) -> go.Figure:
    """Leading normalized eigenvalues (of K/n) of each method, the reference drawn on top.

    Approximations often share a spectrum (subsampled KPCA and Nystrom solve the same m x m
    problem), so each has its own hollow marker, the earlier ones larger, and thin lines; the
    reference is a thick dashed line over them, first in the legend.

    Parameters
    ----------
    spectra : mapping of str to array-like of shape (r,)
        Method label to its leading eigenvalues.
    log_y : bool, default=True
    reference : str or None, default=None
        The key of the reference spectrum (exact KPCA); None takes the first key.

    Returns
    -------
    go.Figure

    Examples
    --------
    >>> fig = spectra_figure({"Exact": [0.5, 0.2], "Approx": [0.4, 0.2]})
    >>> [t.name for t in fig.data], fig.data[-1].line.dash, fig.data[0].x.tolist()
    (['Approx', 'Exact'], 'dash', [1, 2])
    """
    names = list(spectra)
    if reference is None and names:
        reference = names[0]
    if names and reference not in spectra:
        raise ValueError(f"reference {reference!r} is not among the spectra {names}; pass one of their keys.")
    colors = method_colors(names)
    others = [name for name in names if name != reference]
    fig = go.Figure()
    longest = 1
    for j, name in enumerate(others + [reference] if names else []):
        lam = np.asarray(spectra[name], dtype=np.float64).ravel()
        longest = max(longest, lam.size)
        if name == reference:
            style = dict(mode="lines", line=dict(color=colors[name], width=4, dash="dash"), legendrank=1)
        else:
            style = dict(mode="lines+markers", line=dict(color=colors[name], width=1.5),
                         marker=dict(symbol=_APPROX_SYMBOLS[j % len(_APPROX_SYMBOLS)], size=max(6, 15 - 2 * j),
                                     line=dict(width=2, color=colors[name])))
        fig.add_trace(go.Scatter(x=np.arange(1, lam.size + 1), y=lam, name=name, **style))
    # The legend inside, top right, where a decreasing spectrum leaves the plot empty: beside it,
    # the method names would take half of a half-width chart. Beyond a few names it would cover the
    # lines: then below the plot, in rows.
    inside = len(names) <= _LEGEND_INSIDE_MAX
    legend = (dict(x=0.99, xanchor="right", y=0.99, yanchor="top", bgcolor="rgba(255,255,255,0.8)") if inside
              else dict(orientation="h", x=0.0, xanchor="left", y=-0.18, yanchor="top"))
    fig.update_layout(title="Eigenvalue spectra (of K/n)", xaxis_title="component", yaxis_title="eigenvalue",
                      margin=dict(l=40, r=10, t=50, b=40), legend=legend, height=None if inside else 600)
    # The range ends at the last component: autorange's padding would show a tick for a component
    # that does not exist (21 at r = 20).
    fig.update_xaxes(tickformat="d", tick0=1, dtick=_integer_step(longest), automargin=True,
                     range=[0.5, longest + 0.5])
    if log_y:
        fig.update_yaxes(**_log_axis([y for t in fig.data for y in t.y]))
    return fig
