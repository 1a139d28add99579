"""Other ways to speed up kernel PCA: Gram-matrix sampling, random Fourier features, reduced-set construction.

Layer 3 of 6: imports ``rskpca.core`` and ``rskpca.decomposition``.
"""

from rskpca.approximation._gram_sampling import SampledGramKPCA
from rskpca.approximation._random_features import RandomFourierKPCA
from rskpca.approximation._reduced_set_construction import ReducedSetConstructionKPCA

__all__ = ["SampledGramKPCA", "RandomFourierKPCA", "ReducedSetConstructionKPCA"]
