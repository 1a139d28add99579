"""Which embeddings a 3-D embedding figure draws when it may draw only a few scenes.

Each 3-D scene takes a WebGL context of its own and browsers allow only a few per page: :func:`views_in_3d`
keeps the reference, then RSKPCA, then the approximations closest to the reference.
"""

from __future__ import annotations

from collections.abc import Mapping

from rskpca.evaluation.methods import SHADOW_METHOD

__all__ = ["MAX_3D_VIEWS", "views_in_3d"]


#: The most 3-D scenes one embedding figure draws: each scene takes a WebGL context of its own,
#: and browsers allow only a few per page.
MAX_3D_VIEWS = 4


def views_in_3d(labels, errors: Mapping[str, float] | None = None, *, max_views: int = MAX_3D_VIEWS,
                prefer: str = SHADOW_METHOD.label) -> tuple[list[str], list[str]]:
    """Which embeddings a 3-D figure draws when there are more than ``max_views``: ``(drawn, left_out)``.

    The first label (the reference, exact KPCA) always; then ``prefer`` (RSKPCA) when present;
    then the others by lowest alignment error (``errors``; one without an error comes last),
    ties in the given order.

    Parameters
    ----------
    labels : sequence of str
        The embeddings' labels, the reference first (the keys of :func:`embedding_figure`'s
        ``embeddings``).
    errors : mapping of str to float, optional
        Each approximation's alignment error against the reference.
    max_views : int, default=MAX_3D_VIEWS
        The most views drawn.
    prefer : str, default="ShDE + RSKPCA"
        A label drawn right after the reference whatever its error.

    Returns
    -------
    drawn, left_out : list of str
        The labels drawn (the reference first) and those left out, both in the order chosen.

    Examples
    --------
    >>> labels = ["Exact KPCA", "Nystrom", "ShDE + RSKPCA", "k-means RSDE", "Uniform RSDE"]
    >>> views_in_3d(labels, {"Nystrom": 0.3, "ShDE + RSKPCA": 0.5, "k-means RSDE": 0.1, "Uniform RSDE": 0.2})
    (['Exact KPCA', 'ShDE + RSKPCA', 'k-means RSDE', 'Uniform RSDE'], ['Nystrom'])
    """
    errors = errors or {}
    first, *rest = list(labels)
    rest.sort(key=lambda label: (label != prefer, errors.get(label, float("inf"))))
    return [first, *rest[:max_views - 1]], rest[max_views - 1:]
