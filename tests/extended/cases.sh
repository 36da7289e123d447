# SPDX-License-Identifier: MIT
# Checks over the large shared recordings that belong to no single importer's group
# (make test-extended; sourced by tests/run.sh).
need_shared perf || return 0
IT=$TMP/extended
mkdir -p "$IT"
NATIVE=(--kallsyms "$SHARED/perf/kallsyms.gz" --debug-dir "$SHARED/perf/debug")
# Streaming folded output gives exactly the bytes the full path gives (tests/convert does
# the same for perf script text and XML).
for f in "$SHARED/perf/recordings/sort.fp.data" "$SHARED/etl/net.4.5.2.x64.etl.zip"; do
	for style in plain flamegraph; do
		"$SV" convert "$f" "$IT/s.folded" --folded-style "$style" "${NATIVE[@]}" 2> /dev/null
		"$SV" convert "$f" "$IT/f.folded" --folded-style "$style" --exc zzNoSuchFramezz "${NATIVE[@]}" 2> /dev/null
		if [ -s "$IT/s.folded" ] && cmp -s "$IT/s.folded" "$IT/f.folded"; then ok; else bad "convert.stream.$(basename "$f").$style" "$(cmp "$IT/s.folded" "$IT/f.folded" 2>&1)"; fi
	done
done

# PDBs (issue 17): the shared fixtures against their Breakpad .sym files, and the first
# functions another PDB reader (getsentry/symbolic) lists for crash.pdb, with their sizes.
if [ -d "$SHARED/pdb" ]; then
	for f in crash.pdb:crash.sym CrashWithException.pdb:CrashWithException.pdb.sym; do
		pdb=${f%%:*}
		"$SV" symbols "$SHARED/pdb/$pdb" > "$IT/$pdb.txt" 2>&1
		if out=$(perl tests/pdb/sym_compare.pl "$IT/$pdb.txt" "$SHARED/pdb/${f#*:}"); then ok; else bad "pdb.shared.$pdb" "$(printf '%s' "$out" | tail -3)"; fi
	done
	sed -n 's/^> 0x\([0-9a-f]*\): \(.*\) (0x\([0-9a-f]*\))$/FUNC \1 \3 0 \2/p' "$SHARED/pdb/test_objects__pdb_functions.snap" > "$IT/snap.sym"
	if out=$(perl tests/pdb/sym_compare.pl "$IT/crash.pdb.txt" "$IT/snap.sym") && [ "$out" = "funcs 10/10 publics 0/0" ]; then ok; else bad pdb.shared.symbolic "$out"; fi
fi

# Real .nettrace captures from other projects (../shared/data/real/nettrace, MIT): TraceEvent's
# baseline names the execution-checkpoint trace's event kind and counts it; the sample
# profiler's interval is what the trace's header says (ns), 1 ms for dotnet-trace's default.
RN=$SHARED/real/nettrace
if [ -d "$RN" ]; then
	mkdir -p "$IT/nt"
	for z in "$RN"/*.nettrace.zip; do unzip -qo "$z" -d "$IT/nt"; done
	for base in "$RN"/*.baseline.txt; do
		n=$(basename "$base" .baseline.txt)
		want=$(sed -n 's/^\([^,]*\), \([0-9][0-9]*\), .*/\1:\2/p' "$base" | sort)
		got=$("$SV" info "$IT/nt/$n" --json 2>/dev/null | jq -r '.events[] | select(.name != "thread-time") | "\(.name):\(.samples)"' | sort)
		if [ -n "$want" ] && [ "$(comm -23 <(printf '%s\n' "$want") <(printf '%s\n' "$got"))" = "" ]; then ok; else
			bad "nettrace.real.baseline.$n" "$(comm -23 <(printf '%s\n' "$want") <(printf '%s\n' "$got") | head -5)"; fi
	done
	got=$("$SV" info "$IT/nt/HeartRateMonitor.10068.nettrace" --json 2>/dev/null | jq -r '.found[] | select(startswith("thread-time:"))')
	case $got in *"(every 1 ms)"*) ok ;; *) bad nettrace.real.interval "$got" ;; esac
	# thread time's intervals are whole clock ticks (ns here), summed in ticks: every number
	# is its ns read back once (it read 1461.9386909999998 for 1461.938691)
	c nettrace.real.whole_ticks '[.rows[] | (.inc, .exc) | (. * 1e6 | round) / 1e6 == .] | all' true byname "$IT/nt/HeartRateMonitor.10068.nettrace"
	# a process the trace never names is called as TraceEvent calls it (the baseline's PName),
	# and none of the runtime's event kinds is left unnamed
	want=$(sed -n 's/.* PName="\([^"]*\)".*/\1/p' "$RN/eventpipe-dotnetcore6.0-win-x64-executioncheckpoints.nettrace.baseline.txt" | head -n 1)
	got=$("$SV" calltree "$IT/nt/eventpipe-dotnetcore6.0-win-x64-executioncheckpoints.nettrace" --json 2>/dev/null | jq -r '.tree.children[0].name')
	if [ -n "$want" ] && [ "$got" = "$want" ]; then ok; else bad nettrace.real.pname "got '$got', want '$want'"; fi
	unnamed=$(for f in "$IT"/nt/*.nettrace; do "$SV" info "$f" --json 2>/dev/null | jq -r '.events[].name'; done | grep -c 'EventID(')
	if [ "$unnamed" = 0 ]; then ok; else bad nettrace.real.names "$unnamed kinds are EventID(n)"; fi
	# events (issue 34): the baseline's event with its fields; every event of every trace
	# listed, as many of each kind as info counts
	"$SV" events "$IT/nt/eventpipe-dotnetcore6.0-win-x64-executioncheckpoints.nettrace" --json > "$IT/ec.json" 2> /dev/null
	if why=$(python3 tests/tools/events_baseline.py "$RN/eventpipe-dotnetcore6.0-win-x64-executioncheckpoints.nettrace.baseline.txt" "$IT/ec.json" \
		--require Microsoft-Windows-DotNETRuntimeRundown/ExecutionCheckpointRundown/ExecutionCheckpointDCEnd 2>&1); then ok; else bad events.nettrace.baseline "$why"; fi
	for f in "$IT"/nt/*.nettrace; do
		want=$("$SV" info "$f" --json 2>/dev/null | jq -r '.events[] | select(.name != "thread-time") | "\(.name):\(.samples)"' | sort)
		got=$("$SV" events "$f" --json 2>/dev/null | jq -r '.events | group_by(.event)[] | "\(.[0].event):\(length)"' | sort)
		if [ "$got" = "$want" ]; then ok; else bad "events.nettrace.counts.$(basename "$f")" "$(diff <(echo "$want") <(echo "$got") | head -5)"; fi
	done
fi

# heaptrack (issue 33): a program recorded here and now by heaptrack (tests/data/heaptrack's
# ht2.cpp, built with the machine's compiler and libraries), read as heaptrack_print reads it,
# for every cost type.
if command -v heaptrack > /dev/null && command -v g++ > /dev/null; then
	g++ -O2 -g -pthread -o "$IT/ht2" tests/data/heaptrack/ht2.cpp
	(cd "$IT" && heaptrack -o "$IT/live" ./ht2 > /dev/null 2>&1)
	live=$(ls "$IT"/live.* 2>/dev/null | head -n 1)
	for e in peak leaked allocations temporary; do
		heaptrack_print -f "$live" --flamegraph-cost-type "$e" -F "$IT/live-$e.txt" > /dev/null 2>&1
		"$SV" convert "$live" "$IT/live-$e.folded" --event "$e" 2> "$IT/live.err"
		if [ -n "$live" ] && why=$(python3 tests/tools/heaptrack_cmp.py "$IT/live-$e.txt" "$IT/live-$e.folded"); then ok; else bad "heaptrack.live.$e" "$why $(cat "$IT/live.err" 2>/dev/null)"; fi
	done
else
	bad heaptrack.live "heaptrack or g++ is not installed (make deps-test)"
fi

# .gcdump (issue 33): PerfView's own heap snapshot test file (../shared/data/real/gcdump, MIT)
# against PerfView's XML dump of it: the spanning tree PerfView's heap view walks, computed by
# gcdump_oracle.py from the dump's nodes, types and references, equals stackview's calltree
# path for path (bytes and objects), and the total is the dump's TotalSize.
RG=$SHARED/real/gcdump
if [ -f "$RG/test1.gcdump" ]; then
	"$SV" calltree "$RG/test1.gcdump" --json > "$IT/gc.json" 2> /dev/null
	if why=$(python3 tests/tools/gcdump_oracle.py "$RG/test1_baseline.gcdump.xml.gz" "$IT/gc.json" 2>&1); then ok; else bad gcdump.real.tree "$why"; fi
	want=$(gzip -dc "$RG/test1_baseline.gcdump.xml.gz" | sed -n 's/.*<MemoryGraph NumNodes="\([0-9]*\)".*TotalSize="\([0-9]*\)".*/[\2,\1]/p')
	cn gcdump.real.total '[.metric, .samples]' "$want" info "$RG/test1.gcdump"
	# --priority (PerfView's Priority box): raising Scope objects and lowering prototypes moves
	# 112 paths of the default tree; the oracle walks with the same patterns
	pr='*Type  Scope*->5;*prototype*->-50;*NodeList*->3'
	"$SV" calltree "$RG/test1.gcdump" --priority "$pr" --json > "$IT/gcp.json" 2> /dev/null
	if why=$(python3 tests/tools/gcdump_oracle.py "$RG/test1_baseline.gcdump.xml.gz" "$IT/gcp.json" "$pr" 2>&1); then ok; else bad gcdump.real.priority "$why"; fi
	if python3 tests/tools/gcdump_oracle.py "$RG/test1_baseline.gcdump.xml.gz" "$IT/gc.json" "$pr" > /dev/null 2>&1; then
		bad gcdump.real.priority-matters "the default tree equals the one with --priority '$pr': the check above cannot fail"
	else ok; fi
fi

# events (issue 34) on TraceEvent's .NET 4.5.2 traces: every baseline event of the runtime's
# providers listed (time, process, thread, CPU, payload size) with every field both have
# equal; the runtime's common kinds with all their fields; each kind as often as info counts it
ED=$SHARED/etl
for a in x64 x86; do
	"$SV" events "$ED/net.4.5.2.$a.etl.zip" --json > "$IT/ev-$a.json" 2> /dev/null
	# every kind of the baseline: listed at the same time, process, thread, CPU, size; every
	# field both show equal (the kinds with no decoded fields yet are counted, docs/events.md)
	if why=$(python3 tests/tools/events_baseline.py "$ED/net.4.5.2.$a.baseline.txt" "$IT/ev-$a.json" \
		--require Microsoft-Windows-DotNETRuntime/GC/Start Microsoft-Windows-DotNETRuntime/GC/Stop \
		Microsoft-Windows-DotNETRuntime/GC/SuspendEEStart Microsoft-Windows-DotNETRuntime/GC/Triggered \
		Microsoft-Windows-DotNETRuntime/Method/JittingStarted Microsoft-Windows-DotNETRuntime/Exception/Start \
		Microsoft-Windows-DotNETRuntimeRundown/Loader/AssemblyDCStop Microsoft-Windows-DotNETRuntimeRundown/Runtime/Start \
		"Windows Kernel/EventTrace" "Windows Kernel/Process/Start" "Windows Kernel/Process/DCStart" \
		"Windows Kernel/Process/PerfCtr" "Windows Kernel/Thread/Start" "Windows Kernel/Image/Load" \
		"Windows Kernel/Image/DCStart" "Windows Kernel/PerfInfo/Sample" "Windows Kernel/SystemConfig/CPU" \
		PerfView/CommandLineParameters PerfView/KernelEnableParameters PerfView/ProviderEnableParameters PerfView/ManifestData \
		System.Threading.Tasks.TplEventSource/TaskScheduled/Send System.Diagnostics.Eventing.FrameworkEventSource/ThreadPoolEnqueueWork \
		"Windows Kernel/TcpIp/RecvIPV6" "Windows Kernel/TcpIp/SendIPV6" "Windows Kernel/UdpIp/Recv" "Windows Kernel/UdpIp/SendIPV6" \
		"Windows Kernel/DiskIO/ReadInit" "Windows Kernel/PerfInfo/CollectionStart" KernelTraceControl/ImageID \
		KernelTraceControl/ImageID/DbgID_RSDS KernelTraceControl/ImageID/FileVersion "Windows Kernel/SystemConfig/PhyDisk" \
		"Windows Kernel/SystemConfig/LogDisk" "Windows Kernel/SystemConfig/NIC" "Windows Kernel/SystemConfig/Services" \
		"Windows Kernel/SystemConfig/PnP" "Windows Kernel/SystemConfig/Network" "Windows Kernel/SysConfig/BuildInfo" \
		"Windows Kernel/SysConfig/VolumeMapping" MSNT_SystemTrace/SystemConfig/Platform \
		Microsoft-Windows-Kernel-Process/ProcessStart/Start Microsoft-Windows-Kernel-Process/ProcessStop/Stop \
		Microsoft-Windows-DNS-Client/DnsServerForInterface Microsoft-Windows-Kernel-EventTracing/ETW_TASK_PROVIDER/ETW_OPCODE_ENABLE \
		Microsoft-Windows-DotNETRuntimePrivate/Binding/LoaderMappingPhaseStart Microsoft-Windows-DotNETRuntimePrivate/Binding/FusionMessage \
		Microsoft-Windows-DotNETRuntimePrivate/GC/GlobalHeapHistory Microsoft-Windows-DotNETRuntime/Type/BulkType \
		Microsoft-Windows-DotNETRuntime/Loader/ModuleLoad "Windows Kernel/Memory/HardFault" MSNT_SystemTrace/Image/KernelBase \
		Microsoft-Windows-DotNETRuntime/GC/FinalizeObject "Windows Kernel/DiskIO/Read" "Windows Kernel/DiskIO/Write" \
		Microsoft-Windows-DotNETRuntimePrivate/NgenBinder/NgenBind 2>&1); then ok
	else bad "events.etl.$a.baseline" "$(printf '%s\n' "$why" | grep DIFFERS | head -5)"; fi
	want=$("$SV" info "$ED/net.4.5.2.$a.etl.zip" --json 2>/dev/null | jq -r '.events[] | select(.name | test("^(thread-time|ready-time|blocked-time|net-|disk-io-time)") | not) | "\(.name):\(.samples)"' | sort)
	got=$(jq -r '.events | group_by(.event)[] | "\(.[0].event):\(length)"' "$IT/ev-$a.json" | sort)
	if [ "$got" = "$want" ]; then ok; else bad "events.etl.$a.counts" "$(diff <(echo "$want") <(echo "$got") | head -5)"; fi
done
"$SV" events "$ED/gcrundownevents.etl.zip" --json > "$IT/ev-rd.json" 2> /dev/null
if why=$(python3 tests/tools/events_baseline.py "$ED/gcrundownevents.baseline.txt" "$IT/ev-rd.json" --only Microsoft-Windows-DotNETRuntime 2>&1); then ok
else bad events.etl.gcrundown "$(printf '%s\n' "$why" | grep DIFFERS | head -5)"; fi

# GCStats and JITStats (issue 34) on the real traces: every GC, pause, heap size and JIT time
# equals what the events themselves give (tests/tools/reports_oracle.py)
for f in "$ED/net.4.5.2.x64.etl.zip" "$ED/net.4.5.2.x86.etl.zip" "$IT"/nt/*.nettrace; do
	[ -f "$f" ] || continue
	n=$(basename "$f")
	"$SV" events "$f" --json > "$IT/rep-ev.json" 2> /dev/null
	for k in gcstats jitstats; do
		"$SV" report "$k" "$f" --json --top 100000 > "$IT/rep.json" 2> /dev/null
		if why=$(python3 tests/tools/reports_oracle.py "$k" "$IT/rep-ev.json" "$IT/rep.json" 2>&1); then ok; else bad "report.$k.$n" "$why"; fi
	done
done
# TraceEvent's count of the x64 trace's GCs: 264 GC/Stop events (528 GC/Start: .NET 4.5 logs two a GC)
cn report.gcstats.x64-count '[.processes[] | .all.count] | add' '264' report gcstats "$ED/net.4.5.2.x64.etl.zip"

# The TUI's Events view (issue 34) on a million-event trace (the x64 trace's buffers ten
# times): rows come while the trace is read, all of them in the end; leaving the TUI while it
# reads stops the reading (exit 0, the terminal given back).
if command -v tmux >/dev/null 2>&1 && [ -f "$ED/net.4.5.2.x64.etl.zip" ]; then
	unzip -p "$ED/net.4.5.2.x64.etl.zip" net.4.5.2.x64.etl > "$IT/x1.etl"
	for _ in 1 2 3 4 5 6 7 8 9 10; do cat "$IT/x1.etl"; done > "$IT/x10.etl"
	n=$("$SV" events "$IT/x10.etl" --json 2> /dev/null | jq .shown | sed ':a;s/\B[0-9]\{3\}\>/,&/;ta')
	sock="sv-ext-$$"
	tx() { tmux -L "$sock" "$@"; }
	tw() { for _ in $(seq 300); do tx capture-pane -t ev -p 2>/dev/null | grep -q -- "$1" && return 0; sleep 0.1; done; return 1; }
	tx new-session -d -s ev -x 120 -y 30 "$SV $IT/x10.etl 2> /dev/null; echo EXITED \$?; stty -a | grep -o ' echo '; sleep 30"
	tx set -s exit-empty off # (the session is killed and made again: the server stays)
	tw 'choose the processes' && tx send-keys -t ev Escape
	tw 'CallTree\]' && tx send-keys -t ev V
	if tw "$n of $n events\$"; then ok; else bad tui.events.million "$n: $(tx capture-pane -t ev -p | sed -n 2p)"; fi
	tx send-keys -t ev Escape
	tw 'CallTree\]' && tx send-keys -t ev q
	if tw 'EXITED 0'; then ok; else bad tui.events.million.quit "$(tx capture-pane -t ev -p | tail -3 | tr '\n' '|')"; fi
	tx kill-session -t ev 2> /dev/null
	tx new-session -d -s ev -x 120 -y 30 "$SV $IT/x10.etl 2> /dev/null; echo EXITED \$?; stty -a | grep -o ' echo '; sleep 30"
	tw 'choose the processes' && tx send-keys -t ev Escape
	tw 'CallTree\]' && tx send-keys -t ev V
	tw 'Time ms' && tx send-keys -t ev Escape
	tw 'CallTree\]' && tx send-keys -t ev q
	if tw 'EXITED 0' && tw '^ echo'; then ok; else bad tui.events.quit-while-reading "$(tx capture-pane -t ev -p | tail -3 | tr '\n' '|')"; fi
	tx kill-server 2> /dev/null
	rm -f "$IT/x1.etl" "$IT/x10.etl"
fi

# Just My App on an ETL trace (issue 34): the program's directory from its image loads; its
# frames kept by function between OTHER entries, as PerfView's view of Test.x64
cn preset.just-my-app.etl '[.tree.children[0].children[0].children[0] | .name, .children[0].name, .children[0].children[0].name]' \
	'["OTHER <<ntdll!?>>","Test.x64!Test.Program.Main(class System.String[])","OTHER <<mscorlib!System.DateTime.get_Now()>>"]' \
	calltree "$SHARED/etl/net.4.5.2.x64.etl.zip" --inc 'Process% Test.x64' --preset 'Just My App'

# Annotate (issue 36) against perf annotate run here: the shared mt recordings (the binaries
# from the shared debug directory, which hold their code) and a program recorded now; every
# instruction perf lists has our address and percentage. perf annotate needs perf (Debian's
# linux-perf, make deps-test) and objdump.
AN=$IT/annotate
mkdir -p "$AN/symfs/tmp/perfdata/bin"
cp "$SHARED/perf/debug/.build-id/fd/5d207e3219251d345fad1f72dfdd507487ac29.debug" "$AN/symfs/tmp/perfdata/bin/mt"
ann_cmp() { # ID PERF.DATA FUNCTION PERF-OPTIONS -- OUR-OPTIONS
	local id=$1 data=$2 fn=$3 want got
	shift 3
	local popts=()
	while [ "$1" != -- ]; do popts+=("$1"); shift; done
	shift
	want=$(perf annotate -i "$data" "${popts[@]}" --stdio --percent-type local-period "$fn" 2>/dev/null |
		awk '/^ +[0-9.]+ : +[0-9a-f]+:/ {a = $3; sub(":", "", a); print a, $1}')
	got=$("$SV" annotate "$data" --name "$fn" "$@" --json 2>/dev/null | jq -r '.instructions[] | "\(.address) \(.percent)"' |
		awk '{printf "%s %.2f\n", $1, $2}')
	if [ -n "$want" ] && [ "$got" = "$want" ]; then ok; else bad "$id" "$(diff <(printf '%s\n' "$want") <(printf '%s\n' "$got") | head -4 | tr '\n' '|')"; fi
	# the recording's perf script text (perf's default fields) gives the same instructions
	local txt text
	txt="$AN/$(basename "$data").txt"
	perf script -i "$data" "${popts[@]}" > "$txt" 2>/dev/null
	text=$("$SV" annotate "$txt" --name "$fn" "$@" --json 2>/dev/null | jq -r '.instructions[] | "\(.address) \(.percent)"' |
		awk '{printf "%s %.2f\n", $1, $2}')
	if [ -n "$want" ] && [ "$text" = "$want" ]; then ok; else bad "$id.script" "$(diff <(printf '%s\n' "$want") <(printf '%s\n' "$text") | head -4 | tr '\n' '|')"; fi
	rm -f "$txt"
}
if command -v perf > /dev/null && command -v objdump > /dev/null; then
	for fn in leaf_math leaf_mem; do
		# (its text has no build ids: the binary is given where perf's is, under --symfs)
		ann_cmp "annotate.shared.mt.$fn" "$SHARED/perf/recordings/mt.fp.data" "$fn" --symfs "$AN/symfs" -- "${NATIVE[@]}" --symfs "$AN/symfs"
	done
	# a program recorded now, at -F 10000 (perf's own binary path; the build-id cache kept out)
	cp tests/data/annotate/hot.c "$AN/"
	if cc -O2 -g -fno-omit-frame-pointer -o "$AN/hot" "$AN/hot.c" -lm &&
		perf record -q -e cpu-clock -F 10000 -g -N -o "$AN/live.data" "$AN/hot" 2000 > /dev/null 2>&1; then
		for fn in mix count_bits; do
			ann_cmp "annotate.live.$fn" "$AN/live.data" "$fn" -- --kallsyms /nonexistent
		done
	else
		bad annotate.live "cannot build or record tests/data/annotate/hot.c here"
	fi
	# the same program recorded with --call-graph dwarf; stripped, its symbols and lines in a
	# separate debug file found by build id with --debug-dir (a relative one); a function of a
	# shared library (addresses in the .so as perf annotate gives them)
	if perf record -q -e cpu-clock -F 10000 --call-graph dwarf -N -o "$AN/dwarf.data" "$AN/hot" 1000 > /dev/null 2>&1; then
		for fn in mix count_bits; do
			ann_cmp "annotate.dwarf.$fn" "$AN/dwarf.data" "$fn" -- --kallsyms /nonexistent
		done
	else
		bad annotate.dwarf "cannot record with --call-graph dwarf here"
	fi
	mkdir -p "$AN/strip"
	objcopy --only-keep-debug "$AN/hot" "$AN/strip/hot.debug"
	cp "$AN/hot" "$AN/strip/hot" && strip --strip-all "$AN/strip/hot" &&
		(cd "$AN/strip" && objcopy --add-gnu-debuglink=hot.debug hot)
	bid=$(readelf -n "$AN/strip/hot" | awk '/Build ID/ {print $3}')
	mkdir -p "$AN/strip/dbg/.build-id/${bid:0:2}"
	cp "$AN/strip/hot.debug" "$AN/strip/dbg/.build-id/${bid:0:2}/${bid:2}.debug"
	if perf record -q -e cpu-clock -F 10000 -g -N -o "$AN/strip/strip.data" "$AN/strip/hot" 1000 > /dev/null 2>&1; then
		for fn in mix count_bits; do # perf annotate reads the debug file beside the binary (its debuglink)
			want=$(cd "$AN/strip" && perf annotate -i strip.data --stdio --percent-type local-period "$fn" 2>/dev/null |
				awk '/^ +[0-9.]+ : +[0-9a-f]+:/ {a = $3; sub(":", "", a); print a, $1}')
			# stackview with the debug file gone from there: found by build id in a relative --debug-dir
			got=$(cd "$AN/strip" && mv hot.debug hot.debug.away && "$SV" annotate strip.data --name "$fn" --debug-dir dbg \
				--kallsyms /nonexistent --json 2>/dev/null | jq -r '.instructions[] | "\(.address) \(.percent)"' |
				awk '{printf "%s %.2f\n", $1, $2}'; mv hot.debug.away hot.debug)
			if [ -n "$want" ] && [ "$got" = "$want" ]; then ok; else
				bad "annotate.stripped.$fn" "$(diff <(printf '%s\n' "$want") <(printf '%s\n' "$got") | head -4 | tr '\n' '|')"; fi
		done
	else
		bad annotate.stripped "cannot record the stripped binary here"
	fi
	printf '%s\n' '__attribute__((noinline)) long lib_bits(long n)' '{' '	long c = 0;' \
		'	for (long i = 0; i < n; i++)' '		c += (i * 2654435761u) >> (i & 7);' '	return c;' '}' > "$AN/libhot.c"
	printf '%s\n' '#include <stdio.h>' '#include <stdlib.h>' 'long lib_bits(long n);' 'int main(int argc, char **argv)' '{' \
		'	long r = 0, rounds = argc > 1 ? atol(argv[1]) : 100;' '	for (long k = 0; k < rounds; k++)' \
		'		r += lib_bits(200000 + k);' '	printf("%ld\\n", r);' '	return 0;' '}' > "$AN/usehot.c"
	if cc -O2 -g -fno-omit-frame-pointer -fPIC -shared -o "$AN/libhot.so" "$AN/libhot.c" &&
		cc -O2 -g -fno-omit-frame-pointer -o "$AN/usehot" "$AN/usehot.c" -L"$AN" -lhot -Wl,-rpath,"$AN" &&
		perf record -q -e cpu-clock -F 10000 -g -N -o "$AN/so.data" "$AN/usehot" 1500 > /dev/null 2>&1; then
		ann_cmp annotate.shared-library "$AN/so.data" lib_bits -- --kallsyms /nonexistent
	else
		bad annotate.shared-library "cannot build or record a shared library here"
	fi
	# JIT code (V8's: node --perf-prof writes a jitdump, perf inject --jit makes an ELF file of
	# each function, which the injected recording names): annotate reads them as perf annotate
	# does; the hottest compilation of the function (V8 compiles a function again as it warms)
	if command -v node > /dev/null; then
		mkdir -p "$AN/jit"
		printf '%s\n' 'function mix(n) { let x = 0; for (let i = 0; i < n; i++) x = (x * 31 + i) ^ (x >>> 7); return x; }' \
			'let t = 0; const end = Date.now() + 1500; while (Date.now() < end) t += mix(100000);' 'console.log(t);' > "$AN/jit/hot.js"
		if (cd "$AN/jit" && perf record -q -k 1 -e cpu-clock -F 5000 -g -N -o raw.data node --perf-prof hot.js > /dev/null 2>&1 &&
			HOME="$AN/jit" perf inject --jit -i raw.data -o jit.data > /dev/null 2>&1); then
			# the hottest optimized JS function (node 20 names it JS:*mix, node 18 LazyCompile:*mix;
			# V8 may have inlined mix into the script's loop instead)
			line=$(perf report -i "$AN/jit/jit.data" --stdio --no-children --sort dso,sym 2>/dev/null |
				grep -m1 -E '^ +[0-9.]+% +jitted-[0-9]+-[0-9]+\.so +\[\.\] [A-Za-z]+:\*')
			dso=$(awk '{print $2}' <<<"$line")
			fn=${line#*\[.\] }
			if [ -n "$dso" ] && [ -n "$fn" ]; then
				ann_cmp annotate.jit "$AN/jit/jit.data" "$fn" --dsos "$dso" -- --kallsyms /nonexistent
			else
				bad annotate.jit "no optimized JS code in perf report of the injected recording: $line"
			fi
		else
			bad annotate.jit "cannot record node --perf-prof or inject its jitdump here"
		fi
	else
		echo "skip annotate.jit: no node here (make deps-test installs nodejs)"
	fi
	# kernel code: named from kallsyms, no code file to disassemble (perf annotate needs
	# vmlinux or /proc/kcore too): the command says so
	if perf record -q -e cpu-clock -F 10000 -g -N -o "$AN/k.data" dd if=/dev/zero of=/dev/null bs=1M count=2000 2>/dev/null &&
		kfn=$(perf report -i "$AN/k.data" --stdio --no-children 2>/dev/null | awk '/\[k\]/ {print $NF; exit}') && [ -n "$kfn" ]; then
		e annotate.kernel 2 "annotate: '$kfn' has samples but no code file to read its instructions from \\(kernel" -- \
			annotate "$AN/k.data" --name "$kfn"
	else
		echo "skip annotate.kernel: no kernel samples or symbols here"
	fi
	# Goto Source of inlined code recorded now: every line's exclusive and inclusive samples
	# against perf script -F ip,sym,srcline (as tests/annotate does with the fixture)
	cp tests/data/annotate/inlhot.c tests/data/annotate/loop.h "$AN/"
	if cc -O2 -g -fno-omit-frame-pointer -o "$AN/inlhot" "$AN/inlhot.c" &&
		perf record -q -e cpu-clock -F 10000 -g -N -o "$AN/inl.data" "$AN/inlhot" 300 > /dev/null 2>&1; then
		want=$(perf script -i "$AN/inl.data" -F ip,sym,srcline 2>/dev/null | inlhot_srclines)
		got=$("$SV" source "$AN/inl.data" --name work --kallsyms /nonexistent --json 2>/dev/null |
			jq -r '.lines[] | select(.inc_count > 0) | "\(.source | sub(".*/"; "")):\(.line) \(.inc_count) \(.exc_count)"' | sort)
		if [ "$(printf '%s\n' "$want" | wc -l)" -ge 5 ] && [ "$got" = "$want" ]; then ok; else
			bad annotate.live.source-inlined "$(diff <(printf '%s\n' "$want") <(printf '%s\n' "$got") | head -6 | tr '\n' '|')"; fi
	else
		bad annotate.live.source-inlined "cannot build or record tests/data/annotate/inlhot.c here"
	fi
else
	bad annotate.perf "perf or objdump missing (make deps-test installs them)"
fi

# annotate of a Go CPU profile recorded now (pprof: the binary at the path the profile names)
# against go tool pprof -disasm: for the functions with the most samples, every instruction
# pprof gives a flat cost has the same cost in ours, and ours has no other (code inlined into
# a function counts as the function's, as there). Go 1.19's disassembler reads AVX
# instructions as other ones (vpxor as OUTL, RORB...), so where its instructions are not ours
# only the function's total is compared.
GP=$IT/gopprof
mkdir -p "$GP"
cp tests/data/pprof/prog.go "$GP/"
if command -v go > /dev/null && (cd "$GP" && GO111MODULE=off GOCACHE="$GP/cache" go build -o prog prog.go) 2> /dev/null &&
	"$GP/prog" "$GP/cpu.pb.gz" "$GP/heap.pb.gz"; then
	# one case for every function compared (how many there are depends on the profile just
	# recorded: the total stays the same from run to run)
	n=0 differ=0
	for fn in $("$SV" byname "$GP/cpu.pb.gz" --json 2> /dev/null | jq -r '.rows[] | select(.exc_count > 0) | .name | sub("^prog!"; "")' | head -8); do
		theirs=$(go tool pprof -unit=ms -disasm "$(printf '%s' "$fn" | sed 's/[.]/\\./g')" "$GP/prog" "$GP/cpu.pb.gz" 2> /dev/null |
			awk -v fn="$fn" '/^ROUTINE/ {on = $3 == fn; next} on && $3 ~ /:$/ {sub(/ms$/, "", $1); sub(/:$/, "", $3); print $3, ($1 == "." ? 0 : $1 + 0)}')
		[ -n "$theirs" ] || continue # an assembly function pprof names otherwise (sha256.block.abi0)
		ours=$("$SV" annotate "$GP/cpu.pb.gz" --name "$fn" --json 2> /dev/null | jq -r '.instructions[] | "\(.address) \(.metric)"')
		if [ "$(printf '%s\n' "$theirs" | cut -d' ' -f1)" = "$(printf '%s\n' "$ours" | cut -d' ' -f1)" ]; then
			want=$(printf '%s\n' "$theirs" | awk '$2 != 0') got=$(printf '%s\n' "$ours" | awk '$2 != 0')
		else
			want=$(printf '%s\n' "$theirs" | awk '{t += $2} END {print "total", t}') got=$(printf '%s\n' "$ours" | awk '{t += $2} END {print "total", t}')
		fi
		if [ "$got" != "$want" ]; then
			bad "annotate.pprof.$fn" "$(diff <(printf '%s\n' "$want") <(printf '%s\n' "$got") | head -4 | tr '\n' '|')"
			differ=$((differ + 1))
		fi
		n=$((n + 1))
	done
	if [ "$n" -ge 3 ] && [ "$differ" = 0 ]; then ok; elif [ "$n" -lt 3 ]; then bad annotate.pprof "only $n functions compared with go tool pprof -disasm"; fi
	if "$SV" info "$GP/cpu.pb.gz" 2> /dev/null | grep -q 'code for annotate: 1 of 1 binaries found'; then ok; else
		bad annotate.pprof.info "info does not say the binary was found"; fi
else
	bad annotate.pprof "cannot build or run tests/data/pprof/prog.go here (make deps-test installs golang-go)"
fi

# ---- events: perf.data's tracepoints against perf script's own text of the recording ----
# Recorded now (every sched, irq, timer, kmem, signal and workqueue tracepoint and two
# syscalls: strings, flags, symbolic values, pointer arrays, kernel function names %pS from
# the running kernel's kallsyms, as perf names them): event by event as perf script prints.
if command -v perf > /dev/null; then
	EVX=$TMP/events-live
	mkdir -p "$EVX"
	if perf record -q -g -o "$EVX/tp.data" -e 'sched:*' -e 'irq:*' -e 'timer:*' -e 'kmem:*' -e 'signal:*' \
		-e 'workqueue:*' -e 'syscalls:sys_enter_openat' -e 'syscalls:sys_enter_execve' -- \
		sh -c 'for i in 1 2 3; do ls /usr > /dev/null; cat /etc/hostname > /dev/null; sleep 0.01; done; kill -0 $$' > /dev/null 2>&1; then
		perf script -i "$EVX/tp.data" --ns -F comm,pid,tid,cpu,time,event,trace,ip,sym > "$EVX/tp.txt" 2> /dev/null
		"$SV" events "$EVX/tp.data" --json > "$EVX/tp.data.json" 2> /dev/null
		"$SV" events "$EVX/tp.txt" --json > "$EVX/tp.txt.json" 2> /dev/null
		n=$(jq '[.events[] | .event] | unique | length' "$EVX/tp.data.json")
		if why=$(python3 tests/tools/events_same.py "$EVX/tp.data.json" "$EVX/tp.txt.json" --shift 2>&1) && [ "$n" -ge 10 ]; then ok; else
			bad events.perf-data.live "$n kinds; $why"; fi
	else
		bad events.perf-data.live "perf cannot record tracepoints here"
	fi
fi
