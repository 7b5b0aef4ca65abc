// ptxray VM test kernels: divergent control flow (exact integer results).
//   divergentWork  Collatz step count (data-dependent trip count, capped at 1000), early returns
//                  (past the end of the data, and for zero inputs), nested if/else with a loop inside
//                  one branch
//   nestedLoops    two nested loops with data-dependent bounds, continue and break, and a switch
// n is smaller than the number of threads, so the last warp exits partly at once.
// References: Reference.h. Spec: specs/divergence.json.

extern "C" __global__ void divergentWork(const unsigned *in, unsigned *steps, int *cls, int n) {
  int gid = blockIdx.x * blockDim.x + threadIdx.x;
  if (gid >= n)
    return;
  unsigned x = in[gid];
  if (x == 0) {
    steps[gid] = 0xffffffffu;
    cls[gid] = -1;
    return;
  }
  unsigned s = 0;
  while (x != 1 && s < 1000) {
    x = (x & 1) ? 3 * x + 1 : x >> 1;
    ++s;
  }
  steps[gid] = s;
  int c;
  if (s < 50) {
    if (s & 1)
      c = 1;
    else
      c = 2;
  } else if (s < 150) {
    c = (s % 3 == 0) ? 3 : 4;
    for (int k = 0; k < (int)(s & 7); ++k)
      c += k;
  } else {
    c = 5;
    if (in[gid] % 7 == 0)
      c = 6;
  }
  cls[gid] = c;
}

extern "C" __global__ void nestedLoops(const unsigned *in, unsigned *out, int n) {
  int gid = blockIdx.x * blockDim.x + threadIdx.x;
  if (gid >= n)
    return;
  unsigned v = in[gid];
  int outer = (int)(v & 15u);
  int inner = (int)((v >> 4) & 7u);
  unsigned acc = 0;
  for (int i = 0; i < outer; ++i) {
    for (int j = 0; j < inner; ++j) {
      if (((i ^ j) & 1) != 0)
        continue;
      acc += (unsigned)(i * j + 1);
    }
    if (acc > 200)
      break;
  }
  switch ((v >> 7) & 3u) {
  case 0: acc += 1000; break;
  case 1: acc *= 3; break;
  case 2: acc ^= 0x5555u; break;
  default: acc = ~acc; break;
  }
  out[gid] = acc;
}
