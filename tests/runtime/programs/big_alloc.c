// Half the modeled GPU's memory in one allocation (issue #31): the properties say 80 GiB for an
// H100, and cuMemAlloc(total / 2) must succeed as on the GPU (it failed past the VM's first 3.25 GiB).
// The allocation's last word is written and read back, and the free memory drops by its size. Run
// with a memory budget large enough (PTXRAY_MAX_MEMORY): untouched device memory costs the host nothing.
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef int CUresult;
typedef unsigned long long CUdeviceptr;
CUresult cuInit(unsigned flags);
CUresult cuDeviceGet(int *device, int ordinal);
CUresult cuDeviceTotalMem_v2(size_t *bytes, int device);
CUresult cuCtxCreate_v2(void **context, unsigned flags, int device);
CUresult cuMemAlloc_v2(CUdeviceptr *pointer, size_t bytes);
CUresult cuMemFree_v2(CUdeviceptr pointer);
CUresult cuMemGetInfo_v2(size_t *free, size_t *total);
CUresult cuMemsetD32_v2(CUdeviceptr pointer, unsigned value, size_t count);
CUresult cuMemcpyDtoH_v2(void *host, CUdeviceptr device, size_t bytes);

int main(void) {
  void *context;
  int device;
  size_t total = 0, before = 0, after = 0, reported = 0;
  if (cuInit(0) || cuDeviceGet(&device, 0) || cuCtxCreate_v2(&context, 0, device) ||
      cuDeviceTotalMem_v2(&total, device)) {
    printf("setup failed\n");
    return 1;
  }
  printf("total %zu GiB\n", total >> 30);
  cuMemGetInfo_v2(&before, &reported);
  CUdeviceptr half = 0;
  printf("cuMemAlloc(total / 2): %d\n", cuMemAlloc_v2(&half, total / 2));
  cuMemGetInfo_v2(&after, &reported);
  printf("free memory drops by %zu GiB\n", (before - after) >> 30);
  unsigned word = 0;
  printf("last word set: %d", cuMemsetD32_v2(half + total / 2 - 4, 0x600df00du, 1));
  const CUresult read = cuMemcpyDtoH_v2(&word, half + total / 2 - 4, 4);
  printf(", read: %d, 0x%x\n", read, word);
  printf("free: %d\n", cuMemFree_v2(half));
  return 0;
}
