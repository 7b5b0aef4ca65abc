// Advisor test kernels for rule `redundant-global-loads`: C = AB with A of M x 16, B of 16 x N and
// C of M x N, a 16 x 16 block per 16 x 16 tile of C (OpenCL Best Practices Guide §3.2.2.2).
//
// simpleMultiply: for every i, all threads of a tile row load the same A element, and every row of
// the block loads the whole 16 x 16 tile of B again: each CTA loads every A and B element 16 times.
// coalescedMultiply: the A tile goes through shared memory once (B is still re-read per row).
// sharedABMultiply: both tiles are loaded once per CTA into shared memory -- the fixed variant.
//
// Launch: block (16, 16), grid (N / 16, M / 16).

#define TILE_DIM 16

extern "C" __global__ void simpleMultiply(const float *a, const float *b, float *c, int N)
{
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    float sum = 0.0f;
    for (int i = 0; i < TILE_DIM; i++)
        sum += a[row * TILE_DIM + i] * b[i * N + col];
    c[row * N + col] = sum;
}

extern "C" __global__ void coalescedMultiply(const float *a, const float *b, float *c, int N)
{
    __shared__ float aTile[TILE_DIM][TILE_DIM];
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    aTile[threadIdx.y][threadIdx.x] = a[row * TILE_DIM + threadIdx.x];
    // A warp of 32 threads spans two tile rows; the barrier makes the row written by the other
    // half-warp visible on every architecture (the guide's 16-thread half-warp argument is 1.x only).
    __syncthreads();
    float sum = 0.0f;
    for (int i = 0; i < TILE_DIM; i++)
        sum += aTile[threadIdx.y][i] * b[i * N + col];
    c[row * N + col] = sum;
}

extern "C" __global__ void sharedABMultiply(const float *a, const float *b, float *c, int N)
{
    __shared__ float aTile[TILE_DIM][TILE_DIM];
    __shared__ float bTile[TILE_DIM][TILE_DIM];
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    aTile[threadIdx.y][threadIdx.x] = a[row * TILE_DIM + threadIdx.x];
    bTile[threadIdx.y][threadIdx.x] = b[threadIdx.y * N + col];
    __syncthreads();
    float sum = 0.0f;
    for (int i = 0; i < TILE_DIM; i++)
        sum += aTile[threadIdx.y][i] * bTile[i][threadIdx.x];
    c[row * N + col] = sum;
}
