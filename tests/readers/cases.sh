# SPDX-License-Identifier: MIT
# Small text readers: WindowsPerf's sampling listing and --json (tests/data/wperf: 3.x output from its
# documentation, and files in the layouts wperf prints and its JSON schema describes) and DTrace ustack()
# aggregations. ByName equals the listed counts; events; bad input.
RD=$PWD/tests/data
RT=$TMP/readers
mkdir -p "$RT"

# ---- WindowsPerf ----
for f in sample.txt sample.json; do
	c "wperf.$f.ld_spec" '[.rows[] | select(.name != "ROOT") | [.name, .exc, .exc_count]]' \
		'[["app.exe!parse_line",300,300],["app.exe!std::vector<int>::push_back",100,100],["VCRUNTIME140.dll!memcpy",50,50],["ntdll.dll!HeapAlloc",30,30],["unknown",20,20]]' \
		byname "$RD/wperf/$f"
	c "wperf.$f.event" '[.summary.event, (.rows[] | select(.name == "app.exe!compare_keys") | .exc)]' '["br_mis_pred",30]' byname "$RD/wperf/$f" --event br_mis_pred
	c "wperf.$f.info" '[.format, [.events[] | .name]]' '["wperf",["ld_spec","br_mis_pred"]]' info "$RD/wperf/$f"
	e "wperf.$f.unknown-event" 2 "no samples of event 'x'; the file has: ld_spec, br_mis_pred" -- byname "$RD/wperf/$f" --event x
done
out=$("$SV" info "$RD/wperf/sample.json")
if grep -q 'every 100000 events' <<<"$out" && grep -q 'all 500 samples of ld_spec are listed' <<<"$out" &&
	grep -q 'wperf generated 600 samples of all events (2 dropped)' <<<"$out"; then ok; else bad wperf.notes "$out"; fi
# wperf 3.x's table (no '%' on the rows, a "top N in total" line after them), from WindowsPerf's
# own documentation: the total line is no function, and the rows are all there.
c wperf.table '[.summary.metric, [.rows[] | select(.name != "ROOT") | [.name, .exc]]]' \
	'[171,[["WindowsPerfSample.exe!simd_hot",130],["SampleHybridDLL.dll!__CheckForDebuggerJustMyCode",24],["SampleHybridDLL.dll!std::swap<unsigned __int64,0>",10],["SampleHybridDLL.dll!fibonacci_next",6],["WindowsPerfSample.exe!main",1]]]' \
	byname "$RD/wperf/record-table.txt"
# SPE with --disassemble: a counting table before, annotate and disassembly tables between the
# section header and the hot-function table; none of their numbers is a row.
c wperf.spe '[.summary.event, .summary.metric, [.rows[] | select(.name != "ROOT") | [.name, .exc]]]' \
	'["LOAD_STORE_ATOMIC-LOAD-GP/retired+level1-data-cache-access+tlb_access",4,[["python312_d.dll!x_mul",3],["python312_d.dll!v_isub",1]]]' \
	byname "$RD/wperf/spe-disassemble.txt"
# -v's hot PCs before the table, and the total line before the rows when the listing is cut at
# --sample-display-row (wperf prints it when the limit is reached): 900 of 1000 listed.
c wperf.cut '[.summary.metric, [.rows[] | select(.name != "ROOT") | .exc]]' '[900,[750,100,50]]' byname "$RD/wperf/cut-verbose.txt"
out=$("$SV" info "$RD/wperf/cut-verbose.txt")
if grep -q '900 of the 1000 samples of ld_spec are listed' <<<"$out"; then ok; else bad wperf.cut.note "$out"; fi
sed 's/171  top 5/170  top 5/' "$RD/wperf/record-table.txt" > "$RT/mismatch.txt"
out=$("$SV" info "$RT/mismatch.txt" 2>&1)
if grep -q 'the rows of dp_spec add up to 171 samples, its "in total" line says 170' <<<"$out"; then ok; else bad wperf.mismatch "$out"; fi
sed 's/     24  __Check/     2x  __Check/' "$RD/wperf/record-table.txt" > "$RT/badrow.txt"
e wperf.bad.table-row 1 "badrow.txt:7: expected 'PERCENT% COUNT FUNCTION:MODULE'" -- byname "$RT/badrow.txt"
printf '=== sample source: ld_spec, top 50 hot functions ===\n 60.00%%  x  f:app.exe\n' > "$RT/bad.txt"
e wperf.bad.count 1 "bad.txt:2: expected 'PERCENT% COUNT FUNCTION:MODULE'" -- byname "$RT/bad.txt"
printf '{"sampling": {"samples_generated": 1, "events": [{"type": "x", "samples": [{"count": "many", "symbol": "f"}]}]}}' > "$RT/bad.json"
e wperf.bad.json 1 'bad.json: sampling.events\[0\].samples\[0\] has no "count"' -- byname "$RT/bad.json"

# ---- DTrace ----
c dtrace.byname '[.rows[] | select(.name != "ROOT") | [.name, .exc, .inc]] | sort' \
	'[["0xfeedbeef",5,5],["Xorg!Dispatch",0,55],["Xorg!WaitForSomething",0,12],["Xorg!_start",0,55],["Xorg!fbBlt",0,38],["Xorg!main",0,55],["libc.so.1!__pollsys",12,12],["libc.so.1!memcpy",38,38],["libc.so.1!poll",0,12]]' \
	byname "$RD/dtrace/ustack.dtrace"
c dtrace.root '[.tree.children[].name]' '["Xorg!_start"]' calltree "$RD/dtrace/ustack.dtrace"
c dtrace.keys '[.tree.children[] | [.name, .inc, .children[0].name]]' '[["Xorg",20,"Xorg!main"],["bash",3,"bash!main"]]' calltree "$RD/dtrace/execname.dtrace"
c dtrace.format '.format' '"dtrace"' info "$RD/dtrace/ustack.dtrace"
head -n 9 "$RD/dtrace/ustack.dtrace" > "$RT/cut.dtrace"
printf '              libc.so.1`memcpy+0x58\n              Xorg`fbBlt+0x1e0\n' >> "$RT/cut.dtrace"
# the record that never ended started at line 5
e dtrace.bad.cut 1 'cut.dtrace:5: a stack without the count that ends it' -- byname "$RT/cut.dtrace" --format dtrace
printf 'CPU     ID                    FUNCTION:NAME\n  1  75402                        :tick-30s\n' > "$RT/empty.dtrace"
e dtrace.bad.empty 1 'empty.dtrace: no stacks' -- byname "$RT/empty.dtrace" --format dtrace

# ---- macOS sample ----
# sample's own "Sort by top of stack" section is the oracle for Exc (it lists those >= 5).
MS=$RD/mac/app.sample.txt
# A function sample could not name keeps its address there, as "MODULE!0xADDR" here.
want=$(sed -n '/^Sort by top of stack/,/^$/p' "$MS" | sed -n -e 's/^ *???  (in \(.*\)) .*\[0x\([0-9a-f]*\)\] *\([0-9][0-9]*\)$/\1!0x\2\t\3/p' \
	-e 's/^ *\([^?].*[^ ]\)  (in \(.*\)) *\([0-9][0-9]*\)$/\2!\1\t\3/p' | LC_ALL=C sort)
got=$("$SV" byname "$MS" --json | jq -r '.rows[] | select(.exc >= 5) | [.name, .exc] | @tsv' | LC_ALL=C sort)
if [ -n "$want" ] && [ "$got" = "$want" ]; then ok; else bad macsample.top "$(diff <(printf '%s\n' "$want") <(printf '%s\n' "$got"))"; fi
c macsample.tree '[.tree.children[0].name, ([.tree.children[0].children[] | [.name, .inc]])]' \
	'["Process demo (4242)",[["Thread_81234 DispatchQueue_1: com.apple.main-thread (serial)",2500],["Thread_81240",700]]]' calltree "$MS"
c macsample.format '[.format, .metric]' '["mac-sample",3200]' info "$MS"
# frames sample could not name stay apart by address, as sample keeps them
printf 'Analysis of sampling demo (pid 1) every 1 millisecond\nProcess: demo [1]\n\nCall graph:\n    10 Thread_1   DispatchQueue_1: com.apple.main-thread  (serial)\n    + 10 start  (in libdyld.dylib) + 1  [0x7fff6a8a3cc9]\n    +   6 ???  (in <unknown binary>)  [0x344e22482694]\n    +   4 ???  (in <unknown binary>)  [0x344e22482700]\n' > "$RT/unknown.sample.txt"
c macsample.unnamed '[.rows[] | select(.exc > 0) | [.name, .exc]]' '[["<unknown binary>!0x344e22482694",6],["<unknown binary>!0x344e22482700",4]]' byname "$RT/unknown.sample.txt"
printf 'Analysis of sampling demo (pid 1) every 1 millisecond\nProcess: demo [1]\n\nCall graph:\n\nTotal number in stack\n' > "$RT/empty.sample.txt"
e macsample.bad.empty 1 'empty.sample.txt: the call graph has no samples' -- byname "$RT/empty.sample.txt"
printf 'Analysis of sampling demo (pid 1) every 1 millisecond\nProcess: demo [1]\n' > "$RT/nograph.sample.txt"
e macsample.bad.nograph 1 'nograph.sample.txt: no "Call graph:" section' -- byname "$RT/nograph.sample.txt" --format mac-sample

# ---- Firefox profiler: processed (samply) and raw Gecko (hand-written in the documented shapes) ----
FX=$RD/firefox
c firefox.processed '[.rows[] | [.name, .exc, .inc]] | sort' \
	'[["Process app (100)",0,9],["ROOT",0,9],["Thread (100) app",1,5],["Thread (101) worker",0,4],["app!compute",3,3],["app!helper",2,2],["app!main",1,8],["app!work",1,4],["libc.so.6!memcpy",1,1]]' \
	byname "$FX/processed.json"
c firefox.gecko '[.rows[] | [.name, .exc, .inc]] | sort' \
	'[["(root)",0.5,2],["0x7f00deadbeef",1,1],["Process Web Content (300)",0,0.5],["Process default (200)",0,2],["ROOT",0,2.5],["Thread (200) GeckoMain",0,2],["Thread (300) GeckoMain",0,0.5],["content::Run",0.5,0.5],["js::RunScript (script.js:12)",0.5,1.5]]' \
	byname "$FX/gecko.json"
c firefox.info '[.format, .scaling, .samples]' '["firefox","time",8]' info "$FX/processed.json"
gzip -c "$FX/processed.json" > "$RT/p.json.gz"
c firefox.gzip '.format' '"firefox"' info "$RT/p.json.gz"
# bytes weights make a scale-to-data profile in bytes
sed 's/"weight":\[2,1,1\],"weightType":"samples"/"weight":[200,100,100],"weightType":"bytes"/; s/"weight":null,"weightType":"samples"/"weight":[1,1,1,1,1],"weightType":"bytes"/' "$FX/processed.json" > "$RT/bytes.json"
c firefox.bytes '[.summary.unit, .summary.scaling, .summary.metric]' '["bytes","data",405]' byname "$RT/bytes.json"
sed 's/"prefix":\[null,0,1,1\]/"prefix":[null,2,1,1]/' "$FX/processed.json" > "$RT/prefix.json"
e firefox.bad.prefix 1 'prefix.json: thread 0: stack 1 has a frame or prefix out of range' -- byname "$RT/prefix.json"
sed 's/"frame":\[0,1,2,3\],//' "$FX/processed.json" > "$RT/nocol.json"
e firefox.bad.column 1 'nocol.json: thread 0: tables without their columns' -- byname "$RT/nocol.json" --format firefox

# Firefox DevTools performance-panel export (Firefox 59-79: the raw Gecko profile under "profile"),
# a real one (speedscope's sample, libraries cut to two); tests/tools/gecko_counts.py walks the
# tables itself and counts as the Firefox Profiler's call tree does.
DT=$FX/devtools-59.json.gz
want=$(python3 tests/tools/gecko_counts.py "$DT" | jq -c .)
c firefox.devtools '[.rows[] | select(.name != "ROOT" and (.name | test("^(Process|Thread) ") | not)) | [.name, .exc, .inc]] | sort' "$want" byname "$DT"
c firefox.devtools.thread '[.rows[] | select(.name | test("^(Process|Thread) ")) | .name] | sort' '["Process tab (60640)","Thread (9101203) GeckoMain"]' byname "$DT"
# Firefox lists every library it loaded before "meta" and "threads": 400 of them (160 KB) still
# sniff as a Firefox profile, wrapped or not.
python3 - "$DT" "$RT" <<'PY'
import gzip, json, sys
d = json.load(gzip.open(sys.argv[1], "rt"))
libs = d["profile"]["libs"]
d["profile"]["libs"] = [dict(libs[i % 2], start=libs[i % 2]["start"] + i * 8192) for i in range(400)]
json.dump(d, open(sys.argv[2] + "/devtools-libs.json", "w"), separators=(",", ":"))
json.dump(d["profile"], open(sys.argv[2] + "/gecko-libs.json", "w"), separators=(",", ":"))
PY
for f in devtools-libs gecko-libs; do
	c "firefox.$f" '[.format, .samples]' '["firefox",38]' info "$RT/$f.json"
done
printf '{"label":"x","duration":1,"profile":{"libs":[],"meta":{"interval":1},"threads":[]}}' > "$RT/devtools-empty.json"
e firefox.devtools.empty 1 'devtools-empty.json: no thread with samples' -- byname "$RT/devtools-empty.json" --format firefox

# ---- --event names nothing: exit 2 on every format (issue 20) ----
"$SV" convert examples/tutorial.perfView.xml "$RT/t.folded"
"$SV" convert examples/tutorial.perfView.xml "$RT/t.speedscope.json"
"$SV" convert examples/tutorial.perfView.xml "$RT/t.perfView.json"
for f in examples/tutorial.perfView.xml "$RT/t.folded" "$RT/t.speedscope.json" "$RT/t.perfView.json" "$MT" tests/data/mt.fp.data.gz \
	"$RD/pprof/cpu.pb.gz" "$RD/chrome/prog.cpuprofile.gz" "$RD/wperf/sample.txt" "$RD/dtrace/ustack.dtrace" "$MS" \
	"$RD/firefox/processed.json"; do
	out=$("$SV" byname "$f" --event zzNoSuchEvent --debug-dir tests/data/debug 2>&1 >/dev/null)
	st=$?
	if [ $st = 2 ] && grep -q "zzNoSuchEvent" <<<"$out" && [ "$(printf '%s\n' "$out" | wc -l)" = 1 ]; then ok; else bad "event.unknown.$(basename "$f")" "exit $st: $out"; fi
done

# The terminal UI's event picker (v) switches a pprof profile's sample type.
printf 'v <Up> <Up> <Enter> :dump' > "$RT/ev.keys"
got=$("$SV" view "$RD/pprof/heap.pb.gz" --script "$RT/ev.keys" --size 110x14 2>&1 | head -1)
if grep -q '^event alloc_space \[2\] \[alloc_space, bytes\]' <<<"$got"; then ok; else bad tui.pprof.event "$got"; fi

# ---- net and peak of a range (PerfView's memory views; issue 20 point 3) ----
# allocations +100 @1, +50 @2, -120 @3 (a free), +30 @4: net 60, peak 150 at 2; from 2.5 on:
# net -90, peak 0 at the range's start
printf '<StackSource><Samples><Sample Time="1" Metric="100">alloc\nmain</Sample><Sample Time="2" Metric="50">alloc\nmain</Sample><Sample Time="3" Metric="-120">free\nmain</Sample><Sample Time="4" Metric="30">alloc\nmain</Sample></Samples></StackSource>' > "$RT/mem.perfView.xml"
c netpeak.all '[.summary.net, .summary.peak, .summary.peak_time]' '[60,150,2]' byname "$RT/mem.perfView.xml"
c netpeak.range '[.summary.net, .summary.peak, .summary.peak_time]' '[-90,0,2.5]' byname "$RT/mem.perfView.xml" --start 2.5
c netpeak.unsigned '[.summary.net == .summary.metric, .summary.peak == .summary.metric]' '[true,true]' byname "$RD/pprof/heap.pb.gz"
printf ':dump' > "$RT/np.keys"
got=$("$SV" view "$RT/mem.perfView.xml" --script "$RT/np.keys" --size 200x12 2>&1 | head -1)
if grep -q 'Net: 60.0  Peak: 150.0 at 2.000' <<<"$got"; then ok; else bad tui.netpeak "$got"; fi

# ---- ETL event kinds named by what the trace carries (tests/threadtime/gen_etl.py names) ----
python3 tests/threadtime/gen_etl.py "$RT/names.etl" names
cn etl.names.kinds '[.events[] | select(.name | test("^(Contoso|tl_provider|c0c0c00)")) | "\(.name):\(.samples)"]' \
	'["Contoso-Disk/Flush/Start:2","Contoso.Work/ManifestData:1","Contoso.Work/Work/Stop:3","Contoso.Big/ManifestData:2","Contoso.Big/Big11:1","tl_provider/Hello:1","tl_provider/World:2","c0c0c005-1234-5678-9abc-def000000005/Event(65534):1","c0c0c005-1234-5678-9abc-def000000005/Event(5):1","Contoso-Net/Connect:1"]' \
	info "$RT/names.etl"
cn etl.names.warning '[.warnings[] | select(test("manifest"))]' '["an EventSource manifest (ManifestData event) is not well-formed XML"]' info "$RT/names.etl"
cn etl.names.event '[.summary.count, .summary.event]' '[3,"Contoso.Work/Work/Stop"]' byname "$RT/names.etl" --event Contoso.Work/Work/Stop
cn etl.names.tl-event '[.summary.count]' '[2]' byname "$RT/names.etl" --event tl_provider/World
e etl.names.late 2 "event 'Contoso.Big/ManifestData' is named by metadata logged after its first events; open it as 'c0c0c003-1234-5678-9abc-def000000003/Event.65534.'" -- byname "$RT/names.etl" --event Contoso.Big/ManifestData
cn etl.names.late-by-id '[.summary.count]' '[2]' byname "$RT/names.etl" --event 'c0c0c003-1234-5678-9abc-def000000003/Event(65534)'
# an EventSource's fields from its manifest's template: maps by name (a bit map's lowest bits
# first, a name for several bits only when none was named), hex out-type, a binary sized by a
# field before it; decoding stops at an array counted by another field; a payload cut short
# keeps what it has
cn etl.manifest.fields '[.events[] | select(.event == "Fabrikam.Fields/Report") | .fields]' \
	'[{"who":"alice","count":"-7","level":"Verbose","flags":"A|B|C","mask":"0xbeef","id":"03020100-0504-0706-0809-0a0b0c0d0e0f","ok":"True","blob_Length":"2","blob":"0xAABB","after":"9"},{"who":"bob","count":"3"}]' \
	events "$RT/names.etl"
# a manifest provider that logs no manifest: its fields from the merge's TRACE_EVENT_INFO
# (EventInfo) and its status map from EventMapInfo (TDH's trailing space dropped); a socket
# address sized by the field before it; decoding stops at an array
cn etl.tdh.fields '[.events[] | select(.event == "Contoso-Net/Connect") | .fields]' \
	'[{"Irp":"0xffff800012345678","Status":"Denied","Path":"\\Device\\Net\\x","AddressLength":"16","Address":"10.1.2.3:8080"}]' \
	events "$RT/names.etl"
cn etl.manifest.envelope '[.events[] | select(.event == "Fabrikam.Fields/ManifestData") | .fields | [.Format, .Magic, .TotalChunks, .ChunkNumber]]' \
	'[["1","91","1","0"]]' events "$RT/names.etl"

# ---- ETL file and memory events (gen_etl.py io): FileIO Write/Read in bytes under the file the
# FileKey names, VirtualAlloc commits up, VirtualFree decommits down, a reserve counted 0 ----
python3 tests/threadtime/gen_etl.py "$RT/io.etl" io
cn etl.io.write '[.summary.count, .summary.metric, .summary.unit, .rows[0].name, .rows[0].exc]' \
	'[2,4196,"bytes","File \\Device\\HarddiskVolume9\\data\\log.txt",4196]' byname "$RT/io.etl" --event 'Windows Kernel/FileIO/Write'
cn etl.io.read '[.summary.count, .summary.metric]' '[1,512]' byname "$RT/io.etl" --event 'Windows Kernel/FileIO/Read'
cn etl.io.valloc '[.summary.count, .summary.metric, .summary.unit, (.rows[] | select(.name == "Thread (101)") | .inc)]' \
	'[2,65536,"bytes",65536]' byname "$RT/io.etl" --event 'Windows Kernel/Memory/VirtualAlloc'
cn etl.io.vfree '[.summary.count, .summary.metric, .summary.net]' '[1,-16384,-16384]' byname "$RT/io.etl" --event 'Windows Kernel/Memory/VirtualFree'
# PerfView's Net VirtualAlloc: commits and decommits in one source; its net and peak
cn etl.io.net-valloc '[.summary.count, .summary.metric, .summary.net, .summary.peak, .summary.peak_time, .summary.unit]' \
	'[3,49152,49152,65536,4.1,"bytes"]' byname "$RT/io.etl" --event net-virtualalloc
cn etl.io.net-valloc-listed '[.events[] | select(.name == "net-virtualalloc") | .samples]' '[3]' info "$RT/io.etl"
python3 tests/threadtime/gen_etl.py "$RT/plain.etl"
# the Events listing's stack flag: the events a StackWalk names by time and thread (or, for a
# compact header's, by time): the four CPU samples, the switches and readyings the schedule
# gives stacks; not the StackWalk events themselves, nor the rest
cn etl.events.stacks '[([.events[] | select(.has_stack) | .event] | unique), ([.events[] | select(.has_stack and .event == "Windows Kernel/PerfInfo/Sample") | .ms]),
	([.events[] | select(.event | startswith("Windows Kernel/Process")) | .has_stack] | unique)]' \
	'[["Windows Kernel/PerfInfo/Sample","Windows Kernel/Thread/CSwitch","Windows Kernel/Thread/ReadyThread"],[2,2.5,3,8],[false]]' events "$RT/plain.etl"
e etl.io.net-valloc-none 2 "event 'net-virtualalloc' needs VirtualAlloc or VirtualFree events" -- byname "$RT/plain.etl" --event net-virtualalloc
# Disk I/O: the Read completed on another thread takes its ReadInit's stack (by Irp), under the
# issuing thread, the file as the leaf
cn etl.io.disk-init '[.summary.count, .summary.metric, ([.rows[] | select(.name == "queue!?" or .name == "Thread (101)") | .inc] | length), .rows[0].name]' \
	'[1,8192,2,"File \\Device\\HarddiskVolume9\\data\\log.txt"]' byname "$RT/io.etl" --event 'Windows Kernel/DiskIO/Read'
cn etl.io.disk-time '[.summary.count, .summary.metric, .summary.unit, .rows[0].name]' \
	'[1,2,"ms","File \\Device\\HarddiskVolume9\\data\\log.txt"]' byname "$RT/io.etl" --event disk-io-time
e etl.io.disk-time-none 2 "event 'disk-io-time' needs DiskIO Read or Write events" -- byname "$RT/plain.etl" --event disk-io-time

# ---- the OS heap (gen_etl.py heap): Alloc +Size, ReAlloc the change, Free -the block's size;
# net-os-heap puts a free (and a realloc's old block) under its allocation's thread and stack,
# so what was freed nets to 0 there; a free of a block from before the trace is left out ----
python3 tests/threadtime/gen_etl.py "$RT/heap.etl" heap
cn etl.heap.alloc '[.summary.count, .summary.metric, .summary.unit]' '[2,1300,"bytes"]' byname "$RT/heap.etl" --event 'Windows Kernel/Heap/Alloc'
cn etl.heap.realloc '[.summary.count, .summary.metric]' '[1,3000]' byname "$RT/heap.etl" --event 'Windows Kernel/Heap/ReAlloc'
cn etl.heap.free '[.summary.count, .summary.metric, (.rows[] | select(.name == "unlock!?") | .inc)]' '[1,-300,-300]' \
	byname "$RT/heap.etl" --event 'Windows Kernel/Heap/Free'
cn etl.heap.net '[.summary.count, .summary.metric, .summary.net, .summary.peak, .summary.peak_time, ([.rows[] | select(.name | test("^(work|lock|queue|unlock)!")) | "\(.name)=\(.inc)/\(.inc_count)"] | sort)]' \
	'[5,4000,4000,5300,3.1,["lock!?=0/2","queue!?=4000/1","work!?=0/2"]]' byname "$RT/heap.etl" --event net-os-heap
cn etl.heap.net-threads '[.rows[] | select(.name | test("^Thread")) | "\(.name)=\(.inc)"] | sort' '["Thread (101)=0","Thread (102)=4000"]' \
	byname "$RT/heap.etl" --event net-os-heap
cn etl.heap.left-out '[.found[] | select(test("left out"))]' \
	'["net-os-heap: 1 frees or reallocations of blocks allocated before the trace began left out (their size is not known)"]' \
	info "$RT/heap.etl" --event net-os-heap
e etl.heap.none 2 "event 'net-os-heap' needs Heap Alloc, ReAlloc or Free events" -- byname "$RT/plain.etl" --event net-os-heap

# ---- folded: a line reuses the frames it shares with the line before; the boundary cases of
# that (a frame extended, empty parts, a trailing ';', a count alone, another root) ----
printf 'a;b;c 1\na;b;c;d 2\na;b 3\na;;b;c 4\na;b;cd 5\na;b;c; 6\n;a;b 7\na;b;c;d 8\n9\nx;b;c 10\n' > "$RT/prefix.folded"
cn folded.prefix '[.tree | .. | objects | select(.name) | "\(.name)=\(.inc)"]' \
	'["ROOT=55","a=36","b=36","c=21","d=10","cd=5","x=10","b=10","c=10"]' calltree "$RT/prefix.folded"

# ---- perf script and folded text read by two threads (issue 19): the same bytes as one ----
# Every output that shows ids in their order (the .perfView.xml writer numbers frames and
# stacks as the source holds them) is compared, on texts of every header form.
gunzip -c tests/data/mt.fp.txt.gz > "$RT/mt.fp.txt"
gunzip -c examples/threads.perf-script.txt.gz > "$RT/threads.txt"
"$SV" convert "$RT/threads.txt" "$RT/threads.folded"
{ cat "$RT/threads.folded"; echo 'not folded'; cat "$RT/threads.folded"; } > "$RT/skip.folded"
for f in "$RT/mt.fp.txt" "$RT/threads.txt" "$RD"/flamegraph/perf-*.txt tests/fuzz/corpus/perf_script/mt.*.txt \
	tests/fuzz/corpus/perf_script/t22?.data.txt tests/fuzz/corpus/perf_script/sys.F-perfcollect.txt \
	"$RT/threads.folded" "$RT/skip.folded" "$RD"/flamegraph/results/perf-java-stacks-02-collapsed-all.txt; do
	id=threads2.$(basename "$f")
	same=1
	for cmd in "convert $RT/one.perfView.xml" "convert $RT/one.folded" "byname --json" "calltree --json" "callers --focus ROOT --json"; do
		set -- $cmd
		if [ "$1" = convert ]; then
			"$SV" convert "$f" "$2" --threads 1 > /dev/null 2>&1; mv "$2" "$RT/a.out" 2>/dev/null
			"$SV" convert "$f" "$2" --threads 2 > /dev/null 2>&1; mv "$2" "$RT/b.out" 2>/dev/null
		else
			"$SV" "$1" "$f" "${@:2}" --threads 1 > "$RT/a.out" 2>&1
			"$SV" "$1" "$f" "${@:2}" --threads 2 > "$RT/b.out" 2>&1
		fi
		cmp -s "$RT/a.out" "$RT/b.out" || { same=0; bad "$id" "$cmd differs"; break; }
	done
	[ $same = 1 ] && ok
done
# the two threads really read them: info says where the second began
for f in "$RT/mt.fp.txt" "$RT/threads.txt" "$RT/threads.folded" "$RT/skip.folded"; do
	if "$SV" info "$f" --threads 2 2>/dev/null | grep -q '^found *read by two threads at once, the second from line [0-9]* on$'; then ok
	else bad "threads2.split.$(basename "$f")" "$("$SV" info "$f" --threads 2 | grep found)"; fi
done
# an error in the second part is the one one thread reports, on its line
{ gunzip -c tests/data/mt.fp.txt.gz; printf '\n%s\n' 'not a header at all'; } > "$RT/bad2.txt"
want=$("$SV" info "$RT/bad2.txt" --threads 1 2>&1)
got=$("$SV" info "$RT/bad2.txt" --threads 2 2>&1)
if [ "$want" = "$got" ] && grep -q 'bad2.txt:[0-9]*: cannot parse' <<<"$got"; then ok; else bad threads2.error "$want | $got"; fi
e threads.usage 2 'threads needs 1 or 2' -- info "$RT/mt.fp.txt" --threads 3
# a skipped line in the second part of a folded file: the note names its line as one reader does
if [ "$("$SV" info "$RT/skip.folded" --threads 1 2>/dev/null | grep skipped)" = "$("$SV" info "$RT/skip.folded" --threads 2 2>/dev/null | grep skipped)" ] &&
	"$SV" info "$RT/skip.folded" --threads 2 2>/dev/null | grep -q "1 line skipped.*the first is line $(($(wc -l < "$RT/threads.folded") + 1)))"; then ok
else bad threads2.folded.skipped "$("$SV" info "$RT/skip.folded" --threads 2 | grep -i skip)"; fi

# perf record -z: one compressed record that inflates to 71 KB (more than the decoder's first
# output buffer) holds every record; perf script prints 948 samples of it.
cn perf.data.zstd.one-big-record '[.samples, [.warnings[] | select(test("compress|inflat"))]]' '[948, []]' \
	info tests/data/perf-z/sh-loop.zstd.data --kallsyms /nonexistent
# perf record -z -a of two threads with deep stacks: 323 compressed records inflate to 17 MB,
# which the second pass inflates again a window at a time; every thread keeps the samples
# `perf script -F tid | sort | uniq -c` counts, and the periods sum to perf script's.
cn perf.data.zstd.window '[.samples, (.metric * 1000 | round)]' '[24110, 1205500]' info tests/data/perf-z/deep-a.zstd.data --kallsyms /nonexistent
cn perf.data.zstd.threads '[.rows[] | select(.name | startswith("Thread")) | "\(.name | capture("\\((?<t>-?[0-9]+)\\)").t):\(.inc_count)"] | sort' \
	'["-1:1","0:18","1217:1","15:1","2430:1","8196:256","8198:24","8200:11790","8201:12018"]' \
	byname tests/data/perf-z/deep-a.zstd.data --kallsyms /nonexistent

# ---- perf script text without pids (perf script's default fields) ----
# With --show-task-events (tests/data/perf-text/tasks.txt.gz, a 3-thread program recorded
# here) each thread's process comes from its PERF_RECORD_FORK/COMM line: the same processes
# and threads as the same recording printed with -F +pid (tasks-pid.txt.gz); without them,
# info says each thread stands alone and how to fix it.
gzip -dc "$RD/perf-text/tasks.txt.gz" > "$RT/tasks.txt"
gzip -dc "$RD/perf-text/tasks-pid.txt.gz" > "$RT/tasks-pid.txt"
grep -v PERF_RECORD_ "$RT/tasks.txt" > "$RT/tasks-none.txt"
tree2() { "$SV" calltree "$1" --depth 2 --json 2>/dev/null | jq -c '[.tree.children[] | [.name, .inc, [.children[] | [.name, .inc]]]]'; }
a=$(tree2 "$RT/tasks.txt"); b=$(tree2 "$RT/tasks-pid.txt")
if [ -n "$a" ] && [ "$a" = "$b" ] && [ "$(jq 'length' <<< "$a")" = 1 ]; then ok; else bad perfscript.nopid.tasks "$a vs $b"; fi
cn perfscript.nopid.note '[.found[] | select(test("no pids")) | test("3 threads is from its task lines")]' '[true]' info "$RT/tasks.txt"
cn perfscript.nopid.alone '[.found[] | select(test("no pids")) | test("3 threads are shown as processes of their own.*-F \\+pid")]' '[true]' info "$RT/tasks-none.txt"

# ---- heaptrack ----
# Files heaptrack 1.4 wrote here (tests/data/heaptrack: ht.c, and ht2.cpp with threads, C++
# containers, inlined helpers and realloc): every allocation site's weight equals
# heaptrack_print's flame graph output of the same file for each cost type it has
# (heaptrack_cmp.py brings both to the same names; see there).
for f in ht ht2; do
	for e in peak leaked allocations temporary; do
		heaptrack_print -f "$RD/heaptrack/$f.zst" --flamegraph-cost-type "$e" -F "$RT/ht-$f-$e.txt" > /dev/null 2>&1
		"$SV" convert "$RD/heaptrack/$f.zst" "$RT/ht-$f-$e.folded" --event "$e" 2> "$RT/ht.err"
		if why=$(python3 tests/tools/heaptrack_cmp.py "$RT/ht-$f-$e.txt" "$RT/ht-$f-$e.folded"); then ok; else bad "heaptrack.$f.$e" "$why $(cat "$RT/ht.err")"; fi
	done
done
# "peak" is read once: the time steps after the heap's largest moment so far are held until it
# is larger again or the file ends, and past 65,536 sums let go and read again if it grows
# later. Files written for each path (tests/tools/heaptrack_synth.py): held (20 steps), let go
# with the peak kept (500 steps of 200 sums), let go and read again (a higher peak after
# them), a heap growing to its end; each equal to heaptrack_print's peak.
for v in "later 20" "once 500" "later 500" "grow 300"; do
	set -- $v
	python3 tests/tools/heaptrack_synth.py "$1" "$2" | zstd -q -f -o "$RT/syn-$1-$2.zst"
	heaptrack_print -f "$RT/syn-$1-$2.zst" --flamegraph-cost-type peak -F "$RT/syn-$1-$2.txt" > /dev/null 2>&1
	"$SV" convert "$RT/syn-$1-$2.zst" "$RT/syn-$1-$2.folded" 2> "$RT/ht.err"
	if [ -s "$RT/syn-$1-$2.txt" ] && why=$(python3 tests/tools/heaptrack_cmp.py "$RT/syn-$1-$2.txt" "$RT/syn-$1-$2.folded"); then
		ok
	else
		bad "heaptrack.peak-once.$1-$2" "${why:-heaptrack_print wrote nothing} $(cat "$RT/ht.err")"
	fi
done
# allocated bytes add up to heaptrack_print's total; the heap's peak and where it was
want=$(heaptrack_print -f "$RD/heaptrack/ht.zst" 2>/dev/null | sed -n 's/^peak heap memory consumption: //p')
cn heaptrack.info '[.format, ([.events[] | .name]), (.found[] | select(startswith("heaptrack")) | test("3253 allocations \\(9972106 bytes\\), 3002 temporary; the heap was largest \\(5277504 bytes\\)"))]' \
	'["heaptrack",["peak","leaked","allocations","temporary","allocated"],true]' info "$RD/heaptrack/ht.zst"
[ "$want" = 5.28M ] && ok || bad heaptrack.print-peak "heaptrack_print says $want"
# the frames: the program's functions by module, the function an address is in before what
# was inlined into it (heaptrack_print's flame graph lists them the other way round)
cn heaptrack.inlined '[.rows[] | select(.name | test("^ht2!(worker|outer|inner)")) | .name] | sort' \
	'["ht2!inner (inlined)","ht2!outer (inlined)","ht2!worker(int, std::vector<char*, std::allocator<char*> >*)"]' \
	byname "$RD/heaptrack/ht2.zst" --event allocations
got=$("$SV" calltree "$RD/heaptrack/ht2.zst" --event allocations --json 2>/dev/null |
	jq -r '[.. | objects | select(.name? == "ht2!worker(int, std::vector<char*, std::allocator<char*> >*)") | .children[]?.name] | unique | join(",")')
case "$got" in *"ht2!outer (inlined)"*) ok ;; *) bad heaptrack.inline-order "$got" ;; esac
# gzip as older heaptrack wrote it reads the same; damage is a one-line error
zstd -dc "$RD/heaptrack/ht.zst" | gzip > "$RT/ht.gz"
a=$("$SV" byname "$RD/heaptrack/ht.zst" --json 2>/dev/null | jq -c '.rows'); b=$("$SV" byname "$RT/ht.gz" --json 2>/dev/null | jq -c '.rows')
if [ -n "$a" ] && [ "$a" = "$b" ]; then ok; else bad heaptrack.gzip; fi
head -c 4000 "$RD/heaptrack/ht.zst" > "$RT/ht-cut.zst"
e heaptrack.truncated 1 "ht-cut.zst: compressed data ends early \(truncated zstd stream\)" -- byname "$RT/ht-cut.zst"
printf 'v 10400 3\nX ./x\ns 1 a\ni 10 1\nt 1 0\na 10 5\n' > "$RT/bad-trace.heaptrack"
e heaptrack.bad-index 1 "bad-trace.heaptrack:6: trace 5 is not one defined before \(1 are\)" -- byname "$RT/bad-trace.heaptrack"
printf 'v 10400 3\nX ./x\nQ 1\n' > "$RT/bad-line.heaptrack"
e heaptrack.bad-line 1 "bad-line.heaptrack:3: unknown heaptrack line 'Q'" -- byname "$RT/bad-line.heaptrack"
e heaptrack.bad-event 2 "no event 'cpu' in a heaptrack file; it has: peak, leaked" -- byname "$RD/heaptrack/ht.zst" --event cpu
# a zstd bomb stops at the inflate limit, as gzip does; a recording of a tight allocation loop
# inflates thousands of times (2,500 on a real one, 3,700 here) and is read
{
	printf 'v 10400 3\nX ./x\ns 4 main\ni 10 1 1\nt 1 0\n'
	for i in $(seq 1 16); do printf 'a %x 1\n' "$i"; done
	awk 'BEGIN { for (i = 0; i < 1000000; i++) { printf "+ %x\n- %x\n", i % 16, i % 16; if (i % 5000 == 0) printf "c %x\n", i / 50 } }'
} | zstd -q -19 -c > "$RT/loop.heaptrack.zst"
cn heaptrack.zstd-loop '[.format, .count]' '["heaptrack",1000000]' info --event allocations "$RT/loop.heaptrack.zst"
head -c 67108864 /dev/zero | zstd -q -19 -c > "$RT/bomb.zst"
e heaptrack.zstd-bomb 1 "bomb.zst: compressed data inflates past [0-9]+ bytes \(limit\)" -- byname "$RT/bomb.zst"
