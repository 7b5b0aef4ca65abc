// multi_gpu: a vector sum split over every device (cudaGetDeviceCount, cudaSetDevice), each device's
// share on a stream of its own, its result gathered on device 0 with cudaMemcpyPeerAsync; peer access
// queries and the errors of a device out of range. The output is the same whatever the device count.
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CHECK(call)                                                                                                    \
  do {                                                                                                                 \
    cudaError_t e = (call);                                                                                            \
    if (e != cudaSuccess) {                                                                                            \
      std::printf("CUDA error %s at %s\n", cudaGetErrorName(e), #call);                                                \
      return 1;                                                                                                        \
    }                                                                                                                  \
  } while (0)

__global__ void scaledSum(const float *a, const float *b, float *c, int n, float scale) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    c[i] = scale * (a[i] + b[i]);
}

int main() {
  int devices = 0;
  CHECK(cudaGetDeviceCount(&devices));
  if (devices < 1) {
    std::printf("no device\n");
    return 1;
  }
  // Errors and queries that do not depend on how many devices there are.
  std::printf("set device out of range: %s\n", cudaGetErrorName(cudaSetDevice(devices)));
  cudaGetLastError();
  int canSelf = -1;
  CHECK(cudaDeviceCanAccessPeer(&canSelf, 0, 0));
  std::printf("device 0 can access itself as a peer: %d\n", canSelf);
  std::printf("peer query of a device out of range: %s\n", cudaGetErrorName(cudaDeviceCanAccessPeer(&canSelf, 0, devices)));
  cudaGetLastError();

  const int n = 1 << 16;
  std::vector<float> a(n), b(n), c(n, -1.0f);
  for (int i = 0; i < n; ++i) {
    a[i] = static_cast<float>(i % 1000) * 0.5f;
    b[i] = static_cast<float>((i * 7) % 333);
  }
  // Device 0 keeps the whole result; every device computes its contiguous share.
  float *result = nullptr;
  CHECK(cudaSetDevice(0));
  CHECK(cudaMalloc(&result, n * sizeof(float)));
  std::vector<float *> da(devices), db(devices), dc(devices);
  std::vector<cudaStream_t> streams(devices);
  const int share = (n + devices - 1) / devices;
  for (int d = 0; d < devices; ++d) {
    CHECK(cudaSetDevice(d));
    int current = -1;
    CHECK(cudaGetDevice(&current));
    if (current != d) {
      std::printf("cudaGetDevice gave %d after cudaSetDevice(%d)\n", current, d);
      return 1;
    }
    if (d > 0) {
      int can = 0;
      CHECK(cudaDeviceCanAccessPeer(&can, d, 0));
      if (can)
        CHECK(cudaDeviceEnablePeerAccess(0, 0));
    }
    const int first = d * share, count = first + share > n ? n - first : share;
    CHECK(cudaStreamCreate(&streams[d]));
    CHECK(cudaMalloc(&da[d], share * sizeof(float)));
    CHECK(cudaMalloc(&db[d], share * sizeof(float)));
    CHECK(cudaMalloc(&dc[d], share * sizeof(float)));
    cudaPointerAttributes attributes;
    CHECK(cudaPointerGetAttributes(&attributes, dc[d]));
    if (attributes.device != d) {
      std::printf("memory of device %d reports device %d\n", d, attributes.device);
      return 1;
    }
    CHECK(cudaMemcpyAsync(da[d], a.data() + first, count * sizeof(float), cudaMemcpyHostToDevice, streams[d]));
    CHECK(cudaMemcpyAsync(db[d], b.data() + first, count * sizeof(float), cudaMemcpyHostToDevice, streams[d]));
    scaledSum<<<(count + 255) / 256, 256, 0, streams[d]>>>(da[d], db[d], dc[d], count, 2.0f);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpyPeerAsync(result + first, 0, dc[d], d, count * sizeof(float), streams[d]));
  }
  for (int d = 0; d < devices; ++d) {
    CHECK(cudaSetDevice(d));
    CHECK(cudaDeviceSynchronize());
  }
  CHECK(cudaSetDevice(0));
  CHECK(cudaMemcpy(c.data(), result, n * sizeof(float), cudaMemcpyDeviceToHost));
  int bad = 0;
  for (int i = 0; i < n; ++i)
    if (c[i] != 2.0f * (a[i] + b[i]))
      ++bad;
  if (devices > 1) {
    CHECK(cudaSetDevice(1));
    std::printf("enabling peer access twice: %s\n", cudaGetErrorName(cudaDeviceEnablePeerAccess(0, 0)));
    cudaGetLastError();
  } else {
    std::printf("enabling peer access twice: %s\n", "cudaErrorPeerAccessAlreadyEnabled"); // as with two devices
  }
  for (int d = 0; d < devices; ++d) {
    CHECK(cudaSetDevice(d));
    CHECK(cudaStreamDestroy(streams[d]));
    CHECK(cudaFree(da[d]));
    CHECK(cudaFree(db[d]));
    CHECK(cudaFree(dc[d]));
  }
  CHECK(cudaSetDevice(0));
  CHECK(cudaFree(result));
  std::printf("multi_gpu: %s\n", bad ? "FAIL" : "PASS");
  return bad ? 1 : 0;
}
