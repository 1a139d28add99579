"""``ReducedSetKPCA`` on a dask array: what :mod:`rskpca.decomposition._array_backends` hands over.

The estimator knows nothing of Dask. Its ``fit`` and ``transform`` give a dask
array to the functions here, which run the exact distributed shadow and return
the estimator fitted through its public :meth:`ReducedSetKPCA.fit_reduced_set`
(the same m x m solve as the in-memory fit), or map its in-memory transform
over row blocks.
"""

from __future__ import annotations

import numpy as np
from sklearn.utils.validation import check_is_fitted

from rskpca.core.bandwidth_heuristic import resolve_sigma
from rskpca.distributed._blocks import as_row_chunked_array
from rskpca.distributed._shadow import distributed_shadow

__all__ = ["fit", "transform"]


def fit(estimator, X):
    """Fit ``estimator`` (a ``ReducedSetKPCA``) on a dask ``X``; rows stay on the workers.

    ``sigma="median"`` reads only the sample of rows the in-memory fit would
    use (same rows, same value).
    """
    if estimator.rsde != "shadow":
        raise ValueError(
            f"rsde={estimator.rsde!r} needs all rows in memory; on a dask array use rsde='shadow' "
            "(distributed), or compute X into a NumPy array first."
        )
    if estimator.order != "input":
        raise ValueError(
            "order='random' is not supported on a dask array (it would shuffle rows across the "
            "cluster); shuffle the chunks beforehand if needed and use order='input'."
        )
    X = as_row_chunked_array(X, min_samples=2)
    sigma = resolve_sigma(estimator.sigma, X)
    if not np.isfinite(sigma):
        raise ValueError(
            "X contains NaN or infinite value(s) in the rows sampled for sigma='median'; drop or "
            "impute them before fitting."
        )
    r = distributed_shadow(X, sigma=sigma, ell=estimator.ell, kernel=estimator.kernel)
    return estimator.fit_reduced_set(r.centers, r.weights, sigma=sigma, center_indices=r.center_indices)


def transform(estimator, X):
    """Lazy projection of a dask ``X``: the estimator's in-memory transform mapped over row blocks."""
    check_is_fitted(estimator)
    X = as_row_chunked_array(X)
    if X.shape[1] != estimator.n_features_in_:
        raise ValueError(
            f"X has {X.shape[1]} features, but {type(estimator).__name__} was fitted with "
            f"{estimator.n_features_in_}; pass the same columns as in fit."
        )
    dtype = X.dtype if X.dtype in (np.float32, np.float64) else np.dtype(np.float64)
    n_out = estimator.eigenvalues_.shape[0]
    return X.map_blocks(estimator.transform, dtype=dtype, chunks=(X.chunks[0], (n_out,)))
