// tex, tld4, txq, istypep, suld, sust, suq: texture and surface access through the device's
// TextureTable (vm/Texture.h holds the sampling rules).
//
// The texture/surface operand is a .u64 handle: a register (bindless objects, `[%rd1, {...}]`), a
// kernel's .texref/.surfref parameter (read from the parameter buffer), or a module .texref/.samplerref/
// .surfref variable (a constant handle when the loader placed it, else looked up in the table by symbol
// when the instruction runs). Operands beyond d[]/s[] (handle, sampler, coordinates, layer,
// predicate, offsets) are register slots in DecodedFunction::extra; constants are copied into
// scratch registers first so that no entry there carries kConstBit.
#include "vm/Texture.h"

#include "vm/Exec.h"
#include "vm/Memory.h"
#include "vm/ops/Families.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstring>
#include <fmt/format.h>
#include <optional>
#include <type_traits>

namespace ptxray::vm::ops {

using ptx::Mod;
using ptx::OperandKind;

namespace {

constexpr uint32_t kAbsent = 0x7fffffffu;

/// Entries of a texture/surface micro-op's operand block in DecodedFunction::extra.
enum Extra : uint32_t { kHandle, kSampler, kC0, kC1, kC2, kLayer, kPred, kOff0, kOff1, kOff2, kExtraCount };

enum class Geom : uint8_t { D1, D2, D3, A1D, A2D, Cube, ACube };

int coordCount(Geom g) {
  switch (g) {
  case Geom::D1:
  case Geom::A1D: return 1;
  case Geom::D2:
  case Geom::A2D: return 2;
  default: return 3;
  }
}
bool isLayered(Geom g) {
  return g == Geom::A1D || g == Geom::A2D || g == Geom::ACube;
}

/// tex result types (MicroOp::flags).
enum DType : uint8_t { B32 = 0, S32 = 1, F16 = 2, F16x2 = 3 };

// --------------------------------------------------------------------------------------------
// Operand materialization

void execCopy(ExecContext &ctx, const MicroOp &op) {
  const uint64_t *s = ctx.in(op.s[0]);
  uint64_t *d = ctx.out(op.d[0]);
  forLanes(ctx.exec, [&](int lane) { d[lane] = s[lane]; });
}

/// A kernel's opaque parameter (`.param .texref t`): the handle is the argument's 8 bytes.
void execParamHandle(ExecContext &ctx, const MicroOp &op) {
  uint64_t v = 0;
  const auto &params = ctx.launch->params;
  const uint64_t at = static_cast<uint64_t>(op.imm);
  if (at < params.size())
    std::memcpy(&v, params.data() + at, std::min<uint64_t>(8, params.size() - at));
  uint64_t *d = ctx.out(op.d[0]);
  forLanes(ctx.exec, [&](int lane) { d[lane] = v; });
}

/// A module variable the loader did not place: its handle, looked up by symbol.
void execModuleHandle(ExecContext &ctx, const MicroOp &op) {
  const ptx::Module *m = ctx.launch->program->module;
  const uint32_t symbol = static_cast<uint32_t>(op.imm);
  uint64_t h = ctx.launch->textures ? ctx.launch->textures->moduleReference(m, symbol) : 0;
  if (!h) {
    ctx.fault(FaultKind::IllegalInstruction, std::countr_zero(ctx.exec),
              fmt::format("{} is not a registered texture, sampler or surface reference (bind it with "
                          "TextureTable::bindTexture/bindSurface/setSampler)",
                          m->symbols[symbol].name));
    return;
  }
  uint64_t *d = ctx.out(op.d[0]);
  forLanes(ctx.exec, [&](int lane) { d[lane] = h; });
}

uint32_t asSlot(DecodeContext &ctx, uint32_t ref) {
  if (ref == kNoSlot)
    return kAbsent;
  if (!(ref & kConstBit))
    return ref;
  MicroOp m;
  m.exec = &execCopy;
  m.s[0] = ref;
  m.d[0] = ctx.scratchSlot();
  ctx.emitBefore(m);
  return m.d[0];
}

/// The register slot holding the handle named by `op`, kAbsent when it cannot be one.
uint32_t handleSlot(DecodeContext &ctx, const ptx::Operand &op) {
  if (op.kind == OperandKind::Register)
    return asSlot(ctx, ctx.src(op));
  if (op.kind != OperandKind::Symbol)
    return kAbsent;
  const SymbolPlacement &p = ctx.placement(op.id);
  MicroOp m;
  switch (p.kind) {
  case SymbolPlacement::Kind::KernelParam:
    m.exec = &execParamHandle;
    m.imm = static_cast<int64_t>(p.address);
    break;
  case SymbolPlacement::Kind::Register: return p.slot;
  case SymbolPlacement::Kind::Global: return asSlot(ctx, ctx.constant(p.address + static_cast<uint64_t>(op.value)));
  case SymbolPlacement::Kind::None:
    if (ctx.module.symbols[op.id].kind != ptx::SymbolKind::Variable)
      return kAbsent;
    m.exec = &execModuleHandle;
    m.imm = op.id;
    break;
  default: return kAbsent;
  }
  m.d[0] = ctx.scratchSlot();
  ctx.emitBefore(m);
  return m.d[0];
}

/// Elements of a vector operand (a scalar is a one-element vector).
std::vector<const ptx::Operand *> elementsOf(DecodeContext &ctx, const ptx::Operand &op) {
  std::vector<const ptx::Operand *> out;
  if (op.kind == OperandKind::Vector) {
    for (const ptx::Operand &c : ctx.children(op))
      out.push_back(&c);
  } else {
    out.push_back(&op);
  }
  return out;
}

struct Block {
  uint32_t e[kExtraCount];
  Block() {
    for (uint32_t &x : e)
      x = kAbsent;
  }
};

void commit(DecodeContext &ctx, MicroOp &op, const Block &b) {
  op.extra = static_cast<uint32_t>(ctx.fn.extra.size());
  op.extraCount = kExtraCount;
  ctx.fn.extra.insert(ctx.fn.extra.end(), b.e, b.e + kExtraCount);
}

std::optional<Geom> geometryOf(const ptx::Instruction &inst, bool &unsupportedGeometry) {
  unsupportedGeometry = inst.has(Mod::_2dms) || inst.has(Mod::a2dms);
  if (inst.has(Mod::_1d))
    return Geom::D1;
  if (inst.has(Mod::_2d))
    return Geom::D2;
  if (inst.has(Mod::_3d))
    return Geom::D3;
  if (inst.has(Mod::a1d))
    return Geom::A1D;
  if (inst.has(Mod::a2d))
    return Geom::A2D;
  if (inst.has(Mod::cube))
    return Geom::Cube;
  if (inst.has(Mod::acube))
    return Geom::ACube;
  return std::nullopt;
}

/// Fills the coordinate (and layer) entries from the coordinate vector of a tex/tld4/suld/sust.
bool decodeCoords(DecodeContext &ctx, const ptx::Operand &op, Geom g, Mod ctype, Block &b) {
  auto el = elementsOf(ctx, op);
  size_t first = isLayered(g) ? 1 : 0;
  int n = coordCount(g);
  if (el.size() < first + n)
    return false;
  if (first)
    b.e[kLayer] = asSlot(ctx, ctx.src(*el[0], Mod::u32));
  for (int i = 0; i < n; ++i)
    b.e[kC0 + i] = asSlot(ctx, ctx.src(*el[first + i], ctype));
  return true;
}

// --------------------------------------------------------------------------------------------
// Run time

/// The object of a lane's handle; the last one is kept (handles are almost always warp-uniform).
struct ObjectCache {
  uint64_t handle = 0;
  const TextureObject *object = nullptr;
  const std::byte *host = nullptr;
};

/// False (after reporting the fault) when `handle` does not name a usable object of `kind`.
bool resolve(ExecContext &ctx, ObjectCache &c, uint64_t handle, HandleKind kind, int lane, const char *what,
             bool needMemory = true) {
  if (c.object && c.handle == handle)
    return true;
  const TextureTable *table = ctx.launch->textures;
  const TextureObject *o = table ? table->find(handle) : nullptr;
  const char *kindName = kind == HandleKind::Texture ? "texture" : kind == HandleKind::Surface ? "surface" : "sampler";
  if (!o || o->kind != kind) {
    ctx.fault(FaultKind::IllegalInstruction, lane,
              fmt::format("{}: 0x{:x} is not a live {} handle{}", what, handle, kindName,
                          o ? " (it names another kind of object)" : ""));
    return false;
  }
  const std::byte *host = nullptr;
  if (needMemory) {
    if (!o->bound) {
      ctx.fault(FaultKind::IllegalInstruction, lane,
                fmt::format("{}: {} reference {} is not bound to memory", what, kindName, o->name));
      return false;
    }
    host = table->resolveHost(*o, *ctx.launch->memory);
    if (!host) {
      ctx.fault(FaultKind::OutOfBounds, lane,
                fmt::format("{}: the memory of {} 0x{:x} ([0x{:x}, +{})) is no longer allocated", what, kindName,
                            handle, o->resource.address, o->resource.byteSpan()),
                o->resource.address, 0, Space::Global, false);
      return false;
    }
  }
  c = {handle, o, host};
  return true;
}

uint16_t floatToHalf(float f) {
  const uint32_t x = std::bit_cast<uint32_t>(f);
  const uint16_t sign = static_cast<uint16_t>((x >> 16) & 0x8000);
  const uint32_t ax = x & 0x7fffffffu;
  if (ax > 0x7f800000u)
    return sign | 0x7e00;
  if (ax >= 0x477ff000u) // rounds to infinity
    return sign | 0x7c00;
  if (ax < 0x38800000u) { // half subnormal range: exact scaling, one rounding (nearest even)
    float v = std::nearbyint(std::fabs(f) * 16777216.0f);
    return sign | static_cast<uint16_t>(v);
  }
  uint32_t r = ax - 0x38000000u; // rebias the exponent
  r += 0xfffu + ((r >> 13) & 1);
  return sign | static_cast<uint16_t>(r >> 13);
}

void writeResult(ExecContext &ctx, const MicroOp &op, int lane, const TexelResult &t) {
  switch (op.flags & 3) {
  case B32:
    for (int i = 0; i < op.vec; ++i)
      ctx.out(op.d[i])[lane] = t.bits[i];
    break;
  case S32:
    for (int i = 0; i < op.vec; ++i)
      ctx.out(op.d[i])[lane] = static_cast<uint64_t>(static_cast<int64_t>(static_cast<int32_t>(t.bits[i])));
    break;
  case F16: {
    for (int i = 0; i < op.vec; ++i) {
      float f = t.isFloat ? std::bit_cast<float>(t.bits[i]) : static_cast<float>(static_cast<int32_t>(t.bits[i]));
      ctx.out(op.d[i])[lane] = floatToHalf(f);
    }
    break;
  }
  default: {
    uint16_t h[4];
    for (int i = 0; i < 4; ++i)
      h[i] = floatToHalf(t.isFloat ? std::bit_cast<float>(t.bits[i])
                                   : static_cast<float>(static_cast<int32_t>(t.bits[i])));
    ctx.out(op.d[0])[lane] = uint64_t{h[0]} | uint64_t{h[1]} << 16;
    if (op.vec > 1)
      ctx.out(op.d[1])[lane] = uint64_t{h[2]} | uint64_t{h[3]} << 16;
    break;
  }
  }
}

struct Operands {
  const uint64_t *handle = nullptr, *sampler = nullptr, *layer = nullptr;
  const uint64_t *c[3] = {nullptr, nullptr, nullptr};
  const uint64_t *off[3] = {nullptr, nullptr, nullptr};

  Operands(ExecContext &ctx, const MicroOp &op) : x_(ctx.fn->extra.data() + op.extra) {
    handle = ctx.in(x_[kHandle]);
    sampler = get(ctx, kSampler);
    layer = get(ctx, kLayer);
    for (int i = 0; i < 3; ++i) {
      c[i] = get(ctx, kC0 + i);
      off[i] = get(ctx, kOff0 + i);
    }
  }
  uint32_t pred() const { return x_[kPred]; }
  void offsets(int lane, int32_t out[3]) const {
    for (int i = 0; i < 3; ++i)
      out[i] = off[i] ? static_cast<int32_t>(off[i][lane]) : 0;
  }

private:
  const uint64_t *get(ExecContext &ctx, uint32_t e) const { return x_[e] == kAbsent ? nullptr : ctx.in(x_[e]); }
  const uint32_t *x_;
};

void setResidentPredicate(ExecContext &ctx, const Operands &o, uint32_t lanes) {
  if (o.pred() != kAbsent) {
    uint32_t &p = ctx.pred(o.pred());
    p = (p & ~ctx.exec) | lanes;
  }
}

/// What a texture or surface instruction read or wrote, per lane, for the execution listener: the
/// device addresses of up to TexelFootprint::kMaxTexels texels. Built only when a listener is attached.
struct TouchedTexels {
  std::array<std::array<uint64_t, kWarpSize>, TexelFootprint::kMaxTexels> address;
  std::array<uint32_t, TexelFootprint::kMaxTexels> lanes{}; ///< lanes with a texel at each corner
  uint8_t elementBytes = 0;

  void add(int lane, uint64_t base, const TexelFootprint &read, uint32_t bytes) {
    for (int k = 0; k < read.count; ++k) {
      address[k][lane] = base + read.offsets[k];
      lanes[k] |= 1u << lane;
    }
    if (!elementBytes)
      elementBytes = static_cast<uint8_t>(bytes); // one size per event: the first lane's resource
  }
  /// One MemoryEvent per footprint corner any lane read (MemoryEvent::footprintPart).
  void emit(ExecContext &ctx, const MicroOp &op, MemoryOp kind, MemoryPath path, uint8_t vec = 1) const {
    int parts = 0;
    while (parts < TexelFootprint::kMaxTexels && lanes[parts])
      ++parts;
    MemoryEvent e;
    e.pc = ctx.pc;
    e.instruction = op.instruction;
    e.op = kind;
    e.space = Space::Global;
    e.path = path;
    e.width = elementBytes;
    e.vec = vec;
    e.footprintParts = static_cast<uint8_t>(parts);
    for (int k = 0; k < parts; ++k) {
      e.footprintPart = static_cast<uint8_t>(k);
      e.mask = lanes[k];
      forLanes(lanes[k], [&](int lane) { e.addresses[lane] = address[k][lane]; });
      ctx.listener->onMemory(ctx.warpRef(), e);
    }
  }
};

/// Stands in for TouchedTexels and TexelFootprint when no listener is attached: nothing to build.
struct Unobserved {};

/// tex (and tld4 when Gather): FloatCoords selects .f32 vs .s32 coordinates; Observe builds the
/// listener's memory events.
template <bool FloatCoords, bool Gather, bool Observe> void execTexLanes(ExecContext &ctx, const MicroOp &op) {
  Operands o(ctx, op);
  ObjectCache tex, smp;
  const TextureTable &table = *ctx.launch->textures;
  uint32_t done = 0;
  const char *what = Gather ? "tld4" : "tex";
  [[maybe_unused]] std::conditional_t<Observe, TouchedTexels, Unobserved> touched;
  [[maybe_unused]] std::conditional_t<Observe, TexelFootprint, Unobserved> read;
  forLanes(ctx.exec, [&](int lane) {
    if (ctx.yield)
      return;
    if (!resolve(ctx, tex, o.handle[lane], HandleKind::Texture, lane, what))
      return;
    const SamplerState *sampler = &tex.object->sampler;
    if (o.sampler) {
      if (!resolve(ctx, smp, o.sampler[lane], HandleKind::Sampler, lane, what, false))
        return;
      sampler = &smp.object->sampler;
    }
    const uint32_t layer = o.layer ? static_cast<uint32_t>(o.layer[lane]) : 0;
    int32_t offsets[3];
    o.offsets(lane, offsets);
    TexelResult r;
    if constexpr (FloatCoords) {
      float c[3];
      for (int i = 0; i < 3; ++i)
        c[i] = o.c[i] ? std::bit_cast<float>(static_cast<uint32_t>(o.c[i][lane])) : 0.0f;
      if constexpr (Observe)
        r = Gather ? table.gather(*tex.object, *sampler, tex.host, c, layer, op.width, offsets, read)
                   : table.sample(*tex.object, *sampler, tex.host, c, layer, offsets, read);
      else
        r = Gather ? table.gather(*tex.object, *sampler, tex.host, c, layer, op.width, offsets)
                   : table.sample(*tex.object, *sampler, tex.host, c, layer, offsets);
    } else {
      int32_t c[3];
      for (int i = 0; i < 3; ++i)
        c[i] = o.c[i] ? static_cast<int32_t>(o.c[i][lane]) : 0;
      if constexpr (Observe)
        r = table.fetch(*tex.object, *sampler, tex.host, c, layer, offsets, read);
      else
        r = table.fetch(*tex.object, *sampler, tex.host, c, layer, offsets);
    }
    if constexpr (Observe)
      touched.add(lane, tex.object->resource.address, read, tex.object->resource.format.elementBytes());
    writeResult(ctx, op, lane, r);
    done |= 1u << lane;
  });
  setResidentPredicate(ctx, o, done);
  if constexpr (Observe)
    touched.emit(ctx, op, MemoryOp::Load, MemoryPath::Texture);
}

template <bool FloatCoords, bool Gather> void execTex(ExecContext &ctx, const MicroOp &op) {
  if (ctx.listener)
    execTexLanes<FloatCoords, Gather, true>(ctx, op);
  else
    execTexLanes<FloatCoords, Gather, false>(ctx, op);
}

enum Query : uint8_t {
  QWidth,
  QHeight,
  QDepth,
  QChannelDataType,
  QChannelOrder,
  QNormalizedCoords,
  QArraySize,
  QNumMipmapLevels,
  QNumSamples,
  QForceUnnormalized,
  QFilterMode,
  QAddrMode0,
  QAddrMode1,
  QAddrMode2,
  QMemoryLayout,
};

uint32_t queryValue(const TextureObject &t, Query q, uint32_t lod) {
  const TextureResource &r = t.resource;
  auto level = [&](uint32_t extent) -> uint32_t {
    if (!extent)
      return 0;
    return lod >= 32 ? 1 : std::max<uint32_t>(extent >> lod, 1);
  };
  switch (q) {
  case QWidth: return level(r.width);
  case QHeight: return level(r.height);
  case QDepth: return level(r.depth);
  case QChannelDataType: return TextureTable::channelDataType(r.format, t.readMode);
  case QChannelOrder: return TextureTable::channelOrder(r.format);
  case QNormalizedCoords: return t.sampler.normalizedCoords ? 1 : 0;
  case QArraySize: return r.layers;
  case QNumMipmapLevels:
  case QNumSamples: return 0;
  case QForceUnnormalized: return t.sampler.forceUnnormalizedCoords ? 1 : 0;
  case QFilterMode: return t.sampler.filter == FilterMode::Linear ? 1 : 0;
  case QAddrMode0:
  case QAddrMode1:
  case QAddrMode2: return TextureTable::addressModeQuery(t.sampler.address[q - QAddrMode0]);
  case QMemoryLayout: return r.kind == TextureResource::Kind::Array ? 0 : 1;
  }
  return 0;
}

bool isSamplerQuery(Query q) {
  return q == QForceUnnormalized || q == QFilterMode || q == QAddrMode0 || q == QAddrMode1 || q == QAddrMode2 ||
         q == QNormalizedCoords;
}

/// txq / suq: op.imm is the Query, op.flags bit 0 a surface query, s[1] the LOD of txq.level.
void execQuery(ExecContext &ctx, const MicroOp &op) {
  const uint64_t *h = ctx.in(op.s[0]);
  const uint64_t *lod = op.s[1] == kNoSlot ? nullptr : ctx.in(op.s[1]);
  uint64_t *d = ctx.out(op.d[0]);
  const Query q = static_cast<Query>(op.imm);
  const bool surface = op.flags & 1;
  const TextureTable *table = ctx.launch->textures;
  forLanes(ctx.exec, [&](int lane) {
    if (ctx.yield)
      return;
    const TextureObject *t = table ? table->find(h[lane]) : nullptr;
    bool ok = t && (surface ? t->kind == HandleKind::Surface
                            : t->kind == HandleKind::Texture || (t->kind == HandleKind::Sampler && isSamplerQuery(q)));
    if (!ok) {
      ctx.fault(FaultKind::IllegalInstruction, lane,
                fmt::format("{}: 0x{:x} is not a live {} handle", surface ? "suq" : "txq", h[lane],
                            surface ? "surface" : "texture or sampler"));
      return;
    }
    d[lane] = queryValue(*t, q, lod ? static_cast<uint32_t>(lod[lane]) : 0);
  });
}

/// istypep: op.imm is the HandleKind asked about.
void execIsTypep(ExecContext &ctx, const MicroOp &op) {
  const uint64_t *h = ctx.in(op.s[0]);
  const TextureTable *table = ctx.launch->textures;
  const auto kind = static_cast<HandleKind>(op.imm);
  uint32_t m = 0;
  forLanes(ctx.exec, [&](int lane) {
    const TextureObject *t = table ? table->find(h[lane]) : nullptr;
    if (t && t->kind == kind)
      m |= 1u << lane;
  });
  uint32_t &p = ctx.pred(op.d[0]);
  p = (p & ~ctx.exec) | m;
}

// --------------------------------------------------------------------------------------------
// Surfaces

enum Clamp : uint8_t { ClampTrap = 0, ClampClamp = 1, ClampZero = 2 };

/// Where a suld/sust lane's access goes: an offset into the resource, or nothing (.zero out of range).
/// False after reporting a fault.
bool surfaceOffset(ExecContext &ctx, const MicroOp &op, const Operands &o, const TextureObject &s, int lane,
                   uint32_t bytes, bool write, bool &skip, uint64_t &offset) {
  const TextureResource &r = s.resource;
  const Geom g = static_cast<Geom>(op.flags >> 2);
  const Clamp mode = static_cast<Clamp>(op.flags & 3);
  const int n = coordCount(g);
  int64_t c[3] = {0, 0, 0};
  for (int i = 0; i < n; ++i)
    c[i] = o.c[i] ? static_cast<int32_t>(o.c[i][lane]) : 0;
  int64_t layer = o.layer ? static_cast<int64_t>(static_cast<uint32_t>(o.layer[lane])) : 0;
  const int64_t rowBytes = int64_t{r.width} * r.format.elementBytes();
  const int64_t limit[3] = {rowBytes - bytes, std::max<int64_t>(r.height, 1) - 1, std::max<int64_t>(r.depth, 1) - 1};
  const int64_t layers = std::max<int64_t>(r.layers, 1);
  const char *what = write ? "sust" : "suld";
  if (c[0] % bytes) {
    ctx.fault(FaultKind::Misaligned, lane,
              fmt::format("{}: byte coordinate x = {} is not a multiple of the {}-byte access", what, c[0], bytes),
              r.address + static_cast<uint64_t>(c[0]), bytes, Space::Global, write);
    return false;
  }
  bool out = layer >= layers;
  for (int i = 0; i < 3; ++i)
    out = out || c[i] < 0 || c[i] > limit[i];
  skip = false;
  if (out) {
    switch (mode) {
    case ClampZero: skip = true; return true;
    case ClampClamp:
      for (int i = 0; i < 3; ++i)
        c[i] = std::clamp<int64_t>(c[i], 0, std::max<int64_t>(limit[i], 0));
      c[0] -= c[0] % bytes;
      layer = std::min(layer, layers - 1);
      break;
    default:
      ctx.fault(FaultKind::OutOfBounds, lane,
                fmt::format("{}.trap: x = {} bytes (+{}), y = {}, z = {}, layer {} is outside the {}x{}x{} surface "
                            "({} bytes per row{})",
                            what, c[0], bytes, c[1], c[2], layer, r.width, std::max<uint32_t>(r.height, 1),
                            std::max<uint32_t>(r.depth, 1), rowBytes,
                            r.layers ? fmt::format(", {} layers", r.layers) : std::string()),
                r.address + static_cast<uint64_t>(c[0]), bytes, Space::Global, write);
      return false;
    }
  }
  int64_t slice = r.depth ? c[2] : layer;
  offset = static_cast<uint64_t>(slice) * r.slicePitchBytes() + static_cast<uint64_t>(c[1]) * r.rowPitch() +
           static_cast<uint64_t>(c[0]);
  return true;
}

/// One surface access of a lane as a one-texel footprint (the listener's memory event).
void touchSurface(TouchedTexels &touched, int lane, const TextureObject &surface, uint64_t offset, uint32_t bytes) {
  TexelFootprint one;
  one.count = 1;
  one.offsets[0] = offset;
  touched.add(lane, surface.resource.address, one, bytes);
}

template <int Bytes, int Vec, bool Observe> void execSuldLanes(ExecContext &ctx, const MicroOp &op) {
  Operands o(ctx, op);
  ObjectCache surf;
  [[maybe_unused]] std::conditional_t<Observe, TouchedTexels, Unobserved> touched;
  forLanes(ctx.exec, [&](int lane) {
    if (ctx.yield)
      return;
    if (!resolve(ctx, surf, o.handle[lane], HandleKind::Surface, lane, "suld"))
      return;
    bool skip = false;
    uint64_t offset = 0;
    if (!surfaceOffset(ctx, op, o, *surf.object, lane, Bytes * Vec, false, skip, offset))
      return;
    for (int v = 0; v < Vec; ++v) {
      uint64_t value = 0;
      if (!skip)
        std::memcpy(&value, surf.host + offset + v * Bytes, Bytes);
      ctx.out(op.d[v])[lane] = value;
    }
    if constexpr (Observe)
      if (!skip)
        touchSurface(touched, lane, *surf.object, offset, Bytes);
  });
  if constexpr (Observe)
    touched.emit(ctx, op, MemoryOp::Load, MemoryPath::Surface, Vec);
}

template <int Bytes, int Vec> void execSuld(ExecContext &ctx, const MicroOp &op) {
  if (ctx.listener)
    execSuldLanes<Bytes, Vec, true>(ctx, op);
  else
    execSuldLanes<Bytes, Vec, false>(ctx, op);
}

template <int Bytes, int Vec, bool Observe> void execSustLanes(ExecContext &ctx, const MicroOp &op) {
  Operands o(ctx, op);
  ObjectCache surf;
  [[maybe_unused]] std::conditional_t<Observe, TouchedTexels, Unobserved> touched;
  const uint64_t *s[Vec];
  for (int v = 0; v < Vec; ++v)
    s[v] = ctx.in(op.s[v]);
  forLanes(ctx.exec, [&](int lane) {
    if (ctx.yield)
      return;
    if (!resolve(ctx, surf, o.handle[lane], HandleKind::Surface, lane, "sust"))
      return;
    bool skip = false;
    uint64_t offset = 0;
    if (!surfaceOffset(ctx, op, o, *surf.object, lane, Bytes * Vec, true, skip, offset) || skip)
      return;
    // Surfaces are written through the host pointer of the resource (const only to the sampler).
    auto *p = const_cast<std::byte *>(surf.host) + offset;
    for (int v = 0; v < Vec; ++v)
      std::memcpy(p + v * Bytes, &s[v][lane], Bytes);
    if constexpr (Observe)
      touchSurface(touched, lane, *surf.object, offset, Bytes);
  });
  if constexpr (Observe)
    touched.emit(ctx, op, MemoryOp::Store, MemoryPath::Surface, Vec);
}

template <int Bytes, int Vec> void execSust(ExecContext &ctx, const MicroOp &op) {
  if (ctx.listener)
    execSustLanes<Bytes, Vec, true>(ctx, op);
  else
    execSustLanes<Bytes, Vec, false>(ctx, op);
}

template <template <int, int> class Pick> ExecFn surfaceFor(int bytes, int vec) {
  auto byVec = [&]<int B>() -> ExecFn {
    switch (vec) {
    case 1: return Pick<B, 1>::fn;
    case 2: return Pick<B, 2>::fn;
    case 4: return Pick<B, 4>::fn;
    default: return nullptr;
    }
  };
  switch (bytes) {
  case 1: return byVec.template operator()<1>();
  case 2: return byVec.template operator()<2>();
  case 4: return byVec.template operator()<4>();
  case 8: return byVec.template operator()<8>();
  default: return nullptr;
  }
}
template <int B, int V> struct SuldPick { static constexpr ExecFn fn = &execSuld<B, V>; };
template <int B, int V> struct SustPick { static constexpr ExecFn fn = &execSust<B, V>; };

// --------------------------------------------------------------------------------------------
// Decoding

std::optional<Query> queryOf(const ptx::Instruction &inst) {
  static constexpr std::pair<Mod, Query> table[] = {
      {Mod::width, QWidth},
      {Mod::height, QHeight},
      {Mod::depth, QDepth},
      {Mod::channel_data_type, QChannelDataType},
      {Mod::channel_order, QChannelOrder},
      {Mod::normalized_coords, QNormalizedCoords},
      {Mod::array_size, QArraySize},
      {Mod::num_mipmap_levels, QNumMipmapLevels},
      {Mod::num_samples, QNumSamples},
      {Mod::force_unnormalized_coords, QForceUnnormalized},
      {Mod::filter_mode, QFilterMode},
      {Mod::addr_mode_0, QAddrMode0},
      {Mod::addr_mode_1, QAddrMode1},
      {Mod::addr_mode_2, QAddrMode2},
      {Mod::memory_layout, QMemoryLayout},
  };
  for (auto [mod, q] : table)
    if (inst.has(mod))
      return q;
  return std::nullopt;
}

void decodeTex(DecodeContext &ctx, MicroOp &op, bool gather) {
  const ptx::Instruction &inst = *ctx.inst;
  auto operands = ctx.operands();
  const char *name = gather ? "tld4" : "tex";
  if (operands.size() < 2 || operands[1].kind != OperandKind::Address)
    return;
  bool badGeometry = false;
  auto geom = geometryOf(inst, badGeometry);
  if (!geom || badGeometry) {
    ctx.unsupported(op, fmt::format("{}: multi-sample textures (.2dms, .a2dms) are not supported", name));
    return;
  }
  Block b;
  // Destination vector, with an optional |p residency predicate.
  const ptx::Operand *dst = &operands[0];
  if (dst->kind == OperandKind::Pair) {
    auto pq = ctx.children(*dst);
    dst = &pq[0];
    b.e[kPred] = ctx.predSlot(pq[1]);
  }
  auto dsts = elementsOf(ctx, *dst);
  Mod dtype = inst.type(0), ctype = gather ? Mod::f32 : inst.type(1);
  switch (dtype) {
  case Mod::f32:
  case Mod::u32: op.flags = B32; break;
  case Mod::s32: op.flags = S32; break;
  case Mod::f16: op.flags = F16; break;
  case Mod::f16x2: op.flags = F16x2; break;
  default: return;
  }
  const size_t wantDst = dtype == Mod::f16x2 ? 2 : 4;
  if (dsts.size() != wantDst)
    return;
  op.vec = static_cast<uint8_t>(wantDst);
  for (size_t i = 0; i < wantDst; ++i)
    op.d[i] = ctx.dst(*dsts[i]);
  // [texture, {sampler,} coordinates]
  auto parts = ctx.children(operands[1]);
  if (parts.size() < 2 || parts.size() > 3)
    return;
  b.e[kHandle] = handleSlot(ctx, parts[0]);
  if (b.e[kHandle] == kAbsent)
    return;
  if (parts.size() == 3) {
    b.e[kSampler] = handleSlot(ctx, parts[1]);
    if (b.e[kSampler] == kAbsent)
      return;
  }
  if (!decodeCoords(ctx, parts.back(), *geom, ctype, b))
    return;
  // Trailing operands: lod (.level), dPdx and dPdy (.grad), an offset vector, a depth-compare value.
  size_t next = 2;
  if (inst.has(Mod::level))
    next += 1;
  else if (inst.has(Mod::grad))
    next += 2;
  if (next < operands.size() && operands[next].kind == OperandKind::Vector) {
    auto off = elementsOf(ctx, operands[next]);
    for (size_t i = 0; i < off.size() && i < 3; ++i)
      b.e[kOff0 + i] = asSlot(ctx, ctx.src(*off[i], Mod::s32));
    ++next;
  }
  if (next < operands.size()) {
    ctx.unsupported(op, fmt::format("{}: depth-compare textures are not supported", name));
    return;
  }
  if (gather) {
    op.width = inst.has(Mod::g) ? 1 : inst.has(Mod::b) ? 2 : inst.has(Mod::a) ? 3 : 0;
    op.exec = &execTex<true, true>;
  } else {
    op.exec = ctype == Mod::s32 ? &execTex<false, false> : &execTex<true, false>;
  }
  commit(ctx, op, b);
}

void decodeQuery(DecodeContext &ctx, MicroOp &op, bool surface) {
  const ptx::Instruction &inst = *ctx.inst;
  auto operands = ctx.operands();
  auto q = queryOf(inst);
  if (operands.size() < 2 || !q)
    return;
  if (surface && (*q == QNormalizedCoords || isSamplerQuery(*q)))
    return;
  const ptx::Operand &a = operands[1];
  const ptx::Operand &h = a.kind == OperandKind::Address && a.count ? ctx.children(a)[0] : a;
  op.s[0] = handleSlot(ctx, h);
  if (op.s[0] == kAbsent)
    return;
  if (inst.has(Mod::level) && operands.size() >= 3)
    op.s[1] = ctx.src(operands[2], Mod::s32);
  op.d[0] = ctx.dst(operands[0]);
  op.imm = *q;
  op.flags = surface ? 1 : 0;
  op.exec = &execQuery;
}

void decodeSurface(DecodeContext &ctx, MicroOp &op, bool store) {
  const ptx::Instruction &inst = *ctx.inst;
  auto operands = ctx.operands();
  const char *name = store ? "sust" : "suld";
  if (operands.size() < 2)
    return;
  if (inst.has(Mod::p)) {
    ctx.unsupported(op, fmt::format("{}.p (formatted surface access) is not supported", name));
    return;
  }
  bool badGeometry = false;
  auto geom = geometryOf(inst, badGeometry);
  if (!geom || badGeometry || *geom == Geom::Cube || *geom == Geom::ACube)
    return;
  const ptx::Operand &addr = store ? operands[0] : operands[1];
  const ptx::Operand &val = store ? operands[1] : operands[0];
  if (addr.kind != OperandKind::Address)
    return;
  auto parts = ctx.children(addr);
  if (parts.size() != 2)
    return;
  Block b;
  b.e[kHandle] = handleSlot(ctx, parts[0]);
  if (b.e[kHandle] == kAbsent || !decodeCoords(ctx, parts[1], *geom, Mod::s32, b))
    return;
  const Mod type = inst.type();
  const int bytes = ptx::typeInfo(type).bits / 8;
  const int vec = inst.vectorWidth;
  auto elements = elementsOf(ctx, val);
  if (static_cast<int>(elements.size()) != vec)
    return;
  for (int i = 0; i < vec; ++i) {
    if (store)
      op.s[i] = ctx.src(*elements[i], type);
    else
      op.d[i] = ctx.dst(*elements[i]);
  }
  const Clamp mode = inst.has(Mod::clamp) ? ClampClamp : inst.has(Mod::zero) ? ClampZero : ClampTrap;
  op.flags = static_cast<uint8_t>(mode | static_cast<uint8_t>(*geom) << 2);
  op.width = static_cast<uint8_t>(bytes);
  op.vec = static_cast<uint8_t>(vec);
  op.exec = store ? surfaceFor<SustPick>(bytes, vec) : surfaceFor<SuldPick>(bytes, vec);
  if (op.exec)
    commit(ctx, op, b);
}

void decodeIsTypep(DecodeContext &ctx, MicroOp &op) {
  auto operands = ctx.operands();
  if (operands.size() < 2)
    return;
  const Mod t = ctx.inst->type();
  HandleKind kind = t == Mod::texref       ? HandleKind::Texture
                    : t == Mod::samplerref ? HandleKind::Sampler
                    : t == Mod::surfref    ? HandleKind::Surface
                                           : HandleKind::None;
  if (kind == HandleKind::None)
    return;
  op.d[0] = ctx.predSlot(operands[0]);
  op.s[0] = ctx.src(operands[1], Mod::u64);
  if (op.d[0] == kNoSlot)
    return;
  op.imm = static_cast<int64_t>(kind);
  op.exec = &execIsTypep;
}

} // namespace

void decodeTexture(DecodeContext &ctx, MicroOp &op) {
  switch (ctx.inst->opcode) {
  case ptx::Opcode::tex: decodeTex(ctx, op, false); return;
  case ptx::Opcode::tld4: decodeTex(ctx, op, true); return;
  case ptx::Opcode::txq: decodeQuery(ctx, op, false); return;
  case ptx::Opcode::suq: decodeQuery(ctx, op, true); return;
  case ptx::Opcode::suld: decodeSurface(ctx, op, false); return;
  case ptx::Opcode::sust: decodeSurface(ctx, op, true); return;
  case ptx::Opcode::istypep: decodeIsTypep(ctx, op); return;
  default: return;
  }
}

} // namespace ptxray::vm::ops
