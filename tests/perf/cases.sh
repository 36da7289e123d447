# SPDX-License-Identifier: MIT
# perf script text importer against `perf report` (spec/perf.md §4.3; oracles in
# ../shared/data/perf/oracle/). Sourced by tests/run.sh. For every recording: the sample
# count and total period of the default event agree exactly, and the top 20 symbols'
# --no-children (exclusive) and --children (inclusive) percentages agree within 0.5 points.
# Symbols perf could not resolve (printed as addresses) are excepted and listed, and so are
# perf report's "(inlined)" rows: the dwarf text was made with --no-inline (perf.md §0.4).
PD=$SHARED/perf
need_shared perf || return 0

# Our per-symbol percentages: symbol = the part after the first '!', summed over modules.
our_symbols() { # FILE [OPTION...] -> lines "exc_pct<TAB>inc_pct<TAB>symbol"
	"$SV" byname "$@" --json 2>/dev/null | jq -r '
		(.summary.metric) as $t
		| [.rows[] | select(.name != "ROOT" and (.name | test("^(Process|Thread) |!0x[0-9a-f]+$") | not))
		   | {s: (.name | sub("^[^!]*!"; "")), e: .exc, i: .inc}]
		| group_by(.s) | .[] | "\((map(.e) | add) * 100 / $t)\t\((map(.i) | add) * 100 / $t)\t\(.[0].s)"'
}

# perf's top rows: "pct<TAB>symbol" (children: the Children column).
oracle_symbols() { # FILE
	awk '/^ +[0-9.]+%/ {
		pct = $1; sub("%", "", pct)
		i = index($0, "] "); if (!i) next
		sym = substr($0, i + 2); sub(/ +$/, "", sym)
		print pct "\t" sym
		if (++n == 20) exit
	}' "$1"
}

# The native reader gets the recording machine's kernel symbols, the test programs' binaries
# by build id and the Python JIT map from the shared data (perf.md §4; README of data/perf).
NATIVE=(--kallsyms "$PD/kallsyms.gz" --debug-dir "$PD/debug" --perf-map-dir "$PD/recordings")
for rec in mt.fp mt-nofp.fp mt-nofp.dwarf py.fp gcc.fp sort.fp sys.sched; do
for ext in txt data; do
	in=$PD/recordings/$rec.$ext
	[ -f "$in" ] || { bad "perf.$rec.$ext" "missing $in"; continue; }
	opts=(); [ "$ext" = data ] && opts=("${NATIVE[@]}")
	tag=perf.$rec; [ "$ext" = data ] && tag=perf.data.$rec
	info=$("$SV" info "$in" "${opts[@]}" --json 2>/dev/null) || { bad "$tag.load" "stackview info failed"; continue; }
	ev=$(printf '%s' "$info" | jq -r '.events[] | select(.selected) | .name')
	want_n=$(awk -v ev="$ev" '$1 == ev" stats:" || $0 == ev " stats:" {f = 1; next} f && /SAMPLE events/ {print $3; exit}' "$PD/oracle/$rec.stats.txt")
	got_n=$(printf '%s' "$info" | jq '.samples')
	if [ "$got_n" = "$want_n" ]; then ok; else bad "$tag.samples" "got $got_n, want $want_n ($ev)"; fi
	want_p=$(grep -m1 'Event count' "$PD/oracle/$rec.report.no-children.sym.txt" | awk '{print $NF}')
	got_p=$(printf '%s' "$info" | jq '.metric * 1000000 | round')
	if [ "$got_p" = "$want_p" ]; then ok; else bad "$tag.period" "got $got_p ns, want $want_p"; fi
	ours=$(our_symbols "$in" "${opts[@]}")
	# perf's self time stays with the real symbol at the sample's address, its inline frames
	# only join the callchain: exclusive figures compare without inline frames.
	ours_self=$ours; [ "$ext" = data ] && ours_self=$(our_symbols "$in" "${opts[@]}" --no-inline)
	for kind in no-children children; do
		col=1; [ "$kind" = children ] && col=2
		o=$ours_self; [ "$kind" = children ] && o=$ours
		res=$(oracle_symbols "$PD/oracle/$rec.report.$kind.sym.txt" | awk -F'\t' -v col="$col" -v ours="$o" -v native="$([ "$ext" = data ] && echo 1)" '
			BEGIN { n = split(ours, L, "\n"); for (k = 1; k <= n; k++) { split(L[k], f, "\t"); pct[f[3]] = f[col] } }
			{
				# unresolved addresses, and inline frames the --no-inline text cannot hold
				# (the native reader names them as perf does: "X (inlined)")
				if ($2 ~ /^(0x)?[0-9a-f]+$/ || (!native && $2 ~ / \(inlined\)$/)) { skipped = skipped " " $2; next }
				got = ($2 in pct) ? pct[$2] : 0
				d = got - $1; if (d < 0) d = -d
				if (d > 0.5) bad = bad sprintf(" %s: %.2f%% vs perf %.2f%%;", $2, got, $1)
			}
			END { print (bad == "" ? "ok" : bad) "|" skipped }')
		if [ "${res%%|*}" = ok ]; then ok; else bad "$tag.$kind" "${res%%|*}"; fi
		[ -n "${res#*|}" ] && [ "$ext" = txt ] && printf '     note: perf.%s.%s excepted unresolved:%s\n' "$rec" "$kind" "${res#*|}"
	done
done
done

# ---- perf.data and its perf script text give the same ByName (processes and threads aside:
# the text's tid-only headers make each thread a process). Excepted and listed: rows of files
# whose build id differs on this machine (the reader refuses them, perf script had the
# originals) and vdso frames of DWARF stacks (the vdso image is not unwound through).
for rec in mt.fp mt-nofp.fp py.fp gcc.fp sort.fp sys.sched mt-nofp.dwarf; do
	d=$PD/recordings/$rec.data
	missing=$("$SV" info "$d" "${NATIVE[@]}" --json 2>/dev/null | jq -r '.warnings[]? | select(startswith("user symbols")) | capture("not found: (?<l>.*)\\)").l' | tr ',' '\n' | sed 's/^ *//; s|.*/||; s/[][\.*^$()+?{}|]/\\&/g' | grep -v '…' | paste -sd'|')
	rows() { "$SV" byname "$@" --json -g '^Process->P;^Thread->T' 2>/dev/null | jq -r '.rows[] | "\(.name)\t\(.exc_count)\t\(.inc_count)"' | sort; }
	a=$(rows "$d" "${NATIVE[@]}" --no-inline); b=$(rows "$PD/recordings/$rec.txt")
	skip='^$'; [ -n "$missing" ] && skip="^($missing)!"
	# The vdso is resolved only from this kernel's vdso when its build id is the recorded one
# (a host property): vdso rows are left out of the comparison.
	skip="$skip|^vdso!"
	da=$(printf '%s\n' "$a" | grep -Ev "$skip"); db=$(printf '%s\n' "$b" | grep -Ev "$skip")
	if [ "$da" = "$db" ]; then ok; else bad "perf.data.same.$rec" "$(diff <(printf '%s\n' "$da") <(printf '%s\n' "$db") | head -6 | tr '\n' ' ')"; fi
	ex=$(diff <(printf '%s\n' "$a") <(printf '%s\n' "$b") | grep -c '^[<>]')
	[ "$ex" -gt 0 ] && printf '     note: perf.data.same.%s excepted %s differing rows matching %s\n' "$rec" "$ex" "$skip"
done


# ---- pipe mode, standard input, the other events of a system-wide recording ----
cn perf.data.pipe '.samples' 1556 info "$PD/recordings/mt.pipe.data" "${NATIVE[@]}"
cn perf.data.pipe.stdin '[.format,.samples]' '["perf-data",1556]' info - < "$PD/recordings/mt.pipe.data"
for ev in sched:sched_switch sched:sched_wakeup sched:sched_process_exec sched:sched_process_exit; do
	want=$(awk -v ev="$ev" '$0 == ev " stats:" {f = 1; next} f && /SAMPLE events/ {print $3; exit}' "$PD/oracle/sys.sched.stats.txt")
	cn "perf.data.event.$ev" '.samples' "$want" info "$PD/recordings/sys.sched.data" --event "$ev" "${NATIVE[@]}"
done
e perf.data.bad.event 2 "no samples of event 'nope'; the file has: cpu-clock, sched:sched_switch" -- byname "$PD/recordings/sys.sched.data" --event nope
# DWARF stacks are unwound (the text was printed by perf's own unwinder): worker is under
# start_thread and clone3 in every thread's samples.
want=$("$SV" byname "$PD/recordings/mt-nofp.dwarf.txt" --json | jq -c '[.rows[]|select(.name=="mt-nofp!worker" or .name=="libc.so.6!start_thread")|.inc_count]')
cn perf.data.dwarf.unwound '[.rows[]|select(.name=="mt-nofp!worker" or .name=="libc.so.6!start_thread")|.inc_count]' "$want" byname "$PD/recordings/mt-nofp.dwarf.data" "${NATIVE[@]}"
# Without the binaries, frames stay module!unknown and a warning says which files are missing.
e perf.data.nobinary 0 "warning: user symbols: 3 of 4 files found \(not found: /tmp/perfdata/bin/mt\)" -- info "$PD/recordings/mt.fp.data" --kallsyms "$PD/kallsyms.gz"
# The JIT map names Python functions; zstd-compressed and gzip/zlib-wrapped recordings load.
# Inline frames of DWARF-unwound stacks, leafward of their real frame with its module, as
# perf script prints and marks them: "inl_poly (inlined)"'s inclusive share is perf report's
# 33.56 %.
cn perf.data.inline '[.rows[]|select(.name=="mt-nofp!inl_poly (inlined)")|(.inc * 10000 / 3930.930927 | round)]' '[3356]' byname "$PD/recordings/mt-nofp.dwarf.data" "${NATIVE[@]}"
cn perf.data.inline.callers '[.tree.name, .tree.children[].name]' '["mt-nofp!inl_poly (inlined)","mt-nofp!leaf_math"]' callers "$PD/recordings/mt-nofp.dwarf.data" --focus 'mt-nofp!inl_poly (inlined)' --depth 1 "${NATIVE[@]}"
cn perf.data.no-inline '[.rows[]|select(.name|test("inl_poly"))]|length' 0 byname "$PD/recordings/mt-nofp.dwarf.data" --no-inline "${NATIVE[@]}"
# Off-CPU time from sched:sched_switch (prev_pid/next_pid found through the tracing data's
# format): each thread's switch-out to its next switch-in. perf script's own decoding of the
# same records, paired the same way, gives 266 intervals and 15,312.7 ms (computed with
# perf script -F time,event,trace | grep sched_switch and a few lines of perl).
# Thread time on a system-wide recording whose switches were sampled (-F 999): a warning, and
# still no thread gets more time than its life in the trace (tests/threadtime has the exact
# figures on a complete recording).
cn perf.data.thread-time.sampled '[.warnings[] | select(test("period other than 1")) | sub(" \\(.*"; "")]' \
	'["thread time: 106 context switches were recorded with a period other than 1"]' info "$PD/recordings/sys.sched.data" --event thread-time "${NATIVE[@]}"
tt_sums "$PD/recordings/sys.sched.data" --event thread-time "${NATIVE[@]}" > "$TMP/sys.sched.tsv"
within_life perf.data.thread-time.life "$TMP/sys.sched.tsv" "$PD/recordings/sys.sched.txt"
tt_sums "$PD/recordings/sys.sched.txt" --event thread-time > "$TMP/sys.sched.text.tsv"
within_life perf.script.thread-time.life "$TMP/sys.sched.text.tsv" "$PD/recordings/sys.sched.txt"
cn perf.data.thread-time.events '[.events[]|select(.selected)|.name]' '["thread-time"]' info "$PD/recordings/sys.sched.data" --event thread-time "${NATIVE[@]}"
cn perf.data.offcpu.leaves '[.rows[] | select(.name | test("_TIME$")) | .name] | sort' '["BLOCKED_TIME","READIED_TIME"]' byname "$PD/recordings/sys.sched.data" --event off-cpu "${NATIVE[@]}"
e perf.data.offcpu.none 2 "event 'off-cpu' needs sched:sched_switch samples" -- info "$PD/recordings/mt.fp.data" --event off-cpu "${NATIVE[@]}"
cn perf.data.jit '[.rows[]|select(.name|startswith("perf-16412.map!py::fib:"))|.exc_count]|add > 0' true byname "$PD/recordings/py.fp.data" "${NATIVE[@]}"
for f in "$PD"/upstream/perfparser/* "$PD"/upstream/symbol-tests.perf.data; do
	n=$("$SV" info "$f" --json 2>/dev/null | jq -r '.samples' 2>&1)
	if [ "$n" -gt 0 ] 2>/dev/null; then ok; else bad "perf.data.load.$(basename "$f")" "samples: $n"; fi
done

# ---- every variant and every upstream text file loads; the mt variants hold mt's samples ----
for f in "$PD"/variants/*.txt "$PD"/upstream/flamegraph/perf-*.txt "$PD"/upstream/*.trace.zip; do
	[ -f "$f" ] || continue
	n=$("$SV" info "$f" --json 2>&1 | jq -r '.samples' 2>&1)
	case "$(basename "$f")" in
	mt.*) want=5805 ;;
	py.*) want=3283 ;;
	sys.*) want=6429 ;;
	*) want=any ;;
	esac
	if [ "$want" = any ] && [ "$n" -gt 0 ] 2>/dev/null || [ "$n" = "$want" ]; then ok; else bad "perf.load.$(basename "$f")" "samples: $n (want $want)"; fi
done
# Comms with blanks and digits, and tid-only headers, name their processes right.
c perf.comms '[.processes[]|.name]|sort' '["42 7","Web Content","mt","rs:main Q:Reg","worker/0:1"]' info "$PWD/$PD/recordings/mt.fp.txt"
c perf.pluspid '[.processes[]|[.pid,.name]]' '[[10727,"mt"]]' info "$PWD/$PD/variants/mt.F-pluspid.txt"
# perf.data and perf script text with pids give the same Process and Thread frames.
pt() { "$SV" calltree "$@" --depth 2 --json 2>/dev/null | jq -c '[.tree.children[]|[.name,.inc_count,[.children[]|[.name,.inc_count]]]]'; }
a=$(pt "$PD/recordings/mt.fp.data" "${NATIVE[@]}"); b=$(pt "$PD/variants/mt.F-pluspid.txt")
if [ -n "$a" ] && [ "$a" = "$b" ] && printf '%s' "$a" | grep -q '"Thread (10738) Web Content"'; then ok; else bad perf.names.same "data $a; text $b"; fi
# The same stacks whatever -F set printed them (no-dso and no-comm variants aside; counts,
# since the srcline variant has no period).
a=$("$SV" byname "$PD/recordings/mt.fp.txt" --json -g '^Process->P;^Thread->T' | jq -c '[.rows[]|[.name,.exc_count]]|sort')
for v in mt.F-brief mt.ns mt.reltime mt.F-srcline mt.show-events mt.header; do
	b=$("$SV" byname "$PD/variants/$v.txt" --json -g '^Process->P;^Thread->T' | jq -c '[.rows[]|[.name,.exc_count]]|sort')
	if [ "$a" = "$b" ]; then ok; else bad "perf.same.$v" "ByName differs from mt.fp.txt"; fi
done

# ---- bad perf text: a line-numbered error ----
printf 'app 1/1 1.0: 1 cpu-clock:\n\tabc f (/x.so)\n\nthis is not a header\n' > "$TMP/garbage.data.txt"
e perf.bad.garbage 1 "garbage.data.txt:4: cannot parse as a perf script sample header" -- byname "$TMP/garbage.data.txt"
printf 'app 1/1 1.0: 1 cpu-clock:\n\n\tabc f (/x.so)\n' > "$TMP/stray.data.txt"
e perf.bad.stray 1 "stray.data.txt:3: frame line outside a sample" -- byname "$TMP/stray.data.txt"
e perf.bad.event 2 "no samples of event 'nope'; the file has: cpu-clock" -- byname "$PD/recordings/mt.fp.txt" --event nope
# standard input, CRLF and no final newline
c perf.stdin '.samples' 5805 info - < "$PD/recordings/mt.fp.txt"
printf 'app 1/2 1.0: 1000000 cpu-clock:\r\n\tabc f+0x1 (/x/lib.so)\r\n\r\napp 1/2 1.5: 1000000 cpu-clock:\r\n\tabc g (/x/lib.so)' > "$TMP/crlf.data.txt"
c perf.crlf '[.rows[]|select(.name|test("lib.so"))|[.name,.exc]]|sort' '[["lib.so!f",1],["lib.so!g",1]]' byname "$TMP/crlf.data.txt"

# ---- a pipe is streamed: 109 MB of perf script text under a 150 MB address-space limit ----
# (release build only: sanitizers reserve terabytes of address space)
if [ "${SV_VARIANT:-release}" = release ]; then
	got=$( (ulimit -v 153600; for i in $(seq 40); do cat "$PD/recordings/mt.fp.txt"; done | "$SV" info - --json) 2>&1 | jq -r '.samples' 2>&1)
	if [ "$got" = 232200 ]; then ok; else bad perf.stream.memory "got: $got"; fi
fi

# The terminal UI opens a perf.data recording with the process picker, sorted by samples.
printf ':dump\n' > "$TMP/picker.keys"
got=$("$SV" view "$PD/recordings/gcc.fp.data" "${NATIVE[@]}" --script "$TMP/picker.keys" --size 100x12 2>/dev/null | sed -n '6,8p' | awk '{print $3, $4, $5}' | paste -sd';')
if [ "$got" = "cc1 16942 4900;as 17075 47;gcc 16940 4" ]; then ok; else bad perf.data.tui.picker "$got"; fi
# Without kernel symbols, kernel frames are kernel.kallsyms!0x<address>, as perf report's
# [k] 0x… rows (not perf's map name); GroupPats {%}!0x%->$1!unknown makes one row of them.
cn perf.data.kernel.unknown '[.rows[].name|select(test("kallsyms"))|test("^kernel\\.kallsyms!0xffffffff[0-9a-f]{8}$")]|unique' '[true]' byname "$PD/recordings/mt.fp.data" --kallsyms /nonexistent "${NATIVE[@]:2}"
cn perf.data.kernel.unknown-grouped '[.rows[].name|select(test("kallsyms"))]' '["kernel.kallsyms!unknown"]' byname "$PD/recordings/mt.fp.data" --kallsyms /nonexistent -g '{%}!0x%->$1!unknown' "${NATIVE[@]:2}"
# FlameGraph-style folded output through a view weighs by perf's period in ns from perf.data
# as from perf script text; with every symbol found the files are identical (issue 14 point
# 7). (Unfiltered perf script text goes through stackcollapse-perf.pl's own rules instead.)
"$SV" convert "$PD/recordings/sort.fp.data" "$TMP/sortd.folded" --folded-style flamegraph "${NATIVE[@]}" 2>/dev/null
"$SV" convert "$PD/recordings/sort.fp.txt" "$TMP/sortt.folded" --folded-style flamegraph --exc zzNoSuchFramezz 2>/dev/null
if [ -s "$TMP/sortd.folded" ] && cmp -s "$TMP/sortd.folded" "$TMP/sortt.folded"; then ok; else bad perf.data.folded-ns "$(diff "$TMP/sortd.folded" "$TMP/sortt.folded" | head -3)"; fi
# The profiled programs' own modules: the same from perf.data and perf script text.
for r in mt.fp gcc.fp sort.fp mt-nofp.dwarf; do
	a=$("$SV" info "$PD/recordings/$r.data" "${NATIVE[@]}" --json 2>/dev/null | jq -c .program_modules)
	b=$("$SV" info "$PD/recordings/$r.txt" --json 2>/dev/null | jq -c .program_modules)
	if [ -n "$a" ] && [ "$a" = "$b" ] && [ "$a" != "[]" ]; then ok; else bad "perf.programs.$r" "data $a, text $b"; fi
done
# A perf-PID.map that is a FIFO or a link to /dev/zero or /dev/urandom is not read (issue 15
# point 10): the load ends (the timeout guards a hang) with the JIT frames unnamed.
mkdir -p "$TMP/jit"
for kind in fifo zero urandom; do
	rm -f "$TMP/jit/perf-16412.map"
	case $kind in fifo) mkfifo "$TMP/jit/perf-16412.map" ;; *) ln -s "/dev/$kind" "$TMP/jit/perf-16412.map" ;; esac
	if out=$(timeout 60 "$SV" byname "$PD/recordings/py.fp.data" "${NATIVE[@]:0:4}" --perf-map-dir "$TMP/jit" --json 2>/dev/null) &&
		[ "$(jq '[.rows[]|select(.name|startswith("perf-16412.map!py::"))]|length' <<< "$out")" = 0 ]; then ok; else bad "perf.data.jit-map-$kind" "load failed or named JIT frames"; fi
done
rm -rf "$TMP/jit"

# stackcollapse-perf.pl's thirteen test inputs (FlameGraph's test/, CDDL) in its six modes equal
# the script's expected outputs byte for byte (tests/convert does four of them from the
# checkout).
FG=$SHARED/perf/upstream/flamegraph
for f in "$FG"/perf-*.txt; do
	b=$(basename "$f" .txt)
	for m in pid tid kernel jit all addrs; do
		"$SV" convert "$f" "$TMP/fg.folded" --folded-style "flamegraph-$m" 2> /dev/null
		fg_expected "$f" "$m" "$FG/results/$b-collapsed-$m.txt" "$TMP/fg.want" || { bad "flamegraph.$b.$m" "last sample folds to nothing"; continue; }
		if cmp -s "$TMP/fg.folded" "$TMP/fg.want"; then ok; else bad "flamegraph.$b.$m" "$(diff "$TMP/fg.folded" "$TMP/fg.want" | head -4 | cut -c1-200)"; fi
	done
done

# Files from elsewhere (issue 17): --symfs (the recorded /tmp/perfdata/bin/mt under a root, as
# perf's --symfs) and a real debuginfod server on loopback serving the debug directory, with
# an empty cache and no --debug-dir: the same ByName as with --debug-dir.
ref=$("$SV" byname "$PD/recordings/mt.fp.data" --kallsyms "$PD/kallsyms.gz" --debug-dir "$PD/debug" --json 2>/dev/null | jq -c '[.rows[] | [.name, .exc]]')
mkdir -p "$TMP/symfs/tmp/perfdata/bin"
cp "$PD/debug/.build-id/fd/5d207e3219251d345fad1f72dfdd507487ac29.debug" "$TMP/symfs/tmp/perfdata/bin/mt"
# (under --symfs every file is looked for there only, as perf does: compare mt's own rows)
mtrows='[.rows[] | select(.name | startswith("mt!")) | [.name, .exc]]'
refmt=$("$SV" byname "$PD/recordings/mt.fp.data" --kallsyms "$PD/kallsyms.gz" --debug-dir "$PD/debug" --json 2>/dev/null | jq -c "$mtrows")
got=$("$SV" byname "$PD/recordings/mt.fp.data" --kallsyms "$PD/kallsyms.gz" --symfs "$TMP/symfs" --json 2>/dev/null | jq -c "$mtrows")
if [ "$refmt" != "[]" ] && [ "$got" = "$refmt" ]; then ok; else bad perf.data.symfs "mt's rows differ from --debug-dir's: $got"; fi
if command -v debuginfod > /dev/null; then
	DPORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
	timeout 120 debuginfod -d "$TMP/debuginfod.sqlite" -p "$DPORT" -F "$PWD/$PD/debug" > "$TMP/debuginfod.log" 2>&1 &
	DGD=$!
	for _ in $(seq 1 100); do # until it has indexed the directory (at most 20 s)
		[ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$DPORT/buildid/fd5d207e3219251d345fad1f72dfdd507487ac29/debuginfo")" = 200 ] && break
		sleep 0.2
	done
	got=$(DEBUGINFOD_URLS="http://127.0.0.1:$DPORT" DEBUGINFOD_CACHE_PATH="$TMP/dcache" "$SV" byname "$PD/recordings/mt.fp.data" --kallsyms "$PD/kallsyms.gz" --json 2>/dev/null | jq -c '[.rows[] | [.name, .exc]]')
	if [ -n "$ref" ] && [ "$got" = "$ref" ]; then ok; else bad perf.data.debuginfod "ByName differs from --debug-dir's"; fi
	got=$(DEBUGINFOD_CACHE_PATH="$TMP/dcache2" "$SV" info "$PD/recordings/mt.fp.data" --kallsyms "$PD/kallsyms.gz" --debuginfod "http://127.0.0.1:$DPORT" --json 2>/dev/null | jq -c '[.found[] | select(startswith("debuginfod"))]')
	if [ "$got" = '["debuginfod: 1 of 1 files asked for by build id found"]' ]; then ok; else bad perf.data.debuginfod.option "got $got"; fi
	if [ -s "$TMP/dcache/fd5d207e3219251d345fad1f72dfdd507487ac29/debuginfo" ]; then ok; else bad perf.data.debuginfod.cache "nothing in the cache"; fi
	kill "$DGD" 2> /dev/null
	wait "$DGD" 2> /dev/null
else
	bad perf.data.debuginfod "debuginfod is not installed (make deps)"
fi
# without the variable or --debuginfod, nothing is asked
got=$("$SV" info "$PD/recordings/mt.fp.data" --kallsyms "$PD/kallsyms.gz" --json 2>/dev/null | jq -c '[.. | strings | select(startswith("debuginfod"))] | length')
if [ "$got" = 0 ]; then ok; else bad perf.data.debuginfod.off "got $got"; fi
