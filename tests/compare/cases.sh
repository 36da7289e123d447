# SPDX-License-Identifier: MIT
# Several runs a side, builds that differ in names, budgets and explain (issue: "Diff you can
# trust"). The recordings in tests/data/compare are one program in two builds (record.sh):
# serialize() costs 1.5 times more in the test build, parse() and checksum() do not change;
# the base build is app-3f2a + libwork.so.1.2, the test build app-91c0 + libwork.so.1.3.
D=tests/data/compare
BASE=("$D/base1.perf.txt.gz" "$D/base2.perf.txt.gz" "$D/base3.perf.txt.gz")
TEST=("$D/test1.perf.txt.gz" "$D/test2.perf.txt.gz")
row() { jq -c "first(.rows[] | select(.name == \"$1\")) | $2"; }

# ---- multi-run diff: the real change is significant, the unchanged rows are not ----
j=$("$SV" diff "${BASE[@]}" -- "${TEST[@]}" --view byname --json 2>/dev/null)
got=$(printf '%s' "$j" | row 'libwork.so.1.2!serialize' '[.significant, (.base*100|round), (.test|round), (.inc|round)]')
[ "$got" = '[1,9267,138,45]' ] && ok || bad compare.real-change "$got"
for f in parse checksum; do
	got=$(printf '%s' "$j" | row "libwork.so.1.2!$f" '[.significant, (.ci_low < 0), (.ci_high > 0), (.p > 0.05)]')
	[ "$got" = '[0,true,true,true]' ] && ok || bad "compare.unchanged.$f" "$got"
done
# the interval is Student's t with the pooled variance: 3 + 2 runs, df 3
got=$(printf '%s' "$j" | row 'libwork.so.1.2!serialize' '((.ci_high - .ci_low) / 2 * 100 | round)')
[ "$got" = 1449 ] && ok || bad compare.ci-width "$got"
# builds that differ by a hash and a library version line up with no pattern, nothing unmatched
got=$(printf '%s' "$j" | jq -c '[.runs, .aligned, .unmatched]')
[ "$got" = '[{"base":3,"test":2},[{"test":"app-91c0","base":"app-3f2a"},{"test":"libwork.so.1.3","base":"libwork.so.1.2"}],[]]' ] && ok ||
	bad compare.aligned "$got"
# automatic matching says so; --match can do the same by hand
got=$("$SV" diff "${BASE[0]}" "${TEST[0]}" --view byname --columns name 2>&1 >/dev/null)
[ "$got" = "$(printf "stackview: note: test's app-91c0 is taken as base's app-3f2a (names that differ by a version or hash; --no-auto-match keeps them apart)\nstackview: note: test's libwork.so.1.3 is taken as base's libwork.so.1.2 (names that differ by a version or hash; --no-auto-match keeps them apart)")" ] &&
	ok || bad compare.aligned-note "$got"
a=$("$SV" diff "${BASE[0]}" "${TEST[0]}" --view byname 2>/dev/null)
b=$("$SV" diff "${BASE[0]}" "${TEST[0]}" --view byname --no-auto-match --match 'libwork.so.1.3=>libwork.so.1.2; app-91c0=>app-3f2a' 2>&1)
[ "$a" = "$b" ] && ok || bad compare.match-by-hand "$(diff <(echo "$a") <(echo "$b") | head -5)"
# Welch's t, asked for: with two test runs its degrees of freedom fall to about 1 and the
# same change is no longer significant (why the pooled variance is the default)
got=$("$SV" diff "${BASE[@]}" -- "${TEST[@]}" --view byname --json --welch 2>/dev/null | row 'libwork.so.1.2!serialize' '.significant')
[ "$got" = 0 ] && ok || bad compare.welch "$got"
# the text grid shows Base, Test, the interval, p and Sig after Inc
got=$("$SV" diff "${BASE[@]}" -- "${TEST[@]}" --view byname 2>/dev/null | sed -n '3p' | tr -s ' ')
[ "$got" = "Name Exc % Exc Exc Ct Inc % Inc Base Test ± 95% p Sig Inc Ct Fold When First Last" ] && ok || bad compare.columns "$got"
got=$("$SV" diff "${BASE[@]}" -- "${TEST[@]}" --view byname --columns name,inc,base,test,ci,p,sig 2>/dev/null | grep 'serialize' | tr -s ' ')
[ "$got" = "libwork.so.1.2!serialize 45.3 92.7 138.0 14.5 0.002 grew" ] && ok || bad compare.row "$got"
got=$("$SV" diff "${BASE[@]}" -- "${TEST[@]}" --view calltree --tsv 2>/dev/null | head -n 1)
[ "$got" = "$(printf 'Name\tInc %%\tInc\tBase\tTest\t\302\261 95%%\tp\tSig\tInc Ct\tExc %%\tExc\tExc Ct\tFold\tWhen\tFirst\tLast')" ] && ok ||
	bad compare.tsv "$got"
# every view kind carries the comparison
got=$("$SV" diff "${BASE[@]}" -- "${TEST[@]}" --view callers --focus 'libwork.so.1.2!spin' --json 2>/dev/null |
	jq -c '[.tree.children[] | {name, significant}] | sort_by(.name)')
[ "$got" = '[{"name":"libwork.so.1.2!checksum","significant":0},{"name":"libwork.so.1.2!parse","significant":0},{"name":"libwork.so.1.2!serialize","significant":1}]' ] &&
	ok || bad compare.callers "$got"
got=$("$SV" diff "${BASE[@]}" -- "${TEST[@]}" --view callercallee --focus 'app-3f2a!handle' --json 2>/dev/null |
	jq -c '[.focus.significant, ([.callees[] | select(.significant == 1) | .name])]')
[ "$got" = '[1,["libwork.so.1.2!serialize"]]' ] && ok || bad compare.callercallee "$got"
got=$("$SV" diff "${BASE[@]}" -- "${TEST[@]}" --json 2>/dev/null |
	jq -c '.tree | .. | objects | select(.name? == "libwork.so.1.2!serialize") | .significant' | sort -u)
[ "$got" = 1 ] && ok || bad compare.calltree "$got"
# a differential flame graph of the means
"$SV" diff "${BASE[@]}" -- "${TEST[@]}" -o "$TMP/means.svg" 2>/dev/null && grep -q 'of the means' "$TMP/means.svg" && ok || bad compare.flame

# ---- one run a side is today's diff ----
one=$("$SV" diff "${BASE[0]}" "${TEST[0]}" --view byname --no-auto-match 2>/dev/null | sed -n 3p | tr -s ' ')
[ "$one" = "Name Exc % Exc Exc Ct Inc % Inc Inc Ct Fold When First Last" ] && ok || bad compare.one-columns "$one"
got=$("$SV" diff "${BASE[0]}" "${TEST[0]}" --view byname --json 2>/dev/null | row 'libwork.so.1.2!serialize' '[.inc, .base, .test, .ci_low, .p, .significant]')
[ "$got" = '[40,92,132,null,null,0]' ] && ok || bad compare.one-run "$got"

# ---- names: turned off, a genuine rename, --match ----
got=$("$SV" diff "${BASE[@]}" -- "${TEST[@]}" --no-auto-match --json 2>/dev/null | jq -c '[.aligned, [.unmatched[] | .name]]')
[ "$got" = '[[],["app-91c0","libwork.so.1.3","app-3f2a","libwork.so.1.2"]]' ] && ok || bad compare.no-auto-match "$got"
got=$("$SV" diff "$D/mt.perf.txt.gz" "$D/mt2.perf.txt.gz" 2>/dev/null | sed -n '/^Unmatched/,$p' | sed -n '3,4p' | tr -s ' ')
[ "$got" = "$(printf ' test 281.0 mt2\n base 229.0 mt')" ] && ok || bad compare.rename-report "$got"
got=$("$SV" diff "$D/mt.perf.txt.gz" "$D/mt2.perf.txt.gz" --match 'mt2=>mt' --json 2>/dev/null | jq -c '[.unmatched, (.tree.children | length)]')
[ "$got" = '[[],1]' ] && ok || bad compare.rename-match "$got"
e compare.bad-match 2 "^stackview: --match: 'mt2->mt' is not OLD=>NEW" -- diff "$D/mt.perf.txt.gz" "$D/mt2.perf.txt.gz" --match 'mt2->mt'
e compare.bad-match-pattern 2 "^stackview: --match: '\{mt2': " -- diff "$D/mt.perf.txt.gz" "$D/mt2.perf.txt.gz" --match '{mt2=>mt'
e compare.no-test 2 "^stackview: diff needs BASE and TEST files \(BASE\.\.\. -- TEST\.\.\." -- diff "${BASE[@]}" --
e compare.no-base 2 "^stackview: diff needs BASE and TEST" -- diff -- "${TEST[@]}"
e compare.three 2 "^stackview: diff needs BASE and TEST" -- diff "${BASE[@]}"
e compare.split-elsewhere 2 "^stackview: unexpected argument '--' \(it separates base and test files" -- byname "${BASE[0]}" -- "${TEST[0]}"
# a `--` that is an option's value is not the separator
# (IncPats "--" then matches no frame, and a warning says so)
"$SV" byname "${BASE[0]}" --inc -- --columns name > /dev/null 2> "$TMP/split.err"
st=$?
[ "$st" = 0 ] && [ "$(cat "$TMP/split.err")" = "stackview: warning: IncPats '--' matched no frame" ] && ok || bad compare.split-value "exit $st: $(cat "$TMP/split.err")"

# ---- overweight of the means ----
got=$("$SV" overweight "${BASE[@]}" -- "${TEST[@]}" --json 2>/dev/null |
	jq -c '[.runs, (.rows[] | select(.name == "libwork.so.1.2!serialize") | [.significant, (.overweight_pct > 100)])]')
[ "$got" = '[{"base":3,"test":2},[1,true]]' ] && ok || bad compare.overweight "$got"
got=$("$SV" overweight "${BASE[@]}" -- "${TEST[@]}" 2>/dev/null | head -n 1)
[ "$got" = "Means of 3 base and 2 test runs" ] && ok || bad compare.overweight-text "$got"

# ---- generated runs with known noise: 4 a side, `b` grows 20 %, `a` and `c` only jitter ----
gen() { # FILE A B C
	printf 'main;a %s\nmain;b %s\nmain;c %s\n' "$2" "$3" "$4" > "$1"
}
gen "$TMP/g-b1.folded" 1000 500 200
gen "$TMP/g-b2.folded" 1012 496 205
gen "$TMP/g-b3.folded" 991 507 197
gen "$TMP/g-b4.folded" 1004 499 201
gen "$TMP/g-t1.folded" 997 601 203
gen "$TMP/g-t2.folded" 1009 596 196
gen "$TMP/g-t3.folded" 1003 604 202
gen "$TMP/g-t4.folded" 990 598 199
got=$("$SV" diff "$TMP"/g-b?.folded -- "$TMP"/g-t?.folded --view byname --json | jq -c '[.rows[] | [.name, .significant]] | sort')
[ "$got" = '[["ROOT",1],["a",0],["b",1],["c",0],["main",1]]' ] && ok || bad compare.generated "$got"

# ---- budgets ----
cat > "$TMP/budget" <<'EOF'
# the request path of the test build
IncPats: app-91c0
inc    libwork.so.1.3!serialize   <= 60%
exc    ~spin                      <= 100%
inc    ROOT                       >= 200
# growth against the base runs (significant changes only), in the names as lined up: the
# base build's
IncPats:
growth libwork.so.1.2!parse       < 5%
growth ~checksum                  < -10%
EOF
"$SV" check "$TMP/budget" "${BASE[@]}" -- "${TEST[@]}" > /dev/null 2>&1
st=$?
[ "$st" = 0 ] && ok || bad compare.check-pass "exit $st"
got=$("$SV" check "$TMP/budget" "${BASE[@]}" -- "${TEST[@]}" 2>/dev/null | sed -n '1p;4p' | tr -s ' ')
[ "$got" = "$(printf 'Budget %s: 5 rules, 0 failed (2 profiles, means; 3 base runs)\n 3 inc libwork.so.1.3!serialize <= 60%% libwork.so.1.3!serialize 49.98 %% <= 60.00 %% pass' "$TMP/budget")" ] &&
	ok || bad compare.check-table "$got"
printf 'growth ~serialize < 10%%\ninc libwork.so.1.2!nothing <= 1%%\n' > "$TMP/fail"
"$SV" check "$TMP/fail" "${BASE[@]}" -- "${TEST[@]}" --junit "$TMP/junit.xml" > "$TMP/fail.out" 2>&1
st=$?
[ "$st" = 1 ] && ok || bad compare.check-fail "exit $st: $(cat "$TMP/fail.out")"
got=$(grep -c 'FAIL$' "$TMP/fail.out")
[ "$got" = 1 ] && grep -q 'pass (no such row)' "$TMP/fail.out" && ok || bad compare.check-fail-table "$(cat "$TMP/fail.out")"
# JUnit: well-formed, one failure naming the row and the limit
got=$(python3 -c 'import sys, xml.etree.ElementTree as E
r = E.parse(sys.argv[1]).getroot(); s = r.find("testsuite")
f = [c.find("failure").get("message") for c in s if c.find("failure") is not None]
print(r.get("tests"), r.get("failures"), f)' "$TMP/junit.xml" 2>&1)
[ "$got" = "2 1 ['libwork.so.1.2!serialize: +48.92 %, limit < 10.00 %']" ] && ok || bad compare.junit "$got"
# the same change with one run a side counts (no interval to judge noise by)
"$SV" check "$TMP/fail" "${BASE[0]}" -- "${TEST[0]}" > /dev/null 2>&1
st=$?
[ "$st" = 1 ] && ok || bad compare.check-one-run "exit $st"
# checksum's -4.7 % breaks '< -10%' only in words: the change is noise, the rule passes
got=$("$SV" check "$TMP/budget" "${BASE[@]}" -- "${TEST[@]}" --json 2>/dev/null |
	jq -c '[.failed, .rules[2].row, .rules[2].pass, .rules[4].row, .rules[4].pass, .rules[4].significant]')
[ "$got" = '[0,"ROOT",true,"libwork.so.1.2!checksum",true,false]' ] && ok || bad compare.check-json "$got"
printf 'inc x <= 5%%\nbogus line\n' > "$TMP/bad1"
e compare.check-bad-rule 2 "^stackview: $TMP/bad1:2: expected a box \(GroupPats: \.\.\.\) or a rule" -- check "$TMP/bad1" "${TEST[0]}"
printf 'inc x <= lots\n' > "$TMP/bad2"
e compare.check-bad-limit 2 "^stackview: $TMP/bad2:1: the limit is a number" -- check "$TMP/bad2" "${TEST[0]}"
printf 'inc x = 5\n' > "$TMP/bad3"
e compare.check-bad-op 2 "^stackview: $TMP/bad3:1: the operator before the limit" -- check "$TMP/bad3" "${TEST[0]}"
printf 'exc ~{x <= 5\n' > "$TMP/bad4"
e compare.check-bad-pattern 2 "^stackview: $TMP/bad4:1: invalid pattern '\{x'" -- check "$TMP/bad4" "${TEST[0]}"
printf '# nothing\n' > "$TMP/bad5"
e compare.check-no-rules 2 "^stackview: $TMP/bad5: no rules" -- check "$TMP/bad5" "${TEST[0]}"
e compare.check-growth-no-base 2 "^stackview: $TMP/fail:1: a growth rule needs base runs" -- check "$TMP/fail" "${TEST[0]}"
e compare.check-missing 2 "^stackview: /nonexistent/budget: No such file" -- check /nonexistent/budget "${TEST[0]}"
printf 'Fold%%: lots\ninc ROOT >= 1\n' > "$TMP/bad6"
e compare.check-bad-box 2 "^stackview: $TMP/bad6:2: the boxes for this rule: Fold%: 'lots' is not a percentage" -- check "$TMP/bad6" "${TEST[0]}"
e compare.check-no-profile 2 "^stackview: check needs a BUDGET file and PROFILE files" -- check "$TMP/budget"

# ---- explain ----
out=$("$SV" explain "${TEST[0]}" --name 'libwork.so.1.3!serialize' --fold spin --exc checksum --inc handle --end 150 --fold-pct 1 2>&1)
got=$(printf '%s\n' "$out" | grep -E '^(no boxes|\+ )' | tr -s ' ')
want=$(printf 'no boxes 132.0 0.0 132 48.9\n+ Start/End 73.0 0.0 73 48.7\n+ ExcPats 73.0 0.0 73 58.9\n+ FoldPats 73.0 73.0 73 58.9\n+ IncPats 73.0 73.0 73 58.9\n+ Fold%% 73.0 73.0 73 58.9')
[ "$got" = "$want" ] && ok || bad compare.explain-stages "$got"
got=$(printf '%s\n' "$out" | grep -E '^    (outside|checksum|libwork|handle)' | tr -s ' ')
want=$(printf ' outside the time range: 59.0 of its Inc\n checksum removes 0.0 of its Inc\n libwork.so.1.3!spin 73.0 into its Exc\n handle leaves out 0.0 of its Inc')
[ "$got" = "$want" ] && ok || bad compare.explain-what "$got"
got=$(printf '%s\n' "$out" | sed -n '/heaviest stacks through/{n;p}' | tr -s ' ')
[ "$got" = " 73.0 58.9 % Process app-91c0 (17941) > Thread (17941) app-91c0 > libc.so.6!__libc_start_call_main > app-91c0!main > app-91c0!handle > libwork.so.1.3!serialize" ] &&
	ok || bad compare.explain-stacks "$got"
# GroupPats: the frames grouped into a name
got=$("$SV" explain "${TEST[0]}" --name 'module libwork.so.1.3' --group '{%}!->module $1' | grep '^    libwork' | sort)
[ "$got" = "$(printf '    libwork.so.1.3!checksum\n    libwork.so.1.3!parse\n    libwork.so.1.3!serialize\n    libwork.so.1.3!spin')" ] && ok || bad compare.explain-group "$got"
e compare.explain-unknown 2 "^stackview: --name 'libwork.so.1.3!serialise': no such name in the view; did you mean 'libwork.so.1.3!serialize'" -- \
	explain "${TEST[0]}" --name 'libwork.so.1.3!serialise'
e compare.explain-no-name 2 "^stackview: explain needs --name NAME" -- explain "${TEST[0]}"

# ---- the TUI shows the comparison's columns and follows the boxes ----
printf ':dump 1 :dump' > "$TMP/cmp.keys"
got=$("$SV" diff "${BASE[@]}" -- "${TEST[@]}" --script "$TMP/cmp.keys" --size 150x14 2>/dev/null | sed 's/ *$//')
expect_file compare.tui tests/compare/tui.expected "$got"

# ---- budget files: bounds, and the guide's example reads ----
head -c 1048577 /dev/zero | tr '\0' '#' > "$TMP/huge"
e compare.check-huge 2 "^stackview: $TMP/huge: longer than a budget file can be \(1 MiB\)" -- check "$TMP/huge" "${TEST[0]}"
printf 'inc ROOT >= 1\n\0\n' > "$TMP/nul"
e compare.check-nul 2 "^stackview: $TMP/nul:2: a NUL byte" -- check "$TMP/nul" "${TEST[0]}"
awk '/^# budget.txt: the request path of myapp/{f=1} f&&/^```/{exit} f' docs/diff.md > "$TMP/guide-budget"
printf 'myapp;myapp!main;myapp!parse 10\nmyapp;myapp!main;myapp!serialize;json_write 20\nmyapp;libc!malloc 3\n' > "$TMP/p.folded"
"$SV" check "$TMP/guide-budget" "$TMP/p.folded" -- "$TMP/p.folded" > "$TMP/guide-budget.out" 2>&1
st=$?
[ "$st" = 1 ] && [ "$(grep -c '^ *[0-9]' "$TMP/guide-budget.out")" = 5 ] && ok || bad compare.guide-budget "exit $st: $(cat "$TMP/guide-budget.out")"

# ---- budgets of many rules (reliability round three, points 1 and 2) ----
# 65 rules, a box changed between each: every rule keeps its own boxes (the rule array grows
# while they are read: rules once kept pointers into it), and each rule sees the boxes above it
{ for i in $(seq 1 65); do printf 'FoldPats: f%d\ninc ROOT >= 0\n' "$i"; done; } > "$TMP/many"
"$SV" check "$TMP/many" "${TEST[0]}" --json > "$TMP/many.json" 2> "$TMP/many.err"
st=$?
got=$(jq -c '[(.rules | length), ([.rules[] | select(.pass)] | length)]' "$TMP/many.json" 2>/dev/null)
[ "$st" = 0 ] && [ "$got" = '[65,65]' ] && ok || bad compare.check-65-rules "exit $st, $got: $(head -c 300 "$TMP/many.err")"
# a large GroupPats (a 600 KB comment, then an entry) and 15,000 rules within the 1 MiB limit: the boxes are kept once,
# not once a rule (that took 9 GB); run under a 1.5 GB address-space cap (release build only:
# sanitizers reserve terabytes of address space)
if [ "${SV_VARIANT:-release}" = release ]; then
	{ printf 'GroupPats: ['; head -c 600000 /dev/zero | tr '\0' 'x'; printf '] {%%}!=>module $1\n'; for i in $(seq 1 15000); do printf 'inc ROOT >= %d\n' 0; done; } > "$TMP/wide"
	(ulimit -v 1500000; "$SV" check "$TMP/wide" "${TEST[0]}" > /dev/null 2> "$TMP/wide.err")
	st=$?
	[ "$st" = 0 ] && ok || bad compare.check-wide-budget "exit $st: $(head -c 300 "$TMP/wide.err")"
fi

# ---- diff --layout perf: perf diff's columns, row for row ----
# tests/data/perfdiff: pd.c built static (pds.gz, by its build id), recorded twice with
# perf record -e cpu-clock:u -g (./pds 1, ./pds 2), and perf diff's own output of the pair.
PF=tests/data/perfdiff
mkdir -p "$TMP/pdd/.build-id/c4"
gzip -dc "$PF/pds.gz" > "$TMP/pdd/.build-id/c4/51af82ac64d52e127907c9216309312367ac6b.debug"
gzip -dc "$PF/base.data.gz" > "$TMP/pd-base.data"
gzip -dc "$PF/test.data.gz" > "$TMP/pd-test.data"
want=$(awk '/^#/ || NF < 3 { next } { if ($2 ~ /%$/) print $1, $2, $3 "!" $5; else if ($1 ~ /^[+-]/) print "-", $1, $2 "!" $4; else print $1, "-", $2 "!" $4 }' "$PF/perf-diff.txt")
got=$("$SV" diff "$TMP/pd-base.data" "$TMP/pd-test.data" --layout perf --debug-dir "$TMP/pdd" 2>/dev/null |
	awk '/^#/ { next } { if (NF == 3) print $1, $2, $3; else if ($1 ~ /^[+-]/) print "-", $1, $2; else print $1, "-", $2 }')
if [ -n "$want" ] && [ "$got" = "$want" ]; then ok; else bad compare.perf-layout "$(diff <(printf '%s\n' "$want") <(printf '%s\n' "$got") | head -6)"; fi
c compare.perf-layout.json '[.layout, (.rows[0] | .name, (.baseline*100|round), (.delta*100|round))]' '["perf","pds!b",4114,-1636]' \
	diff "$TMP/pd-base.data" "$TMP/pd-test.data" --layout perf --debug-dir "$TMP/pdd"
e compare.perf-layout.runs 2 "--layout perf compares one BASE with one TEST" -- diff "${BASE[@]}" -- "${TEST[@]}" --layout perf
