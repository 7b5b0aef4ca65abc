// Data layout (ptx-interoperability.md §1): the fundamental type table (§1.1), aggregates, unions and
// vectors (§1.2), every bit-field rule and Figures 1-6 (§1.3), opaque handles (§1.4). Expected values
// are derived by hand from the guide's rules.
#include "abi/Layout.h"
#include "abi/CDeclParser.h"

#include <gtest/gtest.h>

namespace ptxray::abi {
namespace {

// Parses `decls` and lays out the type called `name` (the last definition when empty).
Layout lay(std::string_view decls, std::string_view name = {}, unsigned addressSize = 64) {
  CDeclResult parsed = parseCDecls(decls);
  EXPECT_TRUE(parsed.ok()) << (parsed.errors.empty() ? "" : formatError("test.h", parsed.errors.front()));
  const NamedType *t =
      name.empty() ? (parsed.header.types.empty() ? nullptr : &parsed.header.types.back()) : parsed.header.find(name);
  if (t == nullptr)
    throw AbiError("test type not found");
  return layoutOf(t->type, addressSize);
}

Layout layType(std::string_view type, unsigned addressSize = 64) {
  CTypeResult parsed = parseCType(type);
  EXPECT_TRUE(parsed.ok()) << (parsed.errors.empty() ? "" : parsed.errors.front().message);
  if (!parsed.type)
    throw AbiError("test type did not parse");
  return layoutOf(parsed.type, addressSize);
}

const MemberLayout &member(const Layout &layout, std::string_view name) {
  for (const MemberLayout &m : layout.members)
    if (m.name == name)
      return m;
  throw AbiError("no member " + std::string(name));
}

// "name@bitOffset:bitWidth" for every member, unnamed ones as "_".
std::string placement(const Layout &layout) {
  std::string out;
  for (const MemberLayout &m : layout.members)
    out += (out.empty() ? "" : " ") + (m.name.empty() ? std::string("_") : m.name) + "@" + std::to_string(m.bitOffset) +
           ":" + std::to_string(m.bitWidth);
  return out;
}

std::string holes(const Layout &layout) {
  std::string out;
  for (const Hole &h : layout.holes)
    out +=
        (out.empty() ? "" : " ") + std::to_string(h.bitOffset) + "+" + std::to_string(h.bitCount) + (h.tail ? "t" : "");
  return out;
}

// §1.1: size and alignment of the fundamental types.
TEST(LayoutFundamental, SizeAndAlignmentTable) {
  struct Row {
    const char *type;
    std::uint64_t size;
    unsigned align;
  };
  for (Row r : {Row{"char", 1, 1}, Row{"signed char", 1, 1}, Row{"unsigned char", 1, 1}, Row{"_Bool", 1, 1},
                Row{"short", 2, 2}, Row{"unsigned short", 2, 2}, Row{"__half", 2, 2}, Row{"int", 4, 4},
                Row{"unsigned int", 4, 4}, Row{"float", 4, 4}, Row{"long long", 8, 8}, Row{"unsigned long long", 8, 8},
                Row{"double", 8, 8}, Row{"texref", 8, 8}, Row{"samplerref", 8, 8}, Row{"surfref", 8, 8}}) {
    for (unsigned as : {32u, 64u}) {
      Layout l = layType(r.type, as);
      EXPECT_EQ(l.size, r.size) << r.type;
      EXPECT_EQ(l.align, r.align) << r.type;
    }
  }
}

// §1.1: pointer and long sizes are the host's: 32-bit hosts are ILP32, 64-bit hosts LP64.
TEST(LayoutFundamental, PointersAndLongFollowTheAddressSize) {
  EXPECT_EQ(layType("int *", 32).size, 4u);
  EXPECT_EQ(layType("int *", 64).size, 8u);
  EXPECT_EQ(layType("char *", 64).align, 8u);
  EXPECT_EQ(layType("long", 32).size, 4u);
  EXPECT_EQ(layType("unsigned long", 64).size, 8u);
  EXPECT_EQ(layType("long", 64).align, 8u);
}

TEST(LayoutFundamental, LongDoubleAndVoidHaveNoLayout) {
  EXPECT_THROW(layType("long double"), AbiError);
  EXPECT_THROW(layoutOf(voidType(), 64), AbiError);
  EXPECT_THROW(layoutOf(scalarType(Scalar::Int), 16), AbiError);
}

TEST(LayoutFundamental, PtxTypeOfEachScalar) {
  EXPECT_EQ(ptxScalarType(Scalar::Char, 64), ".s8");
  EXPECT_EQ(ptxScalarType(Scalar::UShort, 64), ".u16");
  EXPECT_EQ(ptxScalarType(Scalar::Long, 32), ".s32");
  EXPECT_EQ(ptxScalarType(Scalar::Long, 64), ".s64");
  EXPECT_EQ(ptxScalarType(Scalar::Half, 64), ".f16");
  EXPECT_EQ(ptxScalarType(Scalar::Double, 64), ".f64");
}

// §1.2: native vectors: odd element counts align like the element, even counts n * alignof(t).
TEST(LayoutVector, NativeVectorAlignment) {
  struct Row {
    const char *type;
    std::uint64_t size;
    unsigned align;
  };
  for (Row r : {Row{"char1", 1, 1},     Row{"char2", 2, 2},     Row{"char3", 3, 1},        Row{"uchar4", 4, 4},
                Row{"short1", 2, 2},    Row{"short2", 4, 4},    Row{"short3", 6, 2},       Row{"ushort4", 8, 8},
                Row{"int1", 4, 4},      Row{"int2", 8, 8},      Row{"int3", 12, 4},        Row{"uint4", 16, 16},
                Row{"float2", 8, 8},    Row{"float3", 12, 4},   Row{"float4", 16, 16},     Row{"double1", 8, 8},
                Row{"double2", 16, 16}, Row{"longlong1", 8, 8}, Row{"ulonglong2", 16, 16}, Row{"__half2", 4, 4},
                Row{"long2", 16, 16}}) {
    Layout l = layType(r.type, 64);
    EXPECT_EQ(l.size, r.size) << r.type;
    EXPECT_EQ(l.align, r.align) << r.type;
  }
  EXPECT_EQ(layType("long2", 32).size, 8u);
  EXPECT_EQ(layType("long2", 32).align, 8u);
}

// 3- and 4-element vectors of 8-byte elements are not native vectors (§1.2); CUDA aligns them to 8 and 16
// (and CUDA 13's double4_32a to 32).
TEST(LayoutVector, WideVectorsFollowCuda) {
  EXPECT_EQ(layType("double3").align, 8u);
  EXPECT_EQ(layType("double3").size, 24u);
  EXPECT_EQ(layType("double4").align, 16u);
  EXPECT_EQ(layType("double4").size, 32u);
  EXPECT_EQ(layType("double4_32a").align, 32u);
  EXPECT_EQ(layType("longlong4_16a").align, 16u);
}

// §1.2: OpenCL built-in vectors are aligned to their size; 3-element ones take the room of 4.
TEST(LayoutVector, OpenClVectorsAlignedToTheirSize) {
  auto cl = [](std::string_view t) {
    CTypeResult r = parseCType(t, nullptr, SourceLanguage::OpenCL);
    EXPECT_TRUE(r.ok()) << t;
    return layoutOf(r.type, 64);
  };
  EXPECT_EQ(cl("float3").size, 16u);
  EXPECT_EQ(cl("float3").align, 16u);
  EXPECT_EQ(cl("char3").size, 4u);
  EXPECT_EQ(cl("char3").align, 4u);
  EXPECT_EQ(cl("float8").align, 32u);
  EXPECT_EQ(cl("double16").size, 128u);
  EXPECT_EQ(cl("double16").align, 128u);
  EXPECT_EQ(cl("long2").size, 16u); // OpenCL long is 64-bit
  EXPECT_EQ(cl("long").size, 8u);
  EXPECT_EQ(layoutOf(cl("long").type, 32).size, 8u);
  EXPECT_EQ(cl("uint").size, 4u);
}

// §1.2: "in OpenCL built-in vector data types have their alignment set to the size of the built-in data
// type": structs holding them are padded to those alignments, where CUDA's vector structs align like
// their elements (odd counts) or at most 16 bytes. Offsets derived by hand from the rules of §1.2.
TEST(LayoutVector, OpenClStructsAlignTheirVectorsToTheirSize) {
  auto cl = [](std::string_view decls, unsigned addressSize = 64) {
    CDeclResult parsed = parseCDecls(decls, SourceLanguage::OpenCL);
    EXPECT_TRUE(parsed.ok()) << (parsed.errors.empty() ? "" : formatError("test.cl", parsed.errors.front()));
    if (parsed.header.types.empty())
      throw AbiError("test type not found");
    return layoutOf(parsed.header.types.back().type, addressSize);
  };
  // float3: 16 bytes aligned to 16, so b moves from 4 to 16 and the struct to 48 bytes.
  Layout l = cl("struct S { float a; float3 b; char c; };");
  EXPECT_EQ(placement(l), "a@0:32 b@128:128 c@256:8");
  EXPECT_EQ(l.size, 48u);
  EXPECT_EQ(l.align, 16u);
  EXPECT_EQ(holes(l), "32+96 264+120t");
  // The same declaration in CUDA: float3 is 12 bytes aligned to 4.
  l = lay("struct S { float a; float3 b; char c; };");
  EXPECT_EQ(placement(l), "a@0:32 b@32:96 c@128:8");
  EXPECT_EQ(l.size, 20u);
  EXPECT_EQ(l.align, 4u);

  l = cl("struct S { char c; double2 d; };"); // double2: 16, aligned 16 (CUDA too)
  EXPECT_EQ(member(l, "d").byteOffset, 16u);
  EXPECT_EQ(l.size, 32u);
  l = cl("struct S { char c; double3 d; };"); // double3: the room of a double4, 32 aligned to 32
  EXPECT_EQ(member(l, "d").byteOffset, 32u);
  EXPECT_EQ(member(l, "d").size, 32u);
  EXPECT_EQ(l.size, 64u);
  EXPECT_EQ(l.align, 32u);
  l = cl("struct S { int8 v; char c; };"); // int8: 32 bytes aligned to 32
  EXPECT_EQ(member(l, "c").byteOffset, 32u);
  EXPECT_EQ(l.size, 64u);
  EXPECT_EQ(l.align, 32u);
  l = cl("struct S { uchar u; half h; short2 s; char3 t; ulong16 w; };");
  EXPECT_EQ(placement(l), "u@0:8 h@16:16 s@32:32 t@64:32 w@1024:1024");
  EXPECT_EQ(l.size, 256u);
  EXPECT_EQ(l.align, 128u);
  l = cl("struct S { char c; float4 v[2]; };");
  EXPECT_EQ(member(l, "v").byteOffset, 16u);
  EXPECT_EQ(l.size, 48u);

  // size_t follows the address size; long stays 64-bit.
  l = cl("struct S { char c; size_t n; int i; long l; };");
  EXPECT_EQ(placement(l), "c@0:8 n@64:64 i@128:32 l@192:64");
  EXPECT_EQ(l.size, 32u);
  l = cl("struct S { char c; size_t n; int i; long l; };", 32);
  EXPECT_EQ(placement(l), "c@0:8 n@32:32 i@64:32 l@128:64");
  EXPECT_EQ(l.size, 24u);
  EXPECT_EQ(l.align, 8u);

  // Nested: a struct holding the 48-byte S is aligned to 16 like it.
  l = cl("struct S { float a; float3 b; char c; }; struct T { char x; struct S s; float2 f; };");
  EXPECT_EQ(placement(l), "x@0:8 s@128:384 f@512:64");
  EXPECT_EQ(l.size, 80u);
  EXPECT_EQ(l.align, 16u);
}

// §1.2: an aggregate aligns like its most strictly aligned member; members at the lowest aligned offset.
TEST(LayoutAggregate, InternalAndTailPadding) {
  Layout l = layType("struct {char c; double d;}");
  EXPECT_EQ(l.size, 16u);
  EXPECT_EQ(l.align, 8u);
  EXPECT_EQ(placement(l), "c@0:8 d@64:64");
  EXPECT_EQ(holes(l), "8+56");

  l = layType("struct {double d; char c;}");
  EXPECT_EQ(l.size, 16u);
  EXPECT_EQ(holes(l), "72+56t");

  l = lay("struct S { char a; short b; char c; int d; };");
  EXPECT_EQ(l.size, 12u);
  EXPECT_EQ(l.align, 4u);
  EXPECT_EQ(member(l, "b").byteOffset, 2u);
  EXPECT_EQ(member(l, "c").byteOffset, 4u);
  EXPECT_EQ(member(l, "d").byteOffset, 8u);
  EXPECT_EQ(holes(l), "8+8 40+24");
}

TEST(LayoutAggregate, UnionIsItsLargestMemberRoundedToItsAlignment) {
  Layout l = lay("union U { char c; int i; double d; };");
  EXPECT_EQ(l.size, 8u);
  EXPECT_EQ(l.align, 8u);
  EXPECT_EQ(placement(l), "c@0:8 i@0:32 d@0:64");
  EXPECT_TRUE(l.holes.empty());
  l = lay("union V { char c[5]; short s; };");
  EXPECT_EQ(l.size, 6u);
  EXPECT_EQ(l.align, 2u);
  EXPECT_EQ(holes(l), "40+8t");
}

TEST(LayoutAggregate, NestedArraysAndVectorMembers) {
  Layout l = lay("struct O { char c; struct I { short s; char t; } i; char d; };", "O");
  EXPECT_EQ(l.size, 8u);
  EXPECT_EQ(l.align, 2u);
  const MemberLayout &i = member(l, "i");
  EXPECT_EQ(i.byteOffset, 2u);
  EXPECT_EQ(i.size, 4u);
  ASSERT_EQ(i.members.size(), 2u);
  EXPECT_EQ(i.members[1].name, "t");
  EXPECT_EQ(i.members[1].byteOffset, 4u); // from the start of O
  EXPECT_EQ(member(l, "d").byteOffset, 6u);
  EXPECT_EQ(holes(l), "8+8 40+8 56+8t"); // the hole inside I counts too

  l = layType("struct { char c[3]; short s; int a[2][3]; }");
  EXPECT_EQ(member(l, "s").byteOffset, 4u);
  EXPECT_EQ(member(l, "a").byteOffset, 8u);
  EXPECT_EQ(member(l, "a").size, 24u);
  EXPECT_EQ(l.size, 32u);

  l = layType("struct { char c; float4 v; }");
  EXPECT_EQ(member(l, "v").byteOffset, 16u);
  EXPECT_EQ(l.size, 32u);
  EXPECT_EQ(l.align, 16u);
}

TEST(LayoutAggregate, PointersInStructsDependOnAddressSize) {
  const char *decl = "struct P { char c; int *p; };";
  EXPECT_EQ(lay(decl, "P", 32).size, 8u);
  EXPECT_EQ(lay(decl, "P", 64).size, 16u);
  EXPECT_EQ(member(lay(decl, "P", 64), "p").byteOffset, 8u);
}

// §1.2: "not followed if the alignments are defined by the input language": alignment attributes.
TEST(LayoutAggregate, AlignmentOverrides) {
  Layout l = lay("struct __align__(16) A { int x; };");
  EXPECT_EQ(l.size, 16u);
  EXPECT_EQ(l.align, 16u);
  l = lay("struct B { char c; int x __attribute__((aligned(8))); };");
  EXPECT_EQ(member(l, "x").byteOffset, 8u);
  EXPECT_EQ(l.size, 16u);
  EXPECT_EQ(l.align, 8u);
  l = lay("struct C { char c; alignas(16) char d; };");
  EXPECT_EQ(member(l, "d").byteOffset, 16u);
  EXPECT_EQ(l.size, 32u);
  l = lay("typedef struct { float x, y; } __attribute__((aligned(8))) F2;", "F2");
  EXPECT_EQ(l.size, 8u);
  EXPECT_EQ(l.align, 8u);
  l = lay("struct D { _Alignas(double) char c; };");
  EXPECT_EQ(l.align, 8u);
  EXPECT_EQ(l.size, 8u);
  // An override never lowers the natural alignment.
  l = lay("struct E { double d __attribute__((aligned(2))); };");
  EXPECT_EQ(l.align, 8u);
}

// Figure 1: bit numbering. Bit 0 is the least significant bit of byte 0; byte 3 holds bits 24-31.
TEST(LayoutBitField, Figure1BitNumbering) {
  Layout l = lay("struct F1 { unsigned a:8; unsigned b:8; unsigned c:8; unsigned d:8; };");
  EXPECT_EQ(placement(l), "a@0:8 b@8:8 c@16:8 d@24:8");
  EXPECT_EQ(member(l, "d").byteOffset, 3u);
  EXPECT_EQ(l.size, 4u);
}

// Figure 2: bit fields allocated right to left (from the least significant bit).
TEST(LayoutBitField, Figure2Allocation) {
  Layout l = lay("struct F2 { int j:5; int k:6; int m:7; };");
  EXPECT_EQ(placement(l), "j@0:5 k@5:6 m@11:7");
  EXPECT_EQ(l.size, 4u);
  EXPECT_EQ(l.align, 4u);
  EXPECT_EQ(holes(l), "18+14t");
}

// Figure 3: boundary alignment: a field never crosses a unit of its declared type.
TEST(LayoutBitField, Figure3BoundaryAlignment) {
  Layout l = lay("struct F3 { short s:9; int j:9; char c; short t:9; short u:9; char d; };");
  EXPECT_EQ(placement(l), "s@0:9 j@9:9 c@24:8 t@32:9 u@48:9 d@64:8");
  EXPECT_EQ(l.size, 12u);
  EXPECT_EQ(l.align, 4u);
  EXPECT_EQ(holes(l), "18+6 41+7 57+7 72+24t");
}

// Figure 4: a bit field shares a storage unit with an ordinary member.
TEST(LayoutBitField, Figure4StorageUnitSharing) {
  Layout l = lay("struct F4 { char c; short s:8; };");
  EXPECT_EQ(placement(l), "c@0:8 s@8:8");
  EXPECT_EQ(l.size, 2u);
  EXPECT_EQ(l.align, 2u);
  EXPECT_TRUE(l.holes.empty());
}

// Figure 5: union allocation.
TEST(LayoutBitField, Figure5UnionAllocation) {
  Layout l = lay("union F5 { char c; short s:8; };");
  EXPECT_EQ(placement(l), "c@0:8 s@0:8");
  EXPECT_EQ(l.size, 2u);
  EXPECT_EQ(l.align, 2u);
  EXPECT_EQ(holes(l), "8+8t");
}

// Figure 6: unnamed bit fields: zero-length ones move the next member, none affect the alignment.
TEST(LayoutBitField, Figure6UnnamedBitFields) {
  Layout l = lay("struct F6 { char c; int :0; char d; short :9; char e; char :0; };");
  EXPECT_EQ(placement(l), "c@0:8 _@32:0 d@32:8 _@48:9 e@64:8 _@72:0");
  EXPECT_EQ(l.size, 9u);
  EXPECT_EQ(l.align, 1u);
  EXPECT_EQ(holes(l), "8+24 40+24"); // unnamed fields are padding
}

// Plain bit fields are signed; "signed :6" without a type is an int.
TEST(LayoutBitField, PlainIsSignedAndTheDefaultTypeIsInt) {
  CDeclResult r = parseCDecls("struct S { int a:3; char b:3; signed c:6; unsigned d:4; signed :6; };");
  ASSERT_TRUE(r.ok());
  const Type &s = *r.header.find("S")->type;
  ASSERT_EQ(s.fields.size(), 5u);
  EXPECT_TRUE(isSigned(s.fields[0].type->scalar));
  EXPECT_TRUE(isSigned(s.fields[1].type->scalar));
  EXPECT_EQ(s.fields[2].type->scalar, Scalar::Int);
  EXPECT_EQ(s.fields[3].type->scalar, Scalar::UInt);
  EXPECT_EQ(s.fields[4].type->scalar, Scalar::Int);
  EXPECT_EQ(*s.fields[4].bitWidth, 6u);
}

TEST(LayoutBitField, NeverCrossesAUnitOfItsType) {
  EXPECT_EQ(placement(lay("struct S { char a:6; char b:4; };")), "a@0:6 b@8:4");
  EXPECT_EQ(lay("struct S { char a:6; char b:4; };").size, 2u);
  // The same widths in an int fit one unit.
  EXPECT_EQ(placement(lay("struct S { int a:6; int b:4; };")), "a@0:6 b@6:4");
  Layout l = lay("struct S { long long a:40; int b:30; };");
  EXPECT_EQ(placement(l), "a@0:40 b@64:30");
  EXPECT_EQ(l.size, 16u);
  EXPECT_EQ(l.align, 8u);
  EXPECT_EQ(placement(lay("struct S { long long a:40; int b:20; };")), "a@0:40 b@40:20");
}

TEST(LayoutBitField, SharesUnitsWithOrdinaryMembers) {
  Layout l = lay("struct S { char c; int i:8; };");
  EXPECT_EQ(placement(l), "c@0:8 i@8:8");
  EXPECT_EQ(l.size, 4u);
  EXPECT_EQ(l.align, 4u);
  l = lay("struct S { short s:4; char c; };");
  EXPECT_EQ(placement(l), "s@0:4 c@8:8");
  EXPECT_EQ(l.size, 2u);
  l = lay("struct S { int i:20; short s; };");
  EXPECT_EQ(placement(l), "i@0:20 s@32:16"); // the ordinary member goes to its own aligned offset
  EXPECT_EQ(l.size, 8u);
}

TEST(LayoutBitField, UnnamedFieldsDoNotAffectAlignment) {
  Layout l = lay("struct S { char c; long long :8; };");
  EXPECT_EQ(l.size, 2u);
  EXPECT_EQ(l.align, 1u);
  l = lay("struct S { char c; long long x:8; };");
  EXPECT_EQ(l.size, 8u);
  EXPECT_EQ(l.align, 8u);
}

TEST(LayoutBitField, ZeroLengthFieldsForceTheNextBoundary) {
  Layout l = lay("struct S { char a; int :0; char b; };");
  EXPECT_EQ(member(l, "b").byteOffset, 4u);
  EXPECT_EQ(l.size, 5u);
  EXPECT_EQ(l.align, 1u);
  l = lay("struct S { int a; int :0; char b; };"); // already at the boundary: no effect
  EXPECT_EQ(member(l, "b").byteOffset, 4u);
  l = lay("struct S { char a:3; long long :0; char b:3; };");
  EXPECT_EQ(placement(l), "a@0:3 _@64:0 b@64:3");
  EXPECT_EQ(l.size, 9u);
}

TEST(LayoutBitField, UnionsOfBitFields) {
  Layout l = lay("union U { int a:3; long long b:40; char c; };");
  EXPECT_EQ(placement(l), "a@0:3 b@0:40 c@0:8");
  EXPECT_EQ(l.size, 8u);
  EXPECT_EQ(l.align, 8u);
  l = lay("union U { char c; int :20; };"); // unnamed: size, not alignment
  EXPECT_EQ(l.size, 3u);
  EXPECT_EQ(l.align, 1u);
}

TEST(LayoutBitField, EnumAndTypedefBitFields) {
  Layout l = lay("enum E { A, B }; typedef unsigned char u8; struct S { enum E e:2; u8 x:3; u8 y:6; };", "S");
  EXPECT_EQ(placement(l), "e@0:2 x@2:3 y@8:6");
  EXPECT_EQ(l.size, 4u);
}

TEST(LayoutBitField, Errors) {
  auto fails = [](std::string_view decl) {
    CDeclResult r = parseCDecls(decl);
    if (!r.ok())
      return true;
    try {
      layoutOf(r.header.types.back().type, 64);
    } catch (const AbiError &) {
      return true;
    }
    return false;
  };
  EXPECT_TRUE(fails("struct S { char c:9; };"));
  EXPECT_TRUE(fails("struct S { int x:0; };"));
  EXPECT_TRUE(fails("struct S { float f:3; };"));
  EXPECT_TRUE(fails("struct S { _Bool b:2; };"));
  EXPECT_TRUE(fails("struct S { int *p:3; };"));
  EXPECT_FALSE(fails("struct S { long long x:64; _Bool b:1; };"));
}

// §1.4: texture, sampler and surface references are 64-bit handles.
TEST(LayoutOpaque, HandlesAreEightBytes) {
  Layout l = layType("struct { char c; texref t; surfref s; }");
  EXPECT_EQ(member(l, "t").byteOffset, 8u);
  EXPECT_EQ(member(l, "s").byteOffset, 16u);
  EXPECT_EQ(l.size, 24u);
}

TEST(LayoutAggregate, IncompleteTypesHaveNoLayoutButPointersToThemDo) {
  Layout l = lay("struct Node { int v; struct Node *next; };", "Node");
  EXPECT_EQ(l.size, 16u);
  CDeclResult r = parseCDecls("struct Fwd; struct Use { struct Fwd *p; };");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(layoutOf(r.header.find("Use")->type, 32).size, 4u);
  CTypeResult fwd = parseCType("struct Fwd");
  ASSERT_TRUE(fwd.ok());
  EXPECT_THROW(layoutOf(fwd.type, 64), AbiError);
}

TEST(LayoutAggregate, AnonymousMembers) {
  Layout l = lay("struct S { char tag; union { int i; float f; }; struct { short a, b; } pair; };");
  EXPECT_EQ(l.size, 12u);
  ASSERT_EQ(l.members.size(), 3u);
  EXPECT_EQ(l.members[1].name, "");
  EXPECT_EQ(l.members[1].byteOffset, 4u);
  ASSERT_EQ(l.members[1].members.size(), 2u);
  EXPECT_EQ(l.members[1].members[1].name, "f");
  EXPECT_EQ(l.members[1].members[1].byteOffset, 4u);
  EXPECT_EQ(member(l, "pair").members[1].byteOffset, 10u);
}

} // namespace
} // namespace ptxray::abi
