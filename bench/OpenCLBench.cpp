// ptxray's OpenCL platform as a program uses it (issue #25's speed targets), through Debian's ICD
// loader pointed at libptxray-opencl.so:
//   - BM_OpenCLEnqueueSmallKernel: clEnqueueNDRangeKernel + clFinish of one 32-work-item group, the
//     platform's cost per launch (target: at most 0.1 ms beyond the VM's own launch);
//   - BM_VmLaunchSmallKernel: the same kernel's PTX launched on vm::Device directly (ptxray run's
//     path), the baseline of the one above;
//   - BM_OpenCLSaxpy / BM_VmSaxpy: a 4M-element saxpy through the platform and directly (target: the
//     platform within 10% of the VM);
//   - BM_OpenCLBuildSmallProgram: clCreateProgramWithSource + clBuildProgram of a small source
//     (target: at most 1 s).
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>

#include "arch/GpuDatabase.h"
#include "toolchain/Compilers.h"
#include "vm/Device.h"

#include <benchmark/benchmark.h>

#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

using namespace ptxray;

constexpr const char *kSource = R"(
__kernel void tiny(__global int *out) { out[get_global_id(0)] = (int)get_global_id(0); }
__kernel void saxpy(int n, float a, __global const float *x, __global float *y) {
  int i = get_global_id(0);
  if (i < n)
    y[i] = a * x[i] + y[i];
}
)";

constexpr size_t kSaxpyN = size_t{1} << 22;

/// The platform, a context, a queue and the built program, once per process.
struct OpenCL {
  cl_platform_id platform = nullptr;
  cl_device_id device = nullptr;
  cl_context context = nullptr;
  cl_command_queue queue = nullptr;
  cl_program program = nullptr;
  std::string error;

  OpenCL() {
    // Only ptxray's platform, as `ptxray exec` sets the loader up.
    setenv("OCL_ICD_VENDORS", PTXRAY_OPENCL_LIBRARY, 1);
    setenv("OCL_ICD_FILENAMES", PTXRAY_OPENCL_LIBRARY, 1);
    cl_int e = clGetPlatformIDs(1, &platform, nullptr);
    if (e == CL_SUCCESS)
      e = clGetDeviceIDs(platform, CL_DEVICE_TYPE_GPU, 1, &device, nullptr);
    if (e == CL_SUCCESS)
      context = clCreateContext(nullptr, 1, &device, nullptr, nullptr, &e);
    if (e == CL_SUCCESS)
      queue = clCreateCommandQueue(context, device, 0, &e);
    if (e == CL_SUCCESS) {
      const char *source = kSource;
      program = clCreateProgramWithSource(context, 1, &source, nullptr, &e);
    }
    if (e == CL_SUCCESS)
      e = clBuildProgram(program, 1, &device, nullptr, nullptr, nullptr);
    if (e != CL_SUCCESS)
      error = "OpenCL setup failed with " + std::to_string(e);
  }
};

OpenCL &opencl() {
  static OpenCL cl;
  return cl;
}

/// The same program's PTX on a vm::Device of the platform's default GPU (H100), as `ptxray run` loads it.
struct Direct {
  vm::Device device;
  const vm::LoadedModule *module = nullptr;
  Direct() : device(*arch::findArch("h100").target->computeCapability, arch::findArch("h100").target->gpu->smCount) {
    toolchain::OpenCLOptions options;
    module = &device.loadModule("bench.cl.ptx", toolchain::compileOpenCL(kSource, "bench.cl", options).ptx);
  }
};

Direct &direct() {
  static Direct d;
  return d;
}

std::vector<std::byte> bytesOf(const void *p, size_t n) {
  const auto *b = static_cast<const std::byte *>(p);
  return {b, b + n};
}

void BM_OpenCLEnqueueSmallKernel(benchmark::State &state) {
  OpenCL &cl = opencl();
  if (!cl.error.empty()) {
    state.SkipWithError(cl.error.c_str());
    return;
  }
  cl_int e = CL_SUCCESS;
  cl_kernel kernel = clCreateKernel(cl.program, "tiny", &e);
  cl_mem out = clCreateBuffer(cl.context, CL_MEM_READ_WRITE, 32 * sizeof(int), nullptr, &e);
  clSetKernelArg(kernel, 0, sizeof out, &out);
  const size_t global = 32, local = 32;
  for (auto _ : state) {
    clEnqueueNDRangeKernel(cl.queue, kernel, 1, nullptr, &global, &local, 0, nullptr, nullptr);
    clFinish(cl.queue);
  }
  clReleaseMemObject(out);
  clReleaseKernel(kernel);
}
BENCHMARK(BM_OpenCLEnqueueSmallKernel)->Unit(benchmark::kMicrosecond);

void BM_VmLaunchSmallKernel(benchmark::State &state) {
  Direct &d = direct();
  const uint64_t out = d.device.allocate(32 * sizeof(int));
  const std::vector<std::vector<std::byte>> args{bytesOf(&out, 8)};
  for (auto _ : state) {
    vm::LaunchResult r = d.device.launch(*d.module, "tiny", vm::LaunchConfig{{1, 1, 1}, {32, 1, 1}}, args);
    benchmark::DoNotOptimize(r);
  }
  d.device.free(out);
}
BENCHMARK(BM_VmLaunchSmallKernel)->Unit(benchmark::kMicrosecond);

void BM_OpenCLSaxpy(benchmark::State &state) {
  OpenCL &cl = opencl();
  if (!cl.error.empty()) {
    state.SkipWithError(cl.error.c_str());
    return;
  }
  cl_int e = CL_SUCCESS;
  cl_kernel kernel = clCreateKernel(cl.program, "saxpy", &e);
  cl_mem x = clCreateBuffer(cl.context, CL_MEM_READ_WRITE, kSaxpyN * 4, nullptr, &e);
  cl_mem y = clCreateBuffer(cl.context, CL_MEM_READ_WRITE, kSaxpyN * 4, nullptr, &e);
  const int n = static_cast<int>(kSaxpyN);
  const float a = 2.5f;
  clSetKernelArg(kernel, 0, sizeof n, &n);
  clSetKernelArg(kernel, 1, sizeof a, &a);
  clSetKernelArg(kernel, 2, sizeof x, &x);
  clSetKernelArg(kernel, 3, sizeof y, &y);
  const size_t global = kSaxpyN, local = 256;
  for (auto _ : state) {
    clEnqueueNDRangeKernel(cl.queue, kernel, 1, nullptr, &global, &local, 0, nullptr, nullptr);
    clFinish(cl.queue);
  }
  state.counters["work_items_per_s"] =
      benchmark::Counter(static_cast<double>(kSaxpyN * state.iterations()), benchmark::Counter::kIsRate);
  clReleaseMemObject(x);
  clReleaseMemObject(y);
  clReleaseKernel(kernel);
}
BENCHMARK(BM_OpenCLSaxpy)->UseRealTime()->Unit(benchmark::kMillisecond);

void BM_VmSaxpy(benchmark::State &state) {
  Direct &d = direct();
  const uint64_t x = d.device.allocate(kSaxpyN * 4), y = d.device.allocate(kSaxpyN * 4);
  const int n = static_cast<int>(kSaxpyN);
  const float a = 2.5f;
  const std::vector<std::vector<std::byte>> args{bytesOf(&n, 4), bytesOf(&a, 4), bytesOf(&x, 8), bytesOf(&y, 8)};
  const vm::LaunchConfig config{{static_cast<uint32_t>(kSaxpyN / 256), 1, 1}, {256, 1, 1}};
  for (auto _ : state) {
    vm::LaunchResult r = d.device.launch(*d.module, "saxpy", config, args);
    benchmark::DoNotOptimize(r);
  }
  state.counters["work_items_per_s"] =
      benchmark::Counter(static_cast<double>(kSaxpyN * state.iterations()), benchmark::Counter::kIsRate);
  d.device.free(x);
  d.device.free(y);
}
BENCHMARK(BM_VmSaxpy)->UseRealTime()->Unit(benchmark::kMillisecond);

void BM_OpenCLBuildSmallProgram(benchmark::State &state) {
  OpenCL &cl = opencl();
  if (!cl.error.empty()) {
    state.SkipWithError(cl.error.c_str());
    return;
  }
  for (auto _ : state) {
    cl_int e = CL_SUCCESS;
    const char *source = kSource;
    cl_program program = clCreateProgramWithSource(cl.context, 1, &source, nullptr, &e);
    e = clBuildProgram(program, 1, &cl.device, nullptr, nullptr, nullptr);
    if (e != CL_SUCCESS)
      state.SkipWithError("the build failed");
    clReleaseProgram(program);
  }
}
BENCHMARK(BM_OpenCLBuildSmallProgram)->Unit(benchmark::kMillisecond)->Iterations(5);

} // namespace
