// memcheck's planted bugs, each made by exactly one thread's access, with a clean twin (the fixed
// kernel, or the same kernel with data that fits). tests/sanitizers/MemcheckKernelsTest.cpp pins the
// lines below: add code at the end.

// Global overrun inside the allocation's alignment padding: out[i] = in[i] + in[i + 1] for i < n,
// so thread n - 1 reads in[n]. With n = 100 ints the buffer is 400 bytes; in[100] is byte 400, inside
// the 256-byte granule the allocation occupies on the GPU (bytes 400..511), where no check based on
// granules can see it.
__global__ void adjacentSum(const int *in, int *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = in[i] + in[i + 1];
}

__global__ void adjacentSumBounded(const int *in, int *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = in[i] + (i + 1 < n ? in[i + 1] : 0);
}

// A read that lands in the neighbouring allocation: out[i] = in[i] - in[i - 1], so thread 0 reads
// in[-1], the last int of whatever was allocated just before `in` (on the GPU a valid address).
__global__ void differences(const int *in, int *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = in[i] - in[i - 1];
}

__global__ void differencesFromZero(const int *in, int *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = in[i] - (i > 0 ? in[i - 1] : 0);
}

// Local-array overrun: each thread builds the powers base^0..base^7 of its base in a local table and
// looks up the exponent it is given; an exponent of 8 reads one int past the table.
__global__ void powerLookup(const int *exponents, int *out) {
  int powers[8];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int base = i + 2;
  powers[0] = 1;
#pragma unroll 1
  for (int k = 1; k < 8; ++k)
    powers[k] = powers[k - 1] * base;
  out[i] = powers[exponents[i]];
}
