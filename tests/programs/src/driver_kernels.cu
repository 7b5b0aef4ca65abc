// Kernels the driver-API program (driver_api.cu) loads as PTX with cuModuleLoadData: built with
// `nvcc -ptx` into bin/driver_kernels.ptx by build.sh.
__device__ float scale_factor = 2.0f;

extern "C" __global__ void saxpy(int n, float a, const float *x, float *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = a * scale_factor * x[i] + y[i];
}

struct Pair {
  int first;
  double second;
};

extern "C" __global__ void pack(Pair p, char tag, long long *out) {
  out[0] = p.first;
  out[1] = static_cast<long long>(p.second * 10);
  out[2] = tag;
}
