"""The radial kernels themselves, in the paper's convention: what a kernel is, and which ones there are.

Every kernel here is written as in eq. (19) of Kingravi, Vela & Gray (2013)::

    k(x, y) = phi(||x - y||^p / sigma^p)

* Gaussian: ``phi(s) = exp(-s)``, ``p = 2``, so ``k = exp(-||x-y||^2 / sigma^2)``
  (scikit-learn's ``gamma`` is ``1 / sigma**2``).
* Laplacian: ``phi(s) = exp(-s)``, ``p = 1``, so ``k = exp(-||x-y|| / sigma)``
  (Euclidean norm; scikit-learn's ``laplacian_kernel`` uses the L1 norm instead).

Both have ``kappa = k(x, x) = 1``. :class:`RadialKernel` holds a kernel's profile and the
constants the bounds need; :data:`KERNELS` names the two; :func:`get_kernel` looks one up.
Evaluating them over many pairs is :mod:`rskpca.core.kernel_evaluation`'s job.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

__all__ = ["RadialKernel", "KERNELS", "get_kernel"]


@dataclass(frozen=True)
class RadialKernel:
    """A radial kernel ``k(x, y) = phi(||x - y||^p / sigma^p)``.

    Parameters
    ----------
    name : str
        ``"gaussian"`` or ``"laplacian"``.
    p : int
        Power of the distance inside ``phi``.
    phi : callable
        Profile, applied elementwise to ``||x - y||^p / sigma^p``.
    kappa : float
        ``sup_x k(x, x)``; 1 for both kernels here.
    lipschitz_factor : float
        ``L * sigma`` where ``L = sup_r |d k / d r|`` is the Lipschitz constant of
        the kernel as a function of the distance ``r``. Gaussian: ``sqrt(2/e)``
        (reached at ``r = sigma / sqrt(2)``); Laplacian: 1 (at ``r = 0``).
    paper_c_factor : float
        The constant of eq. (18) as printed in the paper, times ``sigma**2``
        (1/2 for the Gaussian, 1 for the Laplacian), kept for comparison.
    """

    name: str
    p: int
    phi: Callable[[np.ndarray], np.ndarray]
    kappa: float
    lipschitz_factor: float
    paper_c_factor: float

    def profile(self, scaled: np.ndarray | float) -> np.ndarray:
        """``phi`` applied to ``||x - y||^p / sigma^p``."""
        return self.phi(np.asarray(scaled, dtype=float))

    def from_squared_distances(self, d2: np.ndarray, sigma: float, out=None) -> np.ndarray:
        """Kernel values from squared distances, in place when ``out is d2``."""
        if out is None:
            out = np.empty_like(d2)
        if self.p == 2:
            np.multiply(d2, -1.0 / sigma**2, out=out)
        else:
            np.sqrt(d2, out=out)
            np.multiply(out, -1.0 / sigma, out=out)
        np.exp(out, out=out)
        return out

    def value_at_distance(self, r, sigma: float) -> np.ndarray:
        """``k`` as a function of the distance ``r = ||x - y||``."""
        r = np.asarray(r, dtype=float)
        return self.phi(r**self.p / sigma**self.p)

    def lipschitz(self, sigma: float) -> float:
        """``L`` with ``|k(a, b) - k(c, d)| <= L | ||a-b|| - ||c-d|| |``."""
        return self.lipschitz_factor / sigma

    def c_constant(self, sigma: float) -> float:
        """A constant C that provably satisfies eq. (18) in this convention.

        ``(k(a,b) - k(c,d))^2 <= C (||a-c||^2 + ||b-d||^2)`` holds with
        ``C = 2 L^2``: the map ``(a, b) -> k(a, b)`` on R^{2d} has gradient norm
        ``sqrt(2) |dk/dr|`` (the gradients in ``a`` and ``b`` are opposite), so it
        is ``sqrt(2) L``-Lipschitz, and the constant is attained near
        ``r = sigma/sqrt(2)`` (Gaussian) or ``r = 0`` (Laplacian): no smaller C works.
        Gaussian: ``4 / (e sigma^2)``; Laplacian: ``2 / sigma^2``.
        """
        return 2.0 * self.lipschitz(sigma) ** 2

    def paper_c_constant(self, sigma: float) -> float:
        """The paper's printed constant: ``1/(2 sigma^2)`` Gaussian, ``1/sigma^2`` Laplacian.

        Too small in this convention (a counterexample is in the tests), so the
        bounds use :meth:`c_constant` and only show this one beside it.
        """
        return self.paper_c_factor / sigma**2

    def phi_at_shadow_radius(self, ell: float) -> float:
        """``phi(1 / ell^p)``: the smallest kernel value inside a shadow of radius sigma/ell."""
        return float(self.phi(np.asarray(1.0 / float(ell) ** self.p)))


def _neg_exp(s: np.ndarray) -> np.ndarray:
    return np.exp(-s)


KERNELS: dict[str, RadialKernel] = {
    "gaussian": RadialKernel("gaussian", 2, _neg_exp, 1.0, float(np.sqrt(2.0 / np.e)), 0.5),
    "laplacian": RadialKernel("laplacian", 1, _neg_exp, 1.0, 1.0, 1.0),
}


def get_kernel(kernel: str | RadialKernel) -> RadialKernel:
    """Look a kernel up by name, with a clear error for unknown names.

    >>> get_kernel("gaussian").p
    2
    """
    if isinstance(kernel, RadialKernel):
        return kernel
    try:
        return KERNELS[str(kernel).lower()]
    except KeyError:
        raise ValueError(
            f"Unknown kernel {kernel!r}. Use one of {sorted(KERNELS)} "
            "(Gaussian: exp(-|x-y|^2/sigma^2); Laplacian: exp(-|x-y|/sigma))."
        ) from None
