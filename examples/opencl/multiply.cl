// The OpenCL Best Practices Guide's C = AB (section 3.2.2.2) in OpenCL C: A of M x 16, B of 16 x N,
// C of M x N, one 16 x 16 work-group per tile of C, in the guide's three steps:
//
//   simpleMultiply      every work-item reads a row of A and a column of B from global memory: each
//                       work-group loads every element of its tiles 16 times
//   coalescedMultiply   the A tile goes through __local memory once (B is still re-read per row)
//   sharedABMultiply    both tiles are loaded once per work-group into __local memory

#define TILE_DIM 16

__kernel void simpleMultiply(__global const float *a, __global const float *b, __global float *c, int N)
{
    int row = get_global_id(1);
    int col = get_global_id(0);
    float sum = 0.0f;
    for (int i = 0; i < TILE_DIM; i++)
        sum += a[row * TILE_DIM + i] * b[i * N + col];
    c[row * N + col] = sum;
}

__kernel void coalescedMultiply(__global const float *a, __global const float *b, __global float *c, int N)
{
    __local float aTile[TILE_DIM][TILE_DIM];
    int tx = get_local_id(0), ty = get_local_id(1);
    int row = get_global_id(1);
    int col = get_global_id(0);
    aTile[ty][tx] = a[row * TILE_DIM + tx];
    // A warp of 32 work-items spans two tile rows: the barrier makes the row the other half-warp wrote
    // visible on every GPU (the guide's half-warp argument holds on compute capability 1.x only).
    barrier(CLK_LOCAL_MEM_FENCE);
    float sum = 0.0f;
    for (int i = 0; i < TILE_DIM; i++)
        sum += aTile[ty][i] * b[i * N + col];
    c[row * N + col] = sum;
}

__kernel void sharedABMultiply(__global const float *a, __global const float *b, __global float *c, int N)
{
    __local float aTile[TILE_DIM][TILE_DIM];
    __local float bTile[TILE_DIM][TILE_DIM];
    int tx = get_local_id(0), ty = get_local_id(1);
    int row = get_global_id(1);
    int col = get_global_id(0);
    aTile[ty][tx] = a[row * TILE_DIM + tx];
    bTile[ty][tx] = b[ty * N + col];
    barrier(CLK_LOCAL_MEM_FENCE);
    float sum = 0.0f;
    for (int i = 0; i < TILE_DIM; i++)
        sum += aTile[ty][i] * bTile[i][tx];
    c[row * N + col] = sum;
}
