"""Progress on stderr and the ell-list argument, shared by the ``rskpca`` subcommands.

:class:`ProgressBar` is the command line's renderer of the one progress protocol,
``progress(fraction, message)`` (:mod:`rskpca.core.progress`).
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np

from rskpca.core.progress import TimeLeft
from rskpca.evaluation.units import seconds_text

__all__ = ["ProgressBar", "parse_ells"]


class ProgressBar:
    """A one-line progress bar on a stream (stderr by default); call it as ``bar(fraction, message)``.

    ``predicted_s``: the computation's predicted seconds, if known; the time left blends it with the
    pace measured so far (:class:`~rskpca.core.progress.TimeLeft`).

    >>> import io
    >>> out = io.StringIO()
    >>> bar = ProgressBar(stream=out, width=10)
    >>> bar(0.5, "2/4 step")
    >>> "2/4 step" in out.getvalue() and "#####....." in out.getvalue()
    True
    """

    def __init__(self, stream=None, width: int = 30, predicted_s: float | None = None):
        self.stream = sys.stderr if stream is None else stream
        self.width = width
        self.start = time.perf_counter()
        self.time_left = TimeLeft(predicted_s)

    def __call__(self, fraction: float, message: str = "") -> None:
        frac = min(max(float(fraction), 0.0), 1.0)
        filled = int(round(frac * self.width))
        elapsed = time.perf_counter() - self.start
        left = self.time_left.seconds_left(frac, elapsed)
        eta = f"~{seconds_text(left)} left" if left is not None else "? left"
        line = (f"\r[{'#' * filled}{'.' * (self.width - filled)}] {frac:4.0%} "
                f"{elapsed:6.1f}s elapsed, {eta:<14}  {message[:50]:<50}")
        self.stream.write(line)
        if frac >= 1.0:
            self.stream.write("\n")
        self.stream.flush()


def parse_ells(text: str) -> list[float]:
    """``"3.0:5.0:0.1"`` (start:stop:step, stop included) or ``"3,4,5"`` into a list of ell.

    >>> parse_ells("3:3.2:0.1"), parse_ells("3,4.5")
    ([3.0, 3.1, 3.2], [3.0, 4.5])
    """
    try:
        if ":" in text:
            start, stop, step = (float(v) for v in text.split(":"))
            if step <= 0 or stop < start:
                raise ValueError
            count = int(np.floor((stop - start) / step + 1e-9)) + 1
            values = [round(start + k * step, 10) for k in range(count)]
        else:
            values = [float(v) for v in text.split(",") if v.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"cannot read ell values from {text!r}; write start:stop:step (e.g. 3.0:5.0:0.1) or a "
            "comma list (e.g. 3,4,5)") from None
    if not values or any(not np.isfinite(v) or v <= 0 for v in values):
        raise argparse.ArgumentTypeError(f"ell values must be positive numbers; got {text!r}")
    return values
