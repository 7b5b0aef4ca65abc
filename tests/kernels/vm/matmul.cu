// ptxray VM test kernels: the matrix products of the OpenCL Best Practices Guide §3.2.2.2 and
// §3.2.2.3, in CUDA. A is M x TILE_DIM, B is TILE_DIM x N, C = AB is M x N (row-major); the block is
// TILE_DIM x TILE_DIM threads and computes one TILE_DIM x TILE_DIM tile of C.
//   simpleMultiply      A and B read from global memory
//   coalescedMultiply   a tile of A staged in shared memory (each warp reads back only rows it wrote,
//                       hence __syncwarp)
//   sharedABMultiply    tiles of A and B in shared memory (__syncthreads)
//   simpleMultiplyAAT   C = A A^T (M x M) read straight from global memory (strided reads of A)
//   sharedMultiplyAAT   C = A A^T with the transposed tile in shared memory, padded by one column so
//                       that the column reads hit distinct banks
// The sums are accumulated as `sum += x * y` for i = 0 .. TILE_DIM-1 in order; nvcc contracts that
// into fma.rn.f32, so the reference computes sum = fmaf(x, y, sum) in the same order (bit-exact).
// References: Reference.h. Specs: specs/matmul.json, specs/matmul_aat.json.
#define TILE_DIM 16

extern "C" __global__ void simpleMultiply(const float *a, const float *b, float *c, int N) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  float sum = 0.0f;
  for (int i = 0; i < TILE_DIM; i++)
    sum += a[row * TILE_DIM + i] * b[i * N + col];
  c[row * N + col] = sum;
}

extern "C" __global__ void coalescedMultiply(const float *a, const float *b, float *c, int N) {
  __shared__ float aTile[TILE_DIM][TILE_DIM];
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  aTile[threadIdx.y][threadIdx.x] = a[row * TILE_DIM + threadIdx.x];
  __syncwarp();
  float sum = 0.0f;
  for (int i = 0; i < TILE_DIM; i++)
    sum += aTile[threadIdx.y][i] * b[i * N + col];
  c[row * N + col] = sum;
}

extern "C" __global__ void sharedABMultiply(const float *a, const float *b, float *c, int N) {
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

extern "C" __global__ void simpleMultiplyAAT(const float *a, float *c, int M) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  float sum = 0.0f;
  for (int i = 0; i < TILE_DIM; i++)
    sum += a[row * TILE_DIM + i] * a[col * TILE_DIM + i];
  c[row * M + col] = sum;
}

extern "C" __global__ void sharedMultiplyAAT(const float *a, float *c, int M) {
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
