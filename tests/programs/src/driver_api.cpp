// A driver-API program: PTX loaded at run time (bin/driver_kernels.ptx, beside the executable) with
// cuModuleLoadData, kernels launched with cuLaunchKernel (parameter pointers, and a packed buffer
// through `extra`), a module variable through cuModuleGetGlobal, memsets, events, errors.
#include <cuda.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <unistd.h>
#include <vector>

#define CHECK(call)                                                                                                    \
  do {                                                                                                                 \
    CUresult r_ = (call);                                                                                              \
    if (r_ != CUDA_SUCCESS) {                                                                                          \
      const char *name_ = nullptr;                                                                                     \
      cuGetErrorName(r_, &name_);                                                                                      \
      printf("CUDA error %s at %s\n", name_ ? name_ : "?", #call);                                                     \
      return 1;                                                                                                        \
    }                                                                                                                  \
  } while (0)

static std::string ptxBesideExecutable() {
  char exe[4096];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n <= 0)
    return {};
  exe[n] = '\0';
  std::string path(exe);
  path = path.substr(0, path.rfind('/')) + "/driver_kernels.ptx";
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

int main() {
  std::string ptx = ptxBesideExecutable();
  if (ptx.empty()) {
    printf("driver_kernels.ptx not found\n");
    return 2;
  }
  CHECK(cuInit(0));
  int count = 0;
  CHECK(cuDeviceGetCount(&count));
  CUdevice dev;
  CHECK(cuDeviceGet(&dev, 0));
  CUcontext ctx;
  CHECK(cuDevicePrimaryCtxRetain(&ctx, dev));
  CHECK(cuCtxSetCurrent(ctx));
  printf("devices=%d\n", count);

  CUmodule module;
  CHECK(cuModuleLoadData(&module, ptx.c_str()));
  CUfunction saxpy, pack, missing;
  CHECK(cuModuleGetFunction(&saxpy, module, "saxpy"));
  CHECK(cuModuleGetFunction(&pack, module, "pack"));
  CUresult notFound = cuModuleGetFunction(&missing, module, "no_such_kernel");
  const char *notFoundName = nullptr;
  cuGetErrorName(notFound, &notFoundName);
  printf("missing kernel: %s\n", notFoundName);

  CUdeviceptr scale;
  size_t scaleBytes = 0;
  CHECK(cuModuleGetGlobal(&scale, &scaleBytes, module, "scale_factor"));
  float three = 3.0f;
  CHECK(cuMemcpyHtoD(scale, &three, sizeof three));
  printf("scale_factor: %zu bytes, set to 3\n", scaleBytes);

  const int n = 1000;
  std::vector<float> x(n), y(n);
  for (int i = 0; i < n; ++i) {
    x[i] = static_cast<float>(i);
    y[i] = 1.0f;
  }
  CUdeviceptr dx, dy;
  CHECK(cuMemAlloc(&dx, n * sizeof(float)));
  CHECK(cuMemAlloc(&dy, n * sizeof(float)));
  CHECK(cuMemcpyHtoD(dx, x.data(), n * sizeof(float)));
  CHECK(cuMemsetD32(dy, 0x3f800000u, n)); // 1.0f in every element
  CUevent start, stop;
  CHECK(cuEventCreate(&start, 0));
  CHECK(cuEventCreate(&stop, 0));
  CHECK(cuEventRecord(start, 0));
  int nn = n;
  float a = 0.5f;
  void *params[] = {&nn, &a, &dx, &dy};
  CHECK(cuLaunchKernel(saxpy, (n + 127) / 128, 1, 1, 128, 1, 1, 0, 0, params, nullptr));
  CHECK(cuEventRecord(stop, 0));
  CHECK(cuEventSynchronize(stop));
  float ms = -1;
  CHECK(cuEventElapsedTime(&ms, start, stop));
  CHECK(cuMemcpyDtoH(y.data(), dy, n * sizeof(float)));
  int wrong = 0;
  for (int i = 0; i < n; ++i)
    wrong += y[i] != 0.5f * 3.0f * i + 1.0f;
  printf("saxpy: y[0]=%.1f y[999]=%.1f wrong=%d elapsed>=0: %s\n", y[0], y[999], wrong, ms >= 0 ? "yes" : "no");

  // The same kind of launch with the parameters packed at their ABI offsets: a struct {int; double}
  // (8-byte aligned), a char, then a pointer (8-byte aligned).
  CUdeviceptr out;
  CHECK(cuMemAlloc(&out, 3 * sizeof(long long)));
  unsigned char buffer[32] = {};
  int first = 42;
  double second = 2.5;
  char tag = 'T';
  memcpy(buffer + 0, &first, 4);
  memcpy(buffer + 8, &second, 8);
  memcpy(buffer + 16, &tag, 1);
  memcpy(buffer + 24, &out, 8);
  size_t size = sizeof buffer;
  void *extra[] = {CU_LAUNCH_PARAM_BUFFER_POINTER, buffer, CU_LAUNCH_PARAM_BUFFER_SIZE, &size, CU_LAUNCH_PARAM_END};
  CHECK(cuLaunchKernel(pack, 1, 1, 1, 1, 1, 1, 0, 0, nullptr, extra));
  long long packed[3];
  CHECK(cuMemcpyDtoH(packed, out, sizeof packed));
  printf("pack: first=%lld second*10=%lld tag=%c\n", packed[0], packed[1], static_cast<char>(packed[2]));

  int regs = 0, maxThreads = 0;
  CHECK(cuFuncGetAttribute(&maxThreads, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, saxpy));
  CHECK(cuFuncGetAttribute(&regs, CU_FUNC_ATTRIBUTE_NUM_REGS, saxpy));
  printf("saxpy: maxThreadsPerBlock=%d registers>0: %s\n", maxThreads, regs > 0 ? "yes" : "no");

  CHECK(cuMemFree(dx));
  CHECK(cuMemFree(dy));
  CHECK(cuMemFree(out));
  CHECK(cuModuleUnload(module));
  CHECK(cuDevicePrimaryCtxRelease(dev));
  printf("driver_api: PASS\n");
  return 0;
}
