// The run-spec library behind `ptxray run`: JSON-path errors for malformed specs and for specs that
// do not fit their module, generators, symbol buffers, by-value arguments, 32-bit modules, outputs
// and failing launches. The kernels are the small handwritten PTX files in tests/vm/specs/.
#include "session/RunSpec.h"
#include "support/InputFile.h"
#include "support/TestFiles.h"

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <unistd.h>

namespace ptxray::test {
namespace {

using ::testing::HasSubstr;

std::filesystem::path specsDir() {
  return sourceDir() / "tests" / "vm" / "specs";
}

session::RunSpec parse(const std::string &text) {
  return session::parseRunSpecText(text, "spec.json", specsDir());
}

/// The error message parsing `text` gives ("" when it parses).
std::string parseError(const std::string &text) {
  try {
    parse(text);
  } catch (const session::SpecError &e) {
    return e.what();
  }
  return "";
}

/// The error message running `text` gives before its first launch ("" when it runs).
std::string runError(const std::string &text) {
  try {
    session::RunOptions options;
    options.launch.threads = 1;
    options.writeOutputs = false;
    session::runSpec(parse(text), options);
  } catch (const session::SpecError &e) {
    return e.what();
  } catch (const support::InputFileError &e) {
    return e.what();
  }
  return "";
}

session::RunOutcome run(const std::string &text) {
  session::RunOptions options;
  options.launch.threads = 1;
  options.keepBuffers = true;
  return session::runSpec(parse(text), options);
}

template <class T> std::vector<T> as(const std::vector<std::byte> &bytes) {
  std::vector<T> out(bytes.size() / sizeof(T));
  std::memcpy(out.data(), bytes.data(), out.size() * sizeof(T));
  return out;
}

/// A spec around one launch of affine.ptx with `args` (JSON text).
std::string affineSpec(const std::string &args, const std::string &extra = "") {
  return R"({"module": "affine.ptx", "buffers": [{"name": "in", "bytes": 64}, {"name": "out", "bytes": 64}],
    "launches": [{"kernel": "affine", "grid": [1], "block": [16], "args": )" +
         args + "}]" + extra + "}";
}
const char *kAffineArgs = R"([{"buffer": "out"}, {"buffer": "in"}, {"type": "u32", "value": 16},
                              {"type": "u32", "value": 1}, {"type": "u32", "value": 0}])";

class TempDir {
public:
  TempDir() {
    path_ = std::filesystem::temp_directory_path() /
            ("ptxray-runspec-" + std::to_string(::getpid()) + "-" + std::to_string(counter_++));
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~TempDir() { std::filesystem::remove_all(path_); }
  const std::filesystem::path &path() const { return path_; }

private:
  static inline int counter_ = 0;
  std::filesystem::path path_;
};

// ---------------------------------------------------------------------------------------------
// Malformed specs: every error names its JSON path.

struct BadSpec {
  const char *spec;
  const char *error;
};

TEST(RunSpec, ParseErrorsNameTheJsonPath) {
  const BadSpec cases[] = {
      {R"([1, 2])", "spec.json: expected an object, found an array"},
      {R"({"launches": []})", R"(spec.json: missing "module")"},
      {R"({"module": 5, "launches": []})", "spec.json: module: expected a string, found a number"},
      {R"({"module": "", "launches": []})", "spec.json: module: must not be empty"},
      {R"({"module": "m.ptx"})", R"(spec.json: missing "launches" (or "operations", a session of host operations))"},
      {R"({"module": "m.ptx", "launches": {}})", "spec.json: launches: expected an array, found an object"},
      {R"({"module": "m.ptx", "launch": []})",
       R"(spec.json: launch: unknown key (expected "module", "build_options", "buffers", "launches", "operations", "outputs", "host"))"},
      {R"({"module": "m.ptx", "launches": [7]})", "spec.json: launches[0]: expected an object, found a number"},
      {R"({"module": "m.ptx", "launches": [{"kernel": "k", "block": [1]}]})",
       R"(spec.json: launches[0]: missing "grid")"},
      {R"({"module": "m.ptx", "launches": [{"kernel": "k", "grid": [], "block": [1]}]})",
       "spec.json: launches[0].grid: expected an array of 1 to 3 positive integers"},
      {R"({"module": "m.ptx", "launches": [{"kernel": "k", "grid": [1, 1, 1, 1], "block": [1]}]})",
       "spec.json: launches[0].grid: expected an array of 1 to 3 positive integers"},
      {R"({"module": "m.ptx", "launches": [{"kernel": "k", "grid": [4, 0], "block": [1]}]})",
       "spec.json: launches[0].grid[1]: must be at least 1"},
      {R"({"module": "m.ptx", "launches": [{"kernel": "k", "grid": [1], "block": [1, -2]}]})",
       "spec.json: launches[0].block[1]: expected a non-negative integer, found -2"},
      {R"({"module": "m.ptx", "launches": [{"kernel": "k", "grid": [1], "block": [4294967296]}]})",
       "spec.json: launches[0].block[0]: 4294967296 is too large (at most 4294967295)"},
      {R"({"module": "m.ptx", "launches": [{"kernel": "k", "grid": [1], "block": [1], "dynamic_shared": 4}]})",
       R"(spec.json: launches[0].dynamic_shared: unknown key (expected "kernel", "grid", "block", "global_work_size", "local_work_size", "global_work_offset", "dynamic_shared_bytes", "cooperative", "args"))"},
      {R"({"module": "m.ptx", "launches": [{"kernel": "k", "grid": [1], "block": [1], "cooperative": 1}]})",
       "spec.json: launches[0].cooperative: expected true or false, found a number"},
      {R"({"module": "m.ptx", "launches": [{"kernel": "k", "grid": [1], "block": [1], "dynamic_shared_bytes": 1.5}]})",
       "spec.json: launches[0].dynamic_shared_bytes: expected a non-negative integer, found a non-integer number"},
      {R"({"module": "m.ptx", "launches": [{"kernel": "", "grid": [1], "block": [1]}]})",
       "spec.json: launches[0].kernel: must not be empty"},
      {R"({"module": "m.ptx", "launches": [{"kernel": "k", "grid": [1], "block": [1], "args": {}}]})",
       "spec.json: launches[0].args: expected an array, found an object"},
      // Arguments.
      {R"({"module": "m.ptx", "launches": [{"grid": [1], "block": [1], "args": [{}]}]})",
       R"(spec.json: launches[0].args[0]: an argument needs "buffer" (a device pointer) or "type" (a value))"},
      {R"({"module": "m.ptx", "launches": [{"grid": [1], "block": [1], "args": [{"buffer": "nope"}]}]})",
       R"(spec.json: launches[0].args[0].buffer: unknown buffer "nope")"},
      {R"({"module": "m.ptx", "buffers": [{"name": "b", "bytes": 64}],
           "launches": [{"grid": [1], "block": [1], "args": [{"buffer": "b", "offset": 65}]}]})",
       R"(spec.json: launches[0].args[0].offset: offset 65 is past the end of buffer "b" (64 bytes))"},
      {R"({"module": "m.ptx", "buffers": [{"name": "b", "bytes": 64}],
           "launches": [{"grid": [1], "block": [1], "args": [{"buffer": "b", "type": "u32"}]}]})",
       R"(spec.json: launches[0].args[0].type: unknown key (expected "buffer", "offset"))"},
      {R"({"module": "m.ptx", "launches": [{"grid": [1], "block": [1], "args": [{"type": "pred", "value": 1}]}]})",
       R"(spec.json: launches[0].args[0].type: unknown type "pred")"},
      {R"({"module": "m.ptx", "launches": [{"grid": [1], "block": [1], "args": [{"type": "u32"}]}]})",
       R"(spec.json: launches[0].args[0]: missing "value" (or "bits"))"},
      {R"({"module": "m.ptx", "launches": [{"grid": [1], "block": [1], "args": [{"type": "u32", "value": 1, "bits": "0x1"}]}]})",
       R"(spec.json: launches[0].args[0]: give "value" or "bits", not both)"},
      {R"({"module": "m.ptx", "launches": [{"grid": [1], "block": [1], "args": [{"type": "u8", "value": 256}]}]})",
       "spec.json: launches[0].args[0].value: 256 does not fit u8 (0 to 255)"},
      {R"({"module": "m.ptx", "launches": [{"grid": [1], "block": [1], "args": [{"type": "u32", "value": -1}]}]})",
       "spec.json: launches[0].args[0].value: -1 does not fit u32 (0 to 4294967295)"},
      {R"({"module": "m.ptx", "launches": [{"grid": [1], "block": [1], "args": [{"type": "s8", "value": -129}]}]})",
       "spec.json: launches[0].args[0].value: -129 does not fit s8 (-128 to 127)"},
      {R"({"module": "m.ptx", "launches": [{"grid": [1], "block": [1], "args": [{"type": "s16", "value": 32768}]}]})",
       "spec.json: launches[0].args[0].value: 32768 does not fit s16 (-32768 to 32767)"},
      {R"({"module": "m.ptx", "launches": [{"grid": [1], "block": [1], "args": [{"type": "s32", "value": 1.5}]}]})",
       "spec.json: launches[0].args[0].value: expected an integer, found a non-integer number"},
      {R"({"module": "m.ptx", "launches": [{"grid": [1], "block": [1], "args": [{"type": "f32", "value": "big"}]}]})",
       R"(spec.json: launches[0].args[0].value: expected a number (or "inf", "-inf", "nan"), found "big")"},
      {R"({"module": "m.ptx", "launches": [{"grid": [1], "block": [1], "args": [{"type": "u16", "bits": "0x1ffff"}]}]})",
       "spec.json: launches[0].args[0].bits: bit pattern 0x1ffff is wider than u16"},
      {R"({"module": "m.ptx", "launches": [{"grid": [1], "block": [1], "args": [{"type": "u64", "bits": "0x12345678123456789"}]}]})",
       R"(spec.json: launches[0].args[0].bits: bit pattern "0x12345678123456789" is wider than 64 bits)"},
      {R"({"module": "m.ptx", "launches": [{"grid": [1], "block": [1], "args": [{"type": "f32", "bits": "0xg"}]}]})",
       R"(spec.json: launches[0].args[0].bits: bad bit pattern "0xg" (expected hex digits, e.g. "0x3f800000"))"},
      {R"({"module": "m.ptx", "launches": [{"grid": [1], "block": [1], "args": [{"type": "bytes", "hex": "abc"}]}]})",
       "spec.json: launches[0].args[0].hex: odd number of hex digits (3)"},
      {R"({"module": "m.ptx", "launches": [{"grid": [1], "block": [1], "args": [{"type": "bytes", "hex": "0x"}]}]})",
       "spec.json: launches[0].args[0].hex: 'x' is not a hex digit"},
      {R"({"module": "m.ptx", "launches": [{"grid": [1], "block": [1], "args": [{"type": "bytes"}]}]})",
       R"(spec.json: launches[0].args[0]: missing "hex")"},
      // Buffers.
      {R"({"module": "m.ptx", "buffers": {}, "launches": []})",
       "spec.json: buffers: expected an array, found an object"},
      {R"({"module": "m.ptx", "buffers": [{"bytes": 4}], "launches": []})", R"(spec.json: buffers[0]: missing "name")"},
      {R"({"module": "m.ptx", "buffers": [{"name": "a", "bytes": 4}, {"name": "a", "bytes": 8}], "launches": []})",
       R"(spec.json: buffers[1].name: duplicate buffer name "a" (first at buffers[0]))"},
      {R"({"module": "m.ptx", "buffers": [{"name": "a"}], "launches": []})",
       R"(spec.json: buffers[0]: missing "bytes" (a device allocation) or "symbol" (a module variable))"},
      {R"({"module": "m.ptx", "buffers": [{"name": "a", "bytes": 4, "symbol": "g"}], "launches": []})",
       R"(spec.json: buffers[0]: give "bytes" (a device allocation) or "symbol" (a module variable), not both)"},
      {R"({"module": "m.ptx", "buffers": [{"name": "a", "bytes": -4}], "launches": []})",
       "spec.json: buffers[0].bytes: expected a non-negative integer, found -4"},
      {R"({"module": "m.ptx", "buffers": [{"name": "a", "bytes": 1e12}], "launches": []})",
       "spec.json: buffers[0].bytes: expected a non-negative integer, found a non-integer number"},
      {R"({"module": "m.ptx", "buffers": [{"name": "a", "bytes": 2000000000000}], "launches": []})",
       "spec.json: buffers[0].bytes: 2000000000000 is too large (at most 1103001288704)"},
      {R"({"module": "m.ptx", "buffers": [{"name": "a", "bytes": 4, "init": 5}], "launches": []})",
       R"(spec.json: buffers[0].init: expected "zero", "none", a file name, {"random": {...}} or {"iota": {...}}, found a number)"},
      {R"({"module": "m.ptx", "buffers": [{"name": "a", "symbol": "g", "init": "none"}], "launches": []})",
       R"(spec.json: buffers[0].init: "none" is for device allocations ("bytes"); a module variable always starts with the value its module gives it)"},
      {R"({"module": "m.ptx", "buffers": [{"name": "a", "bytes": 4, "init": {"ramp": {}}}], "launches": []})",
       R"(spec.json: buffers[0].init.ramp: unknown key (expected "random", "iota"))"},
      {R"({"module": "m.ptx", "buffers": [{"name": "a", "bytes": 4, "init": {"iota": {}}}], "launches": []})",
       R"(spec.json: buffers[0].init.iota: missing "dtype")"},
      {R"({"module": "m.ptx", "buffers": [{"name": "a", "bytes": 4, "init": {"iota": {"dtype": "f16"}}}], "launches": []})",
       R"(spec.json: buffers[0].init.iota.dtype: unknown dtype "f16" (expected u8, s8, u16, s16, u32, s32, u64, s64, f32 or f64))"},
      {R"({"module": "m.ptx", "buffers": [{"name": "a", "bytes": 4, "init": {"random": {"dtype": "u8", "min": -1}}}], "launches": []})",
       "spec.json: buffers[0].init.random.min: -1 does not fit u8 (0 to 255)"},
      {R"({"module": "m.ptx", "buffers": [{"name": "a", "bytes": 4, "init": {"random": {"dtype": "s8", "max": 128}}}], "launches": []})",
       "spec.json: buffers[0].init.random.max: 128 does not fit s8 (-128 to 127)"},
      {R"({"module": "m.ptx", "buffers": [{"name": "a", "bytes": 4, "init": {"random": {"dtype": "s32", "min": 5, "max": -5}}}], "launches": []})",
       "spec.json: buffers[0].init.random: random min is greater than max"},
      {R"({"module": "m.ptx", "buffers": [{"name": "a", "bytes": 4, "init": {"random": {"dtype": "f32", "min": 2, "max": 1}}}], "launches": []})",
       "spec.json: buffers[0].init.random: min 2 is greater than max 1"},
      {R"({"module": "m.ptx", "buffers": [{"name": "a", "bytes": 4, "init": {"random": {"dtype": "u32", "seed": 0.5}}}], "launches": []})",
       "spec.json: buffers[0].init.random.seed: expected an integer, found a non-integer number"},
      {R"({"module": "m.ptx", "buffers": [{"name": "a", "bytes": 4, "init": {"random": {"dtype": "u32", "mean": 1}}}], "launches": []})",
       R"(spec.json: buffers[0].init.random.mean: unknown key (expected "dtype", "seed", "min", "max"))"},
      // Outputs.
      {R"({"module": "m.ptx", "launches": [], "outputs": [{"buffer": "x", "file": "x.bin"}]})",
       R"(spec.json: outputs[0].buffer: unknown buffer "x")"},
      {R"({"module": "m.ptx", "buffers": [{"name": "x", "bytes": 4}], "launches": [], "outputs": [{"buffer": "x"}]})",
       R"(spec.json: outputs[0]: missing "file")"},
  };
  for (const BadSpec &c : cases)
    EXPECT_EQ(parseError(c.spec), c.error) << c.spec;
}

TEST(RunSpec, TheIssueExampleError) {
  std::string good = R"({"kernel": "k", "grid": [1], "block": [1], "args": [{"type": "u32", "value": 1},
                          {"type": "u32", "value": 1}, {"type": "u32", "value": 2}]})";
  std::string bad = good;
  bad.replace(bad.rfind("u32"), 3, "u33");
  EXPECT_EQ(parseError(R"({"module": "m.ptx", "launches": [)" + good + "," + bad + "]}"),
            R"(spec.json: launches[1].args[2].type: unknown type "u33")");
}

TEST(RunSpec, InvalidJsonAndMissingFile) {
  EXPECT_THAT(parseError(R"({"module": "m.ptx",)"), HasSubstr("spec.json: invalid JSON: "));
  try {
    session::loadRunSpec(specsDir() / "no-such-spec.json");
    FAIL() << "loaded a missing spec";
  } catch (const support::InputFileError &e) {
    EXPECT_EQ(e.what(), "cannot read '" + (specsDir() / "no-such-spec.json").string() + "': no such file or directory");
    EXPECT_EQ(e.problem(), support::InputProblem::Missing);
  }
}

// Issue #31: JSON keeps the last of two equal keys; a spec refuses them, and deep nesting.
TEST(RunSpec, DuplicateKeysAndDeepNestingAreErrors) {
  EXPECT_EQ(parseError(R"({"module": "a.ptx", "module": "affine.ptx", "launches": []})"),
            "spec.json: duplicate key \"module\" in one object (JSON would keep only the last)");
  EXPECT_EQ(parseError(R"({"module": "affine.ptx", "launches": [{"grid": [1], "grid": [2], "block": [1]}]})"),
            "spec.json: duplicate key \"grid\" in one object (JSON would keep only the last)");
  std::string deep = "{\"module\": \"affine.ptx\", \"x\": ";
  for (int i = 0; i < 100; ++i)
    deep += "[";
  for (int i = 0; i < 100; ++i)
    deep += "]";
  EXPECT_EQ(parseError(deep + "}"), "spec.json: invalid JSON: nested deeper than 64 levels");
  // The same key in different objects is fine.
  EXPECT_EQ(
      parseError(R"({"module": "affine.ptx", "launches": [{"grid": [1], "block": [1]}, {"grid": [2], "block": [1]}]})"),
      "");
}

TEST(RunSpec, CommentsAndDefaults) {
  session::RunSpec s = parse(R"({"_why": "comment", "module": "affine.ptx",
    "buffers": [{"name": "b", "bytes": 8}, {"name": "t", "symbol": "g_table"}],
    "launches": [{"grid": [2, 3], "block": [4], "_note": 1}]})");
  ASSERT_EQ(s.launches.size(), 1u);
  EXPECT_EQ(s.launches[0].grid, (vm::Dim3{2, 3, 1}));
  EXPECT_EQ(s.launches[0].block, (vm::Dim3{4, 1, 1}));
  EXPECT_EQ(s.launches[0].dynamicSharedBytes, 0u);
  EXPECT_TRUE(s.launches[0].kernel.empty());
  EXPECT_EQ(s.buffers[0].init.kind, session::BufferInit::Kind::Zero);
  EXPECT_EQ(s.buffers[1].init.kind, session::BufferInit::Kind::Keep);
  EXPECT_EQ(s.module, specsDir() / "affine.ptx");
}

// ---------------------------------------------------------------------------------------------
// Specs that do not fit their module: found after loading it, before the first launch.

TEST(RunSpec, ModuleErrorsNameTheJsonPath) {
  EXPECT_EQ(runError(R"({"module": "nope.ptx", "launches": []})"),
            "cannot read '" + (specsDir() / "nope.ptx").string() + "': no such file or directory");
  EXPECT_EQ(runError(R"({"module": "affine.ptx", "launches": [{"kernel": "afine", "grid": [1], "block": [1]}]})"),
            R"(spec.json: launches[0].kernel: the module has no kernel "afine" (kernels: affine))");
  EXPECT_EQ(runError(affineSpec(R"([{"buffer": "out"}, {"buffer": "in"}, {"type": "u32", "value": 16}])")),
            "spec.json: launches[0].args: kernel affine takes 5 parameters, 3 given");
  EXPECT_EQ(runError(affineSpec(R"([{"buffer": "out"}, {"buffer": "in"}, {"type": "u64", "value": 16},
                                    {"type": "u32", "value": 1}, {"type": "u32", "value": 0}])")),
            "spec.json: launches[0].args[2]: parameter 2 of affine is 4 bytes; the u64 argument is 8");
  EXPECT_EQ(runError(affineSpec(R"([{"type": "u32", "value": 0}, {"buffer": "in"}, {"type": "u32", "value": 16},
                                    {"type": "u32", "value": 1}, {"type": "u32", "value": 0}])")),
            "spec.json: launches[0].args[0]: parameter 0 of affine is 8 bytes; the u32 argument is 4");
  EXPECT_EQ(runError(R"({"module": "symbols.ptx", "buffers": [{"name": "t", "symbol": "g_tabel"}], "launches": []})"),
            R"(spec.json: buffers[0].symbol: the module has no .global or .const variable "g_tabel")");
  EXPECT_EQ(runError(R"({"module": "symbols.ptx", "buffers": [{"name": "t", "symbol": "g_table"}],
                         "launches": [{"grid": [1], "block": [1], "args": [{"buffer": "t", "offset": 17}]}]})"),
            R"(spec.json: launches[0].args[0].offset: offset 17 is past the end of buffer "t" (16 bytes))");
  // An init file larger than its buffer, and one that does not exist.
  EXPECT_EQ(runError(affineSpec(kAffineArgs)
                         .replace(affineSpec(kAffineArgs).find(R"("bytes": 64})"), 12,
                                  R"("bytes": 8, "init": "four_u32.bin"})")),
            "spec.json: buffers[0].init: \"" + (specsDir() / "four_u32.bin").string() +
                "\" has 16 bytes, more than the 8 of buffer \"in\"");
  EXPECT_THAT(runError(R"({"module": "affine.ptx", "buffers": [{"name": "b", "bytes": 8, "init": "missing.bin"}],
                           "launches": []})"),
              "cannot read '" + (specsDir() / "missing.bin").string() + "': no such file or directory");
  // A module with two kernels needs "kernel".
  EXPECT_EQ(runError(R"({"module": "two_kernels.ptx", "launches": [{"grid": [1], "block": [1]}]})"),
            R"(spec.json: launches[0].kernel: the module has 2 kernels, so the launch must name one: first, second)");
}

// ---------------------------------------------------------------------------------------------
// Running.

TEST(RunSpec, GeneratorsFillBuffersLikeDataGenerators) {
  session::RunOutcome r = run(R"({"module": "affine.ptx", "buffers": [
      {"name": "in", "bytes": 1024, "init": {"random": {"dtype": "u32", "seed": 42, "min": 10, "max": 1000}}},
      {"name": "out", "bytes": 1024, "init": {"iota": {"dtype": "u32"}}},
      {"name": "f", "bytes": 64, "init": {"random": {"dtype": "f32", "seed": 9, "min": -1, "max": 1}}},
      {"name": "s", "bytes": 10, "init": {"random": {"dtype": "s16", "seed": 1, "min": -3, "max": 3}}},
      {"name": "file", "bytes": 20, "init": "four_u32.bin"}],
    "launches": [{"kernel": "affine", "grid": [1], "block": [128],
      "args": [{"buffer": "out", "offset": 512}, {"buffer": "in"}, {"type": "u32", "value": 128},
               {"type": "u32", "value": 3}, {"type": "u32", "value": 7}]}]})");
  ASSERT_TRUE(r.ok()) << r.error;
  std::vector<uint8_t> expectIn(1024), expectF(64), expectS(10);
  ASSERT_EQ(session::fillRandomInt(expectIn.data(), 1024, session::DType::U32, 42, 10, 1000), "");
  ASSERT_EQ(session::fillRandomFloat(expectF.data(), 64, session::DType::F32, 9, -1.0, 1.0), "");
  ASSERT_EQ(session::fillRandomInt(expectS.data(), 10, session::DType::S16, 1, static_cast<uint64_t>(-3), 3), "");
  EXPECT_EQ(std::memcmp(r.buffers["in"].data(), expectIn.data(), 1024), 0);
  EXPECT_EQ(std::memcmp(r.buffers["f"].data(), expectF.data(), 64), 0);
  EXPECT_EQ(std::memcmp(r.buffers["s"].data(), expectS.data(), 10), 0);
  auto in = as<uint32_t>(r.buffers["in"]);
  auto out = as<uint32_t>(r.buffers["out"]);
  for (uint32_t i = 0; i < 128; ++i) {
    EXPECT_EQ(out[i], i) << i; // iota, untouched
    EXPECT_EQ(out[128 + i], in[i] * 3 + 7) << i;
  }
  EXPECT_EQ(as<uint32_t>(r.buffers["file"]), (std::vector<uint32_t>{5, 6, 7, 8, 0}));
  ASSERT_EQ(r.launches.size(), 1u);
  EXPECT_EQ(r.launches[0].threads(), 128u);
  EXPECT_GT(r.launches[0].result.threadInstructions, 0u);
}

// Buffers of several MiB are filled and loaded in parallel slices: every thread count gives the
// bytes of one serial whole-buffer fill, and a file shorter than its buffer leaves the rest zero.
TEST(RunSpec, LargeBuffersFillInParallelWithTheSameBytes) {
  const uint64_t big = (uint64_t{3} << 20) + 5;
  std::vector<uint8_t> fileBytes((uint64_t{5} << 20) / 2 + 3);
  for (size_t i = 0; i < fileBytes.size(); ++i)
    fileBytes[i] = static_cast<uint8_t>(i * 7 + i / 4096);
  std::filesystem::path file = std::filesystem::temp_directory_path() / ("ptxray-big-" + std::to_string(::getpid()));
  std::ofstream(file, std::ios::binary)
      .write(reinterpret_cast<const char *>(fileBytes.data()), static_cast<std::streamsize>(fileBytes.size()));
  std::string text = fmt::format(R"({{"module": "affine.ptx", "buffers": [
      {{"name": "r", "bytes": {0}, "init": {{"random": {{"dtype": "f32", "seed": 5, "min": -1, "max": 1}}}}}},
      {{"name": "i", "bytes": {0}, "init": {{"iota": {{"dtype": "u64"}}}}}},
      {{"name": "f", "bytes": {0}, "init": "{1}"}},
      {{"name": "z", "bytes": {0}}}],
    "launches": []}})",
                                 big, file.string());
  std::vector<uint8_t> expectR(big), expectI(big), expectF(big, 0);
  ASSERT_EQ(session::fillRandomFloat(expectR.data(), big, session::DType::F32, 5, -1.0, 1.0), "");
  session::fillIota(expectI.data(), big, session::DType::U64);
  std::memcpy(expectF.data(), fileBytes.data(), fileBytes.size());
  for (unsigned threads : {1u, 3u, 8u}) {
    session::RunOptions options;
    options.launch.threads = threads;
    options.keepBuffers = true;
    session::RunOutcome r = session::runSpec(parse(text), options);
    ASSERT_TRUE(r.ok()) << r.error;
    auto same = [&](const char *name, const std::vector<uint8_t> &expect) {
      const std::vector<std::byte> &got = r.buffers[name];
      ASSERT_EQ(got.size(), expect.size()) << name;
      EXPECT_EQ(std::memcmp(got.data(), expect.data(), expect.size()), 0) << name << " with " << threads << " threads";
    };
    same("r", expectR);
    same("i", expectI);
    same("f", expectF);
    same("z", std::vector<uint8_t>(big, 0));
  }
  std::filesystem::remove(file);
}

// ---------------------------------------------------------------------------------------------
// Sessions: host buffers and host operations in issue order.

TEST(RunSpec, SessionOperationsMoveTheBytes) {
  session::RunSpec spec = session::loadRunSpec(specsDir() / "session.json");
  ASSERT_EQ(spec.operations.size(), 12u);
  EXPECT_EQ(spec.launches.size(), 2u);
  EXPECT_EQ(spec.operations[1].kind, session::SpecOperation::Kind::Launch);
  EXPECT_EQ(spec.operations[4].launch, 1u);
  EXPECT_EQ(spec.operations[2].stream, 2u);
  EXPECT_EQ(spec.operations[8].bytes, 64u); // memset: the rest of the buffer
  EXPECT_EQ(spec.operations[9].bytes, 40u); // 2D: width x height
  EXPECT_EQ(spec.host.pcieGeneration, 3);
  EXPECT_EQ(spec.buffers[0].memory, session::BufferMemory::Pinned);
  EXPECT_EQ(spec.buffers[1].memory, session::BufferMemory::Pageable);
  session::RunOptions options;
  options.launch.threads = 2;
  options.keepBuffers = true;
  options.writeOutputs = false;
  session::RunOutcome r = session::runSpec(spec, options);
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(r.operationsRun, 12u);
  ASSERT_EQ(r.launches.size(), 2u);
  EXPECT_EQ(r.launches[1].index, 1u);
  auto out = as<uint32_t>(r.buffers["hOut"]);
  ASSERT_EQ(out.size(), 256u);
  for (uint32_t i = 0; i < 256; ++i)
    EXPECT_EQ(out[i], i * 3 + 7) << i;
  // memset 0xab over all 64 bytes, then 4 rows of 10 bytes at a 16-byte pitch into rows 12 apart.
  const std::vector<std::byte> &grid = r.buffers["hGrid"];
  for (size_t i = 0; i < grid.size(); ++i)
    EXPECT_EQ(grid[i], i % 12 < 10 ? std::byte{0xab} : std::byte{0}) << i;
}

TEST(RunSpec, SessionErrorsNameTheJsonPath) {
  const std::string buffers =
      R"("buffers": [{"name": "h", "bytes": 16, "host": "pinned"}, {"name": "d", "bytes": 16}])";
  auto session = [&](const std::string &ops) {
    return R"({"module": "affine.ptx", )" + buffers + R"(, "operations": [)" + ops + "]}";
  };
  EXPECT_EQ(parseError(R"({"module": "affine.ptx", "launches": [], "operations": []})"),
            R"(spec.json: give "launches" or "operations", not both)");
  EXPECT_EQ(parseError(session(R"({"op": "memcpy"})")),
            "spec.json: operations[0].op: unknown operation \"memcpy\" (expected one of memcpy_h2d, memcpy_d2h, "
            "memcpy_d2d, memcpy2d, memset, launch, event_record, stream_wait_event, stream_synchronize, synchronize)");
  EXPECT_EQ(parseError(session(R"({"op": "memcpy_h2d", "dst": "h", "src": "d"})")),
            R"(spec.json: operations[0].dst: "h" is host memory; this operation's dst is device memory)");
  EXPECT_EQ(parseError(session(R"({"op": "memcpy_d2h", "dst": "h", "src": "d", "bytes": 17})")),
            R"(spec.json: operations[0].bytes: 17 bytes at offset 0 run past the end of buffer "d" (16 bytes))");
  EXPECT_EQ(parseError(session(R"({"op": "memcpy_h2d", "dst": "d", "src": "h", "stream": 1024})")),
            "spec.json: operations[0].stream: 1024 is too large (at most 1023)");
  EXPECT_EQ(parseError(session(R"({"op": "stream_wait_event", "stream": 1, "event": "e"})")),
            R"(spec.json: operations[0].event: event "e" is not recorded before this operation)");
  EXPECT_EQ(parseError(session(R"({"op": "memcpy2d", "dst": "d", "src": "h", "width": 8, "height": 2,
                                  "src_pitch": 4, "dst_pitch": 8})")),
            "spec.json: operations[0].src_pitch: pitch 4 is smaller than the row width 8");
  EXPECT_EQ(parseError(session(R"({"op": "memcpy2d", "dst": "d", "src": "h", "width": 8, "height": 3,
                                  "src_pitch": 8, "dst_pitch": 8})")),
            R"(spec.json: operations[0]: 24 bytes at offset 0 run past the end of buffer "h" (16 bytes))");
  EXPECT_EQ(parseError(session(R"({"op": "launch", "grid": [1], "block": [1], "args": [{"buffer": "h"}]})")),
            "spec.json: operations[0].args[0].buffer: \"h\" is host memory, which kernels cannot reach: copy it to "
            "a device buffer first (\"memcpy_h2d\")");
  EXPECT_EQ(parseError(session(R"({"op": "synchronize", "stream": 1})")),
            R"(spec.json: operations[0].stream: unknown key (expected "op", "device"))");
  EXPECT_EQ(parseError(R"({"module": "affine.ptx", "buffers": [{"name": "h", "bytes": 4, "host": "mapped"}],
                          "launches": []})"),
            R"(spec.json: buffers[0].host: expected "pinned" or "pageable", found "mapped")");
  EXPECT_EQ(parseError(R"({"module": "affine.ptx", "host": {"pcie_lanes": 3}, "launches": []})"),
            "spec.json: host.pcie_lanes: 3 lanes: expected 1, 2, 4, 8 or 16");
  // A module variable's extent is checked once the module is loaded.
  EXPECT_EQ(runError(R"({"module": "symbols.ptx", "buffers": [{"name": "t", "symbol": "g_table"},
                         {"name": "h", "bytes": 64, "host": "pageable"}],
                         "operations": [{"op": "memcpy_h2d", "dst": "t", "src": "h", "bytes": 20}]})"),
            R"(spec.json: operations[0]: 20 bytes at offset 0 run past the end of buffer "t" (16 bytes))");
}

TEST(RunSpec, BuffersAndOperationsNameTheirDevice) {
  const std::string buffers = R"("buffers": [{"name": "h", "bytes": 16, "host": "pinned"}, {"name": "d0", "bytes": 16},
                                             {"name": "d1", "bytes": 16, "device": 1}])";
  auto spec = [&](const std::string &ops) {
    return session::parseRunSpecText(R"({"module": "affine.ptx", "host": {"boards": 2}, )" + buffers +
                                         R"(, "operations": [)" + ops + "]}",
                                     "spec.json", ".");
  };
  session::RunSpec s =
      spec(R"({"op": "memcpy_h2d", "dst": "d1", "src": "h"}, {"op": "memcpy_d2d", "dst": "d1", "src": "d0"},
                          {"op": "memcpy_d2d", "dst": "d1", "src": "d0", "device": 1}, {"op": "memset", "dst": "d1"},
                          {"op": "synchronize", "device": 1}, {"op": "event_record", "event": "e", "device": 1},
                          {"op": "stream_wait_event", "stream": 2, "event": "e"})");
  EXPECT_EQ(s.host.boards, 2);
  EXPECT_EQ(s.findBuffer("d1")->device, 1u);
  ASSERT_EQ(s.operations.size(), 7u);
  // A copy is on its device buffer's device; between two devices, on the source's unless named.
  const unsigned expected[] = {1, 0, 1, 1, 1, 1, 0};
  for (size_t i = 0; i < 7; ++i)
    EXPECT_EQ(s.operations[i].device, expected[i]) << i;
  auto error = [&](const std::string &ops) {
    try {
      spec(ops);
    } catch (const session::SpecError &e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(error(R"({"op": "memcpy_h2d", "dst": "d1", "src": "h", "device": 0})"),
            "spec.json: operations[0].device: device 0: this operation's device memory is on device 1");
  EXPECT_EQ(error(R"({"op": "memcpy_d2d", "dst": "d1", "src": "d0", "device": 2})"),
            "spec.json: operations[0].device: device 2: this operation's device memory is on device 0 and 1");
  EXPECT_EQ(error(R"({"op": "launch", "grid": [1], "block": [1], "args": [{"buffer": "d1"}]})"),
            "spec.json: operations[0].args[0]: buffer \"d1\" is on device 1, the kernel runs on device 0: copy it "
            "over (memcpy_d2d) or launch on its device");
  EXPECT_EQ(error(R"({"op": "synchronize", "device": 32})"),
            "spec.json: operations[0].device: 32 is too large (at most 31)");
  EXPECT_EQ(parseError(R"({"module": "affine.ptx", "buffers": [{"name": "h", "bytes": 4, "host": "pinned",
                          "device": 1}], "launches": []})"),
            "spec.json: buffers[0].device: a host buffer is on no device");
  EXPECT_EQ(parseError(R"({"module": "affine.ptx", "host": {"boards": 0}, "launches": []})"),
            "spec.json: host.boards: must be 1 to 16");
}

TEST(RunSpec, ShortFilesZeroTheRestOfAModuleVariable) {
  std::filesystem::path file = std::filesystem::temp_directory_path() / ("ptxray-short-" + std::to_string(::getpid()));
  const uint32_t words[2] = {0xf0, 0xf1};
  std::ofstream(file, std::ios::binary).write(reinterpret_cast<const char *>(words), sizeof words);
  session::RunOutcome r = run(R"({"module": "symbols.ptx", "buffers": [{"name": "t", "symbol": "g_table", "init": ")" +
                              file.string() + R"("}], "launches": []})");
  std::filesystem::remove(file);
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(as<uint32_t>(r.buffers["t"]), (std::vector<uint32_t>{0xf0, 0xf1, 0, 0}));
}

TEST(RunSpec, SymbolBuffersKeepOrReplaceModuleVariables) {
  session::RunOptions options;
  options.launch.threads = 1;
  options.keepBuffers = true;
  options.writeOutputs = false;
  session::RunOutcome r = session::runSpec(session::loadRunSpec(specsDir() / "symbols.json"), options);
  ASSERT_TRUE(r.ok()) << r.error;
  // Launch 1 doubles g_table {1,2,3,4}; launch 2 reads {2,4,6,8} and doubles it again.
  EXPECT_EQ(as<uint32_t>(r.buffers["out"]), (std::vector<uint32_t>{1002, 1004, 1006, 1008}));
  EXPECT_EQ(as<uint32_t>(r.buffers["table"]), (std::vector<uint32_t>{4, 8, 12, 16}));
  EXPECT_EQ(as<uint32_t>(r.buffers["bias"]), (std::vector<uint32_t>{1000}));
  EXPECT_EQ(as<uint32_t>(r.buffers["count"]), (std::vector<uint32_t>{43}));
}

TEST(RunSpec, SymbolBufferAsPointerArgument) {
  // The kernel writes out[] through a pointer to the module's own g_table.
  session::RunOutcome r = run(R"({"module": "symbols.ptx", "buffers": [{"name": "t", "symbol": "g_table"}],
    "launches": [{"grid": [1], "block": [4], "args": [{"buffer": "t"}]}]})");
  ASSERT_TRUE(r.ok()) << r.error;
  // out aliases g_table: out[i] = g_table[i] + 100, then g_table[i] = 2 * (old) is stored after.
  EXPECT_EQ(as<uint32_t>(r.buffers["t"]), (std::vector<uint32_t>{2, 4, 6, 8}));
}

TEST(RunSpec, ScalarAndStructArguments) {
  // struct {u32 a; u32 b; u64 c} = {0x11223344, 0xffffffff, 0x0102030405060708} as bytes.
  session::RunOutcome r = run(R"({"module": "params.ptx", "buffers": [{"name": "out", "bytes": 32}],
    "launches": [{"kernel": "params", "grid": [1], "block": [1], "args": [
      {"type": "bytes", "hex": "44332211ffffffff0807060504030201"}, {"buffer": "out"},
      {"type": "f16", "value": 1.00146484375}, {"type": "s8", "value": -2}, {"type": "f32", "value": 0.1},
      {"type": "u64", "bits": "0xfedcba9876543210"}]}]})");
  ASSERT_TRUE(r.ok()) << r.error;
  const std::vector<std::byte> &out = r.buffers["out"];
  uint32_t a, b, f;
  uint64_t c, big;
  uint16_t h;
  uint8_t s;
  std::memcpy(&a, &out[0], 4);
  std::memcpy(&b, &out[4], 4);
  std::memcpy(&c, &out[8], 8);
  std::memcpy(&h, &out[16], 2);
  std::memcpy(&s, &out[18], 1);
  std::memcpy(&f, &out[20], 4);
  std::memcpy(&big, &out[24], 8);
  EXPECT_EQ(a, 0x11223344u);
  EXPECT_EQ(b, 0xffffffffu);
  EXPECT_EQ(c, 0x0102030405060708u);
  // 1 + 3 * 2^-11 lies halfway between 1 + 2^-10 (odd) and 1 + 2^-9 (even): ties go to even.
  EXPECT_EQ(h, 0x3c02);
  EXPECT_EQ(s, 0xfe);
  EXPECT_EQ(f, std::bit_cast<uint32_t>(0.1f));
  EXPECT_EQ(big, 0xfedcba9876543210u);
}

TEST(RunSpec, ArgumentBytes) {
  auto bytesOf = [](const std::string &arg) {
    session::RunSpec s =
        parse(R"({"module": "m.ptx", "launches": [{"grid": [1], "block": [1], "args": [)" + arg + "]}]}");
    std::vector<unsigned> out;
    for (std::byte b : s.launches[0].args[0].bytes)
      out.push_back(static_cast<unsigned>(b));
    return out;
  };
  using V = std::vector<unsigned>;
  EXPECT_EQ(bytesOf(R"({"type": "u8", "value": 255})"), (V{0xff}));
  EXPECT_EQ(bytesOf(R"({"type": "s8", "value": -128})"), (V{0x80}));
  EXPECT_EQ(bytesOf(R"({"type": "b8", "value": -1})"), (V{0xff}));
  EXPECT_EQ(bytesOf(R"({"type": "u16", "value": 258})"), (V{2, 1}));
  EXPECT_EQ(bytesOf(R"({"type": "s32", "value": -2})"), (V{0xfe, 0xff, 0xff, 0xff}));
  EXPECT_EQ(bytesOf(R"({"type": "s64", "value": -9223372036854775808})"), (V{0, 0, 0, 0, 0, 0, 0, 0x80}));
  EXPECT_EQ(bytesOf(R"({"type": "u64", "value": 18446744073709551615})"), (V(8, 0xff)));
  EXPECT_EQ(bytesOf(R"({"type": "f32", "value": 1.5})"), (V{0, 0, 0xc0, 0x3f}));
  EXPECT_EQ(bytesOf(R"({"type": "f32", "bits": "0x7fc00001"})"), (V{1, 0, 0xc0, 0x7f}));
  EXPECT_EQ(bytesOf(R"({"type": "f32", "value": "-inf"})"), (V{0, 0, 0x80, 0xff}));
  EXPECT_EQ(bytesOf(R"({"type": "f64", "value": 2})"), (V{0, 0, 0, 0, 0, 0, 0, 0x40}));
  EXPECT_EQ(bytesOf(R"({"type": "f16", "value": 1.00048828125})"), (V{0x00, 0x3c})); // tie to even
  EXPECT_EQ(bytesOf(R"({"type": "f16", "value": 65520})"), (V{0x00, 0x7c}));         // rounds to inf
  EXPECT_EQ(bytesOf(R"({"type": "bf16", "value": 1.5})"), (V{0xc0, 0x3f}));
  EXPECT_EQ(bytesOf(R"({"type": "bytes", "hex": "00ff10Ab"})"), (V{0, 0xff, 0x10, 0xab}));
}

TEST(RunSpec, ThirtyTwoBitModulePointersAreFourBytes) {
  session::RunOutcome r = run(R"({"module": "ptr32.ptx", "buffers": [{"name": "out", "bytes": 128}],
    "launches": [{"grid": [1], "block": [32], "args": [{"buffer": "out"}, {"type": "u32", "value": 100}]}]})");
  ASSERT_TRUE(r.ok()) << (r.launches.empty() ? r.error : r.launches[0].result.error);
  auto out = as<uint32_t>(r.buffers["out"]);
  for (uint32_t i = 0; i < 32; ++i)
    EXPECT_EQ(out[i], i + 100) << i;
  // An 8-byte value where the 32-bit module's pointer parameter is 4 bytes.
  EXPECT_EQ(runError(R"({"module": "ptr32.ptx", "launches": [{"grid": [1], "block": [1],
                         "args": [{"type": "u64", "value": 0}, {"type": "u32", "value": 1}]}]})"),
            "spec.json: launches[0].args[0]: parameter 0 of k32 is 4 bytes; the u64 argument is 8");
  EXPECT_EQ(runError(R"({"module": "affine.ptx", "buffers": [{"name": "b", "bytes": 4}], "launches": [{"grid": [1],
                         "block": [1], "args": [{"buffer": "b"}, {"buffer": "b"}, {"buffer": "b"},
                         {"type": "u32", "value": 1}, {"type": "u32", "value": 1}]}]})"),
            "spec.json: launches[0].args[2]: parameter 2 of affine is 4 bytes; a pointer is 8 bytes in this 64-bit "
            "module");
}

TEST(RunSpec, DynamicSharedMemoryAndBarriers) {
  session::RunOutcome r = run(R"({"module": "reverse.ptx", "buffers": [
      {"name": "d", "bytes": 2048, "init": {"iota": {"dtype": "u32"}}}],
    "launches": [{"grid": [4], "block": [128], "dynamic_shared_bytes": 512, "args": [{"buffer": "d"}]}]})");
  ASSERT_TRUE(r.ok()) << r.error;
  auto d = as<uint32_t>(r.buffers["d"]);
  for (uint32_t i = 0; i < 512; ++i)
    EXPECT_EQ(d[i], i / 128 * 128 + 127 - i % 128) << i;
}

TEST(RunSpec, OutputsAreWrittenRelativeToTheSpec) {
  TempDir tmp;
  std::string text = R"({"module": ")" + (specsDir() / "affine.ptx").string() + R"(",
    "buffers": [{"name": "in", "bytes": 64, "init": {"iota": {"dtype": "u32"}}}, {"name": "out", "bytes": 64},
                {"name": "t", "bytes": 3, "init": {"iota": {"dtype": "u8"}}}],
    "launches": [{"kernel": "affine", "grid": [1], "block": [16],
      "args": [{"buffer": "out"}, {"buffer": "in"}, {"type": "u32", "value": 16},
               {"type": "u32", "value": 2}, {"type": "u32", "value": 1}]}],
    "outputs": [{"buffer": "out", "file": "results/out.bin"}, {"buffer": "t", "file": "t.bin"}]})";
  session::RunOptions options;
  options.launch.threads = 1;
  session::RunOutcome r = session::runSpec(session::parseRunSpecText(text, "spec.json", tmp.path()), options);
  ASSERT_TRUE(r.ok()) << r.error;
  ASSERT_EQ(r.outputsWritten.size(), 2u);
  EXPECT_EQ(r.outputsWritten[0], tmp.path() / "results" / "out.bin");
  std::string out = readFile(tmp.path() / "results" / "out.bin");
  ASSERT_EQ(out.size(), 64u);
  std::vector<uint32_t> v(16);
  std::memcpy(v.data(), out.data(), 64);
  for (uint32_t i = 0; i < 16; ++i)
    EXPECT_EQ(v[i], 2 * i + 1) << i;
  EXPECT_EQ(readFile(tmp.path() / "t.bin"), std::string("\0\1\2", 3));
}

TEST(RunSpec, SymbolOutputReadsTheModuleVariable) {
  TempDir tmp;
  std::string text = R"({"module": ")" + (specsDir() / "symbols.ptx").string() + R"(",
    "buffers": [{"name": "out", "bytes": 16}, {"name": "table", "symbol": "g_table"}],
    "launches": [{"kernel": "useSymbols", "grid": [1], "block": [4], "args": [{"buffer": "out"}]}],
    "outputs": [{"buffer": "table", "file": "table.bin"}]})";
  session::RunOptions options;
  options.launch.threads = 1;
  session::RunOutcome r = session::runSpec(session::parseRunSpecText(text, "spec.json", tmp.path()), options);
  ASSERT_TRUE(r.ok()) << r.error;
  std::string table = readFile(tmp.path() / "table.bin");
  ASSERT_EQ(table.size(), 16u);
  std::vector<uint32_t> v(4);
  std::memcpy(v.data(), table.data(), 16);
  EXPECT_EQ(v, (std::vector<uint32_t>{2, 4, 6, 8}));
}

TEST(RunSpec, FaultStopsTheRunAndSkipsOutputs) {
  TempDir tmp;
  std::string text = readFile(specsDir() / "affine_oob.json");
  text.insert(text.rfind('}'), R"(, "outputs": [{"buffer": "out", "file": "out.bin"}])");
  text.replace(text.find("\"affine.ptx\""), 12, "\"" + (specsDir() / "affine.ptx").string() + "\"");
  std::string twice = text;
  size_t launches = twice.find("\"launches\": [") + 13;
  size_t end = twice.find("\n  ]", launches);
  std::string one = twice.substr(launches, end - launches);
  twice.insert(end, "," + one);
  session::RunOptions options;
  options.launch.threads = 1;
  size_t callbacks = 0;
  options.onLaunch = [&](const session::LaunchReport &) { ++callbacks; };
  session::RunOutcome r = session::runSpec(session::parseRunSpecText(twice, "oob.json", tmp.path()), options);
  EXPECT_FALSE(r.ok());
  ASSERT_EQ(r.launches.size(), 1u) << "the second launch must not run";
  EXPECT_EQ(callbacks, 1u);
  EXPECT_EQ(r.launches[0].result.status, vm::LaunchStatus::Faulted);
  ASSERT_FALSE(r.launches[0].result.faults.empty());
  EXPECT_EQ(r.launches[0].result.faults[0].kind, vm::FaultKind::OutOfBounds);
  EXPECT_TRUE(r.outputsWritten.empty());
  EXPECT_FALSE(std::filesystem::exists(tmp.path() / "out.bin"));

  // Memcheck keeps going and reports every bad access (up to maxFaults).
  options.launch.continueOnError = true;
  options.launch.maxFaults = 1000;
  r = session::runSpec(session::parseRunSpecText(text, "oob.json", tmp.path()), options);
  ASSERT_EQ(r.launches.size(), 1u);
  EXPECT_GT(r.launches[0].result.faults.size(), 100u);
  EXPECT_LE(r.launches[0].result.faults.size(), 1000u - 16u);
}

TEST(RunSpec, RefusedLaunch) {
  session::RunOptions options;
  options.launch.threads = 1;
  session::RunOutcome r = session::runSpec(session::loadRunSpec(specsDir() / "affine_refused.json"), options);
  EXPECT_FALSE(r.ok());
  ASSERT_EQ(r.launches.size(), 1u);
  EXPECT_EQ(r.launches[0].result.status, vm::LaunchStatus::Refused);
  EXPECT_THAT(r.launches[0].result.error, HasSubstr("invalid configuration argument"));
}

TEST(RunSpec, DevicePrintfIsCollected) {
  session::RunOptions options;
  options.launch.threads = 1;
  session::RunOutcome r = session::runSpec(session::loadRunSpec(specsDir() / "printf.json"), options);
  ASSERT_TRUE(r.ok()) << (r.launches.empty() ? r.error : r.launches[0].result.error);
  EXPECT_EQ(r.printfOutput, "thread 0 of 4\nthread 1 of 4\nthread 2 of 4\nthread 3 of 4\n");
}

TEST(RunSpec, RunsOnTheTargetGiven) {
  session::RunOptions options;
  options.target = *arch::findArch("h100").target;
  options.launch.threads = 1;
  // affine.json launches 128-thread blocks: fine on both; a kernel's refusal names the target's limits.
  EXPECT_TRUE(session::runSpec(session::loadRunSpec(specsDir() / "affine.json"), options).ok());
  const session::RunOutcome refused =
      session::runSpec(session::loadRunSpec(specsDir() / "affine_refused.json"), options);
  ASSERT_EQ(refused.launches.size(), 1u);
  EXPECT_EQ(refused.launches[0].result.refusal, vm::Refusal::InvalidConfiguration);
  EXPECT_NE(refused.launches[0].result.error.find("on sm_90"), std::string::npos) << refused.launches[0].result.error;
}

} // namespace
} // namespace ptxray::test
