"""The registry of kernel PCA methods that the app, the experiments and the benchmarks compare.

Each entry builds an unfitted estimator from the shared settings and declares what the
comparisons need to know about it, so nothing downstream inspects a fitted estimator to
guess: which fitted attribute holds the reduced set (and so m), whether new points are
projected through the whole training set, whether it perturbs the Gram matrix (and so has
``gram_error``), its cost class and its measured cost on all rows, whether it is exact KPCA or
fits on a precomputed shadow, and which of the named comparisons (:data:`ROLES`) it belongs to.
Adding a method here makes it appear everywhere that iterates over :data:`METHODS`; the rest of
the package asks the registry (:data:`REFERENCE`, :data:`SHADOW_METHOD`, :func:`methods_in`)
rather than spelling a method's name (``tests/test_method_names.py`` fails on a name spelled
elsewhere).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Sequence

from rskpca.approximation import RandomFourierKPCA, ReducedSetConstructionKPCA, SampledGramKPCA
from rskpca.evaluation._measured_costs import SECONDS_PER_NM
from rskpca.decomposition import (
    DensityWeightedNystromKPCA,
    IterativeKPCA,
    KernelPCA,
    NystromKPCA,
    ReducedSetKPCA,
    SubsampledKPCA,
)

__all__ = ["Method", "METHODS", "ROLES", "REFERENCE", "SHADOW_METHOD", "SLOW_ABOVE_M", "SLOW_AT_LARGE_M",
           "make_estimator", "method_names", "methods_in", "check_methods", "perturbs_gram"]

#: Above this m the methods of cost class "slow_at_large_m" take seconds (k-means and herding
#: iterate over n x m distances; reduced-set construction searches a pre-image over all n rows for
#: each of its m points): the app runs them only when asked.
SLOW_ABOVE_M = 400

#: The named comparisons a method can belong to (:attr:`Method.roles`), each listed by :func:`methods_in`.
ROLES = {
    "paper_embeddings": "the paper's Figures 2-5: shadow RSKPCA against its Section 6 baselines",
    "paper_rsde": "the paper's Figures 7-8: RSKPCA with other reduced-set density estimators at the shadow's m",
    "methods_bench": "rskpca bench --mode methods by default: exact KPCA two ways, RSKPCA, Nystrom, the speed-ups",
}


@dataclass(frozen=True)
class Method:
    """A named way to compute (approximate) kernel PCA, with the capabilities comparisons use.

    Attributes
    ----------
    name : str
        Registry key.
    label : str
        Display label (tables, legends, colours).
    build : callable
        ``build(n_components, sigma, kernel, ell, m, random_state)`` returns an unfitted
        estimator; ``m`` is the shadow's m at ``ell`` for methods that need a budget (so
        comparisons are at equal m) and is ignored by the others.
    group : str
        ``"exact"``, ``"rskpca"``, ``"baseline"`` (the paper's Section 6), ``"rsde"`` (its
        Figures 7-8) or ``"extra"`` (other speed-ups).
    description : str
    reduced_set : tuple of (str, int) or None
        ``(fitted attribute, axis)`` whose length along ``axis`` is the reduced-set size m
        (centers, landmarks, expansion points, random features); None: all n training rows.
    projects_through_training_set : bool
        New points are projected through all n training rows (Nystrom-type and exact KPCA),
        so they store n points rather than m.
    perturbs_gram : bool
        Solves kernel PCA on a perturbed Gram matrix and has ``gram_error(X)``.
    cost : str
        ``"fast"``, or ``"slow_at_large_m"`` (training grows like n m iterations).
    reports_train_parts : bool
        The fitted estimator has ``fit_time_breakdown_`` (seconds per part of its fit).
    exact_kpca : bool
        It is exact kernel PCA (the reference, however solved): fitted on the rows an exact plan
        allows, never on all rows of a large data set.
    fits_on_shadow : bool
        Its reduced set is the shadow itself, so a shadow computed once (``ShadowResult``) can be
        passed to its fit instead of being computed again.
    embeds_all_rows : bool
        Fitting on all n rows and embedding every row costs O(n m) (the app offers it on all rows);
        the others need the n x n kernel.
    all_rows_bytes_per_nm : int
        Bytes per (row x center) it holds while fitting on all rows (0: it embeds in blocks).
    same_rows_as_subsampled : bool
        It draws the same m uniform rows as subsampled KPCA for one seed, unweighted (Nystrom's
        training embedding is then subsampled KPCA's projection of those rows: the two agree).
    roles : tuple of str
        The named comparisons of :data:`ROLES` it belongs to.
    """

    name: str
    label: str
    build: Callable[..., object]
    group: str
    description: str = ""
    reduced_set: tuple[str, int] | None = None
    projects_through_training_set: bool = False
    perturbs_gram: bool = False
    cost: str = "fast"
    reports_train_parts: bool = False
    exact_kpca: bool = False
    fits_on_shadow: bool = False
    embeds_all_rows: bool = False
    all_rows_bytes_per_nm: int = 0
    same_rows_as_subsampled: bool = False
    roles: tuple[str, ...] = ()

    @property
    def seconds_per_nm(self) -> float | None:
        """Seconds per (row x center) of fitting on all rows and embedding every row, as measured
        (``tests/benchmarks/bench_costs.py --write``); None where it was not (no O(nm) all-rows fit)."""
        return SECONDS_PER_NM.get(self.name) if self.embeds_all_rows else None

    def reduced_size(self, estimator, n_train: int) -> int:
        """Points (or features) the eigenproblem was solved on: m, or n for exact KPCA."""
        if self.reduced_set is None:
            return int(n_train)
        attribute, axis = self.reduced_set
        return int(getattr(estimator, attribute).shape[axis])

    def stored_points(self, estimator, n_train: int) -> int:
        """Points a new x is projected through (the paper's Table 2 storage)."""
        return int(n_train) if self.projects_through_training_set else self.reduced_size(estimator, n_train)

    def slow_at(self, m: int) -> bool:
        """Whether fitting at this m takes long enough that an interactive view should ask first.

        >>> METHODS["rskpca_kmeans"].slow_at(SLOW_ABOVE_M + 1), METHODS["rskpca"].slow_at(10**6)
        (True, False)
        """
        return self.cost == "slow_at_large_m" and m > SLOW_ABOVE_M


#: The iterative methods compute a few leading components: a None rank becomes this.
_FEW_COMPONENTS = 2


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


_CENTERS = ("centers_", 0)
#: Nystrom on all rows holds its float64 n x m kernel block and its centered copy.
_NYSTROM_BYTES_PER_NM = 16
_LANDMARKS = ("landmarks_", 0)

METHODS: dict[str, Method] = {m.name: m for m in (
    Method("exact", "Exact KPCA", _exact, "exact", "Kernel PCA on all n points.",
           projects_through_training_set=True, exact_kpca=True, roles=("methods_bench",)),
    Method("rskpca", "ShDE + RSKPCA", _rskpca("shadow"), "rskpca",
           "Shadow centers weighted by absorbed points; projects through m centers.", reduced_set=_CENTERS,
           fits_on_shadow=True, embeds_all_rows=True, roles=("paper_embeddings", "paper_rsde", "methods_bench")),
    Method("subsampled", "Subsampled KPCA", _with_m(SubsampledKPCA), "baseline",
           "KPCA on m uniform rows, unweighted.", reduced_set=_CENTERS, embeds_all_rows=True,
           same_rows_as_subsampled=True, roles=("paper_embeddings",)),
    Method("nystrom", "Nystrom", _with_m(NystromKPCA), "baseline",
           "m uniform landmarks extended to the n training points.", reduced_set=_LANDMARKS,
           projects_through_training_set=True, embeds_all_rows=True, all_rows_bytes_per_nm=_NYSTROM_BYTES_PER_NM,
           same_rows_as_subsampled=True, roles=("paper_embeddings", "methods_bench")),
    Method("wnystrom", "Density-weighted Nystrom", _with_m(DensityWeightedNystromKPCA), "baseline",
           "k-means landmarks weighted by cluster size (Zhang & Kwok 2010).", reduced_set=_LANDMARKS,
           projects_through_training_set=True, cost="slow_at_large_m", embeds_all_rows=True,
           all_rows_bytes_per_nm=_NYSTROM_BYTES_PER_NM, roles=("paper_embeddings",)),
    Method("rskpca_kmeans", "RSKPCA (k-means)", _rskpca("kmeans"), "rsde",
           "RSKPCA with k-means centers and cluster sizes.", reduced_set=_CENTERS, cost="slow_at_large_m",
           embeds_all_rows=True, roles=("paper_rsde",)),
    Method("rskpca_uniform", "RSKPCA (KDE paring)", _rskpca("uniform"), "rsde",
           "RSKPCA with m uniform rows weighted n/m.", reduced_set=_CENTERS, embeds_all_rows=True,
           roles=("paper_rsde",)),
    Method("rskpca_herding", "RSKPCA (kernel herding)", _rskpca("herding"), "rsde",
           "RSKPCA with kernel-herding super-samples.", reduced_set=_CENTERS, cost="slow_at_large_m",
           embeds_all_rows=True, roles=("paper_rsde",)),
    Method("exact_iterative", "Exact KPCA (Lanczos, blocked)", _iterative_exact, "extra",
           "Exact KPCA by Lanczos on kernel blocks recomputed per multiply: no n x n matrix held.",
           projects_through_training_set=True, exact_kpca=True, roles=("methods_bench",)),
    Method("rs_construction", "Reduced-set construction", _reduced_set_construction, "extra",
           "Exact KPCA, then eigenvectors rebuilt from m constructed points (Burges 1996; Schoelkopf et "
           "al. 1999). Faster evaluation only: training costs exact KPCA plus the construction.",
           reduced_set=("reduced_set_", 0), reports_train_parts=True, cost="slow_at_large_m",
           roles=("methods_bench",)),
    Method("gram_sparsified", "Sparsified Gram matrix", _gram_sampling(False), "extra",
           "Gram entries kept with probability m/n (scaled 1/p), Lanczos on the sparse matrix, "
           "expansion rounded to m terms (Achlioptas, McSherry & Schoelkopf 2001).",
           reduced_set=("expansion_points_", 0), perturbs_gram=True, roles=("methods_bench",)),
    Method("gram_quantized", "Quantized Gram matrix (1 bit)", _gram_sampling(True), "extra",
           "Gram entries rounded at random to +-1 (unbiased), expansion rounded to m terms "
           "(Achlioptas, McSherry & Schoelkopf 2001).",
           reduced_set=("expansion_points_", 0), perturbs_gram=True, roles=("methods_bench",)),
    Method("random_fourier", "Random Fourier features + PCA", _random_fourier, "extra",
           "Linear PCA on m random Fourier features of the kernel (Rahimi & Recht 2007).",
           reduced_set=("random_weights_", 1), embeds_all_rows=True, roles=("methods_bench",)),
)}

#: Exact KPCA: the reference every comparison measures against.
REFERENCE = METHODS["exact"]
#: The paper's method: shadow (ShDE) centers and reduced-set KPCA.
SHADOW_METHOD = METHODS["rskpca"]

#: Names of the methods whose cost class is "slow_at_large_m".
SLOW_AT_LARGE_M = tuple(name for name, method in METHODS.items() if method.cost == "slow_at_large_m")


def method_names(*groups: str) -> list[str]:
    """Names of the registered methods in the given groups (all if none given)."""
    return [k for k, v in METHODS.items() if not groups or v.group in groups]


def methods_in(role: str) -> tuple[str, ...]:
    """Names of the registered methods in one of the named comparisons of :data:`ROLES`, in registry order.

    >>> methods_in("paper_embeddings")
    ('rskpca', 'subsampled', 'nystrom', 'wnystrom')
    """
    if role not in ROLES:
        raise ValueError(f"Unknown role {role!r}; roles: {sorted(ROLES)}.")
    return tuple(name for name, method in METHODS.items() if role in method.roles)


def check_methods(names: Sequence[str]) -> list[str]:
    """The names, each checked against the registry (a clear error lists the choices).

    >>> check_methods(["rskpca"])
    ['rskpca']
    """
    names = list(names)
    unknown = [n for n in names if n not in METHODS]
    if unknown:
        raise ValueError(f"Unknown method(s) {unknown}; registered: {sorted(METHODS)}.")
    if not names:
        raise ValueError(f"No methods given; name at least one of {sorted(METHODS)}.")
    return names


def perturbs_gram(name: str) -> bool:
    """Whether the registered method ``name`` perturbs the Gram matrix (and so can report ``gram_error``).

    >>> perturbs_gram("gram_sparsified"), perturbs_gram("rskpca")
    (True, False)
    """
    return METHODS[check_methods([name])[0]].perturbs_gram


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
