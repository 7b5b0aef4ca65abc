// libptxray-nvtx.so: an NVTX injection library. A program annotated with NVTX (nvtxRangePush/Pop,
// nvtxRangeStart/End, nvtxMark, their domain variants, nvtx3's C++ scoped ranges) loads the library
// NVTX_INJECTION64_PATH names at its first NVTX call and calls its InitializeInjectionNvtx2, which
// fills NVTX's function tables with its own functions. `ptxray exec` points the variable here, so the
// program's ranges reach the session its API library (libcuda.so.1 or libptxray-opencl.so) records:
// the timeline, its trace and `nsys stats`' nvtx_sum show them on the host's modeled time.
//
// The NVTX interface is a C ABI (NVTX 3's, the same as NVTX 2's): an export table of callbacks that
// hands out the tables of function pointers by module (core: 1, core2: 5) and slot; the event
// attributes structure; the message kinds (1 ASCII, 2 wide, 3 a registered string handle). Its
// numbers are written out here, so the library builds without NVIDIA's headers.
#include "session/NvtxHook.h"

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <cwchar>
#include <dlfcn.h>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <sys/syscall.h>
#include <unistd.h>
#include <vector>

namespace {

// ---- NVTX's ABI ----
using FunctionPointer = void (*)();
using FunctionTable = FunctionPointer **;
struct ExportTableCallbacks {
  size_t structSize;
  int (*getModuleFunctionTable)(int module, FunctionTable *table, unsigned *size);
};
using GetExportTable = const void *(*)(uint32_t exportTableId);
constexpr uint32_t kCallbacksTable = 1;
constexpr int kCoreModule = 1, kCore2Module = 5;
enum CoreSlot : unsigned {
  MarkEx = 1,
  MarkA,
  MarkW,
  RangeStartEx,
  RangeStartA,
  RangeStartW,
  RangeEnd,
  RangePushEx,
  RangePushA,
  RangePushW,
  RangePop,
};
enum Core2Slot : unsigned {
  DomainMarkEx = 1,
  DomainRangeStartEx,
  DomainRangeEnd,
  DomainRangePushEx,
  DomainRangePop,
  DomainResourceCreate,
  DomainResourceDestroy,
  DomainNameCategoryA,
  DomainNameCategoryW,
  DomainRegisterStringA,
  DomainRegisterStringW,
  DomainCreateA,
  DomainCreateW,
  DomainDestroy,
};
constexpr int32_t kColorArgb = 1;
constexpr int32_t kMessageAscii = 1, kMessageUnicode = 2, kMessageRegistered = 3;
struct EventAttributes {
  uint16_t version;
  uint16_t size;
  uint32_t category;
  int32_t colorType;
  uint32_t color;
  int32_t payloadType;
  int32_t reserved0;
  uint64_t payload;
  int32_t messageType;
  const void *message;
};
static_assert(sizeof(EventAttributes) == 48, "NVTX's nvtxEventAttributes_v2");

// ---- Our state ----

/// Domains and registered strings live until the process ends (handles the program keeps).
struct Domain {
  std::string name;
};
struct Registered {
  std::string text;
};

struct Open {
  std::string name;
  std::string domain;
  size_t begin = 0;
  uint32_t color = 0;
  unsigned depth = 0;
  uint64_t thread = 0;
};

std::mutex registryMutex;
std::vector<std::unique_ptr<Domain>> domains;
std::vector<std::unique_ptr<Registered>> registeredStrings;
std::map<uint64_t, Open> startedRanges; ///< nvtxRangeStart ids not yet ended
std::atomic<uint64_t> nextRangeId{1};

/// Push/pop ranges are per thread and per domain.
thread_local std::map<const void *, std::vector<Open>> threadStacks;

uint64_t threadId() {
  return static_cast<uint64_t>(syscall(SYS_gettid));
}

std::string narrow(const wchar_t *text) {
  std::string out;
  if (!text)
    return out;
  for (; *text; ++text)
    out += *text < 0x80 ? static_cast<char>(*text) : '?';
  return out;
}

// The API library's hooks, looked up until found: a program's first NVTX call may come before it
// loaded its CUDA or OpenCL library (ranges begun then begin before any operation, position 0).
struct Hooks {
  PtxrayNvtxPositionFn position = nullptr;
  PtxrayNvtxRecordFn record = nullptr;
};

Hooks findHooks() {
  std::vector<void *> handles{RTLD_DEFAULT};
  // NVIDIA's static runtime and the OpenCL loader open their libraries privately (RTLD_LOCAL).
  if (void *cuda = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_NOLOAD))
    handles.push_back(cuda);
  if (const char *opencl = std::getenv("OCL_ICD_FILENAMES"); opencl && *opencl) {
    const std::string first(opencl, std::strcspn(opencl, ":"));
    if (void *icd = dlopen(first.c_str(), RTLD_LAZY | RTLD_NOLOAD))
      handles.push_back(icd);
  }
  for (void *handle : handles) {
    Hooks h;
    h.position = reinterpret_cast<PtxrayNvtxPositionFn>(dlsym(handle, PTXRAY_NVTX_POSITION_SYMBOL));
    h.record = reinterpret_cast<PtxrayNvtxRecordFn>(dlsym(handle, PTXRAY_NVTX_RECORD_SYMBOL));
    if (h.position && h.record)
      return h;
  }
  return {};
}

Hooks hooks() {
  static std::atomic<bool> found{false};
  static Hooks cached;
  static std::mutex mutex;
  if (found.load(std::memory_order_acquire))
    return cached;
  std::lock_guard lock(mutex);
  if (!found.load(std::memory_order_relaxed)) {
    cached = findHooks();
    if (cached.position)
      found.store(true, std::memory_order_release);
  }
  return cached;
}

size_t position() {
  const Hooks h = hooks();
  return h.position ? h.position() : 0;
}

void record(const Open &open, size_t end, bool mark, bool pushPop) {
  const Hooks h = hooks();
  if (!h.record)
    return;
  const PtxrayNvtxRange range{open.name.c_str(), open.domain.c_str(), open.begin,      end,        open.depth,
                              open.color,        mark ? 1 : 0,        pushPop ? 1 : 0, open.thread};
  h.record(&range);
}

std::string domainName(const void *domain) {
  return domain ? static_cast<const Domain *>(domain)->name : std::string();
}

Open fromAttributes(const void *domain, const EventAttributes *a) {
  Open o;
  o.domain = domainName(domain);
  o.thread = threadId();
  if (!a)
    return o;
  if (a->colorType == kColorArgb)
    o.color = a->color;
  if (a->message) {
    if (a->messageType == kMessageAscii)
      o.name = static_cast<const char *>(a->message);
    else if (a->messageType == kMessageUnicode)
      o.name = narrow(static_cast<const wchar_t *>(a->message));
    else if (a->messageType == kMessageRegistered)
      o.name = static_cast<const Registered *>(a->message)->text;
  }
  return o;
}

Open named(std::string name) {
  Open o;
  o.name = std::move(name);
  o.thread = threadId();
  return o;
}

// ---- The functions NVTX's tables get ----

void mark(const void *domain, Open o) {
  o.domain = domainName(domain);
  o.begin = position();
  record(o, o.begin, true, false);
}

uint64_t start(Open o) {
  o.begin = position();
  const uint64_t id = nextRangeId.fetch_add(1);
  std::lock_guard lock(registryMutex);
  startedRanges.emplace(id, std::move(o));
  return id;
}

void end(uint64_t id) {
  Open o;
  {
    std::lock_guard lock(registryMutex);
    auto it = startedRanges.find(id);
    if (it == startedRanges.end())
      return;
    o = std::move(it->second);
    startedRanges.erase(it);
  }
  record(o, position(), false, false);
}

/// NVTX's push returns the new range's level (0 for the outermost); pop the level it closed, or a
/// negative number when nothing was open.
int push(const void *domain, Open o) {
  std::vector<Open> &stack = threadStacks[domain];
  o.begin = position();
  o.depth = static_cast<unsigned>(stack.size());
  stack.push_back(std::move(o));
  return static_cast<int>(stack.size()) - 1;
}

int pop(const void *domain) {
  std::vector<Open> &stack = threadStacks[domain];
  if (stack.empty())
    return -1;
  Open o = std::move(stack.back());
  stack.pop_back();
  record(o, position(), false, true);
  return static_cast<int>(stack.size());
}

void markEx(const EventAttributes *a) {
  mark(nullptr, fromAttributes(nullptr, a));
}
void markA(const char *message) {
  mark(nullptr, named(message ? message : ""));
}
void markW(const wchar_t *message) {
  mark(nullptr, named(narrow(message)));
}
uint64_t rangeStartEx(const EventAttributes *a) {
  return start(fromAttributes(nullptr, a));
}
uint64_t rangeStartA(const char *message) {
  return start(named(message ? message : ""));
}
uint64_t rangeStartW(const wchar_t *message) {
  return start(named(narrow(message)));
}
void rangeEnd(uint64_t id) {
  end(id);
}
int rangePushEx(const EventAttributes *a) {
  return push(nullptr, fromAttributes(nullptr, a));
}
int rangePushA(const char *message) {
  return push(nullptr, named(message ? message : ""));
}
int rangePushW(const wchar_t *message) {
  return push(nullptr, named(narrow(message)));
}
int rangePop() {
  return pop(nullptr);
}

void domainMarkEx(const void *domain, const EventAttributes *a) {
  mark(domain, fromAttributes(domain, a));
}
uint64_t domainRangeStartEx(const void *domain, const EventAttributes *a) {
  return start(fromAttributes(domain, a));
}
void domainRangeEnd(const void *, uint64_t id) {
  end(id);
}
int domainRangePushEx(const void *domain, const EventAttributes *a) {
  return push(domain, fromAttributes(domain, a));
}
int domainRangePop(const void *domain) {
  return pop(domain);
}
const void *registerString(std::string text) {
  std::lock_guard lock(registryMutex);
  registeredStrings.push_back(std::make_unique<Registered>(Registered{std::move(text)}));
  return registeredStrings.back().get();
}
const void *domainRegisterStringA(const void *, const char *text) {
  return registerString(text ? text : "");
}
const void *domainRegisterStringW(const void *, const wchar_t *text) {
  return registerString(narrow(text));
}
const void *createDomain(std::string name) {
  std::lock_guard lock(registryMutex);
  domains.push_back(std::make_unique<Domain>(Domain{std::move(name)}));
  return domains.back().get();
}
const void *domainCreateA(const char *name) {
  return createDomain(name ? name : "");
}
const void *domainCreateW(const wchar_t *name) {
  return createDomain(narrow(name));
}
void domainDestroy(const void *) {} // its handle may still name ranges not yet recorded

template <typename F> void install(FunctionTable table, unsigned size, unsigned slot, F *function) {
  if (slot <= size && table[slot])
    *table[slot] = reinterpret_cast<FunctionPointer>(function);
}

} // namespace

/// NVTX's entry point into the injection library: nonzero when it took over.
extern "C" __attribute__((visibility("default"))) int InitializeInjectionNvtx2(GetExportTable getExportTable) {
  if (!getExportTable)
    return 0;
  const auto *callbacks = static_cast<const ExportTableCallbacks *>(getExportTable(kCallbacksTable));
  if (!callbacks || callbacks->structSize < sizeof(ExportTableCallbacks) || !callbacks->getModuleFunctionTable)
    return 0;
  FunctionTable core = nullptr;
  unsigned coreSize = 0;
  if (!callbacks->getModuleFunctionTable(kCoreModule, &core, &coreSize) || !core)
    return 0;
  install(core, coreSize, MarkEx, markEx);
  install(core, coreSize, MarkA, markA);
  install(core, coreSize, MarkW, markW);
  install(core, coreSize, RangeStartEx, rangeStartEx);
  install(core, coreSize, RangeStartA, rangeStartA);
  install(core, coreSize, RangeStartW, rangeStartW);
  install(core, coreSize, RangeEnd, rangeEnd);
  install(core, coreSize, RangePushEx, rangePushEx);
  install(core, coreSize, RangePushA, rangePushA);
  install(core, coreSize, RangePushW, rangePushW);
  install(core, coreSize, RangePop, rangePop);
  FunctionTable core2 = nullptr;
  unsigned core2Size = 0;
  if (callbacks->getModuleFunctionTable(kCore2Module, &core2, &core2Size) && core2) {
    install(core2, core2Size, DomainMarkEx, domainMarkEx);
    install(core2, core2Size, DomainRangeStartEx, domainRangeStartEx);
    install(core2, core2Size, DomainRangeEnd, domainRangeEnd);
    install(core2, core2Size, DomainRangePushEx, domainRangePushEx);
    install(core2, core2Size, DomainRangePop, domainRangePop);
    install(core2, core2Size, DomainRegisterStringA, domainRegisterStringA);
    install(core2, core2Size, DomainRegisterStringW, domainRegisterStringW);
    install(core2, core2Size, DomainCreateA, domainCreateA);
    install(core2, core2Size, DomainCreateW, domainCreateW);
    install(core2, core2Size, DomainDestroy, domainDestroy);
  }
  return 1;
}
