// The OpenCL Best Practices Guide's C = A A^T (section 3.2.2.3), A of M x 16, C of M x M, one 16 x 16
// block per tile of C, in the guide's three steps. `ptxray analyze examples/guide/aat.json --arch k20x`
// shows what each step fixes:
//
//   simpleMultiplyAAT   reads a[col * 16 + i]: neighbouring threads 64 bytes apart -> uncoalesced
//   sharedMultiplyAAT   stages both tiles in shared memory with coalesced reads, but stores the
//                       transposed tile column-wise into [16][16] -> shared bank conflicts
//   paddedMultiplyAAT   the transposed tile padded to [16][17] -> conflict-free on 16 banks, one
//                       2-way conflict left on 32 banks (the fix there is [32][33] tiles)

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

extern "C" __global__ void sharedMultiplyAAT(const float *a, float *c, int M)
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
