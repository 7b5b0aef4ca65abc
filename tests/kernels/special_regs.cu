// ptxray test corpus: special registers, timers, sleep.
// %tid/%ntid/%ctaid/%nctaid in all dimensions, %laneid, %warpid, %nwarpid,
// %smid, %nsmid, %gridid, %lanemask_*, %clock, %clock64, %globaltimer,
// %dynamic_smem_size, %total_smem_size, %envreg, %pm0, __nanosleep.

__device__ __forceinline__ unsigned sreg_laneid() {
  unsigned r;
  asm volatile("mov.u32 %0, %%laneid;" : "=r"(r));
  return r;
}
__device__ __forceinline__ unsigned sreg_smid() {
  unsigned r;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(r));
  return r;
}
__device__ __forceinline__ unsigned long long globaltimer() {
  unsigned long long r;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(r));
  return r;
}

__global__ void geometry(unsigned *out) {
  unsigned idx = (blockIdx.z * gridDim.y + blockIdx.y) * gridDim.x + blockIdx.x;
  unsigned tid = (threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x;
  unsigned nthreads = blockDim.x * blockDim.y * blockDim.z;
  unsigned *o = out + (idx * nthreads + tid) * 8;
  o[0] = threadIdx.x + threadIdx.y + threadIdx.z;
  o[1] = blockDim.x ^ blockDim.y ^ blockDim.z;
  o[2] = blockIdx.x | blockIdx.y | blockIdx.z;
  o[3] = gridDim.x * gridDim.y * gridDim.z;
  o[4] = warpSize;
  o[5] = sreg_laneid();
  unsigned w, nw, nsm, gid;
  asm volatile("mov.u32 %0, %%warpid;" : "=r"(w));
  asm volatile("mov.u32 %0, %%nwarpid;" : "=r"(nw));
  asm volatile("mov.u32 %0, %%nsmid;" : "=r"(nsm));
  unsigned long long grid;
  asm volatile("mov.u64 %0, %%gridid;" : "=l"(grid));
  gid = (unsigned)grid;
  o[6] = w + nw + nsm + gid + sreg_smid();
  unsigned eq, le, gt, ge;
  asm("mov.u32 %0, %%lanemask_eq;" : "=r"(eq));
  asm("mov.u32 %0, %%lanemask_le;" : "=r"(le));
  asm("mov.u32 %0, %%lanemask_gt;" : "=r"(gt));
  asm("mov.u32 %0, %%lanemask_ge;" : "=r"(ge));
  o[7] = eq ^ le ^ gt ^ ge;
}

__global__ void timers(unsigned long long *out, unsigned ns) {
  unsigned long long t0 = clock64();
  clock_t c0 = clock();
  unsigned long long g0 = globaltimer();
  __nanosleep(ns);
  __nanosleep(100);
  unsigned lo;
  asm volatile("mov.u32 %0, %%clock;" : "=r"(lo));
  unsigned hi;
  asm volatile("mov.u32 %0, %%clock_hi;" : "=r"(hi));
  unsigned glo;
  asm volatile("mov.u32 %0, %%globaltimer_lo;" : "=r"(glo));
  unsigned long long t1 = clock64();
  out[threadIdx.x * 4 + 0] = t1 - t0;
  out[threadIdx.x * 4 + 1] = (unsigned long long)(clock() - c0) + lo + hi;
  out[threadIdx.x * 4 + 2] = globaltimer() - g0 + glo;
  unsigned dsmem, tsmem, env0, pm;
  asm volatile("mov.u32 %0, %%dynamic_smem_size;" : "=r"(dsmem));
  asm volatile("mov.u32 %0, %%total_smem_size;" : "=r"(tsmem));
  asm volatile("mov.u32 %0, %%envreg0;" : "=r"(env0));
  asm volatile("mov.u32 %0, %%pm0;" : "=r"(pm));
  out[threadIdx.x * 4 + 3] = dsmem + tsmem + env0 + pm;
}

// Spin-wait with backoff: loop containing nanosleep and a volatile poll.
__global__ void backoff_wait(volatile int *flag, int *out) {
  unsigned ns = 8;
  int spins = 0;
  while (*flag == 0) {
    __nanosleep(ns);
    if (ns < 256) ns *= 2;
    ++spins;
  }
  out[threadIdx.x] = spins;
}
