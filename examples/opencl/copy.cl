// The OpenCL Best Practices Guide's two coalescing experiments (section 3.2.1) in OpenCL C, the twin
// of examples/guide/copy.cu: copies whose addresses are shifted by an offset (3.2.1.3) or spread by a
// stride (3.2.1.4).

// Each work-item copies one float, `offset` elements past its index: a warp's addresses stay
// consecutive but stop being aligned to the memory segments unless the offset is a multiple of them.
__kernel void offsetCopy(__global float *odata, __global float *idata, int offset)
{
    int xid = get_global_id(0) + offset;
    odata[xid] = idata[xid];
}

// Each work-item copies the float at `stride` times its index: neighbouring work-items are `stride`
// elements apart, so a warp touches `stride` times the memory it uses (up to one segment each).
__kernel void strideCopy(__global float *odata, __global float *idata, int stride)
{
    int xid = get_global_id(0) * stride;
    odata[xid] = idata[xid];
}
