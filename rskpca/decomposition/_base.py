"""Shared plumbing of the kernel PCA estimators: parameter constraints, sigma, checks, tags.

Private to the package; the estimators live in :mod:`rskpca.decomposition._reduced_set`,
:mod:`rskpca.decomposition._nystrom` and the modules of the other speed-ups.
"""

from __future__ import annotations

from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator, ClassNamePrefixFeaturesOutMixin, TransformerMixin
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted, validate_data

from rskpca.core._validation import check_positive
from rskpca.core.kernels import KERNELS, median_heuristic
from rskpca.core.shadow import shadow_centers

_COMMON_CONSTRAINTS = {
    "n_components": [Interval(Integral, 1, None, closed="left"), None],
    "sigma": [Interval(Real, 0, None, closed="neither"), StrOptions({"median"})],
    "kernel": [StrOptions(set(KERNELS))],
    "random_state": ["random_state"],
}
_EIGEN = {"eigen_solver": [StrOptions({"auto", "dense", "arpack"})]}
_M_OR_ELL = {
    "m": [Interval(Integral, 1, None, closed="left"), None],
    "ell": [Interval(Real, 0, None, closed="neither")],
}


def _resolve_sigma(sigma, X, random_state) -> float:
    """The bandwidth actually used: the number given, or the median heuristic."""
    if isinstance(sigma, str):
        seed = check_random_state(random_state).randint(2**31 - 1)
        return median_heuristic(X, random_state=seed)
    return check_positive(sigma, "sigma")


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


def _check_n_components(n_components, m: int, what: str) -> None:
    if n_components is not None and n_components > m:
        raise ValueError(
            f"n_components={n_components} exceeds the number of {what} m={m}: a kernel PCA on m "
            "points has at most m components (m - 1 informative ones when centered). Lower "
            "n_components, or get more centers (raise ell, lower sigma, or give a larger m)."
        )


class _KPCAMixin(ClassNamePrefixFeaturesOutMixin, TransformerMixin, BaseEstimator):
    """Shared fit plumbing: validation, sigma, tags, output names."""

    def _validate_fit_input(self, X):
        X = validate_data(self, X, dtype=[np.float64, np.float32], ensure_min_samples=2)
        self.sigma_ = _resolve_sigma(self.sigma, X, self.random_state)
        return X

    def _validate_transform_input(self, X):
        check_is_fitted(self)
        return validate_data(self, X, dtype=[np.float64, np.float32], reset=False)

    @property
    def _n_features_out(self):
        return self.eigenvalues_.shape[0]

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.transformer_tags.preserves_dtype = ["float64", "float32"]
        return tags


def _m_from_shadow(est, X) -> int:
    """``est.m``, or the shadow's m at ``est.ell``; checked against n."""
    if est.m is None:
        m = shadow_centers(X, sigma=est.sigma_, ell=est.ell, kernel=est.kernel).m
    else:
        m = int(est.m)
    if m > X.shape[0]:
        raise ValueError(f"m={m} exceeds the number of training rows n={X.shape[0]}; use m <= n.")
    est.m_ = m
    return m
