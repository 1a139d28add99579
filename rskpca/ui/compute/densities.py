"""The KDE and the ShDE where the pages draw them: on a grid, at the data points, along a line.

Part of :mod:`rskpca.ui.compute` (which re-exports these names). The densities themselves are
:mod:`rskpca.core.rsde`'s (:func:`~rskpca.core.rsde.kde`, :func:`~rskpca.core.rsde.reduced_set_density`,
:func:`~rskpca.core.rsde.row_masses`); here they are cached, and the kernel between a set of points
and every row is kept so that the KDE and the ShDE at every ell cost one product each.
"""

from __future__ import annotations

import numpy as np
import streamlit as st

from rskpca.core.radial_kernels import kernel_matrix
from rskpca.core.row_draws import rows_within
from rskpca.core.rsde import kde, reduced_set_density, row_masses
from rskpca.ui.compute.shadow_cache import shadow

__all__ = ["DENSITY_MAX_POINTS", "DENSITY_MIN_POINTS", "DENSITY_KERNEL_MAX_ELEMENTS", "kde_grid", "shde_grid",
           "kde_at", "shde_at", "shde_over_ells", "density_rows", "densities_at"]

#: Points at which the KDE (an n x n_eval sum) is evaluated on the KDE page: every row up to this many;
#: above, as many as keep their kernel whole (:data:`DENSITY_KERNEL_MAX_ELEMENTS`), at least
#: :data:`DENSITY_MIN_POINTS` (:func:`density_rows`).
DENSITY_MAX_POINTS = 3000
#: The fewest sampled points the KDE page compares densities at (pendigits' 10,992 rows: 500, evaluated).
DENSITY_MIN_POINTS = 500
#: The kernel between a set of density points and every row is kept, read-only, up to this many
#: values (32 MB in float64; four sets of points at most: a page's, its line's, the scrubber's):
#: the KDE is its row mean, and the ShDE at any ell its product with the shadow's weights put on
#: their centers (eq. 16 is the KDE with each row's mass moved to its center). A density frame then
#: costs one product instead of a kernel evaluation against its centers, so the ell scrubber's frames
#: do not slow a sigma change (``python tests/benchmarks/bench_latency.py --sample digits --pages
#: pages/3_KDE_vs_ShDE.py --controls sigma``).
DENSITY_KERNEL_MAX_ELEMENTS = 4_000_000


def _grid(X2: np.ndarray, size: int):
    lo, hi = X2.min(axis=0), X2.max(axis=0)
    pad = 0.1 * np.where(hi > lo, hi - lo, 1.0)
    axes = [np.linspace(a, b, size) for a, b in zip(lo - pad, hi + pad)]
    return axes


@st.cache_resource(max_entries=4, show_spinner=False)
def _points_kernel(digest: str, _X: np.ndarray, sigma: float, kernel: str, _P: np.ndarray, points_key: str):
    """``k(P, X)``, read-only: kept whole (a resource, not copied per use as cached data is)."""
    K = kernel_matrix(_P, _X, sigma=sigma, kernel=kernel)
    K.setflags(write=False)
    return K


def _density(digest: str, X: np.ndarray, sigma: float, kernel: str, P: np.ndarray, points_key: str,
             shadow_result=None) -> np.ndarray:
    """The KDE at the points P, or with ``shadow_result`` the ShDE: from the kept ``k(P, X)`` when it
    fits :data:`DENSITY_KERNEL_MAX_ELEMENTS`, else evaluated against the rows or the centers."""
    if P.shape[0] * X.shape[0] > DENSITY_KERNEL_MAX_ELEMENTS:
        if shadow_result is None:  # float32 kernel blocks: a density to draw, 3x faster on large data
            return kde(P, X, sigma=sigma, kernel=kernel, dtype=np.float32)
        return reduced_set_density(P, shadow_result.centers, shadow_result.weights, sigma=sigma, kernel=kernel)
    mass = (row_masses(X.shape[0]) if shadow_result is None else
            row_masses(X.shape[0], shadow_result.center_indices, shadow_result.weights))
    return _points_kernel(digest, X, sigma, kernel, P, points_key) @ mass


@st.cache_data(max_entries=16, show_spinner=False)
def shde_over_ells(digest: str, _X: np.ndarray, sigma: float, kernel: str, ells: tuple, _P: np.ndarray,
                   points_key: str) -> np.ndarray:
    """The ShDE at the points P at every ell of ``ells`` (a row each): with the kept ``k(P, X)``, one
    product for all of them, one pass over the kernel instead of one per ell. The shadows come from
    :func:`~rskpca.ui.compute.shadow_cache.shadow` (cached per ell)."""
    shadows = [shadow(digest, _X, sigma, float(ell), kernel) for ell in ells]
    if _P.shape[0] * _X.shape[0] > DENSITY_KERNEL_MAX_ELEMENTS:
        return np.stack([_density(digest, _X, sigma, kernel, _P, points_key, s) for s in shadows])
    masses = np.column_stack([row_masses(_X.shape[0], s.center_indices, s.weights) for s in shadows])
    return (_points_kernel(digest, _X, sigma, kernel, _P, points_key) @ masses).T


@st.cache_data(max_entries=16, show_spinner="Evaluating the KDE on a grid...")
def kde_grid(digest: str, _X: np.ndarray, sigma: float, kernel: str, size: int):
    """``(axes, kde)`` on a regular grid over 1-D or 2-D data (the KDE does not depend on ell)."""
    axes = _grid(_X, size)
    kde = _density(digest, _X, sigma, kernel, _grid_points(axes), f"grid{size}")
    return axes, kde.reshape(_grid_shape(axes))


def _grid_points(axes) -> np.ndarray:
    if len(axes) == 1:
        return axes[0][:, None]
    gx, gy = np.meshgrid(axes[0], axes[1])
    return np.column_stack([gx.ravel(), gy.ravel()])


def _grid_shape(axes):
    return (axes[0].size,) if len(axes) == 1 else (axes[1].size, axes[0].size)


@st.cache_data(max_entries=64, show_spinner=False)
def shde_grid(digest: str, _X: np.ndarray, sigma: float, kernel: str, ell: float, size: int):
    """The ShDE on the same grid as :func:`kde_grid`."""
    s = shadow(digest, _X, sigma, ell, kernel)
    axes = _grid(_X, size)
    return _density(digest, _X, sigma, kernel, _grid_points(axes), f"grid{size}", s).reshape(_grid_shape(axes))


@st.cache_data(max_entries=16, show_spinner="Evaluating the KDE at the data points...")
def kde_at(digest: str, _X: np.ndarray, sigma: float, kernel: str, _P: np.ndarray, points_key: str):
    """The KDE at the points P (cached by ``points_key``; independent of ell)."""
    return _density(digest, _X, sigma, kernel, _P, points_key)


@st.cache_data(max_entries=64, show_spinner=False)
def shde_at(digest: str, _X: np.ndarray, sigma: float, kernel: str, ell: float, _P: np.ndarray, points_key: str):
    """The ShDE at the points P."""
    return _density(digest, _X, sigma, kernel, _P, points_key, shadow(digest, _X, sigma, ell, kernel))


def density_rows(n: int) -> np.ndarray:
    """Rows at which densities are compared: all up to :data:`DENSITY_MAX_POINTS`, else a seeded sample of
    as many as keep their kernel against every row whole (at least :data:`DENSITY_MIN_POINTS`).

    Kept whole, the kernel is computed once per sigma: the KDE is its row mean and the ShDE at every ell
    one product (:func:`_density`), and KDE vs ShDE's scrubber draws its frames at the same points from it.
    Fewer points than :data:`DENSITY_MAX_POINTS` on large data keep sigma and ell changes quick (``python
    tests/benchmarks/bench_latency.py --csv PATH --pages pages/3_KDE_vs_ShDE.py --controls sigma ell``).

    >>> density_rows(10).size, density_rows(5000).size, density_rows(20000).size
    (10, 800, 500)
    """
    budget = DENSITY_MAX_POINTS if n <= DENSITY_MAX_POINTS else \
        min(DENSITY_MAX_POINTS, max(DENSITY_MIN_POINTS, DENSITY_KERNEL_MAX_ELEMENTS // n))
    return rows_within(n, budget, np.random.default_rng(1))


def densities_at(digest: str, X: np.ndarray, sigma: float, kernel: str, ell: float, P: np.ndarray, points_key: str):
    """``(kde, shde)`` at the points P."""
    return (kde_at(digest, X, sigma, kernel, P, points_key),
            shde_at(digest, X, sigma, kernel, ell, P, points_key))

