// Square N x N single-precision products C = A B (row-major, N a multiple of 64): naive, shared
// tiles of 16 x 16 and 32 x 32, a 32 x 32 tile with padded rows, and a 32 x 32 tile where each
// thread of a 32 x 8 block computes 4 outputs (register blocking).

extern "C" __global__ void matmulNaive(const float *A, const float *B, float *C, int n) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  float sum = 0.0f;
  for (int k = 0; k < n; ++k)
    sum += A[row * n + k] * B[k * n + col];
  C[row * n + col] = sum;
}

template <int T, int PAD>
__device__ void tiled(const float *A, const float *B, float *C, int n) {
  __shared__ float as[T][T + PAD];
  __shared__ float bs[T][T + PAD];
  int tx = threadIdx.x, ty = threadIdx.y;
  int row = blockIdx.y * T + ty;
  int col = blockIdx.x * T + tx;
  float sum = 0.0f;
  for (int t = 0; t < n; t += T) {
    as[ty][tx] = A[row * n + t + tx];
    bs[ty][tx] = B[(t + ty) * n + col];
    __syncthreads();
    for (int k = 0; k < T; ++k)
      sum += as[ty][k] * bs[k][tx];
    __syncthreads();
  }
  C[row * n + col] = sum;
}

extern "C" __global__ void matmulTiled16(const float *A, const float *B, float *C, int n) { tiled<16, 0>(A, B, C, n); }
extern "C" __global__ void matmulTiled32(const float *A, const float *B, float *C, int n) { tiled<32, 0>(A, B, C, n); }
extern "C" __global__ void matmulTiled32Padded(const float *A, const float *B, float *C, int n) {
  tiled<32, 1>(A, B, C, n);
}

// 32 x 32 output tile per block of 32 x 8 threads; thread (tx, ty) computes rows ty, ty+8, ty+16, ty+24.
extern "C" __global__ void matmulRegBlocked(const float *A, const float *B, float *C, int n) {
  __shared__ float as[32][32];
  __shared__ float bs[32][32];
  int tx = threadIdx.x, ty = threadIdx.y;
  int row0 = blockIdx.y * 32;
  int col = blockIdx.x * 32 + tx;
  float sum[4] = {0.0f, 0.0f, 0.0f, 0.0f};
  for (int t = 0; t < n; t += 32) {
    for (int r = 0; r < 4; ++r) {
      as[ty + 8 * r][tx] = A[(row0 + ty + 8 * r) * n + t + tx];
      bs[ty + 8 * r][tx] = B[(t + ty + 8 * r) * n + col];
    }
    __syncthreads();
    for (int k = 0; k < 32; ++k) {
      float b = bs[k][tx];
      for (int r = 0; r < 4; ++r)
        sum[r] += as[ty + 8 * r][k] * b;
    }
    __syncthreads();
  }
  for (int r = 0; r < 4; ++r)
    C[(row0 + ty + 8 * r) * n + col] = sum[r];
}
