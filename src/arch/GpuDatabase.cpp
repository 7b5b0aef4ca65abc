#include "arch/GpuDatabase.h"

#include <algorithm>
#include <cctype>
#include <stdexcept>

namespace ptxray::arch {

const ComputeCapability &Gpu::computeCapability() const {
  const ComputeCapability *cc = findComputeCapability(ccMajor, ccMinor);
  if (!cc)
    throw std::logic_error("GPU table names an unmodeled compute capability: " + name);
  return *cc;
}

int Gpu::maxBoostClockMHz() const {
  return boostClocksMHz.empty() ? baseClockMHz : boostClocksMHz.back();
}

const Gpu *ArchTarget::board() const {
  if (gpu)
    return gpu;
  for (const Gpu &g : gpus())
    if (g.ccMajor == computeCapability->major && g.ccMinor == computeCapability->minor)
      return &g;
  return nullptr;
}

int Gpu::defaultClockMHz() const {
  return boostIsOptIn ? baseClockMHz : maxBoostClockMHz();
}

bool Gpu::l1CachingOptIn() const {
  return globalL1CachingOptIn.value_or(computeCapability().global.l1CachingOptIn);
}

int Gpu::fp64ResultsPerClock() const {
  return fp64AddMulFmaPerClock.value_or(computeCapability().throughput.fp64AddMulFma);
}

double Gpu::theoreticalBandwidthBytesPerSecond() const {
  constexpr double kHzPerMHz = 1e6;
  constexpr double kBitsPerByte = 8;
  return memoryClockMHz * kHzPerMHz * (memoryBusWidthBits / kBitsPerByte) * memoryTransfersPerClock;
}

double Gpu::theoreticalBandwidthGBps() const {
  constexpr double kBytesPerGB = 1e9;
  return theoreticalBandwidthBytesPerSecond() / kBytesPerGB;
}

double Gpu::theoreticalBandwidthGiBps() const {
  constexpr double kBytesPerGiB = 1024.0 * 1024.0 * 1024.0;
  return theoreticalBandwidthBytesPerSecond() / kBytesPerGiB;
}

std::string ArchTarget::displayName() const {
  std::string sm = computeCapability ? computeCapability->smName() : "?";
  return gpu ? gpu->name + " (" + sm + ")" : sm;
}

namespace {

std::string lowercase(std::string_view text) {
  std::string out;
  for (char c : text)
    out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

/// Lowercase without spaces, '-' and '_': "Tesla K40" and "tesla-k40" both become "teslak40".
std::string normalize(std::string_view text) {
  std::string out;
  for (char c : lowercase(text))
    if (c != ' ' && c != '-' && c != '_')
      out += c;
  return out;
}

/// Drops the brand words a user may or may not type: "nvidiageforcegtx480" -> "gtx480".
std::string withoutBrand(std::string key) {
  static const char *const kBrands[] = {"nvidia", "geforce", "tesla", "jetson", "quadro"};
  for (bool stripped = true; stripped;) {
    stripped = false;
    for (const char *brand : kBrands)
      if (key.starts_with(brand) && key.size() > std::string_view(brand).size()) {
        key.erase(0, std::string_view(brand).size());
        stripped = true;
      }
  }
  return key;
}

bool allDigits(std::string_view text) {
  return !text.empty() && std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
}

/// "sm_35", "sm_90a", "compute_35", "3.5", "35" -> {3, 5}; nullopt when the text is not a capability.
std::optional<std::pair<int, int>> parseComputeCapability(std::string_view raw) {
  std::string text = lowercase(raw);
  if (auto dot = text.find('.'); dot != std::string::npos) {
    std::string_view major = std::string_view(text).substr(0, dot), minor = std::string_view(text).substr(dot + 1);
    if (allDigits(major) && allDigits(minor) && major.size() <= 2 && minor.size() == 1)
      return std::pair{std::stoi(std::string(major)), std::stoi(std::string(minor))};
    return std::nullopt;
  }
  std::string_view digits = text;
  for (std::string_view prefix : {"sm_", "compute_", "sm", "compute"})
    if (digits.starts_with(prefix)) {
      digits.remove_prefix(prefix.size());
      if (!digits.empty() && (digits.back() == 'a' || digits.back() == 'f')) // sm_90a, sm_100f
        digits.remove_suffix(1);
      break;
    }
  bool prefixed = digits.size() != text.size();
  // Bare digits are a capability only as two digits ("35"); "730" or "3090" name GPUs.
  if (!allDigits(digits) || digits.size() < 2 || digits.size() > (prefixed ? 3u : 2u))
    return std::nullopt;
  std::string value(digits);
  return std::pair{std::stoi(value.substr(0, value.size() - 1)), value.back() - '0'};
}

const Gpu *findGpu(std::string_view text) {
  std::string key = normalize(text), bare = withoutBrand(key);
  for (const Gpu &gpu : gpus()) {
    std::vector<std::string> keys = {normalize(gpu.name), withoutBrand(normalize(gpu.name))};
    for (const auto &alias : gpu.aliases)
      keys.push_back(normalize(alias));
    if (std::find(keys.begin(), keys.end(), key) != keys.end() ||
        std::find(keys.begin(), keys.end(), bare) != keys.end())
      return &gpu;
  }
  for (const Gpu &gpu : gpus()) // a chip names its first (representative) board
    if (normalize(gpu.chip) == key)
      return &gpu;
  return nullptr;
}

std::string joined(const std::vector<std::string> &items) {
  std::string out;
  for (const auto &item : items)
    out += (out.empty() ? "" : ", ") + item;
  return out;
}

} // namespace

std::vector<std::string> knownArchNames() {
  std::vector<std::string> names;
  for (const auto &cc : computeCapabilities())
    names.push_back(cc.smName());
  for (const Gpu &gpu : gpus()) {
    std::string entry = gpu.name + " (" + gpu.chip;
    for (const auto &alias : gpu.aliases)
      entry += ", " + alias;
    names.push_back(entry + ")");
  }
  return names;
}

ArchLookup findArch(std::string_view text) {
  if (auto cc = parseComputeCapability(text)) {
    if (const ComputeCapability *found = findComputeCapability(cc->first, cc->second))
      return {ArchTarget{found, nullptr}, {}};
    if (const Gpu *gpu = findGpu(text))
      return {ArchTarget{&gpu->computeCapability(), gpu}, {}};
    std::vector<std::string> modeled;
    for (const auto &known : computeCapabilities())
      modeled.push_back(known.version());
    return {std::nullopt, "compute capability " + std::to_string(cc->first) + "." + std::to_string(cc->second) +
                              " is not modeled; modeled compute capabilities: " + joined(modeled)};
  }
  if (const Gpu *gpu = findGpu(text))
    return {ArchTarget{&gpu->computeCapability(), gpu}, {}};
  return {std::nullopt, "unknown architecture '" + std::string(text) +
                            "': expected sm_XX, compute_XX, a compute capability such as 3.5, or a GPU name, alias "
                            "or chip; known: " +
                            joined(knownArchNames())};
}

} // namespace ptxray::arch
