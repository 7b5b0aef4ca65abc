// ptxray test corpus: the same arithmetic compiled with --use_fast_math, which
// turns on .ftz, approximate division / sqrt / transcendental instructions.
// corpus-flags: --use_fast_math

__device__ float poly(float x) { return ((0.25f * x + 0.5f) * x + 1.0f) * x + 2.0f; }

__global__ void fast_math(const float *a, const float *b, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float x = a[i], y = b[i];
  float *o = out + i * 12;
  o[0] = x / y;
  o[1] = sqrtf(x);
  o[2] = 1.0f / sqrtf(y);
  o[3] = sinf(x) + cosf(y);
  o[4] = expf(x) * logf(y);
  o[5] = powf(x, y);
  o[6] = fminf(x, y) - fmaxf(x, y);
  o[7] = poly(x);
  o[8] = tanf(x);
  o[9] = exp10f(x) + log10f(y);
  o[10] = 1.0f / x;
  o[11] = x * y + o[10];
}

__global__ void fast_math_f64_unchanged(const double *a, double *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = sqrt(a[i]) / (a[i] + 1.0);
}
