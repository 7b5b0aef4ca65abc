// Deeply nested aggregates: layout work must grow with the input and the result, never faster, and
// absurd depths must end in an error, never in a stack overflow. Work is measured with LayoutStats
// (deterministic counts, no timing): placing struct S_n { struct S_(n-1) x; char c; } used to rebuild
// every nested member list once per enclosing level, and shared structs were placed once per use.
#include "abi/CDeclParser.h"
#include "abi/Layout.h"
#include "abi/LayoutDiagram.h"
#include "abi/ParamMapping.h"

#include <gtest/gtest.h>

#include <string>

namespace ptxray::abi {
namespace {

// struct S0 { int a; }; struct S1 { struct S0 x; char c; }; ... up to S<levels>.
std::string chainHeader(unsigned levels) {
  std::string text = "struct S0 { int a; };\n";
  for (unsigned i = 1; i <= levels; ++i)
    text += "struct S" + std::to_string(i) + " { struct S" + std::to_string(i - 1) + " x; char c; };\n";
  return text;
}

TypeRef lastType(const CDeclResult &r) {
  EXPECT_TRUE(r.ok()) << (r.errors.empty() ? "" : formatError("input", r.errors.front()));
  return r.header.types.back().type;
}

Field field(std::string name, TypeRef type) {
  Field f;
  f.name = std::move(name);
  f.type = std::move(type);
  return f;
}

std::size_t treeSize(const std::vector<MemberLayout> &members) {
  std::size_t n = members.size();
  for (const MemberLayout &m : members)
    n += treeSize(m.members);
  return n;
}

std::string errorOf(const TypeRef &type) {
  try {
    layoutOf(type, 64);
  } catch (const AbiError &e) {
    return e.what();
  }
  return "no error";
}

TEST(LayoutScaling, ChainOf1000PlacesEachStructOnceAndWritesEachMemberOnce) {
  constexpr unsigned kLevels = 1000;
  CDeclResult r = parseCDecls(chainHeader(kLevels));
  TypeRef top = lastType(r);
  LayoutCache cache;
  Layout l = layoutOf(top, 64, cache);
  EXPECT_EQ(cache.stats().recordsPlaced, kLevels + 1);
  EXPECT_EQ(cache.stats().fieldsPlaced, 2 * kLevels + 1);
  EXPECT_EQ(cache.stats().membersBuilt, 2 * kLevels + 1); // x and c per level, a at the bottom
  EXPECT_EQ(treeSize(l.members), 2 * kLevels + 1);

  // S_n: S_(n-1) at 0, c at 4n, 3 bytes of padding after each c.
  EXPECT_EQ(l.size, 4u * (kLevels + 1));
  EXPECT_EQ(l.align, 4u);
  const std::vector<MemberLayout> *level = &l.members;
  for (unsigned n = kLevels; n >= 1; --n) {
    ASSERT_EQ(level->size(), 2u);
    EXPECT_EQ((*level)[0].byteOffset, 0u);
    EXPECT_EQ((*level)[1].name, "c");
    EXPECT_EQ((*level)[1].byteOffset, 4u * n) << "level " << n;
    level = &(*level)[0].members;
  }
  ASSERT_EQ(level->size(), 1u);
  EXPECT_EQ((*level)[0].name, "a");
  ASSERT_EQ(l.holes.size(), kLevels);
  EXPECT_EQ(l.holes.front().bitOffset, 5u * 8);
  EXPECT_EQ(l.holes.front().bitCount, 24u);
  EXPECT_FALSE(l.holes.front().tail);
  EXPECT_TRUE(l.holes.back().tail);
  EXPECT_EQ(l.holes.back().bitOffset, (4u * kLevels + 1) * 8);
}

// What `ptxray abi layout` does: every type of the header, and its .param. With one cache each struct
// is placed once in all; the member trees written are the results themselves (S_n lists 2n + 1).
TEST(LayoutScaling, EveryTypeOfAHeaderThroughOneCachePlacesEachStructOnce) {
  constexpr unsigned kLevels = 1000;
  CDeclResult r = parseCDecls(chainHeader(kLevels));
  ASSERT_TRUE(r.ok());
  LayoutCache cache;
  std::uint64_t expectedMembers = 0;
  for (const NamedType &t : r.header.types) {
    Layout l = layoutOf(t.type, 64, cache);
    ParamMapping p = mapParam(t.type, 64, "param", ParamRole::Parameter, cache);
    EXPECT_EQ(p.size, l.size);
    expectedMembers += treeSize(l.members);
  }
  EXPECT_EQ(cache.stats().recordsPlaced, kLevels + 1);
  EXPECT_EQ(cache.stats().fieldsPlaced, 2 * kLevels + 1);
  EXPECT_EQ(cache.stats().membersBuilt, expectedMembers);
  EXPECT_EQ(expectedMembers, std::uint64_t{kLevels + 1} * (kLevels + 1));
}

// struct A { struct { struct { ... int x; char y : 3; } m1; } m0; }: one named type, 1001 records.
TEST(LayoutScaling, InlineAnonymousNestingOf1000) {
  constexpr unsigned kLevels = 1000;
  std::string text = "struct A { ";
  for (unsigned i = 0; i < kLevels; ++i)
    text += "struct { ";
  text += "int x; char y : 3; ";
  for (unsigned i = kLevels; i-- > 0;)
    text += "} m" + std::to_string(i) + "; ";
  text += "};";
  CDeclResult r = parseCDecls(text);
  TypeRef a = lastType(r);
  LayoutCache cache;
  Layout l = layoutOf(a, 64, cache);
  EXPECT_EQ(cache.stats().recordsPlaced, kLevels + 1);
  EXPECT_EQ(cache.stats().membersBuilt, kLevels + 2);
  EXPECT_EQ(l.size, 8u);
  const MemberLayout *m = &l.members.at(0);
  for (unsigned i = 1; i < kLevels; ++i)
    m = &m->members.at(0);
  ASSERT_EQ(m->members.size(), 2u);
  EXPECT_EQ(m->members[1].name, "y");
  EXPECT_EQ(m->members[1].bitOffset, 32u);
  EXPECT_TRUE(m->members[1].isBitField);
  ASSERT_EQ(l.holes.size(), 1u);
  EXPECT_EQ(l.holes[0].bitOffset, 35u);
  EXPECT_TRUE(l.holes[0].tail);
}

// Each struct holds two arrays of the previous one: D_n uses D0 2^n times, through n + 1 distinct
// structs. Placing an array's element again for every use made this exponential.
std::string sharedThroughArrays(int levels) {
  std::string text = "struct D0 { int a; };\n";
  for (int i = 1; i <= levels; ++i)
    text += "struct D" + std::to_string(i) + " { struct D" + std::to_string(i - 1) + " l[1]; struct D" +
            std::to_string(i - 1) + " r[1]; };\n";
  return text;
}

TEST(LayoutScaling, StructsSharedThroughArraysArePlacedOnce) {
  CDeclResult r = parseCDecls(sharedThroughArrays(20));
  LayoutCache cache;
  Layout l = layoutOf(lastType(r), 64, cache);
  EXPECT_EQ(l.size, std::uint64_t{4} << 20);
  EXPECT_EQ(cache.stats().recordsPlaced, 21u); // not 2^21 - 1
  EXPECT_EQ(cache.stats().fieldsPlaced, 41u);
  EXPECT_EQ(l.members.size(), 2u); // arrays are not expanded into members
  // 2^50 uses: only finishes when each struct is placed once.
  CDeclResult deep = parseCDecls(sharedThroughArrays(50));
  EXPECT_EQ(sizeOf(lastType(deep), 64), std::uint64_t{4} << 50);
  EXPECT_EQ(mapParam(lastType(deep), 64).text, ".param .align 4 .b8 param[4503599627370496]");
}

// Without arrays every use is listed, so the member tree doubles per level: refused past
// kMaxLayoutMembers entries, while size, alignment and .param need no tree and still work.
TEST(LayoutScaling, MemberTreesTooLargeToListAreAnError) {
  std::string text = "struct D0 { int a; };\n";
  for (int i = 1; i <= 40; ++i)
    text += "struct D" + std::to_string(i) + " { struct D" + std::to_string(i - 1) + " l, r; };\n";
  CDeclResult r = parseCDecls(text);
  TypeRef top = lastType(r);
  EXPECT_NE(errorOf(top).find("members counting those of nested structs"), std::string::npos) << errorOf(top);
  EXPECT_EQ(sizeOf(top, 64), std::uint64_t{4} << 40);
  EXPECT_EQ(alignOf(top, 64), 4u);
  EXPECT_EQ(mapParam(top, 64).size, std::uint64_t{4} << 40);
  // Below the limit the tree is listed in full: D_n has 3 * 2^n - 2 entries.
  EXPECT_EQ(treeSize(layoutOf(r.header.find("D10")->type, 64).members), 3u * 1024 - 2);
}

TEST(LayoutScaling, SizesThatOverflowAreAnError) {
  std::string text = "struct D0 { int a; };\n";
  for (int i = 1; i <= 70; ++i)
    text += "struct D" + std::to_string(i) + " { struct D" + std::to_string(i - 1) + " l[2]; };\n";
  CDeclResult r = parseCDecls(text);
  EXPECT_EQ(sizeOf(r.header.find("D58")->type, 64), std::uint64_t{1} << 60);
  EXPECT_NE(errorOf(lastType(r)).find("larger than 2^60 bytes"), std::string::npos) << errorOf(lastType(r));
  EXPECT_THROW(sizeOf(arrayOf(scalarType(Scalar::Int), std::uint64_t{1} << 62), 64), AbiError);
}

// Reusing placements must not change any result: every type laid out through one cache (in an order
// where later types reuse earlier ones) equals the type laid out alone.
TEST(LayoutScaling, SharedCacheGivesTheSameLayoutsAsSeparateCalls) {
  CDeclResult r = parseCDecls(R"(
    struct In { char c; int b : 5; short s : 4; };
    typedef struct In InA __attribute__((aligned(16)));
    union U { struct In in; InA a[2]; long l; struct { char x : 2; } bits; };
    struct Out { union U u; struct In arr[3]; InA t; char tail : 3; struct { struct In deep; int : 0; char z; } anon; };
    struct Top { struct Out o; union U u2; struct { struct Out again[2]; }; double d; };
  )");
  ASSERT_TRUE(r.ok());
  for (unsigned addressSize : {32u, 64u}) {
    LayoutCache cache;
    for (const NamedType &t : r.header.types) {
      Layout shared = layoutOf(t.type, addressSize, cache);
      Layout alone = layoutOf(t.type, addressSize);
      EXPECT_EQ(shared.size, alone.size) << t.name;
      EXPECT_EQ(shared.align, alone.align) << t.name;
      ASSERT_EQ(shared.holes.size(), alone.holes.size()) << t.name;
      for (std::size_t i = 0; i < shared.holes.size(); ++i) {
        EXPECT_EQ(shared.holes[i].bitOffset, alone.holes[i].bitOffset) << t.name;
        EXPECT_EQ(shared.holes[i].bitCount, alone.holes[i].bitCount) << t.name;
      }
      EXPECT_EQ(treeSize(shared.members), treeSize(alone.members)) << t.name;
    }
  }
}

// The limit is on struct/union nesting: kMaxNestingDepth levels are laid out, one more is an error.
// Built through the API, so that the parser's own check does not stand in front of layoutOf's.
TEST(LayoutScaling, NestingBeyondTheLimitIsAnErrorNotACrash) {
  auto chain = [](unsigned levels) {
    TypeRef t = recordType(false, "S1", {field("a", scalarType(Scalar::Int))});
    for (unsigned i = 2; i <= levels; ++i)
      t = recordType(false, "S" + std::to_string(i), {field("x", t), field("c", scalarType(Scalar::Char))});
    return t;
  };
  EXPECT_EQ(sizeOf(chain(kMaxNestingDepth), 64), 4u * kMaxNestingDepth);
  std::string error = errorOf(chain(kMaxNestingDepth + 1));
  EXPECT_NE(error.find("more than " + std::to_string(kMaxNestingDepth) + " levels deep"), std::string::npos) << error;
  // 100000 levels: an error, and releasing the chain does not recurse once per level either.
  TypeRef deep = chain(100000);
  EXPECT_THROW(layoutOf(deep, 64), AbiError);
  EXPECT_THROW(mapParam(deep, 64), AbiError);
  // Through an array: arrays add no level, the struct inside still counts.
  EXPECT_THROW(layoutOf(arrayOf(chain(kMaxNestingDepth + 1), 2), 64), AbiError);
  EXPECT_EQ(sizeOf(arrayOf(chain(kMaxNestingDepth), 2), 64), 8u * kMaxNestingDepth);
}

TEST(LayoutScaling, ACycleMadeThroughTheApiIsAnError) {
  auto self = std::make_shared<Type>();
  self->kind = TypeKind::Record;
  self->tag = "Loop";
  self->fields.push_back(field("next", self));
  EXPECT_THROW(layoutOf(self, 64), AbiError);
  self->fields.clear(); // break the reference cycle
}

TEST(LayoutScaling, ParserRefusesNamedChainsDeeperThanTheLimit) {
  // S0..S(limit-1): the last is kMaxNestingDepth levels deep, the most allowed.
  CDeclResult ok = parseCDecls(chainHeader(kMaxNestingDepth - 1));
  ASSERT_TRUE(ok.ok());
  EXPECT_EQ(sizeOf(lastType(ok), 64), 4u * kMaxNestingDepth);
  CDeclResult bad = parseCDecls(chainHeader(kMaxNestingDepth));
  ASSERT_EQ(bad.errors.size(), 1u);
  EXPECT_EQ(bad.errors[0].line, kMaxNestingDepth + 1);
  const std::string limit = std::to_string(kMaxNestingDepth);
  EXPECT_EQ(bad.errors[0].message, "'struct S" + limit + "' nests structs and unions more than " + limit +
                                       " levels deep, the most that can be laid out");
  // 20000 levels: an error every kMaxNestingDepth levels (each refused struct is left undefined), no crash.
  CDeclResult huge = parseCDecls(chainHeader(20000));
  EXPECT_EQ(huge.errors.size(), 20000u / kMaxNestingDepth);
}

TEST(LayoutScaling, ParserRefusesBracesAndParenthesesNestedTooDeep) {
  for (unsigned levels : {10000u, 100000u}) {
    std::string text = "struct A { ";
    for (unsigned i = 0; i < levels; ++i)
      text += "struct { ";
    text += "int x; ";
    for (unsigned i = 0; i < levels; ++i)
      text += "} m; ";
    text += "}; struct B { int b; };";
    CDeclResult r = parseCDecls(text);
    ASSERT_EQ(r.errors.size(), 1u) << levels;
    EXPECT_EQ(r.errors[0].message, "structs and unions nested more than " + std::to_string(kMaxNestingDepth) +
                                       " levels deep are not supported");
    ASSERT_NE(r.header.find("B"), nullptr); // parsing goes on after the broken declaration
  }
  std::string parens = "struct P { int a[" + std::string(100000, '(') + "1" + std::string(100000, ')') + "]; };";
  CDeclResult r = parseCDecls(parens);
  ASSERT_EQ(r.errors.size(), 1u);
  EXPECT_EQ(r.errors[0].message,
            "expressions nested more than " + std::to_string(kMaxNestingDepth) + " levels deep are not supported");
  CDeclResult minus = parseCDecls("struct M { int a : " + std::string(100000, '-') + "1; };");
  EXPECT_FALSE(minus.ok());
}

// `int ***...` and `int x[1][1]...` are as deep as the input is long; naming, laying out and releasing
// them must not recurse once per level (releasing 200000 links recursively overflowed an 8 MiB stack).
TEST(LayoutScaling, LongPointerAndArrayChains) {
  constexpr unsigned kLevels = 300000;
  TypeRef p = scalarType(Scalar::Int);
  for (unsigned i = 0; i < kLevels; ++i)
    p = pointerTo(p);
  std::string name = typeName(p);
  EXPECT_EQ(name.size(), 3 + 2 * std::size_t{kLevels});
  EXPECT_EQ(name.substr(0, 7), "int * *");
  EXPECT_EQ(sizeOf(p, 32), 4u);
  p.reset(); // released iteratively (Type's destructor)
  TypeRef a = scalarType(Scalar::Short);
  for (unsigned i = 0; i < kLevels; ++i)
    a = arrayOf(a, 1);
  EXPECT_EQ(sizeOf(a, 64), 2u);
  EXPECT_EQ(alignOf(a, 64), 2u);
  EXPECT_EQ(mapParam(recordType(false, "H", {field("a", a)}), 64).text, ".param .align 2 .b8 param[2]");
  a.reset();
}

TEST(LayoutScaling, TypeNamesOfMixedPointersAndArrays) {
  TypeRef i = scalarType(Scalar::Int);
  EXPECT_EQ(typeName(pointerTo(arrayOf(pointerTo(i), 3), AddressSpace::Global)), "__global int *[3] *");
  EXPECT_EQ(typeName(arrayOf(arrayOf(pointerTo(pointerTo(i, AddressSpace::Shared)), 3), 2)), "__shared int * *[2][3]");
  EXPECT_EQ(typeName(pointerTo(typedefOf(arrayOf(i, 4), "Vec"))), "Vec *");
}

// Diagram labels are dotted paths ("x.x.c"); in deep nesting only the last part can fit in a cell, and
// only that part is built.
TEST(LayoutScaling, DiagramOfADeepChain) {
  CDeclResult r = parseCDecls(chainHeader(1000));
  Layout l = layoutOf(lastType(r), 64);
  std::string d = layoutDiagram(l);
  EXPECT_EQ(d.substr(0, d.find('\n')), "struct S1000: little endian, 4-byte aligned, sizeof is 4004");
  EXPECT_NE(d.find("|                               a                               |"), std::string::npos) << d;
  EXPECT_NE(d.find("... 937 more rows"), std::string::npos);
  EXPECT_EQ(d.find("x.x"), std::string::npos);
  // Paths short enough to fit are still spelled out.
  CDeclResult shallow = parseCDecls("struct I { int a; char b; }; struct O { char z; struct I in; };");
  EXPECT_NE(layoutDiagram(layoutOf(lastType(shallow), 64)).find("in.a"), std::string::npos);
}

} // namespace
} // namespace ptxray::abi
