"""The Embeddings page on every row: the O(nm) methods fitted on all n rows, exact KPCA on its planned rows.

Part of :mod:`rskpca.ui.compute`: :func:`all_rows_cost` predicts, before running, whether a method stays
live on all rows (:class:`AllRowsCost`); :func:`compare_on_all_rows` fits them (each cached) and aligns
every row's embedding to exact KPCA's on :func:`~rskpca.ui.compute.exact_plan.exact_rows`, or on all
rows where exact KPCA on all of them is given (:class:`AllRowsComparison`).
"""

from __future__ import annotations

import contextlib
import threading
from collections import OrderedDict
from dataclasses import dataclass, field, replace

import numpy as np
import streamlit as st

from rskpca.core.progress import scaled, ticking
from rskpca.core.threads import native_threads_off
from rskpca.evaluation.all_rows import ExactPlan, alignment_map, fit_on_all_rows, fit_on_centers
from rskpca.evaluation.costs import ALL_ROWS_LIVE_S, ALL_ROWS_MAX_BYTES, AllRowsCost, all_rows_cost
from rskpca.evaluation.methods import METHODS, SHADOW_METHOD, perturbs_gram
from rskpca.ui.compute.exact_on_request import centers_solve_cost
from rskpca.ui.compute.exact_plan import exact_rows
from rskpca.ui.compute.fits import _first_components, computed_rank, exact_embedding, method_result, said_once
from rskpca.ui.compute.shadow_cache import shadow
from rskpca.ui.progress import progress_panel

__all__ = ["ALL_ROWS_SECONDS_PER_NM", "ALL_ROWS_LIVE_S", "ALL_ROWS_MAX_BYTES", "ALL_ROWS_METHODS", "AllRowsCost",
           "ALL_ROWS_PROGRESS_S", "ALL_ROWS_ASK_S", "all_rows_cost", "progress_text", "embedding_cost_message",
           "AllRowsComparison", "compare_on_all_rows", "finish_on_all_rows", "all_rows_store", "with_progress"]


#: The methods fitted on all n rows (each embeds a row through its m points, or, Nystrom, by the extension
#: its fit computes): O(nm). The others the Embeddings page offers (Gram sampling, reduced-set
#: construction, exact KPCA by Lanczos) need the n x n kernel and run on exact KPCA's rows, said in their panels.
ALL_ROWS_METHODS = tuple(name for name, method in METHODS.items() if method.embeds_all_rows)
#: Seconds per (row x center) of each method on all rows: the one cost model's constants
#: (:func:`rskpca.evaluation.costs.all_rows_cost`), named here for the pages that quote them.
ALL_ROWS_SECONDS_PER_NM = {name: METHODS[name].seconds_per_nm for name in ALL_ROWS_METHODS}


def embedding_cost_message(n: int, m: int, seconds: float) -> str:
    """What RSKPCA on all rows would cost, in the page's words (said before it runs, when it asks first).

    >>> embedding_cost_message(10_000_000, 2330, 12.3)
    'Embedding all 10,000,000 rows through m = 2,330 centers takes about 12 s here.'
    """
    return f"Embedding all {n:,} rows through m = {m:,} centers takes about {seconds:.2g} s here."


#: Above this n x m the all-rows fits use the libraries' threads.
_THREADED_NM = 50_000_000
#: A fit on all rows predicted longer than this shows a progress bar (rows embedded, seconds so far and
#: left) instead of a spinner: the project's rule, progress for anything over a second.
ALL_ROWS_PROGRESS_S = 1.0
#: RSKPCA on all rows predicted longer than this waits for the user's go-ahead (``embed_all_rows``): at
#: ten million rows an ell change would otherwise hold the page for tens of seconds.
ALL_ROWS_ASK_S = 5.0


class _Store:
    """A small least-recently-used store shared by the sessions (held by :func:`_stores`, a resource).

    The all-rows fits are cached here, not by ``st.cache_*``: their progress bar is a page element
    updated while they run, which a cached function would record and replay on every later hit (and
    replay fails: the bar belongs to the run that drew it). Only a finished result is stored, so a
    run stopped by a new setting (Streamlit raises at the bar's next update) leaves nothing behind.
    """

    def __init__(self, max_entries: int) -> None:
        self._items: OrderedDict = OrderedDict()
        self._max = int(max_entries)
        self._lock = threading.Lock()
        self._locks: dict = {}

    def get(self, key):
        with self._lock:
            if key not in self._items:
                return None
            self._items.move_to_end(key)
            return self._items[key]

    def put(self, key, value) -> None:
        with self._lock:
            self._items[key] = value
            self._items.move_to_end(key)
            while len(self._items) > self._max:
                self._items.popitem(last=False)

    def computing(self, key) -> threading.Lock:
        """The lock to hold while computing ``key``'s value: a second session asking for the same fit
        waits for the first one's instead of computing it again beside it (a class moving ell in step
        on one large file); if the first is stopped, the next in line computes it."""
        with self._lock:
            return self._locks.setdefault(key, threading.Lock())


@st.cache_resource(show_spinner=False)
def _stores() -> dict:
    """The stores of fits on all rows (a resource: emptied with the other caches, e.g. by "Clear cache")."""
    return {"fits": _Store(4), "views": _Store(16), "centers": _Store(4)}


@st.cache_resource(show_spinner=False)
def all_rows_store(name: str, max_entries: int) -> _Store:
    """A store of its own (``get(key)`` or None, ``put(key, value)``; least recently used out past
    ``max_entries``) for another page's results on all rows, kept as :func:`_stores`' are: only a
    finished result is put, so a run stopped at its progress bar's update stores nothing, and a hit
    draws no bar (a resource: emptied with the other caches)."""
    return _Store(max_entries)


def progress_text(label: str, m: int) -> str:
    """The progress bar's label while every row is embedded (the bar adds the rows done and the time left).

    >>> progress_text("RSKPCA", 2330)
    'RSKPCA: embedding every row through m = 2,330 centers'
    """
    return f"{label}: embedding every row through m = {m:,} centers"


@contextlib.contextmanager
def with_progress(label: str, m: int, seconds: float, spinner: str):
    """The progress callback while one method embeds every row: a bar (:func:`progress_text`, the prediction
    ``seconds`` said on it and blended into the time left) when ``seconds`` is above
    :data:`ALL_ROWS_PROGRESS_S`, else None under the ``spinner`` text (:func:`~rskpca.ui.progress.progress_panel`).
    The bar's updates are where Streamlit stops a run the user overtook with a new setting."""
    with progress_panel(progress_text(label, m), seconds, spinner=spinner, show_above=ALL_ROWS_PROGRESS_S) as bar:
        yield bar


def _fitted_on_all_rows(digest: str, X: np.ndarray, name: str, sigma: float, kernel: str, rank: int, ell: float,
                        m: int, progress=None, quantized: bool = False):
    """One O(nm) method fitted on every row at ``rank`` (a :func:`computed_rank`), shared by the ranks of its
    bucket: a rank change within the bucket re-reads this fit instead of fitting all n rows again. Stored
    read-only in place (:func:`_stores`), not unpickled on every rerun. ``progress``: called as the rows
    are embedded (:func:`~rskpca.evaluation.all_rows.transform_in_blocks`), on a miss only. ``quantized``:
    each row at its center's coordinates (not stored: it takes no longer than reading the store would save),
    from the centers' fit, which is kept for the projection of every row that follows.
    """
    key = _fit_key(digest, name, sigma, kernel, rank, ell, m)
    if quantized:
        # The centers' fit is kept for the pass that projects every row next: one m x m solve per view.
        selected = shadow(digest, X, sigma, ell, kernel)
        fitted = _solved_on_centers(key, selected, progress, _solve_seconds(digest, X, name, sigma, kernel, rank, m))
        return fit_on_all_rows(name, X, n_components=rank, sigma=sigma, kernel=kernel, ell=ell, m=m,
                               shadow=selected, embed_dtype=np.float32, quantized=True, fitted=fitted)
    store = _stores()["fits"]
    res = store.get(key)
    if res is not None:
        return res
    with store.computing(key):
        res = store.get(key)  # another session may have finished it while this one waited
        if res is not None:
            return res
        selected = shadow(digest, X, sigma, ell, kernel) if METHODS[name].fits_on_shadow else None
        fitted, rows_progress = None, progress
        if selected is not None:  # the m x m problem first (or the first pass's), then the rows with their bar
            solve_s = 0.0 if _stores()["centers"].get(key) is not None else _solve_seconds(digest, X, name, sigma,
                                                                                          kernel, rank, m)
            share = solve_s / max(solve_s + all_rows_cost(name, X.shape[0], m).seconds, 1e-9)
            fitted = _solved_on_centers(key, selected, scaled(progress, 0.0, share), solve_s)
            rows_progress = scaled(progress, share, 1.0)
        # One thread, as every fit of the app's (see method_result), up to work that takes seconds: there the
        # libraries' threads gain more than they lose waiting for the browser's core.
        threads = contextlib.nullcontext() if X.shape[0] * m > _THREADED_NM else native_threads_off()
        with threads:
            # float32 kernel blocks for every row's embedding (drawn, and read for the alignment, whose
            # errors are far above float32 rounding): the projection of n rows is most of an ell change.
            res = fit_on_all_rows(name, X, n_components=rank, sigma=sigma, kernel=kernel, ell=ell, m=m,
                                  shadow=selected, embed_dtype=np.float32, progress=rows_progress, fitted=fitted)
        res.embedding.setflags(write=False)  # shared by the sessions
        store.put(key, res)
    return res


def _solve_seconds(digest: str, X: np.ndarray, name: str, sigma: float, kernel: str, r: int, m: int) -> float:
    """Predicted seconds of the m x m problem of a method fitted on the shadow (0 for the others): the
    sidebar's model (:func:`~rskpca.ui.compute.exact_on_request.centers_solve_cost`). The O(nm) rates of
    :func:`~rskpca.evaluation.costs.all_rows_cost` leave it out; at m in the thousands it is most of the fit."""
    return centers_solve_cost(digest, X, sigma, kernel, r, m).seconds if METHODS[name].fits_on_shadow else 0.0


def _solved_on_centers(key: tuple, selected, progress, seconds: float):
    """The method's fit on the shadow's centers for ``key`` (the store's, or solved now and stored): the
    eigensolver reports nothing, so ``progress`` ticks on the time spent against the prediction ``seconds``."""
    store = _stores()["centers"]
    fitted = store.get(key)
    if fitted is None:
        _, name, sigma, kernel, rank, ell, m = key
        fitted = ticking(lambda: fit_on_centers(name, selected, n_components=rank, sigma=sigma, kernel=kernel,
                                                ell=ell, m=m),
                         progress, seconds, "solving the m x m problem on the centers")
        store.put(key, fitted)
    return fitted


def _fit_key(digest: str, name: str, sigma: float, kernel: str, rank: int, ell: float, m: int) -> tuple:
    """The key of a fit on every row, and of its fit on the centers (the stores "fits" and "centers")."""
    return digest, name, float(sigma), str(kernel), int(rank), float(ell), int(m)


def _view_key(digest: str, name: str, sigma: float, kernel: str, r: int, ell: float, m: int, rows_key: str,
              quantized: bool = False) -> tuple:
    return (*_fit_key(digest, name, sigma, kernel, r, ell, m), rows_key, bool(quantized))


def _on_all_rows(digest: str, X: np.ndarray, name: str, sigma: float, kernel: str, r: int, ell: float, m: int,
                 rows_key: str, rows: np.ndarray, exact_Z: np.ndarray, quantized: bool = False):
    """One O(nm) method fitted on every row of ``X`` and every row embedded, aligned to exact KPCA.

    -> ``(result, coords)``: the result with its embedding and spectrum cut to r components and its
    embedding read on exact KPCA's rows ``rows`` (where the alignment error is measured), and the
    first min(r, 3) aligned components of every row as float32 (what the chart draws and a region
    selection reads), both read-only. Fitted at :func:`computed_rank` (ranks of a bucket share the
    fit's numbers). ``exact_Z`` is exact KPCA's embedding of ``rows`` at (rows_key, sigma, kernel, r),
    all in the key. The fit itself (untimed; on the libraries' threads above :data:`_THREADED_NM`, where
    at a million rows the embedding is most of an ell change, else on one) is :func:`_fitted_on_all_rows`'s;
    above :data:`ALL_ROWS_PROGRESS_S` predicted, a progress bar shows it, emptied when it ends.
    ``quantized``: each row at its center's coordinates (:func:`_fitted_on_all_rows`), at O(m^2).
    """
    key = _view_key(digest, name, sigma, kernel, r, ell, m, rows_key, quantized)
    store = _stores()["views"]
    hit = store.get(key)
    if hit is not None:
        return hit
    label = METHODS[name].label
    # the quantized pass is the m x m problem alone (each row then reads its center's coordinates); the full
    # pass adds the rows, and the problem too unless the first pass solved it
    rank = computed_rank(r, m)
    solved = _stores()["centers"].get(_fit_key(digest, name, sigma, kernel, rank, ell, m))
    solve_s = 0.0 if solved is not None else _solve_seconds(digest, X, name, sigma, kernel, rank, m)
    seconds = solve_s if quantized else solve_s + all_rows_cost(name, X.shape[0], m).seconds
    with with_progress(label, m, seconds, f"Solving {label}'s m x m problem on {m:,} centers..." if quantized
                       else f"Fitting {label} on all {X.shape[0]:,} rows...") as bar:
        res = _fitted_on_all_rows(digest, X, name, sigma, kernel, computed_rank(r, m), ell, m, progress=bar,
                                  quantized=quantized)
    Z = res.embedding[:, :r]
    A = alignment_map(exact_Z, Z[rows])
    coords = np.empty((Z.shape[0], min(r, 3)), dtype=np.float32)
    block = 262_144  # rows at a time: no second n x r float64 array
    for start in range(0, Z.shape[0], block):
        coords[start:start + block] = (Z[start:start + block] @ A)[:, :coords.shape[1]]
    on_rows = replace(res, embedding=Z[rows], normalized_eigenvalues=res.normalized_eigenvalues[:r])
    for array in (coords, on_rows.embedding):
        array.setflags(write=False)  # shared by the sessions
    store.put(key, (on_rows, coords))
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
    awaiting : AllRowsCost or None
        RSKPCA, when its embedding of every row is predicted above :data:`ALL_ROWS_ASK_S` and the user has
        not said to go ahead (``embed_all_rows``): not run, the page says so and offers it.
    on_exact_rows : list of str
        Labels of the methods fitted on :func:`exact_rows`'s seeded sample, not all n (those outside
        :data:`ALL_ROWS_METHODS`, where that plan is a sample).
    exact_on_sample : MethodResult or None
        Exact KPCA on all rows read on that sample's rows, where ``exact`` covers all rows and
        ``on_exact_rows`` were fitted on the sample: what their errors are measured against.
    later : list of str
        With ``first``: the methods whose embedding of every row, predicted above
        :data:`ALL_ROWS_PROGRESS_S`, is computed after the page is drawn (:func:`finish_on_all_rows`).
    quantized : list of str
        Labels among them drawn meanwhile with each row at its center's coordinates (RSKPCA); the others
        of ``later`` are not drawn until then.
    exact_key : str
        The cache key of the rows exact KPCA embeds (what the methods are aligned on).
    """

    plan: ExactPlan
    exact: object
    results: list = field(default_factory=list)
    coords: dict = field(default_factory=dict)
    failures: list = field(default_factory=list)
    held_back: list = field(default_factory=list)
    awaiting: object = None
    on_exact_rows: list = field(default_factory=list)
    exact_on_sample: object = None
    later: list = field(default_factory=list)
    quantized: list = field(default_factory=list)
    exact_key: str = ""

    def reference(self, res):
        """What ``res``'s alignment error is measured against: exact KPCA on the rows ``res`` is read on."""
        if self.exact_on_sample is not None and res.label in self.on_exact_rows:
            return self.exact_on_sample
        return self.exact


def compare_on_all_rows(ds, names, *, sigma: float, kernel: str, r: int, ell: float, m: int,
                        run_anyway: bool = False, gram_error: bool = False, exact=None,
                        embed_all_rows: bool = False, first: bool = False) -> AllRowsComparison:
    """Exact KPCA on :func:`exact_rows`, every named method of :data:`ALL_ROWS_METHODS` on all ``ds.n``
    rows (each cached), the other named methods on exact KPCA's rows (:func:`method_result`).

    A method predicted (:func:`all_rows_cost`) above :data:`ALL_ROWS_LIVE_S` is held back unless
    ``run_anyway``, above :data:`ALL_ROWS_MAX_BYTES` always; RSKPCA runs unless predicted above
    :data:`ALL_ROWS_ASK_S` without ``embed_all_rows`` (:attr:`AllRowsComparison.awaiting`). A method that
    cannot run is a message, not an exception (r > m said once: :func:`rank_message`).
    ``gram_error``: measure ``||K^ - K||_2`` for the methods that perturb the Gram matrix.

    ``exact``: exact KPCA already fitted on all ``ds.n`` rows (a result with r components, e.g. the
    matrix-free run of :mod:`~rskpca.ui.compute.exact_on_request`), used instead of fitting it on
    :func:`exact_rows`. The plan then covers all rows: the methods of :data:`ALL_ROWS_METHODS` are
    aligned and measured on every row, while those that need the n x n kernel are still fitted on
    :func:`exact_rows`'s sample, aligned to and measured against ``exact`` read on its rows
    (:attr:`AllRowsComparison.exact_on_sample`).

    ``first``: draw what is ready first. When the methods of :data:`ALL_ROWS_METHODS` whose embedding of
    every row is not stored are predicted, together, above :data:`ALL_ROWS_PROGRESS_S`, they are left for
    :func:`finish_on_all_rows` (:attr:`AllRowsComparison.later`); RSKPCA is given meanwhile with each row
    at its center's coordinates, the exact embedding of the data quantized to the centers.
    """
    from rskpca.core.metrics import align

    plan, X_rows, rows_key = exact_rows(ds)
    # exact KPCA's rows (plan_out), their key, and exact KPCA on the rows the n x n methods are fitted on
    exact_on_sample = None
    if exact is None:
        exact = exact_embedding(rows_key, X_rows, sigma, kernel, r)
        plan_out, exact_key, aligned_to = plan, rows_key, exact
    else:
        # all rows' key is the digest itself (a sample's key names its size)
        plan_out, exact_key = replace(plan, rows=np.arange(ds.n), all_rows=True), ds.digest
        if not plan.all_rows:
            exact_on_sample = replace(exact, embedding=exact.embedding[plan.rows])
        aligned_to = exact if exact_on_sample is None else exact_on_sample
    k = min(r, 3)
    # Draw first when the embeddings of every row still to compute, together, are predicted above a second.
    costs = {name: all_rows_cost(name, ds.n, m) for name in names if name in ALL_ROWS_METHODS}
    unstored = [name for name, cost in costs.items() if _runs_now(name, cost, run_anyway, embed_all_rows)
                and _stores()["views"].get(_view_key(ds.digest, name, sigma, kernel, r, ell, m, exact_key)) is None]
    draw_first = first and sum(costs[name].seconds for name in unstored) > ALL_ROWS_PROGRESS_S
    out = AllRowsComparison(plan=plan_out, exact=exact, coords={exact.label: exact.embedding[:, :k]},
                            exact_on_sample=exact_on_sample, exact_key=exact_key)
    for name in names:
        everywhere = name in ALL_ROWS_METHODS
        cost = costs[name] if everywhere else all_rows_cost(name, ds.n, m)
        if everywhere and not _runs_now(name, cost, run_anyway, embed_all_rows):
            if name == SHADOW_METHOD.name:
                out.awaiting = cost
            else:
                out.held_back.append(cost)
            continue
        quantized = False
        if draw_first and name in unstored:
            out.later.append(name)
            if not METHODS[name].fits_on_shadow:
                continue
            quantized = True
        try:
            if everywhere:
                # a spinner, or above ALL_ROWS_PROGRESS_S a progress bar, while it runs (on a miss only)
                res, coords = _on_all_rows(ds.digest, ds.X, name, sigma, kernel, r, ell, m, exact_key,
                                           plan_out.rows, exact.embedding, quantized=quantized)
                if quantized:
                    out.quantized.append(res.label)
            else:
                # their budget is the m of these rows' own shadow (equal m on the rows they are fitted on)
                m_rows = m if plan.all_rows else shadow(rows_key, X_rows, sigma, ell, kernel).m
                res = _first_components(method_result(rows_key, X_rows, name, sigma, kernel,
                                                      computed_rank(r, m_rows), ell, m_rows,
                                                      bool(gram_error) and perturbs_gram(name), False, 0), r)
                coords = align(aligned_to.embedding, res.embedding)[:, :k]
                if not plan.all_rows:
                    out.on_exact_rows.append(res.label)
        except (ValueError, np.linalg.LinAlgError, MemoryError) as exc:
            out.failures.append(f"{METHODS[name].label}: {exc}")
            continue
        out.results.append(res)
        out.coords[res.label] = coords
    out.failures = said_once(out.failures, ds.digest, ds.X, r=r, m=m, ell=ell, sigma=sigma, kernel=kernel)
    return out


def _runs_now(name: str, cost: AllRowsCost, run_anyway: bool, embed_all_rows: bool) -> bool:
    """Whether a method of :data:`ALL_ROWS_METHODS` runs on all rows at this cost: RSKPCA unless predicted
    above :data:`ALL_ROWS_ASK_S` without ``embed_all_rows``; the others within the live budget or with
    ``run_anyway``, which lifts the time budget, never the memory one (a 13 GB kernel block would stop
    the server)."""
    if name == SHADOW_METHOD.name:
        return cost.seconds <= ALL_ROWS_ASK_S or embed_all_rows
    return cost.bytes <= ALL_ROWS_MAX_BYTES and (cost.live or run_anyway)


def finish_on_all_rows(ds, comparison: AllRowsComparison, *, sigma: float, kernel: str, r: int, ell: float,
                       m: int) -> list:
    """Embed every row for the methods ``comparison`` left for later (each with its progress bar where the
    page calls this: last, after drawing the rest) and store them, for the page to run again and draw.
    The settings are those :func:`compare_on_all_rows` was called with. Returns the messages of the
    methods that failed (nothing stored for them: the page says them instead of running again).
    """
    failures = []
    for name in comparison.later:
        try:
            _on_all_rows(ds.digest, ds.X, name, sigma, kernel, r, ell, m, comparison.exact_key, comparison.plan.rows,
                         comparison.exact.embedding)
        except (ValueError, np.linalg.LinAlgError, MemoryError) as exc:
            failures.append(f"{METHODS[name].label}: {exc}")
    return failures
