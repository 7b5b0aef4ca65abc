// The words a finding's fix uses, in the kernel's own language: CUDA C++ or OpenCL C. The guides
// give both ([BPG] is written for OpenCL, [KTG] for CUDA): a barrier is __syncthreads() or
// barrier(CLK_LOCAL_MEM_FENCE), the fast math functions __sinf or native_sin, a register limit
// __launch_bounds__ or -cl-nv-maxrregcount. The language is the module's source's (its .file names).
#pragma once

#include "ptx/Ir.h"

#include <cstdint>
#include <string>
#include <string_view>

namespace ptxray::advisor {

enum class SourceLanguage : uint8_t { Cuda, OpenCL };

/// OpenCL when a source file the module's line table names is OpenCL C (.cl), else CUDA.
SourceLanguage sourceLanguageOf(const ptx::Module &module);

struct Vocabulary {
  SourceLanguage language = SourceLanguage::Cuda;
  std::string_view barrier;         ///< the block-wide barrier
  std::string_view sharedQualifier; ///< __shared__ / __local
  std::string_view localIdX;        ///< the thread's index in its block, x
  std::string_view fastMath;        ///< the compiler option for fast math
  std::string_view mul24;           ///< the 24-bit multiply
  std::string_view rsqrt;           ///< the reciprocal square root, float
  /// How to give the kernel at most `registers` registers per thread with `threads` per block and
  /// `blocks` resident per SM.
  std::string registerLimit(int registers, int threads, int blocks) const;
  bool opencl() const { return language == SourceLanguage::OpenCL; }
};

const Vocabulary &vocabularyFor(SourceLanguage language);

} // namespace ptxray::advisor
