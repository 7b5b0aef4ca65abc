// Text diagrams in the style of the guide's bit-field figures (§1.3): 32-bit rows, bit 0 on the right,
// byte offsets at each byte's upper right corner, bit numbers under the fields' corners.
#include "abi/LayoutDiagram.h"
#include "abi/CDeclParser.h"

#include <gtest/gtest.h>

namespace ptxray::abi {
namespace {

std::string draw(std::string_view decl, DiagramOptions options = {}) {
  CDeclResult r = parseCDecls(decl);
  EXPECT_TRUE(r.ok());
  return layoutDiagram(layoutOf(r.header.types.back().type, 64), {}, options);
}

TEST(LayoutDiagram, Figure2) {
  EXPECT_EQ(draw("struct F2 { int j:5; int k:6; int m:7; };"), R"(struct F2: little endian, 4-byte aligned, sizeof is 4
                3               2               1               0
+---------------------------+-------------+-----------+---------+
|            pad            |      m      |     k     |    j    |
+---------------------------+-------------+-----------+---------+
 31                       18 17         11 10        5 4       0
)");
}

TEST(LayoutDiagram, Figure4And5) {
  EXPECT_EQ(draw("struct F4 { char c; short s:8; };"), R"(struct F4: little endian, 2-byte aligned, sizeof is 2
                1               0
+---------------+---------------+
|       s       |       c       |
+---------------+---------------+
 15            8 7             0
)");
  EXPECT_EQ(draw("union F5 { char c; short s:8; };"), R"(union F5: little endian, 2-byte aligned, sizeof is 2
member c:
                1               0
+---------------+---------------+
|      pad      |       c       |
+---------------+---------------+
 15            8 7             0
member s:
                1               0
+---------------+---------------+
|      pad      |       s       |
+---------------+---------------+
 15            8 7             0
)");
}

TEST(LayoutDiagram, Figure6) {
  EXPECT_EQ(draw("struct F6 { char c; int :0; char d; short :9; char e; char :0; };"),
            R"(struct F6: little endian, 1-byte aligned, sizeof is 9
                3               2               1               0
+-----------------------------------------------+---------------+
|                      pad                      |       c       |
+-----------------------------------------------+---------------+
 31                                            8 7             0
                7               6               5               4
+-----------------------------------------------+---------------+
|                      pad                      |       d       |
+-----------------------------------------------+---------------+
 31                                            8 7             0
                8
+---------------+
|       e       |
+---------------+
 7             0
)");
}

TEST(LayoutDiagram, NestedNamesNarrowFieldsAndRowLimit) {
  std::string d = draw("struct N { struct { char lo:1, verylongname:2; } in; char c; short s; };");
  EXPECT_NE(d.find("|ver|l|"), std::string::npos) << d; // labels are cut to the field's width
  EXPECT_NE(d.find("|       c       |"), std::string::npos);
  d = draw("struct Big { int a[40]; };", DiagramOptions{2});
  EXPECT_NE(d.find("... 38 more rows\n"), std::string::npos) << d;
  CTypeResult scalar = parseCType("short");
  EXPECT_EQ(layoutDiagram(layoutOf(scalar.type, 64)), R"(short: little endian, 2-byte aligned, sizeof is 2
                1               0
+-------------------------------+
|             short             |
+-------------------------------+
 15                            0
)");
}

} // namespace
} // namespace ptxray::abi
