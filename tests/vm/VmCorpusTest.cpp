// Every module of the front-end corpus (nvcc 13 for compute_75/90/100 with and without -G, clang's
// sm_30/sm_35 PTX 3.2-6.0, the hand-written ISA fixtures) loads into the VM: variables are placed,
// every function is decoded, and instructions the VM cannot run are reported by name only if reached.
#include "support/TestFiles.h"
#include "support/VmHarness.h"

#include <cstring>
#include <gtest/gtest.h>

namespace ptxray::test {
namespace {

class VmCorpus : public ::testing::TestWithParam<std::filesystem::path> {};

TEST_P(VmCorpus, LoadsAndDecodes) {
  VmHarness h;
  const std::filesystem::path &path = GetParam();
  vm::LoadedModule *m = nullptr;
  ASSERT_NO_THROW(m = &h.load(readFile(path), path.filename().string()));
  size_t ops = 0;
  for (const vm::DecodedFunction &f : m->program().functions) {
    if (!f.source->hasBody)
      continue;
    EXPECT_TRUE(f.decoded) << f.name;
    // Every PTX instruction has at least one micro-op with a handler.
    EXPECT_GE(f.code.size(), f.source->instructions.size()) << f.name;
    for (const vm::MicroOp &op : f.code)
      ASSERT_NE(op.exec, nullptr) << f.name;
    ops += f.code.size();
  }
  RecordProperty("micro_ops", static_cast<int>(ops));
}

// Every kernel runs with a small launch, zero scalars and pointers into a small valid buffer: it
// finishes or stops with a reported fault (bad address, budget, unsupported instruction), never
// crashes (what fuzz/VmFuzzer.cpp checks on mutated inputs).
TEST_P(VmCorpus, EveryKernelRunsOrFaultsCleanly) {
  VmHarness h;
  h.device.setHeapBytes(64 * 1024);
  const std::filesystem::path &path = GetParam();
  vm::LoadedModule &m = h.load(readFile(path), path.filename().string());
  uint64_t buffer = h.device.allocate(4096);
  vm::LaunchOptions options;
  options.threads = 1;
  options.maxInstructions = 200'000;
  options.stackBytesPerThread = 16 * 1024;
  for (const vm::DecodedFunction &f : m.program().functions) {
    if (!f.isEntry)
      continue;
    std::vector<std::vector<std::byte>> args;
    for (uint64_t bytes : f.paramSizes) {
      std::vector<std::byte> a(bytes);
      if (bytes == 8 || bytes == 4) {
        uint64_t p = buffer + 256;
        std::memcpy(a.data(), &p, bytes);
      }
      args.push_back(std::move(a));
    }
    vm::LaunchResult r = h.device.launch(m, f.name, {{2, 1, 1}, {64, 1, 1}, 0}, args, options);
    if (r.status == vm::LaunchStatus::Faulted) {
      EXPECT_FALSE(r.faults.empty()) << f.name;
    }
  }
}

std::vector<std::filesystem::path> corpus() {
  return filesUnder(sourceDir() / "tests/corpus", ".ptx");
}

INSTANTIATE_TEST_SUITE_P(Corpus, VmCorpus, ::testing::ValuesIn(corpus()),
                         [](const ::testing::TestParamInfo<std::filesystem::path> &info) {
                           std::string name = info.param.parent_path().filename().string() + "_" +
                                              info.param.stem().string() + "_" + std::to_string(info.index);
                           for (char &c : name)
                             if (!isalnum(static_cast<unsigned char>(c)))
                               c = '_';
                           return name;
                         });

} // namespace
} // namespace ptxray::test
