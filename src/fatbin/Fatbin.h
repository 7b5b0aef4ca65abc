// The device code nvcc embeds in a host program: fatbinary containers (the .nv_fatbin section, the
// wrapper that __cudaRegisterFatBinary receives) and the PTX inside them. nvcc 13 compresses entries
// with zstd by default (`--no-compress` stores them as they are); both are read here.
//
// Container layout (little-endian), as the CUDA toolkit's fatbinary tool writes it:
//   header:  u32 magic 0xBA55ED50, u16 version, u16 header size, u64 size of the entries that follow
//   entry:   u16 kind (1 PTX, 2 ELF cubin), u16 version, u32 header size, u64 payload size (padded),
//            u32 compressed size, u32 -, u16 minor and u16 major version of the payload format,
//            u32 architecture (90 for compute_90 / sm_90), u32 -, u32 -, u64 flags, u64 -,
//            u64 uncompressed size; then the payload.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

namespace ptxray::fatbin {

class FatbinError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

inline constexpr uint32_t kFatbinMagic = 0xBA55ED50u;
/// The wrapper nvcc's host code passes to __cudaRegisterFatBinary: {magic, version, data, ...}.
inline constexpr uint32_t kFatbinWrapperMagic = 0x466243B1u;

/// That wrapper, as it lies in the program's memory. Version 2 (nvcc -rdc=true, crt/link.stub): `extra`
/// lists the translation units' own fatbinaries, null-terminated, and `data` is what nvlink linked.
struct FatbinWrapper {
  uint32_t magic, version;
  const void *data;
  const void *extra;
};

enum class FatbinEntryKind : uint16_t { Ptx = 1, Cubin = 2 };

/// Entry flags (FatbinEntry::flags).
inline constexpr uint64_t kFatbinFlag64Bit = 0x1;
inline constexpr uint64_t kFatbinFlagCompressedLegacy = 0x2000; ///< the pre-12.x LZ scheme: not read
inline constexpr uint64_t kFatbinFlagCompressedZstd = 0x8000;

struct FatbinEntry {
  uint16_t kind = 0; ///< FatbinEntryKind, or another kind this reader skips
  int arch = 0;      ///< 90: compute_90 (PTX) or sm_90 (cubin)
  uint64_t flags = 0;
  std::span<const std::byte> payload; ///< as stored (compressed or not), without the padding
  uint64_t uncompressedSize = 0;
  bool compressed() const { return flags & (kFatbinFlagCompressedLegacy | kFatbinFlagCompressedZstd); }
  /// The payload as text (PTX), decompressed; trailing NULs removed. Throws FatbinError.
  std::string text() const;
};

/// The entries of the containers in `bytes`: one container, or several back to back (a whole
/// .nv_fatbin section). Throws FatbinError for a malformed container.
std::vector<FatbinEntry> parseFatbins(std::span<const std::byte> bytes);

/// The container at `data` (its size comes from its header): what a wrapper's data field points to.
std::span<const std::byte> fatbinAt(const void *data);

struct EmbeddedPtx {
  int arch = 0; ///< compute_XX
  std::string text;
};

/// Every PTX entry, decompressed, in container order.
std::vector<EmbeddedPtx> extractPtx(std::span<const std::byte> bytes);

/// The PTX a device of compute capability `sm` (90 for 9.0) JIT-compiles, as the driver picks it:
/// the newest PTX whose architecture is not above the device's. Null when none fits.
const EmbeddedPtx *choosePtx(std::span<const EmbeddedPtx> ptx, int sm);

/// The architectures of the cubins (SASS) in `entries`, for the "no PTX" error.
std::vector<int> cubinArchs(std::span<const FatbinEntry> entries);

/// The contents of section `name` of an ELF64 little-endian file; empty when it has none. Throws
/// FatbinError when the file cannot be read or is not such an ELF file.
std::vector<std::byte> readElfSection(const std::filesystem::path &file, const std::string &name);
/// The same from an ELF image in memory.
std::vector<std::byte> elfSection(std::span<const std::byte> image, const std::string &name);

} // namespace ptxray::fatbin
