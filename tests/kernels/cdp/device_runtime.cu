// The device runtime's answers to what it refuses, and copies in device code (tests/vm/DeviceRuntimeTest.cpp):
// the error codes a kernel gets back, a copy from memory that is not the device's (a located fault at
// the call), and copies ordered with the grids of the same stream. PTX (nvcc 13), compiled in a fixed
// directory so that its .file names no checkout:
//   mkdir -p /tmp/ptxray-cdp-kernels && cp tests/kernels/cdp/device_runtime.cu /tmp/ptxray-cdp-kernels &&
//   (cd /tmp/ptxray-cdp-kernels && nvcc -rdc=true -arch=compute_90 -lineinfo -ptx device_runtime.cu) &&
//   cp /tmp/ptxray-cdp-kernels/device_runtime.ptx tests/kernels/cdp/
#include <cuda_runtime.h>

__global__ void child(int *p) {
  p[threadIdx.x] += 1;
}

// out[i]: what each refused call returned; out[8]: cudaGetLastError after them.
__global__ void refusals(int *out) {
  int v = 0;
  out[0] = cudaDeviceGetAttribute(&v, cudaDevAttrMultiProcessorCount, 1);
  out[1] = cudaMemcpy2DAsync(out + 16, 4, out + 32, 4, 8, 2, cudaMemcpyDeviceToDevice, 0);
  out[2] = cudaMemcpyAsync(out + 16, out + 32, 4, cudaMemcpyDeviceToHost, 0);
  out[3] = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&v, child, 0, 0);
  cudaFuncAttributes fa;
  out[4] = cudaFuncGetAttributes(&fa, (const void *)out);
  size_t limit = 0;
  out[5] = cudaDeviceGetLimit(&limit, (cudaLimit)1000);
  out[6] = cudaMemset2DAsync(out + 16, 4, 0, 8, 2, 0);
  out[7] = cudaMemcpyAsync(out + 16, out + 32, 0, cudaMemcpyDefault, 0); // nothing to copy: a success
  out[8] = cudaGetLastError();
  out[9] = cudaGetLastError();
}

// Each thread: data[t] = 10 + t by a copy from src, then a grid adds 1 to it, then a copy puts the
// result in data[64 + t]: the copies and the grid run in the order the thread asked for them.
__global__ void ordered(int *data, const int *src) {
  const int t = threadIdx.x;
  cudaMemcpyAsync(data + t, src + t, sizeof(int), cudaMemcpyDeviceToDevice, 0);
  child<<<1, 1>>>(data + t);
  cudaMemcpyAsync(data + 64 + t, data + t, sizeof(int), cudaMemcpyDefault, 0);
}

// A copy whose source is not device memory.
__global__ void badSource(int *data) {
  cudaMemcpyAsync(data, (const void *)0x1000, 16, cudaMemcpyDeviceToDevice, 0);
}

// Copies whose rows could not all be device memory, cheap to refuse however many rows they name:
// overlapping 3D slices (a slice of 0 rows), then a 2D copy of 2^40 rows, which faults.
__global__ void hostileCopies(int *out) {
  cudaPitchedPtr p;
  p.ptr = out + 16;
  p.pitch = 16;
  p.xsize = 4;
  p.ysize = 0;
  cudaExtent e;
  e.width = 4;
  e.height = 1;
  e.depth = (size_t)1 << 60;
  out[0] = cudaMemset3DAsync(p, 0, e, 0);
  out[1] = cudaMemcpy2DAsync(out + 8, 4, out + 32, 4, 4, (size_t)1 << 40, cudaMemcpyDeviceToDevice, 0);
}
