"""Shadow center selection: Algorithm 2 of Kingravi, Vela & Gray, "Reduced-Set Kernel Principal
Components Analysis for Improving the Training and Execution Speed of Kernel Machines" (SDM 2013).

**The rule.** Points are visited in order. A point becomes a center iff no existing center lies
strictly within ``eps = sigma / ell`` of it; every other point joins the *earliest-created* center
within ``eps``. This is Algorithm 2 read one point at a time: the algorithm's "first remaining
element" is the first point not yet absorbed, and a point is absorbed by the first center that
covers it. The weight of a center is the number of points it absorbed (itself included).

**The predicate.** Every decision is ``sum((x - c) ** 2) < eps ** 2`` in float64, summed over the
feature axis in numpy's order (:func:`exact_squared_distances`), so results are reproducible to the
bit and equal the literal algorithm's even on exact and near ties: the fast paths only find
candidate pairs, and any pair they cannot settle beyond rounding is decided by the predicate.

**The paths** (``algorithm=``; all give the same result). ``"auto"`` runs the compiled in-order
loop (numba; candidates from a grid over the data's leading principal axes) up to
:data:`COMPILED_MAX_DIM` features and the GEMM screen (blocks of rows against the centers so far,
one matrix product per block) above it, because the loop's pruning weakens as the data spread over
more axes while the GEMM's efficiency grows with d (``python tests/benchmarks/bench_speed.py
--pendigits PATH``); the screen also takes data near the float64 range, which the loop cannot
project. Where shadows are needed at many radii, :class:`EarlierDistances` computes the distances
to earlier rows once and :func:`shadow_centers_from_table` reads each shadow off them;
:class:`StreamingShadow` takes the rows batch by batch. Both give the scan's result to the bit.

:func:`earliest_center_within` (each row's earliest center among given ones, by either path) is
the step that makes the distributed shadow exact.

Modules: ``_select`` (the entry points' checks and choice of path), ``_result``
(:class:`ShadowResult`), ``_predicate``, ``_compiled`` and ``_compiled_kernels`` (the compiled
loop), ``_screen`` (the GEMM screen), ``_in_order`` (points no older center covers, decided
among themselves in visiting order: the step the screen and the table share),
``_earlier_distances`` (the table) and ``_streaming``.

Examples
--------
>>> import numpy as np
>>> from rskpca.core.shadow import shadow_centers
>>> X = np.array([[0.0], [0.5], [1.0], [3.0]])
>>> s = shadow_centers(X, sigma=1.0, ell=1.0)  # eps = 1: 1.0 lies exactly eps from 0.0, outside
>>> s.center_indices.tolist(), s.labels.tolist(), s.weights.tolist()
([0, 2, 3], [0, 0, 1, 2], [2, 1, 1])
"""

from rskpca.core.shadow._compiled import load_compiled_kernels
from rskpca.core.shadow._earlier_distances import EarlierDistances
from rskpca.core.shadow._earlier_distances import pays_off as table_pays_off
from rskpca.core.shadow._predicate import exact_squared_distances
from rskpca.core.shadow._result import ShadowResult
from rskpca.core.shadow._screen import SCREEN_REL_MARGIN
from rskpca.core.shadow._select import (
    COMPILED_MAX_DIM, SHADOW_ALGORITHMS, earliest_center_within, shadow_centers, shadow_centers_from_table,
)
from rskpca.core.shadow._streaming import StreamingShadow

__all__ = ["ShadowResult", "shadow_centers", "shadow_centers_from_table", "EarlierDistances", "table_pays_off",
           "exact_squared_distances", "earliest_center_within", "SHADOW_ALGORITHMS", "COMPILED_MAX_DIM",
           "SCREEN_REL_MARGIN", "StreamingShadow", "load_compiled_kernels"]
