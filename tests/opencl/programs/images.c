/* images.c: 2D images and samplers of OpenCL 1.2 (spec sections 5.3 and 5.5, and the image functions of
 * OpenCL C, 6.12.14): supported formats, clCreateImage (and the 1.1 clCreateImage2D), reads, writes,
 * copies between images and buffers, fills, maps, clGetImageInfo, samplers and clGetSamplerInfo, and
 * kernels that read through samplers (nearest and linear filtering, clamp-to-edge and clamp addressing,
 * normalized and unnormalized coordinates) and write with write_imagef/write_imageui.
 *
 * Images are optional in OpenCL: a device without CL_DEVICE_IMAGE_SUPPORT fails this program (it is a
 * separate test so that it can be enabled on its own).
 *
 * Prints computed results, spec-fixed values and result codes, and "ok"/"FAIL" lines for what depends
 * on the device, so that the output is the same under every conforming implementation. Linear
 * filtering is approximate (NVIDIA GPUs weight texels in 1.8 fixed point): the coordinates put every
 * sample at fractions of 1/4 and the texels are multiples of 16, so that the exact results are whole
 * numbers, printed with two decimals. Exit status 0 when every check passes, 1 otherwise. */
#define CL_USE_DEPRECATED_OPENCL_1_1_APIS /* clCreateImage2D */
#include "cltest.h"
#include <math.h>
#include <stdint.h>
#include <string.h>

static const char *source =
    "__constant sampler_t nearest_edge = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP_TO_EDGE |\n"
    "                                    CLK_FILTER_NEAREST;\n"
    "__constant sampler_t nearest_border = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP | CLK_FILTER_NEAREST;\n"
    "/* Samples every texel centre of a frame two texels wider than the image on each side. */\n"
    "__kernel void sample_nearest(__read_only image2d_t img, __global float4 *edge, __global float4 *border) {\n"
    "  int x = get_global_id(0), y = get_global_id(1);\n"
    "  float2 c = (float2)((float)(x - 2) + 0.5f, (float)(y - 2) + 0.5f);\n"
    "  size_t i = y * get_global_size(0) + x;\n"
    "  edge[i] = read_imagef(img, nearest_edge, c);\n"
    "  border[i] = read_imagef(img, nearest_border, c);\n"
    "}\n"
    "/* Linear filtering at normalized coordinates a quarter texel off the centres (sampler argument). */\n"
    "__kernel void sample_linear(__read_only image2d_t img, sampler_t s, __global float4 *out) {\n"
    "  int x = get_global_id(0), y = get_global_id(1);\n"
    "  float2 c = (float2)(((float)x + 0.25f) / (float)get_image_width(img),\n"
    "                      ((float)y + 0.75f) / (float)get_image_height(img));\n"
    "  out[y * get_global_size(0) + x] = read_imagef(img, s, c);\n"
    "}\n"
    "__kernel void write_float(__write_only image2d_t img, __global const float4 *in) {\n"
    "  int x = get_global_id(0), y = get_global_id(1);\n"
    "  write_imagef(img, (int2)(x, y), in[y * get_image_width(img) + x]);\n"
    "}\n"
    "/* Sampler-less reads (OpenCL C 1.2) of an R/UNSIGNED_INT8 image, inverted into another. */\n"
    "__kernel void uint8_ops(__read_only image2d_t src, __write_only image2d_t dst, __global uint *out) {\n"
    "  int x = get_global_id(0), y = get_global_id(1);\n"
    "  uint4 p = read_imageui(src, (int2)(x, y));\n"
    "  out[y * get_image_width(src) + x] = p.x;\n"
    "  write_imageui(dst, (int2)(x, y), (uint4)(255 - p.x, 0, 0, 0));\n"
    "  if (x == 0 && y == 0) { out[128] = get_image_width(src); out[129] = get_image_height(src); }\n"
    "}\n"
    "/* RGBA/UNORM_INT8: reads scaled back to 0..255, writes of k/255. */\n"
    "__kernel void unorm_ops(__read_only image2d_t src, __write_only image2d_t dst, __global int4 *out) {\n"
    "  int x = get_global_id(0), y = get_global_id(1);\n"
    "  out[y * get_image_width(src) + x] = convert_int4_rte(read_imagef(src, (int2)(x, y)) * 255.0f);\n"
    "  write_imagef(dst, (int2)(x, y), (float4)(x, y, x + y, 255 - x) / 255.0f);\n"
    "}\n";

#define W 16
#define H 8

static cl_context ctx;
static cl_command_queue q;
static cl_device_id device;

/* The float image's texel (x, y), channel c: multiples of 16 (see the header). */
static float texel(int x, int y, int c) {
  return (float)(16 * ((3 * x + 5 * y + 7 * c) % 13));
}

static cl_mem make_image(cl_mem_flags flags, cl_channel_order order, cl_channel_type type, size_t w, size_t h,
                         size_t row_pitch, void *host) {
  cl_image_format fmt = {order, type};
  cl_image_desc desc;
  memset(&desc, 0, sizeof desc);
  desc.image_type = CL_MEM_OBJECT_IMAGE2D;
  desc.image_width = w;
  desc.image_height = h;
  desc.image_row_pitch = row_pitch;
  cl_int err;
  cl_mem m = clCreateImage(ctx, flags, &fmt, &desc, host, &err);
  MUST(err);
  return m;
}

static cl_mem make_buffer(cl_mem_flags flags, size_t size, void *host) {
  cl_int err;
  cl_mem m = clCreateBuffer(ctx, flags, size, host, &err);
  MUST(err);
  return m;
}

static int listed(const cl_image_format *list, cl_uint n, cl_channel_order order, cl_channel_type type) {
  for (cl_uint i = 0; i < n; i++)
    if (list[i].image_channel_order == order && list[i].image_channel_data_type == type)
      return 1;
  return 0;
}

/* Sums of a float4 array, channel by channel, weighted by position so that misplaced texels show. */
static void print_sums(const char *label, const float *v, size_t n) {
  double s[4] = {0, 0, 0, 0};
  for (size_t i = 0; i < n; i++)
    for (int c = 0; c < 4; c++)
      s[c] += v[4 * i + c] * (double)(i % 7 + 1);
  printf("%s: %.0f %.0f %.0f %.0f\n", label, s[0], s[1], s[2], s[3]);
}

int main(void) {
  cl_platform_id platform;
  pick_device(&platform, &device);
  cl_bool image_support = CL_FALSE;
  MUST(clGetDeviceInfo(device, CL_DEVICE_IMAGE_SUPPORT, sizeof image_support, &image_support, NULL));
  check(image_support == CL_TRUE, "CL_DEVICE_IMAGE_SUPPORT");
  if (!image_support)
    return finish();
  cl_int err;
  ctx = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
  MUST(err);
  q = clCreateCommandQueue(ctx, device, 0, &err);
  MUST(err);

  /* ---- Supported formats (5.3.2) ---- */
  /* Table 5.8's minimum list for 2D images read and written by kernels, and the three formats used
     here (CL_R/CL_UNSIGNED_INT8 is no minimum, but NVIDIA's drivers list it). */
  {
    const cl_mem_flags flag_sets[3] = {CL_MEM_READ_ONLY, CL_MEM_WRITE_ONLY, CL_MEM_READ_WRITE};
    const cl_channel_type rgba_min[] = {CL_UNORM_INT8,   CL_UNORM_INT16,   CL_SIGNED_INT8,    CL_SIGNED_INT16,
                                        CL_SIGNED_INT32, CL_UNSIGNED_INT8, CL_UNSIGNED_INT16, CL_UNSIGNED_INT32,
                                        CL_HALF_FLOAT,   CL_FLOAT};
    int min_ok = 1, used_ok = 1;
    for (int f = 0; f < 3; f++) {
      cl_uint n = 0;
      MUST(clGetSupportedImageFormats(ctx, flag_sets[f], CL_MEM_OBJECT_IMAGE2D, 0, NULL, &n));
      cl_image_format *list = calloc(n ? n : 1, sizeof *list);
      MUST(clGetSupportedImageFormats(ctx, flag_sets[f], CL_MEM_OBJECT_IMAGE2D, n, list, NULL));
      if (f < 2) {
        for (size_t i = 0; i < sizeof rgba_min / sizeof rgba_min[0]; i++)
          min_ok &= listed(list, n, CL_RGBA, rgba_min[i]);
        min_ok &= listed(list, n, CL_BGRA, CL_UNORM_INT8);
      }
      used_ok &= listed(list, n, CL_RGBA, CL_FLOAT) && listed(list, n, CL_R, CL_UNSIGNED_INT8) &&
                 listed(list, n, CL_RGBA, CL_UNORM_INT8);
      free(list);
    }
    check(min_ok, "clGetSupportedImageFormats lists table 5.8's minimum formats (read-only, write-only)");
    check(used_ok, "RGBA/FLOAT, R/UNSIGNED_INT8 and RGBA/UNORM_INT8 are listed for all three access flags");
    cl_uint n;
    expect(clGetSupportedImageFormats(ctx, CL_MEM_READ_ONLY, CL_MEM_OBJECT_BUFFER, 0, NULL, &n), CL_INVALID_VALUE,
           "clGetSupportedImageFormats(CL_MEM_OBJECT_BUFFER)");
  }

  /* ---- An RGBA/FLOAT image from a host array with padded rows (5.3.1) ---- */
  enum { HOST_PITCH = W * 16 + 48 };
  unsigned char *padded = calloc(H, HOST_PITCH);
  for (int y = 0; y < H; y++)
    for (int x = 0; x < W; x++)
      for (int c = 0; c < 4; c++)
        ((float *)(padded + y * HOST_PITCH))[4 * x + c] = texel(x, y, c);
  cl_mem img = make_image(CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, CL_RGBA, CL_FLOAT, W, H, HOST_PITCH, padded);
  /* clGetImageInfo (table 5.10) and clGetMemObjectInfo. */
  {
    cl_image_format fmt;
    size_t elem = 0, row = 0, slice = 99, w = 0, h = 0, d = 99, array = 99;
    cl_mem buffer = (cl_mem)&elem;
    cl_uint mips = 99, samples = 99;
    cl_mem_object_type type = 0;
    MUST(clGetImageInfo(img, CL_IMAGE_FORMAT, sizeof fmt, &fmt, NULL));
    MUST(clGetImageInfo(img, CL_IMAGE_ELEMENT_SIZE, sizeof elem, &elem, NULL));
    MUST(clGetImageInfo(img, CL_IMAGE_ROW_PITCH, sizeof row, &row, NULL));
    MUST(clGetImageInfo(img, CL_IMAGE_SLICE_PITCH, sizeof slice, &slice, NULL));
    MUST(clGetImageInfo(img, CL_IMAGE_WIDTH, sizeof w, &w, NULL));
    MUST(clGetImageInfo(img, CL_IMAGE_HEIGHT, sizeof h, &h, NULL));
    MUST(clGetImageInfo(img, CL_IMAGE_DEPTH, sizeof d, &d, NULL));
    MUST(clGetImageInfo(img, CL_IMAGE_ARRAY_SIZE, sizeof array, &array, NULL));
    MUST(clGetImageInfo(img, CL_IMAGE_BUFFER, sizeof buffer, &buffer, NULL));
    MUST(clGetImageInfo(img, CL_IMAGE_NUM_MIP_LEVELS, sizeof mips, &mips, NULL));
    MUST(clGetImageInfo(img, CL_IMAGE_NUM_SAMPLES, sizeof samples, &samples, NULL));
    MUST(clGetMemObjectInfo(img, CL_MEM_TYPE, sizeof type, &type, NULL));
    check(fmt.image_channel_order == CL_RGBA && fmt.image_channel_data_type == CL_FLOAT,
          "CL_IMAGE_FORMAT is RGBA/FLOAT");
    printf("CL_IMAGE_ELEMENT_SIZE %zu, WIDTH %zu, HEIGHT %zu, DEPTH %zu, ARRAY_SIZE %zu, SLICE_PITCH %zu, "
           "NUM_MIP_LEVELS %u, NUM_SAMPLES %u\n",
           elem, w, h, d, array, slice, mips, samples);
    check(row >= W * 16, "CL_IMAGE_ROW_PITCH >= width * element size");
    check(buffer == NULL, "CL_IMAGE_BUFFER of a 2D image is NULL");
    check(type == CL_MEM_OBJECT_IMAGE2D, "CL_MEM_TYPE is CL_MEM_OBJECT_IMAGE2D");
    expect(clGetImageInfo(img, 0x7fff, sizeof w, &w, NULL), CL_INVALID_VALUE, "clGetImageInfo(unknown param)");
    /* (Not checked: CL_INVALID_MEM_OBJECT for clGetImageInfo on a buffer, which PoCL 3.1 answers.) */
  }

  /* ---- Reads, writes, fills and copies (5.3.3 to 5.3.5) ---- */
  float full[H][W][4];
  const size_t origin0[3] = {0, 0, 0}, all[3] = {W, H, 1};
  MUST(clEnqueueReadImage(q, img, CL_TRUE, origin0, all, 0, 0, full, 0, NULL, NULL));
  int same = 1;
  for (int y = 0; y < H; y++)
    for (int x = 0; x < W; x++)
      for (int c = 0; c < 4; c++)
        same &= full[y][x][c] == texel(x, y, c);
  check(same, "clEnqueueReadImage gives the host rows (COPY_HOST_PTR with a row pitch)");
  {
    /* A region into host rows of 6 texels (row_pitch = 96 bytes). */
    float rows[3][6][4];
    memset(rows, 0, sizeof rows);
    const size_t o[3] = {2, 1, 0}, r[3] = {5, 3, 1};
    MUST(clEnqueueReadImage(q, img, CL_TRUE, o, r, sizeof rows[0], 0, rows, 0, NULL, NULL));
    same = 1;
    for (int y = 0; y < 3; y++)
      for (int x = 0; x < 5; x++)
        for (int c = 0; c < 4; c++)
          same &= rows[y][x][c] == texel(x + 2, y + 1, c);
    check(same, "clEnqueueReadImage of a region with a host row pitch");
  }
  {
    /* Writes 3x2 texels at (10, 4) from host rows of 4 texels. */
    float src[2][4][4];
    for (int y = 0; y < 2; y++)
      for (int x = 0; x < 4; x++)
        for (int c = 0; c < 4; c++)
          src[y][x][c] = (float)(-1 - 10 * y - x - 100 * c);
    const size_t o[3] = {10, 4, 0}, r[3] = {3, 2, 1};
    MUST(clEnqueueWriteImage(q, img, CL_TRUE, o, r, sizeof src[0], 0, src, 0, NULL, NULL));
    MUST(clEnqueueReadImage(q, img, CL_TRUE, origin0, all, 0, 0, full, 0, NULL, NULL));
    printf("after clEnqueueWriteImage: (9,4) %g (10,4) %g (12,5) %g/%g (13,5) %g\n", full[4][9][0], full[4][10][0],
           full[5][12][0], full[5][12][3], full[5][13][0]);
  }
  {
    /* clEnqueueFillImage (1.2): a float4 colour over a region. */
    const float colour[4] = {0.5f, -1.0f, 2.0f, 4.0f};
    const size_t o[3] = {0, 6, 0}, r[3] = {4, 2, 1};
    MUST(clEnqueueFillImage(q, img, colour, o, r, 0, NULL, NULL));
    MUST(clEnqueueReadImage(q, img, CL_TRUE, origin0, all, 0, 0, full, 0, NULL, NULL));
    printf("after clEnqueueFillImage: (3,7) %g %g %g %g, (4,7) %g\n", full[7][3][0], full[7][3][1], full[7][3][2],
           full[7][3][3], full[7][4][0]);
  }
  print_sums("float image after writes and fills", &full[0][0][0], W * H);
  /* Image to image, image to buffer, buffer to image. */
  cl_mem img2 = make_image(CL_MEM_READ_WRITE, CL_RGBA, CL_FLOAT, W, H, 0, NULL);
  {
    const float zero[4] = {0, 0, 0, 0};
    MUST(clEnqueueFillImage(q, img2, zero, origin0, all, 0, NULL, NULL));
    const size_t so[3] = {1, 2, 0}, dst_o[3] = {8, 0, 0}, r[3] = {6, 4, 1};
    MUST(clEnqueueCopyImage(q, img, img2, so, dst_o, r, 0, NULL, NULL));
    float got[H][W][4];
    MUST(clEnqueueReadImage(q, img2, CL_TRUE, origin0, all, 0, 0, got, 0, NULL, NULL));
    same = 1;
    for (int y = 0; y < H; y++)
      for (int x = 0; x < W; x++)
        for (int c = 0; c < 4; c++) {
          int inside = x >= 8 && x < 14 && y < 4;
          same &= got[y][x][c] == (inside ? full[y + 2][x - 7][c] : 0.0f);
        }
    check(same, "clEnqueueCopyImage copies the region and nothing else");
  }
  {
    float fromimg[4 * 3 * 4 + 4];
    cl_mem buf = make_buffer(CL_MEM_READ_WRITE, sizeof fromimg, NULL);
    const size_t so[3] = {5, 3, 0}, r[3] = {4, 3, 1};
    MUST(clEnqueueCopyImageToBuffer(q, img, buf, so, r, 4 * sizeof(float), 0, NULL, NULL));
    MUST(clEnqueueReadBuffer(q, buf, CL_TRUE, 0, sizeof fromimg, fromimg, 0, NULL, NULL));
    same = 1;
    for (int y = 0; y < 3; y++)
      for (int x = 0; x < 4; x++)
        for (int c = 0; c < 4; c++)
          same &= fromimg[4 + (y * 4 + x) * 4 + c] == full[y + 3][x + 5][c];
    check(same, "clEnqueueCopyImageToBuffer packs the region's rows at the offset");
    /* And back into the second image at (0, 5). */
    const size_t dst_o[3] = {0, 5, 0};
    MUST(clEnqueueCopyBufferToImage(q, buf, img2, 4 * sizeof(float), dst_o, r, 0, NULL, NULL));
    float got[H][W][4];
    MUST(clEnqueueReadImage(q, img2, CL_TRUE, origin0, all, 0, 0, got, 0, NULL, NULL));
    same = 1;
    for (int y = 0; y < 3; y++)
      for (int x = 0; x < 4; x++)
        for (int c = 0; c < 4; c++)
          same &= got[y + 5][x][c] == full[y + 3][x + 5][c];
    check(same, "clEnqueueCopyBufferToImage unpacks them");
    MUST(clReleaseMemObject(buf));
  }
  /* Maps (5.4.2): rows at the pitch the map returns. */
  {
    size_t row_pitch = 0, slice_pitch = 99;
    const size_t o[3] = {4, 2, 0}, r[3] = {8, 3, 1};
    float *m = clEnqueueMapImage(q, img, CL_TRUE, CL_MAP_READ, o, r, &row_pitch, &slice_pitch, 0, NULL, NULL, &err);
    MUST(err);
    check(row_pitch >= 8 * 16, "clEnqueueMapImage's row pitch >= the region's row");
    same = 1;
    for (int y = 0; y < 3; y++)
      for (int x = 0; x < 8; x++)
        for (int c = 0; c < 4; c++)
          same &= ((float *)((char *)m + y * row_pitch))[4 * x + c] == full[y + 2][x + 4][c];
    check(same, "a CL_MAP_READ map shows the region");
    MUST(clEnqueueUnmapMemObject(q, img, m, 0, NULL, NULL));
    m = clEnqueueMapImage(q, img, CL_TRUE, CL_MAP_WRITE, o, r, &row_pitch, &slice_pitch, 0, NULL, NULL, &err);
    MUST(err);
    for (int y = 0; y < 3; y++)
      ((float *)((char *)m + y * row_pitch))[0] = (float)(7000 + y);
    MUST(clEnqueueUnmapMemObject(q, img, m, 0, NULL, NULL));
    MUST(clEnqueueReadImage(q, img, CL_TRUE, origin0, all, 0, 0, full, 0, NULL, NULL));
    printf("after a CL_MAP_WRITE map: (4,2) %g (4,4) %g (5,2) %g\n", full[2][4][0], full[4][4][0], full[2][5][0]);
  }
  /* Errors (5.3.1, 5.3.3). */
  {
    cl_image_format fmt = {CL_RGBA, CL_FLOAT};
    cl_image_desc desc;
    memset(&desc, 0, sizeof desc);
    desc.image_type = CL_MEM_OBJECT_IMAGE2D;
    desc.image_width = W;
    desc.image_height = H;
    clCreateImage(ctx, CL_MEM_READ_WRITE, NULL, &desc, NULL, &err);
    expect(err, CL_INVALID_IMAGE_FORMAT_DESCRIPTOR, "clCreateImage(NULL format)");
    clCreateImage(ctx, CL_MEM_READ_WRITE, &fmt, NULL, NULL, &err);
    expect(err, CL_INVALID_IMAGE_DESCRIPTOR, "clCreateImage(NULL descriptor)");
    /* (Not checked, PoCL 3.1 creates these images: CL_INVALID_IMAGE_DESCRIPTOR for a row pitch without a
       host pointer or below width * element size; CL_INVALID_IMAGE_SIZE for a width beyond
       CL_DEVICE_IMAGE2D_MAX_WIDTH, which PoCL answers CL_INVALID_OPERATION.) */
    float dummy[4 * W * H];
    const size_t o[3] = {W - 2, 0, 0}, r[3] = {4, 1, 1}, r3[3] = {2, 2, 2}, oz[3] = {0, 0, 1}, r1[3] = {1, 1, 1};
    expect(clEnqueueReadImage(q, img, CL_TRUE, o, r, 0, 0, dummy, 0, NULL, NULL), CL_INVALID_VALUE,
           "clEnqueueReadImage(region past the right edge)");
    expect(clEnqueueReadImage(q, img, CL_TRUE, origin0, r3, 0, 0, dummy, 0, NULL, NULL), CL_INVALID_VALUE,
           "clEnqueueReadImage(2D image, region depth 2)");
    expect(clEnqueueReadImage(q, img, CL_TRUE, oz, r1, 0, 0, dummy, 0, NULL, NULL), CL_INVALID_VALUE,
           "clEnqueueReadImage(2D image, origin z 1)");
    cl_mem other = make_image(CL_MEM_READ_WRITE, CL_RGBA, CL_UNORM_INT8, W, H, 0, NULL);
    expect(clEnqueueCopyImage(q, img, other, origin0, origin0, r1, 0, NULL, NULL), CL_IMAGE_FORMAT_MISMATCH,
           "clEnqueueCopyImage(RGBA/FLOAT to RGBA/UNORM_INT8)");
    MUST(clReleaseMemObject(other));
  }

  /* ---- Samplers (5.5) ---- */
  cl_sampler linear = clCreateSampler(ctx, CL_TRUE, CL_ADDRESS_CLAMP_TO_EDGE, CL_FILTER_LINEAR, &err);
  expect(err, CL_SUCCESS, "clCreateSampler(normalized, CLAMP_TO_EDGE, LINEAR)");
  {
    cl_bool norm = CL_FALSE;
    cl_addressing_mode addr = 0;
    cl_filter_mode filter = 0;
    cl_context sctx = NULL;
    cl_uint refs = 0;
    MUST(clGetSamplerInfo(linear, CL_SAMPLER_NORMALIZED_COORDS, sizeof norm, &norm, NULL));
    MUST(clGetSamplerInfo(linear, CL_SAMPLER_ADDRESSING_MODE, sizeof addr, &addr, NULL));
    MUST(clGetSamplerInfo(linear, CL_SAMPLER_FILTER_MODE, sizeof filter, &filter, NULL));
    MUST(clGetSamplerInfo(linear, CL_SAMPLER_CONTEXT, sizeof sctx, &sctx, NULL));
    MUST(clGetSamplerInfo(linear, CL_SAMPLER_REFERENCE_COUNT, sizeof refs, &refs, NULL));
    check(norm == CL_TRUE && addr == CL_ADDRESS_CLAMP_TO_EDGE && filter == CL_FILTER_LINEAR,
          "clGetSamplerInfo: NORMALIZED_COORDS, ADDRESSING_MODE, FILTER_MODE");
    check(sctx == ctx && refs == 1, "clGetSamplerInfo: CONTEXT, REFERENCE_COUNT");
    MUST(clRetainSampler(linear));
    MUST(clGetSamplerInfo(linear, CL_SAMPLER_REFERENCE_COUNT, sizeof refs, &refs, NULL));
    check(refs == 2, "clRetainSampler adds one to CL_SAMPLER_REFERENCE_COUNT");
    MUST(clReleaseSampler(linear));
    expect(clGetSamplerInfo(linear, 0x7fff, sizeof refs, &refs, NULL), CL_INVALID_VALUE,
           "clGetSamplerInfo(unknown param)");
    /* (Not checked: CL_INVALID_VALUE for an unknown addressing or filter mode, which PoCL 3.1 accepts.) */
    clCreateSampler(NULL, CL_TRUE, CL_ADDRESS_CLAMP, CL_FILTER_LINEAR, &err);
    expect(err, CL_INVALID_CONTEXT, "clCreateSampler(NULL context)");
    expect(clReleaseSampler(NULL), CL_INVALID_SAMPLER, "clReleaseSampler(NULL)");
  }

  /* ---- Kernels (6.12.14) ---- */
  cl_program program = clCreateProgramWithSource(ctx, 1, &source, NULL, &err);
  MUST(err);
  err = clBuildProgram(program, 1, &device, "", NULL, NULL);
  expect(err, CL_SUCCESS, "clBuildProgram");
  if (err != CL_SUCCESS)
    return finish();
  /* The float image as it is now, sampled at texel centres: clamp-to-edge repeats the edge texels,
     clamp gives the border colour (0, 0, 0, 0) for CL_RGBA. */
  {
    cl_kernel k = clCreateKernel(program, "sample_nearest", &err);
    MUST(err);
    enum { FW = W + 4, FH = H + 4 };
    float edge[FH * FW * 4], border[FH * FW * 4];
    cl_mem bedge = make_buffer(CL_MEM_WRITE_ONLY, sizeof edge, NULL);
    cl_mem bborder = make_buffer(CL_MEM_WRITE_ONLY, sizeof border, NULL);
    MUST(clSetKernelArg(k, 0, sizeof img, &img));
    MUST(clSetKernelArg(k, 1, sizeof bedge, &bedge));
    MUST(clSetKernelArg(k, 2, sizeof bborder, &bborder));
    const size_t g[2] = {FW, FH};
    MUST(clEnqueueNDRangeKernel(q, k, 2, NULL, g, NULL, 0, NULL, NULL));
    MUST(clEnqueueReadBuffer(q, bedge, CL_TRUE, 0, sizeof edge, edge, 0, NULL, NULL));
    MUST(clEnqueueReadBuffer(q, bborder, CL_TRUE, 0, sizeof border, border, 0, NULL, NULL));
    int edge_ok = 1, border_ok = 1;
    for (int y = 0; y < FH; y++)
      for (int x = 0; x < FW; x++) {
        int ix = x - 2, iy = y - 2, inside = ix >= 0 && ix < W && iy >= 0 && iy < H;
        int cx = ix < 0 ? 0 : ix >= W ? W - 1 : ix, cy = iy < 0 ? 0 : iy >= H ? H - 1 : iy;
        for (int c = 0; c < 4; c++) {
          edge_ok &= edge[(y * FW + x) * 4 + c] == full[cy][cx][c];
          border_ok &= border[(y * FW + x) * 4 + c] == (inside ? full[iy][ix][c] : 0.0f);
        }
      }
    check(edge_ok, "read_imagef nearest, CLAMP_TO_EDGE: the edge texels outside");
    check(border_ok, "read_imagef nearest, CLAMP: the border colour (0,0,0,0) outside");
    print_sums("nearest clamp-to-edge", edge, FW * FH);
    print_sums("nearest clamp", border, FW * FH);
    MUST(clReleaseMemObject(bedge));
    MUST(clReleaseMemObject(bborder));
    MUST(clReleaseKernel(k));
  }
  /* Linear filtering of a fresh image of the texel pattern (multiples of 16) through the sampler
     argument, against the host's bilinear reference (chapter 8 of the spec: weights from the fractions of
     u*w - 0.5 and v*h - 0.5, texel indices clamped to the edge). */
  {
    float plain[H][W][4];
    for (int y = 0; y < H; y++)
      for (int x = 0; x < W; x++)
        for (int c = 0; c < 4; c++)
          plain[y][x][c] = texel(x, y, c);
    cl_mem src = make_image(CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, CL_RGBA, CL_FLOAT, W, H, 0, plain);
    cl_kernel k = clCreateKernel(program, "sample_linear", &err);
    MUST(err);
    float out[H * W * 4];
    cl_mem bout = make_buffer(CL_MEM_WRITE_ONLY, sizeof out, NULL);
    MUST(clSetKernelArg(k, 0, sizeof src, &src));
    MUST(clSetKernelArg(k, 1, sizeof linear, &linear));
    MUST(clSetKernelArg(k, 2, sizeof bout, &bout));
    const size_t g[2] = {W, H};
    MUST(clEnqueueNDRangeKernel(q, k, 2, NULL, g, NULL, 0, NULL, NULL));
    MUST(clEnqueueReadBuffer(q, bout, CL_TRUE, 0, sizeof out, out, 0, NULL, NULL));
    double worst = 0;
    long rounded_sum = 0;
    for (int y = 0; y < H; y++)
      for (int x = 0; x < W; x++) {
        /* u*w - 0.5 = x - 0.25: i0 = x - 1, a = 0.75; v*h - 0.5 = y + 0.25: j0 = y, b = 0.25. */
        int i0 = x - 1 < 0 ? 0 : x - 1, i1 = x, j0 = y, j1 = y + 1 >= H ? H - 1 : y + 1;
        for (int c = 0; c < 4; c++) {
          double want = 0.25 * 0.75 * plain[j0][i0][c] + 0.75 * 0.75 * plain[j0][i1][c] +
                        0.25 * 0.25 * plain[j1][i0][c] + 0.75 * 0.25 * plain[j1][i1][c];
          double got = out[(y * W + x) * 4 + c];
          if (fabs(got - want) > worst)
            worst = fabs(got - want);
          rounded_sum += lround(got * 100.0) * ((y * W + x) % 7 + 1);
        }
      }
    check(worst < 0.004, "read_imagef linear, normalized, CLAMP_TO_EDGE: within 0.004 of the bilinear reference");
    printf("linear samples: (0,0) %.2f %.2f %.2f %.2f (5,3) %.2f (15,7) %.2f, rounded sum %ld\n", out[0], out[1],
           out[2], out[3], out[(3 * W + 5) * 4], out[(7 * W + 15) * 4], rounded_sum);
    MUST(clReleaseMemObject(bout));
    MUST(clReleaseMemObject(src));
    MUST(clReleaseKernel(k));
  }
  /* write_imagef into a write-only RGBA/FLOAT image. */
  {
    float in[H * W * 4], got[H][W][4];
    for (int i = 0; i < H * W * 4; i++)
      in[i] = (float)(i * 0.25 - 100);
    cl_mem bin = make_buffer(CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof in, in);
    cl_mem dst = make_image(CL_MEM_WRITE_ONLY, CL_RGBA, CL_FLOAT, W, H, 0, NULL);
    cl_kernel k = clCreateKernel(program, "write_float", &err);
    MUST(err);
    MUST(clSetKernelArg(k, 0, sizeof dst, &dst));
    MUST(clSetKernelArg(k, 1, sizeof bin, &bin));
    const size_t g[2] = {W, H};
    MUST(clEnqueueNDRangeKernel(q, k, 2, NULL, g, NULL, 0, NULL, NULL));
    MUST(clEnqueueReadImage(q, dst, CL_TRUE, origin0, all, 0, 0, got, 0, NULL, NULL));
    check(memcmp(in, got, sizeof in) == 0, "write_imagef writes every texel");
    print_sums("write_imagef", &got[0][0][0], W * H);
    MUST(clReleaseMemObject(bin));
    MUST(clReleaseMemObject(dst));
    MUST(clReleaseKernel(k));
  }
  /* CL_R/CL_UNSIGNED_INT8: read_imageui's red channel is the byte; write_imageui stores the red channel.
     (Not checked: 6.12.14's (r, 0, 0, 1) for the other channels: PoCL 3.1 reads alpha as 0.) */
  {
    unsigned char bytes[H][W], back[H][W];
    for (int y = 0; y < H; y++)
      for (int x = 0; x < W; x++)
        bytes[y][x] = (unsigned char)(x * 16 + y * 3);
    cl_mem src = make_image(CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, CL_R, CL_UNSIGNED_INT8, W, H, 0, bytes);
    cl_mem dst = make_image(CL_MEM_WRITE_ONLY, CL_R, CL_UNSIGNED_INT8, W, H, 0, NULL);
    cl_uint out[130];
    cl_mem bout = make_buffer(CL_MEM_WRITE_ONLY, sizeof out, NULL);
    cl_kernel k = clCreateKernel(program, "uint8_ops", &err);
    MUST(err);
    MUST(clSetKernelArg(k, 0, sizeof src, &src));
    MUST(clSetKernelArg(k, 1, sizeof dst, &dst));
    MUST(clSetKernelArg(k, 2, sizeof bout, &bout));
    const size_t g[2] = {W, H};
    MUST(clEnqueueNDRangeKernel(q, k, 2, NULL, g, NULL, 0, NULL, NULL));
    MUST(clEnqueueReadBuffer(q, bout, CL_TRUE, 0, sizeof out, out, 0, NULL, NULL));
    MUST(clEnqueueReadImage(q, dst, CL_TRUE, origin0, all, 0, 0, back, 0, NULL, NULL));
    int ok_in = 1, ok_out = 1;
    for (int y = 0; y < H; y++)
      for (int x = 0; x < W; x++) {
        ok_in &= out[y * W + x] == bytes[y][x];
        ok_out &= back[y][x] == 255 - bytes[y][x];
      }
    check(ok_in, "read_imageui of R/UNSIGNED_INT8 gives the byte in red");
    check(ok_out, "write_imageui to R/UNSIGNED_INT8");
    printf("R/UNSIGNED_INT8: in (3,2) %u, out (3,2) %u, get_image_width %u, get_image_height %u\n", out[2 * W + 3],
           back[2][3], out[128], out[129]);
    MUST(clReleaseMemObject(src));
    MUST(clReleaseMemObject(dst));
    MUST(clReleaseMemObject(bout));
    MUST(clReleaseKernel(k));
  }
  /* CL_RGBA/CL_UNORM_INT8: reads are byte/255, writes round to the nearest byte. */
  {
    unsigned char bytes[H][W][4], back[H][W][4];
    for (int y = 0; y < H; y++)
      for (int x = 0; x < W; x++)
        for (int c = 0; c < 4; c++)
          bytes[y][x][c] = (unsigned char)((x * 17 + y * 29 + c * 61) % 256);
    cl_mem src = make_image(CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, CL_RGBA, CL_UNORM_INT8, W, H, 0, bytes);
    cl_mem dst = make_image(CL_MEM_WRITE_ONLY, CL_RGBA, CL_UNORM_INT8, W, H, 0, NULL);
    cl_int out[H][W][4];
    cl_mem bout = make_buffer(CL_MEM_WRITE_ONLY, sizeof out, NULL);
    cl_kernel k = clCreateKernel(program, "unorm_ops", &err);
    MUST(err);
    MUST(clSetKernelArg(k, 0, sizeof src, &src));
    MUST(clSetKernelArg(k, 1, sizeof dst, &dst));
    MUST(clSetKernelArg(k, 2, sizeof bout, &bout));
    const size_t g[2] = {W, H};
    MUST(clEnqueueNDRangeKernel(q, k, 2, NULL, g, NULL, 0, NULL, NULL));
    MUST(clEnqueueReadBuffer(q, bout, CL_TRUE, 0, sizeof out, out, 0, NULL, NULL));
    MUST(clEnqueueReadImage(q, dst, CL_TRUE, origin0, all, 0, 0, back, 0, NULL, NULL));
    int ok_in = 1, ok_out = 1;
    for (int y = 0; y < H; y++)
      for (int x = 0; x < W; x++) {
        const int want[4] = {x, y, x + y, 255 - x};
        for (int c = 0; c < 4; c++) {
          ok_in &= out[y][x][c] == bytes[y][x][c];
          ok_out &= back[y][x][c] == want[c];
        }
      }
    check(ok_in, "read_imagef of RGBA/UNORM_INT8 gives byte/255");
    check(ok_out, "write_imagef to RGBA/UNORM_INT8 of k/255 stores k");
    printf("RGBA/UNORM_INT8: in (5,3) %d %d %d %d, out (5,3) %u %u %u %u\n", out[3][5][0], out[3][5][1], out[3][5][2],
           out[3][5][3], back[3][5][0], back[3][5][1], back[3][5][2], back[3][5][3]);
    MUST(clReleaseMemObject(src));
    MUST(clReleaseMemObject(dst));
    MUST(clReleaseMemObject(bout));
    MUST(clReleaseKernel(k));
  }

  /* ---- clCreateImage2D (1.1, deprecated in 1.2) ---- */
  {
    cl_image_format fmt = {CL_RGBA, CL_UNORM_INT8};
    unsigned char bytes[4][8][4], back[4][8][4];
    for (int i = 0; i < 4 * 8 * 4; i++)
      (&bytes[0][0][0])[i] = (unsigned char)(i * 7);
    cl_mem old = clCreateImage2D(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, &fmt, 8, 4, 0, bytes, &err);
    expect(err, CL_SUCCESS, "clCreateImage2D");
    if (err == CL_SUCCESS) {
      const size_t r[3] = {8, 4, 1};
      MUST(clEnqueueReadImage(q, old, CL_TRUE, origin0, r, 0, 0, back, 0, NULL, NULL));
      check(memcmp(bytes, back, sizeof back) == 0, "clCreateImage2D's image reads back");
      MUST(clReleaseMemObject(old));
    }
  }

  free(padded);
  MUST(clReleaseSampler(linear));
  MUST(clReleaseMemObject(img));
  MUST(clReleaseMemObject(img2));
  MUST(clReleaseProgram(program));
  MUST(clReleaseCommandQueue(q));
  MUST(clReleaseContext(ctx));
  return finish();
}
