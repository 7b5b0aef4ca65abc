// Dependent-issue latencies for the time model's architecture entry (arch::Latencies): one warp
// runs a chain of N dependent operations of one kind between two clock64 reads; the cycles per
// operation are printed. Built and run by microbench.sh on the GPU machine.
//
//   nvcc -O3 -arch=sm_90 -o microbench microbench.cu && ./microbench
#include <cstdio>
#include <cuda_runtime.h>

constexpr int N = 4096;

__device__ long long g_cycles;
__device__ float g_sink;
__device__ unsigned g_counter;
__constant__ unsigned c_chain[256];

template <class F> __device__ void timeChain(F step) {
  long long t0 = clock64();
  step();
  long long t1 = clock64();
  if (threadIdx.x == 0)
    g_cycles = t1 - t0;
}

__global__ void fma32(float a, float b) {
  float x = threadIdx.x;
  timeChain([&] {
#pragma unroll 16
    for (int i = 0; i < N; ++i)
      x = fmaf(x, a, b);
  });
  g_sink = x;
}

__global__ void fma64(double a, double b) {
  double x = threadIdx.x;
  timeChain([&] {
#pragma unroll 16
    for (int i = 0; i < N; ++i)
      x = fma(x, a, b);
  });
  g_sink = static_cast<float>(x);
}

__global__ void sfu(float a) {
  float x = threadIdx.x * 1e-3f;
  timeChain([&] {
#pragma unroll 16
    for (int i = 0; i < N; ++i)
      x = __sinf(x) * a; // MUFU.SIN + FMUL: subtract the FMUL (fma32's latency)
  });
  g_sink = x;
}

__global__ void shuffle(int delta) {
  int x = threadIdx.x;
  timeChain([&] {
#pragma unroll 16
    for (int i = 0; i < N; ++i)
      x = __shfl_xor_sync(0xffffffffu, x, delta);
  });
  g_sink = x;
}

__global__ void conversion() {
  float x = threadIdx.x;
  timeChain([&] {
#pragma unroll 16
    for (int i = 0; i < N; ++i)
      x = static_cast<float>(static_cast<int>(x)); // F2I + I2F: two conversions
  });
  g_sink = x;
}

__global__ void sharedChase() {
  __shared__ unsigned next[1024];
  for (int i = threadIdx.x; i < 1024; i += blockDim.x)
    next[i] = (i + 33) & 1023;
  __syncthreads();
  unsigned p = threadIdx.x;
  timeChain([&] {
    for (int i = 0; i < N; ++i)
      p = next[p];
  });
  g_sink = p;
}

__global__ void constantChase() {
  unsigned p = 0; // every lane the same address: the constant cache's best case
  timeChain([&] {
    for (int i = 0; i < N; ++i)
      p = c_chain[p];
  });
  g_sink = p;
}

__global__ void barrier() {
  unsigned x = threadIdx.x;
  timeChain([&] {
    for (int i = 0; i < N; ++i) {
      __syncthreads();
      x += 1;
    }
  });
  g_sink = x;
}

__global__ void atomicChain(unsigned *counter) {
  unsigned x = 0;
  timeChain([&] {
    for (int i = 0; i < N / 16; ++i)
      x = atomicAdd(counter + (x & 1), 1u); // dependent: the next address needs the old value
  });
  g_sink = x;
}

template <class K, class... A> void run(const char *name, int threads, double divide, K kernel, A... args) {
  kernel<<<1, threads>>>(args...); // warm-up (instruction cache, lazy loading)
  kernel<<<1, threads>>>(args...);
  cudaError_t e = cudaDeviceSynchronize();
  long long cycles = 0;
  cudaMemcpyFromSymbol(&cycles, g_cycles, sizeof cycles);
  if (e != cudaSuccess)
    std::printf("%-28s error %s\n", name, cudaGetErrorString(e));
  else
    std::printf("%-28s %4d threads  %8.2f cycles per operation\n", name, threads, cycles / divide);
}

int main() {
  unsigned chain[256];
  for (int i = 0; i < 256; ++i)
    chain[i] = (i + 1) & 255;
  cudaMemcpyToSymbol(c_chain, chain, sizeof chain);
  unsigned *counter = nullptr;
  cudaMalloc(&counter, 64);
  cudaMemset(counter, 0, 64);
  run("fma.rn.f32 chain", 32, N, fma32, 0.999f, 0.001f);
  run("fma.rn.f64 chain", 32, N, fma64, 0.999, 0.001);
  run("__sinf + fmul chain", 32, N, sfu, 0.999f);
  run("shfl.sync.bfly chain", 32, N, shuffle, 1);
  run("cvt f32->s32->f32 chain", 32, N, conversion);
  run("ld.shared chase", 32, N, sharedChase);
  run("ld.const chase (uniform)", 32, N, constantChase);
  for (int threads : {32, 64, 128, 256, 512, 1024})
    run("bar.sync loop", threads, N, barrier);
  run("atom.global.add chain", 32, N / 16, atomicChain, counter);
  return 0;
}
