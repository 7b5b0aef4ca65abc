#include "vm/Device.h"

#include "abi/CudaRuntimeAbi.h"
#include "abi/SystemCalls.h"
#include "arch/OccupancyCalculator.h"
#include "ptx/Demangle.h"
#include "ptx/Parser.h"
#include "ptx/RegisterPressure.h"
#include "ptx/Verifier.h"
#include "support/InputFile.h"
#include "support/OutputFile.h"
#include "toolchain/Compilers.h"
#include "vm/Decoder.h"
#include "vm/Interpreter.h"
#include "vm/Scheduler.h"
#include "vm/SystemCalls.h"
#include "vm/Texture.h"
#include "vm/WorkerPool.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <sstream>
#include <thread>
#include <tuple>
#include <unistd.h>

namespace ptxray::vm {

namespace {

constexpr uint64_t kDefaultInstructionBudget = 10'000'000'000ull;
/// One warp may issue this share of the thread-instruction budget as warp-instructions: 1.25 billion by
/// default, about 10 s of one spinning thread at the VM's 110 million warp-instructions a second
/// (README, "Runaway kernels").
constexpr uint64_t kWarpBudgetShare = 8;

uint64_t alignUp(uint64_t v, uint64_t a) {
  return a <= 1 ? v : (v + a - 1) / a * a;
}

uint32_t alignOf(const ptx::Variable &v) {
  return v.align ? v.align : std::max<uint32_t>(v.naturalAlign(), 1);
}

std::string readFile(const std::string &path) {
  return support::readInputFile(path);
}

} // namespace

// ---------------------------------------------------------------------------------------------
// LoadedModule

const PlacedVariable *LoadedModule::findVariable(std::string_view name) const {
  for (const PlacedVariable &v : program_.variables)
    if (v.name == name)
      return &v;
  for (const PlacedVariable &v : program_.variables)
    if (ptx::demangle(v.name) == name)
      return &v;
  return nullptr;
}

const DecodedFunction *LoadedModule::findKernel(std::string_view name) const {
  for (const DecodedFunction &f : program_.functions)
    if (f.isEntry && f.name == name)
      return &f;
  const DecodedFunction *found = nullptr;
  std::string candidates;
  for (const DecodedFunction &f : program_.functions) {
    if (!f.isEntry)
      continue;
    std::string d = ptx::demangle(f.name);
    auto paren = d.find('(');
    if (d == name || (paren != std::string::npos && std::string_view(d).substr(0, paren) == name)) {
      candidates += fmt::format("\n  {} ({})", d, f.name);
      if (found)
        throw VmError(
            fmt::format("{}: kernel name {} is ambiguous; use the mangled name of one of:{}", name_, name, candidates));
      found = &f;
    }
  }
  return found;
}

uint64_t LoadedModule::deviceAddress(const PlacedVariable &v) const {
  return v.space == ptx::StateSpace::Const ? constBank_ + v.address : v.address;
}

// ---------------------------------------------------------------------------------------------
// Device

Device::Device(const arch::ComputeCapability &cc, int smCount, const arch::Gpu *board)
    : cc_(cc), smCount_(std::max(smCount, 1)), board_(board), textures_(std::make_unique<TextureTable>()),
      workers_(std::make_unique<WorkerPool>()) {
  textures_->setMemory(&memory_);
}

Device::~Device() = default;

namespace {
/// A module file's PTX: read, or compiled from a source (written to `keepPtxDirectory` when given).
ptx::LinkInput moduleFileInput(const std::string &path, int sm, const std::string &keepPtxDirectory,
                               const std::vector<std::string> &buildOptions, bool relocatable) {
  std::optional<toolchain::CompiledModule> compiled;
  try {
    compiled = toolchain::compileModuleFile(path, sm, buildOptions, relocatable);
  } catch (const toolchain::CompileError &e) {
    throw VmError(e.what());
  }
  if (!compiled) {
    if (!buildOptions.empty())
      throw VmError(fmt::format("{}: build options are for OpenCL C sources", path));
    return {path, readFile(path)};
  }
  std::filesystem::path ptxPath = compiled->name;
  if (!keepPtxDirectory.empty()) {
    ptxPath = std::filesystem::path(keepPtxDirectory) / ptxPath.filename();
    try {
      support::writeOutputFile(ptxPath, compiled->ptx);
    } catch (const support::OutputFileError &e) {
      throw VmError(e.what());
    }
  }
  return {ptxPath.lexically_normal().string(), std::move(compiled->ptx)};
}
} // namespace

LoadedModule &Device::loadModuleFile(const std::string &path, const std::string &keepPtxDirectory,
                                     const std::vector<std::string> &buildOptions) {
  ptx::LinkInput in = moduleFileInput(path, cc_.major * 10 + cc_.minor, keepPtxDirectory, buildOptions, false);
  return loadModule(std::move(in.name), std::move(in.text));
}

LoadedModule &Device::loadModuleFiles(const std::vector<std::string> &paths, const std::string &keepPtxDirectory,
                                      const std::vector<std::string> &buildOptions) {
  if (paths.size() == 1)
    return loadModuleFile(paths[0], keepPtxDirectory, buildOptions);
  std::vector<ptx::LinkInput> inputs;
  std::string name;
  for (const std::string &path : paths) {
    inputs.push_back(moduleFileInput(path, cc_.major * 10 + cc_.minor, keepPtxDirectory, buildOptions, true));
    name += fmt::format("{}{}", name.empty() ? "" : "+", std::filesystem::path(inputs.back().name).filename().string());
  }
  return loadLinkedModules(std::move(name), std::move(inputs));
}

void Device::noteFeaturesBeyondGpu(LoadedModule &loaded) const {
  const ptx::Module &m = *loaded.ptx_;
  const auto modeledSm = static_cast<uint32_t>(cc_.major * 10 + cc_.minor);
  // A newer .target alone says nothing: studying sm_90 PTX on a modeled Kepler is what `compare` and
  // `--arch` are for. An instruction the modeled GPU does not have makes the run one no such GPU
  // could make, and is named.
  const std::vector<ptx::FeatureBeyondTarget> features = ptx::featuresBeyond(m, modeledSm);
  constexpr size_t kListed = 5;
  for (size_t i = 0; i < features.size() && i < kListed; ++i)
    loaded.warnings_.push_back(fmt::format("{}: {} needs sm_{} or higher; the modeled GPU is sm_{}",
                                           m.sources.position(features[i].firstUse), features[i].feature,
                                           features[i].minSm, modeledSm));
  if (features.size() > kListed)
    loaded.warnings_.push_back(fmt::format("{}: {} more instructions the modeled GPU (sm_{}) does not have",
                                           loaded.name_, features.size() - kListed, modeledSm));
}

bool Device::providedByDriver(std::string_view function) {
  return abi::findDriverFunction(function, 64) || abi::findDriverFunction(function, 32);
}

LoadedModule &Device::loadModule(std::string name, std::string ptxText, uint64_t constantArgumentBytes) {
  std::vector<ptx::LinkInput> inputs;
  inputs.push_back({name, std::move(ptxText)});
  return loadLinkedModules(std::move(name), std::move(inputs), constantArgumentBytes);
}

LoadedModule &Device::loadLinkedModules(std::string name, std::vector<ptx::LinkInput> inputs,
                                        uint64_t constantArgumentBytes) {
  if (inputs.empty())
    throw VmError(fmt::format("{}: no modules to link", name));
  ptx::LinkOptions link;
  link.providedByDriver = providedByDriver;
  ptx::ParseResult parsed = ptx::linkModules(std::move(inputs), {}, link);
  if (!parsed.ok())
    throw VmError(parsed.diagnostics.render(parsed.module->sources));
  auto loaded = std::make_unique<LoadedModule>();
  loaded->name_ = name;
  loaded->ptx_ = std::move(parsed.module);
  const ptx::Module &m = *loaded->ptx_;
  Program &program = loaded->program_;
  program.module = &m;

  // Place variables: .global in device memory, .const in the module's constant bank. Shared
  // variables have an offset per kernel (ptx/SharedLayout.h), given to the decoder per kernel; the
  // placement here (every shared variable in turn) only serves code no kernel can reach.
  std::vector<SymbolPlacement> placement(m.symbols.size());
  // Linked modules: the declarations of a variable another module defines are symbols of that
  // variable, placed once.
  std::vector<uint32_t> symbolPlacing(m.variables.size(), kNoSlot);
  uint64_t constBytes = 0, unreachableShared = 0;
  for (uint32_t s = 0; s < m.symbols.size(); ++s) {
    const ptx::Symbol &sym = m.symbols[s];
    if (sym.kind == ptx::SymbolKind::Function) {
      placement[s] = {SymbolPlacement::Kind::Function, kFunctionWindow + kFunctionStride * sym.index, kNoSlot};
      continue;
    }
    if (sym.kind != ptx::SymbolKind::Variable)
      continue;
    if (sym.function == ptx::kNone && sym.index < symbolPlacing.size()) {
      if (symbolPlacing[sym.index] != kNoSlot) {
        placement[s] = placement[symbolPlacing[sym.index]];
        continue;
      }
      symbolPlacing[sym.index] = s;
    }
    const ptx::Variable &v = m.variables[sym.index];
    PlacedVariable pv;
    pv.variable = sym.index;
    pv.name = std::string(sym.name);
    pv.space = v.space;
    pv.size = v.sizeInBytes();
    switch (v.space) {
    case ptx::StateSpace::Tex:
      placement[s] = {SymbolPlacement::Kind::Global, textures_->registerModuleReference(m, s), kNoSlot};
      continue;
    case ptx::StateSpace::Global: {
      if (ptx::typeInfo(v.type).kind == ptx::TypeKind::Opaque) {
        // .texref/.samplerref/.surfref: the operand is the reference's handle.
        placement[s] = {SymbolPlacement::Kind::Global, textures_->registerModuleReference(m, s), kNoSlot};
        continue;
      }
      const bool managed = v.attribute.find(".managed") != std::string_view::npos;
      auto addr = managed && managedPlacer_
                      ? managedPlacer_(std::max<uint64_t>(pv.size, 1),
                                       fmt::format("__managed__ variable {} ({} bytes)", sym.name, pv.size))
                      : memory_.allocate(std::max<uint64_t>(pv.size, 1), AllocationKind::ModuleGlobal,
                                         fmt::format("module variable {} ({} bytes)", sym.name, pv.size));
      if (!addr)
        throw VmError(fmt::format("{}: out of device memory placing {}", name, sym.name));
      pv.address = *addr;
      placement[s] = {SymbolPlacement::Kind::Global, pv.address, kNoSlot};
      break;
    }
    case ptx::StateSpace::Const:
      constBytes = alignUp(constBytes, alignOf(v));
      pv.address = constBytes;
      constBytes += pv.size;
      placement[s] = {SymbolPlacement::Kind::Const, pv.address, kNoSlot};
      break;
    case ptx::StateSpace::Shared:
      unreachableShared = alignUp(unreachableShared, alignOf(v));
      placement[s] = {SymbolPlacement::Kind::Shared, unreachableShared, kNoSlot};
      unreachableShared += pv.size;
      continue;
    default: continue; // registers, .local/.param (frames, placed by the decoder)
    }
    program.variables.push_back(std::move(pv));
  }
  if (constantArgumentBytes) {
    constBytes = alignUp(constBytes, 256);
    loaded->constArgumentsOffset_ = constBytes;
    constBytes += constantArgumentBytes;
  } else {
    loaded->constArgumentsOffset_ = constBytes;
  }
  if (constBytes) {
    auto bank = memory_.allocate(constBytes, AllocationKind::ModuleConst,
                                 fmt::format("constant bank of {} ({} bytes)", name, constBytes));
    if (!bank)
      throw VmError(fmt::format("{}: out of device memory for the constant bank", name));
    loaded->constBank_ = *bank;
    loaded->constBankBytes_ = constBytes;
  }
  program.constBankBase = loaded->constBank_;

  // Initializers, now that every symbol has an address.
  auto symbolAddress = [&](uint32_t s, bool generic) -> uint64_t {
    const SymbolPlacement &p = placement[s];
    switch (p.kind) {
    case SymbolPlacement::Kind::Const: return loaded->constBank_ + p.address;
    case SymbolPlacement::Kind::Shared: return generic ? kSharedWindow + p.address : p.address;
    default: return p.address;
    }
  };
  for (const PlacedVariable &pv : program.variables) {
    const ptx::Variable &v = m.variables[pv.variable];
    if (v.init.empty() || (v.space != ptx::StateSpace::Global && v.space != ptx::StateSpace::Const))
      continue;
    uint64_t base = loaded->deviceAddress(pv);
    std::byte *host = memory_.hostRange(base, pv.size);
    if (!host)
      continue;
    uint64_t elementBytes = std::max<uint64_t>(ptx::typeInfo(v.type).bits / 8, 1);
    uint64_t at = 0;
    for (const ptx::InitItem &item : v.init) {
      uint64_t bits = 0;
      switch (item.kind) {
      case ptx::InitItem::Kind::Int:
        bits = static_cast<uint64_t>(item.value);
        if (ptx::typeInfo(v.type).kind == ptx::TypeKind::Float) {
          // An integer written for a float element is a value, not bits.
          bits = elementBytes == 8 ? std::bit_cast<uint64_t>(static_cast<double>(item.value))
                                   : std::bit_cast<uint32_t>(static_cast<float>(item.value));
        }
        break;
      case ptx::InitItem::Kind::Float32:
        bits = static_cast<uint64_t>(item.value);
        if (elementBytes == 8)
          bits = std::bit_cast<uint64_t>(static_cast<double>(std::bit_cast<float>(static_cast<uint32_t>(bits))));
        break;
      case ptx::InitItem::Kind::Float64:
        bits = static_cast<uint64_t>(item.value);
        if (elementBytes == 4)
          bits = std::bit_cast<uint32_t>(static_cast<float>(std::bit_cast<double>(bits)));
        break;
      case ptx::InitItem::Kind::Symbol:
      case ptx::InitItem::Kind::GenericSymbol:
        bits = symbolAddress(item.symbol, item.kind == ptx::InitItem::Kind::GenericSymbol) +
               static_cast<uint64_t>(item.value);
        break;
      default: continue; // braces, texture properties
      }
      if (at + elementBytes > pv.size)
        break;
      std::memcpy(host + at, &bits, elementBytes);
      at += elementBytes;
    }
  }

  decodeProgram(program, placement);
  noteFeaturesBeyondGpu(*loaded);
  modules_.push_back(std::move(loaded));
  return *modules_.back();
}

uint64_t Device::allocate(uint64_t bytes, std::string label) {
  if (label.empty())
    label = fmt::format("allocation of {} bytes", bytes);
  auto a = memory_.allocate(bytes, AllocationKind::Device, std::move(label));
  if (!a) {
    // Say which limit it was: the memory budget behind the device memory, or the VM's address window.
    const uint64_t budget = support::memoryBudget(), inUse = support::memoryInUse();
    if (bytes > budget || inUse > budget - bytes)
      throw VmError(fmt::format("out of device memory allocating {} bytes: {} of the {} memory budget {} in use "
                                "(--max-memory, PTXRAY_MAX_MEMORY)",
                                bytes, support::memorySizeText(inUse), support::memorySizeText(budget),
                                inUse == 1 ? "is" : "are"));
    throw VmError(fmt::format("out of device memory allocating {} bytes", bytes));
  }
  return *a;
}

void Device::free(uint64_t address) {
  const Allocation *a = memory_.find(address);
  if (!a || a->base != address || a->kind != AllocationKind::Device || !memory_.release(address))
    throw VmError(fmt::format("free of 0x{:x}: not the start of a live device allocation", address));
}

void Device::copyToDevice(uint64_t address, std::span<const std::byte> data) {
  std::byte *p = memory_.hostRange(address, data.size());
  if (!p)
    throw VmError(fmt::format("copy of {} bytes to 0x{:x}: outside every live allocation", data.size(), address));
  std::memcpy(p, data.data(), data.size());
  memory_.noteHostWrite(address, data.size());
}

void Device::copyFromDevice(std::span<std::byte> data, uint64_t address) const {
  std::byte *p = memory_.hostRange(address, data.size());
  if (!p)
    throw VmError(fmt::format("copy of {} bytes from 0x{:x}: outside every live allocation", data.size(), address));
  std::memcpy(data.data(), p, data.size());
}

void Device::memset(uint64_t address, uint8_t value, uint64_t bytes) {
  std::byte *p = memory_.hostRange(address, bytes);
  if (!p)
    throw VmError(fmt::format("memset of {} bytes at 0x{:x}: outside every live allocation", bytes, address));
  std::memset(p, value, bytes);
  memory_.noteHostWrite(address, bytes);
}

std::span<std::byte> Device::hostWriteRange(uint64_t address, uint64_t bytes) {
  std::byte *p = memory_.hostRange(address, bytes);
  if (!p)
    throw VmError(fmt::format("host write of {} bytes at 0x{:x}: outside every live allocation", bytes, address));
  memory_.noteHostWrite(address, bytes);
  return {p, bytes};
}

void Device::writeVariable(const LoadedModule &module, std::string_view name, std::span<const std::byte> data,
                           uint64_t offset) {
  const PlacedVariable *v = module.findVariable(name);
  if (!v || (v->space != ptx::StateSpace::Global && v->space != ptx::StateSpace::Const))
    throw VmError(fmt::format("{}: no .global or .const variable named {}", module.name(), name));
  if (offset > v->size || data.size() > v->size - offset)
    throw VmError(fmt::format("{}: writing {} bytes at offset {} overruns {} ({} bytes)", module.name(), data.size(),
                              offset, name, v->size));
  std::byte *p = memory_.hostRange(module.deviceAddress(*v) + offset, data.size());
  if (p) {
    std::memcpy(p, data.data(), data.size());
    memory_.noteHostWrite(module.deviceAddress(*v) + offset, data.size());
  }
}

void Device::readVariable(const LoadedModule &module, std::string_view name, std::span<std::byte> data,
                          uint64_t offset) const {
  const PlacedVariable *v = module.findVariable(name);
  if (!v || (v->space != ptx::StateSpace::Global && v->space != ptx::StateSpace::Const))
    throw VmError(fmt::format("{}: no .global or .const variable named {}", module.name(), name));
  if (offset > v->size || data.size() > v->size - offset)
    throw VmError(fmt::format("{}: reading {} bytes at offset {} overruns {} ({} bytes)", module.name(), data.size(),
                              offset, name, v->size));
  std::byte *p = memory_.hostRange(module.deviceAddress(*v) + offset, data.size());
  if (p)
    std::memcpy(data.data(), p, data.size());
}

std::pair<Refusal, std::string> Device::checkLaunch(const LoadedModule &module, const DecodedFunction &kernel,
                                                    const LaunchConfig &config,
                                                    std::span<const std::vector<std::byte>> args) const {
  const Dim3 &b = config.block, &g = config.grid;
  const char *axis = "xyz";
  uint32_t bd[3] = {b.x, b.y, b.z};
  uint32_t gd[3] = {g.x, g.y, g.z};
  for (int i = 0; i < 3; ++i) {
    if (bd[i] == 0 || gd[i] == 0)
      return {Refusal::InvalidConfiguration, "invalid configuration argument: a grid or block dimension is 0"};
    if (bd[i] > static_cast<uint32_t>(cc_.maxBlockDim[i]))
      return {Refusal::InvalidConfiguration,
              fmt::format("invalid configuration argument: blockDim.{} = {} exceeds {} on {}", axis[i], bd[i],
                          cc_.maxBlockDim[i], cc_.smName())};
    if (gd[i] > cc_.maxGridDim[i])
      return {Refusal::InvalidConfiguration,
              fmt::format("invalid configuration argument: gridDim.{} = {} exceeds {} on {}", axis[i], gd[i],
                          cc_.maxGridDim[i], cc_.smName())};
  }
  uint64_t threads = b.count();
  if (threads > static_cast<uint64_t>(cc_.maxThreadsPerBlock))
    return {Refusal::InvalidConfiguration,
            fmt::format("invalid configuration argument: {} threads per block exceed the {} of {}", threads,
                        cc_.maxThreadsPerBlock, cc_.smName())};
  const ptx::Function &src = *kernel.source;
  for (const ptx::PerfDirective &d : src.directives) {
    uint64_t product = 1;
    for (uint32_t v : d.values)
      product *= v;
    if (d.kind == ptx::PerfDirectiveKind::MaxNTid && threads > product)
      return {Refusal::InvalidConfiguration,
              fmt::format("invalid configuration argument: {} threads per block exceed the kernel's .maxntid ({})",
                          threads, product)};
    if (d.kind == ptx::PerfDirectiveKind::ReqNTid) {
      uint32_t want[3] = {1, 1, 1};
      for (size_t i = 0; i < d.values.size() && i < 3; ++i)
        want[i] = d.values[i];
      if (want[0] != b.x || want[1] != b.y || want[2] != b.z)
        return {Refusal::InvalidConfiguration,
                fmt::format("invalid configuration argument: the kernel requires a block of {}x{}x{} (.reqntid)",
                            want[0], want[1], want[2])};
    }
  }
  uint64_t shared = ptx::saturatingAdd(kernel.staticSharedBytes, config.dynamicSharedBytes);
  if (shared > static_cast<uint64_t>(cc_.sharedPerBlockOptIn))
    return {Refusal::OutOfResources,
            fmt::format("too many resources requested for launch: {} bytes of shared memory per block ({} static + {} "
                        "dynamic) exceed the {} of {}",
                        shared, kernel.staticSharedBytes, config.dynamicSharedBytes, cc_.sharedPerBlockOptIn,
                        cc_.smName())};
  // Local memory: the driver refuses a kernel whose per-thread local memory (its frame: .local
  // arrays, spills) exceeds the architecture's limit, before allocating it for the resident threads.
  if (kernel.frameBytes > static_cast<uint64_t>(cc_.maxLocalBytesPerThread))
    return {Refusal::OutOfResources,
            fmt::format("too many resources requested for launch: the kernel needs {} bytes of local memory per "
                        "thread, more than the {} bytes {} allows",
                        kernel.frameBytes, cc_.maxLocalBytesPerThread, cc_.smName())};
  uint32_t regs = kernelRegisters(module, kernel);
  if (uint64_t{regs} * threads > static_cast<uint64_t>(cc_.maxRegistersPerBlock))
    return {Refusal::OutOfResources,
            fmt::format("too many resources requested for launch: {} registers per thread x {} threads exceed the {} "
                        "registers of a block on {}",
                        regs, threads, cc_.maxRegistersPerBlock, cc_.smName())};
  if (config.cooperative) {
    const uint64_t limit = residentCtaLimit(module, kernel, config);
    if (config.grid.count() > limit)
      return {Refusal::CooperativeTooLarge,
              fmt::format("too many blocks in cooperative launch: {} blocks, but at most {} can be resident at once "
                          "({} SMs x {} blocks per SM)",
                          config.grid.count(), limit, smCount_, limit / static_cast<uint64_t>(std::max(smCount_, 1)))};
  }
  if (args.size() != kernel.paramSizes.size())
    return {Refusal::InvalidArgument, fmt::format("invalid argument: {} takes {} parameters, {} given", kernel.name,
                                                  kernel.paramSizes.size(), args.size())};
  for (size_t i = 0; i < args.size(); ++i)
    if (args[i].size() != kernel.paramSizes[i])
      return {Refusal::InvalidArgument,
              fmt::format("invalid argument: parameter {} of {} is {} bytes, the argument is {}", i, kernel.name,
                          kernel.paramSizes[i], args[i].size())};
  return {Refusal::None, {}};
}

uint64_t Device::residentCtaLimit(const LoadedModule &module, const DecodedFunction &kernel,
                                  const LaunchConfig &config) const {
  // checkLaunch refuses blocks the calculator refuses before this is asked.
  const int perSm =
      std::max(activeBlocksPerSm(module, kernel, static_cast<int>(std::min<uint64_t>(config.block.count(), 1u << 30)),
                                 config.dynamicSharedBytes)
                   .value_or(1),
               1);
  return static_cast<uint64_t>(perSm) * static_cast<uint64_t>(std::max(smCount_, 1));
}

std::optional<int> Device::activeBlocksPerSm(const LoadedModule &module, const DecodedFunction &kernel, int blockSize,
                                             uint64_t dynamicSharedBytes) const {
  arch::OccupancyInput in;
  in.threadsPerBlock = blockSize;
  in.registersPerThread = static_cast<int>(kernelRegisters(module, kernel));
  in.staticSharedBytes = kernel.staticSharedBytes;
  in.dynamicSharedBytes = dynamicSharedBytes;
  try {
    const arch::OccupancyResult r = arch::computeOccupancy(cc_, in);
    return r.launches() ? r.activeBlocksPerSm : 0;
  } catch (const std::invalid_argument &) {
    return std::nullopt;
  }
}

FunctionAttributes Device::functionAttributes(const LoadedModule &module, const DecodedFunction &kernel,
                                              int maxDynamicSharedBytes) const {
  FunctionAttributes a;
  a.sharedSizeBytes = kernel.staticSharedBytes;
  a.localSizeBytes = kernel.frameBytes;
  a.numRegs = static_cast<int>(kernelRegisters(module, kernel));
  // The largest block that launches, in whole warps, within the hardware's and the kernel's limits:
  // the one the occupancy calculator still fits on an SM (registers at their allocation granularity).
  int maxThreads = cc_.maxThreadsPerBlock;
  for (const ptx::PerfDirective &d : kernel.source->directives)
    if (d.kind == ptx::PerfDirectiveKind::MaxNTid || d.kind == ptx::PerfDirectiveKind::ReqNTid) {
      uint64_t product = 1;
      for (uint32_t v : d.values)
        product *= v;
      maxThreads = static_cast<int>(std::min<uint64_t>(static_cast<uint64_t>(maxThreads), product));
      break;
    }
  const int warp = std::max(cc_.warpSize, 1);
  if (maxThreads >= warp)
    maxThreads = maxThreads / warp * warp;
  while (maxThreads > warp && activeBlocksPerSm(module, kernel, maxThreads, 0).value_or(0) == 0)
    maxThreads -= warp;
  a.maxThreadsPerBlock = maxThreads;
  a.ptxVersion = static_cast<int>(module.ptx().ptxVersion());
  a.binaryVersion = cc_.major * 10 + cc_.minor;
  a.maxDynamicSharedSizeBytes = maxDynamicSharedBytes >= 0
                                    ? maxDynamicSharedBytes
                                    : std::max(0, cc_.sharedPerBlock - static_cast<int>(kernel.staticSharedBytes));
  return a;
}

uint64_t Device::gridWorkspace() {
  if (!gridWorkspace_) {
    // Cooperative groups' layout (cooperative_groups/details/driver_abi.h): the workspace's size,
    // then the grid barrier's arrival counter, which starts at 0 and flips its top bit per sync.
    auto base = memory_.allocate(8, AllocationKind::Driver, "the cooperative launch grid workspace");
    if (!base)
      return 0;
    gridWorkspace_ = *base;
  }
  // Reset per launch, so that one that faulted inside a grid barrier leaves no stale arrivals.
  const uint32_t words[2] = {8, 0};
  std::memcpy(memory_.hostRange(gridWorkspace_, 8), words, 8);
  return gridWorkspace_;
}

uint32_t Device::kernelRegisters(const LoadedModule &module, const DecodedFunction &kernel) const {
  {
    std::lock_guard lock(module.registersMutex_);
    if (auto it = module.registers_.find(kernel.index); it != module.registers_.end())
      return it->second;
  }
  // .maxnreg when given, else the PTX liveness estimate (ptxas may use more).
  uint32_t regs = 0;
  for (const ptx::PerfDirective &d : kernel.source->directives)
    if (d.kind == ptx::PerfDirectiveKind::MaxNReg && !d.values.empty())
      regs = d.values[0];
  if (regs == 0)
    regs = ptx::estimateRegisterPressure(module.ptx(), *kernel.source).maxLive32;
  regs = std::min<uint32_t>(regs, static_cast<uint32_t>(cc_.maxRegistersPerThread));
  std::lock_guard lock(module.registersMutex_);
  module.registers_[kernel.index] = regs;
  return regs;
}

LaunchResult Device::launch(const LoadedModule &module, std::string_view kernelName, const LaunchConfig &config,
                            std::span<const std::vector<std::byte>> args, const LaunchOptions &options) {
  const DecodedFunction *kernel = module.findKernel(kernelName);
  if (!kernel)
    throw VmError(fmt::format("{}: no kernel named {}", module.name(), kernelName));
  return launchGrid(module, kernel, config, args, options, GridNesting{});
}

namespace {

bool usesSystemCall(const Program &program, abi::SystemCallId id) {
  return std::any_of(program.functions.begin(), program.functions.end(),
                     [id](const DecodedFunction &f) { return f.isSystemCall && f.systemCall == static_cast<int>(id); });
}

} // namespace

LaunchResult Device::launchGrid(const LoadedModule &module, const DecodedFunction *kernel, const LaunchConfig &config,
                                std::span<const std::vector<std::byte>> args, const LaunchOptions &options,
                                const GridNesting &nesting) {
  LaunchResult result;
  std::tie(result.refusal, result.error) = checkLaunch(module, *kernel, config, args);
  if (result.refusal != Refusal::None) {
    result.status = LaunchStatus::Refused;
    return result;
  }
  if (!heap_ || heap_->size() != heapBytes_)
    heap_ = std::make_unique<DeviceHeap>(memory_, heapBytes_);

  LaunchState L;
  L.device = this;
  L.module = &module;
  L.program = &module.program();
  L.kernel = kernel;
  L.memory = &memory_;
  L.heap = heap_.get();
  L.textures = textures_.get();
  L.grid = config.grid;
  L.block = config.block;
  L.sharedBytes = static_cast<uint32_t>(kernel->staticSharedBytes + config.dynamicSharedBytes);
  // The driver reserves 1 KB per block from CC 8.0 on ([PG] 8.x); the VM always provides it, so that
  // PTX written for those GPUs (cooperative groups) also runs on an older modeled one.
  L.reservedSharedBytes = static_cast<uint32_t>(std::max(cc_.sharedReservedPerBlock, 1024));
  L.smCount = static_cast<uint32_t>(smCount_);
  L.gridId = ++launches_;
  L.options = options;
  // A kernel whose stack ptxas cannot size (recursion, calls through pointers) gets the stack limit
  // and no more; the others what their frames need.
  if (!kernel->stackSizeIsStatic)
    L.options.stackBytesPerThread =
        std::min(options.stackBytesPerThread, std::max<uint64_t>(options.stackLimitBytes, 16));
  L.budget = options.maxInstructions ? options.maxInstructions : kDefaultInstructionBudget;
  L.warpBudget = std::max<uint64_t>(L.budget / kWarpBudgetShare, 1);
  // CUDA's default printf FIFO: 1 MiB, or 64 KiB per SM when that is more (the runtime's
  // cudaDeviceGetLimit on an H100 says 8650752 for its 132 SMs).
  L.printfFifoBytes = options.printfFifoBytes
                          ? options.printfFifoBytes
                          : std::max<uint64_t>(uint64_t{1} << 20, static_cast<uint64_t>(std::max(smCount_, 0)) << 16);
  L.constBank = module.constBank_ ? memory_.find(module.constBank_) : nullptr;
  L.params.assign(std::max<uint64_t>(kernel->kernelParamBytes, 1), std::byte{0});
  for (size_t i = 0; i < args.size(); ++i)
    std::memcpy(L.params.data() + kernel->paramOffsets[i], args[i].data(), args[i].size());

  const uint64_t ctas = config.grid.count();
  // Sampling runs `sampleCtas` CTAs spread evenly over the grid, the first and the last included.
  const uint64_t runs = options.sampleCtas && options.sampleCtas < ctas ? options.sampleCtas : ctas;
  unsigned workers = options.threads ? options.threads : std::max(1u, std::thread::hardware_concurrency());
  workers = static_cast<unsigned>(std::min<uint64_t>(workers, runs));
  // Each worker keeps a CTA's state (512 MiB for 1024 threads with 512 KiB of local memory each): no
  // more workers than the memory budget holds at once; with none, the one worker's CTA is refused
  // (FaultKind::MemoryBudget) instead of the machine running out.
  if (const uint64_t perCta = ctaHostBytes(L, initialLocalBytes(*kernel)), budget = support::memoryBudget(),
      inUse = support::memoryInUse();
      workers > 1) {
    const uint64_t fit = inUse < budget ? (budget - inUse) / perCta : 0;
    workers = static_cast<unsigned>(std::clamp<uint64_t>(fit, 1, workers));
  }
  result.workers = workers;
  result.ctasRun = runs;
  L.independentThreadScheduling = cc_.major >= 7;
  L.residentLimit = residentCtaLimit(module, *kernel, config);
  L.slotCount = 2 * workers + static_cast<unsigned>(std::min<uint64_t>(L.residentLimit, 1u << 20));
  L.nextSlot = workers;
  L.workers = workers;
  L.quietSince = std::make_unique<std::atomic<uint64_t>[]>(workers);
  if (config.cooperative)
    L.gridWorkspace = gridWorkspace();
  L.globalOffset = config.globalOffset;
  L.workDim = config.workDim                            ? config.workDim
              : config.grid.z > 1 || config.block.z > 1 ? 3
              : config.grid.y > 1 || config.block.y > 1 ? 2
                                                        : 1;
  L.cyclesPerInstruction = options.clock.cyclesPerInstruction
                               ? options.clock.cyclesPerInstruction
                               : static_cast<uint64_t>(std::max(cc_.latency.registerReadAfterWriteCycles, 1));
  L.clockBase = options.clock.startCycles;
  L.timerBase = options.clock.startNanoseconds;
  L.nsPerCycle = options.clock.smClockHz > 0 ? 1e9 / options.clock.smClockHz : 1;
  // Child grids (dynamic parallelism) are heard as launches of their own, after their parent ends
  // (vm::LaunchInfo::depth).
  L.listener = listener_;
  L.depth = nesting.depth;
  L.pendingLaunches = nesting.pendingLaunches ? nesting.pendingLaunches : std::make_shared<std::atomic<uint64_t>>(0);
  L.gridsHeard = nesting.gridsHeard ? nesting.gridsHeard : std::make_shared<uint64_t>(0);
  if (usesSystemCall(module.program(), abi::SystemCallId::DeviceErrorText))
    makeErrorTexts();
  if (launchesDevice(module.program())) {
    if (!launchArena_)
      launchArena_ = std::make_unique<DeviceHeap>(memory_, kLaunchArenaBytes,
                                                  "the device runtime's parameter buffers (dynamic parallelism)");
    L.launchArena = launchArena_.get();
  }
  if (L.listener) {
    LaunchInfo info{kernel,  config.grid, config.block, config.dynamicSharedBytes, kernelRegisters(module, *kernel),
                    workers, runs,        L.slotCount};
    L.treeGrid = (*L.gridsHeard)++;
    info.depth = nesting.depth;
    info.treeGrid = L.treeGrid;
    info.parentGrid = nesting.parentGrid;
    info.origin = nesting.origin;
    if (L.launchArena) {
      info.parameterBuffersBase = L.launchArena->base();
      info.parameterBuffersBytes = L.launchArena->size();
    }
    L.listener->onLaunchBegin(info);
  }
  // A grid that cannot finish within the budget even at one instruction per thread fails at once,
  // as it would after hours (2^31 x 65535 x 65535 one-thread blocks), with the same fault.
  if (const unsigned __int128 threads = static_cast<unsigned __int128>(runs) * config.block.count();
      threads > L.budget) {
    Fault f;
    f.block = f.thread = Dim3{0, 0, 0};
    f.kind = FaultKind::InstructionLimit;
    f.kernel = kernel->name;
    f.function = kernel->name;
    f.detail = fmt::format("the grid has {} threads: at one instruction each, more than the launch's budget of {} "
                           "thread-instructions (--max-instructions)",
                           static_cast<double>(threads) < 1e15 ? fmt::format("{}", static_cast<uint64_t>(threads))
                                                               : fmt::format("{:.3g}", static_cast<double>(threads)),
                           L.budget);
    result.faults.push_back(std::move(f));
    result.faultCount = 1;
    result.status = LaunchStatus::Faulted;
    result.error = faultName(FaultKind::InstructionLimit);
    return result;
  }
  CtaQueue queue(ctas, runs);
  {
    // The terminal's progress line follows the launch (support/Progress.h); it is erased before the
    // launch returns to the program.
    support::ProgressDisplay *display = support::ProgressDisplay::instance();
    std::shared_ptr<support::ProgressDisplay::Launch> progress =
        display ? display->beginLaunch(ptx::demangle(kernel->name), runs) : nullptr;
    L.progressLine = progress.get();
    // The listeners that heard the launch begin hear it end, also when a worker throws.
    struct LaunchEnd {
      LaunchState &L;
      support::ProgressDisplay *display;
      const std::shared_ptr<support::ProgressDisplay::Launch> &progress;
      ~LaunchEnd() {
        if (L.listener) {
          if (const uint64_t cycles = L.clockReadInstructions.load() * L.cyclesPerInstruction)
            L.listener->onClockWait(cycles);
          L.listener->onLaunchEnd();
        }
        if (progress)
          display->endLaunch(progress);
      }
    } end{L, display, progress};
    workers_->run(workers, [&L, &queue](unsigned w) { runWorker(L, w, queue); });
  }

  result.threadInstructions = L.instructions.load();
  result.clockCycles = L.clockReadInstructions.load() * L.cyclesPerInstruction;
  result.printfOutput = std::move(L.printfOutput);
  result.assertOutput = std::move(L.assertOutput);
  result.faults = std::move(L.faults);
  result.faultCount = L.faultCount;
  // Workers report in whatever order they ran; a fixed order makes reports reproducible.
  std::sort(result.faults.begin(), result.faults.end(), faultOrder);
  if (L.assertFailed) {
    result.status = LaunchStatus::AssertFailed;
    result.error = "device-side assert triggered";
  } else if (!result.faults.empty()) {
    result.status = LaunchStatus::Faulted;
    result.error = faultName(result.faults.front().kind);
  }
  if (!L.children.empty())
    runChildGrids(module, L, result);
  return result;
}

uint64_t Device::errorTextAddress(int error, bool name) const {
  auto it = errorTexts_.find(error);
  const std::pair<uint64_t, uint64_t> &t = it == errorTexts_.end() ? unknownErrorTexts_ : it->second;
  return name ? t.first : t.second;
}

void Device::makeErrorTexts() {
  if (!errorTexts_.empty())
    return;
  std::string bytes; // every name and text, each with its terminating NUL
  std::vector<std::pair<size_t, size_t>> offsets;
  auto add = [&](const char *name, const char *text) {
    offsets.emplace_back(bytes.size(), bytes.size() + std::strlen(name) + 1);
    bytes.append(name).push_back(0);
    bytes.append(text).push_back(0);
  };
  const auto table = abi::cuda::errorTexts();
  for (const abi::cuda::ErrorText &e : table)
    add(e.name, e.text);
  add(abi::cuda::kUnknownErrorName, abi::cuda::kUnknownErrorText);
  auto base = memory_.allocate(bytes.size(), AllocationKind::Driver, "the device runtime's error names and texts");
  if (!base)
    return; // no room: the calls return null pointers
  std::memcpy(memory_.hostRange(*base, bytes.size()), bytes.data(), bytes.size());
  for (size_t i = 0; i < table.size(); ++i)
    errorTexts_[table[i].error] = {*base + offsets[i].first, *base + offsets[i].second};
  unknownErrorTexts_ = {*base + offsets.back().first, *base + offsets.back().second};
}

namespace {

/// Runs a copy or a set a grid put into a stream (device-side cudaMemcpy*Async, cudaMemset*Async):
/// row by row, as memmove (a copy may overlap itself), each row heard as a write from outside a grid
/// (initcheck). The call checked the rows; memory freed since is a fault of the launch tree.
void runStreamCopy(DeviceMemory &memory, const LaunchState &L, const LaunchState::ChildLaunch &c,
                   LaunchResult &result) {
  const LaunchState::ChildLaunch::Rows &r = c.rows;
  const bool copy = c.kind == LaunchState::ChildLaunch::Kind::Copy;
  for (uint64_t z = 0; z < r.depth; ++z)
    for (uint64_t y = 0; y < r.height; ++y) {
      const uint64_t dst = r.dst + z * r.dstSlice + y * r.dstPitch, src = r.src + z * r.srcSlice + y * r.srcPitch;
      auto bad = checkStreamCopyRange(L, dst, r.width, true);
      const bool dstOk = !bad;
      if (dstOk && copy)
        bad = checkStreamCopyRange(L, src, r.width, false);
      if (bad) {
        Fault f;
        f.kind = bad->first;
        f.kernel = L.kernel->name;
        f.address = dstOk ? src : dst;
        f.size = static_cast<uint32_t>(std::min<uint64_t>(r.width, UINT32_MAX));
        f.isWrite = !dstOk;
        f.detail =
            fmt::format("a device-side {} that {} launched (block {}, thread {}, linear): its {} row at 0x{:x} "
                        "({} bytes): {}",
                        copy ? "copy" : "memset", ptx::demangle(L.kernel->name), c.origin.launchingCta,
                        c.origin.launchingThread, dstOk ? "source" : "destination", f.address, r.width, bad->second);
        result.status = LaunchStatus::Faulted;
        result.error = f.detail;
        result.faults.push_back(std::move(f));
        ++result.faultCount;
        return;
      }
      std::byte *to = memory.hostRange(dst, r.width);
      if (copy)
        std::memmove(to, memory.hostRange(src, r.width), r.width);
      else
        std::memset(to, r.value, r.width);
      memory.noteHostWrite(dst, r.width);
    }
}

} // namespace

bool Device::launchesDevice(const Program &program) {
  return usesSystemCall(program, abi::SystemCallId::DeviceGetParameterBuffer);
}

void Device::runChildGrids(const LoadedModule &module, LaunchState &L, LaunchResult &result) {
  // A deterministic order: by the launching CTA, thread and the thread's launch count. Grids launched
  // into the block's stream or fire-and-forget run when the parent grid is done (a schedule CUDA
  // allows: the parent cannot wait for them, CUDA 12 refuses cudaDeviceSynchronize in device code);
  // tail launches after all of those, as CDP2 defines them. Each child's own children run before
  // its next sibling.
  std::vector<LaunchState::ChildLaunch> children = std::move(L.children);
  std::stable_sort(children.begin(), children.end(), [](const auto &a, const auto &b) {
    const GridOrigin &x = a.origin, &y = b.origin;
    const bool xTail = x.stream == GridOrigin::kTailLaunchStream, yTail = y.stream == GridOrigin::kTailLaunchStream;
    return std::tie(xTail, x.launchingCta, x.launchingThread, x.launchSequence) <
           std::tie(yTail, y.launchingCta, y.launchingThread, y.launchSequence);
  });
  LaunchOptions options = L.options;
  for (size_t i = 0; i < children.size(); ++i) {
    LaunchState::ChildLaunch &c = children[i];
    if (!result.ok()) { // a failed grid ends its launch tree; what was still pending never runs
      *L.pendingLaunches -= children.size() - i;
      break;
    }
    if (c.kind != LaunchState::ChildLaunch::Kind::Grid) {
      runStreamCopy(memory_, L, c, result);
      --*L.pendingLaunches;
      continue;
    }
    const DecodedFunction &kernel = L.program->functions[c.function];
    std::vector<std::vector<std::byte>> args(kernel.paramSizes.size());
    for (size_t p = 0; p < args.size(); ++p) {
      const uint64_t at = kernel.paramOffsets[p], size = kernel.paramSizes[p];
      if (at + size <= c.params.size())
        args[p].assign(c.params.begin() + static_cast<ptrdiff_t>(at),
                       c.params.begin() + static_cast<ptrdiff_t>(at + size));
    }
    LaunchConfig config;
    config.grid = c.grid;
    config.block = c.block;
    config.dynamicSharedBytes = c.sharedBytes;
    GridNesting nesting{L.depth + 1, L.pendingLaunches, L.gridsHeard, L.treeGrid, c.origin};
    LaunchResult child = launchGrid(module, &kernel, config, args, options, nesting);
    --*L.pendingLaunches;
    result.childGrids += 1 + child.childGrids;
    result.threadInstructions += child.threadInstructions;
    result.printfOutput += child.printfOutput;
    result.assertOutput += child.assertOutput;
    if (!child.ok()) {
      // The launch tree fails with the child's error, as the host sees it at its next synchronization.
      result.status = child.status == LaunchStatus::Refused ? LaunchStatus::Faulted : child.status;
      result.refusal = Refusal::None;
      result.error = child.status == LaunchStatus::Refused
                         ? fmt::format("a child grid of {} launched by {} was refused: {}", ptx::demangle(kernel.name),
                                       ptx::demangle(L.kernel->name), child.error)
                         : child.error;
      result.faults = std::move(child.faults);
      result.faultCount += child.faultCount;
    }
  }
}

} // namespace ptxray::vm
