#include "vm/Fault.h"

#include "ptx/LineTable.h"
#include "ptx/Printer.h"
#include "vm/Exec.h"

#include <fmt/format.h>

#include <algorithm>
#include <tuple>

namespace ptxray::vm {

const char *faultName(FaultKind kind) {
  switch (kind) {
  case FaultKind::OutOfBounds: return "Invalid address (out of bounds)";
  case FaultKind::Misaligned: return "Misaligned address";
  case FaultKind::UseAfterFree: return "Access to freed memory";
  case FaultKind::ReadOnly: return "Write to read-only memory";
  case FaultKind::InvalidGeneric: return "Invalid generic address";
  case FaultKind::BarrierDivergence: return "Barrier error: divergent threads in warp";
  case FaultKind::BarrierDeadlock: return "Barrier deadlock";
  case FaultKind::InstructionLimit: return "Instruction limit reached";
  case FaultKind::StackOverflow: return "Stack overflow";
  case FaultKind::AssertFailed: return "Device-side assertion failed";
  case FaultKind::Trap: return "Trap instruction executed";
  case FaultKind::Breakpoint: return "Breakpoint instruction executed";
  case FaultKind::IllegalInstruction: return "Illegal instruction";
  case FaultKind::InvalidCall: return "Invalid call target";
  case FaultKind::HeapError: return "Device heap error";
  case FaultKind::Livelock: return "Livelock: the warps wait for memory nothing changes";
  case FaultKind::MemoryBudget: return "Memory budget exceeded";
  }
  return "error";
}

const char *faultKindId(FaultKind kind) {
  switch (kind) {
  case FaultKind::OutOfBounds: return "out-of-bounds";
  case FaultKind::Misaligned: return "misaligned";
  case FaultKind::UseAfterFree: return "use-after-free";
  case FaultKind::ReadOnly: return "read-only";
  case FaultKind::InvalidGeneric: return "invalid-generic-address";
  case FaultKind::BarrierDivergence: return "barrier-divergence";
  case FaultKind::BarrierDeadlock: return "barrier-deadlock";
  case FaultKind::InstructionLimit: return "instruction-limit";
  case FaultKind::StackOverflow: return "stack-overflow";
  case FaultKind::AssertFailed: return "assert-failed";
  case FaultKind::Trap: return "trap";
  case FaultKind::Breakpoint: return "breakpoint";
  case FaultKind::IllegalInstruction: return "illegal-instruction";
  case FaultKind::InvalidCall: return "invalid-call";
  case FaultKind::HeapError: return "heap-error";
  case FaultKind::Livelock: return "livelock";
  case FaultKind::MemoryBudget: return "memory-budget";
  }
  return "error";
}

InstructionPlace placeOf(const ptx::Module &module, const ptx::Instruction &instruction) {
  InstructionPlace place;
  place.ptxLocation = module.sources.position(instruction.loc);
  place.ptxText = std::string(module.sources.trimmedLineText(instruction.loc));
  ptx::LineTable lines(module);
  const auto chain = lines.chain(instruction);
  for (size_t i = 0; i < chain.size(); ++i) {
    const ptx::SourcePosition &p = chain[i];
    if (i)
      place.sourceLine += " inlined into ";
    else {
      place.sourceFile = p.file;
      place.sourceFileLine = p.line;
    }
    place.sourceLine += fmt::format("{}:{}", p.file.empty() ? "?" : p.file, p.line);
  }
  return place;
}

const char *spaceName(Space space) {
  switch (space) {
  case Space::Global: return "global";
  case Space::Shared: return "shared";
  case Space::Local: return "local";
  case Space::Const: return "const";
  case Space::KernelParam: return "param";
  case Space::Generic: return "generic";
  }
  return "?";
}

std::string Fault::headline() const {
  std::string out = faultName(kind);
  if (size)
    out += fmt::format(" ({} of size {} bytes, {} space)", isWrite ? "write" : "read", size, spaceName(space));
  return out;
}

std::vector<std::string> Fault::detailLines() const {
  std::vector<std::string> out;
  out.push_back(fmt::format("in kernel {}", kernel));
  if (!function.empty() && function != kernel)
    out.back() += fmt::format(", function {}", function);
  if (!instructionText.empty())
    out.push_back(fmt::format("at {}  {}", ptxLocation, instructionText));
  if (!sourceLine.empty())
    out.push_back(fmt::format("source {}", sourceLine));
  // A fault of the launch as a whole (a hopeless grid, the memory budget) was no thread's doing.
  if (!instructionText.empty() || size || address)
    out.push_back(fmt::format("by thread ({},{},{}) in block ({},{},{})", thread.x, thread.y, thread.z, block.x,
                              block.y, block.z));
  if (size || address)
    out.push_back(fmt::format("address 0x{:x}", address));
  if (!detail.empty())
    out.push_back(detail);
  return out;
}

std::string Fault::describe() const {
  std::string out = fmt::format("========= {}\n", headline());
  for (const std::string &line : detailLines())
    out += fmt::format("=========     {}\n", line);
  return out;
}

bool faultOrder(const Fault &a, const Fault &b) {
  auto key = [](const Fault &f) {
    return std::tuple(f.block.z, f.block.y, f.block.x, f.thread.z, f.thread.y, f.thread.x, f.instruction, f.address);
  };
  return key(a) < key(b);
}

void LaunchState::report(Fault fault) {
  std::lock_guard lock(mutex);
  // A hang or the budget running out once an error has stopped blocks may be blocks waiting for
  // a stopped one: a consequence of that error, not a second one.
  if ((fault.kind == FaultKind::Livelock || fault.kind == FaultKind::InstructionLimit) && anyStopped() &&
      !faults.empty())
    return;
  // Without memcheck the launch stops at its first error, as on the GPU: one fault is kept, the
  // least in faultOrder of those found before every block that could precede it had stopped
  // (stopFrom), so the same one on every run; later lanes of the same instruction add nothing.
  if (!options.continueOnError) {
    if (faults.empty()) {
      faultCount = 1;
      faults.push_back(std::move(fault));
    } else if (faultOrder(fault, faults.front())) {
      faults.front() = std::move(fault);
    }
    return;
  }
  ++faultCount;
  // The faults kept are the first maxFaults in faultOrder, whichever order the workers found them
  // in, so that a run reports the same faults every time: a max-heap whose top is the last kept.
  if (faults.size() < options.maxFaults) {
    faults.push_back(std::move(fault));
    std::push_heap(faults.begin(), faults.end(), faultOrder);
  } else if (!faults.empty() && faultOrder(fault, faults.front())) {
    std::pop_heap(faults.begin(), faults.end(), faultOrder);
    faults.back() = std::move(fault);
    std::push_heap(faults.begin(), faults.end(), faultOrder);
  }
}

Dim3 ExecContext::threadIdOf(int lane) const {
  uint64_t linear = uint64_t{warp->index} * kWarpSize + static_cast<uint64_t>(lane);
  const Dim3 &b = launch->block;
  return {static_cast<uint32_t>(linear % b.x), static_cast<uint32_t>(linear / b.x % b.y),
          static_cast<uint32_t>(linear / (uint64_t{b.x} * b.y))};
}

WarpRef ExecContext::warpRef() const {
  return {worker, cta->id, warp->index, fn};
}

void ExecContext::fault(FaultKind kind, int lane, std::string detail, uint64_t address, uint32_t size, Space space,
                        bool isWrite) {
  Fault f;
  f.kind = kind;
  f.kernel = launch->kernel->name;
  f.block = cta->id;
  f.thread = threadIdOf(lane < 0 || lane >= kWarpSize ? 0 : lane);
  f.address = address;
  f.size = size;
  f.space = space;
  f.isWrite = isWrite;
  f.detail = std::move(detail);
  if (fn) {
    f.function = fn->name;
    if (pc < fn->code.size()) {
      f.instruction = fn->code[pc].instruction;
      std::lock_guard lock(launch->mutex); // the source manager builds line tables lazily
      InstructionPlace place = placeOf(*launch->program->module, fn->source->instructions[f.instruction]);
      f.ptxLocation = std::move(place.ptxLocation);
      f.instructionText = std::move(place.ptxText);
      f.sourceLine = std::move(place.sourceLine);
      f.sourceFile = std::move(place.sourceFile);
      f.sourceFileLine = place.sourceFileLine;
    }
  }
  launch->report(std::move(f));
  if (kind == FaultKind::Livelock || kind == FaultKind::InstructionLimit || kind == FaultKind::MemoryBudget) {
    launch->stopAll(); // the launch's, not this block's
    yield = true;
  } else if (!launch->options.continueOnError || kind == FaultKind::AssertFailed || kind == FaultKind::Trap ||
             kind == FaultKind::BarrierDeadlock || kind == FaultKind::StackOverflow ||
             kind == FaultKind::IllegalInstruction || kind == FaultKind::InvalidCall || kind == FaultKind::Breakpoint) {
    launch->stopFromBlock(cta->linearId);
    yield = true;
  }
}

} // namespace ptxray::vm
