"""Input checks shared by the functions and estimators, with messages that say what to do.

Every message names the problem and the fix. Where scikit-learn's estimator checks look
for a phrase ("Expected 2D array", "Reshape your data", "NaN", "inf", "1 sample",
"Complex data not supported", "0 feature(s) (shape=...) while a minimum of 1 is
required", "argument must be a string or a real number") the message keeps it.
"""

from __future__ import annotations

from numbers import Real

import numpy as np

__all__ = [
    "check_array_2d",
    "as_numeric_2d",
    "check_finite",
    "check_distance_range",
    "distance_overflow_limit",
    "overflowing_columns",
    "underflowing_spread",
    "MIN_SPREAD",
    "shadow_radius",
    "check_not_constant",
    "check_positive",
    "column_reduce",
    "column_extremes",
]

# Largest squared float64, with a factor 4 for ||x||^2 + ||y||^2 + 2|x.y| in a BLAS distance.
_SQRT_MAX = float(np.sqrt(np.finfo(np.float64).max))
#: Below this spread between rows, squared differences fall under float64's normal range
#: (2.2e-308) with room to spare for sums: the distances underflow to 0.
MIN_SPREAD = 1e-150


def _position(flat_index: int, shape, row_offset: int = 0) -> str:
    row, col = np.unravel_index(flat_index, shape)
    return f"row {int(row) + row_offset}, column {int(col)}"


def _short(value) -> str:
    text = repr(value.item() if isinstance(value, np.generic) else value)
    return text if len(text) <= 40 else text[:37] + "..."


def _refuse_non_numeric(arr: np.ndarray, name: str) -> np.ndarray:
    """``arr`` as float64, or an error naming the first cell that is not a number."""
    try:
        return arr.astype(np.float64)
    except (TypeError, ValueError) as exc:
        flat = arr.ravel()
        for i, value in enumerate(flat):
            try:
                float(value)
            except (TypeError, ValueError) as cell_exc:
                where, cause = _position(i, arr.shape), cell_exc
                break
        else:  # conversion failed as a whole but no single cell did: report it as is
            where, cause = "some cell", exc
        fix = ("Convert such cells to numbers, or to NaN and impute or drop them, or select "
               "numeric feature columns only.")
        if isinstance(cause, TypeError):
            # scikit-learn's check_dtype_object expects Python's own wording here.
            raise TypeError(
                f"{name} holds a value that is not a number at {where} ({cause}). {fix}"
            ) from None
        raise ValueError(
            f"{name} holds text that is not a number at {where}: {_short(flat[i])}. {fix}"
        ) from None


def as_numeric_2d(X, *, name: str = "X", min_samples: int = 1, purpose: str = "") -> np.ndarray:
    """X as a real 2-D ndarray (a numeric dtype is kept, anything else becomes float64).

    Checks, in this order, with a message naming the fix: non-numeric DataFrame
    columns, ragged rows, dimensions, complex values, text, no columns, too few rows.
    ``purpose`` completes "at least ``min_samples`` rows are needed ...".

    >>> as_numeric_2d([[1, 2], [3, 4]]).shape
    (2, 2)
    """
    if hasattr(X, "dtypes") and hasattr(X, "columns"):  # a DataFrame: name the bad columns
        from pandas.api.types import is_bool_dtype, is_numeric_dtype

        bad = [str(c) for c in X.columns if not (is_numeric_dtype(X[c]) or is_bool_dtype(X[c]))]
        if bad:
            raise ValueError(
                f"{name} has non-numeric columns {bad}; select numeric feature columns only, or "
                "convert them (pandas.to_numeric(..., errors='coerce') turns stray text into NaN "
                "to impute or drop)."
            )
    try:
        arr = np.asarray(X)
    except Exception as exc:  # ragged lists and the like
        raise ValueError(
            f"{name} could not be read as a numeric array (rows of different lengths?): {exc}"
        ) from None
    if arr.ndim != 2:
        if arr.ndim == 0:
            got = "a single value (0-D)"
            fix = "pass a table of shape (n_samples, n_features), e.g. [[value]]"
        elif arr.ndim == 1:
            got = f"a 1D array of shape {arr.shape}"
            fix = "use X.reshape(-1, 1) if it is one feature, X.reshape(1, -1) if it is one sample"
        else:
            got = f"a {arr.ndim}D array of shape {arr.shape}"
            fix = "flatten each sample, e.g. X.reshape(len(X), -1)"
        raise ValueError(
            f"Expected 2D array (n_samples, n_features) for {name}, got {got} instead. "
            f"Reshape your data: {fix}."
        )
    if arr.dtype.kind == "c":
        raise ValueError(
            f"{name} holds complex numbers: Complex data not supported (distances and kernels "
            "need real features). Pass real features, e.g. np.column_stack([X.real, X.imag]) or np.abs(X)."
        )
    if arr.dtype.kind not in "biuf":
        arr = _refuse_non_numeric(arr, name)
    if arr.shape[1] < 1:
        raise ValueError(
            f"{name} has 0 feature(s) (shape={arr.shape}) while a minimum of 1 is required. "
            "Select at least one numeric feature column."
        )
    if arr.shape[0] < min_samples:
        count = "1 sample" if arr.shape[0] == 1 else f"{arr.shape[0]} samples"
        rows = "1 row is" if min_samples == 1 else f"{min_samples} rows are"
        raise ValueError(
            f"{name} has {count} (shape={arr.shape}); at least {rows} needed"
            f"{purpose}. Pass more rows."
        )
    return arr


def check_finite(arr: np.ndarray, *, name: str = "X", row_offset: int = 0) -> None:
    """A ``ValueError`` counting NaN and inf values and pointing at the first, if any.

    ``row_offset`` is the row number of ``arr[0]`` in the whole data set (for a chunk of it).
    """
    finite = np.isfinite(arr)
    if finite.all():
        return
    n_nan = int(np.isnan(arr).sum())
    n_inf = int(finite.size - finite.sum()) - n_nan
    first = int(np.flatnonzero(~finite.ravel())[0])
    raise ValueError(
        f"{name} contains {n_nan} NaN and {n_inf} infinite (inf) value(s), the first at "
        f"{_position(first, arr.shape, row_offset)}. Every value must be finite: drop those rows "
        "(X[np.isfinite(X).all(axis=1)]) or impute them (sklearn.impute.SimpleImputer)."
    )


def column_reduce(ufunc, A: np.ndarray) -> np.ndarray:
    """``ufunc.reduce(A, axis=0)`` (add, maximum or minimum), fast on a C-contiguous ``A`` with few columns.

    numpy reduces a C-contiguous (n, d) array over its rows in n inner loops of d
    elements, each too short to pay its own start. Viewed as rows of ``g d`` elements
    (``g`` rows each), the loops are n / g; then the ``g`` partial results are reduced.
    An empty column reduces to the ufunc's identity (0 for add, -inf / inf for the extremes).

    >>> column_reduce(np.maximum, np.array([[1.0, 5.0], [3.0, 2.0]])).tolist()
    [3.0, 5.0]
    """
    n, d = A.shape
    start = {np.maximum: -np.inf, np.minimum: np.inf}.get(ufunc, 0.0)
    g = max(1, min(n, 2048 // max(d, 1)))
    if not A.flags.c_contiguous or g == 1:
        return ufunc.reduce(A, axis=0, initial=start)
    head = n - n % g
    partial = ufunc.reduce(A[:head].reshape(-1, g * d), axis=0).reshape(g, d)
    return ufunc(ufunc.reduce(partial, axis=0), ufunc.reduce(A[head:], axis=0, initial=start))


def column_extremes(A: np.ndarray):
    """``(max, min)`` of each column of a numeric 2-D ``A`` (:func:`column_reduce`).

    >>> [v.tolist() for v in column_extremes(np.array([[1.0, 5.0], [3.0, 2.0]]))]
    [[3.0, 5.0], [1.0, 2.0]]
    """
    if not np.issubdtype(A.dtype, np.floating):  # integers and booleans: no infinite start value
        return A.max(axis=0), A.min(axis=0)
    if not (A.flags.c_contiguous or A.flags.f_contiguous):
        # a slice of a wider table (X[:, :-1]): numpy reduces it row by row, in loops too short to pay
        # their start; a contiguous copy and two fast reductions take less than one such reduction
        A = np.ascontiguousarray(A)
    return column_reduce(np.maximum, A), column_reduce(np.minimum, A)


def distance_overflow_limit(n_features: int) -> float:
    """The largest absolute value for which squared distances between rows stay finite in float64.

    ``||x||^2 + ||y||^2 - 2 x.y`` sums ``n_features`` squares of values up to twice the largest:
    ``sqrt(max float64) / (2 sqrt(d))``, about 1e154 / sqrt(d).

    >>> f"{distance_overflow_limit(1):.3g}"
    '6.7e+153'
    """
    return _SQRT_MAX / (2.0 * np.sqrt(max(int(n_features), 1)))


def overflowing_columns(arr: np.ndarray, *, extremes=None) -> tuple[np.ndarray, float]:
    """``(columns, limit)``: the indices of the columns holding a value at or beyond
    :func:`distance_overflow_limit`, and that limit.

    >>> overflowing_columns(np.array([[1.0, 1e200], [2.0, 0.0]]))[0].tolist()
    [1]
    """
    # from the column extremes: no n x d temporary (|arr| would be most of this check's time)
    high, low = column_extremes(arr) if extremes is None else extremes
    limit = distance_overflow_limit(arr.shape[1])
    top = np.maximum(np.abs(high.astype(np.float64)), np.abs(low.astype(np.float64)))
    return np.flatnonzero(top >= limit), limit


def underflowing_spread(arr: np.ndarray, *, extremes=None) -> float | None:
    """The rows' largest difference in any column if it is below :data:`MIN_SPREAD` (but not 0: that
    is constant data, :func:`check_not_constant`'s case), else None. Squared distances between such
    rows underflow to 0 and every row would look like a duplicate.

    >>> underflowing_spread(np.array([[0.0], [1e-200]]))
    1e-200
    """
    if arr.shape[0] < 2 or arr.shape[1] == 0:
        return None
    high, low = column_extremes(arr) if extremes is None else extremes
    width = float(np.max(high.astype(np.float64) - low))
    return width if 0.0 < width < MIN_SPREAD else None


def check_distance_range(arr: np.ndarray, *, name: str = "X", spread: bool = True, extremes=None) -> None:
    """A ``ValueError`` if squared distances between rows would overflow (or underflow) float64.

    Kernel values come from ``||x||^2 + ||y||^2 - 2 x.y``: beyond
    :func:`distance_overflow_limit` it overflows to inf, and the failure would surface much
    later (inside an eigensolver, as "array must not contain infs or NaNs"). With ``spread``,
    rows that differ by less than :data:`MIN_SPREAD` everywhere are refused too
    (:func:`underflowing_spread`).
    """
    if arr.size == 0:
        return
    extremes = column_extremes(arr) if extremes is None else extremes
    columns, limit = overflowing_columns(arr, extremes=extremes)
    if columns.size:
        top = max(abs(float(extremes[0].max())), abs(float(extremes[1].min())))
        raise ValueError(
            f"{name} has values as large as {top:.3g}: squared distances between rows overflow "
            f"float64 above about {limit:.3g} with {arr.shape[1]} feature(s). Standardize {name} "
            "(sklearn.preprocessing.StandardScaler) or divide it by a constant."
        )
    width = underflowing_spread(arr, extremes=extremes) if spread else None
    if width is not None:
        raise ValueError(
            f"The rows of {name} differ by at most {width:.3g}: squared distances underflow "
            f"float64 (below about {MIN_SPREAD:g}) and every row would look identical. "
            f"Standardize {name} (sklearn.preprocessing.StandardScaler) or multiply it by a constant."
        )


def shadow_radius(sigma: float, ell: float) -> float:
    """The shadow's radius ``eps = sigma / ell``, or a ``ValueError`` if its square is 0 or
    overflows float64 (the shadow decides ``||c - x||^2 < eps^2``).

    >>> shadow_radius(2.0, 4.0)
    0.5
    """
    eps = sigma / ell
    if not np.isfinite(eps * eps) or eps * eps == 0.0:
        raise ValueError(
            f"eps = sigma / ell = {eps!r} has a square that is 0 or overflows in float64; "
            "choose sigma and ell so that sigma / ell lies roughly in [1e-150, 1e150]."
        )
    return eps


def check_not_constant(arr: np.ndarray, *, name: str = "X", extremes=None) -> None:
    """A ``ValueError`` if every row of ``arr`` is the same: kernel PCA has nothing to find."""
    # every column's extremes equal, for finite values (checked first), is every row equal to the first
    if arr.shape[0] > 1 and np.array_equal(*(column_extremes(arr) if extremes is None else extremes)):
        raise ValueError(
            f"{name} is constant: all {arr.shape[0]} rows are identical, so there is no variation "
            "for kernel PCA to find (every component would be 0). Check that the intended feature "
            "columns were selected."
        )


def check_array_2d(X, *, name: str = "X", dtype=np.float64, min_samples: int = 1,
                   row_offset: int = 0) -> np.ndarray:
    """A C-contiguous 2-D float array with finite values, or a clear ``ValueError``.

    The range is not checked: the shadow selection decides exactly even for data near
    the float64 limits. Code that evaluates kernels adds :func:`check_distance_range`.

    >>> check_array_2d([[1, 2], [3, 4]]).dtype
    dtype('float64')
    """
    arr = as_numeric_2d(X, name=name, min_samples=min_samples)
    check_finite(arr, name=name, row_offset=row_offset)
    return np.ascontiguousarray(arr, dtype=dtype)


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
