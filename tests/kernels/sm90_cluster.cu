// ptxray test corpus: Hopper (sm_90) features.
// Thread block clusters (__cluster_dims__ -> .reqnctapercluster / .explicitcluster,
// cluster.sync -> barrier.cluster.arrive/wait, distributed shared memory ->
// mapa + ld/st/atom.shared::cluster), cluster special registers, elect.sync,
// redux.sync, mbarrier with transaction counts, cp.async.bulk, fence.proxy.async,
// griddepcontrol, __grid_constant__ parameters, stmatrix / ldmatrix.
// On targets below sm_90 the bodies compile to (almost) nothing.
#include <cooperative_groups.h>
#include <cuda/barrier>

namespace cg = cooperative_groups;

#pragma nv_diag_suppress static_var_with_dynamic_init

#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 900
#define CLUSTER_DIMS(x, y, z) __cluster_dims__(x, y, z)
#else
#define CLUSTER_DIMS(x, y, z)
#endif

__global__ void CLUSTER_DIMS(4, 1, 1) cluster_histogram(const int *in, int *out, int n,
                                                        int bins) {
#if __CUDA_ARCH__ >= 900
  extern __shared__ int hist[];
  cg::cluster_group cluster = cg::this_cluster();
  unsigned rank = cluster.block_rank();
  int per_block = bins / (int)cluster.num_blocks();
  for (int k = threadIdx.x; k < per_block; k += blockDim.x) hist[k] = 0;
  cluster.sync();
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    int b = in[i] % bins;
    int owner = b / per_block;
    int *remote = cluster.map_shared_rank(hist, owner);  // mapa
    atomicAdd(remote + (b % per_block), 1);              // atom.shared::cluster
  }
  cluster.sync();
  int *peer = cluster.map_shared_rank(hist, (rank + 1) % cluster.num_blocks());
  int peek = peer[threadIdx.x % per_block];              // ld.shared::cluster
  for (int k = threadIdx.x; k < per_block; k += blockDim.x)
    atomicAdd(&out[rank * per_block + k], hist[k]);
  // The same through explicit shared::cluster addressing.
  unsigned local_addr = (unsigned)__cvta_generic_to_shared(&hist[0]);
  unsigned remote_addr;
  int rv;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(remote_addr) : "r"(local_addr),
               "r"((rank + 1) % 4));
  asm volatile("ld.shared::cluster.u32 %0, [%1];" : "=r"(rv) : "r"(remote_addr));
  asm volatile("atom.shared::cluster.add.u32 %0, [%1+4], 1;" : "=r"(rv) : "r"(remote_addr));
  asm volatile("st.async.shared::cluster.mbarrier::complete_tx::bytes.u32 [%0], %1, [%0+8];" ::"r"(
                   remote_addr),
               "r"(rv)
               : "memory");
  if (threadIdx.x == 0) out[bins + blockIdx.x] = peek + rv + (int)cluster.dim_blocks().x;
  cluster.sync();
#endif
}

__global__ void cluster_sregs(unsigned *out) {
#if __CUDA_ARCH__ >= 900
  unsigned r[8];
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r[0]));
  asm volatile("mov.u32 %0, %%cluster_nctarank;" : "=r"(r[1]));
  asm volatile("mov.u32 %0, %%cluster_ctaid.x;" : "=r"(r[2]));
  asm volatile("mov.u32 %0, %%cluster_nctaid.y;" : "=r"(r[3]));
  asm volatile("mov.u32 %0, %%clusterid.x;" : "=r"(r[4]));
  asm volatile("mov.u32 %0, %%nclusterid.z;" : "=r"(r[5]));
  unsigned is_explicit;
  asm volatile(
      "{\n\t.reg .pred p;\n\tmov.pred p, %%is_explicit_cluster;\n\tselp.u32 %0, 1, 0, p;\n\t}"
      : "=r"(is_explicit));
  r[6] = is_explicit;
  // split cluster barrier
  asm volatile("barrier.cluster.arrive.release.aligned;" ::: "memory");
  asm volatile("barrier.cluster.wait.acquire.aligned;" ::: "memory");
  r[7] = __reduce_add_sync(0xffffffffu, threadIdx.x);
  unsigned elected = 0, leader = 0;
  asm volatile(
      "{\n\t.reg .pred p;\n\t.reg .b32 l;\n\t"
      "elect.sync l|p, %2;\n\t"
      "selp.u32 %0, 1, 0, p;\n\tmov.u32 %1, l;\n\t}"
      : "=r"(elected), "=r"(leader)
      : "r"(0xffffffffu));
  for (int k = 0; k < 8; ++k) out[threadIdx.x * 10 + k] = r[k];
  out[threadIdx.x * 10 + 8] = elected;
  out[threadIdx.x * 10 + 9] = leader;
#endif
}

// Leader election through cooperative groups (elect.sync on sm_90).
__global__ void invoke_one_kernel(int *counter) {
#if __CUDA_ARCH__ >= 900
  auto warp = cg::tiled_partition<32>(cg::this_thread_block());
  cg::invoke_one(warp, [&] { atomicAdd(counter, 1); });
#endif
}

// Bulk copy into shared memory with a transaction-count mbarrier.
__global__ void bulk_copy(const int4 *__restrict__ in, int4 *out) {
#if __CUDA_ARCH__ >= 900
  __shared__ alignas(128) int4 tile[256];
  __shared__ cuda::barrier<cuda::thread_scope_block> bar;
  if (threadIdx.x == 0) {
    init(&bar, blockDim.x);
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  }
  __syncthreads();
  cuda::barrier<cuda::thread_scope_block>::arrival_token token;
  if (threadIdx.x == 0) {
    cuda::memcpy_async(tile, in + blockIdx.x * 256, cuda::aligned_size_t<16>(sizeof(tile)), bar);
    token = bar.arrive();
  } else {
    token = bar.arrive();
  }
  bar.wait(std::move(token));
  out[blockIdx.x * 256 + threadIdx.x] = tile[threadIdx.x];
#endif
}

struct __align__(64) Descriptor {
  unsigned long long words[16];
};

// __grid_constant__ parameter whose address is taken (stays in .param space)
// and programmatic dependent launch controls.
__global__ void grid_constant_pdl(const __grid_constant__ Descriptor desc, unsigned long long *out) {
#if __CUDA_ARCH__ >= 900
  cudaGridDependencySynchronize();  // griddepcontrol.wait
  const unsigned long long *p = &desc.words[0];
  out[threadIdx.x] = p[threadIdx.x & 15];
  cudaTriggerProgrammaticLaunchCompletion();  // griddepcontrol.launch_dependents
#endif
}

// Matrix fragment load/store through shared memory (ldmatrix: sm_75, stmatrix: sm_90).
__global__ void matrix_moves(unsigned *out) {
  __shared__ __align__(16) unsigned short smat[16 * 16];
  for (int k = threadIdx.x; k < 256; k += blockDim.x) smat[k] = (unsigned short)k;
  __syncthreads();
  unsigned addr = (unsigned)__cvta_generic_to_shared(&smat[(threadIdx.x & 15) * 16]);
  unsigned a0, a1, a2, a3;
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
               : "=r"(a0), "=r"(a1), "=r"(a2), "=r"(a3)
               : "r"(addr));
  unsigned t0;
  asm volatile("ldmatrix.sync.aligned.m8n8.x1.trans.shared.b16 {%0}, [%1];" : "=r"(t0) : "r"(addr));
  __syncthreads();
#if __CUDA_ARCH__ >= 900
  asm volatile("stmatrix.sync.aligned.m8n8.x2.shared.b16 [%0], {%1, %2};" ::"r"(addr), "r"(a1),
               "r"(a0)
               : "memory");
  __syncthreads();
#endif
  out[threadIdx.x] = a0 ^ a1 ^ a2 ^ a3 ^ t0 ^ smat[threadIdx.x & 255];
}
