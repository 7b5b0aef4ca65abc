// Parsing run specs (`ptxray run SPEC.json`): every value checked, every error located by its JSON
// path. Running them is SpecRunner.cpp.
#include "session/RunSpec.h"
#include "session/SpecJson.h"
#include "support/InputFile.h"
#include "toolchain/Compilers.h"

#include "vm/Memory.h"
#include "vm/semantics/Half.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <fstream>
#include <iterator>
#include <limits>
#include <optional>
#include <set>
#include <unordered_set>

namespace ptxray::session {

using nlohmann::json;

SpecError::SpecError(std::string file, std::string path, std::string message)
    : std::runtime_error(
          fmt::format("{}{}{}", file.empty() ? "" : file + ": ", path.empty() ? "" : path + ": ", message)),
      file_(std::move(file)), path_(std::move(path)), message_(std::move(message)) {}

const SpecBuffer *RunSpec::findBuffer(std::string_view wanted) const {
  if (auto it = bufferIndex_.find(wanted);
      it != bufferIndex_.end() && it->second < buffers.size() && buffers[it->second].name == wanted)
    return &buffers[it->second];
  if (bufferIndex_.size() == buffers.size())
    return nullptr; // every buffer is indexed
  for (const SpecBuffer &b : buffers)
    if (b.name == wanted)
      return &b;
  return nullptr;
}

void RunSpec::addBuffer(SpecBuffer buffer) {
  bufferIndex_.try_emplace(buffer.name, buffers.size());
  buffers.push_back(std::move(buffer));
}

namespace {

using namespace specjson;

std::filesystem::path resolve(const std::filesystem::path &dir, const std::string &p) {
  std::filesystem::path path(p);
  return path.is_absolute() || dir.empty() ? path : (dir / path).lexically_normal();
}

// ---------------------------------------------------------------------------------------------
// Arguments

struct ScalarType {
  std::string_view name;
  unsigned bytes;
  enum Kind : uint8_t { Unsigned, Signed, Bits, F16, BF16, F32, F64 } kind;
};

constexpr ScalarType kScalarTypes[] = {
    {"u8", 1, ScalarType::Unsigned},  {"u16", 2, ScalarType::Unsigned}, {"u32", 4, ScalarType::Unsigned},
    {"u64", 8, ScalarType::Unsigned}, {"s8", 1, ScalarType::Signed},    {"s16", 2, ScalarType::Signed},
    {"s32", 4, ScalarType::Signed},   {"s64", 8, ScalarType::Signed},   {"b8", 1, ScalarType::Bits},
    {"b16", 2, ScalarType::Bits},     {"b32", 4, ScalarType::Bits},     {"b64", 8, ScalarType::Bits},
    {"f16", 2, ScalarType::F16},      {"bf16", 2, ScalarType::BF16},    {"f32", 4, ScalarType::F32},
    {"f64", 8, ScalarType::F64},
};

const ScalarType *findScalarType(std::string_view name) {
  for (const ScalarType &t : kScalarTypes)
    if (t.name == name)
      return &t;
  return nullptr;
}

uint64_t scalarValueBits(const Checker &c, const ScalarType &t, const json &value, const std::string &path) {
  unsigned bits = 8 * t.bytes;
  switch (t.kind) {
  case ScalarType::Unsigned:
  case ScalarType::Signed:
  case ScalarType::Bits: {
    bool negative = false;
    uint64_t v = c.anyInt(value, path, negative);
    uint64_t umax = bits == 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1;
    int64_t smin = bits == 64 ? std::numeric_limits<int64_t>::min() : -(int64_t{1} << (bits - 1));
    int64_t smax = bits == 64 ? std::numeric_limits<int64_t>::max() : (int64_t{1} << (bits - 1)) - 1;
    bool fits = t.kind == ScalarType::Unsigned ? !negative && v <= umax
                : t.kind == ScalarType::Signed
                    ? (negative ? static_cast<int64_t>(v) >= smin : v <= static_cast<uint64_t>(smax))
                    : (negative ? static_cast<int64_t>(v) >= smin : v <= umax);
    if (!fits) {
      std::string shown = negative ? std::to_string(static_cast<int64_t>(v)) : std::to_string(v);
      std::string range = t.kind == ScalarType::Unsigned ? fmt::format("0 to {}", umax)
                          : t.kind == ScalarType::Signed ? fmt::format("{} to {}", smin, smax)
                                                         : fmt::format("{} to {}", smin, umax);
      c.fail(path, fmt::format("{} does not fit {} ({})", shown, t.name, range));
    }
    return bits == 64 ? v : v & umax;
  }
  case ScalarType::F16: return vm::sem::fromF64<vm::sem::HalfKind::F16>(c.number(value, path));
  case ScalarType::BF16: return vm::sem::fromF64<vm::sem::HalfKind::BF16>(c.number(value, path));
  case ScalarType::F32: return std::bit_cast<uint32_t>(static_cast<float>(c.number(value, path)));
  case ScalarType::F64: return std::bit_cast<uint64_t>(c.number(value, path));
  }
  return 0;
}

SpecArg parseArg(const Checker &c, const RunSpec &spec, const json &j, const std::string &path) {
  c.requireObject(j, path);
  SpecArg a;
  a.path = path;
  if (j.contains("local")) {
    // An OpenCL __local pointer (clSetKernelArg(k, i, BYTES, NULL)): the runtime places that many
    // bytes in the work-group's local memory and passes their address.
    c.checkKeys(j, path, {"local"});
    a.isLocal = true;
    a.type = "local";
    a.localBytes = c.unsignedInt(j["local"], member(path, "local"), std::numeric_limits<uint32_t>::max());
    if (a.localBytes == 0)
      c.fail(member(path, "local"), "a __local argument needs at least 1 byte (CL_INVALID_ARG_SIZE)");
    return a;
  }
  if (j.contains("buffer")) {
    c.checkKeys(j, path, {"buffer", "offset"});
    a.isBuffer = true;
    a.type = "pointer";
    a.buffer = c.string(j["buffer"], member(path, "buffer"));
    const SpecBuffer *b = spec.findBuffer(a.buffer);
    if (!b)
      c.fail(member(path, "buffer"), fmt::format("unknown buffer \"{}\"", a.buffer));
    if (b->onHost())
      c.fail(member(path, "buffer"), fmt::format("\"{}\" is host memory, which kernels cannot reach: copy it to a "
                                                 "device buffer first (\"memcpy_h2d\")",
                                                 a.buffer));
    if (j.contains("offset")) {
      a.offset = c.unsignedInt(j["offset"], member(path, "offset"), std::numeric_limits<uint64_t>::max());
      if (b->symbol.empty() && a.offset > b->bytes)
        c.fail(member(path, "offset"),
               fmt::format("offset {} is past the end of buffer \"{}\" ({} bytes)", a.offset, b->name, b->bytes));
    }
    return a;
  }
  if (!j.contains("type"))
    c.fail(path, "an argument needs \"buffer\" (a device pointer) or \"type\" (a value)");
  a.type = c.string(j["type"], member(path, "type"));
  if (a.type == "bytes") {
    c.checkKeys(j, path, {"type", "hex"});
    a.bytes = c.hexBytes(c.required(j, path, "hex"), member(path, "hex"));
    if (a.bytes.empty())
      c.fail(member(path, "hex"), "must not be empty");
    return a;
  }
  const ScalarType *t = findScalarType(a.type);
  if (!t)
    c.fail(member(path, "type"), fmt::format("unknown type \"{}\"", a.type));
  c.checkKeys(j, path, {"type", "value", "bits"});
  bool hasValue = j.contains("value"), hasBits = j.contains("bits");
  if (hasValue == hasBits)
    c.fail(path, hasValue ? "give \"value\" or \"bits\", not both" : "missing \"value\" (or \"bits\")");
  if (hasBits) {
    uint64_t bits = c.hexBits(j["bits"], member(path, "bits"));
    if (t->bytes < 8 && (bits >> (8 * t->bytes)) != 0)
      c.fail(member(path, "bits"), fmt::format("bit pattern 0x{:x} is wider than {}", bits, a.type));
    a.bytes = littleEndian(bits, t->bytes);
  } else {
    a.bytes = littleEndian(scalarValueBits(c, *t, j["value"], member(path, "value")), t->bytes);
  }
  return a;
}

// ---------------------------------------------------------------------------------------------
// Buffers

DType parseDTypeAt(const Checker &c, const json &j, const std::string &path) {
  std::string name = c.string(j, path);
  auto t = parseDType(name);
  if (!t)
    c.fail(path, fmt::format("unknown dtype \"{}\" (expected u8, s8, u16, s16, u32, s32, u64, s64, f32 or f64)", name));
  return *t;
}

BufferInit parseInit(const Checker &c, const RunSpec &spec, const json &j, const std::string &path) {
  BufferInit init;
  if (j.is_string()) {
    std::string s = j.get<std::string>();
    if (s.empty())
      c.fail(path, "expected \"zero\", \"none\", a file name or a generator");
    if (s == "zero") {
      init.kind = BufferInit::Kind::Zero;
    } else if (s == "none") {
      init.kind = BufferInit::Kind::None;
    } else {
      init.kind = BufferInit::Kind::File;
      init.file = resolve(spec.dir, s);
    }
    return init;
  }
  if (!j.is_object())
    c.fail(path,
           "expected \"zero\", \"none\", a file name, {\"random\": {...}} or {\"iota\": {...}}, found " + kindOf(j));
  c.checkKeys(j, path, {"random", "iota"});
  bool random = j.contains("random"), iota = j.contains("iota");
  if (random == iota)
    c.fail(path, random ? "give one generator, not both" : "expected {\"random\": {...}} or {\"iota\": {...}}");
  if (iota) {
    std::string p = member(path, "iota");
    const json &g = j["iota"];
    c.requireObject(g, p);
    c.checkKeys(g, p, {"dtype"});
    init.kind = BufferInit::Kind::Iota;
    init.dtype = parseDTypeAt(c, c.required(g, p, "dtype"), member(p, "dtype"));
    return init;
  }
  std::string p = member(path, "random");
  const json &g = j["random"];
  c.requireObject(g, p);
  c.checkKeys(g, p, {"dtype", "seed", "min", "max"});
  init.kind = BufferInit::Kind::Random;
  init.dtype = parseDTypeAt(c, c.required(g, p, "dtype"), member(p, "dtype"));
  if (g.contains("seed")) {
    bool negative = false;
    init.seed = c.anyInt(g["seed"], member(p, "seed"), negative);
  }
  if (isFloat(init.dtype)) {
    for (const char *key : {"min", "max"}) {
      if (!g.contains(key))
        continue;
      double v = c.number(g[key], member(p, key));
      if (!std::isfinite(v))
        c.fail(member(p, key), "must be finite");
      (key[1] == 'i' ? init.minValue : init.maxValue) = v;
    }
    if (init.minValue > init.maxValue)
      c.fail(p, fmt::format("min {} is greater than max {}", init.minValue, init.maxValue));
    return init;
  }
  init.minBits = defaultRandomMinBits(init.dtype);
  init.maxBits = defaultRandomMaxBits(init.dtype);
  const ScalarType *t = findScalarType(dtypeName(init.dtype));
  for (const char *key : {"min", "max"}) {
    if (!g.contains(key))
      continue;
    (key[1] == 'i' ? init.minBits : init.maxBits) = scalarValueBits(c, *t, g[key], member(p, key));
    if (isSigned(init.dtype)) { // sign-extend the pattern back to 64 bits
      unsigned shift = 64 - 8 * static_cast<unsigned>(dtypeSize(init.dtype));
      uint64_t &v = key[1] == 'i' ? init.minBits : init.maxBits;
      v = static_cast<uint64_t>(static_cast<int64_t>(v << shift) >> shift);
    }
  }
  std::string err = checkIntBounds(init.dtype, init.minBits, init.maxBits);
  if (!err.empty())
    c.fail(p, err);
  return init;
}

/// The largest device number a spec may use (16 boards of two GPUs: system::kMaxBoards).
constexpr uint64_t kMaxDevice = 31;

SpecBuffer parseBuffer(const Checker &c, const RunSpec &spec, const json &j, const std::string &path) {
  c.requireObject(j, path);
  c.checkKeys(j, path, {"name", "bytes", "symbol", "init", "host", "device"});
  SpecBuffer b;
  b.path = path;
  if (j.contains("host")) {
    std::string where = c.string(j["host"], member(path, "host"));
    if (where == "pinned")
      b.memory = BufferMemory::Pinned;
    else if (where == "pageable")
      b.memory = BufferMemory::Pageable;
    else
      c.fail(member(path, "host"), fmt::format("expected \"pinned\" or \"pageable\", found \"{}\"", where));
    if (j.contains("symbol"))
      c.fail(member(path, "host"), "a module variable is device memory; host buffers take \"bytes\"");
  }
  if (j.contains("device")) {
    b.device = static_cast<unsigned>(c.unsignedInt(j["device"], member(path, "device"), kMaxDevice));
    if (j.contains("host") || j.contains("symbol"))
      c.fail(member(path, "device"),
             j.contains("host") ? "a host buffer is on no device" : "module variables are device 0's in a run spec");
  }
  b.name = c.string(c.required(j, path, "name"), member(path, "name"));
  if (const SpecBuffer *other = spec.findBuffer(b.name))
    c.fail(member(path, "name"), fmt::format("duplicate buffer name \"{}\" (first at {})", b.name, other->path));
  bool hasBytes = j.contains("bytes"), hasSymbol = j.contains("symbol");
  if (hasBytes && hasSymbol)
    c.fail(path, "give \"bytes\" (a device allocation) or \"symbol\" (a module variable), not both");
  if (!hasBytes && !hasSymbol)
    c.fail(path, "missing \"bytes\" (a device allocation) or \"symbol\" (a module variable)");
  if (hasBytes)
    b.bytes = c.unsignedInt(j["bytes"], member(path, "bytes"), vm::kGlobalAddressSpace);
  else
    b.symbol = c.string(j["symbol"], member(path, "symbol"));
  if (j.contains("init")) {
    b.init = parseInit(c, spec, j["init"], member(path, "init"));
    if (b.onHost() && b.init.kind == BufferInit::Kind::None)
      c.fail(member(path, "init"), "\"none\" is for device allocations; a host buffer is always written");
    if (hasSymbol && b.init.kind == BufferInit::Kind::None)
      c.fail(member(path, "init"), "\"none\" is for device allocations (\"bytes\"); a module variable always "
                                   "starts with the value its module gives it");
  } else
    b.init.kind = hasSymbol ? BufferInit::Kind::Keep : BufferInit::Kind::Zero;
  return b;
}

SpecLaunch parseLaunch(const Checker &c, const RunSpec &spec, const json &j, const std::string &path) {
  c.requireObject(j, path);
  c.checkKeys(j, path,
              {"kernel", "grid", "block", "global_work_size", "local_work_size", "global_work_offset",
               "dynamic_shared_bytes", "cooperative", "args"});
  SpecLaunch l;
  l.path = path;
  if (j.contains("kernel"))
    l.kernel = c.string(j["kernel"], member(path, "kernel"));
  if (j.contains("global_work_size")) {
    // OpenCL's NDRange: work-items in all, work-items per work-group (a divisor in every dimension, as
    // OpenCL 1.2 requires), and an optional offset of the global ids.
    if (j.contains("grid") || j.contains("block"))
      c.fail(path, "give \"grid\" and \"block\" (CUDA) or \"global_work_size\" and \"local_work_size\" "
                   "(OpenCL), not both");
    const vm::Dim3 global = c.dim3(j["global_work_size"], member(path, "global_work_size"));
    if (j["global_work_size"].is_array())
      l.workDim = static_cast<uint32_t>(j["global_work_size"].size());
    l.block = c.dim3(c.required(j, path, "local_work_size"), member(path, "local_work_size"));
    const uint32_t g[3] = {global.x, global.y, global.z}, b[3] = {l.block.x, l.block.y, l.block.z};
    uint32_t groups[3];
    for (int d = 0; d < 3; ++d) {
      if (g[d] % b[d])
        c.fail(member(path, "local_work_size"),
               fmt::format("dimension {}: {} work-items do not divide into work-groups of {} (OpenCL 1.2: "
                           "CL_INVALID_WORK_GROUP_SIZE)",
                           d, g[d], b[d]));
      groups[d] = g[d] / b[d];
    }
    l.grid = {groups[0], groups[1], groups[2]};
    l.openclSizes = true;
  } else {
    if (j.contains("local_work_size"))
      c.fail(member(path, "local_work_size"), "\"local_work_size\" goes with \"global_work_size\"");
    l.grid = c.dim3(c.required(j, path, "grid"), member(path, "grid"));
    l.block = c.dim3(c.required(j, path, "block"), member(path, "block"));
  }
  if (j.contains("global_work_offset")) {
    const json &offset = j["global_work_offset"];
    const std::string p = member(path, "global_work_offset");
    c.requireArray(offset, p);
    if (offset.empty() || offset.size() > 3)
      c.fail(p, "expected an array of 1 to 3 offsets");
    for (size_t d = 0; d < offset.size(); ++d)
      l.globalOffset[d] =
          static_cast<uint32_t>(c.unsignedInt(offset[d], element(p, d), std::numeric_limits<uint32_t>::max()));
  }
  if (j.contains("dynamic_shared_bytes"))
    l.dynamicSharedBytes = static_cast<uint32_t>(c.unsignedInt(
        j["dynamic_shared_bytes"], member(path, "dynamic_shared_bytes"), std::numeric_limits<uint32_t>::max()));
  if (j.contains("cooperative")) {
    if (!j["cooperative"].is_boolean())
      c.fail(member(path, "cooperative"), "expected true or false, found " + kindOf(j["cooperative"]));
    l.cooperative = j["cooperative"].get<bool>();
  }
  if (j.contains("args")) {
    std::string p = member(path, "args");
    c.requireArray(j["args"], p);
    for (size_t i = 0; i < j["args"].size(); ++i)
      l.args.push_back(parseArg(c, spec, j["args"][i], element(p, i)));
  }
  return l;
}

// ---------------------------------------------------------------------------------------------
// Host operations (sessions)

struct OperationName {
  std::string_view name;
  SpecOperation::Kind kind;
};
constexpr OperationName kOperationNames[] = {
    {"memcpy_h2d", SpecOperation::Kind::MemcpyH2D},
    {"memcpy_d2h", SpecOperation::Kind::MemcpyD2H},
    {"memcpy_d2d", SpecOperation::Kind::MemcpyD2D},
    {"memcpy2d", SpecOperation::Kind::Memcpy2D},
    {"memset", SpecOperation::Kind::Memset},
    {"launch", SpecOperation::Kind::Launch},
    {"event_record", SpecOperation::Kind::EventRecord},
    {"stream_wait_event", SpecOperation::Kind::StreamWaitEvent},
    {"stream_synchronize", SpecOperation::Kind::StreamSynchronize},
    {"synchronize", SpecOperation::Kind::Synchronize},
};

/// The largest stream number a spec may use: streams are numbered, not declared.
constexpr uint64_t kMaxStream = 1023;

/// A copy's or memset's buffer: it must exist and be on the side the operation says.
const SpecBuffer &operandBuffer(const Checker &c, const RunSpec &spec, const json &j, const std::string &path,
                                const char *key, std::optional<bool> onHost) {
  std::string name = c.string(c.required(j, path, key), member(path, key));
  const SpecBuffer *b = spec.findBuffer(name);
  if (!b)
    c.fail(member(path, key), fmt::format("unknown buffer \"{}\"", name));
  if (onHost && b->onHost() != *onHost)
    c.fail(member(path, key), fmt::format("\"{}\" is {} memory; this operation's {} is {} memory", name,
                                          b->onHost() ? "host" : "device", key, *onHost ? "host" : "device"));
  return *b;
}

/// [offset, offset + bytes) must lie in `b` (a module variable's size is checked once the module is
/// loaded).
void checkExtent(const Checker &c, const SpecBuffer &b, uint64_t offset, uint64_t bytes, const std::string &path) {
  if (!b.symbol.empty())
    return;
  if (offset > b.bytes || bytes > b.bytes - offset)
    c.fail(path, fmt::format("{} bytes at offset {} run past the end of buffer \"{}\" ({} bytes)", bytes, offset,
                             b.name, b.bytes));
}

/// A kernel reads and writes its own device's memory: every buffer argument must be on `device`.
/// `operations`: the launch is one of a session's (which can name another device).
void checkKernelDevice(const Checker &c, const RunSpec &spec, const SpecLaunch &launch, unsigned device,
                       bool operations) {
  for (const SpecArg &arg : launch.args)
    if (const SpecBuffer *b = arg.isBuffer ? spec.findBuffer(arg.buffer) : nullptr; b && b->device != device)
      c.fail(arg.path,
             fmt::format("buffer \"{}\" is on device {}, the kernel runs on device {}: {}", b->name, b->device, device,
                         operations ? "copy it over (memcpy_d2d) or launch on its device"
                                    : "\"launches\" run on device 0 (\"operations\" can launch on another)"));
}

SpecOperation parseOperation(const Checker &c, RunSpec &spec, const json &j, const std::string &path,
                             std::unordered_set<std::string> &recordedEvents) {
  using Kind = SpecOperation::Kind;
  c.requireObject(j, path);
  std::string name = c.string(c.required(j, path, "op"), member(path, "op"));
  const OperationName *found = nullptr;
  for (const OperationName &o : kOperationNames)
    if (o.name == name)
      found = &o;
  if (!found) {
    std::string list;
    for (const OperationName &o : kOperationNames)
      list += fmt::format("{}{}", list.empty() ? "" : ", ", o.name);
    c.fail(member(path, "op"), fmt::format("unknown operation \"{}\" (expected one of {})", name, list));
  }
  SpecOperation op;
  op.kind = found->kind;
  op.path = path;
  auto stream = [&] {
    if (j.contains("stream"))
      op.stream = static_cast<unsigned>(c.unsignedInt(j["stream"], member(path, "stream"), kMaxStream));
    if (j.contains("device"))
      op.device = static_cast<unsigned>(c.unsignedInt(j["device"], member(path, "device"), kMaxDevice));
  };
  // A copy or memset is on its device buffers' device: one named "device" must be one of them.
  auto onDeviceOf = [&](std::initializer_list<const SpecBuffer *> buffers) {
    std::vector<unsigned> devices;
    for (const SpecBuffer *b : buffers)
      if (!b->onHost())
        devices.push_back(b->device);
    if (devices.empty())
      return;
    if (!j.contains("device")) {
      op.device = devices.front();
    } else if (std::find(devices.begin(), devices.end(), op.device) == devices.end()) {
      c.fail(member(path, "device"), fmt::format("device {}: this operation's device memory is on device {}", op.device,
                                                 devices.size() == 2 && devices[0] != devices[1]
                                                     ? fmt::format("{} and {}", devices[0], devices[1])
                                                     : fmt::format("{}", devices[0])));
    }
  };
  auto offset = [&](const char *key) -> uint64_t {
    return j.contains(key) ? c.unsignedInt(j[key], member(path, key), std::numeric_limits<uint64_t>::max()) : 0;
  };
  switch (op.kind) {
  case Kind::MemcpyH2D:
  case Kind::MemcpyD2H:
  case Kind::MemcpyD2D: {
    c.checkKeys(j, path, {"op", "stream", "device", "dst", "src", "bytes", "dst_offset", "src_offset"});
    stream();
    const SpecBuffer &dst = operandBuffer(c, spec, j, path, "dst", op.kind == Kind::MemcpyD2H);
    const SpecBuffer &src = operandBuffer(c, spec, j, path, "src", op.kind == Kind::MemcpyH2D);
    onDeviceOf({&src, &dst});
    op.dst = dst.name;
    op.src = src.name;
    op.dstOffset = offset("dst_offset");
    op.srcOffset = offset("src_offset");
    if (j.contains("bytes"))
      op.bytes = c.unsignedInt(j["bytes"], member(path, "bytes"), std::numeric_limits<uint64_t>::max());
    else if (src.symbol.empty())
      op.bytes = src.bytes > op.srcOffset ? src.bytes - op.srcOffset : 0; // the rest of the source
    else
      c.fail(path, "missing \"bytes\" (the source is a module variable)");
    checkExtent(c, src, op.srcOffset, op.bytes, member(path, "bytes"));
    checkExtent(c, dst, op.dstOffset, op.bytes, member(path, "bytes"));
    break;
  }
  case Kind::Memcpy2D: {
    c.checkKeys(j, path,
                {"op", "stream", "device", "dst", "src", "dst_offset", "src_offset", "dst_pitch", "src_pitch", "width",
                 "height"});
    stream();
    const SpecBuffer &dst = operandBuffer(c, spec, j, path, "dst", std::nullopt);
    const SpecBuffer &src = operandBuffer(c, spec, j, path, "src", std::nullopt);
    onDeviceOf({&src, &dst});
    op.dst = dst.name;
    op.src = src.name;
    op.dstOffset = offset("dst_offset");
    op.srcOffset = offset("src_offset");
    auto count = [&](const char *key) {
      return c.unsignedInt(c.required(j, path, key), member(path, key), std::numeric_limits<uint32_t>::max());
    };
    op.width = count("width");
    op.height = count("height");
    op.dstPitch = count("dst_pitch");
    op.srcPitch = count("src_pitch");
    // cudaMemcpy2D refuses a row wider than either pitch.
    for (auto [key, pitch] : {std::pair{"dst_pitch", op.dstPitch}, std::pair{"src_pitch", op.srcPitch}})
      if (op.width > pitch)
        c.fail(member(path, key), fmt::format("pitch {} is smaller than the row width {}", pitch, op.width));
    op.bytes = op.width * op.height;
    if (op.height > 0) {
      checkExtent(c, src, op.srcOffset, (op.height - 1) * op.srcPitch + op.width, path);
      checkExtent(c, dst, op.dstOffset, (op.height - 1) * op.dstPitch + op.width, path);
    }
    break;
  }
  case Kind::Memset: {
    c.checkKeys(j, path, {"op", "stream", "device", "dst", "value", "bytes", "dst_offset"});
    stream();
    const SpecBuffer &dst = operandBuffer(c, spec, j, path, "dst", false);
    onDeviceOf({&dst});
    op.dst = dst.name;
    op.dstOffset = offset("dst_offset");
    if (j.contains("value"))
      op.value = static_cast<uint8_t>(c.unsignedInt(j["value"], member(path, "value"), 255));
    if (j.contains("bytes"))
      op.bytes = c.unsignedInt(j["bytes"], member(path, "bytes"), std::numeric_limits<uint64_t>::max());
    else if (dst.symbol.empty())
      op.bytes = dst.bytes > op.dstOffset ? dst.bytes - op.dstOffset : 0;
    else
      c.fail(path, "missing \"bytes\" (the buffer is a module variable)");
    checkExtent(c, dst, op.dstOffset, op.bytes, member(path, "bytes"));
    break;
  }
  case Kind::Launch: {
    json launch = j;
    launch.erase("op");
    launch.erase("stream");
    launch.erase("device");
    stream();
    op.launch = spec.launches.size();
    spec.launches.push_back(parseLaunch(c, spec, launch, path));
    checkKernelDevice(c, spec, spec.launches.back(), op.device, true);
    break;
  }
  case Kind::EventRecord:
  case Kind::StreamWaitEvent: {
    c.checkKeys(j, path, {"op", "stream", "device", "event"});
    stream();
    op.event = c.string(c.required(j, path, "event"), member(path, "event"));
    bool recorded = recordedEvents.contains(op.event);
    if (op.kind == Kind::EventRecord && !recorded)
      recordedEvents.insert(op.event);
    if (op.kind == Kind::StreamWaitEvent && !recorded)
      c.fail(member(path, "event"), fmt::format("event \"{}\" is not recorded before this operation", op.event));
    break;
  }
  case Kind::StreamSynchronize:
    c.checkKeys(j, path, {"op", "stream", "device"});
    stream();
    break;
  case Kind::Synchronize:
    c.checkKeys(j, path, {"op", "device"});
    stream();
    break;
  }
  return op;
}

SpecHost parseHost(const Checker &c, const json &j) {
  const std::string path = "host";
  c.requireObject(j, path);
  c.checkKeys(j, path, {"pcie_generation", "pcie_lanes", "boards"});
  SpecHost host;
  if (j.contains("pcie_generation")) {
    uint64_t g = c.unsignedInt(j["pcie_generation"], member(path, "pcie_generation"), 5);
    if (g == 0)
      c.fail(member(path, "pcie_generation"), "must be 1 to 5");
    host.pcieGeneration = static_cast<int>(g);
  }
  if (j.contains("pcie_lanes")) {
    uint64_t lanes = c.unsignedInt(j["pcie_lanes"], member(path, "pcie_lanes"), 16);
    if (lanes == 0 || (lanes & (lanes - 1)))
      c.fail(member(path, "pcie_lanes"), fmt::format("{} lanes: expected 1, 2, 4, 8 or 16", lanes));
    host.pcieLanes = static_cast<int>(lanes);
  }
  if (j.contains("boards")) {
    uint64_t boards = c.unsignedInt(j["boards"], member(path, "boards"), 16);
    if (boards == 0)
      c.fail(member(path, "boards"), "must be 1 to 16");
    host.boards = static_cast<int>(boards);
  }
  return host;
}

} // namespace

// ---------------------------------------------------------------------------------------------
// Parsing

RunSpec parseRunSpec(const json &document, const std::string &name, const std::filesystem::path &dir) {
  Checker c(name);
  RunSpec spec;
  spec.name = name;
  spec.dir = dir;
  c.requireObject(document, "");
  c.checkKeys(document, "", {"module", "build_options", "buffers", "launches", "operations", "outputs", "host"});
  const json &modules = c.required(document, "", "module");
  if (modules.is_array()) {
    // Translation units of relocatable device code, linked into one module.
    if (modules.empty())
      c.fail("module", "an empty list: name the module, or the modules to link");
    for (size_t i = 0; i < modules.size(); ++i) {
      std::filesystem::path path = resolve(dir, c.string(modules[i], element("module", i)));
      if (path.extension() == ".cl")
        c.fail(element("module", i), "OpenCL C modules are not linked here: one .cl module per spec");
      if (i == 0)
        spec.module = std::move(path);
      else
        spec.linkedModules.push_back(std::move(path));
    }
  } else {
    spec.module = resolve(dir, c.string(modules, "module"));
  }
  if (document.contains("build_options")) {
    // An OpenCL C module's build options: a string as clBuildProgram takes it, or a list.
    const json &options = document["build_options"];
    if (options.is_string()) {
      spec.buildOptions = toolchain::splitBuildOptions(options.get<std::string>());
    } else {
      c.requireArray(options, "build_options");
      for (size_t i = 0; i < options.size(); ++i)
        spec.buildOptions.push_back(c.string(options[i], element("build_options", i)));
    }
    if (!spec.module.string().ends_with(".cl") && !spec.buildOptions.empty())
      c.fail("build_options", "build options are for an OpenCL C module (.cl)");
  }
  if (document.contains("buffers")) {
    const json &buffers = document["buffers"];
    c.requireArray(buffers, "buffers");
    for (size_t i = 0; i < buffers.size(); ++i)
      spec.addBuffer(parseBuffer(c, spec, buffers[i], element("buffers", i)));
  }
  if (document.contains("host"))
    spec.host = parseHost(c, document["host"]);
  // A plain launch list is a session of launches on the default stream.
  bool hasLaunches = document.contains("launches"), hasOperations = document.contains("operations");
  if (hasLaunches == hasOperations)
    c.fail("", hasLaunches ? "give \"launches\" or \"operations\", not both"
                           : "missing \"launches\" (or \"operations\", a session of host operations)");
  if (hasLaunches) {
    const json &launches = document["launches"];
    c.requireArray(launches, "launches");
    for (size_t i = 0; i < launches.size(); ++i) {
      SpecOperation op;
      op.kind = SpecOperation::Kind::Launch;
      op.launch = spec.launches.size();
      op.path = element("launches", i);
      spec.launches.push_back(parseLaunch(c, spec, launches[i], op.path));
      checkKernelDevice(c, spec, spec.launches.back(), op.device, false);
      spec.operations.push_back(std::move(op));
    }
  } else {
    const json &operations = document["operations"];
    c.requireArray(operations, "operations");
    std::unordered_set<std::string> recordedEvents;
    for (size_t i = 0; i < operations.size(); ++i)
      spec.operations.push_back(parseOperation(c, spec, operations[i], element("operations", i), recordedEvents));
  }
  if (document.contains("outputs")) {
    const json &outputs = document["outputs"];
    c.requireArray(outputs, "outputs");
    for (size_t i = 0; i < outputs.size(); ++i) {
      std::string path = element("outputs", i);
      const json &o = outputs[i];
      c.requireObject(o, path);
      c.checkKeys(o, path, {"buffer", "file"});
      SpecOutput out;
      out.path = path;
      out.buffer = c.string(c.required(o, path, "buffer"), member(path, "buffer"));
      if (!spec.findBuffer(out.buffer))
        c.fail(member(path, "buffer"), fmt::format("unknown buffer \"{}\"", out.buffer));
      out.file = resolve(dir, c.string(c.required(o, path, "file"), member(path, "file")));
      spec.outputs.push_back(std::move(out));
    }
  }
  return spec;
}

namespace {

/// What JSON itself lets through, checked as the text is read (nlohmann's SAX interface, before the
/// document is built): JSON keeps the last of two equal keys, and a spec must not silently lose the
/// first. Nesting is bounded too: a spec is a few levels deep, and a hostile one must not exhaust
/// the stack. (Not json::parse's callback: after every object it scans the array holding it,
/// which made a spec of 100,000 operations take half a minute.)
class KeyAndDepthCheck {
public:
  explicit KeyAndDepthCheck(const std::string &name) : name_(name) {}

  bool null() { return value(); }
  bool boolean(bool) { return value(); }
  bool number_integer(json::number_integer_t) { return value(); }
  bool number_unsigned(json::number_unsigned_t) { return value(); }
  bool number_float(json::number_float_t, const json::string_t &) { return value(); }
  bool string(json::string_t &) { return value(); }
  bool binary(json::binary_t &) { return value(); }
  bool start_object(std::size_t) {
    open();
    keys_.emplace_back();
    return true;
  }
  bool key(json::string_t &text) {
    depth(open_);
    if (!keys_.back().insert(text).second)
      throw SpecError(name_, "",
                      fmt::format("duplicate key \"{}\" in one object (JSON would keep only the last)", text));
    return true;
  }
  bool end_object() {
    keys_.pop_back();
    --open_;
    return true;
  }
  bool start_array(std::size_t) {
    open();
    return true;
  }
  bool end_array() {
    --open_;
    return true;
  }
  template <class Exception> bool parse_error(std::size_t, const std::string &, const Exception &e) { throw e; }

private:
  static constexpr size_t kMaxDepth = 64;
  // Depths as json::parse's callback counted them: the containers open around a value or a
  // container that starts, and those around a key with its object.
  void depth(size_t levels) const {
    if (levels > kMaxDepth)
      throw SpecError(name_, "", fmt::format("invalid JSON: nested deeper than {} levels", kMaxDepth));
  }
  bool value() const {
    depth(open_);
    return true;
  }
  void open() { depth(open_++); }

  const std::string &name_;
  size_t open_ = 0;                         ///< containers open
  std::vector<std::set<std::string>> keys_; ///< the keys of each open object
};

} // namespace

RunSpec parseRunSpecText(std::string_view text, const std::string &name, const std::filesystem::path &dir) {
  json document;
  try {
    KeyAndDepthCheck check(name);
    json::sax_parse(text.begin(), text.end(), &check);
    document = json::parse(text.begin(), text.end());
  } catch (const json::exception &e) {
    // "[json.exception.parse_error.101] parse error at line 3, column 5: ..." without the prefix; a
    // number past a double's range (1e400) is an out_of_range error of the same parser.
    std::string what = e.what();
    auto at = what.find("] ");
    throw SpecError(name, "", "invalid JSON: " + (at == std::string::npos ? what : what.substr(at + 2)));
  }
  return parseRunSpec(document, name, dir);
}

RunSpec loadRunSpec(const std::filesystem::path &file) {
  const std::string text = support::readInputFile(file);
  return parseRunSpecText(text, file.string(), file.parent_path());
}

void applyLaunchOverrides(RunSpec &spec, const LaunchOverrides &overrides) {
  for (SpecLaunch &l : spec.launches) {
    if (overrides.blockSize) {
      const uint64_t size = *overrides.blockSize;
      if (size == 0)
        throw SpecError(spec.name, l.path, "a block size of 0 threads");
      const uint64_t threads = uint64_t{l.grid.x} * l.block.x;
      const uint64_t grid = std::max<uint64_t>(1, (threads + size - 1) / size);
      if (grid > std::numeric_limits<uint32_t>::max())
        throw SpecError(spec.name, l.path,
                        fmt::format("{} threads per block along x make a grid of {} blocks", size, grid));
      l.block.x = static_cast<uint32_t>(size);
      l.grid.x = static_cast<uint32_t>(grid);
    }
    if (overrides.dynamicSharedBytes)
      l.dynamicSharedBytes = *overrides.dynamicSharedBytes;
  }
}

} // namespace ptxray::session
