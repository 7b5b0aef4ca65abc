// Advisor test kernels for the execution-configuration rules (OpenCL Best Practices Guide §4.1-§4.5,
// Kepler Tuning Guide §1.4.1). Most of these rules depend on the launch, not on the code, so the
// same kernel is launched with different grids and blocks by the specs:
//
// saxpyGuarded (y = a x + y, bounds-checked, ~10 registers, no shared memory) is used for
//   `block-not-warp-multiple` (block 100 or 48 vs 128), `block-too-small` (block 32 vs 256),
//   `grid-below-sm-count` (4 blocks vs >= 4 per SM), `grid-too-small-to-scale` (30 blocks vs
//   hundreds) and `tail-wave` (one full wave plus one block vs exactly two full waves).
//
// `occupancy-limited`:
// tileSumHeavySmem: 40 KB of static shared memory per block, so only one 256-thread block fits
//   on an SM with 48 KB (sm_20, sm_30, sm_35): 8 of 48 or 64 warps, occupancy < 50%. (Not on
//   sm_90: 228 KB per SM hold 5 such blocks, 62.5%.)
// tileSumLightSmem: the same reduction with 1 KB of shared memory -- the fixed variant.
// manyLiveValues: 64 independent accumulators live across a loop (plus addresses and counters),
//   about 70 registers per thread by the PTX live-range estimate, which caps the occupancy of a
//   256-thread block at 3 blocks (37.5%) on sm_35 and sm_90 (65536 registers per SM).
// fewLiveValues: the same arithmetic as a single accumulator chain -- the fixed variant.

extern "C" __global__ void saxpyGuarded(int n, float a, const float *x, float *y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = a * x[i] + y[i];
}

#define HEAVY_FLOATS 10240 // 40 KB
#define LIGHT_FLOATS 256   // 1 KB

// Each block stages HEAVY_FLOATS inputs in shared memory and writes per-thread strided sums.
// Launch: block 256; `in` holds grid * HEAVY_FLOATS floats, `out` grid * 256 floats.
extern "C" __global__ void tileSumHeavySmem(float *out, const float *in)
{
    __shared__ float stage[HEAVY_FLOATS];
    const float *src = in + (size_t)blockIdx.x * HEAVY_FLOATS;
    for (int k = threadIdx.x; k < HEAVY_FLOATS; k += blockDim.x)
        stage[k] = src[k];
    __syncthreads();
    float sum = 0.0f;
    for (int k = threadIdx.x; k < HEAVY_FLOATS; k += blockDim.x)
        sum += stage[k];
    out[blockIdx.x * blockDim.x + threadIdx.x] = sum;
}

// The same sums, streamed through a 1 KB stage in chunks of LIGHT_FLOATS.
// Launch: block 256 (== LIGHT_FLOATS); same buffers as tileSumHeavySmem.
extern "C" __global__ void tileSumLightSmem(float *out, const float *in)
{
    __shared__ float stage[LIGHT_FLOATS];
    const float *src = in + (size_t)blockIdx.x * HEAVY_FLOATS;
    float sum = 0.0f;
    for (int base = 0; base < HEAVY_FLOATS; base += LIGHT_FLOATS) {
        stage[threadIdx.x] = src[base + threadIdx.x];
        __syncthreads();
        sum += stage[threadIdx.x];
        __syncthreads();
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] = sum;
}

#define ACCS 64
#define STEPS 16

// Launch: block 256; `in` holds grid * 256 + STEPS floats, `out` grid * 256 floats.
extern "C" __global__ void manyLiveValues(float *out, const float *in)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float acc[ACCS];
#pragma unroll
    for (int k = 0; k < ACCS; k++)
        acc[k] = in[i] * (float)(k + 1);
    for (int s = 0; s < STEPS; s++) {
        float v = in[i + s];
#pragma unroll
        for (int k = 0; k < ACCS; k++)
            acc[k] = acc[k] * v + (float)k;
    }
    float total = 0.0f;
#pragma unroll
    for (int k = 0; k < ACCS; k++)
        total += acc[k];
    out[i] = total;
}

// The same number of multiply-adds per step, one accumulator at a time.
extern "C" __global__ void fewLiveValues(float *out, const float *in)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float total = 0.0f;
    for (int k = 0; k < ACCS; k++) {
        float acc = in[i] * (float)(k + 1);
        for (int s = 0; s < STEPS; s++)
            acc = acc * in[i + s] + (float)k;
        total += acc;
    }
    out[i] = total;
}
