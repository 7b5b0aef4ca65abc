// Dynamic parallelism (CDP2, nvcc -rdc=true): kernels that launch kernels. A recursive quicksort in
// the manner of NVIDIA's cdpSimpleQuicksort (each partition launches its halves into streams it
// creates, selection sort below a size or past a depth); a chain of grids printing at each depth; a
// tail launch that sees everything its parent wrote; a fire-and-forget launch; a launch the device
// runtime refuses (a 2048-thread block) and the error cudaGetLastError gives for it.
#include <cstdio>
#include <cuda_runtime.h>

constexpr int kMaxDepth = 16;
constexpr int kSelectionSortBelow = 32;

__device__ void selectionSort(unsigned *data, int left, int right) {
  for (int i = left; i <= right; ++i) {
    unsigned smallest = data[i];
    int at = i;
    for (int j = i + 1; j <= right; ++j)
      if (data[j] < smallest) {
        smallest = data[j];
        at = j;
      }
    data[at] = data[i];
    data[i] = smallest;
  }
}

__global__ void quicksort(unsigned *data, int left, int right, int depth) {
  if (depth >= kMaxDepth || right - left <= kSelectionSortBelow) {
    selectionSort(data, left, right);
    return;
  }
  unsigned *lptr = data + left, *rptr = data + right;
  const unsigned pivot = data[(left + right) / 2];
  while (lptr <= rptr) {
    unsigned l = *lptr, r = *rptr;
    while (l < pivot) {
      ++lptr;
      l = *lptr;
    }
    while (r > pivot) {
      --rptr;
      r = *rptr;
    }
    if (lptr <= rptr) {
      *lptr++ = r;
      *rptr-- = l;
    }
  }
  const int nright = static_cast<int>(rptr - data), nleft = static_cast<int>(lptr - data);
  if (left < nright) {
    cudaStream_t s;
    cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
    quicksort<<<1, 1, 0, s>>>(data, left, nright, depth + 1);
    cudaStreamDestroy(s);
  }
  if (nleft < right) {
    cudaStream_t s;
    cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
    quicksort<<<1, 1, 0, s>>>(data, nleft, right, depth + 1);
    cudaStreamDestroy(s);
  }
}

__global__ void chain(int depth, int last) {
  if (threadIdx.x != 0)
    return;
  printf("chain: depth %d of %d, grid of %d threads\n", depth, last, blockDim.x);
  if (depth < last)
    chain<<<1, 32 * (depth + 2)>>>(depth + 1, last);
}

__device__ int marker;
__device__ int tailSaw;
__global__ void tailChild() {
  tailSaw = marker;
}
__global__ void fireAndForgetChild(int *out) {
  out[threadIdx.x] = 7 * threadIdx.x;
}
__global__ void launcher(int *out) {
  if (threadIdx.x == 0) {
    tailChild<<<1, 1, 0, cudaStreamTailLaunch>>>();
    fireAndForgetChild<<<1, 8, 0, cudaStreamFireAndForget>>>(out);
  }
  __syncthreads();
  if (threadIdx.x == 31)
    marker = 42; // written after the launches: a tail launch runs once the whole grid is done
}

// How deep grids nest: each grid records its depth and the error of its own launch.
__global__ void deep(int *depths, int depth) {
  depths[depth] = depth;
  if (depth < 40) {
    deep<<<1, 1>>>(depths, depth + 1);
    depths[64 + depth] = static_cast<int>(cudaGetLastError());
  }
}

__global__ void refused(int *error) {
  fireAndForgetChild<<<1, 2048>>>(nullptr);
  *error = static_cast<int>(cudaGetLastError());
  error[1] = static_cast<int>(cudaGetLastError()); // reset by the first call
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
  const int n = 2048;
  unsigned host[n];
  unsigned seed = 12345, sum = 0;
  for (int i = 0; i < n; ++i) {
    seed = seed * 1664525u + 1013904223u;
    host[i] = seed >> 8;
    sum += host[i];
  }
  unsigned *data;
  CHECK(cudaMalloc(&data, sizeof host));
  CHECK(cudaMemcpy(data, host, sizeof host, cudaMemcpyHostToDevice));
  quicksort<<<1, 1>>>(data, 0, n - 1, 0);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaMemcpy(host, data, sizeof host, cudaMemcpyDeviceToHost));
  int unordered = 0;
  unsigned after = 0;
  for (int i = 0; i < n; ++i) {
    after += host[i];
    if (i > 0 && host[i - 1] > host[i])
      ++unordered;
  }
  printf("quicksort: %d values, %d out of order, %s sum, first %u last %u\n", n, unordered,
         after == sum ? "same" : "different", host[0], host[n - 1]);

  chain<<<1, 32>>>(0, 4);
  CHECK(cudaDeviceSynchronize());

  int *out;
  CHECK(cudaMalloc(&out, 8 * sizeof(int)));
  CHECK(cudaMemset(out, 0, 8 * sizeof(int)));
  launcher<<<1, 32>>>(out);
  CHECK(cudaDeviceSynchronize());
  int saw = 0, got[8];
  CHECK(cudaMemcpyFromSymbol(&saw, tailSaw, sizeof saw));
  CHECK(cudaMemcpy(got, out, sizeof got, cudaMemcpyDeviceToHost));
  printf("tail launch saw %d; fire-and-forget wrote %d %d %d %d %d %d %d %d\n", saw, got[0], got[1], got[2], got[3],
         got[4], got[5], got[6], got[7]);

  int *errors;
  CHECK(cudaMalloc(&errors, 2 * sizeof(int)));
  refused<<<1, 1>>>(errors);
  CHECK(cudaDeviceSynchronize());
  int e[2];
  CHECK(cudaMemcpy(e, errors, sizeof e, cudaMemcpyDeviceToHost));
  printf("a child of 2048 threads: cudaGetLastError %d (%s), then %d\n", e[0],
         cudaGetErrorName(static_cast<cudaError_t>(e[0])), e[1]);

  int *depths;
  CHECK(cudaMalloc(&depths, 128 * sizeof(int)));
  CHECK(cudaMemset(depths, 0xff, 128 * sizeof(int)));
  deep<<<1, 1>>>(depths, 0);
  CHECK(cudaDeviceSynchronize());
  int d[128];
  CHECK(cudaMemcpy(d, depths, sizeof d, cudaMemcpyDeviceToHost));
  int deepest = 0, failed = -1;
  while (deepest + 1 < 64 && d[deepest + 1] == deepest + 1)
    ++deepest;
  for (int i = 0; i < deepest && failed < 0; ++i)
    if (d[64 + i] != 0)
      failed = i;
  if (deepest < 40)
    printf("nesting: the deepest grid ran at depth %d; its launch gave %d (%s)\n", deepest, d[64 + deepest],
           cudaGetErrorName(static_cast<cudaError_t>(d[64 + deepest])));
  else
    printf("nesting: grids ran at every depth from 0 to %d, %s\n", deepest,
           failed < 0 ? "every launch succeeded" : "but a launch failed");
  return 0;
}
