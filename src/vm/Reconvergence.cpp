#include "vm/Reconvergence.h"

#include "ptx/ControlFlowGraph.h"

#include <algorithm>

namespace ptxray::vm {

std::vector<uint32_t> reconvergencePoints(const ptx::Module &module, const ptx::Function &fn) {
  std::vector<uint32_t> result(fn.instructions.size(), ptx::kNone);
  if (fn.instructions.empty())
    return result;
  ptx::ControlFlowGraph cfg(module, fn);
  const auto &blocks = cfg.blocks();
  const uint32_t n = static_cast<uint32_t>(blocks.size());
  const uint32_t exitNode = n;

  // Post-dominators are dominators of the reversed graph rooted at a virtual exit that every block
  // leaving the function (or with no successor) feeds. Cooper, Harvey and Kennedy's iteration.
  std::vector<std::vector<uint32_t>> revSucc(n + 1); // edges of the reversed graph
  for (uint32_t b = 0; b < n; ++b) {
    if (blocks[b].successors.empty() || blocks[b].endsFunction)
      revSucc[exitNode].push_back(b);
    for (uint32_t s : blocks[b].successors)
      revSucc[s].push_back(b);
  }
  std::vector<uint32_t> order; // postorder of the reversed graph from exit
  std::vector<uint32_t> postIndex(n + 1, ptx::kNone);
  {
    std::vector<std::pair<uint32_t, size_t>> stack{{exitNode, 0}};
    std::vector<uint8_t> seen(n + 1, 0);
    seen[exitNode] = 1;
    while (!stack.empty()) {
      auto &[node, next] = stack.back();
      if (next < revSucc[node].size()) {
        uint32_t s = revSucc[node][next++];
        if (!seen[s]) {
          seen[s] = 1;
          stack.push_back({s, 0});
        }
        continue;
      }
      postIndex[node] = static_cast<uint32_t>(order.size());
      order.push_back(node);
      stack.pop_back();
    }
  }
  std::vector<uint32_t> ipdom(n + 1, ptx::kNone);
  ipdom[exitNode] = exitNode;
  auto intersect = [&](uint32_t a, uint32_t b) {
    while (a != b) {
      while (postIndex[a] < postIndex[b])
        a = ipdom[a];
      while (postIndex[b] < postIndex[a])
        b = ipdom[b];
    }
    return a;
  };
  for (bool changed = true; changed;) {
    changed = false;
    for (auto it = order.rbegin(); it != order.rend(); ++it) {
      uint32_t b = *it;
      if (b == exitNode)
        continue;
      // Predecessors in the reversed graph are the block's successors (and exit for leaving blocks).
      uint32_t newIdom = ptx::kNone;
      auto consider = [&](uint32_t p) {
        if (postIndex[p] == ptx::kNone || ipdom[p] == ptx::kNone)
          return;
        newIdom = newIdom == ptx::kNone ? p : intersect(p, newIdom);
      };
      if (blocks[b].successors.empty() || blocks[b].endsFunction)
        consider(exitNode);
      for (uint32_t s : blocks[b].successors)
        consider(s);
      if (newIdom != ptx::kNone && ipdom[b] != newIdom) {
        ipdom[b] = newIdom;
        changed = true;
      }
    }
  }
  for (uint32_t b = 0; b < n; ++b) {
    uint32_t p = ipdom[b];
    // Blocks that never reach an exit (infinite loops) reconverge only at function exit.
    uint32_t point = (p == ptx::kNone || p == exitNode) ? ptx::kNone : blocks[p].firstInstruction;
    for (uint32_t i = blocks[b].firstInstruction; i < blocks[b].endInstruction; ++i)
      result[i] = point;
  }
  return result;
}

} // namespace ptxray::vm
