// The OpenCL Best Practices Guide's C = A A^T (section 3.2.2.3) in OpenCL C, A of M x 16, C of M x M,
// one 16 x 16 work-group per tile of C, in the guide's three steps (the CUDA twin is
// examples/guide/aat.cu). `ptxray analyze examples/opencl/aat.json --arch k20x` shows what each fixes:
//
//   simpleMultiplyAAT   reads a[col * 16 + i]: neighbouring work-items 64 bytes apart -> uncoalesced
//   sharedMultiplyAAT   stages both tiles in __local memory with coalesced reads, but stores the
//                       transposed tile column-wise into [16][16] -> local-memory bank conflicts
//   paddedMultiplyAAT   the transposed tile padded to [16][17] -> conflict-free on 16 banks

#define TILE_DIM 16

__kernel void simpleMultiplyAAT(__global const float *a, __global float *c, int M)
{
    int row = get_global_id(1);
    int col = get_global_id(0);
    float sum = 0.0f;
    for (int i = 0; i < TILE_DIM; i++)
        sum += a[row * TILE_DIM + i] * a[col * TILE_DIM + i];
    c[row * M + col] = sum;
}

__kernel void sharedMultiplyAAT(__global const float *a, __global float *c, int M)
{
    __local float aTile[TILE_DIM][TILE_DIM];
    __local float transposedTile[TILE_DIM][TILE_DIM];
    int tx = get_local_id(0), ty = get_local_id(1);
    int row = get_global_id(1);
    int col = get_global_id(0);
    aTile[ty][tx] = a[row * TILE_DIM + tx];
    transposedTile[tx][ty] = a[(get_group_id(0) * get_local_size(0) + ty) * TILE_DIM + tx];
    barrier(CLK_LOCAL_MEM_FENCE);
    float sum = 0.0f;
    for (int i = 0; i < TILE_DIM; i++)
        sum += aTile[ty][i] * transposedTile[i][tx];
    c[row * M + col] = sum;
}

__kernel void paddedMultiplyAAT(__global const float *a, __global float *c, int M)
{
    __local float aTile[TILE_DIM][TILE_DIM];
    __local float transposedTile[TILE_DIM][TILE_DIM + 1];
    int tx = get_local_id(0), ty = get_local_id(1);
    int row = get_global_id(1);
    int col = get_global_id(0);
    aTile[ty][tx] = a[row * TILE_DIM + tx];
    transposedTile[tx][ty] = a[(get_group_id(0) * get_local_size(0) + ty) * TILE_DIM + tx];
    barrier(CLK_LOCAL_MEM_FENCE);
    float sum = 0.0f;
    for (int i = 0; i < TILE_DIM; i++)
        sum += aTile[ty][i] * transposedTile[i][tx];
    c[row * M + col] = sum;
}
