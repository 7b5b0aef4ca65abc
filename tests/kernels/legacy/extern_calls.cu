// ptxray legacy corpus (clang 14): calls to functions defined in another
// module (.extern .func declarations), an extern global, weak (inline) device
// functions, a device-side vprintf call and indirect calls (.callprototype).
#include "nvvm_common.h"

extern "C" __device__ int ext_transform(int v, float scale);  // .extern .func
extern "C" __device__ void ext_log(const char *what, int v);  // no return value
extern "C" __device__ int vprintf(const char *fmt, void *args);
extern __device__ int ext_table[64];                          // .extern .global

inline __device__ __noinline__ int weak_helper(int v) { return v * 3 + 1; }  // .weak .func

struct Args {
  int a;
  double b;
};

extern "C" __global__ void calls_externs(int *out, float s) {
  int t = GLOBAL_ID;
  int v = ext_transform(t, s) + ext_table[t & 63] + weak_helper(t);
  if (v < 0) ext_log("negative", v);
  Args args{v, (double)s};
  vprintf("v=%d s=%f\n", &args);
  out[t] = v;
}

// Indirect call through a table of device function pointers
// (clang emits a ".callprototype" declaration labelled prototype_N).
typedef float (*unary_op)(float);
__device__ float op_twice(float x) { return 2.0f * x; }
__device__ float op_square(float x) { return x * x; }
__device__ unary_op op_table[2] = {op_twice, op_square};

extern "C" __global__ void calls_indirect(float *data, int sel) {
  int t = GLOBAL_ID;
  unary_op f = op_table[(sel + t) & 1];
  data[t] = f(data[t]);
}
