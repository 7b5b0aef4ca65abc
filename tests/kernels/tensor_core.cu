// ptxray test corpus: warp-level matrix operations.
// nvcuda::wmma (wmma.load / wmma.mma / wmma.store for f16, s8, and on sm_80+
// bf16, tf32 and f64), and mma.sync.aligned written in inline PTX.
#include <mma.h>

using namespace nvcuda;

__global__ void wmma_f16(const half *a, const half *b, const float *c, float *d, int ld) {
  wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> fb;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
  wmma::load_matrix_sync(acc, c, ld, wmma::mem_row_major);
  for (int k = 0; k < ld; k += 16) {
    wmma::load_matrix_sync(fa, a + k, ld);
    wmma::load_matrix_sync(fb, b + k, ld);
    wmma::mma_sync(acc, fa, fb, acc);
  }
  for (int e = 0; e < acc.num_elements; ++e) acc.x[e] *= 0.5f;
  wmma::store_matrix_sync(d, acc, ld, wmma::mem_col_major);
}

__global__ void wmma_shapes(const half *a, const half *b, half *d, const signed char *ia,
                            const signed char *ib, int *id) {
  wmma::fragment<wmma::matrix_a, 32, 8, 16, half, wmma::col_major> fa;
  wmma::fragment<wmma::matrix_b, 32, 8, 16, half, wmma::row_major> fb;
  wmma::fragment<wmma::accumulator, 32, 8, 16, half> acc;
  wmma::fill_fragment(acc, __float2half(0.0f));
  wmma::load_matrix_sync(fa, a, 32);
  wmma::load_matrix_sync(fb, b, 8);
  wmma::mma_sync(acc, fa, fb, acc);
  wmma::store_matrix_sync(d, acc, 8, wmma::mem_row_major);

  wmma::fragment<wmma::matrix_a, 8, 32, 16, signed char, wmma::row_major> qa;
  wmma::fragment<wmma::matrix_b, 8, 32, 16, signed char, wmma::col_major> qb;
  wmma::fragment<wmma::accumulator, 8, 32, 16, int> qacc;
  wmma::fill_fragment(qacc, 0);
  wmma::load_matrix_sync(qa, ia, 16);
  wmma::load_matrix_sync(qb, ib, 16);
  wmma::mma_sync(qacc, qa, qb, qacc, true);  // saturating
  wmma::store_matrix_sync(id, qacc, 32, wmma::mem_row_major);
}

#if __CUDA_ARCH__ >= 800
__global__ void wmma_sm80(const __nv_bfloat16 *a, const __nv_bfloat16 *b, const float *ta,
                          const float *tb, const double *da, const double *db, float *d,
                          double *dd) {
  wmma::fragment<wmma::matrix_a, 16, 16, 16, __nv_bfloat16, wmma::row_major> ba;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, __nv_bfloat16, wmma::row_major> bb;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> bacc;
  wmma::fill_fragment(bacc, 1.0f);
  wmma::load_matrix_sync(ba, a, 16);
  wmma::load_matrix_sync(bb, b, 16);
  wmma::mma_sync(bacc, ba, bb, bacc);

  wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32, wmma::row_major> ta_f;
  wmma::fragment<wmma::matrix_b, 16, 16, 8, wmma::precision::tf32, wmma::col_major> tb_f;
  wmma::load_matrix_sync(ta_f, ta, 8);
  wmma::load_matrix_sync(tb_f, tb, 8);
  for (int e = 0; e < ta_f.num_elements; ++e) ta_f.x[e] = wmma::__float_to_tf32(ta_f.x[e]);
  wmma::fragment<wmma::accumulator, 16, 16, 8, float> tacc;
  wmma::fill_fragment(tacc, 0.0f);
  wmma::mma_sync(tacc, ta_f, tb_f, tacc);
  wmma::store_matrix_sync(d, bacc, 16, wmma::mem_row_major);
  wmma::store_matrix_sync(d + 256, tacc, 16, wmma::mem_col_major);

  wmma::fragment<wmma::matrix_a, 8, 8, 4, double, wmma::row_major> fa64;
  wmma::fragment<wmma::matrix_b, 8, 8, 4, double, wmma::col_major> fb64;
  wmma::fragment<wmma::accumulator, 8, 8, 4, double> acc64;
  wmma::fill_fragment(acc64, 0.0);
  wmma::load_matrix_sync(fa64, da, 4);
  wmma::load_matrix_sync(fb64, db, 4);
  wmma::mma_sync(acc64, fa64, fb64, acc64);
  wmma::store_matrix_sync(dd, acc64, 8, wmma::mem_row_major);
}
#endif

// mma.sync in inline PTX, one m16n8k8 f16 tile per warp (sm_75 shape), and on
// sm_80+ m16n8k16 bf16 and m16n8k32 s8.
__global__ void raw_mma(const unsigned *a, const unsigned *b, float *c) {
  int l = threadIdx.x & 31;
  unsigned a0 = a[l * 2], a1 = a[l * 2 + 1], b0 = b[l];
  float d0, d1, d2, d3;
  asm volatile(
      "mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5}, {%6}, "
      "{%7,%8,%9,%10};"
      : "=f"(d0), "=f"(d1), "=f"(d2), "=f"(d3)
      : "r"(a0), "r"(a1), "r"(b0), "f"(0.0f), "f"(0.0f), "f"(0.0f), "f"(0.0f));
#if __CUDA_ARCH__ >= 800
  unsigned a2 = a[l + 64], a3 = a[l + 96], b1 = b[l + 32];
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
      "{%8,%9}, {%0,%1,%2,%3};"
      : "+f"(d0), "+f"(d1), "+f"(d2), "+f"(d3)
      : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
  int i0, i1, i2, i3;
  asm volatile(
      "mma.sync.aligned.m16n8k32.row.col.satfinite.s32.s8.s8.s32 {%0,%1,%2,%3}, "
      "{%4,%5,%6,%7}, {%8,%9}, {%10,%10,%10,%10};"
      : "=r"(i0), "=r"(i1), "=r"(i2), "=r"(i3)
      : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1), "r"(0));
  d0 += (float)(i0 + i1 + i2 + i3);
#endif
  c[l * 4 + 0] = d0;
  c[l * 4 + 1] = d1;
  c[l * 4 + 2] = d2;
  c[l * 4 + 3] = d3;
}
