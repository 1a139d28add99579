"""How the app times exact KPCA and the compared methods, and the warm-up before anything is timed.

Part of :mod:`rskpca.ui.compute` (which re-exports the timings): each fit of
:mod:`rskpca.ui.compute.fits` the Speedups page shows is timed under one of these timings
(:class:`~rskpca.evaluation.timing.Timing`), after :func:`_warm_up` has loaded the code a first call loads.
"""

from __future__ import annotations

import numpy as np
import streamlit as st

from rskpca.core.threads import native_threads_off
from rskpca.evaluation.fitting import EXACT_SOLVERS, fit_exact, fit_method
from rskpca.evaluation.methods import methods_in
from rskpca.evaluation.timing import Timing

__all__ = ["APP_TIMING", "OWN_TIMING", "REFERENCE_TIMING"]

#: How the app times every method on "Time again" (a new timing round): the best of up to three calls within
#: 0.1 s, because times are cached and one call slowed by something beside it (another session, the
#: browser's first drawing) would otherwise stand in the Speedups headline; the fast calls, which such a
#: delay distorts most, get the extra tries. On a change of a setting each method is timed by one call
#: (:func:`rskpca.ui.compute.fits.method_result`), so that an ell change stays live.
APP_TIMING = Timing(repeats=3, budget_s=0.1)
#: Exact KPCA timed on its own (a new timing round, or a solver the reference fit did not use): the best
#: of two calls, on one BLAS and OpenMP thread (the libraries' threads wait for each other when the browser
#: or another session holds a core: the thread rows of ``python tests/benchmarks/bench_speed.py --pendigits
#: PATH``).
OWN_TIMING = Timing(repeats=2, budget_s=1.0)
#: The Speedups page's reference fit (fit and projection timed): one call, the baseline on a change of a setting.
REFERENCE_TIMING = Timing()


#: Warmed up once per server process before anything is timed (:func:`_warm_up`).
_WARM_UP_METHODS = methods_in("paper_embeddings")


@st.cache_resource(show_spinner=False)
def _warm_up() -> bool:
    """One untimed call of exact KPCA and of the default compared methods on 300 synthetic rows, once per
    server process, before the first timed call: a first call loads code (ARPACK, LAPACK, thread pools),
    and a user who opens Speedups first must not read speedups skewed by that loading."""
    X = np.random.default_rng(0).normal(size=(300, 2))
    with native_threads_off():
        fit_exact(X, n_components=2, sigma=1.0, solvers=EXACT_SOLVERS[:1])
        for name in _WARM_UP_METHODS:
            fit_method(name, X, n_components=2, sigma=1.0, ell=3.0)
    return True
