"""The Embeddings page's offer of exact KPCA on all n rows, matrix-free: the button, the run's progress and
what the session keeps (issue 31). The prediction and the run are :mod:`rskpca.ui.compute.exact_on_request`'s.

Above :data:`~rskpca.ui.compute.exact_plan.EMBED_EXACT_MAX_ROWS` rows the page fits exact KPCA on a
stated seeded sample, live. :func:`offer` says, before anything runs, what exact KPCA on every row
costs (the one prediction, :func:`~rskpca.ui.compute.exact_on_request.exact_all_rows_cost`, the number
the Speedups page quotes too) and offers a button that says it. :func:`run_if_asked`, called last on
the page (the sampled view is drawn by then and stays in sight), runs it with a progress bar
(:class:`~rskpca.ui.progress.ProgressPanel`: the products done, the time taken and left) and a Stop
button.

Stopping: the Stop button, or any other control, takes effect at the bar's next update. The run
leaves a marker in the session that only a finished run clears: the next run finds it, says the run
was stopped and how far it got, and the page shows its last good view (exact KPCA on the sample). A
finished run is kept in the session per (data digest, sigma, kernel, computed rank); the page then
passes it as exact KPCA on all n rows to
:func:`~rskpca.ui.compute.all_rows_fits.compare_on_all_rows` (``exact=``).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
import streamlit as st

from rskpca.decomposition.iterative_cost import IterativeCost
from rskpca.evaluation.units import bytes_text, seconds_text
from rskpca.ui.compute.exact_on_request import exact_all_rows_cost, fit_matrix_free, refusal
from rskpca.ui.keys import EXACT_ALL_ROWS as _STORED
from rskpca.ui.keys import EXACT_ALL_ROWS_RUNNING as _RUNNING
from rskpca.ui.progress import ProgressPanel

__all__ = ["stored", "Offer", "offer", "run_if_asked"]

_STORED_MAX = 4  # finished runs kept per session (each n x rank floats)
_GO, _STOP = "emb_exact_all_go", "emb_exact_all_stop"  # button keys


def _key(ds, sigma: float, kernel: str, rank: int) -> tuple:
    return (ds.digest, float(sigma), str(kernel), int(rank))


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
        cost = exact_all_rows_cost(ds, sigma, kernel, r)
        key = _key(ds, sigma, kernel, cost.n_components)
        why = refusal(cost)
        if why:
            st.info(why, icon=":material/block:")
            return Offer(key, cost, False, None)
        place = st.empty()
        asked = place.button(
            f"Run exact KPCA on all {ds.n:,} rows, matrix-free (predicted about {seconds_text(cost.seconds)}, "
            f"memory {bytes_text(cost.memory_bytes)})", key=_GO, icon=":material/play_arrow:",
            help=f"Lanczos (ARPACK) on the {ds.n:,} x {ds.n:,} kernel matrix applied in row blocks, never stored "
                 f"whole: about {cost.products} products (up to {cost.most_products}, "
                 f"{seconds_text(cost.most_seconds)}, if it restarts more), timed from one kernel block of "
                 "this data. A Stop button, or any other control, stops it; the sampled view stays until it "
                 "finishes.")
    return Offer(key, cost, bool(asked), place)


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
    cost, n = request.cost, ds.n
    marker = {"n": n, "products": 0.0, "seconds": 0.0, "expected": cost.products}
    st.session_state[_RUNNING] = marker

    def watch(products: float, seconds: float) -> None:
        marker.update(products=products, seconds=seconds, expected=cost.fraction_done(products)[1])

    # In the button's place: no second click on it while it runs.
    bar = ProgressPanel(f"Exact KPCA on all {n:,} rows, matrix-free", predicted_s=cost.seconds,
                        stop_key=_STOP, slot=request.place)
    try:
        Z, spectrum, seconds = fit_matrix_free(ds.X, cost, sigma=request.key[1], kernel=request.key[2],
                                               progress=bar, watch=watch)
    except (ValueError, np.linalg.LinAlgError, MemoryError) as exc:
        st.session_state.pop(_RUNNING, None)
        bar.close()
        with request.place.container():
            st.error(f"Exact KPCA on all {n:,} rows, matrix-free, failed: {exc}")
        return
    result = replace(sample_exact, m=n, n_train=n, embedding=Z, normalized_eigenvalues=spectrum,
                     train_s=seconds, test_s=float("nan"), stored_points=n, solver_train_s=None)
    runs = st.session_state.setdefault(_STORED, {})
    runs[request.key] = result
    while len(runs) > _STORED_MAX:
        runs.pop(next(iter(runs)))
    st.session_state.pop(_RUNNING, None)
    st.rerun()
