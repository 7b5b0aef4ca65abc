// What a device-side launch (dynamic parallelism, CDP2) costs on the GPU: the numbers behind the
// model's child-grid schedule (arch::LatencyData's device-launch entries, cited [CDP]).
//
//   nvcc -O3 -arch=sm_90 -rdc=true -o cdp validation/model/cdp_launch.cu -lcudadevrt && ./cdp
//
// Each case is one host launch of a parent grid, timed with CUDA events around it (the events
// complete when the parent and every grid it launched are done), in microseconds: the median of 93
// runs, 31 in each of three passes over all cases (each after 3 warm-up runs), and each pass's median. `parent only` is the same parent launching nothing: the rest are
// read against it.
#include <algorithm>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#define CHECK(x)                                                                                                       \
  do {                                                                                                                 \
    cudaError_t e = (x);                                                                                               \
    if (e != cudaSuccess) {                                                                                            \
      std::printf("%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e));                                           \
      return 1;                                                                                                        \
    }                                                                                                                  \
  } while (0)

__global__ void empty() {}

__global__ void spin(long long cycles) {
  const long long start = clock64();
  while (clock64() - start < cycles) {
  }
}

// One thread launches n empty grids into its block's stream: they run one after another.
__global__ void serialParent(int n, int childBlocks) {
  for (int i = 0; i < n; ++i)
    empty<<<childBlocks, 32>>>();
}

// One thread launches n spinning grids into its block's stream.
__global__ void serialSpinParent(int n, long long cycles) {
  for (int i = 0; i < n; ++i)
    spin<<<1, 32>>>(cycles);
}

// Threads 0..n-1 of one block each launch one empty grid, fire-and-forget: they may run side by side.
__global__ void fanParent(int n) {
  if (threadIdx.x < n)
    empty<<<1, 32, 0, cudaStreamFireAndForget>>>();
}

// Threads 0..n-1 of one block each launch one empty grid into the block's stream.
__global__ void fanSameStreamParent(int n) {
  if (threadIdx.x < n)
    empty<<<1, 32>>>();
}

// Thread 0 of every block launches one empty grid into its block's stream.
__global__ void perBlockParent() {
  if (threadIdx.x == 0)
    empty<<<1, 32>>>();
}

// Thread 0 of every block launches one spinning grid.
__global__ void perBlockSpinParent(long long cycles) {
  if (threadIdx.x == 0)
    spin<<<1, 32>>>(cycles);
}

// One thread tail-launches n empty grids.
__global__ void tailParent(int n) {
  for (int i = 0; i < n; ++i)
    empty<<<1, 32, 0, cudaStreamTailLaunch>>>();
}

// A chain of nested launches, d deep.
__global__ void chain(int depth) {
  if (depth > 0)
    chain<<<1, 1>>>(depth - 1);
}

struct Case {
  const char *name;
  std::string parameter;
  std::function<void()> launch;
  std::vector<float> samples;           // ms, every pass
  std::vector<double> passMedians;      // us
};

double medianOf(std::vector<float> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2] * 1000.0;
}

// One pass of a case: 3 warm-up runs, then 31 timed ones.
void measure(Case &c, cudaEvent_t a, cudaEvent_t b) {
  std::vector<float> ms;
  for (int i = 0; i < 34; ++i) {
    cudaEventRecord(a);
    c.launch();
    cudaEventRecord(b);
    cudaEventSynchronize(b);
    float t = 0;
    cudaEventElapsedTime(&t, a, b);
    if (i >= 3)
      ms.push_back(t);
  }
  c.samples.insert(c.samples.end(), ms.begin(), ms.end());
  c.passMedians.push_back(medianOf(ms));
}

int main() {
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  std::printf("# %s, %d SMs, CUDA events around one host launch (us): the median of 93 runs, 31 in each of 3 passes, and each pass's median\n", prop.name,
              prop.multiProcessorCount);
  CHECK(cudaDeviceSetLimit(cudaLimitDevRuntimePendingLaunchCount, 32768));
  const long long spinCycles = 20000; // about 10 us at 1.98 GHz
  std::vector<Case> cases;
  auto add = [&](const char *name, std::string parameter, std::function<void()> launch) {
    cases.push_back({name, std::move(parameter), std::move(launch), {}, {}});
  };
  add("host empty<<<1,32>>>", "-", [] { empty<<<1, 32>>>(); });
  add("host spin<<<1,32>>>", std::to_string(spinCycles) + " cycles", [=] { spin<<<1, 32>>>(spinCycles); });
  for (int n : {0, 1, 2, 4, 8, 16, 32, 64})
    add("serial children (one thread, block stream)", std::to_string(n), [n] { serialParent<<<1, 1>>>(n, 1); });
  for (int blocks : {1, 132, 1056, 8448})
    add("one child of N blocks", std::to_string(blocks), [blocks] { serialParent<<<1, 1>>>(1, blocks); });
  for (int n : {1, 4, 16})
    add("serial spinning children", std::to_string(n), [=] { serialSpinParent<<<1, 1>>>(n, spinCycles); });
  for (int n : {0, 1, 2, 4, 8, 16, 32, 64, 128, 256})
    add("fire-and-forget children (one block, n threads)", std::to_string(n), [n] { fanParent<<<1, 256>>>(n); });
  for (int n : {1, 2, 4, 8, 16, 32, 64, 128, 256})
    add("children of n threads into the block stream", std::to_string(n), [n] { fanSameStreamParent<<<1, 256>>>(n); });
  for (int blocks : {1, 2, 8, 32, 132, 264, 1056, 4224})
    add("one child per block", std::to_string(blocks), [blocks] { perBlockParent<<<blocks, 32>>>(); });
  for (int blocks : {1, 132, 1056})
    add("one spinning child per block", std::to_string(blocks), [=] { perBlockSpinParent<<<blocks, 32>>>(spinCycles); });
  for (int n : {0, 1, 2, 4, 8, 16})
    add("tail launches (one thread)", std::to_string(n), [n] { tailParent<<<1, 1>>>(n); });
  for (int d : {0, 1, 2, 4, 8, 16, 23})
    add("nested chain depth", std::to_string(d), [d] { chain<<<1, 1>>>(d); });
  cudaEvent_t a, b;
  cudaEventCreate(&a);
  cudaEventCreate(&b);
  // Three passes over every case, forward, backward and forward: a case's number does not depend on
  // what ran before it (the device runtime's pools grow with the launches made).
  for (int pass = 0; pass < 3; ++pass)
    for (size_t i = 0; i < cases.size(); ++i)
      measure(cases[pass == 1 ? cases.size() - 1 - i : i], a, b);
  std::printf("case\tparameter\tus\tpass medians (us)\n");
  for (Case &c : cases)
    std::printf("%s\t%s\t%.2f\t%.2f %.2f %.2f\n", c.name, c.parameter.c_str(), medianOf(c.samples), c.passMedians[0],
                c.passMedians[1], c.passMedians[2]);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  return 0;
}
