"""The Spectral page's session: the last settings whose fit succeeded, shown again when new ones cannot be fitted.

A bad setting (more clusters than shadow centers, a rank the centers cannot give) is said on the page,
and the page goes on showing the last good result for the same data instead of going blank, as the
sidebar keeps the last usable sigma.
"""

from __future__ import annotations

import streamlit as st

from rskpca.ui import keys as K

__all__ = ["remember_good", "last_good"]


def remember_good(digest: str, request) -> None:
    """Keep ``request`` (a :class:`~rskpca.ui.compute.spectral.SpectralRequest`) as the last good one for this data."""
    st.session_state[K.SPECTRAL_GOOD] = (digest, request)


def last_good(digest: str):
    """The last request fitted on the data of ``digest``, or None."""
    kept = st.session_state.get(K.SPECTRAL_GOOD)
    return kept[1] if kept and kept[0] == digest else None
