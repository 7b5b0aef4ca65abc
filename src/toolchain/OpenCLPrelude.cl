// ptxray's definitions of the OpenCL C built-ins where NVIDIA's OpenCL differs from libclc's, linked
// before libclc (its own definitions of these are then not used):
//   - get_global_offset and get_global_id read the launch's global work offset, which ptxray's
//     runtime puts in %envreg3-5 (x, y, z) for clEnqueueNDRangeKernel's global_work_offset (libclc
//     has no offset on this target), and get_work_dim its work_dim, in %envreg6;
//   - the native_* functions are the GPU's approximate instructions (sin.approx, ex2.approx, ...), as
//     NVIDIA's OpenCL compiles them ([BPG] 5.1.4); libclc leaves most of them to instructions the
//     NVPTX back end cannot select without fast math.
// Compiled to LLVM bitcode by ptxray at run time and linked as a built-in library: internal, inlined.

#define OVL __attribute__((overloadable))

OVL size_t get_global_offset(uint dim) {
  uint v = 0;
  switch (dim) {
  case 0: __asm__("mov.u32 %0, %%envreg3;" : "=r"(v)); break;
  case 1: __asm__("mov.u32 %0, %%envreg4;" : "=r"(v)); break;
  case 2: __asm__("mov.u32 %0, %%envreg5;" : "=r"(v)); break;
  default: break;
  }
  return v;
}

// clEnqueueNDRangeKernel's work_dim, which ptxray's runtime puts in %envreg6 (libclc has none on
// this target: the call would stay unresolved).
OVL uint get_work_dim(void) {
  uint v;
  __asm__("mov.u32 %0, %%envreg6;" : "=r"(v));
  return v;
}

OVL size_t get_global_id(uint dim) {
  return get_group_id(dim) * get_local_size(dim) + get_local_id(dim) + get_global_offset(dim);
}

// One float function, and its vector forms component by component.
#define NATIVE1(name, expr)                                                                                \
  OVL float name(float x) { return expr; }                                                                 \
  OVL float2 name(float2 x) { return (float2)(name(x.s0), name(x.s1)); }                                   \
  OVL float3 name(float3 x) { return (float3)(name(x.s0), name(x.s1), name(x.s2)); }                       \
  OVL float4 name(float4 x) { return (float4)(name(x.s0), name(x.s1), name(x.s2), name(x.s3)); }           \
  OVL float8 name(float8 x) { return (float8)(name(x.s0123), name(x.s4567)); }                             \
  OVL float16 name(float16 x) { return (float16)(name(x.s01234567), name(x.s89abcdef)); }

#define NATIVE2(name, expr)                                                                                \
  OVL float name(float x, float y) { return expr; }                                                        \
  OVL float2 name(float2 x, float2 y) { return (float2)(name(x.s0, y.s0), name(x.s1, y.s1)); }             \
  OVL float3 name(float3 x, float3 y) {                                                                    \
    return (float3)(name(x.s0, y.s0), name(x.s1, y.s1), name(x.s2, y.s2));                                 \
  }                                                                                                        \
  OVL float4 name(float4 x, float4 y) {                                                                    \
    return (float4)(name(x.s0, y.s0), name(x.s1, y.s1), name(x.s2, y.s2), name(x.s3, y.s3));               \
  }                                                                                                        \
  OVL float8 name(float8 x, float8 y) { return (float8)(name(x.s0123, y.s0123), name(x.s4567, y.s4567)); } \
  OVL float16 name(float16 x, float16 y) {                                                                 \
    return (float16)(name(x.s01234567, y.s01234567), name(x.s89abcdef, y.s89abcdef));                      \
  }

#define LOG2_E 1.4426950408889634f
#define LN_2 0.6931471805599453f
#define LOG10_2 0.3010299956639812f
#define LOG2_10 3.3219280948873622f

NATIVE1(native_sin, __nvvm_sin_approx_f(x))
NATIVE1(native_cos, __nvvm_cos_approx_f(x))
NATIVE1(native_tan, __nvvm_div_approx_f(__nvvm_sin_approx_f(x), __nvvm_cos_approx_f(x)))
NATIVE1(native_exp2, __nvvm_ex2_approx_f(x))
NATIVE1(native_exp, __nvvm_ex2_approx_f(x * LOG2_E))
NATIVE1(native_exp10, __nvvm_ex2_approx_f(x * LOG2_10))
NATIVE1(native_log2, __nvvm_lg2_approx_f(x))
NATIVE1(native_log, __nvvm_lg2_approx_f(x) * LN_2)
NATIVE1(native_log10, __nvvm_lg2_approx_f(x) * LOG10_2)
NATIVE1(native_sqrt, __nvvm_sqrt_approx_f(x))
NATIVE1(native_rsqrt, __nvvm_rsqrt_approx_f(x))
NATIVE1(native_recip, __nvvm_div_approx_f(1.0f, x))
NATIVE2(native_divide, __nvvm_div_approx_f(x, y))
NATIVE2(native_powr, __nvvm_ex2_approx_f(y * __nvvm_lg2_approx_f(x)))

// ---------------------------------------------------------------------------------------------------
// Images, as NVIDIA's OpenCL compiles them: reads through the texture unit (tex, with the sampler as
// its own operand, PTX's independent mode), writes through surfaces (sust), sizes and formats from
// txq/suq. ptxray's platform passes a read-only image as a texture handle, a write-only one as a
// surface handle and a sampler as the handle of its CLK_* bits (vm::TextureTable::openclSamplerHandle,
// which a sampler_t constant gets here too). Writes convert the colour to the image's format (sust
// stores bytes), as the hardware's formatted stores do.

// A sampler_t constant in a kernel's source: clang asks for its handle by the sampler's bits.
ulong __translate_sampler_initializer(int bits) { return 0x7ec1000000000000UL | (ulong)(bits & 0x3f); }

// The sampler of the sampler-less reads (OpenCL 1.2: unnormalized integer coordinates, nearest).
#define PTXRAY_FETCH_SAMPLER 0x7ec1000000000010UL

#define PTXRAY_TEX(geom, dtype, ctype, rtype, outc, img, smp, coords...)                                  \
  rtype r;                                                                                                 \
  __asm__("tex." geom ".v4." dtype "." ctype " {%0, %1, %2, %3}, [%4, %5, " coords "];"                     \
          : "=" outc(r.x), "=" outc(r.y), "=" outc(r.z), "=" outc(r.w)                                    \
          : "l"(img), "l"(smp)

// 1D: [img, smp, {x}]
#define PTXRAY_READ1(fn, rtype, dtype, outc)                                                               \
  OVL rtype fn(read_only image1d_t img, sampler_t smp, float c) {                                          \
    PTXRAY_TEX("1d", dtype, "f32", rtype, outc, img, smp, "{%6}"), "f"(c));                               \
    return r;                                                                                              \
  }                                                                                                        \
  OVL rtype fn(read_only image1d_t img, sampler_t smp, int c) {                                            \
    PTXRAY_TEX("1d", dtype, "s32", rtype, outc, img, smp, "{%6}"), "r"(c));                               \
    return r;                                                                                              \
  }                                                                                                        \
  OVL rtype fn(read_only image1d_t img, int c) {                                                           \
    PTXRAY_TEX("1d", dtype, "s32", rtype, outc, img, PTXRAY_FETCH_SAMPLER, "{%6}"), "r"(c));              \
    return r;                                                                                              \
  }
// 2D: [img, smp, {x, y}]
#define PTXRAY_READ2(fn, rtype, dtype, outc)                                                               \
  OVL rtype fn(read_only image2d_t img, sampler_t smp, float2 c) {                                         \
    PTXRAY_TEX("2d", dtype, "f32", rtype, outc, img, smp, "{%6, %7}"), "f"(c.x), "f"(c.y));               \
    return r;                                                                                              \
  }                                                                                                        \
  OVL rtype fn(read_only image2d_t img, sampler_t smp, int2 c) {                                           \
    PTXRAY_TEX("2d", dtype, "s32", rtype, outc, img, smp, "{%6, %7}"), "r"(c.x), "r"(c.y));               \
    return r;                                                                                              \
  }                                                                                                        \
  OVL rtype fn(read_only image2d_t img, int2 c) {                                                          \
    PTXRAY_TEX("2d", dtype, "s32", rtype, outc, img, PTXRAY_FETCH_SAMPLER, "{%6, %7}"), "r"(c.x),         \
        "r"(c.y));                                                                                         \
    return r;                                                                                              \
  }
// 3D: [img, smp, {x, y, z, unused}]
#define PTXRAY_READ3(fn, rtype, dtype, outc)                                                               \
  OVL rtype fn(read_only image3d_t img, sampler_t smp, float4 c) {                                         \
    PTXRAY_TEX("3d", dtype, "f32", rtype, outc, img, smp, "{%6, %7, %8, %8}"), "f"(c.x), "f"(c.y),        \
        "f"(c.z));                                                                                         \
    return r;                                                                                              \
  }                                                                                                        \
  OVL rtype fn(read_only image3d_t img, sampler_t smp, int4 c) {                                           \
    PTXRAY_TEX("3d", dtype, "s32", rtype, outc, img, smp, "{%6, %7, %8, %8}"), "r"(c.x), "r"(c.y),        \
        "r"(c.z));                                                                                         \
    return r;                                                                                              \
  }                                                                                                        \
  OVL rtype fn(read_only image3d_t img, int4 c) {                                                          \
    PTXRAY_TEX("3d", dtype, "s32", rtype, outc, img, PTXRAY_FETCH_SAMPLER, "{%6, %7, %8, %8}"), "r"(c.x), \
        "r"(c.y), "r"(c.z));                                                                               \
    return r;                                                                                              \
  }

#define PTXRAY_READ(fn, rtype, dtype, outc)                                                                \
  PTXRAY_READ1(fn, rtype, dtype, outc) PTXRAY_READ2(fn, rtype, dtype, outc) PTXRAY_READ3(fn, rtype, dtype, outc)
PTXRAY_READ(read_imagef, float4, "f32", "f")
PTXRAY_READ(read_imagei, int4, "s32", "r")
PTXRAY_READ(read_imageui, uint4, "u32", "r")

// Sizes and formats: txq of a read-only image, suq of a write-only one.
#define PTXRAY_QUERY(fn, query, type, access)                                                              \
  OVL int fn(access type img) {                                                                            \
    int v;                                                                                                 \
    __asm__(query : "=r"(v) : "l"(img));                                                                   \
    return v;                                                                                              \
  }
#define PTXRAY_QUERIES(type)                                                                               \
  PTXRAY_QUERY(get_image_width, "txq.width.b32 %0, [%1];", type, read_only)                                \
  PTXRAY_QUERY(get_image_width, "suq.width.b32 %0, [%1];", type, write_only)                               \
  PTXRAY_QUERY(get_image_channel_data_type, "txq.channel_data_type.b32 %0, [%1];", type, read_only)        \
  PTXRAY_QUERY(get_image_channel_data_type, "suq.channel_data_type.b32 %0, [%1];", type, write_only)       \
  PTXRAY_QUERY(get_image_channel_order, "txq.channel_order.b32 %0, [%1];", type, read_only)                \
  PTXRAY_QUERY(get_image_channel_order, "suq.channel_order.b32 %0, [%1];", type, write_only)
PTXRAY_QUERIES(image1d_t)
PTXRAY_QUERIES(image2d_t)
PTXRAY_QUERY(get_image_width, "txq.width.b32 %0, [%1];", image3d_t, read_only)
PTXRAY_QUERY(get_image_channel_data_type, "txq.channel_data_type.b32 %0, [%1];", image3d_t, read_only)
PTXRAY_QUERY(get_image_channel_order, "txq.channel_order.b32 %0, [%1];", image3d_t, read_only)
PTXRAY_QUERY(get_image_height, "txq.height.b32 %0, [%1];", image2d_t, read_only)
PTXRAY_QUERY(get_image_height, "suq.height.b32 %0, [%1];", image2d_t, write_only)
PTXRAY_QUERY(get_image_height, "txq.height.b32 %0, [%1];", image3d_t, read_only)
PTXRAY_QUERY(get_image_depth, "txq.depth.b32 %0, [%1];", image3d_t, read_only)
OVL int2 get_image_dim(read_only image2d_t img) { return (int2)(get_image_width(img), get_image_height(img)); }
OVL int2 get_image_dim(write_only image2d_t img) { return (int2)(get_image_width(img), get_image_height(img)); }
OVL int4 get_image_dim(read_only image3d_t img) {
  return (int4)(get_image_width(img), get_image_height(img), get_image_depth(img), 0);
}

// Writes: the colour in the image's channel format, stored as bytes at byte column x * element size.
#define PTXRAY_STORE(geom, coords, img, channels, bytes, w, x, y)                                          \
  switch (bytes * 8 + channels) {                                                                          \
  case 8 + 1:                                                                                              \
    __asm__("sust.b." geom ".b8 [%[i], " coords "], {%[a]};" ::[i] "l"(img), [x] "r"(x), [y] "r"(y),        \
            [a] "h"((ushort)w.x));                                                                         \
    break;                                                                                                 \
  case 8 + 2:                                                                                              \
    __asm__("sust.b." geom ".v2.b8 [%[i], " coords "], {%[a], %[b]};" ::[i] "l"(img), [x] "r"(x), [y] "r"(y), \
            [a] "h"((ushort)w.x), [b] "h"((ushort)w.y));                                                   \
    break;                                                                                                 \
  case 8 + 4:                                                                                              \
    __asm__("sust.b." geom ".v4.b8 [%[i], " coords "], {%[a], %[b], %[c], %[d]};" ::[i] "l"(img), [x] "r"(x), \
            [y] "r"(y), [a] "h"((ushort)w.x), [b] "h"((ushort)w.y), [c] "h"((ushort)w.z),                  \
            [d] "h"((ushort)w.w));                                                                         \
    break;                                                                                                 \
  case 16 + 1:                                                                                             \
    __asm__("sust.b." geom ".b16 [%[i], " coords "], {%[a]};" ::[i] "l"(img), [x] "r"(x), [y] "r"(y),       \
            [a] "h"((ushort)w.x));                                                                         \
    break;                                                                                                 \
  case 16 + 2:                                                                                             \
    __asm__("sust.b." geom ".v2.b16 [%[i], " coords "], {%[a], %[b]};" ::[i] "l"(img), [x] "r"(x),          \
            [y] "r"(y), [a] "h"((ushort)w.x), [b] "h"((ushort)w.y));                                       \
    break;                                                                                                 \
  case 16 + 4:                                                                                             \
    __asm__("sust.b." geom ".v4.b16 [%[i], " coords "], {%[a], %[b], %[c], %[d]};" ::[i] "l"(img),          \
            [x] "r"(x), [y] "r"(y), [a] "h"((ushort)w.x), [b] "h"((ushort)w.y), [c] "h"((ushort)w.z),       \
            [d] "h"((ushort)w.w));                                                                         \
    break;                                                                                                 \
  case 32 + 1:                                                                                             \
    __asm__("sust.b." geom ".b32 [%[i], " coords "], {%[a]};" ::[i] "l"(img), [x] "r"(x), [y] "r"(y),       \
            [a] "r"(w.x));                                                                                 \
    break;                                                                                                 \
  case 32 + 2:                                                                                             \
    __asm__("sust.b." geom ".v2.b32 [%[i], " coords "], {%[a], %[b]};" ::[i] "l"(img), [x] "r"(x),          \
            [y] "r"(y), [a] "r"(w.x), [b] "r"(w.y));                                                       \
    break;                                                                                                 \
  default:                                                                                                 \
    __asm__("sust.b." geom ".v4.b32 [%[i], " coords "], {%[a], %[b], %[c], %[d]};" ::[i] "l"(img),          \
            [x] "r"(x), [y] "r"(y), [a] "r"(w.x), [b] "r"(w.y), [c] "r"(w.z), [d] "r"(w.w));               \
    break;                                                                                                 \
  }

// The same with a layer operand (2D arrays).
#define PTXRAY_STORE3(geom, coords, img, channels, bytes, w, x, y, lay)                                          \
  switch (bytes * 8 + channels) {                                                                          \
  case 8 + 1:                                                                                              \
    __asm__("sust.b." geom ".b8 [%[i], " coords "], {%[a]};" ::[i] "l"(img), [x] "r"(x), [y] "r"(y), [l] "r"(lay),        \
            [a] "h"((ushort)w.x));                                                                         \
    break;                                                                                                 \
  case 8 + 2:                                                                                              \
    __asm__("sust.b." geom ".v2.b8 [%[i], " coords "], {%[a], %[b]};" ::[i] "l"(img), [x] "r"(x), [y] "r"(y), [l] "r"(lay), \
            [a] "h"((ushort)w.x), [b] "h"((ushort)w.y));                                                   \
    break;                                                                                                 \
  case 8 + 4:                                                                                              \
    __asm__("sust.b." geom ".v4.b8 [%[i], " coords "], {%[a], %[b], %[c], %[d]};" ::[i] "l"(img), [x] "r"(x), \
            [y] "r"(y), [l] "r"(lay), [a] "h"((ushort)w.x), [b] "h"((ushort)w.y), [c] "h"((ushort)w.z),                  \
            [d] "h"((ushort)w.w));                                                                         \
    break;                                                                                                 \
  case 16 + 1:                                                                                             \
    __asm__("sust.b." geom ".b16 [%[i], " coords "], {%[a]};" ::[i] "l"(img), [x] "r"(x), [y] "r"(y), [l] "r"(lay),       \
            [a] "h"((ushort)w.x));                                                                         \
    break;                                                                                                 \
  case 16 + 2:                                                                                             \
    __asm__("sust.b." geom ".v2.b16 [%[i], " coords "], {%[a], %[b]};" ::[i] "l"(img), [x] "r"(x),          \
            [y] "r"(y), [l] "r"(lay), [a] "h"((ushort)w.x), [b] "h"((ushort)w.y));                                       \
    break;                                                                                                 \
  case 16 + 4:                                                                                             \
    __asm__("sust.b." geom ".v4.b16 [%[i], " coords "], {%[a], %[b], %[c], %[d]};" ::[i] "l"(img),          \
            [x] "r"(x), [y] "r"(y), [l] "r"(lay), [a] "h"((ushort)w.x), [b] "h"((ushort)w.y), [c] "h"((ushort)w.z),       \
            [d] "h"((ushort)w.w));                                                                         \
    break;                                                                                                 \
  case 32 + 1:                                                                                             \
    __asm__("sust.b." geom ".b32 [%[i], " coords "], {%[a]};" ::[i] "l"(img), [x] "r"(x), [y] "r"(y), [l] "r"(lay),       \
            [a] "r"(w.x));                                                                                 \
    break;                                                                                                 \
  case 32 + 2:                                                                                             \
    __asm__("sust.b." geom ".v2.b32 [%[i], " coords "], {%[a], %[b]};" ::[i] "l"(img), [x] "r"(x),          \
            [y] "r"(y), [l] "r"(lay), [a] "r"(w.x), [b] "r"(w.y));                                                       \
    break;                                                                                                 \
  default:                                                                                                 \
    __asm__("sust.b." geom ".v4.b32 [%[i], " coords "], {%[a], %[b], %[c], %[d]};" ::[i] "l"(img),          \
            [x] "r"(x), [y] "r"(y), [l] "r"(lay), [a] "r"(w.x), [b] "r"(w.y), [c] "r"(w.z), [d] "r"(w.w));               \
    break;                                                                                                 \
  }

// The image's channels and bytes per channel, from its format.
#define PTXRAY_FORMAT(img)                                                                                 \
  int type = get_image_channel_data_type(img), order = get_image_channel_order(img);                       \
  uint channels = order == CLK_R ? 1 : order == CLK_RG ? 2 : 4;                                            \
  uint bytes = (type == CLK_FLOAT || type == CLK_SIGNED_INT32 || type == CLK_UNSIGNED_INT32) ? 4           \
               : (type == CLK_SNORM_INT8 || type == CLK_UNORM_INT8 || type == CLK_SIGNED_INT8 ||           \
                  type == CLK_UNSIGNED_INT8)                                                               \
                   ? 1                                                                                     \
                   : 2;

static inline uint ptxray_half(float f) {
  ushort h;
  __asm__("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(f));
  return h;
}

static inline uint4 ptxray_pack_float(float4 v, int type) {
  switch (type) {
  case CLK_UNORM_INT8: return convert_uint4(convert_uchar4_sat_rte(v * 255.0f));
  case CLK_UNORM_INT16: return convert_uint4(convert_ushort4_sat_rte(v * 65535.0f));
  case CLK_SNORM_INT8: return as_uint4(convert_int4(convert_char4_sat_rte(v * 127.0f)));
  case CLK_SNORM_INT16: return as_uint4(convert_int4(convert_short4_sat_rte(v * 32767.0f)));
  case CLK_HALF_FLOAT: return (uint4)(ptxray_half(v.x), ptxray_half(v.y), ptxray_half(v.z), ptxray_half(v.w));
  default: return as_uint4(v);
  }
}

static inline uint4 ptxray_pack_int(int4 v, int type) {
  switch (type) {
  case CLK_SIGNED_INT8: return as_uint4(convert_int4(convert_char4_sat(v)));
  case CLK_SIGNED_INT16: return as_uint4(convert_int4(convert_short4_sat(v)));
  default: return as_uint4(v);
  }
}

static inline uint4 ptxray_pack_uint(uint4 v, int type) {
  switch (type) {
  case CLK_UNSIGNED_INT8: return convert_uint4(convert_uchar4_sat(v));
  case CLK_UNSIGNED_INT16: return convert_uint4(convert_ushort4_sat(v));
  default: return v;
  }
}

#define PTXRAY_WRITE(fn, vtype, pack)                                                                      \
  OVL void fn(write_only image1d_t img, int c, vtype v) {                                                  \
    PTXRAY_FORMAT(img)                                                                                     \
    uint4 w = pack(v, type);                                                                               \
    if (order == CLK_BGRA)                                                                                 \
      w = w.zyxw;                                                                                          \
    int x = c * (int)(bytes * channels), y = 0;                                                            \
    PTXRAY_STORE("1d", "{%[x]}", img, channels, bytes, w, x, y)                                           \
  }                                                                                                        \
  OVL void fn(write_only image2d_t img, int2 c, vtype v) {                                                 \
    PTXRAY_FORMAT(img)                                                                                     \
    uint4 w = pack(v, type);                                                                               \
    if (order == CLK_BGRA)                                                                                 \
      w = w.zyxw;                                                                                          \
    int x = c.x * (int)(bytes * channels), y = c.y;                                                        \
    PTXRAY_STORE("2d", "{%[x], %[y]}", img, channels, bytes, w, x, y)                                     \
  }
PTXRAY_WRITE(write_imagef, float4, ptxray_pack_float)
PTXRAY_WRITE(write_imagei, int4, ptxray_pack_int)
PTXRAY_WRITE(write_imageui, uint4, ptxray_pack_uint)

// Image arrays: the layer is the coordinate's last component, rounded to the nearest layer and
// clamped to the array (OpenCL 1.2, 8.4), first in PTX's coordinate vector.
PTXRAY_QUERIES(image1d_array_t)
PTXRAY_QUERIES(image2d_array_t)
PTXRAY_QUERIES(image1d_buffer_t)
PTXRAY_QUERY(get_image_height, "txq.height.b32 %0, [%1];", image2d_array_t, read_only)
PTXRAY_QUERY(get_image_height, "suq.height.b32 %0, [%1];", image2d_array_t, write_only)
PTXRAY_QUERY(get_image_array_size_int, "txq.array_size.b32 %0, [%1];", image1d_array_t, read_only)
PTXRAY_QUERY(get_image_array_size_int, "suq.array_size.b32 %0, [%1];", image1d_array_t, write_only)
PTXRAY_QUERY(get_image_array_size_int, "txq.array_size.b32 %0, [%1];", image2d_array_t, read_only)
PTXRAY_QUERY(get_image_array_size_int, "suq.array_size.b32 %0, [%1];", image2d_array_t, write_only)
OVL size_t get_image_array_size(read_only image1d_array_t img) { return get_image_array_size_int(img); }
OVL size_t get_image_array_size(write_only image1d_array_t img) { return get_image_array_size_int(img); }
OVL size_t get_image_array_size(read_only image2d_array_t img) { return get_image_array_size_int(img); }
OVL size_t get_image_array_size(write_only image2d_array_t img) { return get_image_array_size_int(img); }
OVL int2 get_image_dim(read_only image2d_array_t img) { return (int2)(get_image_width(img), get_image_height(img)); }
OVL int2 get_image_dim(write_only image2d_array_t img) { return (int2)(get_image_width(img), get_image_height(img)); }
#define PTXRAY_READA(fn, rtype, dtype, outc)                                                               \
  OVL rtype fn(read_only image1d_array_t img, sampler_t smp, float2 c) {                                   \
    int layer = clamp(convert_int_rte(c.y), 0, get_image_array_size_int(img) - 1);                           \
    PTXRAY_TEX("a1d", dtype, "f32", rtype, outc, img, smp, "{%6, %7}"), "r"(layer), "f"(c.x));            \
    return r;                                                                                              \
  }                                                                                                        \
  OVL rtype fn(read_only image1d_array_t img, sampler_t smp, int2 c) {                                     \
    int layer = clamp(c.y, 0, get_image_array_size_int(img) - 1);                                            \
    PTXRAY_TEX("a1d", dtype, "s32", rtype, outc, img, smp, "{%6, %7}"), "r"(layer), "r"(c.x));            \
    return r;                                                                                              \
  }                                                                                                        \
  OVL rtype fn(read_only image1d_array_t img, int2 c) {                                                   \
    PTXRAY_TEX("a1d", dtype, "s32", rtype, outc, img, PTXRAY_FETCH_SAMPLER, "{%6, %7}"), "r"(c.y),        \
        "r"(c.x));                                                                                         \
    return r;                                                                                              \
  }                                                                                                        \
  OVL rtype fn(read_only image2d_array_t img, sampler_t smp, float4 c) {                                   \
    int layer = clamp(convert_int_rte(c.z), 0, get_image_array_size_int(img) - 1);                           \
    PTXRAY_TEX("a2d", dtype, "f32", rtype, outc, img, smp, "{%6, %7, %8, %8}"), "r"(layer), "f"(c.x),     \
        "f"(c.y));                                                                                         \
    return r;                                                                                              \
  }                                                                                                        \
  OVL rtype fn(read_only image2d_array_t img, sampler_t smp, int4 c) {                                     \
    int layer = clamp(c.z, 0, get_image_array_size_int(img) - 1);                                            \
    PTXRAY_TEX("a2d", dtype, "s32", rtype, outc, img, smp, "{%6, %7, %8, %8}"), "r"(layer), "r"(c.x),     \
        "r"(c.y));                                                                                         \
    return r;                                                                                              \
  }                                                                                                        \
  OVL rtype fn(read_only image2d_array_t img, int4 c) {                                                    \
    PTXRAY_TEX("a2d", dtype, "s32", rtype, outc, img, PTXRAY_FETCH_SAMPLER, "{%6, %7, %8, %8}"), "r"(c.z), \
        "r"(c.x), "r"(c.y));                                                                               \
    return r;                                                                                              \
  }                                                                                                        \
  OVL rtype fn(read_only image1d_buffer_t img, int c) {                                                    \
    PTXRAY_TEX("1d", dtype, "s32", rtype, outc, img, PTXRAY_FETCH_SAMPLER, "{%6}"), "r"(c));              \
    return r;                                                                                              \
  }
PTXRAY_READA(read_imagef, float4, "f32", "f")
PTXRAY_READA(read_imagei, int4, "s32", "r")
PTXRAY_READA(read_imageui, uint4, "u32", "r")

#define PTXRAY_WRITEA(fn, vtype, pack)                                                                     \
  OVL void fn(write_only image1d_array_t img, int2 c, vtype v) {                                           \
    PTXRAY_FORMAT(img)                                                                                     \
    uint4 w = pack(v, type);                                                                               \
    if (order == CLK_BGRA)                                                                                 \
      w = w.zyxw;                                                                                          \
    int x = c.x * (int)(bytes * channels), y = c.y;                                                        \
    PTXRAY_STORE("a1d", "{%[y], %[x]}", img, channels, bytes, w, x, y)                                    \
  }                                                                                                        \
  OVL void fn(write_only image2d_array_t img, int4 c, vtype v) {                                           \
    PTXRAY_FORMAT(img)                                                                                     \
    uint4 w = pack(v, type);                                                                               \
    if (order == CLK_BGRA)                                                                                 \
      w = w.zyxw;                                                                                          \
    int x = c.x * (int)(bytes * channels), y = c.y, layer = c.z;                                           \
    PTXRAY_STORE3("a2d", "{%[l], %[x], %[y], %[y]}", img, channels, bytes, w, x, y, layer)                \
  }                                                                                                        \
  OVL void fn(write_only image1d_buffer_t img, int c, vtype v) {                                           \
    PTXRAY_FORMAT(img)                                                                                     \
    uint4 w = pack(v, type);                                                                               \
    if (order == CLK_BGRA)                                                                                 \
      w = w.zyxw;                                                                                          \
    int x = c * (int)(bytes * channels), y = 0;                                                            \
    PTXRAY_STORE("1d", "{%[x]}", img, channels, bytes, w, x, y)                                           \
  }
PTXRAY_WRITEA(write_imagef, float4, ptxray_pack_float)
PTXRAY_WRITEA(write_imagei, int4, ptxray_pack_int)
PTXRAY_WRITEA(write_imageui, uint4, ptxray_pack_uint)
