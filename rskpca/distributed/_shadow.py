"""Shadow selection and RSKPCA past one machine, on a row-chunked ``dask.array``.

Needs the optional extra ``pip install "rskpca[dask]"``. Dask is the engine:
with no setup it runs on Dask's local (threaded) scheduler; with a
``dask.distributed.Client`` connected to a scheduler address it runs on that
cluster, because Dask sends every computation to the active client.

The algorithm (two-level shadow)
--------------------------------
Let ``eps = sigma / ell`` and split it as ``eps = eps1 + eps2``
(``eps1 = local_fraction * eps``, ``eps/2`` each by default).

1. *Local pass.* Every row chunk ``X_b`` runs the single-machine shadow
   (Algorithm 2, :func:`rskpca.shadow_centers`) with radius ``eps1``. It returns
   only its local centers, their integer weights and their global row
   indices: ``O(m_b d)`` numbers, whatever the chunk length. The chunk's rows
   never leave the worker.
2. *Merge pass.* The local centers of all chunks, concatenated in chunk
   order (each chunk's in creation order, so the order is deterministic), run
   the same shadow scan with radius ``eps2``; a final center's weight is the
   sum of the weights of the local centers it absorbs (weights add).
   When there are more than ``max_merge_centers`` local centers the merge is
   a tree: consecutive groups of parts (each group at most
   ``max_merge_centers`` centers where possible, at least two parts, so the
   number of parts at least halves per level) are merged in parallel with
   half the merge radius still unspent, and the next level works on their
   outputs; the last merge, over one group, spends what is left. The radii of
   all merge levels add up to at most ``eps2``, and the tree has at most
   ``ceil(log2(number of chunks))`` levels.
3. A row's final center is its chain: row -> local center -> ... -> final
   center. Labels are never gathered; :meth:`DistributedShadowResult.labels`
   recomputes them lazily, chunk by chunk (the local pass is deterministic).

4. Optional *refine pass* (``refine=True``, one more read of X): every row
   is reassigned to the *earliest* final center strictly within ``eps``
   (the rule Algorithm 2 itself follows), and centers that no row picks are
   dropped. Centers from different chunks often overlap, and this pass
   removes most of the surplus: on pendigits (16-d, ell=2, 4 chunks) m goes
   from 1359 to 225, against 181 for the single-machine shadow.

With a single chunk the local pass uses the whole ``eps`` and there is no
merge (and refining would change nothing, so it is skipped): the result is
exactly :func:`rskpca.shadow_centers` (same centers, indices, weights and
labels, bit for bit).

Why the paper's guarantees survive (proof)
------------------------------------------
*Claim 1 (eps-cover).* Every row ``x_i`` lies strictly within ``eps`` of its
final center ``c_a(i)``.
Let the chain of ``x_i`` be ``x_i = y_0, y_1, ..., y_L = c_a(i)``, where
``y_1`` is its local center and ``y_{j+1}`` the center that absorbed ``y_j``
at merge level ``j`` with radius ``r_j``. The shadow scan only lets a center
absorb points strictly inside its radius, so ``||y_0 - y_1|| < eps1`` and
``||y_j - y_{j+1}|| < r_j``. By the triangle inequality

    ||x_i - c_a(i)|| <= sum_j ||y_j - y_{j+1}|| < eps1 + sum_j r_j <= eps1 + eps2 <= eps.

The radii are chosen so the last two inequalities hold in exact arithmetic
on the float64 values used (``eps2`` is decremented by one ulp until
``eps1 + eps2 <= eps`` holds as rationals, and every merge radius is an exact
halving of what is left). Each leg is decided by the shadow's stated float64
predicate ``sum((x - c)**2) < r**2``, so, as for the single-machine shadow,
the strict inequality holds up to the rounding of that predicate (relative
``~d * 2**-53``).

*Claim 2 (weights are counts).* ``w_c = |{i : a(i) = c}|``: a local weight
counts the rows of its chunk assigned to it, and each merge adds the
weights of exactly the centers it maps onto ``c``; by induction over the
levels the final weight counts the rows whose chain ends in ``c``. So the
quantized data set ``C-bar = (c_a(1), ..., c_a(n))`` satisfies
``sum_c w_c psi(c) = sum_i psi(c_a(i))`` (the identity in the proof of
Theorem 5.1), and ``sum_c w_c = n``.

*Claim 3 (Theorems 5.1-5.4 hold with the same ell).* The four proofs use the
shadow only through (a) the quantization ``x_i -> c_a(i)`` with weights that
count it (Claim 2) and (b) ``||x_i - c_a(i)|| < sigma / ell`` for every ``i``
(Claim 1). From (b), for ``k = phi(||x - y||^p / sigma^p)`` with ``phi``
non-increasing, ``||psi(x_i) - psi(c_a(i))||^2 = 2 (kappa - k(x_i, c_a(i)))
<= 2 (kappa - phi(1 / ell^p))``, which is the whole input of 5.1 (MMD as the
mean of the residuals ``psi(x_i) - psi(c_a(i))``), of 5.3 (the residual
``eps_i = k_{x_i} - k_{c_a(i)}`` and its maximizer) and hence of 5.4 (5.3 plus
the eigengap condition, which is stated on ``K_n`` alone); 5.2 uses eq. (18)
with ``||x_i - c_a(i)|| < sigma / ell`` per entry and Hoffman-Wielandt. None of
the proofs uses that the centers are ``eps`` apart or that they are the
output of Algorithm 2 on the full data. So every bound holds, a-priori
value unchanged.

*Refine pass.* Each row's chain center is one of the final centers and lies
within ``eps`` (Claim 1), so the earliest final center within ``eps`` exists
and is no farther than ``eps`` either; the refined weights count the rows
assigned to each center, so Claims 1-3 hold for the refined result as they
stand. (Should float64 rounding make no center pass the predicate for a row
-- only possible when its chain distance equals ``eps`` to the last bits --
the row takes its nearest center, which is as close as its chain center.)

What differs from Algorithm 2 on the full data: centers from different
chunks may lie closer than ``eps`` to each other (the merge only joins pairs
within ``eps2``), so ``m`` is usually somewhat larger than the single-machine
``m``; the eps-cover property above is what the bounds need.

Costs: the local pass is ``O(n m_b d)`` over the workers; the merge handles
``M0 = sum_b m_b`` local centers in ``O(M0 m d)``, split over the tree's groups.
The client holds ``O(m d + M0)`` numbers (the centers and the local-to-final
map, never a row of X).
"""

from __future__ import annotations

from fractions import Fraction
from numbers import Integral, Real
from typing import NamedTuple

import numpy as np

try:
    import dask
    import dask.array as da
except ImportError as exc:  # the library must import without the extra
    raise ImportError(
        "rskpca.distributed needs Dask: install the extra with `pip install \"rskpca[dask]\"` "
        "(it pulls in dask[array,distributed])."
    ) from exc
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted

from rskpca.distributed._blocks import (
    _chunk_distances,
    _chunk_labels,
    as_row_chunked_array,
    earliest_center_within,
    is_dask_collection,
)
from rskpca.core._validation import check_array_2d, check_positive
from rskpca.core.kernels import get_kernel, median_heuristic
from rskpca.core.shadow import ShadowResult, shadow_centers

__all__ = [
    "DistributedShadowResult",
    "distributed_shadow",
    "as_row_chunked_array",
    "is_dask_collection",
    "earliest_center_within",
]

#: Local centers one merge task handles before the merge becomes a tree.
DEFAULT_MAX_MERGE_CENTERS = 50_000


class _Part(NamedTuple):
    """Weighted centers of one chunk (or one merged group), in creation order."""

    centers: np.ndarray  # (m, d) float64
    weights: np.ndarray  # (m,) int64, rows represented
    indices: np.ndarray  # (m,) int64, global row index in X of each center


def _split_radius(eps: float, local_fraction: float) -> tuple[float, float]:
    """``(eps1, eps2)`` with ``eps1 = local_fraction * eps`` and ``eps1 + eps2 <= eps`` exactly."""
    eps1 = float(local_fraction * eps)
    eps2 = float(eps - eps1)
    # Rounding of eps - eps1 can land one ulp high; the cover proof needs the
    # exact rational sum not to exceed eps, so step down until it does not.
    while Fraction(eps1) + Fraction(eps2) > Fraction(eps):
        eps2 = float(np.nextafter(eps2, 0.0))
    return eps1, eps2


def _local_part(block, eps: float, offset: int) -> _Part:
    """Single-machine shadow of one chunk with radius ``eps``."""
    block = check_array_2d(block, name=f"X rows {offset}:{offset + len(block)}")
    s = shadow_centers(block, sigma=eps, ell=1.0)  # eps / 1.0 == eps exactly
    return _Part(s.centers, s.weights.astype(np.int64), (s.center_indices + offset).astype(np.int64))


def _part_size(part: _Part) -> int:
    return int(part.centers.shape[0])


def _part_summary(part: _Part):
    return _part_size(part), part.indices


def _merge_parts(parts, radius: float):
    """Weighted shadow of the parts' centers (in order) with ``radius``.

    Returns the merged part and, for each input center (concatenated in
    order), the index of the merged center that absorbed it.
    """
    C = np.concatenate([p.centers for p in parts])
    w = np.concatenate([p.weights for p in parts])
    idx = np.concatenate([p.indices for p in parts])
    s = shadow_centers(C, sigma=radius, ell=1.0)
    weights = np.zeros(s.m, dtype=np.int64)
    np.add.at(weights, s.labels, w)  # weights add
    return _Part(s.centers, weights, idx[s.center_indices]), s.labels.astype(np.int64)


def _consecutive_groups(sizes, cap: int) -> list[list[int]]:
    """Split part positions into consecutive groups of total size <= cap, at least two parts each.

    Only the last group may hold one part, so the number of groups is at
    most ``ceil(len(sizes) / 2)``.

    >>> _consecutive_groups([3, 3, 3, 3, 3], cap=7)
    [[0, 1], [2, 3], [4]]
    >>> _consecutive_groups([10, 1, 1, 1], cap=5)
    [[0, 1], [2, 3]]
    """
    groups, current, total = [], [], 0
    for i, size in enumerate(sizes):
        if len(current) >= 2 and total + size > cap:
            groups.append(current)
            current, total = [], 0
        current.append(i)
        total += size
    groups.append(current)
    return groups


class DistributedShadowResult(NamedTuple):
    """Output of :func:`distributed_shadow`: small, picklable, no rows of X.

    Attributes
    ----------
    centers : ndarray of shape (m, d)
        Final shadow centers (rows of X), in merge order.
    center_indices : ndarray of shape (m,)
        Global row index in X of each center.
    weights : ndarray of shape (m,)
        Rows represented by each center (int64, sum n).
    eps : float
        ``sigma / ell``: every row lies within eps of its final center.
    eps_local : float
        Radius of the per-chunk pass (``eps`` itself when there is one chunk).
    merge_radii : tuple of float
        Radius of each merge level, bottom up; empty for one chunk. Their sum
        plus ``eps_local`` is at most ``eps``.
    sigma, ell : float
    kernel : str
    row_chunks : tuple of int
        Rows per chunk of the X this was computed on (labels need the same chunks).
    local_center_indices : ndarray of shape (M0,)
        Global row index of every local center, chunk by chunk.
    local_offsets : ndarray of shape (n_chunks + 1,)
        Local centers of chunk b are ``local_offsets[b]:local_offsets[b+1]``.
    local_to_final : ndarray of shape (M0,)
        Center of every local center after the merge (before any refine pass).
    refined : bool
        Whether the refine pass ran: rows then belong to the earliest center
        within eps, not to the end of their merge chain.
    """

    centers: np.ndarray
    center_indices: np.ndarray
    weights: np.ndarray
    eps: float
    eps_local: float
    merge_radii: tuple
    sigma: float
    ell: float
    kernel: str
    row_chunks: tuple
    local_center_indices: np.ndarray
    local_offsets: np.ndarray
    local_to_final: np.ndarray
    refined: bool = False

    @property
    def m(self) -> int:
        """Number of final centers."""
        return int(self.center_indices.shape[0])

    @property
    def n(self) -> int:
        """Number of rows."""
        return int(sum(self.row_chunks))

    @property
    def n_local_centers(self) -> int:
        """``M0``: local centers over all chunks, before the merge."""
        return int(self.local_to_final.shape[0])

    def _per_block(self, X, func, dtype):
        X = as_row_chunked_array(X)
        if tuple(X.chunks[0]) != tuple(self.row_chunks) or X.shape[1] != self.centers.shape[1]:
            raise ValueError(
                f"X must be the array this result was computed on, with the same row chunks; got "
                f"shape {X.shape} with {len(X.chunks[0])} row chunks, expected "
                f"({self.n}, {self.centers.shape[1]}) with {len(self.row_chunks)}."
            )
        # One key holds the rule (and its arrays), so they are sent once per worker, not per chunk.
        rule = dask.delayed((self.refined, self.eps, self.eps_local, self.local_to_final, self.centers),
                            pure=True)
        pieces = [
            da.from_delayed(dask.delayed(func, pure=True)(block, int(start), rule), shape=(rows,), dtype=dtype)
            for block, start, rows in zip(X.to_delayed().ravel(), self.local_offsets[:-1], self.row_chunks)
        ]
        return da.concatenate(pieces)

    def labels(self, X):
        """Final center of every row of X, as a lazy dask array (recomputed chunk by chunk).

        Parameters
        ----------
        X : dask.array.Array
            The array the result was computed on (same row chunks).

        Returns
        -------
        dask.array.Array of shape (n_samples,), int
        """
        return self._per_block(X, _chunk_labels, np.intp)

    def distances_to_centers(self, X):
        """``||x_i - c_a(i)||`` for every row, as a lazy dask array (all < eps).

        Parameters
        ----------
        X : dask.array.Array
            The array the result was computed on (same row chunks).

        Returns
        -------
        dask.array.Array of shape (n_samples,), float64
        """
        return self._per_block(X, _chunk_distances, np.float64)

    def to_shadow_result(self, X) -> ShadowResult:
        """Gather the labels into an in-memory :class:`rskpca.ShadowResult` (O(n) memory).

        For data that fits on the client, e.g. to evaluate the bounds of
        :mod:`rskpca.bounds` on the distributed quantization.

        Parameters
        ----------
        X : dask.array.Array
            The array the result was computed on (same row chunks).

        Returns
        -------
        ShadowResult
        """
        return ShadowResult(
            centers=self.centers, center_indices=self.center_indices,
            weights=self.weights.astype(np.intp), labels=np.asarray(self.labels(X).compute()),
            eps=self.eps, sigma=self.sigma, ell=self.ell, kernel=self.kernel,
        )


def _refined_counts(block, centers, eps: float) -> np.ndarray:
    labels = earliest_center_within(np.asarray(block, dtype=np.float64), centers, eps)
    return np.bincount(labels, minlength=centers.shape[0]).astype(np.int64)


def _refine(X, part: _Part, eps: float, scheduler) -> _Part:
    """Reassign every row to the earliest center within eps; keep the centers that are used."""
    centers = dask.delayed(part.centers, pure=True)  # one key, sent once per worker
    m = part.centers.shape[0]
    counts = da.stack([
        da.from_delayed(dask.delayed(_refined_counts, pure=True)(block, centers, eps), shape=(m,),
                        dtype=np.int64)
        for block in X.to_delayed().ravel()
    ]).sum(axis=0)  # a tree reduction in Dask: only m-vectors travel
    (counts,) = dask.compute(counts, scheduler=scheduler)
    used = np.flatnonzero(counts)
    return _Part(part.centers[used], counts[used], part.indices[used])


def distributed_shadow(X, *, sigma: float, ell: float, kernel: str = "gaussian",
                       local_fraction: float = 0.5,
                       max_merge_centers: int = DEFAULT_MAX_MERGE_CENTERS,
                       refine: bool = False, scheduler=None) -> DistributedShadowResult:
    """Shadow centers of a row-chunked dask array: local shadows, then a weighted merge.

    Every row ends within ``eps = sigma / ell`` of its final center, so the
    bounds of Theorems 5.1-5.4 hold with the same ``ell`` (proof in the
    module docstring). With one chunk the result equals
    :func:`rskpca.shadow_centers` exactly.

    Parameters
    ----------
    X : dask.array.Array of shape (n_samples, n_features)
        Chunked by rows; it is read once, chunk by chunk, on the workers.
    sigma : float
        Kernel bandwidth (``k = exp(-||x-y||^2 / sigma^2)`` for the Gaussian).
    ell : float
        Shadow parameter; the radius is ``eps = sigma / ell``.
    kernel : {"gaussian", "laplacian"}, default="gaussian"
        Recorded for the bounds; the selection only depends on eps.
    local_fraction : float, default=0.5
        Share of eps spent by the per-chunk pass (``eps1``); the merge gets
        the rest (``eps2``). Must lie in (0, 1). Larger leaves fewer local
        centers to merge but merges less across chunks.
    max_merge_centers : int, default=50_000
        Most local centers one merge task takes; above it the merge is a tree.
    refine : bool, default=False
        Read X once more, reassign every row to the earliest final center
        within eps and drop unused centers: usually far fewer centers (the
        merge leaves overlapping ones), same guarantees. Skipped for one chunk,
        where it changes nothing.
    scheduler : optional
        Passed to ``dask.compute``/``dask.persist``. None: the active
        ``dask.distributed.Client`` if there is one, else Dask's local threads.

    Returns
    -------
    DistributedShadowResult

    Examples
    --------
    >>> import numpy as np, dask.array as da
    >>> from rskpca.distributed import distributed_shadow
    >>> X = np.array([[0.0], [0.1], [1.0], [1.05], [5.0], [5.1]])
    >>> r = distributed_shadow(da.from_array(X, chunks=(3, 1)), sigma=1.0, ell=1.0,
    ...                        scheduler="sync")
    >>> r.center_indices.tolist(), r.weights.tolist(), r.eps_local, r.merge_radii
    ([0, 2, 4], [2, 2, 2], 0.5, (0.5,))
    >>> r.labels(da.from_array(X, chunks=(3, 1))).compute(scheduler="sync").tolist()
    [0, 0, 1, 1, 2, 2]
    """
    X = as_row_chunked_array(X)
    sigma = check_positive(sigma, "sigma")
    ell = check_positive(ell, "ell")
    kernel = get_kernel(kernel).name
    if isinstance(local_fraction, bool) or not isinstance(local_fraction, Real) \
            or not 0.0 < float(local_fraction) < 1.0:
        raise ValueError(f"local_fraction must be a number strictly between 0 and 1; got {local_fraction!r}.")
    if not isinstance(refine, (bool, np.bool_)):
        raise ValueError(f"refine must be True or False; got {refine!r}.")
    if isinstance(max_merge_centers, bool) or not isinstance(max_merge_centers, Integral) \
            or max_merge_centers < 1:
        raise ValueError(f"max_merge_centers must be a positive integer; got {max_merge_centers!r}.")
    eps = sigma / ell
    row_chunks = tuple(int(c) for c in X.chunks[0])
    row_offsets = np.concatenate([[0], np.cumsum(row_chunks)])
    blocks = X.to_delayed().ravel()
    n_chunks = len(row_chunks)
    if n_chunks == 1:
        eps_local, merge_budget = eps, 0.0  # no merge: exactly the single-machine shadow
    else:
        eps_local, merge_budget = _split_radius(eps, float(local_fraction))
    local = [dask.delayed(_local_part, pure=True)(b, eps_local, int(o)) for b, o in zip(blocks, row_offsets)]

    if n_chunks == 1:
        (part,) = dask.compute(local[0], scheduler=scheduler)
        local_sizes = [_part_size(part)]
        local_indices = part.indices
        level_maps, radii = [], []
    else:
        parts = list(dask.persist(*local, scheduler=scheduler))
        sizes, idx_list = zip(*dask.compute(
            *[dask.delayed(_part_summary)(p) for p in parts], scheduler=scheduler))
        local_sizes = [len(ix) for ix in idx_list]
        local_indices = np.concatenate(idx_list)
        level_maps, radii = [], []
        left = merge_budget
        while True:
            final = len(parts) == 1 or sum(sizes) <= max_merge_centers
            radius = left if final else left / 2.0  # halving is exact: radii sum <= merge_budget
            groups = [list(range(len(parts)))] if final else _consecutive_groups(sizes, max_merge_centers)
            merged = [dask.delayed(_merge_parts, nout=2, pure=True)([parts[i] for i in g], radius)
                      for g in groups]
            radii.append(radius)
            left -= radius
            if final:
                part, owner = dask.compute(*merged[0], scheduler=scheduler)
                level_maps.append(owner)
                break
            merged = dask.persist(*merged, scheduler=scheduler)
            parts = [mp for mp, _ in merged]
            fetched = dask.compute(*[(dask.delayed(_part_size)(mp), ow) for mp, ow in merged],
                                   scheduler=scheduler)
            out_offsets = np.concatenate([[0], np.cumsum([s for s, _ in fetched])])
            level_maps.append(np.concatenate([ow + out_offsets[g] for g, (_, ow) in enumerate(fetched)]))
            sizes = [s for s, _ in fetched]

    refined = bool(refine) and n_chunks > 1
    if refined:
        part = _refine(X, part, eps, scheduler)
    local_to_final = np.arange(local_indices.shape[0], dtype=np.int64)
    for level_map in level_maps:
        local_to_final = level_map[local_to_final]
    return DistributedShadowResult(
        centers=part.centers,
        center_indices=part.indices,
        weights=part.weights,
        eps=float(eps),
        eps_local=float(eps_local),
        merge_radii=tuple(float(r) for r in radii),
        sigma=sigma,
        ell=ell,
        kernel=kernel,
        row_chunks=row_chunks,
        local_center_indices=local_indices,
        local_offsets=np.concatenate([[0], np.cumsum(local_sizes)]).astype(np.int64),
        local_to_final=local_to_final,
        refined=refined,
    )


# --- ReducedSetKPCA on dask input (called from rskpca.decomposition._reduced_set) -------------------------


def _median_sigma(X, random_state) -> float:
    """The median heuristic on the same seeded rows the in-memory path would draw."""
    seed = check_random_state(random_state).randint(2**31 - 1)
    n, max_samples = X.shape[0], 1000
    if n > max_samples:
        rows = np.sort(np.random.default_rng(seed).choice(n, size=max_samples, replace=False))
        sample = X[rows].compute()
    else:
        sample = X.compute()
    return median_heuristic(check_array_2d(sample, name="X sample"), max_samples=max_samples,
                            random_state=seed)


def validate_fit_input(estimator, X):
    """Check a dask ``X`` for ``ReducedSetKPCA.fit`` and set ``n_features_in_`` and ``sigma_``.

    Only ``rsde="shadow"`` with ``order="input"`` runs distributed; the
    others need all rows in one place.
    """
    if estimator.rsde != "shadow":
        raise ValueError(
            f"rsde={estimator.rsde!r} needs all rows in memory; on a dask array use rsde='shadow' "
            "(distributed), or compute X into a NumPy array first."
        )
    if estimator.order != "input":
        raise ValueError(
            "order='random' is not supported on a dask array (it would shuffle rows across the "
            "cluster); shuffle the chunks beforehand if needed and use order='input'."
        )
    X = as_row_chunked_array(X, min_samples=2)
    estimator.n_features_in_ = X.shape[1]
    if hasattr(estimator, "feature_names_in_"):  # names of an earlier in-memory fit no longer apply
        del estimator.feature_names_in_
    if isinstance(estimator.sigma, str):
        estimator.sigma_ = _median_sigma(X, estimator.random_state)
    else:
        estimator.sigma_ = check_positive(estimator.sigma, "sigma")
    return X


def centers_and_weights(estimator, X):
    """Distributed shadow centers and float weights for ``ReducedSetKPCA``.

    Runs with ``refine=True``: one more read of X buys a model several times
    smaller (m near the single-machine m instead of 5-8x it in our runs), and
    a model is evaluated far more often than it is fitted.
    """
    s = distributed_shadow(X, sigma=estimator.sigma_, ell=estimator.ell, kernel=estimator.kernel,
                           refine=True)
    estimator.shadow_m_ = s.m
    estimator.center_indices_ = s.center_indices
    if hasattr(estimator, "labels_"):  # n labels are never gathered; see distributed_shadow().labels
        del estimator.labels_
    return s.centers, s.weights.astype(np.float64)


def transform(estimator, X):
    """Lazy projection of a dask ``X``: the estimator's in-memory transform mapped over row blocks."""
    check_is_fitted(estimator)
    X = as_row_chunked_array(X)
    if X.shape[1] != estimator.n_features_in_:
        raise ValueError(
            f"X has {X.shape[1]} features, but {type(estimator).__name__} was fitted with "
            f"{estimator.n_features_in_}; pass the same columns as in fit."
        )
    dtype = X.dtype if X.dtype in (np.float32, np.float64) else np.dtype(np.float64)
    n_out = estimator.eigenvalues_.shape[0]
    return X.map_blocks(estimator.transform, dtype=dtype, chunks=(X.chunks[0], (n_out,)))
