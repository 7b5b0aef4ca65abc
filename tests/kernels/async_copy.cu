// ptxray test corpus: asynchronous copies and split barriers.
// __pipeline_memcpy_async (cp.async.ca/.cg + commit_group / wait_group),
// cuda::memcpy_async with cuda::pipeline and with cuda::barrier (mbarrier.*),
// cuda::barrier arrive/wait, cp.async.mbarrier.arrive. On compute_75 the
// library falls back to synchronous copies, which is also worth parsing.
#include <cooperative_groups.h>
#include <cuda/barrier>
#include <cuda/pipeline>
#include <cuda_pipeline.h>

namespace cg = cooperative_groups;

// cuda::pipeline_shared_state / cuda::barrier in __shared__ have constructors.
#pragma nv_diag_suppress static_var_with_dynamic_init

__global__ void pipeline_primitives(const float4 *in, float4 *out, int tiles) {
  __shared__ __align__(16) float4 stage[2][128];
  const int t = threadIdx.x;
  int buf = 0;
  __pipeline_memcpy_async(&stage[0][t], &in[t], sizeof(float4));
  __pipeline_commit();
  for (int k = 1; k <= tiles; ++k) {
    if (k < tiles) {
      __pipeline_memcpy_async(&stage[buf ^ 1][t], &in[k * 128 + t], sizeof(float4));
    }
    __pipeline_commit();
    __pipeline_wait_prior(1);
    __syncthreads();
    float4 v = stage[buf][(t + 1) & 127];
    out[(k - 1) * 128 + t] = make_float4(v.x * 2.0f, v.y, v.z, v.w);
    __syncthreads();
    buf ^= 1;
  }
}

__global__ void small_async_copies(const int *in, int *out) {
  __shared__ __align__(16) int s4[256];
  __shared__ __align__(16) long long s8[256];
  const int t = threadIdx.x;
  __pipeline_memcpy_async(&s4[t], &in[t], 4);                     // cp.async.ca 4
  __pipeline_memcpy_async(&s8[t], &in[2 * t + 512], 8);           // cp.async.ca 8
  __pipeline_memcpy_async(&s4[(t + 128) & 255], &in[t + 1024], 4, 4);  // zero-fill form
  __pipeline_commit();
  __pipeline_wait_prior(0);
  __syncthreads();
  out[t] = s4[255 - t] + (int)s8[t];
}

__global__ void cuda_pipeline_copy(const float *in, float *out, int n) {
  extern __shared__ float smem[];
  auto block = cg::this_thread_block();
  constexpr int stages = 2;
  __shared__ cuda::pipeline_shared_state<cuda::thread_scope_block, stages> state;
  auto pipe = cuda::make_pipeline(block, &state);
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

__global__ void barrier_copy(const int4 *in, int4 *out) {
  __shared__ __align__(16) int4 tile[256];
  __shared__ cuda::barrier<cuda::thread_scope_block> bar;
  auto block = cg::this_thread_block();
  if (block.thread_rank() == 0) init(&bar, block.size());
  block.sync();
  cuda::memcpy_async(block, tile, in + blockIdx.x * 256, sizeof(tile), bar);
  bar.arrive_and_wait();
  out[blockIdx.x * 256 + threadIdx.x] = tile[255 - threadIdx.x];
  // split arrive / wait with a token
  auto token = bar.arrive();
  tile[threadIdx.x].x += 1;
  bar.wait(std::move(token));
}

#if __CUDA_ARCH__ >= 800
// Raw mbarrier PTX on shared memory (sm_80 subset).
__global__ void raw_mbarrier(int *out) {
  __shared__ __align__(8) unsigned long long mbar;
  unsigned addr = (unsigned)__cvta_generic_to_shared(&mbar);
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared.b64 [%0], %1;" ::"r"(addr), "r"(blockDim.x) : "memory");
  }
  __syncthreads();
  unsigned long long state;
  asm volatile("mbarrier.arrive.shared.b64 %0, [%1];" : "=l"(state) : "r"(addr) : "memory");
  unsigned done = 0;
  while (!done) {
    asm volatile(
        "{\n\t.reg .pred p;\n\t"
        "mbarrier.test_wait.shared.b64 p, [%1], %2;\n\t"
        "selp.u32 %0, 1, 0, p;\n\t}"
        : "=r"(done)
        : "r"(addr), "l"(state)
        : "memory");
  }
  unsigned pending;
  asm volatile("mbarrier.pending_count.b64 %0, %1;" : "=r"(pending) : "l"(state));
  if (threadIdx.x == 0) asm volatile("mbarrier.inval.shared.b64 [%0];" ::"r"(addr) : "memory");
  out[threadIdx.x] = (int)pending;
}
#endif
