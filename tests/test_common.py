"""scikit-learn's estimator checks over every estimator in the package."""

from sklearn.utils.estimator_checks import parametrize_with_checks

from rskpca import (
    DensityWeightedNystromKPCA,
    KernelPCA,
    NystromKPCA,
    ReducedSetDiffusionMap,
    ReducedSetKPCA,
    ReducedSetSpectralClustering,
    ReducedSetSpectralEmbedding,
    SubsampledKPCA,
)
from rskpca.approximation._gram_sampling import SampledGramKPCA
from rskpca.approximation._random_features import RandomFourierKPCA
from rskpca.approximation._reduced_set_construction import ReducedSetConstructionKPCA
from rskpca.decomposition.iterative import IterativeKPCA

ESTIMATORS = [
    ReducedSetKPCA(n_components=2, random_state=0),
    ReducedSetKPCA(n_components=2, rsde="kmeans", random_state=0),
    ReducedSetKPCA(n_components=2, rsde="uniform", random_state=0),
    ReducedSetKPCA(n_components=2, rsde="herding", random_state=0),
    ReducedSetKPCA(n_components=2, center=False, order="random", random_state=0),
    SubsampledKPCA(n_components=2, random_state=0),
    NystromKPCA(n_components=2, random_state=0),
    DensityWeightedNystromKPCA(n_components=2, random_state=0),
    KernelPCA(n_components=2, random_state=0),
    IterativeKPCA(n_components=2, random_state=0),
    IterativeKPCA(n_components=2, solver="orthogonal", random_state=0),
    SampledGramKPCA(n_components=2, p=0.5, expansion_terms=10, random_state=0),
    SampledGramKPCA(n_components=2, p=0.2, quantize=True, projection_dim=3, random_state=0),
    RandomFourierKPCA(n_components=2, m=20, random_state=0),
    RandomFourierKPCA(n_components=2, kernel="laplacian", random_state=0),
    ReducedSetConstructionKPCA(n_components=2, m=5, random_state=0),
    ReducedSetConstructionKPCA(n_components=2, kernel="laplacian", random_state=0),
    # with the learned pre-image (inverse_transform)
    ReducedSetKPCA(n_components=2, fit_inverse_transform=True, alpha=0.1, random_state=0),
    SubsampledKPCA(n_components=2, fit_inverse_transform=True, random_state=0),
    NystromKPCA(n_components=2, fit_inverse_transform=True, random_state=0),
    KernelPCA(n_components=2, fit_inverse_transform=True, random_state=0),
    # the spectral methods on the shadow (Section 3, eqs. 14-15); ell=16: the checks' tight
    # two-blob data gives only 2 centers at ell=4, and P on m centers has m - 1 nontrivial vectors
    ReducedSetDiffusionMap(n_components=2, ell=16.0, random_state=0),
    ReducedSetDiffusionMap(n_components=2, ell=16.0, alpha=0.5, t=2, rsde="uniform", random_state=0),
    ReducedSetSpectralEmbedding(n_components=2, ell=16.0, random_state=0),
    ReducedSetSpectralClustering(n_clusters=3, ell=16.0, random_state=0),
    ReducedSetSpectralClustering(n_clusters=3, ell=16.0, rsde="kmeans", random_state=0),
]


@parametrize_with_checks(ESTIMATORS)
def test_sklearn_compatible_estimator(estimator, check):
    check(estimator)
