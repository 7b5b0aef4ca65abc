#!/usr/bin/env python3
"""Writes the PNG fixtures that test render_html_test.sh's PNG checker (HtmlPageTest.PngChecker*).

    python3 tests/report/golden/make_png_fixtures.py tests/report/golden

chart.png: 64x48 RGBA, white, a horizontal #1f77b4 line and a #d62728 dot; its rows use every PNG
filter type in turn, so the checker's unfiltering is exercised. flat.png: 64x48 RGB, all white.
Deterministic (fixed zlib level), so regenerating gives the same bytes.
"""
import pathlib
import struct
import sys
import zlib

W, H = 64, 48


def chunk(kind, body):
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF)


def paeth(a, b, c):
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    return a if pa <= pb and pa <= pc else b if pb <= pc else c


def encode(rows, channels, colour_type):
    raw = bytearray()
    previous = bytes(W * channels)
    for y, row in enumerate(rows):
        kind = y % 5
        out = bytearray()
        for i, v in enumerate(row):
            a = row[i - channels] if i >= channels else 0
            b = previous[i]
            c = previous[i - channels] if i >= channels else 0
            predictor = [0, a, b, (a + b) >> 1, paeth(a, b, c)][kind]
            out.append((v - predictor) & 0xFF)
        raw += bytes([kind]) + out
        previous = row
    ihdr = struct.pack(">IIBBBBB", W, H, 8, colour_type, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(bytes(raw), 9))
            + chunk(b"IEND", b""))


def chart_rows():
    rows = []
    for y in range(H):
        row = bytearray()
        for x in range(W):
            rgb = (255, 255, 255)
            if 30 <= y <= 31 and 4 <= x < 60:
                rgb = (0x1F, 0x77, 0xB4)
            if (x - 40) ** 2 + (y - 14) ** 2 <= 25:
                rgb = (0xD6, 0x27, 0x28)
            row += bytes(rgb) + b"\xff"
        rows.append(bytes(row))
    return rows


def main():
    out = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else ".")
    (out / "chart.png").write_bytes(encode(chart_rows(), 4, 6))
    (out / "flat.png").write_bytes(encode([b"\xff" * (W * 3)] * H, 3, 2))


if __name__ == "__main__":
    main()
