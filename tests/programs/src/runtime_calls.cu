// The runtime calls real programs make besides memory, copies and launches, one line each: the
// profiler, device flags, limits, the cache and shared-memory configuration, stream-ordered allocation
// and memory pools, host functions and stream callbacks, and registered host memory (page-aligned,
// unaligned, a global array) that kernels write through cudaHostGetDevicePointer.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda_profiler_api.h>

// cudaDeviceSetSharedMemConfig and friends are deprecated, and still what Kepler-era programs call.
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

#define CHECK(call)                                                                                                    \
  do {                                                                                                                 \
    cudaError_t e_ = (call);                                                                                           \
    if (e_ != cudaSuccess) {                                                                                           \
      printf("CUDA error %s at %s\n", cudaGetErrorName(e_), #call);                                                    \
      return 1;                                                                                                        \
    }                                                                                                                  \
  } while (0)

#define SHOW(label, call) printf("%s: %s\n", label, cudaGetErrorName(call))

__global__ void fill(int *out, int n, int value) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = value + i;
}

__global__ void addOne(int *data, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    data[i] += 1;
}

__global__ void hello(int tag) {
  if (threadIdx.x < 2)
    printf("hello %d from thread %d\n", tag, (int)threadIdx.x);
}

static int gHostFunctionCalls = 0;
static void hostFunction(void *data) {
  gHostFunctionCalls += *static_cast<int *>(data);
}

static cudaError_t gCallbackStatus = cudaErrorUnknown;
static int gCallbackCalls = 0;
static void CUDART_CB callback(cudaStream_t, cudaError_t status, void *) {
  gCallbackStatus = status;
  ++gCallbackCalls;
}

static int gGlobalArray[2048];

/// Checks n ints of `host` are value + i.
static bool filledWith(const int *host, int n, int value) {
  for (int i = 0; i < n; ++i)
    if (host[i] != value + i)
      return false;
  return true;
}

static unsigned long long poolAttribute(cudaMemPool_t pool, cudaMemPoolAttr attribute) {
  unsigned long long value = 0;
  cudaMemPoolGetAttribute(pool, attribute, &value);
  return value;
}

int main() {
  // Profiler: nothing to start under a plain run; the calls succeed.
  SHOW("cudaProfilerStart", cudaProfilerStart());
  SHOW("cudaProfilerStop", cudaProfilerStop());

  // Device flags: a schedule and keeping local memory; bad bits and two schedules are refused.
  SHOW("set flags blocking sync + lmem resize",
       cudaSetDeviceFlags(cudaDeviceScheduleBlockingSync | cudaDeviceLmemResizeToMax));
  unsigned flags = 0;
  CHECK(cudaGetDeviceFlags(&flags));
  printf("flags: schedule=%u lmemResizeToMax=%d\n", flags & cudaDeviceScheduleMask,
         (flags & cudaDeviceLmemResizeToMax) != 0);
  SHOW("set flags 0x100", cudaSetDeviceFlags(0x100));
  SHOW("set flags spin + yield", cudaSetDeviceFlags(cudaDeviceScheduleSpin | cudaDeviceScheduleYield));
  CHECK(cudaGetDeviceFlags(&flags));
  printf("flags after refusals: schedule=%u\n", flags & cudaDeviceScheduleMask);
  CHECK(cudaSetDeviceFlags(cudaDeviceScheduleAuto));

  // Limits, before any kernel runs (the printf FIFO and the heap cannot change after a kernel that
  // uses them).
  size_t value = 0;
  CHECK(cudaDeviceGetLimit(&value, cudaLimitPrintfFifoSize));
  printf("printf FIFO default %zu\n", value);
  CHECK(cudaDeviceSetLimit(cudaLimitStackSize, 4096));
  CHECK(cudaDeviceGetLimit(&value, cudaLimitStackSize));
  printf("stack size %zu\n", value);
  CHECK(cudaDeviceSetLimit(cudaLimitPrintfFifoSize, 2 << 20));
  CHECK(cudaDeviceGetLimit(&value, cudaLimitPrintfFifoSize));
  printf("printf FIFO %zu\n", value);
  CHECK(cudaDeviceSetLimit(cudaLimitMallocHeapSize, 32 << 20));
  CHECK(cudaDeviceGetLimit(&value, cudaLimitMallocHeapSize));
  printf("heap %zu\n", value);
  CHECK(cudaDeviceSetLimit(cudaLimitDevRuntimePendingLaunchCount, 4096));
  CHECK(cudaDeviceGetLimit(&value, cudaLimitDevRuntimePendingLaunchCount));
  printf("pending launch count %zu\n", value);
  SHOW("set sync depth on sm_90", cudaDeviceSetLimit(cudaLimitDevRuntimeSyncDepth, 4));
  cudaGetLastError();

  // Cache and shared-memory configuration: the device's, a function's.
  CHECK(cudaDeviceSetCacheConfig(cudaFuncCachePreferShared));
  cudaFuncCache cache = cudaFuncCachePreferNone;
  CHECK(cudaDeviceGetCacheConfig(&cache));
  printf("device cache config %d\n", (int)cache);
  SHOW("function prefers L1", cudaFuncSetCacheConfig(fill, cudaFuncCachePreferL1));
  SHOW("cache config 7", cudaDeviceSetCacheConfig((cudaFuncCache)7));
  cudaGetLastError();
  SHOW("8-byte banks", cudaDeviceSetSharedMemConfig(cudaSharedMemBankSizeEightByte));
  cudaSharedMemConfig banks = cudaSharedMemBankSizeDefault;
  CHECK(cudaDeviceGetSharedMemConfig(&banks));
  printf("bank size config on sm_90 %d\n", (int)banks);
  SHOW("function 4-byte banks", cudaFuncSetSharedMemConfig(fill, cudaSharedMemBankSizeFourByte));
  CHECK(cudaDeviceSetCacheConfig(cudaFuncCachePreferNone));
  CHECK(cudaDeviceSetSharedMemConfig(cudaSharedMemBankSizeDefault));

  // Device printf.
  hello<<<1, 32>>>(7);
  CHECK(cudaDeviceSynchronize());
  SHOW("printf FIFO after a printf kernel", cudaDeviceSetLimit(cudaLimitPrintfFifoSize, 4 << 20));
  cudaGetLastError();

  cudaStream_t stream;
  CHECK(cudaStreamCreate(&stream));

  // Stream-ordered allocation from the device's default pool.
  const int n = 1 << 16;
  cudaMemPool_t defaultPool, currentPool;
  CHECK(cudaDeviceGetDefaultMemPool(&defaultPool, 0));
  CHECK(cudaDeviceGetMemPool(&currentPool, 0));
  printf("current pool is the default: %s\n", currentPool == defaultPool ? "yes" : "no");
  int *async = nullptr;
  CHECK(cudaMallocAsync(reinterpret_cast<void **>(&async), n * sizeof(int), stream));
  fill<<<n / 256, 256, 0, stream>>>(async, n, 5);
  int *host = static_cast<int *>(malloc(n * sizeof(int)));
  CHECK(cudaMemcpyAsync(host, async, n * sizeof(int), cudaMemcpyDeviceToHost, stream));
  CHECK(cudaFreeAsync(async, stream));
  CHECK(cudaStreamSynchronize(stream));
  printf("cudaMallocAsync memory filled: %s\n", filledWith(host, n, 5) ? "ok" : "WRONG");

  // A pool of its own: what it reserves and what is in use.
  cudaMemPoolProps props;
  memset(&props, 0, sizeof props);
  props.allocType = cudaMemAllocationTypePinned;
  props.location.type = cudaMemLocationTypeDevice;
  props.location.id = 0;
  cudaMemPool_t pool;
  CHECK(cudaMemPoolCreate(&pool, &props));
  const size_t threeMiB = 3 << 20;
  int *fromPool = nullptr;
  CHECK(cudaMallocFromPoolAsync(reinterpret_cast<void **>(&fromPool), threeMiB, pool, stream));
  fill<<<n / 256, 256, 0, stream>>>(fromPool, n, 9);
  CHECK(cudaMemcpyAsync(host, fromPool, n * sizeof(int), cudaMemcpyDeviceToHost, stream));
  CHECK(cudaStreamSynchronize(stream));
  printf("pool memory filled: %s\n", filledWith(host, n, 9) ? "ok" : "WRONG");
  printf("used >= 3 MiB: %s\n", poolAttribute(pool, cudaMemPoolAttrUsedMemCurrent) >= threeMiB ? "yes" : "no");
  printf("reserved >= used: %s\n",
         poolAttribute(pool, cudaMemPoolAttrReservedMemCurrent) >= poolAttribute(pool, cudaMemPoolAttrUsedMemCurrent)
             ? "yes"
             : "no");
  CHECK(cudaFreeAsync(fromPool, stream));
  CHECK(cudaStreamSynchronize(stream));
  printf("after free and sync: used %llu reserved %llu\n", poolAttribute(pool, cudaMemPoolAttrUsedMemCurrent),
         poolAttribute(pool, cudaMemPoolAttrReservedMemCurrent));
  printf("used high >= 3 MiB: %s\n", poolAttribute(pool, cudaMemPoolAttrUsedMemHigh) >= threeMiB ? "yes" : "no");
  unsigned long long zero = 0;
  CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrUsedMemHigh, &zero));
  printf("used high after reset %llu\n", poolAttribute(pool, cudaMemPoolAttrUsedMemHigh));
  SHOW("set reserved current", cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReservedMemCurrent, &zero));
  cudaGetLastError();
  // With a release threshold above it, freed memory stays reserved until trimmed.
  unsigned long long keepAll = ~0ull;
  CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keepAll));
  CHECK(cudaMallocFromPoolAsync(reinterpret_cast<void **>(&fromPool), threeMiB, pool, stream));
  CHECK(cudaFreeAsync(fromPool, stream));
  CHECK(cudaStreamSynchronize(stream));
  printf("kept reserved >= 3 MiB: %s\n",
         poolAttribute(pool, cudaMemPoolAttrReservedMemCurrent) >= threeMiB ? "yes" : "no");
  CHECK(cudaMemPoolTrimTo(pool, 0));
  printf("reserved after trim %llu\n", poolAttribute(pool, cudaMemPoolAttrReservedMemCurrent));
  // The device's current pool: cudaMallocAsync allocates from it.
  CHECK(cudaDeviceSetMemPool(0, pool));
  CHECK(cudaDeviceGetMemPool(&currentPool, 0));
  printf("current pool is the new one: %s\n", currentPool == pool ? "yes" : "no");
  CHECK(cudaMallocAsync(reinterpret_cast<void **>(&async), 4096, stream));
  CHECK(cudaStreamSynchronize(stream));
  printf("its used memory >= 4096: %s\n", poolAttribute(pool, cudaMemPoolAttrUsedMemCurrent) >= 4096 ? "yes" : "no");
  CHECK(cudaFreeAsync(async, stream));
  CHECK(cudaDeviceSetMemPool(0, defaultPool));
  CHECK(cudaStreamSynchronize(stream));
  CHECK(cudaMemPoolDestroy(pool));

  // Host functions and callbacks run after the work before them, in stream order.
  int increment = 3;
  CHECK(cudaLaunchHostFunc(stream, hostFunction, &increment));
  CHECK(cudaStreamAddCallback(stream, callback, nullptr, 0));
  CHECK(cudaStreamSynchronize(stream));
  printf("host function calls %d, callback calls %d with %s\n", gHostFunctionCalls, gCallbackCalls,
         cudaGetErrorName(gCallbackStatus));
  SHOW("callback flags 1", cudaStreamAddCallback(stream, callback, nullptr, 1));
  cudaGetLastError();

  // Registered host memory: page-aligned, unaligned, a global array; kernels write it through its
  // device pointer and host code reads the result in place.
  const int pageInts = 4096;
  int *aligned = static_cast<int *>(aligned_alloc(4096, pageInts * sizeof(int)));
  memset(aligned, 0, pageInts * sizeof(int));
  CHECK(cudaHostRegister(aligned, pageInts * sizeof(int), cudaHostRegisterDefault));
  int *device = nullptr;
  CHECK(cudaHostGetDevicePointer(reinterpret_cast<void **>(&device), aligned, 0));
  fill<<<pageInts / 256, 256>>>(device, pageInts, 100);
  CHECK(cudaDeviceSynchronize());
  printf("registered page-aligned memory filled by a kernel: %s\n",
         filledWith(aligned, pageInts, 100) ? "ok" : "WRONG");
  SHOW("register an overlapping range", cudaHostRegister(aligned + 16, 64, cudaHostRegisterDefault));
  cudaGetLastError();
  CHECK(cudaHostUnregister(aligned));
  printf("still readable after unregistering: %s\n", filledWith(aligned, pageInts, 100) ? "ok" : "WRONG");
  SHOW("unregister again", cudaHostUnregister(aligned));
  cudaGetLastError();
  free(aligned);

  const int odd = 300;
  int *unaligned = new int[odd + 3] + 3;
  for (int i = 0; i < odd; ++i)
    unaligned[i] = i;
  CHECK(cudaHostRegister(unaligned, odd * sizeof(int), cudaHostRegisterMapped));
  CHECK(cudaHostGetDevicePointer(reinterpret_cast<void **>(&device), unaligned, 0));
  addOne<<<(odd + 127) / 128, 128>>>(device, odd);
  CHECK(cudaDeviceSynchronize());
  printf("registered unaligned memory updated by a kernel: %s\n", filledWith(unaligned, odd, 1) ? "ok" : "WRONG");
  CHECK(cudaHostUnregister(unaligned));
  delete[](unaligned - 3);

  CHECK(cudaHostRegister(gGlobalArray, sizeof gGlobalArray, cudaHostRegisterPortable));
  CHECK(cudaHostGetDevicePointer(reinterpret_cast<void **>(&device), gGlobalArray, 0));
  fill<<<2048 / 256, 256>>>(device, 2048, -50);
  CHECK(cudaDeviceSynchronize());
  printf("registered global array filled by a kernel: %s\n", filledWith(gGlobalArray, 2048, -50) ? "ok" : "WRONG");
  CHECK(cudaMemcpy(host, gGlobalArray, 16 * sizeof(int), cudaMemcpyDefault));
  printf("copied from it: %d %d\n", host[0], host[15]);
  CHECK(cudaHostUnregister(gGlobalArray));

  CHECK(cudaStreamDestroy(stream));
  free(host);
  printf("runtime_calls: PASS\n");
  return 0;
}
