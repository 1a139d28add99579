"""Rows of kernel weights normalised in log space.

A row's kernel values against far centers can all underflow to zero (``exp(-d^2 / sigma^2)`` below
1e-308), and dividing by their sum then gives NaN. Normalised weights only depend on differences of
the exponents, so subtracting each row's largest exponent first leaves the result unchanged and keeps
the largest weight at exactly 1 before the division: the log-sum-exp trick.
"""

from __future__ import annotations

import numpy as np

__all__ = ["row_softmax"]


def row_softmax(logits: np.ndarray) -> np.ndarray:
    """``exp(logits)`` with each row divided by its sum, computed without underflow; ``logits`` is overwritten.

    >>> import numpy as np
    >>> row_softmax(np.array([[-2000.0, -2000.0 - np.log(3.0)]])).round(6).tolist()
    [[0.75, 0.25]]
    """
    logits -= logits.max(axis=1, keepdims=True)
    P = np.exp(logits, out=logits)
    P /= P.sum(axis=1, keepdims=True)
    return P
