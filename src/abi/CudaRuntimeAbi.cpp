// cudaGetErrorName / cudaGetErrorString: the names and descriptions the CUDA runtime gives, so that a
// program prints under ptxray what it prints on a GPU.
#include "abi/CudaRuntimeAbi.h"

namespace ptxray::abi::cuda {
namespace {

constexpr ErrorText kErrors[] = {
    {kSuccess, "cudaSuccess", "no error"},
    {kErrorInvalidValue, "cudaErrorInvalidValue", "invalid argument"},
    {kErrorMemoryAllocation, "cudaErrorMemoryAllocation", "out of memory"},
    {kErrorInitializationError, "cudaErrorInitializationError", "initialization error"},
    {kErrorInvalidConfiguration, "cudaErrorInvalidConfiguration", "invalid configuration argument"},
    {kErrorInvalidPitchValue, "cudaErrorInvalidPitchValue", "invalid pitch argument"},
    {kErrorInvalidSymbol, "cudaErrorInvalidSymbol", "invalid device symbol"},
    {kErrorInvalidHostPointer, "cudaErrorInvalidHostPointer", "invalid host pointer"},
    {kErrorInvalidDevicePointer, "cudaErrorInvalidDevicePointer", "invalid device pointer"},
    {kErrorInvalidTexture, "cudaErrorInvalidTexture", "invalid texture reference"},
    {kErrorInvalidChannelDescriptor, "cudaErrorInvalidChannelDescriptor", "invalid channel descriptor"},
    {kErrorInvalidMemcpyDirection, "cudaErrorInvalidMemcpyDirection", "invalid copy direction for memcpy"},
    {kErrorMissingConfiguration, "cudaErrorMissingConfiguration", "__global__ function call is not configured"},
    {kErrorLaunchMaxDepthExceeded, "cudaErrorLaunchMaxDepthExceeded",
     "launch would exceed maximum depth of nested launches"},
    {kErrorLaunchPendingCountExceeded, "cudaErrorLaunchPendingCountExceeded",
     "launch failed because launch would exceed cudaLimitDevRuntimePendingLaunchCount"},
    {kErrorInvalidDeviceFunction, "cudaErrorInvalidDeviceFunction", "invalid device function"},
    {kErrorNoDevice, "cudaErrorNoDevice", "no CUDA-capable device is detected"},
    {kErrorInvalidDevice, "cudaErrorInvalidDevice", "invalid device ordinal"},
    {kErrorInvalidKernelImage, "cudaErrorInvalidKernelImage", "device kernel image is invalid"},
    {kErrorNoKernelImageForDevice, "cudaErrorNoKernelImageForDevice",
     "no kernel image is available for execution on the device"},
    {kErrorUnsupportedLimit, "cudaErrorUnsupportedLimit", "limit is not supported on this architecture"},
    {kErrorInvalidPtx, "cudaErrorInvalidPtx", "a PTX JIT compilation failed"},
    {kErrorInvalidSource, "cudaErrorInvalidSource", "device kernel image is invalid"},
    {kErrorFileNotFound, "cudaErrorFileNotFound", "file not found"},
    {kErrorInvalidResourceHandle, "cudaErrorInvalidResourceHandle", "invalid resource handle"},
    {kErrorSymbolNotFound, "cudaErrorSymbolNotFound", "named symbol not found"},
    {kErrorNotReady, "cudaErrorNotReady", "device not ready"},
    {kErrorIllegalAddress, "cudaErrorIllegalAddress", "an illegal memory access was encountered"},
    {kErrorPeerAccessAlreadyEnabled, "cudaErrorPeerAccessAlreadyEnabled", "peer access is already enabled"},
    {kErrorPeerAccessNotEnabled, "cudaErrorPeerAccessNotEnabled", "peer access has not been enabled"},
    {kErrorLaunchOutOfResources, "cudaErrorLaunchOutOfResources", "too many resources requested for launch"},
    {kErrorLaunchTimeout, "cudaErrorLaunchTimeout", "the launch timed out and was terminated"},
    {kErrorAssert, "cudaErrorAssert", "device-side assert triggered"},
    {kErrorHardwareStackError, "cudaErrorHardwareStackError", "hardware stack error"},
    {kErrorIllegalInstruction, "cudaErrorIllegalInstruction", "an illegal instruction was encountered"},
    {kErrorMisalignedAddress, "cudaErrorMisalignedAddress", "misaligned address"},
    {kErrorInvalidAddressSpace, "cudaErrorInvalidAddressSpace",
     "operation not supported on global/shared address space"},
    {kErrorInvalidPc, "cudaErrorInvalidPc", "invalid program counter"},
    {kErrorLaunchFailure, "cudaErrorLaunchFailure", "unspecified launch failure"},
    {kErrorHostMemoryAlreadyRegistered, "cudaErrorHostMemoryAlreadyRegistered",
     "part or all of the requested memory range is already mapped"},
    {kErrorHostMemoryNotRegistered, "cudaErrorHostMemoryNotRegistered",
     "pointer does not correspond to a registered memory region"},
    {kErrorCooperativeLaunchTooLarge, "cudaErrorCooperativeLaunchTooLarge", "too many blocks in cooperative launch"},
    {kErrorNotSupported, "cudaErrorNotSupported", "operation not supported"},
    // Stream capture and graphs (900-910).
    {900, "cudaErrorStreamCaptureUnsupported", "operation not permitted when stream is capturing"},
    {901, "cudaErrorStreamCaptureInvalidated", "operation failed due to a previous error during capture"},
    {902, "cudaErrorStreamCaptureMerge", "operation would result in a merge of separate capture sequences"},
    {903, "cudaErrorStreamCaptureUnmatched", "capture was not ended in the same stream as it began"},
    {904, "cudaErrorStreamCaptureUnjoined", "capturing stream has unjoined work"},
    {905, "cudaErrorStreamCaptureIsolation", "dependency created on uncaptured work in another stream"},
    {906, "cudaErrorStreamCaptureImplicit",
     "operation would make the legacy stream depend on a capturing blocking stream"},
    {907, "cudaErrorCapturedEvent", "operation not permitted on an event last recorded in a capturing stream"},
    {908, "cudaErrorStreamCaptureWrongThread",
     "attempt to terminate a thread-local capture sequence from another thread"},
    {909, "cudaErrorTimeout", "wait operation timed out"},
    {910, "cudaErrorGraphExecUpdateFailure",
     "the graph update was not performed because it included changes which "
     "violated constraints specific to instantiated graph update"},
    {kErrorUnknown, "cudaErrorUnknown", "unknown error"},
};

const ErrorText *find(Error error) {
  for (const ErrorText &e : kErrors)
    if (e.error == error)
      return &e;
  return nullptr;
}

} // namespace

std::span<const ErrorText> errorTexts() {
  return kErrors;
}

const char *errorName(Error error) {
  const ErrorText *e = find(error);
  return e ? e->name : kUnknownErrorName;
}

const char *errorString(Error error) {
  const ErrorText *e = find(error);
  return e ? e->text : kUnknownErrorText;
}

} // namespace ptxray::abi::cuda
