"""The one text of each parameter that several estimators share, and which estimators share it.

scikit-learn's estimators repeat a shared parameter's description in each docstring, so that
``help(Estimator)`` reads whole; so do these. The text is written once here, the docstrings
carry it word for word, and ``tests/test_parameter_docs.py`` fails when one drifts (it also
checks every documented option set against the estimator's ``_parameter_constraints``).
A parameter whose meaning differs between estimators (``m``: centers, landmarks, features;
``n_components``'s default) is described by each estimator and is not here.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["ParameterDoc", "SHARED_PARAMETER_DOCS", "docstring_entry"]

_KPCA = ("KernelPCA", "ReducedSetKPCA", "SubsampledKPCA", "NystromKPCA", "DensityWeightedNystromKPCA",
         "IterativeKPCA", "ReducedSetConstructionKPCA", "SampledGramKPCA", "RandomFourierKPCA")
#: Estimators that solve a weighted m x m problem with rskpca.core.eigen.kpca_on_centers.
_ON_CENTERS = ("ReducedSetKPCA", "SubsampledKPCA", "NystromKPCA", "DensityWeightedNystromKPCA")
#: Estimators whose budget is m, taken from the shadow at ell when m is None.
#: The spectral transformers, which share their affinity's and centers' parameters.
_TRANSFORMERS = ("ReducedSetDiffusionMap", "ReducedSetSpectralEmbedding")
_M_OR_ELL = ("SubsampledKPCA", "NystromKPCA", "DensityWeightedNystromKPCA", "ReducedSetConstructionKPCA",
             "SampledGramKPCA", "RandomFourierKPCA")


@dataclass(frozen=True)
class ParameterDoc:
    """A parameter's numpydoc type line and description, and the estimators (class names) that carry it."""

    type: str
    description: str
    estimators: tuple[str, ...]


SHARED_PARAMETER_DOCS: dict[str, ParameterDoc] = {
    "sigma": ParameterDoc(
        'float or "median", default="median"',
        'Bandwidth in ``k = exp(-||x-y||^2 / sigma^2)`` (Gaussian; scikit-learn\'s ``gamma = 1 / sigma**2``) '
        'or ``exp(-||x-y|| / sigma)`` (Laplacian). "median": the median pairwise distance on a seeded '
        'subsample (see ``sigma_``).',
        _KPCA),
    "kernel": ParameterDoc(
        '{"gaussian", "laplacian"}, default="gaussian"',
        "The radial kernel (:mod:`rskpca.core.radial_kernels`); the Laplacian's distance is Euclidean.",
        _KPCA),
    "random_state": ParameterDoc(
        "int, RandomState instance or None, default=None",
        "Seeds the fit's random choices (rows or landmarks drawn, k-means starts, solver start vectors); "
        "an int makes fits repeatable.",
        _KPCA),
    "eigen_solver": ParameterDoc(
        '{"auto", "dense", "arpack", "block"}, default="auto"',
        "Solver of the weighted m x m problem (:func:`rskpca.core.eigen.kpca_on_centers`). \"auto\": dense up "
        "to ``rskpca.core.eigen.DENSE_MAX_M`` points or for many components; above it the weighted matrix "
        "is built once in float32 (Gaussian, fewer than ``FLOAT32_MAX_COMPONENTS`` components) and solved "
        "by ARPACK, or by block Krylov from ``BLOCK_MIN_M``, kept only if provably within 1e-3 (subspace "
        "sine) of the float64 answer, else refined by block Krylov steps on the float64 matrix under the "
        "same check, else exact float64 ARPACK. Above ``DENSE_MAX_M`` a fit is thus certified to 1e-3, not "
        "exact to rounding, and with ``random_state=None`` two fits need not agree to the bit (the partial "
        "solvers start from random vectors).",
        _ON_CENTERS),
    "center": ParameterDoc(
        "bool, default=True",
        "Center the kernel in feature space, as every kernel PCA; False solves the uncentered problem "
        "(for :class:`ReducedSetKPCA`, Algorithm 1 literally).",
        _ON_CENTERS),
    "ell": ParameterDoc(
        "float, default=4.0",
        "Only used when ``m=None``: m is then the number of shadow centers at radius ``eps = sigma / ell`` "
        "(larger gives more).",
        _M_OR_ELL),
    "alpha": ParameterDoc(
        "float, default=1.0",
        "Ridge penalty of the ``inverse_transform`` regression (scikit-learn's ``alpha``).",
        ("KernelPCA", "ReducedSetKPCA", "SubsampledKPCA", "NystromKPCA", "DensityWeightedNystromKPCA")),
    # The spectral transformers' affinity and centers (the clustering's defaults differ: its own text).
    "affinity": ParameterDoc(
        '{"gaussian", "landmark", "local_scaling"}, default="gaussian"',
        '"gaussian": ``kernel`` with the global ``sigma`` on the centers, exact on the quantized data (the '
        'paper\'s Section 3). "landmark": every row linked to its ``n_neighbors`` nearest centers by a local '
        "Gaussian whose bandwidth is the rows' mean distance to them (Cai & Chen 2015), solved through the "
        'centers (``alpha`` has no effect: the graph is already degree-normalised). "local_scaling": '
        "``exp(-d^2 / (s_i s_j))`` on the centers with ``s`` the distance to the ``n_neighbors``-th nearest "
        "center (Zelnik-Manor & Perona 2004). See :mod:`rskpca.decomposition._spectral_affinities`.",
        _TRANSFORMERS),
    "n_neighbors": ParameterDoc(
        "int, default=5",
        'K of the "landmark" and "local_scaling" affinities (ignored by "gaussian").',
        _TRANSFORMERS),
    "regularization": ParameterDoc(
        'float >= 0 or "auto", default=0.0',
        '"landmark" only: this fraction of the mean landmark degree is added to every landmark\'s degree (Qin & '
        "Rohe 2013), which keeps the leading eigenvectors off a few outlying rows (Zhang & Rohe 2018); the rows' "
        'degrees are then slightly below 1. 0: the plain random walk. "auto": 0, or the smallest of '
        "``AUTO_STEPS`` (0.05, 0.1, 0.2) after which no eigenvector lives on a handful of rows (see "
        "``regularization_`` and :mod:`rskpca.decomposition._landmark_graph`).",
        _TRANSFORMERS),
    "max_centers": ParameterDoc(
        "int or None, default=None",
        "Ceiling on m: the shadow's eps is widened from ``sigma / ell`` until m fits (see ``eps_``). None: the "
        "shadow at ``sigma / ell``, whatever its size.",
        _TRANSFORMERS),
    "lloyd_steps": ParameterDoc(
        "int, default=0",
        "Lloyd steps that move the centers to the means of their nearest rows (seeded by the reduced set); "
        "each row then belongs to its nearest center.",
        _TRANSFORMERS),
}


def docstring_entry(name: str, indent: int = 4, width: int = 112) -> str:
    """The numpydoc entry of a shared parameter, wrapped as the docstrings carry it.

    >>> print(docstring_entry("alpha"))
        alpha : float, default=1.0
            Ridge penalty of the ``inverse_transform`` regression (scikit-learn's ``alpha``).
    """
    import textwrap

    doc = SHARED_PARAMETER_DOCS[name]
    body = textwrap.fill(doc.description, width=width, initial_indent=" " * (indent + 4),
                         subsequent_indent=" " * (indent + 4), break_long_words=False, break_on_hyphens=False)
    return f"{' ' * indent}{name} : {doc.type}\n{body}"
