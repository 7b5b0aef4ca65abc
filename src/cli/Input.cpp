#include "cli/Input.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>

namespace ptxray::cli {

std::optional<InputFile> readInput(const std::string &path) {
  InputFile in;
  if (path == "-") {
    in.name = "<stdin>";
    std::ostringstream ss;
    ss << std::cin.rdbuf();
    in.text = ss.str();
    return in;
  }
  std::ifstream file(path, std::ios::binary);
  if (!file) {
    std::cerr << "ptxray: error: cannot open '" << path << "': " << std::strerror(errno) << "\n";
    return std::nullopt;
  }
  in.name = path;
  in.text.assign(std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>());
  if (file.bad()) {
    std::cerr << "ptxray: error: cannot read '" << path << "'\n";
    return std::nullopt;
  }
  return in;
}

} // namespace ptxray::cli
