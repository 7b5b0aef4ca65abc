// Compares what spec_runner recorded for one spec on a real GPU with the CPU references
// (tests/kernels/vm/Reference.h): outputs bit for bit, device printf lines as sorted multisets, and
// the exit status (0, or 1 with CUDA_ERROR_ASSERT on stderr where the reference says a launch must
// fail).
//
//   compare SPEC.json RESULT_DIR [LABEL]
//
// RESULT_DIR holds `rc` (spec_runner's exit status), `stdout.txt`, `stderr.txt`, and the output files at the
// spec's relative paths (spec_runner --out-dir RESULT_DIR). Prints one line "PASS LABEL" or
// "FAIL LABEL: ..." (with more lines for each difference); exits 0 on PASS, 1 on FAIL.
//
// Build: g++ -std=c++17 -I../../src -I../../tests -I<folder with nlohmann/json.hpp> compare.cpp
#include "kernels/vm/Reference.h"

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

namespace {

std::string readAll(const std::filesystem::path &p, bool &ok) {
  std::ifstream in(p, std::ios::binary);
  ok = bool(in);
  std::ostringstream s;
  if (ok)
    s << in.rdbuf();
  return s.str();
}

} // namespace

int main(int argc, char **argv) {
  using namespace ptxray::vm;
  using namespace ptxray::session;
  if (argc < 3) {
    std::fprintf(stderr, "usage: compare SPEC.json RESULT_DIR [LABEL]\n");
    return 2;
  }
  std::filesystem::path specFile = argv[1], dir = argv[2];
  std::string label = argc > 3 ? argv[3] : specFile.stem().string();
  std::vector<std::string> problems;
  try {
    spec::RunSpec s = spec::loadRunSpec(specFile);
    ref::Expected e = ref::runReference(s);
    bool ok = false;
    std::string rcText = readAll(dir / "rc", ok);
    int rc = ok ? std::atoi(rcText.c_str()) : -1;
    if (!ok)
      problems.push_back("no rc file");
    if (e.error) {
      // On a GPU a failed device assert is CUDA_ERROR_ASSERT, which spec_runner reports with status 1.
      std::string err = readAll(dir / "stderr.txt", ok);
      if (rc == 0)
        problems.push_back("the run succeeded, but must fail: " + *e.error);
      else if (rc != 1 || err.find("CUDA_ERROR_ASSERT") == std::string::npos)
        problems.push_back("exit status " + std::to_string(rc) +
                           " without CUDA_ERROR_ASSERT; must fail with: " + *e.error);
    } else {
      if (rc != 0)
        problems.push_back("exit status " + std::to_string(rc) + " (stderr.txt says why)");
      for (const auto &o : s.outputs) {
        std::string actual = readAll(dir / o.file, ok);
        if (!ok) {
          problems.push_back(o.buffer + ": no output file " + o.file);
          continue;
        }
        spec::Bytes got(actual.begin(), actual.end());
        std::string diff = ref::firstDifference(e.outputs.at(o.buffer), got);
        if (!diff.empty())
          problems.push_back(o.buffer + ": " + diff);
      }
    }
    std::string out = readAll(dir / "stdout.txt", ok);
    std::vector<std::string> lines = ref::sortedLines(out);
    if (!e.error && lines != e.stdoutLines) {
      std::string msg =
          "stdout: " + std::to_string(lines.size()) + " lines, expected " + std::to_string(e.stdoutLines.size());
      for (size_t i = 0; i < std::max(lines.size(), e.stdoutLines.size()); ++i) {
        std::string a = i < lines.size() ? lines[i] : "<none>";
        std::string b = i < e.stdoutLines.size() ? e.stdoutLines[i] : "<none>";
        if (a != b) {
          msg += "; first difference (sorted): got '" + a + "', expected '" + b + "'";
          break;
        }
      }
      problems.push_back(msg);
    }
  } catch (const std::exception &ex) {
    problems.push_back(std::string("reference failed: ") + ex.what());
  }
  if (problems.empty()) {
    std::printf("PASS %s\n", label.c_str());
    return 0;
  }
  std::printf("FAIL %s: %zu problem(s)\n", label.c_str(), problems.size());
  for (const auto &p : problems)
    std::printf("    %s\n", p.c_str());
  return 1;
}
