# NVIDIA's occupancy header, when a CUDA toolkit is installed, is the reference the occupancy sweep
# compares against (tests/arch/OccupancyHeaderSweepTest.cpp includes it; nothing else may).
find_path(PTXRAY_CUDA_OCCUPANCY_INCLUDE_DIR cuda_occupancy.h PATHS /usr/local/cuda/include NO_DEFAULT_PATH)
if(PTXRAY_CUDA_OCCUPANCY_INCLUDE_DIR)
  target_include_directories(ptxray_tests SYSTEM PRIVATE ${PTXRAY_CUDA_OCCUPANCY_INCLUDE_DIR})
  target_compile_definitions(ptxray_tests PRIVATE PTXRAY_HAVE_CUDA_OCCUPANCY_H=1)
endif()
