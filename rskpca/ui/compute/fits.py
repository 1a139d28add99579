"""Exact KPCA and the compared methods fitted on the comparison rows.

Part of :mod:`rskpca.ui.compute` (which re-exports these names): the Embeddings page shows
the embeddings (fitted once, at a rank shared by neighbouring ranks), the Speedups page the
times (each taken under a :class:`~rskpca.evaluation.timing.Timing` of
:mod:`rskpca.ui.compute.app_timing`, and again on request: a new timing round). The Embeddings
page's fits on every row are :mod:`rskpca.ui.compute.all_rows_fits`'.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import streamlit as st

from rskpca.core.threads import native_threads_off
from rskpca.evaluation.fitting import EXACT_SOLVERS, fit_exact, fit_method
from rskpca.evaluation.methods import METHODS, perturbs_gram
from rskpca.evaluation.timing import Timing
from rskpca.plotting import shadow_centers_text
from rskpca.ui.compute.app_timing import APP_TIMING, OWN_TIMING, REFERENCE_TIMING, _warm_up
from rskpca.ui.compute.shadow_cache import shadow
from rskpca.ui.keys import ELL_RANGE

__all__ = ["exact_reference", "exact_kpca", "RANK_BUCKETS", "computed_rank", "exact_embedding", "method_result",
           "rank_message", "said_once", "fit_methods"]


@st.cache_data(max_entries=8, show_spinner="Exact kernel PCA on the comparison rows (kept for the next change)...")
def exact_reference(digest: str, _X: np.ndarray, sigma: float, kernel: str, r: int):
    """Exact KPCA fitted and evaluated on the comparison rows with the first of
    :data:`~rskpca.evaluation.fitting.EXACT_SOLVERS` (independent of ell): the Speedups page's
    reference, its fit and projection timed.

    One call (:data:`REFERENCE_TIMING`): the Speedups page times the baseline itself
    (:func:`exact_kpca`), this call among its candidates. (Embeddings, which shows no times,
    fits without projecting: :func:`exact_embedding`.)
    """
    with native_threads_off():  # see method_result
        return fit_exact(_X, n_components=r, sigma=sigma, kernel=kernel, solvers=EXACT_SOLVERS[:1],
                         timing=REFERENCE_TIMING)


@st.cache_data(max_entries=16, show_spinner="Timing exact kernel PCA (kept for the next change)...")
def _solver_timed(digest: str, _X: np.ndarray, sigma: float, kernel: str, r: int, solver: str, timing_round: int):
    """Exact KPCA with one scikit-learn solver, timed on one BLAS and OpenMP thread under :data:`OWN_TIMING`
    (a solver the reference fit did not use, or any solver in a new timing round)."""
    with native_threads_off():
        return fit_exact(_X, n_components=r, sigma=sigma, kernel=kernel, solvers=(solver,), timing=OWN_TIMING)


def exact_kpca(digest: str, X: np.ndarray, sigma: float, kernel: str, r: int, all_solvers: bool = False,
               timing_round: int = 0):
    """The speedups' baseline: :func:`exact_reference`'s fit, its time that call's with scikit-learn's arpack
    (in a new ``timing_round``, the best of :data:`OWN_TIMING`'s two calls: new times, not the reference's
    again); with ``all_solvers`` every other solver of ``EXACT_SOLVERS`` is timed too (each cached on its
    own, so switching it on times only the new one) and ``train_s`` is the fastest's.

    arpack alone by default, because on every comparison set the app can have it beats the randomized
    solver, and timing both would slow every sigma or rank change (the solver rows of ``python
    tests/benchmarks/bench_speed.py --pendigits PATH``). The Speedups page offers the rest on request.
    """
    _warm_up()
    ref = exact_reference(digest, X, sigma, kernel, r)
    solvers = EXACT_SOLVERS if all_solvers else EXACT_SOLVERS[:1]
    # On a change of a setting (round 0) the reference fit's own call is arpack's time: one exact fit per
    # sigma change, so that the page stays live; "Time again" (a new round) takes the best of its own calls.
    own = solvers[1:] if not timing_round else solvers
    timed = {solver: _solver_timed(digest, X, sigma, kernel, r, solver, int(timing_round)) for solver in own}
    per_solver = {solver: res.train_s for solver, res in timed.items()}
    test_s = timed[solvers[0]].test_s if timing_round else ref.test_s
    if not timing_round:
        per_solver = {solvers[0]: ref.train_s, **per_solver}
    return replace(ref, train_s=min(per_solver.values()), test_s=test_s, solver_train_s=per_solver)


#: Ranks computed for the pages that show results, not times (Embeddings): a rank r is fitted at
#: the first of these at least r (at most the method's limit) and its first r components shown, so
#: moving r within a bucket costs no fit (top-r eigenpairs are the first r of the top R).
RANK_BUCKETS = (2, 5, 10, 20)


def computed_rank(r: int, limit: int) -> int:
    """The rank fitted for rank ``r`` (see :data:`RANK_BUCKETS`): at least r, at most ``limit`` unless r is.

    >>> computed_rank(3, 1000), computed_rank(5, 1000), computed_rank(6, 8), computed_rank(6, 4)
    (5, 5, 8, 6)
    """
    bucket = next((b for b in RANK_BUCKETS if b >= r), r)
    return max(r, min(bucket, limit))


def _first_components(result, r: int):
    """``result`` with its embedding and spectrum cut to the first r components (times are the fit's)."""
    if result.embedding.shape[1] == r:
        return result
    return replace(result, embedding=result.embedding[:, :r], normalized_eigenvalues=result.normalized_eigenvalues[:r])


@st.cache_data(max_entries=8, show_spinner="Exact kernel PCA on the comparison rows (kept for the next change)...")
def _exact_fitted(digest: str, _X: np.ndarray, sigma: float, kernel: str, r: int):
    """Exact KPCA as :func:`exact_reference` fits it, the rows embedded by the fit itself
    (``project=False``): no second n x n kernel matrix to project them, so a page that shows the
    embedding waits for the fit alone (the "exact KPCA for Embeddings" rows of ``python
    tests/benchmarks/bench_speed.py --pendigits PATH``). Untimed."""
    with native_threads_off():  # see method_result
        return fit_exact(_X, n_components=r, sigma=sigma, kernel=kernel, solvers=EXACT_SOLVERS[:1], project=False)


def exact_embedding(digest: str, X: np.ndarray, sigma: float, kernel: str, r: int):
    """Exact KPCA for a page that shows the embedding only (no times): fitted at
    :func:`computed_rank` (shared by neighbouring ranks) and cut to r components."""
    return _first_components(_exact_fitted(digest, X, sigma, kernel, computed_rank(r, X.shape[0] - 1)), r)


@st.cache_data(max_entries=128, show_spinner="Fitting the methods at this ell...")
def method_result(digest: str, _X: np.ndarray, name: str, sigma: float, kernel: str, r: int, ell: float, m: int,
                  gram_error: bool = False, timed: bool = True, timing_round: int = 0):
    """One method fitted on the comparison rows (m = the shadow's m at ell).

    With ``gram_error``, methods that perturb the Gram matrix also get its
    spectral-norm error measured (seconds: the page asks first). ``timed``: its times
    are shown: one call on a change of a setting (timing round 0, so that an ell change stays live),
    :data:`APP_TIMING`'s best of several in a new ``timing_round`` (a timed fit only: "Time again" fits
    and times it again); untimed, one call.

    On one BLAS and OpenMP thread, as every fit of the app's: the browser shares the machine, and
    the libraries' threads wait for each other when it holds a core (measured in
    :func:`~rskpca.core.threads.native_threads_off`). The times shown are one thread's, as the
    baseline's (:data:`REFERENCE_TIMING`, :data:`OWN_TIMING`).
    """
    # Untimed, RSKPCA solves on the shadow the page (or the scrubber) already has: selecting its
    # centers again would cost each fit one more scan of the comparison rows.
    if timed:
        _warm_up()
    selected = shadow(digest, _X, sigma, ell, kernel) if METHODS[name].fits_on_shadow and not timed else None
    with native_threads_off():
        return fit_method(name, _X, n_components=r, sigma=sigma, kernel=kernel, ell=ell, m=m,
                          timing=APP_TIMING if timed and timing_round else Timing(), measure_gram_error=gram_error,
                          shadow=selected)


def said_once(failures: list[str], digest: str, X: np.ndarray, *, r: int, m: int, ell: float, sigma: float,
              kernel: str) -> list[str]:
    """The methods' failures, or, when r > m is why they failed, the one :func:`rank_message` in their place
    (with m at the sidebar's largest ell, a cached shadow: whether raising ell can help at all)."""
    if not failures or r <= m:
        return failures
    most = shadow(digest, X, sigma, ELL_RANGE[1], kernel).m
    return [rank_message(r, m, X.shape[0], ell, sigma, m_at_largest_ell=most)]


def rank_message(r: int, m: int, n_rows: int, ell: float, sigma: float, m_at_largest_ell: int | None = None) -> str:
    """r > m, in the sidebar's words, with the fix.

    A single center has nothing to embed, and the pages need at least 2 components: then the fix
    is more centers, not a rank of 1, which the user would only be told to raise again.
    ``m_at_largest_ell``: m at the sidebar's largest ell; when even that is below r, raising ell
    cannot help and the message says so, so the user is sent to the control that can (sigma).

    >>> "Lower rank r to 3 or less" in rank_message(5, 3, 100, 4.0, 1.0)
    True
    >>> msg = rank_message(5, 1, 100, 4.0, 1e6)
    >>> "Lower rank r" in msg, "raise ell or lower sigma" in msg
    (False, True)
    >>> msg = rank_message(5, 1, 100, 4.0, 1e6, m_at_largest_ell=1)
    >>> "raise ell" in msg, "even at ell = 10" in msg
    (False, True)
    """
    head = (f"rank r = {r} is more than the m = {shadow_centers_text(m)} (on these {n_rows:,} rows) at "
            f"ell = {ell:g} and sigma = {sigma:.4g}: the reduced methods have at most m components. ")
    if m_at_largest_ell is not None and m_at_largest_ell < max(r, 2):
        return head + (f"Raising ell cannot help: even at ell = {ELL_RANGE[1]:g} the shadow keeps "
                       f"m = {shadow_centers_text(m_at_largest_ell)}. Lower sigma (smaller shadows, more centers)"
                       + (f", or lower rank r to {m_at_largest_ell} or less." if m_at_largest_ell >= 2 else "."))
    if m < 2:
        return head + ("One center holds every row, so there is nothing to embed: raise ell or lower sigma "
                       "(smaller shadows, more centers).")
    return head + f"Lower rank r to {m} or less, or raise ell or lower sigma (smaller shadows, more centers)."


def fit_methods(digest: str, X: np.ndarray, names, *, sigma: float, kernel: str, r: int, ell: float, m: int,
                gram_error: bool = False, timed: bool = True, timing_round: int = 0):
    """Every named method fitted at ell (each cached) -> ``(results, messages)`` for the page to show.

    ``gram_error`` measures the Gram matrix error of the methods that perturb it;
    ``timing_round``: see :func:`method_result`. ``timed=False``, for a page that shows no
    times: fitted at :func:`computed_rank` and cut to r components (the times would be the
    larger rank's), each fit called once.
    A method that cannot run is a message, not an exception; when r > m the
    reduced methods all fail for the same reason, which is said once
    (:func:`rank_message`).
    """
    results, failures = [], []
    for name in names:
        try:
            rank = r if timed else computed_rank(r, m)
            results.append(_first_components(method_result(digest, X, name, sigma, kernel, rank, ell, m,
                                                           bool(gram_error) and perturbs_gram(name), timed,
                                                           timing_round if timed else 0), r))
        except (ValueError, np.linalg.LinAlgError, MemoryError) as exc:
            failures.append(f"{METHODS[name].label}: {exc}")
    return results, said_once(failures, digest, X, r=r, m=m, ell=ell, sigma=sigma, kernel=kernel)
