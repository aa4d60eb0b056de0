#!/bin/bash
# Times the general engine against the fused kernel in whole `sweep` processes,
# in the same minutes: rounds of the kernel sweep (bench-sweep.yaml, 180
# combinations), the Examples donchian plug-in (donchian-sweep.yaml, 100) and
# the rules with a trailing stop (bench-sweep-trailing.yaml, 180), each run in
# turn; prints each one's median wall time, its bar-combinations per second and
# its ratio to the kernel's (of the medians). With several binaries, each
# sweep runs with each binary in turn, so that all see the same minutes.
#
#   backtest bench --write /tmp/bw     # bars.csv (100k bars), bench-sweep.yaml, bench-sweep-trailing.yaml
#   (cd Examples && swift build -c release --product backtest-examples)   # runs every command, and donchian
#   Tools/time_general.sh /tmp/bw 7 Examples/.build/release/backtest-examples [OLD_BINARY...]
#
# The donchian sweep file is written into the folder when it has none.
set -euo pipefail
folder=$1; runs=$2; shift 2
binaries=()
for b in "$@"; do binaries+=("$(realpath "$b")"); done
bars=$(( $(wc -l < "$folder/bars.csv") - 1 ))
if [ ! -e "$folder/donchian-sweep.yaml" ]; then
  cat > "$folder/donchian-sweep.yaml" <<'YAML'
name: donchian-sweep
data: {bars: bars.csv, timezone: America/New_York}
strategy: {type: donchian, stop_loss: 8%}
report: {out: donchian-sweep-out}
sweep:
  parameters:
    entry_period: [10, 15, 20, 25, 30, 35, 40, 45, 50, 55]
    exit_period: [5, 10, 15, 20, 25, 30, 35, 40, 45, 50]
  metric: sharpe
  constraints: {min_trades: 10}
YAML
fi
declare -A times
sweeps="bench-sweep donchian-sweep bench-sweep-trailing"
for _ in $(seq "$runs"); do
  for sweep in $sweeps; do
    for binary in "${binaries[@]}"; do
      start=$(date +%s%N)
      (cd "$folder" && "$binary" sweep "$sweep.yaml" --fresh --quiet --out "/tmp/time-general-$sweep" >/dev/null)
      end=$(date +%s%N)
      times[$binary $sweep]+="$(( (end - start) / 100000 )) "
    done
  done
done
declare -A combinations=([bench-sweep]=180 [donchian-sweep]=100 [bench-sweep-trailing]=180)
for binary in "${binaries[@]}"; do
  echo "$binary:"
  kernel=""
  for sweep in $sweeps; do
    median=$(echo ${times[$binary $sweep]} | tr ' ' '\n' | sort -n | awk '{t[NR] = $1} END {print t[int((NR + 1) / 2)] / 10}')
    rate=$(awk -v b="$bars" -v c="${combinations[$sweep]}" -v m="$median" 'BEGIN {printf "%.1f", b * c / (m / 1000) / 1e6}')
    [ -z "$kernel" ] && kernel=$rate
    ratio=$(awk -v r="$rate" -v k="$kernel" 'BEGIN {printf "1/%.2f", k / r}')
    echo "  $sweep: median $median ms of $runs, $rate M bar-combinations/s, $ratio of the kernel's"
  done
done
