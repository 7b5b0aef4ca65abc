// Global atomics for the atomic-contention rule: every thread adds to one of `mask + 1` counters
// (mask 0: all on one address, served one after another by L2), and the same count with one
// counter per thread (no contention).
extern "C" __global__ void countShared(unsigned *counters, unsigned mask) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  atomicAdd(&counters[i & mask], 1u);
}

extern "C" __global__ void countPrivate(unsigned *counters) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  atomicAdd(&counters[i], 1u);
}
