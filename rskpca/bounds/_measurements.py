"""Measuring what the Section 5 bounds bound: the rows used, kernel values, spectra.

Helpers of :mod:`rskpca.bounds`. A :class:`Sample` holds the rows (all of X,
or a seeded subsample of ``max_exact``) with their own shadow centers; the
functions here compute, on it, the measured quantities of Theorems 5.1-5.4
and the eigen-data they need. It also holds every row's distance to its center
(O(n d), all n rows whatever ``max_exact``): the a-posteriori values of
Theorems 5.1-5.3 need nothing else, so they are computed on all n. Kernel values come from
:func:`rskpca.core.radial_kernels.kernel_matrix`, which recomputes (near-)duplicate pairs'
distances from their differences wherever rounding would show, because the measured values
are compared with bounds that can be tiny.
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from functools import cached_property
from numbers import Integral

import numpy as np
from scipy.linalg import eigh, eigvalsh
from scipy.sparse.linalg import ArpackError, ArpackNoConvergence, eigsh

from rskpca.core.row_draws import uniform_rows
from rskpca.core.validation import check_array_2d, check_positive
from rskpca.core.block_sizes import DEFAULT_BLOCK_ELEMENTS
from rskpca.core.radial_kernels import RadialKernel, get_kernel, kernel_matrix
from rskpca.core.shadow import ShadowResult

__all__ = [
    "Sample",
    "prepare_sample",
    "kappa_minus_phi",
    "is_negative_exponential",
    "quantization_gap",
    "projection_distance",
    "check_int",
    "eigen_top",
    "SPECTRAL_RTOL",
]

# Eigenvalues of K/n below this fraction of the largest are treated as 0, and
# gaps below it as ties. Dense solvers are accurate to ~ n * 1e-16 * lambda_1,
# far below this, so a "simple" eigenvalue here is simple beyond rounding.
SPECTRAL_RTOL = 1e-9
# Up to this size a full dense eigendecomposition is cheap; above it only the
# eigenvalues are dense and the few eigenvectors come from ARPACK.
DENSE_VECTORS_MAX = 500


def is_negative_exponential(kernel: RadialKernel) -> bool:
    """Whether ``phi(s) = exp(-s)`` and ``kappa = 1`` (both kernels of the paper)."""
    probe = np.array([0.0, 1e-3, 0.5, 3.0])
    return kernel.kappa == 1.0 and np.allclose(kernel.profile(probe), np.exp(-probe), rtol=1e-14, atol=0)


def kappa_minus_phi(kernel: RadialKernel, scaled) -> np.ndarray:
    """``kappa - phi(s)``, without cancellation for ``phi = exp(-s)`` (tiny residuals stay exact)."""
    s = np.asarray(scaled, dtype=np.float64)
    if is_negative_exponential(kernel):
        return -np.expm1(-s)
    return np.maximum(kernel.kappa - kernel.profile(s), 0.0)


# --------------------------------------------------------------------------- kernel sums

def weighted_kernel_sum(A, wA, B, wB, sigma, kernel, *, squared=False) -> float:
    """``wA' K(A, B) wB`` (``K**2`` if ``squared``) in row blocks of bounded memory."""
    step = max(1, DEFAULT_BLOCK_ELEMENTS // max(B.shape[0], 1))
    total = 0.0
    for start in range(0, A.shape[0], step):
        block = kernel_matrix(A[start:start + step], B, sigma=sigma, kernel=kernel)
        if squared:
            block *= block
        total += float(wA[start:start + step] @ (block @ wB))
    return total


# --------------------------------------------------------------------------- terms that do not depend on ell

#: How many samples' own kernel terms are kept (see :func:`sample_term`).
SAMPLE_TERMS_KEPT = 8
_sample_terms: OrderedDict = OrderedDict()
_sample_terms_lock = threading.Lock()


def sample_term(S: "Sample", what: tuple, compute):
    """``compute()``, remembered for the last few ``(S.X, sigma, kernel, what)``.

    The rows a measurement uses are drawn without looking at the shadow, so at a new
    ell the sample is the same and so are its own terms: the sum of its kernel matrix
    and the spectrum of ``K/s``. Remembering them makes a sweep over ell, or an app
    user moving the ell slider, pay only for what ell changes (the centers' terms).
    Keyed by :attr:`Sample.rows_key` (a digest of the rows); arrays are returned read-only.
    """
    key = (S.rows_key, what)
    with _sample_terms_lock:
        if key in _sample_terms:
            _sample_terms.move_to_end(key)
            return _sample_terms[key]
    value = compute()
    for part in (value if isinstance(value, tuple) else (value,)):
        if isinstance(part, np.ndarray):
            part.flags.writeable = False
    with _sample_terms_lock:
        _sample_terms[key] = value
        while len(_sample_terms) > SAMPLE_TERMS_KEPT:
            _sample_terms.popitem(last=False)
    return value


# --------------------------------------------------------------------------- the sample


@dataclass
class Sample:
    """The rows (all, or a seeded subsample) the measured and a-posteriori values use."""

    X: np.ndarray  # (s, d)
    centers: np.ndarray  # (m_s, d): the centers these rows belong to
    weights: np.ndarray  # (m_s,): how many of these rows each center holds
    distances: np.ndarray  # (s,) d_i = ||x_i - c_a(i)||
    residuals: np.ndarray  # (s,) e_i = ||psi(x_i) - psi(c_a(i))||_H
    all_distances: np.ndarray  # (n,) d_i on every row of the data: the a-posteriori values of 5.1-5.3
    all_residuals: np.ndarray  # (n,) e_i on every row of the data
    n_total: int
    kernel: RadialKernel
    sigma: float
    eps: float
    _spectra: dict = field(default_factory=dict)

    @cached_property
    def rows_key(self) -> tuple:
        """Identifies the rows and the kernel, not the shadow: the key of :func:`sample_term`."""
        X = np.ascontiguousarray(self.X)
        return (hashlib.blake2b(X.view(np.uint8), digest_size=16).digest(), X.shape, self.sigma,
                self.kernel.name, self.kernel.p)

    @property
    def s(self) -> int:
        """Number of rows used."""
        return int(self.X.shape[0])

    @property
    def ell(self) -> float:
        """The effective ell: the kernel's sigma over the shadow's radius."""
        return self.sigma / self.eps

    @property
    def subsampled(self) -> bool:
        """Whether these are fewer rows than the data has."""
        return self.s < self.n_total

    def where(self, *, exact: bool = False, all_n_bound: bool = True, sample_bound: float | None = None) -> str:
        """Which rows the numbers come from, for the notes.

        ``exact``: the measured value needs exact KPCA (the s x s spectra), so the note says so.
        ``all_n_bound``: the a-posteriori value is on all n rows (Theorems 5.1-5.3: it needs only
        each row's distance to its center); else on the measured rows (Theorem 5.4: it needs the
        eigengap of exact KPCA). ``sample_bound``: the a-posteriori value on the measured rows alone,
        stated beside the all-n one (the measured value is below it: the theorem on those rows).
        """
        if not self.subsampled:
            return f"measured and a-posteriori on all n = {self.n_total:,} rows"
        rows = f"a seeded uniform subsample of {self.s:,} of n = {self.n_total:,} rows"
        if not all_n_bound:
            return (f"measured and a-posteriori on {rows} (both need exact KPCA on those rows, the a-posteriori "
                    "value through delta_D; each row keeps its own center, so the theorem holds for them)")
        against = " against exact KPCA" if exact else ""
        sample = f"measured{against} on {rows} (each keeps its own center, so the theorem holds for it)"
        on_sample = "" if sample_bound is None else (
            f" (on the {self.s:,} sampled rows alone it is {sample_bound:.4g}, the bound the measured value is "
            "held to)")
        return f"{sample}; the a-posteriori bound on all n = {self.n_total:,} rows{on_sample}"

    def spectra(self, n_vectors: int):
        """Eigen-data of ``K/s`` and of the quantized ``K-bar/s`` (through ``W K^C W / s``).

        Returns ``(lam, A, lam_bar, B)``: all eigenvalues, descending, and the
        unit eigenvectors of the top ``n_vectors`` of each. Cached: a larger
        request recomputes, a smaller one reuses.
        """
        cached = self._spectra.get("vectors")
        if cached is None or cached[0] < n_vectors:
            lam, A = sample_term(self, ("eigen_top", n_vectors),
                                 lambda: eigen_top(kernel_matrix(self.X, self.X, sigma=self.sigma, kernel=self.kernel), n_vectors))
            sw = np.sqrt(self.weights.astype(np.float64))
            KW = kernel_matrix(self.centers, self.centers, sigma=self.sigma, kernel=self.kernel)
            KW *= sw[:, None]
            KW *= sw[None, :]
            lam_bar, B = eigen_top(KW, n_vectors)
            self._spectra["vectors"] = (n_vectors, lam / self.s, A, lam_bar / self.s, B)
        _, lam, A, lam_bar, B = self._spectra["vectors"]
        return lam, A[:, :n_vectors], lam_bar, B[:, :n_vectors]


def eigen_top(K: np.ndarray, n_vectors: int):
    """All eigenvalues (descending) and the top ``n_vectors`` unit eigenvectors of symmetric K."""
    size = K.shape[0]
    k = min(int(n_vectors), size)
    if size <= DENSE_VECTORS_MAX or k >= size // 4:
        vals, vecs = eigh(K)
        return vals[::-1], vecs[:, ::-1][:, :k]
    vals = eigvalsh(K)[::-1]
    # Only the eigenvalues need the O(n^3) dense solver; a few top vectors come
    # from Lanczos, checked against the dense values and recomputed densely if off.
    try:
        top, vecs = eigsh(K, k=k, which="LA", v0=np.random.RandomState(0).uniform(-1, 1, size), tol=0.0)
        order = np.argsort(top)[::-1]
        if np.allclose(top[order], vals[:k], rtol=0, atol=1e-10 * max(vals[0], 1e-300)):
            return vals, vecs[:, order]
    except (ArpackNoConvergence, ArpackError):
        pass
    _, vecs = eigh(K, subset_by_index=[size - k, size - 1])
    return vals, vecs[:, ::-1]


def check_int(value, name: str, minimum: int) -> int:
    """``int(value)`` if it is an integer (not a bool) >= minimum, else a ``ValueError``."""
    if isinstance(value, bool) or not isinstance(value, Integral) or value < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}; got {value!r}.")
    return int(value)


#: What the measurements read off a shadow (:class:`~rskpca.core.shadow.ShadowResult`).
_SHADOW_FIELDS = ("centers", "labels", "n", "sigma", "eps", "kernel", "distances_to_centers")


def prepare_sample(X, shadow, *, sigma, kernel, max_exact, random_state) -> Sample:
    """Validate the inputs and draw the rows the measured values are computed on."""
    # By its fields, not its class: a result cached by an app across a reload of rskpca (Streamlit reloads
    # the package when its files change) is an instance of the class as it was, and must still be accepted.
    if not isinstance(shadow, ShadowResult) and not all(hasattr(shadow, f) for f in _SHADOW_FIELDS):
        raise ValueError(
            f"shadow must be the ShadowResult of rskpca.shadow_centers(X, ...); got {type(shadow).__name__}."
        )
    X = check_array_2d(X, name="X")
    if X.shape != (shadow.n, shadow.centers.shape[1]):
        raise ValueError(
            f"X has shape {X.shape} but the shadow was computed on data of shape "
            f"({shadow.n}, {shadow.centers.shape[1]}); pass the X that shadow_centers was given."
        )
    kern = get_kernel(shadow.kernel if kernel is None else kernel)
    sigma = shadow.sigma if sigma is None else check_positive(sigma, "sigma")
    max_exact = check_int(max_exact, "max_exact", 1)
    dist = shadow.distances_to_centers(X)
    # The predicate is ||x - c||^2 < eps^2 in float64; allow its last-bit rounding only.
    worst = int(np.argmax(dist))
    if dist[worst] > shadow.eps * (1.0 + 1e-12):
        raise ValueError(
            f"Row {worst} lies {dist[worst]:.6g} from its center, beyond the shadow radius "
            f"eps = {shadow.eps:.6g}: this shadow was not computed on this X. Recompute it with "
            "shadow_centers(X, ...)."
        )
    n = X.shape[0]
    rows = np.arange(n)
    if n > max_exact:
        rows = uniform_rows(n, max_exact, random_state)
    used, local_labels = np.unique(shadow.labels[rows], return_inverse=True)
    # Every row's residual in H (O(n)): the a-posteriori values of Theorems 5.1-5.3 use all n of them.
    residuals = np.sqrt(2.0 * kern.kappa * kappa_minus_phi(kern, (dist / sigma) ** kern.p))
    # Kernels only see differences: center on the sample mean for smaller rounding errors.
    origin = X[rows].mean(axis=0)
    return Sample(
        X=X[rows] - origin,
        centers=shadow.centers[used] - origin,
        weights=np.bincount(local_labels, minlength=used.size),
        distances=dist if rows.size == n else dist[rows],
        residuals=residuals if rows.size == n else residuals[rows],
        all_distances=dist,
        all_residuals=residuals,
        n_total=n,
        kernel=kern,
        sigma=float(sigma),
        eps=float(shadow.eps),
    )


def quantization_gap(S: Sample, *, squared: bool) -> float:
    """``1'K_XX 1 - 2 1'K_XC w + w'K_CC w`` (entrywise squared kernels if ``squared``), >= 0.

    n^2 MMD_b^2 for the kernel, n^2 ||K_n - K-bar_n||_HS^2 for its square:
    ``<K_n, K-bar_n>_HS = sum_ij k(x_i, c_a(j))^2 / n^2``.
    """
    ones = np.ones(S.s)
    w = S.weights.astype(np.float64)
    opts = dict(sigma=S.sigma, kernel=S.kernel, squared=squared)
    xx = sample_term(S, ("sum", squared), lambda: weighted_kernel_sum(S.X, ones, S.X, ones, **opts))
    xc = weighted_kernel_sum(S.X, ones, S.centers, w, **opts)
    cc = weighted_kernel_sum(S.centers, w, S.centers, w, **opts)
    return max(xx - 2.0 * xc + cc, 0.0)  # rounding can leave a tiny negative


def leading_rank(vals: np.ndarray, D: int, tol: float):
    """``(r, unique)``: the number of positive eigenvalues among the top D, and whether
    the span of their eigenvectors is unique (no tie across position D)."""
    r = int(np.count_nonzero(vals[:D] > tol))
    unique = not (r == D and vals.size > D and vals[D - 1] - vals[D] <= tol)
    return r, unique


def projection_distance(S: Sample, D: int) -> tuple[float, str]:
    """``||P - P-bar||_HS`` through the overlaps of the two eigenbases in H, with a remark."""
    lam, A, lam_bar, B = S.spectra(D)
    tol = SPECTRAL_RTOL * lam[0]
    r, unique = leading_rank(lam, D, tol)
    r_bar, unique_bar = leading_rank(lam_bar, D, tol)
    if not (unique and unique_bar):
        which = "K_n" if not unique else "K-bar_n"
        return float("nan"), f"The measured value is undefined: eigenvalues D and D+1 of {which} are tied. "
    # u_k = sum_i a_ki psi(x_i) / sqrt(mu_k) and u-bar_l = sum_j b_lj sqrt(w_j) psi(c_j) / sqrt(mu-bar_l),
    # with mu = s * lam the eigenvalues of the unnormalized matrices.
    K_xc = kernel_matrix(S.X, S.centers, sigma=S.sigma, kernel=S.kernel)
    sw = np.sqrt(S.weights.astype(np.float64))
    M = A[:, :r].T @ K_xc @ (sw[:, None] * B[:, :r_bar])
    M /= np.sqrt(np.outer(S.s * lam[:r], S.s * lam_bar[:r_bar]))
    # ||P - P-bar||_HS^2 = tr P + tr P-bar - 2 tr(P P-bar) = r + r_bar - 2 ||M||_F^2.
    measured = float(np.sqrt(max(r + r_bar - 2.0 * float(np.sum(M * M)), 0.0)))
    remark = ""
    if r < D or r_bar < D:
        remark = (f"K_n has {r} and K-bar_n has {r_bar} positive eigenvalues among the top D = {D}: "
                  "the measured value compares the projections onto those. ")
    return measured, remark
