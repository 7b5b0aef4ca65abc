// ptxray test corpus: texture and surface objects (bindless, .u64 handles).
// tex1Dfetch, tex1D / tex2D / tex3D / tex2DLayered / texCubemap / tex2DLod /
// tex2DGrad / tex2Dgather, surf1Dread / surf2Dread / surf2Dwrite / surf3Dwrite,
// txq / suq via inline asm. (Texture references, .texref, are gone from CUDA 12+;
// see tests/corpus/clang for that form.)

__global__ void tex_fetches(cudaTextureObject_t lin, cudaTextureObject_t t1, cudaTextureObject_t t2,
                            cudaTextureObject_t t3, cudaTextureObject_t layered,
                            cudaTextureObject_t cube, float4 *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float u = (i + 0.5f) / n;
  float a = tex1Dfetch<float>(lin, i);
  int4 ai = tex1Dfetch<int4>(lin, i + 1);
  float b = tex1D<float>(t1, u);
  float4 c = tex2D<float4>(t2, u, 1.0f - u);
  float4 d = tex3D<float4>(t3, u, u, u);
  float e = tex2DLayered<float>(layered, u, u, i & 3);
  float4 f = texCubemap<float4>(cube, u, -u, 0.5f);
  float4 g = tex2DLod<float4>(t2, u, u, 1.5f);
  float4 h = tex2DGrad<float4>(t2, u, u, make_float2(0.1f, 0.0f), make_float2(0.0f, 0.1f));
  float4 q = tex2Dgather<float4>(t2, u, u, 1);
  uchar4 uc = tex2D<uchar4>(t2, u, u);
  out[i] = make_float4(a + b + ai.x + uc.x, c.y + d.z + e, f.w + g.x + h.y, q.x);
}

__global__ void surf_rw(cudaSurfaceObject_t s1, cudaSurfaceObject_t s2, cudaSurfaceObject_t s3,
                        int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  float4 v = surf2Dread<float4>(s2, x * (int)sizeof(float4), y);
  float v1 = surf1Dread<float>(s1, x * 4, cudaBoundaryModeClamp);
  v.x += v1;
  surf2Dwrite(v, s2, x * (int)sizeof(float4), y);
  surf2Dwrite(make_uchar4(1, 2, 3, 4), s2, x * 4, y, cudaBoundaryModeZero);
  surf3Dwrite(v.y, s3, x * 4, y, 0);
  surf1Dwrite(v.z, s1, x * 4, cudaBoundaryModeTrap);
}

__global__ void tex_queries(cudaTextureObject_t t, cudaSurfaceObject_t s, int *out) {
  int w, hgt, fmt, sw;
  asm("txq.width.b32 %0, [%1];" : "=r"(w) : "l"(t));
  asm("txq.height.b32 %0, [%1];" : "=r"(hgt) : "l"(t));
  asm("txq.channel_data_type.b32 %0, [%1];" : "=r"(fmt) : "l"(t));
  asm("suq.width.b32 %0, [%1];" : "=r"(sw) : "l"(s));
  out[threadIdx.x] = w + hgt + fmt + sw;
}

// Explicit tex instruction forms in inline PTX (unified mode, u64 handle).
__global__ void tex_inline(cudaTextureObject_t t, float4 *out) {
  float4 r;
  float x = threadIdx.x * 0.25f;
  asm("tex.2d.v4.f32.f32 {%0, %1, %2, %3}, [%4, {%5, %6}];"
      : "=f"(r.x), "=f"(r.y), "=f"(r.z), "=f"(r.w)
      : "l"(t), "f"(x), "f"(x));
  int4 ri;
  asm("tex.1d.v4.s32.s32 {%0, %1, %2, %3}, [%4, {%5}];"
      : "=r"(ri.x), "=r"(ri.y), "=r"(ri.z), "=r"(ri.w)
      : "l"(t), "r"((int)threadIdx.x));
  out[threadIdx.x] = make_float4(r.x + ri.x, r.y, r.z, r.w);
}
