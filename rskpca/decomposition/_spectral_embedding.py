"""Laplacian eigenmaps on the reduced set: the diffusion map at ``alpha = 0``, ``t = 0``.

The shared fit, affinities and transform are :mod:`rskpca.decomposition._spectral`'s.
"""

from __future__ import annotations

from rskpca.decomposition._spectral import _ReducedSetDiffusion, _TransformerFit

__all__ = ["ReducedSetSpectralEmbedding"]


class ReducedSetSpectralEmbedding(_TransformerFit, _ReducedSetDiffusion):
    """Laplacian eigenmaps on the shadow centers, with out-of-sample transform.

    The random-walk eigenvectors ``psi`` of ``P = D^-1 K W`` (the diffusion map with
    ``alpha = 0``, ``t = 0``): the generalized eigenvectors ``L psi = (1 - lambda) D psi`` of
    the graph Laplacian ``L = D - K`` on the quantized data, which scikit-learn's
    ``SpectralEmbedding`` returns up to scale (see the tests for how its self-loop
    convention is matched). The trivial constant eigenvector is dropped.

    Parameters
    ----------
    n_components : int, default=2
        Number of coordinates; at most m - 1.
    sigma : float or "median", default="median"
        Bandwidth in ``k = exp(-||x-y||^2 / sigma^2)`` (Gaussian) or ``exp(-||x-y|| / sigma)``
        (Laplacian); scikit-learn's ``gamma = 1 / sigma**2``.
    ell : float or None, default=4.0
        Shadow parameter: radius ``eps = sigma / ell``. Larger gives more centers. None: the
        radius is picked for a target of ``max_centers`` centers (which must then be given).
    kernel : {"gaussian", "laplacian"}, default="gaussian"
    affinity : {"gaussian", "landmark", "local_scaling"}, default="gaussian"
        "gaussian": ``kernel`` with the global ``sigma`` on the centers, exact on the quantized
        data (the paper's Section 3). "landmark": every row linked to its ``n_neighbors``
        nearest centers by a local Gaussian whose bandwidth is the rows' mean distance to them
        (Cai & Chen 2015), solved through the centers (``alpha`` has no effect: the graph is
        already degree-normalised). "local_scaling": ``exp(-d^2 / (s_i s_j))`` on the centers
        with ``s`` the distance to the ``n_neighbors``-th nearest center (Zelnik-Manor & Perona
        2004). See :mod:`rskpca.decomposition._spectral_affinities`.
    n_neighbors : int, default=5
        K of the "landmark" and "local_scaling" affinities (ignored by "gaussian").
    regularization : float >= 0 or "auto", default=0.0
        "landmark" only: this fraction of the mean landmark degree is added to every landmark's degree (Qin &
        Rohe 2013), which keeps the leading eigenvectors off a few outlying rows (Zhang & Rohe 2018); the rows'
        degrees are then slightly below 1. 0: the plain random walk. "auto": 0, or the smallest of
        ``AUTO_STEPS`` (0.05, 0.1, 0.2) after which no eigenvector lives on a handful of rows (see
        ``regularization_`` and :mod:`rskpca.decomposition._landmark_graph`).
    max_centers : int or None, default=None
        Ceiling on m: the shadow's eps is widened from ``sigma / ell`` until m fits (see
        ``eps_``). None: the shadow at ``sigma / ell``, whatever its size.
    lloyd_steps : int, default=0
        Lloyd steps that move the centers to the means of their nearest rows (seeded by the
        reduced set); each row then belongs to its nearest center.
    rsde : {"shadow", "kmeans", "uniform", "herding"}, default="shadow"
    m : int or None, default=None
        Number of centers for the non-shadow estimators (ignored by "shadow").
    order : {"input", "random"}, default="input"
    eigen_solver : {"auto", "dense", "arpack"}, default="auto"
    random_state : int, RandomState instance or None, default=None

    Attributes
    ----------
    sigma_ : float
    m_ : int
    centers_ : ndarray of shape (m_, n_features)
    weights_ : ndarray of shape (m_,)
    labels_ : ndarray of shape (n_samples,)
        Shadow center of each training row (``rsde="shadow"`` only).
    eigenvalues_ : ndarray of shape (n_components,)
        Nontrivial eigenvalues of ``P`` (``1 - `` those of the random-walk Laplacian).
    eigenvectors_ : ndarray of shape (m_, n_components)
        ``psi`` at the centers, unit norm in the stationary measure ``w d / sum(w d)``.
    embedding_ : ndarray of shape (m_, n_components)
        Equal to ``eigenvectors_`` (0 for a zero eigenvalue): ``transform(centers_)``.
    density_, degrees_ : ndarray of shape (m_,)
        ``q = K w`` and ``d = K w`` (equal at alpha = 0).
    eigen_solver_ : str
    eps_, bandwidth_, regularization_, scales_
        As in :class:`ReducedSetDiffusionMap`.
    n_features_in_ : int

    See Also
    --------
    ReducedSetDiffusionMap : the general alpha and t.

    References
    ----------
    M. Belkin, P. Niyogi. Laplacian eigenmaps for dimensionality reduction and data
    representation. Neural Computation 15 (2003) 1373-1396.

    Examples
    --------
    >>> import numpy as np
    >>> from rskpca import ReducedSetSpectralEmbedding
    >>> X = np.random.default_rng(0).normal(size=(300, 2))
    >>> se = ReducedSetSpectralEmbedding(n_components=2, sigma=1.0).fit(X)
    >>> se.transform(X).shape
    (300, 2)
    """

    def __init__(self, n_components=2, *, sigma="median", ell=4.0, kernel="gaussian", affinity="gaussian",
                 n_neighbors=5, regularization=0.0, max_centers=None, lloyd_steps=0, rsde="shadow", m=None,
                 order="input", eigen_solver="auto", random_state=None):
        self.n_components = n_components
        self.affinity = affinity
        self.n_neighbors = n_neighbors
        self.regularization = regularization
        self.max_centers = max_centers
        self.lloyd_steps = lloyd_steps
        self.sigma = sigma
        self.ell = ell
        self.kernel = kernel
        self.rsde = rsde
        self.m = m
        self.order = order
        self.eigen_solver = eigen_solver
        self.random_state = random_state

    def _diffusion_parameters(self):
        return 0.0, 0.0
