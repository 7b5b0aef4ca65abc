// ptxray VM test kernel: indirect calls through a table of device-function pointers kept in
// __device__ memory (its PTX initializer lists function names). Each thread picks two functions
// from the table by its own selector, so calls through the same instruction diverge in a warp.
// References: Reference.h. Spec: specs/indirect_calls.json.

typedef unsigned (*BinOp)(unsigned, unsigned);

__device__ __noinline__ unsigned opAdd(unsigned a, unsigned b) {
  return a + b;
}
__device__ __noinline__ unsigned opSub(unsigned a, unsigned b) {
  return a - b;
}
__device__ __noinline__ unsigned opMul(unsigned a, unsigned b) {
  return a * b;
}
__device__ __noinline__ unsigned opXorRot(unsigned a, unsigned b) {
  return a ^ ((b << 5) | (b >> 27));
}

__device__ BinOp g_ops[4] = {opAdd, opSub, opMul, opXorRot};

extern "C" __global__ void applyOps(const unsigned *a, const unsigned *b, const unsigned *sel, unsigned *out, int n) {
  int gid = blockIdx.x * blockDim.x + threadIdx.x;
  if (gid >= n)
    return;
  unsigned s = sel[gid];
  BinOp first = g_ops[s & 3u];
  BinOp second = g_ops[(s >> 2) & 3u];
  unsigned r = first(a[gid], b[gid]);
  out[gid] = second(r, a[gid]);
}
