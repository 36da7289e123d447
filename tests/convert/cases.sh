# SPDX-License-Identifier: MIT
# convert and the writers: exact round trips, --grouped, escaping, atomic failure handling.
# Sourced by tests/run.sh.
CV=$(mktemp -d)
byname_of() { "$SV" byname "$@" --json | jq -c '[.rows[]|[.name,.exc,.inc,.exc_count]]|sort'; }
info_of() { "$SV" info "$1" --json | jq -c '[.samples,.metric,.count]'; }

# Round trips that carry everything: samples, total and ByName identical. (perf's clock
# periods are summed in whole ns, then shown in ms; PerfView's files hold the ms, summed as
# doubles when read back: the same to the ns.)
TUT=examples/tutorial.perfView.xml
ns_of() { if [ "$1" = "$MT" ]; then jq -c 'walk(if type == "number" then . * 1e6 | round else . end)'; else cat; fi; }
for src in "$TUT" "$MT"; do
	want_b=$(byname_of "$src" -g '^Thread->T' | ns_of "$src")
	want_i=$(info_of "$src" | ns_of "$src")
	for ext in perfView.xml perfView.xml.zip perfView.json perfView.json.zip; do
		out="$CV/rt.$ext"
		if ! "$SV" convert "$src" "$out" 2>"$CV/err"; then bad "convert.$ext" "$(cat "$CV/err")"; continue; fi
		if [ "$(info_of "$out" | ns_of "$src")" = "$want_i" ] && [ "$(byname_of "$out" -g '^Thread->T' | ns_of "$src")" = "$want_b" ]; then
			ok
		else
			bad "convert.$(basename "$src").$ext" "info $(info_of "$out" | ns_of "$src") vs $want_i"
		fi
	done
done
# Saved state and notes survive (XML carries them; JSON does not).
"$SV" convert "$TUT" "$CV/st.perfView.xml" -g '[mine] {%}!->m $1' -f Spin
if [ "$(byname_of "$CV/st.perfView.xml")" = "$(byname_of "$TUT" -g '[mine] {%}!->m $1' -f Spin)" ]; then ok; else bad convert.state; fi
got=$("$SV" info "$CV/st.perfView.xml")
if printf '%s\n' "$got" | grep -qxF 'saved GroupPats [mine] {%}!->m $1' && printf '%s\n' "$got" | grep -qxF 'saved FoldPats  Spin' &&
   printf '%s\n' "$got" | grep -q '^notes      The stackview tutorial profile'; then ok; else bad convert.state.boxes "$got"; fi

# Folded keeps the total and ByName (one sample per distinct stack; sums rounded to 1e-6).
"$SV" convert "$TUT" "$CV/t.folded"
r6() { jq -c '[.[]|[.[0],(.[1]*1e6|round),(.[2]*1e6|round)]]'; }
if [ "$(byname_of "$CV/t.folded" | r6)" = "$(byname_of "$TUT" | r6)" ]; then ok; else bad convert.folded.byname; fi
# Flamegraph style for perf input: comm root, no module, _[k], period in ns (= perf report).
"$SV" convert "$MT" "$CV/mt.folded" --folded-style flamegraph
tot=$(awk '{s += $NF} END {printf "%.0f", s}' "$CV/mt.folded")
want=5810810805 # perf report's "Event count" for this recording (shared/data/perf/oracle)
if [ "$tot" = "$want" ]; then ok; else bad convert.flamegraph.total "$tot vs $want"; fi
# The script's header expression takes the shortest comm it can: "42 7 10/10 ..." is comm 42.
if grep -q '^42;start_thread;worker;' "$CV/mt.folded" && grep -q 'pvm_irq_enable_\[k\] ' "$CV/mt.folded" && ! grep -q '!' "$CV/mt.folded"; then ok; else bad convert.flamegraph.names "$(head -c 200 "$CV/mt.folded")"; fi
# Through a view (a filter, or perf.data) the comm is the process's own name.
"$SV" convert "$MT" "$CV/mtv.folded" --folded-style flamegraph --exc zzNoSuchFramezz
if grep -q '^42_7;start_thread;worker;' "$CV/mtv.folded" && [ "$(awk '{s += $NF} END {printf "%.0f", s}' "$CV/mtv.folded")" = "$want" ]; then ok; else bad convert.flamegraph.view "$(head -c 200 "$CV/mtv.folded")"; fi

# stackcollapse-perf.pl's own test inputs (FlameGraph, CDDL: tests/data/flamegraph) give the
# script's expected output in each of its six modes, byte for byte; the extended tests do all
# thirteen inputs. Where an input ends without a blank line the script leaves its last sample
# out and stackview keeps it (with a note): there the output is the script's plus that sample.
FGD=tests/data/flamegraph
# C++'s "(anonymous namespace)" is not an argument list: the script's name rule
# s/\((?!anonymous namespace\)).*// (applied here by perl itself) keeps it and cuts at the
# first other "(" (a node recording's v8 frames lost 92 % of their names before)
printf 'node 100 1.000: 1 cpu-clock:\n\t7f0000001000 v8::internal::(anonymous namespace)::IterateObjectCache(v8::internal::Isolate*)+0x10 (/usr/bin/node)\n\t7f0000002000 v8::(anonymous namespace)::Run(int) const+0x4 (/usr/bin/node)\n\t7f0000003000 main+0x1 (/usr/bin/node)\n\n' > "$CV/anon.txt"
want="node;main;$(printf '%s' 'v8::(anonymous namespace)::Run(int) const' | perl -pe 's/\((?!anonymous namespace\)).*//');$(printf '%s' 'v8::internal::(anonymous namespace)::IterateObjectCache(v8::internal::Isolate*)' | perl -pe 's/\((?!anonymous namespace\)).*//') 1"
"$SV" convert "$CV/anon.txt" "$CV/anon.folded" --folded-style flamegraph
if [ "$(cat "$CV/anon.folded")" = "$want" ]; then ok; else bad flamegraph.anonymous-namespace "got '$(cat "$CV/anon.folded")', want '$want'"; fi
# Other projects' names, each through the script's own rules as perl applies them: a Go method
# "(*T).M" is kept whole (the script's m/\.\(.*\)\./ guard), std::function's "<int (int, int)>"
# is cut at its "(" as the script cuts it, a versioned kernel image in brackets is a kernel
# module (_[k]: m/^\[/) and one by path is not (no vmlinux$), and a jitdump image
# (jitted-PID-N.so) gets no _[j] (only /tmp/perf-PID.map does).
printf 'app 1 1.000: 1 cpu-clock:
	1 std::function<int (int, int)>::operator()(int, int) const+0x1 (/bin/app)
	2 main.(*Server).Serve+0x2 (/bin/app)
	3 do_x+0x3 ([vmlinux-5.4.14-generic])
	4 do_y+0x4 (/boot/vmlinux-5.4.14-generic)
	5 Interp+0x5 (/root/.debug/jit/java-jit-1/jitted-12-3.so)
	6 main+0x6 (/bin/app)

' > "$CV/names.txt"
rule() { printf '%s' "$1" | perl -pe 'if (!m/\.\(.*\)\./) { s/\((?!anonymous namespace\)).*//; }'; }
want="app;main;Interp;do_y;do_x_[k];$(rule 'main.(*Server).Serve');$(rule 'std::function<int (int, int)>::operator()(int, int) const') 1"
"$SV" convert "$CV/names.txt" "$CV/names.folded" --folded-style flamegraph
if [ "$(cat "$CV/names.folded")" = "$want" ]; then ok; else bad flamegraph.other-names "got '$(cat "$CV/names.folded")', want '$want'"; fi
for f in "$FGD"/perf-*.txt; do
	b=$(basename "$f" .txt)
	for m in pid tid kernel jit all addrs; do
		"$SV" convert "$f" "$CV/fg.folded" --folded-style "flamegraph-$m" 2> "$CV/fg.err"
		fg_expected "$f" "$m" "$FGD/results/$b-collapsed-$m.txt" "$CV/fg.want" || { bad "flamegraph.$b.$m" "last sample folds to nothing"; continue; }
		if cmp -s "$CV/fg.folded" "$CV/fg.want"; then ok; else bad "flamegraph.$b.$m" "$(diff "$CV/fg.folded" "$CV/fg.want" | head -4 | cut -c1-200)"; fi
	done
done
# --folded-style flamegraph is the script's --all; options combine.
"$SV" convert "$FGD/perf-java-faults-01.txt" "$CV/fg1.folded" --folded-style flamegraph
"$SV" convert "$FGD/perf-java-faults-01.txt" "$CV/fg2.folded" --folded-style flamegraph-kernel,jit
if cmp -s "$CV/fg1.folded" "$FGD/results/perf-java-faults-01-collapsed-all.txt" && cmp -s "$CV/fg1.folded" "$CV/fg2.folded"; then ok; else bad flamegraph.all-is-default; fi
# An inline chain a->b->c (perf-map-agent's unfolded frames): the parts after the first are
# _[i], root side first; a second event is left out with a note; a last sample with no blank
# line after it is kept with a note; the script's default has no annotations.
printf 'app 10/11 [000] 1.0: 1000 cycles:u: \n\t1 Lcom/x/A;.run(I)V->Lcom/x/B;.go()V (/tmp/perf-10.map)\n\tffff8100 do_x+0x10 ([kernel.kallsyms])\n\t7f00 [unknown] (/usr/lib/libc.so.6)\n\nother 12/12 [000] 1.1: 5 cycles: \n\t2 f (/bin/x)\n\napp 10/11 [000] 1.2: 7 cycles:u: \n\t1 main (/bin/app)\n' > "$CV/inl.txt"
"$SV" convert "$CV/inl.txt" "$CV/inl.folded" --folded-style flamegraph-all 2> "$CV/inl.err"
if [ "$(cat "$CV/inl.folded")" = 'app;[libc.so.6];do_x_[k];Lcom/x/A:.run_[j];Lcom/x/B:.go_[i] 1000
app;main 7' ] &&
	grep -q 'only event cycles:u was collapsed; 1 samples of other events' "$CV/inl.err" &&
	grep -q 'last sample had no blank line after it; it is kept' "$CV/inl.err"; then ok; else bad flamegraph.inline "$(cat "$CV/inl.folded" "$CV/inl.err")"; fi
"$SV" convert "$CV/inl.txt" "$CV/inl0.folded" --folded-style flamegraph-default 2> /dev/null
if [ "$(cat "$CV/inl0.folded")" = 'app;[libc.so.6];do_x;Lcom/x/A:.run;Lcom/x/B:.go_[i] 1000
app;main 7' ]; then ok; else bad flamegraph.default "$(cat "$CV/inl0.folded")"; fi
# perf script without -g (tests/data/perf-text/oneline.txt, recorded here): one line a sample,
# comm right-aligned, its one frame after the event. The script collapses none of them (no
# blank lines, a header it does not see); stackview folds each as the same sample written out
# the script's way (header, frame line, blank line) folds.
OL=tests/data/perf-text/oneline.txt
sed -E 's/^ *(.*: +[0-9]* *[^ ]+:) +(.*)$/\1\n\t\2\n/' "$OL" > "$CV/ol-multi.txt"
for m in all pid addrs; do
	"$SV" convert "$OL" "$CV/ol.folded" --folded-style "flamegraph-$m" 2> "$CV/ol.err"
	"$SV" convert "$CV/ol-multi.txt" "$CV/olm.folded" --folded-style "flamegraph-$m" 2> /dev/null
	if [ -s "$CV/ol.folded" ] && cmp -s "$CV/ol.folded" "$CV/olm.folded" && [ "$(awk '{ n += $NF } END { print n }' "$CV/ol.folded")" = 60060060 ] &&
		grep -q '60 samples had their one frame on the header line' "$CV/ol.err"; then ok; else bad "flamegraph.oneline.$m" "$(diff "$CV/ol.folded" "$CV/olm.folded" | head -3; cat "$CV/ol.err")"; fi
done
e flamegraph.style.bad 2 "--folded-style must be 'plain', 'flamegraph'" -- convert "$CV/inl.txt" "$CV/x.folded" --folded-style flamegraph-nope
e flamegraph.style.perfdata 2 'reads perf script text' -- convert "$TUT" "$CV/x.folded" --folded-style flamegraph-pid
e flamegraph.style.filter 2 'with no filter' -- convert "$CV/inl.txt" "$CV/x.folded" --folded-style flamegraph-tid --inc app
e flamegraph.style.output 2 'is for .folded output' -- convert "$CV/inl.txt" "$CV/x.perfView.xml" --folded-style flamegraph

# --grouped: re-importing gives the grouped view's ByName.
G='[group module entries]  {%}!=>module $1'
"$SV" convert "$TUT" "$CV/g.perfView.xml" --grouped -g "$G" -f 'DateTime' -p 2
if [ "$(byname_of "$CV/g.perfView.xml")" = "$(byname_of "$TUT" -g "$G" -f DateTime -p 2)" ]; then ok; else bad convert.grouped; fi
# A time range prorates time-metric samples before they are written.
"$SV" convert "$TUT" "$CV/r.perfView.xml" --start 100.5 --end 2000.25
want=$("$SV" calltree "$TUT" --start 100.5 --end 2000.25 --json | jq -c '[.summary.metric,.summary.first,.summary.last]')
c convert.range '[.summary.metric,.summary.first,.summary.last]' "$want" calltree "$CV/r.perfView.xml"

# Names that need escaping stay names (invalid UTF-8 becomes U+FFFD); output is well formed.
printf '{"StackSource":{"Samples":[{"Stack":["a<b&c\\"d>", "x\\u0001y", "ok\\tz"]}]}}' > "$CV/n.perfView.json"
printf '<StackSource><Samples><Sample>bad\xffbyte</Sample></Samples></StackSource>' > "$CV/b.perfView.xml"
for ext in perfView.xml perfView.json folded; do
	"$SV" convert "$CV/n.perfView.json" "$CV/n2.$ext"
	got=$(byname_of "$CV/n2.$ext" | jq -c '[.[]|.[0]]')
	case $ext in
	perfView.xml) want='["ROOT","a<b&c\"d>","ok\tz","x\ufffdy"]' ;;
	*) want='["ROOT","a<b&c\"d>","ok\tz","x\u0001y"]' ;;
	esac
	if [ "$got" = "$(printf '%s' "$want" | jq -c .)" ]; then ok; else bad "convert.escape.$ext" "$got"; fi
done
"$SV" convert "$CV/b.perfView.xml" "$CV/b2.perfView.json" 2>/dev/null && c convert.utf8 '[.rows[]|.name]|sort' '["ROOT","bad\ufffdbyte"]' byname "$CV/b2.perfView.json" || ok

# Failures: exit 3, nothing half-written, no temporary left, an old file untouched.
e convert.nodir 3 "^stackview: $CV/missing/x.perfView.xml: cannot create a file in $CV/missing" -- convert "$TUT" "$CV/missing/x.perfView.xml"
e convert.ext 2 "cannot tell the output format from the name" -- convert "$TUT" "$CV/x.png"
printf 'OLD' > "$CV/keep.perfView.json"
( trap '' XFSZ; ulimit -f 16; "$SV" convert "$TUT" "$CV/keep.perfView.json" ) 2>"$CV/err"
st=$?
if [ "$st" = 3 ] && [ "$(cat "$CV/keep.perfView.json")" = OLD ] && ! ls -A "$CV" | grep -q '\.tmp\.'; then ok; else bad convert.atomic "exit $st, $(cat "$CV/err"), $(ls -A "$CV" | grep tmp)"; fi
# The mode of a new file follows the umask.
( umask 027; "$SV" convert "$TUT" "$CV/mode.folded" )
if [ "$(stat -c %a "$CV/mode.folded")" = 640 ]; then ok; else bad convert.mode "$(stat -c %a "$CV/mode.folded")"; fi
rm -rf "$CV"

# ---- an interrupted convert (SIGINT, SIGTERM) keeps the old file and leaves no temporary ----
IT=$(mktemp -d)
yes 'main;work;more;deeper;leaf 1' | head -n 3000000 > "$IT/big.folded"
for sig in INT TERM; do
	printf 'old\n' > "$IT/out.perfView.xml"
	env --default-signal=INT "$SV" convert "$IT/big.folded" "$IT/out.perfView.xml" &
	pid=$!
	seen=
	for _ in $(seq 500); do # the signal arrives while the temporary is being written
		if compgen -G "$IT/.out.perfView.xml.tmp.*" > /dev/null; then seen=1; break; fi
		sleep 0.01
	done
	kill -s "$sig" "$pid" 2> /dev/null
	wait "$pid"
	st=$?
	left=$(compgen -G "$IT/.out.perfView.xml.tmp.*" | wc -l)
	if [ -n "$seen" ] && [ "$st" -gt 128 ] && [ "$(cat "$IT/out.perfView.xml")" = old ] && [ "$left" = 0 ]; then
		ok
	else
		bad "convert.interrupted.$sig" "temporary seen: ${seen:-no}, exit $st, file: $(head -c 20 "$IT/out.perfView.xml"), temporaries left: $left"
	fi
done
# Streaming folded output (no filter: samples add up per stack while reading, no view) gives
# exactly the bytes the full path gives (an ExcPats that matches nothing forces that path).
# tests/extended/cases.sh does the same for perf.data and ETL.
# (FlameGraph style on perf script text with no filter is stackcollapse-perf.pl's own rules on
# the text, not a view: checked above against the script's outputs.)
for f in "$MT" examples/tutorial.perfView.xml; do
	for style in plain flamegraph; do
		[ "$f" = "$MT" ] && [ $style = flamegraph ] && continue
		"$SV" convert "$f" "$IT/s.folded" --folded-style "$style" 2> /dev/null
		"$SV" convert "$f" "$IT/f.folded" --folded-style "$style" --exc zzNoSuchFramezz 2> /dev/null
		if [ -s "$IT/s.folded" ] && cmp -s "$IT/s.folded" "$IT/f.folded"; then ok; else bad "convert.stream.$(basename "$f").$style" "$(cmp "$IT/s.folded" "$IT/f.folded" 2>&1)"; fi
	done
done
rm -rf "$IT"
# Folded output reads back as written (issue 15 point 8): plain decimals, no exponents; what
# folded cannot hold (negative counts, an empty profile) is refused, not written.
printf '<StackSource><Samples><Sample Metric="0.000003">a\nb</Sample><Sample Metric="1e63">c</Sample><Sample Metric="0.1">d</Sample></Samples></StackSource>' > "$TMP/num.perfView.xml"
"$SV" convert "$TMP/num.perfView.xml" "$TMP/num.folded" && "$SV" convert "$TMP/num.folded" "$TMP/num2.folded"
if cmp -s "$TMP/num.folded" "$TMP/num2.folded" && grep -qx 'b;a 0.000003' "$TMP/num.folded" && ! grep -q 'e[+-]' "$TMP/num.folded"; then ok; else bad folded.plain-numbers "$(cat "$TMP/num.folded" 2>&1 | head -3)"; fi
printf '<StackSource><Samples><Sample Metric="-2">a</Sample></Samples></StackSource>' > "$TMP/neg.perfView.xml"
e folded.negative 3 'folded stacks cannot hold a negative count' -- convert "$TMP/neg.perfView.xml" "$TMP/neg.folded"
e folded.empty 3 'folded stacks cannot hold an empty profile' -- convert examples/base.perfView.xml "$TMP/empty.folded" --exc app
if [ ! -e "$TMP/neg.folded" ] && [ ! -e "$TMP/empty.folded" ]; then ok; else bad folded.refused-leaves-nothing "a refused export left a file"; fi
# Special files as OUT (issue 15 point 9): a symlink is followed (its target replaced, the
# link kept), a FIFO is refused at once and left as it was.
mkdir -p "$TMP/sp" && echo old > "$TMP/sp/real.folded" && ln -sf real.folded "$TMP/sp/link.folded"
"$SV" convert examples/base.perfView.xml "$TMP/sp/link.folded" 2>/dev/null
if [ -L "$TMP/sp/link.folded" ] && grep -q 'app!main' "$TMP/sp/real.folded"; then ok; else bad out.symlink "$(ls -la "$TMP/sp" | tail -2)"; fi
rm -f "$TMP/sp/f.folded" && mkfifo "$TMP/sp/f.folded"
e out.fifo 3 'f\.folded: is a FIFO, not a file: not replaced' -- convert examples/base.perfView.xml "$TMP/sp/f.folded"
if [ -p "$TMP/sp/f.folded" ]; then ok; else bad out.fifo-kept "the FIFO was replaced"; fi
# An output name near the 255-byte limit is written (its temporary gets a short name).
long=$(printf 'n%.0s' $(seq 243))
if "$SV" convert examples/base.perfView.xml "$TMP/$long.folded" 2>/dev/null && [ -s "$TMP/$long.folded" ] &&
	[ -z "$(find "$TMP" -maxdepth 1 -name '.*tmp*')" ]; then ok; else bad out.long-name "not written or a temporary left"; fi
# An interrupt during a long export ends it at once (issue 15 point 6): the temporary goes,
# the old file stays, the program dies of the signal (143). The export below would write
# 8 GB (200,000 samples of a 5,000-deep stack as .perfView.json): held signals used to wait
# for all of it; the timeout only guards against that.
mkdir -p "$TMP/int" && echo old > "$TMP/int/out.perfView.json"
awk 'BEGIN { d = 5000; print "<StackSource><Frames>"; for (i = 0; i < d; i++) printf "<Frame ID=\"%d\">frame_number_%d</Frame>\n", i, i;
	print "</Frames><Stacks>"; for (i = 0; i < d; i++) printf "<Stack ID=\"%d\" CallerID=\"%d\" FrameID=\"%d\"/>\n", i, i - 1, i;
	print "</Stacks><Samples>"; for (i = 0; i < 200000; i++) printf "<Sample Time=\"%d\" StackID=\"%d\"/>\n", i, d - 1;
	print "</Samples></StackSource>" }' > "$TMP/int/deep.perfView.xml"
timeout -s KILL 120 "$SV" convert "$TMP/int/deep.perfView.xml" "$TMP/int/out.perfView.json" 2> "$TMP/int/err" &
pid=$!
for _ in $(seq 600); do [ -n "$(find "$TMP/int" -name '.out*tmp*' -size +1M)" ] && break; sleep 0.1; done
kill -TERM "$pid" 2>/dev/null
wait "$pid"
st=$?
if [ "$st" = 143 ] && [ "$(cat "$TMP/int/out.perfView.json")" = old ] && [ -z "$(find "$TMP/int" -name '.*tmp*')" ]; then ok
else bad out.interrupt "exit $st, $(head -c 100 "$TMP/int/out.perfView.json"), $(ls -a "$TMP/int" | tr '\n' ' ')"; fi
# A write that fails says why (issue 15 point 17): here the file size limit (EFBIG).
if ! out=$(bash -c 'ulimit -f 64; trap "" XFSZ; exec "$0" convert "$1" "$2"' "$SV" "$MT" "$TMP/int/big.perfView.xml" 2>&1) &&
	grep -q 'big\.perfView\.xml: writing failed: File too large' <<< "$out" && [ ! -e "$TMP/int/big.perfView.xml" ]; then ok; else bad out.write-reason "$out"; fi
rm -rf "$TMP/int"
# A temporary left by a killed save (SIGKILL) is removed by the next save beside it when its
# process is gone; a live process's is kept (issue 15 point 17).
mkdir -p "$TMP/st" && dead=$(sh -c 'echo $$')
touch "$TMP/st/.out.folded.tmp.$dead.AbCdEf" "$TMP/st/.out.folded.tmp.$$.AbCdEf" "$TMP/st/.other.tmp.$dead.AbCdEf"
"$SV" convert examples/base.perfView.xml "$TMP/st/out.folded" 2>/dev/null
if [ ! -e "$TMP/st/.out.folded.tmp.$dead.AbCdEf" ] && [ -e "$TMP/st/.out.folded.tmp.$$.AbCdEf" ] &&
	[ -e "$TMP/st/.other.tmp.$dead.AbCdEf" ] && [ -s "$TMP/st/out.folded" ]; then ok; else bad out.stale-temporary "$(ls -a "$TMP/st" | tr '\n' ' ')"; fi
rm -rf "$TMP/st"
# .perfView.json keeps a time-metric source's scaling (issue 15 point 17).
"$SV" convert "$MT" "$TMP/tm.perfView.json" 2>/dev/null
if "$SV" info "$TMP/tm.perfView.json" | grep -q '^scaling *time-metric$' && jq -e '.StackSource.ScalingPolicy == "TimeMetric"' "$TMP/tm.perfView.json" > /dev/null; then ok; else bad json.scaling "$("$SV" info "$TMP/tm.perfView.json" 2>&1 | grep scaling)"; fi
# Folded export streams (issue 15 point 15): 4,000 nested stacks with a sample each make 84 MB
# of lines; they are written from a trie of names under 100 MB of address space (the lines
# used to be built in memory first). Sanitizer builds reserve far more address space: there
# the output is still checked, the bound is not.
awk 'BEGIN { n = 4000; print "<StackSource><Frames>"; for (i = 0; i < n; i++) printf "<Frame ID=\"%d\">frame_%d</Frame>\n", i, i;
	print "</Frames><Stacks>"; for (i = 0; i < n; i++) printf "<Stack ID=\"%d\" CallerID=\"%d\" FrameID=\"%d\"/>\n", i, i - 1, i;
	print "</Stacks><Samples>"; for (i = 0; i < n; i++) printf "<Sample Time=\"%d\" StackID=\"%d\"/>\n", i, i;
	print "</Samples></StackSource>" }' > "$TMP/tri.perfView.xml"
if [ "${SV_VARIANT:-release}" = release ]; then lim=100000; else lim=unlimited; fi
if (ulimit -v "$lim"; "$SV" convert "$TMP/tri.perfView.xml" "$TMP/tri.folded") && [ "$(wc -l < "$TMP/tri.folded")" = 4000 ] &&
	[ "$(tail -1 "$TMP/tri.folded" | tr ';' '\n' | wc -l)" = 4000 ] && [ "$(sed -n 2p "$TMP/tri.folded" | cut -c1-20)" = 'frame_0;frame_1 1' ]; then ok
else bad folded.streams "$(head -c 200 "$TMP/tri.folded" 2>&1)"; fi
rm -f "$TMP/tri.folded" "$TMP/tri.perfView.xml"
# JSON inputs are walked in place, one sample (or frame, or event) parsed at a time (issue 15
# point 12): 200,000 samples in .perfView.json and speedscope load under 150 MB of address
# space (the whole-document DOM took ~23x the file). Not bounded under sanitizers.
awk 'BEGIN { for (i = 0; i < 200000; i++) printf "main;f%d;g%d;h%d 1\n", i % 1000, i, i % 77 }' > "$TMP/j12.folded"
"$SV" convert "$TMP/j12.folded" "$TMP/j12.perfView.json" && "$SV" convert "$TMP/j12.folded" "$TMP/j12.speedscope.json"
if [ "${SV_VARIANT:-release}" = release ]; then lim=150000; else lim=unlimited; fi
for f in j12.perfView.json j12.speedscope.json; do
	if out=$(ulimit -v "$lim"; "$SV" info "$TMP/$f" 2>&1) && grep -q '^samples *200000$' <<< "$out"; then ok; else bad "json.streams.$f" "$out"; fi
done
rm -f "$TMP"/j12.*
# Totals near the largest double still export as valid JSON (issue 15 point 17: an Infinity
# total was written as invalid JSON; past the largest double the source refuses the input).
printf '{"$schema":"https://www.speedscope.app/file-format-schema.json","shared":{"frames":[{"name":"a"},{"name":"b"}]},"profiles":[{"type":"sampled","name":"p","unit":"none","startValue":0,"endValue":1,"samples":[[0],[1]],"weights":[1e308,7e307]}]}' > "$TMP/max.speedscope.json"
if "$SV" convert "$TMP/max.speedscope.json" "$TMP/max2.speedscope.json" && "$SV" convert "$TMP/max.speedscope.json" "$TMP/max2.perfView.json" &&
	jq -e '.profiles[0].endValue > 1.6e308' "$TMP/max2.speedscope.json" > /dev/null && jq -e '.StackSource.Samples | length == 2' "$TMP/max2.perfView.json" > /dev/null; then ok
else bad json.max-total "$(head -c 300 "$TMP/max2.speedscope.json" 2>&1)"; fi
