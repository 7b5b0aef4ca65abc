// OpenCL C's printf (OpenCL 1.2, 6.12.13): clang passes it as a variadic call, the format and string
// literals in __constant memory, floats promoted to double.
__kernel void hello(int x, __global const float *f) {
  int i = get_global_id(0);
  printf("work-item %d: x = %d, f = %.2f, %s %c|%-3d|%5.1f\n", i, x, f[i], "text", 'z', i, 2.25f);
}
