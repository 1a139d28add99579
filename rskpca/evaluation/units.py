"""Times and sizes in the words a reader takes in, one wording for every page, message and table.

Decimal units for bytes (1 MB = 10^6 bytes), as the n x n matrix's 8 n^2 bytes are quoted; durations
in the largest unit of which there are at least two (a prediction of 8e5 s is "9.26 days").
"""

from __future__ import annotations

__all__ = ["bytes_text", "seconds_text"]

_BYTE_UNITS = (("TB", 1e12), ("GB", 1e9), ("MB", 1e6), ("kB", 1e3))
_TIME_UNITS = (("years", 365.25 * 86400), ("days", 86400.0), ("hours", 3600.0), ("minutes", 60.0))


def bytes_text(nbytes: float) -> str:
    """Bytes in decimal units.

    >>> bytes_text(8e12), bytes_text(32e6), bytes_text(512_000_000), bytes_text(900)
    ('8 TB', '32 MB', '512 MB', '900 bytes')
    """
    for unit, size in _BYTE_UNITS:
        if nbytes >= size:
            return f"{nbytes / size:.3g} {unit}"
    return f"{int(nbytes)} bytes"


def seconds_text(seconds: float) -> str:
    """Seconds in the largest unit of which there are at least two; below a second, milliseconds.

    >>> seconds_text(8e5), seconds_text(15_000), seconds_text(150), seconds_text(1.5), seconds_text(0.0432)
    ('9.26 days', '4.17 hours', '2.5 minutes', '1.5 s', '43.2 ms')
    """
    for unit, size in _TIME_UNITS:
        if seconds >= 2 * size:
            return f"{seconds / size:.3g} {unit}"
    return f"{seconds * 1e3:.3g} ms" if seconds < 1 else f"{seconds:.3g} s"
