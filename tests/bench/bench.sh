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
# what a fresh MB costs here, before anything else runs: on a virtual machine that backs its
# memory lazily, a large part of every figure below that allocates
"$B/tests/bench/memtouch" 1024
if [ ! -s "$F" ]; then
	echo "generating $F ($N samples, $S stacks)"
	"$B/tests/bench/gen" "$N" "$S" > "$F.tmp" && mv "$F.tmp" "$F"
fi
ls -la "$F" | awk '{printf "input: %s, %.0f MB\n", $9, $5/1e6}'
echo
echo "== stackview info --timing (load), beside libxml2's own streaming parse of the same file"
"$B/stackview" info "$F" --timing > /dev/null
mb=$(stat -c %s "$F" | awk '{print $1/1e6}')
ms=$("$B/stackview" info "$F" --timing 2>&1 >/dev/null | awk '/timing: load/ {print $3}')
rss=$( { /usr/bin/time -f %M "$B/stackview" info "$F" > /dev/null; } 2>&1 | tail -1)
if command -v xmllint >/dev/null 2>&1; then
	xl=$( { TIMEFORMAT=%R; time xmllint --stream --noout "$F" > /dev/null; } 2>&1 )
	awk -v mb="$mb" -v ms="$ms" -v xl="$xl" -v n="$N" -v rss="$rss" 'BEGIN {
		printf "XML: %.0f MB/s (goal >= 150); xmllint --stream: %.0f MB/s (we take %.2fx its time); peak RSS %.0f MB = %.0f MB per million samples\n",
			mb / (ms / 1000), mb / xl, (ms / 1000) / xl, rss / 1024, rss / 1024 / (n / 1e6) }'
fi
# the same profile as .perfView.json and speedscope JSON (converted once)
for ext in perfView.json speedscope.json; do
	J=$B/bench/bench-$N.$ext
	[ -s "$J" ] || "$B/stackview" convert "$F" "$J" > /dev/null
	jmb=$(stat -c %s "$J" | awk '{print $1/1e6}')
	best=
	for _ in 1 2 3; do
		ms=$("$B/stackview" info "$J" --timing 2>&1 >/dev/null | awk '/timing: load/ {print $3}')
		if [ -z "$best" ] || awk -v a="$ms" -v b="$best" 'BEGIN {exit !(a < b)}'; then best=$ms; fi
	done
	awk -v mb="$jmb" -v ms="$best" -v e="$ext" 'BEGIN {printf "%s (%.0f MB): %.0f ms = %.0f MB/s (goal >= 150)\n", e, mb, ms, mb / (ms / 1000)}'
done
echo
echo "== stackview byname --group '[group module entries] {%}!=>module \$1' --timing"
"$B/stackview" byname "$F" --group '[group module entries] {%}!=>module $1' --top 5 --timing > /dev/null
echo
echo "== engine: refilter (load once, rebuild view with changed boxes)"
"$B/tests/bench/engine" "$F" 3

echo
echo "== engine: 100 million samples (25 minutes of 64 CPUs at 1 kHz) over 400k stacks, through the source API"
"$B/tests/bench/engine" --scale "${BENCH_SCALE:-1e8}"

# ---- convert to folded: streaming (samples add up per stack) against the full path ----
echo
echo "== stackview convert to .folded: streaming vs through a view (--exc matching nothing)"
/usr/bin/time -f "streaming: %e s, peak RSS %M KB" "$B/stackview" convert "$F" "$B/bench/out.folded" 2>&1 | tail -1
/usr/bin/time -f "full:      %e s, peak RSS %M KB" "$B/stackview" convert "$F" "$B/bench/out2.folded" --exc zzNoSuchFramezz 2>&1 | tail -1
cmp -s "$B/bench/out.folded" "$B/bench/out2.folded" && echo "outputs identical" || echo "OUTPUTS DIFFER"
rm -f "$B/bench/out.folded" "$B/bench/out2.folded"

# ---- the terminal UI (issue 5), headless, on 1,000,000 samples ----
echo
echo "== TUI (headless 160x50)"
"$B/tests/bench/tui-bench" examples/tutorial.perfView.xml "$F" 1000000

# ---- perf script text import (issue 3): record a benchmark-size profile here ----
if command -v perf >/dev/null 2>&1 && perf record -q -e cpu-clock -o /dev/null true 2>/dev/null; then
	P=$B/bench/perf.data
	T=$B/bench/perf.data.txt
	if [ ! -s "$T" ]; then
		echo
		echo "recording a profile of this benchmark's own engine run (perf record -e cpu-clock -g -F 20000)"
		perf record -q -e cpu-clock -g -F 20000 -o "$P" -- "$B/tests/bench/engine" "$F" 2 > /dev/null 2>&1 || true
		perf script -i "$P" > "$T.tmp" 2>/dev/null && mv "$T.tmp" "$T"
	fi
	if [ -s "$T" ]; then
		MB=$(stat -c %s "$T" | awk '{printf "%.1f", $1/1e6}')
		echo
		echo "== perf script text: $T ($MB MB)"
		best=999999
		for i in 1 2 3; do
			ms=$("$B/stackview" info "$T" --timing 2>&1 >/dev/null | awk '/timing: load/ {print $3}')
			best=$(awk -v a="$best" -v b="$ms" 'BEGIN {print (b < a) ? b : a}')
		done
		awk -v mb="$MB" -v ms="$best" 'BEGIN {printf "stackview load: %.0f ms = %.0f MB/s (stackcollapse-perf.pl: 22-28 MB/s here, perf.md §8)\n", ms, mb / (ms / 1000)}'
		wc_s=$( { TIMEFORMAT=%R; time wc -l "$T" >/dev/null; } 2>&1 )
		awk -v mb="$MB" -v s="$wc_s" 'BEGIN {printf "wc -l on the same file: %.2f s = %.0f MB/s\n", s, (s > 0) ? mb / s : 0}'
		"$B/stackview" info "$T" | grep -E '^(samples|stacks|frames)'
	fi
fi

# ---- perf script text with deep stacks (issue 19): generated (40-120 frames, every sample's
# stack drawn at random: few lines repeat) and, when Node is here, a real recording of deeply
# recursive JavaScript (about 50 frames a sample); each beside an awk stack collapser and wc -l ----
best_load() { # FILE ARG... -> best of 3 load times in ms
	local f=$1 best=999999 ms
	shift
	for _ in 1 2 3; do
		ms=$("$B/stackview" info "$f" --timing "$@" 2>&1 >/dev/null | awk '/timing: load/ {print $3}')
		best=$(awk -v a="$best" -v b="$ms" 'BEGIN {print (b < a) ? b : a}')
	done
	echo "$best"
}
text_bench() { # FILE LABEL
	local f=$1 mb best two
	mb=$(stat -c %s "$f" | awk '{printf "%.1f", $1/1e6}')
	best=$(best_load "$f" --threads 1)
	two=$(best_load "$f" --threads 2)
	local awk_s wc_s
	awk_s=$( { TIMEFORMAT=%R; time awk '/^\t/ {sub(/^\t *[0-9a-f]+ /, ""); s = s ";" $0; next} /^$/ {n[s]++; s = ""; next} {s = $1} END {for (k in n) c++; print c}' "$f" >/dev/null; } 2>&1 )
	wc_s=$( { TIMEFORMAT=%R; time wc -l "$f" >/dev/null; } 2>&1 )
	echo
	echo "== perf script text, $2: $f ($mb MB)"
	awk -v mb="$mb" -v ms="$best" -v two="$two" -v a="$awk_s" -v w="$wc_s" 'BEGIN {
		printf "stackview load, one thread: %.0f ms = %.0f MB/s (goal >= 300); two threads: %.0f ms = %.0f MB/s (%.2fx, goal >= 1.7x)\n",
			ms, mb / (ms / 1000), two, mb / (two / 1000), ms / two
		printf "awk collapser: %.2f s = %.0f MB/s (stackview is %.1fx faster with one thread); wc -l: %.0f MB/s\n",
			a, (a > 0) ? mb / a : 0, (a > 0) ? a / (ms / 1000) : 0, (w > 0) ? mb / w : 0 }'
}
G=$B/bench/deep-40-120.perf.txt
[ -s "$G" ] || "$B/tests/bench/gen" 20000 20000 perf-script 40 120 > "$G"
text_bench "$G" "generated, 40-120 frames"
FD=$B/bench/deep-40-120.folded
[ -s "$FD" ] || "$B/stackview" convert "$G" "$FD" > /dev/null
mbf=$(stat -c %s "$FD" | awk '{printf "%.1f", $1/1e6}')
f1=$(best_load "$FD" --threads 1)
f2=$(best_load "$FD" --threads 2)
echo
echo "== folded stacks of the same profile: $FD ($mbf MB)"
awk -v mb="$mbf" -v a="$f1" -v b="$f2" 'BEGIN {printf "stackview load, one thread: %.0f ms = %.0f MB/s; two threads: %.0f ms = %.0f MB/s (%.2fx)\n", a, mb / (a / 1000), b, mb / (b / 1000), a / b}'
if command -v node >/dev/null 2>&1 && [ -n "${P:-}" ]; then
	J=$B/bench/node-deep.perf.txt
	if [ ! -s "$J" ]; then
		cat > "$B/bench/deep.js" <<'JS'
function walk(n, d) { if (d === 0) { let s = 0; for (let i = 0; i < 2000; i++) s += Math.sqrt(i * n); return s; } return d % 3 ? walkA(n, d - 1) : walkB(n, d - 1); }
function walkA(n, d) { return walk(n + 1, d) + 1; }
function walkB(n, d) { return walk(n * 2 % 1000, d) - 1; }
let t = Date.now(), acc = 0;
while (Date.now() - t < 3000) { for (let k = 0; k < 50; k++) acc += walk(k, 20 + (k * 7) % 60); }
console.log(acc);
JS
		# in the bench folder: node leaves its isolate-*-v8.log where it runs
		(cd "$B/bench" && perf record -q -e cpu-clock -g -F 20000 -o node.data -- node --perf-basic-prof \
			--interpreted-frames-native-stack deep.js > /dev/null 2>&1) || true
		perf script -i "$B/bench/node.data" > "$J.tmp" 2>/dev/null && mv "$J.tmp" "$J"
	fi
	[ -s "$J" ] && text_bench "$J" "node --perf-basic-prof, recursive JavaScript"
fi

# ---- native perf.data import (issue 3): the same recording, against perf report ----
best_of3() { # CMD... -> best wall time in ms
	local best=
	for _ in 1 2 3; do
		local t0 t1 ms
		t0=$(date +%s%N); "$@" > /dev/null 2>&1; t1=$(date +%s%N)
		ms=$(( (t1 - t0) / 1000000 ))
		if [ -z "$best" ] || [ "$ms" -lt "$best" ]; then best=$ms; fi
	done
	echo "$best"
}
if [ -s "${P:-}" ]; then
	n=$("$B/stackview" info "$P" --json 2>/dev/null | jq .samples)
	ours=$(best_of3 "$B/stackview" info "$P")
	theirs=$(best_of3 perf report -i "$P" --children -g none --stdio)
	echo
	echo "== perf.data (frame pointers): $P ($n samples)"
	awk -v a="$ours" -v b="$theirs" -v n="$n" 'BEGIN {printf "stackview info: %d ms (%.0f k samples/s); perf report --children -g none: %d ms; ratio %.1fx\n", a, n / a, b, b / a}'
	D=$B/bench/perf.dwarf.data
	if [ ! -s "$D" ]; then
		echo "recording --call-graph dwarf of the engine (perf record -e cpu-clock --call-graph dwarf -F 4000)"
		perf record -q -e cpu-clock --call-graph dwarf -F 4000 -o "$D" -- "$B/tests/bench/engine" "$F" 4 > /dev/null 2>&1 || true
	fi
	if [ -s "$D" ]; then
		n=$("$B/stackview" info "$D" --json 2>/dev/null | jq .samples)
		ours=$(best_of3 "$B/stackview" info "$D")
		theirs=$(best_of3 perf report -i "$D" --children -g none --stdio)
		echo
		echo "== perf.data (--call-graph dwarf): $D ($n samples, $(du -m "$D" | cut -f1) MB)"
		awk -v a="$ours" -v b="$theirs" -v n="$n" 'BEGIN {printf "stackview info (unwinding every sample): %d ms = %.0f k samples/s (goal >= 20 k/s); perf report --children -g none: %d ms; ratio %.1fx\n", a, n / a, b, b / a}'
		noinl=$(best_of3 "$B/stackview" info "$D" --no-inline)
		echo "  of which inline frames from DWARF: $((ours - noinl)) ms (--no-inline: $noinl ms)"
		rss=$( { /usr/bin/time -f %M "$B/stackview" info "$D" --no-inline > /dev/null; } 2>&1 | tail -1)
		echo "  peak RSS $((rss / 1024)) MB for the $(du -m "$D" | cut -f1) MB file (never held whole: pages behind the reader go back)"
		rss=$( { /usr/bin/time -f %M sh -c "cat '$D' | TMPDIR='$B/bench' '$B/stackview' info - --no-inline" > /dev/null; } 2>&1 | tail -1)
		echo "  from a pipe: peak RSS $((rss / 1024)) MB (past 64 MiB the pipe goes to an unlinked file in TMPDIR)"
	fi
	Z=$B/bench/perf.z.data
	if [ ! -s "$Z" ]; then
		echo "recording a zstd-compressed profile of the engine (perf record -z -e cpu-clock -g -F 20000)"
		perf record -q -z -e cpu-clock -g -F 20000 -o "$Z" -- "$B/tests/bench/engine" "$F" 4 > /dev/null 2>&1 || true
	fi
	if [ -s "$Z" ]; then
		n=$("$B/stackview" info "$Z" --json 2>/dev/null | jq .samples)
		ours=$(best_of3 "$B/stackview" info "$Z")
		theirs=$(best_of3 perf report -i "$Z" --children -g none --stdio)
		rss=$( { /usr/bin/time -f %M "$B/stackview" info "$Z" > /dev/null; } 2>&1 | tail -1)
		echo
		echo "== perf.data (perf record -z): $Z ($n samples, $(du -k "$Z" | cut -f1) KB)"
		awk -v a="$ours" -v b="$theirs" -v n="$n" -v rss="$rss" 'BEGIN {printf "stackview info: %d ms (%.0f k samples/s); perf report --children -g none: %d ms; ratio %.1fx; peak RSS %.0f MB (inflated a window at a time)\n", a, n / a, b, b / a, rss / 1024}'
	fi
fi

# ---- point 9 of issue 37: a real build recorded at -F 49000 (about a million samples over
# many processes, stripped cc1: hundreds of thousands of distinct frames, more stacks than
# samples), against perf report in the same run ----
if command -v perf >/dev/null 2>&1 && perf record -q -e cpu-clock -o /dev/null true 2>/dev/null; then
	G=$B/bench/build.data
	if [ ! -s "$G" ]; then
		echo
		echo "recording a build of lib/ (perf record -e cpu-clock -g -F 49000 -- make -j2)"
		rm -rf "$B/bench/src" && mkdir -p "$B/bench/src" && cp -r lib Makefile "$B/bench/src/"
		(cd "$B/bench/src" && perf record -q -e cpu-clock -g -F 49000 -o ../build.data -- \
			make -j2 B=build/o build/o/libstackview.a > /dev/null 2>&1) || true
	fi
	if [ -s "$G" ]; then
		n=$("$B/stackview" info "$G" --json 2>/dev/null | jq .samples)
		echo
		echo "== perf.data of a build: $G ($n samples, $(du -m "$G" | cut -f1) MB)"
		ours=$(best_of3 "$B/stackview" info "$G")
		theirs=$(best_of3 perf report -i "$G" --children -g none --stdio)
		awk -v a="$ours" -v b="$theirs" -v n="$n" 'BEGIN {printf "load: stackview info %d ms = %.2f M samples/s (goal >= 2); perf report --children -g none %d ms; ratio %.1fx\n", a, n / a / 1000, b, b / a}'
		# the Events listing (issue 34) beside perf script's own text of the same file
		ours=$(best_of3 "$B/stackview" events "$G" --json)
		theirs=$(best_of3 perf script -i "$G" -F comm,pid,tid,time,event,period)
		awk -v a="$ours" -v b="$theirs" -v n="$n" 'BEGIN {printf "events --json: %d ms = %.2f M events/s (goal >= 1); perf script (no stacks) %d ms; ratio %.1fx\n", a, n / a / 1000, b, b / a}'
		ours=$(best_of3 "$B/stackview" byname "$G")
		theirs=$(best_of3 perf report -i "$G" --stdio --children)
		/usr/bin/time -f %M -o "$B/bench/rss" "$B/stackview" byname "$G" > /dev/null 2>&1
		ro=$(tail -1 "$B/bench/rss")
		/usr/bin/time -f %M -o "$B/bench/rss" perf report -i "$G" --stdio --children > /dev/null 2>&1
		rt=$(tail -1 "$B/bench/rss")
		awk -v a="$ours" -v b="$theirs" -v ro="$ro" -v rt="$rt" 'BEGIN {printf "byname (every row): %d ms, %.0f MB; perf report --stdio --children %d ms, %.0f MB; %.1fx faster (goal >= 10), %.2f of its memory (goal <= 0.125)\n", a, ro / 1024, b, rt / 1024, b / a, ro / rt}'
		# the aggregated views (Callers, Callees, Caller-Callee) on the heaviest function
		top=$("$B/stackview" byname "$G" --top 1 --json 2>/dev/null | jq -r '.rows[0].name')
		ours=$(best_of3 "$B/stackview" callercallee "$G" --focus "$top")
		/usr/bin/time -f %M -o "$B/bench/rss" "$B/stackview" callercallee "$G" --focus "$top" > /dev/null 2>&1
		awk -v a="$ours" -v ro="$(tail -1 "$B/bench/rss")" -v f="$top" 'BEGIN {printf "callercallee --focus %s: %d ms, %.0f MB (the load, the view, its When rows)\n", f, a, ro / 1024}'
		command -v tmux > /dev/null 2>&1 && tests/bench/tui_events.sh "$B/stackview" "$G"
		echo "refilter on it (goal: <= 150 ms per million samples):"
		"$B/tests/bench/engine" "$G" 2 | sed -n '/with the stacks/,$p'
		echo "the same in the terminal UI (the view, its When column, the rows and the drawing):"
		/usr/bin/time -f "tui-bench peak RSS %M KB (the source, one view and a box change's)" -o "$B/bench/rss" \
			"$B/tests/bench/tui-bench" examples/tutorial.perfView.xml "$G" | grep -E '^apply'
		tail -1 "$B/bench/rss"
	fi
	# a CPU-bound program recorded at -F 49000 (xz on one thread): several samples a stack,
	# of 20408 ns each, summed in whole ns: the terminal UI adds each stack's sum, not its
	# samples
	X=$B/bench/xz.data
	if [ ! -s "$X" ] && command -v xz > /dev/null 2>&1; then
		head -c 64000000 "$B/bench/deep-40-120.perf.txt" > "$B/bench/xz-in"
		perf record -q -e cpu-clock -g -F 49000 -o "$X" -- xz -6 -T1 -c "$B/bench/xz-in" > /dev/null 2>&1 || true
		rm -f "$B/bench/xz-in"
	fi
	if [ -s "$X" ]; then
		echo
		echo "== perf.data of xz at -F 49000: $X"
		"$B/tests/bench/tui-bench" examples/tutorial.perfView.xml "$X" 100000000 | grep -E '^(big|apply)'
	fi
fi

# ---- Windows ETL import (issue 4): the x64 PerfView trace, and the same buffers 10 times ----
E=../shared/data/etl/net.4.5.2.x64.etl.zip
if [ -f "$E" ] && command -v unzip >/dev/null 2>&1; then
	X=$B/bench/net.4.5.2.x64.etl
	X10=$B/bench/net.4.5.2.x64.10x.etl
	[ -s "$X" ] || unzip -p "$E" net.4.5.2.x64.etl > "$X"
	[ -s "$X10" ] || for _ in 1 2 3 4 5 6 7 8 9 10; do cat "$X"; done > "$X10"
	for f in "$X" "$X10"; do
		bytes=$("$B/stackview" info "$f" --json | jq '.found[0] | capture("in (?<b>[0-9]+) bytes").b | tonumber')
		best=
		for _ in 1 2 3; do
			ms=$("$B/stackview" info "$f" --timing 2>&1 >/dev/null | sed -n 's/^timing: load \([0-9.]*\) ms.*/\1/p')
			if [ -z "$best" ] || awk -v a="$ms" -v b="$best" 'BEGIN {exit !(a < b)}'; then best=$ms; fi
		done
		echo
		echo "== ETL: $f ($(du -m "$f" | cut -f1) MB on disk)"
		awk -v b="$bytes" -v ms="$best" 'BEGIN {printf "stackview load (best of 3): %.0f ms for %.1f MB of decompressed events = %.0f MB/s\n", ms, b / 1e6, b / 1e6 / (ms / 1000)}'
		# the Events view's listing (issue 34): every event with its fields, as JSON
		n=$("$B/stackview" events "$f" --json 2>/dev/null | jq '.shown')
		t0=$(date +%s%N)
		"$B/stackview" events "$f" --json > /dev/null 2>&1
		t1=$(date +%s%N)
		awk -v n="$n" -v ns="$((t1 - t0))" 'BEGIN {printf "stackview events --json: %d events in %.0f ms = %.0f events/s\n", n, ns / 1e6, n / (ns / 1e9)}'
		command -v tmux > /dev/null 2>&1 && tests/bench/tui_events.sh "$B/stackview" "$f"
	done
fi

# ---- memory profiles (issue 33): a generated 10-million-object heap snapshot (30 million
# references, a quarter of them to anywhere in the heap: the walk's worst case for caches),
# and a heaptrack recording of a program making millions of allocations ----
H=$B/bench/heap-10m.gcdump
[ -s "$H" ] || "$B/tests/bench/gen" 10000000 5000 gcdump > "$H"
echo
echo "== heap snapshot: $H ($(du -m "$H" | cut -f1) MB, 10,000,006 objects)"
/usr/bin/time -f %M -o "$B/bench/rss" "$B/stackview" info "$H" > /dev/null 2>&1
rss=$(tail -1 "$B/bench/rss")
ms=$(best_of3 "$B/stackview" info "$H")
awk -v ms="$ms" -v rss="$rss" 'BEGIN {printf "open (read, spanning tree, samples): %d ms (goal <= 5000), %.0f MB = %.0f bytes an object (goal <= 64)\n", ms, rss / 1024, rss * 1024 / 10000006}'
/usr/bin/time -f %M -o "$B/bench/rss" "$B/stackview" calltree "$H" --depth 3 > /dev/null 2>&1
rss=$(tail -1 "$B/bench/rss")
ms=$(best_of3 "$B/stackview" calltree "$H" --depth 3)
awk -v ms="$ms" -v rss="$rss" 'BEGIN {printf "open and the first view (its call tree, 3 levels printed): %d ms, %.0f MB = %.0f bytes an object\n", ms, rss / 1024, rss * 1024 / 10000006}'
# the view's own phases apart from the load, whose time swings by a second from run to run
"$B/stackview" calltree "$H" --depth 3 --timing 2>&1 > /dev/null |
	awk '/^timing: (load|filter|tree) / {t[$2] = $3} END {printf "  of which (one more run, --timing): load %.0f ms, view %.0f ms (filter %.0f, tree %.0f)\n", t["load"], t["filter"] + t["tree"], t["filter"], t["tree"]}'
ms=$(best_of3 "$B/stackview" byname "$H" --priority 'App.Core!->5' --min-pct 1)
echo "a Priority change (the file read again, the tree and ByName's first rows): $ms ms (goal <= 1000)"
# in the terminal UI: two Priority changes and Esc back (one tree held at a time)
printf '# input\nr <C-u> "App.Core!->5" <Enter>\nr <C-u> "App.Core!->7" <Enter>\n<Esc> :dump\n' > "$B/bench/prio.keys"
/usr/bin/time -f "%e %M" -o "$B/bench/rss" "$B/stackview" view "$H" --script "$B/bench/prio.keys" --size 120x30 > /dev/null 2>&1
awk '{printf "terminal UI, opened, two Priority changes and Esc back: %.1f s, peak %.0f MB\n", $1, $2 / 1024}' "$B/bench/rss"
if command -v heaptrack > /dev/null && command -v cc > /dev/null; then
	HT=$B/bench/allocs.heaptrack
	if [ ! -s "$HT.zst" ] && [ ! -s "$HT.gz" ]; then
		printf '%s\n' '#include <stdlib.h>' \
			'static void *keep[4096];' \
			'__attribute__((noinline)) static void *grow(size_t n) { return malloc(n); }' \
			'__attribute__((noinline)) static void churn(int i) { free(keep[i & 4095]); keep[i & 4095] = grow(16 + (i * 7) % 512); }' \
			'int main(void) { for (int i = 0; i < 6000000; i++) churn(i); return keep[1] == 0; }' > "$B/bench/allocs.c"
		cc -O1 -g -o "$B/bench/allocs" "$B/bench/allocs.c"
		(cd "$B/bench" && heaptrack -o "$PWD/allocs.heaptrack" ./allocs > /dev/null 2>&1) || true
	fi
	HF=$(ls "$HT".zst "$HT".gz 2>/dev/null | head -1 || true) # (ls fails on the one not there)
	if [ -n "$HF" ]; then
		case $HF in *.zst) mb=$(zstd -dc "$HF" | wc -c) ;; *) mb=$(gzip -dc "$HF" | wc -c) ;; esac
		ms=$(best_of3 "$B/stackview" info "$HF")
		theirs=$(best_of3 heaptrack_print -F /dev/null "$HF")
		awk -v ms="$ms" -v b="$mb" -v t="$theirs" 'BEGIN {printf "heaptrack file: %.0f MB of text read in %d ms = %.0f MB/s (goal >= 200); heaptrack_print -F %d ms\n", b / 1e6, ms, b / 1e6 / (ms / 1000), t}'
	fi
fi
