// Internal to the run-spec library (src/vm/host): walking a spec's JSON with the path of every value,
// so that each error names its place in the document ("launches[1].args[2].type: ...").
#pragma once

#include "session/RunSpec.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

namespace ptxray::session::specjson {

using nlohmann::json;

// ---------------------------------------------------------------------------------------------
// JSON walking with paths

inline std::string member(const std::string &path, std::string_view key) {
  return path.empty() ? std::string(key) : fmt::format("{}.{}", path, key);
}
inline std::string element(const std::string &path, size_t index) {
  return fmt::format("{}[{}]", path, index);
}

/// A JSON value's type for messages: "a string", "an array"...
inline std::string kindOf(const json &j) {
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

  vm::Dim3 dim3(const json &j, const std::string &path) const {
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

/// `v`'s low `bytes` bytes, least significant first.
inline std::vector<std::byte> littleEndian(uint64_t v, unsigned bytes) {
  std::vector<std::byte> out(bytes);
  for (unsigned i = 0; i < bytes; ++i)
    out[i] = static_cast<std::byte>(v >> (8 * i));
  return out;
}

} // namespace ptxray::session::specjson
