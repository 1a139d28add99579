"""The registry of linked settings: every setting that changes what a page shows, as it travels in the link.

One entry per setting (:class:`Linked`): the session key it fills, its name in the address bar, how
its text is read (a parser that raises ``ValueError`` with the reason, or clamps into the widget's
range and says so) and written, and its default (a value equal to it is left out of the link, so
links stay short). A page's widgets are linked by one line each here, in one table; :mod:`rskpca.ui.link`
reads and writes them all the same way, so no page carries code of its own for its link.

Settings that name columns or rows (the label, the colour column, the feature columns, the selection)
mean something only for one table: they are read when the table the link names is loaded
(``table=True``), and checked against its columns then.

Left out on purpose: the consents to slow work (``run_slow``, ``emb_run_heavy``, ``embed_all_rows``,
``cv_live``): a link must not start a long computation in the recipient's tab without the prediction
and the question the page asks first. The data, sigma and standardisation are the link's own
(:mod:`rskpca.ui.link`): sigma is a length on one data set's scale.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from rskpca.evaluation.classify import CLASSIFIERS
from rskpca.evaluation.denoising import NOISE_KINDS
from rskpca.ui.compute.spectral import AFFINITIES, CENTER_BUDGETS, SPECTRAL_METHODS
from rskpca.ui.keys import (BOUNDS_ROWS, ELL_RANGE, KEYS, LABEL_COLOUR, NO_LABEL, RANK_RANGE, SPEED_BUDGET_MB,
                            SPEED_BUDGET_SECONDS)
from rskpca.ui.widgets import DEFAULT_GROUPS, METHOD_GROUPS

__all__ = ["Linked", "LINKED", "Clamped", "TableColumns"]


class Clamped(ValueError):
    """A value outside the widget's range, brought into it: ``value`` is used, and the link says so."""

    def __init__(self, value, reason: str) -> None:
        super().__init__(reason)
        self.value = value


@dataclass(frozen=True)
class TableColumns:
    """What a table-bound setting is checked against: the table's columns, its numeric ones, its rows."""

    columns: tuple
    numeric: tuple
    rows: int


@dataclass(frozen=True)
class Linked:
    """One linked setting.

    ``parse(text)`` (``parse(text, table)`` for ``table=True``; ``text`` a list for ``many=True``)
    returns the session value or raises ``ValueError`` saying why it cannot be used
    (:class:`Clamped`: why it was changed, with the value used). ``format(value)`` gives the
    address bar's text (a list for ``many``), or None to leave it out.
    """

    key: str
    param: str
    parse: Callable[..., Any]
    format: Callable[[Any], Any]
    default: Any = None
    table: bool = False
    many: bool = False

    def text(self, value):
        """The address bar's text for ``value``, or None when the link leaves it out (the default, unset)."""
        if value is None or value == self.default or (self.many and not value):
            return None
        return self.format(value)


# --------------------------------------------------------------------------- parsers


def _choice(options, why: str | None = None):
    options = list(options)

    def parse(text):
        for option in options:  # typed back: the options may be numbers
            if str(option) == text:
                return option
        raise ValueError(why or ("use " + (" or ".join(map(str, options)) if len(options) <= 2 else
                                           "one of " + ", ".join(map(str, options)))))
    return parse


def _choices(options):
    one = _choice(options)

    def parse(texts):
        return [one(t) for t in texts]
    return parse


def _number(cast, lo, hi):
    def parse(text):
        try:
            value = cast(float(text)) if cast is int and float(text) == int(float(text)) else cast(text)
        except (TypeError, ValueError):
            raise ValueError("not a number") from None
        if value != value:  # NaN
            raise ValueError("not a number")
        kept = cast(min(max(value, lo), hi))
        if kept != value:
            raise Clamped(kept, f"outside {lo:g}..{hi:g} here")
        return kept
    return parse


def _flag(text):
    if text in ("0", "1"):
        return text == "1"
    raise ValueError("use 1 (on) or 0 (off)")


def _float_text(value) -> str:
    return f"{float(value):.6g}"


def _label(text, table: TableColumns):
    if text == "":
        return NO_LABEL
    if text not in table.columns:
        raise ValueError("the data have no column of that name")
    return text


def _label_text(value) -> str:
    return "" if value == NO_LABEL else str(value)


def _colour(text, table: TableColumns):
    if text not in table.columns:
        raise ValueError("the data have no column of that name")
    return text


def _features(texts, table: TableColumns):
    missing = [t for t in texts if t not in table.numeric]
    if missing:
        raise ValueError(f"{', '.join(repr(t) for t in missing)} {'is' if len(missing) == 1 else 'are'} not a numeric "
                         "column of the data")
    return list(texts)


def _row(text, table: TableColumns):
    row = _number(int, 0, max(table.rows - 1, 0))(text)
    return row


_ON_OFF = (_flag, lambda v: "1" if v else "0")


# --------------------------------------------------------------------------- the registry

_ALL = [
    # the sidebar (every page)
    Linked("kernel", "kernel", _choice(("gaussian", "laplacian")), str, default=None),
    Linked("ell", "ell", _number(float, *ELL_RANGE), lambda v: f"{float(v):g}", default=None),
    Linked("r", "r", _number(int, *RANK_RANGE), lambda v: str(int(v)), default=None),
    # the Data page: the table's choices
    Linked("label_column", "label", _label, _label_text, table=True),
    Linked("colour_column", "colour", _colour, str, default=LABEL_COLOUR, table=True),
    Linked("feature_columns", "features", _features, lambda v: [str(c) for c in v], table=True, many=True),
    Linked("max_rows", "cap", _number(int, 2, 100_000_000), lambda v: str(int(v)), default=None),
    Linked("row_seed", "seed", _number(int, 0, 2**31 - 1), lambda v: str(int(v)), default=0),
    Linked("drop_missing", "drop", *_ON_OFF, default=False),
    Linked("stray_text_missing", "textna", *_ON_OFF, default=False),
    # shared by the comparison pages
    Linked("gram_error", "gram", *_ON_OFF, default=False),
    Linked("sweep_points", "sweep", _choice((5, 10, 19)), str, default=KEYS["sweep_points"]),
    # KDE vs ShDE
    Linked("kde_line_a", "line_a", _row, str, table=True),
    Linked("kde_line_b", "line_b", _row, str, table=True),
    # Embeddings
    Linked("emb_groups", "methods", _choices(METHOD_GROUPS), list, default=list(DEFAULT_GROUPS), many=True),
    Linked("emb_dims", "dims", _choice(("2-D", "3-D")), str, default=KEYS["emb_dims"]),
    # Bounds
    Linked("bounds_max_exact", "rows", _choice(BOUNDS_ROWS, "the measured rows are one of "
                                                + ", ".join(map(str, BOUNDS_ROWS))), str,
           default=KEYS["bounds_max_exact"]),
    Linked("bounds_measured_curves", "measured", *_ON_OFF, default=False),
    # Speedups
    Linked("speed_groups", "speed_methods", _choices(METHOD_GROUPS), list, default=list(DEFAULT_GROUPS), many=True),
    Linked("time_randomized", "randomized", *_ON_OFF, default=False),
    Linked("speed_curves", "curves", *_ON_OFF, default=False),
    Linked("speed_budget_s", "exact_s", _choice(SPEED_BUDGET_SECONDS), str, default=KEYS["speed_budget_s"]),
    Linked("speed_budget_mb", "exact_mb", _choice(SPEED_BUDGET_MB), str, default=KEYS["speed_budget_mb"]),
    # Kernelization
    Linked("classifier", "classifier", _choice(CLASSIFIERS), str, default=KEYS["classifier"]),
    Linked("cv_folds", "folds", _number(int, 2, 10), str, default=KEYS["cv_folds"]),
    # Denoise
    Linked("dn_noise", "noise", _choice(NOISE_KINDS), str, default=KEYS["dn_noise"]),
    Linked("dn_level", "noise_level", _number(float, 0.0, 0.5), _float_text, default=KEYS["dn_level"]),
    Linked("dn_preimage", "preimage", _choice(("ridge", "fixed-point")), str, default=KEYS["dn_preimage"]),
    Linked("dn_alpha", "ridge_alpha", _choice((1e-5, 1e-4, 1e-3, 1e-2, 1e-1, 1.0)), str, default=KEYS["dn_alpha"]),
    Linked("dn_fit_noisy", "fit_noisy", *_ON_OFF, default=False),
    Linked("dn_as_images", "as_images", *_ON_OFF, default=False),
    Linked("dn_column_major", "by_columns", *_ON_OFF, default=False),
    Linked("dn_light_high", "light", *_ON_OFF, default=False),
    Linked("dn_height", "height", _number(int, 1, 1_000_000), lambda v: str(int(v)), default=None),
    Linked("dn_width", "width", _number(int, 1, 1_000_000), lambda v: str(int(v)), default=None),
    # Spectral
    Linked("sp_method", "method", _choice(SPECTRAL_METHODS), str, default=KEYS["sp_method"]),
    Linked("sp_clusters", "k", _number(int, 2, 100), str, default=KEYS["sp_clusters"]),
    Linked("sp_alpha", "alpha", _number(float, 0.0, 1.0), _float_text, default=KEYS["sp_alpha"]),
    Linked("sp_t", "t", _number(float, 0.0, 100.0), _float_text, default=KEYS["sp_t"]),
    Linked("sp_affinity", "affinity", _choice(AFFINITIES), str, default=KEYS["sp_affinity"]),
    Linked("sp_budget", "centers", _choice(CENTER_BUDGETS), str, default=KEYS["sp_budget"]),
]

#: Every linked setting by session key, in the order the link lists them.
LINKED = {entry.key: entry for entry in _ALL if entry.key in KEYS}
