// MD2 (RFC 1319) and HMAC over it (RFC 2104 with MD2's 16-byte block): what NVIDIA's CUDA runtime
// asks the driver to compute over its identity when it starts (DriverExportTables.cpp).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>

namespace ptxray::runtime {

class Md2 {
public:
  void update(const void *data, size_t bytes);
  /// The 16-byte digest; the object is spent afterwards.
  std::array<uint8_t, 16> digest();

private:
  void compress();
  uint8_t state_[48] = {};
  uint8_t checksum_[16] = {};
  uint8_t block_[16] = {};
  size_t filled_ = 0;
};

/// HMAC-MD2 of the concatenation of `message`'s parts under a 16-byte key.
std::array<uint8_t, 16> hmacMd2(std::span<const uint8_t, 16> key, std::span<const std::span<const uint8_t>> message);

} // namespace ptxray::runtime
