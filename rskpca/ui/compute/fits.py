"""Exact KPCA and the compared methods fitted on the comparison rows, and how the app times them.

Part of :mod:`rskpca.ui.compute` (which re-exports these names): the Embeddings page shows
the embeddings (fitted once, at a rank shared by neighbouring ranks), the Speedups page the
times (each taken under a :class:`~rskpca.evaluation.timing.Timing` said here, and again on
request: a new timing round).
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass, field, replace

import numpy as np
import streamlit as st

from rskpca.core.threads import native_threads_off
from rskpca.evaluation.all_rows import ExactPlan, alignment_map, fit_on_all_rows, plan_exact
from rskpca.evaluation.fitting import EXACT_SOLVERS, fit_exact, fit_method
from rskpca.evaluation.methods import METHODS, perturbs_gram
from rskpca.evaluation.timing import Timing
from rskpca.plotting import shadow_centers_text
from rskpca.ui.compute.shadow_cache import shadow
from rskpca.ui.keys import ELL_RANGE

__all__ = ["APP_TIMING", "BASELINE_TIMING", "OWN_TIMING", "REFERENCE_TIMING", "exact_reference", "exact_kpca",
           "RANK_BUCKETS", "computed_rank", "exact_embedding", "method_result", "rank_message", "fit_methods",
           "EMBED_EXACT_MAX_ROWS", "ALL_ROWS_SECONDS_PER_NM", "ALL_ROWS_LIVE_S", "ALL_ROWS_MAX_BYTES", "AllRowsCost",
           "all_rows_cost", "AllRowsComparison", "compare_on_all_rows", "exact_rows", "ALL_ROWS_METHODS", "bytes_text",
           "exact_rows_note"]

#: How the app times every method: the best of up to three calls within 0.1 s, because times are
#: cached and one call slowed by something beside it (another session, the browser's first drawing)
#: would otherwise stand in the Speedups headline until the server restarts; the fast calls, which
#: such a delay distorts most, get the extra tries.
APP_TIMING = Timing(repeats=3, budget_s=0.1)
#: Exact KPCA's time is the denominator of every speedup on the Speedups page: the best of the
#: reference fit's own call and one more, both on one BLAS and OpenMP thread, because the libraries'
#: threads wait for each other when the browser or another session holds a core and would inflate
#: every speedup (the thread rows of ``python tests/benchmarks/bench_speed.py --pendigits PATH``);
#: the "Time again" button takes new times on request.
BASELINE_TIMING = Timing()
#: Exact KPCA timed on its own (a new timing round, or a solver the reference fit did not use): the best
#: of two calls, as the first round's baseline.
OWN_TIMING = Timing(repeats=2, budget_s=1.0)
#: The Speedups page's reference fit (fit and projection timed): one call, one of the baseline's samples.
REFERENCE_TIMING = Timing()


@st.cache_data(max_entries=8, show_spinner="Exact kernel PCA on the comparison rows (cached)...")
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


@st.cache_data(max_entries=16, show_spinner="Timing exact kernel PCA (cached)...")
def _solver_timed(digest: str, _X: np.ndarray, sigma: float, kernel: str, r: int, solver: str, timing_round: int):
    """Exact KPCA with one scikit-learn solver, timed on one BLAS and OpenMP thread: under
    :data:`BASELINE_TIMING` for the reference fit's solver in the first round (that fit's call is the
    other sample), else under :data:`OWN_TIMING`."""
    timing = BASELINE_TIMING if timing_round == 0 and solver == EXACT_SOLVERS[0] else OWN_TIMING
    with native_threads_off():
        return fit_exact(_X, n_components=r, sigma=sigma, kernel=kernel, solvers=(solver,), timing=timing)


#: Warmed up once per server process before anything is timed (:func:`_warm_up`).
_WARM_UP_METHODS = ("rskpca", "subsampled", "nystrom", "wnystrom")


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


def exact_kpca(digest: str, X: np.ndarray, sigma: float, kernel: str, r: int, all_solvers: bool = False,
               timing_round: int = 0):
    """The speedups' baseline: :func:`exact_reference`'s fit, its time the best of its own call and
    :data:`BASELINE_TIMING`'s with scikit-learn's arpack (in a new ``timing_round``, the best of
    :data:`OWN_TIMING`'s two calls only: new times, not the reference's again); with ``all_solvers`` every solver of
    ``EXACT_SOLVERS`` is timed too (each cached on its own, so switching it on times only the
    new one) and ``train_s`` is the fastest's.

    arpack alone by default, because on every comparison set the app can have it beats the randomized
    solver, and timing both would slow every sigma or rank change (the solver rows of ``python
    tests/benchmarks/bench_speed.py --pendigits PATH``). The Speedups page offers the rest on request.
    """
    _warm_up()
    ref = exact_reference(digest, X, sigma, kernel, r)
    solvers = EXACT_SOLVERS if all_solvers else EXACT_SOLVERS[:1]
    timed = {solver: _solver_timed(digest, X, sigma, kernel, r, solver, int(timing_round)) for solver in solvers}
    per_solver = {solver: res.train_s for solver, res in timed.items()}
    test_s = timed[solvers[0]].test_s
    if not timing_round:  # the reference fit's call is the first round's other sample; a new round is new times only
        per_solver[solvers[0]] = min(per_solver[solvers[0]], ref.train_s)
        test_s = min(ref.test_s, test_s)
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


@st.cache_data(max_entries=8, show_spinner="Exact kernel PCA on the comparison rows (cached)...")
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
    are shown, so they are taken with :data:`APP_TIMING`; otherwise one call. A new
    ``timing_round`` (a timed fit only) fits and times it again.

    On one BLAS and OpenMP thread, as every fit of the app's: the browser shares the machine, and
    the libraries' threads wait for each other when it holds a core (measured in
    :func:`~rskpca.core.threads.native_threads_off`). The times shown are one thread's, as the
    baseline's (:data:`BASELINE_TIMING`).
    """
    # Untimed, RSKPCA solves on the shadow the page (or the scrubber) already has: selecting its
    # centers again would cost each fit one more scan of the comparison rows.
    if timed:
        _warm_up()
    selected = shadow(digest, _X, sigma, ell, kernel) if name == "rskpca" and not timed else None
    with native_threads_off():
        return fit_method(name, _X, n_components=r, sigma=sigma, kernel=kernel, ell=ell, m=m,
                          timing=APP_TIMING if timed else Timing(), measure_gram_error=gram_error,
                          shadow=selected)


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
    head = (f"rank r = {r} is more than the m = {shadow_centers_text(m)} (on these {n_rows} rows) at "
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
    if failures and r > m:
        # m at the sidebar's largest ell (a cached shadow): whether raising ell can help at all
        most = shadow(digest, X, sigma, ELL_RANGE[1], kernel).m
        return results, [rank_message(r, m, X.shape[0], ell, sigma, m_at_largest_ell=most)]
    return results, failures



# --------------------------------------------------------------------------- every row (the Embeddings page)

#: Exact KPCA on the Embeddings page runs on all n rows up to this many, else on a seeded sample of this
#: many (:func:`~rskpca.evaluation.all_rows.plan_exact`), decided before it runs. Its fit is the only one
#: that moves with sigma alone and grows like n^2 (pendigits, one thread: 0.07 s at 2,000 rows, 0.20 s at
#: 3,000, 0.29 s at 4,000), and a sigma change must stay within 0.6 s on pendigits: memory (8 n^2 bytes,
#: 128 MB at 4,000) is not what limits it. The same rows as the other pages' comparison sample.
EMBED_EXACT_MAX_ROWS = 2000

#: Seconds per (row x center) for fitting each O(nm) method on all n rows and embedding every row, on one
#: thread of this machine (1,000,000 x 10 and 200,000 x 10 mixtures, m = 1,008 to 1,658): the prediction
#: that decides, before running, whether a method runs live (:data:`ALL_ROWS_LIVE_S`). k-means (density-
#: weighted Nystrom's landmarks) iterates over the n x m distances; Nystrom holds its n x m kernel block.
ALL_ROWS_SECONDS_PER_NM = {"rskpca": 2e-9, "subsampled": 2.5e-9, "nystrom": 2.5e-8, "wnystrom": 3e-7}
#: Bytes per (row x center) a method holds while fitting on all rows (Nystrom's float64 n x m kernel block
#: and its centered copy; the others embed in blocks).
_BYTES_PER_NM = {"nystrom": 16, "wnystrom": 16}
#: The methods fitted on all n rows (each embeds a row through its m points, or, Nystrom, by the extension
#: its fit computes): O(nm). The others the Embeddings page offers (Gram sampling, reduced-set
#: construction, exact KPCA by Lanczos) need the n x n kernel and run on exact KPCA's rows, said in their panels.
ALL_ROWS_METHODS = ("rskpca", "subsampled", "nystrom", "wnystrom", "rskpca_uniform", "rskpca_kmeans",
                    "rskpca_herding", "random_fourier")
for _name, _per in (("rskpca_uniform", 2.5e-9), ("random_fourier", 5e-9), ("rskpca_kmeans", 3e-7),
                    ("rskpca_herding", 3e-7)):
    ALL_ROWS_SECONDS_PER_NM[_name] = _per
#: A method predicted to take longer than this on all rows runs only when the user asks (the page says so).
ALL_ROWS_LIVE_S = 1.5
#: ...or to hold more than this.
ALL_ROWS_MAX_BYTES = 2 * 1024**3


@dataclass(frozen=True)
class AllRowsCost:
    """A method's predicted cost on all n rows (:func:`all_rows_cost`)."""

    name: str
    seconds: float
    bytes: int

    @property
    def live(self) -> bool:
        """Within :data:`ALL_ROWS_LIVE_S` and :data:`ALL_ROWS_MAX_BYTES`: runs on every change."""
        return self.seconds <= ALL_ROWS_LIVE_S and self.bytes <= ALL_ROWS_MAX_BYTES


def all_rows_cost(name: str, n: int, m: int) -> AllRowsCost:
    """Predicted seconds and bytes of fitting ``name`` on n rows with m centers and embedding every row.

    >>> c = all_rows_cost("nystrom", 1_000_000, 1000)
    >>> round(c.seconds), c.bytes // 10**9, c.live
    (25, 16, False)
    >>> all_rows_cost("rskpca", 10_000, 300).live
    True
    """
    nm = float(n) * float(max(m, 1))
    per = ALL_ROWS_SECONDS_PER_NM.get(name, ALL_ROWS_SECONDS_PER_NM["nystrom"])
    return AllRowsCost(name, per * nm, int(_BYTES_PER_NM.get(name, 0) * nm))


def exact_rows(ds) -> tuple[ExactPlan, np.ndarray, str]:
    """``(plan, X_rows, key)``: the rows exact KPCA runs on for the Embeddings page (all n, or the seeded
    sample of :data:`EMBED_EXACT_MAX_ROWS`), their features and their cache key (as
    :func:`rskpca.ui.compute.comparison_set`'s)."""
    plan = plan_exact(ds.n, EMBED_EXACT_MAX_ROWS)
    if plan.all_rows:
        return plan, ds.X, ds.digest
    return plan, ds.X[plan.rows], f"{ds.digest}:rows{plan.rows.size}"


#: Above this n x m the all-rows fits use the libraries' threads.
_THREADED_NM = 50_000_000


@st.cache_data(max_entries=16, show_spinner=False)
def _on_all_rows(digest: str, _X: np.ndarray, name: str, sigma: float, kernel: str, r: int, ell: float, m: int,
                 rows_key: str, _rows: np.ndarray, _exact_Z: np.ndarray):
    """One O(nm) method fitted on every row of ``_X`` and every row embedded, aligned to exact KPCA.

    -> ``(result, coords)``: the result with its embedding and spectrum cut to r components and its
    embedding read on exact KPCA's rows ``_rows`` (where the alignment error is measured), and the
    first min(r, 3) aligned components of every row as float32 (what the chart draws and a region
    selection reads). Fitted at :func:`computed_rank` (ranks of a bucket share the fit's numbers).
    ``_exact_Z`` is exact KPCA's embedding of ``_rows`` at (rows_key, sigma, kernel, r), all in the key.
    Untimed: on the libraries' threads above :data:`_THREADED_NM` (at a million rows the embedding is most of
    an ell change), else on one.
    """
    selected = shadow(digest, _X, sigma, ell, kernel) if name == "rskpca" else None
    # One thread, as every fit of the app's (see method_result), up to work that takes seconds: there the
    # libraries' threads gain more than they lose waiting for the browser's core.
    threads = contextlib.nullcontext() if _X.shape[0] * m > _THREADED_NM else native_threads_off()
    with threads:
        res = fit_on_all_rows(name, _X, n_components=computed_rank(r, m), sigma=sigma, kernel=kernel, ell=ell,
                              m=m, shadow=selected)
    Z = res.embedding[:, :r]
    A = alignment_map(_exact_Z, Z[_rows])
    coords = np.empty((Z.shape[0], min(r, 3)), dtype=np.float32)
    block = 262_144  # rows at a time: no second n x r float64 array
    for start in range(0, Z.shape[0], block):
        coords[start:start + block] = (Z[start:start + block] @ A)[:, :coords.shape[1]]
    on_rows = replace(res, embedding=Z[_rows], normalized_eigenvalues=res.normalized_eigenvalues[:r])
    return on_rows, coords


@dataclass
class AllRowsComparison:
    """What the Embeddings page shows: every method on all n rows, exact KPCA on ``plan``'s rows.

    Attributes
    ----------
    plan : ExactPlan
    exact : MethodResult
        Exact KPCA on ``plan.rows`` (its embedding: of those rows).
    results : list of MethodResult
        Each method fitted on all n rows, its embedding read on ``plan.rows`` (for the errors).
    coords : dict
        Label -> the first min(r, 3) aligned components (float32) of every row, exact KPCA's of ``plan.rows``.
    failures : list of str
    held_back : list of AllRowsCost
        Methods predicted too slow or too large to run live on all rows, not run (the page offers them).
    on_exact_rows : list of str
        Labels of the methods fitted on exact KPCA's rows, not all n (those outside :data:`ALL_ROWS_METHODS`).
    """

    plan: ExactPlan
    exact: object
    results: list = field(default_factory=list)
    coords: dict = field(default_factory=dict)
    failures: list = field(default_factory=list)
    held_back: list = field(default_factory=list)
    on_exact_rows: list = field(default_factory=list)


def compare_on_all_rows(ds, names, *, sigma: float, kernel: str, r: int, ell: float, m: int,
                        run_anyway: bool = False, gram_error: bool = False) -> AllRowsComparison:
    """Exact KPCA on :func:`exact_rows`, every named method of :data:`ALL_ROWS_METHODS` on all ``ds.n``
    rows (each cached), the other named methods on exact KPCA's rows (:func:`method_result`).

    A method predicted (:func:`all_rows_cost`) above :data:`ALL_ROWS_LIVE_S` is held back unless
    ``run_anyway``, above :data:`ALL_ROWS_MAX_BYTES` always; RSKPCA always runs. A method that
    cannot run is a message, not an exception (r > m said once: :func:`rank_message`).
    ``gram_error``: measure ``||K^ - K||_2`` for the methods that perturb the Gram matrix.
    """
    from rskpca.core.metrics import align

    plan, X_rows, rows_key = exact_rows(ds)
    exact = exact_embedding(rows_key, X_rows, sigma, kernel, r)
    k = min(r, 3)
    out = AllRowsComparison(plan=plan, exact=exact, coords={exact.label: exact.embedding[:, :k]})
    for name in names:
        everywhere = name in ALL_ROWS_METHODS
        cost = all_rows_cost(name, ds.n, m)
        # run_anyway lifts the time budget, never the memory one (a 13 GB kernel block would stop the server)
        too_big = cost.bytes > ALL_ROWS_MAX_BYTES
        if everywhere and name != "rskpca" and (too_big or (not cost.live and not run_anyway)):
            out.held_back.append(cost)
            continue
        try:
            if everywhere:
                with st.spinner(f"Fitting {METHODS[name].label} on all {ds.n:,} rows..."):
                    res, coords = _on_all_rows(ds.digest, ds.X, name, sigma, kernel, r, ell, m, rows_key, plan.rows,
                                               exact.embedding)
            else:
                # their budget is the m of these rows' own shadow (equal m on the rows they are fitted on)
                m_rows = m if plan.all_rows else shadow(rows_key, X_rows, sigma, ell, kernel).m
                res = _first_components(method_result(rows_key, X_rows, name, sigma, kernel,
                                                      computed_rank(r, m_rows), ell, m_rows,
                                                      bool(gram_error) and perturbs_gram(name), False, 0), r)
                coords = align(exact.embedding, res.embedding)[:, :k]
                if not plan.all_rows:
                    out.on_exact_rows.append(res.label)
        except (ValueError, np.linalg.LinAlgError, MemoryError) as exc:
            out.failures.append(f"{METHODS[name].label}: {exc}")
            continue
        out.results.append(res)
        out.coords[res.label] = coords
    if out.failures and r > m:
        most = shadow(ds.digest, ds.X, sigma, ELL_RANGE[1], kernel).m
        out.failures = [rank_message(r, m, ds.n, ell, sigma, m_at_largest_ell=most)]
    return out


def bytes_text(b: float) -> str:
    """Bytes in words.

    >>> bytes_text(8e12), bytes_text(32e6), bytes_text(900)
    ('8 TB', '32 MB', '900 bytes')
    """
    for unit, size in (("TB", 1e12), ("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if b >= size:
            return f"{b / size:.3g} {unit}"
    return f"{int(b)} bytes"


def _seconds_text(s: float) -> str:
    if s >= 7200:
        return f"{s / 3600:.3g} hours"
    if s >= 120:
        return f"{s / 60:.3g} minutes"
    return f"{s:.2g} s"


def exact_rows_note(plan: ExactPlan, exact_s: float | None = None) -> str:
    """Which rows exact KPCA ran on and why, in the page's words.

    >>> from rskpca.evaluation.all_rows import plan_exact
    >>> exact_rows_note(plan_exact(1_000_000, 2000), 0.07)[:96]
    'exact KPCA on a seeded sample of 2,000 rows: on all 1,000,000 rows its kernel matrix alone would'
    >>> exact_rows_note(plan_exact(500, 2000))
    'exact KPCA on all 500 rows'
    """
    if plan.all_rows:
        return f"exact KPCA on all {plan.n:,} rows"
    k = plan.rows.size
    when = ""
    if exact_s is not None and np.isfinite(exact_s) and exact_s > 0:
        when = f" and take about {_seconds_text(exact_s * (plan.n / k) ** 2)} (its time here x (n / {k:,})^2)"
    return (f"exact KPCA on a seeded sample of {k:,} rows: on all {plan.n:,} rows its kernel matrix alone would "
            f"need {bytes_text(plan.memory_bytes)} (8 n^2 bytes){when}")
