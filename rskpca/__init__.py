"""rskpca: Reduced-Set Kernel PCA with the Shadow Density Estimate.

Subpackages, lowest layer first (a layer imports only those below it; ``import-linter``
checks this in the tests, see ``[tool.importlinter]`` in pyproject.toml):

1. ``core`` (kernels, shadow, other density estimators, eigenproblem, metrics) and ``data`` (readers, samples)
2. ``decomposition`` (the estimators)
3. ``approximation`` (the other speed-ups)
4. ``bounds`` and ``distributed``
5. ``evaluation`` (method registry, comparisons, experiments, benchmarks)
6. ``plotting``; then ``ui`` (Streamlit, the only place that imports it) and ``cli``

``import rskpca`` and everything but ``plotting`` and ``ui`` need none of the app's packages (Streamlit,
Plotly, pyarrow: ``pip install "rskpca[app]"``); nothing here imports those two at import time.

Kernel convention (the paper's eq. 19): ``k(x, y) = phi(||x - y||^p / sigma^p)``;
Gaussian ``exp(-||x-y||^2 / sigma^2)`` (scikit-learn ``gamma = 1/sigma**2``),
Laplacian ``exp(-||x-y|| / sigma)``.
"""

import importlib

# The public names load on first use (PEP 562): ``import rskpca`` itself is instant, so a page of the
# app can say that it is loading before scikit-learn's several seconds of imports (rskpca.ui.first_visit).
_EXPORTS = {
    **{name: "rskpca.approximation" for name in ("RandomFourierKPCA", "ReducedSetConstructionKPCA",
                                                   "SampledGramKPCA")},
    "median_heuristic": "rskpca.core.bandwidth_heuristic",
    "get_kernel": "rskpca.core.radial_kernels", "kernel_matrix": "rskpca.core.radial_kernels",
    "ShadowResult": "rskpca.core.shadow", "shadow_centers": "rskpca.core.shadow",
    **{name: "rskpca.decomposition" for name in (
        "DensityWeightedNystromKPCA", "IterativeKPCA", "KernelPCA", "NystromKPCA", "ReducedSetDiffusionMap",
        "ReducedSetKPCA", "ReducedSetSpectralClustering", "ReducedSetSpectralEmbedding", "SubsampledKPCA")},
}

__version__ = "0.1.0"

__all__ = [
    "shadow_centers",
    "ShadowResult",
    "ReducedSetKPCA",
    "KernelPCA",
    "NystromKPCA",
    "DensityWeightedNystromKPCA",
    "SubsampledKPCA",
    "IterativeKPCA",
    "ReducedSetDiffusionMap",
    "ReducedSetSpectralEmbedding",
    "ReducedSetSpectralClustering",
    "SampledGramKPCA",
    "RandomFourierKPCA",
    "ReducedSetConstructionKPCA",
    "get_kernel",
    "kernel_matrix",
    "median_heuristic",
    "__version__",
]


def __getattr__(name: str):
    if name not in _EXPORTS:  # a subpackage (rskpca.plotting, ...) is imported by its own name
        raise AttributeError(f"module 'rskpca' has no attribute {name!r}")
    value = getattr(importlib.import_module(_EXPORTS[name]), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(__all__))
