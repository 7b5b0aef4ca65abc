// compute-sanitizer's racecheck on mbarrier-ordered kernels, to compare with ptxray's
// (tests/sanitizers/MbarrierRaceTest.cpp): barrier_copy and cuda_pipeline_copy are those of
// tests/kernels/async_copy.cu. Expected: one Write-After-Read hazard in barrier_copy (the write after
// its split arrive, against another thread's read before it), none in cuda_pipeline_copy.
#include <cooperative_groups.h>
#include <cuda/barrier>
#include <cuda/pipeline>
#include <cstdio>
namespace cg = cooperative_groups;

__global__ void barrier_copy(const int4 *in, int4 *out) {
  __shared__ __align__(16) int4 tile[256];
  __shared__ cuda::barrier<cuda::thread_scope_block> bar;
  auto block = cg::this_thread_block();
  if (block.thread_rank() == 0) init(&bar, block.size());
  block.sync();
  cuda::memcpy_async(block, tile, in + blockIdx.x * 256, sizeof(tile), bar);
  bar.arrive_and_wait();
  out[blockIdx.x * 256 + threadIdx.x] = tile[255 - threadIdx.x];
  auto token = bar.arrive();
  tile[threadIdx.x].x += 1;
  bar.wait(std::move(token));
}

__global__ void cuda_pipeline_copy(const float *in, float *out, int n) {
  extern __shared__ float smem[];
  auto block = cg::this_thread_block();
  __shared__ cuda::pipeline_shared_state<cuda::thread_scope_block, 2> state;
  auto pipe = cuda::make_pipeline(block, &state);
  const int stages = 2;
  const int chunk = blockDim.x;
  for (int s = 0; s < stages; ++s) {
    pipe.producer_acquire();
    cuda::memcpy_async(block, smem + s * chunk, in + s * chunk, sizeof(float) * chunk, pipe);
    pipe.producer_commit();
  }
  pipe.consumer_wait();
  out[threadIdx.x] = smem[threadIdx.x] + smem[chunk + threadIdx.x];
  pipe.consumer_release();
}

int main() {
  int4 *in, *out;
  cudaMalloc(&in, 2 * 256 * sizeof(int4));
  cudaMalloc(&out, 2 * 256 * sizeof(int4));
  cudaMemset(in, 0, 2 * 256 * sizeof(int4));
  barrier_copy<<<2, 256>>>(in, out);
  float *fin, *fout;
  cudaMalloc(&fin, 256 * sizeof(float));
  cudaMalloc(&fout, 128 * sizeof(float));
  cudaMemset(fin, 0, 256 * sizeof(float));
  cuda_pipeline_copy<<<1, 128, 2 * 128 * sizeof(float)>>>(fin, fout, 256);
  cudaError_t e = cudaDeviceSynchronize();
  printf("%s\n", cudaGetErrorName(e));
  return e == cudaSuccess ? 0 : 1;
}
