// ptxray test corpus: state spaces and variable declarations.
// global / shared (static + extern dynamic) / local (dynamically indexed array) /
// const (initialized arrays) / param (large structs by value) / __device__
// globals with initializers, including pointers to other globals (generic()
// initializers), vector loads, cache-operator loads and stores, volatile.
#include <cstdint>

__constant__ float c_coeffs[8] = {1.0f, -0.5f, 0.25f, -0.125f, 3.14159265f, 0.0f, -0.0f, 1e-30f};
__constant__ int c_table[4][4] = {{1, 2, 3, 4}, {5, 6, 7, 8}, {9, 10, 11, 12}, {13, 14, 15, 16}};
__constant__ double c_scale = 2.718281828459045;
__constant__ unsigned char c_bytes[5] = {0xde, 0xad, 0xbe, 0xef, 0x00};
__constant__ short c_partial[16] = {7, 8};  // remaining elements zero

struct Mixed {
  char tag;
  int count;
  double weight;
  short pair[2];
};
__constant__ Mixed c_mixed = {'x', 42, 0.125, {-1, 2}};

__device__ int g_counter;
__device__ int g_array[64] = {3, 1, 4, 1, 5, 9, 2, 6};
__device__ float g_matrix[4][4];
__device__ long long g_big = 0x123456789abcdefll;
__device__ int *g_ptr_to_array = g_array;            // address of another global
__device__ int *g_ptr_into_array = &g_array[5];      // address + offset
__device__ float *g_ptr_to_matrix_row = g_matrix[2]; // into a 2-D array
__device__ const float *g_ptr_to_const = &c_coeffs[1];
__device__ int *g_ptr_table[3] = {&g_counter, g_array + 1, nullptr};
__device__ const char g_message[] = "ptxray\n";
__device__ __align__(16) float4 g_vec4 = {1.0f, 2.0f, 3.0f, 4.0f};
__device__ volatile int g_flag;

struct Big {
  float m[4][4];
  int ids[8];
  double scale;
  char name[20];
};

struct __align__(16) Small {
  float2 xy;
  int k;
};

__global__ void params_by_value(Big big, Small small, char c, short s, double d, float *out) {
  int i = threadIdx.x & 15;
  out[threadIdx.x] = big.m[i >> 2][i & 3] * (float)big.scale + big.ids[i & 7] +
                     small.xy.x * small.k + c + s + (float)d + big.name[i];
}

extern __shared__ float dyn_smem[];

__global__ void shared_kernel(const float *in, float *out, int n) {
  __shared__ float tile[32][33];
  __shared__ int s_count;
  __shared__ __align__(16) double s_acc[4];
  int tx = threadIdx.x & 31, ty = threadIdx.x >> 5;
  if (threadIdx.x == 0) s_count = 0;
  if (threadIdx.x < 4) s_acc[threadIdx.x] = 0.0;
  __syncthreads();
  int gi = blockIdx.x * blockDim.x + threadIdx.x;
  tile[ty][tx] = gi < n ? in[gi] : 0.0f;
  dyn_smem[threadIdx.x] = tile[ty][tx] * c_coeffs[tx & 7];
  atomicAdd(&s_count, 1);
  __syncthreads();
  float v = tile[tx][ty] + dyn_smem[(threadIdx.x + 1) % blockDim.x];
  if (gi < n) out[gi] = v + s_count + (float)s_acc[tx & 3];
}

// A local array indexed by run-time values forces .local storage (local depot).
__global__ void local_array(const int *idx, float *out, int n) {
  float scratch[48];
  int buf[16];
  int gi = blockIdx.x * blockDim.x + threadIdx.x;
  for (int k = 0; k < 48; ++k) scratch[k] = k * 0.5f + gi;
  for (int k = 0; k < 16; ++k) buf[k] = idx[(gi + k) % n];
  float acc = 0.0f;
  for (int k = 0; k < 16; ++k) acc += scratch[buf[k] % 48 < 0 ? 0 : buf[k] % 48];
  buf[idx[gi] & 15] = gi;
  out[gi] = acc + buf[gi & 15];
}

__global__ void globals_and_const(float *out, int sel) {
  int t = threadIdx.x;
  float r = c_coeffs[t & 7] * (float)c_scale + c_table[t & 3][(t >> 2) & 3];
  r += c_bytes[t % 5] + c_partial[t & 15] + c_mixed.count + c_mixed.pair[t & 1] +
       (float)c_mixed.weight + c_mixed.tag;
  r += *g_ptr_to_array + *g_ptr_into_array + g_ptr_to_matrix_row[t & 3] + g_ptr_to_const[0];
  int *p = g_ptr_table[sel % 3];
  if (p) r += *p;
  r += g_message[t & 7] + (float)g_big + g_vec4.w;
  g_matrix[t & 3][(t >> 2) & 3] = r;
  out[t] = r;
  if (t == 0) g_counter = sel;
}

__global__ void vector_and_cache_ops(const float4 *__restrict__ in4, const float2 *in2,
                                     const int *__restrict__ ro, float4 *out4, float *out,
                                     int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float4 a = __ldg(&in4[i]);     // ld.global.nc.v4.f32
  float4 b = __ldcs(&in4[i + n]);  // ld.global.cs
  float4 c = __ldcg(&in4[i + 2 * n]);  // ld.global.cg
  float2 d = __ldca(&in2[i]);       // ld.global.ca
  float e = __ldlu(&out[i]);        // ld.global.lu
  float f = __ldcv(&out[i + n]);    // ld.global.cv
  int g = ro[i] + __ldg(&ro[i + 1]);
  float4 r = make_float4(a.x + b.x + c.x, a.y + b.y + c.y + d.x, a.z + b.z + d.y,
                         a.w + e + f + g);
  __stcs(&out4[i], r);             // st.global.cs.v4
  __stwb(&out[i], r.x);            // st.global.wb
  __stcg(&out[i + n], r.y);        // st.global.cg
  __stwt(&out[i + 2 * n], r.z);    // st.global.wt
  double2 dd = make_double2(r.x, r.y);
  reinterpret_cast<double2 *>(out4)[n + i] = dd;  // st.global.v2.f64
}

__global__ void volatile_and_generic(volatile int *flagp, int *data, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  // generic pointer that may point to shared or global, chosen at run time
  __shared__ int sh[32];
  sh[threadIdx.x & 31] = i;
  __syncthreads();
  int *p = (i & 1) ? &sh[threadIdx.x & 31] : &data[i % n];
  *p += 1;                       // generic ld/st (no state space)
  if (__isShared(p)) data[i % n] = -1;
  if (__isGlobal(p)) data[i % n] += 2;
  size_t sa = __cvta_generic_to_shared(&sh[1]);
  data[(i + 1) % n] = (int)sa;
  while (*flagp == 0) {
  }
  g_flag = i;
  flagp[1] = g_flag + 1;
}
