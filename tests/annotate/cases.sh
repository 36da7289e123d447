# SPDX-License-Identifier: MIT
# stackview annotate (issue 36) against perf annotate: tests/data/annotate holds a perf.data
# of hot.c (recorded here: perf record -e cpu-clock -F 4000 -g, perf 6.1), its binary and
# perf annotate --stdio --percent-type local-period of two functions. Every instruction perf
# lists has our address and percentage (2 decimals); the view's filters decide what counts.
AD=tests/data/annotate
AT=$TMP/annotate
mkdir -p "$AT/symfs/tmp/stackview-annotate"
cp "$AD/hot" "$AD/inlhot" "$AT/symfs/tmp/stackview-annotate/"
gzip -dc "$AD/hot.data.gz" > "$AT/hot.data"
PIN=(--symfs "$AT/symfs" --kallsyms /nonexistent)

# "address percent" per instruction, perf's and ours
perf_pct() { awk '/^ +[0-9.]+ : +[0-9a-f]+:/ {a = $3; sub(":", "", a); print a, $1}' "$1"; }
our_pct() { "$SV" annotate "$@" --json 2>/dev/null | jq -r '.instructions[] | "\(.address) \(.percent)"' | awk '{printf "%s %.2f\n", $1, $2}'; }
for fn in mix count_bits; do
	want=$(perf_pct "$AD/perf-annotate.$fn.txt")
	got=$(our_pct "$AT/hot.data" --name "$fn" "${PIN[@]}")
	if [ -n "$want" ] && [ "$got" = "$want" ]; then ok; else
		bad "annotate.perf.$fn" "$(diff <(printf '%s\n' "$want") <(printf '%s\n' "$got") | head -5)"; fi
done
# the header's sample count is perf's
n=$(sed -n 's/.*for cpu-clock (\([0-9]*\) samples.*/\1/p' "$AD/perf-annotate.mix.txt")
cn annotate.count '[.function, .count, .arch, (.instructions | length > 10)]' "[\"mix\", $n, \"x86-64\", true]" \
	annotate "$AT/hot.data" --name mix "${PIN[@]}"
# jumps inside the function mark their targets; the source lines come from DWARF
cn annotate.jumps '(.instructions | length) as $n | [([.instructions[] | select(.jumps_to)] | length > 3),
	([.instructions[] | select(.jump_target)] | length > 2), ([.instructions[] | select(.line)] | length == $n),
	(.instructions[0].source | endswith("hot.c"))]' \
	'[true, true, true, true]' annotate "$AT/hot.data" --name mix "${PIN[@]}"
# what the view counts is what the instructions count: a time range and IncPats keep the
# function's exclusive samples of ByName, and the names perf and byname use both work
for f in "--start 100 --end 300" "--inc main" "--exc count_bits"; do
	# shellcheck disable=SC2086
	want=$("$SV" byname "$AT/hot.data" "${PIN[@]}" $f --json 2>/dev/null | jq '[.rows[] | select(.name == "hot!mix") | .exc_count] | add // 0')
	# shellcheck disable=SC2086
	got=$("$SV" annotate "$AT/hot.data" --name 'hot!mix' "${PIN[@]}" $f --json 2>/dev/null | jq '[.instructions[].count] | add')
	if [ -n "$want" ] && [ "$want" != 0 ] && [ "$got" = "$want" ]; then ok; else bad "annotate.filters.$f" "got $got, want $want"; fi
done
got=$("$SV" annotate "$AT/hot.data" --name mix "${PIN[@]}" 2>/dev/null | grep -c '^ *[0-9.]* *[0-9]* | [* ][> ] *[0-9a-f]*:' || true)
if [ "$got" = "$(perf_pct "$AD/perf-annotate.mix.txt" | grep -c .)" ]; then ok; else bad annotate.text "$got instruction lines"; fi
"$SV" annotate "$AT/hot.data" --name mix "${PIN[@]}" 2>/dev/null | grep -q '^ *[0-9.]* *[0-9]* | \*' && ok || bad annotate.hottest "no * on the hottest instruction"

# perf script text of the same recording: a frame line's address is kept when the file agrees
# with the symbol and offset the line prints; annotate equals perf annotate of the perf.data,
# Goto Source gives the perf.data's lines, and two reading threads what one gives (120
# copies of the text: two threads from 16 MiB)
gzip -dc "$AD/hot.perf.txt.gz" > "$AT/hot.perf.txt"
ST=(--symfs "$AT/symfs")
for fn in mix count_bits; do
	want=$(perf_pct "$AD/perf-annotate.$fn.txt")
	got=$(our_pct "$AT/hot.perf.txt" --name "$fn" "${ST[@]}")
	if [ -n "$want" ] && [ "$got" = "$want" ]; then ok; else
		bad "annotate.script.$fn" "$(diff <(printf '%s\n' "$want") <(printf '%s\n' "$got") | head -5)"; fi
done
lines() { "$SV" source "$@" --name main --json 2>/dev/null | jq -c '[.lines[] | select(.inc > 0) | [.line, .exc, .inc]]'; }
a=$(lines "$AT/hot.data" "${PIN[@]}")
b=$(lines "$AT/hot.perf.txt" "${ST[@]}")
if [ -n "$a" ] && [ "$a" != "[]" ] && [ "$a" = "$b" ]; then ok; else bad annotate.script.source "$a / $b"; fi
for _ in $(seq 120); do cat "$AT/hot.perf.txt"; done > "$AT/big.perf.txt"
per() { "$SV" annotate "$AT/big.perf.txt" --name mix "${ST[@]}" --threads "$1" --json 2>/dev/null | jq -c '[.count, [.instructions[] | [.address, .count]]]'; }
one=$(per 1)
two=$(per 2)
n=$("$SV" annotate "$AT/hot.perf.txt" --name mix "${ST[@]}" --json 2>/dev/null | jq .count)
if [ -n "$n" ] && [ "$one" = "$two" ] && [ "$(printf '%s' "$one" | jq '.[0]')" = $((n * 120)) ] &&
	"$SV" info "$AT/big.perf.txt" "${ST[@]}" 2>&1 | grep -q 'read by two threads'; then ok; else bad annotate.script.threads "$n: ${one:0:80} / ${two:0:80}"; fi
rm -f "$AT/big.perf.txt"
# info says how many files were found; a file that is not the one recorded (another program at
# the path) gives no address rather than its instructions
"$SV" info "$AT/hot.perf.txt" "${ST[@]}" 2>&1 | grep -q 'code for annotate: 1 file, read where the frame lines name them' && ok ||
	bad annotate.script.info "$("$SV" info "$AT/hot.perf.txt" "${ST[@]}" 2>&1 | grep 'code for')"
mkdir -p "$AT/wrong/tmp/stackview-annotate"
cp "$AD/inlhot" "$AT/wrong/tmp/stackview-annotate/hot"
e annotate.script.other-binary 1 "hot.perf.txt has no code addresses in files found here" -- \
	annotate "$AT/hot.perf.txt" --name mix --symfs "$AT/wrong"
"$SV" info "$AT/hot.perf.txt" --symfs "$AT/wrong" 2>&1 | grep -q 'code for annotate: none of the files the frame lines name is here as recorded' &&
	ok || bad annotate.script.info-none "$("$SV" info "$AT/hot.perf.txt" --symfs "$AT/wrong" 2>&1 | grep 'code for')"

# what cannot be annotated says why, on one line after the load's warnings, exit 1 or 2
ea() { # ID EXIT REGEX -- ARGS...
	local id=$1 want=$2 rx=$3 err st
	shift 4
	err=$("$SV" "$@" 2>&1 >/dev/null)
	st=$?
	if [ "$st" = "$want" ] && printf '%s' "$err" | tail -n 1 | grep -Eq -- "^stackview: .*$rx" &&
		[ "$(printf '%s\n' "$err" | grep -vc 'warning:')" = 1 ]; then ok; else bad "$id" "exit $st: $err"; fi
}
e annotate.bad.nocode 1 'has no code addresses' -- annotate examples/tutorial.perfView.xml --name Main
# a pprof profile whose binary is not here (the fixture's was built in a directory since
# removed; looked for under an empty --symfs, so that no host can have it)
mkdir -p "$AT/empty-symfs"
e annotate.pprof.nobinary 1 'has no code addresses in files found here .*pprof profiles, with the profiled binary at the path they name' -- \
	annotate tests/data/pprof/cpu.pb.gz --name main.hashLoop --symfs "$AT/empty-symfs"
e annotate.bad.noname 2 'annotate needs --name' -- annotate "$AT/hot.data" "${PIN[@]}"
ea annotate.bad.unknown 2 "no sample in the view executed in 'nosuchfn'" -- annotate "$AT/hot.data" --name nosuchfn "${PIN[@]}"
ea annotate.bad.filtered 2 "no sample in the view executed in 'mix' \\(the filters leave none of its samples\\)" -- annotate "$AT/hot.data" --name mix --exc mix "${PIN[@]}"
# a debug-only file where the binary should be: the code is not there, and the error says so
mkdir -p "$AT/dbg/tmp/stackview-annotate"
objcopy --only-keep-debug "$AD/hot" "$AT/dbg/tmp/stackview-annotate/hot"
ea annotate.bad.debugonly 1 'holds no code \(a debug-only file\)' -- annotate "$AT/hot.data" --name mix --symfs "$AT/dbg" --kallsyms /nonexistent
# the binary missing: no symbols, so no function of that name (the load's warning names the file)
mkdir -p "$AT/empty"
ea annotate.bad.nofile 2 "no sample in the view executed in 'mix'" -- annotate "$AT/hot.data" --name mix --symfs "$AT/empty" --kallsyms /nonexistent

# the terminal UI: a on a row annotates its function with the hottest instruction selected,
# Tab moves to the next hot one (0.5 % or more, in address order), any other key closes
printf '# annotate\n/ "mix" <Enter> a :dump\n<Tab> :dump\nq :dump\n' > "$AT/ann.keys"
scr=$("$SV" view "$AT/hot.data" "${PIN[@]}" --script "$AT/ann.keys" --size 120x24 2>/dev/null)
json=$("$SV" annotate "$AT/hot.data" --name mix "${PIN[@]}" --json 2>/dev/null)
hot=$(printf '%s' "$json" | jq -r '.instructions | max_by(.percent) | .address')
next=$(printf '%s' "$json" | jq -r --arg h "$hot" '.instructions as $i | ($i | map(.address) | index($h)) as $k
	| [$i[$k + 1:][] | select(.percent >= 0.5)][0].address')
foot() { printf '%s\n' "$scr" | awk -v n="$1" '/^----$/ {k++; next} k == n - 1 && /^Tab\/n next hot/ {print}'; }
if foot 1 | grep -q "\*[> ] *$hot:" && foot 2 | grep -q " $next:" && printf '%s\n' "$scr" | awk '/^----$/ {k++} k == 2' | grep -q '^ 1 ByName'; then
	ok; else bad annotate.tui "hottest $hot, next $next: $(foot 1) / $(foot 2)"; fi
# the same on the recording's perf script text: the same hottest instruction
scr=$("$SV" view "$AT/hot.perf.txt" "${ST[@]}" --script "$AT/ann.keys" --size 120x24 2>/dev/null)
if foot 1 | grep -q "\*[> ] *$hot:"; then ok; else bad annotate.tui.script "hottest $hot: $(foot 1)"; fi
# a source without addresses says so instead of annotating
printf '# annotate\na :dump\n' > "$AT/noaddr.keys"
"$SV" view examples/tutorial.perfView.xml --script "$AT/noaddr.keys" --size 120x24 2>/dev/null | grep -q 'Annotate needs code addresses' &&
	ok || bad annotate.tui.noaddr "no status line"

# Inline frames at call sites (issue 36 point 4): spin() is called from inside three levels of
# inlined functions; a --call-graph dwarf recording (tests/data/inline, perf 6.1) keeps every
# level above the call as perf does, and each (inlined) row's Inc equals perf report's
# children column (perf-report.children.txt, made with --symfs on the same binary).
ID=tests/data/inline
mkdir -p "$AT/isymfs/tmp/stackview-inline"
cp "$ID/inl" "$AT/isymfs/tmp/stackview-inline/inl"
gzip -dc "$ID/inl.data.gz" > "$AT/inl.data"
want=$(awk '/^ +[0-9.]+%.*\(inlined\)$/ {p = $1; sub("%", "", p); s = $0; sub(/.*\] /, "", s); print s, p}' "$ID/perf-report.children.txt" | sort)
got=$("$SV" byname "$AT/inl.data" --symfs "$AT/isymfs" --kallsyms /nonexistent --json 2>/dev/null |
	jq -r '.summary.metric as $t | .rows[] | select(.name | endswith("(inlined)")) | "\(.name | sub("^[^!]*!"; "")) \(.inc * 100 / $t)"' |
	awk '{n = $NF; $NF = ""; sub(/ $/, ""); printf "%s %.2f\n", $0, n}' | sort)
if [ "$(printf '%s\n' "$want" | grep -c inlined)" = 3 ] && [ "$got" = "$want" ]; then ok; else bad annotate.inline.levels "got [$got], want [$want]"; fi

# Goto Source (stackview source): each line's inclusive cost is what passes through it: main's
# call of mix (line 34) is mix's Inc in ByName, its call of count_bits (line 35) the Inc of
# count_bits and of __popcountdi2 (a leaf without a frame: frame-pointer stacks put it under
# main directly), under the same boxes; a line's exclusive samples are annotate's samples of
# that line's instructions.
for f in "" "--start 100 --end 300" "--exc mix"; do
	# shellcheck disable=SC2086
	bn=$("$SV" byname "$AT/hot.data" "${PIN[@]}" $f --json 2>/dev/null | jq -c '[.rows[] | {(.name): .inc_count}] | add
		| [["hot!mix", (.["hot!mix"] // 0)], ["calls", (.["hot!count_bits"] // 0) + (.["hot!__popcountdi2"] // 0)]]')
	# shellcheck disable=SC2086
	src=$("$SV" source "$AT/hot.data" --name main "${PIN[@]}" $f --json 2>/dev/null |
		jq -c '[.lines[] | select(.source | endswith("hot.c")) | {(.line | tostring): .inc_count}] | add | [["hot!mix", (.["34"] // 0)], ["calls", (.["35"] // 0)]]')
	if [ -n "$bn" ] && [ "$src" = "$bn" ]; then ok; else bad "annotate.source.inc.${f:-all}" "source $src, byname $bn"; fi
done
want=$("$SV" annotate "$AT/hot.data" --name mix "${PIN[@]}" --json 2>/dev/null | jq -c '[.instructions[] | select(.count > 0) | {line, count}] | group_by(.line) | map([.[0].line, (map(.count) | add)])')
got=$("$SV" source "$AT/hot.data" --name mix "${PIN[@]}" --json 2>/dev/null | jq -c '[.lines[] | select(.exc_count > 0) | [.line, .exc_count]]')
if [ -n "$want" ] && [ "$want" != "[]" ] && [ "$got" = "$want" ]; then ok; else bad annotate.source.exc "source $got, annotate $want"; fi
# the source text: not at the recorded path here, found with --source-path, the hottest line
# is mix's hottest line
txt=$("$SV" source "$AT/hot.data" --name mix "${PIN[@]}" 2>/dev/null)
# (a machine that has the recorded source path checks nothing here)
if [ -e /tmp/stackview-annotate/hot.c ] || printf '%s' "$txt" | grep -q 'hot.c   (source not found; looked at /tmp/stackview-annotate/hot.c)'; then
	ok; else bad annotate.source.missing "$(printf '%s' "$txt" | sed -n 3p)"; fi
mkdir -p "$AT/src"
cp "$AD/hot.c" "$AT/src/"
"$SV" source "$AT/hot.data" --name mix "${PIN[@]}" --source-path "$AT/src" 2>/dev/null | grep -Eq '^ +11 +[0-9.]+ .*\| +s \+= sqrt\(x \+ i\);' && ok || bad annotate.source.path "line 11 not shown with its text"
# a prefix map (OLD=NEW, as perf annotate's --prefix and gdb's substitute-path) after a
# directory that has nothing
"$SV" source "$AT/hot.data" --name mix "${PIN[@]}" --source-path "$AT/nothing:/tmp/stackview-annotate=$AT/src" 2>/dev/null |
	grep -Eq '^ +11 +[0-9.]+ .*\| +s \+= sqrt\(x \+ i\);' && ok || bad annotate.source.prefix "line 11 not shown with its text"
ea annotate.source.noaddr 1 'has no code addresses' -- source examples/tutorial.perfView.xml --name Main
# Goto Source in the terminal UI (Alt-D): the file is read again for the callers' addresses
# (a view on the stack), then main's lines with the line of its heaviest call selected
printf '# source\n/ "main" <Enter> <M-d> :dump\nq :dump\n' > "$AT/src.keys"
scr=$("$SV" view "$AT/hot.data" "${PIN[@]}" --script "$AT/src.keys" --size 120x30 2>/dev/null)
first=$(printf '%s\n' "$scr" | awk '/^----$/ {exit} {print}')
if printf '%s\n' "$first" | grep -q '^Goto Source: hot!main' && printf '%s\n' "$first" | grep -Eq '^Tab/n next hot .*: +34 +[0-9.]+' &&
	printf '%s\n' "$scr" | awk '/^----$/ {k++} k == 1' | grep -q '^code paths'; then ok; else bad annotate.source.tui "$(printf '%s\n' "$first" | grep -E '^(Goto|Tab)')"; fi
# ... and from the perf script text, read again the same way (its libc, not under --symfs, has
# no addresses: the search goes to the program's main)
printf '# source\n/ "hot!main" <Enter> <M-d> :dump\nq :dump\n' > "$AT/src-text.keys"
scr=$("$SV" view "$AT/hot.perf.txt" "${ST[@]}" --script "$AT/src-text.keys" --size 120x30 2>/dev/null)
first=$(printf '%s\n' "$scr" | awk '/^----$/ {exit} {print}')
if printf '%s\n' "$first" | grep -q '^Goto Source: hot!main' && printf '%s\n' "$first" | grep -Eq '^Tab/n next hot .*: +34 +[0-9.]+'; then
	ok; else bad annotate.source.tui.script "$(printf '%s\n' "$first" | grep -E '^(Goto|Tab)')"; fi
# a drilled-into view keeps its samples' addresses: annotate there is the same function
printf '# drill\n/ "mix" <Enter> <C-d> / "mix" <Enter> a :dump\n' > "$AT/drill.keys"
scr=$("$SV" view "$AT/hot.data" "${PIN[@]}" --script "$AT/drill.keys" --size 120x24 2>/dev/null)
if printf '%s\n' "$scr" | grep -q "^Annotate: mix .*, $n samples in the view" && printf '%s\n' "$scr" | grep -q "\*[> ] *$hot:"; then
	ok; else bad annotate.tui.drill "$(printf '%s\n' "$scr" | grep -E '^(Annotate|Tab)' | head -2)"; fi
# an inlined function has no code of its own: annotate and source name the function it was
# inlined into (lvl1 and lvl3 into outer)
for c in annotate source; do
	ea "annotate.inlined.$c" 2 "$c: inl!lvl3 \\(inlined\\) is inlined: .*$c --name 'inl!outer' shows them" -- \
		$c "$AT/inl.data" --name lvl3 --symfs "$AT/isymfs" --kallsyms /nonexistent
done
# a source path that is a FIFO is not opened (it would block): the table without text
mkdir -p "$AT/fifo"
mkfifo "$AT/fifo/hot.c"
got=$(timeout 20 "$SV" source "$AT/hot.data" --name mix "${PIN[@]}" --source-path "/tmp/stackview-annotate=$AT/fifo" 2>/dev/null | sed -n 3p)
case $got in *"source not found; looked at"*"$AT/fifo/hot.c"*) ok ;; *) bad annotate.source.fifo "got: $got" ;; esac

# Goto Source of inlined code (issue 36 points 2 and 4): inlhot.c's work() runs a loop inlined
# from loop.h two levels deep (hash_range, which calls mix_step). Each line's exclusive
# samples are those perf script -F ip,sym,srcline (the oracle, perf 6.1) gives that line as
# the leaf's; its inclusive ones those with a frame of work at it, and the lines the code was
# inlined at (loop.h:11 calls mix_step, inlhot.c:6 hash_range) every sample of the code
# inlined there, in its own file (perf script names the innermost line only).
gzip -dc "$AD/inlhot.data.gz" > "$AT/inlhot.data"
want=$(gzip -dc "$AD/perf-script.srcline.txt.gz" | inlhot_srclines)
got=$("$SV" source "$AT/inlhot.data" --name work "${PIN[@]}" --json 2>/dev/null |
	jq -r '.lines[] | select(.inc_count > 0) | "\(.source | sub(".*/"; "")):\(.line) \(.inc_count) \(.exc_count)"' | sort)
if [ "$(printf '%s\n' "$want" | wc -l)" -ge 6 ] && [ "$got" = "$want" ]; then ok; else
	bad annotate.source.inlined "$(diff <(printf '%s\n' "$want") <(printf '%s\n' "$got") | head -6 | tr '\n' '|')"; fi
# the function's own file first, then the inlined lines in theirs
got=$("$SV" source "$AT/inlhot.data" --name work "${PIN[@]}" --source-path "$AD" 2>/dev/null | grep -E '^(/|  +(6|11) )' | tr -s ' ' | tr '\n' '|')
case $got in *"/inlhot.c| 6 "*"hash_range(n);|"*"/loop.h| 11 "*"mix_step(h, i);|") ok ;; *) bad annotate.source.inlined-text "$got" ;; esac

# Sources from debuginfod's source API (issue 36 point 2), as distributions serve them: a real
# debuginfod on loopback indexing a .deb that holds the binary and its sources at the paths
# its DWARF names; here those paths do not exist. Goto Source and annotate show the text of
# both files, and the cache holds them; without a server the lines say what was looked at.
if command -v debuginfod > /dev/null && command -v dpkg-deb > /dev/null && command -v bsdtar > /dev/null &&
	[ ! -e /tmp/stackview-annotate/inlhot.c ]; then
	mkdir -p "$AT/deb/pkg/DEBIAN" "$AT/deb/pkg/tmp/stackview-annotate" "$AT/deb/archive"
	printf 'Package: inlhot\nVersion: 1.0\nArchitecture: amd64\nMaintainer: stackview tests <tests@localhost>\nDescription: a test program and its sources\n' \
		> "$AT/deb/pkg/DEBIAN/control"
	cp "$AD/inlhot" "$AD/inlhot.c" "$AD/loop.h" "$AT/deb/pkg/tmp/stackview-annotate/"
	dpkg-deb -Zgzip --root-owner-group --build "$AT/deb/pkg" "$AT/deb/archive/inlhot_1.0_amd64.deb" > /dev/null
	DPORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
	timeout 120 debuginfod -d "$AT/deb/db.sqlite" -p "$DPORT" -U "$AT/deb/archive" > "$AT/deb/log" 2>&1 &
	DGD=$!
	bid=8d5dcd53e50653a16dc9b0a9241431c84c5a826e
	for _ in $(seq 1 100); do # until it has indexed the archive (at most 20 s)
		[ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$DPORT/buildid/$bid/source/tmp/stackview-annotate/loop.h")" = 200 ] && break
		sleep 0.2
	done
	got=$(DEBUGINFOD_URLS="http://127.0.0.1:$DPORT" DEBUGINFOD_CACHE_PATH="$AT/deb/cache" "$SV" source "$AT/inlhot.data" --name work "${PIN[@]}" 2>/dev/null |
		grep -E '^(/|  +(6|11) )' | tr -s ' ' | tr '\n' '|')
	case $got in *"/inlhot.c| 6 "*"hash_range(n);|"*"/loop.h| 11 "*"mix_step(h, i);|") ok ;; *) bad annotate.source.debuginfod "$got" ;; esac
	if [ -s "$AT/deb/cache/$bid/source##tmp##stackview-annotate##loop.h" ]; then ok; else
		bad annotate.source.debuginfod.cache "$(ls -R "$AT/deb/cache" 2>&1 | head -5 | tr '\n' ' ')"; fi
	got=$(DEBUGINFOD_URLS="http://127.0.0.1:$DPORT" DEBUGINFOD_CACHE_PATH="$AT/deb/cache" "$SV" annotate "$AT/inlhot.data" --name work "${PIN[@]}" 2>/dev/null | grep -c 'loop.h:9 *unsigned long h = 0;')
	if [ "$got" -ge 1 ]; then ok; else bad annotate.debuginfod "annotate shows no source line from debuginfod"; fi
	kill "$DGD" 2> /dev/null
	wait "$DGD" 2> /dev/null
	got=$("$SV" source "$AT/inlhot.data" --name work "${PIN[@]}" 2>/dev/null | grep -c 'source not found; looked at /tmp/stackview-annotate/')
	if [ "$got" -ge 2 ]; then ok; else bad annotate.source.debuginfod.none "without a server: $got files said not found"; fi
elif [ -e /tmp/stackview-annotate/inlhot.c ]; then
	echo "skip annotate.source.debuginfod: this machine has the recorded source path"
else
	bad annotate.source.debuginfod "debuginfod, dpkg-deb or bsdtar missing (make deps-test)"
fi
