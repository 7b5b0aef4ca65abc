// ptxray VM test kernel: recursive device functions (C++-mangled kernel, named "recursiveCalls" in
// the spec). fib is doubly recursive; factorialMod reduces modulo 1000000007 after each product, which
// keeps the compiler from turning its recursion into a loop. __noinline__ keeps real calls in the PTX
// (call.uni to the function itself, with a .local stack frame).
// References: Reference.h. Spec: specs/recursion.json.

__device__ __noinline__ unsigned fib(unsigned n) {
  return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

__device__ __noinline__ unsigned long long factorialMod(unsigned n) {
  if (n <= 1)
    return 1;
  return (n * factorialMod(n - 1)) % 1000000007ull;
}

__global__ void recursiveCalls(const unsigned *in, unsigned *fibOut, unsigned long long *factOut, int n) {
  int gid = blockIdx.x * blockDim.x + threadIdx.x;
  if (gid >= n)
    return;
  unsigned v = in[gid];
  fibOut[gid] = fib(v % 12);
  factOut[gid] = factorialMod(v % 25);
}
