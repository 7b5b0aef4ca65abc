#include "session/Environment.h"

#include "support/MemoryBudget.h"
#include "system/SystemConfig.h"

#include <fmt/format.h>

#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <limits>
#include <sstream>

namespace ptxray::session {

namespace {

std::string variable(const char *name) {
  const char *v = std::getenv(name);
  return v ? v : "";
}

std::vector<std::string> commaList(const std::string &text) {
  std::vector<std::string> out;
  std::stringstream in(text);
  for (std::string item; std::getline(in, item, ',');)
    if (!item.empty())
      out.push_back(item);
  return out;
}

/// A list of file names: comma-separated, with "\," for a comma in a name and "\\" for a backslash
/// ("tl,1.json" is one file, not "tl" and "1.json" in the program's working folder).
std::vector<std::string> fileList(const std::string &text) {
  std::vector<std::string> out;
  std::string item;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\\' && i + 1 < text.size() && (text[i + 1] == ',' || text[i + 1] == '\\')) {
      item += text[++i];
    } else if (text[i] == ',') {
      if (!item.empty())
        out.push_back(std::move(item));
      item.clear();
    } else {
      item += text[i];
    }
  }
  if (!item.empty())
    out.push_back(std::move(item));
  return out;
}

std::string fileListItem(const std::string &file) {
  std::string out;
  for (char c : file) {
    if (c == ',' || c == '\\')
      out += '\\';
    out += c;
  }
  return out;
}

/// A whole decimal number in [low, high], or nullopt.
std::optional<long long> number(const std::string &text, long long low, long long high) {
  if (text.empty())
    return std::nullopt;
  char *end = nullptr;
  errno = 0;
  const long long v = std::strtoll(text.c_str(), &end, 10);
  if (errno || *end || v < low || v > high)
    return std::nullopt;
  return v;
}

std::string absolute(const std::string &file) {
  return file.empty() || file == "-" ? file : std::filesystem::absolute(file).string();
}

} // namespace

ProgramOptions ProgramOptions::fromEnvironment(std::vector<std::string> &warnings) {
  ProgramOptions o;
  if (std::string arch = variable(env::kArch); !arch.empty())
    o.arch = arch;
  if (std::string t = variable(env::kThreads); !t.empty()) {
    if (auto n = number(t, 0, 4096))
      o.threads = static_cast<unsigned>(*n);
    else
      warnings.push_back(fmt::format("{}: \"{}\" is not 0 to 4096; all cores", env::kThreads, t));
  }
  if (std::string b = variable(env::kBoards); !b.empty()) {
    if (auto n = number(b, 1, system::kMaxBoards))
      o.boards = static_cast<int>(*n);
    else
      warnings.push_back(fmt::format("{}: \"{}\" is not 1 to {}; 1 board", env::kBoards, b, system::kMaxBoards));
  }
  try {
    o.tools.tools = parseTools(commaList(variable(env::kTool)), env::kTool);
  } catch (const std::invalid_argument &e) {
    warnings.push_back(std::string(e.what()) + "; no tool runs");
  }
  if (std::string g = variable(env::kRacecheckGlobal); !g.empty()) {
    if (g == "1" && o.tools.has(Tool::Racecheck))
      o.tools.racecheckGlobal = true;
    else
      warnings.push_back(
          fmt::format("{}: \"{}\" needs the value 1 and racecheck in {}", env::kRacecheckGlobal, g, env::kTool));
  }
  o.sanitizerJson = variable(env::kSanitizerJson);
  o.metricsJson = variable(env::kMetricsJson);
  o.report = variable(env::kReport);
  o.timeline = fileList(variable(env::kTimeline));
  o.trace = variable(env::kTrace);
  o.model.clock = variable(env::kClock);
  if (const std::string &clock = o.model.clock;
      !clock.empty() && clock != "default" && clock != "base" && clock != "boost" && !number(clock, 1, 10000)) {
    warnings.push_back(
        fmt::format("{}: \"{}\" is not default, base, boost or a clock in MHz (1 to 10000); the board's default",
                    env::kClock, clock));
    o.model.clock.clear();
  }
  o.model.dlcm = variable(env::kDlcm);
  if (!o.model.dlcm.empty() && o.model.dlcm != "ca" && o.model.dlcm != "cg") {
    warnings.push_back(
        fmt::format("{}: unknown value \"{}\" (ca, cg); the architecture's default", env::kDlcm, o.model.dlcm));
    o.model.dlcm.clear();
  }
  if (std::string m = variable(env::kBankMode); !m.empty()) {
    if (m == "4" || m == "8")
      o.model.bankMode = m == "4" ? 4 : 8;
    else
      warnings.push_back(fmt::format("{}: unknown value \"{}\" (4, 8); the driver's default", env::kBankMode, m));
  }
  for (const std::string &what : commaList(variable(env::kLog))) {
    if (what == "api")
      o.logApi = true;
    else if (what == "procs")
      o.logApi = o.logProcs = true;
    else
      warnings.push_back(fmt::format("{}: unknown log \"{}\" (api, procs)", env::kLog, what));
  }
  if (std::string m = variable(env::kModel); m == "off")
    o.modelClock = false;
  else if (!m.empty() && m != "on")
    warnings.push_back(fmt::format("{}: unknown value \"{}\" (on, off); on", env::kModel, m));
  if (std::string p = variable(env::kPtx); p == "strict")
    o.strictPtx = true;
  else if (!p.empty())
    warnings.push_back(fmt::format("{}: unknown value \"{}\" (strict)", env::kPtx, p));
  if (std::string m = variable(env::kMaxInstructions); !m.empty()) {
    if (auto n = number(m, 0, static_cast<long long>(env::kMaxInstructionBudget)))
      o.maxInstructions = static_cast<uint64_t>(*n);
    else
      warnings.push_back(fmt::format("{}: \"{}\" is not a count from 0 to {}; the default budget",
                                     env::kMaxInstructions, m, env::kMaxInstructionBudget));
  }
  if (std::string m = variable(env::kMaxMemory); !m.empty()) {
    if (auto bytes = support::parseMemorySize(m))
      o.maxMemory = *bytes;
    else
      warnings.push_back(fmt::format("{}: \"{}\" is not a size (bytes, or a number with K, M, G or T, or a "
                                     "percentage of the machine's memory); the default budget",
                                     env::kMaxMemory, m));
  }
  if (std::string n = variable(env::kPrintLimit); !n.empty()) {
    if (auto v = number(n, 0, std::numeric_limits<int32_t>::max()))
      o.printLimit = static_cast<uint64_t>(*v);
    else
      warnings.push_back(fmt::format("{}: \"{}\" is not a count (0: no limit); 100", env::kPrintLimit, n));
  }
  o.logFile = variable(env::kLogFile);
  o.kernelNames = fileList(variable(env::kKernelName));
  o.kernelNamesExclude = fileList(variable(env::kKernelNameExclude));
  for (auto [name, field] : {std::pair{env::kLaunchSkip, &o.launchSkip}, std::pair{env::kLaunchCount, &o.launchCount}})
    if (std::string n = variable(name); !n.empty()) {
      if (auto v = number(n, 0, std::numeric_limits<int64_t>::max()))
        *field = static_cast<uint64_t>(*v);
      else
        warnings.push_back(fmt::format("{}: \"{}\" is not a count; 0", name, n));
    }
  if (std::string d = variable(env::kDemangle); !d.empty()) {
    if (auto style = ptx::parseNameStyle(d))
      o.names = *style;
    else
      warnings.push_back(fmt::format("{}: unknown value \"{}\" (full, simple, no); full", env::kDemangle, d));
  }
  if (std::string fd = variable(env::kErrorCountFd); !fd.empty())
    o.errorCountFd = static_cast<int>(number(fd, 0, std::numeric_limits<int32_t>::max()).value_or(-1));
  o.connections = hyperQConnectionsFromEnvironment();
  if (std::string n = variable(env::kMaxConnections); !n.empty() && !o.connections)
    warnings.push_back(fmt::format("{}: \"{}\" is not 1 to 1024; the GPU's default", env::kMaxConnections, n));
  o.tools.model = o.needsModel();
  return o;
}

void ProgramOptions::toEnvironment() const {
  auto set = [](const char *name, const std::string &value) {
    if (!value.empty())
      setenv(name, value.c_str(), 1);
  };
  set(env::kArch, arch);
  set(env::kThreads, threads ? std::to_string(threads) : "");
  set(env::kBoards, boards ? std::to_string(*boards) : "");
  std::string tools;
  for (Tool t : this->tools.tools)
    tools += fmt::format("{}{}", tools.empty() ? "" : ",", toolInfo(t).name);
  set(env::kTool, tools);
  set(env::kRacecheckGlobal, this->tools.racecheckGlobal ? "1" : "");
  set(env::kSanitizerJson, absolute(sanitizerJson));
  set(env::kMetricsJson, absolute(metricsJson));
  set(env::kReport, absolute(report));
  std::string files;
  for (const std::string &f : timeline)
    files += fmt::format("{}{}", files.empty() ? "" : ",", fileListItem(absolute(f)));
  set(env::kTimeline, files);
  set(env::kTrace, absolute(trace));
  set(env::kClock, model.clock);
  set(env::kDlcm, model.dlcm);
  set(env::kBankMode, model.bankMode ? std::to_string(model.bankMode) : "");
  set(env::kLog, logProcs ? "api,procs" : logApi ? "api" : "");
  set(env::kPtx, strictPtx ? "strict" : "");
  set(env::kModel, modelClock ? "" : "off");
  set(env::kMaxInstructions, maxInstructions ? std::to_string(maxInstructions) : "");
  set(env::kMaxMemory, maxMemory ? std::to_string(maxMemory) : "");
  set(env::kMaxConnections, connections ? std::to_string(*connections) : "");
  set(env::kPrintLimit, printLimit != 100 ? std::to_string(printLimit) : "");
  set(env::kLogFile, absolute(logFile));
  auto list = [](const std::vector<std::string> &items) {
    std::string out;
    for (const std::string &f : items)
      out += fmt::format("{}{}", out.empty() ? "" : ",", fileListItem(f));
    return out;
  };
  set(env::kKernelName, list(kernelNames));
  set(env::kKernelNameExclude, list(kernelNamesExclude));
  set(env::kLaunchSkip, launchSkip ? std::to_string(launchSkip) : "");
  set(env::kLaunchCount, launchCount ? std::to_string(launchCount) : "");
  set(env::kDemangle, names == ptx::NameStyle::Simple ? "simple" : names == ptx::NameStyle::Mangled ? "no" : "");
  set(env::kErrorCountFd, errorCountFd >= 0 ? std::to_string(errorCountFd) : "");
}

std::optional<int> hyperQConnectionsFromEnvironment() {
  if (auto n = number(variable(env::kMaxConnections), 1, 1024))
    return static_cast<int>(*n);
  return std::nullopt;
}

} // namespace ptxray::session
