# SPDX-License-Identifier: MIT
# .nettrace (EventPipe) traces written by tests/nettrace/gen_nettrace.py from the format's
# description (no .NET runtime here): thread time from the sample profiler, event kinds as
# stack sources, method names from load and rundown events, both event header encodings,
# dropped events, a cut trace, and bad input.
NT=$TMP/nettrace
mkdir -p "$NT"
for m in ref uncompressed nosamples truncated v6 netperf badstack; do
	python3 tests/nettrace/gen_nettrace.py "$NT/$m.nettrace" "$([ $m = ref ] || echo $m)"
done

# Thread time (PerfView's EventPipe view): each sample holds its thread's stack until the
# thread's next sample, CPU_TIME (managed) or UNMANAGED_CODE_TIME; a thread's last sample
# has no end. Thread 101: Work 10-12 and 14-15 ms on CPU, Sleep 12-14; thread 102: Wait.
cn nettrace.tt.byname '[.summary.event, .summary.metric, .summary.unit, ([.rows[] | "\(.name)=\(.exc)/\(.exc_count)/\(.max)"] | map(select(test("=0/") | not)))]' \
	'["thread-time",7,"ms",["UNMANAGED_CODE_TIME=4/4/1","CPU_TIME=3/3/1"]]' byname "$NT/ref.nettrace"
cn nettrace.tt.tree '[.tree.children[0].name, [.tree.children[0].children[] | "\(.name)=\(.inc)"]]' \
	'["Process64 dotnet (4242) Args: /app/bin/app.dll --serve",["Thread (101)=5","Thread (102)=2"]]' calltree "$NT/ref.nettrace"
cn nettrace.tt.frames '[.rows[] | select(.name | test("!")) | "\(.name)=\(.inc)"] | sort' \
	'["System.Private.CoreLib!System.Threading.Thread.Sleep(int32)=2","System.Private.CoreLib!System.Threading.WaitHandle.WaitOne()=2","app!Contoso.Program.Main(class System.String[])=5","app!Contoso.Program.Work(int32,float64)=5","app!Contoso.Server.Handle()=2"]' \
	byname "$NT/ref.nettrace"
cn nettrace.tt.when '[.summary.first, .summary.last]' '[10,15]' byname "$NT/ref.nettrace"
# the same events with plain (uncompressed) event headers
a=$("$SV" calltree "$NT/ref.nettrace" --json 2>/dev/null)
b=$("$SV" calltree "$NT/uncompressed.nettrace" --json 2>/dev/null)
if [ -n "$a" ] && [ "$a" = "$b" ]; then ok; else bad nettrace.uncompressed "the two encodings differ"; fi

# info: every kind as TraceEvent names the runtime's events, thread-time, and the dropped events
cn nettrace.info.events '[.events[] | "\(.name):\(.samples)"]' \
	'["Microsoft-DotNETCore-SampleProfiler/Thread/Sample:9","Microsoft-DotNETCore-EventPipe/ProcessInfo:1","Microsoft-Windows-DotNETRuntime/Method/LoadVerbose:3","Microsoft-Windows-DotNETRuntime/Loader/ModuleLoad:1","Microsoft-Windows-DotNETRuntimeRundown/Method/DCStopVerbose:2","Microsoft-Windows-DotNETRuntimeRundown/Loader/ModuleDCStop:1","Contoso-App/Request/Start:2","Contoso-App/TestEvent3/24:1","Contoso-App/Flush/Stop:1","thread-time:9"]' \
	info "$NT/ref.nettrace"
cn nettrace.info.format '[.format, (.warnings | map(select(test("dropped"))))]' \
	'["nettrace",["2 events were dropped by the runtime (gaps in the sequence numbers)"]]' info "$NT/ref.nettrace"
cn nettrace.info.interval '[.found[] | select(startswith("thread-time:")) | test("every 1 ms")]' '[true]' info "$NT/ref.nettrace"
cn nettrace.info.methods '[.found[] | select(test("^managed code"))]' \
	'["managed code: 5 methods named (method load and rundown events), 2 modules"]' info "$NT/ref.nettrace"

# any event kind: one sample per event with its stack (an address no method covers is ?!?)
cn nettrace.event '[.summary.count, .summary.unit, ([.rows[] | select(.name | test("^(\\?|app)")) | "\(.name)=\(.inc)"] | sort)]' \
	'[2,"events",["?!?=2","app!Contoso.Server.Handle()=2"]]' byname "$NT/ref.nettrace" --event Contoso-App/Request/Start
e nettrace.event.unknown 2 "no event 'nosuch' in the trace; it has: Microsoft-DotNETCore-SampleProfiler/Thread/Sample, .*, thread-time" \
	-- byname "$NT/ref.nettrace" --event nosuch
# without the sample profiler: the kind with the most stacks, said so; thread-time refused
cn nettrace.nosamples '[.summary.event, .summary.count]' '["Contoso-App/Request/Start",2]' byname "$NT/nosamples.nettrace"
e nettrace.nosamples.tt 2 "event 'thread-time' needs the runtime's sample profiler" -- byname "$NT/nosamples.nettrace" --event thread-time
# a trace cut short: what came before the cut, with a warning
cn nettrace.truncated '[.metric, (.warnings | map(select(test("cut short"))) | length)]' '[7,1]' \
	info "$NT/truncated.nettrace"
# detected by content whatever the name
# A trace without rundown: CoreLib's Sleep and WaitOne stay ?!? and info says why and what to do;
# with rundown, the one address no method covers is said as information.
python3 tests/nettrace/gen_nettrace.py "$NT/norundown.nettrace" norundown
cn nettrace.norundown '[.warnings[] | select(test("no rundown")) | test("2 stack addresses stay [?]![?]")]' '[true]' info "$NT/norundown.nettrace"
cn nettrace.rundown.unnamed '[(.warnings | map(select(test("no rundown"))) | length), (.found[] | select(test("in no method")) | test("^1 stack"))]' '[0,true]' info "$NT/ref.nettrace" --event Contoso-App/Request/Start
# tests/data/nettrace/ref.nettrace (the TUI's screen test opens it) is the generator's reference trace
if cmp -s "$NT/ref.nettrace" tests/data/nettrace/ref.nettrace; then ok; else bad nettrace.fixture "tests/data/nettrace/ref.nettrace differs from gen_nettrace.py's output: regenerate it"; fi
cp "$NT/ref.nettrace" "$NT/trace.bin"
cn nettrace.sniff '[.format]' '["nettrace"]' info "$NT/trace.bin"

# bad input: one line naming the file and the byte
e nettrace.bad.v6 1 "v6.nettrace: byte 8: nettrace format version 6.0: only format versions 4 and 5 are read" -- byname "$NT/v6.nettrace"
e nettrace.bad.netperf 1 "netperf.nettrace: byte 0: a NetPerf trace \\(.NET Core 2.x" -- byname "$NT/netperf.nettrace"
e nettrace.bad.stack 1 "badstack.nettrace: byte [0-9]+: an event refers to stack 99, which no stack block defined before it" \
	-- byname "$NT/badstack.nettrace"
printf 'Nettrace\x14\0\0\0!FastSerialization.1\x07' > "$NT/tag.nettrace"
e nettrace.bad.tag 1 "tag.nettrace: byte 32: expected an object \\(tag 5\\) or the end \\(tag 1\\), found byte 0x07" -- byname "$NT/tag.nettrace"

# The runtime's AllocationTick (issue 33): each event weighs the bytes allocated since the
# previous one (AllocationAmount64: past 32 bits too), under Type NAME (and LargeObject for the
# large object heap), as the ETL reader and PerfView's GC Heap Alloc view weigh them. The
# listing decodes the same payloads by the runtime's template: the bytes per type agree.
python3 tests/nettrace/gen_nettrace.py "$NT/alloc.nettrace" alloc
AT=Microsoft-Windows-DotNETRuntime/GC/AllocationTick
want=$("$SV" events "$NT/alloc.nettrace" --event AllocationTick --json 2>/dev/null |
	jq -c '[.events[] | {t: ("Type " + .fields.TypeName), b: (.fields.AllocationAmount64 | tonumber)}] | group_by(.t) | map([.[0].t, (map(.b) | add)])')
cn nettrace.alloc.bytes '[.rows[] | select(.name | startswith("Type ")) | [.name, .exc]] | sort' "$want" byname "$NT/alloc.nettrace" --event "$AT"
cn nettrace.alloc.large '[.tree.children[0].children[] | select(.name == "Thread (102)") | .. | objects | select(.name? == "LargeObject") | [.inc, .children[0].name]]' \
	'[[5000000000,"Type System.Byte[]"]]' calltree "$NT/alloc.nettrace" --event "$AT"
cn nettrace.alloc.unit '[.metric, .samples, ([.found[] | select(test("weighs the bytes allocated since the previous one"))] | length)]' '[5000311400,4,1]' info "$NT/alloc.nettrace" --event "$AT"
