#include "report/MetricsReport.h"

#include "model/Metrics.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

namespace ptxray::report {
namespace {

nlohmann::json metricObject(const model::MetricList &list) {
  nlohmann::json j = nlohmann::json::object();
  for (const auto &[name, value] : list)
    j[name] = value;
  return j;
}

double find(const model::MetricList &list, std::string_view name) {
  for (const auto &[n, v] : list)
    if (n == name)
      return v;
  return 0;
}

std::string dims(vm::Dim3 d) {
  return fmt::format("({},{},{})", d.x, d.y, d.z);
}

} // namespace

std::string metricsText(const model::LaunchProfile &L, size_t hottestLines) {
  model::MetricList m = model::launchMetrics(L);
  auto v = [&](std::string_view n) { return find(m, n); };
  std::string out = fmt::format("== {} {}x{} on {}\n", L.demangled, dims(L.grid), dims(L.block), L.arch);
  if (L.ctasSimulated < L.ctas)
    out += fmt::format("  sampled: {} of {} CTAs simulated, counts scaled by {:.2f}\n", L.ctasSimulated, L.ctas,
                       static_cast<double>(L.ctas) / static_cast<double>(L.ctasSimulated));
  out += fmt::format("  warp instructions {:.0f}, thread instructions {:.0f}, warp execution efficiency {:.1f}%, "
                     "branch efficiency {:.1f}%\n",
                     v("inst_executed"), v("thread_inst_executed"), v("warp_execution_efficiency"),
                     v("branch_efficiency"));
  out += fmt::format("  global loads: {:.0f} requests, {:.0f} transactions ({:.2f} per request), efficiency {:.1f}%\n",
                     v("gld_requests"), v("gld_transactions"), v("gld_transactions_per_request"), v("gld_efficiency"));
  out += fmt::format("  global stores: {:.0f} requests, {:.0f} transactions ({:.2f} per request), efficiency {:.1f}%\n",
                     v("gst_requests"), v("gst_transactions"), v("gst_transactions_per_request"), v("gst_efficiency"));
  if (v("shared_load_transactions") + v("shared_store_transactions") > 0)
    out += fmt::format("  shared memory: {:.0f} load and {:.0f} store wavefronts, {:.0f} + {:.0f} from bank conflicts, "
                       "efficiency {:.1f}%\n",
                       v("shared_load_transactions"), v("shared_store_transactions"),
                       v("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"),
                       v("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum"), v("shared_efficiency"));
  if (v("local_load_transactions") + v("local_store_transactions") > 0)
    out += fmt::format("  local memory: {:.0f} load and {:.0f} store transactions\n", v("local_load_transactions"),
                       v("local_store_transactions"));
  if (v("l1tex__t_requests_pipe_tex_mem_texture.sum") > 0)
    out +=
        fmt::format("  texture fetches: {:.0f} requests, {:.0f} sectors ({:.2f} per request)\n",
                    v("l1tex__t_requests_pipe_tex_mem_texture.sum"), v("l1tex__t_sectors_pipe_tex_mem_texture.sum"),
                    v("l1tex__t_sectors_pipe_tex_mem_texture.sum") / v("l1tex__t_requests_pipe_tex_mem_texture.sum"));
  if (v("l1tex__t_requests_pipe_tex_mem_surface_op_ld.sum") + v("l1tex__t_requests_pipe_tex_mem_surface_op_st.sum") > 0)
    out += fmt::format(
        "  surfaces: {:.0f} load requests ({:.0f} sectors), {:.0f} store requests ({:.0f} sectors)\n",
        v("l1tex__t_requests_pipe_tex_mem_surface_op_ld.sum"), v("l1tex__t_sectors_pipe_tex_mem_surface_op_ld.sum"),
        v("l1tex__t_requests_pipe_tex_mem_surface_op_st.sum"), v("l1tex__t_sectors_pipe_tex_mem_surface_op_st.sum"));
  if (v("ptxray__global_ld_cta_distinct_sectors") > 0)
    out += fmt::format("  global load reuse: each sector a CTA loads is requested {:.2f} times on average\n",
                       v("ptxray__global_ld_cta_redundancy"));
  out += fmt::format("  footprint: {} B read, {} B written, {} B both\n", L.readFootprintBytes, L.writeFootprintBytes,
                     L.readWriteOverlapBytes);
  if (v("ptxray__constant_requests") > 0)
    out += fmt::format("  constant memory: {:.0f} requests serialized into {:.0f} transactions\n",
                       v("ptxray__constant_requests"), v("ptxray__constant_transactions"));
  out += fmt::format("  occupancy: {:.1f}% theoretical ({} blocks per SM; {} registers/thread, {} B shared per block), "
                     "{:.1f}% achievable by this grid\n",
                     L.occupancy.occupancy * 100, L.occupancy.activeBlocksPerSm, L.registersPerThread,
                     L.staticSharedBytes + L.dynamicSharedBytes, v("achieved_occupancy") * 100);
  out += fmt::format("  time estimate: {:.2f} us, {} bound; effective bandwidth {:.1f} GB/s ({} B read, {} B "
                     "written, once each), requested {:.1f} GB/s, DRAM {:.1f} GB/s\n    {}\n",
                     L.time.seconds * 1e6, model::boundName(L.time.dominant), L.time.effectiveBandwidthGBps,
                     L.uniqueBytesRead, L.uniqueBytesWritten, L.time.requestedBandwidthGBps, L.time.dramBandwidthGBps,
                     L.time.explanation);

  std::vector<model::LineProfile> lines = model::lineProfiles(L);
  std::sort(lines.begin(), lines.end(), [](const model::LineProfile &a, const model::LineProfile &b) {
    return model::hotness(a.inputs.all) > model::hotness(b.inputs.all);
  });
  if (!lines.empty() && hottestLines) {
    out += "  hottest lines (warp instructions + memory transactions):\n";
    out += fmt::format("    {:<40} {:>12} {:>10} {:>10} {:>10} {:>8}\n", "line", "warp inst", "glob req", "glob trans",
                       "shared wf", "diverg");
    for (size_t i = 0; i < std::min(hottestLines, lines.size()); ++i) {
      const model::LineProfile &l = lines[i];
      const model::InstructionCounters &c = l.inputs.all;
      std::string where = l.file.empty() ? std::string("(no line information)") : fmt::format("{}:{}", l.file, l.line);
      if (where.size() > 40)
        where = "..." + where.substr(where.size() - 37);
      out += fmt::format("    {:<40} {:>12} {:>10} {:>10} {:>10} {:>8}\n", where, c.warpExecuted,
                         c.globalRequests + c.localRequests, c.globalTransactions + c.localTransactions,
                         c.sharedWavefronts, c.divergentBranches);
    }
  }
  return out;
}

nlohmann::json metricsJson(const std::vector<model::LaunchProfile> &launches) {
  nlohmann::json doc;
  doc["launches"] = nlohmann::json::array();
  for (const model::LaunchProfile &L : launches) {
    nlohmann::json j;
    j["kernel"] = L.kernel;
    j["demangled"] = L.demangled;
    j["grid"] = {L.grid.x, L.grid.y, L.grid.z};
    j["block"] = {L.block.x, L.block.y, L.block.z};
    j["arch"] = L.arch;
    j["ctas"] = L.ctas;
    j["ctas_simulated"] = L.ctasSimulated;
    j["metrics"] = metricObject(model::launchMetrics(L));
    j["time"] = {{"seconds", L.time.seconds},
                 {"bound", model::boundName(L.time.dominant)},
                 {"gpu", L.time.gpu},
                 {"explanation", L.time.explanation}};
    nlohmann::json lines = nlohmann::json::array();
    for (const model::LineProfile &l : model::lineProfiles(L))
      lines.push_back({{"file", l.file}, {"line", l.line}, {"metrics", metricObject(model::metricsOf(l.inputs))}});
    j["lines"] = std::move(lines);
    nlohmann::json insts = nlohmann::json::array();
    for (const model::InstructionProfile &p : L.instructions) {
      model::MetricInputs in;
      in.add(p);
      insts.push_back({{"function", p.functionName},
                       {"pc", p.instruction},
                       {"ptx", p.ptxText},
                       {"ptx_location", p.ptxLocation},
                       {"file", p.sourceFile},
                       {"line", p.sourceLine},
                       {"class", model::instructionClassName(p.cls)},
                       {"metrics", metricObject(model::metricsOf(in))}});
    }
    j["instructions"] = std::move(insts);
    doc["launches"].push_back(std::move(j));
  }
  return doc;
}

} // namespace ptxray::report
