"""Input checks shared by the functions and estimators, with messages that say what to do."""

from __future__ import annotations

from numbers import Real

import numpy as np

__all__ = ["check_array_2d", "check_positive"]


def check_array_2d(X, *, name: str = "X", dtype=np.float64, min_samples: int = 1) -> np.ndarray:
    """A C-contiguous 2-D float array with finite values, or a clear ``ValueError``.

    >>> check_array_2d([[1, 2], [3, 4]]).dtype
    dtype('float64')
    """
    if hasattr(X, "dtypes") and hasattr(X, "columns"):  # a DataFrame: name the bad columns
        from pandas.api.types import is_bool_dtype, is_numeric_dtype

        bad = [str(c) for c in X.columns if not (is_numeric_dtype(X[c]) or is_bool_dtype(X[c]))]
        if bad:
            raise ValueError(f"{name} has non-numeric columns {bad}; select numeric feature columns only.")
    try:
        arr = np.asarray(X)
    except Exception as exc:  # ragged lists and the like
        raise ValueError(f"{name} could not be read as a numeric array: {exc}") from None
    if arr.dtype.kind not in "biuf":
        try:
            arr = arr.astype(dtype)
        except (TypeError, ValueError):
            raise ValueError(
                f"{name} must be numeric; got values of type {arr.dtype}. Select numeric columns only."
            ) from None
    if arr.ndim != 2:
        raise ValueError(
            f"{name} must be 2-D (n_samples, n_features); got an array with {arr.ndim} dimension(s). "
            "Reshape a single feature with X.reshape(-1, 1), a single sample with X.reshape(1, -1)."
        )
    if arr.shape[0] < min_samples:
        raise ValueError(f"{name} has {arr.shape[0]} row(s); at least {min_samples} needed.")
    if arr.shape[1] < 1:
        raise ValueError(f"{name} has no columns (features); at least 1 needed.")
    arr = np.ascontiguousarray(arr, dtype=dtype)
    if not np.isfinite(arr).all():
        bad = int((~np.isfinite(arr)).sum())
        raise ValueError(
            f"{name} contains {bad} NaN or infinite value(s); drop or impute them before fitting."
        )
    return arr


def check_positive(value, name: str) -> float:
    """``float(value)`` if it is a finite number > 0, else a ``ValueError`` naming it.

    >>> check_positive(2, "sigma")
    2.0
    """
    if isinstance(value, bool) or not isinstance(value, Real):
        raise ValueError(f"{name} must be a positive number; got {value!r}.")
    value = float(value)
    if not np.isfinite(value) or value <= 0:
        raise ValueError(f"{name} must be a positive finite number; got {value!r}.")
    return value
