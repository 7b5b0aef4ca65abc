// Advisor test kernels for rule `shared-bank-conflicts` (OpenCL Best Practices Guide §3.2.2.1,
// §3.2.2.3; Kepler Tuning Guide §1.4.3.1).
//
// A matrix transpose through a shared tile: the tile is written row-wise (coalesced global read)
// and read column-wise (coalesced global write).
//
// transposeTile32: float tile[32][32]. The column read tile[threadIdx.x][...] puts the 32 lanes
//   of a warp 32 words apart: all in one bank, a 32-way conflict on 32 banks (CC 2.0+; 16-way on
//   Kepler, whose 64-bit-wide banks hold words i and i + 32 in one row) and a 16-way conflict per
//   half-warp on 16 banks (CC 1.x).
// transposeTile32Padded: tile[32][33]; neighbouring lanes are 33 words apart, one bank each. Fixed.
//   Launch: block (32, 8), grid (width / 32, height / 32); each thread moves 4 elements
//   (the guide's §4.5 "32x8 threads, each processing four elements").
//
// transposeTile16 / transposeTile16Padded: the same with a 16 x 16 tile and a (16, 16) block, the
//   natural shape on CC 1.x: the column read of tile[16][16] is 16-way per half-warp on 16 banks;
//   tile[16][17] is conflict-free there. On 32 banks a warp spans two tile rows: the unpadded
//   tile is 8-way per warp and even tile[16][17] keeps a 2-way conflict, so this pair is for CC 1.x.
//
// doubleRowSum: a double-precision tile read with unit stride, 8 bytes per lane. In Kepler's
//   default 4-byte bank mode each 64-bit request is served per half-warp (2 wavefronts per warp);
//   in the 8-byte bank mode (cudaDeviceSetSharedMemConfig(cudaSharedMemBankSizeEightByte),
//   `--bank-mode 8`) the whole warp is served in one. The bank mode is the fix on sm_35; the code
//   stays the same.
//   Launch: block 256, grid n / 256.

#define TILE 32
#define ROWS 8

extern "C" __global__ void transposeTile32(float *out, const float *in, int width, int height)
{
    __shared__ float tile[TILE][TILE];
    int x = blockIdx.x * TILE + threadIdx.x;
    int y = blockIdx.y * TILE + threadIdx.y;
    for (int j = 0; j < TILE; j += ROWS)
        tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * width + x];
    __syncthreads();
    x = blockIdx.y * TILE + threadIdx.x;
    y = blockIdx.x * TILE + threadIdx.y;
    for (int j = 0; j < TILE; j += ROWS)
        out[(y + j) * height + x] = tile[threadIdx.x][threadIdx.y + j];
}

extern "C" __global__ void transposeTile32Padded(float *out, const float *in, int width, int height)
{
    __shared__ float tile[TILE][TILE + 1];
    int x = blockIdx.x * TILE + threadIdx.x;
    int y = blockIdx.y * TILE + threadIdx.y;
    for (int j = 0; j < TILE; j += ROWS)
        tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * width + x];
    __syncthreads();
    x = blockIdx.y * TILE + threadIdx.x;
    y = blockIdx.x * TILE + threadIdx.y;
    for (int j = 0; j < TILE; j += ROWS)
        out[(y + j) * height + x] = tile[threadIdx.x][threadIdx.y + j];
}

#define TILE16 16

extern "C" __global__ void transposeTile16(float *out, const float *in, int width, int height)
{
    __shared__ float tile[TILE16][TILE16];
    int x = blockIdx.x * TILE16 + threadIdx.x;
    int y = blockIdx.y * TILE16 + threadIdx.y;
    tile[threadIdx.y][threadIdx.x] = in[y * width + x];
    __syncthreads();
    x = blockIdx.y * TILE16 + threadIdx.x;
    y = blockIdx.x * TILE16 + threadIdx.y;
    out[y * height + x] = tile[threadIdx.x][threadIdx.y];
}

extern "C" __global__ void transposeTile16Padded(float *out, const float *in, int width, int height)
{
    __shared__ float tile[TILE16][TILE16 + 1];
    int x = blockIdx.x * TILE16 + threadIdx.x;
    int y = blockIdx.y * TILE16 + threadIdx.y;
    tile[threadIdx.y][threadIdx.x] = in[y * width + x];
    __syncthreads();
    x = blockIdx.y * TILE16 + threadIdx.x;
    y = blockIdx.x * TILE16 + threadIdx.y;
    out[y * height + x] = tile[threadIdx.x][threadIdx.y];
}

#define DBLOCK 256
#define DSTEPS 16

// Every thread sums DSTEPS neighbours of a double tile held in shared memory; all shared accesses
// are 64-bit with unit stride between lanes.
extern "C" __global__ void doubleRowSum(double *out, const double *in)
{
    __shared__ double tile[DBLOCK + DSTEPS];
    int i = blockIdx.x * DBLOCK + threadIdx.x;
    tile[threadIdx.x] = in[i];
    if (threadIdx.x < DSTEPS)
        tile[DBLOCK + threadIdx.x] = in[i + DBLOCK];
    __syncthreads();
    double sum = 0.0;
    for (int k = 0; k < DSTEPS; k++)
        sum += tile[threadIdx.x + k];
    out[i] = sum;
}

// A tree reduction with interleaved addressing (each pass: index = 2 * s * threadIdx.x): the
// distance between neighbouring threads' words doubles every pass, and so do the conflicts.
extern "C" __global__ void reduceStridedIndex(float *out, const float *in)
{
    __shared__ float sdata[256];
    unsigned tid = threadIdx.x;
    sdata[tid] = in[blockIdx.x * blockDim.x + tid];
    __syncthreads();
    for (unsigned s = 1; s < blockDim.x; s *= 2) {
        unsigned index = 2 * s * tid;
        if (index < blockDim.x)
            sdata[index] += sdata[index + s];
        __syncthreads();
    }
    if (tid == 0)
        out[blockIdx.x] = sdata[0];
}

// Fixed: sequential addressing (each pass: threads 0..s-1 add the upper half), conflict-free.
extern "C" __global__ void reduceSequentialIndex(float *out, const float *in)
{
    __shared__ float sdata[256];
    unsigned tid = threadIdx.x;
    sdata[tid] = in[blockIdx.x * blockDim.x + tid];
    __syncthreads();
    for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s)
            sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    if (tid == 0)
        out[blockIdx.x] = sdata[0];
}
