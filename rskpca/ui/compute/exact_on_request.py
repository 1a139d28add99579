"""Exact KPCA on all n rows, matrix-free: its predicted cost (the one model, every page) and the run itself.

Part of :mod:`rskpca.ui.compute`: it computes and caches, it draws nothing. :func:`exact_all_rows_cost`
is the one prediction of exact KPCA on every row of the data in use, quoted by the Embeddings page
(its note and its button) and the Speedups page alike: :func:`~rskpca.evaluation.costs.exact_kpca_cost`
at the page's computed rank, its unit (seconds per kernel value) timed on one kernel block of the data,
once per data, sigma and kernel (:func:`kernel_unit_cost`). :func:`refusal` says why a run is not
offered; :func:`fit_matrix_free` runs it (:class:`~rskpca.decomposition.iterative.IterativeKPCA`: Lanczos
on kernel blocks, no n x n matrix) with a progress callback of the one protocol. The button, the
progress bar and what the session keeps are :mod:`rskpca.ui.exact_all_rows`'.

Limits (:data:`MATRIX_FREE_MAX_S`, :data:`MATRIX_FREE_MAX_BYTES`), decided before running: a run
predicted past two hours is refused, with the reason, because it holds one of the machine's two
cores (and a browser tab) for that long, and its prediction is only good to a factor of a few;
the library runs it without the app (``IterativeKPCA(progress=...)``). Kernel blocks kept between
products are held to the page's budget for one fit (:data:`MATRIX_FREE_CACHE_BYTES`); the rest of the
memory is O(n k), refused above :data:`MATRIX_FREE_MAX_BYTES` in all.
"""

from __future__ import annotations

import time

import numpy as np
import streamlit as st

from rskpca.decomposition.iterative import IterativeKPCA
from rskpca.decomposition.iterative_cost import IterativeCost, KernelCost, measure_kernel_cost
from rskpca.evaluation.costs import KEPT_BLOCK_BYTES, exact_kpca_cost, lanczos_progress
from rskpca.evaluation.units import bytes_text, seconds_text
from rskpca.ui.compute.fits import computed_rank

__all__ = ["MATRIX_FREE_MAX_S", "MATRIX_FREE_CACHE_BYTES", "MATRIX_FREE_MAX_BYTES", "CENTERS_COST_SHOWN_M",
           "kernel_unit_cost", "exact_all_rows_cost", "centers_solve_cost", "refusal", "fit_matrix_free"]

#: A run predicted to take longer than this is refused (the page says why).
MATRIX_FREE_MAX_S = 2 * 3600.0
#: Kernel blocks kept between products (the one cost model's default, the all-rows fits' memory budget).
MATRIX_FREE_CACHE_BYTES = KEPT_BLOCK_BYTES
#: ...and the whole run's memory (those blocks, ARPACK's n x ncv basis, the result).
MATRIX_FREE_MAX_BYTES = KEPT_BLOCK_BYTES + 1024**3


@st.cache_data(max_entries=16, show_spinner="Timing one kernel block to predict exact KPCA on all rows...")
def kernel_unit_cost(digest: str, _X: np.ndarray, sigma: float, kernel: str) -> KernelCost:
    """Seconds per kernel value on this data, sigma and kernel: one kernel block of the data timed here (on
    the libraries' threads, as the run uses them), once per data set and setting."""
    return measure_kernel_cost(_X, sigma=sigma, kernel=kernel)


def exact_all_rows_cost(ds, sigma: float, kernel: str, r: int) -> IterativeCost:
    """The one prediction of exact KPCA on all ``ds.n`` rows at rank r (fitted at :func:`computed_rank`):
    the same number on every page that quotes it."""
    unit = kernel_unit_cost(ds.digest, ds.X, float(sigma), str(kernel))
    return exact_kpca_cost(ds.n, computed_rank(r, ds.n - 1), unit, d=ds.d, cache_bytes=MATRIX_FREE_CACHE_BYTES)


#: Above this many centers the sidebar says what the m x m problem costs (each sigma or ell change solves it).
CENTERS_COST_SHOWN_M = 2000


def centers_solve_cost(digest: str, X: np.ndarray, sigma: float, kernel: str, r: int, m: int) -> IterativeCost:
    """RSKPCA's m x m problem on the shadow's m centers of the data ``X`` (key ``digest``), predicted by the same
    model as exact KPCA on m points (the weighted kernel matrix of the centers, all of it kept)."""
    unit = kernel_unit_cost(digest, X, float(sigma), str(kernel))
    m = max(int(m), 2)
    return exact_kpca_cost(m, computed_rank(r, m - 1), unit, d=X.shape[1], cache_bytes=8 * m * m)


def refusal(cost: IterativeCost) -> str:
    """Why a run is refused, in the page's words ("" when it is offered).

    >>> from rskpca.decomposition.iterative_cost import KernelCost, predict_iterative_cost
    >>> unit = KernelCost(evaluate=2.5e-9, multiply=3e-10)
    >>> refusal(predict_iterative_cost(20_000, 5, unit))
    ''
    >>> refusal(predict_iterative_cost(1_000_000, 5, unit))[:60]
    'Exact KPCA on all 1,000,000 rows, matrix-free, would take ab'
    """
    too_long = cost.seconds > MATRIX_FREE_MAX_S
    too_big = cost.memory_bytes > MATRIX_FREE_MAX_BYTES
    if not (too_long or too_big):
        return ""
    why = "; ".join(part for part in (
        f"more than the page's {seconds_text(MATRIX_FREE_MAX_S)} for a run (it holds a core, and this tab, "
        "all along)" if too_long else "",
        f"more than the page's {bytes_text(MATRIX_FREE_MAX_BYTES)}" if too_big else "") if part)
    return (f"Exact KPCA on all {cost.n:,} rows, matrix-free, would take about {seconds_text(cost.seconds)} "
            f"({cost.products} products with the {cost.n:,} x {cost.n:,} kernel matrix, each evaluated in blocks) "
            f"and {bytes_text(cost.memory_bytes)}: {why}. It is not offered here; the library runs it "
            "(rskpca.decomposition.IterativeKPCA, with a progress callback).")


def fit_matrix_free(X: np.ndarray, cost: IterativeCost, *, sigma: float, kernel: str, progress=None,
                    watch=None) -> tuple[np.ndarray, np.ndarray, float]:
    """Exact KPCA on every row of X, matrix-free, at ``cost.n_components`` -> ``(embedding, normalized
    eigenvalues, seconds)``. ``progress(fraction, message)``: the one protocol (raise to stop: nothing is
    returned then); ``watch(products, seconds)``: IterativeKPCA's own callback, for what a stop leaves."""
    report = None if progress is None else lanczos_progress(cost, progress)

    def both(products: float, seconds: float) -> None:
        if watch is not None:
            watch(products, seconds)
        if report is not None:
            report(products, seconds)

    t0 = time.perf_counter()
    est = IterativeKPCA(n_components=cost.n_components, sigma=sigma, kernel=kernel,
                        cache_bytes=MATRIX_FREE_CACHE_BYTES, random_state=0, progress=both)
    Z = est.fit_transform(X)
    return Z, est.normalized_eigenvalues_, time.perf_counter() - t0
