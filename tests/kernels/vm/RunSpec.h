// The run-spec format of `ptxray run SPEC.json`, as the test side reads it: the CPU reference
// implementations (Reference.h) and the CUDA driver-API runner (validation/vm/spec_runner.cpp) share
// this reader, so a spec means the same thing on the CPU and on a real GPU. The virtual GPU has its
// own reader in src/session; comparing the three is the point of the end-to-end tests.
//
//   {"module": "PATH.ptx",
//    "buffers": [{"name": N, "bytes": B, "init": INIT} | {"name": N, "symbol": SYM, "init": INIT}],
//    "launches": [{"kernel": K, "grid": [x,y,z], "block": [x,y,z], "dynamic_shared_bytes": D,
//                  "args": [ARG...]}],
//    "outputs": [{"buffer": N, "file": "PATH"}]}
//   INIT: "zero" | "PATH" (raw bytes; a shorter file is zero-padded, a longer one is an error)
//         | {"random": {"dtype", "seed", "min", "max"}} | {"iota": {"dtype"}}   (DataGenerators.h)
//   ARG:  {"buffer": N, "offset": BYTES}                  device address of buffer N plus offset
//         {"type": T, "value": V}                         T in u8 s8 u16 s16 u32 s32 u64 s64
//         {"type": T, "bits": "0x..."}                    b8 b16 b32 b64 f32 f64; bits: exact pattern
//         {"type": "bytes", "hex": "0a0b..."}             a struct passed by value, byte by byte
// Relative paths are relative to the spec file's folder. Header-only, C++17, nlohmann/json.
#pragma once

#include "session/DataGenerators.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>
#include <vector>

namespace ptxray::vm::spec {

// The generators are the run-spec format's (src/session/DataGenerators.h).
using namespace ptxray::session;

using Bytes = std::vector<uint8_t>;

struct Dim3 {
  uint32_t x = 1, y = 1, z = 1;
  uint64_t count() const { return uint64_t(x) * y * z; }
};

struct Arg {
  bool isBuffer = false;
  std::string buffer; // isBuffer: the buffer's name
  uint64_t offset = 0;
  Bytes bytes; // !isBuffer: the value's bytes, little-endian, as the kernel's .param receives them
};

struct Launch {
  std::string kernel;
  Dim3 grid, block;
  uint32_t dynamicSharedBytes = 0;
  std::vector<Arg> args;
};

struct Buffer {
  std::string name;
  std::string symbol; // non-empty: a module-scope variable; its size comes from the module
  uint64_t bytes = 0; // plain buffers only
  nlohmann::json init;
};

struct Output {
  std::string buffer;
  std::string file; // relative to the spec's folder unless absolute
};

struct RunSpec {
  std::filesystem::path file; // the spec file itself
  std::filesystem::path dir;  // its folder: relative paths start here
  std::filesystem::path module;
  std::vector<Buffer> buffers;
  std::vector<Launch> launches;
  std::vector<Output> outputs;

  const Buffer *findBuffer(const std::string &name) const {
    for (const auto &b : buffers)
      if (b.name == name)
        return &b;
    return nullptr;
  }
};

struct SpecError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

namespace detail {

inline uint64_t parseHexU64(const std::string &text) {
  std::string s = text;
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
    s = s.substr(2);
  if (s.empty() || s.size() > 16)
    throw SpecError("bad bit pattern '" + text + "'");
  uint64_t v = 0;
  for (char c : s) {
    int d = (c >= '0' && c <= '9')   ? c - '0'
            : (c >= 'a' && c <= 'f') ? c - 'a' + 10
            : (c >= 'A' && c <= 'F') ? c - 'A' + 10
                                     : -1;
    if (d < 0)
      throw SpecError("bad bit pattern '" + text + "'");
    v = v << 4 | uint64_t(d);
  }
  return v;
}

inline Bytes parseHexBytes(const std::string &hex) {
  if (hex.size() % 2 != 0)
    throw SpecError("odd number of hex digits in \"hex\"");
  Bytes out;
  for (size_t i = 0; i < hex.size(); i += 2)
    out.push_back(static_cast<uint8_t>(parseHexU64(hex.substr(i, 2))));
  return out;
}

inline Bytes littleEndian(uint64_t v, size_t size) {
  Bytes out(size);
  for (size_t i = 0; i < size; ++i)
    out[i] = static_cast<uint8_t>(v >> (8 * i));
  return out;
}

/// An integer JSON number as a 64-bit two's-complement bit pattern.
inline uint64_t intBits(const nlohmann::json &v, const char *what) {
  if (v.is_number_unsigned())
    return v.get<uint64_t>();
  if (v.is_number_integer())
    return static_cast<uint64_t>(v.get<int64_t>());
  throw SpecError(std::string(what) + " must be an integer");
}

inline Dim3 parseDim3(const nlohmann::json &j, const char *what) {
  if (!j.is_array() || j.empty() || j.size() > 3)
    throw SpecError(std::string(what) + " must be an array of 1 to 3 integers");
  Dim3 d;
  uint32_t *dst[3] = {&d.x, &d.y, &d.z};
  for (size_t i = 0; i < j.size(); ++i) {
    if (!j[i].is_number_unsigned() || j[i].get<uint64_t>() == 0 || j[i].get<uint64_t>() > 0xffffffffu)
      throw SpecError(std::string(what) + " must hold positive integers");
    *dst[i] = j[i].get<uint32_t>();
  }
  return d;
}

} // namespace detail

/// Size in bytes of a scalar argument type; 0 for an unknown one.
inline size_t scalarTypeSize(const std::string &t) {
  if (t == "u8" || t == "s8" || t == "b8")
    return 1;
  if (t == "u16" || t == "s16" || t == "b16")
    return 2;
  if (t == "u32" || t == "s32" || t == "b32" || t == "f32")
    return 4;
  if (t == "u64" || t == "s64" || t == "b64" || t == "f64")
    return 8;
  return 0;
}

inline Arg parseArg(const nlohmann::json &j) {
  Arg a;
  if (!j.is_object())
    throw SpecError("an argument must be an object");
  if (j.contains("buffer")) {
    a.isBuffer = true;
    a.buffer = j.at("buffer").get<std::string>();
    a.offset = j.contains("offset") ? detail::intBits(j.at("offset"), "offset") : 0;
    return a;
  }
  std::string type = j.at("type").get<std::string>();
  if (type == "bytes") {
    a.bytes = detail::parseHexBytes(j.at("hex").get<std::string>());
    return a;
  }
  size_t size = scalarTypeSize(type);
  if (size == 0)
    throw SpecError("unknown argument type '" + type + "'");
  if (j.contains("bits")) {
    uint64_t bits = detail::parseHexU64(j.at("bits").get<std::string>());
    if (size < 8 && (bits >> (8 * size)) != 0)
      throw SpecError("bit pattern wider than " + type);
    a.bytes = detail::littleEndian(bits, size);
    return a;
  }
  const nlohmann::json &v = j.at("value");
  if (type == "f32") {
    float f = static_cast<float>(v.get<double>());
    a.bytes.resize(4);
    std::memcpy(a.bytes.data(), &f, 4);
  } else if (type == "f64") {
    double d = v.get<double>();
    a.bytes.resize(8);
    std::memcpy(a.bytes.data(), &d, 8);
  } else {
    a.bytes = detail::littleEndian(detail::intBits(v, "an integer argument's value"), size);
  }
  return a;
}

inline RunSpec parseRunSpec(const nlohmann::json &j, const std::filesystem::path &specFile) {
  RunSpec s;
  s.file = specFile;
  s.dir = specFile.parent_path();
  auto resolve = [&](const std::string &p) {
    std::filesystem::path path(p);
    return path.is_absolute() ? path : s.dir / path;
  };
  s.module = resolve(j.at("module").get<std::string>());
  for (const auto &b : j.value("buffers", nlohmann::json::array())) {
    Buffer buf;
    buf.name = b.at("name").get<std::string>();
    if (b.contains("symbol"))
      buf.symbol = b.at("symbol").get<std::string>();
    else
      buf.bytes = detail::intBits(b.at("bytes"), "bytes");
    buf.init = b.value("init", nlohmann::json("zero"));
    if (s.findBuffer(buf.name))
      throw SpecError("duplicate buffer '" + buf.name + "'");
    s.buffers.push_back(std::move(buf));
  }
  for (const auto &l : j.at("launches")) {
    Launch launch;
    launch.kernel = l.at("kernel").get<std::string>();
    launch.grid = detail::parseDim3(l.at("grid"), "grid");
    launch.block = detail::parseDim3(l.at("block"), "block");
    launch.dynamicSharedBytes = l.value("dynamic_shared_bytes", 0u);
    for (const auto &a : l.value("args", nlohmann::json::array())) {
      launch.args.push_back(parseArg(a));
      if (launch.args.back().isBuffer && !s.findBuffer(launch.args.back().buffer))
        throw SpecError("argument names unknown buffer '" + launch.args.back().buffer + "'");
    }
    s.launches.push_back(std::move(launch));
  }
  for (const auto &o : j.value("outputs", nlohmann::json::array())) {
    Output out{o.at("buffer").get<std::string>(), o.at("file").get<std::string>()};
    if (!s.findBuffer(out.buffer))
      throw SpecError("output names unknown buffer '" + out.buffer + "'");
    s.outputs.push_back(std::move(out));
  }
  return s;
}

/// Reads and checks a spec file. Throws SpecError (or nlohmann::json::exception) when it is malformed.
inline RunSpec loadRunSpec(const std::filesystem::path &specFile) {
  std::ifstream in(specFile);
  if (!in)
    throw SpecError("cannot read " + specFile.string());
  nlohmann::json j = nlohmann::json::parse(in);
  return parseRunSpec(j, specFile);
}

/// The initial contents of a buffer of `bytes` bytes (for a symbol buffer, the variable's size).
inline Bytes initialContents(const nlohmann::json &init, uint64_t bytes, const std::filesystem::path &specDir) {
  Bytes data(bytes, 0);
  if (init.is_string()) {
    std::string s = init.get<std::string>();
    if (s == "zero")
      return data;
    std::filesystem::path p(s);
    if (!p.is_absolute())
      p = specDir / p;
    std::ifstream in(p, std::ios::binary);
    if (!in)
      throw SpecError("cannot read init file " + p.string());
    Bytes file((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (file.size() > bytes)
      throw SpecError("init file " + p.string() + " is larger than its buffer");
    std::copy(file.begin(), file.end(), data.begin());
    return data;
  }
  if (init.is_object() && init.contains("iota")) {
    auto dtype = parseDType(init.at("iota").at("dtype").get<std::string>());
    if (!dtype)
      throw SpecError("unknown iota dtype");
    fillIota(data.data(), data.size(), *dtype);
    return data;
  }
  if (init.is_object() && init.contains("random")) {
    const auto &r = init.at("random");
    auto dtype = parseDType(r.at("dtype").get<std::string>());
    if (!dtype)
      throw SpecError("unknown random dtype");
    uint64_t seed = r.contains("seed") ? detail::intBits(r.at("seed"), "seed") : 0;
    std::string err;
    if (isFloat(*dtype)) {
      double lo = r.contains("min") ? r.at("min").get<double>() : 0.0;
      double hi = r.contains("max") ? r.at("max").get<double>() : 1.0;
      err = fillRandomFloat(data.data(), data.size(), *dtype, seed, lo, hi);
    } else {
      uint64_t lo = r.contains("min") ? detail::intBits(r.at("min"), "random min") : defaultRandomMinBits(*dtype);
      uint64_t hi = r.contains("max") ? detail::intBits(r.at("max"), "random max") : defaultRandomMaxBits(*dtype);
      err = fillRandomInt(data.data(), data.size(), *dtype, seed, lo, hi);
    }
    if (!err.empty())
      throw SpecError(err);
    return data;
  }
  throw SpecError("unknown init " + init.dump());
}

} // namespace ptxray::vm::spec
