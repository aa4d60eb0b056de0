#!/usr/bin/env bash
# Submits a parameter sweep to Slurm: a job array of SHARDS tasks
# (shard.sbatch) and a merge job (merge.sbatch) that runs once all of them
# have succeeded, and is cancelled if one fails for good.
#
#   Tools/slurm/sweep.sh [--backtest PATH] [--cpus N] SWEEP.yaml SHARDS OUT [--set KEY=VALUE]...
#
# OUT (and the backtest binary, the sweep file and its data) must be on
# storage that every node sees; shards write OUT/shard-i/, logs go to
# OUT/logs/, the merged results to OUT/merged/. Each task gets N CPUs (1 by
# default) and runs the sweep with --jobs N. Partition, account, time limit:
# sbatch's own variables (SBATCH_PARTITION, SBATCH_ACCOUNT, SBATCH_TIMELIMIT).
# Prints "array ID" and "merge ID". Running it again with the same OUT
# resumes: finished combinations are not run again.
set -euo pipefail
usage() {
  echo "usage: $0 [--backtest PATH] [--cpus N] SWEEP.yaml SHARDS OUT [--set KEY=VALUE]..." >&2
  exit 64
}
here=$(cd "$(dirname "$0")" && pwd)
backtest=$(command -v backtest || true)
cpus=1
while [[ $# -gt 0 && "$1" == --* ]]; do
  case "$1" in
    --backtest) [[ $# -ge 2 ]] || usage; backtest=$2; shift 2 ;;
    --cpus) [[ $# -ge 2 && "$2" =~ ^[1-9][0-9]*$ ]] || usage; cpus=$2; shift 2 ;;
    *) usage ;;
  esac
done
[[ $# -ge 3 && "$2" =~ ^[1-9][0-9]*$ ]] || usage
sweep=$1 shards=$2 out=$3
shift 3
[[ -n "$backtest" ]] || { echo "sweep.sh: error: no backtest on PATH; pass --backtest PATH" >&2; exit 66; }
[[ -f "$backtest" && -x "$backtest" ]] || { echo "sweep.sh: error: $backtest: not an executable file" >&2; exit 66; }
[[ -f "$sweep" ]] || { echo "sweep.sh: error: $sweep: no such file" >&2; exit 66; }
# Absolute paths: the jobs may start in another folder, on another node.
backtest=$(cd "$(dirname "$backtest")" && pwd)/$(basename "$backtest")
sweep=$(cd "$(dirname "$sweep")" && pwd)/$(basename "$sweep")
mkdir -p "$out/logs"
out=$(cd "$out" && pwd)

array=$(sbatch --parsable --array="0-$((shards - 1))" --cpus-per-task="$cpus" --requeue --open-mode=append \
  --output="$out/logs/shard-%a.log" "$here/shard.sbatch" "$backtest" "$sweep" "$shards" "$out" "$@")
array=${array%%;*}
merge=$(sbatch --parsable --dependency="afterok:$array" --kill-on-invalid-dep=yes \
  --output="$out/logs/merge.log" "$here/merge.sbatch" "$backtest" "$shards" "$out")
merge=${merge%%;*}
echo "array $array"
echo "merge $merge"
echo "sweep.sh: shards 0-$((shards - 1)) are job array $array, the merge is job $merge (after all succeed); logs in $out/logs/, merged results in $out/merged/" >&2
