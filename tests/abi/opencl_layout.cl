// OpenCL C types shared by a kernel and its host, for `ptxray abi layout` (tests/CMakeLists.txt): a .cl
// file is read as OpenCL C, whose built-in vectors are aligned to their size (PTX interoperability
// §1.2), and its kernels are skipped. The sizes and offsets (64-bit addresses) are clang's for nvptx64-nvidiacl.
#pragma OPENCL EXTENSION cl_khr_fp64 : enable

typedef struct {
  float a;
  float3 b; // 16 bytes aligned to 16: offset 16 (CUDA's float3: 12 bytes at offset 4)
  char c;   // offset 32; the struct is 48 bytes, aligned to 16
} Particle;

typedef struct {
  uchar tag;
  double3 position; // 32 bytes aligned to 32: offset 32
  int8 counts;      // 32 bytes aligned to 32: offset 64
  size_t n;         // offset 96
  half h;           // offset 104; 128 bytes in all, aligned to 32
} Cell;

__kernel void advance(__global Particle *p, __global Cell *cells, const float dt) {
  size_t i = get_global_id(0);
  p[i].b += dt * (float3)(1.0f, 0.5f, 0.25f);
  cells[i].n = i;
}
