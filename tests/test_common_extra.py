"""scikit-learn's estimator checks over the other speed-ups (seeds 001, 002, 004, iterative exact)."""

from sklearn.utils.estimator_checks import parametrize_with_checks

from rskpca.approximation._gram_sampling import SampledGramKPCA
from rskpca.decomposition._iterative import IterativeKPCA
from rskpca.approximation._random_features import RandomFourierKPCA
from rskpca.approximation._reduced_set_construction import ReducedSetConstructionKPCA

ESTIMATORS = [
    IterativeKPCA(n_components=2, random_state=0),
    IterativeKPCA(n_components=2, solver="orthogonal", random_state=0),
    SampledGramKPCA(n_components=2, p=0.5, expansion_terms=10, random_state=0),
    SampledGramKPCA(n_components=2, p=0.2, quantize=True, projection_dim=3, random_state=0),
    RandomFourierKPCA(n_components=2, m=20, random_state=0),
    RandomFourierKPCA(n_components=2, kernel="laplacian", random_state=0),
    ReducedSetConstructionKPCA(n_components=2, m=5, random_state=0),
    ReducedSetConstructionKPCA(n_components=2, kernel="laplacian", random_state=0),
]


def _expected_failed_checks(estimator):
    return {}


@parametrize_with_checks(ESTIMATORS, expected_failed_checks=_expected_failed_checks)
def test_sklearn_compatible_estimator(estimator, check):
    check(estimator)
