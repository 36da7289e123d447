# SPDX-License-Identifier: MIT
# .gcdump heap snapshots (issue 33): files written by tests/gcdump/gen_gcdump.py from the
# format's layout (no .NET runs here; test-extended reads PerfView's own test snapshot and
# checks it against PerfView's XML dump of it). The spanning tree from the root, objects no
# root reaches, sampled dumps' multipliers, and damage.
GD=$TMP/gcdump
mkdir -p "$GD"
for m in ref sampled cycle; do python3 tests/gcdump/gen_gcdump.py "$GD/$m.gcdump" "$([ $m = ref ] || echo $m)"; done
# every object once, under its first parent in PerfView's walk: App.Cache (reached from both
# the statics and the locals) under [static vars]; the orphan under [not reachable from roots]
cn gcdump.tree '[.tree.children[] | [.name, .inc, [.children[] | [.name, .inc, .inc_count]]]]' \
	'[["[.NET Roots]",1204,[["[static vars]",1140,4],["[local vars]",64,3]]],["[not reachable from roots]",16,[["app!App.Orphan",16,1]]]]' \
	calltree "$GD/ref.gcdump"
cn gcdump.byname '[.rows[] | select(.name | test("String|Byte")) | [.name, .exc, .exc_count]] | sort' \
	'[["mscorlib!System.Byte[]",1000,1],["mscorlib!System.String",80,2]]' byname "$GD/ref.gcdump"
cn gcdump.info '[.format, .metric, .samples, (.found[] | select(startswith("heap snapshot")) | test("9 objects of 9 types, 1220 bytes.*1 objects no root reaches"))]' \
	'["gcdump",1220,9,true]' info "$GD/ref.gcdump"
# --priority (PerfView's Priority box) replaces the defaults: [local vars] raised above the
# statics takes App.Cache and what it holds; info shows the patterns in use
cn gcdump.priority '[.tree.children[0].children[] | [.name, .inc, .inc_count]]' \
	'[["[local vars]",1204,6],["[static vars]",0,1]]' calltree --priority '[local vars]->10' "$GD/ref.gcdump"
cn gcdump.priority-info '[.found[] | select(startswith("priorities")) | test("^priorities \\(--priority\\): v4.0.30319.*\\[other roots\\]->-2000000$")]' \
	'[true]' info "$GD/ref.gcdump"
e gcdump.priority-no-arrow 2 "^stackview: .*--priority: 'App.Cache': expected PATTERN->NUMBER" -- calltree --priority 'X->1;App.Cache' "$GD/ref.gcdump"
e gcdump.priority-bad-number 2 "--priority: 'X->high': the priority after -> is not a number" -- calltree --priority 'X->high' "$GD/ref.gcdump"
e gcdump.priority-bad-pattern 2 "--priority: 'X\\{->1': .*closing" -- calltree --priority 'X{->1' "$GD/ref.gcdump"
# a sampled dump: each object counts as its type's multiplier says (PerfView's
# MemoryGraphStackSource: count = the multiplier, metric = size x it); the averages are shown
cn gcdump.sampled '[.metric, .count]' '[2940,28]' info "$GD/sampled.gcdump"
cn gcdump.sampled-byname '[.rows[] | select(.name | test("String|Byte")) | [.name, .exc, .exc_count]] | sort' \
	'[["mscorlib!System.Byte[]",2000,2],["mscorlib!System.String",800,20]]' byname "$GD/sampled.gcdump"
cn gcdump.sampled-info '[.found[] | select(startswith("a sampled")) | test("on average 3.1 objects and 2.4 times")]' '[true]' info "$GD/sampled.gcdump"
cn gcdump.collected '[.found[] | select(startswith("collected"))]' '["collected from app (42) on machine"]' info "$GD/ref.gcdump"
# orphans: only those no other orphan reaches are roots (a cycle gives one), as PerfView
cn gcdump.orphans '[.tree.children[] | select(.name == "[not reachable from roots]") | [.inc_count, [.children[] | [.name, .inc_count, .exc_count]]]]' \
	'[[5,[["app!App.Orphan",5,4]]]]' calltree "$GD/cycle.gcdump"
# damage: a one-line error with the byte offset, never a crash
head -c 300 "$GD/ref.gcdump" > "$GD/cut.gcdump"
e gcdump.truncated 1 "cut.gcdump: byte [0-9]+: .*(ends early|do not fit)" -- byname "$GD/cut.gcdump"
python3 tests/gcdump/gen_gcdump.py "$GD/badchild.gcdump" badchild
e gcdump.bad-child 1 "badchild.gcdump: byte [0-9]+: node 3 refers to a node outside the graph" -- byname "$GD/badchild.gcdump"
python3 tests/gcdump/gen_gcdump.py "$GD/badlabel.gcdump" badlabel
e gcdump.bad-label 1 "badlabel.gcdump: byte [0-9]+: node 6's data is damaged" -- byname "$GD/badlabel.gcdump"
python3 tests/gcdump/gen_gcdump.py "$GD/badmult.gcdump" badmult
e gcdump.bad-multipliers 1 "badmult.gcdump: byte [0-9]+: 3 count multipliers for 9 types" -- byname "$GD/badmult.gcdump"
python3 tests/gcdump/gen_gcdump.py "$GD/v8.gcdump" v8
e gcdump.version-8 1 "v8.gcdump: byte [0-9]+: GCHeapDump version 8 is not a layout" -- byname "$GD/v8.gcdump"
printf "not a heap snapshot" > "$GD/notes.gcdump"
e gcdump.not-fastser 1 "notes.gcdump" -- byname "$GD/notes.gcdump"
# Two snapshots, diffed (PerfView's heap diff): what grew and the path that holds it. The second
# snapshot's byte array is 4000 bytes larger and its cache holds one more 40-byte string.
python3 tests/gcdump/gen_gcdump.py "$GD/grown.gcdump" grown
cn gcdump.diff '[.rows[] | select(.exc != 0 or .name == "app!App.Cache") | [.name, .exc, .inc]]' \
	'[["mscorlib!System.Byte[]",4000,4000],["mscorlib!System.String",40,40],["app!App.Cache",0,4040]]' \
	diff "$GD/ref.gcdump" "$GD/grown.gcdump" --view byname
# A big snapshot's walk reports progress and stops on Ctrl-C (one line, exit 1) instead of
# walking on: 3 million objects from the benchmarks' generator; the signal comes early in the
# walk, and the load must end well before a whole one would.
"$B/tests/bench/gen" 3000000 500 gcdump > "$GD/big.gcdump" 2> /dev/null
t0=$(date +%s%N)
"$SV" info "$GD/big.gcdump" --progress > /dev/null 2> "$GD/big.prog"
full=$((($(date +%s%N) - t0) / 1000000))
if grep -Eq '^stackview: loading big\.gcdump \[[#.]+\] +[0-9]+%' "$GD/big.prog" && tail -1 "$GD/big.prog" | grep -q '^stackview: loaded big.gcdump'; then
	ok
else
	bad gcdump.progress "$(tail -2 "$GD/big.prog")"
fi
"$SV" info "$GD/big.gcdump" > "$GD/big.out" 2> "$GD/big.err" &
pid=$!
sleep 0.3
interrupt "$pid"
if [ "$st" = 1 ] && grep -q "big.gcdump: loading canceled$" "$GD/big.err" && [ ! -s "$GD/big.out" ] && [ "$ms" -lt $((full / 2 + 100)) ]; then
	ok
else
	bad gcdump.cancel "exit $st $ms ms after the signal (a whole load: $full ms): $(cat "$GD/big.err")"
fi
rm -f "$GD/big.gcdump"
