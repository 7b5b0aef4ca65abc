// cuMemcpy2D with hostile pitches and device rows outside every allocation (issue #31): NVIDIA's
// static runtime turns cudaMemcpy2D into these calls. A row the memory type says is device memory
// must be device memory: before, a row past the allocation was taken for a host pointer and a large
// pitch overwrote this program's own array, and a pitch of SIZE_MAX crashed the library.
// Built with the system compiler against ptxray's libcuda.so.1 (no CUDA headers: the few
// declarations it needs are below, as cuda.h gives them).
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

typedef int CUresult;
typedef uint64_t CUdeviceptr;
enum { HOST = 1, DEVICE = 2, UNIFIED = 4 };
typedef struct {
  size_t srcXInBytes, srcY;
  int srcMemoryType;
  const void *srcHost;
  CUdeviceptr srcDevice;
  void *srcArray;
  size_t srcPitch;
  size_t dstXInBytes, dstY;
  int dstMemoryType;
  void *dstHost;
  CUdeviceptr dstDevice;
  void *dstArray;
  size_t dstPitch;
  size_t WidthInBytes, Height;
} CUDA_MEMCPY2D;

CUresult cuInit(unsigned flags);
CUresult cuDeviceGet(int *device, int ordinal);
CUresult cuCtxCreate_v2(void **context, unsigned flags, int device);
CUresult cuMemAlloc_v2(CUdeviceptr *address, size_t bytes);
CUresult cuMemcpy2D_v2(const CUDA_MEMCPY2D *copy);

static CUDA_MEMCPY2D hostToDevice(const void *host, size_t hostPitch, CUdeviceptr device, size_t devicePitch,
                                  size_t width, size_t height) {
  CUDA_MEMCPY2D c;
  memset(&c, 0, sizeof c);
  c.srcMemoryType = HOST;
  c.srcHost = host;
  c.srcPitch = hostPitch;
  c.dstMemoryType = DEVICE;
  c.dstDevice = device;
  c.dstPitch = devicePitch;
  c.WidthInBytes = width;
  c.Height = height;
  return c;
}

int main(void) {
  void *context;
  int device;
  CUdeviceptr d;
  if (cuInit(0) || cuDeviceGet(&device, 0) || cuCtxCreate_v2(&context, 0, device) || cuMemAlloc_v2(&d, 256)) {
    printf("setup failed\n");
    return 1;
  }
  static char rows[4][64];
  static char victim[4096];
  memset(rows, 'r', sizeof rows);
  memset(victim, 'v', sizeof victim);

  CUDA_MEMCPY2D fits = hostToDevice(rows, 64, d, 64, 64, 4);
  printf("4 rows of 64 into 256 bytes: %d\n", cuMemcpy2D_v2(&fits));
  // Rows 1-3 land 1 MiB apart: outside the allocation, whatever happens to be there.
  CUDA_MEMCPY2D past = hostToDevice(rows, 64, d, 1 << 20, 64, 4);
  printf("device pitch past the allocation: %d\n", cuMemcpy2D_v2(&past));
  // A device pitch that reaches this program's own array: it must not be written.
  CUDA_MEMCPY2D aimed = hostToDevice(rows, 64, d, (size_t)((uintptr_t)victim - (uintptr_t)d), 64, 2);
  printf("device pitch aimed at host memory: %d\n", cuMemcpy2D_v2(&aimed));
  printf("host array untouched: %s\n", victim[0] == 'v' ? "yes" : "no");
  CUDA_MEMCPY2D wraps = hostToDevice(rows, 64, d, SIZE_MAX, 64, 2);
  printf("device pitch SIZE_MAX: %d\n", cuMemcpy2D_v2(&wraps));
  CUDA_MEMCPY2D hostWraps = hostToDevice(rows, SIZE_MAX, d, 64, 64, 2);
  printf("host pitch SIZE_MAX: %d\n", cuMemcpy2D_v2(&hostWraps));
  // Back to the host: device to host with a fitting layout still works.
  static char back[4][64];
  CUDA_MEMCPY2D down;
  memset(&down, 0, sizeof down);
  down.srcMemoryType = DEVICE;
  down.srcDevice = d;
  down.srcPitch = 64;
  down.dstMemoryType = HOST;
  down.dstHost = back;
  down.dstPitch = 64;
  down.WidthInBytes = 64;
  down.Height = 4;
  const CUresult downResult = cuMemcpy2D_v2(&down);
  printf("device to host: %d, bytes back: %s\n", downResult, memcmp(back, rows, sizeof rows) ? "differ" : "same");
  return 0;
}
