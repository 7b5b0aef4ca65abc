// Front-end throughput on a large module built from the real nvcc output of the test corpus.
//
// The input is >= 20 MB: every compute_90 corpus module is repeated with its module-scope names
// (kernels, functions, variables) renamed per copy, so the text is what nvcc writes, at scale.
#include "ptx/Lexer.h"
#include "ptx/Parser.h"
#include "ptx/Printer.h"

#include <benchmark/benchmark.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <numeric>
#include <set>
#include <string>

namespace {

using namespace ptxray;

std::string readFile(const std::filesystem::path &path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

/// Text of `source` after its module header, with every module-scope name suffixed by `suffix` and
/// `.extern` prototypes removed (they are declared once for the whole module). Renames tokens, so
/// comments and strings are copied untouched.
std::string renamedBody(const std::string &source, const std::set<std::string, std::less<>> &names,
                        const std::string &suffix, uint32_t fileBase, std::string &externs,
                        std::set<std::string> &declared) {
  size_t begin = source.find('\n', source.find(".address_size")) + 1;
  std::string_view body = std::string_view(source).substr(begin);
  std::string out;
  out.reserve(body.size() + body.size() / 8);
  ptx::Lexer lexer(body);
  size_t copied = 0;
  bool fileIndexNext = false; // .file/.loc/inlined_at: renumber so copies keep distinct file tables
  for (ptx::Token t = lexer.next(); t.kind != ptx::TokenKind::End; t = lexer.next()) {
    if (fileIndexNext && t.kind == ptx::TokenKind::Integer) {
      out.append(body.substr(copied, t.offset - copied));
      out += std::to_string(fileBase + std::stoul(std::string(t.text)));
      copied = t.offset + t.text.size();
    }
    fileIndexNext = (t.kind == ptx::TokenKind::DotWord && (t.text == ".file" || t.text == ".loc")) ||
                    (t.kind == ptx::TokenKind::Identifier && t.text == "inlined_at");
    if (t.kind == ptx::TokenKind::DotWord && t.text == ".extern") {
      size_t semi = body.find(';', t.offset);
      std::string decl(body.substr(t.offset, semi + 1 - t.offset));
      if (decl.find(".func") != std::string::npos) {
        out.append(body.substr(copied, t.offset - copied));
        if (declared.insert(decl).second)
          externs += decl + "\n";
        copied = semi + 1;
        while (lexer.offset() < copied && lexer.next().kind != ptx::TokenKind::End) {
        }
        continue;
      }
    }
    // DWARF string labels are module-scope too.
    if (t.kind == ptx::TokenKind::Identifier && (names.count(t.text) || t.text.starts_with("$L__info_string"))) {
      out.append(body.substr(copied, t.offset + t.text.size() - copied));
      out += suffix;
      copied = t.offset + t.text.size();
    }
  }
  out.append(body.substr(copied));
  return out;
}

const std::string &largeModule() {
  static const std::string text = [] {
    std::filesystem::path dir = std::filesystem::path(PTXRAY_SOURCE_DIR) / "tests/corpus/nvcc/compute_90";
    std::vector<std::filesystem::path> files;
    for (const auto &e : std::filesystem::directory_iterator(dir))
      if (e.path().extension() == ".ptx")
        files.push_back(e.path());
    std::sort(files.begin(), files.end());
    std::vector<std::pair<std::string, std::set<std::string, std::less<>>>> sources;
    for (const auto &f : files) {
      std::string src = readFile(f);
      ptx::ParseResult r = ptx::parseModule(f.string(), src);
      if (!r.ok())
        continue;
      std::set<std::string, std::less<>> names;
      for (const ptx::TopLevel &item : r.module->items) {
        if (item.kind == ptx::TopLevelKind::Function) {
          const ptx::Function &fn = r.module->functions[item.index];
          if (fn.linkage != ptx::Linkage::Extern)
            names.insert(std::string(fn.name));
        }
      }
      for (const ptx::Symbol &s : r.module->symbols)
        if (s.kind == ptx::SymbolKind::Variable && s.function == ptx::kNone &&
            r.module->variables[s.index].space != ptx::StateSpace::Param &&
            r.module->variables[s.index].linkage != ptx::Linkage::Extern)
          names.insert(std::string(s.name));
      sources.emplace_back(std::move(src), std::move(names));
    }
    std::string externs, bodies;
    std::set<std::string> declared;
    uint32_t fileBase = 0;
    for (int copy = 0; bodies.size() < 20u * 1024 * 1024; ++copy)
      for (const auto &[src, names] : sources) {
        bodies += renamedBody(src, names, "_c" + std::to_string(fileBase / 1000), fileBase, externs, declared);
        fileBase += 1000;
      }
    std::string out = ".version 9.0\n.target sm_90\n.address_size 64\n";
    out += externs;
    out += bodies;
    return out;
  }();
  return text;
}

void BM_Lex(benchmark::State &state) {
  const std::string &text = largeModule();
  for (auto _ : state) {
    ptx::Lexer lexer(text);
    size_t tokens = 0;
    while (lexer.next().kind != ptx::TokenKind::End)
      ++tokens;
    benchmark::DoNotOptimize(tokens);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * text.size()));
}
BENCHMARK(BM_Lex)->Unit(benchmark::kMillisecond);

void BM_ParseAndVerify(benchmark::State &state) {
  const std::string &text = largeModule();
  {
    ptx::ParseResult check = ptx::parseModule("large.ptx", text);
    if (!check.ok()) {
      state.SkipWithError(check.diagnostics.render(check.module->sources).substr(0, 2000).c_str());
      return;
    }
    state.counters["instructions"] = static_cast<double>(
        std::accumulate(check.module->functions.begin(), check.module->functions.end(), size_t{0},
                        [](size_t n, const ptx::Function &f) { return n + f.instructions.size(); }));
    state.counters["MB"] = static_cast<double>(text.size()) / (1024.0 * 1024.0);
  }
  for (auto _ : state) {
    ptx::ParseResult r = ptx::parseModule("large.ptx", text);
    benchmark::DoNotOptimize(r.module.get());
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * text.size()));
}
BENCHMARK(BM_ParseAndVerify)->Unit(benchmark::kMillisecond);

void BM_Print(benchmark::State &state) {
  const std::string &text = largeModule();
  ptx::ParseResult r = ptx::parseModule("large.ptx", text);
  size_t bytes = 0;
  for (auto _ : state) {
    std::string out = ptx::printModule(*r.module);
    bytes = out.size();
    benchmark::DoNotOptimize(out.data());
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * bytes));
}
BENCHMARK(BM_Print)->Unit(benchmark::kMillisecond);

} // namespace
