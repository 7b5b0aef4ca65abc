// The advisor's behaviour beyond single cases: the guides' own optimization sequences give their
// advice step by step, findings come ranked, gains come from the time model, thresholds and rule
// filters work, and the static subset finds what the PTX alone shows.
#include "advisor/Advisor.h"
#include "support/AdvisorHarness.h"
#include "support/TestFiles.h"
#include "vm/Device.h"

#include <gtest/gtest.h>

#include <set>

namespace ptxray::test {
namespace {

std::vector<AdvisedLaunch> guideSpec(const char *name, const char *arch, const advisor::AdvisorOptions &o = {}) {
  return adviseSpec(session::loadRunSpec(sourceDir() / "tests/kernels/vm/specs" / name), arch, o);
}

const AdvisedLaunch &launchOf(const std::vector<AdvisedLaunch> &launches, std::string_view kernel) {
  for (const AdvisedLaunch &l : launches)
    if (l.profile.kernel == kernel || l.profile.demangled.starts_with(std::string(kernel) + "("))
      return l;
  throw std::runtime_error("no launch of " + std::string(kernel));
}

/// Bytes the launch's global loads moved per distinct sector each block touched (summed over blocks).
double loadReuse(const AdvisedLaunch &l) {
  double moved = 0, distinct = 0;
  for (const model::InstructionProfile &p : l.profile.instructions)
    if (p.memory == model::MemoryKind::Load) {
      moved += static_cast<double>(p.counters.globalBytesMoved);
      distinct += static_cast<double>(p.counters.globalCtaDistinctSectors);
    }
  return distinct > 0 ? moved / distinct : 0;
}

class GuideSequence : public ::testing::TestWithParam<const char *> {};

// [BPG] 3.2.2.2: C = AB. The unoptimized kernel loads A and B redundantly; staging A in shared memory
// leaves B's redundant loads; staging both leaves none.
TEST_P(GuideSequence, MatrixMultiplyRedundantLoadsDisappear) {
  auto launches = guideSpec("matmul.json", GetParam());
  const AdvisedLaunch &simple = launchOf(launches, "simpleMultiply");
  const AdvisedLaunch &coalesced = launchOf(launches, "coalescedMultiply");
  const AdvisedLaunch &shared = launchOf(launches, "sharedABMultiply");
  ASSERT_TRUE(simple.has("redundant-global-loads"));
  ASSERT_TRUE(coalesced.has("redundant-global-loads"));
  EXPECT_FALSE(shared.has("redundant-global-loads"));
  // Less redundancy at each step: global bytes loaded per distinct sector a block touched.
  EXPECT_GT(loadReuse(simple), loadReuse(coalesced));
  EXPECT_GT(loadReuse(coalesced), loadReuse(shared));
}

// [BPG] 3.2.2.3: C = AA^T. Reading A^T column-wise from global memory is uncoalesced; the shared
// tile fixes that.
TEST_P(GuideSequence, TransposedProductUncoalescedThenNot) {
  auto launches = guideSpec("matmul_aat.json", GetParam());
  EXPECT_TRUE(launchOf(launches, "simpleMultiplyAAT").has("uncoalesced-global"));
  EXPECT_FALSE(launchOf(launches, "sharedMultiplyAAT").has("uncoalesced-global"));
}

INSTANTIATE_TEST_SUITE_P(Archs, GuideSequence, ::testing::Values("sm_13", "sm_20", "sm_35", "sm_90"));

TEST(Advisor, FindingsRankedByPriorityThenGain) {
  for (const char *arch : {"sm_13", "sm_35", "sm_90"}) {
    for (const char *spec : {"matmul.json", "matmul_aat.json", "stride_copy.json", "divergence.json"}) {
      for (const AdvisedLaunch &l : guideSpec(spec, arch)) {
        for (size_t i = 1; i < l.findings.size(); ++i) {
          const advisor::Finding &a = l.findings[i - 1], &b = l.findings[i];
          ASSERT_LE(a.priority, b.priority) << spec << " " << arch;
          if (a.priority == b.priority) {
            EXPECT_GE(a.gainSeconds, b.gainSeconds) << spec << " " << arch;
          }
        }
      }
    }
  }
}

TEST(Advisor, GainsComeFromTheTimeModelAndStayWithinTheLaunch) {
  for (const AdvisedLaunch &l : guideSpec("matmul_aat.json", "sm_35"))
    for (const advisor::Finding &f : l.findings) {
      EXPECT_GE(f.gainSeconds, 0) << f.rule;
      EXPECT_LE(f.gainSeconds, l.profile.time.seconds) << f.rule;
      EXPECT_NEAR(f.gainFraction, f.gainSeconds / l.profile.time.seconds, 1e-12) << f.rule;
    }
  // The naive A^T product waits on its loads: serving them from a shared tile must be worth much.
  const std::vector<AdvisedLaunch> launches = guideSpec("matmul_aat.json", "sm_35");
  const AdvisedLaunch &naive = launchOf(launches, "simpleMultiplyAAT");
  ASSERT_TRUE(naive.has("uncoalesced-global"));
  ASSERT_TRUE(naive.has("redundant-global-loads"));
  EXPECT_GT(naive.find("redundant-global-loads")->gainFraction, 0.1);
}

TEST(Advisor, EveryFindingNamesItsGuideEvidenceAndFix) {
  for (const char *spec : {"matmul.json", "matmul_aat.json", "divergence.json", "stride_copy.json"})
    for (const AdvisedLaunch &l : guideSpec(spec, "sm_20"))
      for (const advisor::Finding &f : l.findings) {
        const advisor::RuleInfo *info = advisor::findRule(f.rule);
        ASSERT_NE(info, nullptr) << f.rule;
        EXPECT_EQ(f.priority, info->priority);
        EXPECT_EQ(f.guide, info->guide);
        EXPECT_FALSE(f.title.empty()) << f.rule;
        EXPECT_FALSE(f.evidence.empty()) << f.rule;
        EXPECT_FALSE(f.fix.empty()) << f.rule;
      }
}

TEST(Advisor, OnlyAndIgnoreFilterAndUnknownIdsAreErrors) {
  advisor::AdvisorOptions only;
  only.only = {"uncoalesced-global"};
  for (const AdvisedLaunch &l : guideSpec("stride_copy.json", "sm_35", only))
    for (const advisor::Finding &f : l.findings)
      EXPECT_EQ(f.rule, "uncoalesced-global");
  advisor::AdvisorOptions ignore;
  ignore.ignore = {"uncoalesced-global"};
  for (const AdvisedLaunch &l : guideSpec("stride_copy.json", "sm_35", ignore))
    EXPECT_FALSE(l.has("uncoalesced-global"));
  advisor::AdvisorOptions bad;
  bad.only = {"no-such-rule"};
  EXPECT_THROW(guideSpec("stride_copy.json", "sm_35", bad), std::invalid_argument);
}

TEST(Advisor, ThresholdSilencesARule) {
  // Stride-2 copies move twice the bytes they use; a threshold above 2 accepts that.
  bool seen = false;
  for (const AdvisedLaunch &l : guideSpec("stride_copy.json", "sm_90"))
    seen |= l.has("uncoalesced-global");
  ASSERT_TRUE(seen);
  advisor::AdvisorOptions lenient;
  lenient.thresholds.uncoalescedRatio = 1000;
  for (const AdvisedLaunch &l : guideSpec("stride_copy.json", "sm_90", lenient))
    EXPECT_FALSE(l.has("uncoalesced-global"));
}

TEST(Advisor, RuleCatalogueIsConsistent) {
  std::set<std::string_view> ids;
  for (const advisor::RuleInfo &r : advisor::rules()) {
    EXPECT_TRUE(ids.insert(r.id).second) << r.id;
    EXPECT_FALSE(r.guide.empty()) << r.id;
    EXPECT_EQ(advisor::findRule(r.id), &r);
  }
  EXPECT_EQ(advisor::findRule("nope"), nullptr);
  std::set<std::string_view> names;
  for (const advisor::ThresholdInfo &t : advisor::thresholdInfos())
    EXPECT_TRUE(names.insert(t.name).second) << t.name;
}

// Without a launch: what the PTX shows by itself.
TEST(AdvisorStatic, InstructionFindingsFromThePtxAlone) {
  const arch::ArchTarget target = *arch::findArch("sm_35").target;
  vm::Device device(*target.computeCapability);
  const vm::LoadedModule &m = device.loadModuleFile((sourceDir() / "tests/advisor/kernels/instructions.ptx").string());
  auto staticFindings = [&](const char *kernel) {
    advisor::AnalysisInput in;
    in.target = target;
    in.module = &m.ptx();
    in.kernel = kernel;
    std::set<std::string> rules;
    for (const advisor::Finding &f : advisor::advise(in))
      rules.insert(f.rule);
    return rules;
  };
  EXPECT_TRUE(staticFindings("literalDouble").count("fp64-in-fp32"));
  EXPECT_FALSE(staticFindings("literalFloat").count("fp64-in-fp32"));
  EXPECT_TRUE(staticFindings("divModRuntime").count("int-div-mod"));
  EXPECT_FALSE(staticFindings("divModShift").count("int-div-mod"));
  EXPECT_TRUE(staticFindings("invSqrtDivide").count("rsqrt"));
  EXPECT_FALSE(staticFindings("invSqrtIntrinsic").count("rsqrt"));
  EXPECT_TRUE(staticFindings("mathFullPrecision").count("full-precision-math"));
  EXPECT_FALSE(staticFindings("mathIntrinsics").count("full-precision-math"));
}

// [BPG] 5: a product added in a separate, explicitly rounded instruction is what a compiler writes
// when it may not fuse (OpenCL without -cl-mad-enable, nvcc -fmad=false); ptxas may contract the
// unrounded forms itself, and an fma is already one instruction.
TEST(AdvisorStatic, UnfusedMultiplyAddOnlyWhereTheRoundingForbidsFusion) {
  const arch::ArchTarget target = *arch::findArch("sm_80").target;
  vm::Device device(*target.computeCapability);
  const std::string body = R"(
.visible .entry KERNEL(.param .u64 p)
{
  .reg .f32 %f<6>;
  .reg .b64 %rd<2>;
  ld.param.u64 %rd1, [p];
  ld.global.f32 %f1, [%rd1];
  ld.global.f32 %f2, [%rd1+4];
  BODY
  st.global.f32 [%rd1], %f4;
  ret;
}
)";
  auto kernel = [&](const char *name, const char *code) {
    std::string k = body;
    k.replace(k.find("KERNEL"), 6, name);
    k.replace(k.find("BODY"), 4, code);
    return k;
  };
  const std::string text = ".version 7.0\n.target sm_80\n.address_size 64\n" +
                           kernel("rounded", "mul.rn.f32 %f3, %f1, %f2;\n  add.rn.f32 %f4, %f1, %f3;") +
                           kernel("roundedSub", "mul.rn.f32 %f3, %f1, %f2;\n  sub.rn.f32 %f4, %f3, %f1;") +
                           kernel("contractible", "mul.f32 %f3, %f1, %f2;\n  add.f32 %f4, %f3, %f1;") +
                           kernel("fused", "fma.rn.f32 %f4, %f1, %f2, %f1;") +
                           kernel("unrelated", "mul.rn.f32 %f3, %f1, %f2;\n  add.rn.f32 %f4, %f1, %f2;\n  "
                                               "st.global.f32 [%rd1+8], %f3;");
  const vm::LoadedModule &m = device.loadModule("fma.ptx", text);
  auto fires = [&](const char *kernelName) {
    advisor::AnalysisInput in;
    in.target = target;
    in.module = &m.ptx();
    in.kernel = kernelName;
    for (const advisor::Finding &f : advisor::advise(in))
      if (f.rule == "unfused-multiply-add") {
        EXPECT_NE(f.fix.find("fmaf"), std::string::npos) << "a CUDA module gets CUDA's words: " << f.fix;
        return true;
      }
    return false;
  };
  EXPECT_TRUE(fires("rounded"));
  EXPECT_TRUE(fires("roundedSub"));
  EXPECT_FALSE(fires("contractible"));
  EXPECT_FALSE(fires("fused"));
  EXPECT_FALSE(fires("unrelated"));
}

TEST(AdvisorStatic, LocalMemoryFromThePtxAlone) {
  const arch::ArchTarget target = *arch::findArch("sm_30").target;
  vm::Device device(*target.computeCapability);
  const vm::LoadedModule &m = device.loadModuleFile((sourceDir() / "tests/advisor/kernels/local_memory.ptx").string());
  auto has = [&](const char *kernel) {
    advisor::AnalysisInput in;
    in.target = target;
    in.module = &m.ptx();
    in.kernel = kernel;
    for (const advisor::Finding &f : advisor::advise(in))
      if (f.rule == "local-memory")
        return true;
    return false;
  };
  EXPECT_TRUE(has("histogramLocal"));
  EXPECT_FALSE(has("histogramRegisters"));
}

} // namespace
} // namespace ptxray::test
