# Command-line errors: whatever CLI11 reports (unknown flag or subcommand, missing argument, bad value),
# ptxray exits 2 as README documents, with CLI11's message and the --help to read. Included from
# tests/CMakeLists.txt, which defines PTXRAY_BIN and EXAMPLE. The status is matched as "exit=2" followed
# by a non-digit, so that 20-29 and 200-255 do not pass for 2.
set(CLI_EXIT_2 "exit=2([^0-9]|$)")
set(CLI_ABI_HEADER ${CMAKE_CURRENT_SOURCE_DIR}/abi/fixtures/abi_structs.h)

# An unknown flag, for every subcommand.
add_test(NAME cli.usage_parse_unknown_flag COMMAND bash -c "${PTXRAY_BIN} parse ${EXAMPLE} --bogus 2>&1; echo exit=$?")
set_tests_properties(cli.usage_parse_unknown_flag PROPERTIES PASS_REGULAR_EXPRESSION
  "ptxray: error: The following argument was not expected: --bogus\nRun with 'ptxray parse --help' for more information\\.\n${CLI_EXIT_2}")
add_test(NAME cli.usage_fmt_unknown_flag COMMAND bash -c "${PTXRAY_BIN} fmt ${EXAMPLE} --bogus 2>&1; echo exit=$?")
set_tests_properties(cli.usage_fmt_unknown_flag PROPERTIES PASS_REGULAR_EXPRESSION
  "not expected: --bogus\nRun with 'ptxray fmt --help' for more information\\.\n${CLI_EXIT_2}")
add_test(NAME cli.usage_abi_unknown_flag COMMAND bash -c "${PTXRAY_BIN} abi --bogus 2>&1; echo exit=$?")
set_tests_properties(cli.usage_abi_unknown_flag PROPERTIES PASS_REGULAR_EXPRESSION
  "not expected: --bogus\nRun with 'ptxray abi --help' for more information\\.\n${CLI_EXIT_2}")
add_test(NAME cli.usage_abi_layout_unknown_flag COMMAND bash -c
  "${PTXRAY_BIN} abi layout ${CLI_ABI_HEADER} --bogus 2>&1; echo exit=$?")
set_tests_properties(cli.usage_abi_layout_unknown_flag PROPERTIES PASS_REGULAR_EXPRESSION
  "not expected: --bogus\nRun with 'ptxray abi layout --help' for more information\\.\n${CLI_EXIT_2}")
add_test(NAME cli.usage_abi_param_unknown_flag COMMAND bash -c "${PTXRAY_BIN} abi param int --bogus 2>&1; echo exit=$?")
set_tests_properties(cli.usage_abi_param_unknown_flag PROPERTIES PASS_REGULAR_EXPRESSION
  "not expected: --bogus\nRun with 'ptxray abi param --help' for more information\\.\n${CLI_EXIT_2}")
add_test(NAME cli.usage_abi_check_unknown_flag COMMAND bash -c "${PTXRAY_BIN} abi check ${EXAMPLE} --bogus 2>&1; echo exit=$?")
set_tests_properties(cli.usage_abi_check_unknown_flag PROPERTIES PASS_REGULAR_EXPRESSION
  "not expected: --bogus\nRun with 'ptxray abi check --help' for more information\\.\n${CLI_EXIT_2}")
add_test(NAME cli.usage_occupancy_unknown_flag COMMAND bash -c
  "${PTXRAY_BIN} occupancy --arch sm_90 --threads 256 --bogus 2>&1; echo exit=$?")
set_tests_properties(cli.usage_occupancy_unknown_flag PROPERTIES PASS_REGULAR_EXPRESSION
  "not expected: --bogus\nRun with 'ptxray occupancy --help' for more information\\.\n${CLI_EXIT_2}")
add_test(NAME cli.usage_archs_unknown_flag COMMAND bash -c "${PTXRAY_BIN} archs --bogus 2>&1; echo exit=$?")
set_tests_properties(cli.usage_archs_unknown_flag PROPERTIES PASS_REGULAR_EXPRESSION
  "not expected: --bogus\nRun with 'ptxray archs --help' for more information\\.\n${CLI_EXIT_2}")
add_test(NAME cli.usage_arch_unknown_flag COMMAND bash -c "${PTXRAY_BIN} arch k40 --bogus 2>&1; echo exit=$?")
set_tests_properties(cli.usage_arch_unknown_flag PROPERTIES PASS_REGULAR_EXPRESSION
  "not expected: --bogus\nRun with 'ptxray arch --help' for more information\\.\n${CLI_EXIT_2}")
# The two cases of the bug report: CLI11 gave 106 and 109.
add_test(NAME cli.usage_run_unknown_flag COMMAND bash -c "${PTXRAY_BIN} run --bogus 2>&1; echo exit=$?")
set_tests_properties(cli.usage_run_unknown_flag PROPERTIES PASS_REGULAR_EXPRESSION
  "input is required\nptxray: error: The following argument was not expected: --bogus\nRun with 'ptxray run --help' for more information\\.\n${CLI_EXIT_2}")
add_test(NAME cli.usage_run_unknown_flag_with_value COMMAND bash -c
  "${PTXRAY_BIN} run x.json --no-such-flag v 2>&1; echo exit=$?")
set_tests_properties(cli.usage_run_unknown_flag_with_value PROPERTIES PASS_REGULAR_EXPRESSION
  "not expected: --no-such-flag\nRun with 'ptxray run --help' for more information\\.\n${CLI_EXIT_2}")
# A flag of the top level before the subcommand is the top level's to explain.
add_test(NAME cli.usage_top_level_unknown_flag COMMAND bash -c "${PTXRAY_BIN} --bogus archs 2>&1; echo exit=$?")
set_tests_properties(cli.usage_top_level_unknown_flag PROPERTIES PASS_REGULAR_EXPRESSION
  "not expected: --bogus\nRun with --help for more information\\.\n${CLI_EXIT_2}")

# Unknown or missing subcommands.
add_test(NAME cli.usage_unknown_subcommand COMMAND bash -c "${PTXRAY_BIN} bogus 2>&1; echo exit=$?")
set_tests_properties(cli.usage_unknown_subcommand PROPERTIES PASS_REGULAR_EXPRESSION
  "A subcommand is required\nptxray: error: The following argument was not expected: bogus\nRun with --help for more information\\.\n${CLI_EXIT_2}")
add_test(NAME cli.usage_no_subcommand COMMAND bash -c "${PTXRAY_BIN} 2>&1; echo exit=$?")
set_tests_properties(cli.usage_no_subcommand PROPERTIES PASS_REGULAR_EXPRESSION
  "A subcommand is required\nRun with --help for more information\\.\n${CLI_EXIT_2}")
add_test(NAME cli.usage_unknown_abi_subcommand COMMAND bash -c "${PTXRAY_BIN} abi bogus 2>&1; echo exit=$?")
set_tests_properties(cli.usage_unknown_abi_subcommand PROPERTIES PASS_REGULAR_EXPRESSION
  "not expected: bogus\nRun with 'ptxray abi --help' for more information\\.\n${CLI_EXIT_2}")

# Missing required arguments.
add_test(NAME cli.usage_arch_missing_name COMMAND bash -c "${PTXRAY_BIN} arch 2>&1; echo exit=$?")
set_tests_properties(cli.usage_arch_missing_name PROPERTIES PASS_REGULAR_EXPRESSION
  "ptxray: error: name is required\nRun with 'ptxray arch --help' for more information\\.\n${CLI_EXIT_2}")
add_test(NAME cli.usage_abi_layout_missing_file COMMAND bash -c "${PTXRAY_BIN} abi layout 2>&1; echo exit=$?")
set_tests_properties(cli.usage_abi_layout_missing_file PROPERTIES PASS_REGULAR_EXPRESSION
  "file is required\nRun with 'ptxray abi layout --help' for more information\\.\n${CLI_EXIT_2}")
add_test(NAME cli.usage_occupancy_missing_value COMMAND bash -c "${PTXRAY_BIN} occupancy --arch 2>&1; echo exit=$?")
set_tests_properties(cli.usage_occupancy_missing_value PROPERTIES PASS_REGULAR_EXPRESSION
  "--arch: 1 required TEXT missing\nRun with 'ptxray occupancy --help' for more information\\.\n${CLI_EXIT_2}")

# Values of the wrong type.
add_test(NAME cli.usage_run_threads_not_a_number COMMAND bash -c "${PTXRAY_BIN} run x.json --threads many 2>&1; echo exit=$?")
set_tests_properties(cli.usage_run_threads_not_a_number PROPERTIES PASS_REGULAR_EXPRESSION
  "--threads: Value many not in range 0 to 4096\nRun with 'ptxray run --help' for more information\\.\n${CLI_EXIT_2}")
add_test(NAME cli.usage_abi_address_size_not_a_number COMMAND bash -c
  "${PTXRAY_BIN} abi param int --address-size wide 2>&1; echo exit=$?")
set_tests_properties(cli.usage_abi_address_size_not_a_number PROPERTIES PASS_REGULAR_EXPRESSION
  "--address-size: .*wide.*\nRun with 'ptxray abi param --help' for more information\\.\n${CLI_EXIT_2}")

# Occupancy counts: negative, zero where a block needs one, non-numeric or out of range.
add_test(NAME cli.usage_occupancy_negative_regs COMMAND bash -c
  "${PTXRAY_BIN} occupancy --arch sm_90 --threads 256 --regs -5 2>&1; echo exit=$?")
set_tests_properties(cli.usage_occupancy_negative_regs PROPERTIES PASS_REGULAR_EXPRESSION
  "ptxray: error: --regs: Value -5 not in range 0 to 2147483647\nRun with 'ptxray occupancy --help' for more information\\.\n${CLI_EXIT_2}")
add_test(NAME cli.usage_occupancy_regs_not_a_number COMMAND bash -c
  "${PTXRAY_BIN} occupancy --arch sm_90 --threads 256 --regs many 2>&1; echo exit=$?")
set_tests_properties(cli.usage_occupancy_regs_not_a_number PROPERTIES PASS_REGULAR_EXPRESSION
  "--regs: Value many not in range 0 to 2147483647\n.*${CLI_EXIT_2}")
add_test(NAME cli.usage_occupancy_negative_threads COMMAND bash -c
  "${PTXRAY_BIN} occupancy --arch sm_90 --threads -5 2>&1; echo exit=$?")
set_tests_properties(cli.usage_occupancy_negative_threads PROPERTIES PASS_REGULAR_EXPRESSION
  "--threads: Value -5 not in range 1 to 2147483647\n.*${CLI_EXIT_2}")
add_test(NAME cli.usage_occupancy_zero_threads COMMAND bash -c
  "${PTXRAY_BIN} occupancy --arch sm_90 --threads 0 2>&1; echo exit=$?")
set_tests_properties(cli.usage_occupancy_zero_threads PROPERTIES PASS_REGULAR_EXPRESSION
  "--threads: Value 0 not in range 1 to 2147483647\n.*${CLI_EXIT_2}")
add_test(NAME cli.usage_occupancy_threads_too_large COMMAND bash -c
  "${PTXRAY_BIN} occupancy --arch sm_90 --threads 99999999999 2>&1; echo exit=$?")
set_tests_properties(cli.usage_occupancy_threads_too_large PROPERTIES PASS_REGULAR_EXPRESSION
  "--threads: Value 99999999999 not in range 1 to 2147483647\n.*${CLI_EXIT_2}")
add_test(NAME cli.usage_occupancy_negative_smem COMMAND bash -c
  "${PTXRAY_BIN} occupancy --arch sm_90 --threads 256 --smem -5 2>&1; echo exit=$?")
set_tests_properties(cli.usage_occupancy_negative_smem PROPERTIES PASS_REGULAR_EXPRESSION
  "--smem: Value -5 not in range 0 to 9223372036854775807\n.*${CLI_EXIT_2}")
add_test(NAME cli.usage_occupancy_negative_dynamic_smem COMMAND bash -c
  "${PTXRAY_BIN} occupancy --arch sm_90 --threads 256 --dynamic-smem -1 2>&1; echo exit=$?")
set_tests_properties(cli.usage_occupancy_negative_dynamic_smem PROPERTIES PASS_REGULAR_EXPRESSION
  "--dynamic-smem: Value -1 not in range 0 to 9223372036854775807\n.*${CLI_EXIT_2}")
add_test(NAME cli.usage_occupancy_negative_grid COMMAND bash -c
  "${PTXRAY_BIN} occupancy --arch sm_90 --threads 256 --grid -3 2>&1; echo exit=$?")
set_tests_properties(cli.usage_occupancy_negative_grid PROPERTIES PASS_REGULAR_EXPRESSION
  "--grid: Value -3 not in range 1 to 9223372036854775807\n.*${CLI_EXIT_2}")
add_test(NAME cli.usage_occupancy_carveout_above_100 COMMAND bash -c
  "${PTXRAY_BIN} occupancy --arch sm_90 --threads 256 --carveout 101 2>&1; echo exit=$?")
set_tests_properties(cli.usage_occupancy_carveout_above_100 PROPERTIES PASS_REGULAR_EXPRESSION
  "--carveout: Value 101 not in range 0 to 100\n.*${CLI_EXIT_2}")
add_test(NAME cli.usage_occupancy_negative_carveout COMMAND bash -c
  "${PTXRAY_BIN} occupancy --arch sm_90 --threads 256 --carveout -1 2>&1; echo exit=$?")
set_tests_properties(cli.usage_occupancy_negative_carveout PROPERTIES PASS_REGULAR_EXPRESSION
  "--carveout: Value -1 not in range 0 to 100\n.*${CLI_EXIT_2}")

# Huge but well-formed launches are answered, as failing launches with their real sizes. (A ';' would
# split the expression into a list of alternatives, hence '.' for the one between launch failures.)
add_test(NAME cli.occupancy_billion_threads COMMAND bash -c
  "${PTXRAY_BIN} occupancy --arch sm_90 --threads 1000000000 --regs 32 2>&1; echo exit=$?")
set_tests_properties(cli.occupancy_billion_threads PROPERTIES PASS_REGULAR_EXPRESSION
  "launch fails: 1000000000 threads per block exceed the 1024 a block may have on sm_90. the block needs 32000000000 registers, more than the 65536 .*allocated per block   32000000000 registers.*exit=0")
add_test(NAME cli.occupancy_huge_shared COMMAND bash -c
  "${PTXRAY_BIN} occupancy --arch sm_90 --threads 256 --smem 9223372036854775807 --dynamic-smem 9223372036854775807 --json 2>&1; echo exit=$?")
set_tests_properties(cli.occupancy_huge_shared PROPERTIES PASS_REGULAR_EXPRESSION
  "\"active_blocks_per_sm\": 0.*\"launch_error\": \"the block asks for 9223372036854775807 bytes of static and 9223372036854775807 bytes of dynamic shared memory, more than the 233472 bytes.*exit=0")

# occupancy --csv: ncu's layout, read back by Python's csv module (tests/cli/csv_rows.py). The limits
# by hand: on a Fermi (CC 2.0) 40 registers x 32 lanes x 8 warps = 10240 of 32768 registers -> 3 blocks,
# 48 warps / 8 = 6, 48 KiB / 4 KiB = 12, at most 8 blocks: 3 x 8 = 24 of 48 warps; on a K20X (CC 3.5)
# 65536 / 10240 -> 6 blocks, 64 / 8 = 8, 12, 16: 48 of 64 warps.
set(CSV_ROWS "python3 ${CMAKE_CURRENT_SOURCE_DIR}/cli/csv_rows.py")
add_test(NAME cli.occupancy_csv COMMAND bash -c
  "${PTXRAY_BIN} occupancy --compare sm_20,k20x --threads 256 --regs 40 --smem 4096 --csv | \
   ${CSV_ROWS} --where 'Section Name=Occupancy' --columns 'CC,Metric Name,Metric Unit,Metric Value'")
set_tests_properties(cli.occupancy_csv PROPERTIES PASS_REGULAR_EXPRESSION
  "^CC\\|Metric Name\\|Metric Unit\\|Metric Value\n2\\.0\\|Block Limit SM\\|block\\|8\n2\\.0\\|Block Limit Registers\\|block\\|3\n2\\.0\\|Block Limit Shared Mem\\|block\\|12\n2\\.0\\|Block Limit Warps\\|block\\|6\n2\\.0\\|Theoretical Active Warps per SM\\|warp\\|24\n2\\.0\\|Theoretical Occupancy\\|%\\|50\n3\\.5\\|Block Limit SM\\|block\\|16\n3\\.5\\|Block Limit Registers\\|block\\|6\n3\\.5\\|Block Limit Shared Mem\\|block\\|12\n3\\.5\\|Block Limit Warps\\|block\\|8\n3\\.5\\|Theoretical Active Warps per SM\\|warp\\|48\n3\\.5\\|Theoretical Occupancy\\|%\\|75\nrows: 12\n$")
add_test(NAME cli.occupancy_csv_launch_statistics COMMAND bash -c
  "${PTXRAY_BIN} occupancy --arch k20x --threads 256 --regs 40 --smem 4096 --dynamic-smem 1000 --csv | \
   ${CSV_ROWS} --where 'Section Name=Launch Statistics'")
set_tests_properties(cli.occupancy_csv_launch_statistics PROPERTIES PASS_REGULAR_EXPRESSION
  "^Device\\|CC\\|Block Size\\|Section Name\\|Metric Name\\|Metric Unit\\|Metric Value\nTesla K20X \\(sm_35\\)\\|3\\.5\\|256\\|Launch Statistics\\|Block Size\\|\\|256\n[^\n]*\\|Registers Per Thread\\|register/thread\\|40\n[^\n]*\\|Static Shared Memory Per Block\\|byte/block\\|4,096\n[^\n]*\\|Dynamic Shared Memory Per Block\\|byte/block\\|1,000\n[^\n]*\\|Shared Memory Configuration Size\\|byte\\|49,152\nrows: 5\n$")
add_test(NAME cli.usage_occupancy_csv_and_json COMMAND bash -c
  "${PTXRAY_BIN} occupancy --arch k20x --threads 256 --csv --json 2>&1; echo exit=$?")
set_tests_properties(cli.usage_occupancy_csv_and_json PROPERTIES PASS_REGULAR_EXPRESSION
  "(--csv excludes --json|--json excludes --csv)\n.*${CLI_EXIT_2}")

# --help and --version are not errors.
add_test(NAME cli.usage_help COMMAND bash -c "${PTXRAY_BIN} --help 2>&1; echo exit=$?")
set_tests_properties(cli.usage_help PROPERTIES PASS_REGULAR_EXPRESSION "Subcommands:.*occupancy.*exit=0")
add_test(NAME cli.usage_version COMMAND bash -c "${PTXRAY_BIN} --version 2>&1; echo exit=$?")
set_tests_properties(cli.usage_version PROPERTIES PASS_REGULAR_EXPRESSION "^ptxray 0\\.1\\.0\nexit=0")
add_test(NAME cli.usage_abi_layout_help COMMAND bash -c "${PTXRAY_BIN} abi layout --help 2>&1; echo exit=$?")
set_tests_properties(cli.usage_abi_layout_help PROPERTIES PASS_REGULAR_EXPRESSION "--diagram.*exit=0")
add_test(NAME cli.usage_occupancy_help COMMAND bash -c "${PTXRAY_BIN} occupancy --help 2>&1; echo exit=$?")
set_tests_properties(cli.usage_occupancy_help PROPERTIES PASS_REGULAR_EXPRESSION "--carveout.*exit=0")

# Unsigned options of `run` read "-1" as 2^64-1 without a range check.
add_test(NAME cli.usage_run_negative_budget COMMAND bash -c
  "${PTXRAY_BIN} run ${RUN_SPECS}/affine.json --max-instructions -1 2>&1; echo exit=$?")
set_tests_properties(cli.usage_run_negative_budget PROPERTIES PASS_REGULAR_EXPRESSION
  "--max-instructions: Value -1 not in range.*\n${CLI_EXIT_2}")
add_test(NAME cli.usage_run_negative_shared COMMAND bash -c
  "${PTXRAY_BIN} run ${RUN_SPECS}/affine.json --shared -1 2>&1; echo exit=$?")
set_tests_properties(cli.usage_run_negative_shared PROPERTIES PASS_REGULAR_EXPRESSION
  "--shared: Value -1 not in range.*\n${CLI_EXIT_2}")

# exec checks its output files before the program runs (issue #30): a folder that does not exist, or
# a folder given as the file, is an error with exit status 1, and the program never starts (it would
# leave its marker file).
add_test(NAME cli.exec_unwritable_report_runs_nothing COMMAND bash -c
  "rm -f ran-marker-report; ${PTXRAY_BIN} exec --report /nonexistent-ptxray-dir/r.html -- touch ran-marker-report 2>&1; \
   echo exit=$?; test -e ran-marker-report && echo program-ran")
set_tests_properties(cli.exec_unwritable_report_runs_nothing PROPERTIES
  PASS_REGULAR_EXPRESSION "ptxray: error: --report: cannot write '/nonexistent-ptxray-dir/r\\.html': no such file or directory \\(nothing was run\\)\nexit=1\n$"
  FAIL_REGULAR_EXPRESSION "program-ran")
add_test(NAME cli.exec_timeline_into_a_folder_runs_nothing COMMAND bash -c
  "rm -f ran-marker-timeline; ${PTXRAY_BIN} exec --timeline . -- touch ran-marker-timeline 2>&1; \
   echo exit=$?; test -e ran-marker-timeline && echo program-ran")
set_tests_properties(cli.exec_timeline_into_a_folder_runs_nothing PROPERTIES
  PASS_REGULAR_EXPRESSION "ptxray: error: --timeline: cannot write '\\.': is a directory \\(nothing was run\\)\nexit=1\n$"
  FAIL_REGULAR_EXPRESSION "program-ran")

# Runaway kernels (issue #31): one spinning thread is stopped by the per-warp limit (1/8 of the
# budget) long before the thread-instruction budget; a grid that cannot finish at one instruction per
# thread fails at once; budgets past 10^15 are refused, not taken as "no limit".
set(CLI_KERNELS ${CMAKE_CURRENT_SOURCE_DIR}/cli/kernels)
add_test(NAME cli.runaway_spinning_thread_stopped_per_warp COMMAND bash -c
  "${PTXRAY_BIN} run ${CLI_KERNELS}/spin.ptx --grid 1 --block 1 --buffer b=4 --arg buf:b --max-instructions 800000 2>&1; echo exit=$?")
set_tests_properties(cli.runaway_spinning_thread_stopped_per_warp PROPERTIES PASS_REGULAR_EXPRESSION
  "the warp issued more than 100000 instructions \\(1/8 of --max-instructions\\); is a loop not terminating\\?\nerror: launch of spin failed: Instruction limit reached\nexit=1\n$")
add_test(NAME cli.runaway_hopeless_grid_fails_at_once COMMAND bash -c
  "${PTXRAY_BIN} run ${CLI_KERNELS}/ret.ptx --grid 2147483647,65535,65535 --block 1 2>&1; echo exit=$?")
set_tests_properties(cli.runaway_hopeless_grid_fails_at_once PROPERTIES TIMEOUT 20 PASS_REGULAR_EXPRESSION
  "the grid has 9.22e\\+18 threads: at one instruction each, more than the launch's budget of 10000000000 thread-instructions \\(--max-instructions\\)\nerror: launch of k failed: Instruction limit reached\nexit=1\n$")
add_test(NAME cli.runaway_small_grid_runs COMMAND bash -c
  "${PTXRAY_BIN} run ${CLI_KERNELS}/ret.ptx --grid 100 --block 100 --max-instructions 10000 2>&1; echo exit=$?")
set_tests_properties(cli.runaway_small_grid_runs PROPERTIES PASS_REGULAR_EXPRESSION "^exit=0\n$")
add_test(NAME cli.runaway_grid_one_thread_past_budget COMMAND bash -c
  "${PTXRAY_BIN} run ${CLI_KERNELS}/ret.ptx --grid 100 --block 100 --max-instructions 9999 2>&1; echo exit=$?")
set_tests_properties(cli.runaway_grid_one_thread_past_budget PROPERTIES PASS_REGULAR_EXPRESSION
  "the grid has 10000 threads: at one instruction each, more than the launch's budget of 9999 thread-instructions")
foreach(value -5 1000000000000001 18446744073709551615)
  add_test(NAME cli.usage_run_max_instructions_${value} COMMAND bash -c
    "${PTXRAY_BIN} run ${CLI_KERNELS}/ret.ptx --grid 1 --block 1 --max-instructions=${value} 2>&1; echo exit=$?")
  add_test(NAME cli.usage_exec_max_instructions_${value} COMMAND bash -c
    "${PTXRAY_BIN} exec --max-instructions=${value} -- /bin/true 2>&1; echo exit=$?")
  set_tests_properties(cli.usage_run_max_instructions_${value} cli.usage_exec_max_instructions_${value} PROPERTIES
    PASS_REGULAR_EXPRESSION "--max-instructions: Value ${value} not in range 0 to 1000000000000000\n.*${CLI_EXIT_2}")
endforeach()

# The memory budget (issue #31): a block whose state the budget cannot hold is refused with the
# launch's fault; fewer workers run when all of them would not fit (1024 threads x 512 KiB of local
# memory: 512 MiB a block); racecheck's global shadow, parsing and device allocations stop at the
# budget with a clear error; sizes that do not parse are a usage error.
add_test(NAME cli.memory_budget_refuses_a_block COMMAND bash -c
  "${PTXRAY_BIN} run ${CLI_KERNELS}/big_local.ptx --grid 4 --block 1024 --buffer b=4 --arg buf:b --max-memory 300M 2>&1; echo exit=$?")
set_tests_properties(cli.memory_budget_refuses_a_block PROPERTIES PASS_REGULAR_EXPRESSION
  "========= Memory budget exceeded
=========     in kernel bigLocal
=========     the VM's state of a block of bigLocal \\(1024 threads: registers, 524288 B of local memory each, 0 B of shared memory\\) needs 512\\.[0-9] MiB more, but [0-9.]+ [KM]iB of the 300\\.0 MiB memory budget are in use \\(--max-memory, PTXRAY_MAX_MEMORY\\)
error: launch of bigLocal failed: Memory budget exceeded
exit=1
$")
add_test(NAME cli.memory_budget_runs_fewer_workers COMMAND bash -c
  "${PTXRAY_BIN} --max-memory 800M run ${CLI_KERNELS}/big_local.ptx --grid 3 --block 1024 --threads 4 --buffer b=4 --arg buf:b --output b=memory_budget_b.bin 2>&1 && od -An -tu4 memory_budget_b.bin; echo exit=$?")
set_tests_properties(cli.memory_budget_runs_fewer_workers PROPERTIES TIMEOUT 120 PASS_REGULAR_EXPRESSION "^ +458752
exit=0
$")
add_test(NAME cli.memory_budget_racecheck_global_shadow COMMAND bash -c
  "${PTXRAY_BIN} run ${CLI_KERNELS}/fill_block.ptx --grid 1 --block 1024 --buffer b=64M --arg buf:b --arg u32:16777216 --tool racecheck --racecheck-global --max-memory 256M 2>&1; echo exit=$?")
set_tests_properties(cli.memory_budget_racecheck_global_shadow PROPERTIES PASS_REGULAR_EXPRESSION
  "=========     racecheck's shadow of global memory \\(60 bytes per byte a block accesses; [0-9.]+ MiB held by this worker\\) needs 15\\.0 KiB more, but 256\\.0 MiB of the 256\\.0 MiB memory budget are in use \\(--max-memory, PTXRAY_MAX_MEMORY\\)
error: launch of fillBlock failed: Memory budget exceeded
.*exit=1
$")
add_test(NAME cli.memory_budget_racecheck_global_fits COMMAND bash -c
  "${PTXRAY_BIN} run ${CLI_KERNELS}/fill_block.ptx --grid 1 --block 1024 --buffer b=1M --arg buf:b --arg u32:262144 --tool racecheck --racecheck-global --max-memory 256M 2>&1; echo exit=$?")
set_tests_properties(cli.memory_budget_racecheck_global_fits PROPERTIES PASS_REGULAR_EXPRESSION
  "RACECHECK SUMMARY: 0 hazards displayed \\(0 errors, 0 warnings\\)
exit=0
$")
add_test(NAME cli.memory_budget_parse COMMAND bash -c
  "PTXRAY_MAX_MEMORY=1K ${PTXRAY_BIN} parse ${CLI_KERNELS}/ret.ptx 2>&1; echo exit=$?")
set_tests_properties(cli.memory_budget_parse PROPERTIES PASS_REGULAR_EXPRESSION
  "^ptxray: error: parsing [^
]*ret\\.ptx \\(151 B of PTX, about 16 bytes per byte\\) needs 2\\.4 KiB more, but 0 B of the 1\\.0 KiB memory budget are in use \\(--max-memory, PTXRAY_MAX_MEMORY\\)
exit=1
$")
add_test(NAME cli.memory_budget_device_allocation COMMAND bash -c
  "${PTXRAY_BIN} run ${CLI_KERNELS}/ret.ptx --grid 1 --block 1 --buffer b=200M --max-memory 100M 2>&1; echo exit=$?")
set_tests_properties(cli.memory_budget_device_allocation PROPERTIES PASS_REGULAR_EXPRESSION
  "^ptxray: error: out of device memory allocating 209715200 bytes: [0-9.]+ KiB of the 100\\.0 MiB memory budget are in use \\(--max-memory, PTXRAY_MAX_MEMORY\\)
exit=1
$")
add_test(NAME cli.memory_budget_bad_environment COMMAND bash -c
  "PTXRAY_MAX_MEMORY=zz ${PTXRAY_BIN} run ${CLI_KERNELS}/ret.ptx --grid 1 --block 1 2>&1; echo exit=$?")
set_tests_properties(cli.memory_budget_bad_environment PROPERTIES PASS_REGULAR_EXPRESSION
  "^ptxray: warning: PTXRAY_MAX_MEMORY: \"zz\" is not a size \\(bytes, or a number with K, M, G or T, or a percentage of the machine's memory\\); the default budget
exit=0
$")
foreach(value 0 12x 101% -1G)
  add_test(NAME cli.usage_max_memory_${value} COMMAND bash -c
    "${PTXRAY_BIN} run ${CLI_KERNELS}/ret.ptx --grid 1 --block 1 --max-memory=${value} 2>&1; echo exit=$?")
  set_tests_properties(cli.usage_max_memory_${value} PROPERTIES PASS_REGULAR_EXPRESSION
    "--max-memory: not a size: bytes, a number with K, M, G or T \\(binary\\), or a percentage up to 100%
.*${CLI_EXIT_2}")
endforeach()

# PTX with instructions the modeled GPU lacks runs, with a word (issue #31): each such instruction at
# its first use. A newer .target alone is not worth one (sm_90 PTX studied on a modeled Kepler).
add_test(NAME cli.module_newer_than_modeled_gpu COMMAND bash -c
  "${PTXRAY_BIN} run ${CLI_KERNELS}/shfl_sm90.ptx --arch sm_20 --grid 1 --block 32 --buffer b=128 --arg buf:b --output b=newer_b.bin 2>&1; echo exit=$?; od -An -tu4 -N4 newer_b.bin; ${PTXRAY_BIN} run ${CLI_KERNELS}/ret.ptx --arch sm_35 --grid 1 --block 1 2>&1; echo exit=$?")
set_tests_properties(cli.module_newer_than_modeled_gpu PROPERTIES PASS_REGULAR_EXPRESSION
  "^ptxray: warning: [^\n]*shfl_sm90\\.ptx:11:3: 'shfl' needs sm_30 or higher; the modeled GPU is sm_20\nptxray: warning: [^\n]*shfl_sm90\\.ptx:12:3: 'redux' needs sm_80 or higher; the modeled GPU is sm_20\nexit=0\n +496\nexit=0\n$")
add_test(NAME cli.module_for_the_modeled_gpu_no_warning COMMAND bash -c
  "${PTXRAY_BIN} run ${CLI_KERNELS}/shfl_sm90.ptx --arch sm_90 --grid 1 --block 32 --buffer b=128 --arg buf:b 2>&1; echo exit=$?")
set_tests_properties(cli.module_for_the_modeled_gpu_no_warning PROPERTIES PASS_REGULAR_EXPRESSION "^exit=0
$")

# `abi layout` stays proportional to the header (issue #31): a chain of 400 nested structs printed
# 60 MB when each struct repeated every one below it; a nested struct with its own entry is one line.
add_test(NAME cli.abi_layout_nested_chain_bounded COMMAND bash -c
  "{ echo 'struct S0 { int a; };'; for i in $(seq 1 399); do echo \"struct S$i { struct S$((i-1)) inner; char c; };\"; done; } > abi_chain.h;    ${PTXRAY_BIN} abi layout abi_chain.h > abi_chain.txt; echo exit=$?; wc -c < abi_chain.txt; grep -A4 '^struct S399:' abi_chain.txt;    ${PTXRAY_BIN} abi layout abi_chain.h --type S3 | head -9")
set_tests_properties(cli.abi_layout_nested_chain_bounded PROPERTIES PASS_REGULAR_EXPRESSION
  "^exit=0\n[0-9][0-9][0-9][0-9][0-9][0-9]?\nstruct S399: size 1600, align 4\n +inner +struct S398 +offset 0 +size 1596  align +4  \\(members: see struct S398\\)\n +c +char +offset 1596 [^\n]*\n +padding: 3 bytes at offset 1597 \\(tail\\)\n +padding inside the members listed on their own: 1194 bytes in 398 holes\nstruct S3: size 16, align 4\n +inner +struct S2 +offset 0 [^\n]*\n +inner +struct S1 +offset 0 [^\n]*\n +inner +struct S0 +offset 0 [^\n]*\n +a +int +offset 0 [^\n]*\n +c +char +offset 4 [^\n]*\n +c +char +offset 8 [^\n]*\n +c +char +offset 12 [^\n]*\n +padding: 3 bytes at offset 5\n$")

# A number past a double's range in a spec is invalid JSON, not an uncaught exception (found by the
# run-spec fuzzer's campaign; fuzz/corpus/run_spec/regression-number-overflow-1e576).
add_test(NAME cli.spec_number_overflow COMMAND bash -c
  "printf '{\"module\": \"x.ptx\", \"launches\": [{\"grid\": 1e400}]}' > number_overflow.json; ${PTXRAY_BIN} run number_overflow.json 2>&1; echo exit=$?")
set_tests_properties(cli.spec_number_overflow PROPERTIES PASS_REGULAR_EXPRESSION
  "^number_overflow\\.json: invalid JSON: number overflow parsing '1e400'\nexit=2\n$")

# A .cu file whose name has a line break: nvcc would copy it into the PTX's .file string, which then
# fails on every .loc line (issue #31); the name is refused first, with the break shown (no nvcc needed).
add_test(NAME cli.cuda_source_name_with_a_line_break COMMAND bash -c
  "f=$'line\nbreak.cu'; cp ${PROJECT_SOURCE_DIR}/examples/saxpy.cu \"$f\"; ${PTXRAY_BIN} analyze \"$f\" 2>&1; echo exit=$?")
set_tests_properties(cli.cuda_source_name_with_a_line_break PROPERTIES PASS_REGULAR_EXPRESSION
  "^ptxray: error: line\\\\nbreak\\.cu: the file name has a line break, which nvcc would copy into the PTX's \\.file directive, where a string cannot hold one; rename the file\nexit=1\n$")

# Device printf at its limits (issue #31; tests/cli/kernels/printf_limits.cu): conversions are printed
# whole (an H200 prints 603 characters for %.600f, ptxray printed 511), a width or precision past
# the FIFO drops the call without formatting it (a billion-digit precision took 4.9 GB and 22 s),
# %s is not cut at 64 KiB, and a launch's output is bounded by CUDA's default FIFO (1 MiB).
set(PRINTF_RUN "${PTXRAY_BIN} run ${CLI_KERNELS}/printf_limits.ptx --grid 1 --threads 1")
add_test(NAME cli.printf_long_precision_printed_whole COMMAND bash -c
  "${PRINTF_RUN} --block 1 --arg s32:0 --arg u64:0 | wc -c")
set_tests_properties(cli.printf_long_precision_printed_whole PROPERTIES PASS_REGULAR_EXPRESSION "^603\n$")
add_test(NAME cli.printf_billion_digit_precision_dropped COMMAND bash -c
  "${PRINTF_RUN} --block 1 --arg s32:1 --arg u64:0 | wc -c; echo exit=$?")
set_tests_properties(cli.printf_billion_digit_precision_dropped PROPERTIES TIMEOUT 20 PASS_REGULAR_EXPRESSION "^0\nexit=0\n$")
add_test(NAME cli.printf_long_string_whole COMMAND bash -c
  "printf '%070000d' 0 | tr 0 x > printf-70000.bin && \
   ${PRINTF_RUN} --block 1 --arg s32:2 --buffer s=70001:@printf-70000.bin --arg buf:s | wc -c")
# (the 70001st byte of the buffer, past the file, is zero: the string's end)
set_tests_properties(cli.printf_long_string_whole PROPERTIES PASS_REGULAR_EXPRESSION "^70003\n$")
# (Release only: 46 s under the sanitizers, formatting a mebibyte of output; the FIFO's accounting runs
# under ASan in the limits above and SystemCallVprintf.)
if(NOT PTXRAY_SANITIZE)
  add_test(NAME cli.printf_bounded_by_the_fifo COMMAND bash -c
    "${PRINTF_RUN} --block 32 --arg s32:3 --arg u64:0 | wc -c")
  set_tests_properties(cli.printf_bounded_by_the_fifo PROPERTIES PASS_REGULAR_EXPRESSION "^104855[0-9]\n$")
endif()
add_test(NAME cli.printf_star_width COMMAND bash -c "${PRINTF_RUN} --block 1 --arg s32:4 --arg u64:0 | wc -c")
set_tests_properties(cli.printf_star_width PROPERTIES PASS_REGULAR_EXPRESSION "^1002\n$")

# A timeline file whose name holds a comma is one file (issue #31: "tl,1.json" wrote "tl" here and
# "1.json" in the program's working folder).
add_test(NAME cli.exec_timeline_name_with_a_comma COMMAND bash -c
  "rm -rf comma-tl && mkdir comma-tl && cd comma-tl && ${PTXRAY_BIN} exec --timeline 'tl,1.json' -- \
   ${PROJECT_SOURCE_DIR}/tests/programs/bin/vector_add >/dev/null 2>&1; ls")
set_tests_properties(cli.exec_timeline_name_with_a_comma PROPERTIES PASS_REGULAR_EXPRESSION "^tl,1\\.json\n$")

# The memcheck summary counts every error, not the 100 it keeps (issue #31: "100 errors (reports stop
# there)" for 10.24 million).
add_test(NAME cli.memcheck_summary_counts_every_error COMMAND bash -c
  "${PTXRAY_BIN} run ${CLI_KERNELS}/oob_every_thread.ptx --grid 4 --block 256 --buffer b=4K --arg buf:b --memcheck 2>&1 | grep SUMMARY")
set_tests_properties(cli.memcheck_summary_counts_every_error PROPERTIES PASS_REGULAR_EXPRESSION
  "^========= ERROR SUMMARY: 1024 errors \\(the first 100 are reported\\)\n========= MEMCHECK SUMMARY: 1024 errors\n$")

# Progress (support/Progress.h): with PTXRAY_PROGRESS=always and standard error not a terminal, a line
# when each launch begins and one when it ends, with its blocks counted; piped and left to the default,
# nothing (the terminal's redrawn line only appears on a tty, after 2 s).
add_test(NAME cli.progress_lines COMMAND bash -c
  "PTXRAY_PROGRESS=always ${PTXRAY_BIN} run ${PROJECT_SOURCE_DIR}/examples/saxpy.json --threads 2 2>&1 >/dev/null")
set_tests_properties(cli.progress_lines PROPERTIES PASS_REGULAR_EXPRESSION
  "^ptxray: launch 1 \\(saxpy\\(int, float, float const\\*, float\\*\\)\\): 0 of 4,096 blocks \\(0%\\), 0\\.0 s\n.*ptxray: launch 1 \\(saxpy[^\n]*\\): 4,096 of 4,096 blocks \\(100%\\), [0-9.]+ s\nptxray: launch 2 \\(block_sum\\(float const\\*, float\\*, int\\)\\): 0 of 4,096 blocks.*ptxray: launch 2 \\(block_sum[^\n]*\\): 4,096 of 4,096 blocks \\(100%\\), [0-9.]+ s\n$")
add_test(NAME cli.progress_quiet_when_piped COMMAND bash -c
  "unset PTXRAY_PROGRESS; ${PTXRAY_BIN} run ${PROJECT_SOURCE_DIR}/examples/saxpy.json 2>&1; echo exit=$?")
set_tests_properties(cli.progress_quiet_when_piped PROPERTIES PASS_REGULAR_EXPRESSION "exit=0"
  FAIL_REGULAR_EXPRESSION "ptxray: launch [0-9]")

# ncu's --set and --section on the model (report/NcuSections.h). saxpy on an H100: 4096 blocks of 256
# threads, 8 warps a block, 64 warps per SM: 8 blocks per SM, 100% theoretical occupancy, and 4096 /
# (8 x 132 SMs) = 3.88 waves. The basic set shows the sections the model fills (WorkloadDistribution
# is not one of them) in ncu's order.
add_test(NAME cli.run_set_basic COMMAND bash -c
  "set -o pipefail; ${PTXRAY_BIN} run ${PROJECT_SOURCE_DIR}/examples/saxpy.json -k saxpy --set basic --csv | ${CSV_ROWS} --columns 'ID,Section Name,Metric Name,Metric Unit,Metric Value'")
set_tests_properties(cli.run_set_basic PROPERTIES PASS_REGULAR_EXPRESSION
  "^ID\\|Section Name\\|Metric Name\\|Metric Unit\\|Metric Value\n0\\|GPU Speed Of Light Throughput\\|SM Frequency\\|hz\\|1,980,000,000\n.*0\\|GPU Speed Of Light Throughput\\|Compute \\(SM\\) Throughput\\|%\\|[0-9.]+\n0\\|Launch Statistics\\|Block Size\\|\\|256\n0\\|Launch Statistics\\|Grid Size\\|\\|4,096\n.*0\\|Launch Statistics\\|# SMs\\|SM\\|132\n0\\|Launch Statistics\\|Threads\\|thread\\|1,048,576\n0\\|Launch Statistics\\|Waves Per SM\\|\\|3\\.88\n.*0\\|Occupancy\\|Block Limit Warps\\|block\\|8\n.*0\\|Occupancy\\|Theoretical Active Warps per SM\\|warp\\|64\n0\\|Occupancy\\|Theoretical Occupancy\\|%\\|100\n.*rows: 25\n$")
# The sections' Duration is the model's gpu__time_duration.sum, printed beside it with --metrics.
add_test(NAME cli.run_section_duration_is_the_metric COMMAND bash -c
  "set -e -o pipefail; out=$(${PTXRAY_BIN} run ${PROJECT_SOURCE_DIR}/examples/saxpy.json -k saxpy --section SpeedOfLight --metrics gpu__time_duration.sum --csv); \
   a=$(echo \"$out\" | ${CSV_ROWS} --where 'Metric Name=Duration' --columns 'Metric Value' | sed -n 2p); \
   b=$(echo \"$out\" | ${CSV_ROWS} --where 'Metric Name=gpu__time_duration.sum' --where 'Section Name=Command line profiler metrics' --columns 'Metric Value' | sed -n 2p); \
   echo \"duration=$a metric=$b\"; test -n \"$a\" && test \"$a\" = \"$b\" && echo same")
set_tests_properties(cli.run_section_duration_is_the_metric PROPERTIES PASS_REGULAR_EXPRESSION
  "duration=[0-9][0-9,.]* metric=[0-9][0-9,.]*\nsame\n")
# A section the model does not fill is named with the reason, an unknown one is a usage error.
add_test(NAME cli.run_section_unmodeled COMMAND bash -c
  "${PTXRAY_BIN} run ${PROJECT_SOURCE_DIR}/examples/saxpy.json -k saxpy --section regex:^WarpState 2>&1 >/dev/null; echo exit=$?")
set_tests_properties(cli.run_section_unmodeled PROPERTIES PASS_REGULAR_EXPRESSION
  "^ptxray: warning: --section WarpStateStats: not shown, warp stall reasons are not modeled\nexit=0\n$")
add_test(NAME cli.usage_run_unknown_section COMMAND bash -c
  "${PTXRAY_BIN} run ${PROJECT_SOURCE_DIR}/examples/saxpy.json --section SpeedOfLite 2>&1; echo exit=$?")
set_tests_properties(cli.usage_run_unknown_section PROPERTIES PASS_REGULAR_EXPRESSION
  "^ptxray: error: --section: no section \"SpeedOfLite\" \\(Nsight Compute's identifiers: SpeedOfLight, [^\n]*WarpStateStats[^\n]*\\)\n${CLI_EXIT_2}")
add_test(NAME cli.usage_run_unknown_set COMMAND bash -c
  "${PTXRAY_BIN} run ${PROJECT_SOURCE_DIR}/examples/saxpy.json --set everything 2>&1; echo exit=$?")
set_tests_properties(cli.usage_run_unknown_set PROPERTIES PASS_REGULAR_EXPRESSION
  "^ptxray: error: --set: no section set \"everything\" \\(basic, detailed, full, nvlink, pmsampling, roofline\\)\n${CLI_EXIT_2}")

# A module of several kernels and no --kernel: the kernels as C++ names, each with the PTX name --kernel
# takes (issue #30: the message named the JSON key and mangled names only).
add_test(NAME cli.run_which_kernel COMMAND bash -c
  "${PTXRAY_BIN} run ${EXAMPLE} --grid 1 --block 32 2>&1; echo exit=$?")
set_tests_properties(cli.run_which_kernel PROPERTIES PASS_REGULAR_EXPRESSION
  "^ptxray: error: --kernel: the module has 2 kernels, so the launch must name one: saxpy\\(int, float, float const\\*, float\\*\\) \\[_Z5saxpyifPKfPf\\], block_sum\\(float const\\*, float\\*, int\\) \\[_Z9block_sumPKfPfi\\]\n${CLI_EXIT_2}")

# Device code in several modules, linked as the device linker links nvcc -rdc=true translation units
# (tests/cli/kernels/link: tests/programs/src/rdc_link's main.cu and lib.cu as nvcc -rdc=true -ptx
# writes them). combine() in main.ptx calls blend() of lib.ptx, which prints table[0] = 100 (lib.ptx's
# initializer) and weights[0] (what the host wrote into lib.ptx's __constant__ array); the hottest
# lines are lines of both sources.
set(LINK_KERNELS ${CLI_KERNELS}/link)
add_test(NAME cli.run_linked_modules COMMAND ${PTXRAY_BIN} run ${LINK_KERNELS}/main.ptx ${LINK_KERNELS}/lib.ptx
  --kernel combine --grid 2 --block 128 --buffer out=1024 --buffer p=8 --arg buf:out --arg buf:p --arg s32:256 --metrics)
set_tests_properties(cli.run_linked_modules PROPERTIES PASS_REGULAR_EXPRESSION
  "^blend in lib.cu: x=0.0 weight=0.00 table=100\nblend in lib.cu: x=0.0 weight=0.00 table=100\n== combine\\(float\\*, int\\*, int\\).*hottest lines.*rdc_link/lib\\.cu:17 +168 +128 .*rdc_link/main\\.cu:13 +160 +128 ")
add_test(NAME cli.run_linked_spec COMMAND ${PTXRAY_BIN} run ${LINK_KERNELS}/combine.json)
set_tests_properties(cli.run_linked_spec PROPERTIES PASS_REGULAR_EXPRESSION
  "^blend in lib.cu: x=0.0 weight=0.50 table=100\nblend in lib.cu: x=0.0 weight=0.50 table=100\n$")
# The device linker's errors, located, and the run refused (exit 1).
add_test(NAME cli.link_multiple_definition COMMAND bash -c
  "${PTXRAY_BIN} run ${LINK_KERNELS}/lib.ptx ${LINK_KERNELS}/lib.ptx --kernel combine 2>&1; echo exit=$?")
set_tests_properties(cli.link_multiple_definition PROPERTIES PASS_REGULAR_EXPRESSION
  "^ptxray: error: [^\n]*lib\\.ptx:25:31: error: multiple definition of 'table'\n.*lib\\.ptx:25:31: note: first defined here\n.*multiple definition of 'blend\\(float, int\\)' \\(_Z5blendfi\\).*exit=1\n$")
# Alone, main.ptx's call to blend() has nothing to call: the fault says what to link.
add_test(NAME cli.run_unlinked_call_says_link COMMAND bash -c
  "${PTXRAY_BIN} run ${LINK_KERNELS}/main.ptx --kernel combine --grid 2 --block 128 --buffer out=1024 --buffer p=8 --arg buf:out --arg buf:p --arg s32:256 2>&1; echo exit=$?")
set_tests_properties(cli.run_unlinked_call_says_link PROPERTIES PASS_REGULAR_EXPRESSION
  "blend\\(float, int\\) \\(_Z5blendfi\\) is declared but not defined in this module: link the module that defines it.*exit=1")
add_test(NAME cli.usage_spec_with_more_modules COMMAND bash -c
  "${PTXRAY_BIN} run ${LINK_KERNELS}/combine.json ${LINK_KERNELS}/lib.ptx 2>&1; echo exit=$?")
set_tests_properties(cli.usage_spec_with_more_modules PROPERTIES PASS_REGULAR_EXPRESSION
  "a spec names its own modules \\(\"module\": \\[\"a.ptx\", \"b.ptx\"\\] links them\\); '[^']*lib.ptx' is one too many\nexit=2")
