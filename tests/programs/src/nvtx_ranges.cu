// NVTX ranges around a program's work (tests/programs): push/pop ranges nested in the default
// domain, a domain's ranges with a colour, a mark, and a start/end range. nvtx3 is header-only; the
// ranges reach a tool through NVTX_INJECTION64_PATH (`ptxray exec` sets it; on a GPU, nsys does).
#include <cstdio>
#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>
#include <vector>

__global__ void scale(float *x, int n, float a) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    x[i] *= a;
}

int main() {
  const int n = 1 << 20;
  std::vector<float> host(n, 1.0f);
  float *device = nullptr;

  nvtxRangePushA("setup");
  cudaMalloc(&device, n * sizeof(float));
  cudaMemcpy(device, host.data(), n * sizeof(float), cudaMemcpyHostToDevice);
  nvtxRangePop();

  nvtxDomainHandle_t solver = nvtxDomainCreateA("solver");
  for (int iteration = 0; iteration < 3; ++iteration) {
    nvtxEventAttributes_t attributes = {};
    attributes.version = NVTX_VERSION;
    attributes.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
    attributes.colorType = NVTX_COLOR_ARGB;
    attributes.color = 0xff2ca02c;
    attributes.messageType = NVTX_MESSAGE_TYPE_ASCII;
    attributes.message.ascii = "iteration";
    nvtxDomainRangePushEx(solver, &attributes);
    scale<<<n / 256, 256>>>(device, n, 2.0f);
    nvtxRangePushA("wait");
    cudaDeviceSynchronize();
    nvtxRangePop();
    nvtxDomainRangePop(solver);
  }

  nvtxMarkA("checkpoint");
  const nvtxRangeId_t readback = nvtxRangeStartA("readback");
  cudaMemcpy(host.data(), device, n * sizeof(float), cudaMemcpyDeviceToHost);
  nvtxRangeEnd(readback);
  cudaFree(device);

  printf("nvtx_ranges: host[0]=%.1f host[%d]=%.1f\n", host[0], n - 1, host[n - 1]);
  return host[0] == 8.0f && host[n - 1] == 8.0f ? 0 : 1;
}
