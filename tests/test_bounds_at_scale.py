"""Theorems 5.1-5.3's a-posteriori values on all n rows, whatever rows the measured values use."""

import math

import numpy as np
import pytest

from rskpca import shadow_centers
from rskpca.bounds import bounds_table, rows_statement, theorem_bounds


def _literal_posteriors(X, shadow, sigma, p):
    """The three a-posteriori values from their formulas, row by row in plain Python (no NumPy reductions)."""
    d, e = [], []
    for x, label in zip(X.tolist(), shadow.labels.tolist()):
        c = shadow.centers[label].tolist()
        di = math.sqrt(math.fsum((a - b) ** 2 for a, b in zip(x, c)))
        d.append(di)
        e.append(math.sqrt(2.0 * (1.0 - math.exp(-((di / sigma) ** p)))))  # ||psi(x) - psi(c)||_H, kappa = 1
    n = len(d)
    # The Lipschitz constant in the distance of exp(-(r/sigma)^p): sqrt(2/e)/sigma (Gaussian), 1/sigma (Laplacian).
    L = math.sqrt(2.0 / math.e) / sigma if p == 2 else 1.0 / sigma
    mean_d, mean_d2, mean_e = math.fsum(d) / n, math.fsum(v * v for v in d) / n, math.fsum(e) / n
    return {"5.1": mean_e,
            # (L^2 / n^2) sum_ij (d_i + d_j)^2, expanded: L^2 (2 mean d^2 + 2 (mean d)^2)
            "5.2": L * L * (2.0 * mean_d2 + 2.0 * mean_d**2),
            "5.3": 2.0 * mean_e}, d, e


@pytest.mark.parametrize("kernel, p", [("gaussian", 2), ("laplacian", 1)])
def test_the_a_posteriori_bounds_on_all_n_equal_a_literal_computation(kernel, p):
    rng = np.random.default_rng(11)
    n, sigma = 12_000, 2.0
    X = np.concatenate([rng.normal(c, 1.0, size=(n // 3, 10)) for c in (-3.0, 0.0, 3.0)])
    s = shadow_centers(X, sigma=sigma, ell=3.0, kernel=kernel)
    res = theorem_bounds(X, s, n_components=3, max_exact=300, random_state=0)
    literal, _, _ = _literal_posteriors(X, s, sigma, p)
    rows = np.sort(np.random.RandomState(0).choice(n, size=300, replace=False))
    sample, _, _ = _literal_posteriors(X[rows], _Sub(s, rows), sigma, p)
    for th in ("5.1", "5.2", "5.3"):
        b = res[th]
        assert b.a_posteriori == pytest.approx(literal[th], rel=1e-12), th
        assert b.n_a_posteriori == n and b.n_measured == 300
        # ... and beside it, the same formula on the 300 measured rows, which the measured value is below.
        assert b.sample_a_posteriori == pytest.approx(sample[th], rel=1e-12), th
        assert b.measured <= b.sample_a_posteriori + 1e-12 and b.a_posteriori <= b.a_priori
        assert f"the a-posteriori bound on all n = {n:,} rows" in b.note
    # Theorem 5.4 divides by the eigengap of exact KPCA: its a-posteriori value stays on the measured rows.
    assert res["5.4"].n_a_posteriori == 300 and res["5.4"].sample_a_posteriori is None
    statements = [rows_statement({**row, "n_total": n}) for row in bounds_table(res)]
    assert statements[1] == "measured against exact KPCA on a seeded sample of 300 rows; the bound on all 12,000 rows"
    assert statements[3].startswith("measured and bound against exact KPCA on a seeded sample of 300 of 12,000 rows")


class _Sub:
    """The rows ``rows`` of a shadow's assignment (centers and labels), for the literal computation."""

    def __init__(self, shadow, rows):
        self.centers, self.labels = shadow.centers, shadow.labels[rows]


def test_all_rows_measured_gives_one_a_posteriori_value():
    X = np.random.default_rng(3).normal(size=(400, 3))
    res = theorem_bounds(X, shadow_centers(X, sigma=1.5, ell=4.0), n_components=2, max_exact=400)
    for b in res.values():
        assert b.n_a_posteriori == b.n_measured == 400 and b.sample_a_posteriori is None
        assert "easured and a-posteriori on all n = 400 rows" in b.note
    assert rows_statement(res["5.1"]) == "measured and bound on all 400 rows"
