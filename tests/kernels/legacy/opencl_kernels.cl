// ptxray legacy corpus (clang 14, OpenCL C 1.2): compiled for
//   nvptx-nvidia-nvcl    (32-bit, .target ..., texmode_independent, .func prototypes)
//   nvptx64-nvidia-nvcl  (64-bit)
//   nvptx-nvidia-cuda    (32-bit, CUDA driver interface: .extern .func prototypes)
// The work-item and synchronisation built-ins have no definition here (there is
// no libclc), so every get_global_id / barrier / atomic_* becomes a call to an
// external function. Images and samplers are opaque kernel parameters.

typedef struct {
  float4 origin;
  int count;
  float weights[3];
} Config;

__constant float k_bias[4] = {0.5f, -0.5f, 0.25f, -0.25f};

float blend(float a, float b, float t) { return a + (b - a) * t; }

__kernel void vec_add(__global const float *a, __global const float *b, __global float *c,
                      int n) {
  int i = get_global_id(0);
  if (i < n) c[i] = a[i] + b[i] + k_bias[i & 3];
}

__kernel void local_reduce(__global const float *in, __global float *out,
                           __local float *scratch) {
  size_t lid = get_local_id(0);
  size_t gid = get_global_id(0);
  scratch[lid] = in[gid];
  barrier(CLK_LOCAL_MEM_FENCE);
  for (size_t s = get_local_size(0) / 2; s > 0; s >>= 1) {
    if (lid < s) scratch[lid] += scratch[lid + s];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (lid == 0) out[get_group_id(0)] = scratch[0];
}

__kernel void by_value_struct(__global float4 *out, Config cfg) {
  int i = get_global_id(0);
  float4 v = cfg.origin * (float)i;
  v.x = blend(v.x, cfg.weights[0], cfg.weights[1]);
  v.w = (float)cfg.count + cfg.weights[2];
  out[i] = v;
}

__kernel void vectors_and_atomics(__global const float *in, __global float4 *out,
                                  __global int *counter) {
  int i = get_global_id(0);
  float4 v = vload4(i, in);
  out[i] = v.wzyx + (float4)(1.0f, 2.0f, 3.0f, 4.0f);
  atomic_add(counter, 1);
  atomic_max(counter + 1, i);
}

__kernel void images(__read_only image2d_t src, __write_only image2d_t dst, sampler_t smp) {
  int2 pos = (int2)(get_global_id(0), get_global_id(1));
  float4 px = read_imagef(src, smp, pos);
  write_imagef(dst, pos, px * 0.5f);
}
