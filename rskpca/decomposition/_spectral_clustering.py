"""Spectral clustering through reduced-set centers, with ``predict`` for new rows.

Two routes, by ``affinity``:

* ``"landmark"`` (the default): the bipartite graph of every row and its ``n_neighbors``
  nearest centers (Cai & Chen 2015; Huang et al. 2020), solved through the m x m side
  (:mod:`rskpca.decomposition._landmark_graph`). A row's coordinates are an average of its
  nearest centers' by its own weights, so k-means runs on the m centers' unit coordinates,
  each counted by the rows nearest to it, and every row -- trained or new -- takes the
  k-means center nearest to its own unit coordinates: ``predict`` on a training row is its
  ``labels_``.
* ``"gaussian"`` / ``"local_scaling"``: the embedding of :mod:`rskpca.decomposition._spectral`
  on the centers (by default Laplacian eigenmaps, ``alpha = 0``, ``t = 0``: the random-walk
  eigenvectors scikit-learn's ``SpectralClustering`` clusters); k-means on the m centers with
  ``sample_weight = w`` (k-means on the quantized data); every training row takes its
  center's cluster, a new row the cluster nearest to its Nystrom coordinates.
"""

from __future__ import annotations

from numbers import Integral, Real

import numpy as np
from sklearn.base import ClusterMixin, _fit_context
from sklearn.cluster import KMeans
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import Interval
from sklearn.utils.validation import check_is_fitted

from rskpca.core.radial_kernels import squared_distances
from rskpca.decomposition._array_backends import distributed_backend
from rskpca.decomposition._spectral import _ReducedSetDiffusion

__all__ = ["ReducedSetSpectralClustering"]


def _unit_rows(E):
    """``[1, E]`` scaled to unit length per row (the constant column is the trivial eigenvector)."""
    F = np.column_stack([np.ones(E.shape[0]), E])
    return F / np.linalg.norm(F, axis=1, keepdims=True)


class ReducedSetSpectralClustering(ClusterMixin, _ReducedSetDiffusion):
    """Spectral clustering through reduced-set centers, with ``predict`` for new rows.

    The defaults are the configuration that clustered best across the labelled data sets of
    ``python tests/benchmarks/bench_spectral.py --cases real`` (table in the README): the
    landmark graph (K = 5 nearest centers, local bandwidth) on at most 900 shadow centers
    refined by 3 Lloyd steps. The shadow's own centers are a cover, spread evenly rather than
    placed at the mass; the Lloyd steps bring them to k-means landmarks' quality (which Cai &
    Chen 2015 found better than random ones) at a fraction of a k-means fit. The paper's
    global-Gaussian method is ``affinity="gaussian", max_centers=None, lloyd_steps=0`` with a
    number for ``ell``: exact on the quantized data, and at k-means level on real data.

    Parameters
    ----------
    n_clusters : int, default=8
        Number of clusters; at most m.
    n_components : int or None, default=None
        Spectral coordinates k-means sees; None: ``n_clusters - 1`` (at least 1), which
        with the trivial constant vector is scikit-learn's ``n_components = n_clusters``.
    sigma : float or "median", default="median"
        Bandwidth of the "gaussian" affinity (``k = exp(-||x-y||^2 / sigma^2)``, scikit-learn's
        ``gamma = 1 / sigma**2``), and the scale the budget search starts from.
    ell : float or None, default=None
        None: the radius is picked by ``max_centers``. A number: the shadow at
        ``eps = sigma / ell``, widened only if it has more than ``max_centers`` centers.
    alpha : float in [0, 1], default=0.0
        Density normalisation of the diffusion map ("gaussian", "local_scaling"; the landmark
        graph is already degree-normalised).
    t : float >= 0, default=0
        Diffusion time of the coordinates ``lambda^t psi``.
    kernel : {"gaussian", "laplacian"}, default="gaussian"
        Kernel of the "gaussian" affinity.
    affinity : {"landmark", "local_scaling", "gaussian"}, default="landmark"
        "landmark": every row linked to its ``n_neighbors`` nearest centers by
        ``exp(-d^2 / 2h^2)``, normalised per row, ``h`` the rows' mean distance to them (Cai &
        Chen 2015, LSC; the transfer cut of Huang et al. 2020). "local_scaling":
        ``exp(-d^2 / (s_i s_j))`` on the centers, ``s`` the distance to the
        ``n_neighbors``-th nearest center (Zelnik-Manor & Perona 2004). "gaussian": the global
        bandwidth ``sigma``.
    n_neighbors : int, default=5
        K of "landmark" (at most m) and "local_scaling" (at most m - 1).
    regularization : float >= 0 or "auto", default="auto"
        "landmark" only: a fraction of the mean landmark degree added to every landmark's
        degree (Qin & Rohe 2013). An outlying row's landmark has a small degree; the plain
        graph's leading eigenvectors then live on a few such rows (a "dangling set", Zhang &
        Rohe 2018) and k-means spends clusters on them: breast_cancer comes out 567 rows
        against 2 (NMI 1.0 against k-means' 54.1). "auto" solves the plain graph and, when
        one of its eigenvectors lives on fewer rows than a tenth of an average cluster, solves
        again at ``AUTO_REGULARIZATION`` (0.05), then 0.1 and 0.2 while one still does:
        breast_cancer NMI 65.4, pendigits' CA 81.0 -> 87.2, and nothing changes on circles,
        moons, USPS or digits, where a fixed regularization would lower the sparser of two true
        clusters (circles: ARI 1.0 -> 0.2; ``python tests/benchmarks/bench_spectral.py --cases
        real``, README's table).
    max_centers : int or None, default=900
        Budget on m. With ``ell=None`` a target: the smallest shadow radius with at most
        ``min(max_centers, max(n // 3, 50))`` centers (each center standing for a few rows; see
        :mod:`rskpca.decomposition._center_budget`); with a number for ``ell`` a ceiling. It
        keeps every step linear in n: the fit costs O(n d max_centers) for the scans and the
        nearest-center search plus O(max_centers^2 k) for the eigenproblem, so wide data
        (USPS's 256 pixels, where the shadow at the median sigma keeps most rows) cannot turn
        into an n x n problem. None needs a number for ``ell``. 900 rather than 1,000: on pendigits
        and USPS it clustered as well or better (NMI 83.1 / 77.1 against 82.3 / 76.6), with fits on
        80 % of the rows agreeing more with the fit on all (95.9 / 94.4 % against 91.9 / 93.9 %),
        in less time (``python tests/benchmarks/bench_spectral.py --cases real,predict``; RESULTS.md
        2026-11-29 19:00).
    lloyd_steps : int, default=3
        Lloyd steps that move the centers to the means of their nearest rows, seeded by the
        reduced set (on at most 50 rows per center); each row then belongs to its nearest
        center. 0 keeps the reduced set as it is.
    rsde : {"shadow", "kmeans", "uniform", "herding"}, default="shadow"
        Reduced-set density estimator; the others need ``m`` (``m=None``: the shadow's m).
    m : int or None, default=None
        Number of centers for the non-shadow estimators (ignored by "shadow").
    order : {"input", "random"}, default="input"
    eigen_solver : {"auto", "dense", "arpack"}, default="auto"
        For "gaussian" and "local_scaling"; the landmark graph is solved densely up to
        m = 2,000 and by ARPACK above.
    n_init : int, default=10
        k-means restarts.
    random_state : int, RandomState instance or None, default=None

    Attributes
    ----------
    labels_ : ndarray of shape (n_samples,)
        Cluster of each training row ("landmark": by its own coordinates, as ``predict``;
        else its center's). On a dask array: a lazy dask array of ``predict`` over the row
        blocks.
    center_labels_ : ndarray of shape (m_,)
        Cluster of each center.
    cluster_centers_ : ndarray of shape (n_clusters, n_components_)
        k-means centers in the spectral coordinates.
    shadow_labels_ : ndarray of shape (n_samples,)
        Center of each training row (the shadow's, or the nearest after ``lloyd_steps``);
        "gaussian" and "local_scaling" only.
    eps_ : float
        Shadow radius used (when the shadow ran).
    bandwidth_ : float
        ``h`` of the "landmark" affinity.
    regularization_ : float
        The regularization the "landmark" fit used (``"auto"`` resolved: 0 or one of ``AUTO_STEPS``).
    scales_ : ndarray of shape (m_,)
        The centers' local scales ("local_scaling").
    n_components_ : int
        Coordinates used.
    sigma_, m_, centers_, weights_, eigenvalues_, eigenvectors_, embedding_, density_, degrees_
        As in :class:`ReducedSetDiffusionMap`.
    n_features_in_ : int

    See Also
    --------
    ReducedSetDiffusionMap, ReducedSetSpectralEmbedding

    Notes
    -----
    With "gaussian" or "local_scaling", ``predict`` on a training row uses its Nystrom
    coordinates, not its center's, so it may differ from ``labels_`` for a row near a
    cluster boundary. ``fit_reduced_set`` (centers and weights only, as the distributed
    shadow gives them) builds the landmark graph on the quantized rows.

    References
    ----------
    A. Y. Ng, M. I. Jordan, Y. Weiss. On spectral clustering: analysis and an algorithm. NIPS 2001.

    D. Cai, X. Chen. Large scale spectral clustering via landmark-based sparse representation.
    IEEE Trans. Cybernetics 45(8) (2015) 1669-1680.

    D. Huang, C.-D. Wang, J.-S. Wu, J.-H. Lai, C.-K. Kwoh. Ultra-scalable spectral clustering
    and ensemble clustering. IEEE TKDE 32(6) (2020) 1212-1226.

    L. Zelnik-Manor, P. Perona. Self-tuning spectral clustering. NIPS 2004.

    Examples
    --------
    >>> from sklearn.datasets import make_moons
    >>> from sklearn.metrics import adjusted_rand_score
    >>> from rskpca import ReducedSetSpectralClustering
    >>> X, y = make_moons(1000, noise=0.05, random_state=0)
    >>> sc = ReducedSetSpectralClustering(n_clusters=2, random_state=0).fit(X)
    >>> round(adjusted_rand_score(y, sc.labels_), 2), sc.m_ <= 1000 // 3, bool((sc.predict(X) == sc.labels_).all())
    (1.0, True, True)
    """

    _parameter_constraints: dict = {
        **_ReducedSetDiffusion._parameter_constraints,
        "n_clusters": [Interval(Integral, 1, None, closed="left")],
        "ell": [Interval(Real, 0, None, closed="neither"), None],
        "n_components": [Interval(Integral, 1, None, closed="left"), None],
        "alpha": [Interval(Real, 0, 1, closed="both")],
        "t": [Interval(Real, 0, None, closed="left")],
        "n_init": [Interval(Integral, 1, None, closed="left")],
    }

    def __init__(self, n_clusters=8, *, n_components=None, sigma="median", ell=None, alpha=0.0, t=0,
                 kernel="gaussian", affinity="landmark", n_neighbors=5, regularization="auto", max_centers=900,
                 lloyd_steps=3, rsde="shadow", m=None, order="input", eigen_solver="auto", n_init=10,
                 random_state=None):
        self.n_clusters = n_clusters
        self.affinity = affinity
        self.n_neighbors = n_neighbors
        self.regularization = regularization
        self.max_centers = max_centers
        self.lloyd_steps = lloyd_steps
        self.n_components = n_components
        self.sigma = sigma
        self.ell = ell
        self.alpha = alpha
        self.t = t
        self.kernel = kernel
        self.rsde = rsde
        self.m = m
        self.order = order
        self.eigen_solver = eigen_solver
        self.n_init = n_init
        self.random_state = random_state

    def _diffusion_parameters(self):
        return float(self.alpha), float(self.t)

    def _n_eigen(self) -> int:
        return int(self.n_components) if self.n_components is not None else max(1, int(self.n_clusters) - 1)

    def _check_rank(self, m: int) -> None:
        if self.max_centers is not None and self.max_centers < self.n_clusters:
            raise ValueError(f"max_centers={self.max_centers} is below n_clusters={self.n_clusters}: each cluster "
                             f"needs a center. Raise max_centers (the default is 900) or lower n_clusters.")
        if self.n_clusters > m:
            raise ValueError(
                f"n_clusters={self.n_clusters} exceeds the number of centers: {self._shadow_source(m)}. Lower "
                f"n_clusters to at most {m}, or get more centers (raise ell or lower sigma, or raise m)."
            )
        super()._check_rank(m)

    def _solve(self, C, w, rng):
        super()._solve(C, w, rng)
        self.n_components_ = self.embedding_.shape[1]
        km = KMeans(n_clusters=self.n_clusters, n_init=self.n_init, random_state=rng.randint(2**31 - 1))
        km.fit(self.embedding_, sample_weight=w)
        self.cluster_centers_ = km.cluster_centers_
        self.center_labels_ = km.labels_.astype(np.intp)
        return self

    def _cluster_centers(self, rng):
        """The "landmark" affinity's k-means: on the centers' unit-length ``[1, coordinates]``, weighted.

        Ng, Jordan & Weiss (2001) cluster the unit rows of the top eigenvectors (the constant
        one included, as LSC does). A row's coordinates are an average of its K nearest
        centers' by its own z(x), so the centers' coordinates, each counted by the rows nearest
        to it (``weights_``), stand for the rows' at O(m) instead of O(n) per k-means pass (the
        same NMI on pendigits and USPS, see tests/benchmarks/RESULTS.md). Every row, trained
        or new, then takes the k-means center nearest to its own unit coordinates.
        """
        km = KMeans(n_clusters=self.n_clusters, n_init=self.n_init, random_state=rng.randint(2**31 - 1))
        km.fit(_unit_rows(self.embedding_), sample_weight=self.weights_)
        self.n_components_ = self.embedding_.shape[1]
        self.cluster_centers_ = km.cluster_centers_
        self.center_labels_ = self._nearest_cluster(self.embedding_)

    def _nearest_cluster(self, Z):
        if self.affinity == "landmark":  # _unit_rows(Z)'s nearest center, in one compiled pass
            from rskpca.core.landmark_kernels import nearest_unit_row  # numba loads here

            out = np.empty(Z.shape[0], np.intp)
            nearest_unit_row(np.ascontiguousarray(Z, dtype=np.float64),
                             np.ascontiguousarray(self.cluster_centers_, dtype=np.float64), out)
            return out
        return np.argmin(squared_distances(Z, self.cluster_centers_), axis=1).astype(np.intp)

    def fit_reduced_set(self, centers, weights, *, sigma=None, center_indices=None):
        """Fit on a reduced set computed elsewhere; see :meth:`ReducedSetDiffusionMap.fit_reduced_set`.

        With ``affinity="landmark"`` the rows are the quantized data (each center ``w`` times).

        Parameters
        ----------
        centers : array-like of shape (m, n_features)
        weights : array-like of shape (m,)
        sigma : float or None, default=None
        center_indices : array-like of shape (m,) or None, default=None

        Returns
        -------
        self : ReducedSetSpectralClustering
        """
        super().fit_reduced_set(centers, weights, sigma=sigma, center_indices=center_indices)
        if self.affinity == "landmark":
            self._cluster_centers(check_random_state(self.random_state))
        return self

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None):
        """Select the reduced set, embed the centers, cluster them, label the rows.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : ignored

        Returns
        -------
        self : ReducedSetSpectralClustering
        """
        self.__dict__.pop("shadow_labels_", None)
        backend = distributed_backend(X)
        if backend is not None:  # the distributed shadow; labels lazily, block by block
            backend.fit(self, X)
            self.labels_ = self._lazy_predict(X)
            return self
        shadow_labels, row_coordinates = self._fit_rows(X)
        if row_coordinates is not None:  # "landmark": each row by its own coordinates
            self._cluster_centers(check_random_state(self.random_state))
            self.labels_ = self._nearest_cluster(row_coordinates)
        elif shadow_labels is not None:
            self.shadow_labels_ = shadow_labels
            self.labels_ = self.center_labels_[shadow_labels]
        else:
            self.labels_ = self.predict(X)
        return self

    def _lazy_predict(self, X):
        rows = X.rechunk({1: -1}) if X.ndim == 2 else X
        return rows.map_blocks(self.predict, dtype=np.intp, drop_axis=1)

    def predict(self, X):
        """Cluster of new rows: the k-means center nearest to their Nystrom coordinates.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        labels : ndarray of shape (n_samples,)
        """
        check_is_fitted(self)
        if distributed_backend(X) is not None:
            return self._lazy_predict(X)
        return self._nearest_cluster(np.asarray(self.transform(X), dtype=np.float64))
