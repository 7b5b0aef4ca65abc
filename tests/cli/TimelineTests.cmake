# `ptxray timeline` as users run it: the guide's copy/compute overlap example (examples/guide/overlap.json)
# on GPUs with two, one and no copy engines. Included from tests/CMakeLists.txt (PTXRAY_BIN).
set(OVERLAP_SPEC ${PROJECT_SOURCE_DIR}/examples/guide/overlap.json)

# K20X: two copy engines; the second half's copies run under the first half's kernel and the first
# half's read under the second kernel: close to the guide's "up to 30%" for one pass.
add_test(NAME cli.timeline_guide_overlap_k20x COMMAND ${PTXRAY_BIN} timeline ${OVERLAP_SPEC} --arch k20x --threads 2)
set_tests_properties(cli.timeline_guide_overlap_k20x PROPERTIES PASS_REGULAR_EXPRESSION
  "session on Tesla K20X \\(PCIe 2\\.0 x16.*2 copy engines.*overlap 2[5-9]\\.[0-9]%.*copy H2D +\\|0+1+2+3+ +\\|.*copy D2H.*compute.*stream 1.*stream 2.*memcpy_h2d +1 +copy H2D")
# CC 1.0 has no copy engine: nothing overlaps.
add_test(NAME cli.timeline_no_copy_engine COMMAND ${PTXRAY_BIN} timeline ${OVERLAP_SPEC} --arch 8800gtx --quiet --threads 2)
set_tests_properties(cli.timeline_no_copy_engine PROPERTIES PASS_REGULAR_EXPRESSION "0 copy engines.*overlap 0\\.0%")
# The JSON document.
add_test(NAME cli.timeline_json COMMAND bash -c
  "${PTXRAY_BIN} timeline ${OVERLAP_SPEC} --arch k40 --quiet --threads 2 --json timeline.json >/dev/null && cat timeline.json")
set_tests_properties(cli.timeline_json PROPERTIES PASS_REGULAR_EXPRESSION
  "\"operations\": \\[.*\"engine\": \"copy H2D\".*\"schema\": \"ptxray-timeline\".*\"pcie\": \\{.*\"generation\": 3")
# The trace for Perfetto and chrome://tracing (tests/cli/check_trace.py checks the format on its own):
# the spec's 9 operations, a row per stream and the host's.
add_test(NAME cli.timeline_trace COMMAND bash -c
  "${PTXRAY_BIN} timeline ${OVERLAP_SPEC} --arch k20x --quiet --threads 2 --trace overlap.trace.json >/dev/null && \
   python3 ${CMAKE_CURRENT_SOURCE_DIR}/cli/check_trace.py overlap.trace.json --ops 9 --rows 'stream 1,stream 2,host thread'")
set_tests_properties(cli.timeline_trace PROPERTIES PASS_REGULAR_EXPRESSION "trace ok: ")
# Errors: a malformed session is a spec error (exit 2), located.
add_test(NAME cli.timeline_bad_spec COMMAND bash -c
  "printf '{\"module\": \"x.ptx\", \"operations\": [{\"op\": \"memcopy\"}]}' > bad-session.json && \
   ${PTXRAY_BIN} timeline bad-session.json 2>&1; echo exit=$?")
set_tests_properties(cli.timeline_bad_spec PROPERTIES PASS_REGULAR_EXPRESSION
  "bad-session.json: operations\\[0\\]\\.op: unknown operation \"memcopy\".*exit=2([^0-9]|$)")
# The HTML page, rendered by headless Chromium (skipped where it is not installed): the H2D copies'
# blue and the kernels' green must be drawn.
add_test(NAME cli.timeline_html_renders COMMAND bash -c
  "${PTXRAY_BIN} timeline ${OVERLAP_SPEC} --arch k20x --quiet --threads 2 --html timeline.html >/dev/null && \
   bash ${CMAKE_CURRENT_SOURCE_DIR}/report/render_html_test.sh timeline.html timeline.png 1f77b4 2ca02c")
set_tests_properties(cli.timeline_html_renders PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 180)

# Several devices ([KTG] §1.4.7): the hypotenuse split over the two GPUs of a K80. Their copies share
# the board's one link (each about half of 13.86 GB/s while both run); on two K40 boards each copy has
# a link of its own; a single K40 has no device 1.
set(MULTIGPU_SPEC ${PROJECT_SOURCE_DIR}/examples/guide/multigpu.json)
add_test(NAME cli.timeline_multigpu_k80 COMMAND ${PTXRAY_BIN} timeline ${MULTIGPU_SPEC} --arch k80 --threads 2)
set_tests_properties(cli.timeline_multigpu_k80 PROPERTIES PASS_REGULAR_EXPRESSION
  "session on Tesla K80 .*2 devices: 1 board of 2 GPUs\\).*gpu0 copy H2D\\| ?0+1+ +\\|.*gpu1 copy H2D\\|.*gpu1 stream 1.*memcpy_h2d +1 +1 +copy H2D.*hA -> dA1 \\(512 KiB\\), [67]\\.[0-9][0-9] GB/s")
add_test(NAME cli.timeline_multigpu_two_boards COMMAND ${PTXRAY_BIN} timeline ${MULTIGPU_SPEC} --arch k40 --boards 2 --threads 2)
set_tests_properties(cli.timeline_multigpu_two_boards PROPERTIES PASS_REGULAR_EXPRESSION
  "2 devices: 2 boards of 1 GPU\\).*memcpy_h2d +1 +1 +copy H2D.*hA -> dA1 \\(512 KiB\\), 13\\.[0-9][0-9] GB/s")
add_test(NAME cli.timeline_multigpu_one_device COMMAND bash -c "${PTXRAY_BIN} timeline ${MULTIGPU_SPEC} --arch k40 --threads 2 2>&1; echo exit=$?")
set_tests_properties(cli.timeline_multigpu_one_device PROPERTIES PASS_REGULAR_EXPRESSION
  "operations\\[4\\]: device 1 of a system of one GPU.*--boards.*exit=2")

# Issue #31: a spec of 100,000 events and one of 150,000 buffers took half a minute or more (names
# looked up by scanning, and the JSON parse callback scanning the operation list after each
# operation); now about two seconds each. The timeout fails the old behavior (longer under the
# sanitizers, which slow everything); each checks a result that follows from its operations.
# The sanitizer build, which checks memory and not speed, runs a fifth of each.
set(TIMELINE_SCALE_TIMEOUT 15)
set(TIMELINE_SCALE_events 100000)
set(TIMELINE_SCALE_buffers 150000)
if(PTXRAY_SANITIZE)
  set(TIMELINE_SCALE_TIMEOUT 60)
  set(TIMELINE_SCALE_events 20000)
  set(TIMELINE_SCALE_buffers 30000)
endif()
foreach(kind events buffers)
  add_test(NAME cli.timeline_scale_${kind} COMMAND python3 ${CMAKE_CURRENT_SOURCE_DIR}/cli/timeline_scale_test.py
           ${PTXRAY_BIN} ${PROJECT_SOURCE_DIR}/examples/guide/hypot.ptx ${kind} ${TIMELINE_SCALE_${kind}})
  set_tests_properties(cli.timeline_scale_${kind} PROPERTIES TIMEOUT ${TIMELINE_SCALE_TIMEOUT}
                       PASS_REGULAR_EXPRESSION "timeline scale \\(${kind}\\): ")
endforeach()

# nsys stats' summaries (--csv REPORT), read back by Python's csv module. By hand from the spec: two
# launches of one kernel; four host-to-device copies of 524,288 bytes (2.097 MB in all, 0.524 MB each)
# and two back.
add_test(NAME cli.timeline_csv_kern_sum COMMAND bash -c
  "${PTXRAY_BIN} timeline ${OVERLAP_SPEC} --arch k20x --threads 2 --csv cuda_gpu_kern_sum | \
   ${CSV_ROWS} --columns 'Time (%),Instances,Name'")
set_tests_properties(cli.timeline_csv_kern_sum PROPERTIES PASS_REGULAR_EXPRESSION
  "^Time \\(%\\)\\|Instances\\|Name\n100\\.0\\|2\\|hypotenuse\nrows: 1\n$")
add_test(NAME cli.timeline_csv_mem_size_sum COMMAND bash -c
  "${PTXRAY_BIN} timeline ${OVERLAP_SPEC} --arch k20x --threads 2 --csv cuda_gpu_mem_size_sum | ${CSV_ROWS}")
set_tests_properties(cli.timeline_csv_mem_size_sum PROPERTIES PASS_REGULAR_EXPRESSION
  "^Total \\(MB\\)\\|Count\\|Avg \\(MB\\)\\|Med \\(MB\\)\\|Min \\(MB\\)\\|Max \\(MB\\)\\|StdDev \\(MB\\)\\|Operation\n2\\.097\\|4\\|0\\.524\\|0\\.524\\|0\\.524\\|0\\.524\\|0\\.000\\|\\[CUDA memcpy Host-to-Device\\]\n1\\.049\\|2\\|0\\.524\\|0\\.524\\|0\\.524\\|0\\.524\\|0\\.000\\|\\[CUDA memcpy Device-to-Host\\]\nrows: 2\n$")
# Times: the copies of one direction take equal time; their total is the count times the average.
add_test(NAME cli.timeline_csv_mem_time_sum COMMAND bash -c
  "${PTXRAY_BIN} timeline ${OVERLAP_SPEC} --arch k20x --threads 2 --csv cuda_gpu_mem_time_sum | \
   ${CSV_ROWS} --columns 'Count,StdDev (ns),Operation'")
set_tests_properties(cli.timeline_csv_mem_time_sum PROPERTIES PASS_REGULAR_EXPRESSION
  "^Count\\|StdDev \\(ns\\)\\|Operation\n4\\|0\\.0\\|\\[CUDA memcpy Host-to-Device\\]\n2\\|0\\.0\\|\\[CUDA memcpy Device-to-Host\\]\nrows: 2\n$")
