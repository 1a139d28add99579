"""Per-chunk work on row-chunked dask arrays, shared by :mod:`rskpca.distributed`.

Input checks that never materialize the array, the rule that labels one
chunk's rows, and the earliest-center-within-eps assignment of the refine
pass. Needs the ``rskpca[dask]`` extra (imported only by ``rskpca.distributed``).
"""

from __future__ import annotations

import dask.array as da
import numpy as np

from rskpca.core.kernels import DEFAULT_BLOCK_ELEMENTS, squared_distances
from rskpca.core.shadow import SCREEN_REL_MARGIN, exact_squared_distances, shadow_centers

__all__ = ["is_dask_collection", "as_row_chunked_array", "earliest_center_within"]


def is_dask_collection(X) -> bool:
    """True for Dask collections (duck-typed, so it costs no import of dask).

    >>> is_dask_collection(np.zeros((2, 2)))
    False
    """
    return callable(getattr(X, "__dask_graph__", None))


def as_row_chunked_array(X, *, name: str = "X", min_samples: int = 1):
    """``X`` as a 2-D numeric dask array with one chunk across the columns.

    Parameters
    ----------
    X : dask.array.Array or dask.dataframe.DataFrame
        Chunked by rows. Column chunks are joined (a cheap rechunk). A dask
        DataFrame is converted with ``to_dask_array(lengths=True)``, which
        costs one pass to count the rows of each partition.
    name : str, default="X"
        Name used in error messages.
    min_samples : int, default=1
        Fewest rows accepted.

    Returns
    -------
    dask.array.Array of shape (n_samples, n_features)

    Examples
    --------
    >>> import dask.array as da
    >>> X = da.zeros((10, 4), chunks=(5, 2))
    >>> as_row_chunked_array(X).chunks
    ((5, 5), (4,))
    """
    if hasattr(X, "to_dask_array") and is_dask_collection(X):
        X = X.to_dask_array(lengths=True)
    if not isinstance(X, da.Array):
        raise ValueError(
            f"{name} must be a dask.array.Array chunked by rows (or a dask DataFrame); got "
            f"{type(X).__name__}. For in-memory data call rskpca.shadow_centers / fit directly."
        )
    if X.ndim != 2:
        raise ValueError(
            f"{name} must be 2-D (n_samples, n_features); got a dask array with {X.ndim} "
            "dimension(s). Reshape it, e.g. X.reshape(-1, 1) for a single feature."
        )
    if X.dtype.kind not in "biuf":
        raise ValueError(f"{name} must be numeric; got dtype {X.dtype}. Select numeric columns only.")
    if any(np.isnan(c) for c in X.chunks[0]):
        raise ValueError(
            f"{name} has unknown chunk lengths; call X.compute_chunk_sizes() first "
            "(or df.to_dask_array(lengths=True) for a DataFrame)."
        )
    if X.shape[0] < min_samples:
        raise ValueError(f"{name} has {X.shape[0]} row(s); at least {min_samples} needed.")
    if X.shape[1] < 1:
        raise ValueError(f"{name} has no columns (features); at least 1 needed.")
    if X.numblocks[1] > 1:
        X = X.rechunk({1: -1})
    return X


def _chunk_labels(block, start: int, rule) -> np.ndarray:
    """Final center of each row of one chunk; ``start`` is the chunk's first local center."""
    refined, eps, eps_local, local_to_final, centers = rule
    block = np.asarray(block, dtype=np.float64)
    if refined:
        return earliest_center_within(block, centers, eps)
    # The local pass is deterministic: rerun it and follow the merge chain.
    s = shadow_centers(block, sigma=eps_local, ell=1.0)
    return local_to_final[start + s.labels].astype(np.intp)


def _chunk_distances(block, start: int, rule) -> np.ndarray:
    block = np.asarray(block, dtype=np.float64)
    diff = block - rule[4][_chunk_labels(block, start, rule)]
    return np.sqrt(np.einsum("ij,ij->i", diff, diff))


#: Distances screened at once in :func:`earliest_center_within` (32 MiB of float64).
_SCREEN_ELEMENTS = DEFAULT_BLOCK_ELEMENTS
#: Relative margin of the BLAS screen; pairs inside it are re-decided exactly (rskpca.core.shadow's).
_SCREEN_REL_MARGIN = SCREEN_REL_MARGIN


def earliest_center_within(X, centers, eps: float) -> np.ndarray:
    """Index of the first row of ``centers`` strictly within ``eps`` of each row of X.

    Decided with the shadow's predicate ``sum((x - c)**2) < eps**2`` in float64
    (:func:`rskpca.core.shadow.exact_squared_distances`): a BLAS screen finds the
    candidates and every pair within its rounding margin is re-decided exactly.
    A row with no center within eps gets its nearest center.

    Parameters
    ----------
    X : ndarray of shape (n, d)
    centers : ndarray of shape (m, d)
    eps : float

    Returns
    -------
    ndarray of shape (n,), int

    Examples
    --------
    Ties at exactly eps are outside (strict ``<``); 9.0 has no center within eps:

    >>> X, C = np.array([[0.5], [1.9], [2.0], [9.0]]), np.array([[0.0], [1.0], [2.1]])
    >>> earliest_center_within(X, C, 1.0).tolist()
    [0, 1, 2, 2]
    """
    X = np.asarray(X, dtype=np.float64)
    C = np.asarray(centers, dtype=np.float64)
    shift = C.mean(axis=0)  # smaller norms, tighter screening margin
    Cs = C - shift
    c_sq = np.einsum("ij,ij->i", Cs, Cs)
    eps2 = eps * eps
    labels = np.empty(X.shape[0], dtype=np.intp)
    step = max(1, _SCREEN_ELEMENTS // max(C.shape[0], 1))
    for a in range(0, X.shape[0], step):
        Xb = X[a:a + step]
        Xs = Xb - shift
        x_sq = np.einsum("ij,ij->i", Xs, Xs)
        D = squared_distances(Xs, Cs, X_sq=x_sq, Y_sq=c_sq)
        inside = D < eps2
        margin = _SCREEN_REL_MARGIN * (float(x_sq.max()) + float(c_sq.max()) + eps2)
        rows, cols = np.nonzero(np.abs(D - eps2) <= margin)
        if rows.size:  # near the threshold: decide exactly, on the original coordinates
            inside[rows, cols] = exact_squared_distances(Xb[rows], C[cols]) < eps2
        found = inside.any(axis=1)
        labels[a:a + step] = np.where(found, inside.argmax(axis=1), D.argmin(axis=1))
    return labels
