"""Theorem bounds for tables: tidy rows (:func:`bounds_table`) and which data rows they were computed on.

:func:`rows_statement` says, in a short sentence for tables and captions, whether a theorem's
measured and a-posteriori values are on all rows or on a seeded sample (see
:mod:`rskpca.bounds._theorems` for why they can differ).
"""

from __future__ import annotations

from rskpca.bounds._closed_form import BoundValue

__all__ = ["bounds_table", "rows_statement"]


def bounds_table(res: dict) -> list[dict]:
    """Tidy rows (one per theorem) for tables and CSV downloads.

    Parameters
    ----------
    res : dict
        The output of :func:`~rskpca.bounds.theorem_bounds`.

    Returns
    -------
    list of dict
        One row per theorem, sorted by theorem, with the fields of :class:`BoundValue`.

    Examples
    --------
    >>> import numpy as np
    >>> from rskpca import shadow_centers
    >>> from rskpca.bounds import theorem_bounds
    >>> X = np.random.default_rng(0).normal(size=(50, 2))
    >>> rows = bounds_table(theorem_bounds(X, shadow_centers(X, sigma=1.0, ell=3.0), n_components=2))
    >>> [r["theorem"] for r in rows], sorted(rows[0])[:3]
    (['5.1', '5.2', '5.3', '5.4'], ['a_posteriori', 'a_priori', 'applies'])
    """
    rows = []
    for key in sorted(res):
        value = res[key]
        if not isinstance(value, BoundValue):
            raise ValueError(f"bounds_table expects the dict of theorem_bounds; entry {key!r} is "
                             f"{type(value).__name__}, not a BoundValue.")
        rows.append(value.as_dict())
    return rows


#: The theorems whose measured value is exact KPCA itself (its spectra); 5.1 and 5.3 sum the exact kernel matrix.
_SPECTRAL_THEOREMS = ("5.2", "5.4")


def rows_statement(row) -> str:
    """Which rows one theorem's numbers were computed on, in a short sentence for tables and captions.

    Parameters
    ----------
    row : BoundValue or dict
        A :class:`BoundValue` or a row of :func:`bounds_table` (``theorem``, ``n_measured``,
        ``n_a_posteriori``).

    Returns
    -------
    str
        E.g. ``"measured against exact KPCA on a seeded sample of 2,000 rows; the bound on all
        1,000,000 rows"``.

    Examples
    --------
    >>> rows_statement({"theorem": "5.2", "n_measured": 2000, "n_a_posteriori": 1_000_000})
    'measured against exact KPCA on a seeded sample of 2,000 rows; the bound on all 1,000,000 rows'
    >>> rows_statement({"theorem": "5.1", "n_measured": 500, "n_a_posteriori": 500})
    'measured and bound on all 500 rows'
    >>> rows_statement({"theorem": "5.4", "n_measured": 500, "n_a_posteriori": 500, "n_total": 9000})
    'measured and bound against exact KPCA on a seeded sample of 500 of 9,000 rows (the bound needs its eigengap)'
    """
    if isinstance(row, BoundValue):
        row = row.as_dict()
    theorem, s = str(row["theorem"]), int(row["n_measured"])
    posterior = int(row.get("n_a_posteriori") or s)
    total = int(row.get("n_total") or posterior)
    exact = " against exact KPCA" if theorem in _SPECTRAL_THEOREMS else " (its exact kernel matrix)"
    if posterior > s:
        if theorem in _SPECTRAL_THEOREMS:
            return f"measured{exact} on a seeded sample of {s:,} rows; the bound on all {posterior:,} rows"
        return f"measured on a seeded sample of {s:,} rows{exact}; the bound on all {posterior:,} rows"
    if total > s:
        return (f"measured and bound{exact} on a seeded sample of {s:,} of {total:,} rows (the bound needs its "
                "eigengap)")
    return f"measured and bound on all {s:,} rows"
