// Advisor test kernels for rule `uncoalesced-global` (OpenCL Best Practices Guide §3.2.1).
//
// offsetCopy with offset 1 reads a sequential but misaligned range: every warp (half-warp on
// CC 1.x) straddles one more segment / line / sector than it needs, so the load transactions exceed
// the ideal; offset 0 is the aligned, fully coalesced fixed variant (§3.2.1.2, §3.2.1.3).
//
// strideCopy with stride 2 or 8 touches one element out of every `stride`, so each transaction
// carries 1/stride useful bytes on loads and stores; stride 1 is the fixed variant (§3.2.1.4).
//
// The pointers are deliberately plain (no const __restrict__), so the loads stay ld.global.

extern "C" __global__ void offsetCopy(float *odata, float *idata, int offset)
{
    int xid = blockIdx.x * blockDim.x + threadIdx.x + offset;
    odata[xid] = idata[xid];
}

extern "C" __global__ void strideCopy(float *odata, float *idata, int stride)
{
    int xid = (blockIdx.x * blockDim.x + threadIdx.x) * stride;
    odata[xid] = idata[xid];
}
