// Dynamic parallelism: the device runtime's queries, error texts and copies, called from a kernel.
// A parent grid of one thread asks for device attributes, limits, cache and shared-memory
// configurations, a child kernel's attributes and occupancy, and the names and texts of errors; it
// copies and sets memory with cudaMemcpyAsync/cudaMemsetAsync (1D, 2D and 3D) in its block's stream,
// launches a grid there that checks what the copies left, and tries what the device runtime refuses
// (a copy from the host's memory, an unknown attribute, an unknown limit). The host prints what the
// parent saw and what the buffers hold. Values that depend on the compiler's register allocation
// (a kernel's register count) are printed as ranges.
#include <cstdio>
#include <cstring>
#include <cuda_runtime.h>

constexpr int kWords = 64;

struct Seen {
  int smCount, major, minor, warpSize, maxThreadsPerBlock, sharedOptin, attrError, badAttrError;
  unsigned long long heap, printfFifo, pendingLaunches;
  int limitError, badLimitError, cacheConfig, sharedConfig;
  int funcError, funcRegsPositive, funcMaxThreads, funcShared, funcBinaryVersion;
  int occupancyError, occupancy128, occupancy1024;
  int copyError, setError, copy2dError, set2dError, copy3dError, set3dError, hostCopyError;
  char names[3][48], texts[3][96];
};

__device__ Seen seen;
__device__ int checkedWords, checkedMismatches;

__global__ void child(int *p) {
  __shared__ int scratch[256];
  scratch[threadIdx.x] = p[threadIdx.x % kWords];
  __syncthreads();
  p[threadIdx.x % kWords] = scratch[(threadIdx.x + 1) % blockDim.x];
}

// Runs after the copies in the same stream: b is a, then its first 64 bytes set to 0x01.
__global__ void check(const int *a, const int *b) {
  for (int i = 0; i < kWords; ++i) {
    const int want = i < 16 ? 0x01010101 : a[i];
    checkedWords++;
    if (b[i] != want)
      checkedMismatches++;
  }
}

__device__ void copyText(char *dst, const char *src, int n) {
  int i = 0;
  for (; i < n - 1 && src[i]; ++i)
    dst[i] = src[i];
  dst[i] = 0;
}

__global__ void parent(const int *a, int *b, int *c, int *hostArray) {
  Seen &s = seen;
  s.attrError = cudaDeviceGetAttribute(&s.smCount, cudaDevAttrMultiProcessorCount, 0);
  cudaDeviceGetAttribute(&s.major, cudaDevAttrComputeCapabilityMajor, 0);
  cudaDeviceGetAttribute(&s.minor, cudaDevAttrComputeCapabilityMinor, 0);
  cudaDeviceGetAttribute(&s.warpSize, cudaDevAttrWarpSize, 0);
  cudaDeviceGetAttribute(&s.maxThreadsPerBlock, cudaDevAttrMaxThreadsPerBlock, 0);
  cudaDeviceGetAttribute(&s.sharedOptin, cudaDevAttrMaxSharedMemoryPerBlockOptin, 0);
  int unused = 0;
  s.badAttrError = cudaDeviceGetAttribute(&unused, (cudaDeviceAttr)100000, 0);

  size_t v = 0;
  s.limitError = cudaDeviceGetLimit(&v, cudaLimitMallocHeapSize);
  s.heap = v;
  cudaDeviceGetLimit(&v, cudaLimitPrintfFifoSize);
  s.printfFifo = v;
  cudaDeviceGetLimit(&v, cudaLimitDevRuntimePendingLaunchCount);
  s.pendingLaunches = v;
  s.badLimitError = cudaDeviceGetLimit(&v, (cudaLimit)1000);
  cudaFuncCache cache;
  cudaDeviceGetCacheConfig(&cache);
  s.cacheConfig = cache;
  cudaSharedMemConfig shared;
  cudaDeviceGetSharedMemConfig(&shared);
  s.sharedConfig = shared;

  cudaFuncAttributes fa;
  s.funcError = cudaFuncGetAttributes(&fa, child);
  s.funcRegsPositive = fa.numRegs > 0 && fa.numRegs <= 255;
  s.funcMaxThreads = fa.maxThreadsPerBlock;
  s.funcShared = (int)fa.sharedSizeBytes;
  s.funcBinaryVersion = fa.binaryVersion;
  s.occupancyError = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&s.occupancy128, child, 128, 0);
  cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(&s.occupancy1024, child, 1024, 0, cudaOccupancyDefault);

  const cudaError_t errors[3] = {cudaSuccess, cudaErrorInvalidValue, cudaErrorLaunchPendingCountExceeded};
  for (int i = 0; i < 3; ++i) {
    copyText(s.names[i], cudaGetErrorName(errors[i]), sizeof s.names[i]);
    copyText(s.texts[i], cudaGetErrorString(errors[i]), sizeof s.texts[i]);
  }

  // In the block's stream, in order: b = a; b[0..16) = 0x01 bytes; then a grid checks b.
  s.copyError = cudaMemcpyAsync(b, a, kWords * sizeof(int), cudaMemcpyDeviceToDevice, 0);
  s.setError = cudaMemsetAsync(b, 1, 16 * sizeof(int), 0);
  check<<<1, 1>>>(a, b);
  // c: a 4 x 8 word matrix with a pitch of 16 words, the rows of a at a pitch of 8 words; then the
  // second column block (words 8..15 of each row) set to 0xff bytes, 3D copies and sets on top.
  s.copy2dError = cudaMemcpy2DAsync(c, 16 * sizeof(int), a, 8 * sizeof(int), 8 * sizeof(int), 4,
                                    cudaMemcpyDeviceToDevice, 0);
  s.set2dError = cudaMemset2DAsync(c + 8, 16 * sizeof(int), 0xff, 8 * sizeof(int), 4, 0);
  cudaMemcpy3DParms p;
  memset(&p, 0, sizeof p);
  p.srcPtr.ptr = (void *)a;
  p.srcPtr.pitch = 4 * sizeof(int);
  p.srcPtr.xsize = 4;
  p.srcPtr.ysize = 2;
  p.dstPtr.ptr = c + 64;
  p.dstPtr.pitch = 8 * sizeof(int);
  p.dstPtr.xsize = 8;
  p.dstPtr.ysize = 2;
  p.extent.width = 4 * sizeof(int);
  p.extent.height = 2;
  p.extent.depth = 2;
  p.kind = cudaMemcpyDeviceToDevice;
  s.copy3dError = cudaMemcpy3DAsync(&p, 0);
  cudaPitchedPtr q;
  q.ptr = c + 96;
  q.pitch = 8 * sizeof(int);
  q.xsize = 8;
  q.ysize = 2;
  cudaExtent e;
  e.width = 2 * sizeof(int);
  e.height = 2;
  e.depth = 2;
  s.set3dError = cudaMemset3DAsync(q, 0x7f, e, 0);
  s.hostCopyError = cudaMemcpyAsync(b, hostArray, 4, cudaMemcpyHostToDevice, 0);
  cudaGetLastError();
}

int main() {
  int *a, *b, *c;
  cudaMalloc(&a, kWords * sizeof(int));
  cudaMalloc(&b, kWords * sizeof(int));
  cudaMalloc(&c, 128 * sizeof(int));
  int host[kWords];
  for (int i = 0; i < kWords; ++i)
    host[i] = i * 7 + 3;
  cudaMemcpy(a, host, sizeof host, cudaMemcpyHostToDevice);
  cudaMemset(b, 0, kWords * sizeof(int));
  cudaMemset(c, 0, 128 * sizeof(int));
  static int hostArray[4];
  parent<<<1, 1>>>(a, b, c, hostArray);
  cudaError_t err = cudaDeviceSynchronize();
  printf("parent: %s\n", cudaGetErrorName(err));
  Seen s;
  cudaMemcpyFromSymbol(&s, seen, sizeof s);
  printf("attributes: error %d, %d SMs, sm_%d%d, warp %d, %d threads per block, %d bytes of shared memory opt-in; "
         "unknown attribute: error %d\n",
         s.attrError, s.smCount, s.major, s.minor, s.warpSize, s.maxThreadsPerBlock, s.sharedOptin, s.badAttrError);
  printf("limits: error %d, heap %llu, printf FIFO %llu, pending launches %llu; unknown limit: error %d\n",
         s.limitError, s.heap, s.printfFifo, s.pendingLaunches, s.badLimitError);
  printf("cache config %d, shared memory config %d\n", s.cacheConfig, s.sharedConfig);
  printf("child: error %d, registers in 1..255 %d, max threads %d, shared %d bytes, binary version %d\n", s.funcError,
         s.funcRegsPositive, s.funcMaxThreads, s.funcShared, s.funcBinaryVersion);
  printf("occupancy: error %d, %d blocks of 128, %d of 1024\n", s.occupancyError, s.occupancy128, s.occupancy1024);
  for (int i = 0; i < 3; ++i)
    printf("%s: %s\n", s.names[i], s.texts[i]);
  printf("copies: %d %d %d %d %d %d; from the host: %d\n", s.copyError, s.setError, s.copy2dError, s.set2dError,
         s.copy3dError, s.set3dError, s.hostCopyError);
  int words = 0, mismatches = 0;
  cudaMemcpyFromSymbol(&words, checkedWords, sizeof words);
  cudaMemcpyFromSymbol(&mismatches, checkedMismatches, sizeof mismatches);
  printf("the check grid: %d words, %d mismatches\n", words, mismatches);
  int hb[kWords], hc[128];
  cudaMemcpy(hb, b, sizeof hb, cudaMemcpyDeviceToHost);
  cudaMemcpy(hc, c, sizeof hc, cudaMemcpyDeviceToHost);
  unsigned long long sum = 0;
  for (int i = 0; i < kWords; ++i)
    sum = sum * 31 + (unsigned)hb[i];
  printf("b: %08x %08x %08x ... checksum %llu\n", hb[0], hb[16], hb[63], sum);
  for (int r = 0; r < 8; ++r) {
    printf("c[%3d..]:", r * 16);
    for (int i = 0; i < 16; ++i)
      printf(" %x", hc[r * 16 + i]);
    printf("\n");
  }
  return err == cudaSuccess ? 0 : 1;
}
