// The OpenCL Best Practices Guide's copy/compute overlap example (3.1.3): c[i] = sqrt(a[i]^2 + b[i]^2)
// over two vectors copied in and one copied out. The guide's sample sizes the computation so that
// copying and computing take about as long ("properly balanced compute / copy phases"); `repeat`
// does that here: the same result, computed `repeat` times.
__global__ void hypotenuse(const float *a, const float *b, float *c, int n, int repeat, float zero) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  float x = a[i], y = b[i];
  float h = sqrtf(x * x + y * y);
  // Each round depends on the last through `zero` (0 at run time): nothing to hoist, the same bits.
  for (int r = 1; r < repeat; ++r)
    h = sqrtf(fmaf(h, zero, x * x + y * y));
  c[i] = h;
}
