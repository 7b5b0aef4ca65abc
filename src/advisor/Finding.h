// What the advisor tells the user: a finding is one rule's verdict on one launch (or one kernel,
// statically), with the evidence in numbers, the source lines it is about, the gain the time model
// expects from the fix, and the fix itself.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ptxray::advisor {

/// The guides' own ranking (OpenCL Best Practices Guide, Appendix A).
enum class Priority : uint8_t { High, Medium, Low };
std::string_view priorityName(Priority p);

enum class Category : uint8_t { Memory, Configuration, Instructions, ControlFlow, Correctness, System };
std::string_view categoryName(Category c);

/// A source line a finding is about, with the numbers that make it one.
struct SourceRef {
  std::string file; ///< CUDA/OpenCL source as the PTX's .file names it; empty without line information
  uint32_t line = 0;
  std::string ptxLocation; ///< file:line:col of the PTX instruction(s)
  std::string ptxText;
  std::string evidence; ///< the line's numbers ("32 sectors per request, ideal 4")
  double weight = 0;    ///< how much of the finding this line accounts for (for ordering), in [0, 1]
};

struct Finding {
  std::string rule; ///< stable id (`--only`, `--ignore`)
  Priority priority = Priority::Low;
  Category category = Category::Memory;
  std::string title;    ///< one line: what is wrong
  std::string guide;    ///< "[BPG] §3.2.1", "[Kepler] §1.4.4.3"
  std::string evidence; ///< the counts that show it, in a sentence or two
  std::string fix;      ///< what to change
  /// What the time model expects the launch to save with the fix (seconds; 0: not estimated, or no
  /// gain expected because another bound dominates).
  double gainSeconds = 0;
  double gainFraction = 0; ///< gainSeconds over the launch's estimated time
  std::vector<SourceRef> lines;
};

} // namespace ptxray::advisor
