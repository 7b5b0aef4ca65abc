#include "ptx/Ir.h"

#include <fmt/format.h>

namespace ptxray::ptx {

std::string_view spelling(StateSpace space) {
  switch (space) {
  case StateSpace::None: return "";
  case StateSpace::Reg: return ".reg";
  case StateSpace::SReg: return ".sreg";
  case StateSpace::Const: return ".const";
  case StateSpace::Global: return ".global";
  case StateSpace::Local: return ".local";
  case StateSpace::Param: return ".param";
  case StateSpace::Shared: return ".shared";
  case StateSpace::Tex: return ".tex";
  case StateSpace::Generic: return "generic";
  }
  return "";
}

std::string_view spelling(PerfDirectiveKind kind) {
  switch (kind) {
  case PerfDirectiveKind::MaxNTid: return ".maxntid";
  case PerfDirectiveKind::ReqNTid: return ".reqntid";
  case PerfDirectiveKind::MinNCtaPerSm: return ".minnctapersm";
  case PerfDirectiveKind::MaxNCtaPerSm: return ".maxnctapersm";
  case PerfDirectiveKind::MaxNReg: return ".maxnreg";
  case PerfDirectiveKind::NoReturn: return ".noreturn";
  case PerfDirectiveKind::ExplicitCluster: return ".explicitcluster";
  case PerfDirectiveKind::ReqNCtaPerCluster: return ".reqnctapercluster";
  case PerfDirectiveKind::MaxClusterRank: return ".maxclusterrank";
  case PerfDirectiveKind::BlocksAreClusters: return ".blocksareclusters";
  case PerfDirectiveKind::AbiPreserve: return ".abi_preserve";
  case PerfDirectiveKind::AbiPreserveControl: return ".abi_preserve_control";
  }
  return "";
}

bool Instruction::has(Mod mod) const {
  for (int i = 0; i < numMods; ++i)
    if (mods[i] == mod)
      return true;
  return false;
}

std::string Register::displayName() const {
  if (rangeIndex < 0)
    return std::string(name);
  return fmt::format("{}{}", name, rangeIndex);
}

uint64_t Variable::elementCount() const {
  uint64_t n = 1;
  for (size_t i = 0; i < dims.size(); ++i) {
    uint64_t d = dims[i];
    if (d == 0 && i == 0 && !init.empty()) {
      // `.global .u32 a[] = {1, 2, 3}`: the outer dimension is the number of initializers.
      d = 0;
      int depth = 0;
      for (const InitItem &item : init) {
        if (item.kind == InitItem::Kind::Open)
          d += depth++ == 1;
        else if (item.kind == InitItem::Kind::Close)
          --depth;
        else if (depth == 1)
          ++d;
      }
    }
    if (__builtin_mul_overflow(n, d, &n))
      return UINT64_MAX; // saturated: larger than any state space (the parser refuses it)
  }
  return n;
}

uint64_t Variable::sizeInBytes() const {
  TypeInfo t = typeInfo(type);
  uint64_t bytes = t.kind == TypeKind::Pred ? 1 : (t.bits + 7) / 8;
  uint64_t total = 0;
  if (__builtin_mul_overflow(bytes * vectorWidth, elementCount(), &total))
    return UINT64_MAX;
  return total;
}

uint32_t Variable::naturalAlign() const {
  TypeInfo t = typeInfo(type);
  uint32_t bytes = t.kind == TypeKind::Pred ? 1 : (t.bits + 7) / 8;
  return bytes * vectorWidth;
}

const SourceFile *Module::findFile(uint32_t index) const {
  auto it = fileByIndex.find(index);
  return it == fileByIndex.end() ? nullptr : &files[it->second];
}

bool Module::sameIr(const Module &o) const {
  return versionMajor == o.versionMajor && versionMinor == o.versionMinor && target == o.target &&
         addressSize == o.addressSize && hasAddressSize == o.hasAddressSize && items == o.items &&
         functions == o.functions && variables == o.variables && symbols == o.symbols && files == o.files &&
         sections == o.sections && aliases == o.aliases && pragmas == o.pragmas && lines == o.lines;
}

} // namespace ptxray::ptx
