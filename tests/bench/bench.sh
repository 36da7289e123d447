#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# make bench: generate the benchmark profile (once), then measure load and re-filter times
# through the CLI (--timing) and the engine bench. A benchmark, not a test: it prints figures.
set -euo pipefail
cd "$(dirname "$0")/../.."
B=${SV_BUILD:-build/release}
N=${BENCH_SAMPLES:-2000000}
S=${BENCH_STACKS:-50000}
F=$B/bench/bench-$N.perfView.xml
mkdir -p "$B/bench"
if [ ! -s "$F" ]; then
	echo "generating $F ($N samples, $S stacks)"
	"$B/tests/bench/gen" "$N" "$S" > "$F.tmp" && mv "$F.tmp" "$F"
fi
ls -la "$F" | awk '{printf "input: %s, %.0f MB\n", $9, $5/1e6}'
echo
echo "== stackview info --timing (load)"
"$B/stackview" info "$F" --timing > /dev/null
echo
echo "== stackview byname --group '[group module entries] {%}!=>module \$1' --timing"
"$B/stackview" byname "$F" --group '[group module entries] {%}!=>module $1' --top 5 --timing > /dev/null
echo
echo "== engine: refilter (load once, rebuild view with changed boxes)"
"$B/tests/bench/engine" "$F" 3
