#include "runtime/JitLink.h"

#include "fatbin/Fatbin.h"
#include "ptx/Parser.h"
#include "runtime/Runtime.h"
#include "support/InputFile.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <iostream>
#include <stdexcept>

namespace ptxray::runtime {

namespace {
// CUjit_option values (cuda.h).
constexpr int kJitInfoLogBuffer = 3;
constexpr int kJitInfoLogBufferSizeBytes = 4;
constexpr int kJitErrorLogBuffer = 5;
constexpr int kJitErrorLogBufferSizeBytes = 6;
// CUjitInputType values (cuda.h).
constexpr int kJitInputCubin = 0;
constexpr int kJitInputPtx = 1;
constexpr int kJitInputFatbinary = 2;
constexpr int kJitInputObject = 3;
constexpr int kJitInputLibrary = 4;
constexpr int kJitInputNvvm = 5;

constexpr char kImageMagic[8] = {'P', 'T', 'X', 'R', 'A', 'Y', 'L', 'K'};
/// A bound on what an image read from the program's memory may claim to hold.
constexpr uint64_t kMaxImageBytes = uint64_t{4} << 30;

template <class T> void append(std::string &out, T value) {
  out.append(reinterpret_cast<const char *>(&value), sizeof value);
}
} // namespace

JitLogs JitLogs::fromOptions(unsigned count, const int *options, void **values) {
  JitLogs logs;
  if (!options || !values)
    return logs;
  for (unsigned i = 0; i < count && i < 1024; ++i) {
    switch (options[i]) {
    case kJitInfoLogBuffer: logs.info = static_cast<char *>(values[i]); break;
    case kJitInfoLogBufferSizeBytes:
      logs.infoBytes = reinterpret_cast<uintptr_t>(values[i]);
      logs.infoFilled = &values[i];
      break;
    case kJitErrorLogBuffer: logs.error = static_cast<char *>(values[i]); break;
    case kJitErrorLogBufferSizeBytes:
      logs.errorBytes = reinterpret_cast<uintptr_t>(values[i]);
      logs.errorFilled = &values[i];
      break;
    default: break; // optimization levels, register limits, targets: nothing to change in the model
    }
  }
  return logs;
}

void JitLogs::write(char *buffer, size_t bytes, void **filled, std::string_view text) {
  if (!buffer || bytes == 0)
    return;
  const size_t n = std::min(text.size(), bytes - 1);
  std::memcpy(buffer, text.data(), n);
  buffer[n] = '\0';
  if (filled)
    *filled = reinterpret_cast<void *>(static_cast<uintptr_t>(n + 1));
}

std::string encodeLinkedImage(const std::vector<LinkUnit> &units) {
  std::string body;
  append(body, static_cast<uint32_t>(units.size()));
  for (const LinkUnit &u : units) {
    append(body, static_cast<uint32_t>(u.name.size()));
    append(body, static_cast<uint64_t>(u.ptx.size()));
    body += u.name;
    body += u.ptx;
  }
  std::string image(kImageMagic, sizeof kImageMagic);
  append(image, static_cast<uint64_t>(sizeof kImageMagic + 8 + body.size()));
  return image + body;
}

bool isLinkedImage(const void *image) {
  return image && std::memcmp(image, kImageMagic, sizeof kImageMagic) == 0;
}

std::vector<LinkUnit> decodeLinkedImage(const void *image) {
  const char *p = static_cast<const char *>(image);
  uint64_t total = 0;
  std::memcpy(&total, p + sizeof kImageMagic, 8);
  if (total < sizeof kImageMagic + 12 || total > kMaxImageBytes)
    throw std::runtime_error(fmt::format("a linked image of {} bytes: not one cuLinkComplete made", total));
  const std::string_view bytes(p, total);
  size_t at = sizeof kImageMagic + 8;
  auto read = [&](void *out, size_t n) {
    if (n > bytes.size() - at)
      throw std::runtime_error("a truncated linked image");
    std::memcpy(out, bytes.data() + at, n);
    at += n;
  };
  uint32_t count = 0;
  read(&count, 4);
  std::vector<LinkUnit> units;
  for (uint32_t i = 0; i < count; ++i) {
    uint32_t nameBytes = 0;
    uint64_t ptxBytes = 0;
    read(&nameBytes, 4);
    read(&ptxBytes, 8);
    if (nameBytes > bytes.size() - at || ptxBytes > bytes.size() - at - nameBytes)
      throw std::runtime_error("a truncated linked image");
    LinkUnit u;
    u.name.assign(bytes.data() + at, nameBytes);
    u.ptx.assign(bytes.data() + at + nameBytes, ptxBytes);
    at += nameBytes + ptxBytes;
    units.push_back(std::move(u));
  }
  return units;
}

std::vector<ArchiveMember> archiveMembers(std::string_view archive) {
  constexpr std::string_view kMagic = "!<arch>\n";
  if (!archive.starts_with(kMagic))
    throw std::runtime_error("not an archive (no !<arch> header)");
  std::vector<ArchiveMember> members;
  std::string_view longNames; // the GNU "//" member
  size_t at = kMagic.size();
  while (at + 60 <= archive.size()) {
    const std::string_view header = archive.substr(at, 60);
    std::string name(header.substr(0, 16));
    name.erase(name.find_last_not_of(' ') + 1);
    uint64_t size = 0;
    for (char c : header.substr(48, 10)) {
      if (c == ' ')
        break;
      if (c < '0' || c > '9')
        throw std::runtime_error(fmt::format("a malformed archive member header at byte {}", at));
      size = size * 10 + static_cast<uint64_t>(c - '0');
    }
    at += 60;
    if (size > archive.size() - at)
      throw std::runtime_error(fmt::format("a truncated archive member at byte {}", at - 60));
    const std::string_view bytes = archive.substr(at, size);
    if (name == "//") {
      longNames = bytes;
    } else if (name != "/" && name != "/SYM64/") { // symbol tables
      if (name.size() > 1 && name[0] == '/' && name[1] >= '0' && name[1] <= '9') {
        const size_t offset = std::strtoull(name.c_str() + 1, nullptr, 10);
        if (offset < longNames.size())
          name = std::string(longNames.substr(offset, longNames.find('\n', offset) - offset));
      }
      if (name.ends_with('/'))
        name.pop_back();
      members.push_back({name, bytes});
    }
    at += size + (size & 1); // members start at even offsets
  }
  return members;
}

// ---------------------------------------------------------------------------------------------------
// The driver calls

namespace {
/// CUDA_ERROR_INVALID_SOURCE: what an H200's driver returns when the modules do not link, from
/// cuLinkAddData for a duplicate definition, from cuLinkComplete for an undefined reference
/// (validation/programs/results/rdc/jit_link.*).
constexpr cuda::Error kLinkFailed = cuda::kErrorInvalidSource;

std::string linkedFunctionsNote() {
  return "vprintf, malloc, free, __assertfail and the device runtime are provided by ptxray";
}
} // namespace

cuda::Error Runtime::linkCreate(const JitLogs &logs, void **state) {
  if (!state)
    return cuda::kErrorInvalidValue;
  auto s = std::make_unique<LinkState>();
  s->logs = logs;
  linkStates_.push_back(std::move(s));
  *state = linkStates_.back().get();
  return cuda::kSuccess;
}

LinkState *Runtime::findLinkState(void *state) {
  for (const auto &s : linkStates_)
    if (s.get() == state)
      return s.get();
  return nullptr;
}

cuda::Error Runtime::linkAddData(void *state, int type, const void *data, size_t size, const char *name) {
  LinkState *s = findLinkState(state);
  if (!s || !data)
    return s ? cuda::kErrorInvalidValue : cuda::kErrorInvalidResourceHandle;
  const std::string unitName = name && *name ? name : fmt::format("module{}", s->units.size() + 1);
  const arch::ComputeCapability &cc = device_->computeCapability();
  const int sm = cc.major * 10 + cc.minor;
  auto fail = [&](cuda::Error error, const std::string &why) {
    s->logs.writeError(why);
    std::cerr << "ptxray: error: cuLinkAddData: " << why << (why.ends_with('\n') ? "" : "\n");
    return error;
  };
  // The PTX of a fatbinary container: the newest the device can run (or, not strict, the oldest).
  auto ptxOfFatbins = [&](std::span<const std::byte> container, std::vector<std::string> &out) {
    std::vector<fatbin::EmbeddedPtx> ptx;
    for (const fatbin::FatbinEntry &e : fatbin::parseFatbins(container))
      if (e.kind == static_cast<uint16_t>(fatbin::FatbinEntryKind::Ptx))
        ptx.push_back({e.arch, e.text()});
    const fatbin::EmbeddedPtx *chosen = fatbin::choosePtx(ptx, sm);
    if (!chosen && !config_.strictPtx && !ptx.empty())
      chosen =
          &*std::min_element(ptx.begin(), ptx.end(), [](const fatbin::EmbeddedPtx &a, const fatbin::EmbeddedPtx &b) {
            return a.arch < b.arch;
          });
    if (chosen)
      out.push_back(chosen->text);
    return !ptx.empty();
  };
  // An nvcc -rdc=true object: its fatbinary holds the unit's PTX.
  auto ptxOfObject = [&](std::span<const std::byte> image, std::vector<std::string> &out) {
    bool any = false;
    for (const char *section : {".nv_fatbin", "__nv_relfatbin"}) {
      const std::vector<std::byte> bytes = fatbin::elfSection(image, section);
      if (!bytes.empty())
        any = ptxOfFatbins(bytes, out) || any;
    }
    return any;
  };
  std::vector<std::string> texts;
  try {
    switch (type) {
    case kJitInputPtx: {
      const char *text = static_cast<const char *>(data);
      texts.emplace_back(text, strnlen(text, size));
      break;
    }
    case kJitInputFatbinary:
      if (!ptxOfFatbins(fatbin::fatbinAt(data), texts))
        return fail(cuda::kErrorNoKernelImageForDevice,
                    fmt::format("{}: the fatbinary holds no PTX (SASS only); ptxray links PTX", unitName));
      break;
    case kJitInputObject:
      if (!ptxOfObject({static_cast<const std::byte *>(data), size}, texts))
        return fail(cuda::kErrorNoKernelImageForDevice,
                    fmt::format("{}: the object holds no PTX; compile it with nvcc -rdc=true -c and an -arch that "
                                "embeds PTX",
                                unitName));
      break;
    case kJitInputLibrary: {
      // NVIDIA's device runtime library: ptxray's device runtime stands in for it, as the driver's does.
      if (unitName.ends_with("cudadevrt.a") || unitName.ends_with("cudadevrt"))
        return cuda::kSuccess;
      for (const ArchiveMember &m : archiveMembers({static_cast<const char *>(data), size}))
        ptxOfObject({reinterpret_cast<const std::byte *>(m.bytes.data()), m.bytes.size()}, texts);
      break;
    }
    case kJitInputCubin:
      return fail(
          cuda::kErrorNoKernelImageForDevice,
          fmt::format("{}: a cubin (SASS); ptxray links PTX: add the PTX (nvcc -ptx -rdc=true) instead", unitName));
    case kJitInputNvvm:
      return fail(cuda::kErrorNotSupported, fmt::format("{}: NVVM IR input is not supported; add PTX", unitName));
    default: return fail(cuda::kErrorInvalidValue, fmt::format("{}: unknown input type {}", unitName, type));
    }
  } catch (const std::exception &e) {
    return fail(cuda::kErrorInvalidKernelImage, fmt::format("{}: {}", unitName, e.what()));
  }
  for (size_t i = 0; i < texts.size(); ++i) {
    const std::string n = texts.size() == 1 ? unitName : fmt::format("{}#{}", unitName, i + 1);
    // As the driver compiles PTX when it is added: its own errors are found now.
    ptx::ParseResult parsed = ptx::parseModule(n, texts[i]);
    if (!parsed.ok())
      return fail(cuda::kErrorInvalidPtx, parsed.diagnostics.render(parsed.module->sources));
    // So is a name it defines that an earlier module defines too (the driver's linker says so here).
    if (!s->units.empty()) {
      std::vector<ptx::LinkInput> inputs;
      for (const LinkUnit &u : s->units)
        inputs.push_back({u.name, u.ptx});
      inputs.push_back({n, texts[i]});
      ptx::LinkOptions link;
      link.allowUndefined = true;
      ptx::ParseResult linked = ptx::linkModules(std::move(inputs), {.verify = false}, link);
      if (!linked.ok())
        return fail(kLinkFailed, linked.diagnostics.render(linked.module->sources));
    }
    s->units.push_back({n, std::move(texts[i])});
  }
  return cuda::kSuccess;
}

cuda::Error Runtime::linkAddFile(void *state, int type, const char *path) {
  LinkState *s = findLinkState(state);
  if (!s || !path)
    return s ? cuda::kErrorInvalidValue : cuda::kErrorInvalidResourceHandle;
  if (type == kJitInputLibrary && std::string_view(path).ends_with("cudadevrt.a"))
    return cuda::kSuccess; // ptxray's device runtime stands in for NVIDIA's library
  std::string contents;
  try {
    contents = support::readInputFile(path, support::InputContents::Binary, support::kMaxBinaryInputBytes);
  } catch (const std::exception &e) {
    s->logs.writeError(e.what());
    std::cerr << "ptxray: error: cuLinkAddFile: " << e.what() << "\n";
    return cuda::kErrorFileNotFound;
  }
  return linkAddData(state, type, contents.c_str(), contents.size(), path);
}

cuda::Error Runtime::linkComplete(void *state, void **image, size_t *size) {
  LinkState *s = findLinkState(state);
  if (!s)
    return cuda::kErrorInvalidResourceHandle;
  if (!image)
    return cuda::kErrorInvalidValue;
  // Nothing added links to an image without code, as the driver's does (CUDA_SUCCESS on an H200).
  std::vector<ptx::LinkInput> inputs;
  for (const LinkUnit &u : s->units)
    inputs.push_back({u.name, u.ptx});
  ptx::LinkOptions link;
  link.providedByDriver = vm::Device::providedByDriver;
  link.requireDefinitions = true; // nvlink's rule, one module or several
  ptx::ParseResult linked = ptx::linkModules(std::move(inputs), {}, link);
  if (!linked.ok()) {
    const std::string log = linked.diagnostics.render(linked.module->sources);
    s->logs.writeError(log);
    std::cerr << "ptxray: error: cuLinkComplete: the modules do not link:\n" << log;
    return kLinkFailed;
  }
  std::string names;
  for (const LinkUnit &u : s->units)
    names += fmt::format("{}{}", names.empty() ? "" : ", ", u.name);
  s->logs.writeInfo(fmt::format("ptxray: linked {} module{} ({}); {}", s->units.size(), s->units.size() == 1 ? "" : "s",
                                names, linkedFunctionsNote()));
  s->image = encodeLinkedImage(s->units);
  *image = s->image.data();
  if (size)
    *size = s->image.size();
  return cuda::kSuccess;
}

cuda::Error Runtime::linkDestroy(void *state) {
  for (auto it = linkStates_.begin(); it != linkStates_.end(); ++it)
    if (it->get() == state) {
      linkStates_.erase(it);
      return cuda::kSuccess;
    }
  return cuda::kErrorInvalidResourceHandle;
}

cuda::Error Runtime::loadModuleFromFile(void **module, const char *path) {
  if (!module || !path)
    return cuda::kErrorInvalidValue;
  std::string contents;
  try {
    contents = support::readInputFile(path, support::InputContents::Binary, support::kMaxBinaryInputBytes);
  } catch (const std::exception &e) {
    std::cerr << "ptxray: error: cuModuleLoad: " << e.what() << "\n";
    return cuda::kErrorFileNotFound;
  }
  // An executable or object built by nvcc: its fatbinary.
  if (contents.starts_with("\x7f"
                           "ELF")) {
    const std::vector<std::byte> section =
        fatbin::elfSection({reinterpret_cast<const std::byte *>(contents.data()), contents.size()}, ".nv_fatbin");
    if (!section.empty())
      contents.assign(reinterpret_cast<const char *>(section.data()), section.size());
  }
  return loadModule(module, contents.c_str());
}

} // namespace ptxray::runtime
