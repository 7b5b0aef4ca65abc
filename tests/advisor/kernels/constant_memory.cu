// Advisor test kernels for rule `constant-divergent` (OpenCL Best Practices Guide §3.2.5):
// constant memory is as fast as a register only when every thread of a (half-)warp reads the same
// address; different addresses are serialized.
//
// weightsDivergent: each thread picks its weights with its own threadIdx, so the 32 lanes of a
//   warp read 32 different constant addresses per load (16 per half-warp on CC 1.x).
// weightsUniform: the weight index depends only on the loop counter and blockIdx, so a warp reads
//   one address per load (a broadcast) -- the fixed variant.
//
// c_weights is a module symbol: initialise it with a spec buffer {"symbol": "c_weights", ...}.
// Launch: block 128 (any multiple of 32), n = grid * block, `in` holds n + TAPS floats.

#define TAPS 8
#define NWEIGHTS 256

__constant__ float c_weights[NWEIGHTS];

extern "C" __global__ void weightsDivergent(float *out, const float *in)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float acc = 0.0f;
    for (int k = 0; k < TAPS; k++)
        acc += c_weights[(threadIdx.x * TAPS + k) % NWEIGHTS] * in[i + k];
    out[i] = acc;
}

extern "C" __global__ void weightsUniform(float *out, const float *in)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float acc = 0.0f;
    for (int k = 0; k < TAPS; k++)
        acc += c_weights[(blockIdx.x * TAPS + k) % NWEIGHTS] * in[i + k];
    out[i] = acc;
}
