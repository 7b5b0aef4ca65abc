#include "advisor/Vocabulary.h"

#include <fmt/format.h>

namespace ptxray::advisor {

SourceLanguage sourceLanguageOf(const ptx::Module &module) {
  for (const ptx::SourceFile &f : module.files)
    if (f.name.ends_with(".cl"))
      return SourceLanguage::OpenCL;
  return SourceLanguage::Cuda;
}

std::string Vocabulary::registerLimit(int registers, int threads, int blocks) const {
  if (opencl())
    // NVIDIA's OpenCL build option ([BPG] 4.3: the register count ptxas may use).
    return fmt::format("-cl-nv-maxrregcount={}", registers);
  return fmt::format("__launch_bounds__({}, {}) or -maxrregcount={}", threads, blocks, registers);
}

const Vocabulary &vocabularyFor(SourceLanguage language) {
  static const Vocabulary kCuda{SourceLanguage::Cuda, "__syncthreads()", "__shared__", "threadIdx.x",
                                "-use_fast_math",     "__mul24",         "rsqrtf(x)"};
  static const Vocabulary kOpenCL{SourceLanguage::OpenCL,
                                  "barrier(CLK_LOCAL_MEM_FENCE)",
                                  "__local",
                                  "get_local_id(0)",
                                  "-cl-fast-relaxed-math",
                                  "mul24",
                                  "rsqrt(x)"};
  return language == SourceLanguage::OpenCL ? kOpenCL : kCuda;
}

} // namespace ptxray::advisor
