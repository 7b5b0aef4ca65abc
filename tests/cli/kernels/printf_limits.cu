// Device printf at its limits (issue #31): a 600-digit precision printed whole, a billion-digit one
// dropped without formatting it, a 70,000-character %s, 3.2 million lines bounded by the FIFO.
// printf_limits.ptx is nvcc 13 -ptx -arch=compute_75 of this file.
#include <cstdio>
__global__ void k(int mode, const char *s) {
  if (mode == 0) printf("%.600f\n", 1.0);
  if (mode == 1) printf("%.1000000000f\n", 1.0);
  if (mode == 2) printf("[%s]\n", s);
  if (mode == 3) for (int i = 0; i < 100000; ++i) printf("line %d of a long run of output\n", i);
  if (mode == 4) printf("%*d|\n", 1000, 5);
}
