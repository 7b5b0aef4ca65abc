// Advisor test kernels for rule `read-only-cache` (Kepler Tuning Guide §1.4.4.3): on GK110 (sm_35)
// data that is read-only for the whole launch can be loaded through the read-only data cache
// (ld.global.nc), but the compiler only does so when it can prove the data is not written, i.e.
// when the pointer is `const __restrict__` (or the load is an explicit __ldg()).
//
// stencilPlain: a 5-point 1-D stencil from a plain `const float *` that may alias `out`: ld.global.
// stencilRestrict: the same with `const float *__restrict__ in` and `float *__restrict__ out`:
//   nvcc emits ld.global.nc -- the fixed variant.
// stencilLdg: the same with __ldg() on a plain pointer: ld.global.nc as well -- also fixed.
//
// Launch: block 128, n = grid * block; `in` holds n + 4 floats (the stencil reads in[i .. i + 4]).

extern "C" __global__ void stencilPlain(float *out, const float *in)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = 0.1f * in[i] + 0.2f * in[i + 1] + 0.4f * in[i + 2] + 0.2f * in[i + 3] + 0.1f * in[i + 4];
}

extern "C" __global__ void stencilRestrict(float *__restrict__ out, const float *__restrict__ in)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = 0.1f * in[i] + 0.2f * in[i + 1] + 0.4f * in[i + 2] + 0.2f * in[i + 3] + 0.1f * in[i + 4];
}

extern "C" __global__ void stencilLdg(float *out, const float *in)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = 0.1f * __ldg(&in[i]) + 0.2f * __ldg(&in[i + 1]) + 0.4f * __ldg(&in[i + 2]) + 0.2f * __ldg(&in[i + 3]) +
             0.1f * __ldg(&in[i + 4]);
}
