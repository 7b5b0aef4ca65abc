// The driver's JIT linker (cuLinkCreate, cuLinkAddData/AddFile, cuLinkComplete, cuLinkDestroy): PTX,
// fatbinaries, nvcc -rdc=true objects and archives gathered, checked by the device linker's rules
// (ptx::linkModules) at cuLinkComplete, and handed back as an image cuModuleLoadData loads.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ptxray::runtime {

/// The log buffers of a JIT options array (CU_JIT_INFO_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER and their
/// sizes): what the linker says is written there, NUL-terminated, and the number of bytes written
/// replaces the size in the caller's array, as the driver does.
struct JitLogs {
  char *info = nullptr;
  size_t infoBytes = 0;
  void **infoFilled = nullptr;
  char *error = nullptr;
  size_t errorBytes = 0;
  void **errorFilled = nullptr;

  static JitLogs fromOptions(unsigned count, const int *options, void **values);
  void writeInfo(std::string_view text) const { write(info, infoBytes, infoFilled, text); }
  void writeError(std::string_view text) const { write(error, errorBytes, errorFilled, text); }

private:
  static void write(char *buffer, size_t bytes, void **filled, std::string_view text);
};

/// One module of a link: its name (as cuLinkAddData was given it, or the file's) and PTX.
struct LinkUnit {
  std::string name;
  std::string ptx;
};

struct LinkState {
  JitLogs logs;
  std::vector<LinkUnit> units;
  std::string image; ///< cuLinkComplete's result, owned until cuLinkDestroy
};

/// cuLinkComplete's image: "PTXRAYLK", its size in bytes (8 bytes), the unit count (4), then per unit
/// its name's and its PTX's sizes (4 and 8 bytes) and their bytes. Nothing a GPU driver loads, but
/// a program only passes it to cuModuleLoadData (or writes it to a file for cuModuleLoad).
std::string encodeLinkedImage(const std::vector<LinkUnit> &units);
bool isLinkedImage(const void *image);
/// Throws std::runtime_error for an image whose sizes do not add up.
std::vector<LinkUnit> decodeLinkedImage(const void *image);

/// The members of a Unix archive (a static library, `ar`), by name. Throws std::runtime_error for a
/// malformed one.
struct ArchiveMember {
  std::string name;
  std::string_view bytes;
};
std::vector<ArchiveMember> archiveMembers(std::string_view archive);

} // namespace ptxray::runtime
