// Runs a ptxray run spec (tests/kernels/vm/RunSpec.h describes the format) on a real GPU through
// the CUDA driver API, so that the virtual GPU's results can be checked against hardware.
//
//   spec_runner SPEC.json [--out-dir DIR]
//
// Loads the spec's PTX with cuModuleLoadDataEx, creates and fills its buffers (DataGenerators.h),
// resolves symbol buffers with cuModuleGetGlobal, runs the launches in order (each followed by
// cuCtxSynchronize, so device printf reaches stdout launch by launch), then writes each output's
// bytes to its file, relative to DIR when given, else to the spec's folder.
// Exit status: 0 on success, 1 when a CUDA call fails (a failed device assert included: the
// error is CUDA_ERROR_ASSERT and no output is written), 2 when the spec is malformed.
//
// A kernel is named by its .entry name or, for C++ kernels, by its demangled name with or without
// the parameter list ("transposeNaive", "transposeNaive(float*, float const*, int, int)"); a symbol
// by its PTX name or its demangled name ("vmtest::g_sums").
//
// Build: nvcc -std=c++17 -I../../src -I<folder with nlohmann/json.hpp> spec_runner.cpp -lcuda
#include "../../tests/kernels/vm/RunSpec.h"

#include <cuda.h>
#include <cxxabi.h>

#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace {

using ptxray::vm::spec::Bytes;
namespace spec = ptxray::vm::spec;

struct CudaError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

void check(CUresult r, const std::string &what) {
  if (r == CUDA_SUCCESS)
    return;
  const char *name = nullptr, *text = nullptr;
  cuGetErrorName(r, &name);
  cuGetErrorString(r, &text);
  throw CudaError(what + ": " + (name ? name : "?") + " (" + (text ? text : "?") + ")");
}

std::string demangle(const std::string &name) {
  if (name.rfind("_Z", 0) != 0)
    return name;
  int status = 0;
  char *d = abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status);
  std::string out = (status == 0 && d) ? d : name;
  std::free(d);
  return out;
}

/// "ns::f(int, float*)" -> "ns::f"; leaves names without a parameter list alone.
std::string withoutParameters(const std::string &s) {
  if (s.empty() || s.back() != ')')
    return s;
  int depth = 0;
  for (size_t i = s.size(); i-- > 0;) {
    if (s[i] == ')')
      ++depth;
    else if (s[i] == '(' && --depth == 0)
      return s.substr(0, i);
  }
  return s;
}

/// The identifier after each occurrence of `directive` in the PTX text (".entry", ".global", ...).
std::vector<std::string> namesAfter(const std::string &ptx, const std::string &directive) {
  std::vector<std::string> names;
  for (size_t at = ptx.find(directive); at != std::string::npos; at = ptx.find(directive, at + 1)) {
    size_t end = at + directive.size();
    if (end >= ptx.size() || (ptx[end] != ' ' && ptx[end] != '\t'))
      continue;
    // Skip .align N and the type (tokens starting with '.' or digits) up to the identifier.
    std::istringstream rest(ptx.substr(end, 256));
    std::string tok;
    while (rest >> tok) {
      if (tok[0] == '.' || std::isdigit(static_cast<unsigned char>(tok[0])))
        continue;
      size_t stop = tok.find_first_of("([;=");
      names.push_back(tok.substr(0, stop));
      break;
    }
  }
  return names;
}

/// The PTX name matching `wanted`: itself, or the one whose demangled name (with or without its
/// parameter list) equals it.
std::string resolveName(const std::vector<std::string> &candidates, const std::string &wanted, const char *what) {
  for (const auto &c : candidates)
    if (c == wanted)
      return c;
  std::vector<std::string> matches;
  for (const auto &c : candidates) {
    std::string d = demangle(c);
    if (d == wanted || withoutParameters(d) == wanted)
      matches.push_back(c);
  }
  if (matches.size() == 1)
    return matches[0];
  if (matches.size() > 1)
    throw spec::SpecError(std::string("ambiguous ") + what + " name '" + wanted +
                          "' (overloaded; use the mangled name)");
  return wanted; // let the driver report it
}

std::string readText(const std::filesystem::path &p) {
  std::ifstream in(p, std::ios::binary);
  if (!in)
    throw spec::SpecError("cannot read " + p.string());
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

int run(const std::filesystem::path &specFile, const std::filesystem::path &outDir) {
  spec::RunSpec s = spec::loadRunSpec(specFile);
  std::string ptx = readText(s.module);

  check(cuInit(0), "cuInit");
  CUdevice dev;
  check(cuDeviceGet(&dev, 0), "cuDeviceGet");
  CUcontext ctx;
  check(cuDevicePrimaryCtxRetain(&ctx, dev), "cuDevicePrimaryCtxRetain");
  check(cuCtxSetCurrent(ctx), "cuCtxSetCurrent");

  char log[16384] = {0};
  CUjit_option opts[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  void *vals[] = {log, reinterpret_cast<void *>(sizeof log)};
  CUmodule module;
  CUresult r = cuModuleLoadDataEx(&module, ptx.c_str(), 2, opts, vals);
  if (r != CUDA_SUCCESS)
    std::fprintf(stderr, "spec_runner: JIT log:\n%s\n", log);
  check(r, "cuModuleLoadDataEx " + s.module.string());

  std::vector<std::string> entries = namesAfter(ptx, ".entry");
  std::vector<std::string> variables = namesAfter(ptx, ".global");
  for (auto &n : namesAfter(ptx, ".const"))
    variables.push_back(n);

  struct DeviceBuffer {
    CUdeviceptr ptr = 0;
    size_t bytes = 0;
    bool owned = false;
  };
  std::map<std::string, DeviceBuffer> buffers;
  for (const auto &b : s.buffers) {
    DeviceBuffer d;
    if (!b.symbol.empty()) {
      std::string name = resolveName(variables, b.symbol, "symbol");
      check(cuModuleGetGlobal(&d.ptr, &d.bytes, module, name.c_str()), "cuModuleGetGlobal " + b.symbol);
    } else {
      d.bytes = b.bytes;
      check(cuMemAlloc(&d.ptr, d.bytes ? d.bytes : 1), "cuMemAlloc " + b.name);
      d.owned = true;
    }
    // "none": a bare cuMemAlloc, never written by the host (what initcheck looks for).
    const bool uninitialized = b.init.is_string() && b.init.get<std::string>() == "none";
    Bytes init = uninitialized ? Bytes() : spec::initialContents(b.init, d.bytes, s.dir);
    if (d.bytes && !uninitialized)
      check(cuMemcpyHtoD(d.ptr, init.data(), d.bytes), "cuMemcpyHtoD " + b.name);
    buffers[b.name] = d;
  }

  for (size_t i = 0; i < s.launches.size(); ++i) {
    const auto &l = s.launches[i];
    std::string where = "launch " + std::to_string(i) + " (" + l.kernel + ")";
    std::string entry = resolveName(entries, l.kernel, "kernel");
    CUfunction fn;
    check(cuModuleGetFunction(&fn, module, entry.c_str()), where + ": cuModuleGetFunction " + entry);
    std::vector<Bytes> storage;
    for (const auto &a : l.args) {
      if (a.isBuffer) {
        uint64_t p = buffers.at(a.buffer).ptr + a.offset;
        storage.push_back(Bytes(8));
        std::memcpy(storage.back().data(), &p, 8);
      } else {
        storage.push_back(a.bytes);
      }
    }
    std::vector<void *> params;
    for (auto &b : storage)
      params.push_back(b.data());
    if (l.dynamicSharedBytes > 48 * 1024)
      check(cuFuncSetAttribute(fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, int(l.dynamicSharedBytes)),
            where + ": dynamic shared memory");
    check(cuLaunchKernel(fn, l.grid.x, l.grid.y, l.grid.z, l.block.x, l.block.y, l.block.z, l.dynamicSharedBytes,
                         nullptr, params.empty() ? nullptr : params.data(), nullptr),
          where + ": cuLaunchKernel");
    CUresult sync = cuCtxSynchronize();
    std::fflush(stdout);
    check(sync, where);
  }

  for (const auto &o : s.outputs) {
    const DeviceBuffer &d = buffers.at(o.buffer);
    Bytes host(d.bytes);
    if (d.bytes)
      check(cuMemcpyDtoH(host.data(), d.ptr, d.bytes), "cuMemcpyDtoH " + o.buffer);
    std::filesystem::path file(o.file);
    if (!file.is_absolute())
      file = outDir / file;
    if (file.has_parent_path())
      std::filesystem::create_directories(file.parent_path());
    std::ofstream out(file, std::ios::binary);
    out.write(reinterpret_cast<const char *>(host.data()), std::streamsize(host.size()));
    if (!out)
      throw spec::SpecError("cannot write " + file.string());
  }
  for (auto &[name, d] : buffers)
    if (d.owned)
      cuMemFree(d.ptr);
  cuModuleUnload(module);
  cuDevicePrimaryCtxRelease(dev);
  return 0;
}

} // namespace

int main(int argc, char **argv) {
  std::filesystem::path specFile, outDir;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--out-dir" && i + 1 < argc)
      outDir = argv[++i];
    else if (specFile.empty() && a[0] != '-')
      specFile = a;
    else {
      std::fprintf(stderr, "usage: spec_runner SPEC.json [--out-dir DIR]\n");
      return 2;
    }
  }
  if (specFile.empty()) {
    std::fprintf(stderr, "usage: spec_runner SPEC.json [--out-dir DIR]\n");
    return 2;
  }
  if (outDir.empty())
    outDir = specFile.parent_path();
  try {
    return run(specFile, outDir);
  } catch (const CudaError &e) {
    std::fflush(stdout);
    std::fprintf(stderr, "spec_runner: %s: %s\n", specFile.string().c_str(), e.what());
    return 1;
  } catch (const std::exception &e) {
    std::fflush(stdout);
    std::fprintf(stderr, "spec_runner: %s: %s\n", specFile.string().c_str(), e.what());
    return 2;
  }
}
