"""The affinities of the reduced-set spectral methods, and the centers they are built on.

* ``"gaussian"`` -- one global bandwidth over all pairs of centers (Section 3 of the paper):
  exact on the quantized data, textbook spectral clustering, :mod:`._diffusion`.
* ``"local_scaling"`` -- self-tuning scales on the centers (Zelnik-Manor & Perona 2004),
  :mod:`._local_scaling`, solved by the same weighted m x m diffusion problem.
* ``"landmark"`` -- every row linked to its ``n_neighbors`` nearest centers with a local
  Gaussian (Cai & Chen 2015; Huang et al. 2020), solved through the centers' side,
  :mod:`._landmark_graph`. The rows themselves enter the graph; :meth:`fit_reduced_set`, which
  has only centers and weights, uses the quantized rows (each center ``w`` times), exactly.

Centers: the reduced set of ``rsde`` (:mod:`._reduced_set_choice`) with the shadow's eps
widened to keep ``m <= max_centers`` (:mod:`._center_budget`), then ``lloyd_steps`` Lloyd steps
seeded by them; a refined center is a mean, so ``center_indices_`` is not kept, and each
training row then belongs to its nearest center (the shadow's labels no longer apply). Under a
target budget (``ell=None``) with Lloyd steps the shadow runs on ``SUBSAMPLE_PER_CENTER *
max_centers`` seeded rows, not every row (the centers are only the steps' seeds); the "landmark"
affinity weighs the refined centers in its one nearest-centers pass over the rows.
"""

from __future__ import annotations

from numbers import Integral, Real

import numpy as np
from sklearn.utils._param_validation import Interval, StrOptions

from rskpca.core.row_draws import uniform_rows
from rskpca.decomposition._center_budget import SUBSAMPLE_PER_CENTER, lloyd_refine, nearest_center
from rskpca.decomposition._landmark_graph import (landmark_graph_eigen, landmark_rows, landmark_transform,
                                                  local_bandwidth, nearest_centers)
from rskpca.decomposition._local_scaling import local_scales, local_scaling_matrix, local_scaling_transform
from rskpca.decomposition._reduced_set_choice import select_reduced_set

__all__ = ["AFFINITIES", "AFFINITY_CONSTRAINTS", "_AffinityMixin"]

#: Accepted values of ``affinity``.
AFFINITIES = ("gaussian", "landmark", "local_scaling")

AFFINITY_CONSTRAINTS = {
    "affinity": [StrOptions(set(AFFINITIES))],
    "n_neighbors": [Interval(Integral, 1, None, closed="left")],
    "max_centers": [Interval(Integral, 2, None, closed="left"), None],
    "lloyd_steps": [Interval(Integral, 0, None, closed="left")],
    "regularization": [Interval(Real, 0, None, closed="left"), StrOptions({"auto"})],
}


class _AffinityMixin:
    """Centers within the budget, and the landmark / local-scaling solves and transforms."""

    def _select_centers(self, X, rng):
        """``(centers, weights, row labels or None)``: the reduced set, budgeted and refined."""
        for stale in ("eps_", "bandwidth_", "scales_", "regularization_"):
            self.__dict__.pop(stale, None)
        seeds = self._seed_rows(X, rng)
        C, w, labels = select_reduced_set(self, X if seeds is None else X[seeds], rng)
        refine = self.lloyd_steps > 0 and C.shape[0] >= 2
        if seeds is None and not refine:
            return C, w, labels
        if refine:
            C = lloyd_refine(X if seeds is None else X[seeds], C, self.lloyd_steps, random_state=rng)
            self.__dict__.pop("center_indices_", None)  # means now, not rows
        else:  # (a single center) rows of the seeds: as rows of X
            self.center_indices_ = seeds[self.center_indices_]
        if self.affinity == "landmark":  # its K-nearest-centers pass weighs the centers (one pass over X)
            return C, None, None
        labels = nearest_center(X, C)
        w = np.bincount(labels, minlength=C.shape[0]).astype(np.float64)
        keep = w > 0
        if not np.all(keep):  # a center no row is nearest to carries no mass: drop it
            labels = (np.cumsum(keep) - 1)[labels]
            C, w = C[keep], w[keep]
        return C, w, labels

    def _seed_rows(self, X, rng):
        """Seeded rows the centers are picked from, or None for every row.

        When the centers are only seeds of Lloyd steps under a target budget (``ell=None``),
        the shadow of ``SUBSAMPLE_PER_CENTER * max_centers`` random rows places them as well
        as the full data's would, in one short scan instead of several over every row: U-SPEC
        (Huang et al. 2020) likewise picks its landmarks from a random subset of candidates.
        With a number for ``ell`` the shadow is the one asked for, over every row.
        """
        n, rows = X.shape[0], SUBSAMPLE_PER_CENTER * (self.max_centers or 0)
        if self.lloyd_steps == 0 or self.ell is not None or self.rsde != "shadow" or n <= rows:
            return None
        return uniform_rows(n, rows, rng)

    def _shadow_source(self, m: int) -> str:
        """Where m came from, for error messages: the shadow's settings, or the ``m`` asked for."""
        if not (self.rsde == "shadow" or self.m is None):
            return f"m={m} centers"
        ell = "" if self.ell is None else f", ell={self.ell:g}"
        budget = "" if self.max_centers is None else f", max_centers={self.max_centers}"
        eps = f" (eps={self.eps_:.4g})" if hasattr(self, "eps_") else ""
        return f"the shadow gives m={m} centers at sigma={self.sigma_:.4g}{ell}{budget}{eps}"

    def _check_neighbors(self, m: int) -> None:
        top = m if self.affinity == "landmark" else m - 1
        if self.n_neighbors > top:
            what = "centers" if self.affinity == "landmark" else "other centers"
            raise ValueError(
                f"n_neighbors={self.n_neighbors} exceeds the {top} {what} of this fit (m={m}); lower n_neighbors "
                f"to at most {top}, or get more centers (raise max_centers or ell, or lower sigma).")

    def _solve_landmark(self, X, C, rng, row_weights=None, *, drop_empty=False):
        """The bipartite row-landmark graph of rows X (multiplicities ``row_weights``); X's coordinates.

        ``drop_empty``: centers no row is nearest to are left out (refined centers, which are means).
        """
        self._check_neighbors(C.shape[0])
        k = self._n_eigen()
        r = np.ones(X.shape[0]) if row_weights is None else np.asarray(row_weights, dtype=np.float64)
        idx, dist = nearest_centers(X, C, self.n_neighbors)
        if drop_empty:
            C, idx, dist = _without_empty_centers(X, C, r, idx, dist, self.n_neighbors)
        m = C.shape[0]
        self._check_neighbors(m)
        h = local_bandwidth(dist) if row_weights is None else max(float(r @ dist.mean(axis=1) / r.sum()), 0.0) or 1.0
        Z = landmark_rows(dist, idx, m, h)
        n_linked = int(np.count_nonzero(np.asarray(Z.sum(axis=0)).ravel()))
        if k >= n_linked:
            name = "n_clusters" if getattr(self, "n_components", 0) is None else "n_components"
            raise ValueError(f"{name}={getattr(self, name)} needs {k} nontrivial eigenvectors, but only {n_linked} "
                             f"of the m={m} centers are among some row's {self.n_neighbors} nearest. Lower {name} "
                             f"below {n_linked}, or raise n_neighbors or the number of centers.")
        eig = landmark_graph_eigen(Z, k, row_weights=r, bandwidth=h, regularization=self.regularization,
                                   random_state=rng)
        t = self._diffusion_parameters()[1]  # alpha has no effect: every row of W has degree 1, so q^alpha = 1
        lam = eig.eigenvalues
        # psi = sqrt(N) u is unit in the uniform stationary measure, as the Gaussian's psi is in pi.
        psi_coef = eig.coef * np.sqrt(r.sum())
        self._landmark_coef = psi_coef * np.where(lam > 0, lam ** t, 0.0)[None, :]
        self.centers_ = C
        self.weights_ = np.bincount(idx[:, 0], weights=r, minlength=m).astype(np.float64)
        self.m_ = int(m)
        self.bandwidth_ = h
        self.eigenvalues_ = lam
        self.eigenvectors_ = landmark_transform(C, C, psi_coef, n_neighbors=self.n_neighbors, bandwidth=h)
        self.degrees_ = eig.degrees
        self.density_ = eig.degrees
        self.eigen_solver_ = eig.solver
        self.regularization_ = eig.regularization
        self.embedding_ = self._landmark_transform(C)
        return np.asarray(Z @ self._landmark_coef)

    def _landmark_transform(self, X):
        return landmark_transform(X, self.centers_, self._landmark_coef, n_neighbors=self.n_neighbors,
                                  bandwidth=self.bandwidth_)

    def _local_scaling_affinity(self, C):
        """The m x m local-scaling matrix on C (sets ``scales_``)."""
        self._check_neighbors(C.shape[0])
        self.scales_ = local_scales(C, C, self.n_neighbors)
        return local_scaling_matrix(C, self.scales_)

    def _local_scaling_transform(self, X):
        return local_scaling_transform(X, self.centers_, self.scales_, self._coef, self._denominator,
                                       n_neighbors=self.n_neighbors)



def _without_empty_centers(X, C, r, idx, dist, n_neighbors: int):
    """``(C, idx, dist)`` without the centers no row is nearest to (they carry no mass, as in k-means).

    Only the rows that listed a dropped center among their nearest are searched again.
    """
    kept = np.bincount(idx[:, 0], weights=r, minlength=C.shape[0]) > 0
    if kept.all():
        return C, idx, dist
    C, renumber = C[kept], np.cumsum(kept) - 1
    redo = ~kept[idx].all(axis=1)
    idx = renumber[idx]
    if kept.sum() >= n_neighbors:  # (else the caller's neighbour check says so)
        idx[redo], dist[redo] = nearest_centers(X[redo], C, n_neighbors)
    return C, idx, dist
