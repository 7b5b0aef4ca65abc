#include "support/Process.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <spawn.h>
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
  pid_t pid = 0;
  int rc = posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), environ);
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
