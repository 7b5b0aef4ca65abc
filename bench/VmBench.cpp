// VM throughput in thread-instructions per second on four kernel shapes: ALU-bound (a dependent
// integer loop, an fma.rn.f32 loop), memory-bound (a strided copy), and branchy (data-dependent divergence), each
// with one worker and with every core, plain, with the performance model attached (BM_Model*) and with
// racecheck and initcheck listening (BM_Sanitized*; docs/sanitizers.md records the ratios).
// Counters report thread-instructions/s ("items").
#include "RealKernels.h"
#include "arch/GpuDatabase.h"
#include "model/PerformanceModel.h"
#include "sanitizers/Initcheck.h"
#include "sanitizers/Racecheck.h"
#include "vm/Device.h"
#include "vm/ListenerGroup.h"

#include <benchmark/benchmark.h>

#include <cstring>
#include <string>
#include <vector>

namespace {

using namespace ptxray;

const arch::ComputeCapability &sm90() {
  return *arch::findArch("sm_90").target->computeCapability;
}

std::vector<std::byte> arg(uint64_t v, size_t bytes = 8) {
  std::vector<std::byte> b(bytes);
  std::memcpy(b.data(), &v, bytes);
  return b;
}

// Each thread: 256 iterations of 6 dependent integer operations plus the loop's compare and branch.
const char *kAlu = R"(
.version 8.0
.target sm_80
.address_size 64
.visible .entry alu(.param .u64 out)
{
  .reg .b32 %r<12>;
  .reg .b64 %rd<4>;
  .reg .pred %p<2>;
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %ctaid.x;
  mov.u32 %r3, %ntid.x;
  mad.lo.s32 %r4, %r2, %r3, %r1;
  mov.u32 %r5, 0;
  mov.u32 %r6, %r4;
LOOP:
  mad.lo.s32 %r6, %r6, 1664525, 1013904223;
  add.s32 %r7, %r6, %r5;
  mul.lo.s32 %r8, %r7, 3;
  sub.s32 %r9, %r8, %r6;
  max.s32 %r10, %r9, %r7;
  add.s32 %r6, %r10, %r4;
  add.s32 %r5, %r5, 1;
  setp.lt.u32 %p1, %r5, 256;
  @%p1 bra LOOP;
  ld.param.u64 %rd1, [out];
  mul.wide.u32 %rd2, %r4, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r6;
  ret;
}
)";

// Each thread: 256 iterations of 4 dependent fma.rn.f32 chains plus the loop's add, compare, branch.
const char *kFma = R"(
.version 8.0
.target sm_80
.address_size 64
.visible .entry fma(.param .u64 out)
{
  .reg .b32 %r<8>;
  .reg .f32 %f<8>;
  .reg .b64 %rd<4>;
  .reg .pred %p<2>;
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %ctaid.x;
  mov.u32 %r3, %ntid.x;
  mad.lo.s32 %r4, %r2, %r3, %r1;
  cvt.rn.f32.u32 %f1, %r4;
  mov.f32 %f2, 0f3F800000;
  mov.f32 %f3, 0f40000000;
  mov.f32 %f4, 0f40400000;
  mov.u32 %r5, 0;
LOOP:
  fma.rn.f32 %f2, %f2, 0f3F7FFFF0, %f1;
  fma.rn.f32 %f3, %f3, 0f3F7FFFF0, %f2;
  fma.rn.f32 %f4, %f4, 0f3F7FFFF0, %f3;
  fma.rn.f32 %f1, %f1, 0f3F7FFFF0, %f4;
  add.s32 %r5, %r5, 1;
  setp.lt.u32 %p1, %r5, 256;
  @%p1 bra LOOP;
  ld.param.u64 %rd1, [out];
  mul.wide.u32 %rd2, %r4, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.f32 [%rd3], %f1;
  ret;
}
)";

// Each thread copies 32 words with a grid-wide stride (coalesced, like the guide's offsetCopy).
const char *kMemory = R"(
.version 8.0
.target sm_80
.address_size 64
.visible .entry copy(.param .u64 dst, .param .u64 src, .param .u32 n)
{
  .reg .b32 %r<10>;
  .reg .b64 %rd<10>;
  .reg .pred %p<2>;
  ld.param.u64 %rd1, [dst];
  ld.param.u64 %rd2, [src];
  ld.param.u32 %r9, [n];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %ctaid.x;
  mov.u32 %r3, %ntid.x;
  mad.lo.s32 %r4, %r2, %r3, %r1;
  mov.u32 %r5, %nctaid.x;
  mul.lo.s32 %r6, %r5, %r3;
LOOP:
  mul.wide.u32 %rd3, %r4, 4;
  add.s64 %rd4, %rd2, %rd3;
  ld.global.u32 %r7, [%rd4];
  add.s64 %rd5, %rd1, %rd3;
  st.global.u32 [%rd5], %r7;
  add.s32 %r4, %r4, %r6;
  setp.lt.u32 %p1, %r4, %r9;
  @%p1 bra LOOP;
  ret;
}
)";

// Lanes loop a data-dependent number of times (tid % 32 + 8) with an if/else inside: the warp
// splits and reconverges every iteration.
const char *kBranchy = R"(
.version 8.0
.target sm_80
.address_size 64
.visible .entry branchy(.param .u64 out)
{
  .reg .b32 %r<12>;
  .reg .b64 %rd<4>;
  .reg .pred %p<3>;
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %ctaid.x;
  mov.u32 %r3, %ntid.x;
  mad.lo.s32 %r4, %r2, %r3, %r1;
  rem.u32 %r5, %r1, 32;
  add.s32 %r5, %r5, 8;
  mov.u32 %r6, 0;
  mov.u32 %r7, 0;
LOOP:
  rem.u32 %r8, %r6, 3;
  setp.eq.u32 %p1, %r8, 0;
  @%p1 bra THEN;
  add.s32 %r7, %r7, %r6;
  bra.uni NEXT;
THEN:
  sub.s32 %r7, %r7, 1;
NEXT:
  add.s32 %r6, %r6, 1;
  setp.lt.u32 %p2, %r6, %r5;
  @%p2 bra LOOP;
  ld.param.u64 %rd1, [out];
  mul.wide.u32 %rd2, %r4, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r7;
  ret;
}
)";

void workerArgs(benchmark::internal::Benchmark *b) {
  for (int64_t w : bench::workerCounts())
    b->Arg(w);
}

/// What listens to the launches besides the VM.
enum class Listeners { None, Model, RacecheckInitcheck };

void runKernel(benchmark::State &state, const char *ptx, const char *kernel, bool memory,
               Listeners listening = Listeners::None) {
  vm::Device device(sm90(), 132);
  sanitizers::Racecheck racecheck({90, false});
  sanitizers::Initcheck initcheck;
  vm::ListenerGroup sanitizerTools;
  if (listening == Listeners::RacecheckInitcheck) {
    sanitizerTools.add(&racecheck);
    sanitizerTools.add(&initcheck);
    device.setListener(&sanitizerTools); // before the allocations, as `ptxray run` does
  }
  auto &module = device.loadModule("bench.ptx", ptx);
  const uint32_t blocks = 64, threads = 256;
  const uint64_t n = uint64_t{blocks} * threads * (memory ? 32 : 1);
  uint64_t out = device.allocate(n * 4);
  uint64_t in = device.allocate(n * 4);
  // The copy's source is written from the host, so that initcheck finds nothing to report.
  device.copyToDevice(in, std::vector<std::byte>(n * 4));
  std::vector<std::vector<std::byte>> args;
  args.push_back(arg(out));
  if (memory) {
    args.push_back(arg(in));
    args.push_back(arg(n, 4));
  }
  vm::LaunchOptions options;
  options.threads = static_cast<unsigned>(state.range(0));
  model::PerformanceModel perf(*arch::findArch("sm_90").target);
  device.setListener(listening == Listeners::Model                ? static_cast<vm::Listener *>(&perf)
                     : listening == Listeners::RacecheckInitcheck ? &sanitizerTools
                                                                  : nullptr);
  uint64_t instructions = 0;
  for (auto _ : state) {
    vm::LaunchResult r = device.launch(module, kernel, {{blocks, 1, 1}, {threads, 1, 1}, 0}, args, options);
    if (!r.ok()) {
      state.SkipWithError(r.error.c_str());
      return;
    }
    instructions += r.threadInstructions;
  }
  state.SetItemsProcessed(static_cast<int64_t>(instructions));
  state.counters["thread_instr_per_s"] =
      benchmark::Counter(static_cast<double>(instructions), benchmark::Counter::kIsRate);
}

void BM_VmAlu(benchmark::State &state) {
  runKernel(state, kAlu, "alu", false);
}
void BM_VmFma(benchmark::State &state) {
  runKernel(state, kFma, "fma", false);
}
void BM_VmMemory(benchmark::State &state) {
  runKernel(state, kMemory, "copy", true);
}
void BM_VmBranchy(benchmark::State &state) {
  runKernel(state, kBranchy, "branchy", false);
}

void BM_ModelAlu(benchmark::State &state) {
  runKernel(state, kAlu, "alu", false, Listeners::Model);
}
void BM_ModelFma(benchmark::State &state) {
  runKernel(state, kFma, "fma", false, Listeners::Model);
}
void BM_ModelMemory(benchmark::State &state) {
  runKernel(state, kMemory, "copy", true, Listeners::Model);
}
void BM_ModelBranchy(benchmark::State &state) {
  runKernel(state, kBranchy, "branchy", false, Listeners::Model);
}

void BM_SanitizedAlu(benchmark::State &state) {
  runKernel(state, kAlu, "alu", false, Listeners::RacecheckInitcheck);
}
void BM_SanitizedFma(benchmark::State &state) {
  runKernel(state, kFma, "fma", false, Listeners::RacecheckInitcheck);
}
void BM_SanitizedMemory(benchmark::State &state) {
  runKernel(state, kMemory, "copy", true, Listeners::RacecheckInitcheck);
}
void BM_SanitizedBranchy(benchmark::State &state) {
  runKernel(state, kBranchy, "branchy", false, Listeners::RacecheckInitcheck);
}

BENCHMARK(BM_VmAlu)->Apply(workerArgs)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_VmFma)->Apply(workerArgs)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_VmMemory)->Apply(workerArgs)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_VmBranchy)->Apply(workerArgs)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ModelAlu)->Apply(workerArgs)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ModelFma)->Apply(workerArgs)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ModelMemory)->Apply(workerArgs)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ModelBranchy)->Apply(workerArgs)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_SanitizedAlu)->Apply(workerArgs)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_SanitizedFma)->Apply(workerArgs)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_SanitizedMemory)->Apply(workerArgs)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_SanitizedBranchy)->Apply(workerArgs)->UseRealTime()->Unit(benchmark::kMillisecond);

} // namespace
