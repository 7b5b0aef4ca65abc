// ptxray VM test kernel: structs passed by value (the spec passes them as {"type": "bytes", "hex"}).
//   Params: int a @0, unsigned mask @4, long long bias @8, float scale @16, unsigned char shift @20;
//           size 24, align 8 (.param .align 8 .b8 p[24])
//   Small:  short s @0, char c @2; size 4, align 2 (.param .align 2 .b8 q[4])
//   out[i]  = (long long)((in[i] & p.mask) << p.shift) + p.a + p.bias + q.s * q.c
//   fout[i] = (float)(in[i] & 0xffff) * p.scale (one rounding, __fmul_rn)
// References: Reference.h. Spec: specs/struct_arg.json.

struct Params {
  int a;
  unsigned mask;
  long long bias;
  float scale;
  unsigned char shift;
};

struct Small {
  short s;
  char c;
};

extern "C" __global__ void structArg(Params p, const unsigned *in, long long *out, float *fout, Small q, int n) {
  int gid = blockIdx.x * blockDim.x + threadIdx.x;
  if (gid >= n)
    return;
  unsigned v = in[gid];
  unsigned shifted = (v & p.mask) << p.shift;
  out[gid] = (long long)shifted + p.a + p.bias + q.s * q.c;
  fout[gid] = __fmul_rn((float)(v & 0xffffu), p.scale);
}
