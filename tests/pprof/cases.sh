# SPDX-License-Identifier: MIT
# pprof: ByName of profiles recorded from a Go program (tests/data/pprof, record.sh) equals
# `go tool pprof -top` of every sample type (the oracles in top/, recorded with the profiles);
# labels, inlined frames, --event, info; export to .pb.gz read back by us and, when go is
# installed (make deps installs it), by go tool pprof; bad input.
PD=$PWD/tests/data/pprof
PT=$TMP/pprof
mkdir -p "$PT"

# pprof's -top as "name flat cum" lines (units and " (inline)" dropped), sorted.
pprof_top() {
	sed -n '/^ *flat  flat%/,$p' "$1" | tail -n +2 |
		awk '{ f=$1; c=$4; gsub(/[^0-9-]/, "", f); gsub(/[^0-9-]/, "", c);
		       n=$0; sub(/^ *[^ ]+ +[^ ]+ +[^ ]+ +[^ ]+ +[^ ]+ +/, "", n); sub(/ \(inline\)$/, "", n);
		       print n "\t" f "\t" c }' | LC_ALL=C sort
}
# Our ByName the same way: module dropped, label frames left out, times in ns.
our_top() {
	local scale=$1
	shift
	"$SV" byname "$@" --json | jq -r --argjson s "$scale" '.rows[] | select(.name != "ROOT" and (.name | startswith("Label ") | not))
		| [(.name | sub("^[^!]*!"; "")), (.exc * $s | round), (.inc * $s | round)] | @tsv' | LC_ALL=C sort
}

for spec in cpu.cpu:1e6 cpu.samples:1 heap.alloc_objects:1 heap.alloc_space:1 heap.inuse_objects:1 heap.inuse_space:1; do
	id=${spec%%:*}
	prof=${id%%.*}
	ev=${id#*.}
	want=$(pprof_top "$PD/top/$id.txt")
	got=$(our_top "${spec#*:}" "$PD/$prof.pb.gz" --event "$ev")
	if [ -n "$want" ] && [ "$got" = "$want" ]; then ok; else bad "pprof.top.$id" "$(diff <(printf '%s\n' "$want") <(printf '%s\n' "$got") | head -5)"; fi
done

# The default event is the last sample type (pprof's default): cpu, inuse_space.
c pprof.default.cpu '.summary.event' '"cpu"' byname "$PD/cpu.pb.gz"
c pprof.default.heap '.summary.event' '"inuse_space"' byname "$PD/heap.pb.gz"
c pprof.unit '[.summary.unit, .summary.scaling]' '["ms","data"]' byname "$PD/cpu.pb.gz"
c pprof.unit.bytes '.summary.unit' '"bytes"' byname "$PD/heap.pb.gz"
# Inc Ct counts pprof's samples: the "samples" value beside cpu.
want=$(sed -n 's/.*Total samples = \([0-9]*\)ns.*/\1/p' "$PD/top/cpu.cpu.txt")
c pprof.count '[.summary.count, (.summary.metric*1e6|round)]' "[$(sed -n 's/^Showing nodes accounting for \([0-9]*\), .*/\1/p' "$PD/top/cpu.samples.txt"),$want]" byname "$PD/cpu.pb.gz"
# The label's root frame holds what -tagfocus=worker=sorter shows.
want=$(sed -n 's/^Showing nodes accounting for \([0-9]*\)ns.*/\1/p' "$PD/top/cpu.label.txt")
c pprof.label '(row("Label worker=sorter").inc*1e6|round)' "$want" byname "$PD/cpu.pb.gz"
# An inlined function is a frame below the one it was inlined into (sort.Ints into sortLoop).
c pprof.inline '[.tree | .. | objects | select(.name? == "prog!main.sortLoop") | .children[]?.name] | index("prog!sort.Ints") != null' 'true' calltree "$PD/cpu.pb.gz"
out=$("$SV" info "$PD/heap.pb.gz")
if grep -q 'pprof sample types: alloc_objects/count, alloc_space/bytes, inuse_objects/count, inuse_space/bytes (shown)' <<<"$out" &&
	grep -q 'keeps no time per sample' <<<"$out" && grep -q 'numeric labels' <<<"$out"; then ok; else bad pprof.info "$out"; fi
# the fixtures' binary was built in a directory since removed (looked for under an empty
# --symfs, so that no host can have it): info says annotate cannot read it
mkdir -p "$TMP/empty-symfs"
out=$("$SV" info "$PD/cpu.pb.gz" --symfs "$TMP/empty-symfs")
if grep -q '^found *code for annotate: /tmp/tmp.59FvF4YI3r/prog is not here (annotate reads it at that path, or under --symfs DIR)$' <<<"$out"; then
	ok; else bad pprof.info.code "$out"; fi
e pprof.event.unknown 2 "heap.pb.gz: no samples of event 'nope'; the file has: alloc_objects, alloc_space, inuse_objects, inuse_space" -- byname "$PD/heap.pb.gz" --event nope
# Plain (not gzipped) protocol buffers are read too, found by their content.
gzip -dc "$PD/cpu.pb.gz" > "$PT/cpu.raw"
c pprof.plain '.format' '"pprof"' info "$PT/cpu.raw"

# ---- export ----
"$SV" convert "$PD/cpu.pb.gz" "$PT/rt.pb.gz"
a=$(our_top 1e6 "$PD/cpu.pb.gz")
b=$(our_top 1e6 "$PT/rt.pb.gz")
if [ "$a" = "$b" ]; then ok; else bad pprof.roundtrip "$(diff <(printf '%s\n' "$a") <(printf '%s\n' "$b") | head -5)"; fi
c pprof.roundtrip.label '(row("Label worker=sorter").inc*1e6|round)' "$want" byname "$PT/rt.pb.gz"
"$SV" convert "$IN/s-rec.perfView.xml" "$PT/s.pb.gz"
a=$("$SV" byname "$IN/s-rec.perfView.xml" --json | jq -c '[.rows[] | [.name, .exc, .inc]] | sort')
b=$("$SV" byname "$PT/s.pb.gz" --json | jq -c '[.rows[] | [.name, .exc, .inc]] | sort')
if [ "$a" = "$b" ]; then ok; else bad pprof.export.xml "$a vs $b"; fi
# A filtered view: only what survives IncPats goes out.
"$SV" convert "$PD/cpu.pb.gz" "$PT/sort.pb.gz" --inc 'sortLoop'
c pprof.export.filtered '(.summary.metric*1e6|round)' "$("$SV" byname "$PD/cpu.pb.gz" --json | jq "$JQDEFS"' (row("prog!main.sortLoop").inc*1e6|round)')" byname "$PT/sort.pb.gz"
if command -v go >/dev/null 2>&1; then
	export GOCACHE="$TMP/gocache" GOPATH="$TMP/gopath"
	for f in cpu heap; do
		"$SV" convert "$PD/$f.pb.gz" "$PT/$f.rt.pb.gz"
		unit=-unit=ns
		[ $f = heap ] && unit=-unit=B
		want=$(pprof_top "$PD/top/$f.$([ $f = cpu ] && echo cpu || echo inuse_space).txt")
		go tool pprof -top -nodecount=100000 -nodefraction=0 -edgefraction=0 $unit "$PT/$f.rt.pb.gz" > "$PT/$f.rt.txt" 2>"$PT/$f.rt.err"
		got=$(pprof_top "$PT/$f.rt.txt")
		if [ -n "$got" ] && [ "$got" = "$want" ]; then ok; else bad "pprof.go.roundtrip.$f" "$(head -3 "$PT/$f.rt.err"; diff <(printf '%s\n' "$want") <(printf '%s\n' "$got") | head -5)"; fi
	done
	# Labels go back as labels.
	go tool pprof -top -nodecount=100000 -nodefraction=0 -edgefraction=0 -unit=ns -tagfocus=worker=sorter "$PT/cpu.rt.pb.gz" > "$PT/tag.txt" 2>/dev/null
	if [ "$(sed -n 's/^Showing nodes accounting for \([0-9]*\)ns.*/\1/p' "$PT/tag.txt")" = "$want" ] ||
		[ "$(sed -n 's/^Showing nodes accounting for \([0-9]*\)ns.*/\1/p' "$PT/tag.txt")" = "$(sed -n 's/^Showing nodes accounting for \([0-9]*\)ns.*/\1/p' "$PD/top/cpu.label.txt")" ]; then ok; else bad pprof.go.labels "$(head -8 "$PT/tag.txt")"; fi
	# Any input: a perf recording's ByName, as go tool pprof totals it.
	"$SV" convert "$MT" "$PT/mt.pb.gz"
	got=$(go tool pprof -top -nodecount=1 -unit=ns "$PT/mt.pb.gz" 2>/dev/null | sed -n 's/^Showing nodes accounting for [0-9]*ns, [0-9.]*% of \([0-9]*\)ns total/\1/p')
	want=$("$SV" info "$MT" --json | jq '.metric*1e6|round')
	if [ "$got" = "$want" ]; then ok; else bad pprof.go.perf "$got vs $want"; fi
	# A V8 profile (node --cpu-prof, tests/data/chrome): functions of one name in two files
	# ((anonymous):1:1 of prog.js, node:stream, ...) stay apart, so go tool pprof's flat and cum
	# per function equal ByName's Exc and Inc per name, row for row (they used to merge)
	gzip -dc tests/data/chrome/prog.cpuprofile.gz > "$PT/v8.cpuprofile"
	"$SV" convert "$PT/v8.cpuprofile" "$PT/v8.pb.gz"
	want=$("$SV" byname "$PT/v8.cpuprofile" --json | jq -r '.rows[] | select(.name != "ROOT" and (.name | test("^(Process|Thread) ") | not)) | "\(.exc*1e6|round) \(.inc*1e6|round)"' | sort)
	got=$(go tool pprof -top -nodecount=100000 -nodefraction=0 -edgefraction=0 -unit=ns "$PT/v8.pb.gz" 2>/dev/null |
		awk 'f && NF >= 6 { fl = $1; cu = $4; sub(/ns$/, "", fl); sub(/ns$/, "", cu); print fl + 0, cu + 0 } /flat%/ { f = 1 }' | sort)
	if [ -n "$want" ] && [ "$got" = "$want" ]; then ok; else bad pprof.go.v8 "$(diff <(printf '%s\n' "$want") <(printf '%s\n' "$got") | head -5)"; fi
else
	printf '     note: go not found (make deps installs golang-go): the go tool pprof checks were skipped\n'
fi

# ---- bad input ----
head -c 3000 "$PT/cpu.raw" > "$PT/trunc.pb"
e pprof.bad.truncated 1 'trunc.pb: not a pprof profile: the protocol buffer does not decode' -- byname "$PT/trunc.pb" --format pprof
# sample_type {type 1 unit 2}; strings "", "cpu", "ns"; one sample at location 7, value 5.
printf '\x0a\x04\x08\x01\x10\x02\x12\x06\x0a\x01\x07\x12\x01\x05\x32\x00\x32\x03cpu\x32\x02ns' > "$PT/noloc.pb"
e pprof.bad.location 1 'noloc.pb: sample 1: location 7 is not in the location table' -- byname "$PT/noloc.pb"
# the same sample type naming string 9 of a 3-string table
printf '\x0a\x04\x08\x09\x10\x02\x32\x00\x32\x03cpu\x32\x02ns' > "$PT/nostr.pb"
e pprof.bad.string 1 'nostr.pb: sample type 1: string 9 is not in the string table \(3 strings\)' -- byname "$PT/nostr.pb"
# two values for one sample type
printf '\x0a\x04\x08\x01\x10\x02\x12\x04\x12\x02\x05\x06\x32\x00\x32\x03cpu\x32\x02ns' > "$PT/vals.pb"
e pprof.bad.values 1 'vals.pb: sample 1 has 2 values for 1 sample types' -- byname "$PT/vals.pb"
# A profile that declares 75 million empty samples in 260 KB of gzip: samples are decoded one
# at a time, so the first one's fault is named at once, in little memory (decoding them all
# first took 9 GB and then said "truncated or corrupt")
python3 - "$TMP/bomb.pb.gz" <<'PY'
import gzip, random, sys
def varint(v):
    out = b""
    while True:
        b, v = v & 0x7f, v >> 7
        if not v:
            return out + bytes([b])
        out += bytes([b | 0x80])
def ld(field, payload):
    return varint(field << 3 | 2) + varint(len(payload)) + payload
rnd = random.Random(7)
head = ld(1, varint(1 << 3) + varint(1) + varint(2 << 3) + varint(2)) + ld(6, b"") + ld(6, b"samples") + ld(6, b"count") + \
    ld(6, bytes(rnd.choice(b"0123456789abcdef") for _ in range(200000)))
with gzip.open(sys.argv[1], "wb", 9) as f:
    f.write(head)
    chunk = ld(2, b"") * 1000000
    for _ in range(75):
        f.write(chunk)
PY
if [ "${SV_VARIANT:-release}" = release ]; then
	(ulimit -v 1000000; "$SV" info "$TMP/bomb.pb.gz" > /dev/null 2> "$TMP/bomb.err")
	st=$?
	if [ "$st" = 1 ] && grep -q "sample 1 has 0 values for 1 sample types" "$TMP/bomb.err"; then ok; else bad pprof.bomb "exit $st: $(cat "$TMP/bomb.err")"; fi
else
	e pprof.bomb 1 "sample 1 has 0 values for 1 sample types" -- info "$TMP/bomb.pb.gz"
fi
# Go's legacy text profiles (debug=1, written by tests/data/pprof/legacy.go) are refused by
# name with what to do, not read as perf script text (a heap profile's header looked like one)
e pprof.legacy-heap 1 "a legacy Go heap profile \(text\): not read; convert it with go tool pprof -proto FILE > FILE.pb.gz" -- info tests/data/pprof/heap.legacy.txt
e pprof.legacy-goroutine 1 "a Go goroutine listing \(debug=1\): not read" -- info tests/data/pprof/goroutine.legacy.txt

# Goto Source from the profile's own lines (issue 36): each line's Exc and Inc equal go tool
# pprof -list's flat and cum (tests/data/pprof/list-cpu.txt, Go 1.19's pprof on cpu.pb.gz)
awk '/^ROUTINE/ {fn = $3; next} fn && $NF ~ /:$/ {next}
	fn && /^ +([0-9.]+m?s|\.) +([0-9.]+m?s|\.) +[0-9]+:/ {
		f = $1; c = $2; l = $3; sub(":", "", l)
		if (f == "." && c == ".") next
		print fn, l, ms(f), ms(c)
	}
	function ms(v) { if (v == ".") return 0; if (v ~ /ms$/) { sub("ms", "", v); return v + 0 } sub("s", "", v); return v * 1000 }' \
	"$PD/list-cpu.txt" | sort > "$TMP/pprof-list.want"
: > "$TMP/pprof-list.got"
for fn in main.allocLoop main.hashLoop main.sortLoop sort.partition; do
	"$SV" source "$PD/cpu.pb.gz" --name "$fn" --json 2>/dev/null |
		jq -r --arg fn "$fn" '.lines[] | select(.inc != 0 or .exc != 0) | "\($fn) \(.line) \(.exc | round) \(.inc | round)"' >> "$TMP/pprof-list.got"
done
sort -o "$TMP/pprof-list.got" "$TMP/pprof-list.got"
if [ "$(grep -c . "$TMP/pprof-list.want")" -ge 12 ] && cmp -s "$TMP/pprof-list.want" "$TMP/pprof-list.got"; then ok; else
	bad pprof.source.list "$(diff "$TMP/pprof-list.want" "$TMP/pprof-list.got" | head -5 | tr '\n' '|')"; fi
# the source text is found under --source-path by its base name
"$SV" source "$PD/cpu.pb.gz" --name main.allocLoop --source-path "$PD" 2>/dev/null | grep -Eq '^ +48 .*\| +b := make\(\[\]byte' && ok ||
	bad pprof.source.text "line 48 not shown with its text"
