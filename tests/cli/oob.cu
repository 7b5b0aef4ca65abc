// Writes one element per thread into `out`; launched with a buffer smaller than the block, it writes
// out of bounds (tests/cli/awkward_names_test.sh). Keep the store on line 6.
__global__ void write_all(int *out) {
  int i = threadIdx.x;
  // 16 elements fit in the 64-byte buffer; threads 16..31 write past it.
  out[i * 4] = i;
}
