// ptxray model validation kernels: global-memory access patterns whose Nsight Compute counters
// (requests, sectors, DRAM bytes) are the ground truth of the performance model's coalescing.
// One thread moves one element; `offset` shifts the whole grid's window by that many elements.
//   copyFloat2 / copyFloat4   64-bit and 128-bit vector copies (offset 0: aligned, 1: misaligned
//                             by 8 and 16 bytes against 32-byte sectors)
//   broadcastLoad             every thread reads the same address
//   storeOnly                 a store with no load
//   ldgCopy                   a read-only (__ldg, ld.global.nc) copy through const __restrict__
// The scalar offsetCopy and strideCopy of the OpenCL Best Practices Guide §3.2.1 are reused from
// tests/kernels/vm/memory_access.cu. Specs: validation/model/specs/*.json.

extern "C" __global__ void copyFloat2(float2 *odata, const float2 *idata, int offset) {
  int i = blockIdx.x * blockDim.x + threadIdx.x + offset;
  odata[i] = idata[i];
}

extern "C" __global__ void copyFloat4(float4 *odata, const float4 *idata, int offset) {
  int i = blockIdx.x * blockDim.x + threadIdx.x + offset;
  odata[i] = idata[i];
}

extern "C" __global__ void broadcastLoad(float *odata, const float *idata, int index) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  odata[i] = idata[index];
}

extern "C" __global__ void storeOnly(float *odata) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  odata[i] = __int2float_rn(i);
}

extern "C" __global__ void ldgCopy(float *__restrict__ odata, const float *__restrict__ idata, int offset) {
  int i = blockIdx.x * blockDim.x + threadIdx.x + offset;
  odata[i] = __ldg(&idata[i]);
}
