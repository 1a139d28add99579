"""Which rows exact KPCA runs on for the Embeddings page (all n, or a seeded sample), and the note that says so.

Part of :mod:`rskpca.ui.compute`: :func:`exact_rows` plans the rows before exact KPCA runs,
:func:`exact_rows_note` tells the page's reader which rows they are and why.
"""

from __future__ import annotations

import numpy as np

from rskpca.evaluation.all_rows import ExactPlan, plan_exact
from rskpca.evaluation.units import bytes_text, seconds_text

__all__ = ["EMBED_EXACT_MAX_ROWS", "exact_rows", "exact_rows_note"]

#: Exact KPCA on the Embeddings page runs on all n rows up to this many, else on a seeded sample of this
#: many (:func:`~rskpca.evaluation.all_rows.plan_exact`), decided before it runs. Its fit is the only one
#: that moves with sigma alone and grows like n^2, and a sigma change must stay live on the paper's data
#: sets (its times per size are in tests/benchmarks/RESULTS.md): time, not memory (8 n^2 bytes), limits it.
#: The same rows as the other pages' comparison sample.
EMBED_EXACT_MAX_ROWS = 2000

def exact_rows(ds) -> tuple[ExactPlan, np.ndarray, str]:
    """``(plan, X_rows, key)``: the rows exact KPCA runs on for the Embeddings page (all n, or the seeded
    sample of :data:`EMBED_EXACT_MAX_ROWS`), their features and their cache key (as
    :func:`rskpca.ui.compute.comparison_set`'s)."""
    plan = plan_exact(ds.n, EMBED_EXACT_MAX_ROWS)
    if plan.all_rows:
        return plan, ds.X, ds.digest
    return plan, ds.X[plan.rows], f"{ds.digest}:rows{plan.rows.size}"


def exact_rows_note(plan: ExactPlan, predicted_s: float | None = None) -> str:
    """Which rows exact KPCA ran on and why, in the page's words; ``predicted_s``: exact KPCA on all rows,
    the one prediction (:func:`~rskpca.ui.compute.exact_on_request.exact_all_rows_cost`).

    >>> from rskpca.evaluation.all_rows import plan_exact
    >>> exact_rows_note(plan_exact(1_000_000, 2000), 17_500.0)[:96]
    'exact KPCA on a seeded sample of 2,000 rows: on all 1,000,000 rows its kernel matrix alone would'
    >>> exact_rows_note(plan_exact(1_000_000, 2000), 17_500.0)[-60:]
    'ed 8 TB (8 n^2 bytes); matrix-free it takes about 4.86 hours'
    >>> exact_rows_note(plan_exact(500, 2000))
    'exact KPCA on all 500 rows'
    """
    if plan.all_rows:
        return f"exact KPCA on all {plan.n:,} rows"
    k = plan.rows.size
    when = ""
    if predicted_s is not None and np.isfinite(predicted_s) and predicted_s > 0:
        when = f"; matrix-free it takes about {seconds_text(predicted_s)}"
    return (f"exact KPCA on a seeded sample of {k:,} rows: on all {plan.n:,} rows its kernel matrix alone would "
            f"need {bytes_text(plan.memory_bytes)} (8 n^2 bytes){when}")
