// What the API traces of the CUDA and OpenCL libraries share (`exec --log-api`, runtime/ApiTrace.h and
// opencl/ApiTrace.h): a call's arguments captured with their names (the macro's text) and written as
// `name(a=.., b=..)`, each value by the library's own formatter, after the call (so that outputs show
// what the call wrote).
#pragma once

#include <fmt/format.h>

#include <string>
#include <string_view>
#include <tuple>

namespace ptxray::support::trace {

/// The arguments of one call: their names (the macro's text) and references to their values.
template <typename... A> struct Args {
  std::string_view names;
  std::tuple<const A &...> values;
};

template <typename... A> Args<A...> args(std::string_view names, const A &...values) {
  return {names, std::tuple<const A &...>(values...)};
}

/// `name(a=.., b=..)`, each argument as `format(argumentName, value)` writes it, in order.
template <typename Format, typename... A>
std::string formatCall(std::string_view name, const Args<A...> &a, Format &&format) {
  std::string out = fmt::format("{}(", name);
  std::string_view names = a.names;
  size_t index = 0;
  [[maybe_unused]] auto one = [&](const auto &x) {
    const size_t comma = names.find(',');
    std::string_view n = names.substr(0, comma);
    while (!n.empty() && n.front() == ' ')
      n.remove_prefix(1);
    names = comma == std::string_view::npos ? std::string_view() : names.substr(comma + 1);
    out += fmt::format("{}{}={}", index++ ? ", " : "", n, format(n, x));
  };
  std::apply([&](const auto &...v) { (one(v), ...); }, a.values);
  return out + ")";
}

} // namespace ptxray::support::trace

/// The arguments of a call for an API trace: PTXRAY_TRACE_ARGS(dst, src, bytes, kind).
#define PTXRAY_TRACE_ARGS(...) ::ptxray::support::trace::args(#__VA_ARGS__ __VA_OPT__(, ) __VA_ARGS__)
