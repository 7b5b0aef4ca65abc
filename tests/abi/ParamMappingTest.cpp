// §2.3: source-level parameter and return types → PTX .param declarations, notes A-E.
#include "abi/ParamMapping.h"
#include "abi/CDeclParser.h"

#include <gtest/gtest.h>

namespace ptxray::abi {
namespace {

TypeRef type(std::string_view text, SourceLanguage language = SourceLanguage::Cuda) {
  CTypeResult r = parseCType(text, nullptr, language);
  EXPECT_TRUE(r.ok()) << text;
  if (!r.type)
    throw AbiError("bad test type");
  return r.type;
}

std::string text(std::string_view t, unsigned addressSize = 64) {
  return mapParam(type(t), addressSize, "p").text;
}

// Note A: integral types of 8 to 32 bits become .s32/.u32, sign- or zero-extended.
TEST(ParamMappingIntegral, NarrowTypesAreWidened) {
  struct Row {
    const char *type;
    const char *ptx;
    Extension ext;
  };
  for (Row r : {Row{"char", ".s32", Extension::Sign}, Row{"signed char", ".s32", Extension::Sign},
                Row{"unsigned char", ".u32", Extension::Zero}, Row{"_Bool", ".u32", Extension::Zero},
                Row{"short", ".s32", Extension::Sign}, Row{"unsigned short", ".u32", Extension::Zero},
                Row{"int", ".s32", Extension::None}, Row{"unsigned", ".u32", Extension::None}}) {
    ParamMapping m = mapParam(type(r.type), 64, "p");
    EXPECT_EQ(m.ptxType, r.ptx) << r.type;
    EXPECT_EQ(m.extension, r.ext) << r.type;
    EXPECT_EQ(m.size, 4u) << r.type;
    EXPECT_EQ(m.paramClass, ParamClass::Integral);
  }
  EXPECT_EQ(mapParam(type("char"), 64, "c").text, ".param .s32 c");
  EXPECT_EQ(mapParam(type("unsigned short"), 32).note,
            "16-bit unsigned integral widened to .u32, zero-extended (§2.3 A)");
  EXPECT_EQ(mapParam(type("unsigned char"), 64).sourceSize, 1u);
}

TEST(ParamMappingIntegral, SixtyFourBitIntegersAndLong) {
  EXPECT_EQ(text("long long"), ".param .s64 p");
  EXPECT_EQ(text("unsigned long long"), ".param .u64 p");
  EXPECT_EQ(text("long", 64), ".param .s64 p");
  EXPECT_EQ(text("long", 32), ".param .s32 p");
  EXPECT_EQ(text("unsigned long", 32), ".param .u32 p");
  CDeclResult e = parseCDecls("enum E { A };");
  EXPECT_EQ(mapParam(e.header.find("E")->type).ptxType, ".s32");
}

// Note B: pointers by address size, generic unless the declaration names a space.
TEST(ParamMappingPointer, ByAddressSizeAndGeneric) {
  EXPECT_EQ(text("int *", 32), ".param .u32 p");
  EXPECT_EQ(text("float *", 64), ".param .u64 p");
  ParamMapping m = mapParam(type("double *"), 64);
  EXPECT_EQ(m.space, AddressSpace::Generic);
  EXPECT_EQ(m.paramClass, ParamClass::Pointer);
  m = mapParam(type("__global float *", SourceLanguage::OpenCL), 64);
  EXPECT_EQ(m.space, AddressSpace::Global);
  EXPECT_EQ(m.ptxType, ".u64");
  m = mapParam(type("int[4]"), 32);
  EXPECT_EQ(m.text, ".param .u32 param");
  EXPECT_EQ(m.note, "array parameter decays to a pointer; 32-bit pointer, generic address (§2.3 B)");
  EXPECT_THROW(mapParam(type("int[4]"), 64, "r", ParamRole::ReturnValue), AbiError);
}

// Note C: .f32/.f64; 16-bit floats are storage only.
TEST(ParamMappingFloating, F32F64AndNoF16) {
  EXPECT_EQ(text("float"), ".param .f32 p");
  EXPECT_EQ(text("double", 32), ".param .f64 p");
  EXPECT_THROW(mapParam(type("__half")), AbiError);
  EXPECT_THROW(mapParam(type("__half"), 64, "r", ParamRole::ReturnValue), AbiError);
  EXPECT_THROW(mapParam(type("long double")), AbiError);
  try {
    mapParam(type("__half"), 64, "h", ParamRole::ReturnValue);
  } catch (const AbiError &e) {
    EXPECT_EQ(std::string(e.what()), "'__half' (.f16) cannot be a return value: 16-bit floating-point types are only "
                                     "used for storage (§2.3 C)");
  }
  // A struct holding halves is an aggregate and may be passed.
  EXPECT_EQ(text("__half2"), ".param .align 4 .b8 p[4]");
}

// Note D: aggregates and unions as aligned byte arrays.
TEST(ParamMappingAggregate, AlignedByteArrays) {
  EXPECT_EQ(text("struct {char c; double d;}"), ".param .align 8 .b8 p[16]");
  EXPECT_EQ(text("struct {char c[3];}"), ".param .align 1 .b8 p[3]");
  EXPECT_EQ(text("union {short s; char c[3];}"), ".param .align 2 .b8 p[4]");
  EXPECT_EQ(text("float4"), ".param .align 16 .b8 p[16]");
  EXPECT_EQ(text("float3"), ".param .align 4 .b8 p[12]");
  EXPECT_EQ(text("struct {int *p; char c;}", 32), ".param .align 4 .b8 p[8]");
  EXPECT_EQ(text("struct {int *p; char c;}", 64), ".param .align 8 .b8 p[16]");
  EXPECT_EQ(text("struct __align__(128) {char c;}"), ".param .align 128 .b8 p[128]");
  EXPECT_THROW(mapParam(type("struct __align__(256) {char c;}")), AbiError);
  ParamMapping m = mapParam(type("struct {short a:3; char b;}"), 64, "s", ParamRole::ReturnValue);
  EXPECT_EQ(m.text, ".param .align 2 .b8 s[2]");
  EXPECT_EQ(m.paramClass, ParamClass::Aggregate);
  EXPECT_EQ(m.align, 2u);
  EXPECT_EQ(m.size, 2u);
}

// Note E: texture, sampler and surface references as .b64 handles.
TEST(ParamMappingHandle, OpaqueTypesAreB64) {
  EXPECT_EQ(text("texref"), ".param .b64 p");
  EXPECT_EQ(text("samplerref", 32), ".param .b64 p");
  EXPECT_EQ(mapParam(type("surfref")).paramClass, ParamClass::Handle);
}

TEST(ParamMappingVoid, OnlyAsReturn) {
  EXPECT_THROW(mapParam(voidType()), AbiError);
  ParamMapping m = mapParam(voidType(), 64, "r", ParamRole::ReturnValue);
  EXPECT_TRUE(m.text.empty());
  EXPECT_EQ(m.size, 0u);
  EXPECT_THROW(mapParam(scalarType(Scalar::Int), 16), AbiError);
}

} // namespace
} // namespace ptxray::abi
