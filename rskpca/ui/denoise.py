"""The Denoise page's image-shape widgets, kept per data set (the computations are
:mod:`rskpca.ui.compute.denoising`'s)."""

from __future__ import annotations

import streamlit as st

from rskpca.ui import keys as K
from rskpca.ui.compute.denoising import image_shape_guess

__all__ = ["init_image_shape", "remember_image_shape", "swap_image_sides"]


def init_image_shape(digest: str, X) -> None:
    """Set the image-shape widgets for this data set: the shape given before, else the likely one
    (:func:`~rskpca.evaluation.denoising.likely_image_shape`: square, else the grid whose neighbours correlate).

    The shape is kept per data set in an app-owned key, since widget keys are dropped when the
    user visits another page. A new session opened from a link keeps the shape the link gave.
    """
    ss = st.session_state
    if K.IMAGE_SHAPE_FOR not in ss and ss.get("dn_height") is not None and ss.get("dn_width") is not None:
        # a new session that a link gave a shape (rskpca.ui.link_settings): the shape for its data set
        ss[K.IMAGE_SHAPE_FOR] = digest
        return
    saved = ss.get(K.IMAGE_SHAPES, {}).get(digest)
    if "dn_height" not in ss or "dn_width" not in ss or ss.get(K.IMAGE_SHAPE_FOR) != digest:
        ss[K.IMAGE_SHAPE_FOR] = digest
        ss["dn_height"], ss["dn_width"] = saved or image_shape_guess(digest, X)


def remember_image_shape(digest: str) -> tuple[int, int]:
    """The (height, width) the widgets show, remembered for this data set."""
    ss = st.session_state
    h, w = int(ss["dn_height"]), int(ss["dn_width"])
    ss.setdefault(K.IMAGE_SHAPES, {})[digest] = (h, w)
    return h, w


def swap_image_sides() -> None:
    """On a change of the pixel order: height and width swap, so that the drawn images keep their pixels'
    neighbours (an h x w image stored column by column has the neighbours of a w x h one stored row by row)."""
    ss = st.session_state
    if ss.get("dn_height") is not None and ss.get("dn_width") is not None:
        ss["dn_height"], ss["dn_width"] = ss["dn_width"], ss["dn_height"]
