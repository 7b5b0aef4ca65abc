#!/usr/bin/env bash
# Formats the C++ sources with the repository's .clang-format; --check only reports.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "${1:-}" = "--check" ]; then
  # What is committed is what CI checks; work in progress is not.
  mapfile -t files < <(git ls-files '*.cpp' '*.h')
  clang-format --dry-run -Werror "${files[@]}"
  echo "format: ${#files[@]} files clean"
else
  mapfile -t files < <(git ls-files '*.cpp' '*.h'; git ls-files --others --exclude-standard '*.cpp' '*.h')
  clang-format -i "${files[@]}"
fi
