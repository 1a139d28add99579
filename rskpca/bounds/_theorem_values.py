"""Each theorem's three numbers on a prepared :class:`~rskpca.bounds._measurements.Sample`.

One function per theorem (5.1 MMD, 5.2 eigenvalues, 5.3 Hilbert-Schmidt norm, 5.4 projections) turns
the sample's residuals and exact spectra into a :class:`~rskpca.bounds._closed_form.BoundValue`: the
a-priori value (:func:`~rskpca.bounds._closed_form.apriori_bounds`), the a-posteriori value (the same
proof fed with the actual residuals, on all n rows) and the measured one, with the note that says how
each was obtained. The public functions of :mod:`rskpca.bounds._theorems` prepare the sample and call
these; that module's docstring says what the three numbers mean.
"""

from __future__ import annotations

import numpy as np

from rskpca.bounds._measurements import (
    SPECTRAL_RTOL,
    Sample,
    check_int,
    projection_distance,
    quantization_gap,
)
from rskpca.bounds._closed_form import THEOREMS, BoundValue, _min_ell_for_projection, apriori_bounds

# --------------------------------------------------------------------------- the four theorems


def _on_rows(S: Sample, value) -> dict:
    """The keyword arguments of BoundValue for an a-posteriori ``value(distances, residuals)`` on all n rows:
    its row count and, on a subsample, its value on the sampled rows alone."""
    sample = value(S.distances, S.residuals) if S.subsampled else None
    return {"n_a_posteriori": S.n_total, "sample_a_posteriori": sample}


def _mmd_posterior(d, e) -> float:
    return float(np.mean(e))


def _mmd(S: Sample) -> BoundValue:
    measured = np.sqrt(quantization_gap(S, squared=False)) / S.s
    prior = apriori_bounds(S.ell, S.sigma, S.kernel)["5.1"]
    rows = _on_rows(S, _mmd_posterior)
    return BoundValue(
        "5.1", THEOREMS["5.1"], prior, _mmd_posterior(S.all_distances, S.all_residuals), float(measured), True,
        f"a-posteriori = mean_i ||psi(x_i) - psi(c_a(i))||_H (triangle inequality); "
        f"{S.where(sample_bound=rows['sample_a_posteriori'])}.",
        S.s, prior, **rows,
    )


def _eigenvalues(S: Sample) -> BoundValue:
    lam, _, lam_bar, _ = S.spectra(1)
    # K-bar = Q K^C Q^T has the nonzero eigenvalues of W K^C W and n - m zeros.
    padded = np.sort(np.concatenate([lam_bar, np.zeros(S.s - lam_bar.size)]))[::-1]
    measured = float(np.sum((lam - padded) ** 2))
    L = S.kernel.lipschitz(S.sigma)

    def posterior_of(d, e) -> float:
        # Hoffman-Wielandt: <= ||K - K-bar||_F^2 / n^2 <= (L^2/n^2) sum_ij (d_i + d_j)^2.
        return float(L * L * (2.0 * np.mean(d * d) + 2.0 * np.mean(d) ** 2))

    prior = apriori_bounds(S.ell, S.sigma, S.kernel)["5.2"]
    paper = apriori_bounds(S.ell, S.sigma, S.kernel, paper=True)["5.2"]
    rows = _on_rows(S, posterior_of)
    note = (
        f"Uses the provable constant C = 2 L^2 = {S.kernel.c_constant(S.sigma):.4g}; the paper's "
        f"C = {S.kernel.paper_c_constant(S.sigma):.4g} gives {paper:.4g}, which is not a valid bound "
        f"in this kernel convention. a-posteriori = L^2 (2 mean d_i^2 + 2 (mean d_i)^2); "
        f"{S.where(exact=True, sample_bound=rows['sample_a_posteriori'])}."
    )
    return BoundValue("5.2", THEOREMS["5.2"], prior, posterior_of(S.all_distances, S.all_residuals), measured, True,
                      note, S.s, paper, **rows)


def _hs_measured(S: Sample) -> float:
    return float(np.sqrt(quantization_gap(S, squared=True)) / S.s)


def _hs(S: Sample) -> BoundValue:
    prior = apriori_bounds(S.ell, S.sigma, S.kernel)["5.3"]
    paper = apriori_bounds(S.ell, S.sigma, S.kernel, paper=True)["5.3"]

    def posterior_of(d, e) -> float:
        return float(2.0 * np.sqrt(S.kernel.kappa) * np.mean(e))

    rows = _on_rows(S, posterior_of)
    return BoundValue(
        "5.3", THEOREMS["5.3"], prior, posterior_of(S.all_distances, S.all_residuals), _hs_measured(S), True,
        f"a-posteriori = 2 sqrt(kappa) mean_i ||psi(x_i) - psi(c_a(i))||_H; "
        f"{S.where(sample_bound=rows['sample_a_posteriori'])}.",
        S.s, paper, **rows,
    )


def _projection(S: Sample, D: int) -> BoundValue:
    D = check_int(D, "n_components", 1)
    measured, remark = projection_distance(S, D)
    lam = S.spectra(D)[0]
    nan = float("nan")
    paper = nan

    def result(applies, prior, posterior, why):
        # a sentence of its own after ``why``'s full stop; the a-posteriori value divides by delta_D, an
        # eigengap of exact KPCA, so it is on the measured rows too
        rest = remark + S.where(exact=True, all_n_bound=False)
        return BoundValue("5.4", THEOREMS["5.4"], prior, posterior, measured, applies,
                          f"{why} {rest[:1].upper()}{rest[1:]}.", S.s, paper)

    if D > S.s:
        return result(False, nan, nan,
                      f"Does not apply: D = n_components = {D} exceeds the {S.s} rows, so lambda_D = 0.")
    tol = SPECTRAL_RTOL * lam[0]
    lam_next = lam[D] if D < lam.size else 0.0
    gap = 0.5 * (lam[D - 1] - lam_next)
    if lam[D - 1] <= tol:
        return result(False, nan, nan,
                      f"Does not apply: lambda_D = {lam[D - 1]:.3g} is 0 (K/n has rank < D = {D}); lower D "
                      "(the rank: n_components, the app's r).")
    if gap <= tol:
        return result(False, nan, nan,
                      f"Does not apply: lambda_D and lambda_(D+1) coincide (delta_D = {gap:.3g}), so the "
                      "top-D eigenspace is not unique; pick a D at a gap in the spectrum.")
    hs_prior = apriori_bounds(S.ell, S.sigma, S.kernel)["5.3"]
    hs_post = 2.0 * np.sqrt(S.kernel.kappa) * float(S.residuals.mean())
    paper = hs_prior / gap if hs_prior < gap / 2 else nan
    if hs_post >= gap / 2:
        hs = _hs_measured(S)
        exact = (f"with the measured ||K_n - K-bar_n||_HS = {hs:.3g} it holds and gives {hs / gap:.3g}"
                 if hs < gap / 2 else f"the measured ||K_n - K-bar_n||_HS = {hs:.3g} is too large as well")
        return result(False, nan, nan,
                      f"Does not apply: its condition 2 sqrt(kappa) mean e_i < delta_D / 2 does not hold "
                      f"({hs_post:.3g} against {gap / 2:.3g}; Zwald & Blanchard need the perturbation below half "
                      f"the gap; {exact}); increase ell or lower D (the rank: n_components, the app's r).")
    why = (f"delta_D = {gap:.4g}. a-posteriori = 2 sqrt(kappa) mean e_i / delta_D (Zwald & Blanchard, Thm 3, "
           f"with ||K_n - K-bar_n||_HS <= 2 sqrt(kappa) mean e_i); with the measured HS norm instead it would be "
           f"{_hs_measured(S) / gap:.4g}.")
    if hs_prior >= gap / 2:
        min_ell = _min_ell_for_projection(S.kernel, gap)
        hint = f" (it holds for ell > {min_ell:.4g})" if np.isfinite(min_ell) else ""
        why += (f" The a-priori condition 2 sqrt(2 kappa (kappa - phi(1/ell^p))) < delta_D / 2 does not hold "
                f"at ell = {S.ell:.4g} ({hs_prior:.3g} against {gap / 2:.3g}){hint}, so only the a-posteriori "
                f"bound applies.")
        return result(True, nan, hs_post / gap, why)
    return result(True, hs_prior / gap, hs_post / gap, why)
