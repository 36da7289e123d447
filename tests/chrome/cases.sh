# SPDX-License-Identifier: MIT
# Chrome / V8 CPU profiles: a .cpuprofile from `node --cpu-prof` and a Trace Event file with
# Profile/ProfileChunk events (tests/data/chrome, record.sh). ByName equals what the files say
# by themselves, computed by tests/chrome/oracle.jq as DevTools weighs samples: Exc Ct and Inc
# Ct from the samples, Exc as each sample lasting until the next. Then naming, threads, time
# order, and bad input.
CD=$PWD/tests/data/chrome
CT=$TMP/chrome
mkdir -p "$CT"
ORACLE=$PWD/tests/chrome/oracle.jq

ours() {
	"$SV" byname "$1" --json | jq -r '.rows[] | select(.name != "ROOT" and (.name | test("^(Process |Thread \\(|Profile )") | not))
		| [.name, .exc_count, .inc_count, (.exc * 1000 | round)] | @tsv' | LC_ALL=C sort
}
# Per-name sums over several profiles (the oracle's lines, one profile after another).
sum_by_name() { awk -F'\t' '{ e[$1] += $2; i[$1] += $3; s[$1] += $4 } END { for (k in e) printf "%s\t%d\t%d\t%d\n", k, e[k], i[k], s[k] }' | LC_ALL=C sort; }

gzip -dc "$CD/prog.cpuprofile.gz" > "$CT/prog.cpuprofile"
want=$(jq -r -f "$ORACLE" "$CT/prog.cpuprofile" | LC_ALL=C sort)
got=$(ours "$CT/prog.cpuprofile")
if [ -n "$want" ] && [ "$got" = "$want" ]; then ok; else bad chrome.cpuprofile.byname "$(diff <(printf '%s\n' "$want") <(printf '%s\n' "$got") | head -6)"; fi
c chrome.cpuprofile.summary '[.format, .scaling, .samples]' "[\"chrome\",\"time\",$(jq '.samples | length' "$CT/prog.cpuprofile")]" info "$CT/prog.cpuprofile"
# The total is the profile's span from its first sample to its end, in ms.
c chrome.cpuprofile.total '(.summary.metric * 1000 | round)' "$(jq '(.endTime - .startTime - .timeDeltas[0])' "$CT/prog.cpuprofile")" byname "$CT/prog.cpuprofile"
# Sums kept in whole µs: every row's number is its µs / 1000 read back once, not a sum of ms
# that drifts (1023.0080000000064).
c chrome.cpuprofile.whole_us '[.rows[] | (.inc, .exc) | (. * 1000 | round) / 1000 == .] | all' true byname "$CT/prog.cpuprofile"
c chrome.cpuprofile.exact_total '.summary.metric' "$(jq '(.endTime - .startTime - .timeDeltas[0]) / 1000' "$CT/prog.cpuprofile")" byname "$CT/prog.cpuprofile"
# Names: recursion counted once, two arrow functions on one line kept apart, (root) is no frame.
c chrome.names '[.rows[].name | select(test("^prog.js!(fib|\\(anonymous\\)):"))] | sort' \
	'["prog.js!(anonymous):12:32","prog.js!(anonymous):12:53","prog.js!(anonymous):19:48","prog.js!(anonymous):1:1","prog.js!fib:6:13"]' byname "$CT/prog.cpuprofile"
c chrome.root '[.rows[].name | select(. == "(root)")] | length' 0 byname "$CT/prog.cpuprofile"

# ---- Trace Event JSON: each profile under its process and thread ----
gzip -dc "$CD/prog.trace.json.gz" > "$CT/prog.trace.json"
want=$(jq -c '[.traceEvents[] | select(.name == "Profile" or .name == "ProfileChunk")] | group_by([.pid, .id])[]
	| { startTime: (map(select(.name == "Profile"))[0].args.data.startTime),
	    nodes: [.[] | select(.name == "ProfileChunk") | .args.data.cpuProfile.nodes // [] | .[]],
	    samples: [.[] | select(.name == "ProfileChunk") | .args.data.cpuProfile.samples // [] | .[]],
	    timeDeltas: [.[] | select(.name == "ProfileChunk") | .args.data.timeDeltas // [] | .[]],
	    endTime: ([.[] | select(.name == "ProfileChunk") | .args.data.endTime // empty] | last) }
	| select(.samples | length > 0)
	| (reduce .timeDeltas[] as $d ({t: .startTime, a: []}; .t += $d | .a += [.t]) | .a) as $t
	| .endTime //= ($t[-1] + ($t[-1] - $t[0]) / (($t | length) - 1))' "$CT/prog.trace.json" | jq -r -f "$ORACLE" | sum_by_name)
got=$(ours "$CT/prog.trace.json")
if [ -n "$want" ] && [ "$got" = "$want" ]; then ok; else bad chrome.trace.byname "$(diff <(printf '%s\n' "$want") <(printf '%s\n' "$got") | head -6)"; fi
pid=$(jq '[.traceEvents[] | select(.name == "Profile")][0].pid' "$CT/prog.trace.json")
c chrome.trace.threads '[.tree.children[] | .name, (.children[] | .name, ([.children[].name] | sort))]' \
	"[\"Process node ($pid)\",\"Thread ($pid) JavaScriptMainThread\",[\"Profile 0x1\",\"Profile 0x2\"]]" calltree "$CT/prog.trace.json" --depth 3
c chrome.trace.gz '.samples' "$(jq '[.traceEvents[] | select(.name == "ProfileChunk") | .args.data.cpuProfile.samples // [] | length] | add' "$CT/prog.trace.json")" info "$CD/prog.trace.json.gz"
# A bare array of events (Chrome's JSON Array Format) reads the same.
jq '.traceEvents' "$CT/prog.trace.json" > "$CT/array.json"
c chrome.trace.array '.samples' "$(jq '[.traceEvents[] | select(.name == "ProfileChunk") | .args.data.cpuProfile.samples // [] | length] | add' "$CT/prog.trace.json")" info "$CT/array.json"

# ---- time order: samples out of order are sorted before they are weighed ----
cat > "$CT/order.cpuprofile" <<'JSON'
{"nodes":[{"id":1,"callFrame":{"functionName":"(root)","url":"","lineNumber":-1,"columnNumber":-1},"children":[2,3]},
 {"id":2,"callFrame":{"functionName":"a","url":"file:///x/app.js","lineNumber":0,"columnNumber":9}},
 {"id":3,"callFrame":{"functionName":"","url":"file:///x/app.js","lineNumber":4,"columnNumber":0}}],
 "startTime":1000,"endTime":1600,"samples":[2,3,2],"timeDeltas":[100,300,-200]}
JSON
# times 1100 (a), 1400 (anon), 1200 (a): sorted a@1100 100, a@1200 200, anon@1400 200
c chrome.order '[.rows[] | select(.name != "ROOT") | [.name, (.exc * 1000 | round)]]' '[["app.js!a:1:10",300],["app.js!(anonymous):5:1",200]]' byname "$CT/order.cpuprofile"

# ---- bad input ----
printf '{"nodes":[{"id":1,"callFrame":{"functionName":"a"},"children":[2]},{"id":2,"callFrame":{"functionName":"b"},"children":[1]}],"samples":[1],"timeDeltas":[1],"startTime":0,"endTime":5}' > "$CT/cycle.cpuprofile"
e chrome.bad.cycle 1 'cycle.cpuprofile: the profile.s nodes form a cycle' -- byname "$CT/cycle.cpuprofile"
printf '{"nodes":[{"id":1,"callFrame":{"functionName":"a"}}],"samples":[1,7],"timeDeltas":[1,1],"startTime":0,"endTime":5}' > "$CT/nonode.cpuprofile"
e chrome.bad.node 1 'nonode.cpuprofile: sample 2 is of node 7, which is not in the profile' -- byname "$CT/nonode.cpuprofile"
printf '{"nodes":[{"id":1,"callFrame":{"functionName":"a"}}],"samples":[1,1],"timeDeltas":[1],"startTime":0}' > "$CT/deltas.cpuprofile"
e chrome.bad.deltas 1 'deltas.cpuprofile: 2 samples but 1 time deltas' -- byname "$CT/deltas.cpuprofile"
printf '{"nodes":[{"callFrame":{"functionName":"a"}}],\n"samples":[1]}' > "$CT/noid.cpuprofile"
e chrome.bad.noid 1 'noid.cpuprofile:1: a profile node without an integer "id"' -- byname "$CT/noid.cpuprofile"
printf '{"traceEvents":[{"ph":"X","ts":1,"pid":1,"tid":1,"name":"x"}]}' > "$CT/none.json"
e chrome.bad.nosamples 1 'none.json: no CPU profile samples in the trace' -- byname "$CT/none.json"
head -c 3000 "$CT/prog.cpuprofile" > "$CT/trunc.cpuprofile"
e chrome.bad.truncated 1 'trunc.cpuprofile:1: malformed JSON' -- byname "$CT/trunc.cpuprofile"
# The guide's GroupPats for dropping positions.
c chrome.group '[.rows[].name | select(startswith("prog.js!"))] | sort' '["prog.js!(anonymous)","prog.js!fib","prog.js!jsonWork","prog.js!main","prog.js!squares"]' byname "$CT/prog.cpuprofile" --group '{*}:*:*->$1'
# A DevTools recording whose ring buffer lost chunks (as Chrome 141's can): nodes whose parent
# is gone sit under their thread, samples of lost nodes are left out, and info says how many.
cat > "$CT/lost.json" <<'JSON'
{"metadata":{"source":"DevTools"},"traceEvents":[
 {"args":{"name":"CrRendererMain"},"cat":"__metadata","name":"thread_name","ph":"M","pid":7,"tid":19,"ts":0},
 {"args":{"name":"Renderer"},"cat":"__metadata","name":"process_name","ph":"M","pid":7,"tid":0,"ts":0},
 {"args":{"data":{"startTime":1000}},"cat":"disabled-by-default-v8.cpu_profiler","id":"0x7b","name":"Profile","ph":"P","pid":7,"tid":19,"ts":1000},
 {"args":{"data":{"cpuProfile":{"nodes":[{"callFrame":{"functionName":"(root)","scriptId":0},"id":1},{"callFrame":{"functionName":"(program)","scriptId":0},"id":2,"parent":1}],"samples":[2,2]},"timeDeltas":[100,100]}},"cat":"disabled-by-default-v8.cpu_profiler","id":"0x7b","name":"ProfileChunk","ph":"P","pid":7,"tid":91,"ts":1300},
 {"args":{"data":{"cpuProfile":{"nodes":[{"callFrame":{"functionName":"a","lineNumber":2,"columnNumber":43,"scriptId":5,"url":"https://example.com/x.js"},"id":759,"parent":758}],"samples":[759,752,759]},"timeDeltas":[100,100,100]}},"cat":"disabled-by-default-v8.cpu_profiler","id":"0x7b","name":"ProfileChunk","ph":"P","pid":7,"tid":91,"ts":1600},
 {"args":{},"cat":"disabled-by-default-v8.cpu_profiler","id":"0x7b","name":"ProfileChunk","ph":"P","pid":7,"tid":91,"ts":1700}
]}
JSON
cn chrome.trace.lost '[.tree.children[0].name, .tree.children[0].children[0].name, ([.tree.children[0].children[0].children[].name] | sort), .summary.count]' \
	'["Process Renderer (7)","Thread (19) CrRendererMain",["(program)","x.js!a:3:44"],4]' calltree "$CT/lost.json"
if "$SV" info "$CT/lost.json" 2>&1 | grep -q '1 nodes whose caller is missing are under their thread, 1 samples of missing nodes are left out'; then ok; else bad chrome.trace.lost.note "$("$SV" info "$CT/lost.json" 2>&1 | tail -3)"; fi
# the 100,000-frame stack limit holds for V8 and Firefox profiles as for every reader
python3 - "$TMP" <<'PY'
import json, sys
n = 100001
nodes = [{"id": 1, "callFrame": {"functionName": "(root)", "scriptId": "0", "url": "", "lineNumber": -1, "columnNumber": -1}, "children": [2]}]
for i in range(2, n + 2):
    nodes.append({"id": i, "callFrame": {"functionName": "f%d" % i, "scriptId": "1", "url": "a.js", "lineNumber": 1, "columnNumber": 1},
                  "children": [i + 1] if i < n + 1 else []})
json.dump({"nodes": nodes, "startTime": 0, "endTime": 1000, "samples": [n + 1], "timeDeltas": [1]}, open(sys.argv[1] + "/deep.cpuprofile", "w"))
thread = {"name": "t", "processName": "p", "pid": "1", "tid": 1,
          "samples": {"stack": [n - 1], "time": [0], "length": 1},
          "stackTable": {"frame": [0] * n, "prefix": [None] + list(range(n - 1)), "length": n},
          "frameTable": {"func": [0], "length": 1}, "funcTable": {"name": [0], "resource": [-1], "length": 1},
          "resourceTable": {"name": [], "lib": [], "length": 0}, "stringArray": ["f"]}
json.dump({"meta": {"version": 24, "interval": 1, "startTime": 0, "processType": 0, "product": "x", "categories": []},
           "libs": [], "threads": [thread]}, open(sys.argv[1] + "/deep.gecko.json", "w"))
PY
e chrome.deep-limit 1 "node 100002: stack deeper than 100000 frames" -- info "$TMP/deep.cpuprofile"
e gecko.deep-limit 1 "thread 0: stack 100000 is deeper than 100000 frames" -- info "$TMP/deep.gecko.json"

# ---- the legacy .cpuprofile ("head" tree, "timestamps"; Node 8-10 tools, old Chrome,
# v8-profiler-next today), recorded by tests/data/chrome/record-legacy.sh. The oracle:
# tests/tools/cpuprofile_legacy.py rewrites it in the current format as DevTools reads it; both
# must give the same ByName, and that one what oracle.jq computes from the samples.
gzip -dc "$CD/prog.legacy.cpuprofile.gz" > "$CT/legacy.cpuprofile"
python3 tests/tools/cpuprofile_legacy.py "$CT/legacy.cpuprofile" "$CT/legacy-as-current.cpuprofile"
a=$("$SV" byname "$CT/legacy.cpuprofile" --json | jq -S .)
b=$("$SV" byname "$CT/legacy-as-current.cpuprofile" --json | jq -S .)
if [ -n "$a" ] && [ "$a" = "$b" ]; then ok; else bad chrome.legacy.same "$(diff <(printf '%s\n' "$a") <(printf '%s\n' "$b") | head -6)"; fi
want=$(jq -r -f "$ORACLE" "$CT/legacy-as-current.cpuprofile" | LC_ALL=C sort)
got=$(ours "$CT/legacy.cpuprofile")
if [ -n "$want" ] && [ "$got" = "$want" ]; then ok; else bad chrome.legacy.byname "$(diff <(printf '%s\n' "$want") <(printf '%s\n' "$got") | head -6)"; fi
c chrome.legacy.summary '[.format, .samples]' "[\"chrome\",$(jq '.samples | length' "$CT/legacy.cpuprofile")]" info "$CT/legacy.cpuprofile"
# names as the current format gives them (LINE and COLUMN 1-based in both files' display)
c chrome.legacy.names '[.rows[].name | select(startswith("prog.js!fib") or startswith("prog.js!jsonWork"))] | sort' \
	'["prog.js!fib:6:13","prog.js!jsonWork:7:18"]' byname "$CT/legacy.cpuprofile"
# sniffed without the .cpuprofile name
cp "$CT/legacy.cpuprofile" "$CT/legacy.json"
c chrome.legacy.sniff '.format' '"chrome"' info "$CT/legacy.json"
# A tree nests two JSON levels a frame: 5,000 frames deep reads (the JSON limit is 64 levels
# elsewhere); past 100,000 frames is the stack limit.
legacy_chain() { # N: a chain of N nodes under the root, one sample at its end
	python3 - "$1" <<'PY'
import sys
n = int(sys.argv[1])
parts = ['{"typeId":"CPU","head":{"functionName":"(root)","url":"","lineNumber":0,"columnNumber":0,"id":1,"hitCount":0,"children":[']
parts += ['{"functionName":"f%d","url":"a.js","lineNumber":%d,"columnNumber":1,"id":%d,"hitCount":0,"children":[' % (i, i, i) for i in range(2, n + 2)]
parts += [']}'] * n + [']},"startTime":1,"endTime":2,"samples":[%d,%d],"timestamps":[1000000,1001000]}' % (n + 1, n + 1)]
sys.stdout.write("".join(parts))
PY
}
legacy_chain 5000 > "$CT/deep5k.cpuprofile"
c chrome.legacy.deep '[(.rows[] | select(.name == "a.js!f5001:5001:1") | .exc_count), .summary.metric]' '[2,2]' byname "$CT/deep5k.cpuprofile"
legacy_chain 100001 > "$CT/deep100k.cpuprofile"
e chrome.legacy.deep-limit 1 "deep100k.cpuprofile:1: the profile's node tree is deeper than 100000 frames" -- info "$CT/deep100k.cpuprofile"
printf '{"head":{"functionName":"(root)","url":"","id":1,"hitCount":0,"children":[3]},"startTime":1,"endTime":2,"samples":[1],"timestamps":[1000000]}' > "$CT/lg-child.cpuprofile"
e chrome.legacy.bad.child 1 'lg-child.cpuprofile:1: a child that is not a profile node object' -- byname "$CT/lg-child.cpuprofile"
printf '{"head":{"functionName":"(root)","url":"","hitCount":0,"children":[]},"startTime":1,"endTime":2,"samples":[1],"timestamps":[1000000]}' > "$CT/lg-noid.cpuprofile"
e chrome.legacy.bad.noid 1 'lg-noid.cpuprofile:1: a profile node without one integer "id"' -- byname "$CT/lg-noid.cpuprofile"
printf '{"head":{"functionName":"(root)","url":"","id":1,"children":[{"functionName":"f","url":"a.js","id":1,"children":[]}]},"startTime":1,"endTime":2,"samples":[1],"timestamps":[1000000]}' > "$CT/lg-dup.cpuprofile"
e chrome.legacy.bad.dup 1 'lg-dup.cpuprofile:1: two profile nodes have id 1' -- byname "$CT/lg-dup.cpuprofile"
printf '{"head":{"functionName":"(root)","url":"","id":1,"children":[]},"startTime":1,"endTime":2,"samples":[1,1],"timestamps":[1000000]}' > "$CT/lg-stamps.cpuprofile"
e chrome.legacy.bad.stamps 1 'lg-stamps.cpuprofile: 2 samples but 1 time stamps' -- byname "$CT/lg-stamps.cpuprofile"
head -c 2000 "$CT/legacy.cpuprofile" > "$CT/lg-trunc.cpuprofile"
e chrome.legacy.bad.truncated 1 'lg-trunc.cpuprofile:1: ' -- byname "$CT/lg-trunc.cpuprofile"

# Goto Source on a V8 profile (issue 36): each line's samples are V8's own positionTicks for
# the function (their sums over its nodes, read from the file by jq); the source read from
# the path the script's file:// URL names, through --source-path here
for fn in main fib jsonWork; do
	want=$(jq -c --arg f "$fn" '[.nodes[] | select(.callFrame.functionName == $f) | .positionTicks[]?] | group_by(.line)
		| map([.[0].line, (map(.ticks) | add)])' "$CT/prog.cpuprofile")
	name=$("$SV" byname "$CT/prog.cpuprofile" --json 2>/dev/null | jq -r --arg f "$fn" '[.rows[].name | select(test("^prog.js!" + $f + ":"))][0]')
	got=$("$SV" source "$CT/prog.cpuprofile" --name "$name" --json 2>/dev/null | jq -c '[.lines[] | select(.exc_count > 0) | [.line, .exc_count]]')
	if [ "$want" != "[]" ] && [ "$got" = "$want" ]; then ok; else bad "chrome.source.$fn" "got $got, want $want"; fi
done
"$SV" source "$CT/prog.cpuprofile" --name 'prog.js!main:13:14' --source-path "$CD" 2>/dev/null | grep -Eq '^ +19 +[0-9.]+ .*\| +sink \+= squares' &&
	ok || bad chrome.source.text "main's line 19 not shown with its text"
