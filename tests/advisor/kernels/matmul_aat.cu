// Advisor test kernels for C = A A^T with A of M x 16 and C of M x M, a 16 x 16 block per tile of C
// (OpenCL Best Practices Guide §3.2.2.3).
//
// simpleMultiplyAAT: the second operand a[col * TILE_DIM + i] is read with a stride of 16 floats
//   between neighbouring threads -> `uncoalesced-global` (and `redundant-global-loads`).
// coalescedMultiplyAAT: both operands are read row-wise (coalesced) into shared memory, but the
//   transposed tile is written column-wise into a [16][16] array: a stride of 16 words between
//   threads -> `shared-bank-conflicts` (16-way per half-warp on CC 1.x, 8-way per warp on 32 banks,
//   4-way on Kepler's 64-bit-wide banks).
// paddedMultiplyAAT: the transposed tile is [16][17], so the stride is 17 words and the banks are
//   distinct -> neither rule on CC 1.x. On 32 banks a warp covers two tile rows, and the
//   transposed store still has one 2-way conflict (lanes x = 15, y and x = 0, y + 1 share a bank):
//   2 wavefronts per request there, 1.5 on average with the aTile store.
//
// Launch: block (16, 16), grid (M / 16, M / 16).

#define TILE_DIM 16

extern "C" __global__ void simpleMultiplyAAT(const float *a, float *c, int M)
{
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    float sum = 0.0f;
    for (int i = 0; i < TILE_DIM; i++)
        sum += a[row * TILE_DIM + i] * a[col * TILE_DIM + i];
    c[row * M + col] = sum;
}

extern "C" __global__ void coalescedMultiplyAAT(const float *a, float *c, int M)
{
    __shared__ float aTile[TILE_DIM][TILE_DIM];
    __shared__ float transposedTile[TILE_DIM][TILE_DIM];
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    aTile[threadIdx.y][threadIdx.x] = a[row * TILE_DIM + threadIdx.x];
    transposedTile[threadIdx.x][threadIdx.y] = a[(blockIdx.x * blockDim.x + threadIdx.y) * TILE_DIM + threadIdx.x];
    __syncthreads();
    float sum = 0.0f;
    for (int i = 0; i < TILE_DIM; i++)
        sum += aTile[threadIdx.y][i] * transposedTile[i][threadIdx.x];
    c[row * M + col] = sum;
}

extern "C" __global__ void paddedMultiplyAAT(const float *a, float *c, int M)
{
    __shared__ float aTile[TILE_DIM][TILE_DIM];
    __shared__ float transposedTile[TILE_DIM][TILE_DIM + 1];
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    aTile[threadIdx.y][threadIdx.x] = a[row * TILE_DIM + threadIdx.x];
    transposedTile[threadIdx.x][threadIdx.y] = a[(blockIdx.x * blockDim.x + threadIdx.y) * TILE_DIM + threadIdx.x];
    __syncthreads();
    float sum = 0.0f;
    for (int i = 0; i < TILE_DIM; i++)
        sum += aTile[threadIdx.y][i] * transposedTile[i][threadIdx.x];
    c[row * M + col] = sum;
}
