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

from rskpca.approximation import RandomFourierKPCA, ReducedSetConstructionKPCA, SampledGramKPCA
from rskpca.core.bandwidth_heuristic import median_heuristic
from rskpca.core.radial_kernels import get_kernel, kernel_matrix
from rskpca.core.shadow import ShadowResult, shadow_centers
from rskpca.decomposition import (
    DensityWeightedNystromKPCA,
    IterativeKPCA,
    KernelPCA,
    NystromKPCA,
    ReducedSetDiffusionMap,
    ReducedSetKPCA,
    ReducedSetSpectralClustering,
    ReducedSetSpectralEmbedding,
    SubsampledKPCA,
)

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
