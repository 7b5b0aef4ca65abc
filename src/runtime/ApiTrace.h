// The API trace (PTXRAY_LOG=api): one line per call with its arguments and its result, as
// `nsys --trace=cuda` lists them: `cudaMemcpy(dst=0x7f.., src=0x.., bytes=4096, kind=HostToDevice) =
// cudaSuccess`. Arguments are formatted by type, and by name where the name says more than the type:
// a memcpy `kind`, a `limit`, `flags` in hex, a kernel (`function`, `kernel`) by its PTX name. A
// pointer the call writes through (an output: a non-const pointer to a number or a pointer) shows what
// it received, in brackets, when the call succeeded. Both libraries use it; nothing is formatted
// unless the trace is on.
#pragma once

#include "runtime/Runtime.h"
#include "support/ApiCallTrace.h"

#include <fmt/format.h>

#include <string>
#include <string_view>
#include <type_traits>

namespace ptxray::runtime::trace {

/// The arguments of one call (support/ApiCallTrace.h), read after the call.
using support::trace::Args;
using support::trace::args;

inline const char *memcpyKindName(long long kind) {
  switch (kind) {
  case 0: return "HostToHost";
  case 1: return "HostToDevice";
  case 2: return "DeviceToHost";
  case 3: return "DeviceToDevice";
  case 4: return "Default";
  default: return nullptr;
  }
}

inline const char *limitName(long long limit) {
  constexpr const char *kNames[] = {"StackSize",
                                    "PrintfFifoSize",
                                    "MallocHeapSize",
                                    "DevRuntimeSyncDepth",
                                    "DevRuntimePendingLaunchCount",
                                    "MaxL2FetchGranularity",
                                    "PersistingL2CacheSize"};
  return limit >= 0 && limit < 7 ? kNames[limit] : nullptr;
}

/// One argument's text.
template <typename T> std::string value(Runtime &rt, std::string_view name, const T &v, bool ok) {
  using U = std::remove_cv_t<T>;
  if constexpr (std::is_same_v<U, cuda::Dim3>) {
    return fmt::format("({}, {}, {})", v.x, v.y, v.z);
  } else if constexpr (std::is_same_v<U, bool>) {
    return v ? "true" : "false";
  } else if constexpr (std::is_integral_v<U> || std::is_enum_v<U>) {
    const auto n = static_cast<long long>(v);
    if (name == "kind")
      if (const char *k = memcpyKindName(n))
        return k;
    if (name == "limit")
      if (const char *l = limitName(n))
        return l;
    if (name == "dst" || name == "src" || name == "address" || name == "dptr" || name == "pointer")
      return fmt::format("{:#x}", static_cast<unsigned long long>(v)); // CUdeviceptr
    if (name == "flags")
      return fmt::format("{:#x}", static_cast<unsigned long long>(v));
    return fmt::format("{}", v);
  } else if constexpr (std::is_floating_point_v<U>) {
    return fmt::format("{}", v);
  } else if constexpr (std::is_pointer_v<U>) {
    using P = std::remove_pointer_t<U>;
    if constexpr (std::is_function_v<P>) {
      return fmt::format("{}", reinterpret_cast<const void *>(v));
    } else if constexpr (std::is_same_v<std::remove_cv_t<P>, char>) {
      return v ? fmt::format("\"{}\"", std::string_view(v)) : std::string("0x0");
    } else {
      if (v && (name == "function" || name == "kernel" || name == "func"))
        if (const char *kernel = rt.functionName(v))
          return kernel;
      // Kernel parameters (a list of pointers) are inputs.
      const bool parameters = name == "args" || name == "extra" || name == "params" || name == "kernelParams";
      if constexpr (!std::is_const_v<P> && (std::is_arithmetic_v<P> || std::is_pointer_v<P>)) {
        if (v && ok && !parameters)
          return fmt::format("[{}]", value(rt, name, *v, ok));
      }
      return fmt::format("{}", static_cast<const void *>(v));
    }
  } else {
    return "...";
  }
}

/// `name(a=.., b=..)`.
template <typename... A> std::string call(Runtime &rt, const char *name, const Args<A...> &a, bool ok) {
  return support::trace::formatCall(name, a, [&](std::string_view n, const auto &x) { return value(rt, n, x, ok); });
}

} // namespace ptxray::runtime::trace

/// The arguments of a call for the trace: PTXRAY_ARGS(dst, src, bytes, kind).
#define PTXRAY_ARGS(...) PTXRAY_TRACE_ARGS(__VA_ARGS__)
