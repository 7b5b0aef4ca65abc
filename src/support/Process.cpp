#include "support/Process.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <spawn.h>
#include <string_view>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

namespace ptxray::support {
namespace {

bool isExecutable(const std::string &path) {
  std::error_code ec;
  return std::filesystem::is_regular_file(path, ec) && ::access(path.c_str(), X_OK) == 0;
}

} // namespace

std::optional<std::string> findExecutable(std::string_view name, const std::vector<std::string> &fallbacks) {
  if (name.find('/') != std::string_view::npos)
    return isExecutable(std::string(name)) ? std::optional<std::string>(std::string(name)) : std::nullopt;
  if (const char *path = std::getenv("PATH")) {
    std::string_view dirs(path);
    while (true) {
      size_t colon = dirs.find(':');
      std::string_view dir = dirs.substr(0, colon);
      std::string candidate = (dir.empty() ? std::string(".") : std::string(dir)) + "/" + std::string(name);
      if (isExecutable(candidate))
        return candidate;
      if (colon == std::string_view::npos)
        break;
      dirs.remove_prefix(colon + 1);
    }
  }
  for (const std::string &f : fallbacks)
    if (isExecutable(f))
      return f;
  return std::nullopt;
}

std::string pathArgument(const std::string &path) {
  return !path.empty() && path[0] == '-' ? "./" + path : path;
}

/// The environment a tool runs with: this process's, less the sanitizer runtime `ptxray exec` put in
/// LD_PRELOAD for its own libraries (PTXRAY_SANITIZER_PRELOAD names it): a compiler an OpenCL
/// program's build runs (clang) is not instrumented and must not load it.
static std::vector<std::string> toolEnvironment() {
  std::vector<std::string> env;
  const char *preloaded = std::getenv("PTXRAY_SANITIZER_PRELOAD");
  for (char **e = environ; *e; ++e) {
    std::string entry = *e;
    if (preloaded && *preloaded && entry.starts_with("LD_PRELOAD=")) {
      std::string kept;
      std::string_view list = std::string_view(entry).substr(11);
      while (!list.empty()) {
        const size_t end = list.find_first_of(": ");
        const std::string_view item = list.substr(0, end);
        if (!item.empty() && item != preloaded) {
          if (!kept.empty())
            kept.push_back(':');
          kept.append(item);
        }
        list = end == std::string_view::npos ? std::string_view() : list.substr(end + 1);
      }
      if (kept.empty())
        continue;
      entry.assign("LD_PRELOAD=");
      entry.append(kept);
    }
    env.push_back(std::move(entry));
  }
  return env;
}

ProcessResult runProcess(const std::vector<std::string> &argv) {
  ProcessResult result;
  if (argv.empty()) {
    result.startError = "no program given";
    return result;
  }
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) {
    result.startError = std::string("cannot create a pipe: ") + std::strerror(errno);
    return result;
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, fds[1], STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, fds[1], STDERR_FILENO);
  std::vector<char *> args;
  for (const std::string &a : argv)
    args.push_back(const_cast<char *>(a.c_str()));
  args.push_back(nullptr);
  std::vector<std::string> environment = toolEnvironment();
  std::vector<char *> envp;
  for (std::string &e : environment)
    envp.push_back(e.data());
  envp.push_back(nullptr);
  pid_t pid = 0;
  int rc = posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  ::close(fds[1]);
  if (rc != 0) {
    ::close(fds[0]);
    result.startError = "cannot run " + argv[0] + ": " + std::strerror(rc);
    return result;
  }
  result.started = true;
  char buffer[4096];
  for (;;) {
    ssize_t n = ::read(fds[0], buffer, sizeof buffer);
    if (n > 0)
      result.output.append(buffer, static_cast<size_t>(n));
    else if (n == 0 || errno != EINTR)
      break;
  }
  ::close(fds[0]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status))
    result.exitCode = WEXITSTATUS(status);
  else if (WIFSIGNALED(status))
    result.exitCode = 128 + WTERMSIG(status);
  return result;
}

} // namespace ptxray::support
