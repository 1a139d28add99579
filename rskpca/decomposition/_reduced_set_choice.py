"""The reduced-set dispatch: which m weighted centers an estimator's ``rsde`` picks.

One home for the choice shared by :class:`~rskpca.decomposition.ReducedSetKPCA` and the
spectral methods (:mod:`rskpca.decomposition._spectral`): the shadow at ``eps = sigma_ / ell``,
or k-means, uniform (KDE paring) or herding centers with ``m`` (the shadow's m when ``m=None``,
so that baselines compare "at the same m" as the paper does).
"""

from __future__ import annotations

import numpy as np

from rskpca.core.rsde import herding_rsde, kmeans_rsde, uniform_rsde
from rskpca.core.shadow import shadow_centers
from rskpca.decomposition._center_budget import shadow_within_budget

__all__ = ["select_reduced_set"]


def select_reduced_set(est, X, rng):
    """``(centers, weights, shadow labels or None)`` for ``est.rsde`` (sets ``shadow_m_``, ``center_indices_``).

    ``est`` carries ``rsde``, ``m``, ``sigma_``, ``ell``, ``kernel`` and ``order``; an estimator
    with a ``max_centers`` budget gets the shadow widened to fit it
    (:func:`~rskpca.decomposition._center_budget.shadow_within_budget`) and ``eps_``. Stale
    ``shadow_m_`` / ``center_indices_`` from an earlier fit with other settings are removed.
    """
    for stale in ("shadow_m_", "center_indices_"):  # from an earlier fit with other settings
        est.__dict__.pop(stale, None)
    X64 = np.asarray(X, dtype=np.float64)
    if est.rsde == "shadow" or est.m is None:
        if not hasattr(est, "max_centers"):
            s = shadow_centers(X64, sigma=est.sigma_, ell=est.ell, kernel=est.kernel, order=est.order,
                               random_state=rng)
        else:
            s = shadow_within_budget(X64, sigma=est.sigma_, ell=est.ell, max_centers=est.max_centers,
                                     kernel=est.kernel, order=est.order, random_state=rng)
        est.shadow_m_ = s.m
        if hasattr(est, "max_centers"):
            est.eps_ = float(s.eps)
        if est.rsde == "shadow":
            est.center_indices_ = s.center_indices
            return s.centers, s.weights.astype(np.float64), s.labels
    m = est.shadow_m_ if est.m is None else est.m
    if est.rsde == "kmeans":  # means, not rows: no center_indices_
        C, w = kmeans_rsde(X64, m, random_state=rng)
    elif est.rsde == "uniform":
        C, w, est.center_indices_ = uniform_rsde(X64, m, random_state=rng, return_indices=True)
    else:
        C, w, est.center_indices_ = herding_rsde(X64, m, sigma=est.sigma_, kernel=est.kernel, random_state=rng,
                                                 return_indices=True)
    return C, w, None
