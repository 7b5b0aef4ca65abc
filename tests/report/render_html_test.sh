#!/usr/bin/env bash
# Renders a ptxray HTML report in headless Chromium and checks that something was drawn.
#
#   render_html_test.sh PAGE.html OUT.png [RRGGBB...]
#       Screenshots PAGE.html at 1200x900 into OUT.png, then checks OUT.png: a valid PNG (chunk CRCs,
#       IHDR, zlib stream, scanline filters) of exactly 1200x900 that is not one flat colour, and in which
#       each RRGGBB colour given (e.g. a series or marker colour of a chart) covers at least 20 pixels.
#   render_html_test.sh --check-png IMAGE.png WIDTH HEIGHT [RRGGBB...]
#       Only the PNG checks, so the checker itself can be tested without a browser.
#
# Exit status: 0 pass, 1 fail, 2 usage, 77 skipped (no chromium or no python3; the automake/ctest
# convention for "cannot run here"). The browser is $CHROMIUM if set, else chromium or chromium-browser
# from PATH (Debian 12: package `chromium`). The PNG is decoded with the Python 3 standard library only.
set -euo pipefail

WIDTH=1200
HEIGHT=900

usage() {
  sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
}

skip() {
  echo "SKIP: $*" >&2
  exit 77
}

check_png() { # IMAGE WIDTH HEIGHT [RRGGBB...]
  python3 - "$@" <<'PY'
import struct, sys, zlib

path, width, height, colours = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4:]

def fail(message):
    print(f"FAIL: {path}: {message}", file=sys.stderr)
    sys.exit(1)

try:
    data = open(path, "rb").read()
except OSError as e:
    fail(f"cannot read: {e}")
if not data.startswith(b"\x89PNG\r\n\x1a\n"):
    fail("not a PNG (bad signature)")

# Chunks: length, type, data, CRC over type+data.
pos, chunks = 8, []
while pos < len(data):
    if pos + 12 > len(data):
        fail("truncated chunk")
    length, kind = struct.unpack(">I4s", data[pos:pos + 8])
    body = data[pos + 8:pos + 8 + length]
    (crc,) = struct.unpack(">I", data[pos + 8 + length:pos + 12 + length])
    if len(body) != length or zlib.crc32(kind + body) & 0xFFFFFFFF != crc:
        fail(f"bad chunk {kind!r}")
    chunks.append((kind, body))
    pos += 12 + length
if not chunks or chunks[0][0] != b"IHDR" or chunks[-1][0] != b"IEND":
    fail("chunks out of order (IHDR first, IEND last)")

w, h, depth, colour_type, _, _, interlace = struct.unpack(">IIBBBBB", chunks[0][1])
if (w, h) != (width, height):
    fail(f"size {w}x{h}, expected {width}x{height}")
channels = {0: 1, 2: 3, 4: 2, 6: 4}.get(colour_type)
if channels is None or depth != 8 or interlace != 0:
    fail(f"unsupported PNG format (colour type {colour_type}, depth {depth}, interlace {interlace})")

try:
    raw = zlib.decompress(b"".join(body for kind, body in chunks if kind == b"IDAT"))
except zlib.error as e:
    fail(f"bad image data: {e}")
stride = w * channels
if len(raw) != h * (stride + 1):
    fail(f"image data is {len(raw)} bytes, expected {h * (stride + 1)}")

# Undo the per-scanline filters (PNG spec, section 9).
pixels = bytearray()
previous = bytearray(stride)
for y in range(h):
    start = y * (stride + 1)
    kind, line = raw[start], bytearray(raw[start + 1:start + 1 + stride])
    if kind == 1:
        for i in range(channels, stride):
            line[i] = (line[i] + line[i - channels]) & 0xFF
    elif kind == 2:
        for i in range(stride):
            line[i] = (line[i] + previous[i]) & 0xFF
    elif kind == 3:
        for i in range(stride):
            left = line[i - channels] if i >= channels else 0
            line[i] = (line[i] + ((left + previous[i]) >> 1)) & 0xFF
    elif kind == 4:
        for i in range(stride):
            a = line[i - channels] if i >= channels else 0
            b, c = previous[i], previous[i - channels] if i >= channels else 0
            p = a + b - c
            pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            predictor = a if pa <= pb and pa <= pc else b if pb <= pc else c
            line[i] = (line[i] + predictor) & 0xFF
    elif kind != 0:
        fail(f"bad filter type {kind} on row {y}")
    pixels += line
    previous = line

# Count colours as RGB (grey expanded; alpha ignored: a screenshot is opaque).
counts = {}
step = channels
for i in range(0, len(pixels), step):
    rgb = (pixels[i],) * 3 if channels <= 2 else bytes(pixels[i:i + 3])
    rgb = bytes(rgb)
    counts[rgb] = counts.get(rgb, 0) + 1
total = w * h
background, background_count = max(counts.items(), key=lambda kv: kv[1])
drawn = total - background_count
if len(counts) < 2 or drawn < total // 200:
    fail(f"looks blank: {len(counts)} colours, {drawn} of {total} pixels differ from #{background.hex()}")

for colour in colours:
    try:
        want = bytes.fromhex(colour.lstrip("#"))
    except ValueError:
        want = b""
    if len(want) != 3:
        print(f"bad colour argument {colour!r}, expected RRGGBB", file=sys.stderr)
        sys.exit(2)
    # Anti-aliasing blends edges; the inside of lines, dots and legend swatches keeps the exact colour,
    # give or take colour management rounding.
    near = sum(n for rgb, n in counts.items() if max(abs(rgb[k] - want[k]) for k in range(3)) <= 24)
    if near < 20:
        fail(f"colour #{colour} covers only {near} pixels")

print(f"ok: {path}: {w}x{h}, {len(counts)} colours, {drawn} pixels drawn on #{background.hex()}")
PY
}

if [ "${1:-}" = "--check-png" ]; then
  [ $# -ge 4 ] || usage
  command -v python3 >/dev/null || skip "python3 not found (needed to decode the PNG)"
  shift
  check_png "$@"
  exit $?
fi

[ $# -ge 2 ] || usage
page=$1
out=$2
shift 2
[ -f "$page" ] || { echo "FAIL: no such page: $page" >&2; exit 1; }

browser=${CHROMIUM:-}
if [ -z "$browser" ]; then
  browser=$(command -v chromium || command -v chromium-browser || true)
fi
[ -n "$browser" ] && [ -x "$(command -v "$browser")" ] || skip "chromium not found (Debian package 'chromium'; or set CHROMIUM)"
command -v python3 >/dev/null || skip "python3 not found (needed to decode the PNG)"

url=$(python3 -c 'import pathlib, sys; print(pathlib.Path(sys.argv[1]).resolve().as_uri())' "$page")
out_abs=$(python3 -c 'import os, sys; print(os.path.abspath(sys.argv[1]))' "$out")
profile=$(mktemp -d)
log=$(mktemp)
trap 'rm -rf "$profile" "$log"' EXIT
rm -f "$out_abs"

# The flags keep a headless run self-contained on a machine with no network and no display: no
# first-run or sync machinery, no background or component-update requests (refused here, and slow),
# a fresh throwaway profile; --no-sandbox because tests may run as root. The scale factor and hidden
# scrollbars make the screenshot exactly the window size.
status=0
timeout 120 "$browser" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
  --disable-background-networking --disable-component-update --disable-sync --disable-dev-shm-usage \
  --hide-scrollbars --force-device-scale-factor=1 --user-data-dir="$profile" \
  --screenshot="$out_abs" --window-size=$WIDTH,$HEIGHT "$url" >"$log" 2>&1 || status=$?
if [ "$status" -ne 0 ] || [ ! -s "$out_abs" ]; then
  echo "FAIL: $browser exited with status $status and wrote no screenshot; its output:" >&2
  cat "$log" >&2
  exit 1
fi

check_png "$out_abs" "$WIDTH" "$HEIGHT" "$@"
