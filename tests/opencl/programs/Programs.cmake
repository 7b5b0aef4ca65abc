# OpenCL 1.2 host programs (tests/opencl/programs/*.c): ordinary C programs, one API family each, that
# print only what every conforming implementation prints. Each runs under PoCL (the reference) and under
# `ptxray exec`, and must exit 0 with the same standard output both times (compare.py). Included from
# tests/CMakeLists.txt, which defines PTXRAY_BIN; a test is skipped (status 77) where PoCL is not
# installed.

# The project's languages are CXX only; the host programs are C, as OpenCL programs usually are.
enable_language(C)
find_package(OpenCL)
if(NOT OpenCL_FOUND)
  message(STATUS "OpenCL headers or loader not found: the OpenCL host-program tests are not built")
  return()
endif()

set(PTXRAY_OPENCL_PROGRAMS_DIR ${CMAKE_CURRENT_SOURCE_DIR}/opencl/programs)
set(PTXRAY_OPENCL_PROGRAMS platform_device context_queue buffers kernels_ndrange errors events_profiling
  compile_link images image_arrays)

foreach(name ${PTXRAY_OPENCL_PROGRAMS})
  set(target opencl_program_${name})
  add_executable(${target} ${PTXRAY_OPENCL_PROGRAMS_DIR}/${name}.c)
  set_target_properties(${target} PROPERTIES
    OUTPUT_NAME ${name}
    RUNTIME_OUTPUT_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR}/opencl/programs
    C_STANDARD 11 C_STANDARD_REQUIRED ON C_EXTENSIONS OFF
    # Built as a user builds an OpenCL application: without the directory's sanitizer and
    # interposition options (the sanitizer build checks ptxray's platform, which `ptxray exec` loads
    # into the program with the sanitizer runtime; PoCL's own leaks must not fail the reference run).
    COMPILE_OPTIONS "-Wall;-Wextra"
    LINK_OPTIONS "")
  if(PTXRAY_WERROR)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
  target_compile_definitions(${target} PRIVATE CL_TARGET_OPENCL_VERSION=120)
  target_link_libraries(${target} PRIVATE OpenCL::OpenCL m)

  add_test(NAME opencl.program.${name}
    COMMAND python3 ${PTXRAY_OPENCL_PROGRAMS_DIR}/compare.py $<TARGET_FILE:${target}> ${PTXRAY_BIN})
  # compare.py allows each of the two runs 120 s (PTXRAY_COMPARE_TIMEOUT).
  set_tests_properties(opencl.program.${name} PROPERTIES
    SKIP_RETURN_CODE 77 PASS_REGULAR_EXPRESSION "same as PoCL" LABELS opencl TIMEOUT 300)
endforeach()
