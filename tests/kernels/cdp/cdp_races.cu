// Dynamic parallelism and racecheck (tests/sanitizers/ChildGridRaceTest.cpp): a parent's accesses
// after it launched a child grid race with the child's. PTX (nvcc 13), compiled in a fixed directory
// so that its .file names no checkout:
//   mkdir -p /tmp/ptxray-cdp-kernels && cp tests/kernels/cdp/cdp_races.cu /tmp/ptxray-cdp-kernels &&
//   (cd /tmp/ptxray-cdp-kernels && nvcc -rdc=true -arch=compute_90 -lineinfo -ptx cdp_races.cu) &&
//   cp /tmp/ptxray-cdp-kernels/cdp_races.ptx tests/kernels/cdp/
#include <cuda_runtime.h>

__global__ void fill(int *data, int value) {
  data[threadIdx.x] = value;
}

__global__ void consume(const int *data, int *out) {
  out[threadIdx.x] = data[threadIdx.x];
}

__global__ void sum(const int *data, int *out) {
  int s = 0;
  for (int i = 0; i < 32; ++i)
    s += data[i];
  out[0] = s;
}

// Bug: the parent reads what its child writes, right after the launch.
__global__ void readTooEarly(int *data, int *out) {
  if (threadIdx.x == 0) {
    fill<<<1, 32>>>(data, 7);
    out[0] = data[5];
  }
}

// Bug: the parent writes what its child reads, after the launch.
__global__ void writeAfterLaunch(int *data, int *out) {
  if (threadIdx.x == 0) {
    consume<<<1, 32>>>(data, out);
    data[3] = 9;
  }
}

// Correct: written before the launch, read in a tail launch (after the parent and its children).
__global__ void tailReads(int *data, int *out) {
  if (threadIdx.x == 0) {
    data[32] = 1;
    fill<<<1, 32>>>(data + 32, 3);
    sum<<<1, 1, 0, cudaStreamTailLaunch>>>(data + 32, out);
  }
}

// Correct: what the parent writes between two launches, the second child reads (the first does
// not touch it).
__global__ void betweenLaunches(int *data, int *out) {
  if (threadIdx.x == 0) {
    fill<<<1, 32>>>(data, 1);
    data[64] = 5;
    consume<<<1, 32>>>(data + 64, out + 64);
  }
}

// Bug one level down: the child's own child writes what the parent reads after its launch.
__global__ void middle(int *data) {
  fill<<<1, 32>>>(data, 4);
}
__global__ void grandchildRace(int *data, int *out) {
  if (threadIdx.x == 0) {
    middle<<<1, 1>>>(data);
    out[0] = data[10];
  }
}
