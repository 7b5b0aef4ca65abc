#include "opencl/Platform.h"

#include "ptx/Demangle.h"
#include "session/InstrumentedRun.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iostream>

namespace ptxray::opencl {

namespace {

/// Callbacks due in this thread, run once the API call has released the platform's lock.
thread_local std::vector<std::function<void()>> tCallbacks;

/// The first line of a program binary ptxray writes: the kernels' argument descriptions, which PTX
/// does not keep (a __local pointer and a buffer are both a .u64 there).
constexpr std::string_view kBinaryHeader = "// ptxray-opencl-kernels: ";

nlohmann::json kernelsJson(const std::vector<toolchain::OpenCLKernelInfo> &kernels) {
  nlohmann::json out = nlohmann::json::array();
  for (const toolchain::OpenCLKernelInfo &k : kernels) {
    nlohmann::json args = nlohmann::json::array();
    for (const toolchain::OpenCLKernelArg &a : k.args)
      args.push_back({{"space", static_cast<int>(a.space)},
                      {"access", a.access},
                      {"type", a.type},
                      {"qualifiers", a.qualifiers},
                      {"name", a.name}});
    out.push_back({{"name", k.name},
                   {"args", std::move(args)},
                   {"reqd_work_group_size", k.requiredWorkGroupSize},
                   {"work_group_size_hint", k.workGroupSizeHint}});
  }
  return out;
}

/// The kernels a binary's header describes; nullopt when it has none (PTX from elsewhere).
std::optional<std::vector<toolchain::OpenCLKernelInfo>> kernelsFromBinary(std::string_view binary) {
  if (!binary.starts_with(kBinaryHeader))
    return std::nullopt;
  const size_t end = binary.find('\n');
  const nlohmann::json j =
      nlohmann::json::parse(binary.substr(kBinaryHeader.size(), end - kBinaryHeader.size()), nullptr, false);
  if (!j.is_array())
    return std::nullopt;
  std::vector<toolchain::OpenCLKernelInfo> kernels;
  for (const nlohmann::json &k : j) {
    toolchain::OpenCLKernelInfo info;
    info.name = k.value("name", "");
    for (const nlohmann::json &a : k.value("args", nlohmann::json::array())) {
      toolchain::OpenCLKernelArg arg;
      arg.space = static_cast<toolchain::OpenCLKernelArg::Space>(std::clamp(a.value("space", 0), 0, 3));
      arg.access = a.value("access", "none");
      arg.type = a.value("type", "");
      arg.qualifiers = a.value("qualifiers", "");
      arg.name = a.value("name", "");
      info.args.push_back(std::move(arg));
    }
    info.requiredWorkGroupSize = k.value("reqd_work_group_size", std::array<uint32_t, 3>{});
    info.workGroupSizeHint = k.value("work_group_size_hint", std::array<uint32_t, 3>{});
    kernels.push_back(std::move(info));
  }
  return kernels;
}

cl_ulong hostNanoseconds() {
  return static_cast<cl_ulong>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
          .count());
}

void atExit() {
  Platform::instance().finishProgram();
}

} // namespace

Platform &Platform::instance() {
  // Never destroyed: programs release their objects from exit handlers of their own.
  static Platform *platform = new Platform();
  return *platform;
}

Platform::Platform() {
  platform.dispatch = dispatchTable();
  device.dispatch = dispatchTable();
  // Profiling queues time their kernels with the performance model; the others run the plain VM.
  session::ProgramSetup setup = session::setUpProgram(std::cerr, /*modelOnRequest=*/true);
  config_ = std::move(setup.options);
  target_ = setup.target;
  tools_ = std::move(setup.tools);
  const arch::Gpu *board = target_.board();
  gpu_ = std::make_unique<vm::Device>(*target_.computeCapability, board ? board->smCount : 0, board);
  tools_->attach(*gpu_);
  if (session::SessionRecorder *s = tools_->recorder())
    s->setHostApi(system::HostApi::OpenCL);
  try {
    system::SystemOptions options;
    options.boards = config_.boards;
    system_ = system::SystemConfig::forTarget(target_, options);
  } catch (const std::invalid_argument &) {
    // A compute capability without a board in the database: transfers take no modeled time.
  }
  deviceClockNs_ = clockBaseNs_ = hostNanoseconds();
  std::atexit(atExit);
}

void Platform::finishProgram() {
  std::lock_guard lock(mutex_);
  if (finished_)
    return;
  finished_ = true;
  std::fflush(stdout);
  tools_->finish();
}

// ---------------------------------------------------------------------------------------------------
// Objects

void Platform::adopt(cl_command_queue q) {
  q->stream = nextStream_++;
  queues_.insert(q);
}

void Platform::release(cl_context c) {
  if (--c->refs)
    return;
  contexts_.erase(c);
  delete c;
}

void Platform::release(cl_command_queue q) {
  if (--q->refs)
    return;
  queues_.erase(q);
  if (q->lastBarrier)
    release(q->lastBarrier);
  cl_context c = q->context;
  delete q;
  release(c);
}

void Platform::release(cl_mem m) {
  if (--m->refs)
    return;
  memories_.erase(m);
  // Destructor callbacks in the reverse order of registration, once the lock is released.
  for (auto it = m->destructors.rbegin(); it != m->destructors.rend(); ++it)
    addCallback([f = it->first, data = it->second, m] { f(m, data); });
  if (m->texture)
    gpu_->textures().destroyTextureObject(m->texture);
  if (m->surface)
    gpu_->textures().destroySurfaceObject(m->surface);
  if (!m->parent && m->address) {
    if (m->pinned())
      pinned_.erase(bytes(m->address, 0));
    gpu_->memory().release(m->address);
  }
  cl_mem parent = m->parent;
  cl_context c = m->context;
  // The object itself outlives its callbacks (they receive its handle).
  addCallback([m] { delete m; });
  if (parent)
    release(parent);
  release(c);
}

void Platform::release(cl_program p) {
  if (--p->refs)
    return;
  programs_.erase(p);
  cl_context c = p->context;
  delete p; // its module stays loaded: the virtual GPU keeps every module, as addresses are never reused
  release(c);
}

void Platform::release(cl_kernel k) {
  if (--k->refs)
    return;
  kernels_.erase(k);
  for (KernelArg &a : k->args)
    if (a.memory)
      release(a.memory);
  cl_program p = k->program;
  --p->kernelObjects;
  delete k;
  release(p);
}

void Platform::release(cl_event e) {
  if (--e->refs)
    return;
  events_.erase(e);
  cl_context c = e->context;
  cl_command_queue q = e->queue;
  delete e;
  if (q)
    release(q);
  release(c);
}

void Platform::release(cl_sampler s) {
  if (--s->refs)
    return;
  samplers_.erase(s);
  cl_context c = s->context;
  delete s;
  release(c);
}

// ---------------------------------------------------------------------------------------------------
// Memory

bool Platform::allocate(cl_mem m, const void *init) {
  auto address = gpu_->memory().allocate(std::max<size_t>(m->size, 1), vm::AllocationKind::Device,
                                         fmt::format("clCreateBuffer of {} bytes", m->size));
  if (!address)
    return false;
  m->address = *address;
  if (init) {
    std::memcpy(bytes(m->address, m->size), init, m->size);
    wrote(m->address, m->size);
  }
  if (m->pinned())
    pinned_[bytes(m->address, 0)] = m->size;
  return true;
}

namespace {
/// An OpenCL image format as the texture unit's channel format; nullopt for one it does not have.
std::optional<std::pair<vm::ChannelFormat, vm::ReadMode>> channelFormat(const cl_image_format &f) {
  vm::ChannelFormat c;
  switch (f.image_channel_order) {
  case CL_R: c.channels = 1; break;
  case CL_RG: c.channels = 2; break;
  case CL_RGBA: c.channels = 4; break;
  case CL_BGRA:
    c.channels = 4;
    c.bgra = true;
    break;
  default: return std::nullopt;
  }
  vm::ReadMode mode = vm::ReadMode::ElementType;
  switch (f.image_channel_data_type) {
  case CL_SNORM_INT8: c.type = vm::ChannelType::S8, mode = vm::ReadMode::NormalizedFloat; break;
  case CL_SNORM_INT16: c.type = vm::ChannelType::S16, mode = vm::ReadMode::NormalizedFloat; break;
  case CL_UNORM_INT8: c.type = vm::ChannelType::U8, mode = vm::ReadMode::NormalizedFloat; break;
  case CL_UNORM_INT16: c.type = vm::ChannelType::U16, mode = vm::ReadMode::NormalizedFloat; break;
  case CL_SIGNED_INT8: c.type = vm::ChannelType::S8; break;
  case CL_SIGNED_INT16: c.type = vm::ChannelType::S16; break;
  case CL_SIGNED_INT32: c.type = vm::ChannelType::S32; break;
  case CL_UNSIGNED_INT8: c.type = vm::ChannelType::U8; break;
  case CL_UNSIGNED_INT16: c.type = vm::ChannelType::U16; break;
  case CL_UNSIGNED_INT32: c.type = vm::ChannelType::U32; break;
  case CL_HALF_FLOAT: c.type = vm::ChannelType::F16; break;
  case CL_FLOAT: c.type = vm::ChannelType::F32; break;
  default: return std::nullopt;
  }
  // BGRA: the 8-bit formats only, as OpenCL lists it.
  if (c.bgra && c.type != vm::ChannelType::U8 && c.type != vm::ChannelType::S8)
    return std::nullopt;
  return std::make_pair(c, mode);
}
} // namespace

std::optional<size_t> imageElementBytes(const cl_image_format &format) {
  auto f = channelFormat(format);
  return f ? std::optional<size_t>(f->first.elementBytes()) : std::nullopt;
}

bool Platform::allocateImage(cl_mem m, const void *init, size_t initRowPitch, size_t initSlicePitch) {
  const auto format = channelFormat(m->format);
  m->elementBytes = format->first.elementBytes();
  m->rowPitch = m->width() * m->elementBytes;
  m->slicePitch = m->rowPitch * m->height();
  m->size = m->slicePitch * m->depth();
  if (m->type == CL_MEM_OBJECT_IMAGE1D_BUFFER) {
    m->address = m->parent->address; // the buffer's own bytes
  } else {
    auto address =
        gpu_->memory().allocate(m->size, vm::AllocationKind::Device, fmt::format("clCreateImage of {} bytes", m->size));
    if (!address)
      return false;
    m->address = *address;
  }
  if (init) {
    std::byte *out = bytes(m->address, m->size);
    const auto *in = static_cast<const std::byte *>(init);
    for (size_t z = 0; z < m->depth(); ++z)
      for (size_t y = 0; y < m->height(); ++y)
        std::memcpy(out + z * m->slicePitch + y * m->rowPitch, in + z * initSlicePitch + y * initRowPitch, m->rowPitch);
    wrote(m->address, m->size);
  }
  vm::TextureDesc desc;
  vm::TextureResource &r = desc.resource;
  r.kind =
      m->type == CL_MEM_OBJECT_IMAGE1D_BUFFER ? vm::TextureResource::Kind::Linear : vm::TextureResource::Kind::Array;
  r.address = m->address;
  r.format = format->first;
  r.width = static_cast<uint32_t>(m->width());
  switch (m->type) {
  case CL_MEM_OBJECT_IMAGE2D: r.height = static_cast<uint32_t>(m->height()); break;
  case CL_MEM_OBJECT_IMAGE3D:
    r.height = static_cast<uint32_t>(m->height());
    r.depth = static_cast<uint32_t>(m->depth());
    break;
  case CL_MEM_OBJECT_IMAGE1D_ARRAY:
    r.layers = static_cast<uint32_t>(m->desc.image_array_size);
    r.slicePitch = m->rowPitch;
    break;
  case CL_MEM_OBJECT_IMAGE2D_ARRAY:
    r.height = static_cast<uint32_t>(m->height());
    r.layers = static_cast<uint32_t>(m->desc.image_array_size);
    break;
  default: break;
  }
  desc.readMode = format->second;
  m->texture = gpu_->textures().createTextureObject(desc);
  m->surface = gpu_->textures().createSurfaceObject(desc.resource, format->second);
  return true;
}

std::byte *Platform::bytes(uint64_t address, size_t count) {
  return gpu_->memory().hostRange(address, count);
}

void Platform::wrote(uint64_t address, size_t count) {
  if (count)
    gpu_->memory().noteHostWrite(address, count);
}

bool Platform::pinnedHostMemory(const void *p, size_t count) const {
  const auto *b = static_cast<const std::byte *>(p);
  auto it = pinned_.upper_bound(b);
  if (it == pinned_.begin())
    return false;
  --it;
  return b >= it->first && static_cast<size_t>(b - it->first) + count <= it->second;
}

double Platform::hostCopySeconds(size_t count, bool toDevice, bool pinned) const {
  return system_ ? system_->hostCopySeconds(count, toDevice, pinned) : 0.0;
}

double Platform::deviceCopySeconds(size_t count, bool fill) const {
  return system_ ? system_->deviceCopySeconds(count, fill) : 0.0;
}

// ---------------------------------------------------------------------------------------------------
// Programs

cl_int Platform::compile(cl_program p) {
  p->log.clear();
  p->status = CL_BUILD_ERROR;
  try {
    toolchain::OpenCLOptions o;
    o.options = toolchain::splitBuildOptions(p->options);
    p->log = toolchain::compileOpenCL(p->source, fmt::format("program{}.cl", programsBuilt_ + 1), o).buildLog;
    p->status = CL_BUILD_SUCCESS;
    p->binaryType = CL_PROGRAM_BINARY_TYPE_COMPILED_OBJECT;
    return CL_SUCCESS;
  } catch (const toolchain::BuildOptionError &e) {
    p->log = fmt::format("{}\n", e.what());
    return CL_INVALID_COMPILER_OPTIONS;
  } catch (const toolchain::CompileError &e) {
    p->log = fmt::format("{}\n", e.what());
    return CL_COMPILE_PROGRAM_FAILURE;
  }
}

cl_int Platform::build(cl_program p, const char *options) {
  p->options = options ? options : "";
  p->log.clear();
  p->module = nullptr;
  p->kernels.clear();
  p->status = CL_BUILD_ERROR;
  const std::string name = fmt::format("program{}.cl", ++programsBuilt_);
  std::string ptx;
  try {
    std::vector<std::string> buildOptions = toolchain::splitBuildOptions(p->options);
    p->argumentInfo = !p->source.empty() &&
                      std::find(buildOptions.begin(), buildOptions.end(), "-cl-kernel-arg-info") != buildOptions.end();
    if (!p->source.empty()) {
      toolchain::OpenCLOptions o;
      o.options = std::move(buildOptions);
      o.kernelInfo = true;
      toolchain::OpenCLResult built = toolchain::compileOpenCL(p->source, name, o);
      ptx = std::move(built.ptx);
      p->log = std::move(built.buildLog);
      p->kernels = std::move(built.kernels);
      p->binary =
          fmt::format("{}{}\n{}", kBinaryHeader,
                      kernelsJson(p->kernels).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace), ptx);
    } else {
      // A binary: PTX, with the kernels' description when ptxray wrote it. The options are still
      // checked, as the driver checks them.
      ptx = p->binary;
      if (auto kernels = kernelsFromBinary(p->binary))
        p->kernels = std::move(*kernels);
    }
    const vm::LoadedModule &module =
        gpu_->loadModule(name + ".ptx", std::move(ptx), static_cast<uint64_t>(cc().constantMemoryBytes));
    // A function declared and called but defined nowhere (another compiled object's, never linked in)
    // fails the link, as NVIDIA's does.
    std::string undefined;
    for (const vm::DecodedFunction &f : module.program().functions)
      if (!f.source->hasBody && !f.isSystemCall && !f.isEntry)
        undefined += fmt::format("error: undefined function '{}'\n", ptx::demangle(f.name));
    if (!undefined.empty()) {
      p->log += undefined;
      return CL_BUILD_PROGRAM_FAILURE;
    }
    // Kernels the binary did not describe: every parameter a value (clSetKernelArg tells buffers
    // and __local sizes apart by what it is given).
    for (const vm::DecodedFunction &f : module.program().functions) {
      if (!f.isEntry)
        continue;
      auto it = std::find_if(p->kernels.begin(), p->kernels.end(),
                             [&](const toolchain::OpenCLKernelInfo &k) { return k.name == f.name; });
      if (it == p->kernels.end() || it->args.size() != f.paramSizes.size()) {
        toolchain::OpenCLKernelInfo info;
        info.name = f.name;
        info.args.resize(f.paramSizes.size());
        if (it == p->kernels.end())
          p->kernels.push_back(std::move(info));
        else
          *it = std::move(info);
      }
    }
    p->module = &module;
    p->status = CL_BUILD_SUCCESS;
    p->binaryType = CL_PROGRAM_BINARY_TYPE_EXECUTABLE;
    return CL_SUCCESS;
  } catch (const toolchain::BuildOptionError &e) {
    p->log = e.what();
    p->log += "\n";
    return CL_INVALID_BUILD_OPTIONS;
  } catch (const toolchain::CompileError &e) {
    p->log = e.what();
  } catch (const vm::VmError &e) {
    p->log = fmt::format("ptxray: the program's PTX does not load:\n{}", e.what());
  }
  if (!p->log.empty() && p->log.back() != '\n')
    p->log += '\n';
  return CL_BUILD_PROGRAM_FAILURE;
}

// ---------------------------------------------------------------------------------------------------
// Commands and events

cl_event Platform::newEvent(cl_context context, cl_command_queue queue, cl_command_type type) {
  auto *e = new _cl_event;
  e->context = context;
  retain(context);
  e->queue = queue;
  if (queue)
    ++queue->refs;
  e->type = type;
  e->queued = e->submit = e->start = e->end = deviceClockNs_;
  adopt(e);
  return e;
}

cl_int Platform::checkWaitList(cl_context context, cl_uint count, const cl_event *list) const {
  if ((count == 0) != (list == nullptr))
    return CL_INVALID_EVENT_WAIT_LIST;
  for (cl_uint i = 0; i < count; ++i) {
    if (!list[i] || !valid(list[i]))
      return CL_INVALID_EVENT_WAIT_LIST;
    if (list[i]->context != context)
      return CL_INVALID_CONTEXT;
  }
  return CL_SUCCESS;
}

bool Platform::ready(const Command &command) const {
  return std::all_of(command.waits.begin(), command.waits.end(), [](cl_event e) { return e->complete(); });
}

cl_int Platform::enqueue(std::unique_lock<std::mutex> &lock, cl_command_queue queue, Command command, cl_uint waitCount,
                         const cl_event *waitList, cl_event *eventOut, bool blocking) {
  for (cl_uint i = 0; i < waitCount; ++i) {
    retain(waitList[i]);
    command.waits.push_back(waitList[i]);
  }
  if (!queue->inOrder()) {
    // Out of order: a barrier (and a marker with no wait list) waits for every command before it;
    // every command waits for the last barrier.
    const bool everything = command.type == CL_COMMAND_BARRIER || (command.type == CL_COMMAND_MARKER && !waitCount);
    if (everything)
      for (const Command &c : queue->pending) {
        retain(c.event);
        command.waits.push_back(c.event);
      }
    if (queue->lastBarrier) {
      retain(queue->lastBarrier);
      command.waits.push_back(queue->lastBarrier);
    }
  }
  for (cl_mem m : command.holds)
    retain(m);
  command.eventWanted = eventOut != nullptr;
  cl_event event = newEvent(queue->context, queue, command.type);
  command.event = event;
  if (!queue->inOrder() && command.type == CL_COMMAND_BARRIER) {
    if (queue->lastBarrier)
      release(queue->lastBarrier);
    retain(event);
    queue->lastBarrier = event;
  }
  retain(event); // ours, until this call returns
  if ((!queue->inOrder() || queue->pending.empty()) && ready(command)) {
    execute(queue, command);
    drain();
  } else {
    queue->pending.push_back(std::move(command));
  }
  if (blocking)
    wait(lock, {event});
  cl_int result = CL_SUCCESS;
  if (blocking && event->status < 0)
    result = event->status;
  if (eventOut)
    *eventOut = event;
  else
    release(event);
  return result;
}

void Platform::execute(cl_command_queue queue, Command &command) {
  cl_event event = command.event;
  const bool waitFailed =
      std::any_of(command.waits.begin(), command.waits.end(), [](cl_event e) { return e->status < 0; });
  event->submit = event->start = deviceClockNs_;
  const size_t opsBefore = recorder() ? recorder()->session().ops.size() : 0;
  double seconds = 0;
  cl_int result = CL_SUCCESS;
  if (waitFailed) {
    result = CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST;
  } else if (sticky_) {
    result = sticky_;
  } else if (command.run) {
    event->status = CL_RUNNING;
    result = command.run(seconds);
  }
  event->end = event->start + static_cast<cl_ulong>(std::llround(std::max(seconds, 0.0) * 1e9));
  deviceClockNs_ = event->end;
  if (session::SessionRecorder *s = recorder()) {
    event->firstOp = opsBefore;
    event->endOp = s->session().ops.size();
  }
  if (session::SessionRecorder *s = recorder(); s && result == CL_SUCCESS && command.eventWanted)
    s->eventRecord(event, {0, queue->stream}); // a handle the program holds: it may wait for it
  for (cl_event e : command.waits)
    release(e);
  command.waits.clear();
  for (cl_mem m : command.holds)
    release(m);
  command.holds.clear();
  complete(event, result == CL_SUCCESS ? CL_COMPLETE : result);
  release(event);
}

bool Platform::modeledProfile(cl_event event, cl_ulong times[4]) {
  if (event->firstOp >= event->endOp)
    return false;
  const system::Timeline *t = tools_->timeline();
  if (!t || event->endOp > t->entries.size())
    return false;
  double start = t->entries[event->firstOp].start, end = 0;
  for (size_t i = event->firstOp; i < event->endOp; ++i) {
    start = std::min(start, t->entries[i].start);
    end = std::max(end, t->entries[i].end);
  }
  auto ns = [&](double seconds) { return clockBaseNs_ + static_cast<cl_ulong>(std::llround(seconds * 1e9)); };
  times[0] = ns(t->entries[event->firstOp].issue); // queued: the host's call
  times[1] = ns(t->entries[event->firstOp].issue); // submitted with it
  times[2] = ns(start);
  times[3] = ns(end);
  return true;
}

void Platform::complete(cl_event event, cl_int status) {
  event->status = status;
  // Every callback fires once the event is complete: those for CL_SUBMITTED and CL_RUNNING too
  // (the command passed through those states), each with the state it asked for, or the error.
  for (const _cl_event::Callback &c : event->callbacks) {
    const cl_int reported = status < 0 ? status : c.status;
    retain(event);
    addCallback([this, c, event, reported] {
      c.function(event, reported, c.data);
      std::lock_guard lock(mutex_);
      release(event);
    });
  }
  event->callbacks.clear();
  changed_.notify_all();
}

void Platform::drain() {
  for (bool progress = true; progress;) {
    progress = false;
    for (cl_command_queue q : std::vector<cl_command_queue>(queues_.begin(), queues_.end())) {
      if (!valid(q))
        continue;
      for (size_t i = 0; i < q->pending.size();) {
        if (ready(q->pending[i])) {
          Command c = std::move(q->pending[i]);
          q->pending.erase(q->pending.begin() + static_cast<std::ptrdiff_t>(i));
          execute(q, c);
          progress = true;
          break;
        }
        if (q->inOrder())
          break;
        ++i;
      }
    }
  }
}

void Platform::setUserEventStatus(cl_event event, cl_int status) {
  event->end = deviceClockNs_;
  complete(event, status);
  drain();
}

void Platform::wait(std::unique_lock<std::mutex> &lock, const std::vector<cl_event> &events) {
  for (cl_event e : events)
    retain(e);
  auto done = [&] { return std::all_of(events.begin(), events.end(), [](cl_event e) { return e->complete(); }); };
  bool warned = false;
  while (!changed_.wait_for(lock, std::chrono::seconds(10), done))
    if (!warned) {
      // Only a user event can hold a command back this long: the program waits for itself.
      std::fflush(stdout);
      std::cerr << "ptxray: warning: the program has waited 10 s for OpenCL commands that wait for a user "
                   "event it has not set (clSetUserEventStatus)\n";
      warned = true;
    }
  for (cl_event e : events)
    release(e);
}

void Platform::finish(std::unique_lock<std::mutex> &lock, cl_command_queue queue) {
  std::vector<cl_event> events;
  for (const Command &c : queue->pending)
    events.push_back(c.event);
  wait(lock, events);
}

void Platform::addCallback(std::function<void()> callback) {
  tCallbacks.push_back(std::move(callback));
}

void Platform::runCallbacks() {
  while (!tCallbacks.empty()) {
    std::vector<std::function<void()>> due;
    due.swap(tCallbacks);
    for (auto &c : due)
      c();
  }
}

// ---------------------------------------------------------------------------------------------------
// Kernels

uint32_t Platform::kernelRegisters(cl_kernel kernel) const {
  return gpu_->kernelRegisters(*kernel->program->module, *kernel->function);
}

size_t Platform::kernelWorkGroupLimit(cl_kernel kernel) const {
  // The occupancy calculator's limit: the block's registers within the SM's per-block register
  // file, in whole warps; .maxntid/.reqntid; the device's largest block.
  const arch::ComputeCapability &c = cc();
  int limit = c.maxThreadsPerBlock;
  const int registers = static_cast<int>(kernelRegisters(kernel));
  if (registers > 0)
    limit = std::min(limit, c.maxRegistersPerBlock / registers / c.warpSize * c.warpSize);
  for (const ptx::PerfDirective &d : kernel->function->source->directives)
    if (d.kind == ptx::PerfDirectiveKind::MaxNTid || d.kind == ptx::PerfDirectiveKind::ReqNTid) {
      uint64_t product = 1;
      for (uint32_t v : d.values)
        product *= v;
      limit = std::min<int>(limit, static_cast<int>(product));
    }
  return static_cast<size_t>(std::max(limit, 1));
}

cl_int Platform::launch(cl_command_queue queue, cl_kernel kernel, const vm::LaunchConfig &config,
                        const std::vector<std::vector<std::byte>> &arguments,
                        const std::vector<std::pair<cl_mem, size_t>> &constants, double &seconds) {
  const vm::LoadedModule &module = *kernel->program->module;
  // __constant buffers: copied into the module's constant bank, where the kernel reads them.
  for (const auto &[memory, offset] : constants) {
    if (!memory)
      continue;
    const uint64_t at = module.constantBankAddress() + offset;
    std::memcpy(bytes(at, memory->size), bytes(memory->address, memory->size), memory->size);
    wrote(at, memory->size);
  }
  tools_->beforeLaunch(queue->profiling());
  vm::LaunchOptions options;
  options.threads = config_.threads;
  options.maxInstructions = config_.maxInstructions;
  tools_->configure(options, kernel->function->name);
  const auto start = std::chrono::steady_clock::now();
  vm::LaunchResult result = gpu_->launch(module, kernel->function->name, config, arguments, options);
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (result.status == vm::LaunchStatus::Refused) {
    std::fflush(stdout);
    std::cerr << fmt::format("ptxray: clEnqueueNDRangeKernel: launch of {} refused: {}\n", kernel->function->name,
                             result.error);
    return result.refusal == vm::Refusal::InvalidConfiguration ? CL_INVALID_WORK_GROUP_SIZE : CL_OUT_OF_RESOURCES;
  }
  session::printDeviceOutput(result, {std::cout, tools_->toolStream(), tools_->names()});
  const std::optional<double> modeled = tools_->afterLaunch(result, kernel->function->name, {0, queue->stream});
  seconds = modeled.value_or(wall);
  if (!result.ok()) {
    // As on the GPU, the context is lost: this and every later command fails. The program sees only
    // the error code; the user is told where (memcheck has already reported every fault).
    sticky_ = CL_OUT_OF_RESOURCES;
    if (!tools_->memcheck()) {
      std::fflush(stdout);
      std::cerr << fmt::format("ptxray: kernel {} failed: {}; the context is lost: this and every later command "
                               "ends with CL_OUT_OF_RESOURCES (--tool memcheck reports every fault)\n",
                               kernel->function->name, result.error);
    }
    if (kernel->program->context->notify) {
      auto *message = keepAlive_
                          .emplace_back(std::make_unique<std::string>(
                              fmt::format("ptxray: kernel {} faulted: {}", kernel->function->name, result.error)))
                          .get();
      addCallback([c = kernel->program->context, message] { c->notify(message->c_str(), nullptr, 0, c->notifyData); });
    }
    return sticky_;
  }
  return CL_SUCCESS;
}

} // namespace ptxray::opencl
