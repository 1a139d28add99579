"""The Spectral page's computations: diffusion maps, Laplacian eigenmaps and spectral clustering on the
shadow (Section 3, eqs. 14-15), and the exact method (every row its own center) where it fits.

Part of :mod:`rskpca.ui.compute` (the page imports this module itself). The reduced fit reuses the
shadow the sidebar computed (:func:`~rskpca.ui.compute.shadow_cache.shadow`) through
``fit_reduced_set`` and embeds every row through the m centers; the exact fit is keyed without
ell, so moving ell solves only the m x m problem again.

Embedding every row is the O(nm) part (the m x m problem and clustering's k-means are on the centers
only): predicted as RSKPCA's (:func:`~rskpca.ui.compute.all_rows_fits.all_rows_cost`, the same kernel
rows against the centers), it runs with a progress bar above ``ALL_ROWS_PROGRESS_S`` and is kept in a
store of its own (:func:`~rskpca.ui.compute.all_rows_fits.all_rows_store`), not ``st.cache_*``, which
would record the bar's updates for replay. Above ``ALL_ROWS_ASK_S`` the page asks first
(``embed_all_rows``) and meanwhile draws the centers' results (:func:`centers_fit`).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
import streamlit as st
from scipy.sparse.linalg import ArpackError

from rskpca import ReducedSetDiffusionMap, ReducedSetSpectralClustering, ReducedSetSpectralEmbedding
from rskpca.core.progress import scaled, ticking
from rskpca.core.threads import native_threads_off
from rskpca.core.budget_target import center_target
from rskpca.evaluation.all_rows import transform_in_blocks
from rskpca.evaluation.methods import SHADOW_METHOD
from rskpca.evaluation.units import bytes_text
from rskpca.plotting import shadow_centers_text
from rskpca.ui.compute import all_rows_fits
from rskpca.ui.compute.all_rows_fits import all_rows_cost, all_rows_store
from rskpca.ui.progress import progress_panel
from rskpca.ui.compute.shadow_cache import shadow

__all__ = ["center_target", "FIT_ERRORS", "SPECTRAL_METHODS",
           "SPECTRAL_EXACT_MAX_ROWS", "SpectralFit", "SpectralRequest",
           "rank_problem", "exact_skip_reason", "embedding_seconds", "centers_seconds", "on_rows_seconds",
           "stored_reduced_fit", "reduced_fit", "centers_fit", "expected_m", "library_defaults", "AFFINITIES",
           "CENTER_BUDGETS", "exact_fit", "embeds_with_fit"]

#: The page's methods: key -> what the page calls it.
SPECTRAL_METHODS = {"diffusion": "Diffusion map", "eigenmaps": "Laplacian eigenmaps",
                    "clustering": "Spectral clustering"}
#: The affinities the page offers, as the estimators name them ("auto": the library's default for the method).
AFFINITIES = {"auto": "the library's default", "landmark": "landmark (each row to its nearest centers)",
              "local_scaling": "locally scaled", "gaussian": "Gaussian (one global sigma)"}
#: The center budget: "auto" the library's default for the method, "ell" the sidebar's ell (the shadow it
#: shows), or at most this many centers (eps picked for it).
CENTER_BUDGETS = ("auto", "ell", 500, 1000, 2000, 5000)
#: The exact method (every row a center) solves an n x n problem: on at most this many rows (its kernel
#: matrix is 72 MB at 3,000 rows and ARPACK takes about a second; at pendigits' 10,992 it would be 1 GB).
SPECTRAL_EXACT_MAX_ROWS = 3000
#: What a fit at bad settings raises (said on the page, which keeps its last good result): a rank or budget
#: the centers cannot give, a singular or unconverged eigenproblem (ARPACK on a graph in pieces).
FIT_ERRORS = (ValueError, np.linalg.LinAlgError, ArpackError)
#: k-means and ARPACK start from this seed: the same settings give the same clusters on every rerun.
SEED = 0


def library_defaults(method: str) -> tuple[str, int | None]:
    """``(affinity, max_centers)`` the library's estimator for ``method`` uses by default (read from it: one
    source for the page's "default" choices)."""
    est = {"diffusion": ReducedSetDiffusionMap, "eigenmaps": ReducedSetSpectralEmbedding,
           "clustering": ReducedSetSpectralClustering}[method]()
    return est.affinity, est.max_centers


@dataclass(frozen=True)
class SpectralRequest:
    """What one fit depends on; the parameters a method ignores are None, so that they do not split its cache.

    ``max_centers`` None: the shadow the sidebar computes at its ell, fitted through its centers; a number:
    the library picks eps for at most that many centers (then ell is None: the sidebar's ell does not
    change the fit) and fits every row itself."""

    method: str
    sigma: float
    ell: float | None
    kernel: str
    n_components: int | None
    n_clusters: int | None
    alpha: float | None
    t: float | None
    affinity: str = "gaussian"
    max_centers: int | None = None

    @classmethod
    def of(cls, method: str, *, sigma: float, ell: float, kernel: str, r: int, k: int, alpha: float,
           t: float, affinity: str = "auto", budget="ell") -> "SpectralRequest":
        """``affinity`` one of :data:`AFFINITIES` ("auto": the library's default for ``method``); ``budget``
        one of :data:`CENTER_BUDGETS` ("auto": the library's default, "ell": the sidebar's shadow)."""
        if method not in SPECTRAL_METHODS:
            raise ValueError(f"method must be one of {list(SPECTRAL_METHODS)}; got {method!r}.")
        default_affinity, default_budget = library_defaults(method)
        affinity = default_affinity if affinity == "auto" else str(affinity)
        max_centers = default_budget if budget == "auto" else None if budget == "ell" else int(budget)
        clustering = method == "clustering"
        return cls(method, float(sigma), float(ell) if max_centers is None else None, str(kernel),
                   None if clustering else int(r), int(k) if clustering else None,
                   float(alpha) if method == "diffusion" else None, float(t) if method == "diffusion" else None,
                   affinity, None if max_centers is None else int(max_centers))

    def components(self) -> int:
        """Columns of the embedding drawn: r, or for clustering Laplacian eigenmaps' max(2, k - 1), of which
        k-means clusters the first k - 1."""
        return self.n_components if self.n_clusters is None else max(2, self.n_clusters - 1)

    def describe(self) -> str:
        """The settings in the page's words."""
        what = SPECTRAL_METHODS[self.method]
        if self.method == "diffusion":
            what += f" (alpha = {self.alpha:g}, t = {self.t:g})"
        knob = f"k = {self.n_clusters} clusters" if self.n_clusters is not None else f"r = {self.n_components}"
        centers = (f"ell = {self.ell:g}" if self.max_centers is None else f"at most {self.max_centers:,} centers")
        return (f"{what}, {knob}, {AFFINITIES[self.affinity]} affinity, sigma = {self.sigma:.4g}, {centers}, "
                f"{self.kernel} kernel")


@dataclass(frozen=True)
class SpectralFit:
    """One fit's results on every row of the data in use."""

    m: int                       # centers the m x m problem was solved on (n for the exact method)
    eigenvalues: np.ndarray      # leading nontrivial eigenvalues of P
    embedding: np.ndarray | None  # (n, components): every row's coordinates (None: not embedded, centers_fit)
    clusters: np.ndarray | None  # (n,): every row's cluster (0..k-1), for clustering
    # (n, components), while ``embedding`` is None: each row at its center's coordinates, the exact embedding
    # of the data quantized to the centers (drawn first; None where the rows' centers are not known)
    quantized: np.ndarray | None = None


def rank_problem(request: SpectralRequest, m: int, n: int | None = None) -> str | None:
    """Why the reduced problem on ``m`` centers cannot give what ``request`` asks, in the sidebar's words, or None.

    P on m centers has m - 1 eigenvectors besides the trivial one; k-means on m centers finds at most m
    clusters, and the embedding drawn needs two components. With every one of the ``n`` rows a center
    (``m >= n``), no setting gives more centers: only a smaller k or r can help, and the message says so.

    >>> request = SpectralRequest.of("diffusion", sigma=2.0, ell=4.0, kernel="gaussian", r=5, k=2, alpha=0.5,
    ...                              t=1.0, affinity="auto", budget="ell")
    >>> print(rank_problem(request, 5, n=5))  # doctest: +NORMALIZE_WHITESPACE
    r = 5 components need at least 6 shadow centers (P on m centers has m - 1 eigenvectors besides the trivial
    one), but every one of the 5 rows is already a center. Lower the rank r to 4 or fewer.
    """
    if n is not None and m >= n:
        where = f"every one of the {n:,} rows is already a center"
        fix = None
    elif request.max_centers is None:
        where = (f"at sigma = {request.sigma:.4g} and ell = {request.ell:g} the shadow keeps "
                 f"{shadow_centers_text(m)}")
        fix = "Raise ell in the sidebar (or lower sigma) for more centers"
    else:
        where = f"the center budget allows at most {m:,} centers on these {m:,} or more rows"
        fix = "Choose a larger center budget"
    if request.n_clusters is not None:
        need = max(request.n_clusters, request.components() + 1)
        if m < need:
            # (k >= 3 needs k centers; k = 2 needs 3, for the two eigenvectors drawn)
            lower = (f"{fix}, or lower k." if fix else f"Lower k to {m} or fewer." if m >= 3 else
                     "Clustering needs at least 3 rows.")
            return (f"k = {request.n_clusters} clusters need at least {need} shadow centers (k-means on the centers "
                    f"finds at most m clusters, and the embedding drawn needs {request.components()} eigenvectors "
                    f"besides the trivial one), but {where}. {lower}")
        return None
    r = request.n_components
    if r >= m:
        lower = f"{fix}, or lower the rank r." if fix else f"Lower the rank r to {m - 1} or fewer."
        return (f"r = {r} components need at least {r + 1} shadow centers (P on m centers has m - 1 eigenvectors "
                f"besides the trivial one), but {where}. {lower}")
    return None


def exact_skip_reason(n: int) -> str | None:
    """Why the exact method is not run on ``n`` rows, or None when it is."""
    if n <= SPECTRAL_EXACT_MAX_ROWS:
        return None
    return (f"The exact method (every row its own center) is skipped: it solves an n x n problem, and n = {n:,} rows "
            f"is above {SPECTRAL_EXACT_MAX_ROWS:,} (its kernel matrix alone would take {bytes_text(8.0 * n * n)} and "
            "the eigensolver many seconds per setting). The reduced set embeds every row. Lower the row cap on the "
            f"Data page to {SPECTRAL_EXACT_MAX_ROWS:,} or fewer to see the exact method beside it.")


def _estimator(request: SpectralRequest, *, display: bool = False):
    """The estimator of ``request``; ``display``: clustering's embedding to draw (Laplacian eigenmaps)."""
    common = dict(sigma=request.sigma, kernel=request.kernel, random_state=SEED, affinity=request.affinity,
                  max_centers=request.max_centers)
    if request.max_centers is not None:  # the library picks eps for the budget, on every row
        common.update(ell=None)
    else:  # fitted through given centers (fit_reduced_set: the sidebar's shadow as it is, or every row)
        common.update(lloyd_steps=0)
    if request.method == "diffusion":
        return ReducedSetDiffusionMap(request.n_components, alpha=request.alpha, t=request.t, **common)
    if request.method == "eigenmaps" or display:
        return ReducedSetSpectralEmbedding(request.components(), **common)
    return ReducedSetSpectralClustering(request.n_clusters, **common)


#: Seconds of the m x m problem per squared center, and per squared center and feature (the centers' kernel
#: matrix, its leading eigenvectors, k-means on the centers; one thread): ``python
#: tests/benchmarks/bench_spectral_solve.py`` (tests/benchmarks/RESULTS.md).
SOLVE_S_PER_M2 = 7e-8
SOLVE_S_PER_M2_D = 4e-10
#: What the bar says while the m x m problem is solved.
SOLVING = "solving the m x m problem on the centers"


def centers_seconds(m: int, d: int) -> float:
    """Predicted seconds to solve the m x m problem on m centers of d features (before the rows are embedded).

    >>> round(centers_seconds(13_492, 16))  # the issue's sigma change at ell 4: said before it starts
    14
    """
    return float(m) * float(m) * (SOLVE_S_PER_M2 + SOLVE_S_PER_M2_D * d)


def _fit(request: SpectralRequest, C, w, X, row_centers, progress=None, embed: bool = True,
         solve_share: float = 0.0, solved: tuple | None = None) -> tuple[SpectralFit, tuple]:
    """``(fit, solved)``: fit on centers C with weights w; every row of X embedded (``row_centers``: each row's
    center, whose cluster it takes; None when the rows are the centers). ``progress``: ``(fraction, message)``,
    the first ``solve_share`` of it the m x m problem (:func:`~rskpca.core.progress.ticking`), the rest
    :func:`~rskpca.evaluation.all_rows.transform_in_blocks`; ``embed=False``: the rows are not embedded
    (embedding None), the rest as fitted. ``solved``: the m x m problem's ``(estimator, clusters)`` from an
    earlier call on the same centers (the page's first pass), which is then not solved again."""
    def solve():
        # One BLAS and OpenMP thread: k-means' and BLAS's threads wait for each other beside the browser or
        # another session on the same cores, and these fits are small enough for one (see
        # rskpca.core.threads.native_threads_off; the timings are in tests/benchmarks/RESULTS.md).
        with native_threads_off():
            est = _estimator(request).fit_reduced_set(C, w, sigma=request.sigma)
            clusters = None
            if request.n_clusters is not None:
                clusters = est.center_labels_ if row_centers is None else est.center_labels_[row_centers]
                est = _estimator(request, display=True).fit_reduced_set(C, w, sigma=request.sigma)
        return est, clusters

    if solved is None:
        solved = ticking(solve, scaled(progress, 0.0, solve_share), centers_seconds(C.shape[0], C.shape[1]), SOLVING)
    est, clusters = solved
    # For a center, transform gives its entries of the eigenvectors: the rows are the centers, no kernel to
    # form. Every row through float32 kernel blocks (drawn, not solved on): most of an ell change at scale.
    quantized = None
    if not embed:
        Z = None
        if row_centers is not None:
            quantized = np.asarray(est.embedding_, dtype=np.float64)[row_centers]
    elif row_centers is None:
        Z = est.embedding_
    else:
        with native_threads_off():
            Z = transform_in_blocks(est, X, dtype=np.float32, progress=scaled(progress, solve_share, 1.0))
    fit = SpectralFit(int(est.m_), np.asarray(est.eigenvalues_, dtype=np.float64),
                      None if Z is None else np.asarray(Z, dtype=np.float64),
                      None if clusters is None else np.asarray(clusters, dtype=np.int64), quantized)
    for array in (fit.eigenvalues, fit.embedding, fit.clusters, fit.quantized):
        if array is not None:
            array.setflags(write=False)  # shared by the sessions (reduced_fit is a resource)
    return fit, solved


def _fit_on_rows(request: SpectralRequest, X, progress=None, embed: bool = True,
                 solve_share: float = 0.0) -> SpectralFit:
    """The library's own fit on every row of X, for a request with a center budget (the centers picked for
    it, the affinity's graph from every row); ``progress`` and ``embed`` as for :func:`_fit`. Clustering
    draws its own coordinates (k - 1 of them; at k = 2 the one, along a line)."""
    n, d = X.shape

    # The landmark fit has every row's nearest centers: its fit_transform embeds the rows without a second search,
    # so they are embedded whether or not asked (embeds_with_fit).
    at_once = embeds_with_fit(request)

    def solve():
        est = _estimator(request)
        with native_threads_off():  # (see _fit)
            if at_once:
                return est, est.fit_transform(X)
            return est.fit(X), None

    est, Z = ticking(solve, scaled(progress, 0.0, 1.0 if at_once else solve_share),
                     on_rows_seconds(n, expected_m(request, 0, n), d), SOLVING)
    clusters = est.labels_ if request.n_clusters is not None else None
    if embed or Z is not None:
        if Z is None:
            with native_threads_off():
                Z = transform_in_blocks(est, X, dtype=np.float32, progress=scaled(progress, solve_share, 1.0))
        Z = np.asarray(Z, dtype=np.float64)
        if Z.shape[1] == 1:
            Z = np.column_stack([Z, np.zeros(n)])
    fit = SpectralFit(int(est.m_), np.asarray(est.eigenvalues_, dtype=np.float64), Z,
                      None if clusters is None else np.asarray(clusters, dtype=np.int64))
    for array in (fit.eigenvalues, fit.embedding, fit.clusters):
        if array is not None:
            array.setflags(write=False)
    return fit


def on_rows_seconds(n: int, m: int, d: int) -> float:
    """Predicted seconds of the library's fit on every row with at most m centers: the m x m problem, the
    budget's search and every row's graph (about two passes of the rows through the centers)."""
    return centers_seconds(m, d) + 2 * embedding_seconds(n, m)


def embeds_with_fit(request: SpectralRequest) -> bool:
    """Whether the fit of ``request`` gives every row's coordinates at no further cost (the landmark graph on a
    center budget: the rows' nearest centers are the fit's), so that embedding them never waits."""
    return request.max_centers is not None and request.affinity == "landmark"


def expected_m(request: SpectralRequest, shadow_m: int, n: int) -> int:
    """The centers the fit of ``request`` solves on, before it runs: the sidebar's shadow's, or the budget's
    (at most, and at most the rows)."""
    return shadow_m if request.max_centers is None else min(center_target(n, request.max_centers), n)


def embedding_seconds(n: int, m: int) -> float:
    """Predicted seconds to embed ``n`` rows through ``m`` centers: RSKPCA's on all rows (the same n x m kernel
    rows in float32 blocks; the m x m problem and k-means, on the centers only, are left out)."""
    return all_rows_cost(SHADOW_METHOD.name, n, m).seconds


def _store():
    return all_rows_store("spectral", 16)


def _solved_store():
    """The m x m problems solved on the shadow's centers, ``(estimator, clusters)`` by ``(digest, request)``: the
    page's first pass (each row at its center) solves it, the pass that embeds every row reuses it."""
    return all_rows_store("spectral-solved", 4)


def stored_reduced_fit(digest: str, request: SpectralRequest, *, embed: bool = True) -> SpectralFit | None:
    """:func:`reduced_fit`'s result if it is stored (nothing runs), else None."""
    store = _store()
    found = store.get((digest, request))
    return found if found is not None or embed else store.get((digest, request, "centers"))


def reduced_fit(digest: str, X: np.ndarray, request: SpectralRequest, *, embed: bool = True) -> SpectralFit:
    """The method of ``request`` on the shadow centers at its sigma and ell, every row embedded through them
    (``embed=False``: not embedded, ``embedding`` None: the m x m problem's eigenvalues and, for clustering,
    every row's cluster, its center's; what the page draws while the embedding waits).

    Kept read-only in a store shared by the sessions (:func:`stored_reduced_fit`), not data: cached data
    would be unpickled on every rerun, its n x k embedding copied each time (at a million rows, tens of
    milliseconds of every change). On a miss, a spinner, or above ``ALL_ROWS_PROGRESS_S`` predicted
    (the m x m problem and the embedding) a progress panel (:func:`rskpca.ui.progress.progress_panel`: the prediction, the
    time so far and left, a Stop button), while it runs; a stopped run stores nothing, and a hit draws
    nothing. Call it outside any ``st.cache_*`` function."""
    key = (digest, request) if embed else (digest, request, "centers")
    found = stored_reduced_fit(digest, request, embed=embed)
    if found is not None:
        return found
    with _store().computing(key):  # one computation for sessions asking at once
        found = stored_reduced_fit(digest, request, embed=embed)
        if found is not None:
            return found
        n, d = X.shape
        on_rows = request.max_centers is not None
        if on_rows:
            m = expected_m(request, 0, n)
            solve_s = on_rows_seconds(n, m, d)
        else:
            s = shadow(digest, X, request.sigma, request.ell, request.kernel)
            C, w, labels = np.asarray(s.centers), np.asarray(s.weights, dtype=np.float64), np.asarray(s.labels)
            m = s.m
            solved = _solved_store().get((digest, request))
            solve_s = 0.0 if solved is not None else centers_seconds(m, d)
        total = solve_s + (embedding_seconds(n, m) if embed else 0.0)
        label = (f"{SPECTRAL_METHODS[request.method]} on {'at most ' if on_rows else ''}m = {m:,} centers"
                 + (f", every one of the {n:,} rows embedded" if embed else ""))
        with progress_panel(label, total, token=key, show_above=all_rows_fits.ALL_ROWS_PROGRESS_S,
                            spinner="Solving the m x m problem on the centers"
                                    + (" and embedding every row..." if embed else "...")) as progress:
            share = solve_s / max(total, 1e-12)
            if on_rows:
                fit = _fit_on_rows(request, X, progress=progress, embed=embed, solve_share=share)
            else:
                fit, solved = _fit(request, C, w, X, labels, progress=progress, embed=embed, solve_share=share,
                                   solved=solved)
                if not embed:  # the first pass: the one that embeds every row next reuses its solve
                    _solved_store().put((digest, request), solved)
        _store().put(key, fit)
    return fit


def centers_fit(digest: str, X: np.ndarray, request: SpectralRequest) -> SpectralFit:
    """:func:`reduced_fit` without embedding the rows."""
    return reduced_fit(digest, X, request, embed=False)


@st.cache_data(max_entries=8, show_spinner="Solving the exact n x n problem (every row a center; cached)...")
def _exact_fit(digest: str, _X: np.ndarray, request: SpectralRequest) -> SpectralFit:
    return _fit(request, _X, np.ones(_X.shape[0]), _X, None)[0]


def exact_fit(digest: str, X: np.ndarray, request: SpectralRequest) -> SpectralFit:
    """The method of ``request`` with every row its own center, weight 1: the dense n x n computation
    (cached without ell, which it does not depend on)."""
    return _exact_fit(digest, X, replace(request, ell=0.0, max_centers=None))
