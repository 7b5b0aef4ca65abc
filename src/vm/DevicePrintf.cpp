#include "vm/DevicePrintf.h"

#include "vm/SystemCalls.h"

#include <cstdio>
#include <cstring>
#include <fmt/format.h>

namespace ptxray::vm {

namespace {

/// Where the arguments are: vprintf's buffer in device memory, or (OpenCL's printf) the call's own
/// parameters after the format.
struct PrintfArguments {
  uint64_t buffer = 0;
  const MicroOp *call = nullptr;
};

/// Reads the next argument of `size` bytes: from the buffer, aligned to its size (`offset` in bytes),
/// or the call's next parameter (`offset` counts them).
bool nextArgument(ExecContext &ctx, int lane, const PrintfArguments &args, uint64_t &offset, uint32_t size,
                  uint64_t &bits) {
  bits = 0;
  if (args.call) {
    bits = callArgument(ctx, *args.call, static_cast<uint32_t>(1 + offset++), lane, size);
    return true;
  }
  offset = (offset + size - 1) / size * size;
  if (!readDeviceBytes(ctx, lane, args.buffer + offset, &bits, size))
    return false;
  offset += size;
  return true;
}

} // namespace

namespace {

/// One conversion, formatted whole (%.600f is 603 characters, as a GPU prints it): a fixed buffer
/// first, the exact size when it is not enough.
template <typename T> void appendFormatted(std::string &out, const std::string &spec, T value) {
  char small[512];
  const int n = std::snprintf(small, sizeof small, spec.c_str(), value);
  if (n < 0)
    return;
  if (static_cast<size_t>(n) < sizeof small) {
    out.append(small, static_cast<size_t>(n));
    return;
  }
  const size_t at = out.size();
  out.resize(at + static_cast<size_t>(n) + 1);
  std::snprintf(out.data() + at, static_cast<size_t>(n) + 1, spec.c_str(), value);
  out.resize(at + static_cast<size_t>(n));
}

} // namespace

std::string formatDevicePrintf(ExecContext &ctx, int lane, uint64_t format, uint64_t argumentBuffer, int &count,
                               const MicroOp *variadicCall, uint64_t maxTextBytes) {
  const PrintfArguments args{argumentBuffer, variadicCall};
  count = 0;
  std::string fmtText;
  // OpenCL C's format and string arguments are __constant (offsets in the module's constant bank,
  // where 0 is a valid one).
  const Space strings = variadicCall ? Space::Const : Space::Generic;
  if (format == 0 && !variadicCall)
    return "(null format)\n";
  if (!readDeviceString(ctx, lane, format, fmtText, 1 << 16, strings))
    return {};
  const uint32_t ptrSize = ctx.launch->program->addressBits / 8;
  std::string out;
  uint64_t offset = 0;
  // A width or precision past the text a call may print (the FIFO) makes the call's text too long
  // to keep: it is dropped, as the FIFO drops it, before snprintf spends gigabytes on it.
  bool tooLong = false;
  for (size_t i = 0; i < fmtText.size(); ++i) {
    char c = fmtText[i];
    if (c != '%') {
      out.push_back(c);
      continue;
    }
    if (i + 1 < fmtText.size() && fmtText[i + 1] == '%') {
      out.push_back('%');
      ++i;
      continue;
    }
    // %[flags][width][.precision][length]conversion
    size_t start = i++;
    std::string spec = "%";
    while (i < fmtText.size() && std::strchr("-+ #0", fmtText[i]))
      spec.push_back(fmtText[i++]);
    auto number = [&]() -> bool {
      if (i < fmtText.size() && fmtText[i] == '*') {
        uint64_t bits;
        if (!nextArgument(ctx, lane, args, offset, 4, bits))
          return false;
        ++count;
        const int32_t value = static_cast<int32_t>(bits);
        tooLong |= value != INT32_MIN && static_cast<uint64_t>(value < 0 ? -value : value) > maxTextBytes;
        spec += std::to_string(value);
        ++i;
        return true;
      }
      uint64_t value = 0;
      while (i < fmtText.size() && fmtText[i] >= '0' && fmtText[i] <= '9') {
        value = std::min<uint64_t>(value * 10 + static_cast<uint64_t>(fmtText[i] - '0'), uint64_t{1} << 40);
        spec.push_back(fmtText[i++]);
      }
      tooLong |= value > maxTextBytes;
      return true;
    };
    if (!number())
      return out;
    if (i < fmtText.size() && fmtText[i] == '.') {
      spec.push_back('.');
      ++i;
      if (!number())
        return out;
    }
    if (tooLong)
      return {};
    int longs = 0;
    bool sizeT = false;
    while (i < fmtText.size() && std::strchr("hlLzjt", fmtText[i])) {
      char l = fmtText[i++];
      if (l == 'l' || l == 'L')
        ++longs;
      if (l == 'z' || l == 'j' || l == 't')
        sizeT = true;
    }
    if (i >= fmtText.size()) {
      out.append(fmtText, start, std::string::npos);
      break;
    }
    char conv = fmtText[i];
    uint64_t bits = 0;
    switch (conv) {
    case 'd':
    case 'i':
    case 'u':
    case 'x':
    case 'X':
    case 'o':
    case 'c': {
      bool wide = longs > 0 || sizeT;
      if (!nextArgument(ctx, lane, args, offset, wide ? 8 : 4, bits))
        return out;
      ++count;
      spec += wide && conv != 'c' ? "ll" : "";
      spec.push_back(conv);
      if (conv == 'c')
        appendFormatted(out, spec, static_cast<int>(bits & 0xff));
      else if (wide)
        appendFormatted(out, spec, static_cast<long long>(bits));
      else if (conv == 'd' || conv == 'i')
        appendFormatted(out, spec, static_cast<int32_t>(bits));
      else
        appendFormatted(out, spec, static_cast<uint32_t>(bits));
      break;
    }
    case 'f':
    case 'F':
    case 'e':
    case 'E':
    case 'g':
    case 'G':
    case 'a':
    case 'A': {
      if (!nextArgument(ctx, lane, args, offset, 8, bits))
        return out;
      ++count;
      spec.push_back(conv);
      appendFormatted(out, spec, std::bit_cast<double>(bits));
      break;
    }
    case 's': {
      if (!nextArgument(ctx, lane, args, offset, ptrSize, bits))
        return out;
      ++count;
      std::string s;
      if (bits == 0)
        s = "(null)";
      else if (!readDeviceString(ctx, lane, bits, s, static_cast<size_t>(std::min<uint64_t>(maxTextBytes, 1u << 30)),
                                 strings))
        return out;
      spec.push_back('s');
      appendFormatted(out, spec, s.c_str());
      break;
    }
    case 'p': {
      if (!nextArgument(ctx, lane, args, offset, ptrSize, bits))
        return out;
      ++count;
      spec.push_back('p');
      appendFormatted(out, spec, reinterpret_cast<void *>(static_cast<uintptr_t>(bits)));
      break;
    }
    default:
      // An unknown conversion (or %n) is printed as written and consumes nothing.
      out.append(fmtText, start, i - start + 1);
      break;
    }
  }
  return out;
}

} // namespace ptxray::vm
