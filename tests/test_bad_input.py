"""Every bad input to every estimator gets one clear message naming the problem and the fix.

Not scikit-learn's generic ones: no HistGradientBoosting advice for NaN, no 1-D array
printed whole, no "could not convert string to float", no complex array dumped, and data
near 1e200 refused up front instead of failing inside an eigensolver.
"""

import contextlib

import numpy as np
import pytest

from rskpca import (
    DensityWeightedNystromKPCA,
    IterativeKPCA,
    KernelPCA,
    NystromKPCA,
    RandomFourierKPCA,
    ReducedSetConstructionKPCA,
    ReducedSetKPCA,
    SampledGramKPCA,
    SubsampledKPCA,
    shadow_centers,
)

# Each estimator with parameters that fit 40 rows quickly.
ESTIMATORS = {
    "ReducedSetKPCA": lambda **kw: ReducedSetKPCA(**{"n_components": 2, "sigma": 2.0, **kw}),
    "KernelPCA": lambda **kw: KernelPCA(**{"n_components": 2, "sigma": 2.0, **kw}),
    "SubsampledKPCA": lambda **kw: SubsampledKPCA(**{"n_components": 2, "sigma": 2.0, "m": 10, **kw}),
    "NystromKPCA": lambda **kw: NystromKPCA(**{"n_components": 2, "sigma": 2.0, "m": 10, **kw}),
    "DensityWeightedNystromKPCA": lambda **kw: DensityWeightedNystromKPCA(
        **{"n_components": 2, "sigma": 2.0, "m": 10, **kw}),
    "IterativeKPCA": lambda **kw: IterativeKPCA(**{"n_components": 2, "sigma": 2.0, **kw}),
    "SampledGramKPCA": lambda **kw: SampledGramKPCA(**{"n_components": 2, "sigma": 2.0, "p": 0.5, **kw}),
    "RandomFourierKPCA": lambda **kw: RandomFourierKPCA(**{"n_components": 2, "sigma": 2.0, "m": 20, **kw}),
    "ReducedSetConstructionKPCA": lambda **kw: ReducedSetConstructionKPCA(
        **{"n_components": 2, "sigma": 2.0, "m": 5, **kw}),
}
NAMES = list(ESTIMATORS)


def _data(n=40, d=3):
    return np.random.default_rng(0).normal(size=(n, d))


def _with(value, row=3, col=1):
    X = _data().astype(object) if isinstance(value, str) else _data()
    X[row, col] = value
    return X


# (bad X, regex the message must match, phrases it must not contain)
FIT_CASES = {
    "nan": (lambda: _with(np.nan), r"X contains 1 NaN and 0 infinite \(inf\) value\(s\), the first at row 3, "
            r"column 1\. .*drop those rows .*or impute them", ["HistGradientBoosting"]),
    "inf": (lambda: _with(np.inf), r"X contains 0 NaN and 1 infinite \(inf\) value\(s\).*impute", []),
    "1-D": (lambda: _data()[:, 0], r"Expected 2D array .*got a 1D array of shape \(40,\) instead\. "
            r"Reshape your data: use X\.reshape\(-1, 1\)", ["array=["]),
    "3-D": (lambda: _data().reshape(40, 3, 1), r"Expected 2D array .*got a 3D array of shape \(40, 3, 1\)", []),
    "text": (lambda: _with("abc", row=2, col=0), r"X holds text that is not a number at row 2, column 0: "
             r"'abc'\. Convert such cells", ["could not convert"]),
    "complex": (lambda: _data() + 1j, r"X holds complex numbers: Complex data not supported.*X\.real", ["j)"]),
    "near 1e200": (lambda: _data() * 1e200, r"X has values as large as .*e\+200: squared distances between "
                   r"rows overflow float64.*Standardize X", ["infs or NaNs"]),
    "spread 1e-200": (lambda: _data() * 1e-200, r"The rows of X differ by at most .*e-200: squared distances "
                      r"underflow.*Standardize X", []),
    "one row": (lambda: _data(1), r"X has 1 sample \(shape=\(1, 3\)\); at least 2 rows are needed to fit "
                r"kernel PCA\. Pass more rows", []),
    "constant": (lambda: np.full((40, 3), 2.5), r"X is constant: all 40 rows are identical.*Check that the "
                 r"intended feature columns were selected", []),
    "no columns": (lambda: np.empty((40, 0)), r"X has 0 feature\(s\) \(shape=\(40, 0\)\) while a minimum of 1 "
                   r"is required\. Select at least one", []),
    "ragged": (lambda: [[1.0, 2.0], [3.0]], r"X could not be read as a numeric array \(rows of different "
               r"lengths\?\)", []),
}


@pytest.mark.parametrize("case", list(FIT_CASES))
@pytest.mark.parametrize("name", NAMES)
def test_fit_refuses_bad_input_with_a_clear_message(name, case):
    make_X, pattern, absent = FIT_CASES[case]
    with pytest.raises(ValueError, match=pattern) as info:
        ESTIMATORS[name](random_state=0).fit(make_X())
    message = str(info.value)
    assert len(message) < 400, message  # never the data printed whole
    for phrase in absent:
        assert phrase not in message


@pytest.mark.parametrize("name", NAMES)
def test_a_sigma_that_makes_every_kernel_value_one_is_refused_by_name(name):
    # sigma = 1e9 on two moons made every kernel value exactly 1: exact KPCA failed inside ARPACK
    # ("Starting vector is zero"), the others returned noise (a tryout)
    X = np.random.default_rng(0).normal(size=(40, 3))
    with pytest.raises(ValueError, match=r"sigma = 1e\+09 is .* times the extent of X .* every kernel value is 1"):
        ESTIMATORS[name](random_state=0, sigma=1e9).fit(X)
    try:  # large, but the kernel still varies: not refused for it (RSKPCA's shadow keeps 1 center: its own message)
        ESTIMATORS[name](random_state=0, sigma=1e3).fit(X)
    except ValueError as exc:
        assert "extent" not in str(exc) and "centers m=1" in str(exc), exc


def test_dataframe_text_column_is_named():
    pd = pytest.importorskip("pandas")
    df = pd.DataFrame({"a": [1.0, 2.0, 3.0], "b": ["1", "2", "abc"]})
    for name in NAMES:
        with pytest.raises(ValueError, match=r"X has non-numeric columns \['b'\].*pandas\.to_numeric"):
            ESTIMATORS[name](random_state=0).fit(df)


_FITTED = {}


def _fitted(name):
    if name not in _FITTED:
        _FITTED[name] = ESTIMATORS[name](random_state=0).fit(_data())
    return _FITTED[name]


TRANSFORM_CASES = {
    "nan": (lambda: _with(np.nan)[:5], r"X contains 1 NaN and 0 infinite"),
    "1-D": (lambda: _data()[0], r"Expected 2D array .*got a 1D array of shape \(3,\).*Reshape your data"),
    "text": (lambda: _with("abc")[:5], r"X holds text that is not a number at row 3, column 1: 'abc'"),
    "complex": (lambda: _data(5) + 1j, r"Complex data not supported"),
    "near 1e200": (lambda: _data(5) * 1e200, r"squared distances between rows overflow float64"),
    "wrong width": (lambda: _data(5, 4), r"X has 4 features, but \w+ is expecting 3 features as input"),
}


@pytest.mark.parametrize("case", list(TRANSFORM_CASES))
@pytest.mark.parametrize("name", NAMES)
def test_transform_refuses_bad_input_with_a_clear_message(name, case):
    make_X, pattern = TRANSFORM_CASES[case]
    with pytest.raises(ValueError, match=pattern) as info:
        _fitted(name).transform(make_X())
    assert len(str(info.value)) < 400


# n_components > m: the rank r in words, what set m, and the fix.
RANK_CASES = {
    "ReducedSetKPCA": (dict(sigma=20.0, ell=1.0), r"exceeds the number of centers m=\d+ that the shadow gives "
                       r"at sigma=20, ell=1: .*Lower n_components to at most \d+, or get more: raise ell or "
                       r"lower sigma\.$"),
    "KernelPCA": ({}, r"exceeds the number of training points n=40: .*Lower n_components to at most 40, or "
                  r"pass more rows\."),
    "SubsampledKPCA": ({}, r"exceeds the number of centers m=10 \(m=10 asked\).*at most 10, or raise m\."),
    "NystromKPCA": ({}, r"exceeds the number of landmarks m=10 \(m=10 asked\).*at most 10, or raise m\."),
    "DensityWeightedNystromKPCA": (dict(m=None, sigma=20.0, ell=1.0), r"exceeds the number of landmarks m=\d+ "
                                   r"that the shadow gives at sigma=20, ell=1.*raise ell or lower sigma, or "
                                   r"give a larger m\."),
    "IterativeKPCA": ({}, r"exceeds the number of training points n=40.*pass more rows"),
    "SampledGramKPCA": ({}, r"exceeds the number of training points n=40.*pass more rows"),
    "RandomFourierKPCA": ({}, r"exceeds the number of random features m=20 \(m=20 asked\).*or raise m\."),
    "ReducedSetConstructionKPCA": ({}, r"exceeds the number of training points n=40.*pass more rows"),
}


@pytest.mark.parametrize("name", NAMES)
def test_more_components_than_points_is_said_in_words(name):
    kwargs, pattern = RANK_CASES[name]
    r = 41 if name in ("KernelPCA", "IterativeKPCA", "SampledGramKPCA", "ReducedSetConstructionKPCA") else 21
    with pytest.raises(ValueError, match=rf"^n_components={r} \(the rank r\) " + pattern):
        ESTIMATORS[name](random_state=0, n_components=r, **kwargs).fit(_data())


def test_every_estimator_exposes_m():
    X = _data()
    for name in NAMES:
        est = ESTIMATORS[name](random_state=0).fit(X)
        assert isinstance(est.m_, int) and 1 <= est.m_, name
    assert ESTIMATORS["KernelPCA"]().fit(X).m_ == 40
    assert ESTIMATORS["SubsampledKPCA"]().fit(X).m_ == 10
    rs = ReducedSetKPCA(n_components=2, sigma=2.0).fit(X)
    assert rs.m_ == rs.centers_.shape[0] == rs.shadow_m_


@pytest.mark.parametrize("rsde", ["shadow", "uniform", "herding"])
def test_center_indices_point_at_the_rows_used(rsde):
    X = _data()
    est = ReducedSetKPCA(n_components=2, sigma=2.0, rsde=rsde, m=8, random_state=0).fit(X)
    np.testing.assert_array_equal(est.centers_, X[est.center_indices_])


def test_kmeans_has_no_center_indices_even_after_a_shadow_fit():
    est = ReducedSetKPCA(n_components=2, sigma=2.0, random_state=0).fit(_data())
    assert hasattr(est, "center_indices_")
    est.set_params(rsde="kmeans", m=8).fit(_data())
    assert not hasattr(est, "center_indices_") and not hasattr(est, "labels_")


def test_shadow_centers_accepts_the_median_heuristic_like_the_estimators():
    X = _data(300, 2)
    s = shadow_centers(X, sigma="median", ell=4.0, random_state=3)
    est = ReducedSetKPCA(sigma="median", ell=4.0, random_state=3).fit(X)
    assert s.sigma == est.sigma_ and s.m == est.m_
    np.testing.assert_array_equal(s.center_indices, est.center_indices_)


def test_shadow_centers_refuses_complex_input_instead_of_dropping_the_imaginary_part():
    with pytest.raises(ValueError, match="Complex data not supported"):
        shadow_centers(_data() + 1j, sigma=1.0, ell=4.0)


def test_shadow_centers_refuses_an_unknown_sigma_word():
    with pytest.raises(ValueError, match=r'sigma must be a positive number or "median"'):
        shadow_centers(_data(), sigma="mean", ell=4.0)


@pytest.mark.parametrize("layout", ["C", "F", "column slice", "row slice"])
@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int64, bool])
def test_constant_and_range_checks_read_any_layout_as_numpy_does(layout, dtype):
    # The checks read column extremes (with a contiguous copy of a strided slice): the same
    # verdicts as the plain definitions, on every layout and numeric dtype an estimator accepts.
    from rskpca.core.validation import check_distance_range, check_not_constant, column_extremes

    rng = np.random.default_rng(0)
    huge = np.vstack([np.zeros((300, 7)), np.full((1, 7), 1e200)])
    for base in (rng.integers(0, 3, size=(301, 7)), np.full((301, 7), 1)) + ((huge,) if dtype == np.float64 else ()):
        A = base.astype(dtype)
        A = {"C": A, "F": np.asfortranarray(A), "column slice": A[:, 1:-1], "row slice": A[::2]}[layout]
        high, low = column_extremes(A)
        np.testing.assert_array_equal(high, A.max(axis=0))
        np.testing.assert_array_equal(low, A.min(axis=0))
        constant = bool(np.all(A == A[0]))
        with pytest.raises(ValueError, match="is constant") if constant else contextlib.nullcontext():
            check_not_constant(A)
        overflows = float(np.max(np.abs(A.astype(float)))) > 1e150
        with pytest.raises(ValueError, match="overflow") if overflows else contextlib.nullcontext():
            check_distance_range(A)


def test_constant_check_counts_minus_zero_as_zero():
    from rskpca.core.validation import check_not_constant

    with pytest.raises(ValueError, match="is constant"):
        check_not_constant(np.array([[0.0, 1.0], [-0.0, 1.0]]))
