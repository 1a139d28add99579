"""What an :class:`~rskpca.decomposition.iterative.IterativeKPCA` fit will cost, said before it runs.

The fit's time is its products with the n x n kernel matrix, applied row block by row
block (:func:`~rskpca.decomposition.kernel_operator.kernel_operator`). A product costs, per kernel
value, either its evaluation (distances and exp: O(d)) plus a multiply, or, for a block
kept in memory from an earlier product, the multiply alone. Both are measured on one block
of the data itself (:func:`measure_kernel_cost`: the machine, d and the kernel are in the
number) and scaled by n^2 (:func:`predict_iterative_cost`).

The number of products is ARPACK's (``scipy.sparse.linalg.eigsh``): a Lanczos basis of
``ncv = max(2 k + 1, 20)`` vectors costs ncv + 1 products, and each implicit restart
``ncv - k`` more; the fit adds one pass for the kernel's row means. Measured with
``IterativeKPCA(tol=1e-8)`` on the bundled samples (two moons, digits, swiss roll,
circles, breast cancer) and a 10-d mixture of 3,000 rows, at k = 2, 5, 10, 20 and sigma
at 0.3, 1 and 3 times the median heuristic: 0 to 4.5 restarts, median about 0.5 (k <= 5
mostly none; the most at k >= 10 with a small sigma, a flat spectrum).
:data:`TYPICAL_RESTARTS` = 0.5 is the prediction, :data:`MOST_RESTARTS` = 5 the upper end a
caller may quote; while the fit runs, :meth:`IterativeCost.seconds_left` corrects the
prediction with the time actually taken, and adds a restart once the expected products are done.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

import numpy as np

from rskpca.core.block_sizes import DEFAULT_BLOCK_ELEMENTS
from rskpca.core.radial_kernels import kernel_matrix

__all__ = ["TYPICAL_RESTARTS", "MOST_RESTARTS", "lanczos_ncv", "expected_products", "KernelCost",
           "measure_kernel_cost", "IterativeCost", "predict_iterative_cost"]

#: ARPACK restarts assumed by the prediction (measured: 0 to 4.5, median about 0.5; see the module).
TYPICAL_RESTARTS = 0.5
#: ...and the most that the measurements needed, rounded up: the prediction's upper end.
MOST_RESTARTS = 5


def lanczos_ncv(n: int, n_components: int) -> int:
    """Lanczos vectors ARPACK keeps (``eigsh``'s default ``ncv``): ``min(n, max(2 k + 1, 20))``.

    >>> lanczos_ncv(10_000, 5), lanczos_ncv(10_000, 20), lanczos_ncv(12, 5)
    (20, 41, 12)
    """
    return min(int(n), max(2 * int(n_components) + 1, 20))


def expected_products(n: int, n_components: int, *, restarts: float = TYPICAL_RESTARTS) -> int:
    """Products with the kernel matrix of a Lanczos fit: ``ncv + 1 + restarts (ncv - k)``, plus the means pass.

    >>> expected_products(10_000, 5), expected_products(10_000, 5, restarts=0)
    (30, 22)
    >>> expected_products(10_000, 20, restarts=5)
    148
    """
    ncv = lanczos_ncv(n, n_components)
    return math.ceil(ncv + 1 + restarts * max(ncv - int(n_components), 1)) + 1


@dataclass(frozen=True)
class KernelCost:
    """Seconds per kernel value, measured on one block (:func:`measure_kernel_cost`).

    Attributes
    ----------
    evaluate : float
        Computing one kernel value (distance and exp) into a block.
    multiply : float
        Multiplying one stored kernel value by a vector (a block's GEMV, memory-bound).
    """

    evaluate: float
    multiply: float


def measure_kernel_cost(X, *, sigma: float, kernel: str = "gaussian",
                        block_elements: int = DEFAULT_BLOCK_ELEMENTS, repeats: int = 3) -> KernelCost:
    """Time one row block of X's kernel matrix as the operator computes it, and one product with it.

    The block is the operator's own (``block_elements // n`` rows against all n rows, at most
    ``block_elements`` values), so d, the kernel and the machine's threads are in the measure;
    the best of ``repeats`` (other work on the machine only adds time). It takes about
    ``repeats`` times one block's time: tens of milliseconds at the default block.

    >>> import numpy as np
    >>> cost = measure_kernel_cost(np.random.default_rng(0).normal(size=(500, 3)), sigma=1.0)
    >>> 0 < cost.multiply and 0 < cost.evaluate < 1e-5
    True
    """
    X = np.asarray(X, dtype=np.float64)
    n = X.shape[0]
    rows = min(n, max(1, int(block_elements) // max(n, 1)))
    evaluate, multiply = np.inf, np.inf
    v = np.ones((n, 1))
    out = np.empty((rows, 1))
    for _ in range(max(1, int(repeats))):
        t0 = time.perf_counter()
        block = kernel_matrix(X[:rows], X, sigma=sigma, kernel=kernel)
        t1 = time.perf_counter()
        np.matmul(block, v, out=out)
        t2 = time.perf_counter()
        evaluate, multiply = min(evaluate, t1 - t0), min(multiply, t2 - t1)
    values = float(rows) * n
    return KernelCost(evaluate=evaluate / values, multiply=multiply / values)


@dataclass(frozen=True)
class IterativeCost:
    """A predicted :class:`~rskpca.decomposition.iterative.IterativeKPCA` fit (:func:`predict_iterative_cost`).

    Attributes
    ----------
    n, n_components : int
    products : int
        Expected products with the kernel matrix (:func:`expected_products`, typical restarts).
    most_products : int
        With :data:`MOST_RESTARTS`.
    cached_fraction : float
        Share of the kernel matrix kept between products (the rest is evaluated again each time).
    first_s, later_s : float
        Seconds of the first product (every block evaluated) and of each later one.
    memory_bytes : int
        Kernel blocks kept, one block being computed, the Lanczos basis and the result.
    restart_products : int
        Products one more restart adds (``ncv - k``).
    """

    n: int
    n_components: int
    products: int
    most_products: int
    cached_fraction: float
    first_s: float
    later_s: float
    memory_bytes: int
    restart_products: int

    def seconds_for(self, products: float) -> float:
        """Predicted seconds of the first ``products`` products (fractions count)."""
        p = max(float(products), 0.0)
        return min(p, 1.0) * self.first_s + max(p - 1.0, 0.0) * self.later_s

    @property
    def seconds(self) -> float:
        """Predicted seconds of the whole fit (:attr:`products` products)."""
        return self.seconds_for(self.products)

    @property
    def most_seconds(self) -> float:
        """...with :attr:`most_products`."""
        return self.seconds_for(self.most_products)

    def fraction_done(self, done: float) -> tuple[float, int]:
        """``(fraction, products)``: the share of the fit's predicted time that ``done`` products take, and the
        products now expected (past the expected ones, ARPACK needs at least one more restart).

        A fraction of time, not of products: the first product evaluates every kernel block and the later
        ones mostly multiply kept blocks, so a count of products would say the fit is further along than it
        is early on. It is what a progress callback ``progress(fraction, message)`` reports.

        >>> cost = IterativeCost(10_000, 5, 36, 96, 1.0, first_s=1.0, later_s=0.1, memory_bytes=0,
        ...                      restart_products=15)
        >>> cost.fraction_done(1)   # the first product is 1.0 s of the predicted 4.5 s
        (0.2222222222222222, 36)
        >>> cost.fraction_done(40)[1]  # past 36: one more restart of 15
        51
        """
        done = max(float(done), 0.0)
        total = self.products
        while total <= done:
            total += self.restart_products
        whole = self.seconds_for(total)
        return (min(self.seconds_for(done) / whole, 1.0) if whole > 0 else 0.0), total

    def seconds_left(self, done: float, elapsed: float, *, first_s: float | None = None) -> tuple[float, int]:
        """``(seconds, products)`` still expected after ``done`` products took ``elapsed`` seconds.

        The model's remaining time, scaled by how the time taken so far compares with the
        model's (a busier or faster machine than the one measured). With ``first_s``, the
        seconds the first product took (it evaluates every block, and allocates the kept
        ones), the later products' own pace is what scales the later ones. Past the expected
        products, ARPACK needs at least one more restart.

        >>> cost = IterativeCost(10_000, 5, 36, 96, 1.0, first_s=1.0, later_s=0.1, memory_bytes=0,
        ...                      restart_products=15)
        >>> cost.seconds_left(0, 0.0)
        (4.5, 36)
        >>> cost.seconds_left(11, 4.0)  # twice as slow as predicted
        (5.0, 36)
        >>> cost.seconds_left(11, 4.0, first_s=3.0)  # a slow first product; the later ones on time
        (2.5, 36)
        >>> left, total = cost.seconds_left(40, 5.0)  # past 36: one more restart of 15
        >>> round(left, 2), total
        (1.12, 51)
        """
        done = max(float(done), 0.0)
        total = self.products
        while total <= done:
            total += self.restart_products
        predicted, taken = self.seconds_for(done), float(elapsed)
        if first_s is not None and done >= 2.0:  # at least one whole later product to go by
            predicted, taken = predicted - self.first_s, taken - float(first_s)
        scale = taken / predicted if done > 0 and predicted > 0 and taken > 0 else 1.0
        return round(scale * (self.seconds_for(total) - self.seconds_for(done)), 9), total


def predict_iterative_cost(n: int, n_components: int, unit: KernelCost, *,
                           block_elements: int = DEFAULT_BLOCK_ELEMENTS, cache_bytes: int = 2**31,
                           d: int = 0) -> IterativeCost:
    """Seconds and bytes of a Lanczos ``IterativeKPCA`` fit on n rows, from the cost per kernel value.

    A product costs ``n^2 (evaluate + multiply)`` the first time and ``n^2 ((1 - f) evaluate +
    multiply)`` afterwards, f the share of kernel blocks kept (whole blocks, up to
    ``cache_bytes``); times :func:`expected_products`. The memory is those blocks, one block
    being computed, ARPACK's n x ncv basis, the n x k eigenvectors, and, with ``d``, the
    float64 copy of the data.

    >>> unit = KernelCost(evaluate=2e-9, multiply=3e-10)
    >>> cost = predict_iterative_cost(20_000, 5, unit)
    >>> cost.products, round(cost.cached_fraction, 2), round(cost.first_s, 2), round(cost.seconds)
    (30, 0.67, 0.92, 12)
    >>> big = predict_iterative_cost(40_000, 5, unit)   # twice the rows, a smaller share kept
    >>> round(big.seconds / cost.seconds, 1), round(big.memory_bytes / 2**30, 2)
    (7.9, 2.04)
    >>> bool(np.isclose(predict_iterative_cost(20_000, 5, unit, cache_bytes=0).seconds, 30 * 20_000**2 * 2.3e-9))
    True
    """
    n, k = int(n), int(n_components)
    values = float(n) * n
    rows = min(n, max(1, int(block_elements) // max(n, 1)))
    block_bytes = 8 * rows * n
    n_blocks = -(-n // rows)
    kept_blocks = min(n_blocks, int(cache_bytes) // block_bytes)
    # The last block may be short; kept blocks are counted whole, as the operator keeps them.
    kept_bytes = min(kept_blocks * block_bytes, 8 * n * n)
    f = kept_bytes / (8.0 * n * n)
    ncv = lanczos_ncv(n, k)
    memory = kept_bytes + (block_bytes if f < 1 else 0) + 8 * n * (ncv + 2 * k + 3) + 8 * n * int(d)
    return IterativeCost(n=n, n_components=k, products=expected_products(n, k),
                         most_products=expected_products(n, k, restarts=MOST_RESTARTS), cached_fraction=f,
                         first_s=values * (unit.evaluate + unit.multiply),
                         later_s=values * ((1.0 - f) * unit.evaluate + unit.multiply),
                         memory_bytes=int(memory), restart_products=max(ncv - k, 1))
