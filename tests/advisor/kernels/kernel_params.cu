// Advisor test kernels for `kernel-params-in-shared` (OpenCL Best Practices Guide §3.2.2.4, A.4): on
// compute capability 1.x a kernel's arguments are passed in the shared memory of each block (at most
// 256 bytes), so a long argument list takes shared memory, and where shared memory limits occupancy,
// blocks per SM. Constant memory is the guide's alternative.
//
// Both kernels stage a tile of TILE floats (4000 bytes) in shared memory and evaluate a polynomial of
// degree 23 on the average of neighbouring inputs, with blocks of 64 threads. On sm_13 (16 KB of shared
// memory per SM, allocated in 512-byte units; 8 blocks of 2 warps fit by warps and by the block limit)
// shared memory limits the SM:
// polyManyArgs takes the 24 coefficients by value: out, in (8 bytes each), the 96-byte Polynomial and
//   n = 116 bytes of parameters, so a block needs 4116 bytes = 9 units: 3 blocks per SM, where the
//   tile alone (8 units) lets 4 fit.
// polyConstantArgs reads the same coefficients from __constant__ memory: 20 bytes of parameters, 4020
//   bytes = 8 units, 4 blocks per SM -- the fixed variant, and a short list the rule leaves alone.
// From compute capability 2.0 the parameters are in constant memory: neither kernel is reported.

#define TILE 1000 // floats staged per block: 4000 bytes of shared memory
#define DEGREE 23

struct Polynomial {
    float c[DEGREE + 1]; // 96 bytes
};

__constant__ Polynomial constantPoly;

// Launch: block 64; `in` and `out` hold grid * TILE floats (n of them used).
extern "C" __global__ void polyManyArgs(float *out, const float *in, Polynomial p, int n)
{
    __shared__ float tile[TILE];
    const int base = blockIdx.x * TILE;
    for (int k = threadIdx.x; k < TILE; k += blockDim.x)
        tile[k] = base + k < n ? in[base + k] : 0.0f;
    __syncthreads();
    for (int k = threadIdx.x; k < TILE; k += blockDim.x) {
        const float x = 0.5f * (tile[k] + tile[k + 1 < TILE ? k + 1 : k]);
        float y = p.c[DEGREE];
#pragma unroll
        for (int d = DEGREE - 1; d >= 0; --d)
            y = y * x + p.c[d];
        if (base + k < n)
            out[base + k] = y;
    }
}

// The same with the coefficients in constant memory (cudaMemcpyToSymbol(constantPoly, ...)).
extern "C" __global__ void polyConstantArgs(float *out, const float *in, int n)
{
    __shared__ float tile[TILE];
    const int base = blockIdx.x * TILE;
    for (int k = threadIdx.x; k < TILE; k += blockDim.x)
        tile[k] = base + k < n ? in[base + k] : 0.0f;
    __syncthreads();
    for (int k = threadIdx.x; k < TILE; k += blockDim.x) {
        const float x = 0.5f * (tile[k] + tile[k + 1 < TILE ? k + 1 : k]);
        float y = constantPoly.c[DEGREE];
#pragma unroll
        for (int d = DEGREE - 1; d >= 0; --d)
            y = y * x + constantPoly.c[d];
        if (base + k < n)
            out[base + k] = y;
    }
}
