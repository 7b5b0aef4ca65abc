// Error paths and edge cases of the runtime API, one line each: what CUDA returns for copies past
// the end of managed memory and of arrays, dynamic shared memory beyond the kernel's limit, copies
// into arrays across rows and in the wrong direction, events, limits, and launches issued from several
// host threads at once (each thread's <<<>>> configuration is its own).
#include <cstdio>
#include <cstdint>
#include <thread>
#include <vector>

__global__ void fill(int *out, int value) { out[blockIdx.x * blockDim.x + threadIdx.x] = value; }

__global__ void bigStatic(int *out) {
  __shared__ int tile[10 * 1024]; // 40 KB static
  extern __shared__ int dynamicArea[];
  tile[threadIdx.x] = threadIdx.x;
  dynamicArea[threadIdx.x] = 1;
  __syncthreads();
  out[threadIdx.x] = tile[(threadIdx.x + 1) % blockDim.x] + dynamicArea[threadIdx.x];
}

// cudaMemcpyToArray / FromArray are deprecated, and still what older programs (the old samples) call.
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

#define SHOW(label, call) printf("%s: %s\n", label, cudaGetErrorName(call))

int main() {
  // Copies past the end of a managed allocation are refused, nothing is written.
  int *managed = nullptr;
  cudaMallocManaged(&managed, 16);
  std::vector<char> big(1 << 20, 7);
  SHOW("memcpy 1 MiB into 16 B managed", cudaMemcpy(managed, big.data(), big.size(), cudaMemcpyHostToDevice));
  cudaGetLastError();

  // Arrays: a 2D copy whose rows would run past the array, a 1D-style copy across rows, and a copy
  // in the wrong direction.
  cudaChannelFormatDesc desc = cudaCreateChannelDesc<int>();
  cudaArray_t array;
  cudaMallocArray(&array, &desc, 8, 4);
  int host[32];
  for (int i = 0; i < 32; ++i)
    host[i] = i * 3;
  SHOW("2D copy of 5 rows into 4", cudaMemcpy2DToArray(array, 0, 0, host, 32, 32, 5, cudaMemcpyHostToDevice));
  cudaGetLastError();
  SHOW("copy to array across rows", cudaMemcpyToArray(array, 8, 1, host, 20 * sizeof(int), cudaMemcpyHostToDevice));
  int back[32] = {};
  SHOW("copy from array across rows", cudaMemcpyFromArray(back, array, 8, 1, 20 * sizeof(int), cudaMemcpyDeviceToHost));
  printf("back[0]=%d back[19]=%d\n", back[0], back[19]);
  cudaFreeArray(array);

  // Dynamic shared memory: the default limit is 48 KB per block including the static 40 KB.
  int *out;
  cudaMalloc(&out, 1024 * sizeof(int));
  bigStatic<<<1, 256, 16 * 1024>>>(out);
  SHOW("40 KB static + 16 KB dynamic", cudaGetLastError());
  bigStatic<<<1, 256, 4 * 1024>>>(out);
  SHOW("40 KB static + 4 KB dynamic", cudaGetLastError());
  cudaFuncAttributes attributes;
  cudaFuncGetAttributes(&attributes, bigStatic);
  printf("maxDynamicSharedSizeBytes=%d sharedSizeBytes=%zu\n", attributes.maxDynamicSharedSizeBytes,
         attributes.sharedSizeBytes);
  SHOW("raise the limit to 16 KB", cudaFuncSetAttribute(bigStatic, cudaFuncAttributeMaxDynamicSharedMemorySize, 16 * 1024));
  bigStatic<<<1, 256, 16 * 1024>>>(out);
  SHOW("40 KB static + 16 KB dynamic after", cudaGetLastError());
  SHOW("sync", cudaDeviceSynchronize());

  // Events: elapsed time needs an output and two recorded events.
  cudaEvent_t a, b;
  cudaEventCreate(&a);
  cudaEventCreate(&b);
  cudaEventRecord(a);
  SHOW("elapsed with one event recorded", cudaEventElapsedTime(nullptr, a, b));
  cudaGetLastError();

  // Limits read back what was set.
  SHOW("set heap limit", cudaDeviceSetLimit(cudaLimitMallocHeapSize, 64 << 20));
  size_t heap = 0;
  cudaDeviceGetLimit(&heap, cudaLimitMallocHeapSize);
  printf("heap limit %zu MiB\n", heap >> 20);

  // Eight threads launching at once, each with its own grid and value.
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t)
    threads.emplace_back([t, out] {
      for (int i = 0; i < 50; ++i)
        fill<<<t + 1, 16>>>(out + 128 * t, t + 1);
    });
  for (auto &t : threads)
    t.join();
  SHOW("threads sync", cudaDeviceSynchronize());
  int result[1024];
  cudaMemcpy(result, out, sizeof result, cudaMemcpyDeviceToHost);
  int wrong = 0;
  for (int t = 0; t < 8; ++t)
    for (int i = 0; i < 16 * (t + 1); ++i)
      wrong += result[128 * t + i] != t + 1;
  printf("launches from 8 threads: wrong=%d\n", wrong);
  return 0;
}
