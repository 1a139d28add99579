"""The Speedups page at the data's own n: RSKPCA timed on all rows, exact KPCA on growing nested samples.

Part of :mod:`rskpca.ui.compute`. Each size is cached on its own (by the data's digest, sigma,
kernel, rank r, ell for RSKPCA, and the timing round), so a larger budget times only the new sizes
and an interrupted ladder resumes where it stopped; :func:`scaling` shows a progress bar while
anything runs. The ladder, the power law and the predictions are
:mod:`rskpca.evaluation.scaling`'s. Every fit runs on one BLAS and OpenMP thread, as the page's
other timings (see :func:`rskpca.ui.compute.fits.method_result`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import streamlit as st

from rskpca.core.progress import scaled
from rskpca.core.threads import native_threads_off
from rskpca.evaluation.scaling import (
    Ladder,
    PREDICTED,
    LadderStep,
    PowerLaw,
    ScalingBudget,
    eval_rows,
    run_ladder,
    scaling_table,
    size_ladder,
    time_exact_at,
    time_rskpca_at,
    with_exact_fit,
)
from rskpca.evaluation.timing import Timing
from rskpca.ui.compute.app_timing import _warm_up
from rskpca.ui.compute.shadow_cache import compiled_shadow_ready, timed_shadow
from rskpca.ui.progress import progress_on_miss

__all__ = ["LADDER_START", "SCALING_SEED", "SCALING_TIMING", "LIVE_TIMING", "scaling_timing", "Scaling", "scaling"]

#: The smallest size exact KPCA is timed at; the ladder doubles from it. At 500 the default budget
#: (0.15 s per fit, :data:`rskpca.ui.keys.DEFAULTS` ``speed_budget_s``) still times three
#: sizes on pendigits (500, 1,000, 2,000 rows), so a sigma change re-times them within the page's
#: interactive budget and the power law has three points.
LADDER_START = 500
#: The seed of the nested subsamples and of the new rows projected.
SCALING_SEED = 0
#: Each size's fit and projection when the user asks for new times ("Time again"): the best of up to three
#: calls within 0.3 s (the slow fits once). A single projection call of exact KPCA slowed by another job can
#: bend its power law; the best of three is what the reader asks for when a time looks off.
SCALING_TIMING = Timing(repeats=3, budget_s=0.3)
#: ...and on a change of ell or sigma (timing round 0): one call per size, so that the page stays live (an
#: ell change re-times RSKPCA at every size; the best of three tripled it).
LIVE_TIMING = Timing()


def scaling_timing(timing_round: int) -> Timing:
    """One call per size in round 0 (a setting changed), the best of three on "Time again".

    >>> scaling_timing(0) == LIVE_TIMING, scaling_timing(1) == SCALING_TIMING
    (True, True)
    """
    return SCALING_TIMING if int(timing_round) else LIVE_TIMING


@st.cache_data(max_entries=64, show_spinner=False)
def _exact_step(digest: str, _X: np.ndarray, size: int, sigma: float, kernel: str, r: int, seed: int,
                timing_round: int) -> LadderStep:
    with native_threads_off():
        return time_exact_at(_X, size, n_components=r, sigma=sigma, kernel=kernel, seed=seed,
                             timing=scaling_timing(timing_round))


@st.cache_data(max_entries=128, show_spinner=False)
def _rskpca_step(digest: str, _X: np.ndarray, size: int, sigma: float, ell: float, kernel: str, r: int, seed: int,
                 timing_round: int) -> LadderStep:
    found, found_s = None, None
    if size >= _X.shape[0]:
        # On all rows the fit's selection is the sidebar's shadow, timed when it ran: counted, not run
        # again (at a million rows it is most of the fit). Not a shadow read
        # off the distance table, whose time is not a scan's.
        found, found_s = timed_shadow(digest, _X, sigma, ell, kernel)
        if found.algorithm == "table":
            found, found_s = None, None
    with native_threads_off():
        return time_rskpca_at(_X, size, n_components=r, sigma=sigma, ell=ell, kernel=kernel, seed=seed,
                              timing=scaling_timing(timing_round), shadow=found, shadow_s=found_s)


@dataclass(frozen=True)
class Scaling:
    """What the page shows: exact KPCA's ladder and power laws, RSKPCA's steps (the full n among them),
    the table's rows (:func:`~rskpca.evaluation.scaling.scaling_table`) and why an RSKPCA size failed."""

    n: int
    eval_rows: int
    exact: Ladder
    fit_law: PowerLaw | None
    project_law: PowerLaw | None
    rskpca: tuple[LadderStep, ...]
    rows: list
    failures: tuple[str, ...]

    @property
    def full(self) -> dict:
        """The table's row at the full n."""
        return self.rows[-1]

    @property
    def rskpca_full(self) -> LadderStep | None:
        return next((s for s in self.rskpca if s.n == self.n), None)


def scaling(digest: str, X: np.ndarray, *, sigma: float, ell: float, kernel: str, r: int, budget: ScalingBudget,
            timing_round: int = 0, exact_full_s=None) -> Scaling:
    """Exact KPCA timed on nested samples of :func:`~rskpca.evaluation.scaling.size_ladder` sizes within
    ``budget``, RSKPCA at the same sizes and on all n rows, each size cached, with a progress bar.

    Exact KPCA's steps are keyed without ell: an ell change re-times RSKPCA's sizes only.
    ``exact_full_s``: called for exact KPCA's fit time at the full n where it is not measured (the one
    prediction, :func:`~rskpca.ui.compute.exact_on_request.exact_all_rows_cost`), which then stands in the
    table's predicted row instead of the power law's extrapolation; None keeps the power law's."""
    # A first call loads code (ARPACK, LAPACK, the compiled shadow scan): not in the first size's time.
    compiled_shadow_ready()
    _warm_up()
    n = X.shape[0]
    sizes = [s for s in size_ladder(n, start=LADDER_START) if s > r + 1]  # arpack needs more rows than components
    with progress_on_miss("Timing at growing n") as bar:
        def show(fraction: float, message: str) -> None:
            bar(fraction, message + "; each size is cached as it goes, so stopping loses nothing")

        def exact_at(size: int) -> LadderStep:
            return _exact_step(digest, X, size, float(sigma), kernel, int(r), SCALING_SEED, int(timing_round))

        ladder = (run_ladder(exact_at, sizes, budget, progress=scaled(show, 0.0, 0.5)) if sizes
                  else Ladder((), (), budget))
        rs_sizes = sorted(set(ladder.measured_n) | {n})
        steps, failures = [], []
        for j, size in enumerate(rs_sizes):
            where = "all" if size == n else "a seeded sample of"
            show(0.5 + 0.5 * j / len(rs_sizes), f"ShDE + RSKPCA on {where} {size:,} rows")
            try:
                steps.append(_rskpca_step(digest, X, size, float(sigma), float(ell), kernel, int(r), SCALING_SEED,
                                          int(timing_round)))
            except (ValueError, np.linalg.LinAlgError, MemoryError) as exc:
                failures.append(f"ShDE + RSKPCA on {size:,} rows: {exc}")
    rows = scaling_table(n, ladder, steps) if ladder.steps else []
    if rows and rows[-1]["exact_kpca"] == PREDICTED and exact_full_s is not None:
        rows[-1] = with_exact_fit(rows[-1], float(exact_full_s()))
    return Scaling(n=n, eval_rows=int(eval_rows(n, SCALING_SEED).size), exact=ladder, fit_law=ladder.fit_law(),
                   project_law=ladder.project_law(), rskpca=tuple(steps), rows=rows, failures=tuple(failures))
