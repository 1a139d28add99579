"""Per-chunk work on row-chunked dask arrays, shared by :mod:`rskpca.distributed`.

Input checks that never materialize the array, and the tasks of a round:
check a chunk, screen it against the round's centers, keep its uncovered
rows. Needs the ``rskpca[dask]`` extra (imported only by ``rskpca.distributed``).
"""

from __future__ import annotations

from typing import NamedTuple

import dask.array as da
import numpy as np

from rskpca.core.validation import check_array_2d
from rskpca.core.shadow import earliest_center_within, shadow_centers

__all__ = ["is_dask_collection", "as_row_chunked_array"]


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


class Piece(NamedTuple):
    """Rows of X still to be decided, in input order, with their global row indices."""

    rows: np.ndarray  # (k, d) float64
    index: np.ndarray  # (k,) int64


def check_chunk(block, start: int, shape: tuple) -> Piece:
    """One chunk of X as a :class:`Piece`, with the in-memory checks and the declared shape."""
    name = f"X rows {start}:{start + shape[0]}"
    if getattr(block, "shape", None) != shape:
        raise ValueError(
            f"{name}: the chunk holds an array of shape {getattr(block, 'shape', None)} but the dask "
            f"array declares {shape} (ragged or mis-declared chunks); fix the chunks or call "
            "X.compute_chunk_sizes() before fitting."
        )
    rows = check_array_2d(block, name=name, row_offset=start)
    return Piece(rows, np.arange(start, start + shape[0], dtype=np.int64))


def concat_pieces(pieces) -> Piece:
    """The pieces joined in order (input order is kept)."""
    pieces = list(pieces)
    return Piece(np.concatenate([p.rows for p in pieces]), np.concatenate([p.index for p in pieces]))


def prefix_shadow(pieces, eps: float):
    """Shadow of the round's prefix: ``(centers, global indices, weights)`` -- no labels travel."""
    prefix = concat_pieces(pieces)
    # eps / 1.0 == eps exactly; "auto" is the single machine's own choice of path (the same
    # result on any path, and the same speed as one machine's fit).
    s = shadow_centers(prefix.rows, sigma=eps, ell=1.0)
    return s.centers, prefix.index[s.center_indices], s.weights.astype(np.int64)


def screen_piece(piece: Piece, prefix, eps: float):
    """Counts per prefix center and the uncovered rows of one piece (the parallel step of a round)."""
    centers = prefix[0]
    labels = earliest_center_within(piece.rows, centers, eps)
    covered = labels >= 0
    counts = np.bincount(labels[covered], minlength=centers.shape[0]).astype(np.int64)
    free = ~covered
    return counts, Piece(piece.rows[free], piece.index[free])


def piece_size(result) -> int:
    return int(result[1].index.shape[0])


def chunk_labels(block, centers, eps: float) -> np.ndarray:
    """Algorithm 2's label of each row of a chunk: its earliest center within eps."""
    return earliest_center_within(np.asarray(block, dtype=np.float64), centers, eps)


def chunk_distances(block, centers, eps: float) -> np.ndarray:
    block = np.asarray(block, dtype=np.float64)
    diff = block - centers[chunk_labels(block, centers, eps)]
    return np.sqrt(np.einsum("ij,ij->i", diff, diff))
