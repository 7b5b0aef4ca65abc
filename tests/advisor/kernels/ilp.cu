// `kepler-ilp` ([Kepler] 1.4.1): an SMX issues one or two independent instructions per warp per clock,
// so compute-bound code needs independent work within each thread, not only many warps.
//
// fmaChain: each thread iterates one dependent multiply-add chain: every instruction of the loop body
//   waits for the previous one -> `kepler-ilp` on sm_35.
// fmaFourChains: the same number of multiply-adds spread over four independent accumulators (the
//   guide's "processing several data items concurrently per thread") -> no finding.
//
// Launch: block 128, grid 64, n = 256 iterations.

extern "C" __global__ void fmaChain(float *out, const float *in, int n)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    float x = in[i];
    for (int k = 0; k < n; ++k)
        x = x * 0.999f + 0.25f;
    out[i] = x;
}

extern "C" __global__ void fmaFourChains(float *out, const float *in, int n)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    float a = in[i], b = a + 1.0f, c = a + 2.0f, d = a + 3.0f;
    for (int k = 0; k < n; k += 4) {
        a = a * 0.999f + 0.25f;
        b = b * 0.999f + 0.25f;
        c = c * 0.999f + 0.25f;
        d = d * 0.999f + 0.25f;
    }
    out[i] = a + b + c + d;
}
