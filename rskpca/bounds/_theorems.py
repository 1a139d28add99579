"""The error bounds of Section 5 (Theorems 5.1-5.4), each as three numbers.

For a data set X and its shadow quantization (every ``x_i`` replaced by its
center ``c_a(i)``, within ``eps = sigma / ell``), every theorem bounds some
distance between the exact and the quantized kernel objects:

* **a-priori**: the closed form from ``ell`` alone (the paper's statement);
* **a-posteriori**: the same proof, fed with the actual residuals
  ``d_i = ||x_i - c_a(i)||`` and ``e_i = ||psi(x_i) - psi(c_a(i))||_H
  = sqrt(2 (kappa - k(x_i, c_a(i))))`` instead of their worst case; O(n);
* **measured**: the bounded quantity itself, computed exactly.

So ``measured <= a_posteriori <= a_priori`` always, up to rounding: the measured
MMD and Hilbert-Schmidt norms are square roots of differences of O(1) sums, so
they carry an absolute error of about ``sqrt(1e-16) = 1e-8``, which shows only
when the residuals themselves are that small. All operators are uncentered, as
in the paper, and the kernel is written ``k(x, y) = phi(||x - y||^p / sigma^p)``
with ``kappa = k(x, x) = 1`` (Gaussian: ``exp(-||x - y||^2 / sigma^2)``).

The measured values need exact KPCA: the O(s^2) kernel sums of Theorems 5.1 and
5.3 and the O(s^3) eigendecompositions of Theorems 5.2 and 5.4. Above ``max_exact``
rows they are computed on a seeded uniform subsample of ``max_exact`` rows. Each
sampled row keeps its own center, which is still within ``eps``, so every theorem
holds for the subsample as it is. The a-posteriori values of Theorems 5.1-5.3 need
only each row's distance to its center, so they are computed on all n rows
(``BoundValue.n_a_posteriori``), whatever ``max_exact``; beside them
``BoundValue.sample_a_posteriori`` gives the value on the sampled rows alone, which
bounds the measured value there. Theorem 5.4's a-posteriori value divides by the
eigengap of ``K/n``, itself exact KPCA, so it stays on the sampled rows.

Theorem 5.2 as printed uses ``C = 1/(2 sigma^2)`` (Gaussian), which is too
small in this kernel convention: ``(k(a,b) - k(c,d))^2 <= C (||a-c||^2 + ||b-d||^2)``
needs ``C = 2 L^2`` with ``L`` the kernel's Lipschitz constant in the distance
(:meth:`rskpca.core.radial_kernels.RadialKernel.c_constant`). The bounds use that one and
report the printed one as ``paper_a_priori``.
"""

from __future__ import annotations

import numpy as np
from scipy.linalg import eigvalsh
from sklearn.utils import check_random_state

from rskpca.bounds._measurements import (
    SPECTRAL_RTOL,
    Sample,
    accurate_kernel,
    check_int,
    prepare_sample,
    projection_distance,
    quantization_gap,
)
from rskpca.bounds._closed_form import THEOREMS, BoundValue, _min_ell_for_projection, apriori_bounds
from rskpca.core.validation import check_array_2d, check_positive
from rskpca.core.radial_kernels import get_kernel

__all__ = [
    "BoundValue",
    "THEOREMS",
    "theorem_bounds",
    "mmd_bound",
    "eigenvalue_bound",
    "hs_bound",
    "projection_bound",
    "bounds_table",
    "apriori_bounds",
    "eigengap",
    "rows_statement",
]

# --------------------------------------------------------------------------- the four theorems


def _on_rows(S: Sample, value) -> dict:
    """The keyword arguments of BoundValue for an a-posteriori ``value(distances, residuals)`` on all n rows:
    its row count and, on a subsample, its value on the sampled rows alone."""
    sample = value(S.distances, S.residuals) if S.subsampled else None
    return {"n_a_posteriori": S.n_total, "sample_a_posteriori": sample}


def _mmd_posterior(d, e) -> float:
    return float(np.mean(e))


def _mmd(S: Sample) -> BoundValue:
    measured = np.sqrt(quantization_gap(S, squared=False)) / S.s
    prior = apriori_bounds(S.ell, S.sigma, S.kernel)["5.1"]
    rows = _on_rows(S, _mmd_posterior)
    return BoundValue(
        "5.1", THEOREMS["5.1"], prior, _mmd_posterior(S.all_distances, S.all_residuals), float(measured), True,
        f"a-posteriori = mean_i ||psi(x_i) - psi(c_a(i))||_H (triangle inequality); "
        f"{S.where(sample_bound=rows['sample_a_posteriori'])}.",
        S.s, prior, **rows,
    )


def _eigenvalues(S: Sample) -> BoundValue:
    lam, _, lam_bar, _ = S.spectra(1)
    # K-bar = Q K^C Q^T has the nonzero eigenvalues of W K^C W and n - m zeros.
    padded = np.sort(np.concatenate([lam_bar, np.zeros(S.s - lam_bar.size)]))[::-1]
    measured = float(np.sum((lam - padded) ** 2))
    L = S.kernel.lipschitz(S.sigma)

    def posterior_of(d, e) -> float:
        # Hoffman-Wielandt: <= ||K - K-bar||_F^2 / n^2 <= (L^2/n^2) sum_ij (d_i + d_j)^2.
        return float(L * L * (2.0 * np.mean(d * d) + 2.0 * np.mean(d) ** 2))

    prior = apriori_bounds(S.ell, S.sigma, S.kernel)["5.2"]
    paper = apriori_bounds(S.ell, S.sigma, S.kernel, paper=True)["5.2"]
    rows = _on_rows(S, posterior_of)
    note = (
        f"Uses the provable constant C = 2 L^2 = {S.kernel.c_constant(S.sigma):.4g}; the paper's "
        f"C = {S.kernel.paper_c_constant(S.sigma):.4g} gives {paper:.4g}, which is not a valid bound "
        f"in this kernel convention. a-posteriori = L^2 (2 mean d_i^2 + 2 (mean d_i)^2); "
        f"{S.where(exact=True, sample_bound=rows['sample_a_posteriori'])}."
    )
    return BoundValue("5.2", THEOREMS["5.2"], prior, posterior_of(S.all_distances, S.all_residuals), measured, True,
                      note, S.s, paper, **rows)


def _hs_measured(S: Sample) -> float:
    return float(np.sqrt(quantization_gap(S, squared=True)) / S.s)


def _hs(S: Sample) -> BoundValue:
    prior = apriori_bounds(S.ell, S.sigma, S.kernel)["5.3"]
    paper = apriori_bounds(S.ell, S.sigma, S.kernel, paper=True)["5.3"]

    def posterior_of(d, e) -> float:
        return float(2.0 * np.sqrt(S.kernel.kappa) * np.mean(e))

    rows = _on_rows(S, posterior_of)
    return BoundValue(
        "5.3", THEOREMS["5.3"], prior, posterior_of(S.all_distances, S.all_residuals), _hs_measured(S), True,
        f"a-posteriori = 2 sqrt(kappa) mean_i ||psi(x_i) - psi(c_a(i))||_H; "
        f"{S.where(sample_bound=rows['sample_a_posteriori'])}.",
        S.s, paper, **rows,
    )


def _projection(S: Sample, D: int) -> BoundValue:
    D = check_int(D, "n_components", 1)
    measured, remark = projection_distance(S, D)
    lam = S.spectra(D)[0]
    nan = float("nan")
    paper = nan

    def result(applies, prior, posterior, why):
        # a sentence of its own after ``why``'s full stop; the a-posteriori value divides by delta_D, an
        # eigengap of exact KPCA, so it is on the measured rows too
        rest = remark + S.where(exact=True, all_n_bound=False)
        return BoundValue("5.4", THEOREMS["5.4"], prior, posterior, measured, applies,
                          f"{why} {rest[:1].upper()}{rest[1:]}.", S.s, paper)

    if D > S.s:
        return result(False, nan, nan,
                      f"Does not apply: D = n_components = {D} exceeds the {S.s} rows, so lambda_D = 0.")
    tol = SPECTRAL_RTOL * lam[0]
    lam_next = lam[D] if D < lam.size else 0.0
    gap = 0.5 * (lam[D - 1] - lam_next)
    if lam[D - 1] <= tol:
        return result(False, nan, nan,
                      f"Does not apply: lambda_D = {lam[D - 1]:.3g} is 0 (K/n has rank < D = {D}); lower D "
                      "(the rank: n_components, the app's r).")
    if gap <= tol:
        return result(False, nan, nan,
                      f"Does not apply: lambda_D and lambda_(D+1) coincide (delta_D = {gap:.3g}), so the "
                      "top-D eigenspace is not unique; pick a D at a gap in the spectrum.")
    hs_prior = apriori_bounds(S.ell, S.sigma, S.kernel)["5.3"]
    hs_post = 2.0 * np.sqrt(S.kernel.kappa) * float(S.residuals.mean())
    paper = hs_prior / gap if hs_prior < gap / 2 else nan
    if hs_post >= gap / 2:
        hs = _hs_measured(S)
        exact = (f"with the measured ||K_n - K-bar_n||_HS = {hs:.3g} it holds and gives {hs / gap:.3g}"
                 if hs < gap / 2 else f"the measured ||K_n - K-bar_n||_HS = {hs:.3g} is too large as well")
        return result(False, nan, nan,
                      f"Does not apply: its condition 2 sqrt(kappa) mean e_i < delta_D / 2 does not hold "
                      f"({hs_post:.3g} against {gap / 2:.3g}; Zwald & Blanchard need the perturbation below half "
                      f"the gap; {exact}); increase ell or lower D (the rank: n_components, the app's r).")
    why = (f"delta_D = {gap:.4g}. a-posteriori = 2 sqrt(kappa) mean e_i / delta_D (Zwald & Blanchard, Thm 3, "
           f"with ||K_n - K-bar_n||_HS <= 2 sqrt(kappa) mean e_i); with the measured HS norm instead it would be "
           f"{_hs_measured(S) / gap:.4g}.")
    if hs_prior >= gap / 2:
        min_ell = _min_ell_for_projection(S.kernel, gap)
        hint = f" (it holds for ell > {min_ell:.4g})" if np.isfinite(min_ell) else ""
        why += (f" The a-priori condition 2 sqrt(2 kappa (kappa - phi(1/ell^p))) < delta_D / 2 does not hold "
                f"at ell = {S.ell:.4g} ({hs_prior:.3g} against {gap / 2:.3g}){hint}, so only the a-posteriori "
                f"bound applies.")
        return result(True, nan, hs_post / gap, why)
    return result(True, hs_prior / gap, hs_post / gap, why)


# --------------------------------------------------------------------------- public API

_PARAMS_DOC = """
    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        The data the shadow was computed on.
    shadow : ShadowResult
        ``rskpca.shadow_centers(X, sigma=..., ell=...)``.
    sigma : float, optional
        Kernel bandwidth; defaults to the shadow's. Another sigma is allowed: the
        bounds then use the effective ``ell = sigma / shadow.eps``.
    kernel : {"gaussian", "laplacian"} or RadialKernel, optional
        Defaults to the shadow's kernel.
    max_exact : int, default=4000
        Most rows used for the measured values (the eigendecompositions are
        O(max_exact^3)); above it a seeded uniform subsample is used. The
        a-posteriori values of Theorems 5.1-5.3 use all n rows whatever it is.
    random_state : int, RandomState instance or None, default=0
        Seed of that subsample.
"""


def mmd_bound(X, shadow, *, sigma=None, kernel=None, max_exact=4000, random_state=0) -> BoundValue:
    """Theorem 5.1: ``MMD_b(X, C-bar) <= sqrt(2 (kappa - phi(1/ell^p)))``.

    Measured: ``sqrt(1'K_XX 1 - 2 1'K_XC w + w'K_CC w) / n``, blocked.
    %s

    Returns
    -------
    BoundValue
        Theorem 5.1's a-priori, a-posteriori and measured values.

    Examples
    --------
    >>> import numpy as np
    >>> from rskpca import shadow_centers
    >>> X = np.random.default_rng(0).normal(size=(200, 2))
    >>> b = mmd_bound(X, shadow_centers(X, sigma=1.0, ell=4.0))
    >>> bool(b.measured <= b.a_posteriori <= b.a_priori)
    True
    """
    return _mmd(prepare_sample(X, shadow, sigma=sigma, kernel=kernel, max_exact=max_exact, random_state=random_state))


def eigenvalue_bound(X, shadow, *, sigma=None, kernel=None, max_exact=4000, random_state=0) -> BoundValue:
    """Theorem 5.2: ``sum_i (lambda_i - lambda-bar_i)^2 <= 2 C (sigma / ell)^2``, with ``C = 2 L^2``.

    Over all n eigenvalues of ``K/n`` and ``K-bar/n`` (uncentered), sorted.
    %s

    Returns
    -------
    BoundValue
        Theorem 5.2's values; ``paper_a_priori`` holds the printed (invalid) constant's.

    Examples
    --------
    >>> import numpy as np
    >>> from rskpca import shadow_centers
    >>> X = np.random.default_rng(0).normal(size=(200, 2))
    >>> b = eigenvalue_bound(X, shadow_centers(X, sigma=1.0, ell=4.0))
    >>> bool(b.measured <= b.a_posteriori <= b.a_priori), bool(b.paper_a_priori < b.a_priori)
    (True, True)
    """
    return _eigenvalues(prepare_sample(X, shadow, sigma=sigma, kernel=kernel, max_exact=max_exact,
                                       random_state=random_state))


def hs_bound(X, shadow, *, sigma=None, kernel=None, max_exact=4000, random_state=0) -> BoundValue:
    """Theorem 5.3: ``||K_n - K-bar_n||_HS <= 2 sqrt(kappa) sqrt(2 (kappa - phi(1/ell^p)))``.

    Measured: ``sqrt(sum k(x_i,x_j)^2 - 2 sum k(x_i,c_a(j))^2 + sum k(c_a(i),c_a(j))^2) / n``.
    %s

    Returns
    -------
    BoundValue
        Theorem 5.3's a-priori, a-posteriori and measured values.

    Examples
    --------
    >>> import numpy as np
    >>> from rskpca import shadow_centers
    >>> X = np.random.default_rng(0).normal(size=(200, 2))
    >>> b = hs_bound(X, shadow_centers(X, sigma=1.0, ell=4.0))
    >>> bool(b.measured <= b.a_posteriori <= b.a_priori)
    True
    """
    return _hs(prepare_sample(X, shadow, sigma=sigma, kernel=kernel, max_exact=max_exact, random_state=random_state))


def projection_bound(X, shadow, *, sigma=None, kernel=None, max_exact=4000, random_state=0,
                     n_components=5) -> BoundValue:
    """Theorem 5.4: ``||P^D(K_n) - P^D(K-bar_n)||_HS <= 2 sqrt(2 kappa (kappa - phi)) / delta_D``.

    ``D = n_components`` and ``delta_D = (lambda_D - lambda_{D+1}) / 2`` of ``K/n``.
    It applies only if the perturbation is below ``delta_D / 2``; otherwise
    ``applies`` is False and ``note`` says why.
    %s
    n_components : int, default=5
        D, the dimension of the projected eigenspace.

    Returns
    -------
    BoundValue
        Theorem 5.4's values; NaN bounds and ``applies=False`` where it does not apply.

    Examples
    --------
    >>> import numpy as np
    >>> from rskpca import shadow_centers
    >>> X = np.random.default_rng(0).normal(size=(200, 2))
    >>> b = projection_bound(X[:100], shadow_centers(X[:100], sigma=3.0, ell=30.0), n_components=1)
    >>> b.applies, bool(b.measured <= b.a_posteriori <= b.a_priori)
    (True, True)
    """
    return _projection(prepare_sample(X, shadow, sigma=sigma, kernel=kernel, max_exact=max_exact,
                                random_state=random_state), n_components)


def theorem_bounds(X, shadow, *, sigma=None, kernel=None, max_exact=4000, random_state=0,
                   n_components=5) -> dict[str, BoundValue]:
    """All four theorems on one data set, sharing the subsample and the eigendecompositions.
    %s
    n_components : int, default=5
        D of Theorem 5.4.

    Returns
    -------
    dict
        ``{"5.1": BoundValue, "5.2": ..., "5.3": ..., "5.4": ...}``.

    Examples
    --------
    >>> import numpy as np
    >>> from rskpca import shadow_centers
    >>> X = np.random.default_rng(0).normal(size=(150, 3))
    >>> res = theorem_bounds(X, shadow_centers(X, sigma=1.5, ell=6.0), n_components=3)
    >>> sorted(res)
    ['5.1', '5.2', '5.3', '5.4']
    >>> all(b.measured <= b.a_posteriori <= b.a_priori for k, b in res.items() if k != "5.4")
    True
    """
    S = prepare_sample(X, shadow, sigma=sigma, kernel=kernel, max_exact=max_exact, random_state=random_state)
    D = check_int(n_components, "n_components", 1)
    S.spectra(D)  # one eigendecomposition serves 5.2 and 5.4
    return {"5.1": _mmd(S), "5.2": _eigenvalues(S), "5.3": _hs(S), "5.4": _projection(S, D)}


for _f in (mmd_bound, eigenvalue_bound, hs_bound, projection_bound, theorem_bounds):
    _f.__doc__ = _f.__doc__.replace("%s", _PARAMS_DOC.rstrip())
del _f


def eigengap(X, *, sigma: float, kernel="gaussian", n_components=5, max_exact=4000, random_state=0) -> float:
    """``delta_D = (lambda_D - lambda_{D+1}) / 2`` of the uncentered ``K/n`` (Theorem 5.4).

    It does not depend on ``ell``, so a sweep computes it once and passes it to
    :func:`apriori_bounds`. Above ``max_exact`` rows it is computed on the same
    seeded subsample the bounds use. ``lambda_{n+1}`` is 0; ``D > n`` gives 0.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    sigma : float
        Kernel bandwidth.
    kernel : {"gaussian", "laplacian"} or RadialKernel, default="gaussian"
    n_components : int, default=5
        D.
    max_exact : int, default=4000
        Most rows used; above it a seeded uniform subsample.
    random_state : int, RandomState instance or None, default=0
        Seed of that subsample.

    Returns
    -------
    float
        ``delta_D``, >= 0 (0 when lambda_D is tied with lambda_{D+1}, up to rounding).

    Examples
    --------
    >>> import numpy as np
    >>> round(eigengap(np.array([[0.0], [10.0]]), sigma=1.0, n_components=1), 6)
    0.0
    >>> round(eigengap(np.array([[0.0], [10.0]]), sigma=1.0, n_components=2), 6)
    0.25
    """
    X = check_array_2d(X, name="X")
    sigma = check_positive(sigma, "sigma")
    D = check_int(n_components, "n_components", 1)
    max_exact = check_int(max_exact, "max_exact", 1)
    n = X.shape[0]
    if n > max_exact:
        X = X[np.sort(check_random_state(random_state).choice(n, size=max_exact, replace=False))]
    if D > X.shape[0]:
        return 0.0
    X = X - X.mean(axis=0)
    lam = eigvalsh(accurate_kernel(X, X, sigma, get_kernel(kernel)))[::-1] / X.shape[0]
    lam_next = lam[D] if D < lam.size else 0.0
    return float(0.5 * (lam[D - 1] - lam_next))


def bounds_table(res: dict) -> list[dict]:
    """Tidy rows (one per theorem) for tables and CSV downloads.

    Parameters
    ----------
    res : dict
        The output of :func:`theorem_bounds`.

    Returns
    -------
    list of dict
        One row per theorem, sorted by theorem, with the fields of :class:`BoundValue`.

    Examples
    --------
    >>> import numpy as np
    >>> from rskpca import shadow_centers
    >>> X = np.random.default_rng(0).normal(size=(50, 2))
    >>> rows = bounds_table(theorem_bounds(X, shadow_centers(X, sigma=1.0, ell=3.0), n_components=2))
    >>> [r["theorem"] for r in rows], sorted(rows[0])[:3]
    (['5.1', '5.2', '5.3', '5.4'], ['a_posteriori', 'a_priori', 'applies'])
    """
    rows = []
    for key in sorted(res):
        value = res[key]
        if not isinstance(value, BoundValue):
            raise ValueError(f"bounds_table expects the dict of theorem_bounds; entry {key!r} is "
                             f"{type(value).__name__}, not a BoundValue.")
        rows.append(value.as_dict())
    return rows


#: The theorems whose measured value is exact KPCA itself (its spectra); 5.1 and 5.3 sum the exact kernel matrix.
_SPECTRAL_THEOREMS = ("5.2", "5.4")


def rows_statement(row) -> str:
    """Which rows one theorem's numbers were computed on, in a short sentence for tables and captions.

    Parameters
    ----------
    row : BoundValue or dict
        A :class:`BoundValue` or a row of :func:`bounds_table` (``theorem``, ``n_measured``,
        ``n_a_posteriori``).

    Returns
    -------
    str
        E.g. ``"measured against exact KPCA on a seeded sample of 2,000 rows; the bound on all
        1,000,000 rows"``.

    Examples
    --------
    >>> rows_statement({"theorem": "5.2", "n_measured": 2000, "n_a_posteriori": 1_000_000})
    'measured against exact KPCA on a seeded sample of 2,000 rows; the bound on all 1,000,000 rows'
    >>> rows_statement({"theorem": "5.1", "n_measured": 500, "n_a_posteriori": 500})
    'measured and bound on all 500 rows'
    >>> rows_statement({"theorem": "5.4", "n_measured": 500, "n_a_posteriori": 500, "n_total": 9000})
    'measured and bound against exact KPCA on a seeded sample of 500 of 9,000 rows (the bound needs its eigengap)'
    """
    if isinstance(row, BoundValue):
        row = row.as_dict()
    theorem, s = str(row["theorem"]), int(row["n_measured"])
    posterior = int(row.get("n_a_posteriori") or s)
    total = int(row.get("n_total") or posterior)
    exact = " against exact KPCA" if theorem in _SPECTRAL_THEOREMS else " (its exact kernel matrix)"
    if posterior > s:
        if theorem in _SPECTRAL_THEOREMS:
            return f"measured{exact} on a seeded sample of {s:,} rows; the bound on all {posterior:,} rows"
        return f"measured on a seeded sample of {s:,} rows{exact}; the bound on all {posterior:,} rows"
    if total > s:
        return (f"measured and bound{exact} on a seeded sample of {s:,} of {total:,} rows (the bound needs its "
                "eigengap)")
    return f"measured and bound on all {s:,} rows"
