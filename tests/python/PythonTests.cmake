# The Python module's tests (pytest, Debian's python3-pytest), with the build tree's package
# (PTXRAY_PYTHONPATH), the same build's command line (PTXRAY_CLI, for the comparisons with `ptxray run`)
# and the repository (PTXRAY_SOURCE_DIR). Included from tests/CMakeLists.txt when the module is built.
set(PTXRAY_PYTEST ${Python3_EXECUTABLE} -m pytest -q -p no:cacheprovider)
set(PTXRAY_PYTEST_ENVIRONMENT
  PTXRAY_PYTHONPATH=${PROJECT_BINARY_DIR}/python
  PTXRAY_CLI=$<TARGET_FILE:ptxray>
  PTXRAY_SOURCE_DIR=${PROJECT_SOURCE_DIR}
  # The tests' own temporary files and Dask's worker folders, not the source tree's.
  PYTHONDONTWRITEBYTECODE=1)

add_test(NAME python.api COMMAND ${PTXRAY_PYTEST} ${CMAKE_CURRENT_LIST_DIR}/test_api.py
  ${CMAKE_CURRENT_LIST_DIR}/test_examples.py)
add_test(NAME python.sweep COMMAND ${PTXRAY_PYTEST} ${CMAKE_CURRENT_LIST_DIR}/test_sweep.py
  -k "not test_two_workers_speedup")
# The speed-up of two Dask workers over one on the 2-core CI machine: alone, or the other tests take
# the second core.
add_test(NAME python.sweep_speedup COMMAND ${PTXRAY_PYTEST} ${CMAKE_CURRENT_LIST_DIR}/test_sweep.py
  -k test_two_workers_speedup)
set_tests_properties(python.api python.sweep python.sweep_speedup PROPERTIES
  ENVIRONMENT "${PTXRAY_PYTEST_ENVIRONMENT}" TIMEOUT 600
  FAIL_REGULAR_EXPRESSION "[0-9]+ (failed|error)")
set_tests_properties(python.sweep_speedup PROPERTIES RUN_SERIAL ON)
# `ptxray sweep` hands its arguments to the package.
add_test(NAME cli.sweep_help COMMAND ptxray sweep --help)
set_tests_properties(cli.sweep_help PROPERTIES ENVIRONMENT "PTXRAY_PYTHONPATH=${PROJECT_BINARY_DIR}/python"
  PASS_REGULAR_EXPRESSION "usage: ptxray sweep")
