#!/usr/bin/env bash
# The example package (Examples/): a strategy written outside the engine gets
# every command. Builds it, runs its tests, and runs `run`, `sweep`, `signal`,
# `montecarlo` and `regress` (against Examples/Reports/reference/) for the Donchian breakout
# and the dual-momentum allocation strategy on shipped data. CI runs this after `swift test`.
set -euo pipefail
cd "$(dirname "$0")/../Examples"
swift build
swift test
bin=.build/debug/backtest-examples
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
$bin run Strategies/donchian.yaml --out "$out/run" --quiet
test -s "$out/run/report.html" && grep -q 'id="donchian_high"' "$out/run/report.html"
$bin sweep Strategies/donchian-sweep.yaml --out "$out/sweep" --quiet
test -s "$out/sweep/results.csv"
$bin signal Strategies/donchian.yaml --json --now 2013-03-02 | grep -q '"strategy" : "donchian"\|"strategy": "donchian"'
$bin montecarlo Strategies/donchian.yaml --runs 200 --out "$out/mc" > /dev/null
test -s "$out/mc/montecarlo.json"
# An allocation strategy of its own (dual momentum over data.assets): its targets now, Monte Carlo, a sweep.
$bin signal Strategies/dual-momentum.yaml --json --now 2024-12-01 | grep -q '"strategy": "dual_momentum"'
$bin montecarlo Strategies/dual-momentum.yaml --runs 200 > /dev/null
$bin sweep Strategies/dual-momentum.yaml --set 'sweep={parameters: {lookback: [63, 126, 189]}}' --out "$out/dm-sweep" --quiet
test "$(wc -l < "$out/dm-sweep/results.csv")" -eq 4
$bin regress
echo "examples: ok"
