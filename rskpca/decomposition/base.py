"""Shared plumbing of the kernel PCA estimators: parameter constraints, input checks, tags.

Private to the package; the estimators live in :mod:`rskpca.decomposition._reduced_set`,
:mod:`rskpca.decomposition._exact`, :mod:`rskpca.decomposition._nystrom`,
:mod:`rskpca.decomposition.iterative` and :mod:`rskpca.approximation`.
"""

from __future__ import annotations

from numbers import Integral, Real

import numpy as np
from scipy import sparse
from sklearn.base import BaseEstimator, ClassNamePrefixFeaturesOutMixin, TransformerMixin
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted, validate_data

from rskpca.core.sigma_checks import check_kernel_spread
from rskpca.core.validation import check_positive
from rskpca.core.validation import (as_numeric_2d, check_distance_range, check_finite, check_not_constant,
                                     column_extremes)
from rskpca.core.bandwidth_heuristic import resolve_sigma
from rskpca.core.eigen import EIGEN_SOLVERS
from rskpca.core.radial_kernels import KERNELS, get_kernel
from rskpca.core.shadow import shadow_centers

COMMON_CONSTRAINTS = {
    "n_components": [Interval(Integral, 1, None, closed="left"), None],
    "sigma": [Interval(Real, 0, None, closed="neither"), StrOptions({"median"})],
    "kernel": [StrOptions(set(KERNELS))],
    "random_state": ["random_state"],
}
#: The solvers of the weighted m x m problem (rskpca.core.eigen.kpca_on_centers), for every estimator
#: that solves one (reduced-set KPCA, subsampled KPCA, both Nystroms).
_EIGEN = {"eigen_solver": [StrOptions(set(EIGEN_SOLVERS))]}
_M_OR_ELL = {
    "m": [Interval(Integral, 1, None, closed="left"), None],
    "ell": [Interval(Real, 0, None, closed="neither")],
}


#: Largest m x m float64 kernel matrix the estimators build (bytes): 4 GiB, m ~ 23,000.
MAX_KERNEL_BYTES = 4 * 2**30


def _check_kernel_budget(m: int) -> None:
    need = 8.0 * m * m
    if need > MAX_KERNEL_BYTES:
        raise ValueError(
            f"m={m} centers: the m x m kernel matrix would need {need / 2**30:.1f} GiB "
            f"(limit {MAX_KERNEL_BYTES / 2**30:.0f} GiB). The shadow barely reduces this data at this "
            "sigma/ell: lower ell or raise sigma for fewer centers, or fix m with rsde='kmeans'."
        )


def check_n_components(est, m: int, what: str) -> None:
    """A ``ValueError`` in the user's words (rank r, sigma, ell, m) if ``n_components > m``.

    The one rank check of the kernel PCA estimators (the spectral methods' own, ``k < m`` with
    the trivial eigenvector dropped, is :mod:`rskpca.decomposition._spectral`'s).
    """
    r = est.n_components
    if r is None or r <= m:
        return
    if what == "training points":
        size, source, fix = f"n={m}", "", "pass more rows"
    elif getattr(est, "rsde", None) == "shadow" or (getattr(est, "m", None) is None and hasattr(est, "ell")):
        size = f"m={m}"
        source = f" that the shadow gives at sigma={est.sigma_:.4g}, ell={est.ell:g}"
        fix = "get more: raise ell or lower sigma"
        if getattr(est, "rsde", None) != "shadow":  # m would be used if given
            fix += ", or give a larger m"
    else:
        size, source, fix = f"m={m}", f" (m={est.m} asked)", "raise m"
    raise ValueError(
        f"n_components={r} (the rank r) exceeds the number of {what} {size}{source}: kernel PCA "
        f"on {m} {what} has at most {m} components ({max(m - 1, 0)} informative ones when "
        f"centered). Lower n_components to at most {m}, or {fix}."
    )


class KPCAMixin(ClassNamePrefixFeaturesOutMixin, TransformerMixin, BaseEstimator):
    """Shared fit plumbing: validation, sigma, tags, output names."""

    def _validate_fit_input(self, X):
        extremes = None
        if not sparse.issparse(X):  # scikit-learn's own message for sparse input says what to do
            arr = as_numeric_2d(X, min_samples=2, purpose=" to fit kernel PCA")
            check_finite(arr)
            extremes = column_extremes(arr)  # read once for the three checks below
            check_distance_range(arr, extremes=extremes)
            check_not_constant(arr, extremes=extremes)
        # C order once here: the scans and kernel blocks after it read rows (a DataFrame gives columns)
        X = validate_data(self, X, dtype=[np.float64, np.float32], ensure_min_samples=2, order="C")
        self.sigma_ = resolve_sigma(self.sigma, X)
        if extremes is not None:
            check_kernel_spread(X, self.sigma_, power=get_kernel(self.kernel).p, extremes=extremes)
        return X

    def _validate_transform_input(self, X):
        check_is_fitted(self)
        if not sparse.issparse(X):
            arr = as_numeric_2d(X)
            check_finite(arr)
            check_distance_range(arr, spread=False)
        return validate_data(self, X, dtype=[np.float64, np.float32], reset=False)

    @property
    def _n_features_out(self):
        return self.eigenvalues_.shape[0]

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.transformer_tags.preserves_dtype = ["float64", "float32"]
        return tags


def m_from_shadow(est, X) -> int:
    """``est.m``, or the shadow's m at ``est.ell``; checked against n."""
    if est.m is None:
        m = shadow_centers(X, sigma=est.sigma_, ell=est.ell, kernel=est.kernel).m
    else:
        m = int(est.m)
    if m > X.shape[0]:
        raise ValueError(f"m={m} exceeds the number of training rows n={X.shape[0]}; use m <= n.")
    est.m_ = m
    return m


def reduced_set_input(estimator, centers, weights, sigma, center_indices):
    """The checked ``(C, w)`` of ``fit_reduced_set``; sets ``sigma_``, ``shadow_m_`` and ``center_indices_``.

    Shared by every estimator that solves its m x m problem on a reduced set computed elsewhere
    (the distributed shadow): the weights are positive and one per center, and a bandwidth is a
    number (``sigma="median"`` needs the data, which is not here).
    """
    C = validate_data(estimator, centers, dtype=np.float64, ensure_min_samples=1)
    w = np.asarray(weights, dtype=np.float64)
    if w.shape != (C.shape[0],) or not np.all(np.isfinite(w)) or not np.all(w > 0):
        raise ValueError(
            f"weights must be {C.shape[0]} positive finite numbers, one per center; got shape {w.shape}."
        )
    if sigma is None and isinstance(estimator.sigma, str):
        raise ValueError("sigma='median' needs the data: pass the bandwidth as fit_reduced_set(..., sigma=).")
    estimator.sigma_ = check_positive(estimator.sigma if sigma is None else sigma, "sigma")
    for unknown in ("labels_", "shadow_labels_", "center_indices_"):  # n labels are not known here
        estimator.__dict__.pop(unknown, None)
    if center_indices is not None:
        estimator.center_indices_ = np.asarray(center_indices)
    estimator.shadow_m_ = C.shape[0]
    return C, w
