#!/usr/bin/env python3
"""Generator behind scripts/gen-abi-fixtures.sh (python3 standard library only).

  gen-abi-fixtures.py gen FIXTURES_DIR STAGE_DIR
      writes, from a fixed seed (byte-identical on every run):
        FIXTURES_DIR/abi_structs.h        the random struct/union types
        FIXTURES_DIR/cuda_vector_shim.h   CUDA vector types for a host compiler
        FIXTURES_DIR/abi_structs.cu       one __global__ take_<Name>(<Name> v, int *out) per type
        STAGE_DIR/host_layout.cpp         host program: sizeof/alignof/offsetof/bit-field positions
        STAGE_DIR/c_check.c               the header read by a C11 compiler (C-readability check)
        STAGE_DIR/types.txt               the type names, in order
  gen-abi-fixtures.py extract FIXTURES_DIR STAGE_DIR PTX HOST_OUTPUT NVCC_VERSION
      writes FIXTURES_DIR/expected_params.txt and FIXTURES_DIR/expected_layout.txt, and
      STAGE_DIR/device_check.cu (static_asserts of the host layout, compiled by nvcc in the
      device pass to check that nvcc lays the members out as the host does).
      Prints every type whose PTX (align, size) differs from the host's (alignof, sizeof).
"""

import os
import random
import re
import sys

SEED = 20240604
NUM_TYPES = 60

# name -> (size, align); x86-64 / CUDA LP64 (what both g++ and nvcc use).
SCALARS = {
    "char": (1, 1),
    "signed char": (1, 1),
    "unsigned char": (1, 1),
    "short": (2, 2),
    "unsigned short": (2, 2),
    "int": (4, 4),
    "unsigned": (4, 4),
    "long long": (8, 8),
    "unsigned long long": (8, 8),
    "float": (4, 4),
    "double": (8, 8),
}
POINTERS = ["void *", "int *", "const char *", "float *", "double *", "unsigned long long *"]

# Bit-field base types -> width in bits.
BITFIELD_TYPES = {
    "char": 8,
    "signed char": 8,
    "unsigned char": 8,
    "short": 16,
    "unsigned short": 16,
    "int": 32,
    "unsigned": 32,
    "long long": 64,
    "unsigned long long": 64,
}

# CUDA vector types (vector_types.h of CUDA 13, non-Windows): name -> (component type, count, align).
# Alignment rules: N=1 and N=3: the component's; char2/uchar2 2, char4 4, short2 4, short4 8,
# int2/float2 8, int4/float4 16, long2 (Linux) and longlong2/double2 16, *4_16a 16, *4_32a 32.
def _vector_table():
    table = {}
    comps = [
        ("char", "signed char", 1), ("uchar", "unsigned char", 1),
        ("short", "short", 2), ("ushort", "unsigned short", 2),
        ("int", "int", 4), ("uint", "unsigned int", 4),
        ("long", "long int", 8), ("ulong", "unsigned long int", 8),
        ("longlong", "long long int", 8), ("ulonglong", "unsigned long long int", 8),
        ("float", "float", 4), ("double", "double", 8),
    ]
    for prefix, ctype, csize in comps:
        table[prefix + "1"] = (ctype, 1, csize)
        table[prefix + "3"] = (ctype, 3, csize)
        two = 2 * csize if csize <= 8 else csize
        table[prefix + "2"] = (ctype, 2, two)
        if csize == 8:
            # long4, longlong4, double4 are deprecated in CUDA 13 (16-aligned); the
            # explicit _16a / _32a spellings replace them.
            table[prefix + "4_16a"] = (ctype, 4, 16)
            table[prefix + "4_32a"] = (ctype, 4, 32)
        else:
            table[prefix + "4"] = (ctype, 4, min(4 * csize, 16))
    return table


VECTORS = _vector_table()
# The vector types the random types draw from.
VECTOR_CHOICES = [
    "char1", "char2", "uchar2", "char3", "char4", "uchar4", "short1", "short2", "ushort2",
    "short3", "short4", "int1", "int2", "uint2", "int3", "int4", "uint4", "float1", "float2",
    "float3", "float4", "long2", "longlong1", "longlong2", "ulonglong2", "longlong3",
    "double1", "double2", "double3", "double4_16a", "double4_32a", "longlong4_32a",
]


def vec_size(name):
    ctype, n, align = VECTORS[name]
    csize = {"signed char": 1, "unsigned char": 1, "short": 2, "unsigned short": 2}.get(
        ctype, 4 if ctype in ("int", "unsigned int", "float") else 8)
    raw = csize * n
    return (raw + align - 1) // align * align, align


class Member:
    """One member of an aggregate.

    kind: 'plain' (type text + declarator), 'bitfield', 'inline' (a nested struct/union
    defined in place, named or anonymous).
    """

    def __init__(self, kind, name, ctype=None, array=None, width=None, attr=None, agg=None,
                 size_est=0, align_est=1):
        self.kind = kind
        self.name = name
        self.ctype = ctype
        self.array = array
        self.width = width
        self.attr = attr
        self.agg = agg
        self.size_est = size_est
        self.align_est = align_est


class Agg:
    def __init__(self, is_union, name=None, attr=None):
        self.is_union = is_union
        self.name = name
        self.attr = attr
        self.members = []

    def keyword(self):
        return "union" if self.is_union else "struct"


class Gen:
    def __init__(self, seed):
        self.r = random.Random(seed)
        self.types = []            # top-level Agg, in order
        self.type_est = {}         # name -> (size_est, align_upper_bound)

    # Rough estimates, used only to keep sizes small and to choose alignas() values that
    # are never weaker than the natural alignment (ill-formed in C++). The upper bound
    # on alignment counts every member, unnamed bit-fields and ignored attributes too.
    def estimate(self, agg):
        size = 0
        align = 1
        for m in agg.members:
            if m.kind == "bitfield":
                a = BITFIELD_TYPES[m.ctype] // 8
                s = (m.width + 7) // 8
            else:
                s, a = m.size_est, m.align_est
            align = max(align, a)
            size = max(size, s) if agg.is_union else size + s
        if agg.attr:
            align = max(align, agg.attr[1])
        size = (size + align - 1) // align * align
        return size, align

    def member_attr(self, natural_align):
        """Maybe an alignment specifier for a member: ('__align__'|'alignas', N) or None."""
        if self.r.random() >= 0.15:
            return None
        if self.r.random() < 0.5:
            # __align__ (GCC aligned attribute): values below the natural alignment are
            # legal and ignored on members; keep a few of those.
            return ("__align__", self.r.choice([1, 2, 4, 8, 8, 16, 16, 32]))
        choices = [n for n in (2, 4, 8, 16, 32) if n >= natural_align]
        return ("alignas", self.r.choice(choices))

    def plain_member(self, name, depth, budget):
        r = self.r
        roll = r.random()
        if roll < 0.40:
            ctype = r.choice(list(SCALARS))
            size, align = SCALARS[ctype]
        elif roll < 0.50:
            ctype = r.choice(POINTERS + [t.name + " *" for t in self.types[-5:]])
            size, align = 8, 8
        elif roll < 0.72:
            ctype = r.choice(VECTOR_CHOICES)
            size, align = vec_size(ctype)
        elif roll < 0.85 and self.types:
            t = r.choice(self.types)
            ctype = t.name
            size, align = self.type_est[t.name]
            if size > budget:
                ctype = "int"
                size, align = 4, 4
        else:
            inner = self.make_agg(r.random() < 0.35, None, depth + 1, name + "_", min(budget, 96))
            size, align = self.estimate(inner)
            # Anonymous unions (C11, C++) only without nested type definitions, which C++
            # does not allow inside an anonymous union.
            anonymous = (inner.is_union and r.random() < 0.4
                         and all(x.kind != "inline" for x in inner.members))
            m = Member("inline", None if anonymous else name, agg=inner,
                       size_est=size, align_est=align)
            if not anonymous:
                m.attr = self.member_attr(align)
                if m.attr:
                    m.align_est = max(align, m.attr[1])
            return m
        array = None
        if r.random() < 0.25 and size * 5 <= budget:
            array = r.randint(1, 5)
            size *= array
        m = Member("plain", name, ctype=ctype, array=array, size_est=size, align_est=align)
        m.attr = self.member_attr(align)
        if m.attr:
            m.align_est = max(align, m.attr[1])
        return m

    def bitfield_run(self, prefix, start):
        r = self.r
        out = []
        for k in range(r.randint(1, 5)):
            ctype = r.choice(list(BITFIELD_TYPES))
            bits = BITFIELD_TYPES[ctype]
            roll = r.random()
            if roll < 0.12:
                out.append(Member("bitfield", None, ctype=ctype, width=0))
                continue
            width = r.choice([1, 1, 2, 3, 4, 5, 7, bits // 2, bits - 1, bits, r.randint(1, bits)])
            name = None if roll < 0.25 else "%s%d" % (prefix, start + k)
            out.append(Member("bitfield", name, ctype=ctype, width=width))
        return out

    def make_agg(self, is_union, name, depth, prefix, budget):
        r = self.r
        attr = None
        if r.random() < 0.15:
            attr = ("__align__", r.choice([2, 4, 8, 16, 16, 32, 64]))
        agg = Agg(is_union, name, attr)
        count = r.randint(1, 7 if depth == 0 else 4)
        i = 0
        while i < count:
            mname = "%s%d" % (prefix, i)
            if r.random() < 0.2:
                run = self.bitfield_run(prefix, i)
                agg.members.extend(run)
                i += len(run)
                continue
            agg.members.append(self.plain_member(mname, depth, budget))
            i += 1
        if not any(m.name is not None or m.kind == "inline" for m in agg.members):
            agg.members.append(Member("plain", "%s%d" % (prefix, i), ctype="char",
                                      size_est=1, align_est=1))
        return agg

    def run(self):
        for i in range(NUM_TYPES):
            is_union = self.r.random() < 0.2
            name = "%s%02d" % ("U" if is_union else "S", i)
            agg = self.make_agg(is_union, name, 0, "m", 256)
            self.types.append(agg)
            self.type_est[name] = self.estimate(agg)
        return self.types


# ---------------------------------------------------------------------------------- text

def attr_text(attr):
    return "" if attr is None else "%s(%d) " % attr


def emit_members(agg, indent, lines):
    pad = "    " * indent
    for m in agg.members:
        if m.kind == "bitfield":
            lines.append("%s%s%s : %d;" % (pad, m.ctype, "" if m.name is None else " " + m.name,
                                           m.width))
        elif m.kind == "plain":
            decl = m.ctype + ("" if m.ctype.endswith("*") else " ") + m.name
            if m.array:
                decl += "[%d]" % m.array
            lines.append("%s%s%s;" % (pad, attr_text(m.attr), decl))
        else:
            lines.append("%s%s%s %s{" % (pad, attr_text(m.attr), m.agg.keyword(),
                                         attr_text(m.agg.attr)))
            emit_members(m.agg, indent + 1, lines)
            lines.append("%s}%s;" % (pad, "" if m.name is None else " " + m.name))


def header_text(types):
    lines = [
        "/* Generated by scripts/gen-abi-fixtures.sh (seed %d). Do not edit. */" % SEED,
        "/* Random struct and union types for ABI layout tests: plain C declarations (C11 +",
        "   GCC/CUDA __align__), CUDA vector types from vector_types.h (nvcc) or",
        "   cuda_vector_shim.h (a host compiler, included before this file; C also needs",
        "   <stdalign.h> first for alignas). No other preprocessor use than the guard. */",
        "#ifndef PTXRAY_ABI_STRUCTS_H",
        "#define PTXRAY_ABI_STRUCTS_H",
        "",
    ]
    for t in types:
        lines.append("typedef %s %s%s {" % (t.keyword(), attr_text(t.attr), t.name))
        emit_members(t, 1, lines)
        lines.append("} %s;" % t.name)
        lines.append("")
    lines.append("#endif")
    return "\n".join(lines) + "\n"


def shim_text():
    lines = [
        "/* Generated by scripts/gen-abi-fixtures.sh. Do not edit. */",
        "/* The CUDA vector types of vector_types.h (CUDA 13, Linux x86-64) for a host C or C++",
        "   compiler without the CUDA headers: same members, sizes and alignments. nvcc brings",
        "   its own; this file is empty under nvcc. */",
        "#ifndef PTXRAY_CUDA_VECTOR_SHIM_H",
        "#define PTXRAY_CUDA_VECTOR_SHIM_H",
        "#if !defined(__CUDACC__)",
        "",
        "#ifndef __align__",
        "#define __align__(n) __attribute__((aligned(n)))",
        "#endif",
        "",
    ]
    names = "xyzw"
    for name, (ctype, n, align) in VECTORS.items():
        comp_size = {"signed char": 1, "unsigned char": 1, "short": 2,
                     "unsigned short": 2}.get(ctype, 4 if ctype in ("int", "unsigned int", "float")
                                              else 8)
        explicit = align != comp_size
        lines.append("typedef struct %s%s { %s %s; } %s;" % (
            "__align__(%d) " % align if explicit else "", name, ctype,
            ", ".join(names[:n]), name))
    lines += ["", "#endif", "#endif", ""]
    return "\n".join(lines)


def cu_text(types):
    lines = [
        "// Generated by scripts/gen-abi-fixtures.sh (seed %d). Do not edit." % SEED,
        "// One kernel per type of abi_structs.h, taking the type by value; nvcc declares the",
        "// parameter as .param .align A .b8 NAME[S] with A = alignof, S = sizeof.",
        "// nvcc -ptx -arch=compute_90 -std=c++17 abi_structs.cu",
        '#include "abi_structs.h"',
        "",
    ]
    for t in types:
        lines.append("__global__ void take_%s(%s v, int *out) {" % (t.name, t.name))
        lines.append("    const unsigned char *p = (const unsigned char *)&v;")
        lines.append("    out[0] = p[0] + p[sizeof(v) - 1];")
        lines.append("}")
    return "\n".join(lines) + "\n"


def layout_entries(t):
    """(path, is_bitfield) for every named member, nested inline aggregates included."""
    out = []

    def walk(agg, prefix):
        for m in agg.members:
            if m.kind == "inline":
                if m.name is None:
                    walk(m.agg, prefix)            # anonymous union: members are the parent's
                else:
                    out.append((prefix + m.name, False))
                    walk(m.agg, prefix + m.name + ".")
            elif m.name is not None:
                out.append((prefix + m.name, m.kind == "bitfield"))
    walk(t, "")
    return out


def host_text(types):
    lines = [
        "// Generated by scripts/gen-abi-fixtures.sh. Prints the host layout of every type.",
        "#include <cstddef>",
        "#include <cstdio>",
        "#include <cstring>",
        '#include "cuda_vector_shim.h"',
        '#include "abi_structs.h"',
        "",
        "template <class T, class F> static void bits(const char *type, const char *path, F set) {",
        "    T v;",
        "    std::memset(&v, 0, sizeof v);",
        "    set(v);",
        "    const unsigned char *p = (const unsigned char *)&v;",
        "    int first = -1, count = 0;",
        "    for (std::size_t i = 0; i < sizeof v * 8; ++i)",
        "        if (p[i / 8] >> (i % 8) & 1) { if (first < 0) first = (int)i; ++count; }",
        '    std::printf("M %s %s bit_offset=%d bit_width=%d\\n", type, path, first, count);',
        "}",
        "",
        "int main() {",
    ]
    for t in types:
        n = t.name
        lines.append('    std::printf("T %s %%zu %%zu\\n", sizeof(%s), alignof(%s));' % (n, n, n))
        for path, is_bf in layout_entries(t):
            if is_bf:
                lines.append("    bits<%s>(\"%s\", \"%s\", [](%s &v) { v.%s = -1; });"
                             % (n, n, path, n, path))
            else:
                lines.append('    std::printf("M %s %s offset=%%zu size=%%zu\\n", '
                             "offsetof(%s, %s), sizeof(((%s *)0)->%s));"
                             % (n, path, n, path, n, path))
    lines += ["    return 0;", "}", ""]
    return "\n".join(lines)


def c_check_text(types):
    lines = [
        "/* Generated by scripts/gen-abi-fixtures.sh: the header must be plain C11. */",
        "#include <stdalign.h>",
        '#include "cuda_vector_shim.h"',
        '#include "abi_structs.h"',
    ]
    for t in types:
        lines.append("typedef char check_%s[1];" % t.name)
    return "\n".join(lines) + "\n"


def write(path, text):
    with open(path, "w", encoding="ascii", newline="\n") as f:
        f.write(text)


def cmd_gen(fixtures, stage):
    types = Gen(SEED).run()
    write(os.path.join(fixtures, "abi_structs.h"), header_text(types))
    write(os.path.join(fixtures, "cuda_vector_shim.h"), shim_text())
    write(os.path.join(fixtures, "abi_structs.cu"), cu_text(types))
    write(os.path.join(stage, "host_layout.cpp"), host_text(types))
    write(os.path.join(stage, "c_check.c"), c_check_text(types))
    write(os.path.join(stage, "types.txt"), "\n".join(t.name for t in types) + "\n")


def mangled(name):
    fn = "take_" + name
    return "_Z%d%s%d%sPi" % (len(fn), fn, len(name), name)


def cmd_extract(fixtures, stage, ptx_path, host_path, nvcc_version):
    with open(os.path.join(stage, "types.txt"), encoding="ascii") as f:
        names = f.read().split()
    with open(ptx_path, encoding="ascii") as f:
        ptx = f.read()
    host = {}
    members = {}
    with open(host_path, encoding="ascii") as f:
        for line in f:
            parts = line.split()
            if parts[0] == "T":
                host[parts[1]] = (int(parts[3]), int(parts[2]))   # (align, size)
            elif parts[0] == "M":
                members.setdefault(parts[1], []).append(" ".join(parts[2:]))
    params = []
    diffs = []
    for n in names:
        m = mangled(n)
        pat = re.compile(r"\.entry\s+%s\s*\(\s*\.param\s+\.align\s+(\d+)\s+\.b8\s+%s_param_0\[(\d+)\]"
                         % (re.escape(m), re.escape(m)))
        hit = pat.search(ptx)
        if not hit:
            sys.exit("gen-abi-fixtures: no '.param .align A .b8 %s_param_0[S]' in %s"
                     % (m, ptx_path))
        a, s = int(hit.group(1)), int(hit.group(2))
        ha, hs = host[n]
        params.append("%s align=%d size=%d host_size=%d host_align=%d" % (n, a, s, hs, ha))
        if (a, s) != (ha, hs):
            diffs.append("%s: nvcc .param align=%d size=%d, host alignof=%d sizeof=%d"
                         % (n, a, s, ha, hs))
    head = [
        "# Generated by scripts/gen-abi-fixtures.sh from abi_structs_compute_90.ptx (%s)" % nvcc_version,
        "# and a g++ x86-64 program. One line per type of abi_structs.h:",
        "# NAME align=A size=S host_size=SIZEOF host_align=ALIGNOF",
        "# A and S from 'take_NAME's first parameter: .param .align A .b8 _Z..._param_0[S]",
    ]
    write(os.path.join(fixtures, "expected_params.txt"), "\n".join(head + params) + "\n")
    lay = [
        "# Generated by scripts/gen-abi-fixtures.sh: host (g++, x86-64) layout of abi_structs.h.",
        "# NAME size=SIZEOF align=ALIGNOF   then its named members, nested ones as a.b:",
        "#   NAME.PATH offset=BYTES size=BYTES            (offsetof / sizeof)",
        "#   NAME.PATH bit_offset=BITS bit_width=BITS     (bit-fields; bit 0 = lowest bit of byte 0)",
        "# Members of anonymous unions are listed as members of the enclosing type.",
        "# Checked against nvcc's device-side offsetof/sizeof/alignof by the script.",
    ]
    for n in names:
        ha, hs = host[n]
        lay.append("%s size=%d align=%d" % (n, hs, ha))
        for e in members.get(n, []):
            lay.append("  %s.%s" % (n, e))
    write(os.path.join(fixtures, "expected_layout.txt"), "\n".join(lay) + "\n")
    # Device-side check of the same numbers (non-bit-field members; nvcc device pass).
    dc = ['#include "abi_structs.h"', "#include <cstddef>", "#if defined(__CUDA_ARCH__)"]
    for n in names:
        ha, hs = host[n]
        dc.append("static_assert(sizeof(%s) == %d && alignof(%s) == %d, \"%s\");"
                  % (n, hs, n, ha, n))
        for e in members.get(n, []):
            path, rest = e.split(" ", 1)
            if rest.startswith("offset="):
                off = int(rest.split()[0].split("=")[1])
                dc.append('static_assert(offsetof(%s, %s) == %d, "%s.%s");' % (n, path, off, n, path))
    dc += ["#endif", ""]
    write(os.path.join(stage, "device_check.cu"), "\n".join(dc))
    print("gen-abi-fixtures: %d types" % len(names))
    if diffs:
        print("gen-abi-fixtures: nvcc .param (align, size) differs from the host for %d types:"
              % len(diffs))
        for d in diffs:
            print("  " + d)
    else:
        print("gen-abi-fixtures: nvcc .param (align, size) == host (alignof, sizeof) for every type")


def main(argv):
    if len(argv) >= 4 and argv[1] == "gen":
        cmd_gen(argv[2], argv[3])
    elif len(argv) >= 7 and argv[1] == "extract":
        cmd_extract(argv[2], argv[3], argv[4], argv[5], argv[6])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv)
