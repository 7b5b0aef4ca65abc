// Texture and surface objects the host creates (cuTexObjectCreate / cuSurfObjectCreate) and the
// texture references a module declares (.texref, bound by name), as the tex/tld4/txq/suld/sust
// micro-ops see them.
//
// Every object is named by a nonzero 64-bit handle. Texture and surface objects are created by the
// host like the driver's; the module's opaque variables (.texref, .samplerref, .surfref and the old
// `.tex` variables) get a handle when the module loader registers them (registerModuleReference) and
// are then bound to memory and sampler state by name. Kernels see a handle either as a .u64 value
// (a bindless object passed as a kernel parameter, the modern CUDA path) or through the variable's
// name in a tex/suld/txq operand.
//
// The sampling rules (Texture.cpp, TextureTable::sample) follow CUDA's texture unit:
//  - unnormalized float coordinates address texel i at [i, i+1); normalized ones are scaled by the
//    extent first (u = x * N);
//  - point filtering takes texel floor(u); linear filtering blends texels floor(u - 0.5) and the next,
//    with the fraction quantized as the hardware does to 9-bit fixed point with 8 fractional bits:
//    weight = round(frac * 256) / 256;
//  - addressing applies to texel indices: clamp (to [0, N-1]), wrap (i mod N), mirror (period 2N,
//    reflected) and border (the border colour outside [0, N)). As in CUDA, wrap and mirror need
//    normalized coordinates; with unnormalized coordinates they behave as clamp. For point sampling
//    this is exactly the OpenCL guide's coordinate rules (clamp: x -> 0 below 0, 1 - 1/N from 1;
//    repeat: x -> frac(x));
//  - integer (.s32) coordinates fetch texels directly (tex1Dfetch): no filtering, no normalization;
//    on linear-memory textures an index outside [0, width) reads zero, on the others the address
//    mode applies;
//  - 8/16-bit integer texels read as normalized floats map to [0, 1] (unsigned: v / (2^n - 1)) or
//    [-1, 1] (signed: max(v / (2^(n-1) - 1), -1)); f16 texels always read as f32;
//  - channels a format lacks read as 0, except alpha, which reads as 1 (1.0f for float results).
#pragma once

#include "ptx/Ir.h"

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ptxray::vm {

class DeviceMemory;

/// Channel element type (cudaChannelFormatDesc: kind and bit size in one).
enum class ChannelType : uint8_t { U8, S8, U16, S16, U32, S32, F16, F32 };
/// cudaReadModeElementType / cudaReadModeNormalizedFloat (8- and 16-bit integer channels only).
enum class ReadMode : uint8_t { ElementType, NormalizedFloat };
enum class FilterMode : uint8_t { Point, Linear };
/// cudaTextureAddressMode, in its order.
enum class AddressMode : uint8_t { Wrap, Clamp, Mirror, Border };

struct ChannelFormat {
  ChannelType type = ChannelType::F32;
  uint8_t channels = 1; ///< 1, 2 or 4
  bool bgra = false;    ///< four channels stored blue, green, red, alpha (OpenCL's CL_BGRA)
  uint32_t channelBytes() const;
  uint32_t elementBytes() const { return channelBytes() * channels; }
  bool isFloat() const { return type == ChannelType::F16 || type == ChannelType::F32; }
  bool isSigned() const { return type == ChannelType::S8 || type == ChannelType::S16 || type == ChannelType::S32; }
};

/// The device memory a texture or surface reads (cudaResourceDesc). Element (x, y, slice) lives at
/// address + slice * slicePitch + y * pitch + x * elementBytes, where slice is z for 3D resources,
/// the layer for layered ones and 6 * layer + face for cubemaps.
struct TextureResource {
  enum class Kind : uint8_t {
    Linear,  ///< cudaResourceTypeLinear: 1D, tex1Dfetch
    Pitch2D, ///< cudaResourceTypePitch2D
    Array,   ///< a CUDA array's extent (1D/2D/3D, layered, cubemap), rows packed unless a pitch is given
  };
  Kind kind = Kind::Linear;
  uint64_t address = 0; ///< device address of element (0, 0, 0)
  ChannelFormat format;
  uint32_t width = 0;      ///< elements
  uint32_t height = 0;     ///< rows; 0 for 1D
  uint32_t depth = 0;      ///< slices of a 3D resource; 0 otherwise
  uint32_t layers = 0;     ///< layered resources: layers (cubemap arrays: cubemaps); 0 when not layered
  bool cubemap = false;    ///< six square faces per cubemap
  uint64_t pitch = 0;      ///< bytes from one row to the next; 0: width * elementBytes
  uint64_t slicePitch = 0; ///< bytes from one slice/layer/face to the next; 0: pitch * max(height, 1)

  int dimensions() const { return depth ? 3 : height ? 2 : 1; }
  uint64_t rowPitch() const;
  uint64_t slicePitchBytes() const;
  uint64_t slices() const; ///< depth, layers, 6 * layers (or 6) for cubemaps, or 1
  uint64_t byteSpan() const;
};

/// Sampler state (the sampling part of cudaTextureDesc, or a .samplerref's properties).
struct SamplerState {
  FilterMode filter = FilterMode::Point;
  std::array<AddressMode, 3> address{AddressMode::Clamp, AddressMode::Clamp, AddressMode::Clamp};
  bool normalizedCoords = false;
  bool forceUnnormalizedCoords = false; ///< .samplerref property (independent mode)
  std::array<float, 4> borderColor{0, 0, 0, 0};
};

struct TextureDesc {
  TextureResource resource;
  SamplerState sampler;
  ReadMode readMode = ReadMode::ElementType;
};

enum class HandleKind : uint8_t { None, Texture, Sampler, Surface };

/// One texture, sampler or surface: a host-created object or a module reference.
struct TextureObject {
  HandleKind kind = HandleKind::None;
  uint64_t handle = 0;
  bool bound = false; ///< a module texture/surface reference has memory attached
  TextureResource resource;
  SamplerState sampler;
  ReadMode readMode = ReadMode::ElementType;
  std::string name; ///< module reference's variable name, empty for objects
};

/// A sampled or fetched texel: four 32-bit results (f32 bits, or integers for integer textures).
struct TexelResult {
  uint32_t bits[4] = {0, 0, 0, 0};
  bool isFloat = true;
};

/// The texels one sample, fetch or gather read from memory: byte offsets from the resource's address
/// (element (x, y, slice) as TextureResource places it), in footprint-corner order. Texels outside
/// the resource read none (the border colour, a tex1Dfetch outside the buffer); at most 8
/// (trilinear filtering).
struct TexelFootprint {
  static constexpr int kMaxTexels = 8;
  uint8_t count = 0;
  std::array<uint64_t, kMaxTexels> offsets{};
};

/// Why a sample could not be taken.
enum class SampleStatus : uint8_t { Ok, MemoryGone };

class TextureTable {
public:
  TextureTable();
  ~TextureTable();
  TextureTable(const TextureTable &) = delete;
  TextureTable &operator=(const TextureTable &) = delete;

  /// The device memory resources are checked against (the Device sets it; without it nothing is checked).
  void setMemory(const DeviceMemory *memory) { memory_ = memory; }

  // ---- Bindless objects (cuTexObjectCreate / cuSurfObjectCreate). Throw VmError on invalid input.
  uint64_t createTextureObject(const TextureDesc &desc);
  void destroyTextureObject(uint64_t handle);
  /// `readMode` only says how suq reports the channel data type (an OpenCL image of normalized
  /// 8- or 16-bit channels: CL_UNORM_INT8 rather than CL_UNSIGNED_INT8).
  uint64_t createSurfaceObject(const TextureResource &resource, ReadMode readMode = ReadMode::ElementType);
  /// OpenCL's samplers, named by their CLK_* bits (normalized coordinates 1; addressing none 0,
  /// clamp to edge 2, clamp 4, repeat 6, mirrored repeat 8; filter nearest 0x10, linear 0x20): a
  /// handle the tex instruction's sampler operand takes (independent mode) with no object behind it,
  /// so that a sampler_t constant in a kernel's source works like a clCreateSampler sampler.
  static uint64_t openclSamplerHandle(uint32_t bits);
  void destroySurfaceObject(uint64_t handle);

  // ---- Module references.
  /// Registers the module-scope opaque variable `symbol` (.texref, .samplerref, .surfref, or a `.tex`
  /// variable) and returns its handle: sampler state comes from its initializer
  /// (`= { filter_mode = linear, addr_mode_0 = wrap, normalized_coords = 1 }`). Registering twice
  /// returns the same handle. The module loader calls this for every such variable.
  uint64_t registerModuleReference(const ptx::Module &module, uint32_t symbol);
  /// Registers every module-scope opaque variable of `module`.
  void registerModuleReferences(const ptx::Module &module);
  /// Handle of a registered reference (by PTX name), 0 when there is none.
  uint64_t moduleReference(const ptx::Module &module, std::string_view name) const;
  /// Handle of a registered reference (by symbol index), 0 when there is none.
  uint64_t moduleReference(const ptx::Module *module, uint32_t symbol) const;
  /// Attaches memory to a .texref (cuTexRefSetAddress / SetAddress2D / SetArray + SetFormat). The
  /// reference is registered first if the loader has not done so.
  void bindTexture(const ptx::Module &module, std::string_view name, const TextureResource &resource,
                   ReadMode readMode = ReadMode::ElementType);
  /// Replaces the sampler state of a .texref or .samplerref (cuTexRefSetFilterMode / AddressMode / Flags).
  void setSampler(const ptx::Module &module, std::string_view name, const SamplerState &sampler);
  /// Attaches memory to a .surfref (cuSurfRefSetArray).
  void bindSurface(const ptx::Module &module, std::string_view name, const TextureResource &resource);

  // ---- What the micro-ops use (read-only during a launch).
  const TextureObject *find(uint64_t handle) const;

  /// Samples texture `tex` at float coordinates (tex with .f32 coordinates). `sampler` overrides
  /// the texture's sampler state (independent mode). `offsets` are texel offsets (operand e).
  /// `host` is the resource's host memory (resolveHost).
  TexelResult sample(const TextureObject &tex, const SamplerState &sampler, const std::byte *host,
                     const float coords[3], uint32_t layer, const int32_t offsets[3]) const;
  /// Fetches the texel at integer coordinates (tex with .s32 coordinates): no filtering.
  TexelResult fetch(const TextureObject &tex, const SamplerState &sampler, const std::byte *host,
                    const int32_t coords[3], uint32_t layer, const int32_t offsets[3]) const;
  /// tld4: component `component` of the 2x2 bilinear footprint, counter-clockwise from lower left.
  TexelResult gather(const TextureObject &tex, const SamplerState &sampler, const std::byte *host,
                     const float coords[3], uint32_t layer, int component, const int32_t offsets[3]) const;
  /// The same three, also telling which texels they read (for the execution listener's memory events).
  TexelResult sample(const TextureObject &tex, const SamplerState &sampler, const std::byte *host,
                     const float coords[3], uint32_t layer, const int32_t offsets[3], TexelFootprint &read) const;
  TexelResult fetch(const TextureObject &tex, const SamplerState &sampler, const std::byte *host,
                    const int32_t coords[3], uint32_t layer, const int32_t offsets[3], TexelFootprint &read) const;
  TexelResult gather(const TextureObject &tex, const SamplerState &sampler, const std::byte *host,
                     const float coords[3], uint32_t layer, int component, const int32_t offsets[3],
                     TexelFootprint &read) const;
  /// Host pointer to the whole resource, or null when its memory is no longer (entirely) allocated.
  const std::byte *resolveHost(const TextureObject &object, const DeviceMemory &memory) const;

  /// Values of txq / suq queries (the PTX enumerations; channel data type and order are the OpenCL
  /// CL_* values, which are what the source-language enumeration of PTX's txq means for OpenCL).
  static uint32_t channelDataType(const ChannelFormat &format, ReadMode mode);
  static uint32_t channelOrder(const ChannelFormat &format);
  static uint32_t addressModeQuery(AddressMode mode); ///< wrap 0, mirror 1, clamp_to_edge 3, clamp_to_border 4

private:
  uint64_t add(TextureObject object);
  TextureObject *findMutable(uint64_t handle);
  TextureObject &reference(const ptx::Module &module, std::string_view name, HandleKind expected);
  void validate(const TextureResource &resource, const char *what) const;

  std::vector<std::unique_ptr<TextureObject>> objects_; ///< by id - 1; null once destroyed
  std::map<std::pair<const ptx::Module *, uint32_t>, uint64_t> references_;
  const DeviceMemory *memory_ = nullptr;
};

} // namespace ptxray::vm
