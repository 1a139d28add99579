"""How many values one block of a blocked pass holds: the memory and cache budgets shared package-wide.

Kernel blocks, the shadow's BLAS screens and neighbour tables, the distributed screens,
projections and the Gram samplers all work through row blocks; these constants size
them, and :func:`_row_block` turns a budget into rows. Kept apart from the kernels so
that code which only needs a budget does not import kernel evaluation.
"""

from __future__ import annotations

__all__ = ["DEFAULT_BLOCK_ELEMENTS", "CACHE_BLOCK_ELEMENTS", "PROJECTION_BLOCK_ELEMENTS"]

#: Values computed per block where memory is the limit (32 MiB of float64): kernel
#: blocks, the shadow's BLAS screens, the distributed screens.
DEFAULT_BLOCK_ELEMENTS = 4_000_000
#: Values per block where cache is the limit (2 MiB of float64): elementwise passes over
#: a whole matrix run several times faster block by block once it exceeds the caches.
CACHE_BLOCK_ELEMENTS = 262_144
#: Block for projections (n_new x m, few components), and :func:`kernel_matvec`'s default:
#: 4 MiB of float32 stays in the outer caches between the GEMM, the exp and the product, and
#: a small projection still splits into several blocks for the threads to share (the
#: projection rows of ``python tests/benchmarks/bench_speed.py --pendigits PATH`` time it).
PROJECTION_BLOCK_ELEMENTS = 1_000_000


def _row_block(n_cols: int, block_elements: int) -> int:
    return max(1, int(block_elements // max(n_cols, 1)))
