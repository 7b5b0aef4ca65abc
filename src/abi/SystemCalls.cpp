#include "abi/SystemCalls.h"

#include <fmt/format.h>

namespace ptxray::abi {

std::string SystemCall::prototype() const {
  std::string out = ".extern .func ";
  if (result)
    out += fmt::format("(.param {} {}) ", result->ptxType, result->name);
  out += name + " (";
  for (std::size_t i = 0; i < params.size(); ++i)
    out += fmt::format("{}.param {} {}", i ? ", " : "", params[i].ptxType, params[i].name);
  return out + ");";
}

std::vector<SystemCall> systemCalls(unsigned addressSize) {
  if (addressSize != 32 && addressSize != 64)
    throw AbiError(fmt::format("address size must be 32 or 64, not {}", addressSize));
  // t1 (pointers) and t2 (size_t) are .b32 with 32-bit addresses and .b64 with 64-bit ones.
  std::string ptr = addressSize == 32 ? ".b32" : ".b64";
  std::string sizeT = ptr;
  return {
      SystemCall{SystemCallId::Vprintf, "vprintf", SysParam{"status", ".s32"}, {{"format", ptr}, {"valist", ptr}}},
      SystemCall{SystemCallId::Malloc, "malloc", SysParam{"ptr", ptr}, {{"size", sizeT}}},
      SystemCall{SystemCallId::Free, "free", std::nullopt, {{"ptr", ptr}}},
      SystemCall{SystemCallId::AssertFail,
                 "__assertfail",
                 std::nullopt,
                 {{"message", ptr}, {"file", ptr}, {"line", ".b32"}, {"function", ptr}, {"charSize", sizeT}}},
  };
}

std::optional<SystemCall> findSystemCall(std::string_view name, unsigned addressSize) {
  for (SystemCall &call : systemCalls(addressSize))
    if (call.name == name)
      return std::move(call);
  return std::nullopt;
}

std::optional<SystemCall> findDriverFunction(std::string_view name, unsigned addressSize) {
  if (auto call = findSystemCall(name, addressSize))
    return call;
  const std::string ptr = addressSize == 32 ? ".b32" : ".b64";
  const std::string &sizeT = ptr;
  if (name == "printf") // the format, then the arguments, each a parameter of its own
    return SystemCall{SystemCallId::OpenCLPrintf, "printf", SysParam{"status", ".b32"}, {{"format", ptr}}};
  // The device runtime (cuda_device_runtime_api.h). Dimensions are dim3 values: 12-byte aggregates.
  if (name == "__cudaCDP2GetParameterBufferV2" || name == "cudaGetParameterBufferV2")
    return SystemCall{
        SystemCallId::DeviceGetParameterBuffer,
        std::string(name),
        SysParam{"buffer", ptr},
        {{"func", ptr}, {"gridDimension", ".b8[12]"}, {"blockDimension", ".b8[12]"}, {"sharedMemSize", ".b32"}}};
  if (name == "__cudaCDP2LaunchDeviceV2" || name == "cudaLaunchDeviceV2" || name == "__cudaCDP2LaunchDeviceV2_ptsz" ||
      name == "cudaLaunchDeviceV2_ptsz")
    return SystemCall{SystemCallId::DeviceLaunch,
                      std::string(name),
                      SysParam{"error", ".b32"},
                      {{"parameterBuffer", ptr}, {"stream", ptr}}};
  if (name == "__cudaCDP2GetLastError")
    return SystemCall{SystemCallId::DeviceGetLastError, std::string(name), SysParam{"error", ".b32"}, {}};
  if (name == "__cudaCDP2PeekAtLastError")
    return SystemCall{SystemCallId::DevicePeekAtLastError, std::string(name), SysParam{"error", ".b32"}, {}};
  if (name == "__cudaCDP2StreamCreateWithFlags")
    return SystemCall{SystemCallId::DeviceStreamCreate,
                      std::string(name),
                      SysParam{"error", ".b32"},
                      {{"pStream", ptr}, {"flags", ".b32"}}};
  if (name == "__cudaCDP2StreamDestroy")
    return SystemCall{
        SystemCallId::DeviceStreamDestroy, std::string(name), SysParam{"error", ".b32"}, {{"stream", ptr}}};
  if (name == "__cudaCDP2Malloc")
    return SystemCall{
        SystemCallId::DeviceMalloc, std::string(name), SysParam{"error", ".b32"}, {{"devPtr", ptr}, {"size", ptr}}};
  if (name == "__cudaCDP2Free")
    return SystemCall{SystemCallId::DeviceFree, std::string(name), SysParam{"error", ".b32"}, {{"devPtr", ptr}}};
  if (name == "__cudaCDP2GetDevice" || name == "__cudaCDP2GetDeviceCount" || name == "__cudaCDP2RuntimeGetVersion" ||
      name == "__cudaCDP2DeviceGetCacheConfig" || name == "__cudaCDP2DeviceGetSharedMemConfig")
    return SystemCall{SystemCallId::DeviceQuery, std::string(name), SysParam{"error", ".b32"}, {{"value", ptr}}};
  if (name == "__cudaCDP2EventCreateWithFlags")
    return SystemCall{SystemCallId::DeviceEventCreate,
                      std::string(name),
                      SysParam{"error", ".b32"},
                      {{"event", ptr}, {"flags", ".b32"}}};
  if (name == "__cudaCDP2EventDestroy")
    return SystemCall{SystemCallId::DeviceEventNoOp, std::string(name), SysParam{"error", ".b32"}, {{"event", ptr}}};
  if (name == "__cudaCDP2EventRecord" || name == "__cudaCDP2EventRecord_ptsz")
    return SystemCall{
        SystemCallId::DeviceEventNoOp, std::string(name), SysParam{"error", ".b32"}, {{"event", ptr}, {"stream", ptr}}};
  if (name == "__cudaCDP2EventRecordWithFlags" || name == "__cudaCDP2EventRecordWithFlags_ptsz")
    return SystemCall{SystemCallId::DeviceEventNoOp,
                      std::string(name),
                      SysParam{"error", ".b32"},
                      {{"event", ptr}, {"stream", ptr}, {"flags", ".b32"}}};
  if (name == "__cudaCDP2StreamWaitEvent" || name == "__cudaCDP2StreamWaitEvent_ptsz")
    return SystemCall{SystemCallId::DeviceEventNoOp,
                      std::string(name),
                      SysParam{"error", ".b32"},
                      {{"stream", ptr}, {"event", ptr}, {"flags", ".b32"}}};
  if (name == "__cudaCDP2GetErrorName" || name == "__cudaCDP2GetErrorString")
    return SystemCall{SystemCallId::DeviceErrorText, std::string(name), SysParam{"text", ptr}, {{"error", ".b32"}}};
  if (name == "__cudaCDP2DeviceGetAttribute")
    return SystemCall{SystemCallId::DeviceGetAttribute,
                      std::string(name),
                      SysParam{"error", ".b32"},
                      {{"value", ptr}, {"attr", ".b32"}, {"device", ".b32"}}};
  if (name == "__cudaCDP2DeviceGetLimit")
    return SystemCall{SystemCallId::DeviceGetLimit,
                      std::string(name),
                      SysParam{"error", ".b32"},
                      {{"pValue", ptr}, {"limit", ".b32"}}};
  if (name == "__cudaCDP2FuncGetAttributes")
    return SystemCall{SystemCallId::DeviceFuncGetAttributes,
                      std::string(name),
                      SysParam{"error", ".b32"},
                      {{"attr", ptr}, {"func", ptr}}};
  if (name == "__cudaCDP2OccupancyMaxActiveBlocksPerMultiprocessor")
    return SystemCall{SystemCallId::DeviceOccupancy,
                      std::string(name),
                      SysParam{"error", ".b32"},
                      {{"numBlocks", ptr}, {"func", ptr}, {"blockSize", ".b32"}, {"dynamicSmemSize", sizeT}}};
  if (name == "__cudaCDP2OccupancyMaxActiveBlocksPerMultiprocessorWithFlags")
    return SystemCall{
        SystemCallId::DeviceOccupancy,
        std::string(name),
        SysParam{"error", ".b32"},
        {{"numBlocks", ptr}, {"func", ptr}, {"blockSize", ".b32"}, {"dynamicSmemSize", sizeT}, {"flags", ".b32"}}};
  // Copies in device code; the _ptsz forms (per-thread default stream) take the same parameters.
  const std::string_view base = name.ends_with("_ptsz") ? name.substr(0, name.size() - 5) : name;
  if (base == "__cudaCDP2MemcpyAsync")
    return SystemCall{SystemCallId::DeviceMemcpyAsync,
                      std::string(name),
                      SysParam{"error", ".b32"},
                      {{"dst", ptr}, {"src", ptr}, {"count", sizeT}, {"kind", ".b32"}, {"stream", ptr}}};
  if (base == "__cudaCDP2Memcpy2DAsync")
    return SystemCall{SystemCallId::DeviceMemcpy2DAsync,
                      std::string(name),
                      SysParam{"error", ".b32"},
                      {{"dst", ptr},
                       {"dpitch", sizeT},
                       {"src", ptr},
                       {"spitch", sizeT},
                       {"width", sizeT},
                       {"height", sizeT},
                       {"kind", ".b32"},
                       {"stream", ptr}}};
  if (base == "__cudaCDP2Memcpy3DAsync")
    return SystemCall{
        SystemCallId::DeviceMemcpy3DAsync, std::string(name), SysParam{"error", ".b32"}, {{"p", ptr}, {"stream", ptr}}};
  if (base == "__cudaCDP2MemsetAsync")
    return SystemCall{SystemCallId::DeviceMemsetAsync,
                      std::string(name),
                      SysParam{"error", ".b32"},
                      {{"devPtr", ptr}, {"value", ".b32"}, {"count", sizeT}, {"stream", ptr}}};
  if (base == "__cudaCDP2Memset2DAsync")
    return SystemCall{
        SystemCallId::DeviceMemset2DAsync,
        std::string(name),
        SysParam{"error", ".b32"},
        {{"devPtr", ptr}, {"pitch", sizeT}, {"value", ".b32"}, {"width", sizeT}, {"height", sizeT}, {"stream", ptr}}};
  if (base == "__cudaCDP2Memset3DAsync") // cudaPitchedPtr and cudaExtent by value: 32- and 24-byte aggregates
    return SystemCall{SystemCallId::DeviceMemset3DAsync,
                      std::string(name),
                      SysParam{"error", ".b32"},
                      {{"pitchedDevPtr", ".b8[32]"}, {"value", ".b32"}, {"extent", ".b8[24]"}, {"stream", ptr}}};
  if (name.starts_with("__cudaCDP2"))
    return SystemCall{SystemCallId::DeviceRuntimeUnsupported, std::string(name), std::nullopt, {}};
  return std::nullopt;
}

namespace {

TypeRef promoted(const TypeRef &type) {
  if (type->kind == TypeKind::Enum)
    return scalarType(type->scalar == Scalar::UInt ? Scalar::UInt : Scalar::Int);
  if (type->kind != TypeKind::Scalar)
    return type;
  switch (type->scalar) {
  case Scalar::Bool:
  case Scalar::Char:
  case Scalar::SChar:
  case Scalar::UChar:
  case Scalar::Short:
  case Scalar::UShort: return scalarType(Scalar::Int);
  case Scalar::Half:
  case Scalar::Float: return scalarType(Scalar::Double);
  default: return type;
  }
}

} // namespace

VprintfBuffer vprintfBuffer(const std::vector<TypeRef> &arguments, unsigned addressSize, bool promote) {
  if (addressSize != 32 && addressSize != 64)
    throw AbiError(fmt::format("address size must be 32 or 64, not {}", addressSize));
  VprintfBuffer buffer;
  std::uint64_t offset = 0;
  for (std::size_t i = 0; i < arguments.size(); ++i) {
    TypeRef type = promote ? promoted(arguments[i]) : arguments[i];
    std::uint64_t size = 0;
    switch (type->kind) {
    case TypeKind::Scalar:
    case TypeKind::Enum:
      if (type->scalar == Scalar::LongDouble)
        throw AbiError(fmt::format("printf argument {}: long double has no PTX representation", i + 1));
      size = scalarSize(type->scalar, addressSize);
      break;
    case TypeKind::Pointer:
    case TypeKind::Array: size = addressSize / 8; break; // arrays decay to pointers
    case TypeKind::Opaque: size = 8; break;
    default:
      throw AbiError(fmt::format("printf argument {} of type '{}' cannot be passed to vprintf (only scalars and "
                                 "pointers)",
                                 i + 1, typeName(type)));
    }
    if (type->kind == TypeKind::Array)
      type = pointerTo(type->element);
    offset = (offset + size - 1) / size * size; // aligned to its own size (§3)
    buffer.arguments.push_back(VprintfArgument{type, offset, size});
    offset += size;
    buffer.align = std::max<unsigned>(buffer.align, static_cast<unsigned>(size));
  }
  buffer.size = offset;
  return buffer;
}

} // namespace ptxray::abi
