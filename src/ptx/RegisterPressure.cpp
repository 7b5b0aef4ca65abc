#include "ptx/RegisterPressure.h"

#include "ptx/ControlFlowGraph.h"

#include <algorithm>

namespace ptxray::ptx {
namespace {

/// A fixed-size set of registers.
class RegisterSet {
public:
  explicit RegisterSet(size_t n = 0) : words_((n + 63) / 64, 0) {}
  void insert(uint32_t r) { words_[r / 64] |= uint64_t{1} << (r % 64); }
  void erase(uint32_t r) { words_[r / 64] &= ~(uint64_t{1} << (r % 64)); }
  bool contains(uint32_t r) const { return (words_[r / 64] >> (r % 64)) & 1; }
  /// this |= other; true when this grew.
  bool merge(const RegisterSet &other) {
    bool grew = false;
    for (size_t i = 0; i < words_.size(); ++i) {
      uint64_t merged = words_[i] | other.words_[i];
      grew |= merged != words_[i];
      words_[i] = merged;
    }
    return grew;
  }
  template <typename F> void forEach(F &&f) const {
    for (size_t i = 0; i < words_.size(); ++i)
      for (uint64_t w = words_[i]; w; w &= w - 1)
        f(static_cast<uint32_t>(i * 64 + static_cast<size_t>(__builtin_ctzll(w))));
  }

private:
  std::vector<uint64_t> words_;
};

} // namespace

uint32_t registerSlots(const Register &reg) {
  TypeInfo t = typeInfo(reg.type);
  if (t.kind == TypeKind::Pred)
    return 0;
  uint32_t slots = t.bits <= 32 ? 1 : (t.bits + 31) / 32; // 8- and 16-bit values take a 32-bit register
  return slots * reg.vectorWidth;
}

RegisterPressure estimateRegisterPressure(const Module &module, const Function &fn) {
  RegisterPressure result;
  const size_t numRegs = fn.registers.size();
  if (fn.instructions.empty() || numRegs == 0)
    return result;
  ControlFlowGraph cfg(module, fn);
  const auto &blocks = cfg.blocks();

  std::vector<RegisterAccess> access;
  access.reserve(fn.instructions.size());
  for (const Instruction &inst : fn.instructions)
    access.push_back(registerAccess(fn, inst));

  // Backward dataflow: live-in(b) = uses(b) ∪ (live-out(b) − defs(b)).
  std::vector<RegisterSet> liveIn(blocks.size(), RegisterSet(numRegs));
  auto transfer = [&](uint32_t b, RegisterSet live, auto &&visit) {
    for (uint32_t i = blocks[b].endInstruction; i-- > blocks[b].firstInstruction;) {
      // A guarded write may not happen, so it does not end the old value's life.
      if (fn.instructions[i].guard == kNone)
        for (uint32_t d : access[i].defs)
          live.erase(d);
      for (uint32_t u : access[i].uses)
        live.insert(u);
      visit(i, live);
    }
    return live;
  };
  for (bool changed = true; changed;) {
    changed = false;
    for (uint32_t b = static_cast<uint32_t>(blocks.size()); b-- > 0;) {
      RegisterSet out(numRegs);
      for (uint32_t s : blocks[b].successors)
        out.merge(liveIn[s]);
      RegisterSet in = transfer(b, out, [](uint32_t, const RegisterSet &) {});
      changed |= liveIn[b].merge(in);
    }
  }

  // The pressure at an instruction counts what is live across it plus what it defines.
  for (uint32_t b = 0; b < blocks.size(); ++b) {
    RegisterSet out(numRegs);
    for (uint32_t s : blocks[b].successors)
      out.merge(liveIn[s]);
    transfer(b, out, [&](uint32_t i, const RegisterSet &liveBefore) {
      RegisterSet live = liveBefore;
      for (uint32_t d : access[i].defs)
        live.insert(d);
      uint32_t slots = 0, predicates = 0;
      live.forEach([&](uint32_t r) {
        uint32_t s = registerSlots(fn.registers[r]);
        slots += s;
        predicates += s == 0;
      });
      result.maxLivePredicates = std::max(result.maxLivePredicates, predicates);
      if (slots > result.maxLive32 || result.atInstruction == kNone) {
        result.maxLive32 = slots;
        result.atInstruction = i;
      }
    });
  }
  return result;
}

} // namespace ptxray::ptx
