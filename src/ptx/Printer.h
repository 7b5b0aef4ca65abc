// Writes canonical PTX from the IR. Printing is a fixed point: parse(print(m)) has the same IR as m,
// and print(parse(print(m))) == print(m).
#pragma once

#include "ptx/Ir.h"

#include <string>
#include <string_view>

namespace ptxray::ptx {

std::string printModule(const Module &module);
std::string printInstruction(const Module &module, const Function &fn, const Instruction &inst);
std::string printOperand(const Module &module, const Function &fn, const Operand &op);
/// `text` as a PTX string literal (a .file name): in double quotes, quotes and backslashes escaped.
std::string quotedString(std::string_view text);

} // namespace ptxray::ptx
