# `ptxray run --tool racecheck|synccheck` as users run it. Included from tests/CMakeLists.txt, which
# defines PTXRAY_BIN. The bash wrappers print the exit status so that each test checks both.
set(SANITIZER_SPECS ${PROJECT_SOURCE_DIR}/tests/kernels/sanitizers/specs)

add_test(NAME cli.racecheck_race COMMAND bash -c
  "${PTXRAY_BIN} run ${SANITIZER_SPECS}/race_raw.json --tool racecheck 2>&1; echo exit=$?")
set_tests_properties(cli.racecheck_race PROPERTIES PASS_REGULAR_EXPRESSION
  "========= Error: Race reported between Write access at [^ ]*races\\.cu:9 and Read access at [^ ]*races\\.cu:10 \\(Read-After-Write hazard, shared memory\\).*128 occurrences\n========= RACECHECK SUMMARY: 1 hazard displayed \\(1 error, 0 warnings\\)\nexit=1")

add_test(NAME cli.sanitizers_clean COMMAND bash -c
  "${PTXRAY_BIN} run ${SANITIZER_SPECS}/race_raw_clean.json --tool racecheck,synccheck 2>&1; echo exit=$?")
set_tests_properties(cli.sanitizers_clean PROPERTIES PASS_REGULAR_EXPRESSION
  "^========= RACECHECK SUMMARY: 0 hazards displayed \\(0 errors, 0 warnings\\)\n========= SYNCCHECK SUMMARY: 0 hazards displayed \\(0 errors, 0 warnings\\)\nexit=0")

add_test(NAME cli.synccheck_partial_barrier COMMAND bash -c
  "${PTXRAY_BIN} run ${SANITIZER_SPECS}/barrier_in_branch.json --tool synccheck 2>&1; echo exit=$?")
set_tests_properties(cli.synccheck_partial_barrier PROPERTIES PASS_REGULAR_EXPRESSION
  "Error: Barrier error: not every thread of the block reaches the barrier at [^ ]*sync_errors\\.cu:10; the others exited at [^ ]*sync_errors\\.cu:13.*SYNCCHECK SUMMARY: 1 hazard displayed \\(1 error, 0 warnings\\)\nexit=1")

# Before Volta the unsynchronized warp reduction is a lock-step warning, not an error.
add_test(NAME cli.racecheck_lockstep_warning COMMAND bash -c
  "${PTXRAY_BIN} run ${SANITIZER_SPECS}/reduce_unsynchronized.json --arch sm_35 --tool racecheck 2>&1; echo exit=$?")
set_tests_properties(cli.racecheck_lockstep_warning PROPERTIES PASS_REGULAR_EXPRESSION
  "========= Warning: Intra-warp hazard \\(Write-After-Read\\).*RACECHECK SUMMARY: 5 hazards displayed \\(0 errors, 5 warnings\\)\nexit=0")

# With the performance model listening too (one launch, three listeners).
add_test(NAME cli.racecheck_with_metrics COMMAND bash -c
  "${PTXRAY_BIN} run ${SANITIZER_SPECS}/race_war.json --tool racecheck --tool synccheck --metrics 2>&1; echo exit=$?")
set_tests_properties(cli.racecheck_with_metrics PROPERTIES PASS_REGULAR_EXPRESSION
  "Write-After-Read hazard.*RACECHECK SUMMARY: 1 hazard displayed.*SYNCCHECK SUMMARY: 0 hazards displayed.*exit=1")

add_test(NAME cli.tool_unknown COMMAND bash -c
  "${PTXRAY_BIN} run ${SANITIZER_SPECS}/race_raw.json --tool helgrind 2>&1; echo exit=$?")
set_tests_properties(cli.tool_unknown PROPERTIES PASS_REGULAR_EXPRESSION
  "ptxray: error: --tool: unknown tool \"helgrind\" \\(memcheck, racecheck, synccheck, initcheck, leakcheck\\)\nexit=2")

# initcheck: a spec buffer with "init": "none" that the kernel reads; the same read on the command
# line with --buffer NAME=BYTES:none; and a clean twin.
add_test(NAME cli.initcheck_global COMMAND bash -c
  "${PTXRAY_BIN} run ${SANITIZER_SPECS}/init_global.json --tool initcheck 2>&1; echo exit=$?")
set_tests_properties(cli.initcheck_global PROPERTIES PASS_REGULAR_EXPRESSION
  "========= Error: Uninitialized __global__ memory read of size 4 bytes at [^ ]*initcheck\\.cu:8\n.*128 occurrences\n========= INITCHECK SUMMARY: 1 error\nexit=1")

add_test(NAME cli.initcheck_buffer_none COMMAND bash -c
  "${PTXRAY_BIN} run ${PROJECT_SOURCE_DIR}/tests/kernels/sanitizers/ptx/initcheck.ptx --kernel copyGlobal --grid 1 --block 32 --buffer in=128:none --buffer out=128 --arg buf:in --arg buf:out --tool initcheck 2>&1; echo exit=$?")
set_tests_properties(cli.initcheck_buffer_none PROPERTIES PASS_REGULAR_EXPRESSION
  "Uninitialized __global__ memory read of size 4 bytes.*is byte 0 of buffer in \\(128 bytes\\).*32 occurrences\n========= INITCHECK SUMMARY: 1 error\nexit=1")

add_test(NAME cli.initcheck_clean COMMAND bash -c
  "${PTXRAY_BIN} run ${SANITIZER_SPECS}/init_global_filled_by_kernel.json --tool initcheck,racecheck 2>&1; echo exit=$?")
set_tests_properties(cli.initcheck_clean PROPERTIES PASS_REGULAR_EXPRESSION
  "^========= RACECHECK SUMMARY: 0 hazards displayed \\(0 errors, 0 warnings\\)\n========= INITCHECK SUMMARY: 0 errors\nexit=0")

# The leak check reports at the end of the run, after every launch.
add_test(NAME cli.leakcheck_leak COMMAND bash -c
  "${PTXRAY_BIN} run ${SANITIZER_SPECS}/leak_kept_blocks.json --tool leakcheck 2>&1; echo exit=$?")
set_tests_properties(cli.leakcheck_leak PROPERTIES PASS_REGULAR_EXPRESSION
  "========= Error: Leaked 1024 bytes in 4 device-heap blocks allocated by malloc at [^ ]*leaks\\.cu:18\n.*4 occurrences\n========= LEAKCHECK SUMMARY: 1 error \\(1024 bytes leaked in 4 blocks\\)\nexit=1")

add_test(NAME cli.leakcheck_freed_later COMMAND bash -c
  "${PTXRAY_BIN} run ${SANITIZER_SPECS}/leak_freed_next_launch.json --tool leakcheck 2>&1; echo exit=$?")
set_tests_properties(cli.leakcheck_freed_later PROPERTIES PASS_REGULAR_EXPRESSION
  "^========= LEAKCHECK SUMMARY: 0 errors \\(0 bytes leaked in 0 blocks\\)\nexit=0")

# --sanitizer-json: every tool's reports and summaries as one document (docs/sanitizers.md). Keys are
# written in alphabetical order.
add_test(NAME cli.sanitizer_json_race COMMAND bash -c
  "${PTXRAY_BIN} run ${SANITIZER_SPECS}/race_raw.json --tool racecheck,synccheck,initcheck --sanitizer-json sanitizer_race.json >/dev/null 2>&1; echo exit=$?; cat sanitizer_race.json")
set_tests_properties(cli.sanitizer_json_race PROPERTIES PASS_REGULAR_EXPRESSION
  "^exit=1\n{\n \"arch\": \"sm_90\",\n \"reports\": \\[\n  {\n   \"details\": \\[\n    \"in kernel _Z15rawBetweenWarpsPKiPi\",.*\"headline\": \"Race reported between Write access at [^ ]*races\\.cu:9 and Read access at [^ ]*races\\.cu:10 \\(Read-After-Write hazard, shared memory\\)\",\n   \"kernel\": \"rawBetweenWarps\",\n   \"launch\": 0,\n   \"occurrences\": 128,\n   \"severity\": \"error\",\n   \"sites\": \\[\n    {\n     \"file\": \"[^\"]*races\\.cu\",\n     \"function\": \"_Z15rawBetweenWarpsPKiPi\",\n     \"line\": 9,\n     \"ptx_location\": \"[^\"]*races\\.ptx:[0-9]+:[0-9]+\",\n     \"ptx_text\": \"st\\.shared\\.u32[^\"]*\",\n     \"source_line\": \"[^\"]*races\\.cu:9\"\n    },.*\"tool\": \"racecheck\"\n  },\n  {.*\"tool\": \"initcheck\"\n  }\n \\],\n \"schema\": \"ptxray-sanitizers\",\n \"summary\": {\n  \"initcheck\": {\n   \"errors\": 1\n  },\n  \"racecheck\": {\n   \"errors\": 1,\n   \"warnings\": 0\n  },\n  \"synccheck\": {\n   \"errors\": 0,\n   \"warnings\": 0\n  }\n },\n \"tools\": \\[\n  \"initcheck\",\n  \"racecheck\",\n  \"synccheck\"\n \\],\n \"version\": 1\n}\n$")

# memcheck's errors are reports too; the leak check's come at the end of the run, with no launch.
add_test(NAME cli.sanitizer_json_memcheck_and_leaks COMMAND bash -c
  "${PTXRAY_BIN} run ${SANITIZER_SPECS}/mem_padding_overrun.json --memcheck --tool leakcheck --sanitizer-json sanitizer_memcheck.json >/dev/null 2>&1; echo exit=$?; cat sanitizer_memcheck.json; ${PTXRAY_BIN} run ${SANITIZER_SPECS}/leak_kept_blocks.json --tool leakcheck --sanitizer-json sanitizer_leaks.json >/dev/null 2>&1; echo exit=$?; cat sanitizer_leaks.json")
set_tests_properties(cli.sanitizer_json_memcheck_and_leaks PROPERTIES PASS_REGULAR_EXPRESSION
  "^exit=1\n.*\"headline\": \"Invalid address \\(out of bounds\\) \\(read of size 4 bytes, global space\\)\",\n   \"kernel\": \"adjacentSum\",\n   \"launch\": 0,\n   \"occurrences\": 1,\n   \"severity\": \"error\",\n   \"sites\": \\[\n    {\n.*\"source_line\": \"[^\"]*memcheck\\.cu:12\"\n    }\n   \\],\n   \"tool\": \"memcheck\"\n  }\n \\],.*\"leakcheck\": {\n   \"errors\": 0,\n   \"leaked_blocks\": 0,\n   \"leaked_bytes\": 0\n  },\n  \"memcheck\": {\n   \"errors\": 1\n  }\n },.*\nexit=1\n.*\"headline\": \"Leaked 1024 bytes in 4 device-heap blocks allocated by malloc at [^ ]*leaks\\.cu:18\",\n   \"kernel\": null,\n   \"launch\": null,\n   \"occurrences\": 4,.*\"tool\": \"leakcheck\".*\"leaked_blocks\": 4,\n   \"leaked_bytes\": 1024\n")

add_test(NAME cli.sanitizer_json_needs_a_tool COMMAND bash -c
  "${PTXRAY_BIN} run ${SANITIZER_SPECS}/race_raw.json --sanitizer-json unused.json 2>&1; echo exit=$?")
set_tests_properties(cli.sanitizer_json_needs_a_tool PROPERTIES PASS_REGULAR_EXPRESSION
  "^ptxray: error: --sanitizer-json needs a tool \\(--tool NAME or --memcheck\\)\nexit=2")

# compute-sanitizer's --error-exitcode and --print-limit on `run` as on `exec`: a race is exit 7 with
# --error-exitcode 7 (1 without), a clean run 0; two of memcheck's reports printed, the rest counted.
add_test(NAME cli.run_error_exitcode_print_limit COMMAND bash -c
  "${PTXRAY_BIN} run ${SANITIZER_SPECS}/race_raw.json --tool racecheck --error-exitcode 7 >/dev/null 2>&1; echo race=$?; \
   ${PTXRAY_BIN} run ${SANITIZER_SPECS}/race_raw_clean.json --tool racecheck --error-exitcode 7 >/dev/null 2>&1; echo clean=$?; \
   ${PTXRAY_BIN} run ${PROJECT_SOURCE_DIR}/examples/saxpy.ptx --kernel saxpy --grid 1 --block 64 --buffer x=64 \
     --buffer y=64 --arg s32:64 --arg f32:1 --arg buf:x --arg buf:y --memcheck --print-limit 2 2>&1 | grep '^========= [A-Z]'")
set_tests_properties(cli.run_error_exitcode_print_limit PROPERTIES PASS_REGULAR_EXPRESSION
  "^race=7\nclean=0\n========= Invalid address [^\n]*\n========= Invalid address [^\n]*\n========= ERROR SUMMARY: 144 errors \\(the first 2 are reported\\)\n")
# A launch the filters leave out still runs, but its hazards are neither printed nor counted.
add_test(NAME cli.run_filtered_launch_not_counted COMMAND bash -c
  "${PTXRAY_BIN} run ${SANITIZER_SPECS}/race_raw.json --tool racecheck --kernel-name kns=no_such_kernel 2>&1; echo exit=$?")
set_tests_properties(cli.run_filtered_launch_not_counted PROPERTIES PASS_REGULAR_EXPRESSION
  "RACECHECK SUMMARY: 0 hazards displayed \\(0 errors, 0 warnings\\)\nexit=0\n$")
