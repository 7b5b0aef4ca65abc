// `ptxray fatbin PROGRAM`: the device code nvcc embedded in a host program or shared library (its
// .nv_fatbin section): each entry's kind, architecture and compression, and with --ptx the PTX text,
// decompressed, as `cuobjdump -ptx` extracts it.
#include "cli/Commands.h"
#include "fatbin/Fatbin.h"
#include "support/OutputFile.h"

#include <fmt/format.h>

#include <fstream>
#include <iostream>

namespace ptxray::cli {
namespace {

struct FatbinOptions {
  std::string input;
  bool ptx = false;
  std::string outputDirectory;
};

int fatbinCommand(const FatbinOptions &o) {
  try {
    // nvcc -rdc=true keeps each translation unit's device code in __nv_relfatbin, to be linked when
    // the program loads; .nv_fatbin then holds what nvlink linked (nothing when the units are PTX).
    const std::vector<std::byte> section = fatbin::readElfSection(o.input, ".nv_fatbin");
    const std::vector<std::byte> relocatable = fatbin::readElfSection(o.input, "__nv_relfatbin");
    if (section.empty() && relocatable.empty()) {
      std::cerr << fmt::format("ptxray: error: {}: no device code (no .nv_fatbin section)\n", o.input);
      return 1;
    }
    std::vector<fatbin::FatbinEntry> entries = fatbin::parseFatbins(section);
    const size_t linkedEntries = entries.size();
    for (fatbin::FatbinEntry &e : fatbin::parseFatbins(relocatable))
      entries.push_back(e);
    if (!o.ptx && o.outputDirectory.empty()) {
      for (size_t i = 0; i < entries.size(); ++i) {
        const fatbin::FatbinEntry &e = entries[i];
        const char *kind = e.kind == 1 ? "PTX" : e.kind == 2 ? "ELF" : "other";
        const std::string arch = fmt::format("{}_{}", e.kind == 1 ? "compute" : "sm", e.arch);
        const std::string compression = e.flags & fatbin::kFatbinFlagCompressedZstd     ? "zstd"
                                        : e.flags & fatbin::kFatbinFlagCompressedLegacy ? "legacy"
                                                                                        : "none";
        std::cout << fmt::format("{:<5} {:<11} {:>8} bytes stored, compression {}{}\n", kind, arch, e.payload.size(),
                                 compression, i < linkedEntries ? "" : ", relocatable (-rdc=true)");
      }
      return 0;
    }
    int index = 0;
    for (const fatbin::FatbinEntry &e : entries) {
      if (e.kind != static_cast<uint16_t>(fatbin::FatbinEntryKind::Ptx))
        continue;
      const std::string text = e.text();
      if (!o.outputDirectory.empty()) {
        const std::string path = fmt::format("{}/{}.{}.compute_{}.ptx", o.outputDirectory,
                                             std::filesystem::path(o.input).filename().string(), ++index, e.arch);
        support::writeOutputFile(path, text);
        std::cout << path << "\n";
      } else {
        std::cout << text;
        if (!text.empty() && text.back() != '\n')
          std::cout << "\n";
      }
    }
    return 0;
  } catch (const fatbin::FatbinError &e) {
    std::cerr << "ptxray: error: " << e.what() << "\n";
    return 1;
  }
}

} // namespace

CommandRunner addFatbinCommand(CLI::App &app) {
  auto o = std::make_shared<FatbinOptions>();
  CLI::App *cmd = app.add_subcommand("fatbin", "List or extract the PTX nvcc embedded in a program or library");
  cmd->add_option("input", o->input, "PROGRAM: an executable or shared library built by nvcc")->required();
  cmd->add_flag("--ptx", o->ptx, "Print every PTX entry, decompressed (as cuobjdump -ptx)");
  cmd->add_option("-o,--output-dir", o->outputDirectory, "DIR: write every PTX entry to DIR/PROGRAM.N.compute_XX.ptx")
      ->check(CLI::ExistingDirectory);
  return [cmd, o]() -> int {
    if (!cmd->parsed())
      return -1;
    return fatbinCommand(*o);
  };
}

} // namespace ptxray::cli
