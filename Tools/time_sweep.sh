#!/bin/bash
# Times whole `backtest sweep` processes, alternating binaries so that each
# sees the same machine load, and prints the fastest and median wall time.
#
#   backtest bench --write /tmp/bs          # the 100k-bar file and the 180-combination grid
#   Tools/time_sweep.sh /tmp/bs 20 OLD_BINARY .build/release/backtest
#   SWEEP_FILE=bench-sweep-rules.yaml Tools/time_sweep.sh /tmp/bs 20 .build/release/backtest   # the grid written as rules
set -euo pipefail
folder=$1; runs=$2; shift 2
file=${SWEEP_FILE:-bench-sweep.yaml}
declare -A times
for _ in $(seq "$runs"); do
  for binary in "$@"; do
    start=$(date +%s%N)
    (cd "$folder" && "$binary" sweep "$file" --fresh --quiet >/dev/null)
    end=$(date +%s%N)
    times[$binary]+="$(( (end - start) / 100000 )) "
  done
done
for binary in "$@"; do
  echo "$binary: $(echo ${times[$binary]} | tr ' ' '\n' | sort -n |
    awk '{t[NR] = $1} END {printf "fastest %.1f ms, median %.1f ms (%d runs; 18 M bar-combinations: %.0f / %.0f M/s)",
      t[1] / 10, t[int((NR + 1) / 2)] / 10, NR, 18000 / (t[1] / 10), 18000 / (t[int((NR + 1) / 2)] / 10)}')"
done
