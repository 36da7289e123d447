# SPDX-License-Identifier: MIT
# Thread time (issue 16) on a recording of tests/data/threadtime/tt.c (mutex contention, sleeps,
# disk writes, CPU hogs; record.sh made it): per thread, CPU_TIME, READIED_TIME and BLOCKED_TIME
# equal `perf sched timehist` summed as timehist.pl says (within 0.1 ms or 0.1 %), never exceed
# the thread's life in the trace, and perf.data and its perf script text agree to the
# microsecond; the views, wait reasons, READIED_BY frames, warnings and errors.
TD=$PWD/tests/data/threadtime
TT=$TMP/threadtime
mkdir -p "$TT"
gzip -dc "$TD/tt.perf.data.gz" > "$TT/tt.data"
gzip -dc "$TD/tt.perf.txt.gz" > "$TT/tt.perf.txt"
gzip -dc "$TD/tt.timehist.txt.gz" > "$TT/timehist.txt"
PIN=(--kallsyms /nonexistent --debug-dir "$TD/debug")

perl tests/threadtime/timehist.pl "$TT/timehist.txt" "$TT/tt.perf.txt" | LC_ALL=C sort > "$TT/oracle.tsv"
tt_sums "$TT/tt.data" --event thread-time "${PIN[@]}" > "$TT/data.tsv"
tt_sums "$TT/tt.perf.txt" --event thread-time "${PIN[@]}" > "$TT/text.tsv"

# Every thread timehist shows: the three sums within 0.1 ms or 0.1 %; threads timehist does
# not show (no switch-out seen) have no CPU_TIME. Where a switch-in went untraced, timehist
# starts the run at the CPU's previous switch and stackview at the thread's first CPU sample:
# CPU_TIME is timehist's less timehist.pl's UNSURE column (0 where every switch is traced).
tt_compare() { # NAME ORACLE DATA MIN-THREADS
	local why
	why=$(join -t "$(printf '\t')" -a 2 "$2" "$3" | awk -F '\t' -v min="$4" '
		function off(a, b) { d = a - b; if (d < 0) d = -d; return d > 0.1 && d > 0.001 * (a > b ? a : b) }
		NF == 4 { if ($2 > 0) { print "thread " $1 " has CPU_TIME but no timehist line"; bad = 1 } next }
		{ n++
		  if (off($2 - $5, $6) || off($3, $7) || off($4, $8)) { print "thread " $1 ": timehist " $2 "/" $3 "/" $4 " (unsure " $5 "), ours " $6 "/" $7 "/" $8; bad = 1 } }
		END { if (n < min) print "only " n " threads compared"; exit bad || n < min }')
	if [ $? = 0 ]; then ok; else bad "$1" "$why"; fi
}
tt_compare threadtime.timehist "$TT/oracle.tsv" "$TT/data.tsv" 20
within_life threadtime.life "$TT/data.tsv" "$TT/tt.perf.txt"
# The same program on an idle machine (record.sh idle): some switches out of the idle task go
# untraced. Before, each dropped its wait (one thread of seven lost 10 ms of waits); now the
# wait counts until it is known to end, the run from the first sample, and info says how much
# time between was left out.
gzip -dc "$TD/tt-idle.perf.data.gz" > "$TT/idle.data"
gzip -dc "$TD/tt-idle.perf.txt.gz" > "$TT/idle.perf.txt"
gzip -dc "$TD/tt-idle.timehist.txt.gz" > "$TT/idle.timehist.txt"
perl tests/threadtime/timehist.pl "$TT/idle.timehist.txt" "$TT/idle.perf.txt" | LC_ALL=C sort > "$TT/idle.oracle.tsv"
tt_sums "$TT/idle.data" --event thread-time "${PIN[@]}" > "$TT/idle.tsv"
tt_compare threadtime.timehist.idle "$TT/idle.oracle.tsv" "$TT/idle.tsv" 15
within_life threadtime.life.idle "$TT/idle.tsv" "$TT/idle.perf.txt"
# A per-program recording (no -a) with --switch-events (record.sh program): the program's
# threads' CPU_TIME equals perf's own PERF_RECORD_SWITCH IN/OUT records, and their waits
# (READIED + BLOCKED) the time between, per thread (switches.awk reads them from perf script
# --show-switch-events); the perf.data and its text agree. Without the records (the lines
# taken out) the switch-ins are missing and the warning names --switch-events.
gzip -dc "$TD/tt-prog.perf.data.gz" > "$TT/prog.data"
gzip -dc "$TD/tt-prog.perf.txt.gz" > "$TT/prog.perf.txt"
awk -f tests/threadtime/switches.awk "$TT/prog.perf.txt" | LC_ALL=C sort > "$TT/prog.oracle.tsv"
tt_sums "$TT/prog.data" --event thread-time "${PIN[@]}" > "$TT/prog.tsv"
tt_sums "$TT/prog.perf.txt" --event thread-time "${PIN[@]}" > "$TT/prog.text.tsv"
why=$(join -t "$(printf '\t')" "$TT/prog.oracle.tsv" "$TT/prog.tsv" | awk -F '\t' '
	function off(a, b) { d = a - b; if (d < 0) d = -d; return d > 0.01 && d > 0.0001 * (a > b ? a : b) }
	{ n++; if (off($2, $4) || off($3, $5 + $6)) { print "thread " $1 ": switch records " $2 "/" $3 ", ours " $4 "/" $5 + $6; bad = 1 } }
	END { if (n < 7) print "only " n " threads compared"; exit bad || n < 7 }')
if [ $? = 0 ]; then ok; else bad threadtime.switch-events "$why"; fi
if [ -s "$TT/prog.tsv" ] && cmp -s "$TT/prog.tsv" "$TT/prog.text.tsv"; then ok; else bad threadtime.switch-events.text "$(diff "$TT/prog.tsv" "$TT/prog.text.tsv" | head -n 4)"; fi
grep -v 'PERF_RECORD_SWITCH' "$TT/prog.perf.txt" > "$TT/prog-nosw.perf.txt"
cn threadtime.switch-events.hint '[.warnings[] | select(test("dropped")) | test("--switch-events")]' '[true]' \
	info "$TT/prog-nosw.perf.txt" --event thread-time "${PIN[@]}"
cn threadtime.idle.untraced '[.warnings[] | select(test("switch-ins are missing")) | test("^thread time: [0-9]+ switch-ins .* the [0-9.]+ ms between are not counted")]' '[true]' \
	info "$TT/idle.data" --event thread-time "${PIN[@]}"
if [ -s "$TT/data.tsv" ] && cmp -s "$TT/data.tsv" "$TT/text.tsv"; then ok; else bad threadtime.text-equals-data "$(diff "$TT/data.tsv" "$TT/text.tsv" | head -n 6)"; fi
# every thread of the program is there with its own kind of time
cn threadtime.threads '[.tree.children[] | select(.name | startswith("Process tt ")) | .children[].name | sub("^Thread \\([0-9]+\\) "; "")] | sort' \
	'["hog-a","hog-b","io","locker-a","locker-b","locker-c","sleeper","tt"]' calltree "$TT/tt.data" --event thread-time "${PIN[@]}"
cn threadtime.io-waits-on-disk '[.rows[] | select(.name | startswith("Wait ")) | .name] | sort' \
	'["Wait D (disk)"]' byname "$TT/tt.data" --event thread-time --inc 'Thread (%) io' "${PIN[@]}"
cn threadtime.hogs-preempted '[.rows[] | select(.name == "Preempted" or .name == "BLOCKED_TIME") | .name]' \
	'["Preempted"]' byname "$TT/tt.data" --event thread-time --inc 'Thread (%) hog-a' "${PIN[@]}"
cn threadtime.sleeper-sleeps '[.rows[] | select(.name | test("^tt!|nanosleep")) | .name] | sort' '["libc.so.6!clock_nanosleep@GLIBC_2.2.5","tt!sleeper"]' \
	byname "$TT/tt.data" --event thread-time --inc 'Thread (%) sleeper;BLOCKED_TIME' "${PIN[@]}"
# the event list, and the chosen view's name in the summary
cn threadtime.events '[.events[] | select(.name | test("time|cpu")) | [.name, .selected]]' \
	'[["cpu-clock",false],["thread-time",true],["thread-time-readied",false],["off-cpu",false],["ready-time",false]]' \
	info "$TT/tt.data" --event thread-time "${PIN[@]}"
cn threadtime.summary-event '.summary.event' '"thread-time"' byname "$TT/tt.data" --event thread-time --top 1 "${PIN[@]}"
# off-cpu has no CPU time, ready-time only READIED_TIME
cn threadtime.off-cpu '[.rows[] | select(.name | test("_TIME$")) | .name] | sort' '["BLOCKED_TIME","READIED_TIME"]' \
	byname "$TT/tt.data" --event off-cpu "${PIN[@]}"
cn threadtime.ready-time '[.rows[] | select(.name | test("_TIME$")) | .name]' '["READIED_TIME"]' \
	byname "$TT/tt.perf.txt" --event ready-time "${PIN[@]}"
# Thread Time (with ReadyThread): the lockers' futex waits end in who unlocked the mutex
cn threadtime.readied-by '[.rows[] | select(.name | test("^READIED_BY Process tt \\([0-9]+\\) Thread \\([0-9]+\\) locker-[abc]$")) | .name | sub(".* "; "")] | unique' \
	'["locker-a","locker-b","locker-c"]' byname "$TT/tt.data" --event thread-time-readied --inc 'Thread (%) locker-a;BLOCKED_TIME' "${PIN[@]}"
cn threadtime.readied-by-frames '[.rows[] | select(.name == "tt!hold_lock (READIED_BY)") | .name]' '["tt!hold_lock (READIED_BY)"]' \
	byname "$TT/tt.perf.txt" --event thread-time-readied --inc 'Thread (%) locker-b;BLOCKED_TIME' "${PIN[@]}"
# the readied view moves nothing: the same totals per thread
a=$("$SV" calltree "$TT/tt.data" --event thread-time-readied --depth 2 --tsv "${PIN[@]}" 2>/dev/null | cut -f1,3 | md5sum)
b=$("$SV" calltree "$TT/tt.data" --event thread-time --depth 2 --tsv "${PIN[@]}" 2>/dev/null | cut -f1,3 | md5sum)
if [ "$a" = "$b" ]; then ok; else bad threadtime.readied-same-totals; fi

# What info says, and the warnings that incomplete data gives.
cn threadtime.info '[.found[] | select(test("^thread time \\(")) | sub(";.*"; "")]' \
	'["thread time (thread-time): 841 switches, 427 wake-ups, 3795 CPU samples, 22 threads"]' info "$TT/tt.data" --event thread-time "${PIN[@]}"
sed 's/^\(.*\[00[01]\] *[0-9.]*: *\)1\( *sched:sched_switch:\)/\15\2/' "$TT/tt.perf.txt" > "$TT/sampled.perf.txt"
cn threadtime.sampled-warning '[.warnings[] | select(test("period other than 1"))] | length' 1 info "$TT/sampled.perf.txt" --event thread-time
# every other switch lost: pairs cannot be made, and they are counted, not guessed
awk '/sched:sched_switch:/ { n++; if (n % 2) { skip = 1; next } } skip && /^\t/ { next } { skip = 0; print }' "$TT/tt.perf.txt" > "$TT/lost.perf.txt"
cn threadtime.lost-warning '[.warnings[] | select(test("intervals dropped because a switch-in or switch-out was missing"))] | length' 1 info "$TT/lost.perf.txt" --event thread-time
# Intervals are whole ns, summed in ns: every number is its ns read back once (1589.42744,
# where sums of ms read 1589.4274400000008), from perf.data and from its text alike.
for f in "$TT/tt.data" "$TT/tt.perf.txt"; do
	c "threadtime.whole_ns.$(basename "$f")" '[.rows[] | (.inc, .exc) | (. * 1e6 | round) / 1e6 == .] | all' true byname "$f" --event thread-time "${PIN[@]}"
done
e threadtime.no-switches 2 "thread-time.*needs sched:sched_switch" -- info "$MT" --event thread-time
e threadtime.no-switches-data 2 "thread-time.*needs sched:sched_switch" -- info tests/data/mt.fp.data.gz --event thread-time --kallsyms /nonexistent

# Max: the longest single interval under a row, shown by default on thread time only.
cn threadtime.max '[.rows[] | select(.name == "BLOCKED_TIME" or .name == "CPU_TIME") | [.name, (.max > 0 and .max <= .inc and .max >= .inc / .inc_count)]]' \
	'[["BLOCKED_TIME",true],["CPU_TIME",true]]' byname "$TT/tt.data" --event thread-time "${PIN[@]}"
if "$SV" calltree "$TT/tt.data" --event thread-time --depth 1 "${PIN[@]}" 2>/dev/null | grep -q '^Name .* Inc Ct  *Max '; then ok; else bad threadtime.max-title; fi
if "$SV" calltree "$TT/tt.data" --depth 1 "${PIN[@]}" 2>/dev/null | grep -q '^Name .* Max '; then bad threadtime.max-cpu-clock "Max shown for cpu-clock samples"; else ok; fi
cn threadtime.max-json-cpu-clock '.rows[0] | has("max")' false byname "$TT/tt.data" "${PIN[@]}"

# ETL: a trace written by gen_etl.py from a schedule whose every interval is known (see
# there): per thread CPU, READIED and BLOCKED to the microsecond, the stacks of the waits,
# who readied them, and the lost-events warning.
python3 tests/threadtime/gen_etl.py "$TT/gen.etl"
python3 tests/threadtime/gen_etl.py "$TT/lost.etl" lost
tt_sums "$TT/gen.etl" --event thread-time > "$TT/etl.tsv"
want=$(printf '101\t5.000\t1.000\t2.000\n102\t7.000\t2.500\t3.000\n103\t9.000\t2.000\t0.500\n104\t1.000\t1.000\t0.000')
if [ "$(cat "$TT/etl.tsv")" = "$want" ]; then ok; else bad threadtime.etl.intervals "$(diff <(printf '%s\n' "$want") "$TT/etl.tsv")"; fi
# where each wait was (the CSwitch stack of the thread coming back) and why
cn threadtime.etl.blocked '[.tree.children[0].children[] | [.name, ([.. | objects | select(.name == "BLOCKED_TIME")] | length)]] | sort' \
	'[["Thread (101) CPU=3ms",1],["Thread (102) CPU=0ms",1],["Thread (103) CPU=1ms",1],["Thread (104) CPU=0ms",0]]' \
	calltree "$TT/gen.etl" --event thread-time
cn threadtime.etl.where '[.rows[] | select(.name | test("^(lock|sleep|queue)!|^Wait ")) | [.name, .inc]] | sort' \
	'[["Wait DelayExecution",3],["Wait WrQueue",0.5],["Wait WrUserRequest",2],["lock!?",4],["queue!?",8],["sleep!?",4]]' \
	byname "$TT/gen.etl" --event thread-time
cn threadtime.etl.preempted '[.rows[] | select(.name == "Preempted") | [.inc, .inc_count]]' '[[3,2]]' byname "$TT/gen.etl" --event thread-time
# 101's lock wait was ended by 102 in unlock.dll; 103's by a DPC (no thread: no READIED_BY)
cn threadtime.etl.readied-by '[.. | objects | select(.name // "" | test("READIED")) | .name] | unique' \
	'["READIED_BY Process app (100) Thread (102)","READIED_TIME","app!? (READIED_BY)","ntdll!? (READIED_BY)","unlock!? (READIED_BY)"]' \
	calltree "$TT/gen.etl" --event thread-time-readied --inc 'Thread (101)'
cn threadtime.etl.readied-by-dpc '[.. | objects | select(.name // "" | test("READIED_BY"))] | length' 0 \
	calltree "$TT/gen.etl" --event thread-time-readied --inc 'Thread (103)'
cn threadtime.etl.events '[.events[] | select(.name | test("time|off-cpu|CSwitch|Ready")) | [.name, .samples]]' \
	'[["Windows Kernel/Thread/CSwitch",13],["Windows Kernel/Thread/ReadyThread",4],["thread-time",13],["thread-time-readied",13],["off-cpu",13],["ready-time",13]]' \
	info "$TT/gen.etl"
cn threadtime.etl.lost '[.warnings[] | select(test("lost 3 events"))] | length' 1 info "$TT/lost.etl" --event thread-time
python3 tests/threadtime/gen_etl.py "$TT/cpu-only.etl" cpu-only
e threadtime.etl.no-cswitch 2 "event 'thread-time' needs CSwitch events" -- info "$TT/cpu-only.etl" --event thread-time
cn threadtime.etl.cpu-only '[.samples, ([.events[] | select(.name | test("time|off-cpu"))] | length)]' '[4,0]' info "$TT/cpu-only.etl"

# The terminal UI: the event picker offers the thread-time views; Max shows on them.
got=$("$SV" view "$TD/tt.perf.txt.gz" --script tests/threadtime/tui.keys --size 130x18 2>&1 | grep -v 'warning: thread time')
expect_file threadtime.tui tests/threadtime/tui.expected "$got"

# --by-cpu (WPA's Cpu column): per CPU, CPU_TIME equals timehist's run time on that CPU and
# READIED + BLOCKED its wait time (a wait belongs to the CPU the thread came back on);
# the generated trace's CPUs exactly; inputs without CPUs refuse it.
perl tests/threadtime/timehist.pl --by-cpu "$TT/timehist.txt" "$TT/tt.perf.txt" > "$TT/oracle-cpu.tsv"
"$SV" calltree "$TT/tt.data" --event thread-time --by-cpu --json "${PIN[@]}" 2>/dev/null | jq -r '
	def leaves($n): [.. | objects | select(.name as $x | $n | index($x)) | .exc] | add // 0;
	.tree.children[] | [(.name | sub("^CPU "; "")), leaves(["CPU_TIME"]), leaves(["READIED_TIME", "BLOCKED_TIME"])] | @tsv' |
	sort -n > "$TT/ours-cpu.tsv"
why=$(paste "$TT/oracle-cpu.tsv" "$TT/ours-cpu.tsv" | awk -F '\t' '
	function off(a, b) { d = a - b; if (d < 0) d = -d; return d > 0.1 && d > 0.001 * (a > b ? a : b) }
	{ n++; if ($1 != $4 || off($2, $5) || off($3, $6)) { print "CPU " $1 ": timehist " $2 "/" $3 ", ours " $4 ": " $5 "/" $6; bad = 1 } }
	END { if (n != 2) print n " CPUs"; exit bad || n != 2 }')
if [ $? = 0 ]; then ok; else bad threadtime.by-cpu "$why"; fi
cn threadtime.by-cpu-etl '[.tree.children[] | [.name, .inc]]' '[["CPU 0",20.5],["CPU 1",13.5]]' calltree "$TT/gen.etl" --event thread-time --by-cpu
cn threadtime.by-cpu-samples '[.tree.children[] | [.name, .inc_count]]' '[["CPU 0",1900],["CPU 1",1897]]' calltree "$TT/tt.perf.txt" --by-cpu
e threadtime.by-cpu-xml 2 "--by-cpu needs an input that records each sample's CPU" -- byname examples/tutorial.perfView.xml --by-cpu

# End to end on a terminal (tmux): the perf.data opened straight into thread time, the process
# picker (a system-wide recording), the program picked, ByName with the three kinds of time
# and the Max column; q quits and gives the terminal back.
if command -v tmux > /dev/null 2>&1; then
	tsock="sv-tt-$$"
	ttm() { tmux -L "$tsock" "$@"; }
	tcap() { ttm capture-pane -t tt -p 2>/dev/null; }
	twait() { for _ in $(seq 50); do tcap | grep -q -- "$1" && return 0; sleep 0.1; done; return 1; }
	ttm new-session -d -s tt -x 140 -y 30 "TERM=xterm-256color $SV $TT/tt.data --event thread-time ${PIN[*]}; echo EXITED \$?; sleep 20"
	if twait 'choose the processes'; then ok; else bad threadtime.e2e.picker "$(tcap | head -3)"; fi
	ttm send-keys -t tt t t Enter
	ttm send-keys -t tt 1
	if twait 'BLOCKED_TIME' && tcap | grep -q 'READIED_TIME' && tcap | grep -q 'CPU_TIME' && tcap | grep -q '\[thread-time, ms\]'; then ok; else bad threadtime.e2e.byname "$(tcap | sed -n 1,8p)"; fi
	for _ in 1 2 3 4; do # q leaves each step in turn, then quits
		tcap | grep -q 'EXITED' && break
		ttm send-keys -t tt q
		sleep 0.3
	done
	if twait 'EXITED 0'; then ok; else bad threadtime.e2e.quit "$(tcap | tail -3)"; fi
	ttm kill-server 2> /dev/null
else
	bad threadtime.e2e "tmux is not installed (make deps)"
fi
