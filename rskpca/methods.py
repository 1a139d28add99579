"""The registry of kernel PCA methods that the app, the experiments and the benchmarks compare.

Each entry builds an unfitted estimator from the shared settings, so adding a
method here makes it appear everywhere that iterates over :data:`METHODS`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from rskpca.decomposition import (
    DensityWeightedNystromKPCA,
    KernelPCA,
    NystromKPCA,
    ReducedSetKPCA,
    SubsampledKPCA,
)

__all__ = ["Method", "METHODS", "make_estimator", "method_names"]


@dataclass(frozen=True)
class Method:
    """A named way to compute (approximate) kernel PCA.

    ``build(n_components, sigma, kernel, ell, m, random_state)`` returns an
    unfitted estimator; ``m`` is the shadow's m at ``ell`` for methods that need
    a budget (so comparisons are at equal m), and is ignored by the others.
    """

    name: str
    label: str
    build: Callable[..., object]
    group: str  # "exact", "rskpca", "baseline" (Section 6), "rsde" (Figs 7-8), "extra" (other seeds)
    description: str = ""
    tags: tuple[str, ...] = field(default_factory=tuple)


def _rskpca(rsde):
    def build(n_components, sigma, kernel, ell, m, random_state):
        return ReducedSetKPCA(n_components=n_components, sigma=sigma, kernel=kernel, ell=ell,
                              rsde=rsde, m=None if rsde == "shadow" else m, random_state=random_state)
    return build


def _with_m(cls):
    def build(n_components, sigma, kernel, ell, m, random_state):
        return cls(n_components=n_components, sigma=sigma, kernel=kernel, m=m, ell=ell,
                   random_state=random_state)
    return build


def _exact(n_components, sigma, kernel, ell, m, random_state):
    return KernelPCA(n_components=n_components, sigma=sigma, kernel=kernel, random_state=random_state)


METHODS: dict[str, Method] = {
    "exact": Method("exact", "Exact KPCA", _exact, "exact", "Kernel PCA on all n points."),
    "rskpca": Method("rskpca", "ShDE + RSKPCA", _rskpca("shadow"), "rskpca",
                     "Shadow centers weighted by absorbed points; projects through m centers."),
    "subsampled": Method("subsampled", "Subsampled KPCA", _with_m(SubsampledKPCA), "baseline",
                         "KPCA on m uniform rows, unweighted."),
    "nystrom": Method("nystrom", "Nystrom", _with_m(NystromKPCA), "baseline",
                      "m uniform landmarks extended to the n training points."),
    "wnystrom": Method("wnystrom", "Density-weighted Nystrom", _with_m(DensityWeightedNystromKPCA),
                       "baseline", "k-means landmarks weighted by cluster size (Zhang & Kwok 2010)."),
    "rskpca_kmeans": Method("rskpca_kmeans", "RSKPCA (k-means)", _rskpca("kmeans"), "rsde",
                            "RSKPCA with k-means centers and cluster sizes."),
    "rskpca_uniform": Method("rskpca_uniform", "RSKPCA (KDE paring)", _rskpca("uniform"), "rsde",
                             "RSKPCA with m uniform rows weighted n/m."),
    "rskpca_herding": Method("rskpca_herding", "RSKPCA (kernel herding)", _rskpca("herding"), "rsde",
                             "RSKPCA with kernel-herding super-samples."),
}


def method_names(*groups: str) -> list[str]:
    """Names of the registered methods in the given groups (all if none given)."""
    return [k for k, v in METHODS.items() if not groups or v.group in groups]


def make_estimator(name: str, *, n_components, sigma, kernel="gaussian", ell=4.0, m=None,
                   random_state=0):
    """Build the unfitted estimator registered under ``name``.

    >>> make_estimator("nystrom", n_components=2, sigma=1.0, m=10).m
    10
    """
    try:
        method = METHODS[name]
    except KeyError:
        raise ValueError(f"Unknown method {name!r}; choose from {sorted(METHODS)}.") from None
    return method.build(n_components, sigma, kernel, ell, m, random_state)
