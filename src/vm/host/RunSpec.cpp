#include "vm/host/RunSpec.h"

#include "arch/GpuDatabase.h"
#include "vm/Memory.h"
#include "vm/semantics/Half.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <bit>
#include <chrono>
#include <cmath>
#include <cstring>
#include <fstream>
#include <iterator>
#include <limits>
#include <sstream>

namespace ptxray::vm {

using nlohmann::json;

SpecError::SpecError(std::string file, std::string path, std::string message)
    : std::runtime_error(
          fmt::format("{}{}{}", file.empty() ? "" : file + ": ", path.empty() ? "" : path + ": ", message)),
      file_(std::move(file)), path_(std::move(path)), message_(std::move(message)) {}

const SpecBuffer *RunSpec::findBuffer(std::string_view wanted) const {
  for (const SpecBuffer &b : buffers)
    if (b.name == wanted)
      return &b;
  return nullptr;
}

bool RunOutcome::ok() const {
  if (!error.empty())
    return false;
  return std::all_of(launches.begin(), launches.end(), [](const LaunchReport &r) { return r.result.ok(); });
}

namespace {

// ---------------------------------------------------------------------------------------------
// JSON walking with paths

std::string member(const std::string &path, std::string_view key) {
  return path.empty() ? std::string(key) : fmt::format("{}.{}", path, key);
}
std::string element(const std::string &path, size_t index) {
  return fmt::format("{}[{}]", path, index);
}

/// A JSON value's type for messages: "a string", "an array"...
std::string kindOf(const json &j) {
  switch (j.type()) {
  case json::value_t::null: return "null";
  case json::value_t::boolean: return "a boolean";
  case json::value_t::string: return "a string";
  case json::value_t::array: return "an array";
  case json::value_t::object: return "an object";
  case json::value_t::number_float: return "a non-integer number";
  default: return "a number";
  }
}

class Checker {
public:
  explicit Checker(const std::string &name) : name_(name) {}

  [[noreturn]] void fail(const std::string &path, const std::string &message) const {
    throw SpecError(name_, path, message);
  }

  void requireObject(const json &j, const std::string &path) const {
    if (!j.is_object())
      fail(path, "expected an object, found " + kindOf(j));
  }
  void requireArray(const json &j, const std::string &path) const {
    if (!j.is_array())
      fail(path, "expected an array, found " + kindOf(j));
  }

  /// Rejects keys outside `allowed` (keys starting with '_' are comments).
  void checkKeys(const json &object, const std::string &path, std::initializer_list<std::string_view> allowed) const {
    for (const auto &item : object.items()) {
      const std::string &key = item.key();
      if (key.starts_with('_') || std::find(allowed.begin(), allowed.end(), key) != allowed.end())
        continue;
      std::string list;
      for (std::string_view a : allowed)
        list += fmt::format("{}\"{}\"", list.empty() ? "" : ", ", a);
      fail(member(path, key), fmt::format("unknown key (expected {})", list));
    }
  }

  const json &required(const json &object, const std::string &path, const char *key) const {
    auto it = object.find(key);
    if (it == object.end())
      fail(path, fmt::format("missing \"{}\"", key));
    return *it;
  }

  std::string string(const json &j, const std::string &path, bool allowEmpty = false) const {
    if (!j.is_string())
      fail(path, "expected a string, found " + kindOf(j));
    std::string s = j.get<std::string>();
    if (s.empty() && !allowEmpty)
      fail(path, "must not be empty");
    return s;
  }

  uint64_t unsignedInt(const json &j, const std::string &path, uint64_t max) const {
    if (j.is_number_integer() && !j.is_number_unsigned())
      fail(path, fmt::format("expected a non-negative integer, found {}", j.get<int64_t>()));
    if (!j.is_number_unsigned())
      fail(path, "expected a non-negative integer, found " + kindOf(j));
    uint64_t v = j.get<uint64_t>();
    if (v > max)
      fail(path, fmt::format("{} is too large (at most {})", v, max));
    return v;
  }

  /// Any 64-bit integer as a two's-complement pattern; `negative` says which reading it had.
  uint64_t anyInt(const json &j, const std::string &path, bool &negative) const {
    negative = false;
    if (j.is_number_unsigned())
      return j.get<uint64_t>();
    if (j.is_number_integer()) {
      negative = j.get<int64_t>() < 0;
      return static_cast<uint64_t>(j.get<int64_t>());
    }
    fail(path, "expected an integer, found " + kindOf(j));
  }

  double number(const json &j, const std::string &path) const {
    if (j.is_number())
      return j.get<double>();
    if (j.is_string()) {
      std::string s = j.get<std::string>();
      if (s == "inf" || s == "+inf" || s == "infinity")
        return std::numeric_limits<double>::infinity();
      if (s == "-inf" || s == "-infinity")
        return -std::numeric_limits<double>::infinity();
      if (s == "nan")
        return std::numeric_limits<double>::quiet_NaN();
      fail(path, fmt::format("expected a number (or \"inf\", \"-inf\", \"nan\"), found \"{}\"", s));
    }
    fail(path, "expected a number, found " + kindOf(j));
  }

  uint64_t hexBits(const json &j, const std::string &path) const {
    std::string s = string(j, path);
    std::string_view digits = s;
    if (digits.starts_with("0x") || digits.starts_with("0X"))
      digits.remove_prefix(2);
    if (digits.empty())
      fail(path, fmt::format("bad bit pattern \"{}\" (expected hex digits, e.g. \"0x3f800000\")", s));
    uint64_t v = 0;
    for (char c : digits) {
      int d = hexDigit(c);
      if (d < 0)
        fail(path, fmt::format("bad bit pattern \"{}\" (expected hex digits, e.g. \"0x3f800000\")", s));
      if (v >> 60)
        fail(path, fmt::format("bit pattern \"{}\" is wider than 64 bits", s));
      v = v << 4 | static_cast<uint64_t>(d);
    }
    return v;
  }

  std::vector<std::byte> hexBytes(const json &j, const std::string &path) const {
    std::string s = string(j, path);
    if (s.size() % 2)
      fail(path, fmt::format("odd number of hex digits ({})", s.size()));
    std::vector<std::byte> out;
    for (size_t i = 0; i < s.size(); i += 2) {
      int hi = hexDigit(s[i]), lo = hexDigit(s[i + 1]);
      if (hi < 0 || lo < 0)
        fail(path, fmt::format("'{}' is not a hex digit", hi < 0 ? s[i] : s[i + 1]));
      out.push_back(static_cast<std::byte>(hi << 4 | lo));
    }
    return out;
  }

  Dim3 dim3(const json &j, const std::string &path) const {
    if (!j.is_array() || j.empty() || j.size() > 3)
      fail(path, "expected an array of 1 to 3 positive integers");
    uint32_t d[3] = {1, 1, 1};
    for (size_t i = 0; i < j.size(); ++i) {
      uint64_t v = unsignedInt(j[i], element(path, i), std::numeric_limits<uint32_t>::max());
      if (v == 0)
        fail(element(path, i), "must be at least 1");
      d[i] = static_cast<uint32_t>(v);
    }
    return {d[0], d[1], d[2]};
  }

private:
  static int hexDigit(char c) {
    if (c >= '0' && c <= '9')
      return c - '0';
    if (c >= 'a' && c <= 'f')
      return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
      return c - 'A' + 10;
    return -1;
  }
  const std::string &name_;
};

std::filesystem::path resolve(const std::filesystem::path &dir, const std::string &p) {
  std::filesystem::path path(p);
  return path.is_absolute() || dir.empty() ? path : dir / path;
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

std::vector<std::byte> littleEndian(uint64_t v, unsigned bytes) {
  std::vector<std::byte> out(bytes);
  for (unsigned i = 0; i < bytes; ++i)
    out[i] = static_cast<std::byte>(v >> (8 * i));
  return out;
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
  case ScalarType::F16: return sem::fromF64<sem::HalfKind::F16>(c.number(value, path));
  case ScalarType::BF16: return sem::fromF64<sem::HalfKind::BF16>(c.number(value, path));
  case ScalarType::F32: return std::bit_cast<uint32_t>(static_cast<float>(c.number(value, path)));
  case ScalarType::F64: return std::bit_cast<uint64_t>(c.number(value, path));
  }
  return 0;
}

SpecArg parseArg(const Checker &c, const RunSpec &spec, const json &j, const std::string &path) {
  c.requireObject(j, path);
  SpecArg a;
  a.path = path;
  if (j.contains("buffer")) {
    c.checkKeys(j, path, {"buffer", "offset"});
    a.isBuffer = true;
    a.type = "pointer";
    a.buffer = c.string(j["buffer"], member(path, "buffer"));
    const SpecBuffer *b = spec.findBuffer(a.buffer);
    if (!b)
      c.fail(member(path, "buffer"), fmt::format("unknown buffer \"{}\"", a.buffer));
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

SpecBuffer parseBuffer(const Checker &c, const RunSpec &spec, const json &j, const std::string &path) {
  c.requireObject(j, path);
  c.checkKeys(j, path, {"name", "bytes", "symbol", "init"});
  SpecBuffer b;
  b.path = path;
  b.name = c.string(c.required(j, path, "name"), member(path, "name"));
  if (const SpecBuffer *other = spec.findBuffer(b.name))
    c.fail(member(path, "name"), fmt::format("duplicate buffer name \"{}\" (first at {})", b.name, other->path));
  bool hasBytes = j.contains("bytes"), hasSymbol = j.contains("symbol");
  if (hasBytes && hasSymbol)
    c.fail(path, "give \"bytes\" (a device allocation) or \"symbol\" (a module variable), not both");
  if (!hasBytes && !hasSymbol)
    c.fail(path, "missing \"bytes\" (a device allocation) or \"symbol\" (a module variable)");
  if (hasBytes)
    b.bytes = c.unsignedInt(j["bytes"], member(path, "bytes"), kGlobalLimit - kGlobalBase);
  else
    b.symbol = c.string(j["symbol"], member(path, "symbol"));
  if (j.contains("init")) {
    b.init = parseInit(c, spec, j["init"], member(path, "init"));
    if (hasSymbol && b.init.kind == BufferInit::Kind::None)
      c.fail(member(path, "init"), "\"none\" is for device allocations (\"bytes\"); a module variable always "
                                   "starts with the value its module gives it");
  } else
    b.init.kind = hasSymbol ? BufferInit::Kind::Keep : BufferInit::Kind::Zero;
  return b;
}

SpecLaunch parseLaunch(const Checker &c, const RunSpec &spec, const json &j, const std::string &path) {
  c.requireObject(j, path);
  c.checkKeys(j, path, {"kernel", "grid", "block", "dynamic_shared_bytes", "cooperative", "args"});
  SpecLaunch l;
  l.path = path;
  if (j.contains("kernel"))
    l.kernel = c.string(j["kernel"], member(path, "kernel"));
  l.grid = c.dim3(c.required(j, path, "grid"), member(path, "grid"));
  l.block = c.dim3(c.required(j, path, "block"), member(path, "block"));
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

std::vector<std::byte> readFileBytes(const std::filesystem::path &path, std::string &error) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    error = fmt::format("cannot open \"{}\": {}", path.string(), std::strerror(errno));
    return {};
  }
  std::vector<char> chars((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad())
    error = fmt::format("cannot read \"{}\"", path.string());
  std::vector<std::byte> out(chars.size());
  if (!chars.empty())
    std::memcpy(out.data(), chars.data(), chars.size());
  return out;
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
  c.checkKeys(document, "", {"module", "buffers", "launches", "outputs"});
  spec.module = resolve(dir, c.string(c.required(document, "", "module"), "module"));
  if (document.contains("buffers")) {
    const json &buffers = document["buffers"];
    c.requireArray(buffers, "buffers");
    for (size_t i = 0; i < buffers.size(); ++i)
      spec.buffers.push_back(parseBuffer(c, spec, buffers[i], element("buffers", i)));
  }
  const json &launches = c.required(document, "", "launches");
  c.requireArray(launches, "launches");
  for (size_t i = 0; i < launches.size(); ++i)
    spec.launches.push_back(parseLaunch(c, spec, launches[i], element("launches", i)));
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

RunSpec parseRunSpecText(std::string_view text, const std::string &name, const std::filesystem::path &dir) {
  json document;
  try {
    document = json::parse(text.begin(), text.end());
  } catch (const json::parse_error &e) {
    // "[json.exception.parse_error.101] parse error at line 3, column 5: ..." without the prefix.
    std::string what = e.what();
    auto at = what.find("] ");
    throw SpecError(name, "", "invalid JSON: " + (at == std::string::npos ? what : what.substr(at + 2)));
  }
  return parseRunSpec(document, name, dir);
}

RunSpec loadRunSpec(const std::filesystem::path &file) {
  std::string error;
  std::vector<std::byte> bytes = readFileBytes(file, error);
  if (!error.empty())
    throw SpecError("", "", error);
  std::string_view text(reinterpret_cast<const char *>(bytes.data()), bytes.size());
  return parseRunSpecText(text, file.string(), file.parent_path());
}

std::vector<std::byte> initialContents(const RunSpec &spec, const SpecBuffer &buffer, uint64_t bytes) {
  std::vector<std::byte> data(bytes, std::byte{0});
  auto *raw = reinterpret_cast<uint8_t *>(data.data());
  const BufferInit &init = buffer.init;
  std::string path = member(buffer.path, "init");
  switch (init.kind) {
  case BufferInit::Kind::Keep:
  case BufferInit::Kind::Zero:
  case BufferInit::Kind::None: break;
  case BufferInit::Kind::File: {
    std::string error;
    std::vector<std::byte> file = readFileBytes(init.file, error);
    if (!error.empty())
      throw SpecError(spec.name, path, error);
    if (file.size() > bytes)
      throw SpecError(spec.name, path,
                      fmt::format("\"{}\" has {} bytes, more than the {} of buffer \"{}\"", init.file.string(),
                                  file.size(), bytes, buffer.name));
    std::copy(file.begin(), file.end(), data.begin());
    break;
  }
  case BufferInit::Kind::Iota: fillIota(raw, data.size(), init.dtype); break;
  case BufferInit::Kind::Random: {
    std::string err = isFloat(init.dtype)
                          ? fillRandomFloat(raw, data.size(), init.dtype, init.seed, init.minValue, init.maxValue)
                          : fillRandomInt(raw, data.size(), init.dtype, init.seed, init.minBits, init.maxBits);
    if (!err.empty())
      throw SpecError(spec.name, member(path, "random"), err);
    break;
  }
  }
  return data;
}

// ---------------------------------------------------------------------------------------------
// Running

namespace {

struct PlacedBuffer {
  const SpecBuffer *spec = nullptr;
  uint64_t address = 0;
  uint64_t bytes = 0;
};

std::string kernelList(const LoadedModule &module) {
  std::string list;
  for (const DecodedFunction &f : module.program().functions)
    if (f.isEntry)
      list += (list.empty() ? "" : ", ") + f.name;
  return list.empty() ? "none" : list;
}

const DecodedFunction *resolveKernel(const Checker &c, const LoadedModule &module, const SpecLaunch &l) {
  if (!l.kernel.empty()) {
    if (const DecodedFunction *k = module.findKernel(l.kernel))
      return k;
    c.fail(member(l.path, "kernel"),
           fmt::format("the module has no kernel \"{}\" (kernels: {})", l.kernel, kernelList(module)));
  }
  const DecodedFunction *only = nullptr;
  size_t count = 0;
  for (const DecodedFunction &f : module.program().functions)
    if (f.isEntry) {
      only = &f;
      ++count;
    }
  if (count != 1)
    c.fail(l.path, fmt::format("missing \"kernel\" (the module has {} kernels: {})", count, kernelList(module)));
  return only;
}

void writeFile(const std::filesystem::path &file, std::span<const std::byte> data) {
  std::error_code ec;
  if (file.has_parent_path())
    std::filesystem::create_directories(file.parent_path(), ec);
  std::ofstream out(file, std::ios::binary | std::ios::trunc);
  if (out)
    out.write(reinterpret_cast<const char *>(data.data()), static_cast<std::streamsize>(data.size()));
  if (!out)
    throw std::runtime_error(fmt::format("cannot write \"{}\": {}", file.string(), std::strerror(errno)));
}

} // namespace

RunOutcome runSpec(const RunSpec &spec, const RunOptions &options) {
  arch::ArchLookup lookup = arch::findArch(options.arch);
  if (!lookup)
    throw std::invalid_argument(lookup.error);
  const arch::ArchTarget &target = *lookup.target;
  Device device(*target.computeCapability, target.gpu ? target.gpu->smCount : 0);
  device.memory().setListener(options.memoryListener);
  Checker c(spec.name);

  std::error_code ec;
  if (!std::filesystem::is_regular_file(spec.module, ec))
    c.fail("module", fmt::format("cannot open \"{}\": no such file", spec.module.string()));
  LoadedModule &module = device.loadModuleFile(spec.module.string(), options.keepPtxDirectory);
  const unsigned pointerBytes = module.ptx().pointerBits() / 8;

  // Everything the module can tell us is wrong, before anything runs.
  std::vector<PlacedBuffer> placed;
  for (const SpecBuffer &b : spec.buffers) {
    PlacedBuffer p{&b, 0, b.bytes};
    if (!b.symbol.empty()) {
      const PlacedVariable *v = module.findVariable(b.symbol);
      if (!v || (v->space != ptx::StateSpace::Global && v->space != ptx::StateSpace::Const))
        c.fail(member(b.path, "symbol"), fmt::format("the module has no .global or .const variable \"{}\"", b.symbol));
      p.address = module.deviceAddress(*v);
      p.bytes = v->size;
    }
    placed.push_back(p);
  }
  auto placedOf = [&](std::string_view name) -> const PlacedBuffer & {
    for (const PlacedBuffer &p : placed)
      if (p.spec->name == name)
        return p;
    throw std::logic_error("runSpec: buffer vanished"); // parseRunSpec checked every name
  };
  std::vector<const DecodedFunction *> kernels;
  for (const SpecLaunch &l : spec.launches) {
    const DecodedFunction *k = resolveKernel(c, module, l);
    kernels.push_back(k);
    if (l.args.size() != k->paramSizes.size())
      c.fail(member(l.path, "args"),
             fmt::format("kernel {} takes {} parameter{}, {} given", k->name, k->paramSizes.size(),
                         k->paramSizes.size() == 1 ? "" : "s", l.args.size()));
    for (size_t i = 0; i < l.args.size(); ++i) {
      const SpecArg &a = l.args[i];
      uint64_t size = a.isBuffer ? pointerBytes : a.bytes.size();
      if (size != k->paramSizes[i]) {
        std::string what = a.isBuffer
                               ? fmt::format("a pointer is {} bytes in this {}-bit module", size, pointerBytes * 8)
                               : fmt::format("the {} argument is {}", a.type, size);
        c.fail(a.path, fmt::format("parameter {} of {} is {} bytes; {}", i, k->name, k->paramSizes[i], what));
      }
      if (a.isBuffer) {
        const PlacedBuffer &p = placedOf(a.buffer);
        if (a.offset > p.bytes)
          c.fail(member(a.path, "offset"),
                 fmt::format("offset {} is past the end of buffer \"{}\" ({} bytes)", a.offset, a.buffer, p.bytes));
      }
    }
  }

  // Device memory and initial contents.
  for (PlacedBuffer &p : placed) {
    const SpecBuffer &b = *p.spec;
    if (b.symbol.empty())
      p.address = device.allocate(std::max<uint64_t>(p.bytes, 1), fmt::format("buffer {} ({} bytes)", b.name, p.bytes));
    if (b.init.kind == BufferInit::Kind::Keep || b.init.kind == BufferInit::Kind::None)
      continue;
    std::vector<std::byte> data = initialContents(spec, b, p.bytes);
    if (data.empty())
      continue;
    if (b.symbol.empty())
      device.copyToDevice(p.address, data);
    else
      device.writeVariable(module, b.symbol, data);
  }

  RunOutcome outcome;
  bool failed = false;
  for (size_t i = 0; i < spec.launches.size() && !failed; ++i) {
    const SpecLaunch &l = spec.launches[i];
    std::vector<std::vector<std::byte>> args;
    for (const SpecArg &a : l.args) {
      if (!a.isBuffer) {
        args.push_back(a.bytes);
        continue;
      }
      uint64_t address = placedOf(a.buffer).address + a.offset;
      if (pointerBytes == 4 && address > std::numeric_limits<uint32_t>::max())
        c.fail(a.path, fmt::format("address 0x{:x} does not fit a 32-bit pointer", address));
      args.push_back(littleEndian(address, pointerBytes));
    }
    LaunchReport report;
    report.index = i;
    report.kernel = l.kernel.empty() ? kernels[i]->name : l.kernel;
    report.grid = l.grid;
    report.block = l.block;
    auto start = std::chrono::steady_clock::now();
    report.result = device.launch(module, kernels[i]->name, {l.grid, l.block, l.dynamicSharedBytes, l.cooperative},
                                  args, options.launch);
    report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    outcome.printfOutput += report.result.printfOutput;
    failed = !report.result.ok();
    outcome.launches.push_back(std::move(report));
    if (options.onLaunch)
      options.onLaunch(outcome.launches.back());
  }

  auto contents = [&](const PlacedBuffer &p) {
    std::vector<std::byte> data(p.bytes);
    if (!p.spec->symbol.empty())
      device.readVariable(module, p.spec->symbol, data);
    else if (!data.empty())
      device.copyFromDevice(data, p.address);
    return data;
  };
  if (!failed && options.writeOutputs) {
    for (const SpecOutput &o : spec.outputs) {
      try {
        writeFile(o.file, contents(placedOf(o.buffer)));
        outcome.outputsWritten.push_back(o.file);
      } catch (const std::exception &e) {
        outcome.error += (outcome.error.empty() ? "" : "\n") + std::string(e.what());
      }
    }
  }
  if (options.keepBuffers)
    for (const PlacedBuffer &p : placed)
      outcome.buffers[p.spec->name] = contents(p);
  return outcome;
}

} // namespace ptxray::vm
