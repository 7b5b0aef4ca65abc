// ptxray test corpus: control flow and divergence.
// if/else divergence, nested loops with break/continue, do-while, goto,
// dense switch (NVVM turns it into a lookup table or a compare chain; it does
// not emit jump tables, so brx.idx + .branchtargets is written in inline PTX),
// sparse switch, loop unrolling pragmas (.pragma "nounroll"), predicated early
// returns, uniform branches, exit.

__device__ __noinline__ int classify(int v) {
  switch (v & 15) {  // dense: jump table
    case 0: return 10;
    case 1: return 21;
    case 2: return 32;
    case 3: return 43;
    case 4: return 54;
    case 5: return 65;
    case 6: return 76;
    case 7: return 87;
    case 8: return 98;
    case 9: return 109;
    case 10: return 1110;
    case 11: return 1211;
    default: return -1;
  }
}

__global__ void switches(const int *in, int *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int v = in[i];
  int r;
  switch (v) {  // sparse: comparisons
    case -100: r = 1; break;
    case 7: r = 2; break;
    case 1000: r = 3; break;
    case 65536: r = 4; break;
    default: r = 0;
  }
  int k = 0;
  switch (v & 7) {  // fallthrough chain with side effects
    case 0: k += out[i];
      [[fallthrough]];
    case 1: k += 2;
      [[fallthrough]];
    case 2: k *= 3; break;
    case 5: k = out[n - 1 - i]; break;
    case 6: k = in[(i + 3) % n] * 7; break;
    case 7: k = v >> 2; break;
    default: k = -k;
  }
  out[i] = r + k + classify(v);
}

__global__ void divergence(const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float v = in[i];
  float acc = 0.0f;
  if (threadIdx.x & 1) {
    for (int k = 0; k < 100; ++k) {
      acc += v * k;
      if (acc > 1000.0f) break;        // divergent break
      if (k % 3 == 0) continue;
      acc -= 0.5f;
    }
  } else if (threadIdx.x & 2) {
    int k = 0;
    do {
      acc += sqrtf(v + k);
      ++k;
    } while (acc < v * 10.0f && k < 50);
  } else {
    for (int a = 0; a < 8; ++a) {
      for (int b = 0; b < 8; ++b) {
        if (a * b > (int)v) goto done;  // break out of a nested loop
        acc += in[(a * 8 + b + i) % n];
      }
    }
  done:
    acc *= 2.0f;
  }
  out[i] = acc;
}

__global__ void unrolling(const float *in, float *out) {
  float acc = 0.0f;
#pragma unroll 4
  for (int k = 0; k < 64; ++k) acc += in[threadIdx.x * 64 + k] * (float)k;
#pragma unroll 1
  for (int k = 0; k < 16; ++k) acc = acc * 0.5f + in[k];
#pragma unroll
  for (int k = 0; k < 8; ++k) acc += __shfl_xor_sync(0xffffffffu, acc, k & 4 ? 1 : 2);
  out[threadIdx.x] = acc;
}

__global__ void predication(const int *in, int *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int v = i < n ? in[i] : 0;
  int r = v;
  if (v > 3) r = v * 2;      // likely selp / predicated instructions
  if (v < -3) r = -v;
  if (blockIdx.x == 0) {     // uniform branch (bra.uni)
    r += 100;
  }
  if (i < n) out[i] = r;
}

// Infinite loop exited only by return; unreachable code after trap.
__global__ void loop_until(int *counter, int *out, int limit) {
  for (;;) {
    int c = atomicAdd(counter, 1);
    if (c >= limit) return;
    out[c] = c * 2;
  }
}

// Explicit uniform-branch / predicated-branch / exit forms in inline PTX.
__global__ void branch_forms(int *out, int v) {
  int r;
  asm volatile(
      "{\n\t"
      ".reg .pred p;\n\t"
      ".reg .s32 t;\n\t"
      "mov.s32 t, %1;\n\t"
      "setp.gt.s32 p, t, 10;\n\t"
      "@p bra.uni BF_BIG;\n\t"
      "add.s32 t, t, 1;\n\t"
      "bra BF_END;\n\t"
      "BF_BIG:\n\t"
      "sub.s32 t, t, 1;\n\t"
      "BF_END:\n\t"
      "mov.s32 %0, t;\n\t"
      "}"
      : "=r"(r)
      : "r"(v));
  out[threadIdx.x] = r;
  if (r == 12345) asm volatile("exit;");
  out[threadIdx.x + 32] = r + 1;
}

// NVVM does not emit jump tables; an indexed branch written in inline PTX
// (.branchtargets + brx.idx).
__global__ void indexed_branch(int *out, unsigned sel) {
  int r;
  asm volatile(
      "{\n\t"
      ".reg .u32 ix;\n\t"
      ".reg .s32 acc;\n\t"
      "rem.u32 ix, %1, 4;\n\t"
      "mov.s32 acc, 0;\n\t"
      "IB_TABLE: .branchtargets IB_C0, IB_C1, IB_C2, IB_C3;\n\t"
      "brx.idx ix, IB_TABLE;\n\t"
      "IB_C0:\n\t"
      "add.s32 acc, acc, 100;\n\t"
      "bra.uni IB_DONE;\n\t"
      "IB_C1:\n\t"
      "add.s32 acc, acc, 200;\n\t"
      "bra.uni IB_DONE;\n\t"
      "IB_C2:\n\t"
      "add.s32 acc, acc, 300;\n\t"
      "IB_C3:\n\t"
      "add.s32 acc, acc, 400;\n\t"
      "IB_DONE:\n\t"
      "mov.s32 %0, acc;\n\t"
      "}"
      : "=r"(r)
      : "r"(sel));
  out[threadIdx.x] = r;
}
