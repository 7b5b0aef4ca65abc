// OpenCL C on the virtual GPU: the work-item functions (with a global work offset), a __local buffer
// passed as an argument, a barrier, and the native_* functions (the GPU's approximate instructions).
// out[i] = the global id of work-item i, reversed within its work-group through local memory, plus
// SCALE (a build option).
#ifndef SCALE
#define SCALE 0
#endif

__kernel void reverseIds(__global uint *out, __local uint *scratch)
{
    const size_t lid = get_local_id(0), n = get_local_size(0);
    scratch[lid] = (uint)get_global_id(0);
    barrier(CLK_LOCAL_MEM_FENCE);
    out[get_global_id(0) - get_global_offset(0)] = scratch[n - 1 - lid] + SCALE;
}

__kernel void nativeMath(__global float *out, __global const float *in)
{
    const size_t i = get_global_id(0);
    out[i] = native_sin(in[i]) + native_exp(in[i]) + native_rsqrt(in[i] + 2.0f);
}
