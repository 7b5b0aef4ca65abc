# Unmodified CUDA programs (tests/programs, built by nvcc 13 with -cudart shared) run on ptxray's
# libcudart.so.13 through `ptxray exec`: stdout and exit status as on an H100. Included from
# tests/CMakeLists.txt, which defines PTXRAY_BIN.
set(PROGRAMS_DIR ${CMAKE_CURRENT_SOURCE_DIR}/programs)
file(GLOB PTXRAY_PROGRAM_STATUSES CONFIGURE_DEPENDS ${PROGRAMS_DIR}/expected/*.status)
# runtime_calls registers heap memory with cudaHostRegister, which moves the heap's pages: about one
# run in a hundred with two workers corrupts the heap (a known bug, docs/cuda-runtime.md "Not yet"),
# never one with a single worker, so its tests run with one.
set(PTXRAY_ONE_WORKER_PROGRAMS runtime_calls)
foreach(status ${PTXRAY_PROGRAM_STATUSES})
  get_filename_component(name ${status} NAME_WE)
  set(options "")
  if(name IN_LIST PTXRAY_ONE_WORKER_PROGRAMS)
    set(options --threads 1)
  endif()
  add_test(NAME programs.${name} COMMAND ${PROGRAMS_DIR}/run_test.sh ${PTXRAY_BIN} ${name} ${options})
  set_tests_properties(programs.${name} PROPERTIES TIMEOUT 300)
endforeach()

# The same results with one worker, and under the sanitizers, which find nothing in correct programs.
add_test(NAME programs.matmul_tiled_one_worker COMMAND ${PROGRAMS_DIR}/run_test.sh ${PTXRAY_BIN} matmul_tiled --threads 1)
# Blocks that wait for each other need no second worker: one keeps them resident and switches.
add_test(NAME programs.forward_progress_one_worker COMMAND ${PROGRAMS_DIR}/run_test.sh ${PTXRAY_BIN} forward_progress --threads 1)
set_tests_properties(programs.forward_progress_one_worker PROPERTIES TIMEOUT 300)
add_test(NAME programs.histogram_sanitizers COMMAND ${PROGRAMS_DIR}/run_test.sh ${PTXRAY_BIN} histogram
  --tool memcheck,racecheck,synccheck,initcheck)
set_tests_properties(programs.histogram_sanitizers PROPERTIES FAIL_REGULAR_EXPRESSION "FAIL")

# The device properties a program reads are the modeled GPU's: on an H100 every line but the name
# matched (validation/programs/results/device_query.out); on a K40, the Kepler limits.
add_test(NAME programs.device_query_h100 COMMAND bash -c
  "diff <(${PTXRAY_BIN} exec --arch h100 -- ${PROGRAMS_DIR}/bin/device_query | grep -v '^prop.name=') \
        <(grep -v '^prop.name=' ${PROJECT_SOURCE_DIR}/validation/programs/results/device_query.out) && echo SAME")
set_tests_properties(programs.device_query_h100 PROPERTIES PASS_REGULAR_EXPRESSION "SAME")
add_test(NAME programs.device_query_k40 COMMAND ${PTXRAY_BIN} exec --arch k40 -- ${PROGRAMS_DIR}/bin/device_query)
set_tests_properties(programs.device_query_k40 PROPERTIES PASS_REGULAR_EXPRESSION
  "prop.name=Tesla K40.*prop.major=3.*prop.minor=5.*prop.multiProcessorCount=15.*prop.maxThreadsPerMultiProcessor=2048")

# Device code ptxray cannot run is refused with the reason and the CUDA error a GPU would give.
add_test(NAME programs.sass_only_refused COMMAND bash -c "${PTXRAY_BIN} exec -- ${PROGRAMS_DIR}/bin/vector_add_sass 2>&1; echo exit=$?")
set_tests_properties(programs.sass_only_refused PROPERTIES PASS_REGULAR_EXPRESSION
  "no PTX in this binary \\(SASS only: sm_90\\).*cudaErrorNoKernelImageForDevice.*exit=1")
add_test(NAME programs.no_ptx_for_the_gpu COMMAND bash -c "${PTXRAY_BIN} exec --strict-ptx --arch k40 -- ${PROGRAMS_DIR}/bin/vector_add_multi 2>&1; echo exit=$?")
set_tests_properties(programs.no_ptx_for_the_gpu PROPERTIES PASS_REGULAR_EXPRESSION
  "no PTX for sm_35 in this binary \\(it has compute_75, compute_90\\).*cudaErrorNoKernelImageForDevice.*exit=1")
# Without --strict-ptx, a GPU older than every PTX still runs the oldest one, so that the guides'
# GPUs can be studied with programs nvcc 13 builds; the advisor's report covers the program's kernels.
add_test(NAME programs.oldest_ptx_on_kepler COMMAND bash -c
  "${PTXRAY_BIN} exec --arch k20x --report ${CMAKE_CURRENT_BINARY_DIR}/matmul_k20x.txt -- ${PROGRAMS_DIR}/bin/matmul_tiled 2>&1 \
   && cat ${CMAKE_CURRENT_BINARY_DIR}/matmul_k20x.txt")
set_tests_properties(programs.oldest_ptx_on_kepler PROPERTIES PASS_REGULAR_EXPRESSION
  "modeling sm_35 with this program's compute_90 PTX.*matmul_tiled: PASS.*report of 1 kernel.*== sgemm_tiled\\(float const\\*, float const\\*, float\\*, int, int, int\\) on Tesla K20X \\(sm_35\\).*Findings")
add_test(NAME programs.multi_ptx_on_t4 COMMAND ${PTXRAY_BIN} exec --arch t4 -- ${PROGRAMS_DIR}/bin/vector_add_multi)
set_tests_properties(programs.multi_ptx_on_t4 PROPERTIES PASS_REGULAR_EXPRESSION "vector_add: PASS")
add_test(NAME programs.uncompressed_fatbin COMMAND ${PTXRAY_BIN} exec -- ${PROGRAMS_DIR}/bin/vector_add_nocompress)
set_tests_properties(programs.uncompressed_fatbin PROPERTIES PASS_REGULAR_EXPRESSION "vector_add: PASS")

# The API trace and the memory checker on a faulting program; the metrics file of a program's launches.
add_test(NAME programs.api_trace_and_memcheck COMMAND bash -c
  "${PTXRAY_BIN} exec --log-api --tool memcheck -- ${PROGRAMS_DIR}/bin/error_oob 2>&1; echo exit=$?")
set_tests_properties(programs.api_trace_and_memcheck PROPERTIES PASS_REGULAR_EXPRESSION
  "cudaMalloc\\(pointer=\\[0x[0-9a-f]+\\], bytes=[0-9]+\\) = cudaSuccess.*Invalid address \\(out of bounds\\).*error_oob.cu:[0-9]+.*cudaDeviceSynchronize\\(\\) = cudaErrorIllegalAddress.*MEMCHECK SUMMARY: 1 error.*exit=3")
add_test(NAME programs.metrics_json COMMAND bash -c
  "${PTXRAY_BIN} exec --metrics-json ${CMAKE_CURRENT_BINARY_DIR}/matmul_metrics.json -- ${PROGRAMS_DIR}/bin/matmul_tiled >/dev/null \
   && grep -c '\"kernel\"' ${CMAKE_CURRENT_BINARY_DIR}/matmul_metrics.json")
set_tests_properties(programs.metrics_json PROPERTIES PASS_REGULAR_EXPRESSION "^[1-9]")

# The extracted PTX is the same whether nvcc compressed it or not.
add_test(NAME programs.fatbin_ptx_compressed_equals_stored COMMAND bash -c
  "cmp <(${PTXRAY_BIN} fatbin --ptx ${PROGRAMS_DIR}/bin/vector_add) <(${PTXRAY_BIN} fatbin --ptx ${PROGRAMS_DIR}/bin/vector_add_nocompress) && echo SAME")
set_tests_properties(programs.fatbin_ptx_compressed_equals_stored PROPERTIES PASS_REGULAR_EXPRESSION "SAME")
add_test(NAME programs.fatbin_list COMMAND ${PTXRAY_BIN} fatbin ${PROGRAMS_DIR}/bin/vector_add_multi)
set_tests_properties(programs.fatbin_list PROPERTIES PASS_REGULAR_EXPRESSION
  "PTX +compute_75 .*compression zstd.*PTX +compute_90 .*compression zstd")
add_test(NAME programs.exec_missing_program COMMAND bash -c "${PTXRAY_BIN} exec -- ./no-such-program 2>&1; echo exit=$?")
set_tests_properties(programs.exec_missing_program PROPERTIES PASS_REGULAR_EXPRESSION "cannot run './no-such-program': no such file or directory\nexit=127")

# `cuobjdump -ptx` is the oracle of the fatbinary reader: its listing of every test program, recorded
# on the GPU machine, must show the PTX texts `ptxray fatbin` extracts (compressed or not, several
# architectures, none for SASS-only or host-only programs).
add_test(NAME programs.fatbin_ptx_equals_cuobjdump COMMAND python3 ${PROGRAMS_DIR}/compare_cuobjdump.py ${PTXRAY_BIN}
  ${PROGRAMS_DIR}/bin ${PROJECT_SOURCE_DIR}/validation/programs/results/cuobjdump ${CMAKE_CURRENT_BINARY_DIR}/cuobjdump-compare)
set_tests_properties(programs.fatbin_ptx_equals_cuobjdump PROPERTIES PASS_REGULAR_EXPRESSION "[1-9][0-9]* programs compared, 0 differ")

# The same programs built with nvcc's default static runtime: NVIDIA's runtime inside the executable
# loads ptxray's libcuda.so.1 (the driver API, with the private tables the runtime asks for).
file(GLOB PTXRAY_STATIC_PROGRAMS CONFIGURE_DEPENDS ${PROGRAMS_DIR}/bin/static/*)
foreach(program ${PTXRAY_STATIC_PROGRAMS})
  get_filename_component(name ${program} NAME)
  set(options "")
  if(name IN_LIST PTXRAY_ONE_WORKER_PROGRAMS)
    set(options --threads 1)
  endif()
  add_test(NAME programs.static_runtime.${name} COMMAND ${PROGRAMS_DIR}/run_test.sh ${PTXRAY_BIN} static/${name} ${options})
  set_tests_properties(programs.static_runtime.${name} PROPERTIES TIMEOUT 300)
endforeach()
add_test(NAME programs.static_runtime_sanitizers COMMAND ${PROGRAMS_DIR}/run_test.sh ${PTXRAY_BIN} static/reduction_streams
  --tool memcheck,racecheck,synccheck,initcheck)

# The session an unmodified program's runtime calls make (PTXRAY_TIMELINE through `ptxray timeline --`):
# two streams of pinned copies and reductions joined by an event, on a K20X's two copy engines.
add_test(NAME programs.reduction_streams_timeline COMMAND bash -c
  "${PTXRAY_BIN} timeline --arch k20x --threads 2 --json rs-timeline.json -- ${PROGRAMS_DIR}/bin/reduction_streams 2>&1 && \
   grep -c '\"op\": \"stream_wait_event\"' rs-timeline.json")
set_tests_properties(programs.reduction_streams_timeline PROPERTIES PASS_REGULAR_EXPRESSION
  "session on Tesla K20X.*copy H2D +\\|1+5+ +\\|.*memcpy_h2d +[0-9]+ +copy H2D.*launch +[0-9]+ +compute.*block_reduce<<<64, 256>>>.*stream_wait_event.*stream_synchronize.*timeline of 16 operations.*\n1\n")
# The same session as a trace for Perfetto (`exec --trace`), well formed (tests/cli/check_trace.py).
add_test(NAME programs.reduction_streams_trace COMMAND bash -c
  "${PTXRAY_BIN} exec --arch k20x --threads 2 --trace rs.trace.json -- ${PROGRAMS_DIR}/bin/reduction_streams >/dev/null && \
   python3 ${PROJECT_SOURCE_DIR}/tests/cli/check_trace.py rs.trace.json --ops 16 --rows 'host thread'")
set_tests_properties(programs.reduction_streams_trace PROPERTIES PASS_REGULAR_EXPRESSION
  "trace of 16 operations is in .*rs\\.trace\\.json.*trace ok: ")

# Driver-API calls and symbol copies are in a program's session too: cuMemcpyHtoD, cuMemsetD32 (no
# host wait: a device memset does not hold the host),
# cuEventRecord and cuCtxSynchronize (driver_api); cudaMemcpyToSymbol and cudaMemcpyFromSymbol
# (symbols: 2 copies in, 4 out besides its 2 cudaMemcpy).
add_test(NAME programs.driver_api_timeline COMMAND bash -c
  "${PTXRAY_BIN} timeline --arch k20x --json da-timeline.json -- ${PROGRAMS_DIR}/bin/driver_api 2>&1 && \
   grep -o '\"op\": \"[a-z_0-9]*\"' da-timeline.json | sort | uniq -c | tr -s ' ' | tr '\\n' ','")
set_tests_properties(programs.driver_api_timeline PROPERTIES PASS_REGULAR_EXPRESSION
  "memcpy_h2d +0 +copy H2D.*memset +0 +compute.*event_record.*saxpy<<<8, 128>>>.*memcpy_d2h.*timeline of 14 operations.* 2 \"op\": \"event_record\", 2 \"op\": \"launch\", 2 \"op\": \"memcpy_d2h\", 2 \"op\": \"memcpy_h2d\", 1 \"op\": \"memset\", 5 \"op\": \"stream_synchronize\",")
add_test(NAME programs.symbols_timeline COMMAND bash -c
  "${PTXRAY_BIN} timeline --arch k20x --json sym-timeline.json -- ${PROGRAMS_DIR}/bin/symbols >/dev/null 2>&1 && \
   grep -o '\"op\": \"memcpy_[a-z0-9]*\"' sym-timeline.json | sort | uniq -c | tr -s ' ' | tr '\\n' ','")
set_tests_properties(programs.symbols_timeline PROPERTIES PASS_REGULAR_EXPRESSION
  " 6 \"op\": \"memcpy_d2h\", 2 \"op\": \"memcpy_h2d\",")

# Several devices ([KTG] §1.4.7): on a K80 a program sees two (cudaGetDeviceCount), splits its work
# over both and gathers it with peer copies, with the shared runtime and with nvcc's static one
# (NVIDIA's runtime over ptxray's driver API, a primary context per device); its session places each
# device's work on that device and the gathering copy between them.
add_test(NAME programs.multi_gpu_k80 COMMAND ${PROGRAMS_DIR}/run_test.sh ${PTXRAY_BIN} multi_gpu --arch k80)
add_test(NAME programs.static_runtime.multi_gpu_k80 COMMAND ${PROGRAMS_DIR}/run_test.sh ${PTXRAY_BIN} static/multi_gpu --arch k80)
add_test(NAME programs.multi_gpu_k80_timeline COMMAND bash -c
  "${PTXRAY_BIN} timeline --arch k80 --json mg-timeline.json -- ${PROGRAMS_DIR}/bin/static/multi_gpu 2>&1 && \
   grep -c '\"op\": \"memcpy_peer\"' mg-timeline.json")
set_tests_properties(programs.multi_gpu_k80_timeline PROPERTIES PASS_REGULAR_EXPRESSION
  "multi_gpu: PASS.*2 devices: 1 board of 2 GPUs.*gpu1 copy H2D.*gpu1 compute.*memcpy_peer +1 +[0-9]+ +copy D2H.*device 1 -> 0.*\n1\n")
# --boards (PTXRAY_BOARDS): two K40 boards are two devices too; a board count out of range is
# reported and one board modeled.
add_test(NAME programs.multi_gpu_two_boards COMMAND bash -c
  "${PTXRAY_BIN} exec --arch k40 --boards 2 --log-api -- ${PROGRAMS_DIR}/bin/multi_gpu 2>&1")
set_tests_properties(programs.multi_gpu_two_boards PROPERTIES PASS_REGULAR_EXPRESSION
  "cudaGetDeviceCount\\(count=\\[2\\]\\) = cudaSuccess.*cudaSetDevice\\(device=1\\) = cudaSuccess.*cudaMemcpyPeerAsync\\(dst=0x[0-9a-f]+, dstDevice=0, src=0x[0-9a-f]+, srcDevice=1, bytes=[0-9]+, stream=0x[0-9a-f]+\\) = cudaSuccess.*multi_gpu: PASS")
add_test(NAME programs.multi_gpu_bad_boards COMMAND bash -c
  "PTXRAY_BOARDS=99 ${PTXRAY_BIN} exec --arch k40 -- ${PROGRAMS_DIR}/bin/multi_gpu 2>&1")
set_tests_properties(programs.multi_gpu_bad_boards PROPERTIES PASS_REGULAR_EXPRESSION
  "PTXRAY_BOARDS: \"99\" is not 1 to 16; 1 board.*multi_gpu: PASS")

# A program runs under the same pipeline as `ptxray run` and `analyze` (src/session, issue #24): the
# three hazards planted in bin/hazards (a shared-memory race, a global race inside a block, a
# device-heap leak) reach every output, with the options `run` has.
set(HAZARDS ${PROGRAMS_DIR}/bin/hazards)
add_test(NAME programs.exec_report_has_sanitizer_findings COMMAND bash -c
  "${PTXRAY_BIN} exec --tool racecheck,leakcheck --report hazards-report.json -- ${HAZARDS} >/dev/null 2>&1 && \
   python3 ${PROGRAMS_DIR}/report_rules.py hazards-report.json")
set_tests_properties(programs.exec_report_has_sanitizer_findings PROPERTIES PASS_REGULAR_EXPRESSION
  "_Z10sharedRacePi [^\n]*race-hazard.*_Z8heapLeakPi [^\n]*memory-leak")
add_test(NAME programs.exec_racecheck_global COMMAND bash -c
  "${PTXRAY_BIN} exec --tool racecheck -- ${HAZARDS} 2>&1 | grep SUMMARY; \
   ${PTXRAY_BIN} exec --tool racecheck --racecheck-global -- ${HAZARDS} 2>&1 | grep -E 'memory\\)|SUMMARY'")
set_tests_properties(programs.exec_racecheck_global PROPERTIES PASS_REGULAR_EXPRESSION
  "RACECHECK SUMMARY: 1 hazard displayed \\(1 error, 0 warnings\\)\n.*shared memory\\)\n.*hazards\\.cu:31 and Read access at [^ ]*hazards\\.cu:32 \\(Read-After-Write hazard, global memory\\)\n.*RACECHECK SUMMARY: 2 hazards displayed")
add_test(NAME programs.exec_leak_summary COMMAND bash -c "${PTXRAY_BIN} exec --tool leakcheck -- ${HAZARDS} 2>&1")
set_tests_properties(programs.exec_leak_summary PROPERTIES PASS_REGULAR_EXPRESSION
  "Leaked 256 bytes in 4 device-heap blocks allocated by malloc at [^ ]*hazards\\.cu:37.*LEAKCHECK SUMMARY: 1 error \\(256 bytes leaked in 4 blocks\\)")
add_test(NAME programs.exec_sanitizer_json COMMAND bash -c
  "${PTXRAY_BIN} exec --tool racecheck,leakcheck --sanitizer-json hazards-sanitizers.json -- ${HAZARDS} >/dev/null 2>&1 && \
   python3 -c \"import json; d = json.load(open('hazards-sanitizers.json')); \
print(d['schema'], d['tools'], [(r['tool'], r['kernel'], r['sites'][0]['line']) for r in d['reports']], d['summary']['leakcheck'])\"")
set_tests_properties(programs.exec_sanitizer_json PROPERTIES PASS_REGULAR_EXPRESSION
  "ptxray-sanitizers \\['leakcheck', 'racecheck'\\] \\[\\('racecheck', '_Z10sharedRacePi', 25\\), \\('leakcheck', None, 37\\)\\] {'errors': 1, 'leaked_blocks': 4, 'leaked_bytes': 256}")
# The model's settings reach a program's report: the K40 ships at its base clock ([KTG] 1.4.6).
add_test(NAME programs.exec_model_settings COMMAND bash -c
  "for clock in default boost; do ${PTXRAY_BIN} exec --arch k40 --clock $clock --report mm-$clock.json -- \
     ${PROGRAMS_DIR}/bin/matmul_tiled >/dev/null 2>&1 && \
   python3 -c \"import json; print(json.load(open('mm-$clock.json'))['analyses'][0]['launch']['time']['explanation'][:22])\"; done")
set_tests_properties(programs.exec_model_settings PROPERTIES PASS_REGULAR_EXPRESSION
  "^Tesla K40 at 745 MHz, \nTesla K40 at 875 MHz, \n$")
# compute-sanitizer's conventions (validation/conventions/results, an H200 with compute-sanitizer
# 2025.3.1): --leak-check full reports the cudaMalloc'd memory a program never freed, one report per
# allocation with its size as "1,024 bytes" (not the one it freed), whether or not it calls
# cudaDeviceReset; the exit status stays the program's (0) unless --error-exitcode says otherwise.
set(LEAK ${PROGRAMS_DIR}/bin/leak)
add_test(NAME programs.exec_leak_check_full COMMAND bash -c
  "${PTXRAY_BIN} exec --leak-check full -- ${LEAK} reset 2>&1; echo exit=$?")
set_tests_properties(programs.exec_leak_check_full PROPERTIES PASS_REGULAR_EXPRESSION
  "^leak: done\n========= Error: Leaked 1,024 bytes at 0x[0-9a-f]+\n=========     allocated by the program: cudaMalloc of 1024 bytes\n=========     not freed by the end of the program\n=========     1 occurrence\n========= Error: Leaked 4,096 bytes at 0x[0-9a-f]+\n=========     allocated by the program: cudaMalloc of 4096 bytes\n[^\n]*\n[^\n]*\n========= MEMCHECK SUMMARY: 0 errors\n========= LEAKCHECK SUMMARY: 2 errors \\(5120 bytes leaked in 2 blocks\\)\nexit=0\n$")
# --error-exitcode: ptxray waits for the program and returns N when a tool found an error, else the
# program's own status (assert's 4, with no tool; 0 for a clean program).
add_test(NAME programs.exec_error_exitcode COMMAND bash -c
  "${PTXRAY_BIN} exec --leak-check full --error-exitcode 9 -- ${LEAK} >/dev/null 2>&1; echo leak=$?;    ${PTXRAY_BIN} exec --tool memcheck --error-exitcode 9 -- ${PROGRAMS_DIR}/bin/error_oob >/dev/null 2>&1; echo oob=$?;    ${PTXRAY_BIN} exec --error-exitcode 9 -- ${PROGRAMS_DIR}/bin/assert >/dev/null 2>&1; echo assert=$?;    ${PTXRAY_BIN} exec --tool memcheck,leakcheck --error-exitcode 9 -- ${PROGRAMS_DIR}/bin/vector_add >/dev/null 2>&1; echo clean=$?;    ${PTXRAY_BIN} exec --error-exitcode 9 -- /nonexistent/app >/dev/null 2>&1; echo missing=$?;    ${PTXRAY_BIN} exec --error-exitcode 0 -- ${LEAK} 2>&1 | head -n 1")
set_tests_properties(programs.exec_error_exitcode PROPERTIES PASS_REGULAR_EXPRESSION
  "^leak=9\noob=9\nassert=4\nclean=0\nmissing=127\nptxray: error: --error-exitcode: Value 0 not in range 1 to 255\n$")
# --print-limit N prints N reports and counts the rest; --log-file takes the tools' output (%p: pid)
# and leaves the program's own output where it was.
add_test(NAME programs.exec_print_limit_and_log_file COMMAND bash -c
  "rm -f leak-log-*.txt; ${PTXRAY_BIN} exec --leak-check full --print-limit 1 -- ${LEAK} 2>&1 | grep -c 'Error: Leaked';    ${PTXRAY_BIN} exec --leak-check full --print-limit 1 -- ${LEAK} 2>&1 | tail -n 1;    ${PTXRAY_BIN} exec --leak-check full --log-file leak-log-%p.txt -- ${LEAK} 2>&1;    ls leak-log-*.txt | grep -cE 'leak-log-[0-9]+\\.txt'; grep -c 'Error: Leaked' leak-log-*.txt")
set_tests_properties(programs.exec_print_limit_and_log_file PROPERTIES PASS_REGULAR_EXPRESSION
  "^1\n========= ERROR SUMMARY: 1 report was not printed; --print-limit N prints N \\(0: all\\)\nleak: done\n1\n2\n$")

# Reports name kernels as compute-sanitizer's --demangle says: full by default, simple, or mangled.
add_test(NAME programs.exec_demangle COMMAND bash -c
  "for style in '' '--demangle simple' '--demangle no'; do \
     ${PTXRAY_BIN} exec --tool racecheck $style -- ${HAZARDS} 2>&1 | grep 'in kernel'; done")
set_tests_properties(programs.exec_demangle PROPERTIES PASS_REGULAR_EXPRESSION
  "^=========     in kernel sharedRace\\(int\\*\\)\n=========     in kernel sharedRace\n=========     in kernel _Z10sharedRacePi\n$")

# Kernel and launch filters with compute-sanitizer's and ncu's spellings: the tools report on the
# launches selected (counting only matching launches for --launch-skip/--launch-count) and the
# summaries count those alone; --metrics-json keeps the selected launches.
add_test(NAME programs.exec_kernel_filters COMMAND bash -c
  "for f in '' '-k sharedRace' '--kernel-name-exclude kns=shared' '--kernel-name regex:Race --launch-skip 1' \
            '-c 1' '--kernel-name kne=_Z10globalRacePiS_' '-k heapLeak'; do \
     echo \"[$f]\"; ${PTXRAY_BIN} exec --tool racecheck --racecheck-global $f -- ${HAZARDS} 2>&1 | grep -E 'in kernel|SUMMARY'; done; \
   ${PTXRAY_BIN} exec -k regex:Race -c 1 --metrics-json filtered-metrics.json -- ${HAZARDS} >/dev/null && \
   python3 -c \"import json; print([l['kernel'] for l in json.load(open('filtered-metrics.json'))['launches']])\"")
set_tests_properties(programs.exec_kernel_filters PROPERTIES PASS_REGULAR_EXPRESSION
  "^\\[\\]\n[^\n]*in kernel sharedRace\\(int\\*\\)\n[^\n]*in kernel globalRace\\(int\\*, int\\*\\)\n[^\n]*RACECHECK SUMMARY: 2 hazards displayed \\(2 errors, 0 warnings\\)\n\\[-k sharedRace\\]\n[^\n]*in kernel sharedRace\\(int\\*\\)\n[^\n]*SUMMARY: 1 hazard displayed \\(1 error, 0 warnings\\)\n\\[--kernel-name-exclude kns=shared\\]\n[^\n]*in kernel globalRace[^\n]*\n[^\n]*SUMMARY: 1 hazard displayed \\(1 error, 0 warnings\\)\n\\[--kernel-name regex:Race --launch-skip 1\\]\n[^\n]*in kernel globalRace[^\n]*\n[^\n]*SUMMARY: 1 hazard displayed \\(1 error, 0 warnings\\)\n\\[-c 1\\]\n[^\n]*in kernel sharedRace[^\n]*\n[^\n]*SUMMARY: 1 hazard displayed \\(1 error, 0 warnings\\)\n\\[--kernel-name kne=_Z10globalRacePiS_\\]\n[^\n]*in kernel globalRace[^\n]*\n[^\n]*SUMMARY: 1 hazard displayed \\(1 error, 0 warnings\\)\n\\[-k heapLeak\\]\n[^\n]*SUMMARY: 0 hazards displayed \\(0 errors, 0 warnings\\)\n\\['_Z10sharedRacePi'\\]\n$")
add_test(NAME programs.exec_kernel_filter_errors COMMAND bash -c
  "${PTXRAY_BIN} exec --kernel-name foo=bar -- ${HAZARDS} 2>&1; echo exit=$?; \
   ${PTXRAY_BIN} exec -k 'regex:(' -- ${HAZARDS} 2>&1 | head -n 1; \
   PTXRAY_LAUNCH_COUNT=x ${PTXRAY_BIN} exec -- ${HAZARDS} 2>&1")
set_tests_properties(programs.exec_kernel_filter_errors PROPERTIES PASS_REGULAR_EXPRESSION
  "^ptxray: error: --kernel-name: unknown key \"foo\" \\(kne or kernel_name, kns or kernel_substring, regex\\)\nexit=2\nptxray: error: --kernel-name: \"\\(\" is not a regular expression: [^\n]*\nptxray: warning: PTXRAY_LAUNCH_COUNT: \"x\" is not a count; 0\nhazards: done\n$")

# A program that can reach no GPU code gets a note (it still runs, with its own status); CUDA
# programs, the shared or the static runtime, and scripts get none.
add_test(NAME programs.exec_note_without_gpu_code COMMAND bash -c
  "${PTXRAY_BIN} exec -- /bin/false 2>&1; echo exit=$?; \
   ${PTXRAY_BIN} exec -- ${PROGRAMS_DIR}/bin/vector_add 2>&1 | grep -c note; \
   ${PTXRAY_BIN} exec -- ${PROGRAMS_DIR}/bin/static/vector_add 2>&1 | grep -c note; \
   printf '#!/bin/sh\\necho script\\n' > gpu-free-script.sh && chmod +x gpu-free-script.sh && \
   ${PTXRAY_BIN} exec -- ./gpu-free-script.sh 2>&1")
set_tests_properties(programs.exec_note_without_gpu_code PROPERTIES PASS_REGULAR_EXPRESSION
  "^ptxray: note: /bin/false links no CUDA or OpenCL library and embeds no device code; unless it loads one at run time \\(dlopen\\), ptxray sees none of its work\nexit=1\n0\n0\nscript\n$")

# `cmake --install`: the standard layout, from which `exec` finds the CUDA libraries beside the
# executable and the OpenCL vendor file names the installed platform. (Not in the sanitizer build,
# whose executables find the ASan runtime through a build-tree run path.)
if(NOT PTXRAY_SANITIZE)
add_test(NAME programs.install_layout COMMAND bash -c
  "rm -rf install-root && cmake --install ${CMAKE_BINARY_DIR} --prefix $PWD/install-root >/dev/null && \
   cd install-root && ls bin lib/ptxray-cuda lib/ptxray-opencl && cat lib/ptxray-opencl/ptxray.icd && \
   env -u PTXRAY_CUDA_LIB_DIR -u PTXRAY_OPENCL_LIB_DIR bin/ptxray exec -- ${PROGRAMS_DIR}/bin/vector_add")
set_tests_properties(programs.install_layout PROPERTIES PASS_REGULAR_EXPRESSION
  "^bin:\nptxray\n\nlib/ptxray-cuda:\nlibcuda\\.so\nlibcuda\\.so\\.1\nlibcudart\\.so\nlibcudart\\.so\\.13\nlibcudart\\.so\\.13\\.0\\.0\nlibptxray-nvtx\\.so\n\nlib/ptxray-opencl:\nlibptxray-opencl\\.so\nptxray\\.icd\n/[^\n]*/install-root/lib/ptxray-opencl/libptxray-opencl\\.so\nvector_add: PASS")
endif()

# One list of tool names: the command lines and PTXRAY_TOOL say the same.
add_test(NAME programs.tool_names_are_one_list COMMAND bash -c
  "${PTXRAY_BIN} exec --tool helgrind -- ${HAZARDS} 2>&1; ${PTXRAY_BIN} run ${PROJECT_SOURCE_DIR}/tests/vm/specs/affine.json --tool helgrind 2>&1; \
   PTXRAY_TOOL=helgrind ${PTXRAY_BIN} exec -- ${HAZARDS} 2>&1")
set_tests_properties(programs.tool_names_are_one_list PROPERTIES PASS_REGULAR_EXPRESSION
  "^ptxray: error: --tool: unknown tool \"helgrind\" \\(memcheck, racecheck, synccheck, initcheck, leakcheck\\)\nptxray: error: --tool: unknown tool \"helgrind\" \\(memcheck, racecheck, synccheck, initcheck, leakcheck\\)\nptxray: warning: PTXRAY_TOOL: unknown tool \"helgrind\" \\(memcheck, racecheck, synccheck, initcheck, leakcheck\\); no tool runs\nhazards: done")

# The program's own clock is the modeled GPU's (issue #26): what a self-timing program prints with
# CUDA events equals the timeline of the same run, with the shared and with nvcc's static runtime; its
# 1 ms clock64() wait and its Hyper-Q streams of 2 ms clock() waits (side by side on an H100) last the
# modeled time. On an H100 the same program prints times within 2x (validation/programs/README.md).
add_test(NAME programs.timing_equals_timeline COMMAND bash -c
  "${PTXRAY_BIN} exec --arch h100 --timeline timing.json -- ${PROGRAMS_DIR}/bin/timing >timing.out && \
   python3 ${PROGRAMS_DIR}/timing_check.py timing.out timing.json kernel_clock64_wait_1ms=0.99:1.1 \
     hyperq_4_streams_2x2ms=3.9:4.4 kernel_empty=0.04:0.08 kernel_empty_x10=0.02:0.05 \
     graph_2_branches_1ms_x10=9.9:10.8")
set_tests_properties(programs.timing_equals_timeline PROPERTIES PASS_REGULAR_EXPRESSION "20 measurements, 0 differ")
# (Not under the sanitizers, where it takes half a minute: the other static-runtime programs run the
# same driver-API path there, and the run above the same timing code.)
if(NOT PTXRAY_SANITIZE)
  add_test(NAME programs.static_runtime.timing_equals_timeline COMMAND bash -c
    "${PTXRAY_BIN} exec --arch h100 --timeline timing-static.json -- ${PROGRAMS_DIR}/bin/timing_static >timing-static.out && \
     python3 ${PROGRAMS_DIR}/timing_check.py timing-static.out timing-static.json kernel_clock64_wait_1ms=0.99:1.1")
  set_tests_properties(programs.static_runtime.timing_equals_timeline PROPERTIES PASS_REGULAR_EXPRESSION
    "20 measurements, 0 differ")
endif()
# On a Fermi GPU without Hyper-Q the streams share one hardware queue ([KTG] 1.4.2.2): each stream's
# second kernel waits behind its first, and the next stream's first behind that: 2 + 4 x 2 = 10 ms.
# The same program and code paths as timing_equals_timeline with another GPU's numbers: not repeated
# under the sanitizers.
if(NOT PTXRAY_SANITIZE)
  add_test(NAME programs.timing_without_hyperq COMMAND bash -c
    "${PTXRAY_BIN} exec --arch m2090 --timeline timing-fermi.json -- ${PROGRAMS_DIR}/bin/timing >timing-fermi.out && \
     python3 ${PROGRAMS_DIR}/timing_check.py timing-fermi.out timing-fermi.json hyperq_4_streams_2x2ms=9.9:10.6")
  set_tests_properties(programs.timing_without_hyperq PROPERTIES PASS_REGULAR_EXPRESSION "20 measurements, 0 differ")
endif()
# --no-model: the plain VM, and events that read the host's time of the simulation.
add_test(NAME programs.timing_no_model COMMAND bash -c
  "${PTXRAY_BIN} exec --no-model -- ${PROGRAMS_DIR}/bin/timing")
set_tests_properties(programs.timing_no_model PROPERTIES PASS_REGULAR_EXPRESSION "timing kernel_saxpy_4M [0-9.]+.*done")

# A compute capability alone stands for its reference board (a note says which): the program sees that
# board's SMs and memory; cudaMemGetInfo's total is totalGlobalMem (a K20X's 6 GiB), its free memory
# what the VM's address window leaves.
add_test(NAME programs.compute_capability_is_its_reference_board COMMAND bash -c
  "${PTXRAY_BIN} exec --arch sm_35 -- ${PROGRAMS_DIR}/bin/device_query 2>&1")
set_tests_properties(programs.compute_capability_is_its_reference_board PROPERTIES PASS_REGULAR_EXPRESSION
  "sm_35 stands for the Tesla K20, its reference board.*prop.name=Tesla K20\n.*prop.multiProcessorCount=13\n")
add_test(NAME programs.mem_get_info_total_is_the_boards COMMAND bash -c
  "${PTXRAY_BIN} exec --arch k20x --log-api -- ${PROGRAMS_DIR}/bin/managed 2>&1")
set_tests_properties(programs.mem_get_info_total_is_the_boards PROPERTIES PASS_REGULAR_EXPRESSION
  "cudaMemGetInfo\\(free=\\[[0-9]+\\], total=\\[6442450944\\]\\) = cudaSuccess")
# The static runtime's start-up lookups stay out of the API trace unless PTXRAY_LOG=api,procs asks.
add_test(NAME programs.static_runtime.log_procs COMMAND bash -c
  "${PTXRAY_BIN} exec --log-api -- ${PROGRAMS_DIR}/bin/static/vector_add 2>&1 | grep -c cuGetProcAddress; \
   PTXRAY_LOG=api,procs ${PTXRAY_BIN} exec -- ${PROGRAMS_DIR}/bin/static/vector_add 2>&1 | grep -c 'cuGetProcAddress(cuInit, '")
set_tests_properties(programs.static_runtime.log_procs PROPERTIES PASS_REGULAR_EXPRESSION "^0\n[1-9]")
# Kepler's configuration calls reach the model ([KTG] 1.4.3.2): consecutive doubles in shared memory
# take two wavefronts per request in the default 4-byte bank mode of a K20X and one after
# cudaDeviceSetSharedMemConfig(cudaSharedMemBankSizeEightByte).
add_test(NAME programs.kepler_bank_mode_reaches_the_model COMMAND bash -c
  "${PTXRAY_BIN} exec --arch k20x --metrics-json kepler-config.json -- ${PROGRAMS_DIR}/bin/kepler_config >/dev/null && \
   python3 -c \"import json; print([L['metrics']['shared_load_transactions_per_request'] for L in json.load(open('kepler-config.json'))['launches']])\"")
set_tests_properties(programs.kepler_bank_mode_reaches_the_model PROPERTIES PASS_REGULAR_EXPRESSION "\\[2.0, 1.0, 1.0\\]")
# cuda-samples' simpleHyperQ pattern (tests/programs/src/hyperq.cu): 32 streams of two 10 ms clock()
# waits. With the default 8 connections four streams share each hardware queue: 50 ms; with 32, every
# stream its own: 20 ms. An H200 measured 50.30 and 20.48 ms (validation/programs/results/hyperq-h200.txt).
# The two runs execute the same kernels (a minute and a half under the sanitizers): the sanitizer
# build runs neither (52 s for the 32-connection one alone, two clock() waits of 10 ms in each of 32
# streams, spun instruction by instruction): the host side it reaches (streams, connections, the
# timeline) runs under ASan in runtime.many_streams_timeline, programs.timing_equals_timeline and the
# system model's tests.
set(HYPERQ_8_CONNECTIONS
  "${PTXRAY_BIN} exec --arch h200 --timeline hq8.json -- ${PROGRAMS_DIR}/bin/hyperq >hq8.out && \
   python3 ${PROGRAMS_DIR}/timing_check.py hq8.out hq8.json hyperq_32_streams_2x10ms=49.5:51.5 && ")
set(HYPERQ_PASS "1 measurements, 0 differ.*1 measurements, 0 differ")
if(NOT PTXRAY_SANITIZE)
  add_test(NAME programs.hyperq_connections COMMAND bash -c
    "${HYPERQ_8_CONNECTIONS}CUDA_DEVICE_MAX_CONNECTIONS=32 ${PTXRAY_BIN} exec --arch h200 --timeline hq32.json -- ${PROGRAMS_DIR}/bin/hyperq >hq32.out && \
     python3 ${PROGRAMS_DIR}/timing_check.py hq32.out hq32.json hyperq_32_streams_2x10ms=20.0:21.0")
  set_tests_properties(programs.hyperq_connections PROPERTIES PASS_REGULAR_EXPRESSION "${HYPERQ_PASS}" TIMEOUT 300)
endif()

# NVTX ranges (src/nvtx, session/NvtxHook.h): exec names ptxray's injection library in
# NVTX_INJECTION64_PATH, and the program's push/pop, domain, mark and start/end ranges appear in its
# timeline where it put them (check_nvtx.py derives each from the program's source); nsys stats'
# nvtx_sum counts them, and the trace draws them on the host.
add_test(NAME programs.nvtx_ranges_timeline COMMAND bash -c
  "set -e; t=$(mktemp -d); trap 'rm -rf $t' EXIT; ${PTXRAY_BIN} exec --timeline $t/t.json --trace $t/trace.json -- ${PROGRAMS_DIR}/bin/nvtx_ranges >/dev/null 2>&1; \
   python3 ${PROGRAMS_DIR}/check_nvtx.py $t/t.json; \
   python3 -c \"import json,sys; e=json.load(open(sys.argv[1]))['traceEvents']; n=[x for x in e if x.get('cat')=='nvtx']; print('trace', sorted((x['ph'], x['name']) for x in n))\" $t/trace.json")
set_tests_properties(programs.nvtx_ranges_timeline PROPERTIES PASS_REGULAR_EXPRESSION
  "nvtx ok\ntrace \\[\\('X', 'setup'\\), \\('X', 'solver:iteration'\\), \\('X', 'solver:iteration'\\), \\('X', 'solver:iteration'\\), \\('X', 'wait'\\), \\('X', 'wait'\\), \\('X', 'wait'\\), \\('b', 'readback'\\), \\('e', 'readback'\\), \\('i', 'checkpoint'\\)\\]")
add_test(NAME programs.nvtx_ranges_summary COMMAND bash -c
  "${PTXRAY_BIN} exec --timeline - -- ${PROGRAMS_DIR}/bin/nvtx_ranges 2>&1 >/dev/null | grep '^  NVTX'")
set_tests_properties(programs.nvtx_ranges_summary PROPERTIES PASS_REGULAR_EXPRESSION
  "^  NVTX     8 ranges, 1 mark: setup [0-9.]+ us \\(1x\\), readback [0-9.]+ us \\(1x\\), solver:iteration [0-9.]+ us \\(3x\\), wait [0-9.]+ us \\(3x\\)\n$")

# nvcc -rdc=true with PTX alone: .nv_fatbin is empty and the translation units (and NVIDIA's device
# runtime library, which ptxray stands in for) are linked when the program loads. The output is
# rdc_link's (programs.rdc_link: the same sources with SASS for sm_90 too).
add_test(NAME programs.rdc_link_ptx_only COMMAND bash -c
  "cd ${PROGRAMS_DIR} && ${PTXRAY_BIN} exec -- bin/rdc_link_ptx | diff - expected/rdc_link.out && echo SAME")
set_tests_properties(programs.rdc_link_ptx_only PROPERTIES PASS_REGULAR_EXPRESSION "SAME")
# The report covers both units: the hottest lines are lines of main.cu and lib.cu.
add_test(NAME programs.rdc_link_report COMMAND bash -c
  "${PTXRAY_BIN} exec --report ${CMAKE_CURRENT_BINARY_DIR}/rdc_link.txt -- ${PROGRAMS_DIR}/bin/rdc_link >/dev/null 2>&1 && cat ${CMAKE_CURRENT_BINARY_DIR}/rdc_link.txt")
set_tests_properties(programs.rdc_link_report PROPERTIES PASS_REGULAR_EXPRESSION
  "== combine\\(float\\*, int\\*, int\\) on .*src/rdc_link/lib\\.cu:17.*src/rdc_link/main\\.cu:13")
# The model times the child grids: the report says how many ran under the launch, how deep, and how
# long the launch lasts with them (cdp_launches' quicksort: 231 grids below the first).
add_test(NAME programs.cdp_report_names_child_grids COMMAND bash -c
  "${PTXRAY_BIN} exec --report ${CMAKE_CURRENT_BINARY_DIR}/cdp.txt -- ${PROGRAMS_DIR}/bin/cdp_launches >/dev/null 2>&1 && cat ${CMAKE_CURRENT_BINARY_DIR}/cdp.txt")
set_tests_properties(programs.cdp_report_names_child_grids PROPERTIES PASS_REGULAR_EXPRESSION
  "== quicksort\\(unsigned int\\*, int, int, int\\) on [^\n]*\n[^\n]*\n[^\n]*\n[^\n]*\n  child grids +231 launched by its threads and theirs \\(dynamic parallelism\\),")
# The HTML timeline draws them too, a bar each along the bottom of the kernel that launched them, in
# its engine's lane and its stream's (so twice): 16 grids at depth 1, 224 at depth 2.
add_test(NAME programs.cdp_timeline_html_child_grids COMMAND bash -c
  "${PTXRAY_BIN} timeline --html cdp-timeline.html -- ${PROGRAMS_DIR}/bin/cdp_mandelbrot >/dev/null 2>&1 && \
   grep -o '<title>child grid [^<]*(depth [0-9]' cdp-timeline.html | sed 's/.*(depth /depth /' | sort | uniq -c | tr -s ' '")
set_tests_properties(programs.cdp_timeline_html_child_grids PROPERTIES PASS_REGULAR_EXPRESSION "^ 32 depth 1\n 448 depth 2\n$")
# The trace shows cdp_mandelbrot's child grids as slices within the kernel that launched them
# (tests/cli/check_trace.py): each of the first grid's 16 blocks launches one 4 x 4 grid, and 224 of
# those grids' 256 blocks (those whose border dwell differs) one more.
add_test(NAME programs.cdp_trace_child_grids COMMAND bash -c
  "${PTXRAY_BIN} exec --trace cdp.trace.json -- ${PROGRAMS_DIR}/bin/cdp_mandelbrot >/dev/null && \
   python3 ${PROJECT_SOURCE_DIR}/tests/cli/check_trace.py cdp.trace.json --ops 9 --child-grids 240 && \
   grep -o '\"depth\":[0-9]*' cdp.trace.json | sort | uniq -c | tr -s ' '")
set_tests_properties(programs.cdp_trace_child_grids PROPERTIES PASS_REGULAR_EXPRESSION
  "trace ok: [0-9]+ slices on [0-9]+ rows of [0-9]+ processes, 9 operations, 240 child grids\n 16 \"depth\":1\n 224 \"depth\":2\n")
