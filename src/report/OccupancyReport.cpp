#include "report/OccupancyReport.h"

#include "report/HtmlPage.h"
#include "report/MetricsReport.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>

namespace ptxray::report {
namespace {

using arch::ComputeCapability;
using arch::OccupancyInput;

double activeWarps(const ComputeCapability &cc, const OccupancyInput &input) {
  arch::OccupancyResult r = arch::computeOccupancy(cc, input);
  return r.launches() ? r.activeWarpsPerSm : 0;
}

std::string kib(double bytes) {
  if (std::fmod(bytes, 1024.0) == 0)
    return fmt::format("{}K", static_cast<long long>(bytes / 1024));
  return fmt::format("{:.1f}K", bytes / 1024.0);
}

LineChart baseChart(const ComputeCapability &cc, std::string title, std::string xLabel) {
  LineChart chart;
  chart.title = std::move(title);
  chart.x.label = std::move(xLabel);
  chart.y.label = "active warps per SM";
  chart.y.min = 0;
  chart.y.max = cc.maxWarpsPerSm;
  chart.y.ticks = TickStyle::Binary; // 0, 16, 32, 48, 64: ends on the warp limit
  chart.references.push_back({static_cast<double>(cc.maxWarpsPerSm), fmt::format("{} warps max", cc.maxWarpsPerSm)});
  return chart;
}

} // namespace

std::vector<LineChart> occupancyCharts(const ComputeCapability &cc, const OccupancyInput &input,
                                       std::string_view archName) {
  std::vector<LineChart> charts;
  double current = activeWarps(cc, input);

  // Threads per block, in whole warps (what the hardware allocates).
  LineChart threads = baseChart(cc, fmt::format("Varying block size ({})", archName), "threads per block");
  Series byThreads{.name = "active warps", .style = SeriesStyle::Line};
  for (int t = cc.warpSize; t <= cc.maxThreadsPerBlock; t += cc.warpSize) {
    OccupancyInput in = input;
    in.threadsPerBlock = t;
    byThreads.points.push_back({static_cast<double>(t), activeWarps(cc, in)});
  }
  threads.series.push_back(std::move(byThreads));
  threads.x.min = 0;
  threads.x.max = cc.maxThreadsPerBlock;
  threads.x.ticks = TickStyle::Binary;
  threads.markers.push_back(
      {{static_cast<double>(input.threadsPerBlock), current}, fmt::format("{} threads", input.threadsPerBlock)});
  charts.push_back(std::move(threads));

  // Registers per thread: occupancy only changes at allocation boundaries; sample every count.
  LineChart regs = baseChart(cc, fmt::format("Varying register count ({})", archName), "registers per thread");
  Series byRegs{.name = "active warps", .style = SeriesStyle::StepAfter};
  for (int r = 0; r <= cc.maxRegistersPerThread; ++r) {
    OccupancyInput in = input;
    in.registersPerThread = r;
    byRegs.points.push_back({static_cast<double>(r), activeWarps(cc, in)});
  }
  regs.series.push_back(std::move(byRegs));
  regs.x.min = 0;
  regs.x.max = cc.maxRegistersPerThread;
  regs.x.ticks = TickStyle::Binary; // 0, 64, 128, 192, 256
  regs.markers.push_back({{static_cast<double>(input.registersPerThread), current},
                          fmt::format("{} registers", input.registersPerThread)});
  charts.push_back(std::move(regs));

  // Shared memory per block, at the allocation unit, up to what one block may use.
  LineChart smem =
      baseChart(cc, fmt::format("Varying shared memory ({})", archName), "shared memory per block (bytes)");
  Series bySmem{.name = "active warps", .style = SeriesStyle::StepAfter};
  int limit = std::max(cc.sharedPerBlockOptIn, cc.sharedPerBlock);
  int step = std::max(cc.sharedAllocationUnit, 1);
  while (limit / step > 512)
    step *= 2; // keep the chart light on large shared memories
  for (int bytes = 0; bytes <= limit; bytes += step) {
    OccupancyInput in = input;
    in.staticSharedBytes = 0;
    in.dynamicSharedBytes = static_cast<std::size_t>(bytes);
    bySmem.points.push_back({static_cast<double>(bytes), activeWarps(cc, in)});
  }
  smem.series.push_back(std::move(bySmem));
  smem.x.min = 0;
  smem.x.max = limit;
  smem.x.ticks = TickStyle::Binary;
  smem.x.format = kib;
  double used = static_cast<double>(input.staticSharedBytes + input.dynamicSharedBytes);
  smem.markers.push_back({{used, current}, fmt::format("{} B", static_cast<long long>(used))});
  charts.push_back(std::move(smem));
  return charts;
}

std::string occupancySvg(const ComputeCapability &cc, const OccupancyInput &input, std::string_view archName) {
  std::vector<LineChart> charts = occupancyCharts(cc, input, archName);
  int width = 0, height = 0;
  for (const LineChart &c : charts) {
    width += c.width;
    height = std::max(height, c.height);
  }
  std::string out = fmt::format("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" height=\"{1}\" "
                                "viewBox=\"0 0 {0} {1}\">\n",
                                width, height);
  int x = 0;
  for (const LineChart &c : charts) {
    // Nested <svg> elements place each chart in its own viewport.
    std::string svg = c.renderSvg();
    size_t open = svg.find("<svg");
    if (open != std::string::npos)
      svg.insert(open + 4, fmt::format(" x=\"{}\" y=\"0\"", x));
    out += svg;
    x += c.width;
  }
  out += "</svg>\n";
  return out;
}

std::string occupancyHtml(const ComputeCapability &cc, const OccupancyInput &input, const arch::OccupancyResult &result,
                          const std::vector<advisor::Finding> &advice, std::string_view archName) {
  HtmlPage page(fmt::format("ptxray occupancy: {}", archName));
  page.addHeading(fmt::format("Occupancy on {}", archName));
  std::vector<TableRow> rows = {
      {"threads per block", fmt::format("{}", input.threadsPerBlock)},
      {"registers per thread", fmt::format("{}", input.registersPerThread)},
      {"shared memory per block",
       fmt::format("{} B static + {} B dynamic", input.staticSharedBytes, input.dynamicSharedBytes)},
      {"active blocks per SM", fmt::format("{}", result.activeBlocksPerSm)},
      {"active warps per SM", fmt::format("{} of {}", result.activeWarpsPerSm, result.maxWarpsPerSm)},
      {"occupancy", fmt::format("{:.0f}%", result.occupancy * 100)},
  };
  std::string limiters;
  for (arch::OccupancyResource r : result.limiters)
    limiters += (limiters.empty() ? "" : ", ") + std::string(arch::resourceName(r));
  rows.push_back({"limited by", limiters.empty() ? "-" : limiters});
  if (!result.launches())
    rows.push_back({"launch fails", result.launchError});
  page.addTable(std::move(rows), "Launch and result");
  for (const advisor::Finding &f : advice)
    page.addParagraph(
        fmt::format("[{}] {}: {} {} ({})", advisor::priorityName(f.priority), f.rule, f.title, f.fix, f.guide));
  for (const LineChart &chart : occupancyCharts(cc, input, archName))
    page.addChart(chart);
  return page.render();
}

std::string occupancyCsvHeader() {
  return "\"Device\",\"CC\",\"Block Size\",\"Section Name\",\"Metric Name\",\"Metric Unit\",\"Metric "
         "Value\"\n";
}

std::string occupancyCsvRows(std::string_view device, const arch::ComputeCapability &cc, const arch::OccupancyInput &in,
                             const arch::OccupancyResult &r) {
  std::string out;
  const std::string cap = cc.version();
  auto row = [&](std::string_view section, std::string_view name, std::string_view unit, std::string value) {
    out += fmt::format("{},{},{},{},{},{},{}\n", csvField(device), csvField(cap),
                       csvField(std::to_string(in.threadsPerBlock)), csvField(section), csvField(name), csvField(unit),
                       csvField(value));
  };
  auto number = [](double v) { return ncuNumber(v); };
  row("Launch Statistics", "Block Size", "", number(in.threadsPerBlock));
  row("Launch Statistics", "Registers Per Thread", "register/thread", number(in.registersPerThread));
  row("Launch Statistics", "Static Shared Memory Per Block", "byte/block", number(double(in.staticSharedBytes)));
  row("Launch Statistics", "Dynamic Shared Memory Per Block", "byte/block", number(double(in.dynamicSharedBytes)));
  row("Launch Statistics", "Shared Memory Configuration Size", "byte", number(double(r.sharedBytesPerSm)));
  // A limit the architecture does not have (barriers before CC 9.0's named-barrier limit, say) is
  // left out, as ncu leaves out what a GPU cannot measure; a block that cannot launch has none.
  auto limit = [&](std::string_view name, std::optional<int> v) {
    if (v)
      row("Occupancy", name, "block", number(*v));
  };
  limit("Block Limit SM", r.limits.blocks);
  limit("Block Limit Registers", r.limits.registers);
  limit("Block Limit Shared Mem", r.limits.sharedMemory);
  limit("Block Limit Warps", r.limits.warps);
  limit("Block Limit Barriers", r.limits.barriers);
  row("Occupancy", "Theoretical Active Warps per SM", "warp", number(r.activeWarpsPerSm));
  row("Occupancy", "Theoretical Occupancy", "%", number(r.occupancy * 100));
  return out;
}

} // namespace ptxray::report
