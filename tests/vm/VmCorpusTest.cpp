// Every module of the front-end corpus (nvcc 13 for compute_75/90/100 with and without -G, clang's
// sm_30/sm_35 PTX 3.2-6.0, the hand-written ISA fixtures) loads into the VM: variables are placed,
// every function is decoded, and instructions the VM cannot run are reported by name only if reached.
#include "support/TestFiles.h"
#include "support/VmHarness.h"

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
