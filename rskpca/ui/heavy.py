"""Asking before work over the whole ell grid on big data (the scrubbers and the curves over ell).

A curve over ell or an ell scrubber needs the shadow at every ell of a grid of
:data:`rskpca.ui.compute.SCRUB_ELLS` (19 values). On the bundled samples that is
a fraction of a second; with a raised row cap it is not: on pendigits resampled
to 200,000 rows the Shadow centers page's first visit took 36 s in Chromium, the
shadows at ell = 7.5..10 taking 1.3-2.3 s each (``python tests/benchmarks/bench_latency.py
--browser --csv FILE --max-rows 200000``). Above :data:`HEAVY_ROWS` rows the pages
therefore say what the grid costs, measured from the shadow at the sidebar's ell,
and wait for a click; the answer holds for that data, sigma and kernel for the
rest of the session. The work then runs with a progress bar and an estimate of the
time left; changing any setting stops it, and what was computed stays cached.
"""

from __future__ import annotations

import streamlit as st

from rskpca.ui import compute
from rskpca.ui import keys as K

__all__ = ["HEAVY_ROWS", "grid_work_allowed", "grid_cost_message"]

#: Above this many rows, work over the ell grid waits for a click, because its 19 shadows would hold up
#: every page for seconds, a wait that grows with n and with the largest ell.
HEAVY_ROWS = 20_000


def grid_cost_message(what: str, n: int, ell: float, seconds: float, n_ells: int) -> str:
    """What the grid costs, in the page's words.

    >>> print(grid_cost_message("The scrubber", 200000, 4.0, 0.16, 19))  # doctest: +NORMALIZE_WHITESPACE
    The scrubber needs the shadow at 19 values of ell on all n = 200,000 rows. At ell = 4 one took 0.16 s;
    larger ell take longer (more centers), so expect at least 3 s, likely several times that. It is computed
    once for this data, sigma and kernel and then cached.
    """
    return (f"{what} needs the shadow at {n_ells} values of ell on all n = {n:,} rows. At ell = {ell:g} one "
            f"took {seconds:.2g} s; larger ell take longer (more centers), so expect at least "
            f"{n_ells * seconds:.2g} s, likely several times that. It is computed once for this data, sigma "
            "and kernel and then cached.")


def grid_work_allowed(ds, sigma: float, kernel: str, ell: float, *, what: str, key: str) -> bool:
    """Whether the page may compute over the ell grid now; if not, it has said why and offered a button.

    Parameters
    ----------
    ds : Dataset
        The data in use (``n``, ``digest``, ``X``).
    sigma, kernel, ell
        The sidebar's settings (the cost is measured at this ell).
    what : str
        What needs the grid, as the start of a sentence ("The scrubber").
    key : str
        The button's key (one per place that asks).
    """
    if ds.n <= HEAVY_ROWS:
        return True
    allowed = st.session_state.setdefault(K.GRID_ALLOWED, set())
    token = (ds.digest, float(sigma), str(kernel))
    if token in allowed:
        return True
    _, seconds = compute.timed_shadow(ds.digest, ds.X, sigma, ell, kernel)
    st.info(grid_cost_message(what, ds.n, ell, seconds, len(compute.SCRUB_ELLS)), icon=":material/timer:")
    # The click's callback runs before the next run, which then computes without asking again.
    st.button("Compute over the ell grid", key=key, icon=":material/play_arrow:", on_click=allowed.add,
              args=(token,), help="Changing any setting while it runs stops it; what was computed stays cached.")
    return False
