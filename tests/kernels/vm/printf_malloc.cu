// ptxray VM test kernels: device runtime services.
//   printfFormats    one printf per thread with %d %u %x %f %s %lld %c, and a header line with
//                    field widths, precision and %% from thread 0; also out[t] = 3 * vals[t]. The
//                    order of the lines of different threads is unspecified: compare sorted lines.
//   mallocPerThread  every thread mallocs 4 + t % 13 words, writes them, reads them back (volatile
//                    accesses, so nothing is folded away), frees them and stores a checksum
//   mallocKeep       every thread mallocs 8 words, fills them and stores the pointer in slots[t] ...
//   mallocConsume    ... which a later launch reads through, sums, frees and clears
// References: Reference.h. Specs: specs/printf.json, specs/malloc.json.
#include <cstdio>

extern "C" __global__ void printfFormats(const int *vals, unsigned *out) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  int v = vals[t];
  long long big = (long long)v * 1000000007LL;
  float quarter = (float)v * 0.25f;
  const char *word = (t & 1) ? "odd" : "even";
  char c = (char)('a' + t % 26);
  if (t == 0)
    printf("header: %5d|%-6s|%.3f|%08x|%%\n", (int)(gridDim.x * blockDim.x), "vm", 3.14159f, 0xbeefu);
  printf("t=%d u=%u x=%x f=%f s=%s ll=%lld c=%c\n", t, (unsigned)v, (unsigned)v, quarter, word, big, c);
  out[t] = (unsigned)v * 3u;
}

extern "C" __global__ void mallocPerThread(unsigned *out) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  int n = 4 + t % 13;
  unsigned *p = (unsigned *)malloc(n * sizeof(unsigned));
  if (p == nullptr) {
    out[t] = 0xffffffffu;
    return;
  }
  volatile unsigned *vp = p;
  for (int k = 0; k < n; ++k)
    vp[k] = (unsigned)k * 2654435761u + (unsigned)t;
  unsigned s = 0;
  for (int k = 0; k < n; ++k)
    s += vp[k] ^ ((unsigned)k << 3);
  free(p);
  out[t] = s;
}

extern "C" __global__ void mallocKeep(unsigned long long *slots, const unsigned *seeds) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned *p = (unsigned *)malloc(8 * sizeof(unsigned));
  if (p != nullptr)
    for (int k = 0; k < 8; ++k)
      p[k] = seeds[t] + (unsigned)k * 7u;
  slots[t] = (unsigned long long)p;
}

extern "C" __global__ void mallocConsume(unsigned long long *slots, unsigned *out) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned *p = (unsigned *)slots[t];
  if (p == nullptr) {
    out[t] = 0xffffffffu;
    return;
  }
  unsigned s = 0;
  for (int k = 0; k < 8; ++k)
    s = s * 31u + p[k];
  free(p);
  slots[t] = 0;
  out[t] = s;
}
