// A parsed test module with lookups by name, shared by the parser tests.
#pragma once

#include "ptx/Parser.h"

#include <gtest/gtest.h>

#include <string>
#include <string_view>

namespace ptxray::test {

inline constexpr const char *kModuleHeader = ".version 8.0\n.target sm_90\n.address_size 64\n";

struct ParsedModule {
  ptx::ParseResult result;
  const ptx::Module &m() const { return *result.module; }
  const ptx::Function &fn(std::string_view name) const {
    for (const ptx::Function &f : m().functions)
      if (f.name == name && f.hasBody)
        return f;
    ADD_FAILURE() << "no function " << name;
    return m().functions.at(0);
  }
  uint32_t symbol(std::string_view name) const {
    for (uint32_t i = 0; i < m().symbols.size(); ++i)
      if (m().symbols[i].name == name)
        return i;
    ADD_FAILURE() << "no symbol " << name;
    return ptx::kNone;
  }
};

/// Parses `text` after the standard module header and expects no diagnostic error.
inline ParsedModule parseWithHeader(const std::string &text) {
  ParsedModule p{ptx::parseModule("test.ptx", kModuleHeader + text)};
  EXPECT_TRUE(p.result.ok()) << p.result.diagnostics.render(p.result.module->sources);
  return p;
}

inline const ptx::Operand &operandOf(const ptx::Function &f, const ptx::Instruction &inst, size_t i) {
  return f.operandsOf(inst)[i];
}

} // namespace ptxray::test
