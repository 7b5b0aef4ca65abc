// Demangling of kernel and function names for display; names that are not Itanium C++ names, or
// that do not demangle, come back unchanged.
#include "ptx/Demangle.h"

#include <gtest/gtest.h>

namespace ptxray {
namespace {

using ptx::demangle;

TEST(DemangleTest, FreeFunctions) {
  EXPECT_EQ(demangle("_Z3fooii"), "foo(int, int)");
  EXPECT_EQ(demangle("_Z4kernPfj"), "kern(float*, unsigned int)");
  EXPECT_EQ(demangle("_Z5saxpyifPKfPf"), "saxpy(int, float, float const*, float*)");
}

TEST(DemangleTest, Substitutions) {
  // S_ and S0_ repeat earlier types: S_ is the first substitutable type, S0_ the second.
  EXPECT_EQ(demangle("_Z6kernelPfS_i"), "kernel(float*, float*, int)");
  EXPECT_EQ(demangle("_Z10vecAdd_f32PKfS0_Pfi"), "vecAdd_f32(float const*, float const*, float*, int)");
  EXPECT_EQ(demangle("_Z6helperPKdS0_"), "helper(double const*, double const*)");
}

TEST(DemangleTest, NamespacesAndTemplates) {
  EXPECT_EQ(demangle("_ZN2ns3barEv"), "ns::bar()");
  EXPECT_EQ(demangle("_Z6kernelILi4EEvPf"), "void kernel<4>(float*)");
  EXPECT_EQ(demangle("_ZN6detail6reduceIfLi256EEEvPKT_PS1_i"),
            "void detail::reduce<float, 256>(float const*, float*, int)");
}

TEST(DemangleTest, PlainNamesAreUnchanged) {
  for (const char *name : {"kernel", "vec_add", "", "__cudart_i2opi_f", "$L__BB0_1", "Z3fooii", "__Z3fooii"})
    EXPECT_EQ(demangle(name), name);
}

TEST(DemangleTest, MalformedMangledNamesAreUnchanged) {
  for (const char *name : {"_Z", "_Zinvalid", "_Z3fo", "_Z3fooQ"})
    EXPECT_EQ(demangle(name), name);
}

TEST(DemangleTest, ViewsAreNotAssumedNulTerminated) {
  // Only the first 8 characters are the name; the rest of the buffer must not leak into the result.
  std::string_view buffer = "_Z3fooiiXYZ";
  EXPECT_EQ(demangle(buffer.substr(0, 8)), "foo(int, int)");
  EXPECT_EQ(demangle(buffer.substr(0, 7)), "foo(int)");
}

// compute-sanitizer's --demangle full, simple and no (validation/conventions/results/oob.demangle-*.txt:
// "void scale<float>(T1 *, int, T1)", "scale", "_Z5scaleIfEvPT_iS0_").
TEST(DemangleTest, NameStylesShowTheWholeNameTheNameAloneOrTheMangledOne) {
  using ptx::displayName, ptx::NameStyle, ptx::parseNameStyle;
  EXPECT_EQ(displayName("_Z5scaleIfEvPT_iS0_", NameStyle::Full), "void scale<float>(float*, int, float)");
  EXPECT_EQ(displayName("_Z5scaleIfEvPT_iS0_", NameStyle::Simple), "scale");
  EXPECT_EQ(displayName("_Z5scaleIfEvPT_iS0_", NameStyle::Mangled), "_Z5scaleIfEvPT_iS0_");
  EXPECT_EQ(displayName("_Z10sharedRacePi", NameStyle::Simple), "sharedRace");
  EXPECT_EQ(displayName("_ZN2ns6kernelIiEEvPT_", NameStyle::Simple), "ns::kernel");
  // Not mangled (OpenCL, extern "C"): the same in every style.
  for (NameStyle style : {NameStyle::Full, NameStyle::Simple, NameStyle::Mangled})
    EXPECT_EQ(displayName("vecAdd", style), "vecAdd");
  EXPECT_EQ(parseNameStyle("simple"), NameStyle::Simple);
  EXPECT_EQ(parseNameStyle("no"), NameStyle::Mangled);
  EXPECT_EQ(parseNameStyle("yes"), std::nullopt);
}

} // namespace
} // namespace ptxray
