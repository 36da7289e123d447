# SPDX-License-Identifier: MIT
# A perf user's habits (issue 37 points 1-6), end to end on a terminal (tmux) with real
# recordings: tests/data/mt.fp.data.gz (a 4-thread program, perf record -g) and
# tests/data/threadtime/tt.perf.data.gz (system-wide, two processes named spin).
command -v tmux > /dev/null || { bad perfhabits.tmux "tmux missing (make deps-test installs it)"; return 0; }
PH=$TMP/perfhabits
mkdir -p "$PH"
zcat tests/data/mt.fp.data.gz > "$PH/mt.data"
zcat tests/data/threadtime/tt.perf.data.gz > "$PH/tt.data"
MTO="--debug-dir $PWD/tests/data/debug --kallsyms /nonexistent"
sock=sv-perfhabits-$$
ph() { tmux -L "$sock" "$@"; }
pane() { ph capture-pane -t "$1" -p 2>/dev/null; }
seen() { for _ in $(seq 60); do pane "$1" | grep -q -- "$2" && return 0; sleep 0.1; done; return 1; }
run() { # SESSION WIDTH COMMAND: a session running COMMAND, then saying how it exited
	ph new-session -d -s "$1" -x "$2" -y 30 "cd $PWD && $3; echo EXITED \$?; sleep 30"
}

# 1. perf report's options: -i names the file (the TUI opens on it), --comm writes IncPats;
#    byname -i ... --sort exc orders a batch view by Exc
run p1 120 "$SV -i $PH/mt.data --comm mt $MTO 2>/dev/null"
if seen p1 '^IncPats: .*mt' && pane p1 | grep -q '^mt.data \[cpu-clock'; then ok; else bad perfhabits.1.tui "$(pane p1 | sed -n 1,4p | tr '\n' '|')"; fi
ph send-keys -t p1 q
seen p1 'EXITED 0' && ok || bad perfhabits.1.quit "$(pane p1 | tail -2)"
run p1b 150 "$SV byname -i $PH/mt.data --sort exc --top 3 $MTO 2>/dev/null"
if seen p1b 'EXITED 0' && [ "$(pane p1b | awk '/^mt!|^libc/ {print $1}' | tr '\n' ' ')" = "mt!leaf_math mt!leaf_mem libc.so.6!__memset_avx512_unaligned_erms " ]; then
	ok; else bad perfhabits.1.sort "$(pane p1b | grep -E '^(mt|libc)' | tr '\n' '|')"; fi

# 2. a filter that matches nothing says so (and exits 0)
run p2 120 "$SV byname $PH/mt.data --inc sort_wrk $MTO 2>&1 | grep -v 'no kernel symbols'"
if seen p2 'EXITED 0' && pane p2 | grep -q "IncPats 'sort_wrk' matched no frame"; then ok; else bad perfhabits.2 "$(pane p2 | grep . | head -3 | tr '\n' '|')"; fi

# 3. a name copied from the TUI (y: the row to the terminal's clipboard) works in --focus:
#    without the TUI's grouping the CLI suggests its frame and the preset; with it, it is found
run p3 120 "$SV $PH/mt.data $MTO 2>/dev/null"
ph set -g set-clipboard on
seen p3 'mt!leaf_math' || true
ph send-keys -t p3 Down Down Down y
for _ in $(seq 50); do ph show-buffer 2>/dev/null | grep -q '^module libc' && break; sleep 0.1; done
name=$(ph show-buffer 2>/dev/null | sed -n 2p | sed 's/   *[0-9].*//')
ph send-keys -t p3 q
# shellcheck disable=SC2086
hint=$("$SV" callers "$PH/mt.data" --focus "$name" $MTO 2>&1 >/dev/null | grep -- '--focus')
# shellcheck disable=SC2086
found=$("$SV" callers "$PH/mt.data" --focus "$name" --preset 'group system modules' $MTO --json 2>/dev/null | jq -r '.focus' 2>/dev/null)
if [ "$name" = "module libc.so.6 <<libc.so.6!start_thread>>" ] && printf '%s' "$hint" | grep -q "did you mean 'libc.so.6!start_thread'.*--preset 'group system modules'" &&
	[ "$found" = "$name" ]; then ok; else bad perfhabits.3 "name [$name] hint [$hint] found [$found]"; fi

# 4. the Name column takes the room; > scrolls long names; the cursor row's full name is shown
run p4 100 "$SV $PH/mt.data $MTO 2>/dev/null"
seen p4 'mt!leaf_math' || true
ph send-keys -t p4 Down Down Down Down Down Down Down
if seen p4 '^8/14 module kernel.kallsyms <<kernel.kallsyms!0xffffffff81000e06>>'; then ok; else bad perfhabits.4.full "$(pane p4 | tail -1)"; fi
ph send-keys -t p4 '>' '>' '>'
if seen p4 '^<ernel.kallsyms <<kernel.kallsyms!0x'; then ok; else bad perfhabits.4.scroll "$(pane p4 | sed -n 15p)"; fi
ph send-keys -t p4 q

# 5. a focus tab follows the cursor; a tab switch is no jump (q quits), c is one (q leaves it)
run p5 120 "$SV $PH/mt.data $MTO 2>/dev/null"
seen p5 'mt!leaf_math' || true
ph send-keys -t p5 Down Down Down Down Down Down 3
if seen p5 'focus: mt!leaf_math'; then ok; else bad perfhabits.5.follow "$(pane p5 | sed -n 6p)"; fi
ph send-keys -t p5 2 c
seen p5 '\[5 Caller-Callee\]' || true
ph send-keys -t p5 q
if seen p5 '\[2 CallTree\]' && ! pane p5 | grep -q EXITED; then ok; else bad perfhabits.5.leave "$(pane p5 | sed -n 6p)"; fi
ph send-keys -t p5 q
seen p5 'EXITED 0' && ok || bad perfhabits.5.quit "$(pane p5 | tail -2)"

# 6. the picker merges a program's processes: type spin, Enter takes every match
run p6 120 "$SV $PH/tt.data --kallsyms /nonexistent 2>/dev/null"
seen p6 'choose the processes' || true
ph send-keys -t p6 s p i n
if seen p6 'every match: 2 processes'; then ok; else bad perfhabits.6.match "$(pane p6 | sed -n 5,6p)"; fi
ph send-keys -t p6 Enter
if seen p6 '^IncPats: \^Process% spin (' && pane p6 | grep -q 'Process spin (13245)' && pane p6 | grep -q 'Total.*Metric: 192.3'; then
	ok; else bad perfhabits.6.open "$(pane p6 | sed -n 1,4p | tr '\n' '|')"; fi
ph kill-server 2>/dev/null
