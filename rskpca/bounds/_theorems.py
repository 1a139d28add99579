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

This module holds the public functions (one per theorem, :func:`theorem_bounds` for all four,
:func:`eigengap`); each theorem's computation is in :mod:`rskpca.bounds._theorem_values`, the
result type and a-priori values in :mod:`rskpca.bounds._closed_form`, table rows in
:mod:`rskpca.bounds._tables`.
"""

from __future__ import annotations

import numpy as np
from scipy.linalg import eigvalsh

from rskpca.core.row_draws import uniform_rows
from rskpca.bounds._measurements import check_int, prepare_sample
from rskpca.bounds._closed_form import BoundValue
from rskpca.bounds._theorem_values import _eigenvalues, _hs, _mmd, _projection
from rskpca.core.validation import check_array_2d, check_positive
from rskpca.core.radial_kernels import kernel_matrix

__all__ = [
    "theorem_bounds",
    "mmd_bound",
    "eigenvalue_bound",
    "hs_bound",
    "projection_bound",
    "eigengap",
]

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
    :func:`~rskpca.bounds.apriori_bounds`. Above ``max_exact`` rows it is computed on the same
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
        X = X[uniform_rows(n, max_exact, random_state)]
    if D > X.shape[0]:
        return 0.0
    X = X - X.mean(axis=0)
    lam = eigvalsh(kernel_matrix(X, X, sigma=sigma, kernel=kernel))[::-1] / X.shape[0]
    lam_next = lam[D] if D < lam.size else 0.0
    return float(0.5 * (lam[D - 1] - lam_next))
