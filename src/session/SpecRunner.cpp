// Running a run spec (`ptxray run SPEC.json`) on a fresh vm::Device: buffers set up and filled in
// parallel, host operations (copies, memsets, launches) executed in issue order, outputs written.
#include "session/RunSpec.h"

#include "ptx/Demangle.h"
#include "session/SpecJson.h"
#include "support/InputFile.h"
#include "support/OutputFile.h"
#include "support/ParallelSlices.h"

#include "arch/GpuDatabase.h"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <fstream>
#include <limits>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace ptxray::session {

using namespace specjson;

bool RunOutcome::ok() const {
  if (!error.empty())
    return false;
  return std::all_of(launches.begin(), launches.end(), [](const LaunchReport &r) { return r.result.ok(); });
}

namespace {

/// Generators and file loads fill slices of at least this many bytes each on their own thread.
constexpr uint64_t kFillGrainBytes = uint64_t{1} << 20;

/// Reads a whole file into `dst` and zeroes the rest of it: a regular file with one pread per slice, in
/// parallel; anything else (a pipe, /dev/stdin) in order. Returns an error message.
std::string loadFile(const std::filesystem::path &file, std::span<std::byte> dst, const std::string &bufferName,
                     unsigned threads) {
  int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    support::throwInputFileError(file.string(), errno);
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  auto tooLarge = [&](uint64_t size) {
    return fmt::format("\"{}\" has {} bytes, more than the {} of buffer \"{}\"", file.string(), size, dst.size(),
                       bufferName);
  };
  auto readError = [&] { support::throwInputFileError(file.string(), errno); };
  struct stat st {};
  if (::fstat(fd, &st) != 0)
    readError();
  if (S_ISDIR(st.st_mode))
    support::throwInputFileError(file.string(), EISDIR);
  if (!S_ISREG(st.st_mode)) {
    uint64_t at = 0;
    while (true) {
      std::byte spare;
      std::byte *to = at < dst.size() ? dst.data() + at : &spare;
      ssize_t got = ::read(fd, to, at < dst.size() ? dst.size() - at : 1);
      if (got < 0 && errno == EINTR)
        continue;
      if (got < 0)
        readError();
      if (got == 0)
        break;
      if (at >= dst.size())
        return fmt::format("\"{}\" has more than the {} bytes of buffer \"{}\"", file.string(), dst.size(), bufferName);
      at += static_cast<uint64_t>(got);
    }
    std::memset(dst.data() + at, 0, dst.size() - at);
    return {};
  }
  auto size = static_cast<uint64_t>(st.st_size);
  if (size > dst.size())
    return tooLarge(size);
  std::atomic<bool> failed{false};
  support::parallelSlices(size, kFillGrainBytes, threads, [&](uint64_t first, uint64_t last) {
    while (first < last && !failed.load(std::memory_order_relaxed)) {
      ssize_t got = ::pread(fd, dst.data() + first, last - first, static_cast<off_t>(first));
      if (got <= 0) { // an error, or the file shrank while being read
        if (got < 0 && errno == EINTR)
          continue;
        failed = true;
        return;
      }
      first += static_cast<uint64_t>(got);
    }
  });
  if (failed)
    throw support::InputFileError(file.string(), support::InputProblem::Unreadable, "the read failed");
  // A shorter file is zero-padded (a module variable's range still holds the module's values).
  std::memset(dst.data() + size, 0, dst.size() - size);
  return {};
}

} // namespace

void writeInitialContents(const RunSpec &spec, const SpecBuffer &buffer, std::span<std::byte> dst, unsigned threads) {
  auto *raw = reinterpret_cast<uint8_t *>(dst.data());
  const BufferInit &init = buffer.init;
  std::string path = member(buffer.path, "init");
  switch (init.kind) {
  case BufferInit::Kind::Keep:
  case BufferInit::Kind::None: return;
  case BufferInit::Kind::Zero: std::memset(raw, 0, dst.size()); return;
  case BufferInit::Kind::File: {
    std::string error = loadFile(init.file, dst, buffer.name, threads);
    if (!error.empty())
      throw SpecError(spec.name, path, error);
    return;
  }
  case BufferInit::Kind::Iota:
  case BufferInit::Kind::Random: break;
  }
  // The generators: checked once on an empty slice, then filled in slices of whole elements. Every
  // slice is written, so the bytes are the same as one serial fill's whatever the thread count.
  const size_t elements = elementCount(dst.size(), init.dtype);
  auto fill = [&](size_t first, size_t last) -> std::string {
    if (init.kind == BufferInit::Kind::Iota) {
      fillIotaSlice(raw, dst.size(), init.dtype, first, last);
      return {};
    }
    return isFloat(init.dtype)
               ? fillRandomFloatSlice(raw, dst.size(), init.dtype, init.seed, init.minValue, init.maxValue, first, last)
               : fillRandomIntSlice(raw, dst.size(), init.dtype, init.seed, init.minBits, init.maxBits, first, last);
  };
  if (std::string err = fill(0, 0); !err.empty())
    throw SpecError(spec.name, init.kind == BufferInit::Kind::Random ? member(path, "random") : path, err);
  if (elements == 0) {
    std::memset(raw, 0, dst.size()); // a buffer shorter than one element is all tail
    return;
  }
  support::parallelSlices(elements, kFillGrainBytes / dtypeSize(init.dtype), threads,
                          [&](uint64_t first, uint64_t last) { fill(first, last); });
}

// ---------------------------------------------------------------------------------------------
// Running

namespace {

struct PlacedBuffer {
  const SpecBuffer *spec = nullptr;
  uint64_t address = 0; ///< device buffers
  uint64_t bytes = 0;
  std::vector<std::byte> host; ///< host buffers
};

/// The module's kernels as a user recognizes them: the C++ name, with the PTX name a spec or --kernel
/// takes in brackets when it differs ("saxpy(int, float*) [_Z5saxpyiPf]").
std::string kernelList(const vm::LoadedModule &module) {
  std::string list;
  for (const vm::DecodedFunction &f : module.program().functions)
    if (f.isEntry) {
      const std::string shown = ptx::demangle(f.name);
      list += (list.empty() ? "" : ", ") + (shown == f.name ? f.name : fmt::format("{} [{}]", shown, f.name));
    }
  return list.empty() ? "none" : list;
}

const vm::DecodedFunction *resolveKernel(const Checker &c, const vm::LoadedModule &module, const SpecLaunch &l) {
  if (!l.kernel.empty()) {
    if (const vm::DecodedFunction *k = module.findKernel(l.kernel))
      return k;
    c.fail(member(l.path, "kernel"),
           fmt::format("the module has no kernel \"{}\" (kernels: {})", l.kernel, kernelList(module)));
  }
  const vm::DecodedFunction *only = nullptr;
  size_t count = 0;
  for (const vm::DecodedFunction &f : module.program().functions)
    if (f.isEntry) {
      only = &f;
      ++count;
    }
  if (count != 1)
    c.fail(member(l.path, "kernel"),
           count == 0
               ? std::string("the module has no kernel (.entry) to launch")
               : fmt::format("the module has {} kernels, so the launch must name one: {}", count, kernelList(module)));
  return only;
}

void writeFile(const std::filesystem::path &file, std::span<const std::byte> data) {
  std::error_code ec;
  if (file.has_parent_path())
    std::filesystem::create_directories(file.parent_path(), ec);
  support::writeOutputFile(file, {reinterpret_cast<const char *>(data.data()), data.size()});
}

} // namespace

arch::ArchTarget RunOptions::defaultTarget() {
  return *arch::findArch("sm_90").target;
}

RunOutcome runSpec(const RunSpec &spec, const RunOptions &options) {
  const arch::ArchTarget &target = options.target;
  vm::Device device(*target.computeCapability, target.gpu ? target.gpu->smCount : 0, target.gpu);
  device.setListener(options.listener);
  Checker c(spec.name);

  std::vector<std::string> modules{spec.module.string()};
  for (const std::filesystem::path &p : spec.linkedModules)
    modules.push_back(p.string());
  for (const std::string &path : modules)
    support::checkInputFile(path);
  vm::LoadedModule &module = device.loadModuleFiles(modules, options.keepPtxDirectory, spec.buildOptions);
  const unsigned pointerBytes = module.ptx().pointerBits() / 8;
  if (options.onModuleWarning)
    for (const std::string &warning : module.warnings())
      options.onModuleWarning(warning);

  // Everything the module can tell us is wrong, before anything runs.
  std::vector<PlacedBuffer> placed;
  for (const SpecBuffer &b : spec.buffers) {
    PlacedBuffer p{&b, 0, b.bytes, {}};
    if (!b.symbol.empty()) {
      const vm::PlacedVariable *v = module.findVariable(b.symbol);
      if (!v || (v->space != ptx::StateSpace::Global && v->space != ptx::StateSpace::Const))
        c.fail(member(b.path, "symbol"), fmt::format("the module has no .global or .const variable \"{}\"", b.symbol));
      p.address = module.deviceAddress(*v);
      p.bytes = v->size;
    }
    placed.push_back(p);
  }
  // placed[i] is spec.buffers[i]'s: found by the spec's index of names, not a scan per operation.
  auto placedOf = [&](std::string_view name) -> PlacedBuffer & {
    const SpecBuffer *b = spec.findBuffer(name);
    if (!b)
      throw std::logic_error("runSpec: buffer vanished"); // parseRunSpec checked every name
    return placed[static_cast<size_t>(b - spec.buffers.data())];
  };
  // A spec built in code may list launches only: they run in order on the default stream.
  std::vector<SpecOperation> launchList;
  if (spec.operations.empty())
    for (size_t i = 0; i < spec.launches.size(); ++i) {
      SpecOperation op;
      op.kind = SpecOperation::Kind::Launch;
      op.launch = i;
      op.path = spec.launches[i].path;
      launchList.push_back(std::move(op));
    }
  const std::vector<SpecOperation> &operations = spec.operations.empty() ? launchList : spec.operations;
  // Copies and memsets on module variables: their extents are known now.
  for (const SpecOperation &op : operations) {
    if (op.kind == SpecOperation::Kind::Launch && op.launch >= spec.launches.size())
      c.fail(op.path,
             fmt::format("refers to launch {}, but the spec has {} launches", op.launch, spec.launches.size()));
    auto within = [&](const std::string &name, uint64_t offset, uint64_t span) {
      const PlacedBuffer &p = placedOf(name);
      if (offset > p.bytes || span > p.bytes - offset)
        c.fail(op.path, fmt::format("{} bytes at offset {} run past the end of buffer \"{}\" ({} bytes)", span, offset,
                                    name, p.bytes));
    };
    if (op.kind == SpecOperation::Kind::Memcpy2D && op.height > 0) {
      within(op.src, op.srcOffset, (op.height - 1) * op.srcPitch + op.width);
      within(op.dst, op.dstOffset, (op.height - 1) * op.dstPitch + op.width);
    } else if (op.isCopy()) {
      within(op.src, op.srcOffset, op.bytes);
      within(op.dst, op.dstOffset, op.bytes);
    } else if (op.kind == SpecOperation::Kind::Memset)
      within(op.dst, op.dstOffset, op.bytes);
  }
  std::vector<const vm::DecodedFunction *> kernels;
  struct LocalLayout {
    std::vector<uint64_t> offsets; ///< per argument: where a __local argument's bytes start
    uint64_t dynamicBytes = 0;     ///< the launch's dynamic shared memory, __local arguments included
  };
  std::vector<LocalLayout> localLayouts;
  for (const SpecLaunch &l : spec.launches) {
    const vm::DecodedFunction *k = resolveKernel(c, module, l);
    kernels.push_back(k);
    if (l.args.size() != k->paramSizes.size())
      c.fail(member(l.path, "args"),
             fmt::format("kernel {} takes {} parameter{}, {} given", k->name, k->paramSizes.size(),
                         k->paramSizes.size() == 1 ? "" : "s", l.args.size()));
    for (size_t i = 0; i < l.args.size(); ++i) {
      const SpecArg &a = l.args[i];
      uint64_t size = a.isBuffer || a.isLocal ? pointerBytes : a.bytes.size();
      if (size != k->paramSizes[i]) {
        std::string what = a.isBuffer || a.isLocal
                               ? fmt::format("a pointer is {} bytes in this {}-bit module", size, pointerBytes * 8)
                               : fmt::format("the {} argument is {}", a.type, size);
        c.fail(a.path, fmt::format("parameter {} of {} is {} bytes; {}", i, k->name, k->paramSizes[i], what));
      }
      if (a.isBuffer) {
        const PlacedBuffer &p = placedOf(a.buffer);
        if (a.offset > p.bytes)
          c.fail(member(a.path, "offset"),
                 fmt::format("offset {} is past the end of buffer \"{}\" ({} bytes)", a.offset, a.buffer, p.bytes));
      }
    }
    // OpenCL __local arguments: after the work-group's static local memory and any dynamic bytes
    // the launch asks for, each aligned to the largest power of two (up to 128, OpenCL's largest
    // vector) that divides its size, so that every element type the size can hold is aligned.
    LocalLayout layout;
    uint64_t end = k->staticSharedBytes + l.dynamicSharedBytes;
    for (const SpecArg &a : l.args) {
      if (!a.isLocal) {
        layout.offsets.push_back(0);
        continue;
      }
      const uint64_t align = std::min<uint64_t>(a.localBytes & (~a.localBytes + 1), 128);
      const uint64_t at = (end + align - 1) / align * align;
      end = at + a.localBytes;
      layout.offsets.push_back(at);
    }
    layout.dynamicBytes = end - k->staticSharedBytes;
    if (layout.dynamicBytes > std::numeric_limits<uint32_t>::max())
      c.fail(l.path, fmt::format("{} bytes of dynamic shared (local) memory per block", layout.dynamicBytes));
    localLayouts.push_back(std::move(layout));
  }

  // vm::Device memory and initial contents.
  for (PlacedBuffer &p : placed) {
    const SpecBuffer &b = *p.spec;
    if (b.onHost()) { // host memory: the program's own; only copies reach it
      p.host.resize(p.bytes);
      if (b.init.kind != BufferInit::Kind::Zero)
        writeInitialContents(spec, b, p.host, options.launch.threads);
      continue;
    }
    if (b.symbol.empty())
      p.address = device.allocate(std::max<uint64_t>(p.bytes, 1), fmt::format("buffer {} ({} bytes)", b.name, p.bytes));
    if (b.init.kind == BufferInit::Kind::Keep || b.init.kind == BufferInit::Kind::None || p.bytes == 0)
      continue;
    if (b.init.kind == BufferInit::Kind::Zero && b.symbol.empty()) {
      device.hostWriteRange(p.address, p.bytes); // a new allocation is zero already: only mark it written
      continue;
    }
    // Filled in place, in parallel: a large buffer's preparation must not serialize the run.
    writeInitialContents(spec, b, device.hostWriteRange(p.address, p.bytes), options.launch.threads);
  }

  // The bytes of [offset, offset + bytes) of a buffer, wherever it lives: copies read and write
  // through these, so device memory sees host writes the way initcheck tracks them.
  auto source = [&](const std::string &name, uint64_t offset, uint64_t bytes) -> const std::byte * {
    PlacedBuffer &p = placedOf(name);
    if (p.spec->onHost())
      return p.host.data() + offset;
    return device.memory().hostRange(p.address + offset, bytes);
  };
  auto destination = [&](const std::string &name, uint64_t offset, uint64_t bytes) -> std::byte * {
    PlacedBuffer &p = placedOf(name);
    if (p.spec->onHost())
      return p.host.data() + offset;
    return device.hostWriteRange(p.address + offset, bytes).data();
  };

  RunOutcome outcome;
  bool failed = false;
  for (const SpecOperation &op : operations) {
    if (failed)
      break;
    ++outcome.operationsRun;
    switch (op.kind) {
    case SpecOperation::Kind::MemcpyH2D:
    case SpecOperation::Kind::MemcpyD2H:
    case SpecOperation::Kind::MemcpyD2D:
      if (op.bytes)
        std::memmove(destination(op.dst, op.dstOffset, op.bytes), source(op.src, op.srcOffset, op.bytes), op.bytes);
      continue;
    case SpecOperation::Kind::Memcpy2D:
      for (uint64_t row = 0; row < op.height && op.width; ++row)
        std::memmove(destination(op.dst, op.dstOffset + row * op.dstPitch, op.width),
                     source(op.src, op.srcOffset + row * op.srcPitch, op.width), op.width);
      continue;
    case SpecOperation::Kind::Memset:
      if (op.bytes)
        device.memset(placedOf(op.dst).address + op.dstOffset, op.value, op.bytes);
      continue;
    case SpecOperation::Kind::Launch: break;
    // Ordering only: every operation runs to completion when issued, so the results are those of
    // any order the streams allow (the timing is the system model's, src/system).
    case SpecOperation::Kind::EventRecord:
    case SpecOperation::Kind::StreamWaitEvent:
    case SpecOperation::Kind::StreamSynchronize:
    case SpecOperation::Kind::Synchronize: continue;
    }
    const size_t i = op.launch;
    const SpecLaunch &l = spec.launches[i];
    std::vector<std::vector<std::byte>> args;
    const LocalLayout &layout = localLayouts[i];
    for (size_t arg = 0; arg < l.args.size(); ++arg) {
      const SpecArg &a = l.args[arg];
      if (a.isLocal) {
        args.push_back(littleEndian(layout.offsets[arg], pointerBytes));
        continue;
      }
      if (!a.isBuffer) {
        args.push_back(a.bytes);
        continue;
      }
      uint64_t address = placedOf(a.buffer).address + a.offset;
      if (pointerBytes == 4 && address > std::numeric_limits<uint32_t>::max())
        c.fail(a.path, fmt::format("address 0x{:x} does not fit a 32-bit pointer", address));
      args.push_back(littleEndian(address, pointerBytes));
    }
    LaunchReport report;
    report.index = i;
    report.kernel = l.kernel.empty() ? kernels[i]->name : l.kernel;
    report.grid = l.grid;
    report.block = l.block;
    auto start = std::chrono::steady_clock::now();
    vm::LaunchConfig config{l.grid, l.block, static_cast<uint32_t>(layout.dynamicBytes), l.cooperative};
    config.globalOffset = l.globalOffset;
    config.workDim = l.workDim;
    report.result = device.launch(module, kernels[i]->name, config, args, options.launch);
    report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    outcome.printfOutput += report.result.printfOutput;
    failed = !report.result.ok();
    outcome.launches.push_back(std::move(report));
    if (options.onLaunch)
      options.onLaunch(outcome.launches.back());
  }

  auto contents = [&](const PlacedBuffer &p) {
    if (p.spec->onHost())
      return p.host;
    std::vector<std::byte> data(p.bytes);
    if (!p.spec->symbol.empty())
      device.readVariable(module, p.spec->symbol, data);
    else if (!data.empty())
      device.copyFromDevice(data, p.address);
    return data;
  };
  if (!failed && options.writeOutputs) {
    for (const SpecOutput &o : spec.outputs) {
      try {
        writeFile(o.file, contents(placedOf(o.buffer)));
        outcome.outputsWritten.push_back(o.file);
      } catch (const std::exception &e) {
        outcome.error += (outcome.error.empty() ? "" : "\n") + std::string(e.what());
      }
    }
  }
  if (options.keepBuffers)
    for (const PlacedBuffer &p : placed)
      outcome.buffers[p.spec->name] = contents(p);
  return outcome;
}

} // namespace ptxray::session
