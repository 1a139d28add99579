"""rskpca: Reduced-Set Kernel PCA with the Shadow Density Estimate.

Kernel convention (the paper's eq. 19): ``k(x, y) = phi(||x - y||^p / sigma^p)``;
Gaussian ``exp(-||x-y||^2 / sigma^2)`` (scikit-learn ``gamma = 1/sigma**2``),
Laplacian ``exp(-||x-y|| / sigma)``.
"""

from rskpca.decomposition import (
    DensityWeightedNystromKPCA,
    KernelPCA,
    NystromKPCA,
    ReducedSetKPCA,
    SubsampledKPCA,
)
from rskpca.gram_sampling import SampledGramKPCA
from rskpca.iterative import IterativeKPCA
from rskpca.kernels import get_kernel, kernel_matrix, median_heuristic
from rskpca.random_features import RandomFourierKPCA
from rskpca.reduced_set_construction import ReducedSetConstructionKPCA
from rskpca.shadow import ShadowResult, shadow_centers

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
    "SampledGramKPCA",
    "RandomFourierKPCA",
    "ReducedSetConstructionKPCA",
    "get_kernel",
    "kernel_matrix",
    "median_heuristic",
    "__version__",
]
