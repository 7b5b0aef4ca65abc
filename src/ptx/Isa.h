// The PTX ISA vocabulary: opcodes, modifiers, data types and special registers,
// generated from the tables in isa/ so the parser never compares strings by hand.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace ptxray::ptx {

enum class Opcode : uint16_t {
#define PTX_OPCODE(E, ...) E,
#include "isa/opcodes.def"
#undef PTX_OPCODE
  NumOpcodes
};

enum class Mod : uint16_t {
#define PTX_MOD(E, ...) E,
#include "isa/modifiers.def"
#undef PTX_MOD
  NumMods,
  None = 0xffff,
};

enum class SpecialReg : uint16_t {
#define PTX_SREG(E, ...) E,
#include "isa/sregs.def"
#undef PTX_SREG
  NumSpecialRegs
};

/// Which typed field of an instruction a modifier fills.
enum class ModCategory : uint8_t { Type, Space, Rounding, Compare, Vector, Cache, Scope, Semantics, Other };

/// The class of a PTX data type; the operand type rules (PTX ISA "Operand type checking") work on it.
enum class TypeKind : uint8_t { None, Pred, Bits, Unsigned, Signed, Float, Opaque };

struct TypeInfo {
  TypeKind kind = TypeKind::None;
  uint16_t bits = 0; ///< storage size in bits (a .f16x2 is 32)
};

/// A PTX ISA version or target number: 6.0 -> 60, sm_35 -> 35.
struct IsaRequirement {
  uint16_t minPtx = 0;
  uint16_t minSm = 0;
};

std::string_view spelling(Opcode op);
std::string_view spelling(Mod mod); ///< with the leading dot
std::string_view spelling(SpecialReg reg);

std::optional<Opcode> lookupOpcode(std::string_view name);
std::optional<Mod> lookupMod(std::string_view dottedName);
std::optional<SpecialReg> lookupSpecialReg(std::string_view name);

ModCategory category(Mod mod);
TypeInfo typeInfo(Mod typeMod); ///< kind None for modifiers that are not data types
bool isType(Mod mod);

bool opcodeAllows(Opcode op, Mod mod);
IsaRequirement requirement(Opcode op);
/// Requirement of a modifier on an opcode beyond the opcode's own, if the ISA names one.
std::optional<IsaRequirement> featureRequirement(Opcode op, Mod mod);
int minOperands(Opcode op);
int maxOperands(Opcode op);

/// The PTX version that introduced `.target sm_<sm>` (with an `a`/`f` suffix when given), or
/// nullopt for an unknown target.
std::optional<uint16_t> targetMinPtx(uint32_t sm, char suffix);

bool specialRegIsVector(SpecialReg reg);
IsaRequirement requirement(SpecialReg reg);
Mod specialRegType(SpecialReg reg);

} // namespace ptxray::ptx
