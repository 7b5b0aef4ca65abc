// System-level ground truth for ptxray's timeline model (issue #14): host<->device copies over
// PCIe, copy engines, streams, concurrent kernels and the hardware work queues (Hyper-Q).
//
// Build:  nvcc -O2 -arch=sm_90 -std=c++17 system_bench.cu -o system_bench
// Run:    ./system_bench > results.json        (validation/system/run.sh runs it three times,
//                                               with CUDA_DEVICE_MAX_CONNECTIONS unset, 1 and 32)
//
// Prints one JSON document on stdout; progress and errors go to stderr. Every time is in
// seconds; GB/s is 1e9 bytes per second. Device-side times come from CUDA events recorded on the
// stream around the work; host-side times from std::chrono::steady_clock. Each measurement is
// repeated after warm-up runs and reported as median and minimum.
//
// `./system_bench pitch2d` runs only the cudaMemcpy2DAsync pitch study (device info + "pitch2d").
// `./system_bench pitch2d_near` runs only the near-width host pitch sweep ("pitch2d_near").
// `./system_bench multigpu` runs only the two-GPU study ("multigpu": host copies to/from two GPUs
// alone and at once, peer copies); with fewer than two GPUs it prints a note and exits 0.
// With no argument the program runs sections (a)-(g); the two modes above run only when named.
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cctype>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#define CK(call)                                                                        \
  do {                                                                                  \
    cudaError_t err_ = (call);                                                          \
    if (err_ != cudaSuccess) {                                                          \
      std::fprintf(stderr, "%s:%d: %s failed: %s (%s)\n", __FILE__, __LINE__, #call,    \
                   cudaGetErrorString(err_), cudaGetErrorName(err_));                   \
      std::exit(2);                                                                     \
    }                                                                                   \
  } while (0)

#define CK_LAUNCH() CK(cudaGetLastError())

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

// ---------------------------------------------------------------- statistics
struct Stat {
  double median = NAN, min = NAN, max = NAN;
  int n = 0;
};

Stat stat_of(std::vector<double> v) {
  Stat s;
  s.n = static_cast<int>(v.size());
  if (v.empty()) return s;
  std::sort(v.begin(), v.end());
  s.min = v.front();
  s.max = v.back();
  size_t m = v.size() / 2;
  s.median = (v.size() % 2) ? v[m] : 0.5 * (v[m - 1] + v[m]);
  return s;
}

// ---------------------------------------------------------------- a small JSON writer
class Json {
 public:
  void begin_object(const char* key = nullptr) { open(key, '{'); }
  void end_object() { close('}'); }
  void begin_array(const char* key = nullptr) { open(key, '['); }
  void end_array() { close(']'); }

  void num(const char* key, double v) {
    item(key);
    if (std::isfinite(v)) append("%.9g", v);
    else out_ += "null";
  }
  void integer(const char* key, long long v) {
    item(key);
    append("%lld", v);
  }
  void boolean(const char* key, bool v) {
    item(key);
    out_ += v ? "true" : "false";
  }
  void null(const char* key) {
    item(key);
    out_ += "null";
  }
  void str(const char* key, const std::string& v) {
    item(key);
    quoted(v);
  }
  void stat(const char* key, const Stat& s) {
    begin_object(key);
    num("median", s.median);
    num("min", s.min);
    num("max", s.max);
    integer("n", s.n);
    end_object();
  }
  const std::string& text() const { return out_; }

 private:
  std::string out_;
  std::vector<bool> first_;

  void append(const char* fmt, ...) {
    char buf[128];
    va_list ap;
    va_start(ap, fmt);
    std::vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    out_ += buf;
  }
  void newline() {
    out_ += '\n';
    out_.append(2 * first_.size(), ' ');
  }
  void item(const char* key) {
    if (!first_.empty()) {
      if (!first_.back()) out_ += ',';
      first_.back() = false;
      newline();
    }
    if (key) {
      quoted(key);
      out_ += ": ";
    }
  }
  void open(const char* key, char c) {
    item(key);
    out_ += c;
    first_.push_back(true);
  }
  void close(char c) {
    bool empty = first_.back();
    first_.pop_back();
    if (!empty) newline();
    out_ += c;
  }
  void quoted(const std::string& s) {
    out_ += '"';
    for (unsigned char ch : s) {
      if (ch == '"' || ch == '\\') {
        out_ += '\\';
        out_ += static_cast<char>(ch);
      } else if (ch < 0x20) {
        append("\\u%04x", ch);
      } else {
        out_ += static_cast<char>(ch);
      }
    }
    out_ += '"';
  }
};

// ---------------------------------------------------------------- kernels
__global__ void empty_kernel() {}

// One warp spins until `cycles` SM clock cycles have passed (clock64 is per multiprocessor).
__global__ void spin_kernel(long long cycles, long long* sink) {
  long long start = clock64();
  long long now;
  do {
    now = clock64();
  } while (now - start < cycles);
  if (sink != nullptr && threadIdx.x == 0) *sink = now - start;
}

// c[i] = sqrt(a[i]^2 + b[i]^2), recomputed `repeat` times. Each round reads the previous round's
// result through fmaf(h, zero, x) with `zero` a run-time 0.0f: exact (h is finite and >= 0, so the
// product is +0 and x + 0 == x), but the compiler cannot know it, so no round can be hoisted or
// dropped and the final value is exactly the one-round hypotenuse.
__global__ void hypot_kernel(const float* __restrict__ a, const float* __restrict__ b,
                             float* __restrict__ c, int n, int repeat, float zero) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float x = a[i];
  float y = b[i];
  float h = 0.0f;
  for (int r = 0; r < repeat; ++r) {
    float xr = fmaf(h, zero, x);
    float yr = fmaf(h, zero, y);
    h = sqrtf(fmaf(xr, xr, yr * yr));
  }
  c[i] = h;
}

float hypot_reference(float x, float y) { return std::sqrt(std::fma(x, x, y * y)); }

// ---------------------------------------------------------------- helpers
struct EventPair {
  cudaEvent_t a{}, b{};
  EventPair() {
    CK(cudaEventCreate(&a));
    CK(cudaEventCreate(&b));
  }
  ~EventPair() {
    cudaEventDestroy(a);
    cudaEventDestroy(b);
  }
  double elapsed() const {
    CK(cudaEventSynchronize(b));
    float ms = 0.0f;
    CK(cudaEventElapsedTime(&ms, a, b));
    return 1e-3 * ms;
  }
};

constexpr size_t KiB = 1024, MiB = 1024 * 1024;

std::string read_first_line(const std::string& path) {
  FILE* f = std::fopen(path.c_str(), "r");
  if (!f) return {};
  char buf[256] = {0};
  if (!std::fgets(buf, sizeof buf, f)) buf[0] = 0;
  std::fclose(f);
  std::string s(buf);
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r' || s.back() == ' ')) s.pop_back();
  return s;
}

void str_or_null(Json& j, const char* key, const std::string& v) {
  if (v.empty()) j.null(key);
  else j.str(key, v);
}

int attr(cudaDeviceAttr a, int dev) {
  int v = 0;
  CK(cudaDeviceGetAttribute(&v, a, dev));
  return v;
}

// ---------------------------------------------------------------- (f) device
void report_device(Json& j, int dev, const char* key = "device") {
  cudaDeviceProp p{};
  CK(cudaGetDeviceProperties(&p, dev));
  int drv = 0, rt = 0;
  CK(cudaDriverGetVersion(&drv));
  CK(cudaRuntimeGetVersion(&rt));
  char bus[64] = {0};
  CK(cudaDeviceGetPCIBusId(bus, sizeof bus, dev));
  std::string bus_id(bus);
  for (char& ch : bus_id) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  std::string sys = "/sys/bus/pci/devices/" + bus_id + "/";

  j.begin_object(key);
  j.integer("ordinal", dev);
  j.str("name", p.name);
  j.str("compute_capability", std::to_string(p.major) + "." + std::to_string(p.minor));
  j.integer("sm_count", p.multiProcessorCount);
  j.integer("sm_clock_khz", attr(cudaDevAttrClockRate, dev));
  j.integer("memory_clock_khz", attr(cudaDevAttrMemoryClockRate, dev));
  j.integer("memory_bus_width_bits", attr(cudaDevAttrGlobalMemoryBusWidth, dev));
  j.integer("total_global_mem_bytes", static_cast<long long>(p.totalGlobalMem));
  j.integer("l2_cache_bytes", p.l2CacheSize);
  j.integer("async_engine_count", attr(cudaDevAttrAsyncEngineCount, dev));
  j.integer("concurrent_kernels", attr(cudaDevAttrConcurrentKernels, dev));
  j.integer("can_map_host_memory", attr(cudaDevAttrCanMapHostMemory, dev));
  j.integer("unified_addressing", attr(cudaDevAttrUnifiedAddressing, dev));
  j.integer("max_threads_per_sm", attr(cudaDevAttrMaxThreadsPerMultiProcessor, dev));
  j.integer("max_blocks_per_sm", attr(cudaDevAttrMaxBlocksPerMultiprocessor, dev));
  j.integer("pci_domain_id", attr(cudaDevAttrPciDomainId, dev));
  j.integer("pci_bus_id", attr(cudaDevAttrPciBusId, dev));
  j.integer("pci_device_id", attr(cudaDevAttrPciDeviceId, dev));
  j.str("pci_bus_id_string", bus_id);
  str_or_null(j, "pcie_current_link_speed", read_first_line(sys + "current_link_speed"));
  str_or_null(j, "pcie_current_link_width", read_first_line(sys + "current_link_width"));
  str_or_null(j, "pcie_max_link_speed", read_first_line(sys + "max_link_speed"));
  str_or_null(j, "pcie_max_link_width", read_first_line(sys + "max_link_width"));
  str_or_null(j, "numa_node", read_first_line(sys + "numa_node"));
  j.integer("driver_version", drv);
  j.integer("runtime_version", rt);
  j.integer("cudart_header_version", CUDART_VERSION);
  j.end_object();
}

// ---------------------------------------------------------------- (e) launch overhead
void report_launch(Json& j, cudaStream_t s) {
  constexpr int kLaunches = 1000, kWarm = 2, kReps = 9;
  std::vector<double> per_launch_ev, per_call_host;
  EventPair ev;
  for (int r = 0; r < kWarm + kReps; ++r) {
    CK(cudaStreamSynchronize(s));
    CK(cudaEventRecord(ev.a, s));
    auto t0 = Clock::now();
    for (int i = 0; i < kLaunches; ++i)
      CK(cudaLaunchKernel(reinterpret_cast<const void*>(&empty_kernel), dim3(1), dim3(1), nullptr, 0,
                          s));
    double host = seconds_since(t0);
    CK(cudaEventRecord(ev.b, s));
    double dev = ev.elapsed();
    if (r >= kWarm) {
      per_launch_ev.push_back(dev / kLaunches);
      per_call_host.push_back(host / kLaunches);
    }
  }
  // One launch then wait for it: the host's round trip.
  std::vector<double> roundtrip;
  for (int r = 0; r < 10 + 200; ++r) {
    CK(cudaStreamSynchronize(s));
    auto t0 = Clock::now();
    CK(cudaLaunchKernel(reinterpret_cast<const void*>(&empty_kernel), dim3(1), dim3(1), nullptr, 0, s));
    CK(cudaStreamSynchronize(s));
    if (r >= 10) roundtrip.push_back(seconds_since(t0));
  }
  j.begin_object("launch");
  j.integer("launches_per_rep", kLaunches);
  j.stat("empty_kernel_back_to_back_s_per_launch_events", stat_of(per_launch_ev));
  j.stat("cudaLaunchKernel_host_call_s", stat_of(per_call_host));
  j.stat("launch_plus_sync_roundtrip_host_s", stat_of(roundtrip));
  j.end_object();
}

// ---------------------------------------------------------------- (a) bandwidth
struct CopyTimes {
  Stat ev, host;
};

// Times `reps` single copies (after `warm` untimed ones): events around each copy on stream s,
// and the host's time from issuing the copy until its stop event completed.
CopyTimes time_copy(void* dst, const void* src, size_t bytes, cudaMemcpyKind kind, cudaStream_t s,
                    int warm, int reps) {
  EventPair ev;
  std::vector<double> dev, host;
  for (int r = 0; r < warm + reps; ++r) {
    CK(cudaStreamSynchronize(s));
    auto t0 = Clock::now();
    CK(cudaEventRecord(ev.a, s));
    CK(cudaMemcpyAsync(dst, src, bytes, kind, s));
    CK(cudaEventRecord(ev.b, s));
    double d = ev.elapsed();
    double h = seconds_since(t0);
    if (r >= warm) {
      dev.push_back(d);
      host.push_back(h);
    }
  }
  return {stat_of(dev), stat_of(host)};
}

int reps_for(size_t bytes) {
  if (bytes <= 1 * MiB) return 30;
  if (bytes <= 16 * MiB) return 10;
  return 5;
}

void emit_copy(Json& j, size_t bytes, const CopyTimes& t, double byte_factor = 1.0) {
  j.begin_object();
  j.integer("bytes", static_cast<long long>(bytes));
  j.num("s_median", t.ev.median);
  j.num("s_min", t.ev.min);
  j.num("gbps_median", byte_factor * bytes / t.ev.median / 1e9);
  j.num("gbps_best", byte_factor * bytes / t.ev.min / 1e9);
  j.num("host_s_median", t.host.median);
  j.num("host_s_min", t.host.min);
  j.integer("reps", t.ev.n);
  j.end_object();
}

struct HostBuffers {
  char* pinned = nullptr;
  char* pageable = nullptr;
  char* dev0 = nullptr;
  char* dev1 = nullptr;
  size_t bytes = 0;
};

void report_bandwidth(Json& j, HostBuffers& hb, cudaStream_t s) {
  const size_t sizes[] = {4 * KiB,   16 * KiB, 64 * KiB,  256 * KiB, 1 * MiB,
                          4 * MiB,   16 * MiB, 64 * MiB,  256 * MiB};
  j.begin_object("bandwidth");
  struct Case {
    const char* name;
    bool pinned;
    bool h2d;
  };
  const Case cases[] = {{"h2d_pinned", true, true},
                        {"d2h_pinned", true, false},
                        {"h2d_pageable", false, true},
                        {"d2h_pageable", false, false}};
  for (const Case& c : cases) {
    std::fprintf(stderr, "bandwidth %s\n", c.name);
    char* host = c.pinned ? hb.pinned : hb.pageable;
    j.begin_array(c.name);
    for (size_t bytes : sizes) {
      int reps = reps_for(bytes);
      int warm = bytes <= 16 * MiB ? 3 : 1;
      CopyTimes t = c.h2d ? time_copy(hb.dev0, host, bytes, cudaMemcpyHostToDevice, s, warm, reps)
                          : time_copy(host, hb.dev0, bytes, cudaMemcpyDeviceToHost, s, warm, reps);
      emit_copy(j, bytes, t);
    }
    j.end_array();
  }
  // Device to device: gbps counts the bytes copied once; gbps_read_plus_write counts both ends.
  j.begin_array("d2d");
  for (size_t bytes : {64 * MiB, 256 * MiB}) {
    CopyTimes t = time_copy(hb.dev1, hb.dev0, bytes, cudaMemcpyDeviceToDevice, s, 2, 10);
    emit_copy(j, bytes, t);
  }
  j.end_array();
  j.str("d2d_note", "gbps counts bytes copied; DRAM traffic is twice that (read + write)");

  // Small-copy latency: the whole time of a tiny pinned copy.
  j.begin_object("latency");
  for (size_t bytes : {size_t{4}, 4 * KiB}) {
    for (int dir = 0; dir < 2; ++dir) {
      CopyTimes t = dir == 0 ? time_copy(hb.dev0, hb.pinned, bytes, cudaMemcpyHostToDevice, s, 10, 200)
                             : time_copy(hb.pinned, hb.dev0, bytes, cudaMemcpyDeviceToHost, s, 10, 200);
      std::string key = std::string(dir == 0 ? "h2d_pinned_" : "d2h_pinned_") +
                        (bytes == 4 ? "4B" : "4KiB");
      j.begin_object(key.c_str());
      j.integer("bytes", static_cast<long long>(bytes));
      j.stat("events_s", t.ev);
      j.stat("host_issue_to_complete_s", t.host);
      j.end_object();
    }
  }
  j.end_object();
  j.end_object();
}

// ---------------------------------------------------------------- (b) batching
void report_batching(Json& j, HostBuffers& hb, cudaStream_t s) {
  constexpr int kCopies = 1024;
  constexpr size_t kSmall = 4 * KiB;
  constexpr int kWarm = 2, kReps = 7;
  j.begin_object("batching");
  j.integer("small_copies", kCopies);
  j.integer("small_copy_bytes", kSmall);
  j.integer("large_copy_bytes", kCopies * kSmall);
  for (int pinned = 1; pinned >= 0; --pinned) {
    char* host = pinned ? hb.pinned : hb.pageable;
    std::vector<double> many_ev, many_host, one_ev, one_host;
    EventPair ev;
    for (int r = 0; r < kWarm + kReps; ++r) {
      CK(cudaStreamSynchronize(s));
      auto t0 = Clock::now();
      CK(cudaEventRecord(ev.a, s));
      for (int i = 0; i < kCopies; ++i)
        CK(cudaMemcpyAsync(hb.dev0 + i * kSmall, host + i * kSmall, kSmall, cudaMemcpyHostToDevice, s));
      CK(cudaEventRecord(ev.b, s));
      double d = ev.elapsed();
      double h = seconds_since(t0);
      if (r >= kWarm) {
        many_ev.push_back(d);
        many_host.push_back(h);
      }
      CK(cudaStreamSynchronize(s));
      t0 = Clock::now();
      CK(cudaEventRecord(ev.a, s));
      CK(cudaMemcpyAsync(hb.dev0, host, kCopies * kSmall, cudaMemcpyHostToDevice, s));
      CK(cudaEventRecord(ev.b, s));
      d = ev.elapsed();
      h = seconds_since(t0);
      if (r >= kWarm) {
        one_ev.push_back(d);
        one_host.push_back(h);
      }
    }
    Stat me = stat_of(many_ev), oe = stat_of(one_ev);
    j.begin_object(pinned ? "h2d_pinned" : "h2d_pageable");
    j.stat("many_small_total_s", me);
    j.stat("many_small_host_s", stat_of(many_host));
    j.stat("one_large_total_s", oe);
    j.stat("one_large_host_s", stat_of(one_host));
    j.num("ratio_many_over_one", me.median / oe.median);
    j.num("per_small_copy_s", me.median / kCopies);
    j.end_object();
  }
  j.end_object();
}

// ---------------------------------------------------------------- (c) copy/compute overlap
struct Overlap {
  int n = 0;
  float *ha = nullptr, *hb = nullptr, *hc = nullptr;
  float *da = nullptr, *db = nullptr, *dc = nullptr;
  int repeat = 1;
  std::vector<cudaStream_t> streams;  // 8
  cudaStream_t ctl{};
  cudaEvent_t done[8]{};
  std::vector<int> check_idx;
  double max_rel_err = 0.0;
  bool verified = true;

  void launch_hypot(int offset, int count, int rep, cudaStream_t s) {
    constexpr int kBlock = 256;
    int grid = (count + kBlock - 1) / kBlock;
    hypot_kernel<<<grid, kBlock, 0, s>>>(da + offset, db + offset, dc + offset, count, rep, 0.0f);
    CK_LAUNCH();
  }

  double time_kernel(int rep, int warm, int reps) {
    EventPair ev;
    std::vector<double> t;
    for (int r = 0; r < warm + reps; ++r) {
      CK(cudaEventRecord(ev.a, ctl));
      launch_hypot(0, n, rep, ctl);
      CK(cudaEventRecord(ev.b, ctl));
      double d = ev.elapsed();
      if (r >= warm) t.push_back(d);
    }
    return stat_of(t).median;
  }

  // The whole pipeline split over `ns` streams, each doing 1/ns of the elements, issued stream
  // by stream (all of stream 0's copies and kernel, then stream 1's, ...). Returns the time from
  // a start event (which every stream waits for) until the last stream finished.
  double run_pipeline(int ns) {
    for (int idx : check_idx) hc[idx] = NAN;
    CK(cudaMemsetAsync(dc, 0xff, size_t(n) * sizeof(float), ctl));
    CK(cudaStreamSynchronize(ctl));
    EventPair ev;
    CK(cudaEventRecord(ev.a, ctl));
    int chunk = n / ns;
    for (int k = 0; k < ns; ++k) {
      cudaStream_t s = streams[k];
      int off = k * chunk;
      size_t bytes = size_t(chunk) * sizeof(float);
      CK(cudaStreamWaitEvent(s, ev.a, 0));
      CK(cudaMemcpyAsync(da + off, ha + off, bytes, cudaMemcpyHostToDevice, s));
      CK(cudaMemcpyAsync(db + off, hb + off, bytes, cudaMemcpyHostToDevice, s));
      launch_hypot(off, chunk, repeat, s);
      CK(cudaMemcpyAsync(hc + off, dc + off, bytes, cudaMemcpyDeviceToHost, s));
    }
    for (int k = 0; k < ns; ++k) {
      CK(cudaEventRecord(done[k], streams[k]));
      CK(cudaStreamWaitEvent(ctl, done[k], 0));
    }
    CK(cudaEventRecord(ev.b, ctl));
    double t = ev.elapsed();
    CK(cudaDeviceSynchronize());
    for (int idx : check_idx) {
      float ref = hypot_reference(ha[idx], hb[idx]);
      double rel = std::fabs(double(hc[idx]) - ref) / std::fabs(double(ref));
      if (!(rel <= 1e-6)) verified = false;  // NaN fails too
      if (std::isfinite(rel)) max_rel_err = std::max(max_rel_err, rel);
      else max_rel_err = INFINITY;
    }
    return t;
  }
};

void report_overlap(Json& j) {
  Overlap o;
  o.n = 32 * 1024 * 1024;
  const size_t bytes = size_t(o.n) * sizeof(float);
  CK(cudaMallocHost(&o.ha, bytes));
  CK(cudaMallocHost(&o.hb, bytes));
  CK(cudaMallocHost(&o.hc, bytes));
  CK(cudaMalloc(&o.da, bytes));
  CK(cudaMalloc(&o.db, bytes));
  CK(cudaMalloc(&o.dc, bytes));
  for (int i = 0; i < o.n; ++i) {
    o.ha[i] = 0.5f + 0.013f * float(i % 1009);
    o.hb[i] = 1.0f + 0.007f * float((i * 7) % 997);
  }
  std::memset(o.hc, 0, bytes);
  for (int k = 0; k < 4096; ++k) o.check_idx.push_back(int((long long)k * (o.n - 1) / 4095));
  o.streams.resize(8);
  for (auto& s : o.streams) CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  CK(cudaStreamCreateWithFlags(&o.ctl, cudaStreamNonBlocking));
  for (auto& e : o.done) CK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));

  // Phase times, each on its own.
  EventPair ev;
  auto time_phase = [&](auto&& body) {
    std::vector<double> t;
    for (int r = 0; r < 2 + 7; ++r) {
      CK(cudaEventRecord(ev.a, o.ctl));
      body();
      CK(cudaEventRecord(ev.b, o.ctl));
      double d = ev.elapsed();
      if (r >= 2) t.push_back(d);
    }
    return stat_of(t);
  };
  Stat h2d = time_phase([&] {
    CK(cudaMemcpyAsync(o.da, o.ha, bytes, cudaMemcpyHostToDevice, o.ctl));
    CK(cudaMemcpyAsync(o.db, o.hb, bytes, cudaMemcpyHostToDevice, o.ctl));
  });
  Stat d2h = time_phase([&] { CK(cudaMemcpyAsync(o.hc, o.dc, bytes, cudaMemcpyDeviceToHost, o.ctl)); });

  // Pick `repeat` so that the kernel takes about as long as the H2D phase: two probes give a
  // line (time = t64 + slope * (repeat - 64)), then one proportional correction.
  std::fprintf(stderr, "overlap: calibrating (h2d %.3f ms)\n", h2d.median * 1e3);
  double k1 = o.time_kernel(1, 1, 3);
  double k64 = o.time_kernel(64, 1, 3);
  double k256 = o.time_kernel(256, 1, 3);
  double slope = std::max((k256 - k64) / 192.0, 1e-9);
  double target = h2d.median;
  int rep = int(std::lround(64 + (target - k64) / slope));
  rep = std::clamp(rep, 1, 1 << 20);
  double kr = o.time_kernel(rep, 1, 3);
  if (kr > 0 && rep > 1) {
    int rep2 = int(std::lround(rep * target / kr));
    rep = std::clamp(rep2, 1, 1 << 20);
  }
  o.repeat = rep;
  Stat kern = time_phase([&] { o.launch_hypot(0, o.n, o.repeat, o.ctl); });
  std::fprintf(stderr, "overlap: repeat %d kernel %.3f ms\n", rep, kern.median * 1e3);

  const int stream_counts[] = {1, 2, 4, 8};
  Stat totals[4];
  for (int c = 0; c < 4; ++c) {
    std::vector<double> t;
    for (int r = 0; r < 2 + 7; ++r) {
      double d = o.run_pipeline(stream_counts[c]);
      if (r >= 2) t.push_back(d);
    }
    totals[c] = stat_of(t);
  }

  j.begin_object("overlap");
  j.str("scenario", "c[i] = sqrt(a[i]^2 + b[i]^2) over N floats, pinned host buffers; per stream: "
                    "H2D a, H2D b, kernel, D2H c; streams issued one after another");
  j.integer("n", o.n);
  j.integer("bytes_per_array", static_cast<long long>(bytes));
  j.integer("block_size", 256);
  j.integer("repeat", o.repeat);
  j.begin_object("calibration");
  j.num("kernel_repeat1_s", k1);
  j.num("kernel_repeat64_s", k64);
  j.num("kernel_repeat256_s", k256);
  j.num("kernel_s_per_repeat", slope);
  j.end_object();
  j.begin_object("phases");
  j.stat("h2d_a_plus_b_s", h2d);
  j.stat("kernel_s", kern);
  j.stat("d2h_c_s", d2h);
  j.num("h2d_gbps", 2.0 * bytes / h2d.median / 1e9);
  j.num("d2h_gbps", bytes / d2h.median / 1e9);
  j.num("sum_of_phases_s", h2d.median + kern.median + d2h.median);
  j.end_object();
  j.begin_array("runs");
  for (int c = 0; c < 4; ++c) {
    j.begin_object();
    j.integer("streams", stream_counts[c]);
    j.stat("total_s", totals[c]);
    j.num("gain_vs_serial", 1.0 - totals[c].median / totals[0].median);
    j.end_object();
  }
  j.end_array();
  j.num("gain_2_streams", 1.0 - totals[1].median / totals[0].median);
  j.num("gain_4_streams", 1.0 - totals[2].median / totals[0].median);
  j.num("gain_8_streams", 1.0 - totals[3].median / totals[0].median);
  j.integer("checked_elements_per_run", static_cast<long long>(o.check_idx.size()));
  j.num("max_rel_err", o.max_rel_err);
  j.boolean("verified", o.verified);
  j.end_object();

  for (auto& e : o.done) CK(cudaEventDestroy(e));
  for (auto& s : o.streams) CK(cudaStreamDestroy(s));
  CK(cudaStreamDestroy(o.ctl));
  CK(cudaFree(o.da));
  CK(cudaFree(o.db));
  CK(cudaFree(o.dc));
  CK(cudaFreeHost(o.ha));
  CK(cudaFreeHost(o.hb));
  CK(cudaFreeHost(o.hc));
}

// ---------------------------------------------------------------- (d) concurrent kernels
struct Concurrency {
  static constexpr int kMaxStreams = 128;
  std::vector<cudaStream_t> streams;
  std::vector<cudaEvent_t> done;
  cudaStream_t ctl{};
  long long spin_cycles = 0, gate_cycles = 0;
  long long* sink = nullptr;
  double max_enqueue_s = 0.0;

  void init(long long clock_khz) {
    streams.resize(kMaxStreams);
    done.resize(kMaxStreams);
    for (auto& s : streams) CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    for (auto& e : done) CK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
    CK(cudaStreamCreateWithFlags(&ctl, cudaStreamNonBlocking));
    CK(cudaMalloc(&sink, sizeof(long long)));
    spin_cycles = clock_khz;       // 1 ms at the rated clock
    gate_cycles = 20 * clock_khz;  // 20 ms: holds the streams back while the host issues
  }
  void destroy() {
    for (auto& s : streams) CK(cudaStreamDestroy(s));
    for (auto& e : done) CK(cudaEventDestroy(e));
    CK(cudaStreamDestroy(ctl));
    CK(cudaFree(sink));
  }
  void spin(cudaStream_t s, long long cycles) {
    spin_kernel<<<1, 32, 0, s>>>(cycles, sink);
    CK_LAUNCH();
  }

  // `ns` streams each run `per_stream` spin kernels. A gate kernel on the control stream holds
  // every stream back (they wait for the start event recorded after it) until the host has issued
  // everything, so host launch cost stays out of the total. depth_first: stream 0's kernels, then
  // stream 1's...; otherwise kernel 0 on every stream, then kernel 1 on every stream...
  double run(int ns, int per_stream, bool depth_first) {
    CK(cudaDeviceSynchronize());
    EventPair ev;
    spin(ctl, gate_cycles);
    CK(cudaEventRecord(ev.a, ctl));
    auto t0 = Clock::now();
    for (int k = 0; k < ns; ++k) CK(cudaStreamWaitEvent(streams[k], ev.a, 0));
    if (depth_first) {
      for (int k = 0; k < ns; ++k)
        for (int p = 0; p < per_stream; ++p) spin(streams[k], spin_cycles);
    } else {
      for (int p = 0; p < per_stream; ++p)
        for (int k = 0; k < ns; ++k) spin(streams[k], spin_cycles);
    }
    for (int k = 0; k < ns; ++k) {
      CK(cudaEventRecord(done[k], streams[k]));
      CK(cudaStreamWaitEvent(ctl, done[k], 0));
    }
    max_enqueue_s = std::max(max_enqueue_s, seconds_since(t0));
    CK(cudaEventRecord(ev.b, ctl));
    return ev.elapsed();
  }

  Stat measure(int ns, int per_stream, bool depth_first) {
    std::vector<double> t;
    for (int r = 0; r < 1 + 5; ++r) {
      double d = run(ns, per_stream, depth_first);
      if (r >= 1) t.push_back(d);
    }
    return stat_of(t);
  }
};

void report_concurrency(Json& j, int dev) {
  Concurrency c;
  long long clock_khz = attr(cudaDevAttrClockRate, dev);
  c.init(clock_khz);
  const int ks[] = {1, 2, 4, 8, 16, 32, 64, 128};
  std::vector<Stat> totals;
  for (int k : ks) {
    std::fprintf(stderr, "concurrent kernels K=%d\n", k);
    totals.push_back(c.measure(k, 1, true));
  }
  double t_single = totals[0].median;

  j.begin_object("concurrent_kernels");
  j.integer("spin_cycles", c.spin_cycles);
  j.integer("gate_cycles", c.gate_cycles);
  j.str("kernel", "1 block x 32 threads spinning on clock64 for spin_cycles; each on its own "
                  "cudaStreamNonBlocking stream; all released together by a gate event");
  j.num("t_single_s", t_single);
  j.begin_array("one_kernel_per_stream");
  for (size_t i = 0; i < totals.size(); ++i) {
    j.begin_object();
    j.integer("k", ks[i]);
    j.stat("total_s", totals[i]);
    j.num("concurrency", ks[i] * t_single / totals[i].median);
    j.end_object();
  }
  j.end_array();

  j.begin_array("issue_order");
  for (int ns : {8, 32}) {
    std::fprintf(stderr, "issue order S=%d\n", ns);
    Stat depth = c.measure(ns, 2, true);
    Stat breadth = c.measure(ns, 2, false);
    j.begin_object();
    j.integer("streams", ns);
    j.integer("kernels_per_stream", 2);
    j.stat("depth_first_total_s", depth);
    j.stat("breadth_first_total_s", breadth);
    j.num("depth_first_in_kernel_times", depth.median / t_single);
    j.num("breadth_first_in_kernel_times", breadth.median / t_single);
    j.end_object();
  }
  j.end_array();
  j.num("max_host_enqueue_s", c.max_enqueue_s);
  j.num("gate_s_at_rated_clock", double(c.gate_cycles) / (clock_khz * 1e3));
  j.boolean("gate_covered_enqueue", c.max_enqueue_s < 0.5 * double(c.gate_cycles) / (clock_khz * 1e3));
  j.end_object();
  c.destroy();
}

// ---------------------------------------------------------------- (g) 2D copies and pitch
// Kepler tuning guide 1.4.4.5: cudaMemcpy2D is slow with a small device pitch together with a
// large host pitch (> 64 KB). cudaMemcpy2DAsync of `height` rows of `width` bytes (16 MiB in all
// unless a buffer would pass kPitchCap), pinned host memory, events around each copy.
constexpr size_t kPitchTotal = 16 * MiB;
constexpr size_t kPitchCap = 1024 * MiB;  // most bytes a case may span on the host or the device

// Times `issue()` (one copy on stream s) with events: 2 warm-ups, then 9 reps (5 if one copy
// takes more than 50 ms).
template <class F>
Stat time_events(cudaStream_t s, F&& issue) {
  EventPair ev;
  std::vector<double> t;
  double last_warm = 0.0;
  int reps = 9;
  for (int r = 0; r < 2 + reps; ++r) {
    CK(cudaStreamSynchronize(s));
    CK(cudaEventRecord(ev.a, s));
    issue();
    CK(cudaEventRecord(ev.b, s));
    double d = ev.elapsed();
    if (r < 2) {
      last_warm = d;
      if (r == 1 && last_warm > 0.05) reps = 5;
    } else {
      t.push_back(d);
    }
  }
  return stat_of(t);
}

struct Pitch2D {
  char* host = nullptr;  // pinned, kPitchCap bytes
  char* dev = nullptr;   // kPitchCap bytes
  cudaStream_t s{};

  Stat copy2d(bool h2d, size_t width, size_t height, size_t hpitch, size_t dpitch) {
    return time_events(s, [&] {
      if (h2d)
        CK(cudaMemcpy2DAsync(dev, dpitch, host, hpitch, width, height, cudaMemcpyHostToDevice, s));
      else
        CK(cudaMemcpy2DAsync(host, hpitch, dev, dpitch, width, height, cudaMemcpyDeviceToHost, s));
    });
  }
  Stat copy1d(bool h2d, size_t bytes) {
    return time_events(s, [&] {
      if (h2d) CK(cudaMemcpyAsync(dev, host, bytes, cudaMemcpyHostToDevice, s));
      else CK(cudaMemcpyAsync(host, dev, bytes, cudaMemcpyDeviceToHost, s));
    });
  }
};

void emit_ref(Json& j, const char* key, size_t bytes, const Stat& t) {
  j.begin_object(key);
  j.num("s_median", t.median);
  j.num("s_min", t.min);
  j.num("gbps", bytes / t.median / 1e9);
  j.integer("reps", t.n);
  j.end_object();
}

void report_pitch2d(Json& j) {
  Pitch2D p;
  CK(cudaStreamCreateWithFlags(&p.s, cudaStreamNonBlocking));
  CK(cudaMallocHost(&p.host, kPitchCap));
  std::memset(p.host, 1, kPitchCap);
  CK(cudaMalloc(&p.dev, kPitchCap));
  CK(cudaMemset(p.dev, 0, kPitchCap));
  CK(cudaDeviceSynchronize());

  // Same-rows references, per (direction, width, height): a contiguous 1D copy of width*height
  // bytes and the tight 2D copy (both pitches = width).
  struct Ref {
    Stat one_d, tight_2d;
  };
  std::map<std::tuple<bool, size_t, size_t>, Ref> refs;
  auto ref_for = [&](bool h2d, size_t width, size_t height) -> const Ref& {
    auto key = std::make_tuple(h2d, width, height);
    auto it = refs.find(key);
    if (it == refs.end()) {
      Ref r;
      r.one_d = p.copy1d(h2d, width * height);
      r.tight_2d = p.copy2d(h2d, width, height, width, width);
      it = refs.emplace(key, r).first;
    }
    return it->second;
  };

  j.begin_object("pitch2d");
  j.str("scenario", "cudaMemcpy2DAsync of height rows x width bytes, pinned host memory, events "
                    "around each copy; 2 warm-ups, median/min of 9 reps (5 if a copy > 50 ms)");
  j.integer("total_bytes_nominal", static_cast<long long>(kPitchTotal));
  j.integer("alloc_cap_bytes", static_cast<long long>(kPitchCap));
  j.str("height_rule", "height = min(total/width, cap/host_pitch, cap/device_pitch)");
  j.str("references", "ref_1d: one cudaMemcpyAsync of bytes; ref_tight_2d: same width/height with "
                      "both pitches = width; half_height: the same case with height/2 rows");
  j.begin_array("cases");
  const size_t widths[] = {256, 1024, 4096, 65536};
  for (size_t width : widths) {
    std::vector<size_t> dpitches = {width};
    if (std::max(width, size_t{131072}) != width) dpitches.push_back(131072);
    std::vector<size_t> hpitches;
    for (size_t hp : {width, size_t{65536}, size_t{131072}, size_t{262144}})
      if (hp >= width && std::find(hpitches.begin(), hpitches.end(), hp) == hpitches.end())
        hpitches.push_back(hp);
    for (size_t dp : dpitches) {
      for (size_t hp : hpitches) {
        size_t height = std::min({kPitchTotal / width, kPitchCap / hp, kPitchCap / dp});
        size_t bytes = width * height;
        size_t half = height / 2;
        for (int dir = 0; dir < 2; ++dir) {
          bool h2d = dir == 0;
          std::fprintf(stderr, "pitch2d %s width %zu host_pitch %zu device_pitch %zu height %zu\n",
                       h2d ? "h2d" : "d2h", width, hp, dp, height);
          Stat t = p.copy2d(h2d, width, height, hp, dp);
          Stat th = p.copy2d(h2d, width, half, hp, dp);
          const Ref& ref = ref_for(h2d, width, height);
          j.begin_object();
          j.str("direction", h2d ? "h2d" : "d2h");
          j.integer("width", static_cast<long long>(width));
          j.integer("height", static_cast<long long>(height));
          j.integer("host_pitch", static_cast<long long>(hp));
          j.integer("device_pitch", static_cast<long long>(dp));
          j.integer("bytes", static_cast<long long>(bytes));
          j.boolean("height_capped", height < kPitchTotal / width);
          j.boolean("tight", hp == width && dp == width);
          j.num("s_median", t.median);
          j.num("s_min", t.min);
          j.num("gbps", bytes / t.median / 1e9);
          j.num("gbps_best", bytes / t.min / 1e9);
          j.integer("reps", t.n);
          emit_ref(j, "ref_1d", bytes, ref.one_d);
          emit_ref(j, "ref_tight_2d", bytes, ref.tight_2d);
          j.begin_object("half_height");
          j.integer("height", static_cast<long long>(half));
          j.integer("bytes", static_cast<long long>(width * half));
          j.num("s_median", th.median);
          j.num("s_min", th.min);
          j.integer("reps", th.n);
          j.end_object();
          // (t(h) - t(h/2)) / (h - h/2): the cost of one more row (its bytes included).
          j.num("slope_s_per_row", (t.median - th.median) / double(height - half));
          // (t - t_1d) / rows: what the 2D layout adds per row over one contiguous copy.
          j.num("extra_s_per_row_vs_1d", (t.median - ref.one_d.median) / double(height));
          j.end_object();
        }
      }
    }
  }
  j.end_array();
  j.end_object();

  CK(cudaFree(p.dev));
  CK(cudaFreeHost(p.host));
  CK(cudaStreamDestroy(p.s));
}

// Host pitches only a little wider than the row: where does the strided-row slowdown start? Same
// copies as report_pitch2d (pinned host, device pitch = width, 16 MiB unless the host span would
// pass kPitchCap). "cases": host pitch = width + {0, 4, 64, 256, 512, 4096, 16384}, 2 x width,
// 4 x width, 64 KiB and 256 KiB (those >= width, ascending). "ratio_sweep": host pitch = k x width
// for k = 5..16 (full 16 MiB, so the host span rows x pitch grows with k). "rows_sweep": a fixed
// wide pitch with fewer rows, so that the span runs from 8 MiB to 1 GiB at the same pitch.
std::vector<size_t> near_host_pitches(size_t width) {
  std::vector<size_t> hp = {width,         width + 4,     width + 64,     width + 256,
                            width + 512,   2 * width,     4 * width,      width + 4096,
                            width + 16384, size_t{65536}, size_t{262144}};
  hp.erase(std::remove_if(hp.begin(), hp.end(), [&](size_t v) { return v < width; }), hp.end());
  std::sort(hp.begin(), hp.end());
  hp.erase(std::unique(hp.begin(), hp.end()), hp.end());
  return hp;
}

void report_pitch2d_near(Json& j) {
  Pitch2D p;
  CK(cudaStreamCreateWithFlags(&p.s, cudaStreamNonBlocking));
  CK(cudaMallocHost(&p.host, kPitchCap));
  std::memset(p.host, 1, kPitchCap);
  CK(cudaMalloc(&p.dev, kPitchCap));
  CK(cudaMemset(p.dev, 0, kPitchCap));
  CK(cudaDeviceSynchronize());

  std::map<std::pair<bool, size_t>, Stat> one_d;  // (direction, bytes) -> contiguous copy
  auto ref_1d = [&](bool h2d, size_t bytes) -> const Stat& {
    auto key = std::make_pair(h2d, bytes);
    auto it = one_d.find(key);
    if (it == one_d.end()) it = one_d.emplace(key, p.copy1d(h2d, bytes)).first;
    return it->second;
  };
  // Times one case (device pitch = width) and emits it as an array element.
  auto run_case = [&](const char* part, bool h2d, size_t width, size_t height, size_t hp) {
    size_t bytes = width * height;
    std::fprintf(stderr, "pitch2d_near %s %s width %zu host_pitch %zu height %zu\n", part,
                 h2d ? "h2d" : "d2h", width, hp, height);
    Stat t = p.copy2d(h2d, width, height, hp, width);
    const Stat& r = ref_1d(h2d, bytes);
    j.begin_object();
    j.str("direction", h2d ? "h2d" : "d2h");
    j.integer("width", static_cast<long long>(width));
    j.integer("height", static_cast<long long>(height));
    j.integer("host_pitch", static_cast<long long>(hp));
    j.integer("host_gap", static_cast<long long>(hp - width));
    j.integer("device_pitch", static_cast<long long>(width));
    j.integer("bytes", static_cast<long long>(bytes));
    j.integer("host_span_bytes", static_cast<long long>(hp * height));
    j.boolean("height_capped", height < kPitchTotal / width);
    j.num("s_median", t.median);
    j.num("s_min", t.min);
    j.num("gbps", bytes / t.median / 1e9);
    j.num("gbps_best", bytes / t.min / 1e9);
    j.integer("reps", t.n);
    emit_ref(j, "ref_1d", bytes, r);
    j.num("extra_s_per_row_vs_1d", (t.median - r.median) / double(height));
    j.end_object();
  };

  j.begin_object("pitch2d_near");
  j.str("scenario", "cudaMemcpy2DAsync of height rows x width bytes, pinned host memory, device "
                    "pitch = width, host pitch from width up; events around each copy; 2 warm-ups, "
                    "median/min of 9 reps (5 if a copy > 50 ms)");
  j.integer("total_bytes_nominal", static_cast<long long>(kPitchTotal));
  j.integer("alloc_cap_bytes", static_cast<long long>(kPitchCap));
  j.str("height_rule", "cases, ratio_sweep: height = min(total/width, cap/host_pitch); rows_sweep: "
                       "height = host_span/host_pitch");
  j.str("host_pitch_rule", "cases: width + {0, 4, 64, 256, 512, 4096, 16384}, 2*width, 4*width, "
                           "65536, 262144; those >= width, ascending, duplicates dropped; "
                           "ratio_sweep: k*width, k = 5, 6, 7, 8, 10, 12, 14, 16");
  j.str("references", "ref_1d: one cudaMemcpyAsync of the same bytes; the host_gap = 0 case is the "
                      "tight 2D copy; extra_s_per_row_vs_1d = (s_median - ref_1d) / height");
  const size_t widths[] = {256, 1024, 4096, 65536};
  j.begin_array("cases");
  for (size_t width : widths)
    for (int dir = 0; dir < 2; ++dir)
      for (size_t hp : near_host_pitches(width))
        run_case("cases", dir == 0, width, std::min(kPitchTotal / width, kPitchCap / hp), hp);
  j.end_array();

  j.begin_array("ratio_sweep");
  for (size_t width : {size_t{256}, size_t{1024}, size_t{4096}})
    for (int dir = 0; dir < 2; ++dir)
      for (size_t k : {5, 6, 7, 8, 10, 12, 14, 16})
        run_case("ratio", dir == 0, width, std::min(kPitchTotal / width, kPitchCap / (k * width)),
                 k * width);
  j.end_array();

  j.begin_array("rows_sweep");
  const std::pair<size_t, size_t> fixed[] = {{256, 16640}, {1024, 65536}, {4096, 262144}};
  const size_t spans_mib[] = {8, 16, 32, 64, 96, 128, 192, 256, 384, 512, 768, 1024};
  for (auto [width, hp] : fixed)
    for (int dir = 0; dir < 2; ++dir)
      for (size_t span : spans_mib) {
        size_t height = std::min({span * MiB / hp, kPitchTotal / width, kPitchCap / hp});
        run_case("rows", dir == 0, width, height, hp);
      }
  j.end_array();
  j.end_object();

  CK(cudaFree(p.dev));
  CK(cudaFreeHost(p.host));
  CK(cudaStreamDestroy(p.s));
}

// ---------------------------------------------------------------- (h) two GPUs
// Pinned (portable) host buffers of kMultiBytes each; one non-blocking stream per device. A case
// issues copies on one or both devices back to back, then waits for all of them: host time
// (steady_clock from the first issue until every stop event completed) and each copy's own events.
constexpr size_t kMultiBytes = 256 * MiB;
constexpr int kMultiWarm = 2, kMultiReps = 9;

struct MultiCopy {
  int dev;        // device whose stream issues the copy
  int kind;       // 0 H2D, 1 D2H, 2 peer (src_dev -> dev_dst)
  int peer_dst;   // for kind 2: destination device
  const char* what;
};

struct MultiGpu {
  int n = 0;
  cudaStream_t s[2]{};
  cudaStream_t s2[2]{};  // a second stream per device, for H2D + D2H on one device
  char* host_src[2]{};   // H2D sources
  char* host_dst[2]{};   // D2H destinations
  char* dev_a[2]{};      // H2D destination, D2H source, peer source
  char* dev_b[2]{};      // peer destination

  struct Result {
    Stat host;
    std::vector<Stat> ev;
  };

  // Issues copies `cs` (at most one per (device, stream slot)), times them.
  Result run(const std::vector<MultiCopy>& cs) {
    std::vector<std::unique_ptr<EventPair>> evs;
    std::vector<cudaStream_t> streams;
    int used[2] = {0, 0};
    for (const MultiCopy& c : cs) {
      CK(cudaSetDevice(c.dev));
      evs.push_back(std::make_unique<EventPair>());
      streams.push_back(used[c.dev]++ == 0 ? s[c.dev] : s2[c.dev]);
    }
    std::vector<std::vector<double>> dev_t(cs.size());
    std::vector<double> host_t;
    for (int r = 0; r < kMultiWarm + kMultiReps; ++r) {
      for (int d = 0; d < n; ++d) {
        CK(cudaSetDevice(d));
        CK(cudaDeviceSynchronize());
      }
      auto t0 = Clock::now();
      for (size_t i = 0; i < cs.size(); ++i) {
        const MultiCopy& c = cs[i];
        cudaStream_t st = streams[i];
        CK(cudaSetDevice(c.dev));
        CK(cudaEventRecord(evs[i]->a, st));
        if (c.kind == 0)
          CK(cudaMemcpyAsync(dev_a[c.dev], host_src[c.dev], kMultiBytes, cudaMemcpyHostToDevice,
                             st));
        else if (c.kind == 1)
          CK(cudaMemcpyAsync(host_dst[c.dev], dev_a[c.dev], kMultiBytes, cudaMemcpyDeviceToHost,
                             st));
        else
          CK(cudaMemcpyPeerAsync(dev_b[c.peer_dst], c.peer_dst, dev_a[c.dev], c.dev, kMultiBytes,
                                 st));
        CK(cudaEventRecord(evs[i]->b, st));
      }
      for (size_t i = 0; i < cs.size(); ++i) CK(cudaEventSynchronize(evs[i]->b));
      double h = seconds_since(t0);
      for (size_t i = 0; i < cs.size(); ++i) {
        CK(cudaSetDevice(cs[i].dev));
        double d = evs[i]->elapsed();
        if (r >= kMultiWarm) dev_t[i].push_back(d);
      }
      if (r >= kMultiWarm) host_t.push_back(h);
    }
    Result res;
    res.host = stat_of(host_t);
    for (size_t i = 0; i < cs.size(); ++i) {
      res.ev.push_back(stat_of(dev_t[i]));
      CK(cudaSetDevice(cs[i].dev));
      evs[i].reset();  // destroy the events with their own device current
    }
    return res;
  }
};

void emit_multi(Json& j, const char* name, const std::vector<MultiCopy>& cs,
                const MultiGpu::Result& r) {
  j.begin_object(name);
  j.integer("copies", static_cast<long long>(cs.size()));
  j.integer("bytes_per_copy", static_cast<long long>(kMultiBytes));
  j.stat("host_s", r.host);
  j.num("aggregate_gbps", double(cs.size()) * kMultiBytes / r.host.median / 1e9);
  j.num("aggregate_gbps_best", double(cs.size()) * kMultiBytes / r.host.min / 1e9);
  j.begin_array("per_copy");
  for (size_t i = 0; i < cs.size(); ++i) {
    j.begin_object();
    j.str("copy", cs[i].what);
    j.integer("stream_device", cs[i].dev);
    j.stat("events_s", r.ev[i]);
    j.num("gbps", kMultiBytes / r.ev[i].median / 1e9);
    j.end_object();
  }
  j.end_array();
  j.end_object();
}

void report_multigpu(Json& j) {
  int count = 0;
  CK(cudaGetDeviceCount(&count));
  j.begin_object("multigpu");
  j.integer("device_count", count);
  if (count < 2) {
    j.str("note", "fewer than two CUDA devices visible: nothing measured");
    j.end_object();
    return;
  }
  if (count > 2) j.str("note", "more than two devices: devices 0 and 1 measured");
  j.begin_array("devices");
  for (int d = 0; d < 2; ++d) report_device(j, d, nullptr);
  j.end_array();

  MultiGpu m;
  m.n = 2;
  for (int d = 0; d < 2; ++d) {
    CK(cudaSetDevice(d));
    CK(cudaFree(nullptr));
    CK(cudaStreamCreateWithFlags(&m.s[d], cudaStreamNonBlocking));
    CK(cudaStreamCreateWithFlags(&m.s2[d], cudaStreamNonBlocking));
    CK(cudaHostAlloc(&m.host_src[d], kMultiBytes, cudaHostAllocPortable));
    CK(cudaHostAlloc(&m.host_dst[d], kMultiBytes, cudaHostAllocPortable));
    std::memset(m.host_src[d], 1 + d, kMultiBytes);
    std::memset(m.host_dst[d], 0, kMultiBytes);
    CK(cudaMalloc(&m.dev_a[d], kMultiBytes));
    CK(cudaMalloc(&m.dev_b[d], kMultiBytes));
    CK(cudaMemset(m.dev_a[d], 3 + d, kMultiBytes));
    CK(cudaMemset(m.dev_b[d], 0, kMultiBytes));
    CK(cudaDeviceSynchronize());
  }

  j.str("scenario", "256 MiB copies between pinned portable host buffers (cudaHostAllocPortable, one "
                    "per device and direction) and each GPU, one non-blocking stream per device "
                    "(a second one where one device does H2D and D2H at once); all copies of a case "
                    "issued back to back, then waited for; host_s: steady_clock from the first issue "
                    "until every stop event completed; events_s per copy; 2 warm-ups, median/min of "
                    "9 reps; aggregate_gbps = copies x bytes / host_s median");
  const MultiCopy h2d0{0, 0, -1, "h2d gpu0"}, h2d1{1, 0, -1, "h2d gpu1"};
  const MultiCopy d2h0{0, 1, -1, "d2h gpu0"}, d2h1{1, 1, -1, "d2h gpu1"};
  struct Case {
    const char* name;
    std::vector<MultiCopy> cs;
  };
  const Case host_cases[] = {
      {"h2d_gpu0_alone", {h2d0}},
      {"h2d_gpu1_alone", {h2d1}},
      {"h2d_both", {h2d0, h2d1}},
      {"d2h_gpu0_alone", {d2h0}},
      {"d2h_gpu1_alone", {d2h1}},
      {"d2h_both", {d2h0, d2h1}},
      {"h2d_gpu0_with_d2h_gpu1", {h2d0, d2h1}},
      {"d2h_gpu0_with_h2d_gpu1", {d2h0, h2d1}},
      {"h2d_and_d2h_gpu0", {h2d0, d2h0}},
      {"h2d_and_d2h_gpu1", {h2d1, d2h1}},
      {"h2d_and_d2h_both", {h2d0, d2h0, h2d1, d2h1}},
  };
  j.begin_object("host_copies");
  for (const Case& c : host_cases) {
    std::fprintf(stderr, "multigpu %s\n", c.name);
    emit_multi(j, c.name, c.cs, m.run(c.cs));
  }
  j.end_object();

  // Peer copies: first with peer access not enabled, then enabled both ways.
  int can01 = 0, can10 = 0;
  CK(cudaDeviceCanAccessPeer(&can01, 0, 1));
  CK(cudaDeviceCanAccessPeer(&can10, 1, 0));
  const MultiCopy p01{0, 2, 1, "peer gpu0 -> gpu1 (stream on gpu0)"};
  const MultiCopy p10{1, 2, 0, "peer gpu1 -> gpu0 (stream on gpu1)"};
  const Case peer_cases[] = {
      {"gpu0_to_gpu1", {p01}},
      {"gpu1_to_gpu0", {p10}},
      {"both_directions", {p01, p10}},
  };
  j.begin_object("peer");
  j.integer("can_access_peer_0_to_1", can01);
  j.integer("can_access_peer_1_to_0", can10);
  j.str("api", "cudaMemcpyPeerAsync of 256 MiB, device buffer to device buffer, stream on the "
               "source device; gbps counts bytes copied once");
  for (int enabled = 0; enabled < 2; ++enabled) {
    if (enabled) {
      bool ok = true;
      for (int d = 0; d < 2; ++d) {
        CK(cudaSetDevice(d));
        cudaError_t e = cudaDeviceEnablePeerAccess(1 - d, 0);
        std::string key = "enable_peer_access_" + std::to_string(d) + "_to_" + std::to_string(1 - d);
        j.str(key.c_str(), cudaGetErrorName(e));
        if (e != cudaSuccess) {
          ok = false;
          cudaGetLastError();  // clear the (non-sticky) error so later checks do not see it
        }
      }
      if (!ok) {
        j.str("peer_access_enabled_note", "enabling failed: the with-peer-access runs are skipped");
        break;
      }
    }
    j.begin_object(enabled ? "peer_access_enabled" : "peer_access_not_enabled");
    for (const Case& c : peer_cases) {
      std::fprintf(stderr, "multigpu peer %s %s\n", enabled ? "enabled" : "not_enabled", c.name);
      emit_multi(j, c.name, c.cs, m.run(c.cs));
    }
    j.end_object();
  }
  j.end_object();
  j.end_object();

  for (int d = 0; d < 2; ++d) {
    CK(cudaSetDevice(d));
    CK(cudaDeviceSynchronize());
    CK(cudaStreamDestroy(m.s[d]));
    CK(cudaStreamDestroy(m.s2[d]));
    CK(cudaFreeHost(m.host_src[d]));
    CK(cudaFreeHost(m.host_dst[d]));
    CK(cudaFree(m.dev_a[d]));
    CK(cudaFree(m.dev_b[d]));
  }
  CK(cudaSetDevice(0));
}

}  // namespace

int main(int argc, char** argv) {
  auto t_start = Clock::now();
  std::string mode;  // empty: everything but the named-only modes
  if (argc > 1) {
    std::string a = argv[1];
    if (argc == 2 && (a == "pitch2d" || a == "pitch2d_near" || a == "multigpu")) {
      mode = argv[1];
    } else {
      std::fprintf(stderr, "usage: %s [pitch2d|pitch2d_near|multigpu]\n", argv[0]);
      return 2;
    }
  }
  int dev = 0;
  CK(cudaSetDevice(dev));
  CK(cudaFree(nullptr));  // create the context before anything is timed

  Json j;
  j.begin_object();
  j.str("program", "validation/system/system_bench.cu");
  const char* conn = std::getenv("CUDA_DEVICE_MAX_CONNECTIONS");
  if (conn) j.str("cuda_device_max_connections", conn);
  else j.null("cuda_device_max_connections");

  report_device(j, dev);

  if (!mode.empty()) {
    j.str("mode", mode);
    std::fprintf(stderr, "%s\n", mode.c_str());
    if (mode == "pitch2d") report_pitch2d(j);
    else if (mode == "pitch2d_near") report_pitch2d_near(j);
    else report_multigpu(j);
    CK(cudaDeviceSynchronize());
    j.num("wall_s", seconds_since(t_start));
    j.end_object();
    std::printf("%s\n", j.text().c_str());
    return 0;
  }

  cudaStream_t s;
  CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  std::fprintf(stderr, "launch overhead\n");
  report_launch(j, s);

  HostBuffers hb;
  hb.bytes = 256 * MiB;
  CK(cudaMallocHost(&hb.pinned, hb.bytes));
  hb.pageable = static_cast<char*>(std::malloc(hb.bytes));
  if (!hb.pageable) {
    std::fprintf(stderr, "malloc of %zu bytes failed\n", hb.bytes);
    return 2;
  }
  std::memset(hb.pinned, 1, hb.bytes);    // touch every page before timing
  std::memset(hb.pageable, 1, hb.bytes);
  CK(cudaMalloc(&hb.dev0, hb.bytes));
  CK(cudaMalloc(&hb.dev1, hb.bytes));
  CK(cudaMemset(hb.dev0, 0, hb.bytes));
  CK(cudaMemset(hb.dev1, 0, hb.bytes));

  report_bandwidth(j, hb, s);
  std::fprintf(stderr, "batching\n");
  report_batching(j, hb, s);

  CK(cudaFree(hb.dev0));
  CK(cudaFree(hb.dev1));
  CK(cudaFreeHost(hb.pinned));
  std::free(hb.pageable);

  std::fprintf(stderr, "overlap\n");
  report_overlap(j);
  report_concurrency(j, dev);

  CK(cudaStreamDestroy(s));
  std::fprintf(stderr, "pitch2d\n");
  report_pitch2d(j);
  CK(cudaDeviceSynchronize());
  j.num("wall_s", seconds_since(t_start));
  j.end_object();
  std::printf("%s\n", j.text().c_str());
  return 0;
}
