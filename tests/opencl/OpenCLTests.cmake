# OpenCL C modules on the virtual GPU (clang + libclc, src/toolchain): run specs with OpenCL's NDRange,
# __local arguments, global offsets and build options; compile errors naming the user's file; the
# guide's C = AA^T written in OpenCL C gives the CUDA twin's results and findings. Included from
# tests/CMakeLists.txt, which defines PTXRAY_BIN.
set(OPENCL_TESTS ${CMAKE_CURRENT_SOURCE_DIR}/opencl)

# The work-item functions, a __local argument, the global offset and a build option, against values
# worked out by hand (specs/ndrange.json's comment).
add_test(NAME opencl.ndrange_local_offset_options COMMAND bash -c
  "cd ${CMAKE_CURRENT_BINARY_DIR} && ${PTXRAY_BIN} run ${OPENCL_TESTS}/specs/ndrange.json && od -An -tu4 -w64 \
   ${OPENCL_TESTS}/specs/ndrange.bin | tr -s ' ' && rm -f ${OPENCL_TESTS}/specs/ndrange.bin")
set_tests_properties(opencl.ndrange_local_offset_options PROPERTIES PASS_REGULAR_EXPRESSION
  "^ 122 121 120 119 118 117 116 115 114 113 112 111 110 109 108 107\n 138 137 136 135 134 133 132 131 130 129 128 127 126 125 124 123\n 154 153 152 151 150 149 148 147 146 145 144 143 142 141 140 139\n 170 169 168 167 166 165 164 163 162 161 160 159 158 157 156 155\n$")

# A build error is the compiler's, naming the user's file, line and column; exit status 1.
add_test(NAME opencl.build_error_names_the_source COMMAND bash -c
  "${PTXRAY_BIN} run ${OPENCL_TESTS}/kernels/syntax_error.cl --grid 1 --block 1 --buffer o=4 --arg buf:o 2>&1; echo exit=$?")
set_tests_properties(opencl.build_error_names_the_source PROPERTIES PASS_REGULAR_EXPRESSION
  "[^ ]*syntax_error\\.cl:4:29: error: use of undeclared identifier 'undeclared_variable'.*exit=1")
add_test(NAME opencl.unknown_build_option COMMAND bash -c
  "${PTXRAY_BIN} parse ${OPENCL_TESTS}/kernels/ndrange.cl --build-options '-cl-no-such-option' 2>&1; echo exit=$?")
set_tests_properties(opencl.unknown_build_option PROPERTIES PASS_REGULAR_EXPRESSION
  "invalid build option '-cl-no-such-option'.*exit=1")

# `parse` and `fmt` take OpenCL C: the kernels, and native_* as the GPU's approximate instructions.
add_test(NAME opencl.parse COMMAND ${PTXRAY_BIN} parse ${OPENCL_TESTS}/kernels/ndrange.cl)
set_tests_properties(opencl.parse PROPERTIES PASS_REGULAR_EXPRESSION
  "kernel reverseIds.*kernel nativeMath")
add_test(NAME opencl.native_math_is_approximate COMMAND ${PTXRAY_BIN} fmt ${OPENCL_TESTS}/kernels/ndrange.cl)
set_tests_properties(opencl.native_math_is_approximate PROPERTIES PASS_REGULAR_EXPRESSION
  "sin\\.approx\\.f32.*ex2\\.approx\\.f32.*rsqrt\\.approx\\.f32")

# The guide's C = AA^T in OpenCL C (examples/opencl/aat.cl) gives what the CUDA twin gives on the
# virtual GPU (whose results an H200 matched: validation/vm), within a float rounding or two (the two
# compilers may fuse the multiply-adds differently), and the guide's findings, on the OpenCL lines.
add_test(NAME opencl.guide_aat_matches_cuda COMMAND bash -c
  "cd ${CMAKE_CURRENT_BINARY_DIR} && python3 ${OPENCL_TESTS}/compare_aat.py ${PTXRAY_BIN} ${PROJECT_SOURCE_DIR}")
set_tests_properties(opencl.guide_aat_matches_cuda PROPERTIES PASS_REGULAR_EXPRESSION "aat: OpenCL equals CUDA")
add_test(NAME opencl.analyze_guide_aat COMMAND ${PTXRAY_BIN} analyze ${OPENCL_TESTS}/specs/aat_small.json --arch k20x --color never)
set_tests_properties(opencl.analyze_guide_aat PROPERTIES PASS_REGULAR_EXPRESSION
  "== simpleMultiplyAAT on Tesla K20X \\(sm_35\\).*\\[high\\] uncoalesced-global.*at [^ ]*examples/opencl/aat\\.cl:18:[ \n]+loads.*== sharedMultiplyAAT.*\\[medium\\] shared-bank-conflicts.*aat\\.cl:3[0-9].*== paddedMultiplyAAT")
add_test(NAME opencl.analyze_guide_aat_fixed_on_16_banks COMMAND bash -c
  "${PTXRAY_BIN} analyze ${OPENCL_TESTS}/specs/aat_small.json --arch sm_13 --quiet --color never | sed -n '/== paddedMultiplyAAT/,$p'")
set_tests_properties(opencl.analyze_guide_aat_fixed_on_16_banks PROPERTIES FAIL_REGULAR_EXPRESSION
  "shared-bank-conflicts|uncoalesced-global" PASS_REGULAR_EXPRESSION "== paddedMultiplyAAT")

# The same launch from the command line: --global-offset with --grid and --block, --arg local:BYTES,
# --build-options.
add_test(NAME opencl.command_line_launch COMMAND bash -c
  "cd ${CMAKE_CURRENT_BINARY_DIR} && ${PTXRAY_BIN} run ${OPENCL_TESTS}/kernels/ndrange.cl --kernel reverseIds \
   --grid 4 --block 16 --buffer out=256 --arg buf:out --arg local:64 --global-offset 100 \
   --build-options '-D SCALE=7' --output out=ndrange-cli.bin && od -An -tu4 -N16 ndrange-cli.bin | tr -s ' '")
set_tests_properties(opencl.command_line_launch PROPERTIES PASS_REGULAR_EXPRESSION "^ 122 121 120 119\n$")
# More local memory than a block may have is refused before anything runs (the GPU's limit).
add_test(NAME opencl.local_memory_beyond_the_gpu COMMAND bash -c
  "${PTXRAY_BIN} run ${OPENCL_TESTS}/kernels/ndrange.cl --kernel reverseIds --arch k40 --grid 1 --block 16 \
   --buffer out=64 --arg buf:out --arg local:64K 2>&1; echo exit=$?")
set_tests_properties(opencl.local_memory_beyond_the_gpu PROPERTIES PASS_REGULAR_EXPRESSION
  "launch of reverseIds refused: too many resources requested for launch: 65536 bytes of shared memory per block.*exit=1")

# The advisor speaks OpenCL for an OpenCL kernel: __local memory and barrier(CLK_LOCAL_MEM_FENCE), not
# shared memory and __syncthreads(); the CUDA twin keeps CUDA's words.
add_test(NAME opencl.advice_in_opencl_terms COMMAND bash -c
  "${PTXRAY_BIN} analyze ${OPENCL_TESTS}/specs/aat_small.json --arch k20x --only redundant-global-loads --quiet --color never; \
   ${PTXRAY_BIN} analyze ${CMAKE_CURRENT_SOURCE_DIR}/cli/specs/aat_small.json --arch k20x --only redundant-global-loads --quiet --color never")
set_tests_properties(opencl.advice_in_opencl_terms PROPERTIES PASS_REGULAR_EXPRESSION
  "fix: Load each block's data into __local memory once.*barrier\\(CLK_LOCAL_MEM_FENCE\\).*fix: Load each block's data into shared memory once.*__syncthreads\\(\\)")

# [BPG] 5, A.2: without -cl-mad-enable the advisor asks for it, line and all; with it the multiply and
# the add are one fma and nothing is left to say.
add_test(NAME opencl.mad_enable_advice COMMAND bash -c
  "${PTXRAY_BIN} analyze ${OPENCL_TESTS}/kernels/scale_add.cl --arch sm_80 --only unfused-multiply-add --color never; \
   echo ---; ${PTXRAY_BIN} analyze ${OPENCL_TESTS}/kernels/scale_add.cl --arch sm_80 --only unfused-multiply-add \
   --color never --build-options -cl-mad-enable")
set_tests_properties(opencl.mad_enable_advice PROPERTIES
  PASS_REGULAR_EXPRESSION "fix: Build with -cl-mad-enable.*at [^ ]*scale_add\\.cl:7: .*---\n"
  FAIL_REGULAR_EXPRESSION "---\n.*unfused")

# Unmodified OpenCL host programs through ptxray's platform (src/opencl, `ptxray exec`).
if(TARGET opencl_guide AND TARGET ptxray_opencl)
  # The guide's multiplies at the guide's size, by our host program (examples/opencl/guide.c): every
  # result checked against the CPU, and the advisor's findings in the guide's order on the GPUs of
  # its tables, on the OpenCL lines.
  # (Under the sanitizers one GPU: the same code runs for both, and each takes half a minute there.)
  set(guide_gpus gtx280 k20x)
  if(PTXRAY_SANITIZE)
    set(guide_gpus k20x)
  endif()
  foreach(gpu ${guide_gpus})
    add_test(NAME opencl.icd_guide_sequence_${gpu} COMMAND bash -c
      "cd ${CMAKE_CURRENT_BINARY_DIR} && ${PTXRAY_BIN} exec --arch ${gpu} --report icd-guide-${gpu}.json -- \
       $<TARGET_FILE:opencl_guide> --kernels multiply,aat --size guide > icd-guide-${gpu}.out && \
       grep -c 'check: ok' icd-guide-${gpu}.out && \
       python3 ${OPENCL_TESTS}/check_guide_report.py icd-guide-${gpu}.json ${gpu}")
    set_tests_properties(opencl.icd_guide_sequence_${gpu} PROPERTIES PASS_REGULAR_EXPRESSION
      "(^|\n)2\nguide sequence on ${gpu}: 6 kernels as the guide's steps\n" LABELS opencl TIMEOUT 600)
  endforeach()
  # The copies' profiling events give the modeled times: offsets cost on a GTX 280 (CC 1.3: a
  # misaligned half-warp needs two segments), strides cost more the larger they are.
  add_test(NAME opencl.icd_guide_copies_modeled COMMAND bash -c
    "${PTXRAY_BIN} exec --arch gtx280 -- $<TARGET_FILE:opencl_guide> --kernels copy --size guide | \
     python3 ${OPENCL_TESTS}/check_guide_copies.py")
  set_tests_properties(opencl.icd_guide_copies_modeled PROPERTIES PASS_REGULAR_EXPRESSION
    "modeled copies: offsets and strides cost as the guide's figures" LABELS opencl TIMEOUT 600)
  # Profiling events read the modeled clock, the session's: the upload and the first offsetCopy the
  # program prints last as long as the timeline of the same run places them.
  add_test(NAME opencl.icd_profiling_equals_timeline COMMAND bash -c
    "cd ${CMAKE_CURRENT_BINARY_DIR} && ${PTXRAY_BIN} exec --arch gtx280 --timeline ocl-copy-timeline.json -- \
       $<TARGET_FILE:opencl_guide> --kernels copy --size guide > ocl-copy.out && python3 -c \"
import json, re
ops = json.load(open('ocl-copy-timeline.json'))['operations']
out = open('ocl-copy.out').read()
upload = float(re.search(r'upload idata .* in +([0-9.]+) us', out).group(1))
kernel = float(re.search(r'offsetCopy +0 +([0-9.]+)', out).group(1))
copy = next(o for o in ops if o['op'] == 'memcpy_h2d')
launch = next(o for o in ops if o['op'] == 'launch')
same = abs(copy['end_us'] - copy['start_us'] - upload) < 0.002 and abs(launch['end_us'] - launch['start_us'] - kernel) < 0.002
print('profiling equals timeline' if same else f'differs: {upload} {kernel} {copy} {launch}')\"")
  set_tests_properties(opencl.icd_profiling_equals_timeline PROPERTIES PASS_REGULAR_EXPRESSION
    "profiling equals timeline" LABELS opencl TIMEOUT 600)
endif()

# OpenCL host programs, one API family each, whose output must equal PoCL's (tests/opencl/programs).
if(TARGET ptxray_opencl)
  include(${CMAKE_CURRENT_LIST_DIR}/programs/Programs.cmake)
endif()

if(TARGET opencl_guide AND TARGET ptxray_opencl)
  # An OpenCL program's session is told in OpenCL's terms: its queues, and the fix for copies that do
  # not overlap the kernels with command queues and non-blocking writes from pinned memory ([BPG] 3.1).
  add_test(NAME opencl.icd_session_in_opencl_terms COMMAND bash -c
    "${PTXRAY_BIN} exec --arch k20x --timeline - -- $<TARGET_FILE:opencl_guide> --kernels multiply 2>&1 >/dev/null")
  set_tests_properties(opencl.icd_session_in_opencl_terms PROPERTIES PASS_REGULAR_EXPRESSION
    "no-copy-compute-overlap.*own command queue \\(non-blocking clEnqueueWriteBuffer from pinned memory\\).*queue 1"
    FAIL_REGULAR_EXPRESSION "cudaMemcpyAsync" LABELS opencl)
endif()

# A kernel that writes past its buffer: the program sees CL_OUT_OF_RESOURCES at the next
# synchronization and after, as on a GPU; the user is told where, and memcheck reports the access on
# the OpenCL line.
if(TARGET ptxray_opencl AND TARGET OpenCL::OpenCL)
  add_executable(opencl_fault_out_of_bounds ${CMAKE_CURRENT_SOURCE_DIR}/opencl/faults/out_of_bounds.c)
  target_link_libraries(opencl_fault_out_of_bounds PRIVATE OpenCL::OpenCL)
  set_target_properties(opencl_fault_out_of_bounds PROPERTIES COMPILE_OPTIONS "-Wall;-Wextra" LINK_OPTIONS "")
  add_test(NAME opencl.icd_fault_loses_the_context COMMAND bash -c "${PTXRAY_BIN} exec -- $<TARGET_FILE:opencl_fault_out_of_bounds> 2>&1")
  set_tests_properties(opencl.icd_fault_loses_the_context PROPERTIES PASS_REGULAR_EXPRESSION
    "kernel scale failed: .*CL_OUT_OF_RESOURCES.*clEnqueueNDRangeKernel: 0\nclFinish: -5\nclEnqueueReadBuffer: -5" LABELS opencl)
  # Work-items 16 to 255 all write outside the buffer (those that used to land in the device heap,
  # placed after it, are outside every block malloc returned: 240 errors, not 1).
  add_test(NAME opencl.icd_memcheck_names_the_opencl_line COMMAND bash -c
    "${PTXRAY_BIN} exec --tool memcheck -- $<TARGET_FILE:opencl_fault_out_of_bounds> 2>&1")
  set_tests_properties(opencl.icd_memcheck_names_the_opencl_line PROPERTIES PASS_REGULAR_EXPRESSION
    "Invalid address \\(out of bounds\\) \\(write of size 4 bytes, global space\\).*in kernel scale.*source program1\\.cl:3.*clCreateBuffer of 4096 bytes.*MEMCHECK SUMMARY: 240 errors" LABELS opencl)
endif()

# --log-api traces an OpenCL program's calls with their arguments and results (opencl/ApiTrace.h): the
# program's own values (tests/opencl/programs: a 4096-byte read-write buffer, 256 work-items in groups of
# 64), an output in brackets, the source escaped onto one line, the lost context's error.
if(TARGET opencl_fault_out_of_bounds)
  add_test(NAME opencl.icd_log_api COMMAND bash -c "${PTXRAY_BIN} exec --log-api -- $<TARGET_FILE:opencl_fault_out_of_bounds> 2>&1")
  set_tests_properties(opencl.icd_log_api PROPERTIES PASS_REGULAR_EXPRESSION
    "ptxray: clGetDeviceIDs\\(platform=0x[0-9a-f]+, type=0xffffffff, numEntries=1, devices=\\[0x[0-9a-f]+\\], numDevices=0x0\\) = CL_SUCCESS\n.*ptxray: clCreateProgramWithSource\\(context=0x[0-9a-f]+, count=1, strings=\\[\"__kernel void scale\\(__global float \\*data, int n\\) {\\\\n  int i = get_global_id\\(0\\);\\\\n[^\n]*\\) = CL_SUCCESS\n.*ptxray: clBuildProgram\\([^\n]*\\) = CL_SUCCESS\n.*ptxray: clCreateKernel\\(program=0x[0-9a-f]+, name=\"scale\", errcodeRet=0x[0-9a-f]+\\) = CL_SUCCESS\n.*ptxray: clCreateBuffer\\(context=0x[0-9a-f]+, flags=0x1, size=4096, hostPtr=0x0, errcodeRet=0x[0-9a-f]+\\) = CL_SUCCESS\n.*ptxray: clEnqueueNDRangeKernel\\(queue=0x[0-9a-f]+, kernel=0x[0-9a-f]+, dims=1, offset=0x0, global=\\[256\\], local=\\[64\\], waitCount=0, waitList=0x0, event=0x0\\) = CL_SUCCESS\n.*ptxray: clFinish\\(queue=0x[0-9a-f]+\\) = CL_OUT_OF_RESOURCES" LABELS opencl)
endif()

# OpenCL C's printf, formatted as NVIDIA's OpenCL prints it (one line per work-item, in order here).
add_test(NAME opencl.printf COMMAND ${PTXRAY_BIN} run ${OPENCL_TESTS}/kernels/printf.cl --grid 1 --block 2
  --arg s32:7 --buffer f=8:iota:f32 --arg buf:f)
set_tests_properties(opencl.printf PROPERTIES PASS_REGULAR_EXPRESSION
  "work-item 0: x = 7, f = 0.00, text z\\|0  \\|  2.2\nwork-item 1: x = 7, f = 1.00, text z\\|1  \\|  2.2\n")

# The limits the device reports are the limits: local memory beyond CL_DEVICE_LOCAL_MEM_SIZE is
# refused (CL_OUT_OF_RESOURCES) on an H100 too, whose CUDA blocks may opt in to more.
if(TARGET ptxray_opencl AND TARGET OpenCL::OpenCL)
  add_executable(opencl_fault_local_memory_limit ${CMAKE_CURRENT_SOURCE_DIR}/opencl/faults/local_memory_limit.c)
  target_link_libraries(opencl_fault_local_memory_limit PRIVATE OpenCL::OpenCL)
  set_target_properties(opencl_fault_local_memory_limit PROPERTIES COMPILE_OPTIONS "-Wall;-Wextra" LINK_OPTIONS "")
  add_test(NAME opencl.icd_local_memory_limit COMMAND bash -c
    "${PTXRAY_BIN} exec --arch h100 -- $<TARGET_FILE:opencl_fault_local_memory_limit> 2>&1")
  set_tests_properties(opencl.icd_local_memory_limit PROPERTIES PASS_REGULAR_EXPRESSION
    "CL_DEVICE_LOCAL_MEM_SIZE 49152.*clEnqueueNDRangeKernel -5 \\(expected -5\\).*clEnqueueNDRangeKernel -5 \\(expected -5\\)"
    LABELS opencl)
  # memcheck's findings go into the report, on the kernel that faulted (which has no profile).
  add_test(NAME opencl.icd_memcheck_in_report COMMAND bash -c
    "cd ${CMAKE_CURRENT_BINARY_DIR} && ${PTXRAY_BIN} exec --tool memcheck --report icd-memcheck.json -- \
     $<TARGET_FILE:opencl_fault_out_of_bounds> >/dev/null 2>&1; python3 -c \"import json; \
     print([(a['kernel'], [f['rule'] for f in a['findings']]) for a in json.load(open('icd-memcheck.json'))['analyses']])\"")
  set_tests_properties(opencl.icd_memcheck_in_report PROPERTIES PASS_REGULAR_EXPRESSION
    "\\('scale', \\['invalid-memory-access'\\]\\)" LABELS opencl)
endif()

# [BPG] Tables 3.2 and 3.3 (each step's speed-up within 25%) and Figure 3.7 (the offset copy's effective
# bandwidth within 20%) by the time model on the guide's GTX 280 and 8800 GTX.
if(NOT PTXRAY_SANITIZE)
  add_test(NAME opencl.guide_tables_reproduced COMMAND python3 ${OPENCL_TESTS}/check_guide_tables.py
    ${PTXRAY_BIN} ${PROJECT_SOURCE_DIR} ${CMAKE_CURRENT_BINARY_DIR}/guide-tables)
  set_tests_properties(opencl.guide_tables_reproduced PROPERTIES
    PASS_REGULAR_EXPRESSION "the guide's Tables 3.2, 3.3 and Figure 3.7 reproduced" LABELS opencl TIMEOUT 600)
endif()
