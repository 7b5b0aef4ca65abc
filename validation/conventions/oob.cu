// Out-of-bounds stores from two kernels, one a template (demangled names), each launched twice, and
// a clean kernel between them: for compute-sanitizer's exit status (--error-exitcode), --print-limit,
// --kernel-name / --kernel-name-exclude filters, --launch-skip/--launch-count and --log-file. The
// program exits with the status given as its first argument (default 0).
#include <cstdio>
#include <cstdlib>

template <typename T> __global__ void scale(T *p, int n, T f) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i <= n) // one past the end: the bug
    p[i] = p[i < n ? i : 0] * f;
}

__global__ void shift(int *p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n + 2)
    p[i] = i + 1;
}

__global__ void clean(int *p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    p[i] = 2 * i;
}

int main(int argc, char **argv) {
  const int status = argc > 1 ? std::atoi(argv[1]) : 0;
  const int n = 64;
  float *f = nullptr;
  int *q = nullptr;
  cudaMalloc(&f, n * sizeof(float));
  cudaMalloc(&q, n * sizeof(int));
  for (int round = 0; round < 2; ++round) {
    scale<float><<<1, 96>>>(f, n, 2.0f);
    std::printf("scale: %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
    clean<<<1, 64>>>(q, n);
    std::printf("clean: %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
    shift<<<1, 96>>>(q, n);
    std::printf("shift: %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
  }
  cudaFree(f);
  cudaFree(q);
  return status;
}
