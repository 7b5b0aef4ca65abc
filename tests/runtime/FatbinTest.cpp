// The fatbinary reader on programs nvcc 13 built (tests/programs/bin): zstd-compressed and stored PTX,
// several architectures, SASS only; and malformed containers, which must give errors, not crashes.
#include "fatbin/Fatbin.h"
#include "support/InputFile.h"

#include <gtest/gtest.h>

#include <cstring>

using namespace ptxray::fatbin;

namespace {

std::string program(const char *name) {
  return std::string(PTXRAY_SOURCE_DIR) + "/tests/programs/bin/" + name;
}

std::vector<std::byte> section(const char *name) {
  return readElfSection(program(name), ".nv_fatbin");
}

std::vector<FatbinEntry> ptxEntries(const std::vector<FatbinEntry> &entries) {
  std::vector<FatbinEntry> out;
  for (const FatbinEntry &e : entries)
    if (e.kind == static_cast<uint16_t>(FatbinEntryKind::Ptx))
      out.push_back(e);
  return out;
}

} // namespace

TEST(Fatbin, CompressedPtxOfNvcc13) {
  const std::vector<std::byte> bytes = section("vector_add");
  const std::vector<FatbinEntry> entries = parseFatbins(bytes);
  const std::vector<FatbinEntry> ptx = ptxEntries(entries);
  ASSERT_EQ(ptx.size(), 1u);
  EXPECT_EQ(ptx[0].arch, 90);
  EXPECT_TRUE(ptx[0].flags & kFatbinFlagCompressedZstd);
  EXPECT_LT(ptx[0].payload.size(), ptx[0].uncompressedSize);
  const std::string text = ptx[0].text();
  EXPECT_NE(text.find(".version 9.0"), std::string::npos);
  EXPECT_NE(text.find(".target sm_90"), std::string::npos);
  EXPECT_NE(text.find(".visible .entry _Z10vector_addPKfS0_Pfi("), std::string::npos);
  EXPECT_EQ(text.find('\0'), std::string::npos);
  EXPECT_EQ(cubinArchs(entries), std::vector<int>{90});
}

TEST(Fatbin, StoredAndCompressedPtxAreTheSameText) {
  const std::vector<EmbeddedPtx> compressed = extractPtx(section("vector_add"));
  const std::vector<EmbeddedPtx> stored = extractPtx(section("vector_add_nocompress"));
  ASSERT_EQ(compressed.size(), 1u);
  ASSERT_EQ(stored.size(), 1u);
  EXPECT_FALSE(ptxEntries(parseFatbins(section("vector_add_nocompress")))[0].compressed());
  EXPECT_EQ(compressed[0].text, stored[0].text);
}

TEST(Fatbin, TheDriverPicksTheNewestPtxNotAboveTheGpu) {
  const std::vector<EmbeddedPtx> ptx = extractPtx(section("vector_add_multi"));
  ASSERT_EQ(ptx.size(), 2u);
  EXPECT_EQ(choosePtx(ptx, 75)->arch, 75);
  EXPECT_EQ(choosePtx(ptx, 86)->arch, 75);
  EXPECT_EQ(choosePtx(ptx, 90)->arch, 90);
  EXPECT_EQ(choosePtx(ptx, 100)->arch, 90);
  EXPECT_EQ(choosePtx(ptx, 70), nullptr);
  EXPECT_NE(ptx[0].text.find(".target sm_75"), std::string::npos);
}

TEST(Fatbin, SassOnlyHasNoPtx) {
  const std::vector<FatbinEntry> entries = parseFatbins(section("vector_add_sass"));
  EXPECT_TRUE(ptxEntries(entries).empty());
  EXPECT_EQ(cubinArchs(entries), std::vector<int>{90});
}

TEST(Fatbin, MalformedContainersAreErrors) {
  std::vector<std::byte> bytes = section("vector_add");
  ASSERT_GT(bytes.size(), 64u);
  // Truncated: the header promises more entries than there are bytes.
  std::vector<std::byte> truncated(bytes.begin(), bytes.begin() + 40);
  EXPECT_THROW(parseFatbins(truncated), FatbinError);
  // Not a fatbinary at all.
  std::vector<std::byte> garbage(64, std::byte{0x5a});
  EXPECT_THROW(parseFatbins(garbage), FatbinError);
  // Trailing zero padding after the last container is fine.
  std::vector<std::byte> padded = bytes;
  padded.resize(bytes.size() + 16, std::byte{0});
  EXPECT_EQ(parseFatbins(padded).size(), parseFatbins(bytes).size());
}

TEST(Fatbin, CorruptCompressedPtxIsAnError) {
  std::vector<std::byte> bytes = section("vector_add");
  std::vector<FatbinEntry> ptx = ptxEntries(parseFatbins(bytes));
  ASSERT_EQ(ptx.size(), 1u);
  // Overwrite the middle of the zstd frame.
  const size_t offset = static_cast<size_t>(ptx[0].payload.data() - bytes.data());
  for (size_t i = 8; i < ptx[0].payload.size() - 8; ++i)
    bytes[offset + i] = std::byte{0xff};
  std::vector<FatbinEntry> corrupt = ptxEntries(parseFatbins(bytes));
  EXPECT_THROW((void)corrupt[0].text(), FatbinError);
}

// Issue #31: a frame claiming gigabytes was decompressed into as many bytes before anything looked at
// it. The header alone (magic, descriptor, 8-byte content size) is enough to be refused.
TEST(Fatbin, FramesClaimingMoreThanATextInputAreRefused) {
  const uint64_t claimed = uint64_t{2} << 30;
  std::vector<std::byte> frame = {std::byte{0x28}, std::byte{0xb5}, std::byte{0x2f}, std::byte{0xfd},
                                  std::byte{0xe0}}; // single segment, 8-byte content size
  for (int i = 0; i < 8; ++i)
    frame.push_back(static_cast<std::byte>((claimed >> (8 * i)) & 0xff));
  FatbinEntry e;
  e.kind = static_cast<uint16_t>(FatbinEntryKind::Ptx);
  e.arch = 90;
  e.flags = kFatbinFlagCompressedZstd;
  e.payload = frame;
  e.uncompressedSize = claimed;
  try {
    (void)e.text();
    FAIL() << "a 2 GiB frame was decompressed";
  } catch (const FatbinError &error) {
    EXPECT_STREQ(error.what(), "the compute_90 PTX of the fatbinary claims 2147483648 bytes, more than the 1 GiB a "
                               "text input may hold");
  }
}

TEST(Fatbin, ElfSections) {
  EXPECT_TRUE(readElfSection(program("vector_add"), ".no_such_section").empty());
  EXPECT_THROW(readElfSection(std::string(PTXRAY_SOURCE_DIR) + "/README.md", ".nv_fatbin"), FatbinError);
  EXPECT_THROW(readElfSection(program("no_such_program"), ".nv_fatbin"), ptxray::support::InputFileError);
}
