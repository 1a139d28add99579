"""Theorems 5.1-5.4: measured values against dense oracles, and measured <= a-posteriori <= a-priori."""


import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st
from hypothesis.extra.numpy import arrays
from scipy.linalg import eigh, eigvalsh

from rskpca import median_heuristic, shadow_centers
from rskpca.bounds import (
    THEOREMS,
    BoundValue,
    apriori_bounds,
    bounds_table,
    eigengap,
    eigenvalue_bound,
    hs_bound,
    mmd_bound,
    projection_bound,
    theorem_bounds,
)
from rskpca.core.radial_kernels import get_kernel, kernel_matrix

# The measured MMD, HS and projection distances are square roots of differences
# of O(1) sums (e.g. MMD^2 = (1'K1 - 2 1'K_XC w + w'K_CC w) / n^2), so rounding
# enters in the squared domain, at ~1e-16 per term. The chain is therefore
# checked there: measured^2 <= bound^2 + TOL_SQ. On the non-squared values this
# is an absolute slack of TOL_SQ / (2 * bound), i.e. < 1e-10 whenever bound > 5e-3.
TOL_SQ = 1e-12


def exact_kernel(A, B, *, sigma, kernel):
    """k(a, b) from explicit differences (no BLAS shortcut), for small oracle problems."""
    r = np.sqrt(((A[:, None, :] - B[None, :, :]) ** 2).sum(axis=2))
    return np.exp(-((r / sigma) ** get_kernel(kernel).p))


def dense_oracle(X, Cbar, *, sigma, kernel, D):
    """Every measured quantity from the explicit n x n matrices K, K-bar (C-bar = each x_i's center)."""
    n = X.shape[0]
    K = exact_kernel(X, X, sigma=sigma, kernel=kernel)
    Kb = exact_kernel(Cbar, Cbar, sigma=sigma, kernel=kernel)
    Kxb = exact_kernel(X, Cbar, sigma=sigma, kernel=kernel)
    mmd2 = (K.sum() - 2 * Kxb.sum() + Kb.sum()) / n**2
    hs2 = ((K**2).sum() - 2 * (Kxb**2).sum() + (Kb**2).sum()) / n**2
    lam = np.sort(eigvalsh(K / n))[::-1]
    lam_b = np.sort(eigvalsh(Kb / n))[::-1]
    mu, A = eigh(K)
    mu_b, B = eigh(Kb)
    mu, A, mu_b, B = mu[::-1][:D], A[:, ::-1][:, :D], mu_b[::-1][:D], B[:, ::-1][:, :D]
    # <u_k, u-bar_l>_H with u_k = sum_i A_ik psi(x_i) / sqrt(mu_k), u-bar_l likewise on C-bar.
    M = A.T @ Kxb @ B / np.sqrt(np.outer(mu, mu_b))
    return {
        "5.1": np.sqrt(max(mmd2, 0.0)),
        "5.2": float(np.sum((lam - lam_b) ** 2)),
        "5.3": np.sqrt(max(hs2, 0.0)),
        "5.4": np.sqrt(max(2 * D - 2 * np.sum(M**2), 0.0)),
        "frobenius2": float(np.sum((K - Kb) ** 2)) / n**2,
        "lam": lam,
    }


def _datasets():
    rng = np.random.default_rng(0)
    blobs = np.concatenate([rng.normal(c, 0.2, size=(40, 2)) for c in (0.0, 3.0)])
    rng.shuffle(blobs)
    return {
        "gauss3d": rng.normal(size=(90, 3)),
        "blobs": blobs,
        "duplicates": np.repeat(rng.normal(size=(15, 2)), 4, axis=0),
        "line": np.linspace(0, 5, 60)[:, None],
    }


@pytest.mark.parametrize("kernel", ["gaussian", "laplacian"])
@pytest.mark.parametrize("name", list(_datasets()))
def test_measured_values_equal_dense_oracle(name, kernel):
    X = _datasets()[name]
    sigma, ell, D = 1.5, 3.0, 2
    s = shadow_centers(X, sigma=sigma, ell=ell, kernel=kernel)
    res = theorem_bounds(X, s, n_components=D)
    ref = dense_oracle(X, s.centers[s.labels], sigma=sigma, kernel=kernel, D=D)
    for key in ("5.1", "5.2", "5.3"):
        assert res[key].measured == pytest.approx(ref[key], abs=1e-10), key
    if res["5.4"].applies:  # the oracle's eigenspaces are unique exactly when it applies
        assert res["5.4"].measured == pytest.approx(ref["5.4"], abs=1e-7)
    # Hoffman-Wielandt, the first step of the 5.2 proof, on the explicit matrices.
    assert res["5.2"].measured <= ref["frobenius2"] + 1e-12
    assert ref["frobenius2"] <= res["5.2"].a_posteriori + 1e-12
    assert all(b.n_measured == X.shape[0] for b in res.values())


def test_projection_measured_equals_oracle_when_it_applies():
    X = np.random.default_rng(4).normal(size=(70, 2))
    s = shadow_centers(X, sigma=3.0, ell=12.0)
    b = projection_bound(X, s, n_components=1)
    assert b.applies and 0 < b.measured <= b.a_posteriori
    ref = dense_oracle(X, s.centers[s.labels], sigma=3.0, kernel="gaussian", D=1)
    assert b.measured == pytest.approx(ref["5.4"], rel=1e-6)


def _fields(b: BoundValue):
    """The fields with NaN made comparable (NaN != NaN)."""
    return {k: ("nan" if isinstance(v, float) and np.isnan(v) else v) for k, v in b.as_dict().items()}


def test_single_functions_match_theorem_bounds():
    X = _datasets()["blobs"]
    s = shadow_centers(X, sigma=1.0, ell=5.0)
    res = theorem_bounds(X, s, n_components=2)
    assert _fields(res["5.1"]) == _fields(mmd_bound(X, s))
    assert _fields(res["5.2"]) == _fields(eigenvalue_bound(X, s))
    assert _fields(res["5.3"]) == _fields(hs_bound(X, s))
    assert _fields(res["5.4"]) == _fields(projection_bound(X, s, n_components=2))
    assert {k: b.quantity for k, b in res.items()} == THEOREMS


def test_subsample_path_above_max_exact():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(500, 2))
    s = shadow_centers(X, sigma=1.0, ell=4.0)
    res = theorem_bounds(X, s, n_components=2, max_exact=120, random_state=3)
    rows = np.sort(np.random.RandomState(3).choice(500, size=120, replace=False))
    ref = dense_oracle(X[rows], s.centers[s.labels[rows]], sigma=1.0, kernel="gaussian", D=2)
    e = np.sqrt(2 * (1 - np.exp(-s.distances_to_centers(X)[rows] ** 2)))
    for key, b in res.items():
        assert b.n_measured == 120
        assert "subsample of 120 of n = 500" in b.note
    # Thm 5.4's note gives where its numbers come from as a sentence of its own (it began in lowercase)
    assert ". Measured and a-posteriori on a seeded uniform subsample" in res["5.4"].note, res["5.4"].note
    for key in ("5.1", "5.2", "5.3"):
        assert res[key].measured == pytest.approx(ref[key], abs=1e-10)
        _assert_chain(res[key])
    # The a-posteriori values of 5.1-5.3 use all n rows (each row's distance to its center, O(n)); the
    # measured rows' own a-posteriori values are given beside them.
    e_all = np.sqrt(2 * (1 - np.exp(-s.distances_to_centers(X) ** 2)))
    assert res["5.1"].a_posteriori == pytest.approx(e_all.mean(), rel=1e-12)
    assert res["5.3"].a_posteriori == pytest.approx(2 * e_all.mean(), rel=1e-12)
    assert res["5.1"].sample_a_posteriori == pytest.approx(e.mean(), rel=1e-12)
    assert res["5.3"].sample_a_posteriori == pytest.approx(2 * e.mean(), rel=1e-12)
    assert [res[k].n_a_posteriori for k in sorted(res)] == [500, 500, 500, 120]
    assert res["5.4"].sample_a_posteriori is None  # 5.4's a-posteriori is on the measured rows already
    for key in ("5.1", "5.2", "5.3"):
        assert "the a-posteriori bound on all n = 500 rows" in res[key].note, res[key].note
    assert "measured against exact KPCA on a seeded" in res["5.2"].note
    # Same seed, same subsample; another seed, another one.
    again = theorem_bounds(X, s, n_components=2, max_exact=120, random_state=3)
    assert _fields(again["5.1"]) == _fields(res["5.1"])
    assert mmd_bound(X, s, max_exact=120, random_state=4).measured != res["5.1"].measured
    assert eigengap(X, sigma=1.0, n_components=2, max_exact=120, random_state=3) == pytest.approx(
        (ref["lam"][1] - ref["lam"][2]) / 2, abs=1e-12)


@pytest.mark.parametrize("kernel", ["gaussian", "laplacian"])
def test_bounds_vanish_as_ell_grows(kernel):
    X = np.random.default_rng(2).normal(size=(60, 2))
    previous = None
    for ell in (2.0, 20.0, 200.0, 2e4):
        res = theorem_bounds(X, shadow_centers(X, sigma=1.0, ell=ell, kernel=kernel), n_components=1)
        priors = np.array([res[k].a_priori for k in ("5.1", "5.2", "5.3")])
        if previous is not None:
            assert np.all(priors < previous)
        previous = priors
    assert np.all(previous < 0.03)  # Gaussian ~ 1/ell, Laplacian ~ sqrt(2/ell)
    # By ell = 2e4 every point is its own center: nothing is quantized.
    assert all(res[k].measured == pytest.approx(0.0, abs=1e-6) for k in res)
    assert all(res[k].a_posteriori == 0.0 for k in res)
    assert res["5.4"].applies
    big = apriori_bounds(np.array([1e6, 1e8]), 1.0, kernel)
    assert np.all(big["5.1"] < 1e-2) and np.all(big["5.2"] < 1e-11) and np.all(big["5.3"] < 1e-2)
    assert big["5.1"][1] < big["5.1"][0]


@pytest.mark.parametrize("kernel, lipschitz2, paper_c", [("gaussian", 2 / np.e, 0.5), ("laplacian", 1.0, 1.0)])
def test_apriori_closed_forms(kernel, lipschitz2, paper_c):
    ell = np.array([0.5, 1.0, 4.0, 30.0, 1e3])
    p = get_kernel(kernel).p
    sigma = 2.5
    b = apriori_bounds(ell, sigma, kernel)
    mmd = np.sqrt(-2 * np.expm1(-((1 / ell) ** p)))  # 1 - exp(-s) without cancellation
    np.testing.assert_allclose(b["5.1"], mmd, rtol=1e-13)
    np.testing.assert_allclose(b["5.3"], 2 * mmd, rtol=1e-13)
    # 2 C eps^2 with C = 2 L^2, L = lipschitz_factor / sigma: sigma cancels.
    np.testing.assert_allclose(b["5.2"], 4 * lipschitz2 / ell**2, rtol=1e-13)
    paper = apriori_bounds(ell, sigma, kernel, paper=True)
    np.testing.assert_allclose(paper["5.2"], 2 * paper_c / ell**2, rtol=1e-13)
    assert np.all(paper["5.2"] < b["5.2"])
    assert np.all(np.isnan(b["5.4"]))
    gap = 0.2
    with_gap = apriori_bounds(ell, sigma, kernel, delta_D=gap)["5.4"]
    holds = 2 * mmd < gap / 2
    np.testing.assert_allclose(with_gap[holds], 2 * mmd[holds] / gap, rtol=1e-13)
    assert np.all(np.isnan(with_gap[~holds])) and holds.any() and (~holds).any()
    assert isinstance(apriori_bounds(3.0, sigma, kernel)["5.1"], float)


def test_paper_theorem_5_2_is_violated_but_the_provable_bound_holds():
    # Two clusters sigma/sqrt(2) apart (where the Gaussian is steepest), each a
    # center plus satellites just inside eps on the far side: every cross pair
    # stretches by ~2 eps. The eigenvalue deviation then exceeds the paper's
    # 2 C eps^2 with C = 1/(2 sigma^2), but not 2 C eps^2 with C = 2 L^2.
    sigma, ell, k = 1.0, 10.0, 20
    eps, r0 = sigma / ell, sigma / np.sqrt(2)
    X = np.r_[0.0, np.full(k, -eps * (1 - 1e-6)), r0, np.full(k, r0 + eps * (1 - 1e-6))][:, None]
    X = X[np.r_[0, k + 1, 1:k + 1, k + 2:2 * k + 2]]  # both centers first
    s = shadow_centers(X, sigma=sigma, ell=ell)
    assert s.m == 2
    b = eigenvalue_bound(X, s)
    assert b.measured > 1.2 * b.paper_a_priori
    _assert_chain(b)
    assert "not a valid bound" in b.note


def test_theorem_5_4_reports_why_it_does_not_apply():
    rng = np.random.default_rng(5)
    X = rng.normal(size=(40, 2))
    small_ell = projection_bound(X, shadow_centers(X, sigma=1.0, ell=1.5), n_components=2)
    assert not small_ell.applies and np.isnan(small_ell.a_priori) and np.isnan(small_ell.a_posteriori)
    assert "condition" in small_ell.note and np.isfinite(small_ell.measured)

    too_many = projection_bound(X[:3], shadow_centers(X[:3], sigma=1.0, ell=2.0), n_components=5)
    assert not too_many.applies and "exceeds the 3 rows" in too_many.note

    # Two far-apart points: K/n = I/2 has a double eigenvalue, so P^1 is not unique.
    two = np.array([[0.0, 0.0], [50.0, 0.0]])
    tied = projection_bound(two, shadow_centers(two, sigma=1.0, ell=2.0), n_components=1)
    assert not tied.applies and "coincide" in tied.note and np.isnan(tied.measured)

    # Constant data: K/n has rank 1, so lambda_2 = 0.
    flat = np.ones((10, 3))
    rank1 = projection_bound(flat, shadow_centers(flat, sigma=1.0, ell=2.0), n_components=2)
    assert not rank1.applies and "rank" in rank1.note


def test_theorem_5_4_a_priori_condition_can_fail_while_a_posteriori_holds():
    X = np.random.default_rng(0).normal(size=(100, 2))
    b = projection_bound(X, shadow_centers(X, sigma=2.0, ell=30.0), n_components=2)
    assert b.applies and np.isnan(b.a_priori) and b.measured <= b.a_posteriori
    assert "only the a-posteriori bound applies" in b.note
    min_ell = float(b.note.split("it holds for ell > ")[1].split(")")[0])
    gap = eigengap(X, sigma=2.0, n_components=2)
    assert np.isnan(apriori_bounds(0.99 * min_ell, 2.0, delta_D=gap)["5.4"])
    assert np.isfinite(apriori_bounds(1.01 * min_ell, 2.0, delta_D=gap)["5.4"])


def test_m_smaller_than_D_compares_the_available_eigenspace():
    X = np.r_[np.zeros((10, 2)), np.full((10, 2), 0.05)]
    s = shadow_centers(X, sigma=1.0, ell=2.0)  # eps = 0.5: one center
    assert s.m == 1
    b = projection_bound(X, s, n_components=2)
    assert not b.applies and "Does not apply" in b.note
    assert "K-bar_n has 1 positive" in b.note
    K = kernel_matrix(X, sigma=1.0)
    mu, A = eigh(K)
    u2 = A[:, ::-1][:, :2] / np.sqrt(mu[::-1][:2])
    # P-bar projects onto psi(c): ||P - P-bar||^2 = 2 + 1 - 2 sum_k <u_k, psi(c)>^2 (||psi(c)|| = 1).
    overlap = u2.T @ kernel_matrix(X, s.centers, sigma=1.0)[:, 0]
    assert b.measured == pytest.approx(np.sqrt(3 - 2 * np.sum(overlap**2)), abs=1e-7)


def test_other_sigma_uses_the_effective_ell():
    X = np.random.default_rng(6).normal(size=(50, 2))
    s = shadow_centers(X, sigma=1.0, ell=4.0)  # eps = 0.25
    b = mmd_bound(X, s, sigma=2.0)  # the same radius is ell = 8 for sigma = 2
    assert b.a_priori == pytest.approx(apriori_bounds(8.0, 2.0)["5.1"])
    _assert_chain(b)
    assert mmd_bound(X, s, kernel="laplacian").a_priori == pytest.approx(apriori_bounds(4.0, 1.0, "laplacian")["5.1"])


def test_bounds_table_rows():
    X = np.random.default_rng(7).normal(size=(40, 2))
    rows = bounds_table(theorem_bounds(X, shadow_centers(X, sigma=1.0, ell=3.0), n_components=2))
    assert [r["theorem"] for r in rows] == ["5.1", "5.2", "5.3", "5.4"]
    assert set(rows[0]) == {"theorem", "quantity", "a_priori", "a_posteriori", "measured", "applies", "note",
                            "n_measured", "paper_a_priori", "n_a_posteriori", "sample_a_posteriori"}
    # All 40 rows measured: the a-posteriori values are on the same rows, with nothing beside them.
    assert all(r["n_a_posteriori"] == r["n_measured"] == 40 and r["sample_a_posteriori"] is None for r in rows)
    assert all(type(r["measured"]) is float and type(r["applies"]) is bool for r in rows)
    with pytest.raises(ValueError, match="BoundValue"):
        bounds_table({"5.1": 0.3})


def test_a_shadow_from_a_reloaded_rskpca_is_accepted_by_its_fields():
    # Streamlit reloads the package when its files change; a shadow cached before is of the old class
    import importlib.util

    import rskpca.core.shadow._result

    spec = importlib.util.spec_from_file_location("reloaded_shadow_result", rskpca.core.shadow._result.__file__)
    reloaded = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(reloaded)
    X = np.random.default_rng(8).normal(size=(30, 2))
    s = shadow_centers(X, sigma=1.0, ell=3.0)
    old = reloaded.shadow_result(X, s.center_indices, s.labels, s.sigma, s.ell, s.kernel, s.algorithm)
    assert type(old).__name__ == "ShadowResult" and not isinstance(old, type(s))
    assert mmd_bound(X, old) == mmd_bound(X, s)


def test_bad_input_gets_clear_errors():
    X = np.random.default_rng(8).normal(size=(30, 2))
    s = shadow_centers(X, sigma=1.0, ell=3.0)
    with pytest.raises(ValueError, match="ShadowResult"):
        mmd_bound(X, {"centers": X})
    with pytest.raises(ValueError, match="shape"):
        mmd_bound(X[:20], s)
    with pytest.raises(ValueError, match="not computed on this X"):
        mmd_bound(X + 10.0, s)
    with pytest.raises(ValueError, match="n_components"):
        projection_bound(X, s, n_components=0)
    with pytest.raises(ValueError, match="max_exact"):
        hs_bound(X, s, max_exact=True)
    with pytest.raises(ValueError, match="sigma"):
        mmd_bound(X, s, sigma=-1.0)
    with pytest.raises(ValueError, match="Unknown kernel"):
        mmd_bound(X, s, kernel="foo")
    with pytest.raises(ValueError, match="NaN"):
        mmd_bound(np.where(X > 1, np.nan, X), s)
    with pytest.raises(ValueError, match="ell"):
        apriori_bounds(0.0)
    with pytest.raises(ValueError, match="delta_D"):
        apriori_bounds(2.0, delta_D=-1.0)


# --------------------------------------------------------------------------- property tests


def _assert_chain(b: BoundValue, rounding_sq: float = 0.0):
    """measured <= a-posteriori <= a-priori, compared in the squared domain (see TOL_SQ).

    On a subsample the measured value is held to the a-posteriori value on the same rows
    (``sample_a_posteriori``); the one on all n rows is held to the a-priori value.
    ``rounding_sq``: the squared measured value's own floating-point error where it is larger (5.4).
    """
    assert np.isfinite(b.measured), b
    same_rows = b.a_posteriori if b.sample_a_posteriori is None else b.sample_a_posteriori
    for posterior in {same_rows, b.a_posteriori}:
        if np.isfinite(b.a_priori):
            assert posterior <= b.a_priori * (1 + 1e-12) + 1e-15, b
    if b.theorem == "5.2":  # already a sum of squares: compare directly
        assert b.measured <= same_rows + 1e-12, b
        return
    assert b.measured**2 <= same_rows**2 + TOL_SQ + rounding_sq, b


@st.composite
def random_data(draw):
    n, d = draw(st.integers(2, 40)), draw(st.integers(1, 4))
    X = draw(arrays(np.float64, (n, d), elements=st.floats(-4, 4, allow_nan=False, width=32)))
    if draw(st.booleans()):  # duplicated rows
        X = np.repeat(X, draw(st.integers(1, 3)), axis=0)[: max(n, 2)]
    return X


@st.composite
def clustered_data(draw):
    d = draw(st.integers(1, 4))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    k = draw(st.integers(1, 4))
    spread = draw(st.sampled_from([1e-6, 0.05, 0.3, 1.0]))
    centers = rng.uniform(-3, 3, size=(k, d))
    return centers[rng.integers(0, k, size=draw(st.integers(2, 40)))] + spread * rng.normal(size=(1, d))


@st.composite
def ring_near_eps(draw):
    """Centers first, then satellites at distance eps * (1 - tiny): d_i ~ eps, the worst case."""
    d = draw(st.integers(1, 4))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    sigma, ell = draw(st.floats(0.3, 3.0)), draw(st.floats(1.0, 12.0))
    eps = sigma / ell
    k = draw(st.integers(1, 3))
    centers = np.cumsum(np.full((k, d), 3.0 * eps), axis=0) + rng.normal(size=(1, d))
    dirs = rng.normal(size=(draw(st.integers(1, 30)), d))
    dirs /= np.linalg.norm(dirs, axis=1, keepdims=True)
    shrink = 1 - draw(st.sampled_from([1e-12, 1e-6, 1e-3, 0.1]))
    sats = centers[rng.integers(0, k, size=dirs.shape[0])] + eps * shrink * dirs
    return np.r_[centers, sats], sigma, ell, k, shrink


def _check_all(X, sigma, ell, kernel, D):
    s = shadow_centers(X, sigma=sigma, ell=ell, kernel=kernel)
    res = theorem_bounds(X, s, n_components=D)
    for key in ("5.1", "5.2", "5.3"):
        assert res[key].applies
        _assert_chain(res[key])
    if res["5.4"].applies:
        _assert_chain(res["5.4"], rounding_sq=_projector_rounding_sq(X, s, D))
    else:
        assert np.isnan(res["5.4"].a_posteriori) and res["5.4"].note.startswith("Does not apply")
    return res


def _projector_rounding_sq(X, s, D):
    """Floating-point error of a measured ``||P^D(K_n) - P^D(K-bar_n)||_HS^2``.

    It is measured as ``r + r_bar - 2 ||M||_F^2``, M the overlaps of the eigenbases scaled by
    ``1 / sqrt(lambda_k)``: each of its D^2 terms carries ~u lambda_1 / lambda_D relative error,
    and at P = P-bar the difference cancels to that error. Found by hypothesis: three distinct
    values, D = 3, an exact quantization (bound 0), lambda_3 / lambda_1 = 1.9e-4: measured
    1.4e-6, i.e. 2e-12 in the squared domain.
    """
    lam = np.sort(np.linalg.eigvalsh(kernel_matrix(X, sigma=s.sigma, kernel=s.kernel) / X.shape[0]))[::-1]
    lam_d = lam[min(D, lam.size) - 1]
    return 16 * D * D * np.finfo(float).eps * lam[0] / max(lam_d, np.finfo(float).tiny)


_settings = settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])


@settings(_settings, max_examples=150)
@given(X=random_data(), sigma=st.floats(0.2, 5.0), ell=st.floats(0.5, 30.0),
       kernel=st.sampled_from(["gaussian", "laplacian"]), D=st.integers(1, 4))
def test_chain_on_random_data(X, sigma, ell, kernel, D):
    _check_all(X, sigma, ell, kernel, D)


@settings(_settings, max_examples=100)
@given(X=clustered_data(), sigma=st.floats(0.2, 5.0), ell=st.floats(0.5, 50.0),
       kernel=st.sampled_from(["gaussian", "laplacian"]), D=st.integers(1, 3))
def test_chain_on_clustered_data(X, sigma, ell, kernel, D):
    _check_all(X, sigma, ell, kernel, D)


@settings(_settings, max_examples=100)
@given(data=ring_near_eps(), kernel=st.sampled_from(["gaussian", "laplacian"]), D=st.integers(1, 3))
def test_chain_with_residuals_at_the_shadow_radius(data, kernel, D):
    X, sigma, ell, k, shrink = data
    res = _check_all(X, sigma, ell, kernel, D)
    # The construction is what it claims: k centers, every satellite at eps * shrink from its
    # center, so the a-posteriori MMD bound is that residual times the satellites' share.
    n_sat = X.shape[0] - k
    p = get_kernel(kernel).p
    e_sat = np.sqrt(2 * -np.expm1(-((shrink / ell) ** p)))
    assert shadow_centers(X, sigma=sigma, ell=ell).m == k
    assert res["5.1"].a_posteriori == pytest.approx(n_sat / X.shape[0] * e_sat, rel=1e-6)


@st.composite
def separated_clusters(draw):
    """Far-apart tight clusters of distinct sizes (so K/n has a clear gap at D = #clusters),
    quantized at about the cluster radius: Theorem 5.4 applies with nonzero residuals."""
    d = draw(st.integers(1, 4))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    k = draw(st.integers(1, 3))
    sizes = rng.permutation(np.arange(1, k + 1) * draw(st.integers(3, 8)))
    radius = draw(st.floats(1e-3, 0.05))
    offsets = np.zeros((k, d))
    offsets[:, 0] = 10.0 * np.arange(k)
    X = np.concatenate([c + radius * rng.uniform(-1, 1, size=(m, d)) for c, m in zip(offsets, sizes)])
    ell = 1.0 / (radius * draw(st.floats(0.3, 3.0)))  # eps = sigma / ell ~ the cluster radius
    return X[rng.permutation(X.shape[0])], 1.0, ell, k


@settings(_settings, max_examples=100)
@given(data=separated_clusters(), kernel=st.sampled_from(["gaussian", "laplacian"]), below=st.integers(0, 2))
def test_chain_where_theorem_5_4_applies(data, kernel, below):
    X, sigma, ell, k = data
    _check_all(X, sigma, ell, kernel, max(1, k - below))


from conftest import PAPER_DATASETS as DATASETS  # noqa: E402


@pytest.mark.parametrize("name", ["german.csv", "pendigits.csv", "usps.csv.gz"])
def test_chain_on_the_papers_datasets(name):
    path = DATASETS / name
    if not path.exists():
        pytest.skip(f"{path} not available")
    X = pd.read_csv(path, nrows=1500).drop(columns="label").to_numpy(dtype=float)
    X = (X - X.mean(axis=0)) / np.where(X.std(axis=0) > 0, X.std(axis=0), 1.0)
    sigma = median_heuristic(X)
    for ell in (2.0, 8.0):
        res = theorem_bounds(X, shadow_centers(X, sigma=sigma, ell=ell), n_components=5, max_exact=300)
        for key in ("5.1", "5.2", "5.3"):
            _assert_chain(res[key])
            assert res[key].n_measured == 300 and "subsample of 300" in res[key].note
        if res["5.4"].applies:
            _assert_chain(res["5.4"])


def test_the_samples_own_terms_are_remembered_across_ell_and_give_the_same_values():
    # The rows measured do not depend on ell, so their kernel sum and spectrum are reused at a new ell;
    # the values must be those of a computation from scratch.
    from rskpca.bounds import _measurements

    X = np.random.default_rng(5).normal(size=(300, 3))
    ells = (3.0, 4.5)
    _measurements._sample_terms.clear()
    remembered = {ell: theorem_bounds(X, shadow_centers(X, sigma=1.5, ell=ell), n_components=3, max_exact=200)
                  for ell in ells}
    assert len(_measurements._sample_terms) == 3  # two kernel sums (plain, squared) and one spectrum
    for ell in ells:
        _measurements._sample_terms.clear()
        fresh = theorem_bounds(X, shadow_centers(X, sigma=1.5, ell=ell), n_components=3, max_exact=200)
        for th in fresh:  # bit for bit (NaN where Theorem 5.4's gap condition fails)
            np.testing.assert_equal(remembered[ell][th].measured, fresh[th].measured, err_msg=f"{ell} {th}")
            np.testing.assert_equal(remembered[ell][th].a_posteriori, fresh[th].a_posteriori, err_msg=f"{ell} {th}")
