#include "runtime/Runtime.h"

#include "arch/OccupancyCalculator.h"
#include "runtime/HostMappedMemory.h"
#include "session/InstrumentedRun.h"
#include "system/SystemConfig.h"
#include "vm/Memory.h"

#include <fmt/format.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <sstream>
#include <sys/mman.h>
#include <unistd.h>

namespace ptxray::runtime {
namespace {

thread_local cuda::Error tLastError = cuda::kSuccess;

/// Legacy default stream, cudaStreamLegacy and cudaStreamPerThread.
bool isBuiltinStream(void *stream) {
  auto v = reinterpret_cast<uintptr_t>(stream);
  return v == 0 || v == 1 || v == 2;
}

/// The CUDA error a refused launch gives.
cuda::Error refusalError(vm::Refusal refusal) {
  switch (refusal) {
  // CUDA 13 on an H100 answers every bad launch configuration (block too large, a zero dimension,
  // too much shared memory) with cudaErrorInvalidValue (validation/programs/results/error_launch.out).
  case vm::Refusal::InvalidConfiguration: return cuda::kErrorInvalidValue;
  case vm::Refusal::OutOfResources: return cuda::kErrorLaunchOutOfResources;
  case vm::Refusal::CooperativeTooLarge: return cuda::kErrorCooperativeLaunchTooLarge;
  case vm::Refusal::InvalidArgument:
  case vm::Refusal::None: break;
  }
  return cuda::kErrorInvalidValue;
}

/// The CUDA error a kernel fault leaves on the context, as a real GPU reports it.
cuda::Error faultError(const vm::LaunchResult &result) {
  if (result.status == vm::LaunchStatus::AssertFailed)
    return cuda::kErrorAssert;
  if (result.faults.empty())
    return cuda::kErrorLaunchFailure;
  switch (result.faults.front().kind) {
  case vm::FaultKind::OutOfBounds:
  case vm::FaultKind::UseAfterFree:
  case vm::FaultKind::ReadOnly: return cuda::kErrorIllegalAddress;
  case vm::FaultKind::Misaligned: return cuda::kErrorMisalignedAddress;
  case vm::FaultKind::InvalidGeneric: return cuda::kErrorInvalidAddressSpace;
  case vm::FaultKind::InstructionLimit: return cuda::kErrorLaunchTimeout;
  case vm::FaultKind::Livelock:
    return cuda::kErrorLaunchTimeout; // on a GPU it hangs until the watchdog
  // An H200 running a recursion past its stack says cudaErrorIllegalAddress, not
  // cudaErrorHardwareStackError (validation/conventions/results/stack.txt).
  case vm::FaultKind::StackOverflow: return cuda::kErrorIllegalAddress;
  // The host memory behind the launch's local memory and registers ran out: what a GPU says when it
  // cannot back a launch's local memory.
  case vm::FaultKind::MemoryBudget: return cuda::kErrorLaunchOutOfResources;
  case vm::FaultKind::AssertFailed: return cuda::kErrorAssert;
  case vm::FaultKind::InvalidCall: return cuda::kErrorInvalidPc;
  case vm::FaultKind::IllegalInstruction:
  case vm::FaultKind::Trap:
  case vm::FaultKind::Breakpoint: return cuda::kErrorIllegalInstruction;
  default: return cuda::kErrorLaunchFailure;
  }
}

std::string programName() {
  std::error_code ec;
  auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::string("program") : exe.filename().string();
}

} // namespace

Runtime &Runtime::instance() {
  // Never destroyed: nvcc's host code unregisters its fatbinaries from atexit handlers, which may run
  // after the library's own static destructors.
  static Runtime *runtime = new Runtime();
  return *runtime;
}

size_t Runtime::nvtxPosition() {
  std::lock_guard lock(mutex_);
  const session::SessionRecorder *s = tools_->recorder();
  return s ? s->position() : 0;
}

void Runtime::recordNvtx(system::NvtxRange range) {
  std::lock_guard lock(mutex_);
  if (session::SessionRecorder *s = tools_->recorder())
    s->nvtxRange(std::move(range));
}

Runtime::Runtime() {
  session::ProgramSetup setup = session::setUpProgram(std::cerr);
  config_ = std::move(setup.options);
  target_ = setup.target;
  tools_ = std::move(setup.tools);
  // Kept: NVIDIA's static runtime releases the devices' contexts from an exit handler that runs after
  // the GPU table's destructor.
  // A compute capability alone (PTXRAY_ARCH=sm_35) stands for its reference board: the database's
  // first GPU of that compute capability, whose SMs, memory and clocks the program sees.
  const arch::Gpu *board = target_.board();
  if (!target_.gpu && board)
    std::cerr << fmt::format("ptxray: note: {} stands for the {}, its reference board\n",
                             target_.computeCapability->smName(), board->name);
  deviceCount_ = (board ? std::max(1, board->gpusPerBoard) : 1) * config_.boards.value_or(1);
  device_ = std::make_unique<vm::Device>(*target_.computeCapability, board ? board->smCount : 0, board);
  tools_->attach(*device_);
  const char *loading = std::getenv("CUDA_MODULE_LOADING");
  eagerLoading_ = loading && std::string_view(loading) == "EAGER";
  mappedTop_ = vm::kGlobalLimit;
  // __managed__ variables live where host code reaches them at the same address.
  device_->setManagedPlacer([this](uint64_t bytes, std::string label) -> std::optional<uint64_t> {
    void *p = mapHostMemory(device_->memory(), mappedTop_, bytes, vm::AllocationKind::Managed, std::move(label));
    return p ? std::optional<uint64_t>(reinterpret_cast<uintptr_t>(p)) : std::nullopt;
  });
}

Runtime::~Runtime() = default;

void Runtime::reportInternalError(const char *call, const char *what) {
  // Never throws: it is the last resort of a call that must return an error code.
  std::fprintf(stderr, "ptxray: internal error in %s: %s\n", call, what);
}

cuda::Error Runtime::unsupported(const char *function) {
  Runtime &rt = instance();
  std::lock_guard lock(rt.mutex_);
  if (rt.unsupportedReported_.insert(function).second) {
    std::fflush(stdout);
    std::cerr << fmt::format("ptxray: {} is not supported by ptxray's CUDA runtime: it returns "
                             "cudaErrorNotSupported\n",
                             function);
  }
  return rt.record(cuda::kErrorNotSupported);
}

void Runtime::log(const std::string &line) {
  std::fflush(stdout);
  std::cerr << "ptxray: " << line << "\n";
}

// ---------------------------------------------------------------------------------------------------
// Registration

void Runtime::readPrelinkedUnits(const void *wrapper, RegisteredBinary &binary) {
  // Version 2 (nvcc -rdc=true, crt/link.stub): `extra` lists the translation units' own fatbinaries,
  // null-terminated; what nvlink linked (SASS, or nothing for PTX units) is `data`.
  fatbin::FatbinWrapper w;
  std::memcpy(&w, wrapper, sizeof w);
  if (w.magic != fatbin::kFatbinWrapperMagic || w.version != 2 || !w.extra)
    return;
  constexpr size_t kMaxUnits = 65536; // a bound on a list read from the program's memory
  const auto *units = static_cast<const void *const *>(w.extra);
  for (size_t i = 0; i < kMaxUnits && units[i]; ++i) {
    std::vector<fatbin::EmbeddedPtx> unit;
    for (const fatbin::FatbinEntry &e : fatbin::parseFatbins(fatbin::fatbinAt(units[i])))
      if (e.kind == static_cast<uint16_t>(fatbin::FatbinEntryKind::Ptx))
        unit.push_back({e.arch, e.text()});
    binary.units.push_back(std::move(unit));
  }
}

void **Runtime::registerFatBinary(const void *wrapper) {
  auto binary = std::make_unique<RegisteredBinary>();
  try {
    fatbin::FatbinWrapper w;
    std::memcpy(&w, wrapper, sizeof w);
    if (w.magic != fatbin::kFatbinWrapperMagic)
      throw fatbin::FatbinError(fmt::format("not a fatbinary wrapper (magic 0x{:08x})", w.magic));
    std::span<const std::byte> container = fatbin::fatbinAt(w.data);
    std::vector<fatbin::FatbinEntry> entries = fatbin::parseFatbins(container);
    binary->cubinArchs = fatbin::cubinArchs(entries);
    for (const fatbin::FatbinEntry &e : entries)
      if (e.kind == static_cast<uint16_t>(fatbin::FatbinEntryKind::Ptx))
        binary->ptx.push_back({e.arch, e.text()});
    readPrelinkedUnits(wrapper, *binary);
  } catch (const std::exception &e) {
    binary->loadError = e.what();
  }
  binaries_.push_back(std::move(binary));
  return reinterpret_cast<void **>(binaries_.back().get());
}

void Runtime::unregisterFatBinary(void **handle) {
  auto *binary = reinterpret_cast<RegisteredBinary *>(handle);
  for (const auto &b : binaries_)
    if (b.get() == binary && &b == &binaries_.back())
      finish(); // the last one: the program is exiting
}

void Runtime::registerFunction(void **handle, const void *hostFunction, const char *deviceName) {
  functions_[hostFunction] = {reinterpret_cast<RegisteredBinary *>(handle), deviceName, -1};
}

void Runtime::registerVariable(void **handle, const void *hostVariable, const char *deviceName, size_t size,
                               bool constant, bool managed) {
  // For a __managed__ variable, `hostVariable` is where host code reads the variable's address.
  void **managedPointer = managed ? static_cast<void **>(const_cast<void *>(hostVariable)) : nullptr;
  variables_[hostVariable] = {
      reinterpret_cast<RegisteredBinary *>(handle), deviceName, size, constant, managed, managedPointer};
}

bool Runtime::initModule(void **handle) {
  auto *binary = reinterpret_cast<RegisteredBinary *>(handle);
  std::string error;
  vm::LoadedModule *m = module(*binary, error);
  for (auto &[host, v] : variables_) {
    if (v.binary != binary || !v.managed || !v.managedPointer)
      continue;
    const vm::PlacedVariable *pv = m ? m->findVariable(v.name) : nullptr;
    if (pv) {
      *v.managedPointer = reinterpret_cast<void *>(m->deviceAddress(*pv));
    } else if (!*v.managedPointer) {
      // No module: host code still gets memory to read (zeroed) rather than a null pointer.
      *v.managedPointer = std::calloc(1, std::max<size_t>(v.size, 1));
    }
  }
  return m != nullptr;
}

RegisteredFunction *Runtime::function(const void *hostFunction) {
  auto it = functions_.find(hostFunction);
  return it == functions_.end() ? nullptr : &it->second;
}

RegisteredVariable *Runtime::variable(const void *hostVariable) {
  auto it = variables_.find(hostVariable);
  return it == variables_.end() ? nullptr : &it->second;
}

namespace {
/// NVIDIA's device runtime library (libcudadevrt, which nvcc -rdc=true links into every program): its
/// PTX defines cudaLaunchDeviceV2 and the rest on the driver's private system calls. ptxray's
/// device runtime stands in for it, as the driver's does.
bool isDeviceRuntimeLibrary(const std::vector<fatbin::EmbeddedPtx> &unit) {
  for (const fatbin::EmbeddedPtx &p : unit) {
    size_t at = 0;
    while ((at = p.text.find(" cudaLaunchDeviceV2(", at)) != std::string::npos) {
      const size_t lineStart = p.text.rfind('\n', at);
      const std::string_view line(p.text.data() + (lineStart == std::string::npos ? 0 : lineStart + 1),
                                  at - (lineStart == std::string::npos ? 0 : lineStart + 1));
      if (line.starts_with(".visible .func") || line.starts_with(".weak .func"))
        return true;
      ++at;
    }
  }
  return false;
}
} // namespace

vm::LoadedModule *Runtime::linkUnits(RegisteredBinary &binary, int sm) {
  const arch::ComputeCapability &cc = device_->computeCapability();
  std::vector<ptx::LinkInput> inputs;
  for (size_t i = 0; i < binary.units.size(); ++i) {
    const std::vector<fatbin::EmbeddedPtx> &unit = binary.units[i];
    if (isDeviceRuntimeLibrary(unit))
      continue;
    const fatbin::EmbeddedPtx *ptx = fatbin::choosePtx(unit, sm);
    if (!ptx && !config_.strictPtx && !unit.empty()) {
      ptx =
          &*std::min_element(unit.begin(), unit.end(), [](const fatbin::EmbeddedPtx &a, const fatbin::EmbeddedPtx &b) {
            return a.arch < b.arch;
          });
      std::cerr << fmt::format("ptxray: note: modeling {} with translation unit {}'s compute_{} PTX, which a real {} "
                               "GPU cannot run (PTXRAY_PTX=strict refuses it as the driver does)\n",
                               cc.smName(), i + 1, ptx->arch, cc.smName());
    }
    if (!ptx) {
      binary.noImage = true;
      binary.loadError =
          unit.empty() ? fmt::format("translation unit {} of this program (nvcc -rdc=true) has no PTX; ptxray runs "
                                     "PTX: rebuild with -gencode arch=compute_XX,code=compute_XX (or -arch=sm_XX)",
                                     i + 1)
                       : fmt::format("translation unit {} of this program (nvcc -rdc=true) has no PTX for {}; the "
                                     "driver refuses it (PTXRAY_PTX=strict): rebuild for an older architecture",
                                     i + 1, cc.smName());
      return nullptr;
    }
    inputs.push_back({i < binary.unitNames.size()
                          ? binary.unitNames[i]
                          : fmt::format("{}.unit{}.compute_{}.ptx", programName(), i + 1, ptx->arch),
                      ptx->text});
  }
  if (inputs.empty()) {
    binary.noImage = true;
    binary.loadError = "this program (nvcc -rdc=true) has no device code of its own";
    return nullptr;
  }
  try {
    return &device_->loadLinkedModules(fmt::format("{}.linked.ptx", programName()), std::move(inputs));
  } catch (const std::exception &e) {
    binary.loadError = fmt::format("the device code of this program (nvcc -rdc=true, {} translation units) does "
                                   "not link: {}",
                                   binary.units.size(), e.what());
    return nullptr;
  }
}

vm::LoadedModule *Runtime::module(RegisteredBinary &binary, std::string &error) {
  if (!binary.loadTried) {
    binary.loadTried = true;
    const arch::ComputeCapability &cc = device_->computeCapability();
    const int sm = cc.major * 10 + cc.minor;
    if (binary.loadError.empty() && !binary.units.empty()) {
      binary.module = linkUnits(binary, sm);
    } else if (binary.loadError.empty()) {
      const fatbin::EmbeddedPtx *ptx = fatbin::choosePtx(binary.ptx, sm);
      if (!ptx && !config_.strictPtx && !binary.ptx.empty()) {
        ptx = &*std::min_element(
            binary.ptx.begin(), binary.ptx.end(),
            [](const fatbin::EmbeddedPtx &a, const fatbin::EmbeddedPtx &b) { return a.arch < b.arch; });
        std::cerr << fmt::format("ptxray: note: modeling {} with this program's compute_{} PTX, which a real {} GPU "
                                 "cannot run (PTXRAY_PTX=strict refuses it as the driver does)\n",
                                 cc.smName(), ptx->arch, cc.smName());
      }
      if (ptx) {
        try {
          binary.module = &device_->loadModule(fmt::format("{}.compute_{}.ptx", programName(), ptx->arch), ptx->text);
        } catch (const std::exception &e) {
          binary.loadError = fmt::format("the compute_{} PTX of this program does not load: {}", ptx->arch, e.what());
        }
      } else if (binary.ptx.empty()) {
        binary.noImage = true;
        std::string sass;
        for (int a : binary.cubinArchs)
          sass += fmt::format("{}sm_{}", sass.empty() ? "" : ", ", a);
        binary.loadError = fmt::format("no PTX in this binary (SASS only: {}); ptxray runs PTX: rebuild with -gencode "
                                       "arch=compute_XX,code=compute_XX "
                                       "(or -arch=sm_XX, which embeds compute_XX PTX)",
                                       sass.empty() ? "none" : sass);
      } else {
        binary.noImage = true;
        std::string have;
        for (const fatbin::EmbeddedPtx &p : binary.ptx)
          have += fmt::format("{}compute_{}", have.empty() ? "" : ", ", p.arch);
        binary.loadError = fmt::format("no PTX for {} in this binary (it has {}); the driver refuses it "
                                       "(PTXRAY_PTX=strict): rebuild for an older architecture",
                                       cc.smName(), have);
      }
    }
    if (!binary.loadError.empty())
      std::cerr << "ptxray: error: " << binary.loadError << "\n";
  }
  error = binary.loadError;
  return binary.module;
}

// ---------------------------------------------------------------------------------------------------
// Errors

cuda::Error Runtime::record(cuda::Error error) {
  if (error != cuda::kSuccess)
    tLastError = error;
  return error;
}

cuda::Error Runtime::lastError(bool reset) {
  cuda::Error e = tLastError;
  if (reset)
    tLastError = sticky_; // a sticky error stays
  return e;
}

// ---------------------------------------------------------------------------------------------------
// Devices

namespace {
thread_local int tDevice = 0; ///< cudaSetDevice: the calling thread's device
} // namespace

int Runtime::deviceCount() const {
  return deviceCount_;
}

int Runtime::threadDevice() {
  return tDevice;
}

cuda::Error Runtime::setDevice(int device) {
  if (!validDevice(device))
    return cuda::kErrorInvalidDevice;
  tDevice = device;
  return cuda::kSuccess;
}

cuda::Error Runtime::canAccessPeer(int *can, int device, int peer) const {
  if (!can)
    return cuda::kErrorInvalidValue;
  if (!validDevice(device) || !validDevice(peer))
    return cuda::kErrorInvalidDevice;
  *can = device != peer ? 1 : 0; // one address space: every pair can
  return cuda::kSuccess;
}

cuda::Error Runtime::enablePeerAccess(int peer) {
  if (!validDevice(peer) || peer == tDevice)
    return cuda::kErrorInvalidDevice;
  return peerAccess_.insert({tDevice, peer}).second ? cuda::kSuccess : cuda::kErrorPeerAccessAlreadyEnabled;
}

cuda::Error Runtime::disablePeerAccess(int peer) {
  if (!validDevice(peer))
    return cuda::kErrorInvalidDevice;
  return peerAccess_.erase({tDevice, peer}) ? cuda::kSuccess : cuda::kErrorPeerAccessNotEnabled;
}

cuda::Error Runtime::memcpyPeer(void *dst, int dstDevice, const void *src, int srcDevice, size_t bytes, void *stream,
                                bool synchronous) {
  if (!validDevice(dstDevice) || !validDevice(srcDevice))
    return cuda::kErrorInvalidDevice;
  if (bytes && (!deviceRange(dst, bytes) || !deviceRange(src, bytes)))
    return cuda::kErrorInvalidValue;
  return streamCopy(dst, src, bytes, cuda::DeviceToDevice, stream, synchronous);
}

std::optional<unsigned> Runtime::memoryDevice(const void *pointer) const {
  const vm::Allocation *a = device_->memory().find(reinterpret_cast<uintptr_t>(pointer));
  if (!a || a->freed || a->adopted)
    return std::nullopt;
  auto it = memoryDevices_.find(a->base);
  return it == memoryDevices_.end() ? 0u : static_cast<unsigned>(it->second);
}

unsigned Runtime::streamDevice(void *stream) const {
  auto it = streamDevices_.find(stream);
  return static_cast<unsigned>(it == streamDevices_.end() ? tDevice : it->second);
}

// ---------------------------------------------------------------------------------------------------
// Memory

cuda::Error Runtime::malloc(void **pointer, size_t bytes) {
  if (!pointer)
    return cuda::kErrorInvalidValue;
  if (sticky_)
    return sticky_;
  if (bytes == 0) {
    *pointer = nullptr;
    return cuda::kSuccess;
  }
  auto a = device_->memory().allocate(bytes, vm::AllocationKind::Device, fmt::format("cudaMalloc of {} bytes", bytes));
  if (!a) {
    *pointer = nullptr;
    return cuda::kErrorMemoryAllocation;
  }
  *pointer = reinterpret_cast<void *>(*a);
  memoryDevices_[*a] = tDevice;
  return cuda::kSuccess;
}

cuda::Error Runtime::mallocManaged(void **pointer, size_t bytes) {
  if (!pointer || bytes == 0)
    return cuda::kErrorInvalidValue;
  if (sticky_)
    return sticky_;
  auto p = mapHostMemory(device_->memory(), mappedTop_, bytes, vm::AllocationKind::Managed,
                         fmt::format("cudaMallocManaged of {} bytes", bytes));
  if (!p)
    return cuda::kErrorMemoryAllocation;
  *pointer = p;
  return cuda::kSuccess;
}

cuda::Error Runtime::mallocHost(void **pointer, size_t bytes) {
  if (!pointer)
    return cuda::kErrorInvalidValue;
  if (sticky_)
    return sticky_;
  auto p = mapHostMemory(device_->memory(), mappedTop_, std::max<size_t>(bytes, 1), vm::AllocationKind::HostMapped,
                         fmt::format("cudaMallocHost of {} bytes", bytes));
  if (!p)
    return cuda::kErrorMemoryAllocation;
  *pointer = p;
  return cuda::kSuccess;
}

cuda::Error Runtime::free(void *pointer) {
  if (!pointer)
    return cuda::kSuccess;
  if (sticky_)
    return sticky_;
  const auto address = reinterpret_cast<uintptr_t>(pointer);
  const vm::Allocation *a = device_->memory().find(address);
  if (!a || a->base != address || a->freed ||
      (a->kind != vm::AllocationKind::Device && a->kind != vm::AllocationKind::Managed))
    return cuda::kErrorInvalidValue;
  if (a->adopted)
    return unmapHostMemory(device_->memory(), address) ? cuda::kSuccess : cuda::kErrorInvalidValue;
  device_->memory().release(address);
  memoryDevices_.erase(address);
  return cuda::kSuccess;
}

cuda::Error Runtime::freeHost(void *pointer) {
  if (!pointer)
    return cuda::kSuccess;
  const auto address = reinterpret_cast<uintptr_t>(pointer);
  const vm::Allocation *a = device_->memory().find(address);
  if (!a || a->base != address || a->freed || a->kind != vm::AllocationKind::HostMapped)
    return cuda::kErrorInvalidValue;
  return unmapHostMemory(device_->memory(), address) ? cuda::kSuccess : cuda::kErrorInvalidValue;
}

const vm::Allocation *Runtime::deviceRange(const void *pointer, size_t bytes) const {
  const auto address = reinterpret_cast<uintptr_t>(pointer);
  const vm::Allocation *a = device_->memory().find(address);
  if (!a || a->freed || address < a->base || address - a->base > a->size || bytes > a->size - (address - a->base))
    return nullptr;
  return a;
}

namespace {
/// Whether the first and the last page of [address, address + bytes) are mapped in this process
/// (mincore fails with ENOMEM on an unmapped page): what a copy to or from host memory checks first.
bool hostRangeMapped(uintptr_t address, size_t bytes) {
  if (bytes == 0)
    return true;
  if (address == 0 || bytes - 1 > UINTPTR_MAX - address)
    return false;
  const auto page = static_cast<uintptr_t>(::sysconf(_SC_PAGESIZE));
  unsigned char resident = 0;
  for (uintptr_t at : {address, address + bytes - 1})
    if (::mincore(reinterpret_cast<void *>(at / page * page), 1, &resident) != 0 && errno == ENOMEM)
      return false;
  return true;
}
} // namespace

cuda::Error Runtime::copy(void *dst, const void *src, size_t bytes, int kind) {
  if (bytes == 0)
    return cuda::kSuccess;
  if (kind < cuda::HostToHost || kind > cuda::Default)
    return cuda::kErrorInvalidMemcpyDirection;
  // Where each side lives: a device allocation (only the VM can reach it), memory both sides share
  // (managed, page-locked), or the program's own host memory.
  auto resolve = [&](const void *p, bool deviceSide, const char *&error) -> std::byte * {
    const auto address = reinterpret_cast<uintptr_t>(p);
    const vm::Allocation *a = device_->memory().find(address);
    if (a && !a->adopted) {
      if (!deviceSide && kind != cuda::Default) {
        error = "a device pointer where the copy kind says host";
        return nullptr;
      }
      if (!deviceRange(p, bytes)) {
        error = "a device range outside its allocation";
        return nullptr;
      }
      return device_->memory().hostRange(address, bytes);
    }
    if (deviceSide && kind != cuda::Default && !(a && !a->freed)) {
      error = "a host pointer where the copy kind says device";
      return nullptr;
    }
    if (a && a->adopted && !a->freed && !deviceRange(p, bytes)) {
      error = "a range outside its managed or page-locked allocation";
      return nullptr;
    }
    if (!a && kind == cuda::Default &&
        ((address >= vm::kGlobalBase && address < vm::kGlobalLimit) ||
         address - vm::kHighGlobalBase < vm::kHighGlobalSize)) {
      // Unified addressing: the device's range holds device memory only (host memory a kernel may
      // reach is an allocation there too), so this is a stale or made-up device pointer.
      error = "an address in the device's range that no allocation holds";
      return nullptr;
    }
    if (!a && !hostRangeMapped(address, bytes)) {
      // A stale or made-up device pointer under cudaMemcpyDefault, or a bad host one: an error, where
      // copying would crash the program inside the library.
      error = "an address that is neither device memory nor mapped host memory";
      return nullptr;
    }
    return static_cast<std::byte *>(const_cast<void *>(p));
  };
  const bool dstDevice = kind == cuda::HostToDevice || kind == cuda::DeviceToDevice;
  const bool srcDevice = kind == cuda::DeviceToHost || kind == cuda::DeviceToDevice;
  const char *error = nullptr;
  std::byte *d = resolve(dst, dstDevice, error);
  const std::byte *s = d ? resolve(src, srcDevice, error) : nullptr;
  if (!d || !s) {
    if (config_.logApi && error)
      log(fmt::format("cudaMemcpy: invalid argument: {}", error));
    return cuda::kErrorInvalidValue;
  }
  std::memmove(d, s, bytes);
  if (const vm::Allocation *a = device_->memory().find(reinterpret_cast<uintptr_t>(dst)); a && !a->adopted)
    device_->memory().noteHostWrite(reinterpret_cast<uintptr_t>(dst), bytes);
  return cuda::kSuccess;
}

cuda::Error Runtime::memcpy(void *dst, const void *src, size_t bytes, int kind) {
  if (sticky_)
    return sticky_;
  return copy(dst, src, bytes, kind);
}

cuda::Error Runtime::memcpy2D(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width, size_t height,
                              int kind) {
  if (sticky_)
    return sticky_;
  if (width > dpitch || width > spitch)
    return cuda::kErrorInvalidPitchValue;
  if (width == 0 || height == 0)
    return cuda::kSuccess; // nothing to copy, however many empty rows (not SIZE_MAX turns of the loop)
  // Each side spans (height - 1) * pitch + width bytes: a span past the address space, or a device
  // side that leaves its allocation, is refused before any row is copied, as the GPU refuses it.
  for (auto [pointer, pitch] : {std::pair<const void *, size_t>{dst, dpitch}, {src, spitch}}) {
    if (height - 1 > (SIZE_MAX - width) / pitch)
      return cuda::kErrorInvalidValue;
    const vm::Allocation *a = device_->memory().find(reinterpret_cast<uintptr_t>(pointer));
    if (a && !a->adopted && !deviceRange(pointer, (height - 1) * pitch + width))
      return cuda::kErrorInvalidValue;
  }
  for (size_t row = 0; row < height; ++row)
    if (cuda::Error e = copy(static_cast<std::byte *>(dst) + row * dpitch,
                             static_cast<const std::byte *>(src) + row * spitch, width, kind))
      return e;
  return cuda::kSuccess;
}

cuda::Error Runtime::memset(void *pointer, int value, size_t bytes) {
  if (sticky_)
    return sticky_;
  if (bytes == 0)
    return cuda::kSuccess;
  const vm::Allocation *a = deviceRange(pointer, bytes);
  if (!a)
    return cuda::kErrorInvalidValue;
  const auto address = reinterpret_cast<uintptr_t>(pointer);
  std::memset(device_->memory().hostRange(address, bytes), value & 0xff, bytes);
  if (!a->adopted)
    device_->memory().noteHostWrite(address, bytes);
  return cuda::kSuccess;
}

cuda::Error Runtime::memsetPattern(void *pointer, uint32_t value, unsigned width, size_t count) {
  if (sticky_)
    return sticky_;
  if (count > SIZE_MAX / width)
    return cuda::kErrorInvalidValue;
  const size_t bytes = count * width;
  if (bytes == 0)
    return cuda::kSuccess;
  if (reinterpret_cast<uintptr_t>(pointer) % width)
    return cuda::kErrorInvalidValue;
  const vm::Allocation *a = deviceRange(pointer, bytes);
  if (!a)
    return cuda::kErrorInvalidValue;
  const auto address = reinterpret_cast<uintptr_t>(pointer);
  std::byte *p = device_->memory().hostRange(address, bytes);
  for (size_t i = 0; i < count; ++i)
    std::memcpy(p + i * width, &value, width);
  if (!a->adopted)
    device_->memory().noteHostWrite(address, bytes);
  return cuda::kSuccess;
}

cuda::Error Runtime::memGetInfo(size_t *free, size_t *total) {
  if (sticky_)
    return sticky_;
  // What the VM's address space can hold (vm/Memory.h: more than any modeled GPU's memory).
  const uint64_t window = vm::kGlobalAddressSpace;
  // Total: the GPU's memory, as totalGlobalMem says. Free: what is left of it.
  const arch::Gpu *board = target_.board();
  const uint64_t memory = board ? static_cast<uint64_t>(board->memoryBytes) : window;
  const uint64_t capacity = std::min<uint64_t>(memory, window);
  const uint64_t used = device_->memory().bytesInUse();
  uint64_t left = capacity > used ? capacity - used : 0;
  // And no more than the memory budget has left (support/MemoryBudget.h): what cudaMalloc can still
  // have, so that a program sizing its buffers by the free memory gets them.
  const uint64_t budget = support::memoryBudget(), reserved = support::memoryInUse();
  left = std::min(left, budget > reserved ? budget - reserved : 0);
  if (free)
    *free = left;
  if (total)
    *total = memory;
  return cuda::kSuccess;
}

cuda::Error Runtime::pointerAttributes(cuda::PointerAttributes *attributes, const void *pointer) {
  if (!attributes)
    return cuda::kErrorInvalidValue;
  *attributes = {};
  const vm::Allocation *a = device_->memory().find(reinterpret_cast<uintptr_t>(pointer));
  if (!a || a->freed || reinterpret_cast<uintptr_t>(pointer) - a->base >= std::max<uint64_t>(a->size, 1)) {
    attributes->type = cuda::Unregistered;
    return cuda::kSuccess;
  }
  attributes->device = static_cast<int>(memoryDevice(pointer).value_or(static_cast<unsigned>(tDevice)));
  attributes->devicePointer = const_cast<void *>(pointer);
  switch (a->kind) {
  case vm::AllocationKind::Managed:
    attributes->type = cuda::Managed;
    attributes->hostPointer = const_cast<void *>(pointer);
    break;
  case vm::AllocationKind::HostMapped:
    attributes->type = cuda::Host;
    attributes->hostPointer = const_cast<void *>(pointer);
    break;
  default: attributes->type = cuda::DeviceMemory; break;
  }
  return cuda::kSuccess;
}

cuda::Error Runtime::symbolAddress(void **address, const void *symbol) {
  if (sticky_)
    return sticky_;
  RegisteredVariable *v = variable(symbol);
  if (!v || !address)
    return cuda::kErrorInvalidSymbol;
  std::string error;
  vm::LoadedModule *m = module(*v->binary, error);
  if (!m)
    return cuda::kErrorInvalidKernelImage;
  const vm::PlacedVariable *pv = m->findVariable(v->name);
  if (!pv)
    return cuda::kErrorInvalidSymbol;
  *address = reinterpret_cast<void *>(m->deviceAddress(*pv));
  return cuda::kSuccess;
}

cuda::Error Runtime::symbolSize(size_t *size, const void *symbol) {
  RegisteredVariable *v = variable(symbol);
  if (!v || !size)
    return cuda::kErrorInvalidSymbol;
  *size = v->size;
  return cuda::kSuccess;
}

cuda::Error Runtime::streamCopy(void *dst, const void *src, size_t bytes, int kind, void *stream, bool synchronous) {
  if (auto captured = captureCopy(dst, src, bytes, kind, stream, synchronous))
    return *captured;
  if (!validStream(stream))
    return cuda::kErrorInvalidResourceHandle;
  cuda::Error e = memcpy(dst, src, bytes, kind);
  if (!e)
    recordCopy(dst, bytes, src, bytes, bytes, 1, stream, synchronous);
  return e;
}

cuda::Error Runtime::streamMemset(void *pointer, uint32_t value, unsigned width, size_t count, void *stream,
                                  bool synchronous) {
  if (auto captured = captureMemset(pointer, value, width, count, stream, synchronous))
    return *captured;
  if (!validStream(stream))
    return cuda::kErrorInvalidResourceHandle;
  cuda::Error e =
      width == 1 ? memset(pointer, static_cast<int>(value), count) : memsetPattern(pointer, value, width, count);
  if (!e)
    recordMemset(pointer, count * width, stream, synchronous);
  return e;
}

cuda::Error Runtime::memcpyToSymbol(const void *symbol, const void *src, size_t bytes, size_t offset, int kind,
                                    void *stream, bool synchronous) {
  void *address = nullptr;
  if (cuda::Error e = symbolAddress(&address, symbol))
    return e;
  if (offset > variable(symbol)->size || bytes > variable(symbol)->size - offset)
    return cuda::kErrorInvalidValue;
  if (kind != cuda::HostToDevice && kind != cuda::DeviceToDevice && kind != cuda::Default)
    return cuda::kErrorInvalidMemcpyDirection;
  return streamCopy(static_cast<std::byte *>(address) + offset, src, bytes, kind, stream, synchronous);
}

cuda::Error Runtime::memcpyFromSymbol(void *dst, const void *symbol, size_t bytes, size_t offset, int kind,
                                      void *stream, bool synchronous) {
  void *address = nullptr;
  if (cuda::Error e = symbolAddress(&address, symbol))
    return e;
  if (offset > variable(symbol)->size || bytes > variable(symbol)->size - offset)
    return cuda::kErrorInvalidValue;
  if (kind != cuda::DeviceToHost && kind != cuda::DeviceToDevice && kind != cuda::Default)
    return cuda::kErrorInvalidMemcpyDirection;
  return streamCopy(dst, static_cast<const std::byte *>(address) + offset, bytes, kind, stream, synchronous);
}

// ---------------------------------------------------------------------------------------------------
// Kernels

namespace {
/// The <<<...>>> configurations pushed and not yet popped: per thread, as in NVIDIA's runtime.
thread_local std::vector<Runtime::CallConfiguration> tConfigurations;
} // namespace

void Runtime::pushConfiguration(cuda::Dim3 grid, cuda::Dim3 block, size_t sharedBytes, void *stream) {
  tConfigurations.push_back({grid, block, sharedBytes, stream});
}

cuda::Error Runtime::popConfiguration(cuda::Dim3 *grid, cuda::Dim3 *block, size_t *sharedBytes, void **stream) {
  if (tConfigurations.empty())
    return cuda::kErrorMissingConfiguration;
  const CallConfiguration c = tConfigurations.back();
  tConfigurations.pop_back();
  *grid = c.grid;
  *block = c.block;
  *sharedBytes = c.sharedBytes;
  *stream = c.stream;
  return cuda::kSuccess;
}

cuda::Error Runtime::launch(const void *hostFunction, cuda::Dim3 grid, cuda::Dim3 block, void **args,
                            size_t sharedBytes, void *stream, void **extra, bool cooperative) {
  if (auto captured = captureLaunch(hostFunction, grid, block, args, sharedBytes, stream, extra, cooperative))
    return *captured;
  if (sticky_)
    return sticky_;
  RegisteredFunction *f = function(hostFunction);
  if (!f)
    return cuda::kErrorInvalidDeviceFunction;
  if (!validStream(stream))
    return cuda::kErrorInvalidResourceHandle;
  vm::LoadedModule *m = nullptr;
  const vm::DecodedFunction *kernel = nullptr;
  if (cuda::Error e = kernelOf(*f, m, kernel))
    return e;
  std::vector<std::vector<std::byte>> arguments;
  if (cuda::Error e = packArguments(*kernel, args, extra, arguments))
    return e;
  // The dynamic shared memory a kernel may use: what cudaFuncSetAttribute(MaxDynamicSharedMemorySize)
  // allowed, else what the default 48 KB per block leaves beside the static shared memory.
  const int64_t defaultDynamic =
      device_->computeCapability().sharedPerBlock - static_cast<int64_t>(kernel->staticSharedBytes);
  const int64_t dynamicLimit =
      f->maxDynamicSharedBytes >= 0 ? f->maxDynamicSharedBytes : std::max<int64_t>(defaultDynamic, 0);
  if (static_cast<int64_t>(sharedBytes) > dynamicLimit) {
    // The driver wants cudaFuncSetAttribute(cudaFuncAttributeMaxDynamicSharedMemorySize) first.
    if (config_.logApi)
      log(fmt::format("launch of {}: {} bytes of dynamic shared memory need cudaFuncSetAttribute first", f->name,
                      sharedBytes));
    return cuda::kErrorInvalidValue;
  }
  vm::LaunchOptions options;
  options.threads = config_.threads;
  options.maxInstructions = config_.maxInstructions;
  tools_->configure(options, f->name);
  configureLaunch(options, hostFunction);
  if (m->program().readsClock)
    tools_->setLaunchClock(options, streamRef(stream)); // %clock64 and %globaltimer on the modeled clock
  const vm::LaunchConfig lc{
      {grid.x, grid.y, grid.z}, {block.x, block.y, block.z}, static_cast<uint32_t>(sharedBytes), cooperative};
  const auto start = std::chrono::steady_clock::now();
  vm::LaunchResult result = device_->launch(*m, f->name, lc, arguments, options);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ++launches_;
  if (result.status == vm::LaunchStatus::Refused) {
    if (config_.logApi)
      log(fmt::format("launch of {} refused: {}", f->name, result.error));
    return refusalError(result.refusal);
  }
  session::printDeviceOutput(result, {std::cout, tools_->toolStream(), tools_->names()});
  std::optional<double> modeled = tools_->afterLaunch(result, f->name, streamRef(stream), lazyLoadSeconds(*m, *kernel));
  deviceMs_ += 1000.0 * modeled.value_or(seconds);
  if (!result.ok())
    sticky_ = faultError(result); // returned by the next call, as a real GPU reports it at the next sync
  return cuda::kSuccess;
}

cuda::Error Runtime::kernelOf(RegisteredFunction &f, vm::LoadedModule *&m, const vm::DecodedFunction *&kernel) {
  std::string error;
  m = module(*f.binary, error);
  if (!m)
    return f.binary->noImage ? cuda::kErrorNoKernelImageForDevice : cuda::kErrorInvalidPtx;
  kernel = m->findKernel(f.name);
  return kernel ? cuda::kSuccess : cuda::kErrorInvalidDeviceFunction;
}

cuda::Error Runtime::packArguments(const vm::DecodedFunction &kernel, void **args, void **extra,
                                   std::vector<std::vector<std::byte>> &arguments) {
  arguments.clear();
  arguments.reserve(kernel.paramSizes.size());
  if (!args && extra) {
    // {CU_LAUNCH_PARAM_BUFFER_POINTER (1), buffer, CU_LAUNCH_PARAM_BUFFER_SIZE (2), &size, END (0)}
    const std::byte *buffer = nullptr;
    size_t size = 0;
    for (size_t i = 0; extra[i] != nullptr; i += 2) {
      const auto key = reinterpret_cast<uintptr_t>(extra[i]);
      if (key == 1)
        buffer = static_cast<const std::byte *>(extra[i + 1]);
      else if (key == 2 && extra[i + 1])
        size = *static_cast<const size_t *>(extra[i + 1]);
      else
        return cuda::kErrorInvalidValue;
    }
    if (!buffer || size < kernel.kernelParamBytes)
      return cuda::kErrorInvalidValue;
    for (size_t i = 0; i < kernel.paramSizes.size(); ++i)
      arguments.emplace_back(buffer + kernel.paramOffsets[i], buffer + kernel.paramOffsets[i] + kernel.paramSizes[i]);
    return cuda::kSuccess;
  }
  for (size_t i = 0; i < kernel.paramSizes.size(); ++i) {
    if (!args || !args[i])
      return cuda::kErrorInvalidValue;
    auto *p = static_cast<const std::byte *>(args[i]);
    arguments.emplace_back(p, p + kernel.paramSizes[i]);
  }
  return cuda::kSuccess;
}

double Runtime::lazyLoadSeconds(const vm::LoadedModule &module, const vm::DecodedFunction &kernel) {
  if (eagerLoading_)
    return 0;
  const arch::HostCosts &costs = arch::hostCosts();
  double seconds = 0;
  if (loadedCode_.insert(&module).second)
    seconds += costs.lazyModuleLoadSeconds;
  if (loadedCode_.insert(&kernel).second)
    seconds += costs.lazyFunctionLoadSeconds;
  return seconds;
}

cuda::Error Runtime::funcAttributes(cuda::FuncAttributes *attributes, const void *hostFunction) {
  if (!attributes)
    return cuda::kErrorInvalidValue;
  RegisteredFunction *f = function(hostFunction);
  if (!f)
    return cuda::kErrorInvalidDeviceFunction;
  std::string error;
  vm::LoadedModule *m = module(*f->binary, error);
  const vm::DecodedFunction *kernel = m ? m->findKernel(f->name) : nullptr;
  if (!kernel)
    return cuda::kErrorInvalidDeviceFunction;
  const vm::FunctionAttributes a = device_->functionAttributes(*m, *kernel, f->maxDynamicSharedBytes);
  *attributes = {};
  attributes->sharedSizeBytes = a.sharedSizeBytes;
  attributes->constSizeBytes = a.constSizeBytes;
  attributes->localSizeBytes = a.localSizeBytes;
  attributes->numRegs = a.numRegs;
  attributes->maxThreadsPerBlock = a.maxThreadsPerBlock;
  attributes->ptxVersion = a.ptxVersion;
  attributes->binaryVersion = a.binaryVersion;
  attributes->maxDynamicSharedSizeBytes = a.maxDynamicSharedSizeBytes;
  attributes->preferredShmemCarveout = -1;
  return cuda::kSuccess;
}

cuda::Error Runtime::funcSetAttribute(const void *hostFunction, int attribute, int value) {
  RegisteredFunction *f = function(hostFunction);
  if (!f)
    return cuda::kErrorInvalidDeviceFunction;
  if (attribute == cuda::MaxDynamicSharedMemorySize) {
    std::string error;
    vm::LoadedModule *m = module(*f->binary, error);
    const vm::DecodedFunction *kernel = m ? m->findKernel(f->name) : nullptr;
    const int staticBytes = kernel ? static_cast<int>(kernel->staticSharedBytes) : 0;
    if (value < 0 || value > device_->computeCapability().sharedPerBlockOptIn - staticBytes)
      return cuda::kErrorInvalidValue;
    f->maxDynamicSharedBytes = value;
    return cuda::kSuccess;
  }
  if (attribute == cuda::PreferredSharedMemoryCarveout)
    return value >= -1 && value <= 100 ? cuda::kSuccess : cuda::kErrorInvalidValue;
  return cuda::kErrorInvalidValue;
}

cuda::Error Runtime::occupancyMaxActiveBlocks(int *blocks, const void *hostFunction, int blockSize,
                                              size_t dynamicShared) {
  if (!blocks || blockSize <= 0)
    return cuda::kErrorInvalidValue;
  RegisteredFunction *f = function(hostFunction);
  std::string error;
  vm::LoadedModule *m = f ? module(*f->binary, error) : nullptr;
  const vm::DecodedFunction *kernel = m ? m->findKernel(f->name) : nullptr;
  if (!kernel)
    return cuda::kErrorInvalidDeviceFunction;
  const std::optional<int> perSm = device_->activeBlocksPerSm(*m, *kernel, blockSize, dynamicShared);
  if (!perSm)
    return cuda::kErrorInvalidValue;
  *blocks = *perSm;
  return cuda::kSuccess;
}

// ---------------------------------------------------------------------------------------------------
// Device, streams, events

cuda::Error Runtime::synchronize() {
  if (auto captured = captureSynchronize())
    return *captured;
  releasePoolMemory();
  return sticky_;
}

cuda::Error Runtime::reset() {
  // A fresh context: the sticky error goes; allocations stay (the VM keeps addresses unique anyway).
  sticky_ = cuda::kSuccess;
  tLastError = cuda::kSuccess;
  return cuda::kSuccess;
}

void *Runtime::newHandle() {
  return reinterpret_cast<void *>(0x10000 + 16 * nextHandle_++);
}

bool Runtime::validStream(void *stream) const {
  return isBuiltinStream(stream) || streams_.count(stream);
}

unsigned Runtime::streamNumber(void *stream) const {
  auto it = streams_.find(stream);
  return isBuiltinStream(stream) || it == streams_.end() ? 0 : static_cast<unsigned>(it->second);
}

void Runtime::recordCopy(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width, size_t height,
                         void *stream, bool synchronous) {
  session::SessionRecorder *s = tools_->recorder();
  if (!s || width == 0 || height == 0)
    return;
  // Device memory is the VM's own; page-locked and managed host memory is adopted (identity-mapped);
  // anything else is the program's pageable memory.
  auto where = [&](const void *p) {
    const vm::Allocation *a = device_->memory().find(reinterpret_cast<uintptr_t>(p));
    return !a || a->freed ? 0 : a->adopted ? 1 : 2; // 0 pageable host, 1 pinned host, 2 device
  };
  const int from = where(src), to = where(dst);
  if (from < 2 && to < 2)
    return; // host to host: no GPU work
  system::OpKind kind = from == 2 && to == 2 ? system::OpKind::CopyD2D
                        : to == 2            ? system::OpKind::CopyH2D
                                             : system::OpKind::CopyD2H;
  const bool pageable = (kind == system::OpKind::CopyH2D ? from : to) == 0;
  const session::StreamRef on = streamRef(stream);
  // Between two devices' memory: a peer copy, on the stream's device when it is one of the two.
  unsigned fromDevice = 0, toDevice = 0;
  if (kind == system::OpKind::CopyD2D) {
    fromDevice = memoryDevice(src).value_or(on.device);
    toDevice = memoryDevice(dst).value_or(on.device);
    if (fromDevice != toDevice)
      kind = system::OpKind::CopyPeer;
  }
  s->copy(kind, static_cast<uint64_t>(width) * height, pageable,
          kind == system::OpKind::CopyPeer && on.device != toDevice ? session::StreamRef{fromDevice, on.stream} : on,
          height, kind == system::OpKind::CopyH2D ? spitch : dpitch, fromDevice, toDevice);
  // The synchronous calls return once the bytes are through when a host side is involved; copies
  // between device memory do not hold the host (CUDA's API synchronization behavior).
  if (synchronous && kind != system::OpKind::CopyD2D && kind != system::OpKind::CopyPeer)
    s->streamSynchronize(on);
}

cuda::Error Runtime::streamWaitEvent(void *stream, void *event) {
  if (auto captured = captureWaitEvent(stream, event))
    return *captured;
  // Work runs when it is issued, so an event is always complete by the time a stream could wait on it.
  if (!validStream(stream))
    return cuda::kErrorInvalidResourceHandle;
  cuda::Error e = eventQuery(event);
  if (!e)
    recordStreamWaitEvent(stream, event);
  return e;
}

session::StreamRef Runtime::laneRef(void *launchStream, unsigned lane) const {
  // Lanes are numbered far above the program's streams (a counter from 1), the same for every
  // launch, so that each keeps its hardware queue from one replay to the next.
  constexpr unsigned kFirstLane = 0x4000'0000;
  const session::StreamRef launch{streamDevice(launchStream), streamNumber(launchStream),
                                  nonBlockingStreams_.contains(launchStream)};
  return lane == 0 ? launch : session::StreamRef{launch.device, kFirstLane + lane, true};
}

void Runtime::setGraphLane(void *launchStream, unsigned lane) {
  (void)launchStream;
  graphLane_ = lane;
}

void Runtime::recordGraphEvent(void *launchStream, unsigned lane, const void *key) {
  if (session::SessionRecorder *s = tools_->recorder())
    s->eventRecord(key, laneRef(launchStream, lane), fmt::format("graph node {}", key));
}

void Runtime::recordGraphWait(void *launchStream, unsigned lane, const void *key) {
  if (session::SessionRecorder *s = tools_->recorder())
    s->streamWaitEvent(laneRef(launchStream, lane), key);
}

session::StreamRef Runtime::streamRef(void *stream) const {
  if (graphLane_)
    return laneRef(stream, graphLane_);
  return {streamDevice(stream), streamNumber(stream), nonBlockingStreams_.contains(stream)};
}

void Runtime::recordMemset(void *pointer, size_t bytes, void *stream, bool synchronous) {
  if (session::SessionRecorder *s = tools_->recorder(); s && bytes) {
    s->memset(bytes, streamRef(stream));
    // cudaMemset holds the host only for host-reachable (pinned or managed) memory.
    const vm::Allocation *a = device_->memory().find(reinterpret_cast<uintptr_t>(pointer));
    if (synchronous && a && a->adopted)
      s->streamSynchronize(streamRef(stream));
  }
}

void Runtime::recordEventRecord(void *event, void *stream) {
  if (capturing(stream))
    return; // a node of the capture's graph
  if (session::SessionRecorder *s = tools_->recorder())
    s->eventRecord(event, streamRef(stream));
}

void Runtime::recordStreamWaitEvent(void *stream, void *event) {
  if (session::SessionRecorder *s = tools_->recorder())
    s->streamWaitEvent(streamRef(stream), event);
}

void Runtime::recordStreamSynchronize(void *stream) {
  if (session::SessionRecorder *s = tools_->recorder())
    s->streamSynchronize(streamRef(stream));
}

void Runtime::recordEventSynchronize(void *event) {
  if (session::SessionRecorder *s = tools_->recorder())
    s->eventSynchronize(event);
}

void Runtime::beginGraphLaunch() {
  if (session::SessionRecorder *s = tools_->recorder())
    s->beginGraphLaunch();
}

void Runtime::endGraphLaunch() {
  if (session::SessionRecorder *s = tools_->recorder())
    s->endGraphLaunch();
}

void Runtime::recordSynchronize() {
  if (session::SessionRecorder *s = tools_->recorder())
    s->synchronize(static_cast<unsigned>(tDevice));
}

cuda::Error Runtime::streamCreate(void **stream, unsigned flags) {
  if (!stream || flags > 1)
    return cuda::kErrorInvalidValue;
  *stream = newHandle();
  streams_[*stream] = nextHandle_;
  streamDevices_[*stream] = tDevice;
  if (flags & 1)
    nonBlockingStreams_.insert(*stream);
  return cuda::kSuccess;
}

cuda::Error Runtime::streamDestroy(void *stream) {
  streamDevices_.erase(stream);
  nonBlockingStreams_.erase(stream);
  return streams_.erase(stream) ? cuda::kSuccess : cuda::kErrorInvalidResourceHandle;
}

cuda::Error Runtime::eventCreate(void **event) {
  if (!event)
    return cuda::kErrorInvalidValue;
  *event = newHandle();
  events_[*event] = std::nullopt;
  return cuda::kSuccess;
}

cuda::Error Runtime::eventDestroy(void *event) {
  return events_.erase(event) ? cuda::kSuccess : cuda::kErrorInvalidResourceHandle;
}

cuda::Error Runtime::eventRecord(void *event, void *stream) {
  if (auto captured = captureEventRecord(event, stream))
    return *captured;
  auto it = events_.find(event);
  if (it == events_.end() || !validStream(stream))
    return cuda::kErrorInvalidResourceHandle;
  it->second = deviceMs_;
  return cuda::kSuccess;
}

cuda::Error Runtime::eventQuery(void *event) {
  return events_.count(event) ? cuda::kSuccess : cuda::kErrorInvalidResourceHandle;
}

cuda::Error Runtime::eventElapsed(float *ms, void *start, void *end) {
  if (!ms)
    return cuda::kErrorInvalidValue;
  auto s = events_.find(start), e = events_.find(end);
  if (s == events_.end() || e == events_.end())
    return cuda::kErrorInvalidResourceHandle;
  if (!s->second || !e->second)
    return cuda::kErrorInvalidResourceHandle;
  if (tools_->modeledClock()) {
    // The modeled clock: when each record completed as the system model places the session so far.
    std::optional<double> from = tools_->eventSeconds(start), to = tools_->eventSeconds(end);
    if (from && to) {
      *ms = static_cast<float>(1000.0 * (*to - *from));
      return cuda::kSuccess;
    }
  }
  *ms = static_cast<float>(*e->second - *s->second);
  return cuda::kSuccess;
}

// ---------------------------------------------------------------------------------------------------
// Driver API modules

cuda::Error Runtime::loadModule(void **module, const void *image) {
  if (!module || !image)
    return cuda::kErrorInvalidValue;
  auto binary = std::make_unique<RegisteredBinary>();
  uint32_t magic = 0;
  std::memcpy(&magic, image, sizeof magic);
  try {
    std::span<const std::byte> container;
    if (isLinkedImage(image)) {
      // cuLinkComplete's image: the units, linked as the binary loads.
      for (LinkUnit &u : decodeLinkedImage(image)) {
        binary->units.push_back({fatbin::EmbeddedPtx{0, std::move(u.ptx)}});
        binary->unitNames.push_back(std::move(u.name));
      }
    } else if (magic == fatbin::kFatbinWrapperMagic) {
      // NVIDIA's static runtime hands the driver the wrapper nvcc registered: with -rdc=true, a
      // version-2 one whose units are linked here.
      const void *data = nullptr;
      std::memcpy(&data, static_cast<const std::byte *>(image) + 8, sizeof data);
      container = fatbin::fatbinAt(data);
      readPrelinkedUnits(image, *binary);
    } else if (magic == fatbin::kFatbinMagic) {
      container = fatbin::fatbinAt(image);
    }
    if (!container.empty()) {
      std::vector<fatbin::FatbinEntry> entries = fatbin::parseFatbins(container);
      binary->cubinArchs = fatbin::cubinArchs(entries);
      for (const fatbin::FatbinEntry &e : entries)
        if (e.kind == static_cast<uint16_t>(fatbin::FatbinEntryKind::Ptx))
          binary->ptx.push_back({e.arch, e.text()});
    } else if (magic == 0x464c457fu) { // "\x7fELF": a cubin, SASS only
      std::cerr << "ptxray: error: cuModuleLoadData: the image is a cubin (SASS); ptxray runs PTX: load the PTX "
                   "(nvcc -ptx) or a fatbinary that contains it\n";
      return cuda::kErrorNoKernelImageForDevice;
    } else {
      // PTX text: the driver JIT-compiles it whatever its target.
      binary->ptx.push_back({0, static_cast<const char *>(image)});
    }
  } catch (const std::exception &e) {
    std::cerr << "ptxray: error: " << e.what() << "\n";
    return cuda::kErrorInvalidKernelImage;
  }
  std::string error;
  if (!this->module(*binary, error))
    return binary->noImage ? cuda::kErrorNoKernelImageForDevice : cuda::kErrorInvalidPtx;
  binaries_.push_back(std::move(binary));
  *module = binaries_.back().get();
  return cuda::kSuccess;
}

cuda::Error Runtime::unloadModule(void *module) {
  for (const auto &b : binaries_)
    if (b.get() == module)
      return cuda::kSuccess; // the VM keeps the code: addresses of its variables are never reused
  return cuda::kErrorInvalidResourceHandle;
}

cuda::Error Runtime::moduleFunction(void **function, void *module, const char *name) {
  if (!function || !name)
    return cuda::kErrorInvalidValue;
  auto *binary = static_cast<RegisteredBinary *>(module);
  if (unloadModule(module) != cuda::kSuccess)
    return cuda::kErrorInvalidResourceHandle;
  std::string error;
  vm::LoadedModule *m = this->module(*binary, error);
  const vm::DecodedFunction *kernel = m ? m->program().findFunction(name) : nullptr;
  if (!kernel || !kernel->isEntry || kernel->name != name)
    return cuda::kErrorSymbolNotFound;
  *function = newHandle();
  functions_[*function] = {binary, name, -1};
  return cuda::kSuccess;
}

cuda::Error Runtime::moduleGlobal(uint64_t *address, size_t *bytes, void *module, const char *name) {
  if (!name || unloadModule(module) != cuda::kSuccess)
    return cuda::kErrorInvalidValue;
  std::string error;
  vm::LoadedModule *m = this->module(*static_cast<RegisteredBinary *>(module), error);
  const vm::PlacedVariable *pv = m ? m->findVariable(name) : nullptr;
  if (!pv)
    return cuda::kErrorSymbolNotFound;
  if (address)
    *address = m->deviceAddress(*pv);
  if (bytes)
    *bytes = pv->size;
  return cuda::kSuccess;
}

const char *Runtime::functionName(const void *function) {
  RegisteredFunction *f = this->function(function);
  return f ? f->name.c_str() : nullptr;
}

void Runtime::finish() {
  if (finished_)
    return;
  finished_ = true;
  std::fflush(stdout);
  tools_->finish();
}

} // namespace ptxray::runtime
