"""Sampling techniques for kernel PCA (Achlioptas, McSherry & Schoelkopf, NIPS 2001).

Every technique replaces kernel values by random variables with the right
expectation ("randomized kernels"):

* **Sparsification** (training): each off-diagonal entry of the Gram matrix is
  kept with probability p and scaled by 1/p, symmetrically (entry (i, j) and
  (j, i) share one coin). Only the kept entries are evaluated: about
  ``p n^2 / 2`` kernel evaluations, ``p n^2`` stored values, and a multiply by
  the matrix costs O(p n^2) in an iterative eigensolver.
* **Quantization** (training): each kept entry is rounded at random to ``+b`` or
  ``-b`` (``b`` the quantization level, at least the largest entry), with
  ``P(+b) = (1 + K_ij / b) / 2`` so that ``E = K_ij``; one bit (here one int8)
  per entry. Both combine: ``+-b/p`` with probability p, else 0.
* **Randomized rounding of the kernel expansion** (evaluation): a projection
  ``z(x) = sum_i a_i k(x_i, x) + c`` keeps term i with probability
  ``p_i = min(1, ||a_i|| / tau)`` and divides it by ``p_i`` (unbiased), with
  ``tau`` chosen so that ``expansion_terms`` terms are kept on average. The
  draw is made once, at fit, so ``transform`` is deterministic.
* **Random projections** (kernel evaluation): inputs are mapped to
  ``projection_dim`` dimensions by a matrix of random signs scaled by
  ``1/sqrt(projection_dim)`` (Achlioptas's database-friendly projection), which
  preserves squared distances in expectation, before any kernel evaluation.

The diagonal is kept exact: ``k(x, x) = kappa`` costs no evaluation.
The spectral norm of the perturbation ``E = K^ - K`` is what the paper's
analysis controls (Theorem 1, Furedi-Komlos: ``||E||_2 <= 4 s sqrt(n)`` with
high probability for large n, s^2 the largest entry variance);
:meth:`SampledGramKPCA.gram_error` measures it beside that scale.
"""

from __future__ import annotations

import numpy as np
from scipy import sparse
from scipy.sparse.linalg import LinearOperator
from sklearn.utils import check_random_state

from rskpca.core.block_sizes import DEFAULT_BLOCK_ELEMENTS
from rskpca.core.radial_kernels import get_kernel, kernel_matrix

__all__ = ["sample_upper_pairs", "quantize", "sampled_gram", "round_expansion", "random_sign_projection",
           "DENSE_ABOVE_P"]

#: Above this keep-probability the sampled Gram matrix is stored dense (sparse
#: storage costs ~12 bytes per entry against 8 or 1 dense, and no longer pays).
DENSE_ABOVE_P = 0.25


def sample_upper_pairs(n: int, p: float, rng) -> tuple[np.ndarray, np.ndarray]:
    """Pairs ``i < j`` each kept independently with probability p, in O(p n^2) time.

    Gaps between kept positions of the row-major strict upper triangle are
    geometric, so only the kept pairs are ever drawn.

    >>> I, J = sample_upper_pairs(4, 1.0, np.random.default_rng(0))
    >>> list(zip(I.tolist(), J.tolist()))
    [(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)]
    """
    total = n * (n - 1) // 2
    if total == 0:
        return np.zeros(0, np.intp), np.zeros(0, np.intp)
    if p >= 1.0:
        pos = np.arange(total)
    else:
        expected = p * total
        chunk = int(expected + 6 * np.sqrt(expected) + 16)
        parts, last = [], -1
        while last < total:
            steps = rng.geometric(p, size=chunk)
            cum = last + np.cumsum(steps)
            parts.append(cum[cum < total])
            last = int(cum[-1])
        pos = np.concatenate(parts)
    row_len = np.arange(n - 1, 0, -1)
    offsets = np.concatenate([[0], np.cumsum(row_len)])
    I = np.searchsorted(offsets, pos, side="right") - 1
    J = I + 1 + (pos - offsets[I])
    return I.astype(np.intp), J.astype(np.intp)


def _pair_kernel(X, I, J, *, sigma, kernel, chunk=1_000_000):
    """``k(X[I], X[J])`` for listed pairs only, in chunks (direct differences: no cancellation)."""
    k = get_kernel(kernel)
    out = np.empty(I.shape[0])
    step = max(1, chunk // max(X.shape[1], 1))
    for s in range(0, I.shape[0], step):
        diff = X[I[s:s + step]] - X[J[s:s + step]]
        d2 = np.einsum("ij,ij->i", diff, diff)
        out[s:s + step] = k.from_squared_distances(d2, sigma, out=d2)
    return out


def quantize(values, level: float, rng) -> np.ndarray:
    """Unbiased random signs: ``+1`` with probability ``(1 + v/level)/2``, else ``-1`` (int8).

    ``level * quantize(v)`` has expectation ``v`` for ``|v| <= level``.

    >>> s = quantize(np.full(100_000, 0.5), 1.0, np.random.default_rng(0))
    >>> round(float(s.mean()), 2)
    0.5
    """
    values = np.asarray(values, dtype=np.float64)
    top = float(np.max(np.abs(values), initial=0.0))
    if top > level * (1 + 1e-12):
        raise ValueError(
            f"quantization_level={level:g} is below the largest kernel entry {top:g}: the rounding "
            "probabilities would leave [0, 1] and the estimate would be biased. Use a level of at "
            f"least {top:g} (kappa = 1 always works)."
        )
    up = rng.random(values.shape) < 0.5 * (1.0 + values / level)
    return np.where(up, 1, -1).astype(np.int8)


def sampled_gram(X, *, sigma: float, kernel="gaussian", p: float = 1.0, quantization_level=None,
                 random_state=None, block_elements: int = DEFAULT_BLOCK_ELEMENTS):
    """The sparsified and/or quantized Gram matrix ``K^`` with ``E[K^] = K``.

    Parameters
    ----------
    X : ndarray of shape (n, d)
    sigma : float
    kernel : {"gaussian", "laplacian"}, default="gaussian"
    p : float in (0, 1], default=1.0
        Keep-probability of each off-diagonal entry (kept ones are scaled by 1/p).
    quantization_level : float or None, default=None
        None: no quantization. Otherwise each kept entry becomes ``+-level``.
    random_state : int, RandomState, Generator or None
    block_elements : int
        Kernel values per block on the dense path.

    Returns
    -------
    matrix : ndarray or scipy.sparse.csr_array of shape (n, n)
        Symmetric, zero diagonal; int8 signs when quantized. ``K^ = scale *
        matrix + kappa I``: the diagonal ``k(x, x) = kappa`` is exact and not stored.
    scale : float
        ``1/p``, or ``level/p`` when quantized.
    n_evaluations : int
        Off-diagonal kernel values computed (pairs i < j). The dense path
        (``p > 0.25``) computes whole blocks with BLAS, so every pair counts.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.random.default_rng(0).normal(size=(5, 2))
    >>> M, scale, n_eval = sampled_gram(X, sigma=1.0, p=1.0)
    >>> bool(np.allclose(scale * M + np.eye(5), kernel_matrix(X, sigma=1.0))), n_eval
    (True, 10)
    """
    rng = random_state if isinstance(random_state, np.random.Generator) else \
        np.random.default_rng(check_random_state(random_state).randint(2**31 - 1))
    X = np.asarray(X, dtype=np.float64)
    n = X.shape[0]
    quantized = quantization_level is not None
    scale = (float(quantization_level) if quantized else 1.0) / p
    if p > DENSE_ABOVE_P:
        M = _dense_sampled(X, sigma, kernel, p, quantization_level, rng, block_elements)
        return M, scale, n * (n - 1) // 2
    I, J = sample_upper_pairs(n, p, rng)
    vals = _pair_kernel(X, I, J, sigma=sigma, kernel=kernel)
    data = quantize(vals, float(quantization_level), rng) if quantized else vals
    M = sparse.coo_array((np.concatenate([data, data]), (np.concatenate([I, J]), np.concatenate([J, I]))),
                         shape=(n, n)).tocsr()
    return M, scale, int(I.shape[0])


def _dense_sampled(X, sigma, kernel, p, level, rng, block_elements):
    """Dense path: row blocks of the upper triangle, then mirrored into the lower one."""
    n = X.shape[0]
    quantized = level is not None
    M = np.zeros((n, n), dtype=np.int8 if quantized else np.float64)
    step = max(1, block_elements // max(n, 1))
    for s in range(0, n, step):
        e = min(n, s + step)
        K = kernel_matrix(X[s:e], X[s:], sigma=sigma, kernel=kernel)
        upper = np.arange(s, n)[None, :] > np.arange(s, e)[:, None]
        keep = upper if p >= 1.0 else upper & (rng.random(K.shape) < p)
        block = np.zeros_like(M[s:e, s:])
        block[keep] = quantize(K[keep], float(level), rng) if quantized else K[keep]
        M[s:e, s:] = block
        M[s:e, :s] = M[:s, s:e].T  # rows above are complete: mirror them
        diag = M[s:e, s:e]
        M[s:e, s:e] = diag + diag.T  # the block's own lower half (its diagonal is still 0)
    return M


def _gram_operator(M, scale: float, kappa: float,
                   block_elements: int = DEFAULT_BLOCK_ELEMENTS) -> LinearOperator:
    """``K^ v = scale * M v + kappa v`` (the exact diagonal is not stored in M).

    Dense int8 storage is multiplied in row blocks so that the float copy made
    for BLAS never exceeds ``block_elements`` values.
    """
    n = M.shape[0]
    step = max(1, block_elements // max(n, 1))
    dense_int8 = isinstance(M, np.ndarray) and M.dtype == np.int8

    def matmat(V):
        V = np.asarray(V, dtype=np.float64)
        if dense_int8:
            out = np.empty((n,) + V.shape[1:])
            for s in range(0, n, step):
                out[s:s + step] = M[s:s + step].astype(np.float64) @ V
        else:
            out = M @ V
        out *= scale
        out += kappa * V
        return out

    return LinearOperator((n, n), matvec=matmat, matmat=matmat, rmatvec=matmat, rmatmat=matmat,
                          dtype=np.float64)


def round_expansion(A, n_terms: float, rng):
    """Randomized rounding of an expansion's coefficient rows, keeping ``n_terms`` on average.

    Row i is kept with probability ``p_i = min(1, ||A_i|| / tau)`` (``tau`` so
    that ``sum p_i = n_terms``) and divided by ``p_i``: every coefficient is
    unbiased, and one shared draw serves all components, so a new point needs
    kernel values at the kept rows only.

    Returns
    -------
    indices : ndarray of int
        Kept rows.
    coef : ndarray of shape (len(indices), n_columns)
        Their rescaled coefficients.
    probabilities : ndarray of shape (n_rows,)

    Examples
    --------
    >>> A = np.array([[4.0], [1.0], [1.0], [0.0]])
    >>> idx, coef, prob = round_expansion(A, 2, np.random.default_rng(0))
    >>> prob.tolist()
    [1.0, 0.5, 0.5, 0.0]
    """
    A = np.asarray(A, dtype=np.float64)
    a = np.linalg.norm(A, axis=1)
    nonzero = int(np.count_nonzero(a))
    if n_terms >= nonzero:
        prob = (a > 0).astype(np.float64)
    else:
        desc = np.sort(a)[::-1]
        tails = np.cumsum(desc[::-1])[::-1]  # tails[k] = sum of desc[k:]
        ks = np.arange(int(np.ceil(n_terms)))
        taus = tails[ks] / (n_terms - ks)
        # The first k (rows saturated at p = 1) whose next row fits under tau.
        k = int(np.argmax(desc[ks] <= taus))
        prob = np.minimum(1.0, a / taus[k])
    keep = rng.random(a.shape[0]) < prob
    idx = np.flatnonzero(keep)
    return idx, A[idx] / prob[idx, None], prob


def random_sign_projection(n_features_in: int, projection_dim: int, rng) -> np.ndarray:
    """A ``d x k`` matrix of ``+-1/sqrt(k)`` (fair coins): ``E ||R^T x||^2 = ||x||^2``.

    >>> R = random_sign_projection(3, 4, np.random.default_rng(0))
    >>> sorted(set(np.abs(R).ravel().tolist()))
    [0.5]
    """
    signs = np.where(rng.random((n_features_in, projection_dim)) < 0.5, -1.0, 1.0)
    return signs / np.sqrt(projection_dim)
