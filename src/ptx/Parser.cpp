#include "ptx/Parser.h"

#include "ptx/Demangle.h"
#include "ptx/ParserImpl.h"
#include "ptx/Verifier.h"

#include <fmt/format.h>

#include <algorithm>

namespace ptxray::ptx {
namespace {
/// The parsed module's structures, its text included, take about this many bytes per byte of PTX
/// (measured: a synthetic 11.4 MB module of 20,000 kernels peaks at 177 MB in `ptxray parse`).
constexpr uint64_t kParsedBytesPerSourceByte = 16;

/// Taken before parsing: a module the budget cannot hold is refused at once, not after it has
/// filled the machine's memory.
void reserveParseMemory(Module &m, std::string_view name, uint64_t textBytes) {
  const uint64_t bytes = textBytes * kParsedBytesPerSourceByte;
  if (!m.memory.tryGrow(bytes))
    throw support::MemoryBudgetExceeded(fmt::format("parsing {} ({} of PTX, about {} bytes per byte)", name,
                                                    support::memorySizeText(textBytes), kParsedBytesPerSourceByte),
                                        bytes, support::memoryInUse(), support::memoryBudget());
}

// ---- Linking -------------------------------------------------------------------------------------

/// What one module said of itself before the next one was parsed into the same Module.
struct ModuleHeader {
  uint32_t versionMajor = 0, versionMinor = 0;
  Target target;
  uint32_t pointerBits = 32;
  uint32_t file = 0; ///< its SourceManager file
};

Linkage linkageOf(const Module &m, const Symbol &s) {
  if (s.kind == SymbolKind::Function)
    return m.functions[s.index].linkage;
  if (s.kind == SymbolKind::Variable)
    return m.variables[s.index].linkage;
  return Linkage::None;
}

bool isDefinition(const Module &m, const Symbol &s) {
  if (s.kind == SymbolKind::Function)
    return m.functions[s.index].hasBody;
  return linkageOf(m, s) != Linkage::Extern;
}

/// Takes part in linking: a function or variable with external linkage. Shared variables do not: an
/// `.extern .shared` array is the launch's dynamic shared memory, the same window in every module.
bool linksAcrossModules(const Module &m, const Symbol &s) {
  if (s.kind != SymbolKind::Function && s.kind != SymbolKind::Variable)
    return false;
  if (s.index >= (s.kind == SymbolKind::Function ? m.functions.size() : m.variables.size()))
    return false;
  if (s.kind == SymbolKind::Variable && m.variables[s.index].space == StateSpace::Shared)
    return false;
  return linkageOf(m, s) != Linkage::None;
}

std::string shownName(std::string_view name) {
  std::string d = demangle(name);
  return d == name ? fmt::format("'{}'", name) : fmt::format("'{}' ({})", d, name);
}

std::string describeParams(const Module &m, const std::vector<uint32_t> &params) {
  std::string out;
  for (uint32_t p : params) {
    const Variable &v = m.variables[p];
    out += fmt::format("{}{}", out.empty() ? "" : ", ", spelling(v.type));
    if (v.vectorWidth > 1)
      out += fmt::format(" .v{}", v.vectorWidth);
    if (!v.dims.empty())
      out += fmt::format("[{}]", v.sizeInBytes() / std::max<uint64_t>(typeInfo(v.type).bits / 8, 1));
  }
  return "(" + out + ")";
}

bool sameParams(const Module &m, const std::vector<uint32_t> &a, const std::vector<uint32_t> &b) {
  if (a.size() != b.size())
    return false;
  for (size_t i = 0; i < a.size(); ++i) {
    const Variable &x = m.variables[a[i]], &y = m.variables[b[i]];
    // The size and the kind of register a parameter travels in: .b32 and .u32 are one ABI class.
    if (x.sizeInBytes() != y.sizeInBytes() ||
        (typeInfo(x.type).kind == TypeKind::Float) != (typeInfo(y.type).kind == TypeKind::Float))
      return false;
  }
  return true;
}

/// Why `decl` cannot name `def`; empty when it can.
std::string mismatch(const Module &m, const Symbol &decl, const Symbol &def) {
  if (decl.kind != def.kind)
    return fmt::format("it is declared a {} and defined a {}",
                       decl.kind == SymbolKind::Function ? "function" : "variable",
                       def.kind == SymbolKind::Function ? "function" : "variable");
  if (decl.kind == SymbolKind::Function) {
    const Function &a = m.functions[decl.index], &b = m.functions[def.index];
    if (a.isEntry != b.isEntry)
      return a.isEntry ? "it is declared a kernel (.entry) and defined a function (.func)"
                       : "it is declared a function (.func) and defined a kernel (.entry)";
    if (!sameParams(m, a.params, b.params))
      return fmt::format("the declaration's parameters are {}, the definition's {}", describeParams(m, a.params),
                         describeParams(m, b.params));
    if (!sameParams(m, a.returns, b.returns))
      return fmt::format("the declaration returns {}, the definition {}", describeParams(m, a.returns),
                         describeParams(m, b.returns));
    return {};
  }
  const Variable &a = m.variables[decl.index], &b = m.variables[def.index];
  if (a.space != b.space)
    return fmt::format("it is declared in {} and defined in {}", spelling(a.space), spelling(b.space));
  const uint64_t declared = a.sizeInBytes(), defined = b.sizeInBytes();
  // An unsized declaration (`.extern .global .b8 table[]`) names a definition of any size.
  if (declared != 0 && defined != 0 && declared != defined)
    return fmt::format("it is declared {} bytes and defined {} bytes", declared, defined);
  return {};
}

struct Candidate {
  size_t module = 0;   ///< the input that declares or defines the name
  uint32_t symbol = 0; ///< its symbol in the linked Module
};

/// Resolves the external names of the parsed modules: points every module's name at one definition
/// (or leaves it to the driver), and reports what nvlink reports.
void resolveExternalNames(Module &m, std::vector<std::unique_ptr<detail::Parser>> &parsers, Diagnostics &diags,
                          const LinkOptions &link) {
  std::unordered_map<std::string_view, std::vector<Candidate>> byName;
  std::vector<std::string_view> order;
  for (size_t i = 0; i < parsers.size(); ++i)
    for (const auto &[name, symbol] : parsers[i]->globals())
      if (linksAcrossModules(m, m.symbols[symbol])) {
        auto &list = byName[name];
        if (list.empty())
          order.push_back(name);
        list.push_back({i, symbol});
      }
  // In the order the modules declare them, so that diagnostics come in file order.
  for (auto &[name, list] : byName)
    std::sort(list.begin(), list.end(), [](const Candidate &a, const Candidate &b) { return a.symbol < b.symbol; });
  std::sort(order.begin(), order.end(),
            [&](std::string_view a, std::string_view b) { return byName[a][0].symbol < byName[b][0].symbol; });

  // Where each module first uses a name (for an undefined reference's error), built when one is found.
  std::vector<std::unordered_map<std::string_view, const detail::PendingRef *>> firstUse(parsers.size());
  std::vector<char> firstUseBuilt(parsers.size(), 0);
  auto useIn = [&](size_t module, std::string_view name) -> const detail::PendingRef * {
    if (!firstUseBuilt[module]) {
      firstUseBuilt[module] = 1;
      for (const detail::PendingRef &r : parsers[module]->pendingModule())
        if (r.slot != detail::PendingRef::Slot::SectionValue && r.slot != detail::PendingRef::Slot::SectionMinus &&
            r.slot != detail::PendingRef::Slot::LineFunctionName)
          firstUse[module].try_emplace(r.name, &r);
    }
    auto it = firstUse[module].find(name);
    return it == firstUse[module].end() ? nullptr : it->second;
  };
  for (std::string_view name : order) {
    const std::vector<Candidate> &list = byName[name];
    std::vector<Candidate> strong, weak, common, declarations;
    for (const Candidate &c : list) {
      const Symbol &s = m.symbols[c.symbol];
      if (!isDefinition(m, s))
        declarations.push_back(c);
      else if (linkageOf(m, s) == Linkage::Weak)
        weak.push_back(c);
      else if (linkageOf(m, s) == Linkage::Common)
        common.push_back(c);
      else
        strong.push_back(c);
    }
    for (size_t i = 1; i < strong.size(); ++i) {
      diags.error(m.symbols[strong[i].symbol].loc, fmt::format("multiple definition of {}", shownName(name)));
      diags.note(m.symbols[strong[0].symbol].loc, "first defined here");
    }
    std::optional<Candidate> winner;
    if (!strong.empty())
      winner = strong[0];
    else if (!weak.empty())
      winner = weak[0];
    else if (!common.empty())
      winner = *std::max_element(common.begin(), common.end(), [&](const Candidate &a, const Candidate &b) {
        // The first of the largest: max_element keeps the first of equals when asked "less".
        return m.variables[m.symbols[a.symbol].index].sizeInBytes() <
               m.variables[m.symbols[b.symbol].index].sizeInBytes();
      });
    if (!winner) {
      if ((parsers.size() < 2 && !link.requireDefinitions) || link.allowUndefined ||
          (link.providedByDriver && link.providedByDriver(name)))
        continue;
      // Undefined: an error where a module uses it (a declaration nothing uses costs nothing).
      for (const Candidate &c : declarations) {
        const detail::PendingRef *use = useIn(c.module, name);
        if (!use)
          continue;
        diags.error(use->loc, fmt::format("undefined reference to {}: no linked module defines it", shownName(name)));
        diags.note(m.symbols[c.symbol].loc, "declared here");
        break;
      }
      continue;
    }
    const Symbol &def = m.symbols[winner->symbol];
    for (const Candidate &c : list) {
      if (c.symbol == winner->symbol)
        continue;
      Symbol &other = m.symbols[c.symbol];
      // .common variables differ in size by design: the largest is kept.
      const bool otherCommon = isDefinition(m, other) && linkageOf(m, other) == Linkage::Common;
      std::string why = mismatch(m, other, def);
      if (otherCommon && other.kind == def.kind && m.variables[other.index].space == m.variables[def.index].space)
        why.clear();
      if (!why.empty()) {
        if (isDefinition(m, other))
          diags.error(other.loc,
                      fmt::format("definition of {} does not match the one the link keeps: {}", shownName(name), why));
        else
          diags.error(other.loc,
                      fmt::format("declaration of {} does not match its definition: {}", shownName(name), why));
        diags.note(def.loc, "defined here");
        continue;
      }
      // Every use of the name in that module, and the symbol itself (placement, function addresses),
      // is now the definition.
      parsers[c.module]->globals()[name] = winner->symbol;
      other.index = def.index;
    }
  }
}

} // namespace

ParseResult parseModule(std::string fileName, std::string text, const ParseOptions &options) {
  ParseResult result;
  result.module = std::make_unique<Module>();
  Module &m = *result.module;
  reserveParseMemory(m, fileName, text.size());
  uint32_t file = m.sources.add(std::move(fileName), std::move(text));
  detail::Parser parser(m, result.diagnostics, file);
  parser.parseModule();
  if (options.verify && !result.diagnostics.full())
    verifyModule(m, result.diagnostics);
  return result;
}

ParseResult linkModules(std::vector<LinkInput> inputs, const ParseOptions &options, const LinkOptions &link) {
  if (inputs.size() == 1 && !link.requireDefinitions)
    return parseModule(std::move(inputs[0].name), std::move(inputs[0].text), options);
  ParseResult result;
  result.module = std::make_unique<Module>();
  Module &m = *result.module;
  uint64_t total = 0;
  for (const LinkInput &in : inputs)
    total += in.text.size();
  reserveParseMemory(m, inputs.empty() ? "no modules" : inputs[0].name, total);

  std::vector<std::unique_ptr<detail::Parser>> parsers;
  std::vector<ModuleHeader> headers;
  uint64_t registers = 0; // over every file: the linked module's bound
  for (LinkInput &in : inputs) {
    uint32_t base = 0;
    for (const SourceFile &f : m.files)
      base = std::max(base, f.index + 1);
    const uint32_t file = m.sources.add(std::move(in.name), std::move(in.text));
    auto parser = std::make_unique<detail::Parser>(m, result.diagnostics, file);
    parser->setFileIndexBase(base);
    parser->shareRegisterCount(registers);
    parser->parseTopLevels();
    headers.push_back({m.versionMajor, m.versionMinor, m.target, m.pointerBits(), file});
    // The next module states its own.
    m.versionMajor = m.versionMinor = 0;
    m.target = {};
    m.addressSize = 0;
    m.hasAddressSize = false;
    parsers.push_back(std::move(parser));
    if (result.diagnostics.full())
      break;
  }
  if (headers.empty())
    return result;

  // The linked module: the newest ISA version and architecture of its parts, which must agree on
  // the size of an address.
  const ModuleHeader *newest = &headers[0], *highest = &headers[0];
  for (const ModuleHeader &h : headers) {
    if (h.versionMajor * 10 + h.versionMinor > newest->versionMajor * 10 + newest->versionMinor)
      newest = &h;
    if (h.target.sm > highest->target.sm)
      highest = &h;
    if (h.pointerBits != headers[0].pointerBits) {
      result.diagnostics.error({h.file, 0, 1},
                               fmt::format("cannot link a {}-bit module with a {}-bit one ({}): .address_size differs",
                                           h.pointerBits, headers[0].pointerBits, m.sources.name(headers[0].file)));
    }
  }
  m.versionMajor = newest->versionMajor;
  m.versionMinor = newest->versionMinor;
  m.target = highest->target;
  for (const ModuleHeader &h : headers)
    m.target.debug = m.target.debug || h.target.debug;
  m.addressSize = headers[0].pointerBits;
  m.hasAddressSize = true;

  if (!result.diagnostics.full())
    resolveExternalNames(m, parsers, result.diagnostics, link);
  for (auto &parser : parsers)
    parser->finishModule();
  if (options.verify && !result.diagnostics.full())
    verifyModule(m, result.diagnostics);
  return result;
}

} // namespace ptxray::ptx
