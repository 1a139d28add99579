"""Reading back the density drawing's images (PNG ``data:`` URIs of :func:`rskpca.plotting.png_data_uri`)."""

import base64
import struct
import zlib

import numpy as np


def png_pixels(uri: str) -> np.ndarray:
    """The RGBA pixels (uint8, shape (h, w, 4)) of a PNG data URI written with filter 0 on every line.

    A reader of its own, not the writer run backwards: it parses the chunks and checks each CRC.
    """
    assert uri.startswith("data:image/png;base64,")
    data = base64.b64decode(uri.split(",", 1)[1])
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat, size = 8, b"", None
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos:pos + 4])
        kind, body = data[pos + 4:pos + 8], data[pos + 8:pos + 8 + length]
        (crc,) = struct.unpack(">I", data[pos + 8 + length:pos + 12 + length])
        assert crc == zlib.crc32(kind + body) & 0xFFFFFFFF, kind
        if kind == b"IHDR":
            w, h, depth, colour_type = struct.unpack(">IIBB", body[:10])
            assert (depth, colour_type) == (8, 6)  # 8-bit RGBA
            size = (h, w)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    h, w = size
    raw = np.frombuffer(zlib.decompress(idat), dtype=np.uint8).reshape(h, 1 + 4 * w)
    assert not raw[:, 0].any()  # filter 0 on every line
    return raw[:, 1:].reshape(h, w, 4)
