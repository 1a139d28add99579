"""Radial kernels in the paper's convention and blocked pairwise evaluation: the public names, in one place.

Every kernel here is written as in eq. (19) of Kingravi, Vela & Gray (2013)::

    k(x, y) = phi(||x - y||^p / sigma^p)

* Gaussian: ``phi(s) = exp(-s)``, ``p = 2``, so ``k = exp(-||x-y||^2 / sigma^2)``
  (scikit-learn's ``gamma`` is ``1 / sigma**2``).
* Laplacian: ``phi(s) = exp(-s)``, ``p = 1``, so ``k = exp(-||x-y|| / sigma)``
  (Euclidean norm; scikit-learn's ``laplacian_kernel`` uses the L1 norm instead).

Both have ``kappa = k(x, x) = 1``. Pairwise evaluation goes through BLAS as
``||x||^2 + ||y||^2 - 2 x.y`` in row blocks, so no more than ``block_size``
kernel values are held at once unless the caller asks for the whole matrix.

This module re-exports the kernel API from the modules that hold it, one concept each:

* :mod:`rskpca.core.radial_kernels` -- :class:`RadialKernel`, :data:`KERNELS`, :func:`get_kernel`;
* :mod:`rskpca.core.distances` -- :func:`squared_distances`, :func:`refine_near_pairs`;
* :mod:`rskpca.core.block_sizes` -- the ``*_BLOCK_ELEMENTS`` budgets;
* :mod:`rskpca.core.kernel_rounding` -- the fused Gaussian's error bounds and
  :data:`FUSED_MAX_RELATIVE_ERROR`;
* :mod:`rskpca.core.kernel_evaluation` -- :func:`kernel_matrix`, :func:`kernel_matvec`,
  :func:`kernel_row_means`;
* :mod:`rskpca.core.bandwidth_heuristic` -- :func:`median_heuristic`, :func:`resolve_sigma`.

Code inside the package imports from those modules; ``rskpca.core.kernels`` stays the
public home of the names for code outside it.
"""

from __future__ import annotations

from rskpca.core.bandwidth_heuristic import median_heuristic, resolve_sigma
from rskpca.core.block_sizes import CACHE_BLOCK_ELEMENTS, DEFAULT_BLOCK_ELEMENTS, PROJECTION_BLOCK_ELEMENTS
from rskpca.core.distances import refine_near_pairs, squared_distances
from rskpca.core.kernel_evaluation import kernel_matrix, kernel_matvec, kernel_row_means
from rskpca.core.kernel_rounding import FUSED_MAX_RELATIVE_ERROR, float32_relative_error, gaussian_relative_error
from rskpca.core.radial_kernels import KERNELS, RadialKernel, get_kernel

__all__ = [
    "RadialKernel",
    "KERNELS",
    "get_kernel",
    "squared_distances",
    "kernel_matrix",
    "kernel_matvec",
    "kernel_row_means",
    "median_heuristic",
    "refine_near_pairs",
    "resolve_sigma",
    "float32_relative_error",
    "gaussian_relative_error",
    "FUSED_MAX_RELATIVE_ERROR",
    "DEFAULT_BLOCK_ELEMENTS",
    "CACHE_BLOCK_ELEMENTS",
    "PROJECTION_BLOCK_ELEMENTS",
]
