// The OpenCL Best Practices Guide's two coalescing experiments (section 3.2.1): copies whose
// addresses are shifted by an offset (3.2.1.3) or spread by a stride (3.2.1.4). `ptxray guide-charts`
// runs both on any GPU of the database and draws transactions and effective bandwidth against the
// offset and the stride; this file is compiled into ptxray (examples/guide/copy.ptx).

// Each thread copies one float, `offset` elements past its index: a warp's addresses stay
// consecutive but stop being aligned to the memory segments unless the offset is a multiple of them.
extern "C" __global__ void offsetCopy(float *odata, const float *idata, int offset)
{
    const int element = blockIdx.x * blockDim.x + threadIdx.x + offset;
    odata[element] = idata[element];
}

// Each thread copies the float at `stride` times its index: neighbouring threads are `stride`
// elements apart, so a warp touches `stride` times the memory it uses (up to one segment per thread).
extern "C" __global__ void strideCopy(float *odata, const float *idata, int stride)
{
    const int element = (blockIdx.x * blockDim.x + threadIdx.x) * stride;
    odata[element] = idata[element];
}
