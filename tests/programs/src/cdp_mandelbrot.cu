// Dynamic parallelism: the Mandelbrot set by recursive subdivision (the Mariani-Silver algorithm). A
// grid of blocks, each a square of the image, computes the dwell on its square's border; a uniform
// border fills the square, otherwise the block's thread 0 launches a grid of 4 x 4 blocks on its
// quarters' quarters, down to a depth and size where the block computes every pixel itself. Prints a
// histogram of the dwells and a checksum, which must not depend on how the work was divided: the
// same image computed pixel by pixel by a plain kernel is compared.
#include <cstdio>
#include <cuda_runtime.h>

constexpr int kWidth = 512, kHeight = 512, kMaxDwell = 256;
constexpr int kSubdivisions = 4; // a block's square splits into 4 x 4
constexpr int kBlockSide = 8;    // threads per block: 8 x 8
constexpr int kInitialSquares = 4, kMaxDepth = 4, kMinSize = 16;
constexpr int kDifferentDwells = -1;

__host__ __device__ int dwell(int w, int h, float x0, float y0, float x1, float y1, int x, int y) {
  const float cx = x0 + (x1 - x0) * x / w, cy = y0 + (y1 - y0) * y / h;
  float zx = cx, zy = cy;
  int d = 0;
  while (d < kMaxDwell && zx * zx + zy * zy < 4.0f) {
    const float t = zx * zx - zy * zy + cx;
    zy = 2.0f * zx * zy + cy;
    zx = t;
    ++d;
  }
  return d;
}

__device__ int sameDwell(int a, int b) {
  return a == kMaxDwell + 1 ? b : b == kMaxDwell + 1 ? a : a == b ? a : kDifferentDwells;
}

/// The common dwell of the border of the square (x, y, size), or kDifferentDwells.
__device__ int borderDwell(int w, int h, float x0, float y0, float x1, float y1, int x, int y, int size) {
  __shared__ int common;
  const int t = threadIdx.y * blockDim.x + threadIdx.x, threads = blockDim.x * blockDim.y;
  if (t == 0)
    common = kMaxDwell + 1;
  __syncthreads();
  int mine = kMaxDwell + 1;
  for (int r = t; r < size; r += threads)
    for (int side = 0; side < 4; ++side) {
      const int px = side < 2 ? x + r : side == 2 ? x : x + size - 1;
      const int py = side == 0 ? y : side == 1 ? y + size - 1 : y + r;
      mine = sameDwell(mine, dwell(w, h, x0, y0, x1, y1, px, py));
    }
  atomicCAS(&common, kMaxDwell + 1, mine);
  __syncthreads();
  // Every thread folds its value in; any disagreement makes it kDifferentDwells. (Each reads the
  // value first, with a barrier before anyone changes it: racecheck found the read and another
  // thread's atomicExch unordered.)
  const int first = common;
  __syncthreads();
  if (mine != first && mine != kMaxDwell + 1)
    atomicExch(&common, kDifferentDwells);
  __syncthreads();
  return common;
}

__global__ void fill(int *image, int w, int x, int y, int size, int d) {
  const int px = threadIdx.x + blockIdx.x * blockDim.x, py = threadIdx.y + blockIdx.y * blockDim.y;
  if (px < size && py < size)
    image[(y + py) * w + x + px] = d;
}

__global__ void perPixel(int *image, int w, int h, float x0, float y0, float x1, float y1, int x, int y, int size) {
  const int px = threadIdx.x + blockIdx.x * blockDim.x, py = threadIdx.y + blockIdx.y * blockDim.y;
  if (px < size && py < size)
    image[(y + py) * w + x + px] = dwell(w, h, x0, y0, x1, y1, x + px, y + py);
}

__global__ void subdivide(int *image, int w, int h, float x0, float y0, float x1, float y1, int x, int y, int size,
                          int depth) {
  // This block's square: the grid's square split into gridDim.x x gridDim.y parts.
  x += size * blockIdx.x;
  y += size * blockIdx.y;
  const int common = borderDwell(w, h, x0, y0, x1, y1, x, y, size);
  if (threadIdx.x == 0 && threadIdx.y == 0) {
    const dim3 threads(kBlockSide, kBlockSide), squares((size + kBlockSide - 1) / kBlockSide,
                                                        (size + kBlockSide - 1) / kBlockSide);
    if (common != kDifferentDwells)
      fill<<<squares, threads>>>(image, w, x, y, size, common);
    else if (depth + 1 < kMaxDepth && size / kSubdivisions >= kMinSize)
      subdivide<<<dim3(kSubdivisions, kSubdivisions), threads>>>(image, w, h, x0, y0, x1, y1, x, y,
                                                                 size / kSubdivisions, depth + 1);
    else
      perPixel<<<squares, threads>>>(image, w, h, x0, y0, x1, y1, x, y, size);
  }
}

__global__ void plain(int *image, int w, int h, float x0, float y0, float x1, float y1) {
  const int x = threadIdx.x + blockIdx.x * blockDim.x, y = threadIdx.y + blockIdx.y * blockDim.y;
  if (x < w && y < h)
    image[y * w + x] = dwell(w, h, x0, y0, x1, y1, x, y);
}

#define CHECK(call)                                                                                                    \
  do {                                                                                                                 \
    cudaError_t e_ = (call);                                                                                           \
    if (e_ != cudaSuccess) {                                                                                           \
      printf("%s failed: %s\n", #call, cudaGetErrorString(e_));                                                        \
      return 1;                                                                                                        \
    }                                                                                                                  \
  } while (0)

int main() {
  const float x0 = -1.5f, y0 = -1.0f, x1 = 0.5f, y1 = 1.0f;
  int *image, *reference;
  const size_t bytes = size_t{kWidth} * kHeight * sizeof(int);
  CHECK(cudaMalloc(&image, bytes));
  CHECK(cudaMalloc(&reference, bytes));
  CHECK(cudaMemset(image, 0xff, bytes));
  subdivide<<<dim3(kInitialSquares, kInitialSquares), dim3(kBlockSide, kBlockSide)>>>(
      image, kWidth, kHeight, x0, y0, x1, y1, 0, 0, kWidth / kInitialSquares, 0);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  plain<<<dim3(kWidth / 16, kHeight / 16), dim3(16, 16)>>>(reference, kWidth, kHeight, x0, y0, x1, y1);
  CHECK(cudaDeviceSynchronize());
  static int a[kWidth * kHeight], b[kWidth * kHeight];
  CHECK(cudaMemcpy(a, image, bytes, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(b, reference, bytes, cudaMemcpyDeviceToHost));
  long histogram[5] = {};
  unsigned checksum = 0;
  int differ = 0;
  for (int i = 0; i < kWidth * kHeight; ++i) {
    const int d = a[i];
    histogram[d < 0 ? 0 : d < 16 ? 1 : d < 64 ? 2 : d < kMaxDwell ? 3 : 4] += 1;
    checksum = checksum * 31u + static_cast<unsigned>(d);
    differ += a[i] != b[i];
  }
  printf("mandelbrot %dx%d, dwell up to %d, by subdivision (depth %d, 4x4 children)\n", kWidth, kHeight, kMaxDwell,
         kMaxDepth);
  printf("pixels unset %ld, dwell 0-15 %ld, 16-63 %ld, 64-255 %ld, in the set %ld\n", histogram[0], histogram[1],
         histogram[2], histogram[3], histogram[4]);
  printf("checksum %08x; %d pixels differ from the per-pixel image\n", checksum, differ);
  return 0;
}
