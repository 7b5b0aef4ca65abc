// The C declaration parser: type spellings, definitions, typedefs, attributes, and errors with line:col.
#include "abi/CDeclParser.h"
#include "abi/Layout.h"

#include <gtest/gtest.h>

namespace ptxray::abi {
namespace {

std::string spell(std::string_view text, SourceLanguage language = SourceLanguage::Cuda) {
  CTypeResult r = parseCType(text, nullptr, language);
  if (!r.ok())
    return "error: " + (r.errors.empty() ? std::string("?") : r.errors.front().message);
  return typeName(r.type);
}

std::string firstError(std::string_view text) {
  CDeclResult r = parseCDecls(text);
  return r.errors.empty() ? "" : formatError("h.h", r.errors.front());
}

TEST(CDeclTypes, IntegerAndFloatingSpellings) {
  EXPECT_EQ(spell("char"), "char");
  EXPECT_EQ(spell("signed char"), "signed char");
  EXPECT_EQ(spell("char unsigned"), "unsigned char");
  EXPECT_EQ(spell("short"), "short");
  EXPECT_EQ(spell("short int"), "short");
  EXPECT_EQ(spell("signed short int"), "short");
  EXPECT_EQ(spell("unsigned short"), "unsigned short");
  EXPECT_EQ(spell("int"), "int");
  EXPECT_EQ(spell("signed"), "int");
  EXPECT_EQ(spell("unsigned"), "unsigned int");
  EXPECT_EQ(spell("long"), "long");
  EXPECT_EQ(spell("long int"), "long");
  EXPECT_EQ(spell("long unsigned int"), "unsigned long");
  EXPECT_EQ(spell("long long"), "long long");
  EXPECT_EQ(spell("signed long long int"), "long long");
  EXPECT_EQ(spell("unsigned long long int"), "unsigned long long");
  EXPECT_EQ(spell("long unsigned long"), "unsigned long long");
  EXPECT_EQ(spell("_Bool"), "_Bool");
  EXPECT_EQ(spell("bool"), "_Bool");
  EXPECT_EQ(spell("float"), "float");
  EXPECT_EQ(spell("double"), "double");
  EXPECT_EQ(spell("long double"), "long double");
  EXPECT_EQ(spell("__half"), "__half");
  EXPECT_EQ(spell("const volatile int"), "int");
}

TEST(CDeclTypes, InvalidCombinations) {
  for (const char *bad : {"short long", "unsigned float", "signed unsigned", "long long long", "char int", "double int",
                          "long long double", "signed _Bool"})
    EXPECT_EQ(spell(bad).substr(0, 6), "error:") << bad;
}

TEST(CDeclTypes, PointersArraysAndSpaces) {
  EXPECT_EQ(spell("int *"), "int *");
  EXPECT_EQ(spell("const char * const *"), "char * *");
  EXPECT_EQ(spell("double[2][3]"), "double[2][3]");
  CTypeResult r = parseCType("double[2][3]");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.type->count, 2u);
  EXPECT_EQ(r.type->element->count, 3u);
  r = parseCType("__global float *", nullptr, SourceLanguage::OpenCL);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.type->space, AddressSpace::Global);
  r = parseCType("local int *", nullptr, SourceLanguage::OpenCL);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.type->space, AddressSpace::Shared);
  EXPECT_EQ(spell("int[4 * 2 + (1 << 2)]"), "int[12]");
  EXPECT_EQ(spell("char[0x10]"), "char[16]");
}

TEST(CDeclTypes, VectorAndOpaqueNames) {
  EXPECT_EQ(spell("float4"), "float4");
  EXPECT_EQ(parseCType("uint3").type->kind, TypeKind::Vector);
  EXPECT_EQ(parseCType("uint3").type->scalar, Scalar::UInt);
  EXPECT_EQ(parseCType("ulonglong2").type->scalar, Scalar::ULongLong);
  EXPECT_EQ(spell("float5"), "error: expected a type before 'float5'");
  EXPECT_EQ(spell("float8").substr(0, 6), "error:"); // CUDA has no 8-element vectors
  EXPECT_EQ(spell("float8", SourceLanguage::OpenCL), "float8");
  EXPECT_EQ(parseCType("uchar", nullptr, SourceLanguage::OpenCL).type->scalar, Scalar::UChar);
  EXPECT_EQ(parseCType("texref").type->opaque, OpaqueKind::Texture);
  EXPECT_EQ(parseCType("sampler_t", nullptr, SourceLanguage::OpenCL).type->opaque, OpaqueKind::Sampler);
  EXPECT_EQ(parseCType("write_only image2d_t", nullptr, SourceLanguage::OpenCL).type->opaque, OpaqueKind::Surface);
  EXPECT_EQ(parseCType("image2d_t", nullptr, SourceLanguage::OpenCL).type->opaque, OpaqueKind::Texture);
}

TEST(CDeclHeader, DefinitionsTypedefsAndLookup) {
  CDeclResult r = parseCDecls(R"(
#pragma once
#ifndef POINT_H
#define POINT_H
/* a point */
struct Point { float x, y; };   // two floats
typedef struct Point Point_t;
typedef struct { int a; union { short s; char c; } u; } Anon;
union Bits { unsigned raw; struct { unsigned lo:16, hi:16; } parts; };
enum Color { Red, Green = 5, Blue };
typedef int Vec[3];
struct UsesAll { Point_t p; Anon a; enum Color c; Vec v; char tail[Blue]; };
#endif
)");
  ASSERT_TRUE(r.ok()) << formatError("h.h", r.errors.front());
  std::vector<std::string> names;
  for (const NamedType &t : r.header.types)
    names.push_back(t.name + (t.isTypedef ? "(typedef)" : ""));
  EXPECT_EQ(names, (std::vector<std::string>{"Point", "Point_t(typedef)", "Anon(typedef)", "Bits", "Color",
                                             "Vec(typedef)", "UsesAll"}));
  EXPECT_EQ(r.header.find("struct Point")->type->fields.size(), 2u);
  EXPECT_EQ(r.header.find("Point")->line, 6u);
  EXPECT_EQ(r.header.find("union Point"), nullptr);
  EXPECT_EQ(r.header.find("union Bits")->type->isUnion, true);
  EXPECT_EQ(r.header.find("enum Color")->type->kind, TypeKind::Enum);
  EXPECT_EQ(r.header.find("Missing"), nullptr);
  Layout l = layoutOf(r.header.find("UsesAll")->type, 64);
  // p 0..8, a (int + union of 2) 8..16, c 16..20, v 20..32, tail[6] 32..38, size 40
  EXPECT_EQ(l.members[4].byteOffset, 32u);
  EXPECT_EQ(l.members[4].size, 6u);
  EXPECT_EQ(l.size, 40u);
  EXPECT_EQ(typeName(l.members[0].type), "Point_t");
  EXPECT_EQ(typeName(l.members[2].type), "enum Color");
}

TEST(CDeclHeader, NestedNamedDefinitionsAreVisible) {
  CDeclResult r = parseCDecls("struct Outer { struct Inner { int x; } in; }; struct Other { struct Inner i; };");
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r.header.types.size(), 3u);
  EXPECT_EQ(r.header.types[0].name, "Inner");
  EXPECT_EQ(layoutOf(r.header.find("Other")->type, 64).size, 4u);
}

TEST(CDeclHeader, CxxTagNamesAndAlignmentSpellings) {
  CDeclResult r = parseCDecls(R"(
struct alignas(16) A { float v; };
struct B { A a; char c; };
struct __attribute__((__aligned__(32))) C { char c; };
struct D { char c; } __attribute__((aligned));
typedef int Aligned8 __attribute__((aligned(8)));
struct __builtin_align__(8) E { int i; };
)");
  ASSERT_TRUE(r.ok()) << formatError("h.h", r.errors.front());
  EXPECT_EQ(layoutOf(r.header.find("B")->type, 64).size, 32u);
  EXPECT_EQ(layoutOf(r.header.find("C")->type, 64).align, 32u);
  EXPECT_EQ(layoutOf(r.header.find("D")->type, 64).align, 16u);
  EXPECT_EQ(layoutOf(r.header.find("Aligned8")->type, 64).align, 8u);
  EXPECT_EQ(layoutOf(r.header.find("E")->type, 64).size, 8u);
}

TEST(CDeclHeader, EnumUnderlyingTypesAndConstants) {
  CDeclResult r =
      parseCDecls("enum Small : unsigned char { X = 1 << 3, Y }; struct S { char a[Y - X + 1]; enum Small e; };");
  ASSERT_TRUE(r.ok()) << formatError("h.h", r.errors.front());
  Layout l = layoutOf(r.header.find("S")->type, 64);
  EXPECT_EQ(l.members[0].size, 2u);
  EXPECT_EQ(l.size, 3u);
}

TEST(CDeclTypes, SingleTypeWithContext) {
  CDeclResult header = parseCDecls("typedef struct { char c; double d; } Pair;");
  ASSERT_TRUE(header.ok());
  CTypeResult r = parseCType("Pair", &header.header);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(layoutOf(r.type, 64).size, 16u);
  r = parseCType("struct {char c; double d;}");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(typeName(r.type), "struct <anonymous>");
  EXPECT_EQ(layoutOf(r.type, 64).size, 16u);
  EXPECT_FALSE(parseCType("Pair").ok());
  EXPECT_FALSE(parseCType("int x").ok());
  EXPECT_FALSE(parseCType("").ok());
}

TEST(CDeclErrors, LineAndColumn) {
  EXPECT_EQ(firstError("#include <stdio.h>\n"),
            "h.h:1:1: error: #include is not supported: put the declarations themselves in the input");
  EXPECT_EQ(firstError("struct S {\n  int x;\n  float f:3 __attribute__((packed));\n};"),
            "h.h:3:28: error: __attribute__((packed)) is not supported (the PTX ABI has no packed layout)");
  EXPECT_EQ(firstError("int f(int x);"), "h.h:1:6: error: function declarations are not supported");
  EXPECT_EQ(firstError("struct S { int x[]; };"), "h.h:1:18: error: arrays of unknown size are not supported");
  EXPECT_EQ(firstError("struct S { foo x; };"), "h.h:1:12: error: unknown type name 'foo'");
  EXPECT_EQ(firstError("struct S { int x:0; };"), "h.h:1:18: error: named bit field 'x' has zero width");
  // Issue #31: widths and alignments as C reads them, not narrowed or wrapped.
  EXPECT_EQ(firstError("struct S { int x:-1; };"), "h.h:1:18: error: bit field 'x' has a negative width (-1)");
  EXPECT_EQ(firstError("struct S { int x:4294967297; };"),
            "h.h:1:18: error: bit field 'x' is 4294967297 bits wide, wider than any integer type (64 bits, §1.3)");
  EXPECT_EQ(firstError("struct S { _Alignas(536870912) int x; };"),
            "h.h:1:21: error: requested alignment 536870912 is larger than 2^28, the largest alignment laid out");
  EXPECT_EQ(firstError("struct S { _Alignas(24) int x; };"),
            "h.h:1:21: error: requested alignment 24 is not a power of two");
  EXPECT_EQ(firstError("struct S { int x; int x; };"), "h.h:1:23: error: duplicate member 'x'");
  EXPECT_EQ(firstError("struct S { int x; };\nstruct S { int y; };"), "h.h:2:8: error: redefinition of 'struct S'");
  EXPECT_EQ(firstError("#define N 4\n"), "h.h:1:1: error: macros are not supported (only include-guard #define NAME)");
  EXPECT_EQ(firstError("struct S { char c[sizeof(int)]; };"),
            "h.h:1:19: error: 'sizeof' in a constant expression is not supported");
  EXPECT_EQ(firstError("struct S { int x; }"), "h.h:1:20: error: expected ';' before end of input");
  EXPECT_EQ(firstError("/* open"), "h.h:1:1: error: unterminated comment");
  EXPECT_EQ(firstError("struct S { int (*fp)(int); };"),
            "h.h:1:16: error: function and parenthesized declarators are not supported");
}

TEST(CDeclErrors, RecoversAndKeepsGoing) {
  CDeclResult r = parseCDecls("struct A { int x; };\nstruct B { bogus y; };\nstruct C { char c; };\nint f(void);\n"
                              "struct D { short s; };");
  ASSERT_EQ(r.errors.size(), 2u);
  EXPECT_EQ(r.errors[0].line, 2u);
  EXPECT_EQ(r.errors[1].line, 4u);
  EXPECT_NE(r.header.find("A"), nullptr);
  EXPECT_NE(r.header.find("C"), nullptr);
  EXPECT_NE(r.header.find("D"), nullptr);
  EXPECT_EQ(r.header.find("B"), nullptr);
}

// OpenCL C: size_t and its kin are as wide as an address; a .cl file's kernels and functions are skipped
// (their bodies hold float constants and statements), so that the types beside them can be laid out.
TEST(CDeclOpenCL, AddressSizedTypesAndFunctionsSkipped) {
  EXPECT_EQ(spell("size_t", SourceLanguage::OpenCL), "size_t");
  EXPECT_EQ(parseCType("size_t", nullptr, SourceLanguage::OpenCL).type->scalar, Scalar::ULong);
  EXPECT_EQ(parseCType("ptrdiff_t", nullptr, SourceLanguage::OpenCL).type->scalar, Scalar::Long);
  EXPECT_EQ(parseCType("uintptr_t", nullptr, SourceLanguage::OpenCL).type->scalar, Scalar::ULong);
  EXPECT_EQ(spell("size_t").substr(0, 6), "error:"); // CUDA: a typedef of <stddef.h>, not built in
  EXPECT_EQ(spell("half", SourceLanguage::OpenCL), "half");
  EXPECT_EQ(parseCType("half", nullptr, SourceLanguage::OpenCL).type->scalar, Scalar::Half);

  CDeclResult r = parseCDecls(R"(
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
typedef struct { float a; float3 b; char c; } Particle;
float scale(float x);
inline float twice(float x) { return 2.0f * x; }
__kernel __attribute__((reqd_work_group_size(64, 1, 1)))
void step(__global Particle *p, const float dt, __local float *tile) {
  size_t i = get_global_id(0);
  if (i < 4) { p[i].b.x += dt * 1.5e-3f; tile[i] = 0.5; }
  barrier(CLK_LOCAL_MEM_FENCE);
}
kernel void empty(void) {}
struct Tail { double2 d; };
)",
                              SourceLanguage::OpenCL);
  ASSERT_TRUE(r.ok()) << formatError("k.cl", r.errors.front());
  ASSERT_EQ(r.header.types.size(), 2u);
  EXPECT_EQ(r.header.types[0].name, "Particle");
  EXPECT_EQ(r.header.types[1].name, "Tail");
  EXPECT_EQ(r.header.types[1].line, 13u);

  // Constants inside the types are still read as integers, and CUDA still refuses functions.
  r = parseCDecls("struct S { char c[1.5f]; };", SourceLanguage::OpenCL);
  ASSERT_EQ(r.errors.size(), 1u);
  EXPECT_EQ(formatError("k.cl", r.errors[0]), "k.cl:1:19: error: invalid integer constant '1.5f'");
  EXPECT_EQ(firstError("void k(void) {}"), "h.h:1:7: error: function declarations are not supported");
  r = parseCDecls("void f(int x) { if (x) {", SourceLanguage::OpenCL);
  ASSERT_EQ(r.errors.size(), 1u);
  EXPECT_EQ(formatError("k.cl", r.errors[0]), "k.cl:1:1: error: unterminated function body");
}

} // namespace
} // namespace ptxray::abi
