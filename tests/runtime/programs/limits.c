// cuCtxSetLimit with sizes no GPU holds (issue #31): an H200 returns CUDA_ERROR_INVALID_VALUE for
// SIZE_MAX stack, printf FIFO and heap limits; ptxray accepted them, and a SIZE_MAX heap made every
// device malloc return NULL. Sizes that fit are still accepted and read back.
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef int CUresult;
enum { STACK = 0, PRINTF_FIFO = 1, HEAP = 2 };
CUresult cuInit(unsigned flags);
CUresult cuDeviceGet(int *device, int ordinal);
CUresult cuCtxCreate_v2(void **context, unsigned flags, int device);
CUresult cuCtxSetLimit(int limit, size_t value);
CUresult cuCtxGetLimit(size_t *value, int limit);

int main(void) {
  void *context;
  int device;
  if (cuInit(0) || cuDeviceGet(&device, 0) || cuCtxCreate_v2(&context, 0, device)) {
    printf("setup failed\n");
    return 1;
  }
  const char *names[] = {"stack", "printf FIFO", "heap"};
  for (int limit = STACK; limit <= HEAP; ++limit)
    printf("%s SIZE_MAX: %d\n", names[limit], cuCtxSetLimit(limit, SIZE_MAX));
  size_t value = 0;
  printf("stack 8192: %d", cuCtxSetLimit(STACK, 8192));
  cuCtxGetLimit(&value, STACK);
  printf(", reads %zu\n", value);
  printf("heap 64 MiB: %d", cuCtxSetLimit(HEAP, 64u << 20));
  cuCtxGetLimit(&value, HEAP);
  printf(", reads %zu\n", value);
  return 0;
}
