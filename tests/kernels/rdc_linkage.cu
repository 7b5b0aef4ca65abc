// ptxray test corpus: separate compilation (-rdc=true) and linkage.
// extern __device__ functions and variables (.extern .func / .extern .global),
// .visible vs internal (static) vs .weak (inline / template) definitions,
// __device__ functions exported for other translation units.
// corpus-flags: -rdc=true

extern __device__ int lib_scale(int v);               // defined elsewhere
extern __device__ float lib_blend(float a, float b);  // defined elsewhere
extern __device__ int lib_table[256];                 // defined elsewhere
extern __constant__ float lib_weights[16];            // defined elsewhere

__device__ int exported_counter;             // .visible .global
static __device__ int internal_counter = 7;  // internal: no .visible
__device__ const int exported_const = 99;

__device__ __noinline__ int exported_helper(int v) { return v * 5 + exported_const; }

static __device__ __noinline__ int internal_helper(int v) { return v ^ internal_counter; }

template <typename T>
__device__ __noinline__ T weak_template(T v) {  // linkonce_odr -> .weak
  return v + v;
}

inline __device__ __noinline__ int weak_inline(int v) { return v - 1; }

__global__ void uses_externals(int *out, float *fout) {
  int t = threadIdx.x;
  int v = lib_scale(t) + lib_table[t & 255] + exported_helper(t) + internal_helper(t);
  v += weak_template<int>(t) + weak_inline(t) + (int)weak_template<float>(1.5f);
  fout[t] = lib_blend(fout[t], lib_weights[t & 15]);
  atomicAdd(&exported_counter, 1);
  internal_counter += v;
  out[t] = v;
}

// A weak kernel-side helper with a struct return across the ABI boundary.
struct Pair64 {
  long long a, b;
};
extern __device__ Pair64 lib_split(long long v);

__global__ void uses_struct_extern(long long *out) {
  Pair64 p = lib_split(out[threadIdx.x]);
  out[threadIdx.x] = p.a - p.b;
}
