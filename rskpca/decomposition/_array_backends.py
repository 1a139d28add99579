"""The one seam between the estimators and array libraries other than NumPy.

A Dask collection passed to ``fit`` or ``transform`` is handed to
:mod:`rskpca.distributed` (imported only then, so the library runs without
Dask); everything else stays on the in-memory path.
"""

from __future__ import annotations

__all__ = ["distributed_backend"]


def distributed_backend(X):
    """:mod:`rskpca.distributed` when X is a Dask collection, else None.

    >>> import numpy as np
    >>> distributed_backend(np.zeros((2, 2))) is None
    True
    """
    if not callable(getattr(X, "__dask_graph__", None)):  # duck-typed: no import of dask
        return None
    import rskpca.distributed  # the only import of the layer above; see pyproject's layers contract

    return rskpca.distributed
