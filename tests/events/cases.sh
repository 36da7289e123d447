# SPDX-License-Identifier: MIT
# stackview events (issue 34): every event of a trace with its payload's fields. Checked
# against TraceEvent's own baselines of two of its test traces (tests/data/etl, MIT): every
# baseline event is listed at its time, process, thread, CPU and payload size, and every
# field both have agrees (tests/tools/events_baseline.py); the kinds named with --require
# have every field TraceEvent shows. .nettrace: metadata-described fields (objects, V2
# arrays) and the runtime's events by its templates; filters, outputs, bad input.
EV=$TMP/events
mkdir -p "$EV"
ED=tests/data/etl
# the CLR's GC events (no metadata in the trace: the runtime's templates)
"$SV" events "$ED/gcevents.etl.zip" --json > "$EV/gc.json" 2> /dev/null
req="Microsoft-Windows-DotNETRuntime/GC/Start Microsoft-Windows-DotNETRuntime/GC/Stop Microsoft-Windows-DotNETRuntime/GC/HeapStats
Microsoft-Windows-DotNETRuntime/GC/AllocationTick Microsoft-Windows-DotNETRuntime/GC/CreateSegment
Microsoft-Windows-DotNETRuntime/GC/SuspendEEStart Microsoft-Windows-DotNETRuntime/GC/Triggered Microsoft-Windows-DotNETRuntime/GC/GlobalHeapHistory
Microsoft-Windows-DotNETRuntime/GC/MarkWithType Microsoft-Windows-DotNETRuntime/GC/PinObjectAtGCTime Microsoft-Windows-DotNETRuntime/Runtime/Start
Microsoft-Windows-DotNETRuntime/GC/PerHeapHistory Microsoft-Windows-DotNETRuntime/GC/FitBucketInfo Microsoft-Windows-DotNETRuntime/GC/LOHCompact"
# shellcheck disable=SC2086 # the kinds are words
if why=$(python3 tests/tools/events_baseline.py "$ED/gcevents.baseline.txt" "$EV/gc.json" --only Microsoft-Windows-DotNETRuntime --require $req 2>&1); then ok; else bad events.etl.gc "$why"; fi
# TraceLogging: the fields from the event's own schema
"$SV" events "$ED/primitive-types.etl.zip" --json > "$EV/pt.json" 2> /dev/null
if why=$(python3 tests/tools/events_baseline.py "$ED/primitive-types.baseline.txt" "$EV/pt.json" --only solar --require solar_system/PrimitiveTypesTest 2>&1); then ok; else bad events.etl.tracelogging "$why"; fi
# the comparison fails when a value differs (it is not vacuous)
jq '.events[2].fields.int32_type = "7"' "$EV/pt.json" > "$EV/pt-bad.json"
if python3 tests/tools/events_baseline.py "$ED/primitive-types.baseline.txt" "$EV/pt-bad.json" --only solar > /dev/null 2>&1; then
	bad events.baseline.self-test "a changed field was not seen"; else ok; fi
# every event, in time order, as many as the kinds count
cn events.count '[.events | length, (map(.ms) | . == sort)]' '[71,true]' events "$ED/gcevents.etl.zip"
n=$("$SV" info "$ED/gcevents.etl.zip" --json 2>/dev/null | jq '[.events[] | select(.name | test("^Windows Kernel/EventTrace$|^Microsoft")) | .samples] | add')
cn events.count-kinds '[.events[] | select(.event | test("^Windows Kernel/EventTrace$|^Microsoft"))] | length' "$n" events "$ED/gcevents.etl.zip"

# ---- .nettrace ----
NT=tests/data/nettrace/ref.nettrace
cn events.nettrace.object '[.events[] | select(.event == "Contoso-App/TestEvent3/24") | .fields]' \
	'[{"Id":"1","Where.X":"2","Where.Y":"3","Text":"x"}]' events "$NT"
cn events.nettrace.runtime '[.events[] | select(.event | endswith("Method/LoadVerbose")) | .fields | [.MethodNamespace, .MethodName, .MethodFlags, .MethodStartAddress]][0]' \
	'["Contoso.Program","Main","Jitted","0x7f0000001000"]' events "$NT"
cn events.nettrace.process '[.events[0] | .process, .pid, .tid, .ms]' '["dotnet",4242,101,0.5]' events "$NT"
python3 tests/nettrace/gen_nettrace.py "$EV/v2.nettrace" v2params
cn events.nettrace.v2 '.events[] | select(.event == "Contoso-App/Batch") | .fields' \
	'{"Items":"[7, -8, 9]","Names":"[a, b]","Points":"[{X=1 Y=2}, {X=3 Y=4}]","Flag":"True","Key":"03020100-0504-0706-0809-0a0b0c0d0e0f","Ratio":"0.25","When":"2024-11-23T08:00:00.0000000Z","Small":"-5","Big":"18446744073709551615"}' \
	events "$EV/v2.nettrace"
python3 tests/nettrace/gen_nettrace.py "$EV/cut.nettrace" truncated
# a trace cut short: the events before the cut, and warnings after them (the cut, the
# sequence numbers' gap the fixture writes)
got=$("$SV" events "$EV/cut.nettrace" 2>&1 >/dev/null)
case "$got" in *"cut.nettrace: warning: the trace is cut short at byte "*"(no end tag): the events before it are listed"*"2 events were dropped by the runtime"*) ok ;;
*) bad events.nettrace.cut "$got" ;; esac

# ---- filters and outputs ----
# (the filters' counts from the unfiltered listing: another path to the same answer)
cn events.filter.event '[.events | length, (map(.event) | unique)]' '[4,["Microsoft-Windows-DotNETRuntime/GC/Start","Microsoft-Windows-DotNETRuntime/GC/Stop"]]' \
	events "$ED/gcevents.etl.zip" --event 'GC/Start|GC/Stop'
n=$(jq '[.events[] | select(.ms >= 11607 and .ms <= 11608)] | length' "$EV/gc.json")
cn events.filter.time '[.events | length, (map(.ms) | min >= 11607 and max <= 11608)]' "[$n,true]" events "$ED/gcevents.etl.zip" --start 11607 --end 11608
n=$(jq '[.events[] | select(.pid == 179596)] | length' "$EV/gc.json")
cn events.filter.process '[.events | length, ([.[] | .pid] | unique)]' "[$n,[179596]]" events "$ED/gcevents.etl.zip" --process 179596
cn events.filter.process-name '[.events | length]' "[$n]" events "$ED/gcevents.etl.zip" --process 'process(1795'
# FinalizersStart and FinalizersStop: 3 each on the finalizer thread (the baseline's COUNT lines)
cn events.filter.thread '[.events | length, ([.[] | .tid] | unique)]' '[6,[177072]]' events "$ED/gcevents.etl.zip" --thread 177072 --event Finalizers
cn events.filter.grep '[.events[] | .fields.TypeName]' '["System.Text.StringBuilder"]' events "$ED/gcevents.etl.zip" --grep stringbuilder
cn events.filter.fields '[.events[0].fields]' '[{"TypeName":"System.String","AllocationKind":"Small"}]' events "$ED/gcevents.etl.zip" --event AllocationTick --fields TypeName,AllocationKind
cn events.limit '[.shown, .limited]' '[2,true]' events "$ED/gcevents.etl.zip" --limit 2
got=$("$SV" events "$ED/gcevents.etl.zip" --event AllocationTick --fields TypeName,ObjectSize --csv 2>/dev/null | head -n 2)
want='ms,event,process,pid,tid,cpu,has_stack,data_len,TypeName,ObjectSize
8215.606,Microsoft-Windows-DotNETRuntime/GC/AllocationTick,Process(179596),179596,168672,6,0,74,System.String,32'
if [ "$got" = "$want" ]; then ok; else bad events.csv "$got"; fi
got=$("$SV" events "$ED/gcevents.etl.zip" --event 'GC/Triggered' 2>/dev/null | head -n 1)
want='   11607.371  Microsoft-Windows-DotNETRuntime/GC/Triggered  Process(179596)  tid=168672  cpu=4  Reason="Induced" ClrInstanceID="8"'
if [ "$got" = "$want" ]; then ok; else bad events.text "$got"; fi
e events.none 0 "none of its 71 events matches" -- events "$ED/gcevents.etl.zip" --event nothing-like-this

# ---- bad input ----
e events.not-a-trace 2 "s-basic.perfView.xml: a perfview-xml file holds no event list" -- events "$IN/s-basic.perfView.xml"
e events.bad-thread 2 "^stackview: --thread needs a thread id, not 'x'" -- events "$ED/gcevents.etl.zip" --thread x
e events.bad-pattern 2 "^stackview: --event: " -- events "$ED/gcevents.etl.zip" --event 'a{'
e events.bad-start 2 "^stackview: --start needs a time in ms" -- events "$ED/gcevents.etl.zip" --start soon
head -c 300 "$NT" > "$EV/short.nettrace"
e events.short 0 "short.nettrace: warning: the trace is cut short" -- events "$EV/short.nettrace"
printf 'Nettrace' > "$EV/magic.nettrace"
e events.magic-only 1 "magic.nettrace: byte 0: not a .nettrace file" -- events "$EV/magic.nettrace"

# ---- reports (issue 34): GCStats and JITStats from the events themselves ----
"$SV" report gcstats "$ED/gcevents.etl.zip" --json > "$EV/gcs.json" 2> /dev/null
if why=$(python3 tests/tools/reports_oracle.py gcstats "$EV/gc.json" "$EV/gcs.json" 2>&1); then ok; else bad report.gcstats.oracle "$why"; fi
# the two induced GCs of TraceEvent's GC test (its baseline: GC/Start Count 1 Depth 1, Count 2 Depth 2, Reason Induced)
cn report.gcstats.gcs '[.processes[0].gcs[] | [.number, .gen, .reason, .induced, (.pause_ms > .duration_ms), (.after_mb > 0)]]' \
	'[[1,1,"Induced",true,true,true],[2,2,"Induced",true,true,true]]' report gcstats "$ED/gcevents.etl.zip"
# the oracle sees a wrong number (it is not vacuous)
jq '.processes[0].gcs[0].pause_ms += 1' "$EV/gcs.json" > "$EV/gcs-bad.json"
if python3 tests/tools/reports_oracle.py gcstats "$EV/gc.json" "$EV/gcs-bad.json" > /dev/null 2>&1; then
	bad report.oracle.self-test "a changed pause was not seen"; else ok; fi
got=$("$SV" report gcstats "$ED/gcevents.etl.zip" 2>&1 | head -n 1)
want='Process(179596): 2 GCs, 2 induced; paused 1.329 ms, 0.04 % of its 3,423.154 ms in the trace; 1.383 MB allocated by 12 AllocationTick events'
if [ "$got" = "$want" ]; then ok; else bad report.gcstats.text "$got"; fi
cn report.traceinfo '[.events, .kinds, ([.providers[] | [.name, .events]])]' '[71,22,[["Windows Kernel",2],["Microsoft-Windows-DotNETRuntime",69]]]' \
	report traceinfo "$ED/gcevents.etl.zip"
e report.jitstats.none 0 "no methods jitted in the trace" -- report jitstats "$ED/gcevents.etl.zip"
e report.bad-kind 2 "^stackview: report 'gc': the reports are gcstats, jitstats and traceinfo" -- report gc "$ED/gcevents.etl.zip"
e report.not-a-trace 2 "a perfview-xml file holds no event list" -- report gcstats "$IN/s-basic.perfView.xml"
# traceinfo: the session from the trace's header (TraceEvent's baseline of it: SessionName=PerfViewSession,
# NumberOfProcessors=8, PointerSize=8, EventsLost=0)
cn report.traceinfo.session '[.session.SessionName, .session.NumberOfProcessors, .session.PointerSize, .session.EventsLost]' \
	'["PerfViewSession","8","8","0"]' report traceinfo "$ED/gcevents.etl.zip"

# ---- perf script text: every sample line, tracepoints with their name=value fields ----
TT=tests/data/threadtime/tt.perf.txt.gz
for ev in sched:sched_switch sched:sched_wakeup cpu-clock; do
	want=$(gzip -dc "$TT" | grep -c " $ev:")
	cn "events.perf.count.$ev" "[.events[] | select(.event == \"$ev\")] | length" "$want" events "$TT"
done
# perf script's default layout right-aligns the comm: header lines that start with spaces
want=$(grep -c ' cpu-clock:' tests/data/perf-text/oneline.txt)
cn events.perf.padded-comm '[.shown, .events[0].process]' "[$want, \"sh\"]" events tests/data/perf-text/oneline.txt
# the first switch's fields, as the line prints them (prev_comm=... ==> next_comm=...)
line=$(gzip -dc "$TT" | grep -m1 " sched:sched_switch:")
want=$(printf '%s' "$line" | sed 's/.*sched_switch: *//; s/==> //' | tr ' ' '\n' | grep = | jq -Rn '[inputs | capture("(?<k>[^=]+)=(?<v>.*)") | {(.k): .v}] | add' | jq -c .)
cn events.perf.fields '.events[0].fields' "$want" events "$TT" --event 'sched_switch'
cn events.perf.ids '[.events[0] | .process, .pid, .tid, .cpu, .has_stack]' '["perf",13247,13247,0,true]' events "$TT" --event 'sched_switch'

# ---- perf.data: every sample, tracepoints' fields as perf script prints them ----
# The recordings' own perf script text (perf 6.1) is the oracle: event by event the same time,
# comm, pid, tid, CPU, stack and tracepoint fields (libtraceevent renders the print fmt, as perf).
for t in tt tt-idle tt-prog; do
	gzip -dc "tests/data/threadtime/$t.perf.data.gz" > "$EV/$t.data"
	"$SV" events "$EV/$t.data" --json > "$EV/$t.data.json" 2> /dev/null
	"$SV" events "tests/data/threadtime/$t.perf.txt.gz" --json > "$EV/$t.txt.json" 2> /dev/null
	if why=$(python3 tests/tools/events_same.py "$EV/$t.data.json" "$EV/$t.txt.json" --fields-of-tracepoints 2>&1); then ok; else
		bad "events.perf-data.$t" "$why"; fi
done
# the comparison sees a changed field (it is not vacuous)
jq '.events[3].fields.prev_state = "R"' "$EV/tt.data.json" > "$EV/tt-bad.json"
if python3 tests/tools/events_same.py "$EV/tt-bad.json" "$EV/tt.txt.json" --fields-of-tracepoints > /dev/null 2>&1; then
	bad events.perf-data.self-test "a changed field was not seen"; else ok; fi
# as many of each event as perf recorded; a clock sample's period and address
cn events.perf-data.counts '[.events | group_by(.event)[] | [.[0].event, length]]' \
	"$("$SV" info "$EV/tt.data" --json 2>/dev/null | jq -c '[.events[] | select(.name | test("^(thread-time|off-cpu|ready-time)") | not) | [.name, .samples]] | sort')" \
	events "$EV/tt.data"
cn events.perf-data.clock '[.events[] | select(.event == "cpu-clock")][0] | [.process, .tid, .fields.period, (.fields.ip | test("^0x[0-9a-f]+$"))]' \
	'["perf-exec",13248,"250000",true]' events "$EV/tt.data"
# a thread the kernel reports as tid -1 (an exiting one) is named as perf names it
cn events.perf-data.exiting '[.events[] | select(.tid == null)][0] | [.process, .pid]' '[":-1",13248]' events "$EV/tt.data"
# damaged tracing data: the events are still listed, without fields, and a warning says why
python3 - "$EV/tt.data" "$EV/tt-cut.data" "$EV/tt-off.data" <<'PY'
import sys
d = bytearray(open(sys.argv[1], 'rb').read())
at = d.find(b'\x17\x08Dtracing')
cut = bytearray(d)
i = cut.find(b'header_page\0', at) + 12
cut[i:i + 8] = (1 << 40).to_bytes(8, 'little')  # header_page's size runs past the end
open(sys.argv[2], 'wb').write(cut)
off = bytearray(d)
i = off.find(b'field:char prev_comm[16];\toffset:8;\tsize:16;', at)
assert i > 0
off[i + 41:i + 43] = b'96'  # prev_comm runs past the end of every switch's raw data
open(sys.argv[3], 'wb').write(off)
PY
e events.perf-data.cut-tracing 0 "tt-cut.data: warning: the tracing data is cut short at its byte [0-9]+: 1268 tracepoint samples listed without fields" -- events "$EV/tt-cut.data"
cn events.perf-data.cut-tracing.listed '[.shown, ([.events[] | select(.event | startswith("sched:")) | .fields | length] | add)]' '[5065,0]' \
	events "$EV/tt-cut.data"
e events.perf-data.raw-short 0 "tt-off.data: warning: [0-9]+ tracepoint samples listed without fields \\(no format for their id, or raw data shorter" \
	-- events "$EV/tt-off.data"
cn events.perf-data.raw-short.others '[.events[] | select(.event == "sched:sched_wakeup")][0].fields.comm' '"migration/0"' events "$EV/tt-off.data"
# a format libtraceevent must not see (its print fmt closes a parenthesis it never opened): its events
# listed without fields, the others with theirs
python3 - "$EV/tt.data" "$EV/tt-paren.data" <<'PY'
import sys
d = bytearray(open(sys.argv[1], 'rb').read())
i = d.find(b'REC->prev_prio, (REC->prev_state')
assert i > 0
d[i + 16] = ord(" ")
open(sys.argv[2], 'wb').write(d)
PY
e events.perf-data.bad-format 0 "tt-paren.data: warning: 1 of its 3 tracepoint formats could not be read: 841 tracepoint samples listed without fields" \
	-- events "$EV/tt-paren.data"
cn events.perf-data.bad-format.others '[.events[] | select(.event == "sched:sched_wakeup")][0].fields.comm' '"migration/0"' events "$EV/tt-paren.data"
# a perf.data cut short: what it holds is listed, the tracepoints without fields (their
# formats were at the end), each loss said; a damaged record: an error, and --json's
# document still whole with what was listed and the error
head -c 40000 "$EV/tt.data" > "$EV/tt-short.data"
err=$("$SV" events "$EV/tt-short.data" --event 'sched_switch' 2>&1 > /dev/null; echo "exit $?")
case $err in *"tracepoint samples listed without fields (the file holds no tracing data)"*"file ends after"*"exit 0") ok ;;
*) bad events.perf-data.short "$err" ;; esac
python3 - "$EV/tt.data" "$EV/tt-bad.data" <<'PY'
import struct, sys
d = bytearray(open(sys.argv[1], 'rb').read())
off = struct.unpack_from('<Q', d, 40)[0]
struct.pack_into('<H', d, off + 6, 0)  # the first record's size
open(sys.argv[2], 'wb').write(d)
PY
got=$("$SV" events "$EV/tt-bad.data" --json 2>/dev/null | jq -c '[.shown, (.error | test("size 0"))]')
st=$("$SV" events "$EV/tt-bad.data" --json > /dev/null 2>&1; echo $?)
if [ "$got" = "[0,true]" ] && [ "$st" = 1 ]; then ok; else bad events.perf-data.bad-record "exit $st, $got"; fi
