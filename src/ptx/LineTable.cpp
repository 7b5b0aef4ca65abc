#include "ptx/LineTable.h"

namespace ptxray::ptx {

SourcePosition LineTable::positionOf(uint32_t fileIndex, uint32_t line, uint32_t column) const {
  SourcePosition pos;
  pos.fileIndex = fileIndex;
  pos.line = line;
  pos.column = column;
  if (const SourceFile *f = m_.findFile(fileIndex))
    pos.file = f->name;
  return pos;
}

std::optional<SourcePosition> LineTable::position(const Instruction &inst) const {
  if (inst.line == kNone)
    return std::nullopt;
  const LineEntry &e = m_.lines[inst.line];
  SourcePosition pos = positionOf(e.file, e.line, e.column);
  if (e.functionName != kNone)
    pos.inlinedFunction = debugString(e.functionName, e.functionNameOffset);
  return pos;
}

std::vector<SourcePosition> LineTable::chain(const Instruction &inst) const {
  if (inst.line == kNone)
    return {};
  return chain(inst.line);
}

std::vector<SourcePosition> LineTable::chain(uint32_t lineIndex) const {
  std::vector<SourcePosition> out;
  uint32_t index = lineIndex;
  // Each .loc names its call site; the call site's own .loc (if it was itself inlined) continues
  // the chain. Bound the walk by the table size so malformed input cannot loop.
  for (size_t steps = 0; index != kNone && steps <= m_.lines.size(); ++steps) {
    const LineEntry &e = m_.lines[index];
    SourcePosition pos = positionOf(e.file, e.line, e.column);
    if (e.functionName != kNone)
      pos.inlinedFunction = debugString(e.functionName, e.functionNameOffset);
    out.push_back(std::move(pos));
    if (!e.hasInlinedAt)
      break;
    if (e.inlinedAt == kNone || e.inlinedAt >= index) {
      out.push_back(positionOf(e.atFile, e.atLine, e.atColumn));
      break;
    }
    index = e.inlinedAt;
  }
  return out;
}

std::string LineTable::debugString(uint32_t symbol, int64_t offset) const {
  if (symbol == kNone)
    return {};
  const Symbol &sym = m_.symbols[symbol];
  const Section *sec = nullptr;
  size_t start = 0;
  if (sym.kind == SymbolKind::Section && sym.index < m_.sections.size()) {
    sec = &m_.sections[sym.index];
  } else if (sym.kind == SymbolKind::Label && sym.function == kNone && sym.index < m_.sections.size()) {
    sec = &m_.sections[sym.index];
    for (size_t i = 0; i < sec->items.size(); ++i)
      if (sec->items[i].kind == SectionItem::Kind::Label && sec->items[i].label == symbol)
        start = i;
  }
  if (!sec)
    return {};
  std::string bytes;
  int64_t skip = offset;
  for (size_t i = start; i < sec->items.size(); ++i) {
    const SectionItem &item = sec->items[i];
    if (item.kind != SectionItem::Kind::Data)
      continue;
    uint32_t width = (typeInfo(item.type).bits + 7) / 8;
    for (const SectionValue &v : sec->valuesOf(item)) {
      for (uint32_t b = 0; b < width; ++b) {
        char c = static_cast<char>((static_cast<uint64_t>(v.value) >> (8 * b)) & 0xff);
        if (skip > 0) {
          --skip;
          continue;
        }
        if (c == '\0')
          return bytes;
        bytes.push_back(c);
        if (bytes.size() > 4096)
          return bytes;
      }
    }
  }
  return bytes;
}

} // namespace ptxray::ptx
