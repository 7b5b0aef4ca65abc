// Advisor test kernels for rule `local-memory` (OpenCL Best Practices Guide §3.2.3): an automatic
// array indexed with a value known only at run time cannot live in registers, so nvcc places it in
// local memory (.local, ld.local / st.local in the PTX), which is off-chip and as slow as global.
//
// histogramLocal: a per-thread histogram bins[value & 15]++ -- dynamically indexed -> local memory.
// histogramRegisters: the same counts, but every bin is updated with a compare in a fully unrolled
//   loop, so every index is a compile-time constant and the array is promoted to registers.
//
// Launch: block 128, n = grid * block threads; `in` holds n * VALUES unsigned ints, `out` holds
// n * BINS unsigned ints (bin j of thread i at out[j * n + i], coalesced).

#define BINS 16
#define VALUES 16

extern "C" __global__ void histogramLocal(unsigned *out, const unsigned *in)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int n = gridDim.x * blockDim.x;
    unsigned bins[BINS];
    for (int j = 0; j < BINS; j++)
        bins[j] = 0;
    for (int v = 0; v < VALUES; v++)
        bins[in[v * n + i] & (BINS - 1)]++;
    for (int j = 0; j < BINS; j++)
        out[j * n + i] = bins[j];
}

extern "C" __global__ void histogramRegisters(unsigned *out, const unsigned *in)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int n = gridDim.x * blockDim.x;
    unsigned bins[BINS];
#pragma unroll
    for (int j = 0; j < BINS; j++)
        bins[j] = 0;
    for (int v = 0; v < VALUES; v++) {
        unsigned b = in[v * n + i] & (BINS - 1);
#pragma unroll
        for (int j = 0; j < BINS; j++)
            bins[j] += (b == (unsigned)j) ? 1u : 0u;
    }
#pragma unroll
    for (int j = 0; j < BINS; j++)
        out[j * n + i] = bins[j];
}
