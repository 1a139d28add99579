"""``inverse_transform`` for the kernel PCA estimators (pre-images; math in :mod:`rskpca.core.preimage`).

Mirrors scikit-learn's ``KernelPCA(fit_inverse_transform=True, alpha=...)``:
at fit time a kernel ridge map is learned from the embeddings of the training
points back to the points, with the estimator's own kernel and bandwidth on the
embeddings; ``inverse_transform`` applies it. The estimators learn it on what
they keep: RSKPCA on its m weighted centers (an m x m solve), the subsampled
baseline on its m rows, the Nystrom baselines on their m weighted landmarks,
exact KPCA on all n rows (n x n, as scikit-learn).
"""

from __future__ import annotations

from numbers import Real

import numpy as np
from sklearn.exceptions import NotFittedError
from sklearn.utils._param_validation import Interval
from sklearn.utils.validation import check_array, check_is_fitted

from rskpca.core.projection import centered_projection
from rskpca.core.preimage import expansion_coefficients, fit_preimage_ridge, fixed_point_preimage, preimage_ridge

#: Parameter constraints of the two constructor parameters every estimator with a pre-image takes.
_INVERSE_CONSTRAINTS = {
    "fit_inverse_transform": ["boolean"],
    "alpha": [Interval(Real, 0, None, closed="left")],
}
PREIMAGE_METHODS = ("ridge", "fixed-point")


class _PreimageMixin:
    """``inverse_transform`` by a learned (ridge) or fixed-point pre-image.

    Estimators call :meth:`_fit_preimage` at the end of ``fit`` with the points
    the map is learned on, their weights and their embeddings, and may define
    ``_feature_expansion() -> (points, p, dual_coef, center)`` for the
    fixed-point route.
    """

    def _fit_preimage(self, points, weights, embedding):
        """Learn the ridge map when ``fit_inverse_transform`` (sets ``X_transformed_fit_``, ``inverse_dual_coef_``)."""
        if not self.fit_inverse_transform:
            return self
        self.X_transformed_fit_ = np.asarray(embedding, dtype=np.float64)
        self.inverse_dual_coef_ = fit_preimage_ridge(self.X_transformed_fit_, points, weights, sigma=self.sigma_,
                                                     kernel=self.kernel, alpha=self.alpha)
        return self

    def _feature_expansion(self):
        """(points c_i, mean weights p, dual coefficients A, centered?) of the weighted-centers estimators."""
        w = np.asarray(self.weights_, dtype=np.float64)
        return self.centers_, w / w.sum(), self.dual_coef_, self.center

    def inverse_transform(self, X, *, method="ridge", max_iter=100, tol=1e-6):
        """Map embeddings back to input space (pre-images).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_components)
            Embeddings, e.g. the output of ``transform``.
        method : {"ridge", "fixed-point"}, default="ridge"
            "ridge": the kernel ridge map learned at fit time (needs
            ``fit_inverse_transform=True``; scikit-learn's method, Bakir et al.
            2004). "fixed-point": Mika et al. (1999) iteration for the
            Gaussian kernel, started from the ridge pre-image when one was
            learned, else from the expansion point with the largest
            coefficient.
        max_iter : int, default=100
            Fixed-point iterations at most.
        tol : float, default=1e-6
            Fixed-point stop: no point moved more than ``tol * sigma_``.

        Returns
        -------
        X_original : ndarray of shape (n_samples, n_features_in_)
        """
        check_is_fitted(self)
        if method not in PREIMAGE_METHODS:
            raise ValueError(f"method={method!r} is not a pre-image method; use one of {PREIMAGE_METHODS}.")
        Z = check_array(X, dtype=[np.float64, np.float32])
        r = self.eigenvalues_.shape[0]
        if Z.shape[1] != r:
            raise ValueError(f"inverse_transform got embeddings with {Z.shape[1]} columns but the model has "
                             f"{r} components: pass the output of transform.")
        # Read the map only when it was asked for.
        fitted = bool(self.fit_inverse_transform) and getattr(self, "inverse_dual_coef_", None) is not None
        if method == "ridge":
            if not fitted:
                raise NotFittedError("The fit_inverse_transform parameter was not set to True when fitting, so the "
                                     "learned inverse transform is not available: refit with "
                                     "fit_inverse_transform=True, or use method='fixed-point'.")
            out = preimage_ridge(Z, self.X_transformed_fit_, self.inverse_dual_coef_, sigma=self.sigma_,
                                 kernel=self.kernel)
            return out.astype(Z.dtype, copy=False)
        points, p, A, center = self._feature_expansion()
        G = expansion_coefficients(Z, A, p, center=center)
        if fitted:
            X0 = preimage_ridge(Z, self.X_transformed_fit_, self.inverse_dual_coef_, sigma=self.sigma_,
                                kernel=self.kernel)
        else:
            X0 = points[np.argmax(G, axis=1)]
        out = fixed_point_preimage(G, points, X0, sigma=self.sigma_, kernel=self.kernel, max_iter=max_iter, tol=tol)
        return out.astype(Z.dtype, copy=False)


def centers_embedding(est) -> np.ndarray:
    """Embeddings of a weighted-centers estimator's own centers (its ``transform`` on ``centers_``)."""
    return centered_projection(est.centers_, est.centers_, est.dual_coef_, sigma=est.sigma_, kernel=est.kernel,
                               offset=est.center_means_ @ est.dual_coef_)
