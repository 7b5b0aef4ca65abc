// The CPU references of the virtual-GPU end-to-end kernels (tests/kernels/vm/Reference.h) on tiny
// launches computed by hand, and the consistency of the committed specs with the references and the
// committed PTX.
#include "kernels/vm/Reference.h"
#include "support/TestFiles.h"

#include <gtest/gtest.h>

#include <cmath>
#include <set>

namespace ptxray::vm::ref {
namespace {

using spec::RunSpec;

/// A spec from JSON text (buffers "zero"-initialized unless the text says otherwise).
RunSpec specFromJson(const std::string &text) {
  return spec::parseRunSpec(nlohmann::json::parse(text), std::filesystem::path("/nonexistent/spec.json"));
}

template <class T> Bytes bytesOf(const std::vector<T> &v) {
  Bytes b(v.size() * sizeof(T));
  std::memcpy(b.data(), v.data(), b.size());
  return b;
}

template <class T> std::vector<T> valuesOf(const Bytes &b) {
  std::vector<T> v(b.size() / sizeof(T));
  std::memcpy(v.data(), b.data(), v.size() * sizeof(T));
  return v;
}

/// Runs `specText` with the named buffers overwritten by `inputs`; returns the expectation.
Expected run(const std::string &specText, const std::map<std::string, Bytes> &inputs) {
  RunSpec s = specFromJson(specText);
  Memory mem = initialMemory(s);
  for (const auto &[name, bytes] : inputs) {
    Bytes &b = mem.buffers.at(name);
    EXPECT_EQ(b.size(), bytes.size()) << name;
    b = bytes;
  }
  return runReference(s, mem);
}

TEST(VmReferenceSelfTest, PlainNames) {
  EXPECT_EQ(plainName("offsetCopy"), "offsetCopy");
  EXPECT_EQ(plainName("_Z14transposeNaivePfPKfii"), "transposeNaive");
  EXPECT_EQ(plainName("_Z14recursiveCallsPKjPjPyi"), "recursiveCalls");
  EXPECT_EQ(plainName("_ZN6vmtest6g_sumsE"), "vmtest::g_sums");
  EXPECT_EQ(plainName("_Zbroken"), "_Zbroken");
}

TEST(VmReferenceSelfTest, SpecArguments) {
  RunSpec s = specFromJson(R"({"module": "m.ptx", "buffers": [{"name": "b", "bytes": 8, "init": "zero"}],
    "launches": [{"kernel": "k", "grid": [2], "block": [3, 4], "dynamic_shared_bytes": 16, "args": [
      {"buffer": "b", "offset": 4}, {"type": "s32", "value": -2}, {"type": "u64", "value": 18446744073709551615},
      {"type": "f32", "value": 0.5}, {"type": "f32", "bits": "0xff800000"}, {"type": "f64", "value": -1},
      {"type": "u16", "value": 65535}, {"type": "bytes", "hex": "0aFf"}]}],
    "outputs": [{"buffer": "b", "file": "out/b.bin"}]})");
  ASSERT_EQ(s.launches.size(), 1u);
  const auto &l = s.launches[0];
  EXPECT_EQ(s.module, std::filesystem::path("/nonexistent/m.ptx"));
  EXPECT_EQ(l.grid.x, 2u);
  EXPECT_EQ(l.grid.y, 1u);
  EXPECT_EQ(l.block.y, 4u);
  EXPECT_EQ(l.dynamicSharedBytes, 16u);
  EXPECT_TRUE(l.args[0].isBuffer);
  EXPECT_EQ(l.args[0].offset, 4u);
  EXPECT_EQ(l.args[1].bytes, (Bytes{0xfe, 0xff, 0xff, 0xff}));
  EXPECT_EQ(l.args[2].bytes, Bytes(8, 0xff));
  EXPECT_EQ(l.args[3].bytes, (Bytes{0, 0, 0, 0x3f}));
  EXPECT_EQ(l.args[4].bytes, (Bytes{0, 0, 0x80, 0xff}));
  EXPECT_EQ(l.args[5].bytes, (Bytes{0, 0, 0, 0, 0, 0, 0xf0, 0xbf}));
  EXPECT_EQ(l.args[6].bytes, (Bytes{0xff, 0xff}));
  EXPECT_EQ(l.args[7].bytes, (Bytes{0x0a, 0xff}));
  EXPECT_THROW(specFromJson(R"({"module": "m", "launches": [{"kernel": "k", "grid": [1], "block": [1],
    "args": [{"buffer": "missing"}]}]})"),
               spec::SpecError);
  EXPECT_THROW(specFromJson(R"({"module": "m", "launches": [{"kernel": "k", "grid": [1], "block": [1],
    "args": [{"type": "u8", "bits": "0x100"}]}]})"),
               spec::SpecError);
}

TEST(VmReferenceSelfTest, InitGenerators) {
  Bytes iota = spec::initialContents(nlohmann::json::parse(R"({"iota": {"dtype": "u16"}})"), 7, ".");
  EXPECT_EQ(iota, (Bytes{0, 0, 1, 0, 2, 0, 0}));
  Bytes rnd = spec::initialContents(
      nlohmann::json::parse(R"({"random": {"dtype": "u32", "seed": 0, "min": 0, "max": 9}})"), 8, ".");
  EXPECT_EQ(valuesOf<uint32_t>(rnd), (std::vector<uint32_t>{5, 0}));
  Bytes f = spec::initialContents(
      nlohmann::json::parse(R"({"random": {"dtype": "f32", "seed": 0, "min": -1, "max": 1}})"), 4, ".");
  EXPECT_EQ(valuesOf<uint32_t>(f)[0], 0x3f444150u);
  EXPECT_EQ(spec::initialContents("zero", 3, "."), Bytes(3, 0));
  EXPECT_THROW(spec::initialContents(
                   nlohmann::json::parse(R"({"random": {"dtype": "u8", "seed": 0, "min": 0, "max": 300}})"), 4, "."),
               spec::SpecError);
}

TEST(VmReferenceSelfTest, OffsetAndStrideCopy) {
  const char *specText = R"({"module": "m", "buffers": [{"name": "in", "bytes": 24}, {"name": "out", "bytes": 24}],
    "launches": [{"kernel": "offsetCopy", "grid": [1], "block": [4],
      "args": [{"buffer": "out"}, {"buffer": "in"}, {"type": "s32", "value": 1}]}],
    "outputs": [{"buffer": "out", "file": "o"}]})";
  Expected e = run(specText, {{"in", bytesOf<float>({1, 2, 3, 4, 5, 6})}});
  EXPECT_EQ(valuesOf<float>(e.outputs.at("out")), (std::vector<float>{0, 2, 3, 4, 5, 0}));

  const char *strideText = R"({"module": "m", "buffers": [{"name": "in", "bytes": 24}, {"name": "out", "bytes": 24}],
    "launches": [{"kernel": "strideCopy", "grid": [1], "block": [3],
      "args": [{"buffer": "out"}, {"buffer": "in"}, {"type": "s32", "value": 2}]}],
    "outputs": [{"buffer": "out", "file": "o"}]})";
  e = run(strideText, {{"in", bytesOf<float>({1, 2, 3, 4, 5, 6})}});
  EXPECT_EQ(valuesOf<float>(e.outputs.at("out")), (std::vector<float>{1, 0, 3, 0, 5, 0}));
}

TEST(VmReferenceSelfTest, MatrixProductsUseFusedMultiplyAdd) {
  // A (16 x 16) = identity except row 0 = [1, 1 + 2^-12, 0...]; B (16 x 16) with B[i][c] = i + 16c
  // except column 0 = [-(1 + 2^-11), 1 + 2^-12, 0...]. C[0][0] = fma(1 + 2^-12, 1 + 2^-12, -(1 + 2^-11))
  // = 2^-24 exactly; rounding the product first would give 0.
  std::vector<float> a(256, 0.0f), b(256);
  for (int r = 0; r < 16; ++r)
    a[r * 16 + r] = 1.0f;
  const float p = 1.0f + std::ldexp(1.0f, -12);
  a[1] = p;
  for (int i = 0; i < 16; ++i)
    for (int c = 0; c < 16; ++c)
      b[i * 16 + c] = float(i + 16 * c);
  for (int i = 0; i < 16; ++i)
    b[i * 16] = 0.0f;
  b[0] = -(1.0f + std::ldexp(1.0f, -11));
  b[16] = p;
  for (const char *kernel : {"simpleMultiply", "coalescedMultiply", "sharedABMultiply"}) {
    std::string specText = std::string(R"({"module": "m", "buffers": [{"name": "a", "bytes": 1024},
      {"name": "b", "bytes": 1024}, {"name": "c", "bytes": 1024}],
      "launches": [{"kernel": ")") +
                           kernel + R"(", "grid": [1, 1], "block": [16, 16],
        "args": [{"buffer": "a"}, {"buffer": "b"}, {"buffer": "c"}, {"type": "s32", "value": 16}]}],
      "outputs": [{"buffer": "c", "file": "c"}]})";
    auto c = valuesOf<float>(run(specText, {{"a", bytesOf(a)}, {"b", bytesOf(b)}}).outputs.at("c"));
    EXPECT_EQ(c[0], std::ldexp(1.0f, -24)) << kernel;
    EXPECT_EQ(c[1], std::fmaf(p, 17.0f, 16.0f)) << kernel; // row 0: B[0][1] + p * B[1][1]
    for (int r = 1; r < 16; ++r)
      for (int col = 1; col < 16; ++col)
        EXPECT_EQ(c[r * 16 + col], float(r + 16 * col)) << kernel << " " << r << "," << col;
  }
}

TEST(VmReferenceSelfTest, MatrixTimesItsTranspose) {
  // Row r of A (16 x 16) has a single 2 in column r % 4: A A^T[r][c] = 4 where r and c agree mod 4.
  std::vector<float> a(256, 0.0f);
  for (int r = 0; r < 16; ++r)
    a[r * 16 + r % 4] = 2.0f;
  for (const char *kernel : {"simpleMultiplyAAT", "sharedMultiplyAAT"}) {
    std::string specText = std::string(R"({"module": "m", "buffers": [{"name": "a", "bytes": 1024},
      {"name": "c", "bytes": 1024}], "launches": [{"kernel": ")") +
                           kernel + R"(", "grid": [1, 1],
      "block": [16, 16], "args": [{"buffer": "a"}, {"buffer": "c"}, {"type": "s32", "value": 16}]}],
      "outputs": [{"buffer": "c", "file": "c"}]})";
    auto c = valuesOf<float>(run(specText, {{"a", bytesOf(a)}}).outputs.at("c"));
    for (int r = 0; r < 16; ++r)
      for (int col = 0; col < 16; ++col)
        EXPECT_EQ(c[r * 16 + col], (r % 4 == col % 4) ? 4.0f : 0.0f) << kernel << " " << r << "," << col;
  }
}

TEST(VmReferenceSelfTest, Transpose) {
  // A 32 x 64 matrix (height 32, width 64): two tiles side by side.
  std::vector<float> in(32 * 64);
  for (int y = 0; y < 32; ++y)
    for (int x = 0; x < 64; ++x)
      in[y * 64 + x] = float(y * 100 + x);
  const char *specText = R"({"module": "m", "buffers": [{"name": "in", "bytes": 8192}, {"name": "out", "bytes": 8192}],
    "launches": [{"kernel": "_Z18transposeCoalescedPfPKfii", "grid": [2, 1], "block": [32, 8],
      "args": [{"buffer": "out"}, {"buffer": "in"}, {"type": "s32", "value": 64}, {"type": "s32", "value": 32}]}],
    "outputs": [{"buffer": "out", "file": "o"}]})";
  auto out = valuesOf<float>(run(specText, {{"in", bytesOf(in)}}).outputs.at("out"));
  EXPECT_EQ(out[0], 0.0f);
  EXPECT_EQ(out[1], 100.0f);             // out[x=0][y=1]
  EXPECT_EQ(out[32], 1.0f);              // out[x=1][y=0]
  EXPECT_EQ(out[63 * 32 + 31], 3163.0f); // out[x=63][y=31]
}

TEST(VmReferenceSelfTest, ShuffleReductionFollowsTheTree) {
  // Lane 0 = 2^24, lanes 1 and 17 = 1: the tree adds 1 + 1 first (offset 16), then 2^24 + 2 exactly;
  // a left-to-right sum would lose both ones.
  std::vector<float> v(32, 0.0f);
  v[0] = 16777216.0f;
  v[1] = 1.0f;
  v[17] = 1.0f;
  EXPECT_EQ(kernels::warpSumDown(v), 16777218.0f);

  std::vector<float> in(64);
  for (int i = 0; i < 64; ++i)
    in[i] = float(i + 1);
  const char *specText = R"({"module": "m", "buffers": [{"name": "in", "bytes": 256}, {"name": "p", "bytes": 8}],
    "launches": [{"kernel": "blockReduceShfl", "grid": [2], "block": [32],
      "args": [{"buffer": "in"}, {"buffer": "p"}, {"type": "s32", "value": 40}]}],
    "outputs": [{"buffer": "p", "file": "p"}]})";
  auto p = valuesOf<float>(run(specText, {{"in", bytesOf(in)}}).outputs.at("p"));
  EXPECT_EQ(p, (std::vector<float>{528.0f, 292.0f})); // 1..32; 33..40 (n = 40 cuts the rest)
}

TEST(VmReferenceSelfTest, WarpIntegerOps) {
  std::vector<uint32_t> in(32);
  for (uint32_t l = 0; l < 32; ++l)
    in[l] = l;
  const char *specText = R"({"module": "m", "buffers": [{"name": "in", "bytes": 128}, {"name": "sum", "bytes": 128},
    {"name": "scan", "bytes": 128}, {"name": "gathered", "bytes": 128}, {"name": "ballot", "bytes": 128}],
    "launches": [{"kernel": "warpOpsInt", "grid": [1], "block": [32], "args": [{"buffer": "in"},
      {"buffer": "sum"}, {"buffer": "scan"}, {"buffer": "gathered"}, {"buffer": "ballot"}]}],
    "outputs": [{"buffer": "sum", "file": "a"}, {"buffer": "scan", "file": "b"}, {"buffer": "gathered", "file": "c"},
      {"buffer": "ballot", "file": "d"}]})";
  Expected e = run(specText, {{"in", bytesOf(in)}});
  auto sum = valuesOf<uint32_t>(e.outputs.at("sum")), scan = valuesOf<uint32_t>(e.outputs.at("scan"));
  auto gathered = valuesOf<uint32_t>(e.outputs.at("gathered")), ballot = valuesOf<uint32_t>(e.outputs.at("ballot"));
  for (uint32_t l = 0; l < 32; ++l) {
    EXPECT_EQ(sum[l], 496u);
    EXPECT_EQ(scan[l], l * (l + 1) / 2);
    EXPECT_EQ(gathered[l], l >> 3);
    EXPECT_EQ(ballot[l], 0xaaaaaaaau);
  }
}

TEST(VmReferenceSelfTest, WarpReduceSync) {
  std::vector<uint32_t> in(32);
  for (uint32_t l = 0; l < 32; ++l)
    in[l] = 3 * l;
  const char *specText = R"({"module": "m", "buffers": [{"name": "in", "bytes": 128}, {"name": "out", "bytes": 32}],
    "launches": [{"kernel": "warpReduceSync", "grid": [1], "block": [32], "args": [{"buffer": "in"}, {"buffer": "out"}]}],
    "outputs": [{"buffer": "out", "file": "o"}]})";
  auto out = valuesOf<uint32_t>(run(specText, {{"in", bytesOf(in)}}).outputs.at("out"));
  EXPECT_EQ(out, (std::vector<uint32_t>{1488, uint32_t(-5000), uint32_t(93 - 5000), 0, 0x80000000u, 127, 32, 360}));
}

TEST(VmReferenceSelfTest, Scans) {
  const char *hs = R"({"module": "m", "buffers": [{"name": "in", "bytes": 32}, {"name": "out", "bytes": 32}],
    "launches": [{"kernel": "scanHillisSteele", "grid": [2], "block": [4], "args": [{"buffer": "in"}, {"buffer": "out"}]}],
    "outputs": [{"buffer": "out", "file": "o"}]})";
  std::vector<uint32_t> in = {1, 2, 3, 4, 5, 6, 7, 8};
  EXPECT_EQ(valuesOf<uint32_t>(run(hs, {{"in", bytesOf(in)}}).outputs.at("out")),
            (std::vector<uint32_t>{1, 3, 6, 10, 5, 11, 18, 26}));

  // Two blocks of 2 threads scan 4 elements each, then the block totals are added back.
  const char *bl = R"({"module": "m", "buffers": [{"name": "in", "bytes": 32}, {"name": "out", "bytes": 32},
      {"name": "sums", "bytes": 8}, {"name": "offsets", "bytes": 8}, {"name": "total", "bytes": 4}],
    "launches": [
      {"kernel": "scanBlelloch", "grid": [2], "block": [2], "dynamic_shared_bytes": 16,
       "args": [{"buffer": "in"}, {"buffer": "out"}, {"buffer": "sums"}]},
      {"kernel": "scanBlelloch", "grid": [1], "block": [1], "dynamic_shared_bytes": 8,
       "args": [{"buffer": "sums"}, {"buffer": "offsets"}, {"buffer": "total"}]},
      {"kernel": "addBlockOffsets", "grid": [2], "block": [2], "args": [{"buffer": "out"}, {"buffer": "offsets"}]}],
    "outputs": [{"buffer": "out", "file": "o"}, {"buffer": "sums", "file": "s"}, {"buffer": "offsets", "file": "f"},
      {"buffer": "total", "file": "t"}]})";
  Expected e = run(bl, {{"in", bytesOf(in)}});
  EXPECT_EQ(valuesOf<uint32_t>(e.outputs.at("out")), (std::vector<uint32_t>{0, 1, 3, 6, 10, 15, 21, 28}));
  EXPECT_EQ(valuesOf<uint32_t>(e.outputs.at("sums")), (std::vector<uint32_t>{10, 26}));
  EXPECT_EQ(valuesOf<uint32_t>(e.outputs.at("offsets")), (std::vector<uint32_t>{0, 10}));
  EXPECT_EQ(valuesOf<uint32_t>(e.outputs.at("total")), (std::vector<uint32_t>{36}));
}

TEST(VmReferenceSelfTest, HistogramAndFloatMax) {
  const char *h = R"({"module": "m", "buffers": [{"name": "in", "bytes": 24}, {"name": "hist", "bytes": 1024}],
    "launches": [{"kernel": "histShared", "grid": [1], "block": [2],
      "args": [{"buffer": "in"}, {"buffer": "hist"}, {"type": "s32", "value": 5}]}],
    "outputs": [{"buffer": "hist", "file": "h"}]})";
  auto hist = valuesOf<uint32_t>(run(h, {{"in", bytesOf<uint32_t>({1, 257, 2, 3, 3, 9})}}).outputs.at("hist"));
  std::vector<uint32_t> want(256, 0);
  want[1] = 2;
  want[2] = 1;
  want[3] = 2;
  EXPECT_EQ(hist, want);

  const char *m = R"({"module": "m", "buffers": [{"name": "in", "bytes": 12}, {"name": "max", "bytes": 4},
      {"name": "mm", "bytes": 8}],
    "launches": [
      {"kernel": "fillFloat", "grid": [1], "block": [32], "args": [{"buffer": "max"}, {"type": "f32", "bits": "0xff800000"},
        {"type": "s32", "value": 1}]},
      {"kernel": "maxFloat", "grid": [1], "block": [4], "args": [{"buffer": "in"}, {"buffer": "max"}, {"buffer": "mm"},
        {"type": "s32", "value": 3}]}],
    "outputs": [{"buffer": "max", "file": "a"}, {"buffer": "mm", "file": "b"}]})";
  Expected e = run(m, {{"in", bytesOf<float>({-5.5f, -3.25f, -2.75f})}});
  EXPECT_EQ(valuesOf<float>(e.outputs.at("max")), (std::vector<float>{-2.75f}));
  EXPECT_EQ(valuesOf<int32_t>(e.outputs.at("mm")), (std::vector<int32_t>{-5, 0})); // from 0, truncated toward 0
}

TEST(VmReferenceSelfTest, PrintfLines) {
  const char *p = R"({"module": "m", "buffers": [{"name": "vals", "bytes": 8}, {"name": "out", "bytes": 8}],
    "launches": [{"kernel": "printfFormats", "grid": [1], "block": [2], "args": [{"buffer": "vals"}, {"buffer": "out"}]}],
    "outputs": [{"buffer": "out", "file": "o"}]})";
  Expected e = run(p, {{"vals", bytesOf<int32_t>({-1, 4})}});
  EXPECT_EQ(e.stdoutLines, (std::vector<std::string>{
                               "header:     2|vm    |3.142|0000beef|%",
                               "t=0 u=4294967295 x=ffffffff f=-0.250000 s=even ll=-1000000007 c=a",
                               "t=1 u=4 x=4 f=1.000000 s=odd ll=4000000028 c=b",
                           }));
  EXPECT_EQ(valuesOf<uint32_t>(e.outputs.at("out")), (std::vector<uint32_t>{0xfffffffdu, 12}));
  EXPECT_EQ(sortedLines("b\na\n"), (std::vector<std::string>{"a", "b"}));
}

TEST(VmReferenceSelfTest, MallocAcrossLaunches) {
  const char *m = R"({"module": "m", "buffers": [{"name": "out", "bytes": 8}, {"name": "seeds", "bytes": 4},
      {"name": "slots", "bytes": 8}, {"name": "out2", "bytes": 4}],
    "launches": [
      {"kernel": "mallocPerThread", "grid": [1], "block": [2], "args": [{"buffer": "out"}]},
      {"kernel": "mallocKeep", "grid": [1], "block": [1], "args": [{"buffer": "slots"}, {"buffer": "seeds"}]},
      {"kernel": "mallocConsume", "grid": [1], "block": [1], "args": [{"buffer": "slots"}, {"buffer": "out2"}]}],
    "outputs": [{"buffer": "out", "file": "a"}, {"buffer": "slots", "file": "b"}, {"buffer": "out2", "file": "c"}]})";
  RunSpec s = specFromJson(m);
  Memory mem = initialMemory(s);
  mem.buffers["seeds"] = bytesOf<uint32_t>({1});
  Expected e = runReference(s, mem);
  EXPECT_EQ(valuesOf<uint32_t>(e.outputs.at("out")), (std::vector<uint32_t>{3041712694u, 774553887u}));
  EXPECT_EQ(valuesOf<uint64_t>(e.outputs.at("slots")), (std::vector<uint64_t>{0}));
  EXPECT_EQ(valuesOf<uint32_t>(e.outputs.at("out2")), (std::vector<uint32_t>{703559836u})); // fold of 1, 8, ..., 50
  EXPECT_TRUE(mem.heap.empty());
}

TEST(VmReferenceSelfTest, AssertFails) {
  const char *a = R"({"module": "m", "buffers": [{"name": "in", "bytes": 512}, {"name": "out", "bytes": 512}],
    "launches": [{"kernel": "assertOneThread", "grid": [2], "block": [64],
      "args": [{"buffer": "in"}, {"buffer": "out"}, {"type": "s32", "value": 77}]}],
    "outputs": [{"buffer": "out", "file": "o"}]})";
  Expected e = run(a, {});
  ASSERT_TRUE(e.error.has_value());
  EXPECT_NE(e.error->find("thread 77 (block 1, thread 13)"), std::string::npos) << *e.error;
  EXPECT_TRUE(e.outputs.empty());
}

TEST(VmReferenceSelfTest, RecursionAndIndirectCalls) {
  const char *r = R"({"module": "m", "buffers": [{"name": "in", "bytes": 24}, {"name": "fib", "bytes": 24},
      {"name": "fact", "bytes": 48}],
    "launches": [{"kernel": "_Z14recursiveCallsPKjPjPyi", "grid": [1], "block": [8],
      "args": [{"buffer": "in"}, {"buffer": "fib"}, {"buffer": "fact"}, {"type": "s32", "value": 6}]}],
    "outputs": [{"buffer": "fib", "file": "a"}, {"buffer": "fact", "file": "b"}]})";
  Expected e = run(r, {{"in", bytesOf<uint32_t>({0, 1, 10, 11, 12, 24})}});
  EXPECT_EQ(valuesOf<uint32_t>(e.outputs.at("fib")), (std::vector<uint32_t>{0, 1, 55, 89, 0, 0}));
  EXPECT_EQ(valuesOf<uint64_t>(e.outputs.at("fact")),
            (std::vector<uint64_t>{1, 1, 3628800, 39916800, 479001600, 657629300})); // 24! mod 1e9+7

  const char *o = R"({"module": "m", "buffers": [{"name": "a", "bytes": 16}, {"name": "b", "bytes": 16},
      {"name": "sel", "bytes": 16}, {"name": "out", "bytes": 16}],
    "launches": [{"kernel": "applyOps", "grid": [1], "block": [4],
      "args": [{"buffer": "a"}, {"buffer": "b"}, {"buffer": "sel"}, {"buffer": "out"}, {"type": "s32", "value": 4}]}],
    "outputs": [{"buffer": "out", "file": "o"}]})";
  // add then add; sub then mul; xor-rotate then sub; mul then xor-rotate (a = 10, b = 3).
  e = run(o, {{"a", bytesOf<uint32_t>({10, 10, 10, 10})},
              {"b", bytesOf<uint32_t>({3, 3, 3, 3})},
              {"sel", bytesOf<uint32_t>({0, 1 | 2 << 2, 3 | 1 << 2, 2 | 3 << 2})}});
  EXPECT_EQ(valuesOf<uint32_t>(e.outputs.at("out")), (std::vector<uint32_t>{23, 70, 96, 350}));
}

TEST(VmReferenceSelfTest, DivergentControlFlow) {
  const char *d = R"({"module": "m", "buffers": [{"name": "in", "bytes": 24}, {"name": "steps", "bytes": 24},
      {"name": "cls", "bytes": 24}],
    "launches": [
      {"kernel": "divergentWork", "grid": [1], "block": [8],
       "args": [{"buffer": "in"}, {"buffer": "steps"}, {"buffer": "cls"}, {"type": "s32", "value": 6}]}],
    "outputs": [{"buffer": "steps", "file": "a"}, {"buffer": "cls", "file": "b"}]})";
  // Collatz steps: 1 -> 0, 6 -> 8, 27 -> 111, 7 -> 16, 763 -> 152 (763 % 7 == 0).
  Expected e = run(d, {{"in", bytesOf<uint32_t>({0, 1, 6, 27, 7, 763})}});
  EXPECT_EQ(valuesOf<uint32_t>(e.outputs.at("steps")), (std::vector<uint32_t>{0xffffffffu, 0, 8, 111, 16, 152}));
  // 111: 111 % 3 == 0 -> 3, plus 0 + 1 + ... + 6 (111 % 8 == 7) = 24.
  EXPECT_EQ(valuesOf<int32_t>(e.outputs.at("cls")), (std::vector<int32_t>{-1, 2, 2, 24, 2, 6}));

  const char *n = R"({"module": "m", "buffers": [{"name": "in", "bytes": 16}, {"name": "out", "bytes": 16}],
    "launches": [{"kernel": "nestedLoops", "grid": [1], "block": [4],
      "args": [{"buffer": "in"}, {"buffer": "out"}, {"type": "s32", "value": 4}]}],
    "outputs": [{"buffer": "out", "file": "o"}]})";
  // 0: no iterations, case 0 (+1000). 163 = 3 outer, 2 inner, case 1: 1 + 2 + 1 = 4, times 3.
  // 383 = 15 outer, 7 inner, case 2: stops after i = 6 with 250, xor 0x5555. 384: case 3, ~0.
  e = run(n, {{"in", bytesOf<uint32_t>({0, 163, 383, 384})}});
  EXPECT_EQ(valuesOf<uint32_t>(e.outputs.at("out")), (std::vector<uint32_t>{1000, 12, 250 ^ 0x5555u, 0xffffffffu}));
}

TEST(VmReferenceSelfTest, SymbolsAndStructArguments) {
  const char *s = R"({"module": "m", "buffers": [{"name": "in", "bytes": 8}, {"name": "out", "bytes": 8},
      {"name": "fout", "bytes": 8}, {"name": "poly", "symbol": "c_poly", "init": "zero"},
      {"name": "scale", "symbol": "c_scale"}, {"name": "bias", "symbol": "g_bias"},
      {"name": "counter", "symbol": "g_counter"}, {"name": "sums", "symbol": "_ZN6vmtest6g_sumsE"}],
    "launches": [{"kernel": "useSymbols", "grid": [1], "block": [4],
      "args": [{"buffer": "in"}, {"buffer": "out"}, {"buffer": "fout"}, {"type": "s32", "value": 2}]}],
    "outputs": [{"buffer": "out", "file": "a"}, {"buffer": "fout", "file": "b"}, {"buffer": "counter", "file": "c"},
      {"buffer": "sums", "file": "d"}]})";
  Expected e = run(s, {{"in", bytesOf<int32_t>({3, -1})},
                       {"poly", bytesOf<int32_t>({1, 2, 0, 0, 0, 0, 0, 0})},
                       {"scale", bytesOf<float>({0.5f, 1.0f, 2.0f, 4.0f})},
                       {"bias", bytesOf<int32_t>({10})},
                       {"counter", bytesOf<uint32_t>({100})}});
  EXPECT_EQ(valuesOf<int32_t>(e.outputs.at("out")), (std::vector<int32_t>{17, 9})); // 1 + 2x + 10
  EXPECT_EQ(valuesOf<float>(e.outputs.at("fout")), (std::vector<float>{1.5f, -1.0f}));
  EXPECT_EQ(valuesOf<uint32_t>(e.outputs.at("counter")), (std::vector<uint32_t>{102}));
  std::vector<uint32_t> sums(16, 0);
  sums[0] = 3;
  sums[1] = 0xffffffffu;
  EXPECT_EQ(valuesOf<uint32_t>(e.outputs.at("sums")), sums);

  const char *st = R"({"module": "m", "buffers": [{"name": "in", "bytes": 8}, {"name": "out", "bytes": 16},
      {"name": "fout", "bytes": 8}],
    "launches": [{"kernel": "structArg", "grid": [1], "block": [2], "args": [
      {"type": "bytes", "hex": "f9ffffffff00ff0089674523010000000000003f03000000"}, {"buffer": "in"}, {"buffer": "out"},
      {"buffer": "fout"}, {"type": "bytes", "hex": "feff2a00"}, {"type": "s32", "value": 2}]}],
    "outputs": [{"buffer": "out", "file": "a"}, {"buffer": "fout", "file": "b"}]})";
  // a = -7, mask = 0x00ff00ff, bias = 0x123456789, scale = 0.5, shift = 3; s = -2, c = 42.
  e = run(st, {{"in", bytesOf<uint32_t>({0x12345678u, 0xffffffffu})}});
  EXPECT_EQ(valuesOf<int64_t>(e.outputs.at("out")),
            (std::vector<int64_t>{0x01a003c0 - 7 + 0x123456789 - 84, 0x07f807f8 - 7 + 0x123456789 - 84}));
  EXPECT_EQ(valuesOf<float>(e.outputs.at("fout")), (std::vector<float>{11068.0f, 32767.5f}));
}

/// Every committed spec loads, names a module that exists and kernels it defines, and runs in the
/// references with outputs of the buffers' sizes.
TEST(VmReferenceSelfTest, CommittedSpecsAreConsistent) {
  auto specs = test::filesUnder(test::sourceDir() / "tests" / "kernels" / "vm" / "specs", ".json");
  ASSERT_GE(specs.size(), 15u);
  std::set<std::string> kernelsUsed;
  for (const auto &file : specs) {
    SCOPED_TRACE(file.string());
    RunSpec s = spec::loadRunSpec(file);
    ASSERT_TRUE(std::filesystem::exists(s.module)) << s.module;
    std::string ptx = test::readFile(s.module);
    std::set<std::string> entries; // the names after ".entry", mangled and plain
    for (size_t at = ptx.find(".entry "); at != std::string::npos; at = ptx.find(".entry ", at + 1)) {
      size_t begin = ptx.find_first_not_of(" \t", at + 7);
      size_t end = ptx.find_first_of("( \t\n", begin);
      std::string name = ptx.substr(begin, end - begin);
      entries.insert(name);
      entries.insert(plainName(name));
    }
    for (const auto &l : s.launches) {
      EXPECT_TRUE(entries.count(l.kernel)) << l.kernel << " is not a kernel of " << s.module;
      kernelsUsed.insert(plainName(l.kernel));
    }
    for (const auto &b : s.buffers) {
      if (!b.symbol.empty()) {
        EXPECT_NE(ptx.find(" " + b.symbol), std::string::npos) << b.symbol << " is not declared in " << s.module;
      }
    }
    Expected e = runReference(s);
    if (file.stem() == "assert_fail") {
      EXPECT_TRUE(e.error.has_value());
      continue;
    }
    EXPECT_FALSE(e.error.has_value());
    ASSERT_EQ(e.outputs.size(), s.outputs.size());
    for (const auto &o : s.outputs)
      EXPECT_EQ(e.outputs.at(o.buffer).size(), initialMemory(s).buffers.at(o.buffer).size()) << o.buffer;
    if (file.stem() == "printf") {
      EXPECT_EQ(e.stdoutLines.size(), 17u);
    }
  }
  // Every kernel with a reference is exercised by some spec.
  for (const auto &[name, fn] : kernelTable())
    EXPECT_TRUE(kernelsUsed.count(name)) << name << " is used by no spec";
}

} // namespace
} // namespace ptxray::vm::ref
