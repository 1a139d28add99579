"""Plotly figure builders: pure functions from arrays and tidy tables to ``go.Figure``.

Nothing here touches Streamlit, so every figure the app shows can be built and
checked in a plain test. Conventions shared by the builders:

* Rows are coloured by one column through :func:`colouring` (``_colouring``): classes of any type and
  number (a colour, then a symbol each; above :data:`MAX_CLASSES` the largest and "other"; missing
  values a class), a colour scale only for a measurement; one trace per class, so a legend click hides
  a class and a double click isolates it; hover names the row, its value and the first features
  (:func:`hover_columns`). Marker size and opacity follow the points drawn (:func:`marker_style`);
  where they would hide one another (:func:`crowded`) or exceed the point budget, a chart draws the
  rows' density in the same colours (:func:`class_density`, :func:`draws_density`).
* Scatters with more than :data:`WEBGL_THRESHOLD` points use ``go.Scattergl``
  (WebGL), smaller ones SVG ``go.Scatter``. A figure with WebGL traces uses one
  WebGL context for all its 2-D subplots; each 3-D scene uses one of its own.
  Browsers allow only a handful of contexts per page, so callers keep count
  with :func:`webgl_contexts`.
* Original row numbers travel first in ``customdata`` so hover labels and selections
  name the row of the user's file; :func:`rows_from_points` reads them back from a
  box or lasso selection, and every scatter builder's ``selected_rows=`` argument
  (:func:`highlight_rows`) outlines those rows and dims the rest, in any figure.
* Densities are evaluated on a server-side grid and drawn as heatmaps; raw
  points are never handed to a client-side density trace.
* A method has one colour in every chart (:data:`METHOD_COLORS`, :func:`method_colors`),
  category names are shown in full (wrapped, or beside horizontal bars), log axes label
  decades or full numbers (never bare minor digits), and count axes whole numbers.

This module is the public face; the builders live in private modules by subject (``_data``: shadow centers and
weights, ``_densities``: KDE against ShDE, ``_method_comparison``: embeddings, spectra, ``_density_drawing``:
a panel of many rows drawn as their density, ``_views_in_3d``: which embeddings a 3-D figure draws, ``_bars``:
bars, times, ``_side_by_side``: two figures as the panels of one, ``_bounds``: bounds and curves over ell, ``_ell_scrubber_figures``: ell scrubbers whose frames
the browser plays, ``_denoise``: image strips, ``_spectral``: the Spectral page's eigenvalues) on a shared
style (``_style``). Import them from here.
"""

from rskpca.plotting._bars import bar_figure, fit_predict_figure, fit_time_figure
from rskpca.plotting._side_by_side import side_by_side
from rskpca.plotting._bounds import bounds_curves_figure, bounds_figure, lines_over_ell
from rskpca.plotting._denoise import denoise_figure
from rskpca.plotting._denoise_profiles import denoise_profiles_figure
from rskpca.plotting._data import shadow_figure, weight_histogram
from rskpca.plotting._densities import (
    density_curve_figure,
    density_grid_figure,
    density_points_figure,
    error_histogram,
)
from rskpca.plotting._data_view import data_figure, data_panels
from rskpca.plotting._colouring import (
    CLASS_COLORS,
    CLASS_SYMBOLS,
    MAX_CLASSES,
    Colouring,
    center_sizes,
    colouring,
    hover_columns,
    marker_style,
)
from rskpca.plotting._density_drawing import (
    DENSITY_BINS,
    POINT_BUDGET,
    class_density,
    crowded,
    density_bins,
    density_counts,
    density_note,
    draws_density,
    png_data_uri,
)
from rskpca.plotting._method_comparison import embedding_figure, embedding_panels, spectra_figure
from rskpca.plotting._views_in_3d import MAX_3D_VIEWS, views_in_3d
from rskpca.plotting._ell_scrubber_figures import (
    SCRUB_CENTERS,
    SCRUB_POINTS,
    density_scrubber_figure,
    embedding_scrubber_figure,
    shadow_scrubber_figure,
)
from rskpca.plotting._scaling import scaling_figure
from rskpca.plotting._selection import (
    axis_of_panel,
    highlight_rows,
    rows_from_points,
    rows_in_region,
    rows_in_regions,
    selection_regions,
)
from rskpca.plotting._spectral import cluster_class_figure, cluster_figure, spectral_eigenvalues_figure
from rskpca.plotting._style import (
    METHOD_COLORS,
    PALETTE,
    WEBGL_THRESHOLD,
    figure_html,
    method_colors,
    shadow_centers_text,
    user_text,
    webgl_contexts,
)

__all__ = [
    "WEBGL_THRESHOLD",
    "PALETTE",
    "side_by_side",
    "METHOD_COLORS",
    "method_colors",
    "shadow_centers_text",
    "user_text",
    "webgl_contexts",
    "figure_html",
    "data_figure",
    "data_panels",
    "highlight_rows",
    "rows_from_points",
    "selection_regions",
    "rows_in_region",
    "rows_in_regions",
    "axis_of_panel",
    "shadow_figure",
    "weight_histogram",
    "density_grid_figure",
    "density_curve_figure",
    "density_points_figure",
    "error_histogram",
    "embedding_figure",
    "embedding_panels",
    "POINT_BUDGET",
    "DENSITY_BINS",
    "MAX_CLASSES",
    "CLASS_COLORS",
    "CLASS_SYMBOLS",
    "Colouring",
    "colouring",
    "hover_columns",
    "marker_style",
    "center_sizes",
    "class_density",
    "crowded",
    "density_bins",
    "draws_density",
    "png_data_uri",
    "density_counts",
    "density_note",
    "MAX_3D_VIEWS",
    "views_in_3d",
    "spectra_figure",
    "bar_figure",
    "fit_time_figure",
    "fit_predict_figure",
    "bounds_figure",
    "bounds_curves_figure",
    "lines_over_ell",
    "SCRUB_POINTS",
    "SCRUB_CENTERS",
    "shadow_scrubber_figure",
    "density_scrubber_figure",
    "embedding_scrubber_figure",
    "denoise_figure",
    "denoise_profiles_figure",
    "scaling_figure",
    "spectral_eigenvalues_figure",
    "cluster_figure",
    "cluster_class_figure",
]
