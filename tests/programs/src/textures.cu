// Texture and surface objects: a 2D float array sampled with linear filtering and normalized
// coordinates (clamp and wrap), tex1Dfetch from linear memory, an 8-bit texture read as normalized
// floats, and a surface written by one kernel and read back through a texture by the next.
#include <cstdio>
#include <vector>

#define CHECK(call)                                                                                                    \
  do {                                                                                                                 \
    cudaError_t e_ = (call);                                                                                           \
    if (e_ != cudaSuccess) {                                                                                           \
      printf("CUDA error %s at %s\n", cudaGetErrorName(e_), #call);                                                   \
      return 1;                                                                                                        \
    }                                                                                                                  \
  } while (0)

__global__ void sample2d(cudaTextureObject_t tex, float *out, int w, int h) {
  int x = threadIdx.x, y = blockIdx.x;
  // Sample between texels and beyond the edges: the filtering and the address mode both show.
  float u = (x + 0.25f) / w * 1.5f - 0.25f, v = (y + 0.75f) / h;
  out[y * w + x] = tex2D<float>(tex, u, v);
}

__global__ void fetch1d(cudaTextureObject_t tex, int *out, int n) {
  int i = threadIdx.x;
  out[i] = tex1Dfetch<int>(tex, i * 3 - 5); // outside [0, n) reads zero
}

__global__ void normalized8(cudaTextureObject_t tex, float *out) {
  int i = threadIdx.x;
  out[i] = tex1D<float>(tex, i + 0.5f);
}

__global__ void writeSurface(cudaSurfaceObject_t surf, int w) {
  int x = threadIdx.x, y = blockIdx.x;
  surf2Dwrite<float>(x * 100.0f + y, surf, x * sizeof(float), y);
}

__global__ void readBack(cudaTextureObject_t tex, float *out, int w) {
  int x = threadIdx.x, y = blockIdx.x;
  out[y * w + x] = tex2D<float>(tex, x + 0.5f, y + 0.5f);
}

int main() {
  const int w = 16, h = 8;
  std::vector<float> img(w * h);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x)
      img[y * w + x] = static_cast<float>((x * 7 + y * 13) % 32);
  cudaChannelFormatDesc fdesc = cudaCreateChannelDesc<float>();
  cudaArray_t array;
  CHECK(cudaMallocArray(&array, &fdesc, w, h));
  CHECK(cudaMemcpy2DToArray(array, 0, 0, img.data(), w * sizeof(float), w * sizeof(float), h, cudaMemcpyHostToDevice));
  cudaResourceDesc res = {};
  res.resType = cudaResourceTypeArray;
  res.res.array.array = array;
  float *dout;
  CHECK(cudaMalloc(&dout, w * h * sizeof(float)));
  std::vector<float> out(w * h);
  const char *modes[] = {"clamp", "wrap"};
  for (int m = 0; m < 2; ++m) {
    cudaTextureDesc td = {};
    td.addressMode[0] = td.addressMode[1] = m == 0 ? cudaAddressModeClamp : cudaAddressModeWrap;
    td.filterMode = cudaFilterModeLinear;
    td.readMode = cudaReadModeElementType;
    td.normalizedCoords = 1;
    cudaTextureObject_t tex;
    CHECK(cudaCreateTextureObject(&tex, &res, &td, nullptr));
    sample2d<<<h, w>>>(tex, dout, w, h);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(out.data(), dout, w * h * sizeof(float), cudaMemcpyDeviceToHost));
    double sum = 0;
    for (float f : out)
      sum += f;
    printf("linear %s: out[0]=%.4f out[37]=%.4f out[127]=%.4f sum=%.3f\n", modes[m], out[0], out[37], out[127], sum);
    CHECK(cudaDestroyTextureObject(tex));
  }

  const int n = 20;
  std::vector<int> ints(n);
  for (int i = 0; i < n; ++i)
    ints[i] = i * i + 1;
  int *dints, *dfetched;
  CHECK(cudaMalloc(&dints, n * sizeof(int)));
  CHECK(cudaMalloc(&dfetched, 12 * sizeof(int)));
  CHECK(cudaMemcpy(dints, ints.data(), n * sizeof(int), cudaMemcpyHostToDevice));
  cudaResourceDesc lres = {};
  lres.resType = cudaResourceTypeLinear;
  lres.res.linear.devPtr = dints;
  lres.res.linear.desc = cudaCreateChannelDesc<int>();
  lres.res.linear.sizeInBytes = n * sizeof(int);
  cudaTextureDesc ltd = {};
  ltd.readMode = cudaReadModeElementType;
  cudaTextureObject_t ltex;
  CHECK(cudaCreateTextureObject(&ltex, &lres, &ltd, nullptr));
  fetch1d<<<1, 12>>>(ltex, dfetched, n);
  int fetched[12];
  CHECK(cudaMemcpy(fetched, dfetched, sizeof fetched, cudaMemcpyDeviceToHost));
  printf("tex1Dfetch:");
  for (int v : fetched)
    printf(" %d", v);
  printf("\n");

  unsigned char bytes[8] = {0, 1, 64, 127, 128, 200, 254, 255};
  cudaChannelFormatDesc bdesc = cudaCreateChannelDesc<unsigned char>();
  cudaArray_t barray;
  CHECK(cudaMallocArray(&barray, &bdesc, 8, 0));
  CHECK(cudaMemcpy2DToArray(barray, 0, 0, bytes, 8, 8, 1, cudaMemcpyHostToDevice));
  cudaResourceDesc bres = {};
  bres.resType = cudaResourceTypeArray;
  bres.res.array.array = barray;
  cudaTextureDesc btd = {};
  btd.readMode = cudaReadModeNormalizedFloat;
  btd.filterMode = cudaFilterModePoint;
  cudaTextureObject_t btex;
  CHECK(cudaCreateTextureObject(&btex, &bres, &btd, nullptr));
  normalized8<<<1, 8>>>(btex, dout);
  float norm[8];
  CHECK(cudaMemcpy(norm, dout, sizeof norm, cudaMemcpyDeviceToHost));
  printf("normalized u8:");
  for (float f : norm)
    printf(" %.5f", f);
  printf("\n");

  cudaArray_t sarray;
  CHECK(cudaMallocArray(&sarray, &fdesc, w, h, cudaArraySurfaceLoadStore));
  cudaResourceDesc sres = {};
  sres.resType = cudaResourceTypeArray;
  sres.res.array.array = sarray;
  cudaSurfaceObject_t surf;
  CHECK(cudaCreateSurfaceObject(&surf, &sres));
  writeSurface<<<h, w>>>(surf, w);
  cudaTextureDesc ptd = {};
  ptd.filterMode = cudaFilterModePoint;
  cudaTextureObject_t stex;
  CHECK(cudaCreateTextureObject(&stex, &sres, &ptd, nullptr));
  readBack<<<h, w>>>(stex, dout, w);
  CHECK(cudaMemcpy(out.data(), dout, w * h * sizeof(float), cudaMemcpyDeviceToHost));
  int wrong = 0;
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x)
      wrong += out[y * w + x] != x * 100.0f + y;
  std::vector<float> back(w * h);
  CHECK(cudaMemcpy2DFromArray(back.data(), w * sizeof(float), sarray, 0, 0, w * sizeof(float), h,
                              cudaMemcpyDeviceToHost));
  printf("surface: wrong=%d back[17]=%.1f\n", wrong, back[17]);
  CHECK(cudaDestroySurfaceObject(surf));
  CHECK(cudaDestroyTextureObject(stex));
  CHECK(cudaDestroyTextureObject(btex));
  CHECK(cudaDestroyTextureObject(ltex));
  CHECK(cudaFreeArray(array));
  CHECK(cudaFreeArray(barray));
  CHECK(cudaFreeArray(sarray));
  CHECK(cudaDeviceSynchronize());
  printf("textures: done\n");
  return 0;
}
