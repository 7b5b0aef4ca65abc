# `ptxray analyze` and `ptxray compare` as users run them. Included from tests/CMakeLists.txt, which
# defines PTXRAY_BIN and EXAMPLE.
# The README's analysis (examples/guide/aat.json, which scripts/quickstart.sh runs) at M = 256: the
# same kernels and findings, sixteen times less work (the sanitizer build runs these too).
set(GUIDE_AAT ${CMAKE_CURRENT_SOURCE_DIR}/cli/specs/aat_small.json)

# The guide's C = AA^T steps on a Kepler GPU, each step's finding in order.
add_test(NAME cli.analyze_guide_aat COMMAND ${PTXRAY_BIN} analyze ${GUIDE_AAT} --arch k20x --color never)
set_tests_properties(cli.analyze_guide_aat PROPERTIES PASS_REGULAR_EXPRESSION
  "== simpleMultiplyAAT on Tesla K20X \\(sm_35\\).*\\[high\\] uncoalesced-global.*> +[0-9]+ \\|.*== sharedMultiplyAAT.*\\[medium\\] shared-bank-conflicts.*== paddedMultiplyAAT")
add_test(NAME cli.analyze_guide_aat_fixed_on_16_banks COMMAND bash -c
  "${PTXRAY_BIN} analyze ${GUIDE_AAT} --arch sm_13 --quiet --color never | sed -n '/== paddedMultiplyAAT/,$p'")
set_tests_properties(cli.analyze_guide_aat_fixed_on_16_banks PROPERTIES FAIL_REGULAR_EXPRESSION
  "shared-bank-conflicts|uncoalesced-global" PASS_REGULAR_EXPRESSION "== paddedMultiplyAAT")

# Without a launch: the static subset.
add_test(NAME cli.analyze_static COMMAND ${PTXRAY_BIN} analyze ${EXAMPLE} --arch sm_35 --kernel saxpy --color never)
set_tests_properties(cli.analyze_static PROPERTIES PASS_REGULAR_EXPRESSION
  "== saxpy\\(int, float, float const\\*, float\\*\\) on sm_35.*registers +[0-9]+ per thread.*Occupancy by block size.*threads/block")

add_test(NAME cli.analyze_list_rules COMMAND ${PTXRAY_BIN} analyze --list-rules)
set_tests_properties(cli.analyze_list_rules PROPERTIES PASS_REGULAR_EXPRESSION
  "uncoalesced-global +high.*branch-predication +low.*Thresholds.*uncoalesced-ratio +1.25")

# Bad selections are command-line errors.
add_test(NAME cli.analyze_unknown_rule COMMAND bash -c "${PTXRAY_BIN} analyze ${GUIDE_AAT} --only no-such-rule 2>&1; echo exit=$?")
set_tests_properties(cli.analyze_unknown_rule PROPERTIES PASS_REGULAR_EXPRESSION
  "--only: unknown rule 'no-such-rule'.*exit=2([^0-9]|$)")
add_test(NAME cli.analyze_bad_threshold COMMAND bash -c
  "${PTXRAY_BIN} analyze ${GUIDE_AAT} --threshold uncoalesced-ratio=abc 2>&1; echo exit=$?")
set_tests_properties(cli.analyze_bad_threshold PROPERTIES PASS_REGULAR_EXPRESSION "non-negative number.*exit=2([^0-9]|$)")
add_test(NAME cli.analyze_spec_with_launch_options COMMAND bash -c
  "${PTXRAY_BIN} analyze ${GUIDE_AAT} --grid 4 2>&1; echo exit=$?")
set_tests_properties(cli.analyze_spec_with_launch_options PROPERTIES PASS_REGULAR_EXPRESSION "exit=2([^0-9]|$)")

# Filters and thresholds reach the advisor.
add_test(NAME cli.analyze_only COMMAND ${PTXRAY_BIN} analyze ${GUIDE_AAT} --arch k20x --only shared-bank-conflicts --quiet --color never)
set_tests_properties(cli.analyze_only PROPERTIES PASS_REGULAR_EXPRESSION "shared-bank-conflicts"
  FAIL_REGULAR_EXPRESSION "uncoalesced-global|redundant-global-loads")

# The JSON document.
add_test(NAME cli.analyze_json COMMAND bash -c
  "${PTXRAY_BIN} analyze ${GUIDE_AAT} --arch k20x --quiet --json analyze.json >/dev/null && cat analyze.json")
set_tests_properties(cli.analyze_json PROPERTIES PASS_REGULAR_EXPRESSION
  "\"findings\": \\[.*\"gain_seconds\".*\"rule\": \"uncoalesced-global\".*\"schema\": \"ptxray-analysis\",.*\"version\": 1")

# The HTML report, rendered by headless Chromium (skipped where it is not installed): the occupancy
# chart's series colour and the high-priority rows' heat must be drawn.
add_test(NAME cli.analyze_html_renders COMMAND bash -c
  "${PTXRAY_BIN} analyze ${GUIDE_AAT} --arch k20x --quiet --html analyze.html >/dev/null && \
   bash ${CMAKE_CURRENT_SOURCE_DIR}/report/render_html_test.sh analyze.html analyze.png ff8787")
set_tests_properties(cli.analyze_html_renders PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 180)

# The same launch on several GPUs.
add_test(NAME cli.compare_guide_aat COMMAND ${PTXRAY_BIN} compare ${GUIDE_AAT} --arch sm_13,sm_20,k20x,sm_90 --color never)
set_tests_properties(cli.compare_guide_aat PROPERTIES PASS_REGULAR_EXPRESSION
  "sm_13 +sm_20 +Tesla K20X \\(sm_35\\) +sm_90.*occupancy.*Findings by GPU")
# compare --csv, read back by Python's csv module. saxpy by hand: a Fermi caches loads in L1 (one
# 128-byte line per warp request) and writes 32-byte segments (4 a warp): (1 + 1 + 4) / 3 = 2.00; an
# H100 moves 32-byte sectors: 4.00. Its 768 KB L2 cannot hold the 12 MiB the kernel reads and writes,
# so all of it is DRAM traffic; the H100's 50 MB L2 keeps the 4 MiB written. 1536 and 2048 threads per
# SM are 6 and 8 blocks of 256.
add_test(NAME cli.compare_csv COMMAND bash -c
  "${PTXRAY_BIN} compare ${PROJECT_SOURCE_DIR}/examples/saxpy.json --arch sm_20,sm_90 --csv 2>/dev/null | \
   python3 ${CMAKE_CURRENT_SOURCE_DIR}/cli/csv_rows.py --where ID=0 --columns 'Kernel Name,Quantity,sm_20,sm_90'")
set_tests_properties(cli.compare_csv PROPERTIES PASS_REGULAR_EXPRESSION
  "^Kernel Name\\|Quantity\\|sm_20\\|sm_90\nsaxpy\\(int, float, float const\\*, float\\*\\)\\|compute capability\\|2\\.0\\|9\\.0\n[^\n]*\\|board\\|GeForce GTX 480\\|H100 SXM5 80GB\n.*\\|blocks per SM\\|6\\|8\n.*\\|global trans/request\\|2\\.00\\|4\\.00\n.*\\|DRAM bytes\\|12582912\\|8388608\n.*\\|findings\\|-\\|-\nrows: 15\n$")
# analyze --csv: a row per finding with ncu's rule columns, read back by Python's csv module. The
# guide's three steps on a K20X, in the text report's order: the naive kernel's uncoalesced loads (no
# gain estimated at this size: WRN), its redundant loads (a gain: OPT), and the bank conflicts of the
# shared-memory version; every source line as the text report shows it.
add_test(NAME cli.analyze_csv COMMAND bash -c
  "set -o pipefail; ${PTXRAY_BIN} analyze ${GUIDE_AAT} --arch k20x --csv | ${CSV_ROWS} --columns 'ID,Kernel Name,Block Size,CC,Rule Name,Rule Type,Estimated Speedup Type,Priority,Source' --where 'Category=memory'")
set_tests_properties(cli.analyze_csv PROPERTIES PASS_REGULAR_EXPRESSION
  "^ID\\|Kernel Name\\|Block Size\\|CC\\|Rule Name\\|Rule Type\\|Estimated Speedup Type\\|Priority\\|Source\n0\\|simpleMultiplyAAT\\|\\(16, 16, 1\\)\\|3\\.5\\|uncoalesced-global\\|WRN\\|\\|high\\|[^|\n]*examples/guide/aat\\.cu:19\n0\\|simpleMultiplyAAT\\|\\(16, 16, 1\\)\\|3\\.5\\|redundant-global-loads\\|OPT\\|global\\|medium\\|[^|\n]*examples/guide/aat\\.cu:19\n0\\|[^\n]*read-only-cache[^\n]*\n1\\|sharedMultiplyAAT\\|\\(16, 16, 1\\)\\|3\\.5\\|shared-bank-conflicts\\|OPT\\|global\\|medium\\|[^|\n]*examples/guide/aat\\.cu:30\n.*rows: 7\n$")
# A module without line information: the findings name PTX lines, and the analysis says how to get
# source lines.
# The text is wrapped to the terminal's width and the path's length varies from clone to clone, so
# any space may be a line break.
add_test(NAME cli.analyze_without_lineinfo_says_how COMMAND ${PTXRAY_BIN} analyze
  ${CMAKE_CURRENT_SOURCE_DIR}/cli/kernels/strided_no_lines.ptx --grid 64 --block 256 --buffer out=2M --arg buf:out
  --quiet --color never)
set_tests_properties(cli.analyze_without_lineinfo_says_how PROPERTIES PASS_REGULAR_EXPRESSION
  "uncoalesced-global.*at[ \n]+[^ \n]*strided_no_lines\\.ptx:19:3:[ \n]+stores:[ \n]+32\\.0[ \n]+sectors[ \n]+per[ \n]+request.*note:[ \n]+the[ \n]+module[ \n]+has[ \n]+no[ \n]+line[ \n]+information,[ \n]+so[ \n]+findings[ \n]+name[ \n]+PTX[ \n]+lines:[ \n]+build[ \n]+with[ \n]+nvcc[ \n]+-lineinfo")
# A launch without findings is still a row (saxpy on an H100: nothing to fix).
add_test(NAME cli.analyze_csv_no_findings COMMAND bash -c
  "set -o pipefail; ${PTXRAY_BIN} analyze ${PROJECT_SOURCE_DIR}/examples/saxpy.json --csv | ${CSV_ROWS} --columns 'ID,Kernel Name,Grid Size,Rule Name,GPU'")
set_tests_properties(cli.analyze_csv_no_findings PROPERTIES PASS_REGULAR_EXPRESSION
  "^ID\\|Kernel Name\\|Grid Size\\|Rule Name\\|GPU\n0\\|saxpy\\(int, float, float const\\*, float\\*\\)\\|\\(4096, 1, 1\\)\\|\\|sm_90\n1\\|block_sum\\(float const\\*, float\\*, int\\)\\|\\(4096, 1, 1\\)\\|\\|sm_90\nrows: 2\n$")

add_test(NAME cli.compare_needs_launch COMMAND bash -c "${PTXRAY_BIN} compare ${EXAMPLE} --arch sm_20,sm_35 2>&1; echo exit=$?")
set_tests_properties(cli.compare_needs_launch PROPERTIES PASS_REGULAR_EXPRESSION "exit=2([^0-9]|$)")

# A GPU that refuses the launch does not end the comparison (issue #30): its column says why, the
# other GPU's has its numbers, and the exit status is 0 unless every GPU refused. A 1024-thread block
# is more than a CC 1.x allows (512); 64 KiB of shared memory more than a Fermi has (48 KiB).
set(SAXPY_1024 "${PROJECT_SOURCE_DIR}/examples/saxpy.ptx --kernel saxpy --grid 4 --block 1024 \
  --buffer x=16K:iota:f32 --buffer y=16K --arg s32:4096 --arg f32:2 --arg buf:x --arg buf:y")
set(SAXPY_1024_REFUSED "invalid configuration argument: blockDim\\.x = 1024 exceeds 512 on sm_13")
add_test(NAME cli.compare_refused_gpu_text COMMAND bash -c
  "${PTXRAY_BIN} compare ${SAXPY_1024} --arch sm_13,sm_90 --color never 2>&1; echo exit=$?")
set_tests_properties(cli.compare_refused_gpu_text PROPERTIES PASS_REGULAR_EXPRESSION
  "ptxray: note: sm_13 refused the launch of saxpy: ${SAXPY_1024_REFUSED}\n.*== saxpy\\(int, float, float const\\*, float\\*\\) on 2 GPUs\n +sm_13 +sm_90\n +launch +refused +ran\n +compute capability +1\\.3 +9\\.0\n +board +GeForce GTX 280 +H100 SXM5 80GB\n +time estimate \\(us\\) +refused +[0-9]+\\.[0-9][0-9]\n.* +theoretical GB/s +refused +3352\\.3\n  sm_13: refused: ${SAXPY_1024_REFUSED}\n\nFindings by GPU\n  grid-below-sm-count +on every GPU that ran the launch\nexit=0\n$"
  FAIL_REGULAR_EXPRESSION "error:")
add_test(NAME cli.compare_refused_gpu_csv COMMAND bash -c
  "${PTXRAY_BIN} compare ${PROJECT_SOURCE_DIR}/examples/saxpy.ptx --kernel saxpy --grid 4 --block 256 --shared 65536 \
     --buffer x=16K:iota:f32 --buffer y=16K --arg s32:4096 --arg f32:2 --arg buf:x --arg buf:y --arch sm_20,sm_90 \
     --csv 2>/dev/null | python3 ${CMAKE_CURRENT_SOURCE_DIR}/cli/csv_rows.py --columns 'Quantity,sm_20,sm_90'")
set_tests_properties(cli.compare_refused_gpu_csv PROPERTIES PASS_REGULAR_EXPRESSION
  "^Quantity\\|sm_20\\|sm_90\nlaunch\\|refused: too many resources requested for launch: 65536 bytes of shared memory per block \\(0 static \\+ 65536 dynamic\\) exceed the 49152 of sm_20\\|ran\ncompute capability\\|2\\.0\\|9\\.0\nboard\\|GeForce GTX 480\\|H100 SXM5 80GB\ntime estimate \\(us\\)\\|refused\\|[0-9]+\\.[0-9][0-9]\n.*\nfindings\\|refused\\|[a-z -]+\nrows: 16\n$")
add_test(NAME cli.compare_refused_gpu_json COMMAND bash -c
  "${PTXRAY_BIN} compare ${SAXPY_1024} --arch sm_13,sm_90 --json refused.json >/dev/null 2>&1; echo exit=$?; \
   python3 -c \"import json; c = json.load(open('refused.json'))['comparisons'][0]; \
print([(a['arch'], a.get('refused'), a['launch'] is None) for a in c['analyses']]); print(c['compare'][0])\"")
set_tests_properties(cli.compare_refused_gpu_json PROPERTIES PASS_REGULAR_EXPRESSION
  "^exit=0\n\\[\\('sm_13', '${SAXPY_1024_REFUSED}', True\\), \\('sm_90', None, False\\)\\]\n\\{'quantity': 'launch', 'values': \\['refused: ${SAXPY_1024_REFUSED}', 'ran'\\]\\}\n$")
add_test(NAME cli.compare_every_gpu_refused COMMAND bash -c
  "${PTXRAY_BIN} compare ${SAXPY_1024} --arch sm_10,sm_13 --color never 2>/dev/null; echo exit=$?")
set_tests_properties(cli.compare_every_gpu_refused PROPERTIES PASS_REGULAR_EXPRESSION
  " +launch +refused +refused\n.*  sm_10: refused: [^\n]*\n  sm_13: refused: ${SAXPY_1024_REFUSED}\n.*exit=1\n$")

# compare --html: the side-by-side table and the findings by GPU first, then each GPU's details,
# read back by Python's html.parser.
add_test(NAME cli.compare_html COMMAND bash -c
  "${PTXRAY_BIN} compare ${SAXPY_1024} --arch sm_13,sm_90 --html compare.html >/dev/null 2>&1; echo exit=$?; \
   python3 ${CMAKE_CURRENT_SOURCE_DIR}/cli/html_outline.py compare.html")
set_tests_properties(cli.compare_html PROPERTIES PASS_REGULAR_EXPRESSION
  "^exit=0\nh2: saxpy\\(int, float, float const\\*, float\\*\\) on 2 GPUs\ntable: Side by side\n  head: quantity\\|sm_13\\|sm_90\n  row: launch\\|refused: ${SAXPY_1024_REFUSED}\\|ran\n  row: compute capability\\|1\\.3\\|9\\.0\n  row: board\\|GeForce GTX 280\\|H100 SXM5 80GB\n  row: time estimate \\(us\\)\\|refused\\|[0-9]+\\.[0-9][0-9]\n.*  row: findings\\|refused\\|grid-below-sm-count\ntable: Findings by GPU \\(priority\\)\n  head: rule\\|sm_13\\|sm_90\n  row: grid-below-sm-count\\|refused\\|high\nh2: saxpy\\(int, float, float const\\*, float\\*\\) on sm_13\np: sm_13 refused the launch: ${SAXPY_1024_REFUSED}\nh2: saxpy\\(int, float, float const\\*, float\\*\\) on sm_90\nh2: Findings\n.*h2: Source: [^\n]*saxpy\\.cu\n")
add_test(NAME cli.compare_html_layout COMMAND bash -c
  "${PTXRAY_BIN} compare ${GUIDE_AAT} --arch sm_13,sm_20,k20x,sm_90 --quiet --html compare-aat.html >/dev/null 2>&1 && \
   bash ${CMAKE_CURRENT_SOURCE_DIR}/report/render_html_test.sh --layout compare-aat.html")
set_tests_properties(cli.compare_html_layout PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300 PASS_REGULAR_EXPRESSION
  "^layout ok: compare-aat\\.html: 1280px wide in a 1280px window, [0-9]+ charts, [0-9]+ labels\n$")

# analyze --html of a module of three kernels: the source file once, a column group per kernel (line
# 19 is simpleMultiplyAAT's inner loop alone), and the page at 1280 px.
add_test(NAME cli.analyze_html_source_once COMMAND bash -c
  "${PTXRAY_BIN} analyze ${GUIDE_AAT} --arch k20x --quiet --html analyze-aat.html >/dev/null && \
   python3 ${CMAKE_CURRENT_SOURCE_DIR}/cli/html_outline.py analyze-aat.html --tables-only --grep heat")
set_tests_properties(cli.analyze_html_source_once PROPERTIES PASS_REGULAR_EXPRESSION
  "\nh2: Source: [^\n]*aat\\.cu\ntable: heat = [^\n]*\n  groups: \\*1\\|\\*1\\|simpleMultiplyAAT\\*2\\|sharedMultiplyAAT\\*2\\|paddedMultiplyAAT\\*2\n  head: line\\|source(\\|warp inst\\|global trans)(\\|warp inst\\|global trans)(\\|warp inst\\|global trans)\n.*\n  row: 19\\|        sum \\+= a\\[row \\* TILE_DIM \\+ i\\] \\* a\\[col \\* TILE_DIM \\+ i\\];\\|[1-9][0-9]*\\|[1-9][0-9]*\\|\\|\\|\\|\n.*tables: 1\n$"
  FAIL_REGULAR_EXPRESSION "Source: [^\n]*\n.*Source: ")
add_test(NAME cli.analyze_html_layout COMMAND bash -c
  "${PTXRAY_BIN} analyze ${GUIDE_AAT} --arch k20x --quiet --html analyze-layout.html >/dev/null && \
   bash ${CMAKE_CURRENT_SOURCE_DIR}/report/render_html_test.sh --layout analyze-layout.html")
set_tests_properties(cli.analyze_html_layout PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 180 PASS_REGULAR_EXPRESSION
  "^layout ok: analyze-layout\\.html: 1280px wide in a 1280px window, 9 charts, [0-9]+ labels\n$")

# The guide's coalescing experiments on CC 1.3 ([BPG] 3.2.1.3-3.2.1.4): an offset of 1 word makes one
# half-warp take a 128-byte transaction and the other a 64- and a 32-byte one (1.5 per request, 64 of
# 112 bytes used: 57.1%), an offset of 16 words none; a stride of 2 halves the efficiency.
add_test(NAME cli.guide_charts_cc13 COMMAND ${PTXRAY_BIN} guide-charts --arch sm_13 --max 16 --elements 4096)
set_tests_properties(cli.guide_charts_cc13 PROPERTIES PASS_REGULAR_EXPRESSION
  "offset +sm_13.*\n +0 +1\\.00 +100\\.0%[^\n]*\n +1 +1\\.50 +57\\.1%.*\n +16 +1\\.00 +100\\.0%.*stride.*\n +2 +1\\.00 +50\\.0%")
add_test(NAME cli.guide_charts_html_renders COMMAND bash -c
  "${PTXRAY_BIN} guide-charts --arch sm_13,sm_90 --max 8 --elements 4096 --html guide-charts.html >/dev/null && \
   bash ${CMAKE_CURRENT_SOURCE_DIR}/report/render_html_test.sh guide-charts.html guide-charts.png 1f77b4")
set_tests_properties(cli.guide_charts_html_renders PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 180)
# A CC 1.0 and an H100 a decade and more apart: the bandwidth axes are logarithmic with 1-2-5 ticks
# (the transactions' stay linear), and the page lays out at 1280 px.
add_test(NAME cli.guide_charts_log_bandwidth_axis COMMAND bash -c
  "${PTXRAY_BIN} guide-charts --arch sm_10,sm_90 --max 4 --elements 65536 --html guide-log.html >/dev/null && \
   python3 -c \"import re; page = open('guide-log.html').read(); \
[print(re.search(r'class=.axis-label-y[^>]*>([^<]*)<', f).group(1) + ': ' + ' '.join(re.findall(r'class=.tick-label-y[^>]*>([^<]*)<', f))) \
for f in page.split('<figure>')[1:]]\" && \
   bash ${CMAKE_CURRENT_SOURCE_DIR}/report/render_html_test.sh --layout guide-log.html")
set_tests_properties(cli.guide_charts_log_bandwidth_axis PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 180 PASS_REGULAR_EXPRESSION
  "^GB/s \\(model, log scale\\): 5 10 20 50 100 200\ntransactions per request: [0-9. ]+\nGB/s \\(model, log scale\\): [0-9 ]+\ntransactions per request: [0-9. ]+\nlayout ok: guide-log\\.html: 1280px wide in a 1280px window, 4 charts, [0-9]+ labels\n$")

# --check: the sanitizers' hazards become correctness findings, ranked before the performance ones
# of the same priority; a clean twin has none.
set(SANITIZER_SPECS ${CMAKE_CURRENT_SOURCE_DIR}/kernels/sanitizers/specs)
add_test(NAME cli.analyze_check_race COMMAND ${PTXRAY_BIN} analyze ${SANITIZER_SPECS}/race_raw.json --arch sm_90 --check --quiet --color never)
set_tests_properties(cli.analyze_check_race PROPERTIES PASS_REGULAR_EXPRESSION
  "Findings \\([0-9]+\\), most important first\n\n 1\\. \\[high\\] race-hazard +Race reported between Write access at [^\n]*races\\.cu:9")
add_test(NAME cli.analyze_check_clean COMMAND ${PTXRAY_BIN} analyze ${SANITIZER_SPECS}/race_raw_clean.json --arch sm_90 --check --quiet --color never)
set_tests_properties(cli.analyze_check_clean PROPERTIES PASS_REGULAR_EXPRESSION "== "
  FAIL_REGULAR_EXPRESSION "race-hazard|sync-hazard|uninitialized-read|memory-leak")
add_test(NAME cli.analyze_check_leak COMMAND ${PTXRAY_BIN} analyze ${SANITIZER_SPECS}/leak_per_thread.json --arch sm_90 --check --quiet --color never)
set_tests_properties(cli.analyze_check_leak PROPERTIES PASS_REGULAR_EXPRESSION "\\[medium\\] memory-leak +Leaked 4096 bytes in 64 device-heap blocks")

# The static subset includes the ABI checker's findings; nvcc's output has none.
add_test(NAME cli.analyze_static_abi COMMAND ${PTXRAY_BIN} analyze ${CMAKE_CURRENT_SOURCE_DIR}/abi/broken/narrow_integer.ptx --arch sm_80 --quiet --color never)
set_tests_properties(cli.analyze_static_abi PROPERTIES PASS_REGULAR_EXPRESSION
  "\\[high\\] abi-violation +PTX ABI: narrow-integer \\(§2\\.3 note A\\).*narrow_integer\\.ptx:7:52:[ \n]+parameter[ \n]+'a'[ \n]+of[ \n]+'narrow'[ \n]+is[ \n]+\\.u8")
add_test(NAME cli.analyze_static_abi_clean COMMAND ${PTXRAY_BIN} analyze ${EXAMPLE} --arch sm_35 --quiet --color never)
set_tests_properties(cli.analyze_static_abi_clean PROPERTIES PASS_REGULAR_EXPRESSION "== saxpy" FAIL_REGULAR_EXPRESSION "abi-violation")

# A session (host operations): the transfers' findings come before the kernel's.
add_test(NAME cli.analyze_session COMMAND ${PTXRAY_BIN} analyze ${CMAKE_CURRENT_SOURCE_DIR}/cli/specs/session_pageable.json
  --arch k20x --quiet --color never)
set_tests_properties(cli.analyze_session PROPERTIES PASS_REGULAR_EXPRESSION
  "== session on Tesla K20X.*\\[high\\] pageable-transfers: 3 copies from pageable host memory \\(saves about.*no-copy-compute-overlap.*== hypotenuse")

# Launch filters on a spec of several launches (issue #30: ncu's -k, -s, -c and compute-sanitizer's
# --kernel-name on `run` and `analyze` as on `exec`): only the selected launches are analyzed or
# measured; the others still run (block_sum reads what saxpy wrote).
set(AAT_SPEC ${PROJECT_SOURCE_DIR}/examples/guide/aat.json)
add_test(NAME cli.analyze_kernel_filter COMMAND bash -c
  "${PTXRAY_BIN} analyze ${AAT_SPEC} --arch k20x --quiet --color never -k regex:shared | grep '^== '; \
   ${PTXRAY_BIN} analyze ${AAT_SPEC} --arch k20x --quiet --color never --launch-skip 1 --launch-count 1 | grep '^== '; \
   ${PTXRAY_BIN} analyze ${AAT_SPEC} --arch k20x --quiet --color never -k 'regex:(' 2>&1; echo exit=$?")
set_tests_properties(cli.analyze_kernel_filter PROPERTIES PASS_REGULAR_EXPRESSION
  "^== sharedMultiplyAAT on Tesla K20X \\(sm_35\\)\n== sharedMultiplyAAT on Tesla K20X \\(sm_35\\)\nptxray: error: [^\n]*-k[^\n]*\nexit=2\n$")
add_test(NAME cli.run_kernel_filter COMMAND bash -c
  "${PTXRAY_BIN} run ${PROJECT_SOURCE_DIR}/examples/saxpy.json --metrics --kernel-name-exclude kns=saxpy | grep '^== '; \
   ${PTXRAY_BIN} run ${PROJECT_SOURCE_DIR}/examples/saxpy.json -k saxpy --metrics-json filtered.json && \
   python3 -c \"import json; print([L['kernel'] for L in json.load(open('filtered.json'))['launches']])\"")
set_tests_properties(cli.run_kernel_filter PROPERTIES PASS_REGULAR_EXPRESSION
  "^== block_sum[^\n]*\n\\['[^']*saxpy[^']*'\\]\n$")

# A broadcast load (every thread reads x[0]): nvprof's global load efficiency is 400%, and the report
# says why it can be above 100% (issue #30).
add_test(NAME cli.run_efficiency_above_full_explained COMMAND ${PTXRAY_BIN} run ${CMAKE_CURRENT_SOURCE_DIR}/cli/specs/broadcast.ptx
  --grid 64 --block 256 --buffer x=4 --buffer y=65536 --arg buf:x --arg buf:y --arch h100 --metrics)
set_tests_properties(cli.run_efficiency_above_full_explained PROPERTIES PASS_REGULAR_EXPRESSION
  "global loads: 512 requests, 512 transactions \\(1\\.00 per request\\), efficiency 400\\.0% \\(above 100%: lanes asked for the same bytes more than once")
