// Two device allocations never freed (1024 and 4096 bytes) and one freed: what compute-sanitizer's
// --leak-check full reports for cudaMalloc leaks (validation/conventions/run.sh measures it on a GPU;
// results/leak.full*.txt), with and without cudaDeviceReset ("reset" as the first argument) before
// exit. The program itself exits 0.
#include <cstdio>
#include <cstring>

__global__ void fill(int *p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    p[i] = i;
}

int main(int argc, char **argv) {
  int *a = nullptr, *b = nullptr, *c = nullptr;
  cudaMalloc(&a, 1024);
  cudaMalloc(&b, 4096);
  cudaMalloc(&c, 512);
  fill<<<1, 256>>>(a, 256);
  cudaDeviceSynchronize();
  cudaFree(c);
  if (argc > 1 && std::strcmp(argv[1], "reset") == 0)
    cudaDeviceReset();
  std::printf("leak: done\n");
  return 0;
}
