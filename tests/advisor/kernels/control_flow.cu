// Advisor test kernels for the control-flow rules (OpenCL Best Practices Guide §6.1).
// Launch: block 128 (any multiple of 64); `in` and `out` hold grid * 128 floats.

#define WORK 64

// Two different long paths, long enough that nvcc keeps real branches rather than predicating them.
__device__ __forceinline__ float pathA(float v)
{
    for (int k = 0; k < WORK; k++)
        v = v * 0.999f + 0.5f;
    return v;
}

__device__ __forceinline__ float pathB(float v, float w)
{
    for (int k = 0; k < WORK; k++)
        v = fminf(v * w, v + w) - 0.25f;
    return v;
}

// `divergent-branch`: the condition alternates between neighbouring threads, so every warp splits
// and runs both paths one after the other.
extern "C" __global__ void branchOddEven(float *out, const float *in)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = in[i];
    if (threadIdx.x % 2 == 0)
        v = pathA(v);
    else
        v = pathB(v, 1.0001f);
    out[i] = v;
}

// Fixed: the condition depends only on the warp index (threadIdx.x / 32), so it is uniform in
// every warp; the same two paths run, each by whole warps.
extern "C" __global__ void branchWarpAligned(float *out, const float *in)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = in[i];
    if ((threadIdx.x / 32) % 2 == 0)
        v = pathA(v);
    else
        v = pathB(v, 1.0001f);
    out[i] = v;
}

// `low-warp-efficiency`: the trip count depends on the lane (0..31 iterations), so a warp runs 31
// iterations with on average half of its lanes active.
extern "C" __global__ void loopPerLane(float *out, const float *in)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = in[i];
    int trips = threadIdx.x % 32;
    for (int k = 0; k < trips; k++)
        v = v * 0.999f + 0.5f * (float)k;
    out[i] = v;
}

// Fixed: every lane runs the same 16 iterations (about the average work of loopPerLane).
extern "C" __global__ void loopUniform(float *out, const float *in)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = in[i];
    int trips = 16;
    for (int k = 0; k < trips; k++)
        v = v * 0.999f + 0.5f * (float)k;
    out[i] = v;
}

// `branch-predication`: a store of a few instructions under a condition that alternates between
// neighbouring threads. A store cannot become a select, so nvcc keeps a branch around it in the PTX,
// and every warp splits on a body short enough to predicate ([BPG] 6.2).
extern "C" __global__ void shortBranchOddEven(float *out, const float *in)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = in[i];
    if (threadIdx.x % 2 == 1)
        out[i] = in[i] * 2.0f + 1.0f;
}

// `branch-predication` (and `divergent-branch`) where it costs time: the same short odd/even store,
// to shared memory inside a compute loop, so half of every warp idles through it on each iteration.
extern "C" __global__ void shortBranchInLoop(float *out, const float *in, int n)
{
    __shared__ float s[256];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = in[i];
    s[threadIdx.x] = 0.0f;
    for (int k = 0; k < n; ++k) {
        v = v * 0.999f + 0.5f;
        if (threadIdx.x % 2 == 1)
            s[threadIdx.x] += v;
    }
    out[i] = v + s[threadIdx.x];
}

// Fixed: the condition picks a value, one store for every thread; nvcc emits a select, no branch.
extern "C" __global__ void shortSelectOddEven(float *out, const float *in)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = in[i];
    out[i] = threadIdx.x % 2 == 1 ? v * 2.0f + 1.0f : v;
}
