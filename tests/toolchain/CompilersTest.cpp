// The compilers behind ptxray's modules (src/toolchain): OpenCL C through clang and libclc, its build
// options as clBuildProgram takes them, its errors and .file directives naming the user's source.
#include "toolchain/Compilers.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace ptxray::toolchain {
namespace {

#define REQUIRE_OPENCL()                                                                                               \
  if (std::string why = openclUnavailableReason(); !why.empty())                                                       \
  GTEST_SKIP() << why

TEST(OpenCLBuildOptions, SplitAsClBuildProgramTakesThem) {
  EXPECT_EQ(splitBuildOptions("  -D N=4 -DNAME='a b'\t-cl-mad-enable -I \"dir with space\" "),
            (std::vector<std::string>{"-D", "N=4", "-DNAME=a b", "-cl-mad-enable", "-I", "dir with space"}));
  EXPECT_TRUE(splitBuildOptions("").empty());
}

TEST(OpenCLCompile, KernelsGetTheWorkItemFunctionsAndTheUsersFileName) {
  REQUIRE_OPENCL();
  const std::string source = "__kernel void k(__global uint *out) { out[get_global_id(0)] = N; }\n";
  OpenCLOptions options;
  options.options = {"-D", "N=42", "-cl-mad-enable"};
  const OpenCLResult r = compileOpenCL(source, "dir/user kernels.cl", options);
  EXPECT_NE(r.ptx.find(".entry k("), std::string::npos) << r.ptx;
  EXPECT_NE(r.ptx.find("%envreg3"), std::string::npos) << "the global offset is read"; // OpenCLPrelude.cl
  EXPECT_NE(r.ptx.find("42"), std::string::npos) << "the -D reached the compiler";
  EXPECT_NE(r.ptx.find(".file\t1 \"dir\" \"user kernels.cl\""), std::string::npos) << r.ptx;
  EXPECT_EQ(r.ptx.find("ptxray-opencl-"), std::string::npos) << "no scratch path left in the PTX";
}

// [BPG] 5: -cl-mad-enable lets the compiler fuse a multiply and an add of separate statements;
// without it they stay two rounded instructions (which ptxas may not fuse either).
TEST(OpenCLCompile, MadEnableFusesSeparateMultiplyAndAdd) {
  REQUIRE_OPENCL();
  const std::string source = "__kernel void k(__global float *o, __global const float *a, float s)\n"
                             "{ int i = get_global_id(0); float t = a[i] * s; float u = t + a[i + 1]; o[i] = u; }\n";
  const OpenCLResult strict = compileOpenCL(source, "mad.cl", {});
  EXPECT_NE(strict.ptx.find("mul.rn.f32"), std::string::npos) << strict.ptx;
  EXPECT_NE(strict.ptx.find("add.rn.f32"), std::string::npos) << strict.ptx;
  EXPECT_EQ(strict.ptx.find("fma.rn.f32"), std::string::npos) << strict.ptx;
  for (const char *option : {"-cl-mad-enable", "-cl-fast-relaxed-math"}) {
    OpenCLOptions options;
    options.options = {option};
    const OpenCLResult fused = compileOpenCL(source, "mad.cl", options);
    EXPECT_NE(fused.ptx.find("fma.rn.f32"), std::string::npos) << option << "\n" << fused.ptx;
    EXPECT_EQ(fused.ptx.find("mul.rn.f32"), std::string::npos) << option << "\n" << fused.ptx;
  }
}

TEST(OpenCLCompile, ErrorsNameTheUsersSource) {
  REQUIRE_OPENCL();
  try {
    compileOpenCL("__kernel void k(__global float *o)\n{ o[0] = nope; }\n", "mine.cl", {});
    FAIL() << "a kernel with an undeclared identifier compiled";
  } catch (const CompileError &e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("mine.cl:2:10: error: use of undeclared identifier 'nope'"), std::string::npos) << what;
    EXPECT_EQ(what.find("ptxray-opencl-"), std::string::npos) << what;
  }
}

TEST(OpenCLCompile, UnknownOptionsAreRefused) {
  REQUIRE_OPENCL();
  OpenCLOptions options;
  for (std::vector<std::string> bad : {std::vector<std::string>{"-cl-std=CL9.9"}, {"--target=x86"}, {"-D"}}) {
    options.options = bad;
    EXPECT_THROW(compileOpenCL("__kernel void k() {}\n", "k.cl", options), CompileError) << bad.front();
  }
  options.options = {"-cl-std=CL2.0", "-cl-fast-relaxed-math", "-cl-nv-verbose", "-cl-opt-disable", "-w"};
  EXPECT_NO_THROW(compileOpenCL("__kernel void k() {}\n", "k.cl", options));
}

} // namespace
} // namespace ptxray::toolchain
