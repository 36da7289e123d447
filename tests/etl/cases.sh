# SPDX-License-Identifier: MIT
# Windows ETL importer against TraceEvent's baselines and the figures of spec/etl.md §13
# (sourced by tests/run.sh). Sample counts equal the baselines' COUNT lines; the first kept
# sample equals the baseline's first PerfInfo/Sample event; samples per process, stack
# coverage, modules of the sampled addresses and named JIT samples are etl.md's figures.
ED=$SHARED/etl
need_shared etl || return 0

for arch in x64 x86; do
	f=$ED/net.4.5.2.$arch.etl.zip
	base=$ED/net.4.5.2.$arch.baseline.txt
	info=$("$SV" info "$f" --json) || { bad "etl.$arch.load" "stackview info failed"; continue; }
	want=$(sed -n 's/^COUNT Windows Kernel\/PerfInfo\/Sample:\([0-9]*\).*/\1/p' "$base")
	got=$(printf '%s' "$info" | jq '.samples')
	if [ "$got" = "$want" ]; then ok; else bad "etl.$arch.samples" "got $got, want $want (baseline COUNT)"; fi
	# The first kept sample: time, pid, tid, CPU and address as in the baseline.
	want=$(grep -m1 'Windows Kernel/PerfInfo/Sample ' "$base" | sed -E \
		's/^EVENT ([0-9.,]+): .* PID=([0-9]+); TID=([0-9]+);.*InstructionPointer=(0x[0-9a-f]+); ProcessorNumber=([0-9]+);.*/first kept sample: \1 ms, pid \2, tid \3, CPU \5, IP \4/')
	got=$(printf '%s' "$info" | jq -r '.found[] | select(startswith("first kept sample"))')
	if [ "$got" = "$want" ]; then ok; else bad "etl.$arch.first" "got '$got', want '$want'"; fi
	# Every event kind TraceEvent counts that we name the same way has the same count.
	for k in Process/DCStart Process/DCStop Process/Start Process/Stop Process/Defunct Thread/Start Thread/Stop \
		Image/DCStart Image/DCStop Image/Load Image/Unload PerfInfo/CollectionStart PerfInfo/CollectionEnd; do
		want=$(sed -n "s|^COUNT Windows Kernel/$k:\([0-9]*\).*|\1|p" "$base")
		got=$(printf '%s' "$info" | jq --arg n "Windows Kernel/$k" '[.events[] | select(.name == $n) | .samples] | add // 0')
		[ -n "$want" ] || want=0
		if [ "$got" = "$want" ]; then ok; else bad "etl.$arch.count.$k" "got $got, want $want"; fi
	done
done

# The Events view's listing from its first pass read ahead (the TUI's, while the trace loads)
# equals the listing in one go, event for event: the real traces, where the first pass's
# processes, threads and metadata name what the second lists.
if out=$(SV_LIST_PREP_TRACES="$ED/net.4.5.2.x64.etl.zip:$ED/net.4.5.2.x86.etl.zip" "$B/tests/unit/test_list_prep" 2>&1); then
	ok
else
	bad etl.list-prepared "$(printf '%s\n' "$out" | grep -E 'ERROR|FAILED|LINE' | head -5)"
fi

# etl.md §13: records, stack coverage, BROKEN and named JIT samples.
c etl.x64.found '.found[0:3]' '["Windows 6.2 build 9200, 8 CPUs, 64-bit pointers, clock 10000000 Hz; 360 buffers (359 compressed), 179474 events in 23016672 bytes","CPU samples: 79528 in the trace, 73208 idle dropped, 6320 kept (6318 with a stack, 125 under BROKEN), interval 1 ms","stacks: 252 StackWalk events, 9107 stack-key references, 2921 key definitions; 35 processes, 1798 images, 16992 CLR methods (4494 samples in JIT code named)"]' info "$PWD/$ED/net.4.5.2.x64.etl.zip"
c etl.x86.found '.found[0:3]' '["Windows 6.2 build 9200, 8 CPUs, 64-bit pointers, clock 10000000 Hz; 276 buffers (275 compressed), 168298 events in 17708168 bytes","CPU samples: 88809 in the trace, 81999 idle dropped, 6810 kept (6806 with a stack, 38 under BROKEN), interval 1 ms","stacks: 229 StackWalk events, 12172 stack-key references, 4073 key definitions; 38 processes, 1867 images, 14188 CLR methods (2538 samples in JIT code named)"]' info "$PWD/$ED/net.4.5.2.x86.etl.zip"
# Samples per process, as PerfView's process picker lists them.
c etl.x64.procs '[.processes[0:7][] | [.pid, .name, .samples]]' '[[3676,"Test.x64",5129],[3988,"PerfView",356],[1632,"MsMpEng",283],[980,"dwm",132],[0,"Idle",105],[1104,"svchost",104],[4,"System",103]]' info "$PWD/$ED/net.4.5.2.x64.etl.zip"
c etl.x86.procs '[.processes[0:7][] | [.pid, .name, .samples]]' '[[3644,"Test.x86",4900],[3988,"PerfView",637],[1632,"MsMpEng",560],[1104,"svchost",219],[980,"dwm",141],[4,"System",134],[0,"Idle",129]]' info "$PWD/$ED/net.4.5.2.x86.etl.zip"
c etl.x64.procnames '[.processes[] | .name] | group_by(.) | map([.[0], length]) | map(select(.[0] == "svchost")) ' '[["svchost",8]]' info "$PWD/$ED/net.4.5.2.x64.etl.zip"
# Modules of the sampled addresses (exclusive time by module; etl.md §13 counts files with
# their extension). x86: ntoskrnl 517 here vs 518 there, one sample whose stack's first frame
# is not its IP (etl.md: "frame 0 == sample IP" for all but 2).
MODQ='[.rows[] | select(.exc > 0 and (.name | test("^(clr|hal|ntoskrnl|clrjit|ntdll|bcryptprimitives|MpEngine|sysmain|d3d10warp)$"))) | [.name, .exc]] | sort_by(-.[1], .[0])'
c etl.x64.modules "$MODQ" '[["clr",339],["hal",311],["ntoskrnl",284],["clrjit",110],["ntdll",94],["bcryptprimitives",85],["MpEngine",67],["sysmain",57],["d3d10warp",43]]' byname "$PWD/$ED/net.4.5.2.x64.etl.zip" -g '{%}!->$1'
c etl.x86.modules "$MODQ" '[["clr",2445],["ntoskrnl",517],["hal",267],["bcryptprimitives",180],["MpEngine",168],["clrjit",126],["sysmain",80],["ntdll",72],["d3d10warp",39]]' byname "$PWD/$ED/net.4.5.2.x86.etl.zip" -g '{%}!->$1'
# Selecting a process from the command line, and what its hottest frames are called.
c etl.inc '.summary.metric' 5129 byname "$PWD/$ED/net.4.5.2.x64.etl.zip" --inc 'Process% Test.x64'
c etl.jit '[.rows[0:2][] | .name]' '["mscorlib!System.DateTime.GetDatePart(int32)","mscorlib!System.TimeZoneInfo.TransitionTimeToDateTime(int32,value class TransitionTime)"]' byname "$PWD/$ED/net.4.5.2.x64.etl.zip" --inc 'Process% Test.x64'
# The root frames PerfView gives a WOW64 process and its threads; the main thread's stack
# reaches ntdll (no BROKEN).
c etl.roots '[.tree.children[0] | .name, (.children[0] | .name, .children[0].name)]' '["Process64 Test.x64 (3676) Args:","Thread (3680) CPU=5128ms","ntdll!?"]' calltree "$PWD/$ED/net.4.5.2.x64.etl.zip" --inc 'Process% Test.x64'
c etl.wow64 '[.processes[] | select(.pid == 3988) | .name]' '["PerfView"]' info "$PWD/$ED/net.4.5.2.x86.etl.zip"
got=$("$SV" convert "$ED/net.4.5.2.x86.etl.zip" "$TMP/x86.perfView.xml" 2>/dev/null && grep -c '>Process32 PerfView (3988) Args:<' "$TMP/x86.perfView.xml")
if [ "$got" = 1 ]; then ok; else bad etl.process32 "got: $got"; fi
# Module paths are DOS paths (VolumeMapping), without the extension; short names drop them.
got=$(grep -c '>C:\\Windows\\SysWOW64\\ntdll!?<' "$TMP/x86.perfView.xml")
if [ "$got" = 1 ]; then ok; else bad etl.dospath "got: $got"; fi
# The ETL round-trips through PerfView XML with the same ByName.
a=$("$SV" byname "$ED/net.4.5.2.x86.etl.zip" --json | jq -c '[.rows[] | [.name, .exc, .inc]] | sort')
b=$("$SV" byname "$TMP/x86.perfView.xml" --json | jq -c '[.rows[] | [.name, .exc, .inc]] | sort')
if [ "$a" = "$b" ]; then ok; else bad etl.roundtrip "ByName differs after convert"; fi

# Every other trace opens: no error, and with no CPU samples it shows the kind a user looks at
# first (the CLR's allocation ticks, else the provider kind with the most events) and warns
# that it did, naming how to pick another.
for fk in "SelfDescribingSingleEvent.etl:MySource/TestEvent" "smallEtlFile.etl:Microsoft-Windows-DotNETRuntimeRundown/Loader/ModuleDCStop" \
	"gcevents.etl.zip:Microsoft-Windows-DotNETRuntime/GC/AllocationTick" \
	"gcrundownevents.etl.zip:Microsoft-Windows-DotNETRuntimeRundown/Method/DCStopVerbose" "primitive-types.etl.zip:solar_system/PrimitiveTypesTest"; do
	f=${fk%%:*} k=${fk#*:}
	got=$("$SV" info "$ED/$f" --json 2>/dev/null | jq -c --arg k "$k" '[.samples > 0, ([.warnings[] | select(startswith("no CPU samples in the trace: showing \u0027" + $k))] | length), ([.events[] | select(.selected) | .name | startswith($k)] | any)]' 2>&1)
	if [ "$got" = "[true,1,true]" ]; then ok; else bad "etl.open.$f" "got $got"; fi
done
# a process the trace never names is called as TraceEvent calls it (its baseline's PName)
want=$(grep -o 'PName=Process([0-9]*)' "$ED/gcevents.baseline.txt" | sed -n 's/PName=//p' | sort -u | grep -v 179356 | head -n 1)
c etl.pname '[.tree.children[].name]' "[\"$want\"]" calltree "$PWD/$ED/gcevents.etl.zip" --depth 1
c etl.small '.found[0]' '"Windows 10.0 build 10586, 4 CPUs, 32-bit pointers, clock 3117777 Hz; 2 buffers (1 compressed), 2 events in 1064 bytes"' info "$PWD/$ED/smallEtlFile.etl"
c etl.selfdescribing '.found[0]' '"Windows 10.0 build 22000, 12 CPUs, 64-bit pointers, clock 10000000 Hz; 3 buffers (2 compressed), 23 events in 7712 bytes"' info "$PWD/$ED/SelfDescribingSingleEvent.etl"
c etl.rundown '.found[2] | test("80 CLR methods")' true info "$PWD/$ED/gcrundownevents.etl.zip"
# Standard input: read whole, then recognised by content.
c etl.stdin '.samples' 6320 info - < <(unzip -p "$ED/net.4.5.2.x64.etl.zip" net.4.5.2.x64.etl)
# Warnings are counted, not fatal: a trace cut in the middle keeps its earlier buffers.
head -c 3000000 <(unzip -p "$ED/net.4.5.2.x64.etl.zip" net.4.5.2.x64.etl) > "$TMP/cut.etl"
got=$("$SV" info "$TMP/cut.etl" --json 2>/dev/null | jq -c '[.samples > 1000, any(.warnings[]; test("^truncated buffer at byte offset [0-9]+"))]')
if [ "$got" = "[true,true]" ]; then ok; else bad etl.cut "got $got"; fi
# Truncated at many offsets: never a crash, always exit 0 or 1 with one line on stderr.
for n in 0 1 71 72 200 511 512 513 700 1060; do
	head -c "$n" "$ED/smallEtlFile.etl" > "$TMP/t$n.etl"
	"$SV" info "$TMP/t$n.etl" > /dev/null 2> "$TMP/t.err"
	st=$?
	if { [ $st = 0 ] || [ $st = 1 ]; } && [ "$(grep -c '' "$TMP/t.err")" -le 1 ]; then ok; else bad "etl.trunc.$n" "exit $st: $(cat "$TMP/t.err")"; fi
done
# --event: the CPU samples open by name; an event kind the trace has but stackview cannot open
# yet, or one it does not have, exits 2 with one line (issue 20 point 1).
c etl.event.sample '.summary.count' 6320 byname "$PWD/$ED/net.4.5.2.x64.etl.zip" --event 'Windows Kernel/PerfInfo/Sample'
# Any event kind is a stack source (issue 20): image loads with their kernel stacks, one each.
c etl.event.imageload '[.summary.count, .summary.unit, (.rows[0].name)]' '[35,"events","ntoskrnl!?"]' byname "$PWD/$ED/net.4.5.2.x64.etl.zip" --event 'Windows Kernel/Image/Load'
# GC/AllocationTick is PerfView's GC Heap Alloc view: bytes under the type, with the CLR's stack.
c etl.alloc.count '[.summary.count, .summary.unit]' '[12,"bytes"]' byname "$PWD/$ED/gcevents.etl.zip" --event 'Microsoft-Windows-DotNETRuntime/GC/AllocationTick'
"$SV" convert "$ED/gcevents.etl.zip" "$TMP/gc.perfView.json" --event 'Microsoft-Windows-DotNETRuntime/GC/AllocationTick' 2>/dev/null
# The baseline prints the first five ticks: their types (cut at 20 characters there) and sizes.
want=$(grep 'GC/AllocationTick PID' "$ED/gcevents.baseline.txt" | sed 's/.*AllocationAmount64=\([0-9,]*\); .*TypeName=\([^;]*\);.*/\1 \2/; s/,//g; s/\.\.\.$//')
got=$(jq -r '.StackSource.Samples[:5][] | "\(.Metric) \(.Stack[0] | sub("^Type "; ""))"' "$TMP/gc.perfView.json")
ok_all=1
while read -r amount type; do
	grep -q "^$amount $(printf '%s' "$type" | sed 's/[][\.*^$]/\\&/g')" <<<"$got" || ok_all=0
done <<<"$want"
if [ "$ok_all" = 1 ] && [ "$(printf '%s\n' "$want" | wc -l)" = 5 ]; then ok; else bad etl.alloc.baseline "want $want; got $got"; fi
cn etl.alloc.stacks '[.summary.count, ([.. | objects | select(.name? == "Test.x64!Test.Program.Main(class System.String[])")] | length > 0)]' '[10382,true]' calltree "$PWD/$ED/net.4.5.2.x64.etl.zip" --event 'Microsoft-Windows-DotNETRuntime/GC/AllocationTick' --depth 12
if "$SV" info "$ED/net.4.5.2.x64.etl.zip" --event 'Microsoft-Windows-DotNETRuntime/GC/AllocationTick' 2>&1 | grep -q '10382 events as samples (10382 with the CLR.s stack)'; then ok; else bad etl.alloc.clrstacks; fi
e etl.event.unknown 2 "no event 'nosuch' in the trace; it has: Windows Kernel/EventTrace, " -- byname "$ED/net.4.5.2.x64.etl.zip" --event nosuch
# Every event kind is named and counted as TraceEvent's baselines name and count them (their
# COUNT lines), whatever its provider: the kernel's and KernelTraceControl's by our tables, the
# CLR's (…Runtime, …Rundown, …Private) by event id, other manifest providers by the
# TRACE_EVENT_INFO the merge logged (MetaData/EventInfo), EventSources by the manifest they
# log (ManifestData), TraceLogging events by their self-describing names. info lists more
# (the StackWalk, FileIO name and thread rundown events TraceEvent keeps to itself). The one
# known difference: the x86 trace has 405 MethodLoadVerbose events where TraceEvent counts 395.
for f in net.4.5.2.x64:152 net.4.5.2.x86:156 gcevents:21 gcrundownevents:10 primitive-types:2; do
	n=${f#*:} f=${f%:*}
	ours=$("$SV" info "$ED/$f.etl.zip" --json 2>/dev/null | jq -r '.events[] | "\(.name):\(.samples)"' | LC_ALL=C sort)
	have=$(grep -c '^COUNT ' "$ED/$f.baseline.txt")
	missing=$(sed -n 's/^COUNT //p' "$ED/$f.baseline.txt" | grep -vx 'Microsoft-Windows-DotNETRuntime/Method/LoadVerbose:395' |
		LC_ALL=C sort | LC_ALL=C comm -23 - <(printf '%s\n' "$ours"))
	if [ -z "$missing" ] && [ "$have" = "$n" ]; then ok; else bad "etl.kinds.$f" "$have COUNT lines; $(printf '%s\n' "$missing" | head -5)"; fi
done
# An event kind named by its manifest opens by that name.
cn etl.kinds.manifest-event '[.summary.count]' '[53]' byname "$PWD/$ED/net.4.5.2.x64.etl.zip" --event 'PerfView/PerfViewLog'
cn etl.kinds.eventinfo-event '[.summary.count]' '[1]' byname "$PWD/$ED/net.4.5.2.x64.etl.zip" --event 'Microsoft-Windows-Kernel-Process/ProcessStart/Start'
# Disk I/O: bytes, the issuing thread's process, the file as the leaf (drive letters from the
# trace's volume map) — the first three reads as the baseline prints them.
"$SV" convert "$ED/net.4.5.2.x64.etl.zip" "$TMP/dio.perfView.json" --event 'Windows Kernel/DiskIO/Read' 2>/dev/null
want=$(grep -m3 'DiskIO/Read PID' "$ED/net.4.5.2.x64.baseline.txt" | sed 's/.*PID=\([0-9]*\);.*TransferSize=\([0-9,]*\);.*FileName=\([^;]*\);.*/\2 File \3 (\1)/; s/,//; s/\.\.\.//')
got=$(jq -r '.StackSource.Samples[:3][] | "\(.Metric) \(.Stack[0]) \(.Stack[-1] | capture("(?<p>\\([0-9]+\\))").p)"' "$TMP/dio.perfView.json")
n=0
while read -r size file rest; do
	line=$(sed -n "$((n + 1))p" <<<"$got")
	n=$((n + 1))
	pidpart=${rest##* }
	case "$line" in "$size $file"*" $pidpart") ;; *) n=99 ;; esac
done <<<"$want"
if [ $n = 3 ]; then ok; else bad etl.diskio.baseline "want $want; got $got"; fi
# Each Read takes the stack of its ReadInit (the same Irp), logged on the issuing thread: all
# 1,208 of the x64 trace; Windows Defender's reads are MpEngine's.
cn etl.diskio.init-stacks '[.found[] | select(test("I/Os with the stack"))]' \
	'["Windows Kernel/DiskIO/Read: 1208 of 1208 I/Os with the stack of their Init event (ReadInit/WriteInit, by Irp)"]' \
	info "$PWD/$ED/net.4.5.2.x64.etl.zip" --event 'Windows Kernel/DiskIO/Read'
cn etl.diskio.init-frames '[.rows[] | select(.name == "MpEngine!?") | .inc_count]' '[1060]' \
	byname "$PWD/$ED/net.4.5.2.x64.etl.zip" --event 'Windows Kernel/DiskIO/Read'
# disk-io-time: reads and writes weighing their issue-to-completion time, as the baseline's
# ElapsedTimeMSec of the 10 it prints (matched by time)
"$SV" convert "$ED/net.4.5.2.x64.etl.zip" "$TMP/dt.perfView.json" --event disk-io-time 2>/dev/null
res=$(jq -r '.StackSource.Samples[] | "\(.Time) \(.Metric)"' "$TMP/dt.perfView.json" |
	awk -v base="$(grep -E 'DiskIO/(Read|Write) PID' "$ED/net.4.5.2.x64.baseline.txt" |
		sed 's/^EVENT \([0-9.,]*\):.*ElapsedTimeMSec=\([0-9.,]*\);.*/\1 \2/; s/,//g')" '
	BEGIN { n = split(base, l, "\n"); for (i = 1; i <= n; i++) { split(l[i], f, " "); bt[i] = f[1]; be[i] = f[2] } }
	{ for (i = 1; i <= n; i++) if (!(i in hit) && $1 - bt[i] < 0.0015 && bt[i] - $1 < 0.0015) {
		hit[i] = 1; d = $2 - be[i]; if (d < 0) d = -d; if (d > 0.0006) bad++ } }
	END { print length(hit) "/" n, bad + 0 }')
if [ "$res" = "10/10 0" ]; then ok; else bad etl.disk-time.baseline "matched/of, wrong: $res"; fi
cn etl.disk-time.summary '[.summary.count, .summary.unit]' '[1229,"ms"]' byname "$PWD/$ED/net.4.5.2.x64.etl.zip" --event disk-io-time
cn etl.diskio.summary '[.summary.count, .summary.unit]' '[1208,"bytes"]' byname "$PWD/$ED/net.4.5.2.x64.etl.zip" --event 'Windows Kernel/DiskIO/Read'
cn etl.hardfault '[.summary.count, (.rows[0].name | startswith("File C:\\"))]' '[153,true]' byname "$PWD/$ED/net.4.5.2.x64.etl.zip" --event 'Windows Kernel/Memory/HardFault'
# CLR exceptions: the exception's type as the leaf, under the CLR's stack (the baseline's type
# is cut at 20 characters).
cn etl.exception '[.summary.count, (.rows[0].name | startswith("Exception System.IO.FileNotFou"))]' '[1,true]' byname "$PWD/$ED/net.4.5.2.x64.etl.zip" --event 'Microsoft-Windows-DotNETRuntime/Exception/Start'
# PDB identities (issue 17): every image the CPU samples' frames need, by its DbgID_RSDS event
# (wntdll.pdb as the baseline's first DbgID_RSDS line names it); none found in an empty
# directory, said once per PDB (the first ten) and in one warning.
mkdir -p "$TMP/emptysym"
cn etl.x64.symbols '[([.found[] | select(startswith("symbols: wntdll.pdb"))]), ([.warnings[] | select(startswith("symbols:")) | sub(" \\(not: .*"; "")])]' \
	'[["symbols: wntdll.pdb EC83D8DF555946E0B630133EBD9792662: not found"],["symbols: 0 of 153 PDBs the frames need were found on the symbol path"]]' \
	info "$PWD/$ED/net.4.5.2.x64.etl.zip" --symbol-path "$TMP/emptysym"
# No symbol path: the unnamed native frames are counted, with what names them.
c etl.no-symbol-path '[.warnings[] | select(startswith("symbols:")) | test("^symbols: [0-9]+ addresses in [0-9]+ native modules are unnamed .*no symbol path is set; --symbol-path")]' \
	'[true]' info "$PWD/$ED/net.4.5.2.x64.etl.zip"
