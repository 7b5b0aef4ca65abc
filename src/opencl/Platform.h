// ptxray's OpenCL platform: the state behind libptxray-opencl.so, the installable client driver
// (ICD) that Debian's OpenCL loader (ocl-icd) hands an unmodified OpenCL host program's calls to.
// One platform with one device, the modeled GPU of PTXRAY_ARCH, running on one virtual GPU
// (vm::Device) under the tools the environment asks for (session::ProgramTools), as ptxray's CUDA
// libraries do. Every OpenCL object starts with the loader's dispatch table, as the ICD protocol
// requires; the API's C functions (Api*.cpp) are thin: they check their arguments, then call here.
//
// Commands run when they are enqueued, in the calling thread, unless an event they wait for has
// not completed (a user event the program has not set yet): those wait in their queue and run as
// soon as it completes. A command's profiling times are the modeled GPU's (the performance model's
// kernel time, the system model's transfer time), on a device clock that advances by them.
#pragma once

#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 300
#endif
#define CL_USE_DEPRECATED_OPENCL_1_0_APIS
#define CL_USE_DEPRECATED_OPENCL_1_1_APIS
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS
#include <CL/cl.h>
#include <CL/cl_ext.h>
#include <CL/cl_icd.h>

#include "arch/GpuDatabase.h"
#include "session/Environment.h"
#include "session/ProgramTools.h"
#include "system/SystemConfig.h"
#include "toolchain/Compilers.h"
#include "vm/Device.h"
#include "vm/Texture.h"

#include <condition_variable>
#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace ptxray::opencl {

cl_icd_dispatch *dispatchTable();

} // namespace ptxray::opencl

// The objects, in the global namespace where cl.h declares their tags. Each holds the references it
// takes on others (a queue its context, a kernel its program) and is deleted at its last release.
struct _cl_platform_id {
  cl_icd_dispatch *dispatch;
};

struct _cl_device_id {
  cl_icd_dispatch *dispatch;
};

struct _cl_context {
  cl_icd_dispatch *dispatch = ptxray::opencl::dispatchTable();
  cl_uint refs = 1;
  std::vector<cl_context_properties> properties; ///< as given, 0-terminated (empty when none)
  void(CL_CALLBACK *notify)(const char *, const void *, size_t, void *) = nullptr;
  void *notifyData = nullptr;
};

struct _cl_command_queue;
struct _cl_event;

namespace ptxray::opencl {

/// A command waiting in its queue for the events it depends on.
struct Command {
  cl_command_type type = 0;
  std::vector<cl_event> waits; ///< retained
  cl_event event = nullptr;    ///< retained by the command
  /// Runs the command: CL_SUCCESS or the error its event ends with; `seconds` is its modeled duration.
  std::function<cl_int(double &seconds)> run;
  std::vector<cl_mem> holds; ///< memory objects it uses (retained until it has run)
  bool eventWanted = false;  ///< the program asked for its event (the session records it)
};

} // namespace ptxray::opencl

struct _cl_command_queue {
  cl_icd_dispatch *dispatch = ptxray::opencl::dispatchTable();
  cl_uint refs = 1;
  cl_context context = nullptr;
  cl_command_queue_properties properties = 0;
  unsigned stream = 0; ///< its stream in the session (1, 2, ...)
  std::vector<ptxray::opencl::Command> pending;
  /// Events of commands not yet complete, and the last barrier's (out-of-order queues).
  cl_event lastBarrier = nullptr;
  bool profiling() const { return (properties & CL_QUEUE_PROFILING_ENABLE) != 0; }
  bool inOrder() const { return (properties & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE) == 0; }
};

struct _cl_mem {
  cl_icd_dispatch *dispatch = ptxray::opencl::dispatchTable();
  cl_uint refs = 1;
  cl_context context = nullptr;
  cl_mem_object_type type = CL_MEM_OBJECT_BUFFER;
  cl_mem_flags flags = 0;
  size_t size = 0;
  uint64_t address = 0;    ///< in the virtual GPU's memory (a sub-buffer: its parent's plus `origin`)
  void *hostPtr = nullptr; ///< CL_MEM_USE_HOST_PTR's
  cl_mem parent = nullptr; ///< a sub-buffer's (retained)
  size_t origin = 0;
  cl_uint mapCount = 0;
  struct Mapping {
    size_t offset = 0, bytes = 0;
    bool write = false;
  };
  std::multimap<void *, Mapping> maps; ///< mapped pointer -> what it maps
  std::vector<std::pair<void(CL_CALLBACK *)(cl_mem, void *), void *>> destructors;
  bool pinned() const { return (flags & CL_MEM_ALLOC_HOST_PTR) != 0; }

  // Images: rows packed (rowPitch = width x element size), read through a texture object and written
  // through a surface object of the virtual GPU over the same bytes.
  cl_image_format format{};
  cl_image_desc desc{};
  size_t elementBytes = 0, rowPitch = 0, slicePitch = 0;
  uint64_t texture = 0, surface = 0;
  bool isImage() const { return type != CL_MEM_OBJECT_BUFFER; }
  bool isArray() const { return type == CL_MEM_OBJECT_IMAGE1D_ARRAY || type == CL_MEM_OBJECT_IMAGE2D_ARRAY; }
  // The extent host commands address (origin and region): a 1D array's layers are its rows, a 2D
  // array's its slices, as OpenCL gives their coordinates.
  size_t width() const { return desc.image_width; }
  size_t height() const {
    return type == CL_MEM_OBJECT_IMAGE1D_ARRAY ? desc.image_array_size
           : type == CL_MEM_OBJECT_IMAGE2D || type == CL_MEM_OBJECT_IMAGE3D || type == CL_MEM_OBJECT_IMAGE2D_ARRAY
               ? desc.image_height
               : 1;
  }
  size_t depth() const {
    return type == CL_MEM_OBJECT_IMAGE3D         ? desc.image_depth
           : type == CL_MEM_OBJECT_IMAGE2D_ARRAY ? desc.image_array_size
                                                 : 1;
  }
};

struct _cl_program {
  cl_icd_dispatch *dispatch = ptxray::opencl::dispatchTable();
  cl_uint refs = 1;
  cl_context context = nullptr;
  std::string source;  ///< clCreateProgramWithSource's (empty for binaries)
  std::string binary;  ///< PTX, with ptxray's kernel-argument line (CL_PROGRAM_BINARIES)
  std::string options; ///< the last build's
  std::string log;
  cl_build_status status = CL_BUILD_NONE;
  cl_program_binary_type binaryType = CL_PROGRAM_BINARY_TYPE_NONE;
  const ptxray::vm::LoadedModule *module = nullptr;
  std::vector<ptxray::toolchain::OpenCLKernelInfo> kernels;
  cl_uint kernelObjects = 0; ///< kernels made from it still alive (a rebuild is refused meanwhile)
  bool argumentInfo = false; ///< built from source with -cl-kernel-arg-info (clGetKernelArgInfo)
};

namespace ptxray::opencl {

/// A kernel argument as clSetKernelArg left it.
struct KernelArg {
  bool set = false;
  std::vector<std::byte> value; ///< a value argument's bytes
  cl_mem memory = nullptr;      ///< a buffer argument's (retained); null for a null buffer
  size_t localBytes = 0;        ///< a __local argument's size
};

} // namespace ptxray::opencl

struct _cl_kernel {
  cl_icd_dispatch *dispatch = ptxray::opencl::dispatchTable();
  cl_uint refs = 1;
  cl_program program = nullptr; ///< retained
  const ptxray::vm::DecodedFunction *function = nullptr;
  ptxray::toolchain::OpenCLKernelInfo info;
  std::vector<ptxray::opencl::KernelArg> args;
};

struct _cl_event {
  cl_icd_dispatch *dispatch = ptxray::opencl::dispatchTable();
  cl_uint refs = 1;
  cl_context context = nullptr;
  cl_command_queue queue = nullptr; ///< null for user events
  cl_command_type type = 0;
  cl_int status = CL_QUEUED;
  cl_ulong queued = 0, submit = 0, start = 0, end = 0; ///< device clock, ns
  /// The session operations its command recorded [firstOp, endOp), whose times the modeled clock
  /// gives (Platform::modeledProfile).
  size_t firstOp = 0, endOp = 0;
  struct Callback {
    cl_int status;
    void(CL_CALLBACK *function)(cl_event, cl_int, void *);
    void *data;
  };
  std::vector<Callback> callbacks;
  bool complete() const { return status <= CL_COMPLETE; }
};

struct _cl_sampler {
  cl_icd_dispatch *dispatch = ptxray::opencl::dispatchTable();
  cl_uint refs = 1;
  cl_context context = nullptr;
  cl_bool normalized = CL_FALSE;
  cl_addressing_mode addressing = CL_ADDRESS_CLAMP;
  cl_filter_mode filter = CL_FILTER_NEAREST;
  /// The sampler as a kernel sees it: OpenCL C's CLK_* bits (a sampler_t constant's value).
  uint32_t bits() const {
    const uint32_t address = addressing == CL_ADDRESS_CLAMP_TO_EDGE     ? 2
                             : addressing == CL_ADDRESS_CLAMP           ? 4
                             : addressing == CL_ADDRESS_REPEAT          ? 6
                             : addressing == CL_ADDRESS_MIRRORED_REPEAT ? 8
                                                                        : 0;
    return (normalized ? 1u : 0u) | address | (filter == CL_FILTER_LINEAR ? 0x20u : 0x10u);
  }
};

namespace ptxray::opencl {

/// The process's platform: created on the loader's first call, never destroyed (programs release
/// objects from exit handlers).
class Platform {
public:
  static Platform &instance();

  _cl_platform_id platform;
  _cl_device_id device;

  std::mutex &mutex() { return mutex_; }
  const session::ProgramOptions &config() const { return config_; }
  const arch::ArchTarget &target() const { return target_; }
  const arch::ComputeCapability &cc() const { return *target_.computeCapability; }
  vm::Device &gpu() { return *gpu_; }

  // Live objects, so that a released or foreign handle is an error code rather than a crash.
  bool valid(cl_context c) const { return contexts_.count(c) != 0; }
  bool valid(cl_command_queue q) const { return queues_.count(q) != 0; }
  bool valid(cl_mem m) const { return memories_.count(m) != 0; }
  bool valid(cl_program p) const { return programs_.count(p) != 0; }
  bool valid(cl_kernel k) const { return kernels_.count(k) != 0; }
  bool valid(cl_event e) const { return events_.count(e) != 0; }
  bool valid(cl_sampler s) const { return samplers_.count(s) != 0; }
  void adopt(cl_context c) { contexts_.insert(c); }
  void adopt(cl_command_queue q);
  void adopt(cl_mem m) { memories_.insert(m); }
  void adopt(cl_program p) { programs_.insert(p); }
  void adopt(cl_kernel k) { kernels_.insert(k); }
  void adopt(cl_event e) { events_.insert(e); }
  void adopt(cl_sampler s) { samplers_.insert(s); }
  void retain(cl_context c) { ++c->refs; }
  void retain(cl_event e) { ++e->refs; }
  void retain(cl_mem m) { ++m->refs; }
  void retain(cl_program p) { ++p->refs; }
  void retain(cl_command_queue q) { ++q->refs; }
  void retain(cl_kernel k) { ++k->refs; }
  void retain(cl_sampler s) { ++s->refs; }
  void release(cl_context c);
  void release(cl_command_queue q);
  void release(cl_mem m);
  void release(cl_program p);
  void release(cl_kernel k);
  void release(cl_event e);
  void release(cl_sampler s);

  // Memory: a buffer's bytes in the virtual GPU's memory.
  /// Allocates a buffer's device memory (initialized from `init` when given); false when out of memory.
  bool allocate(cl_mem m, const void *init);
  /// An image's memory and its texture and surface objects; `init` (rows `initRowPitch` apart,
  /// slices `initSlicePitch`) fills it. False when out of memory.
  bool allocateImage(cl_mem m, const void *init, size_t initRowPitch, size_t initSlicePitch);
  /// The host bytes behind [address, address + bytes) of device memory.
  std::byte *bytes(uint64_t address, size_t bytes);
  /// After the host wrote device memory (initcheck's record of defined bytes).
  void wrote(uint64_t address, size_t bytes);
  /// Whether host memory at `p` is a mapped CL_MEM_ALLOC_HOST_PTR buffer (page-locked: transfers
  /// from and to it run at the pinned rate).
  bool pinnedHostMemory(const void *p, size_t bytes) const;

  // Programs.
  /// Builds a program from its source or binary: the log, the status, the module; the error code.
  cl_int build(cl_program program, const char *options);
  /// clCompileProgram: compiles the program's source (with its headers) alone, with its options, for
  /// the log and the errors; the object is the source, linked later as one translation unit.
  cl_int compile(cl_program program);

  // Commands and events.
  /// Enqueues `command` on `queue` after `waits`: runs it now when nothing holds it back, else keeps
  /// it. Returns the command's error when it ran at once and failed; `eventOut` gets its event.
  /// `blocking`: returns only once it has run (CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST when an
  /// event it waited for failed).
  cl_int enqueue(std::unique_lock<std::mutex> &lock, cl_command_queue queue, Command command, cl_uint waitCount,
                 const cl_event *waitList, cl_event *eventOut, bool blocking = false);
  /// Checks a wait list: CL_INVALID_EVENT_WAIT_LIST or CL_INVALID_CONTEXT (events of another context).
  cl_int checkWaitList(cl_context context, cl_uint count, const cl_event *list) const;
  /// A new event of the platform, retained once (by its creator).
  cl_event newEvent(cl_context context, cl_command_queue queue, cl_command_type type);
  /// Sets a user event's status and runs what waited for it.
  void setUserEventStatus(cl_event event, cl_int status);
  /// Waits (the lock released meanwhile) until every event is complete.
  void wait(std::unique_lock<std::mutex> &lock, const std::vector<cl_event> &events);
  /// Waits until every command of `queue` has run (clFinish).
  void finish(std::unique_lock<std::mutex> &lock, cl_command_queue queue);
  /// Callbacks due, run by the API entry once the lock is released (they may call the API).
  void addCallback(std::function<void()> callback);
  static void runCallbacks();

  /// A kernel launch (the command's body): the grid, the block, the global offset and the arguments
  /// as the kernel's parameters take them. Returns the error the command ends with.
  cl_int launch(cl_command_queue queue, cl_kernel kernel, const vm::LaunchConfig &config,
                const std::vector<std::vector<std::byte>> &arguments,
                const std::vector<std::pair<cl_mem, size_t>> &constants, double &seconds);
  /// The modeled durations of a transfer between host and device, and of a copy or fill on the device.
  double hostCopySeconds(size_t bytes, bool toDevice, bool pinned) const;
  double deviceCopySeconds(size_t bytes, bool fill) const;
  /// The session's record of a command (PTXRAY_TIMELINE), once it ran.
  session::SessionRecorder *recorder() { return tools_->recorder(); }

  /// The largest work-group a kernel can run with (its registers, .maxntid), and its registers.
  size_t kernelWorkGroupLimit(cl_kernel kernel) const;
  uint32_t kernelRegisters(cl_kernel kernel) const;

  /// The modeled device clock, in ns: it advances by each command's modeled duration.
  cl_ulong deviceNow() const { return deviceClockNs_; }
  /// An event's queued, submit, start and end times on the modeled clock: the session's timeline
  /// places its command's operations as `ptxray timeline` does (queues side by side, the host's
  /// calls, copies on the copy engines). False without the modeled clock (PTXRAY_MODEL=off) or for a
  /// command that recorded nothing; then the event's own serial device clock stands.
  bool modeledProfile(cl_event event, cl_ulong times[4]);
  cl_int stickyError() const { return sticky_; }

  /// At exit: the tools' summaries and files.
  void finishProgram();

private:
  Platform();
  /// Runs a command (its waits complete), completing its event.
  void execute(cl_command_queue queue, Command &command);
  /// Runs every queued command whose waits have completed, until none can run.
  void drain();
  /// Whether a command can run now: its waits complete, and in an in-order queue nothing before it.
  bool ready(const Command &command) const;
  void complete(cl_event event, cl_int status);

  std::mutex mutex_;
  std::condition_variable changed_;
  session::ProgramOptions config_;
  arch::ArchTarget target_;
  std::unique_ptr<vm::Device> gpu_;
  std::unique_ptr<session::ProgramTools> tools_;
  std::optional<system::SystemConfig> system_;
  std::set<cl_context> contexts_;
  std::set<cl_command_queue> queues_;
  std::set<cl_mem> memories_;
  std::set<cl_program> programs_;
  std::set<cl_kernel> kernels_;
  std::set<cl_event> events_;
  std::set<cl_sampler> samplers_;
  std::map<const std::byte *, size_t> pinned_; ///< CL_MEM_ALLOC_HOST_PTR buffers' host bytes
  std::vector<std::unique_ptr<std::string>> keepAlive_;
  unsigned nextStream_ = 1;
  unsigned programsBuilt_ = 0; ///< names the modules: program1.cl, program2.cl, ...
  /// A kernel faulted: the context is lost, as on a GPU; every later command ends with this error.
  cl_int sticky_ = CL_SUCCESS;
  cl_ulong deviceClockNs_ = 0;
  cl_ulong clockBaseNs_ = 0; ///< the modeled clock's zero (the session's start), in device ns
  bool finished_ = false;
};

/// The bytes of one pixel of an image format ptxray's images support; nullopt for any other format.
std::optional<size_t> imageElementBytes(const cl_image_format &format);

} // namespace ptxray::opencl
