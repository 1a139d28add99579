"""rskpca.bounds' curves over ell: the closed-form grid and rows, and the measured curves' row cap."""

import numpy as np
import pytest

from rskpca.bounds import (APRIORI_ELL_STEP, MEASURED_OVER_ELL_MAX_ROWS, apriori_bounds, apriori_ell_grid,
                           apriori_rows, measured_over_ell_rows)


def test_the_grid_steps_evenly_and_keeps_both_ends():
    g = apriori_ell_grid(1.0, 10.0)
    assert g[0] == 1.0 and g[-1] == 10.0 and g.size == 37
    np.testing.assert_allclose(np.diff(g), APRIORI_ELL_STEP)
    assert apriori_ell_grid(1.0, 1.6, 0.25).tolist() == [1.0, 1.25, 1.5]  # high not on the grid: not passed
    assert apriori_ell_grid(2.0, 2.0).tolist() == [2.0]
    with pytest.raises(ValueError):
        apriori_ell_grid(3.0, 2.0)


@pytest.mark.parametrize("kernel", ["gaussian", "laplacian"])
def test_the_rows_are_the_closed_form_bounds_theorem_by_theorem(kernel):
    ells = apriori_ell_grid(1.0, 3.0)
    rows = apriori_rows(ells, 0.5, kernel)
    values = apriori_bounds(ells, 0.5, kernel)
    assert len(rows) == 3 * ells.size
    for th in ("5.1", "5.2", "5.3"):
        mine = [r for r in rows if r["theorem"] == th]
        assert [r["ell"] for r in mine] == ells.tolist()
        np.testing.assert_allclose([r["a_priori"] for r in mine], values[th])
        assert all(r["a_posteriori"] is None and r["measured"] is None for r in mine)


def test_the_measured_curves_use_at_most_the_cap():
    assert measured_over_ell_rows(4000) == MEASURED_OVER_ELL_MAX_ROWS
    assert measured_over_ell_rows(250) == 250
    assert measured_over_ell_rows(MEASURED_OVER_ELL_MAX_ROWS) == MEASURED_OVER_ELL_MAX_ROWS
