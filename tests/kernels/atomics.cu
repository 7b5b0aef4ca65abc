// ptxray test corpus: atomics and reductions.
// atomicAdd (int / unsigned long long / float / double / half2 / bf16x2), CAS,
// Exch, Inc/Dec, Min/Max/And/Or/Xor, the _block and _system scoped variants,
// cuda::atomic_ref with explicit memory orders and thread scopes, fences.
#include <cuda/atomic>
#include <cuda_bf16.h>
#include <cuda_fp16.h>

__device__ unsigned long long g_ticket;
__device__ float g_fsum;

__global__ void basic_atomics(int *ip, unsigned *up, unsigned long long *ullp, float *fp,
                              double *dp, __half2 *hp, int *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int r = 0;
  r += atomicAdd(&ip[0], i);
  r += (int)atomicAdd(&up[0], 3u);
  r += (int)atomicAdd(&ullp[0], 1ull);
  r += (int)atomicAdd(&fp[0], 0.5f);
  r += (int)atomicAdd(&dp[0], 0.25);
  __half2 h = atomicAdd(&hp[0], __floats2half2_rn(1.0f, 2.0f));
  r += (int)__low2float(h);
  r += atomicSub(&ip[1], 2);
  r += atomicExch(&ip[2], i);
  r += (int)atomicExch(&ullp[1], (unsigned long long)i);
  r += (int)atomicExch(&fp[1], 1.0f);
  r += atomicMin(&ip[3], i) + atomicMax(&ip[4], i);
  r += (int)(atomicMin(&up[1], (unsigned)i) + atomicMax(&up[2], (unsigned)i));
  r += (int)(atomicMin(&ullp[2], 5ull) + atomicMax((long long *)&ullp[3], -5ll));
  r += (int)atomicInc(&up[3], 17u) + (int)atomicDec(&up[4], 17u);
  r += atomicAnd(&ip[5], 0xf0) | atomicOr(&ip[6], 1 << (i & 31)) | atomicXor(&ip[7], i);
  r += (int)(atomicAnd(&ullp[4], 0xffull) ^ atomicOr(&ullp[5], 2ull) ^ atomicXor(&ullp[6], 3ull));
  r += atomicCAS(&ip[8], i, i + 1);
  r += (int)atomicCAS(&ullp[7], 0ull, (unsigned long long)i);
  r += (int)atomicCAS((unsigned short *)&up[5], (unsigned short)1, (unsigned short)2);
  r += (int)atomicAdd(&g_ticket, 1ull) + (int)atomicAdd(&g_fsum, 1.0f);
  out[i] = r;
  // Results unused: reductions (red.*) instead of atom.*
  atomicAdd(&ip[9], 1);
  atomicOr(&up[6], 4u);
  atomicAdd(&fp[2], 2.0f);
  atomicMax(&ip[10], i);
}

__global__ void scoped_atomics(int *ip, unsigned *up, float *fp, double *dp, int *out) {
  __shared__ int s_hist[16];
  __shared__ float s_f;
  if (threadIdx.x < 16) s_hist[threadIdx.x] = 0;
  if (threadIdx.x == 0) s_f = 0.0f;
  __syncthreads();
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int r = 0;
  r += atomicAdd_block(&ip[0], 1);
  r += atomicAdd_system(&ip[1], 1);
  r += (int)atomicAdd_block(&fp[0], 1.0f) + (int)atomicAdd_system(&dp[0], 1.0);
  r += atomicExch_block(&ip[2], i) + atomicExch_system(&ip[3], i);
  r += atomicCAS_block(&ip[4], 0, i) + atomicCAS_system(&ip[5], 0, i);
  r += atomicMin_block(&ip[6], i) + atomicMax_system(&ip[7], i);
  r += (int)atomicInc_block(&up[0], 9u) + (int)atomicDec_system(&up[1], 9u);
  r += atomicAnd_block(&ip[8], i) + atomicOr_system(&ip[9], i) + atomicXor_block(&ip[10], i);
  r += atomicAdd(&s_hist[i & 15], 1);          // atom.shared
  atomicAdd(&s_f, 0.5f);                        // red.shared.add.f32
  r += atomicCAS(&s_hist[(i + 1) & 15], 0, 1);  // atom.shared.cas
  __syncthreads();
  out[i] = r + s_hist[threadIdx.x & 15] + (int)s_f;
}

__global__ void atomic_ref_orders(int *data, unsigned long long *wide, float *fsum, int *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  cuda::atomic_ref<int, cuda::thread_scope_device> a(data[0]);
  cuda::atomic_ref<int, cuda::thread_scope_block> b(data[1]);
  cuda::atomic_ref<int, cuda::thread_scope_system> c(data[2]);
  cuda::atomic_ref<unsigned long long, cuda::thread_scope_device> w(*wide);
  cuda::atomic_ref<float, cuda::thread_scope_device> f(*fsum);
  int r = a.fetch_add(1, cuda::memory_order_relaxed);
  r += a.fetch_sub(1, cuda::memory_order_acq_rel);
  r += b.fetch_or(i, cuda::memory_order_release);
  r += b.fetch_and(~i, cuda::memory_order_acquire);
  r += c.fetch_xor(i, cuda::memory_order_seq_cst);
  r += a.load(cuda::memory_order_acquire);
  b.store(r, cuda::memory_order_release);
  c.store(r, cuda::memory_order_relaxed);
  int expected = 0;
  a.compare_exchange_strong(expected, i, cuda::memory_order_acq_rel,
                            cuda::memory_order_relaxed);
  r += expected;
  r += (int)w.exchange((unsigned long long)i, cuda::memory_order_seq_cst);
  r += (int)w.fetch_max(7ull, cuda::memory_order_relaxed);
  r += (int)f.fetch_add(1.5f, cuda::memory_order_relaxed);
  r += c.load();  // default seq_cst
  cuda::atomic_thread_fence(cuda::memory_order_seq_cst, cuda::thread_scope_block);
  cuda::atomic_thread_fence(cuda::memory_order_acquire, cuda::thread_scope_system);
  out[i] = r;
}

__global__ void wide_float_atomics(__nv_bfloat162 *bp, __half *hp, float2 *f2p, float4 *f4p) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
#if __CUDA_ARCH__ >= 800
  atomicAdd(&bp[0], __floats2bfloat162_rn(1.0f, (float)i));
#endif
  atomicAdd(&hp[i & 1], __float2half(0.5f));
#if __CUDA_ARCH__ >= 900
  atomicAdd(&f2p[0], make_float2(1.0f, 2.0f));   // red.global.v2.f32 (sm_90)
  atomicAdd(&f4p[0], make_float4(1.0f, 2.0f, 3.0f, 4.0f));
#else
  atomicAdd(&f2p[0].x, 1.0f);
#endif
}

__global__ void fences(volatile int *data, int *flag) {
  data[threadIdx.x] = threadIdx.x;
  __threadfence_block();
  data[threadIdx.x + 32] = 1;
  __threadfence();
  data[threadIdx.x + 64] = 2;
  __threadfence_system();
  if (threadIdx.x == 0) atomicExch(flag, 1);
}

// NVVM in CUDA 13 keeps atom.* even when the result is unused; the red.* forms
// older compilers produced are written here directly.
__global__ void red_forms(int *ip, float *fp, unsigned long long *up) {
  __shared__ int s_val;
  if (threadIdx.x == 0) s_val = 0;
  __syncthreads();
  int v = (int)threadIdx.x;
  asm volatile("red.global.add.u32 [%0], %1;" ::"l"(ip), "r"(v) : "memory");
  asm volatile("red.global.add.f32 [%0+4], %1;" ::"l"(fp), "f"(1.0f) : "memory");
  asm volatile("red.global.or.b64 [%0], %1;" ::"l"(up), "l"((unsigned long long)v) : "memory");
  asm volatile("red.relaxed.gpu.global.max.s32 [%0+8], %1;" ::"l"(ip), "r"(v) : "memory");
  asm volatile("red.release.sys.global.add.u64 [%0+8], 1;" ::"l"(up) : "memory");
  asm volatile("red.shared.add.u32 [%0], %1;" ::"r"((unsigned)__cvta_generic_to_shared(&s_val)),
               "r"(v)
               : "memory");
  asm volatile("red.add.s32 [%0], %1;" ::"l"(&s_val), "r"(-v) : "memory");
  __syncthreads();
  if (threadIdx.x == 0) ip[3] = s_val;
}
