// How deep a recursive device function may go under a given stack-size limit (cudaLimitStackSize):
// `stack_depth LIMIT DEPTH [THREADS]` sets the limit (0: leave the default), launches one block of
// THREADS threads that each recurse DEPTH calls deep, and prints the limit the runtime reports and
// whether the launch completed. Each frame holds a 16-int local array, so ptxas gives it a stack
// frame it cannot size statically (recursion): the driver sizes the stack from the limit alone.
#include <cstdio>
#include <cstdlib>

__device__ int recurse(int depth, volatile int *sink) {
  int local[16];
  for (int i = 0; i < 16; ++i)
    local[i] = depth * 3 + i;
  sink[depth & 7] = local[depth & 15];
  if (depth == 0)
    return local[3];
  return recurse(depth - 1, sink) + local[(depth * 7) & 15];
}

__global__ void deep(int depth, int *out, volatile int *sink) {
  out[threadIdx.x] = recurse(depth, sink);
}

int main(int argc, char **argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: stack_depth LIMIT DEPTH [THREADS]\n");
    return 2;
  }
  const size_t limit = std::strtoull(argv[1], nullptr, 10);
  const int depth = std::atoi(argv[2]);
  const int threads = argc > 3 ? std::atoi(argv[3]) : 32;
  size_t before = 0, after = 0;
  cudaDeviceGetLimit(&before, cudaLimitStackSize);
  if (limit) {
    cudaError_t e = cudaDeviceSetLimit(cudaLimitStackSize, limit);
    if (e != cudaSuccess) {
      std::printf("limit_before=%zu set=%zu error=%s\n", before, limit, cudaGetErrorName(e));
      return 3;
    }
  }
  cudaDeviceGetLimit(&after, cudaLimitStackSize);
  int *out = nullptr, *sink = nullptr;
  cudaMalloc(&out, threads * sizeof(int));
  cudaMalloc(&sink, 8 * sizeof(int));
  deep<<<1, threads>>>(depth, out, sink);
  cudaError_t launch = cudaGetLastError();
  cudaError_t sync = cudaDeviceSynchronize();
  size_t later = 0;
  cudaDeviceGetLimit(&later, cudaLimitStackSize);
  int first = -1;
  if (sync == cudaSuccess)
    cudaMemcpy(&first, out, sizeof(int), cudaMemcpyDeviceToHost);
  std::printf("limit_before=%zu limit_set=%zu limit_after_launch=%zu depth=%d threads=%d launch=%s sync=%s out0=%d\n",
              before, after, later, depth, threads, cudaGetErrorName(launch), cudaGetErrorName(sync), first);
  return sync == cudaSuccess ? 0 : 1;
}
