// session::KernelFilter: compute-sanitizer's kne/kns/regex pairs (on the mangled name) and Nsight
// Compute's NAME / regex:EXPR (on the function's name alone), the exclusions, and the skip and count
// of matching launches (validation/conventions/results: oob.kns, oob.kne, oob.regex, oob.exclude,
// oob.launch-skip, ncu.csv-k, ncu.csv-skip).
#include "session/KernelFilter.h"

#include <gtest/gtest.h>

#include <stdexcept>

namespace ptxray::session {
namespace {

constexpr const char *kScale = "_Z5scaleIfEvPT_iS0_"; // void scale<float>(float*, int, float)
constexpr const char *kShift = "_Z5shiftPii";         // shift(int*, int)
constexpr const char *kClean = "_Z5cleanPii";

TEST(KernelFilter, NoFilterSelectsEveryLaunch) {
  KernelFilter f;
  EXPECT_FALSE(f.active());
  EXPECT_TRUE(f.selectNext(kScale));
}

TEST(KernelFilter, ComputeSanitizerKeysMatchTheMangledName) {
  EXPECT_TRUE(KernelFilter({"kns=shift"}, {}, 0, 0).matches(kShift));
  EXPECT_FALSE(KernelFilter({"kns=shift"}, {}, 0, 0).matches(kScale));
  EXPECT_TRUE(KernelFilter({"kne=_Z5shiftPii"}, {}, 0, 0).matches(kShift));
  EXPECT_FALSE(KernelFilter({"kne=shift"}, {}, 0, 0).matches(kShift)) << "kne is the whole mangled name";
  EXPECT_TRUE(KernelFilter({"regex=sc.le"}, {}, 0, 0).matches(kScale));
  // Pairs of one filter must all hold; separate filters are alternatives.
  EXPECT_FALSE(KernelFilter({"kns=shift,kns=Pf"}, {}, 0, 0).matches(kShift));
  EXPECT_TRUE(KernelFilter({"kernel_substring=shift,kernel_name=_Z5shiftPii"}, {}, 0, 0).matches(kShift));
  KernelFilter either({"kns=shift", "kns=clean"}, {}, 0, 0);
  EXPECT_TRUE(either.matches(kShift));
  EXPECT_TRUE(either.matches(kClean));
  EXPECT_FALSE(either.matches(kScale));
  // regex takes the rest of the value, commas included.
  EXPECT_TRUE(KernelFilter({"regex=^_Z5(shift|scale)P?[iI],?"}, {}, 0, 0).matches(kShift));
}

TEST(KernelFilter, NsightComputeNamesMatchTheFunctionAlone) {
  EXPECT_TRUE(KernelFilter({"scale"}, {}, 0, 0).matches(kScale)) << "the template's function name";
  EXPECT_TRUE(KernelFilter({"_Z5shiftPii"}, {}, 0, 0).matches(kShift)) << "or the mangled name";
  EXPECT_FALSE(KernelFilter({"shif"}, {}, 0, 0).matches(kShift)) << "exact, not a substring";
  EXPECT_TRUE(KernelFilter({"regex:^sc"}, {}, 0, 0).matches(kScale));
  EXPECT_FALSE(KernelFilter({"regex:^sc"}, {}, 0, 0).matches(kShift));
}

TEST(KernelFilter, ExclusionsWinAndSkipAndCountCountMatchingLaunchesOnly) {
  KernelFilter f({}, {"kns=scale"}, 1, 2);
  // The program's order: scale, clean, shift, scale, clean, shift.
  std::vector<bool> selected;
  for (const char *k : {kScale, kClean, kShift, kScale, kClean, kShift})
    selected.push_back(f.selectNext(k));
  // Matching: clean, shift, clean, shift; skip 1, count 2: shift and the second clean.
  EXPECT_EQ(selected, (std::vector<bool>{false, false, true, false, true, false}));
}

TEST(KernelFilter, MalformedFiltersAreRefusedNamingTheOption) {
  EXPECT_THROW(KernelFilter({"foo=bar"}, {}, 0, 0), std::invalid_argument);
  EXPECT_THROW(KernelFilter({"regex:("}, {}, 0, 0), std::invalid_argument);
  EXPECT_THROW(KernelFilter({""}, {}, 0, 0), std::invalid_argument);
  try {
    KernelFilter({}, {"kns=scale,shift"}, 0, 0);
    FAIL();
  } catch (const std::invalid_argument &e) {
    EXPECT_STREQ(e.what(), "--kernel-name-exclude: \"shift\" is not KEY=VALUE (kne, kns, regex)");
  }
}

} // namespace
} // namespace ptxray::session
