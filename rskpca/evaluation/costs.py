"""What work costs, said before it runs: one model per quantity, the same number on every page.

Each quantity has one model here (or in the lowest layer that needs it), and every page, the CLI
and the library quote it:

* **Exact KPCA on n rows** (:func:`exact_kpca_cost`): Lanczos (ARPACK) products with the n x n
  kernel matrix applied in row blocks, kept blocks multiplied and the rest evaluated again
  (:func:`~rskpca.decomposition.iterative_cost.predict_iterative_cost`). Its unit, the seconds per
  kernel value evaluated and multiplied, is measured on one block of the data itself
  (:func:`~rskpca.decomposition.iterative_cost.measure_kernel_cost`: the machine, d and the kernel
  are in the number), once per data, sigma and kernel (the app caches it). Exact KPCA with the
  whole matrix in memory is the same products with every block kept, so one model covers the
  matrix-free run the Embeddings page offers, the note that says what exact KPCA on all rows would
  take and the Speedups page's prediction at the data's n.
* **An O(nm) method on all n rows** (:func:`all_rows_cost`): fitting one of the registry's methods
  with m points on every row and embedding every row, seconds per (row x center) per method, with
  the constants :mod:`rskpca.evaluation._measured_costs` that ``tests/benchmarks/bench_costs.py
  --write`` measures and writes.
* **Each page's first view at n rows**: :mod:`rskpca.evaluation.row_cap`, from the lines
  ``tests/benchmarks/bench_row_cap.py --write`` fits and writes.
* **Reading a file into memory**: :func:`rskpca.data.memory_estimate.memory_to_read` (the data layer
  needs it before anything else runs).

A prediction is good to a factor of about two on a shared machine; while work runs, its progress
(:class:`rskpca.core.progress.TimeLeft`) blends the prediction with the pace measured, so the time
left converges to the truth.
"""

from __future__ import annotations

from dataclasses import dataclass

from rskpca.decomposition.iterative_cost import IterativeCost, KernelCost, predict_iterative_cost
from rskpca.evaluation.methods import METHODS, check_methods

__all__ = ["KEPT_BLOCK_BYTES", "exact_kpca_cost", "lanczos_progress", "AllRowsCost", "all_rows_cost",
           "ALL_ROWS_LIVE_S", "ALL_ROWS_MAX_BYTES"]

#: Kernel blocks exact KPCA keeps between products (and the most memory an all-rows fit may hold): where
#: the n x n matrix fits, each product after the first is a multiply over stored blocks, several times
#: faster; beyond it the rest is evaluated again per product.
KEPT_BLOCK_BYTES = 2 * 1024**3
#: An all-rows fit predicted longer than this does not run on every change (the app asks first).
ALL_ROWS_LIVE_S = 0.5
#: ...nor one that would hold more than this.
ALL_ROWS_MAX_BYTES = KEPT_BLOCK_BYTES
#: A method without a measured all-rows rate is costed at the slowest rate measured among the fast
#: cost class (Nystrom's, which projects through all n rows as the unmeasured methods do).
_UNMEASURED_SECONDS_PER_NM = max(m.seconds_per_nm for m in METHODS.values()
                                 if m.seconds_per_nm is not None and m.cost == "fast")


def exact_kpca_cost(n: int, n_components: int, unit: KernelCost, *, d: int = 0,
                    cache_bytes: int = KEPT_BLOCK_BYTES) -> IterativeCost:
    """The one prediction of exact KPCA's fit on ``n`` rows at ``n_components`` (seconds and bytes).

    Parameters
    ----------
    n, n_components : int
    unit : KernelCost
        Seconds per kernel value, measured on the data
        (:func:`~rskpca.decomposition.iterative_cost.measure_kernel_cost`).
    d : int, default=0
        Features (the float64 copy of the data counts in the memory).
    cache_bytes : int, default=KEPT_BLOCK_BYTES
        Kernel blocks kept between products.

    Returns
    -------
    IterativeCost
        ``.seconds`` the prediction, ``.most_seconds`` its upper end, ``.memory_bytes``.

    Examples
    --------
    >>> unit = KernelCost(evaluate=2e-9, multiply=3e-10)
    >>> round(exact_kpca_cost(20_000, 5, unit).seconds, 1)
    12.1
    >>> exact_kpca_cost(20_000, 5, unit).seconds == exact_kpca_cost(20_000, 5, unit, d=16).seconds
    True
    """
    return predict_iterative_cost(int(n), int(n_components), unit, cache_bytes=int(cache_bytes), d=int(d))


def lanczos_progress(cost: IterativeCost, progress, label: str = ""):
    """An :class:`~rskpca.decomposition.iterative.IterativeKPCA` ``progress(products, seconds)`` callback
    that reports to the one protocol's ``progress(fraction, message)`` (:mod:`rskpca.core.progress`): the
    fraction of the predicted time the products done take (:meth:`IterativeCost.fraction_done`).

    >>> from rskpca.decomposition.iterative_cost import KernelCost
    >>> seen = []
    >>> watch = lanczos_progress(exact_kpca_cost(20_000, 5, KernelCost(2e-9, 3e-10)),
    ...                          lambda f, m: seen.append((round(f, 3), m)))
    >>> watch(1.0, 0.9)
    >>> seen
    [(0.076, '1.0 of about 30 products with the kernel matrix')]
    """
    def watch(products: float, seconds: float) -> None:
        fraction, total = cost.fraction_done(products)
        progress(fraction, f"{label}{products:.1f} of about {total} products with the kernel matrix")

    return watch


@dataclass(frozen=True)
class AllRowsCost:
    """A method's predicted cost on all n rows (:func:`all_rows_cost`)."""

    name: str
    seconds: float
    bytes: int

    @property
    def live(self) -> bool:
        """Within :data:`ALL_ROWS_LIVE_S` and :data:`ALL_ROWS_MAX_BYTES`: runs on every change."""
        return self.seconds <= ALL_ROWS_LIVE_S and self.bytes <= ALL_ROWS_MAX_BYTES


def all_rows_cost(name: str, n: int, m: int) -> AllRowsCost:
    """Predicted seconds and bytes of fitting ``name`` on n rows with m centers and embedding every row.

    Seconds per (row x center) and bytes per (row x center) are the registered method's
    (:attr:`~rskpca.evaluation.methods.Method.seconds_per_nm`, measured; a method not measured is
    costed as the slowest measured method of the fast cost class).

    >>> c = all_rows_cost("nystrom", 1_000_000, 1000)
    >>> c.bytes // 10**9, c.live
    (16, False)
    >>> all_rows_cost("rskpca", 10_000, 300).live
    True
    """
    nm = float(n) * float(max(m, 1))
    method = METHODS[check_methods([name])[0]]
    per = _UNMEASURED_SECONDS_PER_NM if method.seconds_per_nm is None else method.seconds_per_nm
    return AllRowsCost(name, per * nm, int(method.all_rows_bytes_per_nm * nm))
