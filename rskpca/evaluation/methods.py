"""The registry of kernel PCA methods that the app, the experiments and the benchmarks compare.

Each entry builds an unfitted estimator from the shared settings, so adding a
method here makes it appear everywhere that iterates over :data:`METHODS`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from rskpca.decomposition._reduced_set import (
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


# --- The other speed-ups of the source documents (group "extra", seeds 001, 002, 004) ---------
# Imported here, after the registry above, so that these modules may use rskpca.decomposition._reduced_set
# freely. The iterative methods compute a few leading components: a None rank becomes 2.

from rskpca.approximation._gram_sampling import SampledGramKPCA  # noqa: E402
from rskpca.decomposition._iterative import IterativeKPCA  # noqa: E402
from rskpca.approximation._random_features import RandomFourierKPCA  # noqa: E402
from rskpca.approximation._reduced_set_construction import ReducedSetConstructionKPCA  # noqa: E402

_FEW_COMPONENTS = 2


def _iterative_exact(n_components, sigma, kernel, ell, m, random_state):
    return IterativeKPCA(n_components=n_components or _FEW_COMPONENTS, sigma=sigma, kernel=kernel,
                         random_state=random_state)


def _reduced_set_construction(n_components, sigma, kernel, ell, m, random_state):
    return ReducedSetConstructionKPCA(n_components=n_components or _FEW_COMPONENTS, sigma=sigma,
                                      kernel=kernel, m=m, ell=ell, random_state=random_state)


def _gram_sampling(quantize):
    def build(n_components, sigma, kernel, ell, m, random_state):
        # Equal budget: p = m/n (about m kernel values per row, as Nystrom) when sparsifying,
        # all entries at one bit when quantizing; m expansion terms at evaluation either way.
        return SampledGramKPCA(n_components=n_components or _FEW_COMPONENTS, sigma=sigma, kernel=kernel,
                               p=1.0 if quantize else None, quantize=quantize, expansion_terms="m",
                               m=m, ell=ell, random_state=random_state)
    return build


def _random_fourier(n_components, sigma, kernel, ell, m, random_state):
    return RandomFourierKPCA(n_components=n_components, sigma=sigma, kernel=kernel, m=m, ell=ell,
                             random_state=random_state)


METHODS.update({
    "exact_iterative": Method(
        "exact_iterative", "Exact KPCA (Lanczos, blocked)", _iterative_exact, "extra",
        "Exact KPCA by Lanczos on kernel blocks recomputed per multiply: no n x n matrix held."),
    "rs_construction": Method(
        "rs_construction", "Reduced-set construction", _reduced_set_construction, "extra",
        "Exact KPCA, then eigenvectors rebuilt from m constructed points (Burges; Schoelkopf). "
        "Faster evaluation only: training costs exact KPCA plus the construction."),
    "gram_sparsified": Method(
        "gram_sparsified", "Sparsified Gram matrix", _gram_sampling(False), "extra",
        "Gram entries kept with probability m/n (scaled 1/p), Lanczos on the sparse matrix, "
        "expansion rounded to m terms (Achlioptas, McSherry, Schoelkopf 2001)."),
    "gram_quantized": Method(
        "gram_quantized", "Quantized Gram matrix (1 bit)", _gram_sampling(True), "extra",
        "Gram entries rounded at random to +-1 (unbiased), expansion rounded to m terms "
        "(Achlioptas, McSherry, Schoelkopf 2001)."),
    "random_fourier": Method(
        "random_fourier", "Random Fourier features + PCA", _random_fourier, "extra",
        "Linear PCA on m random Fourier features of the kernel (Rahimi & Recht 2007)."),
})
