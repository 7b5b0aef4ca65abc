// The typed intermediate representation of a PTX module.
//
// Names are string_views into text the Module owns (its sources and its name pool), so a module is
// self-contained and cheap to build. Statements keep source order, which is what the printer walks;
// everything later stages need (instructions, registers, symbols, the line table) is indexed densely.
#pragma once

#include "ptx/Isa.h"
#include "ptx/Source.h"
#include "support/MemoryBudget.h"

#include <array>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace ptxray::ptx {

inline constexpr uint32_t kNone = 0xffffffffu;

enum class StateSpace : uint8_t { None, Reg, SReg, Const, Global, Local, Param, Shared, Tex, Generic };
std::string_view spelling(StateSpace space);

enum class Linkage : uint8_t { None, Visible, Extern, Weak, Common };

// ---------------------------------------------------------------------------------------------
// Operands

enum class OperandKind : uint8_t {
  Register,   ///< id = register index in the function
  SpecialReg, ///< id = SpecialReg
  Immediate,  ///< value = integer bits; flags may say Unsigned
  Float32,    ///< value = IEEE single bits (0fXXXXXXXX)
  Float64,    ///< value = IEEE double bits (0dXXXXXXXXXXXXXXXX or decimal)
  Symbol,     ///< id = symbol index in the module, value = byte offset
  Sink,       ///< `_`
  Address,    ///< [e0, e1, ...]: children; `[r+4]` is one Register child with value 4
  Vector,     ///< {a, b, c, d}: children
  List,       ///< (a, b): call argument and return lists
  Pair,       ///< a|b: two children
};

struct Operand {
  enum Flag : uint8_t {
    Negated = 1,  ///< !p (logical not of a predicate)
    Unsigned = 2, ///< integer literal with the U suffix
    Unified = 4,  ///< [a].unified
    Minus = 8,    ///< -r (vmad's negated operands)
  };
  OperandKind kind = OperandKind::Immediate;
  uint8_t flags = 0;
  /// Component or byte/half selector after a register: .x .y .z .w .r .g .b .a, .b0-.b3, .h0 .h1, .b3210...
  /// Encoded as letter | digit count << 8 | digits (4 bits each) << 12; 0 when absent.
  uint32_t selector = 0;
  uint32_t id = kNone;
  uint32_t sourceOffset = 0; ///< byte offset of the operand in the instruction's file (diagnostics)
  int64_t value = 0;         ///< immediate bits, or the offset added to a register/symbol in an address
  uint32_t first = 0;        ///< first child in Function::operands (Address, Vector, List, Pair)
  uint32_t count = 0;

  /// Identity ignores where the operand was written, as for every other source position.
  bool operator==(const Operand &o) const {
    return kind == o.kind && flags == o.flags && selector == o.selector && id == o.id && value == o.value &&
           first == o.first && count == o.count;
  }
};
static_assert(sizeof(Operand) == 32, "operands are packed in per-function arrays: keep them small");

// ---------------------------------------------------------------------------------------------
// Instructions

struct Instruction {
  static constexpr int kMaxMods = 16;
  static constexpr int kMaxTypes = 4;

  Opcode opcode{};
  uint8_t numMods = 0;
  uint8_t numTypes = 0;
  bool guardNegated = false;
  uint32_t guard = kNone;           ///< predicate register guarding the instruction (@p / @!p)
  std::array<Mod, kMaxMods> mods{}; ///< every modifier in source order; the printer writes these

  // Typed views of the modifiers (derived at parse time from `mods`).
  std::array<Mod, kMaxTypes> types{}; ///< data types in order, e.g. cvt.f32.s32 -> {f32, s32}
  StateSpace space = StateSpace::None;
  Mod spaceMod = Mod::None; ///< exact state-space spelling, e.g. .shared::cluster
  Mod rounding = Mod::None;
  Mod compare = Mod::None; ///< setp/set comparison
  Mod boolOp = Mod::None;  ///< setp/set combining operation (.and/.or/.xor)
  Mod cache = Mod::None;
  Mod scope = Mod::None;
  Mod semantics = Mod::None;
  uint8_t vectorWidth = 1;
  bool sync = false, aligned = false, uni = false, ftz = false, sat = false, isVolatile = false;

  uint32_t firstOperand = 0; ///< in Function::operands
  uint16_t numOperands = 0;
  uint32_t line = kNone; ///< index into Module::lines (.loc in force), kNone without one
  SourceLoc loc;

  bool has(Mod mod) const;
  Mod type(int i = 0) const { return i < numTypes ? types[i] : Mod::None; }
  bool operator==(const Instruction &) const = default;
};

// ---------------------------------------------------------------------------------------------
// Declarations

/// Initializer items of a module variable, flattened with explicit brace markers.
struct InitItem {
  enum class Kind : uint8_t { Int, Float32, Float64, Symbol, GenericSymbol, Open, Close, Property };
  Kind kind = Kind::Int;
  uint32_t symbol = kNone;
  int64_t value = 0;     ///< value, float bits, or offset added to the symbol's address
  std::string_view key;  ///< Property: sampler/texture property name (filter_mode, addr_mode_0...)
  std::string_view word; ///< Property: symbolic value (linear, wrap...), empty for a number
  bool operator==(const InitItem &) const = default;
};

/// Layout arithmetic that saturates at UINT64_MAX instead of wrapping: a layout past every limit must
/// stay past it (and be refused), not wrap to a small size.
inline uint64_t saturatingAdd(uint64_t a, uint64_t b) {
  return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}
inline uint64_t saturatingAlignUp(uint64_t v, uint64_t align) {
  return v > UINT64_MAX - (align - 1) ? UINT64_MAX : (v + align - 1) / align * align;
}

struct Variable {
  StateSpace space = StateSpace::None;
  Mod spaceMod = Mod::None;
  Linkage linkage = Linkage::None;
  Mod type = Mod::None; ///< data type, or texref/samplerref/surfref
  uint8_t vectorWidth = 1;
  uint32_t align = 0;         ///< explicit .align, 0 when absent
  std::string_view attribute; ///< `.attribute(...)` as written, empty when absent
  std::vector<uint64_t> dims; ///< array dimensions; 0 = unsized `[]`
  std::vector<InitItem> init;
  // Kernel parameter attributes (.ptr .space .align N)
  bool isPointer = false;
  StateSpace pointeeSpace = StateSpace::None;
  uint32_t pointeeAlign = 0;
  SourceLoc loc; ///< of the name
  bool operator==(const Variable &) const = default;

  uint64_t elementCount() const; ///< product of dims (unsized counts as 0); UINT64_MAX if it overflows
  uint64_t sizeInBytes() const;  ///< UINT64_MAX if it overflows
  uint32_t naturalAlign() const;
};

enum class SymbolKind : uint8_t { Variable, Function, Label, Prototype, BranchTargets, CallTargets, Section };

struct Symbol {
  SymbolKind kind = SymbolKind::Variable;
  std::string_view name;
  uint32_t function = kNone; ///< owning function for function-scope symbols
  uint32_t index = kNone;    ///< into Module::variables/functions, Function::statements (labels)...
  SourceLoc loc;
  bool operator==(const Symbol &o) const {
    return kind == o.kind && name == o.name && function == o.function && index == o.index;
  }
};

struct Register {
  std::string_view name;   ///< full name; for ranges the prefix (`%r` of %r<10>)
  int32_t rangeIndex = -1; ///< index within a %r<N> range, -1 for a plain name
  Mod type = Mod::None;
  uint8_t vectorWidth = 1;
  bool operator==(const Register &) const = default;
  std::string displayName() const;
};

struct RegisterDecl {
  Mod type = Mod::None;
  uint8_t vectorWidth = 1;
  struct Item {
    std::string_view name;
    int32_t rangeCount = -1; ///< N of %r<N>, -1 for a plain name
    uint32_t firstRegister = 0;
    bool operator==(const Item &) const = default;
  };
  std::vector<Item> items;
  bool operator==(const RegisterDecl &) const = default;
};

enum class PerfDirectiveKind : uint8_t {
  MaxNTid,
  ReqNTid,
  MinNCtaPerSm,
  MaxNCtaPerSm,
  MaxNReg,
  NoReturn,
  ExplicitCluster,
  ReqNCtaPerCluster,
  MaxClusterRank,
  BlocksAreClusters,
  AbiPreserve,
  AbiPreserveControl
};
std::string_view spelling(PerfDirectiveKind kind);

struct PerfDirective {
  PerfDirectiveKind kind{};
  std::vector<uint32_t> values;
  bool operator==(const PerfDirective &) const = default;
};

struct Prototype {
  std::vector<uint32_t> returns; ///< Variable indices (params named `_` in .callprototype)
  std::vector<uint32_t> params;
  bool noReturn = false;
  bool operator==(const Prototype &) const = default;
};

/// A list of labels or functions (.branchtargets / .calltargets).
struct TargetList {
  std::vector<uint32_t> symbols;
  bool operator==(const TargetList &) const = default;
};

enum class StatementKind : uint8_t {
  Instruction,
  Label,
  RegisterDecl,
  Variable,
  Loc,
  Pragma,
  BlockBegin,
  BlockEnd,
  Prototype,
  BranchTargets,
  CallTargets
};

struct Statement {
  StatementKind kind{};
  uint32_t index = 0; ///< into the matching per-kind vector (labels: Module::symbols)
  bool operator==(const Statement &) const = default;
};

struct Function {
  std::string_view name;
  uint32_t symbol = kNone;
  bool isEntry = false;
  bool hasBody = false;
  Linkage linkage = Linkage::None;
  bool hasReturnList = false; ///< `.func (...) name` even when empty
  SourceLoc returnListLoc;
  std::vector<uint32_t> returns; ///< Variable indices
  std::vector<uint32_t> params;  ///< Variable indices
  bool hasParamList = false;
  std::vector<PerfDirective> directives;
  std::vector<std::string_view> pragmas; ///< pragmas between the signature and the body

  std::vector<Statement> statements;
  std::vector<Instruction> instructions;
  std::vector<Operand> operands;
  std::vector<Register> registers;
  std::vector<RegisterDecl> registerDecls;
  std::vector<uint32_t> localVariables; ///< Variable indices declared in the body, in order
  std::vector<uint32_t> locs;           ///< Module::lines indices of the body's .loc statements
  std::vector<std::string_view> bodyPragmas;
  std::vector<Prototype> prototypes;
  std::vector<TargetList> targetLists;
  SourceLoc loc;

  bool operator==(const Function &) const = default;
  std::span<const Operand> operandsOf(const Instruction &inst) const {
    return {operands.data() + inst.firstOperand, inst.numOperands};
  }
  std::span<const Operand> children(const Operand &op) const { return {operands.data() + op.first, op.count}; }
};

/// One `.loc`: the source position of the instructions that follow, with the inlining chain.
struct LineEntry {
  uint32_t file = 0;
  uint32_t line = 0;
  uint32_t column = 0;
  uint32_t inlinedAt = kNone;    ///< LineEntry of the call site, kNone when not inlined
  uint32_t functionName = kNone; ///< symbol of a .debug_str label naming the inlined function
  int64_t functionNameOffset = 0;
  bool hasInlinedAt = false;
  // The call site as written: `inlined_at file line col`.
  uint32_t atFile = 0, atLine = 0, atColumn = 0;
  SourceLoc loc; ///< of the .loc directive
  bool operator==(const LineEntry &) const = default;
};

struct SourceFile {
  uint32_t index = 0;
  /// The file's path: the name as written, or, in LLVM's two-string form `.file N "dir" "name"`
  /// (clang's OpenCL and CUDA output), the name joined to its directory when it is relative.
  std::string_view name;
  bool hasTimestamp = false;
  uint64_t timestamp = 0;
  uint64_t size = 0;
  std::string_view directory{}; ///< the two-string form's directory as written; empty otherwise
  std::string_view written{};   ///< the two-string form's name as written (for printing)
  bool operator==(const SourceFile &) const = default;
};

/// `.section name { ... }`: DWARF data kept as written. Values of all data lines live in one array
/// per section (a line of `.b8 95` would otherwise cost an allocation per byte).
struct SectionValue {
  uint32_t symbol = kNone;      ///< label or section referenced, kNone for plain numbers
  int64_t value = 0;            ///< number, or offset added to the symbol
  uint32_t minusSymbol = kNone; ///< label difference `a - b`
  bool operator==(const SectionValue &) const = default;
};

struct SectionItem {
  enum class Kind : uint8_t { Label, Data, String };
  Kind kind = Kind::Data;
  Mod type = Mod::None;    ///< .b8/.b16/.b32/.b64 for Data
  uint32_t label = kNone;  ///< symbol for Label items
  std::string_view text;   ///< String items, with quotes
  uint32_t firstValue = 0; ///< Data: into Section::values
  uint32_t numValues = 0;
  bool operator==(const SectionItem &) const = default;
};

struct Section {
  std::string_view name;
  uint32_t symbol = kNone;
  std::vector<SectionItem> items;
  std::vector<SectionValue> values;
  bool operator==(const Section &) const = default;
  std::span<const SectionValue> valuesOf(const SectionItem &item) const {
    return {values.data() + item.firstValue, item.numValues};
  }
};

struct Alias {
  uint32_t alias = kNone;
  uint32_t aliasee = kNone;
  bool operator==(const Alias &) const = default;
};

enum class TopLevelKind : uint8_t { Variable, Function, File, Section, Alias, Pragma };

struct TopLevel {
  TopLevelKind kind{};
  uint32_t index = 0;
  bool operator==(const TopLevel &) const = default;
};

struct Target {
  std::vector<std::string_view> names; ///< as written: sm_90a, debug, texmode_independent...
  uint32_t sm = 0;                     ///< the sm_XX number, 0 when absent
  char smSuffix = 0;                   ///< 'a' (sm_90a) or 'f' (sm_100f), 0 for none
  SourceLoc loc;                       ///< of the .target directive
  bool debug = false;
  bool mapF64ToF32 = false;
  bool operator==(const Target &) const = default;
};

class Module {
public:
  Module() = default;
  Module(Module &&) = default;
  Module &operator=(Module &&) = default;

  uint32_t versionMajor = 0, versionMinor = 0;
  Target target;
  uint32_t addressSize = 0; ///< 32 or 64; 0 when the directive is absent (PTX then means 32)
  bool hasAddressSize = false;

  std::vector<TopLevel> items;
  std::vector<Function> functions;
  std::vector<Variable> variables;
  std::vector<Symbol> symbols;
  std::vector<SourceFile> files;
  std::vector<Section> sections;
  std::vector<Alias> aliases;
  std::vector<std::string_view> pragmas;
  std::vector<LineEntry> lines;

  SourceManager sources;
  std::unordered_map<uint32_t, uint32_t> fileByIndex; ///< .file index -> position in `files`
  /// What the module holds of the process's memory budget (parseModule: an estimate from its size).
  support::MemoryReservation memory;

  uint32_t ptxVersion() const { return versionMajor * 10 + versionMinor; }
  uint32_t pointerBits() const { return addressSize == 64 ? 64 : 32; }
  const SourceFile *findFile(uint32_t index) const;
  std::string_view symbolName(uint32_t id) const { return symbols[id].name; }

  /// Intern text the module must own (synthesized names).
  std::string_view intern(std::string_view text) { return sources.intern(text); }

  /// Structural equality: everything but source positions and owned text buffers.
  bool sameIr(const Module &other) const;
};

} // namespace ptxray::ptx
