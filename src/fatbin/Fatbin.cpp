#include "fatbin/Fatbin.h"
#include "support/InputFile.h"

#include <fmt/format.h>
#include <zstd.h>

#include <algorithm>
#include <cstring>
#include <fstream>

namespace ptxray::fatbin {
namespace {

template <typename T> T readLe(std::span<const std::byte> bytes, size_t offset) {
  T value{};
  std::memcpy(&value, bytes.data() + offset, sizeof(T));
  return value;
}

constexpr size_t kContainerHeaderBytes = 16;
constexpr size_t kEntryHeaderMinBytes = 64; ///< the fields read below end at byte 64

std::string trimNuls(std::string text) {
  while (!text.empty() && text.back() == '\0')
    text.pop_back();
  return text;
}

} // namespace

std::string FatbinEntry::text() const {
  if (flags & kFatbinFlagCompressedZstd) {
    // The size the entry claims, checked against the frame's own before allocating it.
    const unsigned long long frameSize = ZSTD_getFrameContentSize(payload.data(), payload.size());
    if (frameSize == ZSTD_CONTENTSIZE_ERROR || (frameSize != ZSTD_CONTENTSIZE_UNKNOWN && frameSize != uncompressedSize))
      throw FatbinError(fmt::format("the compute_{} PTX of the fatbinary is not a valid zstd frame of {} bytes", arch,
                                    uncompressedSize));
    // The PTX is text like any other input: a 552-byte frame of zeros claiming 4 GiB must not cost
    // 4 GiB and 40 s before the parser sees it.
    if (uncompressedSize > support::kMaxTextInputBytes)
      throw FatbinError(fmt::format("the compute_{} PTX of the fatbinary claims {} bytes, more than the 1 GiB a "
                                    "text input may hold",
                                    arch, uncompressedSize));
    std::string out(uncompressedSize, '\0');
    size_t n = ZSTD_decompress(out.data(), out.size(), payload.data(), payload.size());
    if (ZSTD_isError(n))
      throw FatbinError(
          fmt::format("cannot decompress the compute_{} PTX of the fatbinary: {}", arch, ZSTD_getErrorName(n)));
    out.resize(n);
    return trimNuls(std::move(out));
  }
  if (flags & kFatbinFlagCompressedLegacy)
    throw FatbinError(fmt::format("the compute_{} PTX of the fatbinary uses the compression of CUDA 12.7 and "
                                  "older, which ptxray does not read; rebuild with nvcc 13 or with --no-compress",
                                  arch));
  std::string out(reinterpret_cast<const char *>(payload.data()), payload.size());
  // Stored entries end at the first NUL (the rest is padding).
  if (size_t nul = out.find('\0'); nul != std::string::npos)
    out.resize(nul);
  return out;
}

std::vector<FatbinEntry> parseFatbins(std::span<const std::byte> bytes) {
  std::vector<FatbinEntry> entries;
  size_t offset = 0;
  while (offset + kContainerHeaderBytes <= bytes.size()) {
    if (readLe<uint32_t>(bytes, offset) != kFatbinMagic) {
      // Sections pad containers to 8 bytes; anything else is not a fatbinary.
      if (std::all_of(bytes.begin() + offset, bytes.end(), [](std::byte b) { return b == std::byte{0}; }))
        break;
      throw FatbinError(
          fmt::format("no fatbinary at byte {} (magic 0x{:08x})", offset, readLe<uint32_t>(bytes, offset)));
    }
    const uint16_t headerBytes = readLe<uint16_t>(bytes, offset + 6);
    const uint64_t entriesBytes = readLe<uint64_t>(bytes, offset + 8);
    // Sizes come from the file: compare them with what is left, never add them first (they may wrap).
    if (headerBytes < kContainerHeaderBytes || headerBytes > bytes.size() - offset ||
        entriesBytes > bytes.size() - offset - headerBytes)
      throw FatbinError(fmt::format("truncated fatbinary at byte {}", offset));
    size_t entry = offset + headerBytes;
    const size_t end = entry + entriesBytes;
    while (entry < end) {
      if (entry + kEntryHeaderMinBytes > end)
        throw FatbinError(fmt::format("truncated fatbinary entry at byte {}", entry));
      FatbinEntry e;
      e.kind = readLe<uint16_t>(bytes, entry);
      const uint32_t entryHeaderBytes = readLe<uint32_t>(bytes, entry + 4);
      const uint64_t payloadBytes = readLe<uint64_t>(bytes, entry + 8);
      const uint32_t compressedBytes = readLe<uint32_t>(bytes, entry + 16);
      e.arch = static_cast<int>(readLe<uint32_t>(bytes, entry + 28));
      e.flags = readLe<uint64_t>(bytes, entry + 40);
      e.uncompressedSize = readLe<uint64_t>(bytes, entry + 56);
      if (entryHeaderBytes < kEntryHeaderMinBytes || entryHeaderBytes > end - entry ||
          payloadBytes > end - entry - entryHeaderBytes)
        throw FatbinError(fmt::format("malformed fatbinary entry at byte {}", entry));
      const size_t stored = e.compressed() && compressedBytes <= payloadBytes ? compressedBytes : payloadBytes;
      e.payload = bytes.subspan(entry + entryHeaderBytes, stored);
      entries.push_back(e);
      entry += entryHeaderBytes + payloadBytes;
    }
    offset = end;
  }
  return entries;
}

std::span<const std::byte> fatbinAt(const void *data) {
  auto *p = static_cast<const std::byte *>(data);
  std::span<const std::byte> header(p, kContainerHeaderBytes);
  if (readLe<uint32_t>(header, 0) != kFatbinMagic)
    throw FatbinError(fmt::format("no fatbinary at {} (magic 0x{:08x})", data, readLe<uint32_t>(header, 0)));
  const uint64_t size = readLe<uint16_t>(header, 6) + readLe<uint64_t>(header, 8);
  if (size < kContainerHeaderBytes || size > (uint64_t{1} << 40))
    throw FatbinError(fmt::format("implausible fatbinary size {} at {}", size, data));
  return {p, size};
}

std::vector<EmbeddedPtx> extractPtx(std::span<const std::byte> bytes) {
  std::vector<EmbeddedPtx> out;
  for (const FatbinEntry &e : parseFatbins(bytes))
    if (e.kind == static_cast<uint16_t>(FatbinEntryKind::Ptx))
      out.push_back({e.arch, e.text()});
  return out;
}

const EmbeddedPtx *choosePtx(std::span<const EmbeddedPtx> ptx, int sm) {
  const EmbeddedPtx *best = nullptr;
  for (const EmbeddedPtx &p : ptx)
    if (p.arch <= sm && (!best || p.arch > best->arch))
      best = &p;
  return best;
}

std::vector<int> cubinArchs(std::span<const FatbinEntry> entries) {
  std::vector<int> archs;
  for (const FatbinEntry &e : entries)
    if (e.kind == static_cast<uint16_t>(FatbinEntryKind::Cubin) &&
        std::find(archs.begin(), archs.end(), e.arch) == archs.end())
      archs.push_back(e.arch);
  std::sort(archs.begin(), archs.end());
  return archs;
}

std::vector<std::byte> readElfSection(const std::filesystem::path &file, const std::string &name) {
  const std::string contents =
      support::readInputFile(file, support::InputContents::Binary, support::kMaxBinaryInputBytes);
  try {
    return elfSection({reinterpret_cast<const std::byte *>(contents.data()), contents.size()}, name);
  } catch (const FatbinError &e) {
    throw FatbinError(fmt::format("{}: {}", file.string(), e.what()));
  }
}

std::vector<std::byte> elfSection(std::span<const std::byte> bytes, const std::string &name) {
  auto fail = [](const char *why) { return FatbinError(why); };
  if (bytes.size() < 64 || std::memcmp(bytes.data(),
                                       "\x7f"
                                       "ELF",
                                       4) != 0)
    throw fail("not an ELF file");
  if (bytes[4] != std::byte{2} || bytes[5] != std::byte{1})
    throw fail("not a 64-bit little-endian ELF file");
  const uint64_t shoff = readLe<uint64_t>(bytes, 0x28);
  const uint16_t shentsize = readLe<uint16_t>(bytes, 0x3A);
  const uint16_t shnum = readLe<uint16_t>(bytes, 0x3C);
  const uint16_t shstrndx = readLe<uint16_t>(bytes, 0x3E);
  if (shentsize < 64 || shstrndx >= shnum || shoff > bytes.size() || uint64_t(shnum) * shentsize > bytes.size() - shoff)
    throw fail("malformed ELF section table");
  auto section = [&](uint32_t i) { return bytes.subspan(shoff + uint64_t(i) * shentsize, shentsize); };
  const auto strtab = section(shstrndx);
  const uint64_t strOffset = readLe<uint64_t>(strtab, 0x18), strSize = readLe<uint64_t>(strtab, 0x20);
  if (strOffset > bytes.size() || strSize > bytes.size() - strOffset)
    throw fail("malformed ELF section names");
  for (uint32_t i = 0; i < shnum; ++i) {
    const auto sh = section(i);
    const uint32_t nameOffset = readLe<uint32_t>(sh, 0);
    if (nameOffset >= strSize)
      continue;
    const char *n = reinterpret_cast<const char *>(bytes.data() + strOffset + nameOffset);
    if (std::string_view(n, strnlen(n, strSize - nameOffset)) != name)
      continue;
    const uint32_t type = readLe<uint32_t>(sh, 4);
    const uint64_t offset = readLe<uint64_t>(sh, 0x18), size = readLe<uint64_t>(sh, 0x20);
    if (type == 8 /* SHT_NOBITS */)
      return {};
    if (offset > bytes.size() || size > bytes.size() - offset)
      throw fail("section past the end of the file");
    return {bytes.begin() + offset, bytes.begin() + offset + size};
  }
  return {};
}

} // namespace ptxray::fatbin
