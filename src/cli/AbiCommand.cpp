// `ptxray abi`: how data is laid out and passed under the PTX ABI, and whether PTX follows it.
//   abi layout FILE.h|FILE.cl|- [--type NAME] [--address-size 32|64] [--lang cuda|opencl] [--json] [--diagram]
//   abi param 'TYPE' [--address-size 32|64] [--lang cuda|opencl] [--json]
//   abi check FILE.ptx [FILE2.ptx ...] [--no-unresolved]
#include "abi/AbiChecker.h"
#include "abi/CDeclParser.h"
#include "abi/Layout.h"
#include "abi/ParamMapping.h"
#include "cli/Commands.h"
#include "cli/Input.h"
#include "ptx/Parser.h"

#if __has_include("abi/LayoutDiagram.h")
#include "abi/LayoutDiagram.h"
#define PTXRAY_HAVE_LAYOUT_DIAGRAM 1
#endif

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <iostream>
#include <memory>
#include <unordered_set>

namespace ptxray::cli {
namespace {

struct AbiOptionsCli {
  std::string file;
  std::string type;
  unsigned addressSize = 64;
  bool json = false;
  bool diagram = false;
  std::string typeText;
  std::vector<std::string> ptxFiles;
  bool noUnresolved = false;
  std::string lang; ///< "cuda", "opencl", or empty: OpenCL C for a .cl file, else CUDA C++
};

/// The language the declarations are read in: --lang when given, else OpenCL C for a `.cl` file (whose
/// vector types are aligned to their size, PTX interoperability §1.2) and CUDA C++ for the rest.
abi::SourceLanguage languageOf(const AbiOptionsCli &o, std::string_view file) {
  if (!o.lang.empty())
    return o.lang == "opencl" ? abi::SourceLanguage::OpenCL : abi::SourceLanguage::Cuda;
  return file.ends_with(".cl") ? abi::SourceLanguage::OpenCL : abi::SourceLanguage::Cuda;
}

nlohmann::json membersJson(const std::vector<abi::MemberLayout> &members) {
  nlohmann::json out = nlohmann::json::array();
  for (const abi::MemberLayout &m : members) {
    nlohmann::json j = {{"name", m.name},          {"type", abi::typeName(m.type)}, {"bit_offset", m.bitOffset},
                        {"bit_width", m.bitWidth}, {"byte_offset", m.byteOffset},   {"size", m.size},
                        {"align", m.align},        {"bit_field", m.isBitField}};
    if (!m.members.empty())
      j["members"] = membersJson(m.members);
    out.push_back(std::move(j));
  }
  return out;
}

std::string kindOf(const abi::Layout &layout) {
  switch (layout.type->kind) {
  case abi::TypeKind::Record: return layout.type->isUnion ? "union" : "struct";
  case abi::TypeKind::Array: return "array";
  case abi::TypeKind::Vector: return "vector";
  case abi::TypeKind::Pointer: return "pointer";
  case abi::TypeKind::Enum: return "enum";
  case abi::TypeKind::Opaque: return "opaque";
  default: return "scalar";
  }
}

/// The member table of one type in `abi layout`'s text. Its size stays proportional to the header's:
/// a nested struct that has its own entry in the same listing is one line (its members are listed
/// there; a chain of 400 nested structs printed 60 MB when each repeated all those below it), the
/// indentation stops growing past kIndentedLevels, and one type lists at most kMaxLines members (the
/// rest are counted; --json lists them all).
struct MemberListing {
  static constexpr int kIndentedLevels = 16;
  static constexpr uint64_t kMaxLines = 20000;
  std::string &out;
  /// Records with their own entry in this listing (not expanded when nested in another one).
  const std::unordered_set<const abi::Type *> &listed;
  uint64_t lines = 0, omitted = 0;
  /// Bit ranges of the members shown on one line (their padding is listed with them).
  std::vector<std::pair<uint64_t, uint64_t>> elided;

  static uint64_t count(const std::vector<abi::MemberLayout> &members) {
    uint64_t n = members.size();
    for (const abi::MemberLayout &m : members)
      n += count(m.members);
    return n;
  }

  void print(const std::vector<abi::MemberLayout> &members, int depth) {
    for (const abi::MemberLayout &m : members) {
      if (lines == kMaxLines) {
        omitted += 1 + count(m.members);
        continue;
      }
      ++lines;
      std::string where = m.isBitField ? fmt::format("bits {}..{}", m.bitOffset, m.bitOffset + m.bitWidth - 1)
                                       : fmt::format("offset {}", m.byteOffset);
      const bool elsewhere = !m.members.empty() && listed.contains(m.type.get());
      const int indent = 4 + 2 * std::min(depth, kIndentedLevels);
      std::string name = m.name.empty() ? "<unnamed>" : m.name;
      if (depth > kIndentedLevels)
        name = fmt::format("[{}] {}", depth, name); // the nesting level, where the indentation stops
      out += fmt::format("{:{}}{:<20} {:<24} {:<18} size {:>3}  align {:>3}{}\n", "", indent, name,
                         abi::typeName(m.type), where, m.size, m.align,
                         elsewhere ? fmt::format("  (members: see {})", abi::typeName(m.type)) : "");
      if (!elsewhere)
        print(m.members, depth + 1);
      else
        elided.emplace_back(m.bitOffset, m.bitOffset + m.size * 8);
    }
  }
};

int runLayout(const AbiOptionsCli &o) {
  auto input = readInput(o.file);
  if (!input)
    return 2;
  abi::CDeclResult parsed = abi::parseCDecls(input->text, languageOf(o, o.file));
  for (const abi::CDeclError &e : parsed.errors)
    std::cerr << abi::formatError(input->name, e) << "\n";
  if (!parsed.ok())
    return 1;
  std::vector<const abi::NamedType *> selected;
  if (!o.type.empty()) {
    const abi::NamedType *t = parsed.header.find(o.type);
    if (!t) {
      std::cerr << fmt::format("ptxray: error: {} defines no type '{}'\n", input->name, o.type);
      return 1;
    }
    selected.push_back(t);
  } else {
    for (const abi::NamedType &t : parsed.header.types)
      selected.push_back(&t);
  }
  nlohmann::json types = nlohmann::json::array();
  std::string text;
  abi::LayoutCache cache;
  std::unordered_set<const abi::Type *> listed;
  for (const abi::NamedType *t : selected)
    if (t->type->kind == abi::TypeKind::Record)
      listed.insert(t->type.get());
  for (const abi::NamedType *t : selected) {
    try {
      abi::Layout layout = abi::layoutOf(t->type, o.addressSize, cache);
      abi::ParamMapping param = abi::mapParam(t->type, o.addressSize, "param", abi::ParamRole::Parameter, cache);
      if (o.json) {
        nlohmann::json entry = {{"name", t->name},
                                {"kind", kindOf(layout)},
                                {"size", layout.size},
                                {"align", layout.align},
                                {"param", param.text}};
        entry["members"] = membersJson(layout.members);
        types.push_back(std::move(entry));
        continue;
      }
      text += fmt::format("{} {}: size {}, align {}\n", kindOf(layout), t->name, layout.size, layout.align);
      listed.erase(t->type.get()); // its own members, in full
      MemberListing listing{text, listed, 0, 0, {}};
      listing.print(layout.members, 0);
      listed.insert(t->type.get());
      if (listing.omitted)
        text += fmt::format("    ... and {} more members (--json lists every one)\n", listing.omitted);
      uint64_t insideBits = 0, insideHoles = 0;
      for (const abi::Hole &h : layout.holes) {
        if (std::any_of(listing.elided.begin(), listing.elided.end(), [&](const auto &r) {
              return h.bitOffset >= r.first && h.bitOffset + h.bitCount <= r.second;
            })) {
          insideBits += h.bitCount; // padding inside a member shown on one line: its own entry lists it
          ++insideHoles;
          continue;
        }
        text += h.byteAligned() ? fmt::format("    padding: {} byte{} at offset {}{}\n", h.bitCount / 8,
                                              h.bitCount == 8 ? "" : "s", h.bitOffset / 8, h.tail ? " (tail)" : "")
                                : fmt::format("    padding: {} bit{} at bit {}\n", h.bitCount,
                                              h.bitCount == 1 ? "" : "s", h.bitOffset);
      }
      if (insideHoles)
        text += fmt::format("    padding inside the members listed on their own: {} in {} hole{}\n",
                            insideBits % 8 ? fmt::format("{} bits", insideBits)
                                           : fmt::format("{} byte{}", insideBits / 8, insideBits == 8 ? "" : "s"),
                            insideHoles, insideHoles == 1 ? "" : "s");
      text += fmt::format("    passed as: {}\n", param.text);
#ifdef PTXRAY_HAVE_LAYOUT_DIAGRAM
      if (o.diagram)
        text += abi::layoutDiagram(layout);
#endif
      text += "\n";
    } catch (const abi::AbiError &e) {
      std::cerr << fmt::format("ptxray: error: {}: {}\n", t->name, e.what());
      return 1;
    }
  }
  if (o.json)
    std::cout << nlohmann::json{{"types", types}}.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
  else
    std::cout << text;
  return 0;
}

int runParam(const AbiOptionsCli &o) {
  abi::CTypeResult parsed = abi::parseCType(o.typeText, nullptr, languageOf(o, {}));
  for (const abi::CDeclError &e : parsed.errors)
    std::cerr << abi::formatError("<type>", e) << "\n";
  if (!parsed.ok())
    return 1;
  try {
    abi::ParamMapping p = abi::mapParam(parsed.type, o.addressSize, "param");
    abi::Layout layout = abi::layoutOf(parsed.type, o.addressSize);
    if (o.json) {
      std::cout << nlohmann::json{{"type", abi::typeName(parsed.type)},
                                  {"size", layout.size},
                                  {"align", layout.align},
                                  {"param", p.text},
                                  {"param_size", p.size},
                                  {"param_align", p.align},
                                  {"note", p.note}}
                       .dump(2, ' ', false, nlohmann::json::error_handler_t::replace)
                << "\n";
    } else {
      std::cout << fmt::format("{}: size {}, align {}\n  {}\n  {}\n", abi::typeName(parsed.type), layout.size,
                               layout.align, p.text, p.note);
    }
  } catch (const abi::AbiError &e) {
    std::cerr << fmt::format("ptxray: error: {}\n", e.what());
    return 1;
  }
  return 0;
}

int runCheck(const AbiOptionsCli &o) {
  std::vector<std::unique_ptr<ptx::Module>> modules;
  bool parseFailed = false;
  for (const std::string &path : o.ptxFiles) {
    auto input = readInput(path);
    if (!input)
      return 2;
    ptx::ParseResult r = ptx::parseModule(input->name, std::move(input->text));
    if (!r.ok()) {
      std::cerr << r.diagnostics.render(r.module->sources);
      parseFailed = true;
    }
    modules.push_back(std::move(r.module));
  }
  if (parseFailed)
    return 1;
  std::vector<const ptx::Module *> views;
  for (const auto &m : modules)
    views.push_back(m.get());
  abi::AbiOptions options;
  options.reportUnresolvedExterns = !o.noUnresolved;
  std::vector<abi::AbiFinding> findings = abi::checkAbi(views, options);
  std::cerr << abi::renderFindings(views, findings);
  size_t errors = 0;
  for (const abi::AbiFinding &f : findings)
    errors += f.severity == ptx::Severity::Error;
  if (findings.empty()) {
    std::cout << fmt::format("{} module{}: no ABI findings\n", views.size(), views.size() == 1 ? "" : "s");
    return 0;
  }
  std::cerr << fmt::format("{} ABI finding{} ({} error{}).\n", findings.size(), findings.size() == 1 ? "" : "s", errors,
                           errors == 1 ? "" : "s");
  return errors ? 1 : 0;
}

} // namespace

CommandRunner addAbiCommand(CLI::App &app) {
  auto o = std::make_shared<AbiOptionsCli>();
  CLI::App *cmd = app.add_subcommand("abi", "PTX ABI: data layout, parameter passing, compliance");
  cmd->require_subcommand(1);
  const std::string langHelp = "cuda (CUDA C++, the default) or opencl (OpenCL C: uchar..ulong, 64-bit long, "
                               "size_t, half, vectors of 2/3/4/8/16 elements aligned to their size)";
  CLI::App *layout = cmd->add_subcommand("layout", "Layout of the structs and unions of a C header");
  layout->add_option("file", o->file, "C header, OpenCL C source (.cl: --lang opencl), or - for standard input")
      ->required();
  layout->add_option("--type", o->type, "Only this type (name, 'struct S' or a typedef)");
  layout->add_option("--address-size", o->addressSize, "32 or 64")->check(CLI::IsMember({32, 64}));
  layout->add_option("--lang", o->lang, langHelp + "; default: opencl for a .cl file")
      ->check(CLI::IsMember({"cuda", "opencl"}));
  layout->add_flag("--json", o->json, "Print as JSON");
  layout->add_flag("--diagram", o->diagram, "Draw the byte and bit layout");
  CLI::App *param = cmd->add_subcommand("param", "The .param declaration that passes a type");
  param->add_option("type", o->typeText, "A C type, e.g. 'struct {char c; double d;}', short, float4")->required();
  param->add_option("--address-size", o->addressSize, "32 or 64")->check(CLI::IsMember({32, 64}));
  param->add_option("--lang", o->lang, langHelp)->check(CLI::IsMember({"cuda", "opencl"}));
  param->add_flag("--json", o->json, "Print as JSON");
  CLI::App *check = cmd->add_subcommand("check", "Check PTX modules against the ABI (linked together)");
  check->add_option("files", o->ptxFiles, "PTX files")->required();
  check->add_flag("--no-unresolved", o->noUnresolved, "Allow .extern functions no module defines");
  return [cmd, layout, param, check, o]() -> int {
    if (!cmd->parsed())
      return -1;
    if (layout->parsed())
      return runLayout(*o);
    if (param->parsed())
      return runParam(*o);
    if (check->parsed())
      return runCheck(*o);
    return 2;
  };
}

} // namespace ptxray::cli
