#include "model/Metrics.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <utility>

namespace ptxray::model {
namespace {

double ratio(uint64_t num, uint64_t den, double scale = 1) {
  return den ? scale * static_cast<double>(num) / static_cast<double>(den) : 0;
}

bool touchesShared(const InstructionCounters &c) {
  return c.sharedRequests > 0;
}

} // namespace

void MetricInputs::add(const InstructionProfile &p) {
  switch (p.memory) {
  case MemoryKind::Load: loads.add(p.counters); break;
  case MemoryKind::Store: stores.add(p.counters); break;
  case MemoryKind::Atomic: atomics.add(p.counters); break;
  case MemoryKind::None: other.add(p.counters); break;
  }
  all.add(p.counters);
  threadsByClass[static_cast<int>(p.cls)] += p.counters.threadsPredicatedOn;
  if (touchesShared(p.counters)) {
    if (p.memory == MemoryKind::Load)
      sharedLoadInstructions += p.counters.warpExecuted;
    else if (p.memory == MemoryKind::Store)
      sharedStoreInstructions += p.counters.warpExecuted;
  }
}

MetricList metricsOf(const MetricInputs &in) {
  const InstructionCounters &ld = in.loads, &st = in.stores, &at = in.atomics, &all = in.all;
  auto cls = [&](InstructionClass c) { return static_cast<double>(in.threadsByClass[static_cast<int>(c)]); };
  MetricList m = {
      // Nsight Compute (CC >= 5.0 semantics; the model counts them for every CC).
      {"smsp__inst_executed.sum", static_cast<double>(all.warpExecuted)},
      {"smsp__thread_inst_executed.sum", static_cast<double>(all.threadsActive)},
      {"smsp__thread_inst_executed_pred_on.sum", static_cast<double>(all.threadsPredicatedOn)},
      {"l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum", static_cast<double>(ld.globalRequests)},
      {"l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", static_cast<double>(ld.globalTransactions)},
      {"l1tex__t_requests_pipe_lsu_mem_global_op_st.sum", static_cast<double>(st.globalRequests)},
      {"l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum", static_cast<double>(st.globalTransactions)},
      {"l1tex__t_requests_pipe_lsu_mem_global_op_atom.sum", static_cast<double>(at.globalRequests)},
      {"l1tex__t_sectors_pipe_lsu_mem_global_op_atom.sum", static_cast<double>(at.globalTransactions)},
      {"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum", static_cast<double>(ld.sharedWavefronts)},
      {"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum", static_cast<double>(st.sharedWavefronts)},
      {"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
       static_cast<double>(ld.sharedWavefronts - ld.sharedIdealWavefronts)},
      {"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
       static_cast<double>(st.sharedWavefronts - st.sharedIdealWavefronts)},
      {"smsp__inst_executed_op_shared_ld.sum", static_cast<double>(in.sharedLoadInstructions)},
      {"smsp__inst_executed_op_shared_st.sum", static_cast<double>(in.sharedStoreInstructions)},
      {"l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum", static_cast<double>(ld.localTransactions)},
      {"l1tex__t_sectors_pipe_lsu_mem_local_op_st.sum", static_cast<double>(st.localTransactions)},
      {"l1tex__t_requests_pipe_tex_mem_texture.sum", static_cast<double>(all.textureRequests)},
      {"l1tex__t_sectors_pipe_tex_mem_texture.sum", static_cast<double>(all.textureSectors)},
      {"l1tex__t_requests_pipe_tex_mem_surface_op_ld.sum", static_cast<double>(ld.surfaceRequests)},
      {"l1tex__t_sectors_pipe_tex_mem_surface_op_ld.sum", static_cast<double>(ld.surfaceSectors)},
      {"l1tex__t_requests_pipe_tex_mem_surface_op_st.sum", static_cast<double>(st.surfaceRequests)},
      {"l1tex__t_sectors_pipe_tex_mem_surface_op_st.sum", static_cast<double>(st.surfaceSectors)},
      // nvprof (every CC: transactions are segments on 1.x-3.x, sectors from 5.0).
      {"inst_executed", static_cast<double>(all.warpExecuted)},
      {"thread_inst_executed", static_cast<double>(all.threadsActive)},
      {"not_predicated_off_thread_inst_executed", static_cast<double>(all.threadsPredicatedOn)},
      {"gld_requests", static_cast<double>(ld.globalRequests)},
      {"gld_transactions", static_cast<double>(ld.globalTransactions)},
      {"gst_requests", static_cast<double>(st.globalRequests)},
      {"gst_transactions", static_cast<double>(st.globalTransactions)},
      {"atomic_transactions", static_cast<double>(at.globalTransactions)},
      {"gld_transactions_per_request", ratio(ld.globalTransactions, ld.globalRequests)},
      {"gst_transactions_per_request", ratio(st.globalTransactions, st.globalRequests)},
      {"gld_efficiency", ratio(ld.globalBytesRequested, ld.globalBytesMoved, 100)},
      {"gst_efficiency", ratio(st.globalBytesRequested, st.globalBytesMoved, 100)},
      {"shared_load_transactions", static_cast<double>(ld.sharedWavefronts)},
      {"shared_store_transactions", static_cast<double>(st.sharedWavefronts)},
      {"shared_load_transactions_per_request", ratio(ld.sharedWavefronts, ld.sharedRequests)},
      {"shared_store_transactions_per_request", ratio(st.sharedWavefronts, st.sharedRequests)},
      {"shared_efficiency", ratio(all.sharedIdealWavefronts, all.sharedWavefronts, 100)},
      {"local_load_transactions", static_cast<double>(ld.localTransactions)},
      {"local_store_transactions", static_cast<double>(st.localTransactions)},
      {"local_load_requests", static_cast<double>(ld.localRequests)},
      {"local_store_requests", static_cast<double>(st.localRequests)},
      {"tex_cache_transactions", static_cast<double>(all.textureSectors)},
      {"branch_efficiency", all.branches ? ratio(all.branches - all.divergentBranches, all.branches, 100) : 100},
      {"divergent_branch", static_cast<double>(all.divergentBranches)},
      {"branch", static_cast<double>(all.branches)},
      {"warp_execution_efficiency", ratio(all.threadsActive, all.warpExecuted * kLanes, 100)},
      {"warp_nonpred_execution_efficiency", ratio(all.threadsPredicatedOn, all.warpExecuted * kLanes, 100)},
      {"inst_fp_16", cls(InstructionClass::Fp16)},
      {"inst_fp_32", cls(InstructionClass::Fp32)},
      {"inst_fp_64", cls(InstructionClass::Fp64)},
      {"inst_integer", cls(InstructionClass::Int32) + cls(InstructionClass::Int32Multiply) +
                           cls(InstructionClass::Int24Multiply) + cls(InstructionClass::IntegerOther)},
      {"inst_bit_convert", cls(InstructionClass::Conversion)},
      {"inst_control", cls(InstructionClass::Control)},
      {"inst_compute_ld_st", cls(InstructionClass::LoadStore)},
      {"inst_inter_thread_communication", cls(InstructionClass::WarpShuffle)},
      {"inst_misc", cls(InstructionClass::Barrier) + cls(InstructionClass::Other) + cls(InstructionClass::Special) +
                        cls(InstructionClass::Emulated)},
      // ptxray's own.
      {"ptxray__global_ideal_transactions", static_cast<double>(all.globalIdealTransactions)},
      {"ptxray__global_bytes_requested", static_cast<double>(all.globalBytesRequested)},
      {"ptxray__global_bytes_moved", static_cast<double>(all.globalBytesMoved)},
      {"ptxray__local_bytes_moved", static_cast<double>(all.localBytesMoved)},
      {"ptxray__shared_ideal_wavefronts", static_cast<double>(all.sharedIdealWavefronts)},
      {"ptxray__constant_requests", static_cast<double>(all.constantRequests)},
      {"ptxray__constant_transactions", static_cast<double>(all.constantTransactions)},
      {"ptxray__texture_bytes_requested", static_cast<double>(all.textureBytesRequested)},
      {"ptxray__surface_bytes_requested", static_cast<double>(all.surfaceBytesRequested)},
      {"ptxray__global_ld_warp_sectors", static_cast<double>(ld.globalWarpSectors)},
      {"ptxray__global_ld_cta_distinct_sectors", static_cast<double>(ld.globalCtaDistinctSectors)},
      {"ptxray__global_ld_cta_redundancy", ratio(ld.globalWarpSectors, ld.globalCtaDistinctSectors)},
      {"ptxray__inst_special_function", cls(InstructionClass::Special)},
      {"ptxray__inst_emulated", cls(InstructionClass::Emulated)},
  };
  // Access patterns of global loads and stores.
  for (auto [op, c] : {std::pair{"ld", &ld}, std::pair{"st", &st}}) {
    const uint64_t classified = c->globalUnitStrideRequests + c->globalMisalignedRequests + c->globalStridedRequests +
                                c->globalBroadcastRequests;
    const std::string prefix = std::string("ptxray__global_") + op;
    m.insert(m.end(), {
                          {prefix + "_warp_accesses", static_cast<double>(c->globalWarpAccesses)},
                          {prefix + "_unit_stride_requests", static_cast<double>(c->globalUnitStrideRequests)},
                          {prefix + "_misaligned_requests", static_cast<double>(c->globalMisalignedRequests)},
                          {prefix + "_strided_requests", static_cast<double>(c->globalStridedRequests)},
                          {prefix + "_broadcast_requests", static_cast<double>(c->globalBroadcastRequests)},
                          {prefix + "_scattered_requests",
                           static_cast<double>(c->globalWarpAccesses - std::min(classified, c->globalWarpAccesses))},
                          {prefix + "_mean_stride_bytes", ratio(c->globalStrideBytesSum, c->globalStridedRequests)},
                      });
  }
  return m;
}

MetricList launchMetrics(const LaunchProfile &launch) {
  MetricInputs in;
  for (const InstructionProfile &p : launch.instructions)
    in.add(p);
  MetricList m = metricsOf(in);
  const arch::OccupancyResult &o = launch.occupancy;
  // Achieved occupancy as the model sees it: the theoretical occupancy, unless the grid is too small
  // to fill the SMs with that many warps.
  double achieved = o.occupancy;
  if (launch.time.smCount > 0 && o.maxWarpsPerSm > 0) {
    double warpsPerBlock = static_cast<double>((launch.block.count() + kLanes - 1) / kLanes);
    double ctasPerSm = std::ceil(static_cast<double>(launch.ctas) / launch.time.smCount);
    achieved = std::min(o.occupancy, ctasPerSm * warpsPerBlock / o.maxWarpsPerSm);
  }
  m.insert(m.end(), {
                        {"sm__warps_active.avg.pct_of_peak_sustained_active", achieved * 100},
                        {"achieved_occupancy", achieved},
                        {"ptxray__theoretical_occupancy", o.occupancy},
                        {"gpu__time_duration.sum", launch.time.seconds * 1e9},
                        {"ptxray__time_compute_ns", launch.time.computeSeconds * 1e9},
                        {"ptxray__time_memory_ns", launch.time.memorySeconds * 1e9},
                        {"ptxray__time_latency_ns", launch.time.latencySeconds * 1e9},
                        {"ptxray__dram_bytes", static_cast<double>(launch.time.dramBytes)},
                        {"ptxray__effective_bandwidth_gb_s", launch.time.effectiveBandwidthGBps},
                        {"ptxray__unique_bytes_read", static_cast<double>(launch.uniqueBytesRead)},
                        {"ptxray__unique_bytes_written", static_cast<double>(launch.uniqueBytesWritten)},
                        {"ptxray__requested_bandwidth_gb_s", launch.time.requestedBandwidthGBps},
                        {"ptxray__dram_bandwidth_gb_s", launch.time.dramBandwidthGBps},
                        {"ptxray__read_footprint_bytes", static_cast<double>(launch.readFootprintBytes)},
                        {"ptxray__write_footprint_bytes", static_cast<double>(launch.writeFootprintBytes)},
                        {"ptxray__read_write_overlap_bytes", static_cast<double>(launch.readWriteOverlapBytes)},
                    });
  return m;
}

std::vector<LineProfile> lineProfiles(const LaunchProfile &launch) {
  std::map<std::pair<std::string, uint32_t>, LineProfile> byLine;
  for (const InstructionProfile &p : launch.instructions) {
    LineProfile &l = byLine[{p.sourceFile, p.sourceLine}];
    l.file = p.sourceFile;
    l.line = p.sourceLine;
    l.inputs.add(p);
    l.instructions.push_back(&p);
  }
  std::vector<LineProfile> out;
  for (auto &[key, line] : byLine)
    out.push_back(std::move(line));
  return out;
}

uint64_t hotness(const InstructionCounters &c) {
  return c.warpExecuted + c.globalTransactions + c.localTransactions + c.sharedWavefronts + c.constantTransactions +
         c.textureSectors + c.surfaceSectors;
}

} // namespace ptxray::model
