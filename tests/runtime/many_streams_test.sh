#!/bin/bash
# `ptxray exec --timeline` of tests/runtime/programs/many_streams.c (issue #31): the program exits
# normally within a memory limit (the timeline once took gigabytes for 20,000 streams and aborted
# the program at 100,000), the timeline has every operation, and, each operation waiting for the one
# before it (the legacy stream's semantics), it is as long as the one-stream run and overlaps nothing.
#
#   many_streams_test.sh PTXRAY PROGRAM STREAMS [VIRTUAL_MEMORY_KB]
set -u
ptxray=$1 program=$2 streams=$3 limit=${4:-}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
timeline=$dir/timeline.json
(
  if [ -n "$limit" ]; then ulimit -v "$limit"; fi
  exec "$ptxray" exec --timeline "$timeline" -- "$program" "$streams"
)
status=$?
if [ $status -ne 0 ] || [ ! -s "$timeline" ]; then
  echo "FAIL: exit status $status"
  exit 1
fi
# The JSON of the timeline (report/TimelineView.cpp) has one key per line.
value() { sed -n "s/^ *\"$1\": \\([^,]*\\),\\{0,1\\}\$/\\1/p" "$timeline"; }
operations=$(grep -c '"index": ' "$timeline")
memsets=$(grep -c '"op": "memset"' "$timeline")
total=$(value total_us)
one=$(value one_stream_us)
overlap=$(value overlap)
echo "operations=$operations memsets=$memsets total_us=$total one_stream_us=$one overlap=$overlap"
# A memset on each stream and one on the legacy stream after each, a last one, the synchronize.
if [ "$operations" -eq $((2 * streams + 2)) ] && [ "$memsets" -eq $((2 * streams + 1)) ] && [ -n "$total" ] &&
  [ "$total" = "$one" ] && [ "$overlap" = "0.0" ]; then
  echo "many streams: PASS"
else
  echo "many streams: FAIL"
fi
