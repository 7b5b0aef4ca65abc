#include "vm/Texture.h"

#include "vm/Device.h"
#include "vm/Memory.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <fmt/format.h>

namespace ptxray::vm {

namespace {

constexpr uint64_t kIdMask = 0xffff'ffffull;

uint64_t makeHandle(HandleKind kind, uint64_t id) {
  // A recognisable tag in the upper bits: handles are never small integers a kernel could pass by
  // accident, and a texture handle is never a valid surface handle.
  return (uint64_t{0x7e} << 56) | (uint64_t{static_cast<uint8_t>(kind)} << 48) | id;
}

const char *kindName(HandleKind kind) {
  switch (kind) {
  case HandleKind::Texture: return "texture";
  case HandleKind::Sampler: return "sampler";
  case HandleKind::Surface: return "surface";
  default: return "object";
  }
}

float halfToFloat(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h >> 15) << 31;
  const uint32_t exp = (h >> 10) & 0x1f, man = h & 0x3ff;
  if (exp == 0) {
    float v = std::ldexp(static_cast<float>(man), -24); // zero or subnormal: exact
    return sign ? -v : v;
  }
  if (exp == 31)
    return std::bit_cast<float>(sign | 0x7f800000u | (man << 13));
  return std::bit_cast<float>(sign | ((exp + 112) << 23) | (man << 13));
}

bool resultIsFloat(const TextureObject &t) {
  return t.resource.format.isFloat() || t.readMode == ReadMode::NormalizedFloat;
}

/// One channel of a texel as a float (float textures, normalized reads).
float channelFloat(ChannelType type, const std::byte *p, bool normalized) {
  switch (type) {
  case ChannelType::U8: {
    uint8_t v;
    std::memcpy(&v, p, 1);
    return normalized ? static_cast<float>(v) / 255.0f : static_cast<float>(v);
  }
  case ChannelType::S8: {
    int8_t v;
    std::memcpy(&v, p, 1);
    return normalized ? std::max(static_cast<float>(v) / 127.0f, -1.0f) : static_cast<float>(v);
  }
  case ChannelType::U16: {
    uint16_t v;
    std::memcpy(&v, p, 2);
    return normalized ? static_cast<float>(v) / 65535.0f : static_cast<float>(v);
  }
  case ChannelType::S16: {
    int16_t v;
    std::memcpy(&v, p, 2);
    return normalized ? std::max(static_cast<float>(v) / 32767.0f, -1.0f) : static_cast<float>(v);
  }
  case ChannelType::U32: {
    uint32_t v;
    std::memcpy(&v, p, 4);
    return static_cast<float>(v);
  }
  case ChannelType::S32: {
    int32_t v;
    std::memcpy(&v, p, 4);
    return static_cast<float>(v);
  }
  case ChannelType::F16: {
    uint16_t v;
    std::memcpy(&v, p, 2);
    return halfToFloat(v);
  }
  case ChannelType::F32: {
    float v;
    std::memcpy(&v, p, 4);
    return v;
  }
  }
  return 0;
}

/// One channel of an integer texel read as its element type: zero- or sign-extended to 32 bits.
uint32_t channelInt(ChannelType type, const std::byte *p) {
  switch (type) {
  case ChannelType::U8: {
    uint8_t v;
    std::memcpy(&v, p, 1);
    return v;
  }
  case ChannelType::S8: {
    int8_t v;
    std::memcpy(&v, p, 1);
    return static_cast<uint32_t>(static_cast<int32_t>(v));
  }
  case ChannelType::U16: {
    uint16_t v;
    std::memcpy(&v, p, 2);
    return v;
  }
  case ChannelType::S16: {
    int16_t v;
    std::memcpy(&v, p, 2);
    return static_cast<uint32_t>(static_cast<int32_t>(v));
  }
  default: {
    uint32_t v;
    std::memcpy(&v, p, 4);
    return v;
  }
  }
}

/// Texel index after addressing; `border` is set when the index falls outside with border addressing.
int64_t addressIndex(int64_t i, int64_t n, AddressMode mode, bool &border) {
  switch (mode) {
  case AddressMode::Wrap: {
    int64_t k = i % n;
    return k < 0 ? k + n : k;
  }
  case AddressMode::Mirror: {
    int64_t period = 2 * n;
    int64_t k = i % period;
    if (k < 0)
      k += period;
    return k < n ? k : period - 1 - k;
  }
  case AddressMode::Border:
    if (i < 0 || i >= n)
      border = true;
    return i;
  case AddressMode::Clamp: break;
  }
  return std::clamp<int64_t>(i, 0, n - 1);
}

/// floor() of a coordinate as an index; NaN reads texel 0 and huge values saturate.
int64_t floorIndex(float u) {
  if (std::isnan(u))
    return 0;
  float f = std::floor(std::clamp(u, -1.0e9f, 1.0e9f));
  return static_cast<int64_t>(f);
}

/// The sampler state in force: a texture's own, or (independent mode) the sampler's over it.
struct Effective {
  bool normalized = false;
  FilterMode filter = FilterMode::Point;
  AddressMode address[3] = {AddressMode::Clamp, AddressMode::Clamp, AddressMode::Clamp};
  const float *border = nullptr;
};

Effective effective(const TextureObject &tex, const SamplerState &s) {
  Effective e;
  e.normalized = (tex.sampler.normalizedCoords || s.normalizedCoords) && !s.forceUnnormalizedCoords;
  e.filter = s.filter;
  for (int d = 0; d < 3; ++d) {
    AddressMode m = s.address[d];
    // CUDA: wrap and mirror need normalized coordinates; unnormalized ones clamp.
    if (!e.normalized && (m == AddressMode::Wrap || m == AddressMode::Mirror))
      m = AddressMode::Clamp;
    e.address[d] = m;
  }
  e.border = s.borderColor.data();
  return e;
}

class TexelReader {
public:
  TexelReader(const TextureObject &tex, const std::byte *host, const float *border)
      : res_(tex.resource), host_(host), border_(border), isFloat_(resultIsFloat(tex)),
        normalizedRead_(tex.readMode == ReadMode::NormalizedFloat), elementBytes_(res_.format.elementBytes()),
        channelBytes_(res_.format.channelBytes()), rowPitch_(res_.rowPitch()), slicePitch_(res_.slicePitchBytes()) {}

  bool isFloat() const { return isFloat_; }

  uint64_t offsetOf(int64_t x, int64_t y, int64_t slice) const {
    return static_cast<uint64_t>(slice) * slicePitch_ + static_cast<uint64_t>(y) * rowPitch_ +
           static_cast<uint64_t>(x) * elementBytes_;
  }
  const std::byte *at(int64_t x, int64_t y, int64_t slice) const { return host_ + offsetOf(x, y, slice); }

  void readFloat(int64_t x, int64_t y, int64_t slice, bool border, float out[4]) const {
    if (border) {
      for (int c = 0; c < 4; ++c)
        out[c] = border_[c];
      return;
    }
    const std::byte *p = at(x, y, slice);
    const int n = res_.format.channels;
    for (int c = 0; c < 4; ++c)
      out[c] = c < n ? channelFloat(res_.format.type, p + c * channelBytes_, normalizedRead_) : (c == 3 ? 1.0f : 0.0f);
  }

  void readBits(int64_t x, int64_t y, int64_t slice, bool border, uint32_t out[4]) const {
    if (isFloat_) {
      float f[4];
      readFloat(x, y, slice, border, f);
      for (int c = 0; c < 4; ++c)
        out[c] = std::bit_cast<uint32_t>(f[c]);
      return;
    }
    if (border) {
      for (int c = 0; c < 4; ++c)
        out[c] = static_cast<uint32_t>(static_cast<int32_t>(border_[c]));
      return;
    }
    const std::byte *p = at(x, y, slice);
    const int n = res_.format.channels;
    for (int c = 0; c < 4; ++c)
      out[c] = c < n ? channelInt(res_.format.type, p + c * channelBytes_) : (c == 3 ? 1u : 0u);
  }

private:
  const TextureResource &res_;
  const std::byte *host_;
  const float *border_;
  bool isFloat_;
  bool normalizedRead_;
  uint64_t elementBytes_, channelBytes_, rowPitch_, slicePitch_;
};

/// Cubemap face selection (CUDA's table): the major axis picks the face, the other two coordinates
/// divided by its magnitude give the face coordinates, mapped from [-1, 1] to [0, 1].
void cubeFace(const float c[3], int &face, float &s, float &t) {
  const float x = c[0], y = c[1], z = c[2];
  const float ax = std::fabs(x), ay = std::fabs(y), az = std::fabs(z);
  float sc, tc, m;
  if (ax >= ay && ax >= az) {
    m = ax;
    face = x >= 0 ? 0 : 1;
    sc = x >= 0 ? -z : z;
    tc = -y;
  } else if (ay >= az) {
    m = ay;
    face = y >= 0 ? 2 : 3;
    sc = x;
    tc = y >= 0 ? z : -z;
  } else {
    m = az;
    face = z >= 0 ? 4 : 5;
    sc = z >= 0 ? x : -x;
    tc = -y;
  }
  if (m == 0) {
    s = t = 0.5f;
    return;
  }
  s = (sc / m + 1.0f) * 0.5f;
  t = (tc / m + 1.0f) * 0.5f;
}

/// Slice of `layer` (and a cubemap face): layers clamp to the resource's count.
int64_t sliceOf(const TextureResource &r, uint32_t layer, int face) {
  int64_t l = r.layers ? std::min<int64_t>(layer, int64_t{r.layers} - 1) : 0;
  return r.cubemap ? 6 * l + face : l;
}

AddressMode modeFromWord(std::string_view w) {
  if (w == "wrap")
    return AddressMode::Wrap;
  if (w == "mirror")
    return AddressMode::Mirror;
  if (w == "clamp_to_border" || w == "border")
    return AddressMode::Border;
  return AddressMode::Clamp; // clamp_ogl, clamp_to_edge
}

} // namespace

// ---------------------------------------------------------------------------------------------

uint32_t ChannelFormat::channelBytes() const {
  switch (type) {
  case ChannelType::U8:
  case ChannelType::S8: return 1;
  case ChannelType::U16:
  case ChannelType::S16:
  case ChannelType::F16: return 2;
  default: return 4;
  }
}

uint64_t TextureResource::rowPitch() const {
  return pitch ? pitch : uint64_t{width} * format.elementBytes();
}

uint64_t TextureResource::slicePitchBytes() const {
  return slicePitch ? slicePitch : rowPitch() * std::max<uint64_t>(height, 1);
}

uint64_t TextureResource::slices() const {
  if (cubemap)
    return 6 * std::max<uint64_t>(layers, 1);
  if (depth)
    return depth;
  return std::max<uint64_t>(layers, 1);
}

uint64_t TextureResource::byteSpan() const {
  return (slices() - 1) * slicePitchBytes() + (std::max<uint64_t>(height, 1) - 1) * rowPitch() +
         uint64_t{width} * format.elementBytes();
}

// ---------------------------------------------------------------------------------------------

TextureTable::TextureTable() = default;
TextureTable::~TextureTable() = default;

void TextureTable::validate(const TextureResource &r, const char *what) const {
  const ChannelFormat &f = r.format;
  if (f.channels != 1 && f.channels != 2 && f.channels != 4)
    throw VmError(fmt::format("{}: {} channels (1, 2 or 4 are supported)", what, f.channels));
  if (r.width == 0)
    throw VmError(fmt::format("{}: zero width", what));
  if (r.address % 16 && r.kind != TextureResource::Kind::Linear)
    throw VmError(fmt::format("{}: address 0x{:x} is not 16-byte aligned", what, r.address));
  if (r.address % f.elementBytes())
    throw VmError(
        fmt::format("{}: address 0x{:x} is not aligned to the {}-byte element", what, r.address, f.elementBytes()));
  if (r.pitch && r.pitch < uint64_t{r.width} * f.elementBytes())
    throw VmError(fmt::format("{}: pitch {} is smaller than a row ({} bytes)", what, r.pitch,
                              uint64_t{r.width} * f.elementBytes()));
  switch (r.kind) {
  case TextureResource::Kind::Linear:
    if (r.height || r.depth || r.layers || r.cubemap)
      throw VmError(fmt::format("{}: a linear resource is one-dimensional", what));
    break;
  case TextureResource::Kind::Pitch2D:
    if (!r.height || r.depth || r.layers || r.cubemap)
      throw VmError(fmt::format("{}: a pitch-2D resource needs a height and nothing else", what));
    break;
  case TextureResource::Kind::Array:
    if (r.depth && (r.layers || r.cubemap))
      throw VmError(fmt::format("{}: 3D resources cannot be layered", what));
    if (r.depth && !r.height)
      throw VmError(fmt::format("{}: a 3D resource needs a height", what));
    if (r.cubemap && r.width != r.height)
      throw VmError(fmt::format("{}: cubemap faces must be square", what));
    break;
  }
  if (memory_ && !memory_->hostRange(r.address, r.byteSpan()))
    throw VmError(fmt::format("{}: [0x{:x}, +{}) is not inside one live allocation", what, r.address, r.byteSpan()));
}

namespace {
constexpr uint64_t kOpenCLSamplerTag = uint64_t{0x7e} << 56 | uint64_t{0xc1} << 48;

/// The sampler state of OpenCL sampler bits. Clamp (to the border) reads (0,0,0,0) outside the
/// image, which is OpenCL's border colour for the formats with alpha.
TextureObject openclSampler(uint32_t bits) {
  TextureObject o;
  o.kind = HandleKind::Sampler;
  o.handle = kOpenCLSamplerTag | bits;
  o.bound = true;
  o.name = "OpenCL sampler";
  o.sampler.normalizedCoords = bits & 1;
  o.sampler.forceUnnormalizedCoords = !(bits & 1);
  o.sampler.filter = (bits & 0x30) == 0x20 ? FilterMode::Linear : FilterMode::Point;
  AddressMode mode = AddressMode::Clamp;
  switch (bits & 0xe) {
  case 4: mode = AddressMode::Border; break;
  case 6: mode = AddressMode::Wrap; break;
  case 8: mode = AddressMode::Mirror; break;
  default: break; // none (out-of-range reads undefined) and clamp to edge
  }
  o.sampler.address = {mode, mode, mode};
  return o;
}
} // namespace

uint64_t TextureTable::openclSamplerHandle(uint32_t bits) {
  return kOpenCLSamplerTag | (bits & 0x3f);
}

uint64_t TextureTable::add(TextureObject object) {
  uint64_t id = objects_.size() + 1;
  object.handle = makeHandle(object.kind, id);
  objects_.push_back(std::make_unique<TextureObject>(std::move(object)));
  return objects_.back()->handle;
}

const TextureObject *TextureTable::find(uint64_t handle) const {
  if ((handle & ~uint64_t{0x3f}) == kOpenCLSamplerTag) {
    static const std::array<TextureObject, 64> samplers = [] {
      std::array<TextureObject, 64> all;
      for (uint32_t bits = 0; bits < 64; ++bits)
        all[bits] = openclSampler(bits);
      return all;
    }();
    return &samplers[handle & 0x3f];
  }
  uint64_t id = handle & kIdMask;
  if (id == 0 || id > objects_.size())
    return nullptr;
  const TextureObject *o = objects_[id - 1].get();
  return o && o->handle == handle ? o : nullptr;
}

TextureObject *TextureTable::findMutable(uint64_t handle) {
  return const_cast<TextureObject *>(find(handle));
}

uint64_t TextureTable::createTextureObject(const TextureDesc &desc) {
  validate(desc.resource, "texture object");
  const ChannelFormat &f = desc.resource.format;
  if (desc.readMode == ReadMode::NormalizedFloat && (f.isFloat() || f.channelBytes() == 4))
    throw VmError("texture object: normalized-float reads need 8- or 16-bit integer channels");
  if (desc.sampler.filter == FilterMode::Linear && !f.isFloat() && desc.readMode == ReadMode::ElementType)
    throw VmError("texture object: linear filtering needs a float result (float channels or a normalized read)");
  TextureObject o;
  o.kind = HandleKind::Texture;
  o.bound = true;
  o.resource = desc.resource;
  o.sampler = desc.sampler;
  o.readMode = desc.readMode;
  return add(std::move(o));
}

void TextureTable::destroyTextureObject(uint64_t handle) {
  const TextureObject *o = find(handle);
  if (!o || o->kind != HandleKind::Texture || !o->name.empty())
    throw VmError(fmt::format("destroy of texture object 0x{:x}: not a live texture object", handle));
  objects_[(handle & kIdMask) - 1].reset();
}

uint64_t TextureTable::createSurfaceObject(const TextureResource &resource, ReadMode readMode) {
  validate(resource, "surface object");
  TextureObject o;
  o.kind = HandleKind::Surface;
  o.bound = true;
  o.resource = resource;
  o.readMode = readMode;
  return add(std::move(o));
}

void TextureTable::destroySurfaceObject(uint64_t handle) {
  const TextureObject *o = find(handle);
  if (!o || o->kind != HandleKind::Surface || !o->name.empty())
    throw VmError(fmt::format("destroy of surface object 0x{:x}: not a live surface object", handle));
  objects_[(handle & kIdMask) - 1].reset();
}

// ---------------------------------------------------------------------------------------------
// Module references

uint64_t TextureTable::registerModuleReference(const ptx::Module &module, uint32_t symbol) {
  if (auto it = references_.find({&module, symbol}); it != references_.end())
    return it->second;
  if (symbol >= module.symbols.size() || module.symbols[symbol].kind != ptx::SymbolKind::Variable)
    throw VmError(fmt::format("symbol {} is not a module variable", symbol));
  const ptx::Symbol &sym = module.symbols[symbol];
  const ptx::Variable &v = module.variables[sym.index];
  TextureObject o;
  o.name = std::string(sym.name);
  switch (v.type) {
  case ptx::Mod::samplerref: o.kind = HandleKind::Sampler; break;
  case ptx::Mod::surfref: o.kind = HandleKind::Surface; break;
  default: o.kind = HandleKind::Texture; break; // .texref, and `.tex .u32 name` (PTX 1.x)
  }
  o.bound = o.kind == HandleKind::Sampler;
  for (const ptx::InitItem &item : v.init) {
    if (item.kind != ptx::InitItem::Kind::Property)
      continue;
    std::string_view key = item.key;
    if (key == "filter_mode")
      o.sampler.filter = item.word == "linear" ? FilterMode::Linear : FilterMode::Point;
    else if (key == "addr_mode_0" || key == "addr_mode_1" || key == "addr_mode_2")
      o.sampler.address[key.back() - '0'] = modeFromWord(item.word);
    else if (key == "normalized_coords")
      o.sampler.normalizedCoords = item.word.empty() ? item.value != 0 : item.word == "true";
    else if (key == "force_unnormalized_coords")
      o.sampler.forceUnnormalizedCoords = item.word.empty() ? item.value != 0 : item.word == "true";
  }
  uint64_t handle = add(std::move(o));
  references_[{&module, symbol}] = handle;
  return handle;
}

void TextureTable::registerModuleReferences(const ptx::Module &module) {
  for (uint32_t s = 0; s < module.symbols.size(); ++s) {
    const ptx::Symbol &sym = module.symbols[s];
    if (sym.kind != ptx::SymbolKind::Variable || sym.function != ptx::kNone || sym.index >= module.variables.size())
      continue;
    const ptx::Variable &v = module.variables[sym.index];
    bool opaque = ptx::typeInfo(v.type).kind == ptx::TypeKind::Opaque;
    if ((v.space == ptx::StateSpace::Global && opaque) || v.space == ptx::StateSpace::Tex)
      registerModuleReference(module, s);
  }
}

uint64_t TextureTable::moduleReference(const ptx::Module *module, uint32_t symbol) const {
  auto it = references_.find({module, symbol});
  return it == references_.end() ? 0 : it->second;
}

uint64_t TextureTable::moduleReference(const ptx::Module &module, std::string_view name) const {
  for (const auto &[key, handle] : references_)
    if (key.first == &module && module.symbols[key.second].name == name)
      return handle;
  return 0;
}

TextureObject &TextureTable::reference(const ptx::Module &module, std::string_view name, HandleKind expected) {
  uint64_t handle = moduleReference(module, name);
  if (!handle) {
    for (uint32_t s = 0; s < module.symbols.size() && !handle; ++s) {
      const ptx::Symbol &sym = module.symbols[s];
      if (sym.kind != ptx::SymbolKind::Variable || sym.function != ptx::kNone || sym.name != name)
        continue;
      const ptx::Variable &v = module.variables[sym.index];
      if (ptx::typeInfo(v.type).kind == ptx::TypeKind::Opaque || v.space == ptx::StateSpace::Tex)
        handle = registerModuleReference(module, s);
    }
  }
  TextureObject *o = handle ? findMutable(handle) : nullptr;
  if (!o)
    throw VmError(fmt::format("no .texref, .samplerref or .surfref variable named {}", name));
  bool ok = o->kind == expected || (expected == HandleKind::Sampler && o->kind == HandleKind::Texture);
  if (!ok)
    throw VmError(fmt::format("{} is a {} reference, not a {} reference", name, kindName(o->kind), kindName(expected)));
  return *o;
}

void TextureTable::bindTexture(const ptx::Module &module, std::string_view name, const TextureResource &resource,
                               ReadMode readMode) {
  validate(resource, "texture reference");
  TextureObject &o = reference(module, name, HandleKind::Texture);
  o.resource = resource;
  o.readMode = readMode;
  o.bound = true;
}

void TextureTable::setSampler(const ptx::Module &module, std::string_view name, const SamplerState &sampler) {
  reference(module, name, HandleKind::Sampler).sampler = sampler;
}

void TextureTable::bindSurface(const ptx::Module &module, std::string_view name, const TextureResource &resource) {
  validate(resource, "surface reference");
  TextureObject &o = reference(module, name, HandleKind::Surface);
  o.resource = resource;
  o.bound = true;
}

// ---------------------------------------------------------------------------------------------
// Sampling

const std::byte *TextureTable::resolveHost(const TextureObject &object, const DeviceMemory &memory) const {
  return memory.hostRange(object.resource.address, object.resource.byteSpan());
}

namespace {

template <bool Record>
TexelResult sampleTexels(const TextureObject &tex, const SamplerState &sampler, const std::byte *host,
                         const float coordsIn[3], uint32_t layer, const int32_t offsets[3], TexelFootprint *read) {
  const TextureResource &r = tex.resource;
  Effective e = effective(tex, sampler);
  TexelReader reader(tex, host, e.border);
  TexelResult out;
  out.isFloat = reader.isFloat();

  float coords[3] = {coordsIn[0], coordsIn[1], coordsIn[2]};
  int face = 0;
  int dims = r.dimensions();
  if (r.cubemap) {
    float s, t;
    cubeFace(coordsIn, face, s, t);
    coords[0] = s;
    coords[1] = t;
    e.normalized = true;
    e.address[0] = e.address[1] = AddressMode::Clamp;
    dims = 2;
  }
  const int64_t slice = r.depth ? 0 : sliceOf(r, layer, face);
  const int64_t extent[3] = {r.width, std::max<int64_t>(r.height, 1), std::max<int64_t>(r.depth, 1)};
  const bool linear = e.filter == FilterMode::Linear && reader.isFloat();

  int64_t base[3] = {0, 0, 0};
  float weight[3] = {0, 0, 0};
  for (int d = 0; d < dims; ++d) {
    float x = coords[d];
    if (!linear && e.normalized && !std::isnan(x) && !std::isinf(x)) {
      // Point sampling folds the normalized coordinate as the guide defines it: repeat takes
      // frac(x); mirror takes frac(x) on even periods and 1 - frac(x) on odd ones (the reflected
      // edge then belongs to the last texel).
      const float f = std::floor(x);
      if (e.address[d] == AddressMode::Wrap)
        x -= f;
      else if (e.address[d] == AddressMode::Mirror)
        x = std::fmod(std::fabs(f), 2.0f) == 0.0f ? x - f : 1.0f - (x - f);
    }
    float u = e.normalized ? x * static_cast<float>(extent[d]) : x;
    if (!linear && e.normalized && (e.address[d] == AddressMode::Wrap || e.address[d] == AddressMode::Mirror))
      u = std::min(u, static_cast<float>(extent[d] - 1));
    if (linear)
      u -= 0.5f;
    u += static_cast<float>(offsets[d]);
    base[d] = floorIndex(u);
    if (linear) {
      float frac = std::isnan(u) ? 0.0f : u - std::floor(u);
      // The texture unit keeps the fraction in 9-bit fixed point (8 fractional bits).
      weight[d] = std::floor(frac * 256.0f + 0.5f) / 256.0f;
    }
  }

  auto texelAt = [&](const int64_t idx[3], float f[4], uint32_t bits[4]) {
    bool border = false;
    int64_t x = addressIndex(idx[0], extent[0], e.address[0], border);
    int64_t y = dims > 1 ? addressIndex(idx[1], extent[1], e.address[1], border) : 0;
    int64_t z = dims > 2 ? addressIndex(idx[2], extent[2], e.address[2], border) : slice;
    if constexpr (Record)
      if (!border)
        read->offsets[read->count++] = reader.offsetOf(x, y, z);
    if (f)
      reader.readFloat(x, y, z, border, f);
    else
      reader.readBits(x, y, z, border, bits);
  };

  if (!linear) {
    texelAt(base, nullptr, out.bits);
    return out;
  }
  float acc[4] = {0, 0, 0, 0};
  for (int corner = 0; corner < (1 << dims); ++corner) {
    int64_t idx[3] = {base[0], base[1], base[2]};
    float w = 1.0f;
    for (int d = 0; d < dims; ++d) {
      bool upper = (corner >> d) & 1;
      idx[d] += upper;
      w *= upper ? weight[d] : 1.0f - weight[d];
    }
    float t[4];
    texelAt(idx, t, nullptr);
    for (int c = 0; c < 4; ++c)
      acc[c] += w * t[c];
  }
  for (int c = 0; c < 4; ++c)
    out.bits[c] = std::bit_cast<uint32_t>(acc[c]);
  return out;
}

template <bool Record>
TexelResult fetchTexel(const TextureObject &tex, const SamplerState &sampler, const std::byte *host,
                       const int32_t coords[3], uint32_t layer, const int32_t offsets[3], TexelFootprint *read) {
  const TextureResource &r = tex.resource;
  Effective e = effective(tex, sampler);
  TexelReader reader(tex, host, e.border);
  TexelResult out;
  out.isFloat = reader.isFloat();
  const int dims = r.cubemap ? 2 : r.dimensions();
  const int64_t extent[3] = {r.width, std::max<int64_t>(r.height, 1), std::max<int64_t>(r.depth, 1)};
  int64_t idx[3] = {0, 0, 0};
  bool border = false;
  for (int d = 0; d < dims; ++d) {
    int64_t i = int64_t{coords[d]} + offsets[d];
    if (r.kind == TextureResource::Kind::Linear) {
      if (i < 0 || i >= extent[d])
        return out; // tex1Dfetch outside the buffer reads zero
      idx[d] = i;
      continue;
    }
    idx[d] = addressIndex(i, extent[d], e.address[d], border);
  }
  int64_t slice = dims > 2 ? idx[2] : sliceOf(r, layer, 0);
  if constexpr (Record)
    if (!border)
      read->offsets[read->count++] = reader.offsetOf(idx[0], idx[1], slice);
  reader.readBits(idx[0], idx[1], slice, border, out.bits);
  return out;
}

template <bool Record>
TexelResult gatherTexels(const TextureObject &tex, const SamplerState &sampler, const std::byte *host,
                         const float coordsIn[3], uint32_t layer, int component, const int32_t offsets[3],
                         TexelFootprint *read) {
  const TextureResource &r = tex.resource;
  Effective e = effective(tex, sampler);
  TexelReader reader(tex, host, e.border);
  TexelResult out;
  out.isFloat = reader.isFloat();
  float coords[2] = {coordsIn[0], coordsIn[1]};
  int face = 0;
  if (r.cubemap) {
    cubeFace(coordsIn, face, coords[0], coords[1]);
    e.normalized = true;
    e.address[0] = e.address[1] = AddressMode::Clamp;
  }
  const int64_t slice = sliceOf(r, layer, face);
  const int64_t extent[2] = {r.width, std::max<int64_t>(r.height, 1)};
  int64_t base[2];
  for (int d = 0; d < 2; ++d) {
    float u = (e.normalized ? coords[d] * static_cast<float>(extent[d]) : coords[d]) - 0.5f;
    base[d] = floorIndex(u + static_cast<float>(offsets[d]));
  }
  // Counter-clockwise from the lower left: (i0, j1), (i1, j1), (i1, j0), (i0, j0).
  const int dx[4] = {0, 1, 1, 0}, dy[4] = {1, 1, 0, 0};
  for (int k = 0; k < 4; ++k) {
    bool border = false;
    int64_t x = addressIndex(base[0] + dx[k], extent[0], e.address[0], border);
    int64_t y = addressIndex(base[1] + dy[k], extent[1], e.address[1], border);
    if constexpr (Record)
      if (!border)
        read->offsets[read->count++] = reader.offsetOf(x, y, slice);
    uint32_t bits[4];
    reader.readBits(x, y, slice, border, bits);
    out.bits[k] = bits[component & 3];
  }
  return out;
}

} // namespace

namespace {
/// A BGRA texel (OpenCL's CL_BGRA) as red, green, blue, alpha.
TexelResult swizzled(const TextureObject &tex, TexelResult r) {
  if (tex.resource.format.bgra)
    std::swap(r.bits[0], r.bits[2]);
  return r;
}
} // namespace

TexelResult TextureTable::sample(const TextureObject &tex, const SamplerState &sampler, const std::byte *host,
                                 const float coords[3], uint32_t layer, const int32_t offsets[3]) const {
  return swizzled(tex, sampleTexels<false>(tex, sampler, host, coords, layer, offsets, nullptr));
}

TexelResult TextureTable::sample(const TextureObject &tex, const SamplerState &sampler, const std::byte *host,
                                 const float coords[3], uint32_t layer, const int32_t offsets[3],
                                 TexelFootprint &read) const {
  read.count = 0;
  return swizzled(tex, sampleTexels<true>(tex, sampler, host, coords, layer, offsets, &read));
}

TexelResult TextureTable::fetch(const TextureObject &tex, const SamplerState &sampler, const std::byte *host,
                                const int32_t coords[3], uint32_t layer, const int32_t offsets[3]) const {
  return swizzled(tex, fetchTexel<false>(tex, sampler, host, coords, layer, offsets, nullptr));
}

TexelResult TextureTable::fetch(const TextureObject &tex, const SamplerState &sampler, const std::byte *host,
                                const int32_t coords[3], uint32_t layer, const int32_t offsets[3],
                                TexelFootprint &read) const {
  read.count = 0;
  return swizzled(tex, fetchTexel<true>(tex, sampler, host, coords, layer, offsets, &read));
}

TexelResult TextureTable::gather(const TextureObject &tex, const SamplerState &sampler, const std::byte *host,
                                 const float coords[3], uint32_t layer, int component, const int32_t offsets[3]) const {
  return gatherTexels<false>(tex, sampler, host, coords, layer, component, offsets, nullptr);
}

TexelResult TextureTable::gather(const TextureObject &tex, const SamplerState &sampler, const std::byte *host,
                                 const float coords[3], uint32_t layer, int component, const int32_t offsets[3],
                                 TexelFootprint &read) const {
  read.count = 0;
  return gatherTexels<true>(tex, sampler, host, coords, layer, component, offsets, &read);
}

// ---------------------------------------------------------------------------------------------
// Queries

uint32_t TextureTable::channelDataType(const ChannelFormat &f, ReadMode mode) {
  const bool norm = mode == ReadMode::NormalizedFloat;
  switch (f.type) {
  case ChannelType::S8: return norm ? 0x10D0 : 0x10D7;  // CL_SNORM_INT8 / CL_SIGNED_INT8
  case ChannelType::S16: return norm ? 0x10D1 : 0x10D8; // CL_SNORM_INT16 / CL_SIGNED_INT16
  case ChannelType::U8: return norm ? 0x10D2 : 0x10DA;  // CL_UNORM_INT8 / CL_UNSIGNED_INT8
  case ChannelType::U16: return norm ? 0x10D3 : 0x10DB; // CL_UNORM_INT16 / CL_UNSIGNED_INT16
  case ChannelType::S32: return 0x10D9;                 // CL_SIGNED_INT32
  case ChannelType::U32: return 0x10DC;                 // CL_UNSIGNED_INT32
  case ChannelType::F16: return 0x10DD;                 // CL_HALF_FLOAT
  case ChannelType::F32: return 0x10DE;                 // CL_FLOAT
  }
  return 0;
}

uint32_t TextureTable::channelOrder(const ChannelFormat &f) {
  if (f.bgra)
    return 0x10B6; // CL_BGRA
  switch (f.channels) {
  case 1: return 0x10B0;  // CL_R
  case 2: return 0x10B2;  // CL_RG
  default: return 0x10B5; // CL_RGBA
  }
}

uint32_t TextureTable::addressModeQuery(AddressMode mode) {
  switch (mode) {
  case AddressMode::Wrap: return 0;
  case AddressMode::Mirror: return 1;
  case AddressMode::Clamp: return 3;
  case AddressMode::Border: return 4;
  }
  return 3;
}

} // namespace ptxray::vm
