# SPDX-License-Identifier: MIT
# Command-line behaviour and bad input (sourced by tests/run.sh; see c/t/e there).

# ---- every file in tests/badinput/: exact exit code and one error line naming it ----
# A fourth column holds options (the ETL files without CPU samples name their event so that
# the warning under test is the only line).
while IFS=$'\t' read -r f st rx opt; do
	case "$f" in '#'* | '') continue ;; esac
	# shellcheck disable=SC2086 # $opt is a list of words
	e "bad.$f" "$st" "^stackview: tests/badinput/$f$rx" -- byname $opt "tests/badinput/$f"
done < tests/badinput/expected.txt
# The same under a 512 MiB address-space limit: memory stays bounded whatever the file claims
# (release build only: sanitizers reserve terabytes of address space).
if [ "${SV_VARIANT:-release}" = release ]; then
	while IFS=$'\t' read -r f st rx opt; do
		case "$f" in '#'* | '') continue ;; esac
		# shellcheck disable=SC2086
		got=$( (ulimit -v 524288; "$SV" byname $opt "tests/badinput/$f" > /dev/null 2>&1; echo $?) )
		if [ "$got" = "$st" ]; then ok; else bad "bad.ulimit.$f" "exit $got under ulimit -v 524288, want $st"; fi
	done < tests/badinput/expected.txt
fi

# The external entity is neither fetched nor expanded.
c bad.xxe '[.rows[]|.name]|sort' '["Main","ROOT"]' byname ../../badinput/external-entity.perfView.xml

# Generated inputs: a stack past the depth limit, a name past the length limit, a zip bomb.
{
	printf '<StackSource><Samples><Sample Time="1">\n'
	seq -f 'f%g' 1 100001
	printf '</Sample></Samples></StackSource>\n'
} > "$TMP/too-deep.perfView.xml"
e bad.too-deep 1 ':1: stack deeper than 100000 frames' -- byname "$TMP/too-deep.perfView.xml"
{
	printf '{"StackSource":{"Samples":[{"Stack":["'
	head -c 70000 /dev/zero | tr '\0' x
	printf '"]}]}}\n'
} > "$TMP/long.perfView.json"
e bad.name-too-long 1 ': sample 0: frame name too long' -- byname "$TMP/long.perfView.json"
head -c 200000000 /dev/zero > "$TMP/zeros.perfView.xml"
(cd "$TMP" && zip -q -9 bomb.perfView.xml.zip zeros.perfView.xml && rm zeros.perfView.xml)
e bad.zip-bomb 1 ': zip entry inflates past [0-9]+ bytes' -- byname "$TMP/bomb.perfView.xml.zip"

# ---- usage errors: exit 2 ----
e usage.pattern 2 "^stackview: invalid pattern in GroupPats: '\{abc'" -- calltree "$IN/s-basic.perfView.xml" -g '{abc'
e usage.fold-pattern 2 "^stackview: invalid pattern in FoldPats: 'x\}'" -- calltree "$IN/s-basic.perfView.xml" -f 'ok;x}'
e usage.end 2 "^stackview: End: 'soon' is not a time in ms" -- byname "$IN/s-basic.perfView.xml" --end soon
e usage.option 2 "^stackview: unknown option '--frobnicate'" -- byname "$IN/s-basic.perfView.xml" --frobnicate
e usage.value 2 "^stackview: option '--top' needs a value" -- byname "$IN/s-basic.perfView.xml" --top
e usage.focus 2 "^stackview: callers needs --focus NAME" -- callers "$IN/s-basic.perfView.xml"
# Wrong input on the command line: one line that helps, exit 2 (issue 14 point 8).
e usage.fold-pct 2 "^stackview: Fold%: 'abc' is not a percentage" -- byname "$IN/s-basic.perfView.xml" --fold-pct abc
e usage.typo 2 "^stackview: 'bynam' is neither a command nor a file; did you mean 'byname'\?$" -- bynam "$IN/s-basic.perfView.xml"
e usage.prefix 2 "did you mean 'callers' or 'callercallee'\?$" -- caller "$IN/s-basic.perfView.xml"
e usage.nofile 1 "^stackview: nosuch\.data: No such file" -- nosuch.data
e usage.focus-near 2 "^stackview: --focus 'mian': no such name in the view; did you mean 'Main'\?$" -- callers "$IN/s-basic.perfView.xml" --focus mian
e usage.focus-sub 2 "did you mean 'Main'\?$" -- callees "$IN/s-basic.perfView.xml" --focus ai
e usage.min-pct 2 "^stackview: --min-pct needs a percentage from 0 to 100, not 'lots'" -- calltree "$IN/s-basic.perfView.xml" --min-pct lots
# --min-pct leaves out small rows: tree rows with their subtrees (A 1 % and its X), ByName
# rows small in both Exc and Inc (B stays: Inc 9 %).
cn minpct.tree '[.tree|..|objects|select(has("name"))|.name]' '["ROOT","Main","C","Helper","B","X"]' calltree "$IN/s-fold.perfView.xml" --min-pct 1.5
cn minpct.byname '[.rows[].name]' '["C","X","B","Main","ROOT"]' byname "$IN/s-fold.perfView.xml" --min-pct 6
e usage.nofocus 2 "^stackview: --focus 'Nope': no such name" -- callers "$IN/s-basic.perfView.xml" --focus Nope
e usage.nofile 2 "^stackview: byname needs one FILE" -- byname
e usage.diff 2 "^stackview: diff needs BASE and TEST" -- diff "$IN/s-basic.perfView.xml"
e usage.scaling 2 "^stackview: --scaling must be" -- byname "$IN/s-basic.perfView.xml" --scaling fast
e usage.format 2 "^stackview: unknown format 'nope'" -- byname "$IN/s-basic.perfView.xml" --format nope
e usage.preset 2 "^stackview: unknown preset" -- byname "$IN/s-basic.perfView.xml" --preset nope
e input.missing 1 "^stackview: /nonexistent/x.perfView.xml: No such file or directory" -- byname /nonexistent/x.perfView.xml
e input.unknown 1 "^stackview: tests/cli/cases.sh: unrecognised file format" -- byname tests/cli/cases.sh

# ---- exit 3: output cannot be written ----
if [ -w /dev/full ]; then
	"$SV" byname "$IN/s-basic.perfView.xml" > /dev/full 2> "$TMP/err"
	st=$?
	if [ "$st" = 3 ] && grep -q '^stackview: writing output failed' "$TMP/err"; then ok; else bad output.full "exit $st"; fi
fi

# ---- formats and transport ----
c stdin.xml '.tree.inc' 40 calltree - < "$IN/s-basic.perfView.xml"
(cd "$IN" && zip -q "$TMP/s-basic.perfView.xml.zip" s-basic.perfView.xml && zip -q "$TMP/t18.perfView.json.zip" t18.perfView.json)
c zip.xml '.tree.inc' 40 calltree "$TMP/s-basic.perfView.xml.zip"
c zip.json '.tree|[.inc,.exc]' '[7,5]' calltree "$TMP/t18.perfView.json.zip"
cp "$IN/s-basic.perfView.xml" "$TMP/noext"
c sniff.noext '.tree.inc' 40 calltree "$TMP/noext"
c format.flag '.tree.inc' 40 calltree "$TMP/noext" --format perfview-xml

# Saved filter state applies in batch commands; command-line boxes override it.
cat > "$TMP/saved.perfView.xml" <<'XML'
<StackWindow><StackSource><Samples>
<Sample Time="1" Metric="2">lib!B
lib!A
app!Main</Sample>
<Sample Time="2" Metric="3">app!Cb
app!Main</Sample>
</Samples></StackSource>
<StackWindowGuiState><FilterGuiState>
<GroupRegEx><Value>[group modules] {%}!->module $1</Value></GroupRegEx>
<ExcludeRegEx><Value>module lib</Value></ExcludeRegEx>
</FilterGuiState><Notes>n</Notes></StackWindowGuiState></StackWindow>
XML
# ExcPats sees the group name (§3.5), so "module lib" drops the first sample.
c saved.state '[.tree.inc, (.tree|at(["module app"])|.inc,.exc)]' '[3,3,3]' calltree "$TMP/saved.perfView.xml"
c saved.override '.tree.inc' 5 calltree "$TMP/saved.perfView.xml" -x ''

# ---- output options ----
c out.top '.rows|length' 3 byname s-basic --top 3
c out.depth '[.tree.children[0].children[0].children|length]' '[0]' calltree s-basic --depth 2
c out.info '[.format,.samples,.frames,.stacks,.metric,.first,.last]' '["perfview-xml",4,6,6,40,10,40]' info s-basic
c out.info.procs '[.processes[]|[.pid,.name,.samples,.metric]]' '[[100,"myapp",3,110]]' info s-test
c out.preset '[.rows[]|.name]|sort' '["ROOT","module app","module lib"]' byname s-grp --preset 'group modules'
got=$("$SV" byname "$IN/s-basic.perfView.xml" --tsv --columns name,exc,inc | head -n 2 | tr '\t' '|')
if [ "$got" = $'Name|Exc|Inc\nFunc|10.0|40.0' ]; then ok; else bad out.tsv "$got"; fi
got=$("$SV" byname "$IN/s-basic.perfView.xml" --timing 2>&1 >/dev/null | sed 's/ [0-9.]* ms$//' | head -n 5 | tr '\n' ' ')
if [ "$got" = 'timing: load timing: filter timing: tree timing: view timing: output ' ]; then ok; else bad out.timing "$got"; fi
# JSON stays valid whatever the names hold (quotes, control bytes, invalid UTF-8).
printf '{"StackSource":{"Samples":[{"Stack":["a\\"b\\u0001c", "caf\\u00e9"]}]}}' > "$TMP/names.perfView.json"
printf '<StackSource><Samples><Sample>bad\xff\xfebytes</Sample></Samples></StackSource>' > "$TMP/bytes.perfView.xml"
c json.escape '[.rows[]|.name]|sort' '["ROOT","a\"b\u0001c","café"]' byname "$TMP/names.perfView.json"
if "$SV" byname "$TMP/bytes.perfView.xml" --json 2>/dev/null | jq -e . >/dev/null 2>&1 || \
   "$SV" byname "$TMP/bytes.perfView.xml" 2>&1 | grep -q '^stackview: .*bytes.perfView.xml:1: malformed XML'; then ok; else bad json.utf8; fi

# ---- the man page documents every long option of --help ----
missing=""
for opt in $("$SV" --help | grep -oE -- '--[a-z][a-z-]+' | sort -u); do
	grep -qF -- "$(printf '%s' "$opt" | sed 's/-/\\-/g')" docs/stackview.1 || missing="$missing $opt"
done
if [ -z "$missing" ]; then ok; else bad man.options "not in docs/stackview.1:$missing"; fi
if command -v man >/dev/null 2>&1; then
	if MANWIDTH=80 man -l docs/stackview.1 2>&1 >/dev/null | grep -q .; then bad man.render "man reports problems"; else ok; fi
fi

# ---- folded stacks (FlameGraph / inferno interchange) ----
printf 'main;foo;bar 12\nmain;foo 3\n\nmain;foo;bar 1.5\r\nmain;baz_[k] 4\nmain;;foo 1' > "$TMP/x.folded"
c folded.tree '[.tree.inc, (.tree|at(["main","foo"])|.inc,.exc), (.tree|at(["main","foo","bar"])|.exc), .summary.scaling]' '[21.5,17.5,4,13.5,"data"]' calltree "$TMP/x.folded"
c folded.info '[.format,.samples,.frames]' '["folded",5,4]' info "$TMP/x.folded"
c folded.stdin '.tree.inc' 21.5 calltree - < "$TMP/x.folded"
printf 'main;foo 12\ngarbage line\n' > "$TMP/bad.folded"
# A line that does not read is skipped with one warning, as flamegraph.pl and speedscope skip
# it (issue 18 point 8); '#' comments and blank lines are skipped silently; exactly one blank
# separates the count, so a frame may be a single space.
e folded.bad 0 "bad.folded: warning: 1 line skipped: not 'frame;frame;... COUNT' \(the first is line 2\)" -- byname "$TMP/bad.folded"
printf '# made by hand\n\nmain;foo 3\nmain; ;bar 2\nnot a line\nnor this\n' > "$TMP/tol.folded"
cn folded.tolerant '[.summary.metric, ([.rows[].name]|sort)]' '[5,[" ","ROOT","bar","foo","main"]]' byname "$TMP/tol.folded"
e folded.tolerant-warning 0 "tol.folded: warning: 2 lines skipped: not 'frame;frame;... COUNT' \(the first is line 5\)" -- info "$TMP/tol.folded"
printf 'main;foo 1.2.3\n' > "$TMP/bad2.folded"
e folded.badcount 1 "bad2.folded:1: expected" -- byname "$TMP/bad2.folded"

# ---- progress and cancelling a load ----
# --progress on a non-terminal prints plain lines; the last one says the file loaded.
"$SV" info "$MT" --progress > /dev/null 2> "$TMP/prog"
if tail -1 "$TMP/prog" | grep -Eq '^stackview: loaded mt\.fp\.txt in [0-9.]+ s$'; then ok; else bad progress.done "$(tail -2 "$TMP/prog")"; fi
"$SV" info "$MT" > /dev/null 2> "$TMP/prog"
if [ ! -s "$TMP/prog" ]; then ok; else bad progress.off "progress shown on a non-terminal without --progress"; fi
# Ctrl-C while a slow producer is still writing: the load stops cleanly (one error line,
# exit 1) when the next bytes arrive, rather than the process dying mid-way.
mkfifo "$TMP/slow.perf.txt"
"$SV" byname "$TMP/slow.perf.txt" > "$TMP/cancel.out" 2> "$TMP/cancel.err" &
pid=$!
exec 7> "$TMP/slow.perf.txt"
head -c 3000000 "$MT" >&7
sleep 0.3
kill -INT "$pid"
sleep 0.3
cat "$MT" >&7 2> /dev/null
exec 7>&-
wait "$pid"
st=$?
if [ "$st" = 1 ] && grep -q "^stackview: $TMP/slow.perf.txt: loading canceled$" "$TMP/cancel.err" && [ ! -s "$TMP/cancel.out" ]; then
	ok
else
	bad progress.cancel "exit $st: $(cat "$TMP/cancel.err")"
fi
# Text inputs with CRLF line ends read as with LF; invalid UTF-8 in a name comes out as
# U+FFFD in JSON (valid JSON either way).
printf 'main;foo 10\r\nmain;bar 5\r\n' > "$TMP/crlf.folded"
c input.crlf '[.rows[]|[.name,.exc]]' '[["foo",10],["bar",5],["ROOT",0],["main",0]]' byname "$TMP/crlf.folded"
printf 'main;f\377\376oo 10\n' > "$TMP/utf8.folded"
c input.invalid-utf8 '[.rows[].name]|sort' '["ROOT","f\ufffd\ufffdoo","main"]' byname "$TMP/utf8.folded"
# A NUL byte in a name becomes U+FFFD instead of cutting the name short.
printf 'main;f\000oo 10\n' > "$TMP/nul.folded"
c input.nul '[.rows[].name]|sort' '["ROOT","f\ufffdoo","main"]' byname "$TMP/nul.folded"
# A stack at the depth limit (100,000 frames) prints as JSON without recursion: the output is
# complete and balanced: the document, the summary and 100,001 nodes, each with its children
# array (jq itself refuses nesting past 10,000 levels, so they are counted).
{ seq -f 'f%g' 1 100000 | paste -sd';'; } | sed 's/$/ 1/' > "$TMP/deep.folded"
got=$("$SV" calltree "$TMP/deep.folded" --json | tr -cd '{}[]' | awk '{o = gsub(/[{]/, ""); c = gsub(/[}]/, ""); a = gsub(/\[/, ""); b = gsub(/\]/, ""); print o, c, a, b}')
if [ "$got" = "100003 100003 100001 100001" ]; then ok; else bad json.deep "braces: $got"; fi
# The event and its unit travel with the numbers: JSON summary, TSV titles, a text line.
cn unit.json '.summary|[.event,.unit]' '["cpu-clock","ms"]' byname "$MT" --top 1
cn unit.json-none '.summary|[.event,.unit]' '[null,null]' byname "$IN/s-basic.perfView.xml" --top 1
got=$("$SV" calltree "$MT" --depth 0 --tsv | head -1)
if [ "$got" = "$(printf 'Name\tInc %%\tInc (ms)\tInc Ct\tExc %%\tExc (ms)\tExc Ct\tFold (ms)\tWhen\tFirst\tLast')" ]; then ok; else bad unit.tsv "$got"; fi
got=$("$SV" calltree "$MT" --depth 0 | sed -n 3p)
if [ "$got" = "Event: cpu-clock, 5,805 samples, metric in ms" ]; then ok; else bad unit.text "$got"; fi
# The README's short tour runs as printed.
tour=$(awk '/^## A short tour/{f=1} f&&/^```sh/{g=1;next} g&&/^```/{exit} g' README.md | grep '^\$B ')
n=0
while IFS= read -r line; do
	n=$((n + 1))
	if B="$SV" bash -c "B=\"$SV\"; ${line}" > /dev/null 2> "$TMP/tour.err"; then ok; else bad "readme.tour.$n" "$line: $(head -1 "$TMP/tour.err")"; fi
done <<< "$tour"
[ "$n" -ge 8 ] && ok || bad readme.tour.count "only $n tour lines found"
# Inline frames keep perf script's mark and take their real frame's module.
printf 'app 10/10 1.000000: 1000000 cpu-clock:\n\t1000 helper (inlined)\n\t1000 work+0x10 (/home/u/app)\n\t2000 main+0x5 (/home/u/app)\n\n' > "$TMP/inl.data.txt"
cn inline.mark '[.rows[].name|select(test("helper"))]' '["app!helper (inlined)"]' byname "$TMP/inl.data.txt"
# Control characters in names never reach the terminal raw (issue 15 point 13).
printf 'Main;a\033[31mRED;b\tTAB 3\n' > "$TMP/ctl.folded"
if ! "$SV" byname "$TMP/ctl.folded" | grep -q "$(printf '\033')" && "$SV" byname "$TMP/ctl.folded" | grep -qF 'a\x1b[31mRED' &&
	"$SV" byname "$TMP/ctl.folded" --tsv | grep -qF 'b\x09TAB'; then ok; else bad out.control-chars "$("$SV" byname "$TMP/ctl.folded" | cat -v | tail -2)"; fi
# Every member of a multi-member gzip is read; data after the last is an error, zero padding
# is not (issue 15 point 16).
printf 'a;b 1\n' | gzip > "$TMP/m1.gz"; printf 'a;c 2\n' | gzip > "$TMP/m2.gz"
cat "$TMP/m1.gz" "$TMP/m2.gz" > "$TMP/mm.folded.gz"
cn gzip.members '[.rows[]|select(.name=="b" or .name=="c")|.exc]|sort' '[1,2]' byname "$TMP/mm.folded.gz"
{ cat "$TMP/m1.gz"; printf 'junk'; } > "$TMP/junk.folded.gz"
e gzip.trailing 1 'junk\.folded\.gz: data after the end of the compressed stream at byte offset 26' -- byname "$TMP/junk.folded.gz"
{ cat "$TMP/m1.gz"; printf '\0\0\0\0'; } > "$TMP/pad.folded.gz"
cn gzip.padding '[.rows[]|select(.name=="b")|.exc]' '[1]' byname "$TMP/pad.folded.gz"
# A pattern with catastrophic backtracking stops at PCRE2's match limit and names itself,
# at once, instead of hanging the view (issue 15 point 5).
printf 'Main;aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaab 1\nMain;x 1\n' > "$TMP/bt.folded"
e pattern.backtracking 2 "^stackview: GroupPats: pattern '@\(a\+\)\+\\\$' needs too much backtracking" -- byname "$TMP/bt.folded" -g '@(a+)+$->X'
e pattern.backtracking-inc 2 "^stackview: IncPats: pattern '@\(a\|aa\)\+\\\$' needs too much backtracking" -- byname "$TMP/bt.folded" -i '@(a|aa)+$'
# Metrics that add up past the largest double are refused with words, not printed as
# Infinity/NaN or reported as "success" (issue 15 point 11).
printf '{"$schema":"https://www.speedscope.app/file-format-schema.json","shared":{"frames":[{"name":"a"}]},"profiles":[{"type":"sampled","name":"p","unit":"none","startValue":0,"endValue":1,"samples":[[0],[0]],"weights":[1e308,1e308]}]}' > "$TMP/of.speedscope.json"
e overflow.metric 1 'of\.speedscope\.json: metrics add up past the largest number' -- byname "$TMP/of.speedscope.json"
# Stack chains resolve in linear time however the file orders its parts (issue 15 point 4):
# a 90,000-deep CallerID chain whose frames come after 100,000 samples of its leaf walked the
# chain once per sample (over a minute); now every record is resolved once. The timeout only
# guards against a hang; samples keep the file's order.
awk 'BEGIN { n = 90000; s = 100000; print "<StackSource><Stacks>";
	for (i = 0; i < n; i++) printf "<Stack ID=\"%d\" CallerID=\"%d\" FrameID=\"%d\"/>\n", i, i - 1, i % 7;
	print "</Stacks><Samples>";
	for (i = 0; i < s; i++) printf "<Sample ID=\"%d\" Time=\"%d\" StackID=\"%d\"/>\n", i, i, n - 1;
	print "</Samples><Frames>"; for (i = 0; i < 7; i++) printf "<Frame ID=\"%d\">f%d</Frame>\n", i, i;
	print "</Frames></StackSource>" }' > "$TMP/chain.perfView.xml"
if out=$(timeout 120 "$SV" info "$TMP/chain.perfView.xml" 2>&1) && grep -q '^stacks *90000$' <<< "$out" &&
	grep -q '^samples *100000$' <<< "$out"; then ok; else bad xml.chain-linear "$out"; fi
printf '<StackSource><Frames><Frame ID="0">a</Frame></Frames><Samples><Sample Time="1" StackID="5"/><Sample Time="2">b</Sample><Sample Time="3" StackID="5"/></Samples><Stacks><Stack ID="5" CallerID="-1" FrameID="0"/></Stacks></StackSource>' > "$TMP/order.perfView.xml"
if "$SV" convert "$TMP/order.perfView.xml" "$TMP/order.out.perfView.xml" &&
	[ "$(grep -o 'Time="[^"]*" StackID="[^"]*"' "$TMP/order.out.perfView.xml" | tr '\n' ' ')" = 'Time="1" StackID="0" Time="2" StackID="1" Time="3" StackID="0" ' ]; then ok
else bad xml.sample-order "$(grep -o 'Time="[^"]*" StackID="[^"]*"' "$TMP/order.out.perfView.xml" | tr '\n' ' ')"; fi
# A sample is in every view or refused with words (issue 15 point 7): negative times are kept
# (the empty Start begins at the first sample), a time no range can show is refused.
printf '<StackSource><Samples><Sample Time="-5.0004">a</Sample><Sample Time="1e14">b</Sample><Sample Time="3">c</Sample></Samples></StackSource>' > "$TMP/negt.perfView.xml"
cn time.negative-kept '[.rows[]|select(.name=="ROOT")|.inc]' '[3]' byname "$TMP/negt.perfView.xml"
"$SV" convert "$TMP/negt.perfView.xml" "$TMP/negt.folded" 2>/dev/null
if [ "$(sort "$TMP/negt.folded" | tr '\n' ' ')" = 'a 1 b 1 c 1 ' ]; then ok; else bad time.negative-exported "$(cat "$TMP/negt.folded")"; fi
printf '<StackSource><Samples><Sample Time="1e47">a</Sample></Samples></StackSource>' > "$TMP/hugt.perfView.xml"
e time.huge 1 "hugt\.perfView\.xml:1: cannot add sample \(limit exceeded\): a sample's time \(1e\+47 ms\) is beyond \+-1e\+15 ms" -- info "$TMP/hugt.perfView.xml"
# Side files a recording or the command line names are read only when they are regular files
# of bounded size (issue 15 point 10): a FIFO as kallsyms blocked the load forever, a link to
# /dev/zero read forever; now they are skipped with the usual note. The timeout guards a hang.
gzip -dc tests/data/mt.fp.data.gz > "$TMP/side.perf.data"
mkdir -p "$TMP/side" && mkfifo "$TMP/side/kallsyms" && ln -s /dev/zero "$TMP/side/zero"
for k in kallsyms zero; do
	if out=$(timeout 60 "$SV" info "$TMP/side.perf.data" --kallsyms "$TMP/side/$k" --debug-dir tests/data/debug 2>&1) &&
		grep -q "no kernel symbols: $TMP/side/$k cannot be read" <<< "$out"; then ok; else bad "side.kallsyms-$k" "$(tail -2 <<< "$out")"; fi
done
# Build-id entries that are a FIFO or a link to a device are passed over, not opened.
mkdir -p "$TMP/side/dbg/.build-id/2e" "$TMP/side/dbg/.build-id/fd"
mkfifo "$TMP/side/dbg/.build-id/2e/c0e111152d52c4d242134302a1d27f49da4d28.debug"
ln -s /dev/urandom "$TMP/side/dbg/.build-id/fd/5d207e3219251d345fad1f72dfdd507487ac29.debug"
if out=$(timeout 60 "$SV" info "$TMP/side.perf.data" --kallsyms /nonexistent --debug-dir "$TMP/side/dbg" 2>&1) &&
	grep -q 'user symbols: .* files found' <<< "$out"; then ok; else bad side.build-id "$(tail -2 <<< "$out")"; fi
# Text output is bounded (issue 15 point 14): a 100,000-deep stack prints 500 levels in text
# with a note (JSON keeps them all), and huge numbers print their significant digits then
# zeros, as .NET does, without a 330-decimal expansion per cell.
{ seq -f 'f%g' 1 100000 | paste -sd';'; } | sed 's/$/ 1/' > "$TMP/deep14.folded"
lines=$("$SV" calltree "$TMP/deep14.folded" 2> "$TMP/deep14.err" | wc -l)
if [ "$lines" -lt 600 ] && grep -q 'note: the tree is deeper than 500 levels' "$TMP/deep14.err" &&
	[ "$("$SV" calltree "$TMP/deep14.folded" --depth 1000 2>/dev/null | wc -l)" -gt 1000 ]; then ok; else bad text.depth-bound "$lines lines: $(cat "$TMP/deep14.err")"; fi
printf 'main;a 1%0300d\nmain;b 3\n' 0 > "$TMP/huge14.folded"
want="a     100.0  1,$(printf '000,%.0s' $(seq 100) | sed 's/,$//').0"
got=$("$SV" byname "$TMP/huge14.folded" --columns name,exc_pct,exc | grep '^a ')
if [ "$got" = "$want" ]; then ok; else bad text.huge-number "got '$got'"; fi
# Zips with bytes before them open (a self-extracting archive: offsets adjusted by zip -A, or
# a plain cat of a script and a zip); a zip inside a zip says so (issue 15 point 16).
mkdir -p "$TMP/z16" && cp examples/base.perfView.xml "$TMP/z16/" && (cd "$TMP/z16" && zip -q in.perfView.xml.zip base.perfView.xml &&
	zip -q out.perfView.xml.zip in.perfView.xml.zip && { printf '#!/bin/sh\nexit 0\n'; cat in.perfView.xml.zip; } > cat.zip &&
	cp cat.zip adj.zip && zip -qA adj.zip)
for z in cat adj; do
	cn "zip.prefixed-$z" '.summary.count' 100 byname "$TMP/z16/$z.zip"
done
e zip.in-zip 1 "out\.perfView\.xml\.zip: the zip's entry 'in\.perfView\.xml\.zip' is itself a zip: unzip it first" -- info "$TMP/z16/out.perfView.xml.zip"
# libxml2's own messages stay out of stderr: an encoding error is the one error line (issue 15
# point 17).
printf '<?xml version="1.0" encoding="Shift_JIS"?><StackSource><Samples><Sample Metric="1">a\201\040\377\377</Sample></Samples></StackSource>' > "$TMP/enc.perfView.xml"
e xml.encoding-one-line 1 '^stackview: .*enc\.perfView\.xml:1: malformed XML: input conversion failed due to input error' -- info "$TMP/enc.perfView.xml"
if [ "$("$SV" info "$TMP/enc.perfView.xml" 2>&1 | wc -l)" = 1 ]; then ok; else bad xml.encoding-lines "$("$SV" info "$TMP/enc.perfView.xml" 2>&1)"; fi
# The 16 MiB line limit holds for files as it does for pipes (issue 15 point 17).
{ echo 'a;b 1'; head -c 17000000 /dev/zero | tr '\0' 'x'; echo ' 1'; } > "$TMP/longline.folded"
e line.limit-file 1 'longline\.folded:2: line longer than 16777216 bytes' -- byname "$TMP/longline.folded"
if out=$("$SV" byname - < "$TMP/longline.folded" 2>&1); then bad line.limit-pipe "accepted"; elif grep -q ':2: line longer than 16777216 bytes' <<< "$out"; then ok; else bad line.limit-pipe "$out"; fi
# Text with a UTF-16 byte order mark (PowerShell's '>' writes it) is read as UTF-8, from a
# file or a pipe, little or big endian, for every text format (issue 18 point 8).
printf '# c\r\nmain;foo 3\r\nmain;b\303\244r 2\r\n' | iconv -f UTF-8 -t UTF-16 > "$TMP/u16.folded"
{ printf '\376\377'; printf 'main;foo 3\n' | iconv -f UTF-8 -t UTF-16BE; } > "$TMP/u16be.folded"
cn utf16.folded '[.rows[]|select(.exc>0)|.name]|sort' '["bär","foo"]' byname "$TMP/u16.folded"
cn utf16.pipe '.summary.metric' 5 byname - < "$TMP/u16.folded"
# .perfView.xml saved as UTF-16 says so in its declaration (.NET's XmlWriter over a UTF-16
# stream writes encoding="utf-16"): read as the UTF-8 it became, from a file or a pipe.
{ printf '<?xml version="1.0" encoding="utf-16"?>\n'; tail -n +2 examples/tutorial.perfView.xml; } | iconv -f UTF-8 -t UTF-16 > "$TMP/u16.perfView.xml"
cn utf16.xml '.summary.metric' 5510 byname "$TMP/u16.perfView.xml"
cn utf16.xml-pipe '.summary.metric' 5510 byname - < "$TMP/u16.perfView.xml"
cn utf16.be '.summary.metric' 3 byname "$TMP/u16be.folded"
head -40 "$MT" | iconv -f UTF-8 -t UTF-16 > "$TMP/u16.data.txt"
if [ "$("$SV" info "$TMP/u16.data.txt" --json 2>/dev/null | jq -r .format)" = perf-script ]; then ok; else bad utf16.perf-script "$("$SV" info "$TMP/u16.data.txt" 2>&1 | head -2)"; fi
{ printf '\377\376m\000a\000'; printf '\000\330'; } > "$TMP/bad16.folded"
e utf16.invalid 1 'bad16\.folded: byte 6: not valid UTF-16 \(it starts with a UTF-16 byte order mark\)' -- byname "$TMP/bad16.folded"
# A '#' line that reads as a stack is one (flamegraph.pl reads it), so a frame named '#x'
# written at the root reads back (found by the folded fuzz target's round trip).
printf '#x;y 5\n# a comment\nmain 1\n' > "$TMP/hash.folded"
cn folded.hash-frame '.summary.metric' 6 byname "$TMP/hash.folded"
# A Ctrl-C after the loaders' last look at it (two threads joining, the last records) is not
# lost: gdb stops the program where the load ends and raises SIGINT there; the program then
# ends by the signal and the old output stays (it used to write the file and exit 0)
if command -v gdb > /dev/null && [ "${SV_VARIANT:-release}" = release ]; then
	printf 'a;b 1\na;c 2\n' > "$TMP/late.folded"
	echo old > "$TMP/late.out.folded"
	timeout 120 gdb -q -batch -ex 'handle SIGINT nostop noprint pass' -ex 'break cli_progress_end' -ex 'run' \
		-ex 'call (int)raise(2)' -ex 'continue' --args "$SV" convert "$TMP/late.folded" "$TMP/late.out.folded" > "$TMP/late.gdb" 2>&1
	if grep -q "terminated with signal SIGINT" "$TMP/late.gdb" && [ "$(cat "$TMP/late.out.folded")" = old ]; then ok; else
		bad cli.late-ctrl-c "$(grep -E 'exited|terminated' "$TMP/late.gdb"); output: $(head -c 100 "$TMP/late.out.folded")"; fi
fi
# SIGTERM just after the output's rename: the file is complete, so the exit says so (0, with a
# note); it used to end by the signal (143) although the new file was in place
if command -v gdb > /dev/null && [ "${SV_VARIANT:-release}" = release ]; then
	rm -f "$TMP/late2.folded"
	timeout 120 gdb -q -batch -ex 'handle SIGTERM nostop noprint pass' -ex 'break rename' -ex 'run' -ex 'finish' \
		-ex 'call (int)raise(15)' -ex 'continue' --args "$SV" convert "$TMP/late.folded" "$TMP/late2.folded" > "$TMP/late2.gdb" 2>&1
	if grep -q "exited normally" "$TMP/late2.gdb" && grep -q "note: Terminated came once .*late2.folded was written: it is complete" "$TMP/late2.gdb" &&
		cmp -s "$TMP/late.folded" "$TMP/late2.folded"; then ok; else bad cli.term-after-commit "$(grep -E 'exited|terminated|note' "$TMP/late2.gdb")"; fi
fi
# perf report's `-i FILE`: with no FILE given, an -i that names an existing file is the input
# (IncPats is --inc), said on stderr; it used to filter the tutorial down to nothing
zcat tests/data/mt.fp.data.gz > "$TMP/mt-i.data"
a=$("$SV" byname "$TMP/mt-i.data" --json 2>/dev/null | jq -c '.summary')
b=$("$SV" byname -i "$TMP/mt-i.data" --json 2> "$TMP/i.err" | jq -c '.summary')
if [ -n "$a" ] && [ "$a" = "$b" ] && grep -q "as perf report's -i does (IncPats is --inc PATTERN)" "$TMP/i.err"; then ok; else bad cli.perf-i "$b vs $a: $(cat "$TMP/i.err")"; fi
# A filter that leaves nothing says why on stderr (exit 0): an IncPats entry that matches no
# frame, with the closest names; entries that never meet on one stack; ExcPats
zcat tests/data/mt.fp.txt.gz > "$TMP/mt-e.txt"
"$SV" byname "$TMP/mt-e.txt" --inc 'leaf_mth' > /dev/null 2> "$TMP/e1.err"; st=$?
if [ "$st" = 0 ] && grep -q "IncPats 'leaf_mth' matched no frame; did you mean 'mt!leaf_math'?" "$TMP/e1.err"; then ok; else bad cli.empty.inc "exit $st: $(cat "$TMP/e1.err")"; fi
"$SV" byname "$TMP/mt-e.txt" --inc 'leaf_math;dl_main' > /dev/null 2> "$TMP/e2.err"
if grep -q "every IncPats entry matched frames, but no sample has them all on its stack" "$TMP/e2.err"; then ok; else bad cli.empty.and "$(cat "$TMP/e2.err")"; fi
"$SV" byname "$TMP/mt-e.txt" --exc 'Process' > /dev/null 2> "$TMP/e3.err"
if grep -q "the view is empty: ExcPats dropped every sample" "$TMP/e3.err"; then ok; else bad cli.empty.exc "$(cat "$TMP/e3.err")"; fi
"$SV" byname "$TMP/mt-e.txt" --inc 'leaf_math' > /dev/null 2> "$TMP/e4.err"
if ! grep -q "warning: IncPats\|view is empty" "$TMP/e4.err"; then ok; else bad cli.empty.none "$(cat "$TMP/e4.err")"; fi
# a pattern error names PerfView's brace, not the parenthesis it becomes
e cli.pattern.brace 2 "invalid pattern in GroupPats: '\{%\}!\{x=>\\\$1': '\{' at column 5 has no closing '\}'" -- byname "$TMP/mt-e.txt" --group '{%}!{x=>$1'
# A grouped name copied from the terminal UI into --focus: the frame inside << >> is suggested,
# and the message says which preset groups system modules that way here
e cli.focus.grouped 2 "no such name in the view; did you mean 'libc.so.6!_int_free'\? \(a name the terminal UI's grouping of system modules makes: --preset 'group system modules'" -- callers "$TMP/mt-e.txt" --focus 'module libc.so.6 <<libc.so.6!_int_free>>'
c_grouped=$("$SV" callers "$TMP/mt-e.txt" --preset 'group module entries' --focus 'module libc.so.6 <<libc.so.6!_int_free>>' --json 2>/dev/null | jq -r '.tree.name')
if [ "$c_grouped" = 'module libc.so.6 <<libc.so.6!_int_free>>' ]; then ok; else bad cli.focus.grouped-preset "$c_grouped"; fi
# The TUI's opening boxes for perf are a preset of the same name: 'group system modules' keeps
# the program's own module (mt) by function and groups the rest, the same names as the TUI.
got=$("$SV" byname "$TMP/mt-e.txt" --preset 'group system modules' --json 2>/dev/null |
	jq -c '[([.rows[].name | select(startswith("mt!"))] | length > 0), ([.rows[].name | select(startswith("libc.so.6!"))] | length), ([.rows[].name | select(startswith("module libc.so.6 <<"))] | length > 0)]')
if [ "$got" = '[true,0,true]' ]; then ok; else bad cli.preset.system "$got"; fi
if "$SV" presets | grep -q "^built-in  group system modules "; then ok; else bad cli.presets.system; fi
# perf report's options: --sort orders rows (perf's grouping keys are explained), --comm,
# --pid, --tid, --dsos and --symbols write IncPats, --percent-limit is --min-pct
got=$("$SV" byname "$TMP/mt-e.txt" --sort name --json 2>/dev/null | jq -c '[.rows[].name] | . == sort_by(ascii_downcase)')
if [ "$got" = true ]; then ok; else bad cli.sort.name "$got"; fi
got=$("$SV" byname "$TMP/mt-e.txt" --sort inc --top 3 --json 2>/dev/null | jq -c '[.rows[].inc] | (. == (sort | reverse)) and length == 3')
if [ "$got" = true ]; then ok; else bad cli.sort.inc "$got"; fi
e cli.sort.perfkey 2 "--sort dso is perf report's grouping; here ByName is one row a symbol" -- byname "$TMP/mt-e.txt" --sort dso
e cli.sort.bad 2 "--sort nope: no such column to sort by" -- byname "$TMP/mt-e.txt" --sort nope
a=$("$SV" byname "$TMP/mt-e.txt" --comm 'Web Content' --json 2>/dev/null | jq -c .summary)
b=$("$SV" byname "$TMP/mt-e.txt" --inc 'Process Web Content (' --json 2>/dev/null | jq -c .summary)
if [ -n "$a" ] && [ "$a" = "$b" ] && [ "$a" != "$("$SV" byname "$TMP/mt-e.txt" --json 2>/dev/null | jq -c .summary)" ]; then ok; else bad cli.perf.comm "$a vs $b"; fi
a=$("$SV" byname "$TMP/mt-e.txt" --symbols leaf_math --dsos mt --json 2>/dev/null | jq -c .summary)
b=$("$SV" byname "$TMP/mt-e.txt" --inc 'mt!leaf_math' --json 2>/dev/null | jq -c .summary)
if [ -n "$a" ] && [ "$a" = "$b" ]; then ok; else bad cli.perf.symbols "$a vs $b"; fi
a=$("$SV" byname "$TMP/mt-e.txt" --percent-limit 5 --json 2>/dev/null | jq -c '[.rows[].name]')
b=$("$SV" byname "$TMP/mt-e.txt" --min-pct 5 --json 2>/dev/null | jq -c '[.rows[].name]')
if [ "$a" = "$b" ]; then ok; else bad cli.perf.percent-limit "$a vs $b"; fi
e cli.perf.pid.bad 2 "--pid needs numbers separated by commas" -- byname "$TMP/mt-e.txt" --pid abc
e cli.perf.callgraph 2 "--call-graph is perf report's option; here the views are the call graph" -- byname "$TMP/mt-e.txt" --call-graph caller

# Just My App (PerfView's, issue 34): the program's modules by function, every other frame
# as OTHER where it is entered; perf text names its program's modules (here mt)
cn preset.just-my-app '[.rows[0:3][] | .name]' '["mt!leaf_math","mt!leaf_mem","OTHER <<libc.so.6!__memset_avx512_unaligned_erms>>"]' \
	byname examples/threads.perf-script.txt.gz --preset 'Just My App'
