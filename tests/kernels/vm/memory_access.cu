// ptxray VM test kernels: global-memory access patterns of the OpenCL Best Practices Guide,
// §3.2.1.3 (a misaligned copy: every thread copies one float at an offset) and §3.2.1.4 (a strided
// copy: every thread copies one float at index thread * stride).
// References: tests/kernels/vm/Reference.h. Specs: specs/offset_copy.json, specs/stride_copy.json.

extern "C" __global__ void offsetCopy(float *odata, const float *idata, int offset) {
  int xid = blockIdx.x * blockDim.x + threadIdx.x + offset;
  odata[xid] = idata[xid];
}

extern "C" __global__ void strideCopy(float *odata, const float *idata, int stride) {
  int xid = (blockIdx.x * blockDim.x + threadIdx.x) * stride;
  odata[xid] = idata[xid];
}
