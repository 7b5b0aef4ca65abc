// A program that times itself with CUDA events, as NVIDIA's samples do: copies of several sizes from
// pinned and pageable memory, a bandwidth-bound kernel, an empty kernel (launch latency), four
// streams overlapping copies with kernels, a kernel that waits on clock64() for 1 ms, and a captured
// graph replayed 100 times, a graph of two concurrent 1 ms branches replayed 10 times. Kernels are timed from their first launch (which loads their code: CUDA's
// lazy loading), copies after one untimed copy of each kind. It prints one line per measurement: its name and milliseconds
// (`timing NAME MS`), in the order the measurements were made, each between the last two events it
// recorded; results are checked, a wrong one exits 1.
// Under ptxray the printed times must equal the session's timeline (tests/programs/timing_check.py);
// on a GPU they are what validation/programs/ compares with ptxray's.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#define CHECK(call)                                                                                                    \
  do {                                                                                                                 \
    cudaError_t e_ = (call);                                                                                           \
    if (e_ != cudaSuccess) {                                                                                           \
      std::printf("CUDA error %s at %s\n", cudaGetErrorName(e_), #call);                                              \
      std::exit(1);                                                                                                    \
    }                                                                                                                  \
  } while (0)

__global__ void saxpy(int n, float a, const float *x, float *y) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    y[i] = a * x[i] + y[i];
}

__global__ void empty() {}

__global__ void scale(float *data, int n, float factor) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    data[i] *= factor;
}

// Waits until `cycles` SM clock cycles have passed, as cuda-samples' clock_block does.
__global__ void clockWait(long long cycles, long long *waited) {
  const long long start = clock64();
  long long now = start;
  while (now - start < cycles)
    now = clock64();
  *waited = now - start;
}

// cuda-samples' simpleHyperQ kernel: 32-bit clock(), with wrap-around.
__global__ void clockBlock(clock_t *out, clock_t count) {
  unsigned int startClock = (unsigned int)clock();
  clock_t offset = 0;
  while (offset < count) {
    unsigned int endClock = (unsigned int)clock();
    offset = (clock_t)(endClock - startClock);
  }
  out[0] = offset;
}

static cudaEvent_t start, stop;

static void begin(cudaStream_t s = 0) { CHECK(cudaEventRecord(start, s)); }

static void end(const char *name, cudaStream_t s = 0) {
  CHECK(cudaEventRecord(stop, s));
  CHECK(cudaEventSynchronize(stop));
  float ms = 0;
  CHECK(cudaEventElapsedTime(&ms, start, stop));
  std::printf("timing %s %.4f\n", name, ms);
}

int main() {
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));
  const size_t maxBytes = 16u << 20;
  void *pinned = nullptr;
  CHECK(cudaMallocHost(&pinned, maxBytes));
  std::vector<char> pageable(maxBytes, 1);
  std::memset(pinned, 2, maxBytes);
  void *device = nullptr;
  CHECK(cudaMalloc(&device, maxBytes));

  // One untimed copy of each kind first, as bandwidth tests do: a GPU's first copies also set up the
  // copy engines and the driver's pageable staging buffers, which no model here includes.
  CHECK(cudaMemcpy(device, pinned, 64u << 10, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(pinned, device, 64u << 10, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(device, pageable.data(), 64u << 10, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(pageable.data(), device, 64u << 10, cudaMemcpyDeviceToHost));

  // Copies: 64 KB, 1 MB and 16 MB each way, from pinned and pageable memory.
  const size_t sizes[] = {64u << 10, 1u << 20, 16u << 20};
  for (size_t bytes : sizes) {
    char name[64];
    std::snprintf(name, sizeof name, "h2d_pinned_%zuKB", bytes >> 10);
    begin();
    CHECK(cudaMemcpyAsync(device, pinned, bytes, cudaMemcpyHostToDevice, 0));
    end(name);
    std::snprintf(name, sizeof name, "d2h_pinned_%zuKB", bytes >> 10);
    begin();
    CHECK(cudaMemcpyAsync(pinned, device, bytes, cudaMemcpyDeviceToHost, 0));
    end(name);
    std::snprintf(name, sizeof name, "h2d_pageable_%zuKB", bytes >> 10);
    begin();
    CHECK(cudaMemcpy(device, pageable.data(), bytes, cudaMemcpyHostToDevice));
    end(name);
    std::snprintf(name, sizeof name, "d2h_pageable_%zuKB", bytes >> 10);
    begin();
    CHECK(cudaMemcpy(pageable.data(), device, bytes, cudaMemcpyDeviceToHost));
    end(name);
  }

  // A bandwidth-bound kernel: 4M elements, 48 MB moved.
  const int n = 4 << 20;
  float *x = nullptr, *y = nullptr;
  CHECK(cudaMalloc(&x, n * sizeof(float)));
  CHECK(cudaMalloc(&y, n * sizeof(float)));
  std::vector<float> hx(n, 1.0f), hy(n, 2.0f);
  CHECK(cudaMemcpy(x, hx.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(y, hy.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  begin();
  saxpy<<<(n + 255) / 256, 256>>>(n, 3.0f, x, y);
  CHECK(cudaGetLastError());
  end("kernel_saxpy_4M");
  CHECK(cudaMemcpy(hy.data(), y, n * sizeof(float), cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; i += 4099)
    if (hy[i] != 5.0f) {
      std::printf("saxpy wrong at %d: %f\n", i, hy[i]);
      return 1;
    }

  // Launch latency: one empty kernel, then ten back to back.
  begin();
  empty<<<1, 32>>>();
  end("kernel_empty");
  begin();
  for (int i = 0; i < 10; ++i)
    empty<<<1, 32>>>();
  end("kernel_empty_x10");

  // Four streams, each copying its quarter in, scaling it and copying it out.
  const int streams = 4, chunk = n / streams;
  float *hostData = nullptr;
  CHECK(cudaMallocHost(&hostData, n * sizeof(float)));
  for (int i = 0; i < n; ++i)
    hostData[i] = static_cast<float>(i % 1000);
  cudaStream_t s[streams];
  for (auto &st : s)
    CHECK(cudaStreamCreate(&st));
  begin();
  for (int k = 0; k < streams; ++k) {
    float *d = x + k * chunk;
    CHECK(cudaMemcpyAsync(d, hostData + k * chunk, chunk * sizeof(float), cudaMemcpyHostToDevice, s[k]));
    scale<<<(chunk + 255) / 256, 256, 0, s[k]>>>(d, chunk, 2.0f);
    CHECK(cudaMemcpyAsync(hostData + k * chunk, d, chunk * sizeof(float), cudaMemcpyDeviceToHost, s[k]));
  }
  end("streams_4x_copy_kernel_copy");
  for (int i = 0; i < n; i += 4001)
    if (hostData[i] != 2.0f * static_cast<float>(i % 1000)) {
      std::printf("streams wrong at %d\n", i);
      return 1;
    }

  // A kernel that waits 1 ms on clock64(), at the clock the device reports.
  int clockKHz = 0;
  CHECK(cudaDeviceGetAttribute(&clockKHz, cudaDevAttrClockRate, 0));
  long long *waited = nullptr;
  CHECK(cudaMalloc(&waited, sizeof(long long)));
  const long long cycles = static_cast<long long>(clockKHz); // 1 ms
  begin();
  clockWait<<<1, 1>>>(cycles, waited);
  end("kernel_clock64_wait_1ms");
  long long hostWaited = 0;
  CHECK(cudaMemcpy(&hostWaited, waited, sizeof hostWaited, cudaMemcpyDeviceToHost));
  if (hostWaited < cycles) {
    std::printf("clock wait ended early: %lld of %lld cycles\n", hostWaited, cycles);
    return 1;
  }

  // Hyper-Q ([KTG] 1.4.2.2): four streams of two 2 ms clock waits each; the streams run side by side.
  clock_t *blockOut = nullptr;
  CHECK(cudaMalloc(&blockOut, 8 * sizeof(clock_t)));
  begin();
  for (int k = 0; k < streams; ++k) {
    clockBlock<<<1, 1, 0, s[k]>>>(blockOut + 2 * k, 2 * static_cast<clock_t>(clockKHz));
    clockBlock<<<1, 1, 0, s[k]>>>(blockOut + 2 * k + 1, 2 * static_cast<clock_t>(clockKHz));
  }
  end("hyperq_4_streams_2x2ms");
  CHECK(cudaFree(blockOut));

  // A graph of three small kernels, captured once, replayed 100 times.
  cudaStream_t g;
  CHECK(cudaStreamCreate(&g));
  const int small = 1 << 16;
  CHECK(cudaMemset(y, 0, small * sizeof(float)));
  cudaGraph_t graph;
  cudaGraphExec_t exec;
  CHECK(cudaStreamBeginCapture(g, cudaStreamCaptureModeGlobal));
  saxpy<<<small / 256, 256, 0, g>>>(small, 1.0f, x, y);
  scale<<<small / 256, 256, 0, g>>>(y, small, 0.5f);
  saxpy<<<small / 256, 256, 0, g>>>(small, 1.0f, x, y);
  CHECK(cudaStreamEndCapture(g, &graph));
  CHECK(cudaGraphInstantiate(&exec, graph, 0));
  begin(g);
  for (int i = 0; i < 100; ++i)
    CHECK(cudaGraphLaunch(exec, g));
  end("graph_3_kernels_x100", g);
  CHECK(cudaGraphExecDestroy(exec));
  CHECK(cudaGraphDestroy(graph));

  // A graph of two branches, forked and joined with events during capture: two 1 ms clock waits
  // that a GPU runs side by side; replayed 10 times.
  cudaStream_t branch;
  CHECK(cudaStreamCreate(&branch));
  cudaEvent_t forkEvent, joinEvent;
  CHECK(cudaEventCreateWithFlags(&forkEvent, cudaEventDisableTiming));
  CHECK(cudaEventCreateWithFlags(&joinEvent, cudaEventDisableTiming));
  long long *waits = nullptr;
  CHECK(cudaMalloc(&waits, 2 * sizeof(long long)));
  cudaGraph_t forked;
  cudaGraphExec_t forkedExec;
  CHECK(cudaStreamBeginCapture(g, cudaStreamCaptureModeGlobal));
  CHECK(cudaEventRecord(forkEvent, g));
  CHECK(cudaStreamWaitEvent(branch, forkEvent, 0));
  clockWait<<<1, 1, 0, g>>>(cycles, waits);
  clockWait<<<1, 1, 0, branch>>>(cycles, waits + 1);
  CHECK(cudaEventRecord(joinEvent, branch));
  CHECK(cudaStreamWaitEvent(g, joinEvent, 0));
  CHECK(cudaStreamEndCapture(g, &forked));
  CHECK(cudaGraphInstantiate(&forkedExec, forked, 0));
  CHECK(cudaGraphLaunch(forkedExec, g)); // untimed: the first launch of a graph uploads it
  CHECK(cudaStreamSynchronize(g));
  begin(g);
  for (int i = 0; i < 10; ++i)
    CHECK(cudaGraphLaunch(forkedExec, g));
  end("graph_2_branches_1ms_x10", g);
  CHECK(cudaGraphExecDestroy(forkedExec));
  CHECK(cudaGraphDestroy(forked));
  CHECK(cudaFree(waits));
  CHECK(cudaEventDestroy(forkEvent));
  CHECK(cudaEventDestroy(joinEvent));
  CHECK(cudaStreamDestroy(branch));

  for (auto &st : s)
    CHECK(cudaStreamDestroy(st));
  CHECK(cudaStreamDestroy(g));
  CHECK(cudaFree(waited));
  CHECK(cudaFree(x));
  CHECK(cudaFree(y));
  CHECK(cudaFree(device));
  CHECK(cudaFreeHost(pinned));
  CHECK(cudaFreeHost(hostData));
  std::printf("done\n");
  return 0;
}
