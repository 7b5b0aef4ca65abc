#include "report/AnalysisSummary.h"

#include "model/Metrics.h"
#include "report/MetricsReport.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

namespace ptxray::report {
namespace {

std::string dims(vm::Dim3 d) {
  if (d.z == 1 && d.y == 1)
    return std::to_string(d.x);
  if (d.z == 1)
    return fmt::format("{}x{}", d.x, d.y);
  return fmt::format("{}x{}x{}", d.x, d.y, d.z);
}

std::string limiters(const arch::OccupancyResult &r) {
  std::string out;
  for (arch::OccupancyResource res : r.limiters) {
    std::string name(arch::resourceName(res));
    std::replace(name.begin(), name.end(), '_', ' ');
    out += fmt::format("{}{}", out.empty() ? "" : ", ", name);
  }
  return out.empty() ? "-" : out;
}

std::string us(double seconds) {
  return fmt::format("{:.2f} us", seconds * 1e6);
}

double ratio(uint64_t a, uint64_t b) {
  return b ? static_cast<double>(a) / static_cast<double>(b) : 0;
}

std::string pct(double f) {
  return fmt::format("{:.1f}%", f * 100);
}

} // namespace

std::string lineName(const std::string &file, uint32_t line) {
  return file.empty() ? std::string("(no line information)") : fmt::format("{}:{}", file, line);
}

std::vector<TableRow> summaryRows(const Analysis &a, bool verbose) {
  std::vector<TableRow> rows;
  rows.push_back({"GPU", a.target.displayName()});
  if (const model::LaunchProfile *L = a.launch.get()) {
    rows.push_back({"kernel", L->demangled});
    rows.push_back({"launch", fmt::format("grid {} x block {} ({} threads), {} registers/thread, {} B shared/block",
                                          dims(L->grid), dims(L->block), L->grid.count() * L->block.count(),
                                          L->registersPerThread, L->staticSharedBytes + L->dynamicSharedBytes)});
    if (L->ctasSimulated < L->ctas)
      rows.push_back(
          {"sampled", fmt::format("{} of {} blocks simulated; counts scaled to the grid", L->ctasSimulated, L->ctas)});
    if (!L->childGrids.empty()) {
      uint32_t deepest = 0;
      for (const model::ChildGrid &c : L->childGrids)
        deepest = std::max(deepest, c.depth);
      rows.push_back(
          {"child grids",
           fmt::format("{} launched by its threads and theirs (dynamic parallelism), {} level{} deep: the "
                       "launch takes {} until the last is done; the counts and time below are its own grid's",
                       L->childGrids.size(), deepest, deepest == 1 ? "" : "s", us(L->seconds()))});
    }
    const model::TimeEstimate &t = L->time;
    rows.push_back(
        {"time estimate",
         fmt::format("{}, {} bound (compute {}, memory {}, latency {}{}, launch {})", us(t.seconds),
                     model::boundName(t.dominant), us(t.computeSeconds),
                     // the memory bound is DRAM's or L2's, whichever is longer
                     t.l2Seconds > t.memorySeconds ? us(t.l2Seconds) + " in L2" : us(t.memorySeconds),
                     us(t.latencySeconds),
                     t.serializationSeconds > 0 ? ", serialization " + us(t.serializationSeconds) : std::string(),
                     us(t.launchOverheadSeconds))});
    const arch::OccupancyResult &o = L->occupancy;
    rows.push_back(
        {"occupancy", fmt::format("{} theoretical: {} blocks, {} of {} warps per SM; limited by {}", pct(o.occupancy),
                                  o.activeBlocksPerSm, o.activeWarpsPerSm, o.maxWarpsPerSm, limiters(o))});
    // [BPG] 2.2.2's effective bandwidth (the distinct bytes read and written), then what the accesses
    // asked for and what crosses DRAM: their gaps are the redundant and the wasted traffic.
    rows.push_back({"bandwidth", fmt::format("{:.1f} GB/s effective of {:.1f} GB/s theoretical ({} B read and "
                                             "written once); {} B requested ({:.1f} GB/s), {} B estimated to "
                                             "cross DRAM ({:.1f} GB/s){}",
                                             t.effectiveBandwidthGBps, t.bandwidthBytesPerSecond / 1e9,
                                             L->uniqueBytesRead + L->uniqueBytesWritten, L->timeInputs.bytesRequested,
                                             t.requestedBandwidthGBps, t.dramBytes, t.dramBandwidthGBps,
                                             bandwidthAboveTheoreticalNote(*L))});
    // Load and store efficiencies separately, from the launch's per-instruction counts.
    uint64_t lr = 0, lm = 0, sr = 0, sm = 0;
    for (const model::InstructionProfile &p : L->instructions) {
      if (p.memory == model::MemoryKind::Load) {
        lr += p.counters.globalBytesRequested;
        lm += p.counters.globalBytesMoved;
      } else if (p.memory == model::MemoryKind::Store) {
        sr += p.counters.globalBytesRequested;
        sm += p.counters.globalBytesMoved;
      }
    }
    const model::InstructionCounters &c = L->total;
    rows.push_back(
        {"memory", fmt::format("global load efficiency {}, store efficiency {}; shared efficiency {}{}",
                               lm ? pct(ratio(lr, lm)) : "-", sm ? pct(ratio(sr, sm)) : "-",
                               c.sharedRequests ? pct(ratio(c.sharedIdealWavefronts, c.sharedWavefronts)) : "-",
                               efficiencyAboveFullNote(std::max(lm ? ratio(lr, lm) : 0.0, sm ? ratio(sr, sm) : 0.0)))});
    rows.push_back(
        {"execution", fmt::format("{} warp instructions; warp execution efficiency {}, branch efficiency {}",
                                  c.warpExecuted, pct(ratio(c.threadsActive, c.warpExecuted * 32)),
                                  c.branches ? pct(ratio(c.branches - c.divergentBranches, c.branches)) : "100.0%")});
    if (verbose)
      rows.push_back({"time model", t.explanation});
  } else if (a.kernelStatic) {
    const KernelStatic &k = *a.kernelStatic;
    rows.push_back({"kernel", k.demangled});
    if (!k.registerSource.empty()) { // none for a kernel known only by its sanitizer reports
      rows.push_back({"registers", fmt::format("{} per thread ({})", k.registers, k.registerSource)});
      rows.push_back({"shared memory", fmt::format("{} B static per block", k.staticSharedBytes)});
      rows.push_back({"local memory", fmt::format("{} B per thread", k.localBytesPerThread)});
    }
    std::string best;
    double top = -1;
    for (const auto &[threads, r] : k.occupancyByBlockSize)
      if (r.occupancy > top + 1e-9) {
        top = r.occupancy;
        best = fmt::format("{} at {} threads per block", pct(r.occupancy), threads);
      }
    rows.push_back({"best occupancy", best.empty() ? "-" : best});
  }
  return rows;
}

std::vector<View> launchViews(const model::LaunchProfile &L, size_t maxRows) {
  std::vector<model::LineProfile> lines = model::lineProfiles(L);
  std::vector<View> views;
  auto finish = [&](View v, std::vector<std::pair<double, std::vector<std::string>>> rows) {
    if (rows.empty())
      return;
    std::stable_sort(rows.begin(), rows.end(), [](const auto &a, const auto &b) { return a.first > b.first; });
    const double top = rows.front().first > 0 ? rows.front().first : 1;
    for (size_t i = 0; i < rows.size() && i < maxRows; ++i) {
      v.table.rows.push_back(std::move(rows[i].second));
      v.table.heat.push_back(rows[i].first / top);
    }
    views.push_back(std::move(v));
  };
  auto f1 = [](double v) { return fmt::format("{:.1f}", v); };
  auto count = [](uint64_t v) { return std::to_string(v); };

  {
    View v{"memory", "Global memory per line", {}};
    v.table.headers = {"line",        "ld requests",  "ld trans/req",  "ld efficiency",
                       "st requests", "st trans/req", "st efficiency", "bytes moved"};
    std::vector<std::pair<double, std::vector<std::string>>> rows;
    for (const model::LineProfile &l : lines) {
      const model::InstructionCounters &ld = l.inputs.loads, &st = l.inputs.stores, &all = l.inputs.all;
      if (!all.globalRequests)
        continue;
      rows.push_back(
          {static_cast<double>(all.globalTransactions),
           {lineName(l.file, l.line), count(ld.globalRequests),
            ld.globalRequests ? f1(ratio(ld.globalTransactions, ld.globalRequests)) : "-",
            ld.globalBytesMoved ? pct(ratio(ld.globalBytesRequested, ld.globalBytesMoved)) : "-",
            count(st.globalRequests), st.globalRequests ? f1(ratio(st.globalTransactions, st.globalRequests)) : "-",
            st.globalBytesMoved ? pct(ratio(st.globalBytesRequested, st.globalBytesMoved)) : "-",
            count(all.globalBytesMoved)}});
    }
    finish(std::move(v), std::move(rows));
  }
  {
    View v{"shared", "Shared memory per line", {}};
    v.table.headers = {"line", "requests", "wavefronts/req", "ideal/req", "conflict wavefronts"};
    std::vector<std::pair<double, std::vector<std::string>>> rows;
    for (const model::LineProfile &l : lines) {
      const model::InstructionCounters &c = l.inputs.all;
      if (!c.sharedRequests)
        continue;
      const uint64_t conflicts = c.sharedWavefronts - std::min(c.sharedWavefronts, c.sharedIdealWavefronts);
      rows.push_back(
          {static_cast<double>(c.sharedWavefronts),
           {lineName(l.file, l.line), count(c.sharedRequests), f1(ratio(c.sharedWavefronts, c.sharedRequests)),
            f1(ratio(c.sharedIdealWavefronts, c.sharedRequests)), count(conflicts)}});
    }
    finish(std::move(v), std::move(rows));
  }
  {
    View v{"divergence", "Branches per line", {}};
    v.table.headers = {"line", "branches", "divergent", "branch efficiency", "active threads/warp"};
    std::vector<std::pair<double, std::vector<std::string>>> rows;
    for (const model::LineProfile &l : lines) {
      const model::InstructionCounters &c = l.inputs.all;
      if (!c.branches)
        continue;
      rows.push_back(
          {static_cast<double>(c.divergentBranches),
           {lineName(l.file, l.line), count(c.branches), count(c.divergentBranches),
            pct(ratio(c.branches - c.divergentBranches, c.branches)), f1(ratio(c.threadsActive, c.warpExecuted))}});
    }
    if (L.total.divergentBranches)
      finish(std::move(v), std::move(rows));
  }
  {
    View v{"mix", "Instruction mix", {}};
    v.table.headers = {"class", "warp instructions", "share"};
    std::vector<std::pair<double, std::vector<std::string>>> rows;
    for (int c = 0; c < model::kInstructionClasses; ++c) {
      const uint64_t n = L.warpInstructionsByClass[c];
      if (n)
        rows.push_back({static_cast<double>(n),
                        {std::string(model::instructionClassName(static_cast<model::InstructionClass>(c))), count(n),
                         pct(ratio(n, L.total.warpExecuted))}});
    }
    finish(std::move(v), std::move(rows));
  }
  {
    View v{"hot", "Hot lines (warp instructions + transactions + wavefronts)", {}};
    v.table.headers = {"line", "cost", "warp instructions", "global trans", "local trans", "shared wavefronts"};
    std::vector<std::pair<double, std::vector<std::string>>> rows;
    for (const model::LineProfile &l : lines) {
      const model::InstructionCounters &c = l.inputs.all;
      rows.push_back({static_cast<double>(model::hotness(c)),
                      {lineName(l.file, l.line), count(model::hotness(c)), count(c.warpExecuted),
                       count(c.globalTransactions), count(c.localTransactions), count(c.sharedWavefronts)}});
    }
    finish(std::move(v), std::move(rows));
  }
  return views;
}

const SourceFiles::File &SourceFiles::load(const std::string &file) {
  auto it = files_.find(file);
  if (it != files_.end())
    return it->second;
  File f;
  std::ifstream in(file, std::ios::binary);
  f.path = file;
  for (size_t d = 0; !in && d < dirs_.size(); ++d) {
    in.clear();
    const std::filesystem::path candidate = std::filesystem::path(dirs_[d]) / std::filesystem::path(file).filename();
    in.open(candidate, std::ios::binary);
    if (in)
      f.path = candidate.lexically_normal().string();
  }
  for (std::string s; in && std::getline(in, s);) {
    if (!s.empty() && s.back() == '\r')
      s.pop_back();
    for (char &ch : s)
      if (ch == '\t')
        ch = ' ';
    f.lines.push_back(std::move(s));
  }
  return files_.emplace(file, std::move(f)).first->second;
}

const std::string *SourceFiles::line(const std::string &file, uint32_t line) {
  if (file.empty() || line == 0)
    return nullptr;
  const File &f = load(file);
  return line <= f.lines.size() ? &f.lines[line - 1] : nullptr;
}

std::string SourceFiles::displayPath(const std::string &file) {
  return file.empty() ? file : load(file).path;
}

} // namespace ptxray::report
