"""Exact KPCA on all n rows, matrix-free, when the Embeddings page's reader asks for it (issue 31).

Part of :mod:`rskpca.ui.compute`. Above :data:`~rskpca.ui.compute.exact_plan.EMBED_EXACT_MAX_ROWS`
rows the page fits exact KPCA on a stated seeded sample, live. :func:`offer` predicts, before
anything runs, what exact KPCA on every row costs matrix-free
(:class:`~rskpca.decomposition.iterative.IterativeKPCA`: Lanczos on kernel blocks, no n x n
matrix; :func:`~rskpca.decomposition.iterative_cost.predict_iterative_cost`) and offers a button
that says it. :func:`run_if_asked`, called last on the page (the sampled view is drawn by then
and stays in sight), runs it with a progress bar, the products done, the time taken and left,
and a Stop button.

Stopping: Streamlit stops a running script at its next ``st`` call once a widget is used (a rerun
request), so the Stop button, or any other control, takes effect at the bar's next update, about
every :data:`UPDATE_S` (the operator reports after every row block: tens of milliseconds). The run
leaves a marker in the session that only a finished run clears: the next run finds it, says the
run was stopped and how far it got, and the page shows its last good view (exact KPCA on the
sample). A finished run is kept in the session per (data digest, sigma, kernel, computed rank);
the page then passes it as exact KPCA on all n rows to
:func:`~rskpca.ui.compute.all_rows_fits.compare_on_all_rows` (``exact=``).

Limits (:data:`MATRIX_FREE_MAX_S`, :data:`MATRIX_FREE_MAX_BYTES`), decided before running: a run
predicted past two hours is refused, with the reason, because it holds one of the machine's two
cores (and a browser tab) for that long, and its prediction is only good to a factor of a few;
the library runs it without the app (``IterativeKPCA(progress=...)``). Kernel blocks kept between
products are held to the page's budget for one fit (:data:`MATRIX_FREE_CACHE_BYTES`, the all-rows
fits' :data:`~rskpca.ui.compute.all_rows_fits.ALL_ROWS_MAX_BYTES`); the rest of the memory is
O(n k), refused above :data:`MATRIX_FREE_MAX_BYTES` in all.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, replace

import numpy as np
import streamlit as st

from rskpca.decomposition.iterative import IterativeKPCA
from rskpca.decomposition.iterative_cost import IterativeCost, measure_kernel_cost, predict_iterative_cost
from rskpca.evaluation.units import bytes_text, seconds_text
from rskpca.ui.compute.all_rows_fits import ALL_ROWS_MAX_BYTES
from rskpca.ui.compute.fits import computed_rank
from rskpca.ui.keys import EXACT_ALL_ROWS as _STORED
from rskpca.ui.keys import EXACT_ALL_ROWS_RUNNING as _RUNNING

__all__ = ["MATRIX_FREE_MAX_S", "MATRIX_FREE_CACHE_BYTES", "MATRIX_FREE_MAX_BYTES", "UPDATE_S", "matrix_free_cost",
           "refusal", "stored", "Offer", "offer", "run_if_asked"]

#: A run predicted to take longer than this is refused (the page says why).
MATRIX_FREE_MAX_S = 2 * 3600.0
#: Kernel blocks kept between products: where the n x n matrix fits, each product after the first is a
#: multiply over stored blocks, several times faster; beyond it the rest is evaluated again per product.
MATRIX_FREE_CACHE_BYTES = ALL_ROWS_MAX_BYTES
#: ...and the whole run's memory (those blocks, ARPACK's n x ncv basis, the result).
MATRIX_FREE_MAX_BYTES = ALL_ROWS_MAX_BYTES + 1024**3
#: Seconds between progress updates (each is a message to the browser, and the point a Stop takes effect).
UPDATE_S = 0.25

_STORED_MAX = 4  # finished runs kept per session (each n x rank floats)
_GO, _STOP = "emb_exact_all_go", "emb_exact_all_stop"  # button keys


def _key(ds, sigma: float, kernel: str, rank: int) -> tuple:
    return (ds.digest, float(sigma), str(kernel), int(rank))


@st.cache_data(max_entries=16, show_spinner="Timing one kernel block to predict exact KPCA on all rows...")
def matrix_free_cost(digest: str, _X: np.ndarray, sigma: float, kernel: str, rank: int) -> IterativeCost:
    """The predicted run on every row of ``_X`` at ``rank``, from one kernel block of the data timed here
    (on the libraries' threads, as the run uses them)."""
    unit = measure_kernel_cost(_X, sigma=sigma, kernel=kernel)
    return predict_iterative_cost(_X.shape[0], rank, unit, cache_bytes=MATRIX_FREE_CACHE_BYTES, d=_X.shape[1])


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


def stored(ds, sigma: float, kernel: str, r: int):
    """A finished run for this data, sigma and kernel at a rank of at least r, cut to r components (or None)."""
    runs = st.session_state.get(_STORED, {})
    for (digest, s, k, rank), result in runs.items():
        if (digest, s, k) == _key(ds, sigma, kernel, 0)[:3] and rank >= r:
            return replace(result, embedding=result.embedding[:, :r],
                           normalized_eigenvalues=result.normalized_eigenvalues[:r])
    return None


@dataclass
class Offer:
    """What :func:`offer` drew, for :func:`run_if_asked`."""

    key: tuple
    cost: IterativeCost | None
    asked: bool
    place: object  # the button's placeholder: the progress bar and the Stop button replace it


def offer(ds, plan, *, sigma: float, kernel: str, r: int, done=None) -> Offer | None:
    """Offer exact KPCA on all n rows, matrix-free, where the page fits it on a sample (None where not).

    Draws, in a container at the call's place: a stopped run's message; then, with ``done`` (a finished
    run), nothing more; else the button with the predicted time and memory, or why it is refused.
    """
    if plan.all_rows:
        return None
    rank = computed_rank(r, ds.n - 1)
    slot = st.container()
    with slot:
        running = st.session_state.pop(_RUNNING, None)
        if running is not None:  # a run that did not finish: stopped (its marker is only cleared at the end)
            st.warning(f"Exact KPCA on all {running['n']:,} rows was stopped after {running['products']:.0f} of "
                       f"about {running['expected']} products ({seconds_text(running['seconds'])}). Exact KPCA "
                       f"stays on the seeded sample of {plan.rows.size:,} rows, as shown.",
                       icon=":material/stop_circle:")
        if done is not None:
            return None
        cost = matrix_free_cost(ds.digest, ds.X, float(sigma), str(kernel), rank)
        why = refusal(cost)
        if why:
            st.info(why, icon=":material/block:")
            return Offer(_key(ds, sigma, kernel, rank), cost, False, None)
        place = st.empty()
        asked = place.button(
            f"Run exact KPCA on all {ds.n:,} rows, matrix-free (predicted about {seconds_text(cost.seconds)}, "
            f"memory {bytes_text(cost.memory_bytes)})", key=_GO, icon=":material/play_arrow:",
            help=f"Lanczos (ARPACK) on the {ds.n:,} x {ds.n:,} kernel matrix applied in row blocks, never stored "
                 f"whole: about {cost.products} products (up to {cost.most_products}, "
                 f"{seconds_text(cost.most_seconds)}, if it restarts more), timed from one kernel block of "
                 "this data. A Stop button, or any other control, stops it; the sampled view stays until it "
                 "finishes.")
    return Offer(_key(ds, sigma, kernel, rank), cost, bool(asked), place)


def run_if_asked(request: Offer | None, ds, sample_exact) -> None:
    """Run the offered fit if its button was clicked, with progress and a Stop button, then rerun the page.

    ``sample_exact``: exact KPCA on the sample (its result), the template of the run's result (the
    same method and label, on all n rows).
    Called last on the page. The fit's result is kept in the session and the page reruns to show it;
    a stop (or any other control) interrupts it at the bar's next update and leaves the marker that
    :func:`offer` reports on the next run.
    """
    if request is None or not request.asked:
        return
    digest, sigma, kernel, rank = request.key
    cost, n = request.cost, ds.n
    marker = {"n": n, "products": 0.0, "seconds": 0.0, "expected": cost.products}
    st.session_state[_RUNNING] = marker
    with request.place.container():  # in the button's place: no second click on it while it runs
        bar = st.progress(0.0, text=f"Exact KPCA on all {n:,} rows, matrix-free: starting...")
        st.button("Stop", key=_STOP, icon=":material/stop:",
                  help="Stops the run at its next update; the page keeps exact KPCA on the seeded sample.")
    state = {"shown": -np.inf, "first_s": None}

    def progress(done: float, seconds: float) -> None:
        marker.update(products=done, seconds=seconds)
        if state["first_s"] is None and done >= 1.0:
            state["first_s"] = seconds
        if seconds - state["shown"] < UPDATE_S:
            return
        state["shown"] = seconds
        left, total = cost.seconds_left(done, seconds, first_s=state["first_s"])
        marker["expected"] = total
        # The st call where a Stop (a rerun request) stops the script.
        bar.progress(min(done / total, 0.99),
                     text=f"Exact KPCA on all {n:,} rows, matrix-free: {done:.1f} of about {total} products with "
                          f"the kernel matrix, {seconds_text(seconds)} so far, about {seconds_text(left)} left")

    t0 = time.perf_counter()
    est = IterativeKPCA(n_components=rank, sigma=sigma, kernel=kernel, cache_bytes=MATRIX_FREE_CACHE_BYTES,
                        random_state=0, progress=progress)
    try:
        Z = est.fit_transform(ds.X)
    except (ValueError, np.linalg.LinAlgError, MemoryError) as exc:
        st.session_state.pop(_RUNNING, None)
        with request.place.container():
            st.error(f"Exact KPCA on all {n:,} rows, matrix-free, failed: {exc}")
        return
    result = replace(sample_exact, m=n, n_train=n, embedding=Z, normalized_eigenvalues=est.normalized_eigenvalues_,
                     train_s=time.perf_counter() - t0, test_s=float("nan"), stored_points=n, solver_train_s=None)
    runs = st.session_state.setdefault(_STORED, {})
    runs[request.key] = result
    while len(runs) > _STORED_MAX:
        runs.pop(next(iter(runs)))
    st.session_state.pop(_RUNNING, None)
    st.rerun()

