// Advisor test kernels for the instruction rules (OpenCL Best Practices Guide chapter 5, Kepler
// Tuning Guide §1.4.5.1). Every kernel runs a short hot loop per thread so the instruction mix is
// dominated by the pattern. Launch: block 128; `in` and `out` hold grid * 128 elements unless noted.

#define ITERS 32

// `fp64-in-fp32` (§5.1.3): an unsuffixed literal is a double, so `v * 1.1 + 0.3` is computed in
// double precision: cvt.f64.f32, fma.rn.f64 / mul.f64, cvt.rn.f32.f64 every iteration.
extern "C" __global__ void literalDouble(float *out, const float *in)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = in[i];
    for (int k = 0; k < ITERS; k++)
        v = v * 1.1 + 0.3;
    out[i] = v;
}

// Fixed: single-precision literals keep everything in fp32.
extern "C" __global__ void literalFloat(float *out, const float *in)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = in[i];
    for (int k = 0; k < ITERS; k++)
        v = v * 1.1f + 0.3f;
    out[i] = v;
}

// `int-div-mod` (§5.1.1): division and modulo by a runtime divisor (a power of two, but the compiler
// cannot know it) become long div.u32 / rem.u32 sequences. `in` holds unsigned ints.
extern "C" __global__ void divModRuntime(unsigned *out, const unsigned *in, unsigned divisor)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned v = in[i];
    unsigned acc = 0;
    for (int k = 0; k < ITERS; k++) {
        acc += v / divisor + v % divisor;
        v = v * 1664525u + 1013904223u;
    }
    out[i] = acc;
}

// Fixed: the caller passes log2(divisor); i / n == i >> log2(n) and i % n == i & (n - 1).
extern "C" __global__ void divModShift(unsigned *out, const unsigned *in, unsigned log2Divisor)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned v = in[i];
    unsigned acc = 0;
    unsigned mask = (1u << log2Divisor) - 1u;
    for (int k = 0; k < ITERS; k++) {
        acc += (v >> log2Divisor) + (v & mask);
        v = v * 1664525u + 1013904223u;
    }
    out[i] = acc;
}

// `rsqrt` (§5.1.2): 1.0f / sqrtf(x) is an IEEE square root followed by an IEEE reciprocal
// (sqrt.rn.f32, rcp.rn.f32 in the PTX), both emulated by instruction sequences. `in` must be > 0.
extern "C" __global__ void invSqrtDivide(float *out, const float *in)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float x = in[i];
    float acc = 0.0f;
    for (int k = 0; k < ITERS; k++) {
        acc += 1.0f / sqrtf(x);
        x += 1.0f;
    }
    out[i] = acc;
}

// Fixed: rsqrtf() is one rsqrt.approx.f32.
extern "C" __global__ void invSqrtIntrinsic(float *out, const float *in)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float x = in[i];
    float acc = 0.0f;
    for (int k = 0; k < ITERS; k++) {
        acc += rsqrtf(x);
        x += 1.0f;
    }
    out[i] = acc;
}

// `full-precision-math` (§5.1.4): sinf, expf, powf and IEEE division in a hot loop compile to long
// software sequences (sinf's argument reduction even has a slow path with local memory).
// `in` holds values in [0, 1].
extern "C" __global__ void mathFullPrecision(float *out, const float *in)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float x = in[i];
    float acc = 0.0f;
    for (int k = 0; k < ITERS; k++) {
        float t = x + 0.03125f * (float)k;
        acc += sinf(t) + expf(-t) + powf(t + 1.0f, 1.5f) + t / (acc + 2.0f);
    }
    out[i] = acc;
}

// Fixed: the hardware intrinsics (sin.approx, ex2.approx, lg2.approx, div.approx / div.full).
extern "C" __global__ void mathIntrinsics(float *out, const float *in)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float x = in[i];
    float acc = 0.0f;
    for (int k = 0; k < ITERS; k++) {
        float t = x + 0.03125f * (float)k;
        acc += __sinf(t) + __expf(-t) + __powf(t + 1.0f, 1.5f) + __fdividef(t, acc + 2.0f);
    }
    out[i] = acc;
}

// `mul24` (§5.1): a 3-D table lookup whose index (plane * rowsPerPlane + row) * pitch + lane takes
// two 32-bit integer multiplies (mad.lo.s32) every iteration. On CC 1.x a 32-bit multiply runs at a
// quarter of the rate of __mul24, so the guide says to use __mul24 there. The table is staged in
// shared memory, and plane and row are uniform in a warp (one row per warp: no bank conflicts), so
// the loop is bound by arithmetic, not memory. The dimensions are kernel arguments, so nothing folds
// into shifts, and plane and row wrap around (masks), so the index is not an induction variable the
// compiler could strength-reduce.
// Launch: block 128; `table` holds TABLE_FLOATS floats (2 planes of 8 rows of 33); rowsPerPlane = 8,
// pitch = 33 (the largest index, (1 * 8 + 7) * 33 + 31, stays inside the table); `out` holds
// grid * 128 floats.
#define TABLE_FLOATS 528
#define LOOKUPS 64
extern "C" __global__ void gatherMul32(float *out, const float *table, int rowsPerPlane, int pitch)
{
    __shared__ float s_table[TABLE_FLOATS];
    for (int k = threadIdx.x; k < TABLE_FLOATS; k += blockDim.x)
        s_table[k] = table[k];
    __syncthreads();
    int lane = threadIdx.x & 31;
    int plane = blockIdx.x & 1;
    float acc = 0.0f;
    for (int k = 0; k < LOOKUPS; k++) {
        int row = (int)(threadIdx.x / 32 + 3 * k) & 7;
        float v = s_table[(plane * rowsPerPlane + row) * pitch + lane];
        acc += v;
        plane = (plane + row + k) & 1;
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

// A 24-bit multiply that stays a mul24.lo.s32 in the PTX. nvcc 13 lowers the __mul24() intrinsic
// for compute_90 to a sign extension of both operands (shl/shr) and a 32-bit mad.lo.s32, which would
// hide the 24-bit multiply from the PTX, so the instruction is written as inline PTX instead.
__device__ __forceinline__ int mul24(int a, int b)
{
    int p;
    asm("mul24.lo.s32 %0, %1, %2;" : "=r"(p) : "r"(a), "r"(b));
    return p;
}

// The 24-bit variant (both index multiplies are mul24.lo.s32): right on CC 1.x, but on CC 2.0 and
// later a 24-bit multiply is *slower* than a 32-bit one (it takes several instructions), so there
// it triggers the reverse advice of `mul24`. Same launch and buffers as gatherMul32.
extern "C" __global__ void gatherMul24(float *out, const float *table, int rowsPerPlane, int pitch)
{
    __shared__ float s_table[TABLE_FLOATS];
    for (int k = threadIdx.x; k < TABLE_FLOATS; k += blockDim.x)
        s_table[k] = table[k];
    __syncthreads();
    int lane = threadIdx.x & 31;
    int plane = blockIdx.x & 1;
    float acc = 0.0f;
    for (int k = 0; k < LOOKUPS; k++) {
        int row = (int)(threadIdx.x / 32 + 3 * k) & 7;
        float v = s_table[mul24(mul24(plane, rowsPerPlane) + row, pitch) + lane];
        acc += v;
        plane = (plane + row + k) & 1;
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

// `fp64-heavy` (Kepler Tuning Guide §1.4.5.1): a daxpy-style double-precision loop, FMA-bound.
// GK104 (sm_30) runs fp64 at 1/24 of fp32; GK110 (sm_35) at 1/3. `x`, `y` hold grid * 128 doubles.
#define FMAS 64
extern "C" __global__ void daxpyLoop(double *y, const double *x, double a)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    double xi = x[i];
    double yi = y[i];
    for (int k = 0; k < FMAS; k++)
        yi = a * yi + xi;
    y[i] = yi;
}

// The fp32 twin: the same loop in single precision (`x`, `y` hold grid * 128 floats).
extern "C" __global__ void saxpyLoop(float *y, const float *x, float a)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float xi = x[i];
    float yi = y[i];
    for (int k = 0; k < FMAS; k++)
        yi = a * yi + xi;
    y[i] = yi;
}
