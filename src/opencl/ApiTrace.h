// The OpenCL API trace (`ptxray exec --log-api`, PTXRAY_LOG=api): one line per call with its arguments
// and its result, as the CUDA libraries write theirs (runtime/ApiTrace.h):
//   ptxray: clEnqueueNDRangeKernel(queue=0x2a1e0, kernel=0x2b310, workDim=1, globalWorkOffset=0x0,
//           globalWorkSize=[1048576], localWorkSize=[256], waitCount=0, waitList=0x0, event=[0x2c400]) = CL_SUCCESS
// Arguments are formatted by type and name: work sizes, origins and regions as the numbers they point
// to, flags and info names in hex, strings quoted (shortened), a pointer the call wrote through (an
// event, a size) as what it received, in brackets, when the call succeeded. Nothing is formatted
// unless the trace is on.
#pragma once

#include "opencl/Platform.h" // the OpenCL headers as the library configures them
#include "support/ApiCallTrace.h"

#include <fmt/format.h>

#include <string>
#include <string_view>
#include <type_traits>

namespace ptxray::opencl::trace {

/// The arguments of one call (support/ApiCallTrace.h).
using support::trace::Args;
using support::trace::args;

/// Formats one call's arguments in order; the work dimension, once seen, sizes the work-size arrays
/// after it.
class Formatter {
public:
  explicit Formatter(bool ok) : ok_(ok) {}

  template <typename T> std::string value(std::string_view name, const T &v) {
    using U = std::remove_cv_t<T>;
    if constexpr (std::is_integral_v<U> || std::is_enum_v<U>) {
      if (name == "workDim" || name == "dims")
        dims_ = static_cast<size_t>(v) <= 3 ? static_cast<size_t>(v) : 3;
      // Bit fields and the info and type enumerations read best as the headers write them.
      if (name.ends_with("flags") || name.ends_with("Flags") || name == "param" || name == "paramName" ||
          name == "name" || name == "type" || name == "properties")
        return fmt::format("{:#x}", static_cast<unsigned long long>(v));
      return fmt::format("{}", v);
    } else if constexpr (std::is_floating_point_v<U>) {
      return fmt::format("{}", v);
    } else if constexpr (std::is_pointer_v<U>) {
      using P = std::remove_cv_t<std::remove_pointer_t<U>>;
      if (!v)
        return "0x0";
      if constexpr (std::is_function_v<P>) {
        return fmt::format("{}", reinterpret_cast<const void *>(v));
      } else if constexpr (std::is_same_v<P, char>) {
        // Program options, kernel names: quoted, a long one shortened.
        // One line per call: line breaks and other control characters escaped.
        const std::string_view text(v);
        std::string out = "\"";
        for (const char c : text.substr(0, 120)) {
          if (c == '\n')
            out += "\\n";
          else if (c == '\t')
            out += "\\t";
          else if (static_cast<unsigned char>(c) < 0x20)
            out += fmt::format("\\x{:02x}", static_cast<unsigned char>(c));
          else
            out += c;
        }
        out += '"';
        if (text.size() > 120)
          out += fmt::format("... ({} characters)", text.size());
        return out;
      } else if constexpr (std::is_same_v<P, size_t>) {
        // Work sizes and offsets (workDim numbers), origins and regions (3).
        const bool workSizes = name.starts_with("globalWork") || name.starts_with("localWork") || name == "global" ||
                               name == "local" || name == "offset";
        const bool box = name.ends_with("Origin") || name == "origin" || name == "region";
        if (workSizes || box) {
          const size_t n = workSizes ? dims_ : 3;
          std::string out = "[";
          for (size_t i = 0; i < n; ++i)
            out += fmt::format("{}{}", i ? ", " : "", v[i]);
          return out + "]";
        }
        if constexpr (!std::is_const_v<std::remove_pointer_t<U>>)
          if (ok_)
            return fmt::format("[{}]", *v); // an output: clGetXxxInfo's size
        return fmt::format("{}", static_cast<const void *>(v));
      } else {
        // An object the call created (an event) is shown; an error code is the result itself.
        constexpr bool output = !std::is_const_v<std::remove_pointer_t<U>> &&
                                (std::is_pointer_v<P> || std::is_arithmetic_v<P>)&&!std::is_same_v<P, cl_int>;
        if constexpr (output)
          if (ok_)
            return fmt::format("[{}]", value(name, *v));
        return fmt::format("{}", static_cast<const void *>(v));
      }
    } else {
      return "...";
    }
  }

private:
  bool ok_;
  size_t dims_ = 3;
};

/// `name(a=.., b=..)`.
template <typename... A> std::string call(const char *name, const Args<A...> &a, bool ok) {
  Formatter format(ok);
  return support::trace::formatCall(name, a, [&](std::string_view n, const auto &x) { return format.value(n, x); });
}

} // namespace ptxray::opencl::trace

/// The arguments of an OpenCL call for the trace: PTXRAY_CL_ARGS(queue, buffer, blocking, offset).
#define PTXRAY_CL_ARGS(...) PTXRAY_TRACE_ARGS(__VA_ARGS__)
