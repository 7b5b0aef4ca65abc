#include "RealKernels.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fmt/format.h>
#include <numeric>
#include <span>
#include <sstream>

namespace ptxray::bench {

namespace {

/// Deterministic pseudo-random numbers (the same on every platform, unlike <random>'s distributions).
class Lcg {
public:
  explicit Lcg(uint64_t seed) : state_(seed) {}
  uint32_t next() {
    state_ = state_ * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<uint32_t>(state_ >> 32);
  }
  float unit() { return static_cast<float>(next() >> 8) / 16777216.0f; } ///< [0, 1)

private:
  uint64_t state_;
};

template <class T> std::vector<std::byte> arg(T v) {
  std::vector<std::byte> b(sizeof(T));
  std::memcpy(b.data(), &v, sizeof(T));
  return b;
}

template <class T> uint64_t upload(vm::Device &device, const std::vector<T> &host) {
  uint64_t address = device.allocate(host.size() * sizeof(T));
  device.copyToDevice(address, std::as_bytes(std::span(host)));
  return address;
}

template <class T> std::vector<T> download(vm::Device &device, uint64_t address, size_t count) {
  std::vector<T> host(count);
  device.copyFromDevice(std::as_writable_bytes(std::span(host)), address);
  return host;
}

std::vector<float> randomFloats(size_t n, uint64_t seed, float lo, float hi) {
  Lcg rng(seed);
  std::vector<float> v(n);
  for (float &x : v)
    x = lo + (hi - lo) * rng.unit();
  return v;
}

std::vector<uint32_t> randomWords(size_t n, uint64_t seed) {
  Lcg rng(seed);
  std::vector<uint32_t> v(n);
  for (uint32_t &x : v)
    x = rng.next();
  return v;
}

/// First index where |got - want| > tolerance * max(1, |want|), as a message.
std::string compareFloats(const std::vector<float> &got, const std::vector<double> &want, double tolerance) {
  for (size_t i = 0; i < got.size(); ++i)
    if (std::abs(got[i] - want[i]) > tolerance * std::max(1.0, std::abs(want[i])))
      return fmt::format("element {}: {} where the reference has {}", i, got[i], want[i]);
  return {};
}

template <class T> std::string compareExact(const std::vector<T> &got, const std::vector<T> &want) {
  for (size_t i = 0; i < got.size(); ++i)
    if (got[i] != want[i])
      return fmt::format("element {}: {} where the reference has {}", i, got[i], want[i]);
  return {};
}

class SgemmTiled : public RealKernel {
public:
  explicit SgemmTiled(int tile) : tile_(tile) {}
  std::string name() const override { return fmt::format("sgemm_tiled{}", tile_); }
  void setUp(vm::Device &device) override {
    a_ = randomFloats(size_t{kN} * kN, 1, -1.0f, 1.0f);
    b_ = randomFloats(size_t{kN} * kN, 2, -1.0f, 1.0f);
    da_ = upload(device, a_);
    db_ = upload(device, b_);
    dc_ = device.allocate(uint64_t{kN} * kN * 4);
  }
  std::vector<RealLaunch> launches() const override {
    const uint32_t t = static_cast<uint32_t>(tile_), g = kN / t;
    return {{name(), {{g, g, 1}, {t, t, 1}, 0}, {arg(da_), arg(db_), arg(dc_), arg(kN)}}};
  }
  std::string check(vm::Device &device) const override {
    std::vector<double> want(size_t{kN} * kN, 0.0);
    for (int i = 0; i < kN; ++i)
      for (int k = 0; k < kN; ++k)
        for (int j = 0; j < kN; ++j)
          want[size_t(i) * kN + j] += double{a_[size_t(i) * kN + k]} * b_[size_t(k) * kN + j];
    // 256 products of magnitude <= 1, summed in float: a few float ulps of 256 at most.
    return compareFloats(download<float>(device, dc_, want.size()), want, 1e-4);
  }

private:
  static constexpr int kN = 256;
  int tile_;
  std::vector<float> a_, b_;
  uint64_t da_ = 0, db_ = 0, dc_ = 0;
};

class TransposeShared : public RealKernel {
public:
  std::string name() const override { return "transpose_shared"; }
  void setUp(vm::Device &device) override {
    in_ = randomFloats(size_t{kRows} * kCols, 3, 0.0f, 1.0f);
    din_ = upload(device, in_);
    dout_ = device.allocate(in_.size() * 4);
  }
  std::vector<RealLaunch> launches() const override {
    return {{name(), {{kCols / 32, kRows / 32, 1}, {32, 8, 1}, 0}, {arg(dout_), arg(din_), arg(kRows), arg(kCols)}}};
  }
  std::string check(vm::Device &device) const override {
    std::vector<float> want(in_.size());
    for (int r = 0; r < kRows; ++r)
      for (int c = 0; c < kCols; ++c)
        want[size_t(c) * kRows + r] = in_[size_t(r) * kCols + c];
    return compareExact(download<float>(device, dout_, want.size()), want);
  }

private:
  static constexpr int kRows = 1024, kCols = 2048;
  std::vector<float> in_;
  uint64_t din_ = 0, dout_ = 0;
};

class BitonicSortShared : public RealKernel {
public:
  std::string name() const override { return "bitonic_sort_shared"; }
  void setUp(vm::Device &device) override {
    keys_ = randomWords(size_t{kBlocks} * kKeysPerBlock, 4);
    dkeys_ = upload(device, keys_);
  }
  std::vector<RealLaunch> launches() const override {
    return {{name(), {{kBlocks, 1, 1}, {kKeysPerBlock / 2, 1, 1}, kKeysPerBlock * 4}, {arg(dkeys_)}}};
  }
  std::string check(vm::Device &device) const override {
    std::vector<uint32_t> want = keys_;
    for (uint32_t b = 0; b < kBlocks; ++b)
      std::sort(want.begin() + b * kKeysPerBlock, want.begin() + (b + 1) * kKeysPerBlock);
    return compareExact(download<uint32_t>(device, dkeys_, want.size()), want);
  }

private:
  static constexpr uint32_t kBlocks = 128, kKeysPerBlock = 1024;
  std::vector<uint32_t> keys_;
  uint64_t dkeys_ = 0;
};

class BitonicSortGlobal : public RealKernel {
public:
  std::string name() const override { return "bitonic_step_global"; }
  void setUp(vm::Device &device) override {
    keys_ = randomWords(kKeys, 5);
    dkeys_ = upload(device, keys_);
  }
  std::vector<RealLaunch> launches() const override {
    // The whole sort: one launch per (k, j) step.
    std::vector<RealLaunch> steps;
    for (uint32_t k = 2; k <= kKeys; k <<= 1)
      for (uint32_t j = k / 2; j > 0; j >>= 1)
        steps.push_back({name(), {{kKeys / 256, 1, 1}, {256, 1, 1}, 0}, {arg(dkeys_), arg(j), arg(k)}});
    return steps;
  }
  std::string check(vm::Device &device) const override {
    std::vector<uint32_t> want = keys_;
    std::sort(want.begin(), want.end());
    return compareExact(download<uint32_t>(device, dkeys_, want.size()), want);
  }

private:
  static constexpr uint32_t kKeys = 1u << 16;
  std::vector<uint32_t> keys_;
  uint64_t dkeys_ = 0;
};

class Histogram256 : public RealKernel {
public:
  std::string name() const override { return "histogram256"; }
  void setUp(vm::Device &device) override {
    data_ = randomWords(kWords, 6);
    ddata_ = upload(device, data_);
    dbins_ = device.allocate(256 * 4);
    device.memset(dbins_, 0, 256 * 4);
  }
  std::vector<RealLaunch> launches() const override {
    return {{name(), {{128, 1, 1}, {256, 1, 1}, 0}, {arg(ddata_), arg(kWords), arg(dbins_)}}};
  }
  std::string check(vm::Device &device) const override {
    std::vector<uint32_t> want(256, 0);
    for (uint32_t v : data_)
      for (int shift = 0; shift < 32; shift += 8)
        ++want[(v >> shift) & 0xff];
    return compareExact(download<uint32_t>(device, dbins_, 256), want);
  }

private:
  static constexpr int kWords = 1 << 21;
  std::vector<uint32_t> data_;
  uint64_t ddata_ = 0, dbins_ = 0;
};

class Stencil5 : public RealKernel {
public:
  std::string name() const override { return "stencil5"; }
  void setUp(vm::Device &device) override {
    in_ = randomFloats(size_t{kN} * kN, 7, 0.0f, 1.0f);
    din_ = upload(device, in_);
    dout_ = device.allocate(in_.size() * 4);
  }
  std::vector<RealLaunch> launches() const override {
    return {{name(), {{kN / 32, kN / 8, 1}, {32, 8, 1}, 0}, {arg(dout_), arg(din_), arg(kN), arg(kN)}}};
  }
  std::string check(vm::Device &device) const override {
    std::vector<double> want(in_.size());
    for (int y = 0; y < kN; ++y)
      for (int x = 0; x < kN; ++x) {
        const size_t i = size_t(y) * kN + x;
        want[i] = x == 0 || y == 0 || x == kN - 1 || y == kN - 1
                      ? in_[i]
                      : 0.5 * in_[i] + 0.125 * (double{in_[i - 1]} + in_[i + 1] + in_[i - kN] + in_[i + kN]);
      }
    return compareFloats(download<float>(device, dout_, want.size()), want, 1e-6);
  }

private:
  static constexpr int kN = 1024;
  std::vector<float> in_;
  uint64_t din_ = 0, dout_ = 0;
};

class BlockScan : public RealKernel {
public:
  std::string name() const override { return "block_scan"; }
  void setUp(vm::Device &device) override {
    std::vector<uint32_t> words = randomWords(size_t{kBlocks} * kThreads, 8);
    in_.resize(words.size());
    std::transform(words.begin(), words.end(), in_.begin(), [](uint32_t w) { return static_cast<int>(w % 1000); });
    din_ = upload(device, in_);
    dout_ = device.allocate(in_.size() * 4);
  }
  std::vector<RealLaunch> launches() const override {
    return {{name(), {{kBlocks, 1, 1}, {kThreads, 1, 1}, 2 * kThreads * 4}, {arg(dout_), arg(din_)}}};
  }
  std::string check(vm::Device &device) const override {
    std::vector<int> want(in_.size());
    for (uint32_t b = 0; b < kBlocks; ++b)
      std::inclusive_scan(in_.begin() + b * kThreads, in_.begin() + (b + 1) * kThreads, want.begin() + b * kThreads);
    return compareExact(download<int>(device, dout_, want.size()), want);
  }

private:
  static constexpr uint32_t kBlocks = 256, kThreads = 1024;
  std::vector<int> in_;
  uint64_t din_ = 0, dout_ = 0;
};

class WarpReduce : public RealKernel {
public:
  std::string name() const override { return "warp_reduce"; }
  void setUp(vm::Device &device) override {
    in_ = randomFloats(kN, 9, 0.0f, 1.0f);
    din_ = upload(device, in_);
    dsum_ = device.allocate(4);
    device.memset(dsum_, 0, 4);
  }
  std::vector<RealLaunch> launches() const override {
    return {{name(), {{256, 1, 1}, {256, 1, 1}, 0}, {arg(din_), arg(kN), arg(dsum_)}}};
  }
  std::string check(vm::Device &device) const override {
    const double want = std::accumulate(in_.begin(), in_.end(), 0.0);
    // 64 values per thread, 32 per warp, 2048 warps added atomically in float: well within 1e-4.
    return compareFloats(download<float>(device, dsum_, 1), {want}, 1e-4);
  }

private:
  static constexpr int kN = 1 << 22;
  std::vector<float> in_;
  uint64_t din_ = 0, dsum_ = 0;
};

class SaxpyGridStride : public RealKernel {
public:
  std::string name() const override { return "saxpy_grid_stride"; }
  void setUp(vm::Device &device) override {
    x_ = randomFloats(kN, 10, -1.0f, 1.0f);
    y_ = randomFloats(kN, 11, -1.0f, 1.0f);
    dx_ = upload(device, x_);
    dy_ = upload(device, y_);
  }
  std::vector<RealLaunch> launches() const override {
    return {{name(), {{256, 1, 1}, {256, 1, 1}, 0}, {arg(kN), arg(kA), arg(dx_), arg(dy_)}}};
  }
  std::string check(vm::Device &device) const override {
    std::vector<double> want(kN);
    for (int i = 0; i < kN; ++i)
      want[i] = double{kA} * x_[i] + y_[i];
    return compareFloats(download<float>(device, dy_, kN), want, 1e-6);
  }

private:
  static constexpr int kN = 1 << 22;
  static constexpr float kA = 1.5f;
  std::vector<float> x_, y_;
  uint64_t dx_ = 0, dy_ = 0;
};

class CollatzSteps : public RealKernel {
public:
  std::string name() const override { return "collatz_steps"; }
  void setUp(vm::Device &device) override { dsteps_ = device.allocate(kN * 4); }
  std::vector<RealLaunch> launches() const override {
    return {{name(), {{kN / 256, 1, 1}, {256, 1, 1}, 0}, {arg(dsteps_), arg(kFirst), arg(kN), arg(kMaxSteps)}}};
  }
  std::string check(vm::Device &device) const override {
    std::vector<uint32_t> want(kN);
    for (int i = 0; i < kN; ++i) {
      uint64_t v = kFirst + static_cast<uint64_t>(i);
      uint32_t count = 0;
      while (v != 1 && count < kMaxSteps) {
        v = v & 1 ? 3 * v + 1 : v >> 1;
        ++count;
      }
      want[i] = count;
    }
    return compareExact(download<uint32_t>(device, dsteps_, kN), want);
  }

private:
  static constexpr int kN = 1 << 16;
  static constexpr uint64_t kFirst = 1;
  static constexpr uint32_t kMaxSteps = 1000;
  uint64_t dsteps_ = 0;
};

} // namespace

std::vector<std::unique_ptr<RealKernel>> realKernels() {
  std::vector<std::unique_ptr<RealKernel>> all;
  all.push_back(std::make_unique<SgemmTiled>(16));
  all.push_back(std::make_unique<SgemmTiled>(32));
  all.push_back(std::make_unique<TransposeShared>());
  all.push_back(std::make_unique<BitonicSortShared>());
  all.push_back(std::make_unique<BitonicSortGlobal>());
  all.push_back(std::make_unique<Histogram256>());
  all.push_back(std::make_unique<Stencil5>());
  all.push_back(std::make_unique<BlockScan>());
  all.push_back(std::make_unique<WarpReduce>());
  all.push_back(std::make_unique<SaxpyGridStride>());
  all.push_back(std::make_unique<CollatzSteps>());
  return all;
}

std::vector<int64_t> workerCounts() {
  std::vector<int64_t> counts;
  if (const char *list = std::getenv("PTXRAY_BENCH_WORKERS")) {
    std::stringstream in(list);
    for (std::string item; std::getline(in, item, ',');)
      if (int64_t n = std::atoll(item.c_str()); n > 0)
        counts.push_back(n);
  }
  return counts.empty() ? std::vector<int64_t>{1, 2} : counts;
}

std::string realKernelsPtxPath() {
  // $PTXRAY_SOURCE_DIR: a checkout elsewhere than the build's (the bench binary carried to another
  // machine, validation/vm/scaling.sh).
  const char *dir = std::getenv("PTXRAY_SOURCE_DIR");
  return std::string(dir && *dir ? dir : PTXRAY_SOURCE_DIR) + "/bench/kernels/real_kernels.ptx";
}

} // namespace ptxray::bench
