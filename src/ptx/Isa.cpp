#include "ptx/Isa.h"

#include <algorithm>
#include <array>
#include <bitset>
#include <cstring>
#include <vector>

namespace ptxray::ptx {
namespace {

constexpr size_t kNumOpcodes = static_cast<size_t>(Opcode::NumOpcodes);
constexpr size_t kNumMods = static_cast<size_t>(Mod::NumMods);
constexpr size_t kNumSregs = static_cast<size_t>(SpecialReg::NumSpecialRegs);

struct OpcodeRow {
  std::string_view name;
  uint16_t minPtx, minSm;
  int minOps, maxOps;
  std::string_view allowed;
};
constexpr OpcodeRow kOpcodes[] = {
#define PTX_OPCODE(E, NAME, PTX, SM, MINOPS, MAXOPS, ALLOWED) {NAME, PTX, SM, MINOPS, MAXOPS, ALLOWED},
#include "isa/opcodes.def"
#undef PTX_OPCODE
};

struct ModRow {
  std::string_view name;
  ModCategory category;
};
constexpr ModRow kMods[] = {
#define PTX_MOD(E, NAME, CAT) {NAME, ModCategory::CAT},
#include "isa/modifiers.def"
#undef PTX_MOD
};

struct SregRow {
  std::string_view name;
  bool vector;
  uint16_t minPtx, minSm;
  Mod type;
};
constexpr SregRow kSregs[] = {
#define PTX_SREG(E, NAME, VEC, PTX, SM, TYPE) {NAME, VEC, PTX, SM, Mod::TYPE},
#include "isa/sregs.def"
#undef PTX_SREG
};

struct FeatureRow {
  Opcode op;
  Mod mod;
  uint16_t minPtx, minSm;
};
constexpr FeatureRow kFeatures[] = {
#define PTX_FEATURE(OP, MOD, PTX, SM) {Opcode::OP, Mod::MOD, PTX, SM},
#include "isa/features.def"
#undef PTX_FEATURE
};

/// Open-addressing string table; built once, read-only afterwards.
class NameTable {
public:
  void build(size_t count, std::string_view (*nameOf)(size_t)) {
    size_t cap = 1;
    while (cap < count * 3)
      cap <<= 1;
    mask_ = cap - 1;
    slots_.assign(cap, {});
    for (size_t i = 0; i < count; ++i) {
      std::string_view name = nameOf(i);
      size_t h = hash(name) & mask_;
      while (slots_[h].index != kEmpty)
        h = (h + 1) & mask_;
      slots_[h] = {name, static_cast<uint32_t>(i)};
    }
  }
  int find(std::string_view name) const {
    size_t h = hash(name) & mask_;
    while (slots_[h].index != kEmpty) {
      if (slots_[h].name == name)
        return static_cast<int>(slots_[h].index);
      h = (h + 1) & mask_;
    }
    return -1;
  }

private:
  static constexpr uint32_t kEmpty = 0xffffffffu;
  struct Slot {
    std::string_view name;
    uint32_t index = kEmpty;
  };
  static size_t hash(std::string_view s) {
    uint64_t h = 1469598103934665603ull;
    for (unsigned char c : s)
      h = (h ^ c) * 1099511628211ull;
    return static_cast<size_t>(h ^ (h >> 29));
  }
  std::vector<Slot> slots_;
  size_t mask_ = 0;
};

TypeInfo computeTypeInfo(std::string_view s) {
  // s is the spelling without the dot, e.g. "u32", "f16x2", "pred", "e4m3x2".
  if (s == "pred")
    return {TypeKind::Pred, 1};
  if (s == "texref" || s == "samplerref" || s == "surfref")
    return {TypeKind::Opaque, 64};
  auto number = [](std::string_view digits) {
    int v = 0;
    for (char c : digits) {
      if (c < '0' || c > '9')
        return -1;
      v = v * 10 + (c - '0');
    }
    return digits.empty() ? -1 : v;
  };
  if (s.size() >= 2 && (s[0] == 'b' || s[0] == 'u' || s[0] == 's' || s[0] == 'f')) {
    std::string_view rest = s.substr(1);
    int lanes = 1;
    if (size_t x = rest.find('x'); x != std::string_view::npos) {
      lanes = number(rest.substr(x + 1));
      rest = rest.substr(0, x);
    }
    int bits = number(rest);
    if (bits > 0 && lanes > 0) {
      TypeKind kind = s[0] == 'b'   ? TypeKind::Bits
                      : s[0] == 'u' ? TypeKind::Unsigned
                      : s[0] == 's' ? TypeKind::Signed
                                    : TypeKind::Float;
      return {kind, static_cast<uint16_t>(bits * lanes)};
    }
  }
  // Remaining float formats: bf16, bf16x2, tf32, e4m3, e5m2, e2m1x2, ue8m0x2, ...
  if (s.starts_with("bf16"))
    return {TypeKind::Float, static_cast<uint16_t>(s == "bf16" ? 16 : 32)};
  if (s == "tf32")
    return {TypeKind::Float, 32};
  if (s.size() >= 4 && (s[0] == 'e' || s.starts_with("ue"))) {
    size_t x = s.find('x');
    if (x == std::string_view::npos)
      return {TypeKind::Float, 8};
    int lanes = number(s.substr(x + 1));
    // Sub-byte formats (e2m1, e2m3, e3m2) pack two lanes per byte in x2 forms only when 4-bit.
    int laneBits = s.starts_with("e2m1") ? 4 : 8;
    return {TypeKind::Float, static_cast<uint16_t>(laneBits * std::max(lanes, 1))};
  }
  return {TypeKind::Bits, 0};
}

struct Tables {
  NameTable opcodes, mods, sregs;
  std::vector<std::bitset<kNumMods>> allowed;
  std::vector<std::bitset<kNumMods>> hasFeature; ///< fast reject before scanning the opcode's rows
  std::vector<std::vector<FeatureRow>> features; ///< per opcode
  std::array<TypeInfo, kNumMods> types{};

  Tables() {
    opcodes.build(kNumOpcodes, [](size_t i) { return kOpcodes[i].name; });
    mods.build(kNumMods, [](size_t i) { return kMods[i].name; });
    sregs.build(kNumSregs, [](size_t i) { return kSregs[i].name; });
    for (size_t i = 0; i < kNumMods; ++i)
      if (kMods[i].category == ModCategory::Type)
        types[i] = computeTypeInfo(kMods[i].name.substr(1));
    allowed.resize(kNumOpcodes);
    hasFeature.resize(kNumOpcodes);
    features.resize(kNumOpcodes);
    for (const FeatureRow &row : kFeatures) {
      hasFeature[static_cast<size_t>(row.op)].set(static_cast<size_t>(row.mod));
      features[static_cast<size_t>(row.op)].push_back(row);
    }
    for (size_t op = 0; op < kNumOpcodes; ++op) {
      std::string_view list = kOpcodes[op].allowed;
      while (!list.empty()) {
        size_t sp = list.find(' ');
        std::string_view word = list.substr(0, sp);
        list = sp == std::string_view::npos ? std::string_view{} : list.substr(sp + 1);
        if (word.empty())
          continue;
        int m = mods.find(word);
        if (m >= 0)
          allowed[op].set(static_cast<size_t>(m));
      }
    }
  }
};

const Tables &tables() {
  static const Tables t;
  return t;
}

} // namespace

std::string_view spelling(Opcode op) {
  return kOpcodes[static_cast<size_t>(op)].name;
}
std::string_view spelling(Mod mod) {
  return mod == Mod::None ? std::string_view{} : kMods[static_cast<size_t>(mod)].name;
}
std::string_view spelling(SpecialReg reg) {
  return kSregs[static_cast<size_t>(reg)].name;
}

std::optional<Opcode> lookupOpcode(std::string_view name) {
  int i = tables().opcodes.find(name);
  if (i < 0)
    return std::nullopt;
  return static_cast<Opcode>(i);
}

std::optional<Mod> lookupMod(std::string_view dottedName) {
  int i = tables().mods.find(dottedName);
  if (i < 0)
    return std::nullopt;
  return static_cast<Mod>(i);
}

std::optional<SpecialReg> lookupSpecialReg(std::string_view name) {
  int i = tables().sregs.find(name);
  if (i < 0)
    return std::nullopt;
  return static_cast<SpecialReg>(i);
}

ModCategory category(Mod mod) {
  return kMods[static_cast<size_t>(mod)].category;
}

TypeInfo typeInfo(Mod typeMod) {
  if (typeMod == Mod::None)
    return {};
  return tables().types[static_cast<size_t>(typeMod)];
}

bool isType(Mod mod) {
  return mod != Mod::None && category(mod) == ModCategory::Type;
}

bool opcodeAllows(Opcode op, Mod mod) {
  return tables().allowed[static_cast<size_t>(op)].test(static_cast<size_t>(mod));
}

IsaRequirement requirement(Opcode op) {
  const OpcodeRow &row = kOpcodes[static_cast<size_t>(op)];
  return {row.minPtx, row.minSm};
}

std::optional<IsaRequirement> featureRequirement(Opcode op, Mod mod) {
  const Tables &t = tables();
  if (!t.hasFeature[static_cast<size_t>(op)].test(static_cast<size_t>(mod)))
    return std::nullopt;
  // Several rows may name the same pair (one per note of the reference); the least demanding wins,
  // since the table cannot tell which combination the instruction uses.
  std::optional<IsaRequirement> best;
  for (const FeatureRow &row : t.features[static_cast<size_t>(op)])
    if (row.mod == mod &&
        (!best || row.minPtx < best->minPtx || (row.minPtx == best->minPtx && row.minSm < best->minSm)))
      best = IsaRequirement{row.minPtx, row.minSm};
  return best;
}

int minOperands(Opcode op) {
  return kOpcodes[static_cast<size_t>(op)].minOps;
}
int maxOperands(Opcode op) {
  return kOpcodes[static_cast<size_t>(op)].maxOps;
}

std::optional<uint16_t> targetMinPtx(uint32_t sm, char suffix) {
  struct TargetRow {
    uint32_t sm;
    uint16_t minPtx;
  };
  static constexpr TargetRow kTargets[] = {
#define PTX_TARGET(SM, PTX) {SM, PTX},
#include "isa/targets.def"
#undef PTX_TARGET
  };
  for (const TargetRow &row : kTargets) {
    if (row.sm != sm)
      continue;
    uint16_t v = row.minPtx;
    if (suffix == 'a')
      v = std::max<uint16_t>(v, 80);
    if (suffix == 'f')
      v = std::max<uint16_t>(v, 88);
    return v;
  }
  return std::nullopt;
}

bool specialRegIsVector(SpecialReg reg) {
  return kSregs[static_cast<size_t>(reg)].vector;
}
IsaRequirement requirement(SpecialReg reg) {
  const SregRow &row = kSregs[static_cast<size_t>(reg)];
  return {row.minPtx, row.minSm};
}
Mod specialRegType(SpecialReg reg) {
  return kSregs[static_cast<size_t>(reg)].type;
}

} // namespace ptxray::ptx
