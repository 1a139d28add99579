"""Error measures between an approximate and the exact kernel PCA (Section 6)."""

from __future__ import annotations

import numpy as np

__all__ = ["align", "alignment_error", "eigenvalue_deviation"]


def align(O_exact, O_approx):
    """``O_approx @ A`` with ``A = argmin_A ||O_exact - O_approx A||_F`` (least squares).

    Used to compare embeddings up to signs, rotations and scale, and to draw the
    approximations in the exact embedding's frame so plots do not flicker.

    >>> import numpy as np
    >>> O = np.array([[1.0, 0.0], [0.0, 2.0], [1.0, 1.0]])
    >>> np.allclose(align(O, -O), O)
    True
    """
    O = np.asarray(O_exact, dtype=np.float64)
    Ot = np.asarray(O_approx, dtype=np.float64)
    A, *_ = np.linalg.lstsq(Ot, O, rcond=None)
    return Ot @ A


def alignment_error(O_exact, O_approx, *, relative: bool = True) -> float:
    """``min_A ||O - O~ A||_F``, divided by ``||O||_F`` when ``relative``.

    0 means the approximate embedding spans the exact one; 1 (relative) means it
    explains none of it.

    >>> import numpy as np
    >>> O = np.random.default_rng(0).normal(size=(50, 3))
    >>> round(alignment_error(O, O @ np.diag([-1.0, 2.0, 0.5])), 12)
    0.0
    """
    O = np.asarray(O_exact, dtype=np.float64)
    resid = np.linalg.norm(O - align(O, O_approx))
    if not relative:
        return float(resid)
    scale = np.linalg.norm(O)
    return float(resid / scale) if scale > 0 else 0.0


def eigenvalue_deviation(lam_exact, lam_approx, *, relative: bool = False) -> float:
    """``||lambda - lambda~||_2`` over the leading eigenvalues both provide.

    Pass normalized eigenvalues (of K/n: the estimators' ``normalized_eigenvalues_``)
    so that methods trained on different numbers of points compare fairly.

    >>> eigenvalue_deviation([3.0, 1.0], [2.0, 1.0, 0.5])
    1.0
    """
    a = np.asarray(lam_exact, dtype=np.float64)
    b = np.asarray(lam_approx, dtype=np.float64)
    r = min(a.size, b.size)
    dev = float(np.linalg.norm(a[:r] - b[:r]))
    if relative:
        scale = float(np.linalg.norm(a[:r]))
        return dev / scale if scale > 0 else 0.0
    return dev
