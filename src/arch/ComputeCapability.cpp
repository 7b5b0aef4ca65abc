#include "arch/ComputeCapability.h"

#include <algorithm>

namespace ptxray::arch {

int SharedMemoryByCacheConfig::forConfig(CacheConfig config) const {
  switch (config) {
  case CacheConfig::PreferNone: return preferNone;
  case CacheConfig::PreferShared: return preferShared;
  case CacheConfig::PreferL1: return preferL1;
  case CacheConfig::PreferEqual: return preferEqual;
  }
  return preferNone;
}

// CC 1.2/1.3 ([BPG] §3.2.1): the segment is 32 bytes for 8-bit words, 64 for 16-bit and 128 for 32-,
// 64- and 128-bit words: the smallest transaction scaled by the word size, capped at the largest.
int GlobalMemoryRules::segmentBytesForWordSize(int wordBytes) const {
  if (transactionBytes.empty())
    return 0;
  int largest = *std::max_element(transactionBytes.begin(), transactionBytes.end());
  int smallest = *std::min_element(transactionBytes.begin(), transactionBytes.end());
  return std::min(smallest * wordBytes, largest);
}

std::string ComputeCapability::smName() const {
  return "sm_" + std::to_string(major) + std::to_string(minor);
}

std::string ComputeCapability::version() const {
  return std::to_string(major) + "." + std::to_string(minor);
}

int ComputeCapability::warpsPerBlock(int threadsPerBlock) const {
  // In 64 bits: a block size near INT_MAX must not wrap.
  return threadsPerBlock <= 0 ? 0
                              : static_cast<int>((static_cast<long long>(threadsPerBlock) + warpSize - 1) / warpSize);
}

const ComputeCapability *findComputeCapability(int major, int minor) {
  for (const auto &cc : computeCapabilities())
    if (cc.major == major && cc.minor == minor)
      return &cc;
  return nullptr;
}

} // namespace ptxray::arch
