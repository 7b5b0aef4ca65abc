// The OpenCL C twin of ../matmul_aat.cu (C = A A^T, OpenCL Best Practices Guide 3.2.2.3), kernel for
// kernel, so that the advisor's cases run on both (AdvisorCasesTest's OpenCL instantiation).

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

__kernel void coalescedMultiplyAAT(__global const float *a, __global float *c, int M)
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
