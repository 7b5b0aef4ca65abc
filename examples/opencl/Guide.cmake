# opencl_guide: the host program of the OpenCL Best Practices Guide's kernels (guide.c runs copy.cl,
# multiply.cl and aat.cl through any OpenCL ICD: ptxray's, PoCL, Oclgrind). Included by the build
# that adds the OpenCL ICD; needs the OpenCL headers and an ICD loader (Debian: ocl-icd-opencl-dev),
# and is skipped without them.
#
#   opencl_guide [--dir DIR] [--kernels copy,multiply,aat] [--size small|guide] [--repeat N]
#
# The .cl files are found in this folder by default (PTXRAY_OPENCL_EXAMPLES), else next to the binary.
find_package(OpenCL QUIET)
if(NOT OpenCL_FOUND)
  message(STATUS "OpenCL headers or ICD loader not found: examples/opencl/guide.c (opencl_guide) not built")
  return()
endif()

get_property(_ptxray_languages GLOBAL PROPERTY ENABLED_LANGUAGES)
if(NOT "C" IN_LIST _ptxray_languages)
  enable_language(C)
endif()
unset(_ptxray_languages)

add_executable(opencl_guide ${CMAKE_CURRENT_LIST_DIR}/guide.c)
set_target_properties(opencl_guide PROPERTIES C_STANDARD 11 C_STANDARD_REQUIRED ON C_EXTENSIONS OFF)
target_compile_definitions(opencl_guide PRIVATE CL_TARGET_OPENCL_VERSION=120
                                                PTXRAY_OPENCL_EXAMPLES="${CMAKE_CURRENT_LIST_DIR}")
target_link_libraries(opencl_guide PRIVATE OpenCL::OpenCL)
# A user's program, built as users build theirs: never with ptxray's own sanitizer flags (it runs on
# the plain loader; `ptxray exec` preloads the sanitizer runtime its platform library needs).
target_compile_options(opencl_guide PRIVATE -fno-sanitize=all)
target_link_options(opencl_guide PRIVATE -fno-sanitize=all)
