#!/usr/bin/env bash
# Renders a ptxray HTML report in headless Chromium and checks that something was drawn.
#
#   render_html_test.sh PAGE.html OUT.png [RRGGBB...]
#       Screenshots PAGE.html at 1200x900 into OUT.png, then checks OUT.png: a valid PNG (chunk CRCs,
#       IHDR, zlib stream, scanline filters) of exactly 1200x900 that is not one flat colour, and in which
#       each RRGGBB colour given (e.g. a series or marker colour of a chart) covers at least 20 pixels.
#   render_html_test.sh --check-png IMAGE.png WIDTH HEIGHT [RRGGBB...]
#       Only the PNG checks, so the checker itself can be tested without a browser.
#   render_html_test.sh --layout PAGE.html
#       Lays PAGE.html out in a 1280x900 window and checks that the page does not scroll sideways
#       (its scroll width is no larger than the window: wide content must wrap or scroll in its own
#       box) and that no two <text> labels of one SVG chart overlap (their boxes intersect by more
#       than a pixel each way). A copy of the page gets a script that measures and writes its verdict
#       into the DOM, which Chromium dumps; prints "layout ok: ..." or each problem found.
#
# Exit status: 0 pass, 1 fail, 2 usage, 77 skipped (no chromium or no python3; the automake/ctest
# convention for "cannot run here"). The browser is $CHROMIUM if set, else chromium or chromium-browser
# from PATH (Debian 12: package `chromium`). The PNG is decoded with the Python 3 standard library only.
set -euo pipefail

WIDTH=1200
HEIGHT=900
LAYOUT_WIDTH=1280
LAYOUT_HEIGHT=900

usage() {
  sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//' >&2
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

find_browser() {
  browser=${CHROMIUM:-}
  if [ -z "$browser" ]; then
    browser=$(command -v chromium || command -v chromium-browser || true)
  fi
  [ -n "$browser" ] && [ -x "$(command -v "$browser")" ] || skip "chromium not found (Debian package 'chromium'; or set CHROMIUM)"
  command -v python3 >/dev/null || skip "python3 not found (needed to read the results)"
}

# The flags keep a headless run self-contained on a machine with no network and no display: no
# first-run or sync machinery, no background or component-update requests (refused here, and slow),
# a fresh throwaway profile; --no-sandbox because tests may run as root.
BROWSER_FLAGS=(--headless --no-sandbox --disable-gpu --disable-quic --no-first-run
  --disable-background-networking --disable-component-update --disable-sync --disable-dev-shm-usage
  --hide-scrollbars --force-device-scale-factor=1)

# The measuring script, appended to a copy of the page (the pages themselves carry no scripts). It
# measures before it adds its verdict, so the verdict cannot change what it measured.
read -r -d '' LAYOUT_SCRIPT <<'JS' || true
<script>
(function () {
  const problems = [];
  const root = document.documentElement;
  const width = root.clientWidth;
  if (root.scrollWidth > width) {
    const wide = [];
    for (const el of document.body.querySelectorAll('*')) {
      const r = el.getBoundingClientRect();
      let clipped = false;
      for (let p = el.parentElement; p && p !== document.body; p = p.parentElement)
        if (getComputedStyle(p).overflowX !== 'visible') clipped = true;
      if (r.right > width + 0.5 && !clipped && wide.length < 5)
        wide.push(el.tagName.toLowerCase() + (el.className && typeof el.className === 'string' ? '.' + el.className : '') +
                  ' to ' + Math.round(r.right) + 'px');
    }
    problems.push('page scrolls sideways: ' + root.scrollWidth + 'px wide in a ' + width + 'px window (' +
                  wide.join(', ') + ')');
  }
  let labels = 0;
  document.querySelectorAll('svg').forEach(function (svg, index) {
    const title = svg.querySelector('title');
    const name = 'chart ' + (index + 1) + (title ? ' "' + title.textContent + '"' : '');
    const texts = Array.from(svg.querySelectorAll('text')).filter(t => t.textContent.trim() !== '')
                      .map(t => ({text: t.textContent, box: t.getBoundingClientRect()}));
    labels += texts.length;
    for (let i = 0; i < texts.length; ++i)
      for (let j = i + 1; j < texts.length; ++j) {
        const a = texts[i].box, b = texts[j].box;
        const dx = Math.min(a.right, b.right) - Math.max(a.left, b.left);
        const dy = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
        if (dx > 1 && dy > 1)
          problems.push(name + ': label "' + texts[i].text + '" overlaps "' + texts[j].text + '"');
      }
  });
  const verdict = document.createElement('pre');
  verdict.id = 'ptxray-layout-verdict';
  verdict.textContent = problems.length ? 'LAYOUT-FAIL\n' + problems.join('\n')
                                        : 'LAYOUT-OK ' + root.scrollWidth + 'px wide in a ' + width + 'px window, ' +
                                          document.querySelectorAll('svg').length + ' charts, ' + labels + ' labels';
  document.body.appendChild(verdict);
})();
</script>
JS

if [ "${1:-}" = "--layout" ]; then
  [ $# -eq 2 ] || usage
  page=$2
  [ -f "$page" ] || { echo "FAIL: no such page: $page" >&2; exit 1; }
  find_browser
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
  # The copy beside nothing else: the pages are self-contained.
  python3 - "$page" "$work/page.html" "$LAYOUT_SCRIPT" <<'PY'
import sys
html = open(sys.argv[1], encoding="utf-8").read()
at = html.rfind("</body>")
if at < 0:
    print(f"FAIL: {sys.argv[1]}: no </body>", file=sys.stderr)
    sys.exit(1)
open(sys.argv[2], "w", encoding="utf-8").write(html[:at] + sys.argv[3] + "\n" + html[at:])
PY
  url=$(python3 -c 'import pathlib, sys; print(pathlib.Path(sys.argv[1]).resolve().as_uri())' "$work/page.html")
  status=0
  timeout 120 "$browser" "${BROWSER_FLAGS[@]}" --user-data-dir="$work/profile" --virtual-time-budget=5000 \
    --window-size=$LAYOUT_WIDTH,$LAYOUT_HEIGHT --dump-dom "$url" >"$work/dom.html" 2>"$work/log" || status=$?
  python3 - "$page" "$work/dom.html" "$status" "$work/log" <<'PY'
import html, re, sys
page, dom, status, log = sys.argv[1], open(sys.argv[2], encoding="utf-8", errors="replace").read(), sys.argv[3], sys.argv[4]
found = re.search(r'<pre id="ptxray-layout-verdict">(.*?)</pre>', dom, re.S)
if not found:
    print(f"FAIL: {page}: no verdict in the page Chromium dumped (exit status {status}); its output:", file=sys.stderr)
    print(open(log, errors="replace").read(), file=sys.stderr)
    sys.exit(1)
verdict = html.unescape(found.group(1))
if verdict.startswith("LAYOUT-OK "):
    print(f"layout ok: {page}: {verdict[len('LAYOUT-OK '):]}")
    sys.exit(0)
for problem in verdict.splitlines()[1:]:
    print(f"FAIL: {page}: {problem}")
sys.exit(1)
PY
  exit $?
fi

[ $# -ge 2 ] || usage
page=$1
out=$2
shift 2
[ -f "$page" ] || { echo "FAIL: no such page: $page" >&2; exit 1; }
find_browser

url=$(python3 -c 'import pathlib, sys; print(pathlib.Path(sys.argv[1]).resolve().as_uri())' "$page")
out_abs=$(python3 -c 'import os, sys; print(os.path.abspath(sys.argv[1]))' "$out")
profile=$(mktemp -d)
log=$(mktemp)
trap 'rm -rf "$profile" "$log"' EXIT
rm -f "$out_abs"

# The scale factor and hidden scrollbars make the screenshot exactly the window size.
status=0
timeout 120 "$browser" "${BROWSER_FLAGS[@]}" --user-data-dir="$profile" \
  --screenshot="$out_abs" --window-size=$WIDTH,$HEIGHT "$url" >"$log" 2>&1 || status=$?
if [ "$status" -ne 0 ] || [ ! -s "$out_abs" ]; then
  echo "FAIL: $browser exited with status $status and wrote no screenshot; its output:" >&2
  cat "$log" >&2
  exit 1
fi

check_png "$out_abs" "$WIDTH" "$HEIGHT" "$@"
