// A kernel that reads device memory nothing wrote (initcheck's finding) and copies it back; the
// program exits 0.
#include <cstdio>

__global__ void copy(const int *in, int *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = in[i] + 1;
}

int main() {
  const int n = 32;
  int *in = nullptr, *out = nullptr;
  cudaMalloc(&in, n * sizeof(int));
  cudaMalloc(&out, n * sizeof(int));
  copy<<<1, n>>>(in, out, n);
  int host[n];
  cudaMemcpy(host, out, sizeof(host), cudaMemcpyDeviceToHost);
  std::printf("uninit: %s\n", cudaGetErrorName(cudaGetLastError()));
  cudaFree(in);
  cudaFree(out);
  return 0;
}
