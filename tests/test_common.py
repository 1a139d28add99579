"""scikit-learn's estimator checks over every estimator in the package."""

from sklearn.utils.estimator_checks import parametrize_with_checks

from rskpca import (
    DensityWeightedNystromKPCA,
    KernelPCA,
    NystromKPCA,
    ReducedSetKPCA,
    SubsampledKPCA,
)

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
]


def _expected_failed_checks(estimator):
    return {}


@parametrize_with_checks(ESTIMATORS, expected_failed_checks=_expected_failed_checks)
def test_sklearn_compatible_estimator(estimator, check):
    check(estimator)
