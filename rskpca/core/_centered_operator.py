"""The implicitly centered, weighted operator of the reduced-set problem (:func:`rskpca.core.eigen.kpca_on_centers`).

``W K W`` is built once (dense, or its lower half as
:class:`~rskpca.core.weighted_kernel.SymmetricBlocks`); centering is a rank-two
correction applied with each product, never a pass over the m x m entries.
"""

from __future__ import annotations

import numpy as np
from scipy.sparse.linalg import LinearOperator

from rskpca.core.threads import map_row_blocks
from rskpca.core.weighted_kernel import SymmetricBlocks

__all__ = ["CenteredWeightedOperator"]

# Rows of M per threaded block of a pass: a few hundred rows (a few MB) per GEMM keep the
# per-block overhead small and leave enough blocks to balance two or more threads.
_PASS_BLOCK_ROWS = 256


class CenteredWeightedOperator(LinearOperator):
    """``K~ = (I - s s^T / n) M (I - s s^T / n)`` applied without forming it, ``M = W K W``.

    With ``a = M s / n`` and ``g = s^T a / n`` (``s = sqrt(w)``) this is
    ``M - a s^T - s a^T + g s s^T``: a rank-two correction of the matrix built once,
    instead of a centering pass over m^2 entries. ``M`` may be float32; products are
    taken in its precision and returned in float64. ``M`` may be an ndarray or
    :class:`~rskpca.core.weighted_kernel.SymmetricBlocks` (its lower half).
    """

    def __init__(self, M: np.ndarray, sw: np.ndarray, center: bool, parallel: bool = False, M_sw=None):
        super().__init__(dtype=np.float64, shape=M.shape)
        self.M, self.sw, self.parallel = M, sw, parallel
        n = float(sw @ sw)
        M_sw = self._raw(sw) if M_sw is None else np.asarray(M_sw, dtype=np.float64)  # M s, if not given
        self.a = M_sw / n if center else np.zeros_like(sw)
        self.g = float(sw @ self.a) / n

    def _raw(self, V):
        V = V.astype(self.M.dtype, copy=False)
        if isinstance(self.M, SymmetricBlocks):
            return np.asarray(self.M.matmat(V), dtype=np.float64)
        if not self.parallel or V.ndim == 1 or V.shape[1] == 1:
            # one vector (ARPACK): a memory-bound GEMV, which row blocks on threads only slow down
            return np.asarray(self.M @ V, dtype=np.float64)
        out = np.empty((self.M.shape[0],) + V.shape[1:], dtype=self.M.dtype)

        def block(start):
            rows = slice(start, start + _PASS_BLOCK_ROWS)
            np.matmul(self.M[rows], V, out=out[rows])

        map_row_blocks(block, range(0, self.M.shape[0], _PASS_BLOCK_ROWS))
        return np.asarray(out, dtype=np.float64)

    def _correct(self, out, V):
        sv, av = self.sw @ V, self.a @ V
        out -= self.a[:, None] * sv[None, :]
        out -= self.sw[:, None] * (av - self.g * sv)[None, :]
        return out

    def _matmat(self, V):
        V = np.asarray(V, dtype=np.float64)
        return self._correct(self._raw(V), V)

    def columns(self, cols):
        """``K~[:, cols]``: columns of the operator read from ``M``, no product taken.

        Read as rows (``M`` is symmetric): a gather of whole rows instead of one cache
        line per entry of a column.
        """
        E = np.zeros((self.shape[0], len(cols)))
        E[cols, np.arange(len(cols))] = 1.0
        rows = self.M.rows(cols) if isinstance(self.M, SymmetricBlocks) else self.M[cols]
        return self._correct(np.asarray(rows.T, dtype=np.float64), E)

    def column(self, i: int) -> np.ndarray:
        """``K~[:, i]`` in float64: one column, as :meth:`columns` reads them."""
        row = self.M.rows([i])[0] if isinstance(self.M, SymmetricBlocks) else self.M[i]
        col = row.astype(np.float64)
        col -= self.a * self.sw[i]
        col -= self.sw * (self.a[i] - self.g * self.sw[i])
        return col

    def diagonal(self) -> np.ndarray:
        """The diagonal of ``K~``: ``M_ii - 2 a_i s_i + g s_i^2``."""
        data = self.M.data if isinstance(self.M, SymmetricBlocks) else self.M
        return np.diagonal(data).astype(np.float64) - 2.0 * self.a * self.sw + self.g * self.sw * self.sw

    def _matvec(self, v):
        return self._matmat(v.reshape(-1, 1)).ravel()

    def _rmatvec(self, v):
        return self._matvec(v)
