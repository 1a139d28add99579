"""The a-priori (closed-form) bounds of Theorems 5.1-5.4 from ell alone, and the three-number result type.

See :mod:`rskpca.bounds._theorems` for the a-posteriori and measured values and for the
kernel-convention note on Theorem 5.2's constant.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np

from rskpca.bounds._measurements import is_negative_exponential, kappa_minus_phi
from rskpca.core.validation import check_positive
from rskpca.core.radial_kernels import RadialKernel, get_kernel

__all__ = ["THEOREMS", "BoundValue", "apriori_bounds"]


#: What each theorem bounds (uncentered operators, eigenvalues of K/n).
THEOREMS: dict[str, str] = {
    "5.1": "MMD_b(X, C-bar)",
    "5.2": "sum_i (lambda_i - lambda-bar_i)^2",
    "5.3": "||K_n - K-bar_n||_HS",
    "5.4": "||P^D(K_n) - P^D(K-bar_n)||_HS",
}

@dataclass(frozen=True)
class BoundValue:
    """One theorem's bound on one data set: a-priori, a-posteriori and measured.

    Attributes
    ----------
    theorem : str
        ``"5.1"`` to ``"5.4"``.
    quantity : str
        What is bounded, e.g. ``"MMD_b(X, C-bar)"``.
    a_priori : float
        The closed-form bound from ``ell`` (and ``delta_D`` for 5.4); NaN where it
        does not apply (5.4 when its condition fails).
    a_posteriori : float
        The bound evaluated on the actual center residuals; NaN where it does not apply.
        Theorems 5.1-5.3: on all n rows (it needs only each row's distance to its center,
        O(n)); Theorem 5.4: on the measured rows (it needs the eigengap of exact KPCA).
    measured : float
        The bounded quantity itself; NaN where it is undefined (5.4 with tied eigenvalues).
    applies : bool
        Whether the theorem's hypotheses hold: always for 5.1-5.3. For 5.4, whether
        the a-posteriori condition ``2 sqrt(kappa) mean e_i < delta_D / 2`` holds; the
        a-priori condition is stricter, so ``a_priori`` can be NaN while this is True
        (compare ``measured`` with ``a_posteriori`` then).
    note : str
        Plain-language remarks: subsampling, why a bound does not apply, the
        paper's constant.
    n_measured : int
        Rows used for the measured value: all n, or a seeded subsample of ``max_exact``
        (the measured values need exact KPCA's s x s kernel matrix or its spectra).
    paper_a_priori : float or None
        The value of the bound as printed in the paper. It equals ``a_priori``
        except for 5.2, where the printed constant is not a valid bound.
    n_a_posteriori : int or None
        Rows used for the a-posteriori value; None (the default) means ``n_measured``.
    sample_a_posteriori : float or None
        Where the a-posteriori value is on more rows than the measured one: the
        a-posteriori value on the measured rows alone, which the measured value is
        guaranteed to be below (the theorem on those rows); else None.
    """

    theorem: str
    quantity: str
    a_priori: float
    a_posteriori: float
    measured: float
    applies: bool
    note: str
    n_measured: int
    paper_a_priori: float | None = None
    n_a_posteriori: int | None = None
    sample_a_posteriori: float | None = None

    def __post_init__(self):
        # Plain floats (not NumPy scalars) so rows serialize cleanly to CSV/JSON.
        for name in ("a_priori", "a_posteriori", "measured"):
            object.__setattr__(self, name, float(getattr(self, name)))
        for name in ("paper_a_priori", "sample_a_posteriori"):
            if getattr(self, name) is not None:
                object.__setattr__(self, name, float(getattr(self, name)))
        object.__setattr__(self, "n_a_posteriori",
                           int(self.n_measured if self.n_a_posteriori is None else self.n_a_posteriori))
        object.__setattr__(self, "applies", bool(self.applies))
        object.__setattr__(self, "n_measured", int(self.n_measured))

    def as_dict(self) -> dict:
        """The fields as a plain dict (one row of :func:`bounds_table`)."""
        return asdict(self)


# --------------------------------------------------------------------------- closed forms


def _scalar_or_array(values, like):
    return float(values) if np.ndim(like) == 0 else values


def apriori_bounds(ell, sigma: float = 1.0, kernel="gaussian", *, delta_D=None, paper: bool = False) -> dict:
    """The closed-form (a-priori) bounds of Theorems 5.1-5.4 as functions of ``ell``.

    No data needed, so this is what a sweep over ``ell`` plots. Theorem 5.4 also
    needs the eigengap ``delta_D`` of ``K/n`` (see :func:`eigengap`); without it,
    or where its condition ``2 sqrt(2 kappa (kappa - phi(1/ell^p))) < delta_D / 2``
    fails, its value is NaN.

    Parameters
    ----------
    ell : float or array-like of float
        Shadow parameter(s), > 0.
    sigma : float, default=1.0
        Kernel bandwidth. Only the constant of 5.2 involves it, and it cancels:
        ``2 C (sigma/ell)^2 = 4 (L sigma)^2 / ell^2``.
    kernel : {"gaussian", "laplacian"} or RadialKernel, default="gaussian"
    delta_D : float, optional
        ``(lambda_D - lambda_{D+1}) / 2`` of ``K/n`` for Theorem 5.4.
    paper : bool, default=False
        Return the values as printed in the paper instead (5.2 with its constant
        ``1/(2 sigma^2)`` Gaussian, ``1/sigma^2`` Laplacian, which is not a valid bound).

    Returns
    -------
    dict
        ``{"5.1": ..., "5.2": ..., "5.3": ..., "5.4": ...}``, floats for a scalar
        ``ell``, arrays otherwise.

    Examples
    --------
    >>> b = apriori_bounds(4.0)
    >>> round(b["5.1"], 4), round(b["5.2"], 4), round(b["5.3"], 4), b["5.4"]
    (0.3481, 0.1839, 0.6962, nan)
    >>> round(apriori_bounds(4.0, paper=True)["5.2"], 4)
    0.0625
    >>> round(apriori_bounds(100.0, delta_D=0.1)["5.4"], 4)
    0.2828
    >>> apriori_bounds(10.0, delta_D=0.1)["5.4"]  # condition fails: 0.28 >= 0.1 / 2
    nan
    """
    k = get_kernel(kernel)
    sigma = check_positive(sigma, "sigma")
    ell_arr = np.asarray(ell, dtype=np.float64)
    if ell_arr.size == 0 or not np.all(np.isfinite(ell_arr)) or np.any(ell_arr <= 0):
        raise ValueError(f"ell must be positive finite number(s); got {ell!r}.")
    residual = np.sqrt(2.0 * kappa_minus_phi(k, 1.0 / ell_arr**k.p))  # worst ||psi(x) - psi(c)||_H
    eps = sigma / ell_arr
    c = k.paper_c_constant(sigma) if paper else k.c_constant(sigma)
    hs = 2.0 * (k.kappa if paper else np.sqrt(k.kappa)) * residual
    out = {"5.1": residual, "5.2": 2.0 * c * eps**2, "5.3": hs}
    if delta_D is None:
        out["5.4"] = np.full_like(ell_arr, np.nan)
    else:
        gap = float(delta_D)
        if not np.isfinite(gap) or gap < 0:
            raise ValueError(f"delta_D must be a finite number >= 0; got {delta_D!r}.")
        with np.errstate(divide="ignore", invalid="ignore"):
            out["5.4"] = np.where(hs < gap / 2.0, hs / gap, np.nan)
    return {key: _scalar_or_array(val, ell) for key, val in out.items()}


def _min_ell_for_projection(kernel: RadialKernel, gap: float) -> float:
    """Smallest ell with ``2 sqrt(2 kappa (kappa - phi(1/ell^p))) < gap / 2`` (exp profile), else NaN."""
    # kappa = 1: need 1 - exp(-1/ell^p) < gap^2 / 32.
    target = gap * gap / 32.0
    if not is_negative_exponential(kernel) or not 0 < target < 1:
        return float("nan")
    return float((-np.log1p(-target)) ** (-1.0 / kernel.p))
