"""The row-landmark bipartite graph, solved through the landmarks' side (LSC / transfer cut).

Landmark-based spectral clustering (Cai & Chen 2015, LSC) and U-SPEC (Huang et al. 2020) link
each row ``x_i`` to its ``K`` nearest landmarks ``c_j`` only, with a *local* Gaussian::

    Z_ij = exp(-||x_i - c_j||^2 / (2 h^2)) / sum_{l in N_K(i)} exp(-||x_i - c_l||^2 / (2 h^2))

for ``c_j`` among the K nearest, 0 elsewhere (rows of Z sum to 1), with ``h`` the mean distance
of the rows to their K nearest landmarks (Cai & Chen's choice: one bandwidth set by the
landmark spacing, not by the data's diameter as the median heuristic is). The row affinity is
``W = Z D_c^-1 Z'`` with ``D_c = diag(Z' r)`` the landmarks' degrees (``r`` the rows'
multiplicities, 1 for rows). Its rows sum to 1 -- the graph is already degree-normalised, so
the normalized cut's eigenvectors are W's own. With ``Zh = R^1/2 Z D_c^-1/2``::

    W' = Zh Zh'  (n x n)  and  G = Zh' Zh  (m x m)

share their nonzero eigenvalues, and ``u = Zh b / sqrt(lambda)`` for ``G b = lambda b``: an
m x m problem after the O(n K) graph. The top eigenvalue is 1 with ``u`` constant.

**Regularization** (Qin & Rohe 2013; Zhang & Rohe 2018). A landmark that few rows link to (an
outlier's) has a small degree, and ``D_c^-1`` inflates it: the leading eigenvectors then localise
on a handful of outlying rows (a "dangling set"), and k-means spends clusters on them (a
two-class data set split 1 row against 568). Adding ``tau`` to every landmark's degree,
``Zh = R^1/2 Z (D_c + tau I)^-1/2``, lowers exactly those small cuts' eigenvalues. ``tau`` is
``regularization`` times the mean landmark degree; 0 is the plain graph above. With ``tau > 0``
the top eigenvector is no longer known in closed form, so ``k + 1`` pairs are solved and the
top one is dropped (it stands for the constant, as in the plain graph). Regularization is no
free gain: it also lowers the top eigenvalue of a sparser true cluster (the outer of two
circles), which then loses to a mode along the denser one. So ``"auto"`` regularizes only a
graph whose plain eigenvectors include a dangling set (:func:`localized`), and no more than it takes
to remove it.

A row's coordinates are ``u(x) = z(x) @ L`` with ``L = D_c^-1/2 B Lambda^-1/2`` -- a convex
combination of the landmarks' rows of L, weighted by the row's own ``z(x)``. A new row is
embedded by the same formula through its K nearest landmarks, so ``transform`` on a training
row returns exactly its training coordinates.

Rows with multiplicities (each center of a reduced set standing for its ``w`` rows) give the
exact answer on the quantized data ``np.repeat(C, w)``: the row of a repeated point is the
same each time, and ``R^1/2`` makes ``G`` the quantized data's.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from scipy.linalg import eigh
from scipy.sparse.csgraph import connected_components
from scipy.sparse.linalg import ArpackNoConvergence, LinearOperator, eigsh

from rskpca.core.eigen import SINGLE_THREAD_MAX_M, column_signs
from rskpca.core.threads import all_threads, blas_threads, map_row_blocks
from rskpca.decomposition._nearest_centers import nearest_centers

__all__ = ["LandmarkGraphEigen", "nearest_centers", "landmark_rows", "local_bandwidth", "landmark_graph_eigen",
           "landmark_transform", "localized", "AUTO_REGULARIZATION"]

#: Up to this many landmarks the m x m problem is solved densely; above, by ARPACK on the sparse G.
DENSE_MAX_M = 2000


@dataclass(frozen=True)
class LandmarkGraphEigen:
    """The top eigenpairs of the row affinity ``W = Z D_c^-1 Z'``, through the landmarks.

    Attributes
    ----------
    eigenvalues : ndarray of shape (k,)
        Nontrivial, descending, in [0, 1] (below 1e-12 set to 0).
    coef : ndarray of shape (m, k)
        ``L = (D_c + tau I)^-1/2 B Lambda^-1/2``: a row's unit-norm eigenvector entries are ``z(x) @ L``
        (0 in a column whose eigenvalue is 0).
    bandwidth : float
        ``h`` of the local Gaussian.
    degrees : ndarray of shape (m,)
        ``D_c``, the landmarks' degrees ``Z' r``.
    solver : str
    regularization : float
        The fraction of the mean degree added to every landmark's (0: the plain graph).
    """

    eigenvalues: np.ndarray
    coef: np.ndarray
    bandwidth: float
    degrees: np.ndarray
    solver: str
    regularization: float = 0.0


def landmark_rows(dist, idx, m: int, bandwidth: float) -> sp.csr_matrix:
    """The row-stochastic ``Z`` (n x m, K entries a row) for distances to the K nearest centers."""
    from rskpca.core.landmark_kernels import landmark_weights  # numba loads here

    dist = np.ascontiguousarray(dist, dtype=np.float64)
    n, K = dist.shape
    V = landmark_weights(dist, 1.0 / (2.0 * bandwidth**2))
    return sp.csr_matrix((V.ravel(), np.asarray(idx).ravel(), np.arange(0, n * K + 1, K)), shape=(n, m))


def local_bandwidth(dist) -> float:
    """``h``: the mean distance of the rows to their K nearest landmarks (Cai & Chen 2015).

    0 only when every row sits on its K landmarks; then 1 (any value gives equal weights).
    """
    h = float(np.mean(dist))
    return h if h > 0 else 1.0


def landmark_graph_eigen(Z: sp.csr_matrix, n_eigen: int, *, row_weights=None, bandwidth: float,
                         regularization: float | str = 0.0, random_state=None) -> LandmarkGraphEigen:
    """Top ``n_eigen`` nontrivial eigenpairs of ``W = Z (D_c + tau I)^-1 Z'`` via the m x m ``G``.

    ``tau = regularization * mean(d_c)`` over the linked landmarks. Without it the trivial pair
    is known in closed form (``G sqrt(d_c) = sqrt(d_c)``: u constant) and deflated before the
    solve, as :func:`~rskpca.decomposition._diffusion.diffusion_on_centers` does; a graph in
    several pieces keeps its further eigenvalue-1 vectors, which tell the pieces apart. With it
    the top pair is solved for and dropped. ``"auto"``: the plain graph, solved again at
    ``AUTO_REGULARIZATION`` only if one of its eigenvectors is a dangling set
    (:func:`localized`), and up the further ``AUTO_STEPS`` while one still is. ``n_eigen`` must be
    below the number of landmarks some row links to.
    """
    n, m = Z.shape
    r = np.ones(n) if row_weights is None else np.asarray(row_weights, dtype=np.float64)
    degrees = np.asarray(Z.T @ r).ravel()
    used = np.flatnonzero(degrees > 0)  # a landmark no row links to is isolated: no part of W
    k, p = int(n_eigen), used.size
    if not 1 <= k < p:
        raise ValueError(f"{k} nontrivial eigenvectors asked of a landmark graph with {p} linked landmarks; "
                         f"at most {p - 1}.")
    rng = random_state if isinstance(random_state, np.random.RandomState) else np.random.RandomState(random_state)
    auto = isinstance(regularization, str)
    fraction = 0.0 if auto else float(regularization)
    vals, coef, solver = _eigenpairs(Z, r, degrees, used, k, fraction, rng)
    if auto:
        for step in AUTO_STEPS:
            if not localized(Z, r, coef, k + 1):
                break
            fraction = step
            vals, coef, solver = _eigenpairs(Z, r, degrees, used, k, fraction, rng)
    return LandmarkGraphEigen(vals, coef, float(bandwidth), degrees, solver, fraction)


#: Regularization of ``"auto"`` when the plain graph has a dangling set, as a fraction of the mean
#: landmark degree. 0.02-0.05 score alike on the real-data table of ``tests/benchmarks/bench_spectral.py
#: --cases real``; 0.1 and above cost pendigits and USPS several NMI points (RESULTS.md).
AUTO_REGULARIZATION = 0.05
#: ``"auto"`` goes up these steps while an eigenvector is still a dangling set. With more centers per row,
#: breast_cancer still splits 2 rows from 567 at 0.05 and gives NMI 65.4 at 0.1; 0.2 is the last step, since
#: 0.5 costs it 24 NMI points (``python tests/benchmarks/bench_spectral.py --cases real``; RESULTS.md).
AUTO_STEPS = (AUTO_REGULARIZATION, 0.1, 0.2)
#: An eigenvector is a dangling set when its participation (below) is under this over k clusters: it
#: lives on fewer rows than a tenth of an average cluster's.
DANGLING_PARTICIPATION = 0.1


def localized(Z: sp.csr_matrix, r, coef, n_clusters: int) -> bool:
    """Whether a row eigenvector ``u = Z @ coef[:, j]`` is a dangling set (Zhang & Rohe 2018).

    Its participation ``(sum r u^2)^2 / (sum r * sum r u^4)`` is 1 for a constant vector and
    about ``s / n`` for one carried by s of n rows; below ``DANGLING_PARTICIPATION / n_clusters``
    the vector singles out a handful of outlying rows rather than a cluster.
    """
    n, K = Z.shape[0], _entries_per_row(Z)
    if K:
        from rskpca.core.landmark_kernels import column_moments  # numba loads here

        mass, peak = column_moments(Z.indices.reshape(n, K), Z.data.reshape(n, K), np.asarray(r, dtype=np.float64),
                                    np.ascontiguousarray(coef))
    else:
        U = np.asarray(Z @ coef)
        u2 = r[:, None] * U**2
        mass, peak = u2.sum(axis=0), (u2 * U**2).sum(axis=0)
    live = peak > 0
    participation = mass[live] ** 2 / (r.sum() * peak[live])
    return bool(np.any(participation < DANGLING_PARTICIPATION / n_clusters))


def _eigenpairs(Z, r, degrees, used, k: int, fraction: float, rng):
    """``(eigenvalues, coef, solver)`` of the graph regularized by ``fraction`` of the mean degree."""
    m, p = Z.shape[1], used.size
    tau = fraction * float(np.mean(degrees[used]))
    # Deflated: the trivial pair removed in closed form (tau = 0), or solved for and dropped (tau > 0).
    b0 = np.sqrt(degrees[used]) / np.linalg.norm(np.sqrt(degrees[used])) if tau == 0 else np.zeros(p)
    solve_k = k if tau == 0 else k + 1
    scale = 1.0 / np.sqrt(degrees[used] + tau)
    if p <= DENSE_MAX_M or solve_k >= p // 2:
        S = _gram(Z, r, used) * scale[:, None] * scale[None, :] - np.outer(b0, b0)
        # One BLAS thread for the problem sizes the budget gives, as core.eigen does: a threaded
        # tridiagonalisation of a few thousand rows gains little and collapses when the cores are busy.
        with blas_threads(1 if p <= SINGLE_THREAD_MAX_M else None):
            vals, B = eigh(S, subset_by_index=[p - solve_k, p - 1], check_finite=False)
            if B.shape[1] < solve_k:  # LAPACK's subset driver can come back short on many equal eigenvalues
                vals, B = eigh(S, driver="evd", check_finite=False)
                vals, B = vals[p - solve_k:], B[:, p - solve_k:]
        solver = "dense"
    else:
        Zh = sp.diags(np.sqrt(r)) @ Z[:, used] @ sp.diags(scale)
        G = (Zh.T @ Zh).tocsr()  # K^2 entries a row at most: sparse when the landmarks are many
        vals, B = _sparse_top(G, b0, solve_k, rng, deflated=tau == 0)
        solver = "arpack"
    order = np.argsort(vals)[::-1][solve_k - k:]
    vals, B = np.clip(vals[order], 0.0, 1.0), B[:, order]
    vals = np.where(vals < 1e-12, 0.0, vals)
    coef = np.zeros((m, k))
    inv_sqrt = np.where(vals > 0, 1.0 / np.sqrt(np.where(vals > 0, vals, 1.0)), 0.0)
    coef[used] = B * scale[:, None] * inv_sqrt[None, :]
    coef *= column_signs(coef)
    return vals, coef, solver


def _sparse_top(G: sp.csr_matrix, b0, k: int, rng, *, deflated: bool):
    """The top ``k`` eigenpairs of ``G - b0 b0'`` (``G`` sparse, symmetric), piece by piece of its graph
    (:func:`_arpack_or_dense` on each).

    A landmark graph in c pieces (every row its own landmark on clustered data) has eigenvalue 1 c times,
    and ARPACK does not converge on such a multiple top eigenvalue (``python
    tests/benchmarks/bench_landmark_pieces.py``). ``G`` is block diagonal over the pieces, so each
    piece is solved alone and the pairs merged. ``deflated`` (no regularization): each piece's top pair is
    its own ``b0`` restricted to it, eigenvalue 1, known in closed form; the c - 1 combinations of those
    orthogonal to ``b0`` are the eigenvalue-1 pairs left after ``b0`` is deflated.
    """
    p = G.shape[0]
    n_pieces, piece = connected_components(G, directed=False)
    if n_pieces == 1:
        return _arpack_or_dense(G, b0, k, rng)
    vals, vecs = [], []
    if deflated:
        # each piece's normalised b0; the pieces' combinations orthogonal to b0 (b0 = T a)
        T = np.zeros((p, n_pieces))
        T[np.arange(p), piece] = b0
        a = np.linalg.norm(T, axis=0)
        T /= np.where(a > 0, a, 1.0)
        basis = np.linalg.qr(np.column_stack([a, np.eye(n_pieces)]))[0][:, 1:n_pieces]
        vals.append(np.ones(n_pieces - 1))
        vecs.append(T @ basis)
    for j in range(n_pieces):
        rows = np.flatnonzero(piece == j)
        bj = b0[rows] / max(np.linalg.norm(b0[rows]), 1e-300) if deflated else np.zeros(rows.size)
        kj = min(k, rows.size - 1 if deflated else rows.size)
        if kj <= 0:
            continue
        block = G[rows][:, rows]
        if rows.size <= DENSE_MAX_M or kj >= rows.size // 2:
            w, V = eigh(block.toarray() - np.outer(bj, bj), subset_by_index=[rows.size - kj, rows.size - 1],
                        check_finite=False)
        else:
            w, V = _arpack_or_dense(block, bj, kj, rng)
        full = np.zeros((p, kj))
        full[rows] = V
        vals.append(w)
        vecs.append(full)
    vals, vecs = np.concatenate(vals), np.hstack(vecs)
    top = np.argsort(vals, kind="stable")[::-1][:k]
    return vals[top], vecs[:, top]


#: Up to this many landmarks a connected graph on which ARPACK does not converge is solved densely (its
#: p x p matrix: 290 MB at 6,000); ARPACK then gets ARPACK_RESTARTS restarts, not its default 10 p.
DENSE_FALLBACK_M = 6000
ARPACK_RESTARTS = 1000


def _arpack_or_dense(G: sp.csr_matrix, b0, k: int, rng):
    """The top ``k`` eigenpairs of ``G - b0 b0'`` for a connected graph: ARPACK, or dense where it fails.

    Pieces joined by a few weak links put the top eigenvalues within about 1e-7 of one another, which
    stalls ARPACK as separate pieces do.
    """
    p = G.shape[0]
    op = LinearOperator((p, p), matvec=lambda v: G @ v - b0 * (b0 @ v), dtype=np.float64)
    small = p <= DENSE_FALLBACK_M
    try:
        return eigsh(op, k=k, which="LA", v0=rng.uniform(-1.0, 1.0, p), tol=0.0,
                     maxiter=ARPACK_RESTARTS if small else None)
    except ArpackNoConvergence:
        if not small:
            raise ValueError(f"The landmark graph's top eigenvalues are too close together for ARPACK on {p:,} "
                             "landmarks (pieces joined by a few weak links): use fewer centers (max_centers) or "
                             "more neighbours (n_neighbors).") from None
    return eigh(G.toarray() - np.outer(b0, b0), subset_by_index=[p - k, p - 1], check_finite=False)


#: Rows per thread, at least, of the Gram matrix's compiled pass (each thread adds into its own p x p).
_GRAM_MIN_ROWS = 100_000


def _gram(Z: sp.csr_matrix, r, used) -> np.ndarray:
    """``Z' diag(r) Z`` on the columns ``used``, dense: in one compiled pass over the rows when every row
    has the same number of entries (as :func:`landmark_rows` makes Z), else by sparse products."""
    n, m = Z.shape
    K = _entries_per_row(Z)
    if K:
        from rskpca.core.landmark_kernels import weighted_cooccurrence  # numba loads here

        position = np.full(m, -1, np.int64)
        position[used] = np.arange(used.size)
        idx, values, r = Z.indices.reshape(n, K), Z.data.reshape(n, K), np.asarray(r, dtype=np.float64)
        # a partial sum per thread (p x p each), added at the end
        parts = np.linspace(0, n, min(all_threads(), max(n // _GRAM_MIN_ROWS, 1)) + 1).astype(int)
        partial = [None] * (parts.size - 1)

        def part(b):
            s, e = parts[b], parts[b + 1]
            partial[b] = weighted_cooccurrence(idx[s:e], values[s:e], r[s:e], position, used.size)

        map_row_blocks(part, range(parts.size - 1))
        return sum(partial[1:], partial[0])
    Zu = sp.diags(np.sqrt(r)) @ Z[:, used]
    return (Zu.T @ Zu).toarray()


def _entries_per_row(Z: sp.csr_matrix) -> int:
    """K when every row of Z has K > 0 entries (as :func:`landmark_rows` makes it), else 0."""
    n = Z.shape[0]
    K = int(Z.indptr[1] - Z.indptr[0]) if n else 0
    return K if K and Z.indptr[-1] == n * K and np.all(np.diff(Z.indptr) == K) else 0


def landmark_transform(X, C, coef, *, n_neighbors: int, bandwidth: float) -> np.ndarray:
    """``z(x) @ coef`` for rows X through their ``n_neighbors`` nearest of the centers C."""
    idx, dist = nearest_centers(X, C, n_neighbors)
    return np.asarray(landmark_rows(dist, idx, C.shape[0], bandwidth) @ coef)

