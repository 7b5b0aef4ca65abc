// The driver's JIT linker: rdc_link's two translation units as PTX (bin/jit_link_main.ptx and
// bin/jit_link_lib.ptx, beside the executable: nvcc -ptx -rdc=true) linked at run time with
// cuLinkCreate, cuLinkAddFile and cuLinkAddData, cuLinkComplete, then loaded with cuModuleLoadData
// and run as rdc_link runs them. Then what the linker refuses: a unit alone (an undefined
// reference), a unit twice (multiple definitions), PTX that does not compile.
#include <cuda.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <unistd.h>

#define CHECK(call)                                                                                                    \
  do {                                                                                                                 \
    CUresult r_ = (call);                                                                                              \
    if (r_ != CUDA_SUCCESS) {                                                                                          \
      printf("CUDA error %s at %s\n", errorName(r_), #call);                                                           \
      return 1;                                                                                                        \
    }                                                                                                                  \
  } while (0)

static const char *errorName(CUresult r) {
  const char *name = nullptr;
  cuGetErrorName(r, &name);
  return name ? name : "?";
}

static std::string besideExecutable(const char *file) {
  char exe[4096];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n <= 0)
    return file;
  exe[n] = '\0';
  std::string path(exe);
  return path.substr(0, path.rfind('/') + 1) + file;
}

static std::string readFile(const std::string &path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

/// Links the units named (each "F:" for cuLinkAddFile, "D:" for cuLinkAddData of the file's text,
/// "X:" for text that is not PTX); prints the result of the step that failed, if one did, and
/// whether the linker wrote its error log.
static CUresult link(const char *what, std::initializer_list<const char *> units, CUmodule *module) {
  char info[8192] = "", error[8192] = "";
  CUjit_option options[] = {CU_JIT_INFO_LOG_BUFFER, CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES, CU_JIT_ERROR_LOG_BUFFER,
                            CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  void *values[] = {info, reinterpret_cast<void *>(sizeof info), error, reinterpret_cast<void *>(sizeof error)};
  CUlinkState state;
  CUresult r = cuLinkCreate(4, options, values, &state);
  if (r != CUDA_SUCCESS)
    return r;
  for (const char *unit : units) {
    const std::string path = besideExecutable(unit + 2);
    if (unit[0] == 'F') {
      r = cuLinkAddFile(state, CU_JIT_INPUT_PTX, path.c_str(), 0, nullptr, nullptr);
    } else {
      std::string text =
          unit[0] == 'X' ? std::string(".version 9.0\n.target sm_90\n.address_size 64\nnot ptx;\n") : readFile(path);
      r = cuLinkAddData(state, CU_JIT_INPUT_PTX, text.data(), text.size() + 1, unit + 2, 0, nullptr, nullptr);
    }
    if (r != CUDA_SUCCESS) {
      printf("%s: cuLinkAddData/AddFile(%s) = %s, error log %s\n", what, unit + 2, errorName(r),
             error[0] ? "written" : "empty");
      cuLinkDestroy(state);
      return r;
    }
  }
  void *image = nullptr;
  size_t size = 0;
  r = cuLinkComplete(state, &image, &size);
  if (r != CUDA_SUCCESS) {
    printf("%s: cuLinkComplete = %s, error log %s\n", what, errorName(r), error[0] ? "written" : "empty");
  } else {
    printf("%s: linked, image %s\n", what, size > 0 ? "not empty" : "empty");
    r = cuModuleLoadData(module, image); // the image belongs to the link state until it is destroyed
  }
  if (error[0] && std::getenv("JIT_LINK_SHOW_LOGS")) // validation/programs/rdc.sh keeps the driver's words
    fprintf(stderr, "%s error log:\n%s\n", what, error);
  cuLinkDestroy(state);
  return r;
}

int main() {
  CHECK(cuInit(0));
  CUdevice device;
  CHECK(cuDeviceGet(&device, 0));
  CUcontext context;
  CHECK(cuDevicePrimaryCtxRetain(&context, device));
  CHECK(cuCtxSetCurrent(context));

  CUmodule module;
  CHECK(link("main + lib", {"F:jit_link_main.ptx", "D:jit_link_lib.ptx"}, &module));
  CUfunction combine;
  CHECK(cuModuleGetFunction(&combine, module, "_Z7combinePfPii"));
  CUdeviceptr weights, hits, table;
  size_t weightBytes = 0, hitBytes = 0, tableBytes = 0;
  CHECK(cuModuleGetGlobal(&weights, &weightBytes, module, "weights"));
  CHECK(cuModuleGetGlobal(&hits, &hitBytes, module, "hits"));
  CHECK(cuModuleGetGlobal(&table, &tableBytes, module, "table"));
  printf("globals: weights %zu bytes, hits %zu, table %zu\n", weightBytes, hitBytes, tableBytes);
  const float w[4] = {0.5f, 1.0f, 1.5f, 2.0f};
  CHECK(cuMemcpyHtoD(weights, w, sizeof w));

  int n = 256;
  CUdeviceptr out, privates;
  CHECK(cuMemAlloc(&out, n * sizeof(float)));
  CHECK(cuMemAlloc(&privates, 2 * sizeof(int)));
  void *args[] = {&out, &privates, &n};
  CHECK(cuLaunchKernel(combine, 2, 1, 1, 128, 1, 1, 0, nullptr, args, nullptr));
  CHECK(cuCtxSynchronize());
  float h[256];
  int p[2];
  unsigned calls = 0;
  int t[4];
  CHECK(cuMemcpyDtoH(h, out, sizeof h));
  CHECK(cuMemcpyDtoH(p, privates, sizeof p));
  CHECK(cuMemcpyDtoH(&calls, hits, sizeof calls));
  CHECK(cuMemcpyDtoH(t, table, sizeof t));
  double sum = 0;
  for (int i = 0; i < n; ++i)
    sum += h[i];
  printf("out[0..7] = %.1f %.1f %.1f %.1f %.1f %.1f %.1f %.1f\n", h[0], h[1], h[2], h[3], h[4], h[5], h[6], h[7]);
  printf("sum %.1f, blend called %u times\n", sum, calls);
  printf("private counters: main.cu %d, lib.cu %d\n", p[0], p[1]);
  printf("table %d %d %d %d\n", t[0], t[1], t[2], t[3]);

  // What the linker refuses.
  CUmodule unused;
  link("main alone", {"F:jit_link_main.ptx"}, &unused);
  link("lib twice", {"F:jit_link_lib.ptx", "D:jit_link_lib.ptx"}, &unused);
  link("not PTX", {"X:broken.ptx"}, &unused);
  CUlinkState state;
  CHECK(cuLinkCreate(0, nullptr, nullptr, &state));
  void *image = nullptr;
  size_t size = 0;
  printf("nothing added: cuLinkComplete = %s\n", errorName(cuLinkComplete(state, &image, &size)));
  CHECK(cuLinkDestroy(state));
  return 0;
}
