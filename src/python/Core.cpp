// ptxray._core: the Python module's native part, a thin front end over the session layer (as the
// command line is). Two ways in:
//   - Device: a modeled GPU that stays alive between calls, as a CUDA context does. Modules load onto
//     it, NumPy arrays it allocates are views of its memory (kernels and Python share the bytes, no
//     copies), kernels launch with NumPy arrays and scalars checked against their PTX parameters, and
//     every launch comes back with the model's metrics (the names of --metrics-json), the sanitizers'
//     reports and, on request, the advisor's analysis.
//   - run_spec: a run spec run exactly as `ptxray run SPEC.json --metrics-json` runs it (the same
//     session::runInstrumented), for sweeps, comparisons and timelines.
// The package's Python part (ptxray/__init__.py) wraps the JSON documents in classes and defines the
// exceptions this file raises. The GIL is released while the VM runs.
#include "arch/GpuDatabase.h"
#include "arch/OccupancyCalculator.h"
#include "ptx/Isa.h"
#include "report/MetricsReport.h"
#include "session/Analyses.h"
#include "session/Environment.h"
#include "session/InstrumentedRun.h"
#include "session/ModelSettings.h"
#include "session/Outputs.h"
#include "session/SanitizerLog.h"
#include "session/Tools.h"
#include "support/InputFile.h"
#include "support/MemoryBudget.h"
#include "vm/Device.h"
#include "vm/semantics/Half.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <atomic>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace py = pybind11;
using nlohmann::json;

namespace ptxray::python {
namespace {

// --- JSON documents to Python objects ---------------------------------------------------------------

py::object toPython(const json &j) {
  switch (j.type()) {
  case json::value_t::null: return py::none();
  case json::value_t::boolean: return py::bool_(j.get<bool>());
  case json::value_t::number_integer: return py::int_(j.get<int64_t>());
  case json::value_t::number_unsigned: return py::int_(j.get<uint64_t>());
  case json::value_t::number_float: return py::float_(j.get<double>());
  case json::value_t::string: return py::str(j.get_ref<const std::string &>());
  case json::value_t::array: {
    py::list list;
    for (const json &e : j)
      list.append(toPython(e));
    return list;
  }
  case json::value_t::object: {
    py::dict dict;
    for (auto it = j.begin(); it != j.end(); ++it)
      dict[py::str(it.key())] = toPython(it.value());
    return dict;
  }
  default: return py::none();
  }
}

// --- the exceptions, defined in ptxray/__init__.py --------------------------------------------------

py::object exceptionType(const char *name) {
  return py::module_::import("ptxray").attr(name);
}

/// Raises ptxray.NAME(message) with `attributes` set on it.
[[noreturn]] void raise(const char *name, const std::string &message, const py::dict &attributes = {}) {
  py::object type = exceptionType(name);
  py::object error = type(message);
  for (auto item : attributes)
    py::setattr(error, item.first, item.second);
  PyErr_SetObject(type.ptr(), error.ptr());
  throw py::error_already_set();
}

arch::ArchTarget findTarget(const std::string &gpu) {
  const arch::ArchLookup lookup = arch::findArch(gpu);
  if (!lookup)
    throw py::value_error(lookup.error);
  return *lookup.target;
}

std::string launchStatusName(vm::LaunchStatus status) {
  switch (status) {
  case vm::LaunchStatus::Success: return "success";
  case vm::LaunchStatus::Refused: return "refused";
  case vm::LaunchStatus::Faulted: return "faulted";
  case vm::LaunchStatus::AssertFailed: return "assert";
  }
  return "faulted";
}

py::dict faultDict(const vm::Fault &f) {
  py::dict d;
  d["kind"] = vm::faultKindId(f.kind);
  d["message"] = f.headline();
  d["report"] = f.describe();
  d["kernel"] = f.kernel;
  d["function"] = f.function;
  d["block"] = py::make_tuple(f.block.x, f.block.y, f.block.z);
  d["thread"] = py::make_tuple(f.thread.x, f.thread.y, f.thread.z);
  d["file"] = f.sourceFile;
  d["line"] = f.sourceFileLine;
  d["source"] = f.sourceLine;
  d["ptx_location"] = f.ptxLocation;
  d["instruction"] = f.instructionText;
  d["address"] = f.address;
  d["size"] = f.size;
  d["is_write"] = f.isWrite;
  return d;
}

py::tuple dimTuple(const vm::Dim3 &d) {
  return py::make_tuple(d.x, d.y, d.z);
}

/// 1 to 3 positive extents: an int or a tuple/list.
vm::Dim3 toDim3(const py::handle &value, const char *what) {
  std::vector<int64_t> v;
  auto extent = [&](const py::handle &e) -> int64_t {
    if (!PyIndex_Check(e.ptr()) || PyBool_Check(e.ptr()))
      throw py::type_error(fmt::format("{}: extents must be integers, got {}", what, std::string(py::repr(e))));
    int overflow = 0;
    py::object number = py::reinterpret_steal<py::object>(PyNumber_Index(e.ptr()));
    if (!number)
      throw py::error_already_set();
    const long long n = PyLong_AsLongLongAndOverflow(number.ptr(), &overflow);
    return overflow ? (overflow > 0 ? std::numeric_limits<int64_t>::max() : -1) : n;
  };
  if (PyIndex_Check(value.ptr()) && !PyBool_Check(value.ptr())) {
    v.push_back(extent(value));
  } else if (py::isinstance<py::tuple>(value) || py::isinstance<py::list>(value)) {
    for (py::handle e : value)
      v.push_back(extent(e));
  } else {
    throw py::type_error(fmt::format("{}: an int or a tuple of 1 to 3 ints, got {}", what,
                                     std::string(py::str(py::type::of(value).attr("__name__")))));
  }
  if (v.empty() || v.size() > 3)
    throw py::value_error(fmt::format("{}: 1 to 3 extents, got {}", what, v.size()));
  vm::Dim3 d;
  uint32_t *out[3] = {&d.x, &d.y, &d.z};
  for (size_t i = 0; i < v.size(); ++i) {
    if (v[i] < 1 || v[i] > std::numeric_limits<uint32_t>::max())
      throw py::value_error(fmt::format("{}: extent {} is {}; it must be 1 to 2^32-1", what, "xyz"[i], v[i]));
    *out[i] = static_cast<uint32_t>(v[i]);
  }
  return d;
}

// --- a device that stays alive ------------------------------------------------------------------------

struct DeviceState {
  arch::ArchTarget target;
  session::ToolSelection tools;
  std::unique_ptr<session::Instruments> instruments;
  std::unique_ptr<vm::Device> device;
  vm::LaunchOptions launchOptions;
  std::ostringstream toolText; ///< compute-sanitizer's report lines
  std::unique_ptr<session::SanitizerLog> log;
  size_t launches = 0;
  /// Allocations made for NumPy views: the host address of each view's first byte -> device address
  /// and size, so that a view passed to a kernel is passed as its device pointer (no copy).
  struct View {
    uint64_t device = 0;
    uint64_t bytes = 0;
  };
  std::map<uintptr_t, View> views;
  /// One call on the VM at a time: Python threads may share a device (the GIL is released while it runs).
  std::mutex mutex;
  /// The thread holding `mutex`: a call back into the device from Python code run while it converts
  /// arguments (an __index__ method, a finalizer) is refused rather than waiting for itself.
  std::atomic<std::thread::id> owner{};
  /// Views whose last reference went: freed by the next call that holds `mutex`. A view's destructor
  /// runs wherever Python drops it, with the GIL held, possibly in a thread whose launch holds
  /// `mutex` or waits for the GIL: it must not wait for `mutex` itself.
  std::mutex releasedMutex;
  std::vector<uintptr_t> released;

  /// Frees the views released since the last call. Call with `mutex` held.
  void freeReleased() {
    std::vector<uintptr_t> hosts;
    {
      std::lock_guard lock(releasedMutex);
      hosts.swap(released);
    }
    for (uintptr_t host : hosts)
      if (auto it = views.find(host); it != views.end()) {
        device->free(it->second.device);
        views.erase(it);
      }
  }

  /// The device address of [host, host + bytes) when it lies in one of the views' allocations.
  std::optional<uint64_t> deviceAddressOf(uintptr_t host, uint64_t bytes) const {
    auto it = views.upper_bound(host);
    if (it == views.begin())
      return std::nullopt;
    --it;
    if (host - it->first > it->second.bytes || bytes > it->second.bytes - (host - it->first))
      return std::nullopt;
    return it->second.device + (host - it->first);
  }
};

/// The device, held for one call (DeviceState::owner says by whom).
class DeviceLock {
public:
  explicit DeviceLock(DeviceState &state) : state_(state), lock_(state.mutex, std::defer_lock) {
    if (state.owner.load() == std::this_thread::get_id())
      throw py::value_error("the device is busy with this thread's own call (Python code run while its arguments "
                            "were converted called back into it)");
    // The GIL is released while waiting: the thread holding the device may need the GIL back (at the
    // end of a launch) before it lets go.
    py::gil_scoped_release unlocked;
    lock_.lock();
    state.owner = std::this_thread::get_id();
  }
  ~DeviceLock() { state_.owner = std::thread::id{}; }
  DeviceLock(const DeviceLock &) = delete;
  DeviceLock &operator=(const DeviceLock &) = delete;

private:
  DeviceState &state_;
  std::unique_lock<std::mutex> lock_;
};

/// Owned by a NumPy array's base capsule: frees the device memory when the last view goes.
struct ViewOwner {
  std::shared_ptr<DeviceState> state;
  uint64_t address = 0;
  uintptr_t host = 0;
};

class Kernel;

class Module {
public:
  Module(std::shared_ptr<DeviceState> state, vm::LoadedModule *loaded) : state_(std::move(state)), loaded_(loaded) {}
  std::vector<std::string> kernels() const {
    std::vector<std::string> names;
    for (const ptx::Function &f : loaded_->ptx().functions)
      if (f.isEntry && f.hasBody)
        names.emplace_back(f.name);
    return names;
  }
  std::string name() const { return std::string(loaded_->name()); }
  std::vector<std::string> warnings() const { return loaded_->warnings(); }
  const std::shared_ptr<DeviceState> &state() const { return state_; }
  vm::LoadedModule &loaded() const { return *loaded_; }

private:
  std::shared_ptr<DeviceState> state_;
  vm::LoadedModule *loaded_;
};

/// One launch's outcome and what the tools made of it.
struct LaunchOutcome {
  std::shared_ptr<DeviceState> state; ///< keeps the module alive for analyze()
  std::string kernel;
  vm::Dim3 grid, block;
  vm::LaunchResult result;
  std::optional<model::LaunchProfile> profile;
  std::vector<session::ToolReport> reports;
  std::string toolText; ///< the reports as compute-sanitizer prints them
  size_t index = 0;
};

struct Param {
  std::string name;
  std::string type; ///< "u32", "f32", "b8[16]", ...
  uint64_t size = 0;
  bool pointer = false; ///< .ptr, or an integer of the module's pointer size
  ptx::Mod scalar = ptx::Mod::None;
  bool isArray = false;
};

bool isFloat(ptx::Mod m) {
  return m == ptx::Mod::f16 || m == ptx::Mod::bf16 || m == ptx::Mod::f32 || m == ptx::Mod::f64;
}
bool isSigned(ptx::Mod m) {
  return m == ptx::Mod::s8 || m == ptx::Mod::s16 || m == ptx::Mod::s32 || m == ptx::Mod::s64;
}

class Kernel {
public:
  Kernel(Module module, std::string name) : module_(std::move(module)), name_(std::move(name)) {
    try {
      function_ = module_.loaded().findKernel(name_);
    } catch (const std::exception &e) { // a demangled name that several kernels share
      throw py::key_error(e.what());
    }
    if (!function_) {
      std::string known;
      for (const std::string &k : module_.kernels())
        known += (known.empty() ? "" : ", ") + k;
      throw py::key_error(fmt::format("module {} has no kernel \"{}\" (it has: {})", module_.name(), name_,
                                      known.empty() ? "none" : known));
    }
    const ptx::Module &m = module_.loaded().ptx();
    const ptx::Function &f = *function_->source;
    for (size_t i = 0; i < f.params.size(); ++i) {
      const ptx::Variable &v = m.variables[f.params[i]];
      Param p;
      for (const ptx::Symbol &s : m.symbols)
        if (s.kind == ptx::SymbolKind::Variable && s.index == f.params[i]) {
          p.name = std::string(s.name);
          break;
        }
      p.size = i < function_->paramSizes.size() ? function_->paramSizes[i] : v.sizeInBytes();
      p.scalar = v.type;
      p.isArray = !v.dims.empty() || v.vectorWidth > 1;
      std::string type(ptx::spelling(v.type));
      if (!type.empty() && type[0] == '.')
        type.erase(0, 1);
      if (v.vectorWidth > 1)
        type = fmt::format("v{}.{}", v.vectorWidth, type);
      for (uint64_t d : v.dims)
        type += fmt::format("[{}]", d);
      p.type = type;
      p.pointer = v.isPointer || (!p.isArray && !isFloat(v.type) && !isSigned(v.type) && p.size == m.pointerBits() / 8);
      params_.push_back(std::move(p));
    }
  }

  const std::string &name() const { return name_; }
  const std::vector<Param> &params() const { return params_; }
  /// A pointer's size in this module (8, or 4 in a 32-bit one).
  uint64_t localPointerBytes() const { return module_.loaded().ptx().pointerBits() / 8; }
  uint32_t registers() const { return module_.state()->device->kernelRegisters(module_.loaded(), *function_); }
  uint64_t staticSharedBytes() const { return function_->staticSharedBytes; }

  py::dict occupancy(int block, uint64_t dynamicShared) const {
    arch::OccupancyInput in;
    in.threadsPerBlock = block;
    in.registersPerThread = static_cast<int>(registers());
    in.staticSharedBytes = staticSharedBytes();
    in.dynamicSharedBytes = dynamicShared;
    return occupancyDict(*module_.state()->target.computeCapability, in);
  }

  static py::dict occupancyDict(const arch::ComputeCapability &cc, const arch::OccupancyInput &in) {
    arch::OccupancyResult r;
    try {
      r = arch::computeOccupancy(cc, in);
    } catch (const std::invalid_argument &e) {
      throw py::value_error(e.what());
    }
    static const char *const kResources[] = {"warps", "registers", "shared_memory", "blocks", "barriers"};
    py::list limiters;
    for (arch::OccupancyResource res : r.limiters)
      limiters.append(kResources[static_cast<int>(res)]);
    py::dict d;
    d["occupancy"] = r.occupancy;
    d["active_blocks_per_sm"] = r.activeBlocksPerSm;
    d["active_warps_per_sm"] = r.activeWarpsPerSm;
    d["max_warps_per_sm"] = r.maxWarpsPerSm;
    d["limiters"] = limiters;
    d["registers_per_thread"] = in.registersPerThread;
    d["shared_bytes_per_block"] = r.allocatedSharedBytesPerBlock;
    d["launches"] = r.launches();
    d["launch_error"] = r.launchError;
    return d;
  }

  LaunchOutcome launch(const py::object &grid, const py::object &block, const py::tuple &args, uint64_t shared,
                       bool cooperative) const;

private:
  Module module_;
  std::string name_;
  const vm::DecodedFunction *function_ = nullptr;
  std::vector<Param> params_;
};

/// A NumPy array passed to a kernel that is not a view of device memory: copied to a temporary
/// allocation before the launch and back after it (when writeable).
struct StagedArray {
  py::array array;
  uint64_t address = 0;
  uint64_t bytes = 0;
};

std::vector<std::byte> integerBytes(const Param &p, size_t index, const py::handle &value) {
  // Python ints (and NumPy integers) of any size, checked against the parameter's range: .sN takes
  // the signed range; .uN and .bN either range (two's complement), because nvcc declares C's `int`
  // parameters .u32 and `long` ones .u64, so the PTX type does not say whether -1 is meant.
  py::int_ number = py::reinterpret_steal<py::int_>(PyNumber_Index(value.ptr()));
  if (!number)
    throw py::error_already_set();
  auto outOfRange = [&] {
    return py::value_error(fmt::format("argument {} ({}, .{}): {} is out of range for .{}", index, p.name, p.type,
                                       std::string(py::str(value)), p.type));
  };
  int overflow = 0;
  const long long s = PyLong_AsLongLongAndOverflow(number.ptr(), &overflow);
  __int128 v = 0;
  if (overflow == 0) {
    v = s;
  } else if (overflow > 0) {
    const unsigned long long u = PyLong_AsUnsignedLongLong(number.ptr());
    if (PyErr_Occurred()) {
      PyErr_Clear();
      throw outOfRange();
    }
    v = static_cast<__int128>(u);
  } else {
    throw outOfRange();
  }
  const unsigned bits = static_cast<unsigned>(std::min<uint64_t>(p.size, 8) * 8);
  const __int128 signedLow = -(static_cast<__int128>(1) << (bits - 1));
  const __int128 signedHigh = (static_cast<__int128>(1) << (bits - 1)) - 1;
  const __int128 unsignedHigh = (static_cast<__int128>(1) << bits) - 1;
  const bool fits = isSigned(p.scalar) ? v >= signedLow && v <= signedHigh : v >= signedLow && v <= unsignedHigh;
  if (!fits)
    throw outOfRange();
  const uint64_t pattern = static_cast<uint64_t>(v);
  std::vector<std::byte> bytes(p.size);
  std::memcpy(bytes.data(), &pattern, std::min<size_t>(p.size, 8));
  return bytes;
}

std::vector<std::byte> floatBytes(const Param &p, size_t index, double x) {
  std::vector<std::byte> bytes(p.size);
  switch (p.scalar) {
  case ptx::Mod::f64: std::memcpy(bytes.data(), &x, 8); break;
  case ptx::Mod::f32: {
    if (std::isfinite(x) && std::fabs(x) > static_cast<double>(std::numeric_limits<float>::max()))
      throw py::value_error(fmt::format("argument {} ({}, .f32): {} is out of range for .f32", index, p.name, x));
    const float f = static_cast<float>(x);
    std::memcpy(bytes.data(), &f, 4);
    break;
  }
  case ptx::Mod::f16: {
    const uint16_t h = vm::sem::fromF64<vm::sem::HalfKind::F16>(x);
    std::memcpy(bytes.data(), &h, 2);
    break;
  }
  case ptx::Mod::bf16: {
    const uint16_t h = vm::sem::fromF64<vm::sem::HalfKind::BF16>(x);
    std::memcpy(bytes.data(), &h, 2);
    break;
  }
  default:
    throw py::type_error(fmt::format("argument {} ({}, .{}): a float for an integer parameter", index, p.name, p.type));
  }
  return bytes;
}

LaunchOutcome Kernel::launch(const py::object &gridArg, const py::object &blockArg, const py::tuple &args,
                             uint64_t shared, bool cooperative) const {
  const std::shared_ptr<DeviceState> &state = module_.state();
  vm::LaunchConfig config;
  config.grid = toDim3(gridArg, "grid");
  config.block = toDim3(blockArg, "block");
  if (shared > std::numeric_limits<uint32_t>::max())
    throw py::value_error(fmt::format("shared: {} bytes of dynamic shared memory", shared));
  config.dynamicSharedBytes = static_cast<uint32_t>(shared);
  config.cooperative = cooperative;
  if (args.size() != params_.size()) {
    std::string signature;
    for (const Param &p : params_)
      signature += fmt::format("{}{} .{}", signature.empty() ? "" : ", ", p.name, p.type);
    throw py::type_error(fmt::format("{} takes {} argument{} ({}), {} given", name_, params_.size(),
                                     params_.size() == 1 ? "" : "s", signature, args.size()));
  }
  py::module_ np = py::module_::import("numpy");
  // Scalars and aggregates first, before the device is taken: converting them runs Python code
  // (__index__, __float__) that must not find the device held. Arrays are placed after.
  std::vector<std::vector<std::byte>> bytes(args.size());
  std::vector<size_t> arrays, locals;
  for (size_t i = 0; i < args.size(); ++i) {
    const Param &p = params_[i];
    py::object a = py::reinterpret_borrow<py::object>(args[i]);
    if (py::hasattr(a, "_ptxray_local_bytes")) {
      if (!p.pointer && p.size != localPointerBytes())
        throw py::type_error(fmt::format("argument {} ({}, .{}): local memory for a parameter that is not a pointer", i,
                                         p.name, p.type));
      locals.push_back(i);
      continue;
    }
    if (py::isinstance<py::array>(a)) {
      py::array array = py::reinterpret_borrow<py::array>(a);
      if (array.ndim() != 0 || p.pointer) {
        if (!p.pointer)
          throw py::type_error(
              fmt::format("argument {} ({}, .{}): an array for a parameter that is not a pointer", i, p.name, p.type));
        if (array.dtype().attr("hasobject").cast<bool>())
          throw py::type_error(fmt::format("argument {} ({}): an array of Python objects (dtype {}); a kernel takes "
                                           "numbers",
                                           i, p.name, std::string(py::str(array.dtype()))));
        if (!array.dtype().attr("isnative").cast<bool>())
          throw py::value_error(fmt::format("argument {} ({}): the array's byte order is not the machine's (dtype "
                                            "{}); pass a.astype(a.dtype.newbyteorder('='))",
                                            i, p.name, std::string(py::str(array.dtype()))));
        if (!(array.flags() & py::array::c_style))
          throw py::value_error(fmt::format("argument {} ({}): the array is not C-contiguous; pass "
                                            "numpy.ascontiguousarray(a) (a kernel sees one linear buffer)",
                                            i, p.name));
        arrays.push_back(i);
        continue;
      }
      a = array[py::tuple()]; // a 0-d array is its scalar, with the scalar's rules
    }
    if (py::isinstance<py::bytes>(a) || py::isinstance<py::bytearray>(a) || py::isinstance<py::memoryview>(a)) {
      Py_buffer view;
      if (PyObject_GetBuffer(a.ptr(), &view, PyBUF_C_CONTIGUOUS) != 0) {
        PyErr_Clear();
        throw py::value_error(fmt::format("argument {} ({}): the buffer is not C-contiguous", i, p.name));
      }
      const uint64_t n = static_cast<uint64_t>(view.len);
      std::vector<std::byte> b(n);
      std::memcpy(b.data(), view.buf, n);
      PyBuffer_Release(&view);
      if (n != p.size)
        throw py::value_error(fmt::format("argument {} ({}, .{}): {} bytes given, the parameter is {} bytes", i, p.name,
                                          p.type, n, p.size));
      bytes[i] = std::move(b);
      continue;
    }
    if (p.isArray)
      throw py::type_error(fmt::format("argument {} ({}, .{}): a {}-byte aggregate; pass bytes or a NumPy "
                                       "structured scalar's .tobytes()",
                                       i, p.name, p.type, p.size));
    const bool numpyScalar = py::isinstance(a, np.attr("generic"));
    char kind = 0;
    if (numpyScalar) {
      // A NumPy float keeps its type: its size must be the parameter's (no silent rounding of an
      // np.float64 into a .f32); a NumPy integer is checked by its value.
      py::dtype dtype = a.attr("dtype");
      kind = dtype.kind();
      const bool floatKind = kind == 'f';
      const bool intKind = kind == 'i' || kind == 'u';
      if ((!floatKind && !intKind) || floatKind != isFloat(p.scalar) ||
          (floatKind && static_cast<uint64_t>(dtype.itemsize()) != p.size))
        throw py::type_error(fmt::format("argument {} ({}, .{}): a numpy.{} for a .{} parameter", i, p.name, p.type,
                                         std::string(py::str(dtype)), p.type));
    }
    if (PyBool_Check(a.ptr()))
      throw py::type_error(fmt::format("argument {} ({}, .{}): a bool; pass an int", i, p.name, p.type));
    if (isFloat(p.scalar)) {
      if (!PyFloat_Check(a.ptr()) && !PyLong_Check(a.ptr()) && !numpyScalar)
        throw py::type_error(fmt::format("argument {} ({}, .{}): a number, got {}", i, p.name, p.type,
                                         std::string(py::str(py::type::of(a).attr("__name__")))));
      const double x = PyFloat_AsDouble(a.ptr());
      if (x == -1.0 && PyErr_Occurred()) {
        PyErr_Clear();
        throw py::value_error(fmt::format("argument {} ({}, .{}): {} is out of range for .{}", i, p.name, p.type,
                                          std::string(py::str(a)), p.type));
      }
      bytes[i] = floatBytes(p, i, x);
    } else {
      if (PyFloat_Check(a.ptr()) || kind == 'f')
        throw py::type_error(fmt::format("argument {} ({}, .{}): a float for an integer parameter", i, p.name, p.type));
      if (!PyIndex_Check(a.ptr()))
        throw py::type_error(fmt::format("argument {} ({}, .{}): {} where an integer{} belongs", i, p.name, p.type,
                                         std::string(py::str(py::type::of(a).attr("__name__"))),
                                         p.pointer ? " or an array" : ""));
      bytes[i] = integerBytes(p, i, a);
    }
  }

  DeviceLock lock(*state);
  state->freeReleased();
  std::vector<StagedArray> staged;
  // The temporary copies go whatever happens: an error below, or the launch's end.
  struct Release {
    DeviceState &state;
    std::vector<StagedArray> &staged;
    ~Release() {
      for (const StagedArray &s : staged)
        state.device->free(s.address);
    }
  } releaseStaged{*state, staged};
  // OpenCL __local arguments (ptxray.Local): their bytes go after the block's static shared memory
  // and the dynamic bytes asked for, each aligned to the largest power of two up to 128 dividing
  // its size, and the argument is their address in the shared window, as a run spec's {"local"}.
  uint64_t localEnd = function_->staticSharedBytes + shared;
  for (size_t i : locals) {
    const Param &p = params_[i];
    const uint64_t n = args[i].attr("_ptxray_local_bytes").cast<uint64_t>();
    const uint64_t align = std::max<uint64_t>(std::min<uint64_t>(n & (~n + 1), 128), 1);
    const uint64_t at = (localEnd + align - 1) / align * align;
    if (n > std::numeric_limits<uint32_t>::max() ||
        at + n - function_->staticSharedBytes > std::numeric_limits<uint32_t>::max())
      throw py::value_error(fmt::format("argument {} ({}): {} bytes of local memory per work-group", i, p.name, n));
    localEnd = at + n;
    bytes[i].resize(p.size);
    std::memcpy(bytes[i].data(), &at, std::min<size_t>(p.size, 8));
  }
  if (!locals.empty())
    config.dynamicSharedBytes = static_cast<uint32_t>(localEnd - function_->staticSharedBytes);
  for (size_t i : arrays) {
    const Param &p = params_[i];
    py::array array = py::reinterpret_borrow<py::array>(args[i]);
    const uintptr_t host = reinterpret_cast<uintptr_t>(array.data());
    const uint64_t n = static_cast<uint64_t>(array.nbytes());
    uint64_t address = 0;
    if (std::optional<uint64_t> view = state->deviceAddressOf(host, n)) {
      address = *view; // device memory already: the kernel works on the same bytes
    } else {
      StagedArray s{array, 0, n};
      try {
        s.address = state->device->allocate(std::max<uint64_t>(n, 1), fmt::format("argument {} ({})", i, p.name));
      } catch (const std::exception &e) {
        PyErr_SetString(PyExc_MemoryError, e.what()); // the modeled GPU's memory, or the host's budget
        throw py::error_already_set();
      }
      staged.push_back(s);
      if (n)
        state->device->copyToDevice(s.address, {static_cast<const std::byte *>(array.data()), n});
      address = s.address;
    }
    if (p.size < 8 && address > std::numeric_limits<uint32_t>::max())
      throw py::value_error(fmt::format("argument {} ({}): device address 0x{:x} is beyond a 32-bit module's reach "
                                        "(the device's memory below 4 GiB is full)",
                                        i, p.name, address));
    bytes[i].resize(p.size);
    std::memcpy(bytes[i].data(), &address, std::min<size_t>(p.size, 8));
  }

  LaunchOutcome out;
  out.state = state;
  out.kernel = name_;
  out.grid = config.grid;
  out.block = config.block;
  out.index = state->launches++;
  std::optional<std::string> noMemory;
  {
    py::gil_scoped_release unlocked;
    try {
      out.result = state->device->launch(module_.loaded(), name_, config, bytes, state->launchOptions);
    } catch (const support::MemoryBudgetExceeded &e) {
      noMemory = e.what(); // the host's memory budget (--max-memory, PTXRAY_MAX_MEMORY)
    }
  }
  if (noMemory) {
    PyErr_SetString(PyExc_MemoryError, noMemory->c_str());
    throw py::error_already_set();
  }
  session::Instruments &instruments = *state->instruments;
  out.reports = instruments.launchReports(out.result);
  state->toolText.str({}); // this launch's reports only: a long session must not keep them all
  state->log->afterLaunch(out.reports, out.index, name_);
  out.toolText = state->toolText.str();
  if (const model::LaunchProfile *p = instruments.lastProfile(out.result))
    out.profile = *p;
  // Back to the arrays that were copied in (the copies are freed on the way out).
  for (const StagedArray &s : staged)
    if (s.bytes && s.array.writeable())
      state->device->copyFromDevice({static_cast<std::byte *>(const_cast<void *>(s.array.data())), s.bytes}, s.address);
  return out;
}

std::shared_ptr<DeviceState> makeDevice(const std::string &gpu, const std::vector<std::string> &tools,
                                        bool racecheckGlobal, bool metrics, const std::string &dlcm, int bankMode,
                                        const std::string &clock, unsigned threads, uint64_t maxInstructions) {
  auto state = std::make_shared<DeviceState>();
  state->target = findTarget(gpu);
  try {
    state->tools.tools = session::parseTools(tools, "tools");
    state->tools.racecheckGlobal = racecheckGlobal;
    session::checkToolOptions(state->tools, false);
    state->tools.model = metrics;
    if (metrics)
      state->tools.modelOptions = session::modelOptions({clock, dlcm, bankMode}, state->target);
    if (maxInstructions > session::env::kMaxInstructionBudget)
      throw std::invalid_argument(
          fmt::format("max_instructions: at most {} thread-instructions", session::env::kMaxInstructionBudget));
  } catch (const std::invalid_argument &e) {
    throw py::value_error(e.what());
  }
  state->instruments = std::make_unique<session::Instruments>(state->target, state->tools);
  const arch::ArchTarget &t = state->target;
  state->device = std::make_unique<vm::Device>(*t.computeCapability, t.gpu ? t.gpu->smCount : 0, t.gpu);
  state->instruments->attach(*state->device);
  state->launchOptions.threads = threads;
  state->launchOptions.maxInstructions = maxInstructions;
  state->instruments->configure(state->launchOptions);
  // The reports reach Python as objects, launch by launch: the log keeps no JSON of them.
  state->log = std::make_unique<session::SanitizerLog>(*state->instruments, state->toolText, false);
  return state;
}

py::dict reportDict(const session::ToolReport &r) {
  py::dict d;
  d["tool"] = std::string(session::toolInfo(r.tool).name);
  d["severity"] = r.hazard.severity == sanitizers::Severity::Error ? "error" : "warning";
  d["kernel"] = r.hazard.kernel;
  d["message"] = r.hazard.headline;
  d["details"] = r.hazard.details;
  d["report"] = r.hazard.describe();
  py::list sites;
  for (const sanitizers::SiteText &s : r.hazard.sites)
    sites.append(toPython(session::siteJson(s)));
  d["sites"] = sites;
  if (r.fault)
    d["fault"] = faultDict(*r.fault);
  return d;
}

class Device {
public:
  Device(const std::string &gpu, const std::vector<std::string> &tools, bool racecheckGlobal, bool metrics,
         const std::string &dlcm, int bankMode, const std::string &clock, unsigned threads, uint64_t maxInstructions)
      : state_(makeDevice(gpu, tools, racecheckGlobal, metrics, dlcm, bankMode, clock, threads, maxInstructions)) {}

  const std::shared_ptr<DeviceState> &state() const { return state_; }

  Module load(const std::string &path, const std::vector<std::string> &buildOptions) {
    DeviceLock lock(*state_);
    state_->freeReleased();
    vm::LoadedModule *loaded = nullptr;
    {
      py::gil_scoped_release unlocked;
      loaded = &state_->device->loadModuleFile(path, {}, buildOptions);
    }
    return Module(state_, loaded);
  }
  Module loadPtx(const std::string &text, const std::string &name) {
    DeviceLock lock(*state_);
    state_->freeReleased();
    vm::LoadedModule *loaded = nullptr;
    {
      py::gil_scoped_release unlocked;
      loaded = &state_->device->loadModule(name, text);
    }
    return Module(state_, loaded);
  }

  /// A NumPy array whose bytes are device memory (zero-filled; `written`: counts as written by the
  /// host for initcheck).
  py::array allocate(const py::object &shape, const py::object &dtypeArg, bool written) {
    py::dtype dtype = py::dtype::from_args(dtypeArg);
    if (dtype.attr("hasobject").cast<bool>())
      throw py::type_error(
          fmt::format("dtype {}: device memory holds numbers, not Python objects", std::string(py::str(dtype))));
    std::vector<py::ssize_t> extents;
    auto extent = [](const py::handle &e) -> py::ssize_t {
      if (!PyIndex_Check(e.ptr()) || PyBool_Check(e.ptr()))
        throw py::type_error(fmt::format("shape: extents must be integers, got {}", std::string(py::repr(e))));
      const py::ssize_t n = PyNumber_AsSsize_t(e.ptr(), PyExc_OverflowError);
      if (n == -1 && PyErr_Occurred()) {
        PyErr_Clear();
        throw py::value_error(fmt::format("shape: extent {} is too large", std::string(py::repr(e))));
      }
      return n;
    };
    if (PyIndex_Check(shape.ptr()))
      extents.push_back(extent(shape));
    else if (py::isinstance<py::tuple>(shape) || py::isinstance<py::list>(shape))
      for (py::handle e : shape)
        extents.push_back(extent(e));
    else
      throw py::type_error("shape: an int or a tuple of ints");
    uint64_t bytes = static_cast<uint64_t>(dtype.itemsize());
    for (py::ssize_t e : extents) {
      if (e < 0)
        throw py::value_error(fmt::format("shape: negative extent {}", e));
      if (e && bytes > std::numeric_limits<uint64_t>::max() / static_cast<uint64_t>(e))
        throw py::value_error("shape: the array's size overflows");
      bytes *= static_cast<uint64_t>(e);
    }
    DeviceLock lock(*state_);
    state_->freeReleased();
    uint64_t address = 0;
    try {
      address = state_->device->allocate(std::max<uint64_t>(bytes, 1), fmt::format("array of {} bytes", bytes));
    } catch (const std::exception &e) {
      PyErr_SetString(PyExc_MemoryError, e.what()); // the modeled GPU's memory, or the host's budget
      throw py::error_already_set();
    }
    std::byte *host = written ? state_->device->hostWriteRange(address, std::max<uint64_t>(bytes, 1)).data()
                              : state_->device->memory().hostRange(address, std::max<uint64_t>(bytes, 1));
    state_->views[reinterpret_cast<uintptr_t>(host)] = {address, bytes};
    auto *owner = new ViewOwner{state_, address, reinterpret_cast<uintptr_t>(host)};
    py::capsule base(owner, [](void *p) {
      auto *o = static_cast<ViewOwner *>(p);
      {
        std::lock_guard lock(o->state->releasedMutex);
        o->state->released.push_back(o->host);
      }
      delete o; // the last owner of the state: the device goes, and its memory with it
    });
    return py::array(dtype, extents, {}, host, base);
  }

private:
  std::shared_ptr<DeviceState> state_;
};

// --- run specs as `ptxray run` runs them ----------------------------------------------------------------

py::dict runSpec(const std::string &specPath, const std::string &gpu, std::optional<uint32_t> blockSize,
                 std::optional<uint32_t> dynamicShared, const std::string &dlcm, int bankMode, const std::string &clock,
                 unsigned threads, bool metrics, uint64_t maxInstructions, const std::vector<std::string> &tools,
                 bool advice, bool timeline) {
  session::RunRequest request;
  request.target = findTarget(gpu);
  try {
    request.tools.tools = session::parseTools(tools, "tools");
    session::checkToolOptions(request.tools, false);
    request.tools.model = metrics || advice || timeline;
    if (request.tools.model)
      request.tools.modelOptions = session::modelOptions({clock, dlcm, bankMode}, request.target);
    if (maxInstructions > session::env::kMaxInstructionBudget)
      throw std::invalid_argument(
          fmt::format("max_instructions: at most {} thread-instructions", session::env::kMaxInstructionBudget));
  } catch (const std::invalid_argument &e) {
    throw py::value_error(e.what());
  }
  request.launch.threads = threads;
  request.launch.maxInstructions = maxInstructions;
  request.writeOutputs = false;
  if (advice)
    request.advice = session::AdviceSettings{advisor::AdvisorOptions{}, request.tools.modelOptions, {}};
  if (timeline)
    request.session = session::RunRequest::Session::Always;

  std::ostringstream out, err;
  session::RunResult result;
  std::optional<std::string> specError, moduleError, valueError, memoryError;
  {
    py::gil_scoped_release unlocked;
    try {
      session::RunSpec spec = session::loadRunSpec(specPath);
      session::applyLaunchOverrides(spec, {blockSize, dynamicShared});
      result = session::runInstrumented(spec, request, {out, err}, [&](const session::LaunchEvent &e) {
        session::printLaunchOutcome(e.report, {out, err});
      });
    } catch (const session::SpecError &e) {
      specError = e.what();
    } catch (const support::InputFileError &e) {
      specError = e.what();
    } catch (const std::invalid_argument &e) {
      valueError = e.what();
    } catch (const support::MemoryBudgetExceeded &e) {
      memoryError = e.what();
    } catch (const std::bad_alloc &) {
      memoryError = "out of host memory";
    } catch (const std::exception &e) {
      moduleError = e.what();
    }
  }
  if (memoryError) {
    PyErr_SetString(PyExc_MemoryError, memoryError->c_str());
    throw py::error_already_set();
  }
  if (specError)
    raise("SpecError", *specError);
  if (valueError)
    throw py::value_error(*valueError);
  if (moduleError)
    raise("ModuleError", *moduleError);

  py::dict d;
  d["ok"] = result.status() == 0;
  d["status"] = result.status();
  d["error"] = result.outcome.error;
  d["printf"] = out.str();
  d["stderr"] = err.str();
  py::list launches;
  for (const session::LaunchReport &l : result.outcome.launches) {
    py::dict e;
    e["index"] = l.index;
    e["kernel"] = l.kernel;
    e["grid"] = py::make_tuple(l.grid.x, l.grid.y, l.grid.z);
    e["block"] = py::make_tuple(l.block.x, l.block.y, l.block.z);
    e["status"] = launchStatusName(l.result.status);
    e["error"] = l.result.error;
    launches.append(e);
  }
  d["launches"] = launches;
  d["metrics"] = toPython(report::metricsJson(result.selectedProfiles));
  d["sanitizers"] = toPython(result.sanitizerDocument);
  if (advice) {
    d["analyses"] = toPython(report::analysisJson(result.analyses));
    d["html"] = session::renderAnalyses(session::OutputFormat::Html, result.analyses);
    d["text"] = session::renderAnalyses(session::OutputFormat::Text, result.analyses);
  }
  if (timeline && result.session) {
    d["timeline"] = toPython(json::parse(session::renderTimeline(session::OutputFormat::Json, *result.session)));
    d["timeline_html"] = session::renderTimeline(session::OutputFormat::Html, *result.session);
    d["timeline_text"] = session::renderTimeline(session::OutputFormat::Text, *result.session);
  }
  return d;
}

} // namespace
} // namespace ptxray::python

using namespace ptxray;
using namespace ptxray::python;

PYBIND11_MODULE(_core, m) {
  m.doc() = "ptxray's native part: the modeled GPU (Device), run specs (run_spec), the GPU database.";

  m.def(
      "gpus",
      [] {
        py::list list;
        for (const arch::Gpu &g : arch::gpus()) {
          py::dict d;
          d["name"] = g.aliases.empty() ? g.name : g.aliases.front();
          d["board"] = g.name;
          d["chip"] = g.chip;
          d["cc"] = fmt::format("{}.{}", g.ccMajor, g.ccMinor);
          d["sm"] = fmt::format("sm_{}{}", g.ccMajor, g.ccMinor);
          d["sms"] = g.smCount;
          d["base_clock_mhz"] = g.baseClockMHz;
          d["memory_bytes"] = g.memoryBytes;
          d["l2_bytes"] = g.l2CacheBytes;
          list.append(d);
        }
        return list;
      },
      "Every GPU of the architecture database, as dicts (name, board, chip, cc, sm, sms, ...).");

  m.def(
      "arch",
      [](const std::string &gpu) {
        const arch::ArchTarget t = findTarget(gpu);
        py::dict d;
        d["name"] = t.displayName();
        d["cc"] = fmt::format("{}.{}", t.computeCapability->major, t.computeCapability->minor);
        d["architecture"] = t.computeCapability->architecture;
        d["sms"] = t.board() ? t.board()->smCount : 0;
        d["board"] = t.board() ? t.board()->name : "";
        return d;
      },
      py::arg("gpu"), "The GPU or compute capability `gpu` names (ValueError listing the known names otherwise).");

  m.def(
      "occupancy",
      [](const std::string &gpu, int block, int registers, uint64_t sharedBytes, uint64_t dynamicSharedBytes) {
        const arch::ArchTarget t = findTarget(gpu);
        arch::OccupancyInput in;
        in.threadsPerBlock = block;
        in.registersPerThread = registers;
        in.staticSharedBytes = sharedBytes;
        in.dynamicSharedBytes = dynamicSharedBytes;
        return Kernel::occupancyDict(*t.computeCapability, in);
      },
      py::arg("gpu"), py::arg("block"), py::arg("registers") = 0, py::arg("shared_bytes") = 0,
      py::arg("dynamic_shared_bytes") = 0,
      "Theoretical occupancy of a block on a GPU (the CUDA Occupancy Calculator, `ptxray occupancy`).");

  m.def("run_spec", &runSpec, py::arg("spec"), py::arg("gpu") = "sm_90", py::kw_only(),
        py::arg("block_size") = std::nullopt, py::arg("dynamic_shared_bytes") = std::nullopt, py::arg("dlcm") = "",
        py::arg("bank_mode") = 0, py::arg("clock") = "", py::arg("threads") = 0, py::arg("metrics") = true,
        py::arg("max_instructions") = 0, py::arg("tools") = std::vector<std::string>{}, py::arg("advice") = false,
        py::arg("timeline") = false,
        "Runs a run spec as `ptxray run SPEC --metrics-json` does; returns a dict (see ptxray.run_spec).");

  py::class_<Module>(m, "Module")
      .def_property_readonly("name", &Module::name)
      .def_property_readonly("kernels", &Module::kernels)
      .def_property_readonly("warnings", &Module::warnings)
      .def(
          "kernel", [](const Module &mod, const std::string &name) { return Kernel(mod, name); }, py::arg("name"))
      .def("__getitem__", [](const Module &mod, const std::string &name) { return Kernel(mod, name); })
      .def("__repr__", [](const Module &mod) { return fmt::format("<ptxray.Module {}>", mod.name()); });

  py::class_<Kernel>(m, "Kernel")
      .def_property_readonly("name", &Kernel::name)
      .def_property_readonly("params",
                             [](const Kernel &k) {
                               py::list list;
                               for (const Param &p : k.params())
                                 list.append(py::make_tuple(p.name, p.type, p.size));
                               return list;
                             })
      .def_property_readonly("registers", &Kernel::registers)
      .def_property_readonly("static_shared_bytes", &Kernel::staticSharedBytes)
      .def("occupancy", &Kernel::occupancy, py::arg("block"), py::arg("dynamic_shared_bytes") = 0)
      .def("_launch", &Kernel::launch)
      .def("__repr__", [](const Kernel &k) {
        std::string signature;
        for (const Param &p : k.params())
          signature += fmt::format("{}{} .{}", signature.empty() ? "" : ", ", p.name, p.type);
        return fmt::format("<ptxray.Kernel {}({})>", k.name(), signature);
      });

  py::class_<LaunchOutcome>(m, "LaunchOutcome")
      .def_property_readonly("kernel", [](const LaunchOutcome &o) { return o.kernel; })
      .def_property_readonly("index", [](const LaunchOutcome &o) { return o.index; })
      .def_property_readonly("grid", [](const LaunchOutcome &o) { return dimTuple(o.grid); })
      .def_property_readonly("block", [](const LaunchOutcome &o) { return dimTuple(o.block); })
      .def_property_readonly("status", [](const LaunchOutcome &o) { return launchStatusName(o.result.status); })
      .def_property_readonly("error", [](const LaunchOutcome &o) { return o.result.error; })
      .def_property_readonly("printf", [](const LaunchOutcome &o) { return o.result.printfOutput; })
      .def_property_readonly("assert_output", [](const LaunchOutcome &o) { return o.result.assertOutput; })
      .def_property_readonly("thread_instructions", [](const LaunchOutcome &o) { return o.result.threadInstructions; })
      .def_property_readonly("faults",
                             [](const LaunchOutcome &o) {
                               py::list list;
                               for (const vm::Fault &f : o.result.faults)
                                 list.append(faultDict(f));
                               return list;
                             })
      .def_property_readonly("tool_text", [](const LaunchOutcome &o) { return o.toolText; })
      .def_property_readonly("reports",
                             [](const LaunchOutcome &o) {
                               py::list list;
                               for (const session::ToolReport &r : o.reports)
                                 list.append(reportDict(r));
                               return list;
                             })
      .def_property_readonly("has_profile", [](const LaunchOutcome &o) { return o.profile.has_value(); })
      .def("metrics_document",
           [](const LaunchOutcome &o) {
             if (!o.profile)
               return py::object(py::none());
             model::LaunchProfile p = *o.profile;
             p.module = nullptr;
             return toPython(report::metricsJson({p})["launches"][0]);
           })
      .def(
          "analyze",
          [](const LaunchOutcome &o, const std::vector<std::string> &only, const std::vector<std::string> &ignore,
             const std::vector<std::string> &thresholds, const std::vector<std::string> &sourceDirs) {
            if (!o.profile)
              throw py::value_error("the launch has no profile to advise on (the device was made with metrics=False, "
                                    "or the launch was refused)");
            session::AdviceSettings settings;
            try {
              settings.advisor = session::advisorOptions(only, ignore, thresholds);
            } catch (const std::invalid_argument &e) {
              throw py::value_error(e.what());
            }
            settings.model = o.state->tools.modelOptions;
            settings.sourceDirs = sourceDirs;
            report::Analysis a;
            {
              DeviceLock lock(*o.state);
              a = session::analyzeLaunch(o.state->target, *o.profile, session::correctnessReports(o.reports), settings);
            }
            py::dict d;
            d["document"] = toPython(report::analysisJson({a}));
            d["html"] = session::renderAnalyses(session::OutputFormat::Html, {a});
            d["text"] = session::renderAnalyses(session::OutputFormat::Text, {a});
            return d;
          },
          py::arg("only") = std::vector<std::string>{}, py::arg("ignore") = std::vector<std::string>{},
          py::arg("thresholds") = std::vector<std::string>{}, py::arg("source_dirs") = std::vector<std::string>{});

  py::class_<Device>(m, "Device")
      .def(py::init<const std::string &, const std::vector<std::string> &, bool, bool, const std::string &, int,
                    const std::string &, unsigned, uint64_t>(),
           py::arg("gpu") = "sm_90", py::kw_only(), py::arg("tools") = std::vector<std::string>{},
           py::arg("racecheck_global") = false, py::arg("metrics") = true, py::arg("dlcm") = "",
           py::arg("bank_mode") = 0, py::arg("clock") = "", py::arg("threads") = 0, py::arg("max_instructions") = 0)
      .def_property_readonly("gpu", [](const Device &d) { return d.state()->target.displayName(); })
      .def("_load", &Device::load, py::arg("path"), py::arg("build_options") = std::vector<std::string>{})
      .def("_load_ptx", &Device::loadPtx, py::arg("text"), py::arg("name") = "module.ptx")
      .def("_allocate", &Device::allocate, py::arg("shape"), py::arg("dtype"), py::arg("written"))
      .def_property_readonly("memory_in_use",
                             [](const Device &d) {
                               DeviceLock lock(*d.state());
                               d.state()->freeReleased();
                               return d.state()->device->memory().bytesInUse();
                             })
      .def("_leaks",
           [](const Device &d) {
             DeviceLock lock(*d.state());
             py::list list;
             for (const session::ToolReport &r : d.state()->instruments->leakReports())
               list.append(reportDict(r));
             return list;
           })
      .def("_summaries", [](const Device &d) {
        DeviceLock lock(*d.state());
        py::list list;
        for (const session::ToolSummary &s : d.state()->instruments->summaries()) {
          py::dict e;
          e["tool"] = std::string(session::toolInfo(s.tool).name);
          e["errors"] = s.errors;
          e["warnings"] = s.warnings;
          list.append(e);
        }
        return list;
      });
}
