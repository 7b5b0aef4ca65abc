// Device-heap leaks for the leak check, with clean twins. tests/sanitizers/InitcheckTest.cpp pins the
// lines below: add code at the end.

// Every thread mallocs a block of 16 ints, uses it and frees it only when `release` is set.
__global__ void scratchPerThread(int *out, int release) {
  int *scratch = (int *)malloc(16 * sizeof(int));
  for (int k = 0; k < 16; ++k)
    scratch[k] = k * threadIdx.x;
  out[blockIdx.x * blockDim.x + threadIdx.x] = scratch[threadIdx.x % 16];
  if (release)
    free(scratch);
}

// One block per block: thread 0 mallocs it and keeps the pointer in `blocks`; releaseBlocks, a later
// launch, frees them.
__global__ void keepBlocks(int **blocks) {
  if (threadIdx.x == 0) {
    int *p = (int *)malloc(256);
    p[0] = blockIdx.x;
    blocks[blockIdx.x] = p;
  }
}

__global__ void releaseBlocks(int **blocks) {
  if (threadIdx.x == 0)
    free(blocks[blockIdx.x]);
}
