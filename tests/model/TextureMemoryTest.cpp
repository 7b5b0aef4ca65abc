// Texture fetches and surface accesses under the model: one request per warp instruction, 32-byte
// sectors over the union of the texels the lanes read (every texel of a filtered footprint), texels
// outside the resource reading no memory. Sector counts are derived by hand from the kernels below
// (allocations are 256-byte aligned).
#include "model/Metrics.h"
#include "model/PerformanceModel.h"
#include "support/VmHarness.h"
#include "vm/Texture.h"

#include <gtest/gtest.h>

#include <map>

namespace ptxray::test {
namespace {

using vm::ChannelType;
using vm::TextureResource;

// fetch: tex1Dfetch(t, tid * scale); sample1d: tex1D(t, tid + 1.0f); sample2d: tex2D(t, 1.0f, 1.0f);
// gather: tld4.r at (1.0f, 1.0f). Each stores the first component to out[tid].
const char *kTextures = R"(
.version 8.0
.target sm_80
.address_size 64
.visible .entry fetch(.param .u64 tex, .param .u64 out, .param .u32 scale)
{
  .reg .b32 %r<4>; .reg .f32 %f<5>; .reg .b64 %rd<5>;
  ld.param.u64 %rd1, [tex];
  ld.param.u64 %rd2, [out];
  ld.param.u32 %r1, [scale];
  mov.u32 %r2, %tid.x;
  mul.lo.s32 %r3, %r2, %r1;
  tex.1d.v4.f32.s32 {%f1, %f2, %f3, %f4}, [%rd1, {%r3}];
  mul.wide.u32 %rd3, %r2, 4;
  add.s64 %rd4, %rd2, %rd3;
  st.global.f32 [%rd4], %f1;
  ret;
}
.visible .entry sample1d(.param .u64 tex, .param .u64 out)
{
  .reg .b32 %r<3>; .reg .f32 %f<6>; .reg .b64 %rd<5>;
  ld.param.u64 %rd1, [tex];
  ld.param.u64 %rd2, [out];
  mov.u32 %r2, %tid.x;
  cvt.rn.f32.u32 %f5, %r2;
  add.f32 %f5, %f5, 0f3F800000;
  tex.1d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd1, {%f5}];
  mul.wide.u32 %rd3, %r2, 4;
  add.s64 %rd4, %rd2, %rd3;
  st.global.f32 [%rd4], %f1;
  ret;
}
.visible .entry sample2d(.param .u64 tex, .param .u64 out)
{
  .reg .b32 %r<3>; .reg .f32 %f<6>; .reg .b64 %rd<5>;
  ld.param.u64 %rd1, [tex];
  ld.param.u64 %rd2, [out];
  mov.u32 %r2, %tid.x;
  mov.f32 %f5, 0f3F800000;
  tex.2d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd1, {%f5, %f5}];
  mul.wide.u32 %rd3, %r2, 4;
  add.s64 %rd4, %rd2, %rd3;
  st.global.f32 [%rd4], %f1;
  ret;
}
.visible .entry gather(.param .u64 tex, .param .u64 out)
{
  .reg .b32 %r<3>; .reg .f32 %f<6>; .reg .b64 %rd<5>;
  ld.param.u64 %rd1, [tex];
  ld.param.u64 %rd2, [out];
  mov.u32 %r2, %tid.x;
  mov.f32 %f5, 0f3F800000;
  tld4.r.2d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd1, {%f5, %f5}];
  mul.wide.u32 %rd3, %r2, 4;
  add.s64 %rd4, %rd2, %rd3;
  st.global.f32 [%rd4], %f1;
  ret;
}
.visible .entry surface(.param .u64 s, .param .u32 scale)
{
  .reg .b32 %r<6>; .reg .b64 %rd<2>;
  ld.param.u64 %rd1, [s];
  ld.param.u32 %r1, [scale];
  mov.u32 %r2, %tid.x;
  mul.lo.s32 %r3, %r2, %r1;
  shl.b32 %r3, %r3, 2;
  suld.b.1d.b32.zero {%r4}, [%rd1, {%r3}];
  add.s32 %r4, %r4, 1;
  sust.b.1d.b32.zero [%rd1, {%r3}], {%r4};
  ret;
}
)";

struct TextureRun {
  model::LaunchProfile profile;
  std::map<std::string, double> metrics;
};

TextureRun run(const char *arch, VmHarness &vm, const std::string &kernel, uint64_t handle,
               std::optional<uint32_t> scale) {
  model::PerformanceModel perf(*arch::findArch(arch).target);
  vm.device.setListener(&perf);
  auto &m = vm.load(kTextures);
  uint64_t out = vm.zeros<float>(32);
  vm::LaunchResult r = kernel == "surface" ? vm.launch(m, kernel, {1, 1, 1}, {32, 1, 1}, handle, *scale)
                       : scale             ? vm.launch(m, kernel, {1, 1, 1}, {32, 1, 1}, handle, out, *scale)
                                           : vm.launch(m, kernel, {1, 1, 1}, {32, 1, 1}, handle, out);
  EXPECT_TRUE(r.ok()) << describe(r);
  vm.device.setListener(nullptr);
  TextureRun result;
  result.profile = perf.launches().at(0);
  for (const auto &[name, value] : model::launchMetrics(result.profile))
    result.metrics[name] = value;
  return result;
}

uint64_t linearFloats(VmHarness &vm, uint32_t count) {
  vm::TextureDesc d;
  d.resource = {.kind = TextureResource::Kind::Linear,
                .address = vm.zeros<float>(count),
                .format = {ChannelType::F32, 1},
                .width = count};
  return vm.device.textures().createTextureObject(d);
}

class TextureSectors : public ::testing::TestWithParam<const char *> {};

TEST_P(TextureSectors, Tex1DfetchOfConsecutiveAndStridedTexels) {
  VmHarness vm(GetParam());
  uint64_t tex = linearFloats(vm, 128);
  // 32 lanes, texel tid: 128 contiguous bytes from a 256-byte boundary = 4 sectors, one request.
  TextureRun unit = run(GetParam(), vm, "fetch", tex, 1);
  EXPECT_EQ(unit.metrics.at("l1tex__t_requests_pipe_tex_mem_texture.sum"), 1);
  EXPECT_EQ(unit.metrics.at("l1tex__t_sectors_pipe_tex_mem_texture.sum"), 4);
  EXPECT_EQ(unit.metrics.at("tex_cache_transactions"), 4);
  EXPECT_EQ(unit.metrics.at("ptxray__texture_bytes_requested"), 128);
  // Texel 2 * tid: 256 bytes, every other word: 8 sectors.
  TextureRun strided = run(GetParam(), vm, "fetch", tex, 2);
  EXPECT_EQ(strided.metrics.at("l1tex__t_sectors_pipe_tex_mem_texture.sum"), 8);
  // Texel 100 * tid: only lane 0 (texel 0) and lane 1 (texel 100) are inside the 128 texels; the rest
  // read zero without touching memory: 2 sectors.
  TextureRun outside = run(GetParam(), vm, "fetch", tex, 100);
  EXPECT_EQ(outside.metrics.at("l1tex__t_requests_pipe_tex_mem_texture.sum"), 1);
  EXPECT_EQ(outside.metrics.at("l1tex__t_sectors_pipe_tex_mem_texture.sum"), 2);
  EXPECT_EQ(outside.metrics.at("ptxray__texture_bytes_requested"), 8);
  // Texture traffic is memory traffic: the fetched sectors are the launch's read footprint (there are
  // no global loads) and part of the bytes the time estimate moves, with the store's 4 sectors.
  EXPECT_EQ(unit.profile.readFootprintBytes, 4u * 32);
  EXPECT_EQ(unit.profile.timeInputs.bytesMoved, 8u * 32);
  EXPECT_EQ(unit.profile.timeInputs.memoryRequests, 1u + unit.profile.total.globalRequests);
  EXPECT_EQ(unit.metrics.at("gld_requests"), 0);
}

TEST_P(TextureSectors, FilteredFootprintsCountTheUnionOfTheirTexels) {
  VmHarness vm(GetParam());
  // 1D, linear filtering, unnormalized: x = tid + 1 -> x - 0.5 = tid + 0.5, texels tid and tid + 1.
  // The union is texels 0..32: bytes [0, 132), 5 sectors, one request; 2 x 32 texels of 4 bytes read.
  vm::TextureDesc d1;
  d1.resource = {.kind = TextureResource::Kind::Array,
                 .address = vm.zeros<float>(64),
                 .format = {ChannelType::F32, 1},
                 .width = 64};
  d1.sampler.filter = vm::FilterMode::Linear;
  TextureRun linear = run(GetParam(), vm, "sample1d", vm.device.textures().createTextureObject(d1), std::nullopt);
  EXPECT_EQ(linear.metrics.at("l1tex__t_requests_pipe_tex_mem_texture.sum"), 1);
  EXPECT_EQ(linear.metrics.at("l1tex__t_sectors_pipe_tex_mem_texture.sum"), 5);
  EXPECT_EQ(linear.metrics.at("ptxray__texture_bytes_requested"), 2 * 32 * 4);
  // 2D 8 x 8 floats (32-byte rows), bilinear at (1, 1) in every lane: texels (0,0) (1,0) (0,1) (1,1),
  // rows 0 and 1: 2 sectors; 4 x 32 texels read. tld4 reads the same 2 x 2 footprint.
  vm::TextureDesc d2;
  d2.resource = {.kind = TextureResource::Kind::Array,
                 .address = vm.zeros<float>(64),
                 .format = {ChannelType::F32, 1},
                 .width = 8,
                 .height = 8};
  d2.sampler.filter = vm::FilterMode::Linear;
  uint64_t tex2d = vm.device.textures().createTextureObject(d2);
  TextureRun bilinear = run(GetParam(), vm, "sample2d", tex2d, std::nullopt);
  EXPECT_EQ(bilinear.metrics.at("l1tex__t_requests_pipe_tex_mem_texture.sum"), 1);
  EXPECT_EQ(bilinear.metrics.at("l1tex__t_sectors_pipe_tex_mem_texture.sum"), 2);
  EXPECT_EQ(bilinear.metrics.at("ptxray__texture_bytes_requested"), 4 * 32 * 4);
  TextureRun gathered = run(GetParam(), vm, "gather", tex2d, std::nullopt);
  EXPECT_EQ(gathered.metrics.at("l1tex__t_requests_pipe_tex_mem_texture.sum"), 1);
  EXPECT_EQ(gathered.metrics.at("l1tex__t_sectors_pipe_tex_mem_texture.sum"), 2);
}

TEST_P(TextureSectors, SurfaceLoadsAndStores) {
  VmHarness vm(GetParam());
  uint64_t surf = vm.device.textures().createSurfaceObject({.kind = TextureResource::Kind::Array,
                                                            .address = vm.zeros<uint32_t>(64),
                                                            .format = {ChannelType::U32, 1},
                                                            .width = 64});
  // Word tid: 4 sectors read and written, one request each.
  TextureRun unit = run(GetParam(), vm, "surface", surf, 1);
  EXPECT_EQ(unit.metrics.at("l1tex__t_requests_pipe_tex_mem_surface_op_ld.sum"), 1);
  EXPECT_EQ(unit.metrics.at("l1tex__t_sectors_pipe_tex_mem_surface_op_ld.sum"), 4);
  EXPECT_EQ(unit.metrics.at("l1tex__t_requests_pipe_tex_mem_surface_op_st.sum"), 1);
  EXPECT_EQ(unit.metrics.at("l1tex__t_sectors_pipe_tex_mem_surface_op_st.sum"), 4);
  EXPECT_EQ(unit.metrics.at("l1tex__t_sectors_pipe_tex_mem_texture.sum"), 0);
  EXPECT_EQ(unit.profile.readFootprintBytes, 4u * 32);
  EXPECT_EQ(unit.profile.writeFootprintBytes, 4u * 32);
  EXPECT_EQ(unit.profile.readWriteOverlapBytes, 4u * 32);
  // Word 3 * tid with .zero: lanes 0..21 are inside the 64 words (3 * 21 = 63), bytes [0, 256): 8
  // sectors; the other lanes access nothing.
  TextureRun strided = run(GetParam(), vm, "surface", surf, 3);
  EXPECT_EQ(strided.metrics.at("l1tex__t_sectors_pipe_tex_mem_surface_op_ld.sum"), 8);
  EXPECT_EQ(strided.metrics.at("l1tex__t_sectors_pipe_tex_mem_surface_op_st.sum"), 8);
  EXPECT_EQ(strided.metrics.at("ptxray__surface_bytes_requested"), 2 * 22 * 4);
}

// 32-byte texture granules on every generation: CC 9.0, 3.5 (Tesla K40), 2.0 and 1.3 (GTX 280).
INSTANTIATE_TEST_SUITE_P(Gpus, TextureSectors, ::testing::Values("sm_90", "k40", "sm_20", "gtx280"));

} // namespace
} // namespace ptxray::test
