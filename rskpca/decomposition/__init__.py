"""The kernel PCA estimators: RSKPCA, exact, subsampled, Nystrom, density-weighted Nystrom, iterative exact.

Layer 2 of 6: imports ``rskpca.core`` only.
"""

from rskpca.decomposition.iterative import IterativeKPCA
from rskpca.decomposition._nystrom import DensityWeightedNystromKPCA, NystromKPCA
from rskpca.decomposition._exact import KernelPCA
from rskpca.decomposition._reduced_set import ReducedSetKPCA
from rskpca.decomposition._spectral import ReducedSetDiffusionMap
from rskpca.decomposition._spectral_embedding import ReducedSetSpectralEmbedding
from rskpca.decomposition._spectral_clustering import ReducedSetSpectralClustering
from rskpca.decomposition._subsampled import SubsampledKPCA

__all__ = [
    "ReducedSetKPCA",
    "KernelPCA",
    "SubsampledKPCA",
    "NystromKPCA",
    "DensityWeightedNystromKPCA",
    "IterativeKPCA",
    "ReducedSetDiffusionMap",
    "ReducedSetSpectralEmbedding",
    "ReducedSetSpectralClustering",
]
