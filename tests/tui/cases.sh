# SPDX-License-Identifier: MIT
# TUI screens: every tests/tui/*.keys script runs headless; its screens must equal
# <name>.expected. The first line names the input and size. SV_UPDATE_GOLDEN=1 rewrites.
screen_scripts tests/tui
printf '<Nope>' > "$TMP/bad.keys"
e tui.badkey 2 "^stackview: key script: unknown key '<Nope>'" -- view "$IN/s-basic.perfView.xml" --script "$TMP/bad.keys"
e tui.nokeys 2 "^stackview: /nonexistent.keys: cannot read the key script" -- view "$IN/s-basic.perfView.xml" --script /nonexistent.keys
# Not a terminal and no script: the call tree is printed.
got=$("$SV" "$IN/s-basic.perfView.xml" < /dev/null | head -n 1)
if [ "$got" = "Totals Metric: 40.0  Count: 4.0  First: 10.000 Last: 40.000  Last-First: 30.000  Metric/Interval: 1.33  TimeBucket: 1.3" ]; then ok; else bad tui.notty "$got"; fi

# ---- end to end: the real binary on a terminal (tmux) ----
if command -v tmux >/dev/null 2>&1; then
	sock="sv-test-$$"
	tm() { tmux -L "$sock" "$@"; }
	wait_for() { # PATTERN: poll the pane for up to 5 s
		for _ in $(seq 50); do
			tm capture-pane -t e2e -p 2>/dev/null | grep -q -- "$1" && return 0
			sleep 0.1
		done
		return 1
	}
	tm new-session -d -s e2e -x 120 -y 30 "TERM=xterm-256color $SV examples/tutorial.perfView.xml; echo EXITED \$?; sleep 20"
	# the server stays when a session is killed (a new session made at once could reach a
	# server on its way out: "server exited unexpectedly"); kill-server at the end
	tm set -s exit-empty off
	if wait_for 'CallTree]'; then ok; else bad tui.e2e.start "$(tm capture-pane -t e2e -p | head -5)"; fi
	tm send-keys -t e2e 1
	if wait_for '\[1 ByName\]'; then ok; else bad tui.e2e.tab "no ByName tab"; fi
	tm send-keys -t e2e Down Enter
	if wait_for 'focus: mscorlib'; then ok; else bad tui.e2e.enter "$(tm capture-pane -t e2e -p | sed -n 6p)"; fi
	# Copy reaches the terminal's clipboard through OSC 52 (tmux keeps it as a paste buffer).
	tm set -g set-clipboard on
	tm send-keys -t e2e 1 k k j y
	for _ in $(seq 50); do tm show-buffer 2>/dev/null | grep -q '^mscorlib!System.TimeZoneInfo' && break; sleep 0.1; done
	if tm show-buffer 2>/dev/null | grep -q '^mscorlib!System.TimeZoneInfo.*34\.9  *1,925\.0'; then ok; else bad tui.e2e.copy "$(tm show-buffer 2>&1 | head -3)"; fi
	# q leaves the last jump (Enter: Callers) past the tab switch since, then quits: two
	# presses, not one per tab switch as Backspace steps (it took four before).
	tm send-keys -t e2e q q
	if wait_for 'EXITED 0'; then ok; else bad tui.e2e.quit "$(tm capture-pane -t e2e -p | tail -3)"; fi
	# the line said while the first view was made is gone with the window
	if ! tm capture-pane -t e2e -p | grep -q "making the first view"; then ok; else bad tui.e2e.first-view-line "$(tm capture-pane -t e2e -p | head -3)"; fi
	tm kill-session -t e2e 2>/dev/null
	# SIGTERM: the process ends by the signal and the terminal is restored (echo back on;
	# capture-pane trims trailing blanks, hence '^ echo').
	tm new-session -d -s e2e -x 100 -y 24 "$SV examples/tutorial.perfView.xml; echo EXITED \$?; stty -a | grep -o ' echo '; sleep 20"
	if wait_for 'CallTree]'; then
		pkill -TERM -f "^$SV examples/tutorial.perfView.xml" 2>/dev/null || true
		if wait_for "EXITED 143" && wait_for "^ echo"; then ok; else bad tui.e2e.sigterm "$(tm capture-pane -t e2e -p | grep -n . | head -5 | tr "\n" "|")"; fi
	else
		bad tui.e2e.sigterm "did not start"
	fi
	# The first minutes of a perf user (issue 14): the perf.data of a threaded program opens
	# (one process: no picker) along its hot path, its own functions by name on the first
	# screen, thread frames named; Enter closes and opens a tree row; / searches afresh each
	# time; c opens Caller-Callee and Backspace comes back; q quits and gives the terminal back.
	zcat tests/data/mt.fp.data.gz > "$TMP/mt.perf.data"
	tm new-session -d -s perf -x 120 -y 30 "$SV $TMP/mt.perf.data --debug-dir $PWD/tests/data/debug --kallsyms /nonexistent; echo EXITED \$?; stty -a | grep -o ' echo '; sleep 20"
	tp() { tm capture-pane -t perf -p 2>/dev/null; }
	pwait() { for _ in $(seq 50); do tp | grep -q -- "$1" && return 0; sleep 0.1; done; return 1; }
	if pwait 'mt!leaf_math' && tp | grep -q 'group system modules' && tp | grep -q 'Thread (10738) Web Content'; then ok; else bad tui.perf.own-code "$(tp | sed -n 2p;tp | sed -n 8,14p)"; fi
	tm send-keys -t perf Enter
	if pwait '^+ ROOT' && ! tp | grep -q 'mt!worker'; then ok; else bad tui.perf.enter-collapse "$(tp | sed -n 8,10p)"; fi
	tm send-keys -t perf Enter
	if pwait 'mt!worker'; then ok; else bad tui.perf.enter-expand "$(tp | sed -n 8,10p)"; fi
	tm send-keys -t perf / m i d _ a Enter
	if pwait "found 'mid_a'"; then ok; else bad tui.perf.find1 "$(tp | tail -1)"; fi
	tm send-keys -t perf / l e a f Enter
	if pwait "found 'leaf'"; then ok; else bad tui.perf.find2 "$(tp | tail -1)"; fi
	tm send-keys -t perf c
	if pwait '\[5 Caller-Callee\]' && tp | grep -q 'focus: mt!leaf_math'; then ok; else bad tui.perf.cc "$(tp | sed -n 6p)"; fi
	tm send-keys -t perf BSpace
	if pwait '\[2 CallTree\]'; then ok; else bad tui.perf.back "$(tp | sed -n 6p)"; fi
	# V: the Events view, read on a thread while the keys go on; its rows are all there in
	# the end (stackview events lists 5,805), the filter takes the rows as they come.
	tm send-keys -t perf V
	if pwait '5,805 of 5,805 events$'; then ok; else bad tui.perf.events "$(tp | sed -n 1,6p | tr '\n' '|')"; fi
	tm send-keys -t perf m t
	# One wait for both: the count line may show before the second key is drawn (CI saw
	# 'Filter: m' at the check and 'Filter: mt' a moment later).
	if pwait '^Filter: mt  *4 of 5,805 events$'; then ok; else bad tui.perf.events-filter "$(tp | sed -n 2p)"; fi
	tm send-keys -t perf Escape
	pwait '\[2 CallTree\]' || true
	tm send-keys -t perf q
	if pwait 'EXITED 0' && pwait '^ echo'; then ok; else bad tui.perf.quit "$(tp | grep . | tail -3 | tr '\n' '|')"; fi
	tm kill-session -t perf 2>/dev/null
	# perf script | stackview on a terminal opens the TUI, keys read from the terminal.
	tm new-session -d -s pipe -x 120 -y 30 "cat $MT | $SV; echo EXITED \$?; sleep 20"
	pp() { tm capture-pane -t pipe -p 2>/dev/null; }
	for _ in $(seq 50); do pp | grep -q 'choose the processes' && break; sleep 0.1; done
	tm send-keys -t pipe Escape
	for _ in $(seq 50); do pp | grep -q 'read from standard input' && break; sleep 0.1; done
	if pp | grep -q 'read from standard input' && pp | grep -q 'Process mt (10727)'; then ok; else bad tui.pipe "$(pp | grep . | tail -2 | tr '\n' '|')"; fi
	tm send-keys -t pipe q
	for _ in $(seq 50); do pp | grep -q 'EXITED 0' && break; sleep 0.1; done
	if pp | grep -q 'EXITED 0'; then ok; else bad tui.pipe.quit "$(pp | grep . | tail -2 | tr '\n' '|')"; fi
	tm kill-session -t pipe 2>/dev/null
	# With no file, ./perf.data is opened when there is one (saying so), as perf report does.
	mkdir -p "$TMP/pd" && cp "$MT" "$TMP/pd/perf.data"
	tm new-session -d -s pd -x 120 -y 30 "cd $TMP/pd && $SV; echo EXITED \$?; sleep 20"
	pd() { tm capture-pane -t pd -p 2>/dev/null; }
	for _ in $(seq 50); do pd | grep -q 'choose the processes' && break; sleep 0.1; done
	tm send-keys -t pd Escape
	for _ in $(seq 50); do pd | grep -q 'opened ./perf.data' && break; sleep 0.1; done
	if pd | grep -q 'opened ./perf.data'; then ok; else bad tui.perf-data-default "$(pd | grep . | tail -2 | tr '\n' '|')"; fi
	tm kill-session -t pd 2>/dev/null
	# A signal while a file loads (the terminal in non-canonical mode for Esc): the terminal
	# is restored too. The file is a FIFO that is fed slowly, so the load is still running.
	fifo="$TMP/slow.perf.txt"
	rm -f "$fifo"
	mkfifo "$fifo"
	tm new-session -d -s load -x 100 -y 24 "$SV $fifo; echo EXITED \$?; stty -a | grep -o ' echo '; sleep 20"
	exec 8> "$fifo"
	sleep 0.4
	head -c 1500000 "$MT" >&8
	for _ in $(seq 50); do tm capture-pane -t load -p 2>/dev/null | grep -q 'loading slow' && break; sleep 0.1; done
	if tm capture-pane -t load -p | grep -q 'loading slow.perf.txt: .* read'; then ok; else bad tui.e2e.progress "$(tm capture-pane -t load -p | head -3)"; fi
	pkill -TERM -f "^$SV $fifo" 2>/dev/null || true
	exec 8>&-
	got=
	for _ in $(seq 50); do
		got=$(tm capture-pane -t load -p 2>/dev/null)
		printf '%s' "$got" | grep -q 'EXITED 143' && printf '%s' "$got" | grep -q '^ echo' && break
		sleep 0.1
	done
	if printf '%s' "$got" | grep -q 'EXITED 143' && printf '%s' "$got" | grep -q '^ echo'; then ok; else bad tui.e2e.load-sigterm "$(printf '%s' "$got" | grep . | head -4 | tr '\n' '|')"; fi
	tm kill-server 2>/dev/null
fi

# Enter on an event of the stack window's kind (a cpu-clock sample with its stack) selects its
# stack in the call tree: the cursor on the node its sample lands on, the leaf the CLI gives
# for that instant under the TUI's grouping
zcat tests/data/mt.fp.data.gz > "$TMP/mt-ev.data"
PINM=(--debug-dir "$PWD/tests/data/debug" --kallsyms /nonexistent)
printf 'V <Down> <Down> <Enter> :dump>\n' > "$TMP/ev-enter.keys"
scr=$("$SV" view "$TMP/mt-ev.data" "${PINM[@]}" --script "$TMP/ev-enter.keys" --size 140x30 2>/dev/null)
want=$("$SV" calltree "$TMP/mt-ev.data" "${PINM[@]}" --preset 'group system modules' --start 2.2849 --end 2.2851 --json 2>/dev/null |
	jq -r '[.. | objects | select(has("children") and (.children | length == 0)) | .name][0]')
row=$(printf '%s\n' "$scr" | grep '^>' | head -1)
if [ -n "$want" ] && printf '%s' "$row" | grep -qF -- "$want" && printf '%s\n' "$scr" | grep -q '^>2.285 ms: cpu-clock on thread 10727;.*its stack selected'; then
	ok; else bad tui.events.enter-stack "want $want: $row"; fi

# ---- the guide's key table is the help screen ----
printf '?' > "$TMP/help.keys"
missing=""
while IFS= read -r l; do
	k=$(printf '%s' "${l:2:20}" | sed 's/ *$//')
	h=${l:22}
	[ -n "$k" ] || continue
	grep -qF -- "| \`$k\` | $h |" docs/tui.md || missing="$missing [$k]"
done < <("$SV" view "$IN/s-basic.perfView.xml" --script "$TMP/help.keys" --size 100x80 | sed -n '3,80p' | grep .)
if [ -z "$missing" ]; then ok; else bad tui.keys.documented "not in docs/tui.md:$missing"; fi

# ---- Save View (C-s) and the diff view ----
rm -f build/tui-save-test.perfView.xml.zip
printf '<C-s> <C-u> "build/tui-save-test.perfView.xml.zip" <Enter> :dump' > "$TMP/save.keys"
out=$("$SV" view "$IN/s-grp.perfView.xml" -g '{%}!->module $1' --script "$TMP/save.keys" --size 90x12 | tail -n 2 | head -n 1)
case "$out" in
"saved build/tui-save-test.perfView.xml.zip"*) ok ;;
*) bad tui.save.status "$out" ;;
esac
# The saved view reopens with the same boxes, hence the same ByName.
a=$("$SV" byname build/tui-save-test.perfView.xml.zip --json 2>&1 | jq -c '[.rows[]|[.name,.exc,.inc]]|sort')
b=$("$SV" byname "$IN/s-grp.perfView.xml" -g '{%}!->module $1' --json | jq -c '[.rows[]|[.name,.exc,.inc]]|sort')
if [ "$a" = "$b" ]; then ok; else bad tui.save.content "$a"; fi
rm -f build/tui-save-test.perfView.xml.zip
printf ':dump' > "$TMP/diff.keys"
got=$("$SV" diff "$IN/s-base.perfView.xml" "$IN/s-test.perfView.xml" --script "$TMP/diff.keys" --size 100x16 | sed -n '2p;8,13p' | sed 's/ *$//')
expect_file tui.diff tests/tui/diff-grid.txt "$got"

# ---- presets: what the TUI saved (presets.keys) is in $XDG_CONFIG_HOME and --preset uses it ----
got=$(cat "$XDG_CONFIG_HOME/stackview/presets" 2>&1)
if [ "$got" = 'Name=mine$$$$GroupPat={%}!->mod $1$$$$FoldPercentage=2$$$$FoldPat=ntdll$$$$Comment=' ]; then ok; else bad tui.presets.file "$got"; fi
got=$("$SV" byname examples/tutorial.perfView.xml --preset mine --json | jq -c '[.rows[0:2][] | .name]')
if [ "$got" = '["mod Tutorial","mod mscorlib"]' ]; then ok; else bad tui.presets.apply "$got"; fi
got=$("$SV" presets | grep -c '^yours     mine ')
if [ "$got" = 1 ]; then ok; else bad tui.presets.list "$got"; fi
e tui.presets.unknown 2 "^stackview: unknown preset 'nope'" -- byname examples/tutorial.perfView.xml --preset nope
# PerfView's own text form reads: records joined by ####, the comment XML-name-encoded.
printf 'Name=A$$$$GroupPat=x->y$$$$FoldPercentage=$$$$FoldPat=$$$$Comment=two_x0020_words####Name=B$$$$GroupPat=$$$$FoldPercentage=1$$$$FoldPat=z$$$$Comment=' > "$XDG_CONFIG_HOME/stackview/presets"
got=$("$SV" presets | grep '^yours' | tr -s ' ')
if [ "$got" = "$(printf 'yours A x->y\nyours B Fold%% 1 FoldPats z')" ]; then ok; else bad tui.presets.perfview "$got"; fi

# A terminal shrunk to nothing and back (issue 15 point 1): every paint clips to the screen,
# in every tab, dialog and edit line, with keys in between.
{
	for sz in 5x2 13x1 1x3 1x1 2x1 3x3 20x3 40x5 7x9; do
		printf ':resize %s :dump ' "$sz"
		printf '1 <Down> 2 <Right> 3 4 5 6 <Down> <Enter> 7 ? <Down> <Esc> P <Down> <Esc> o <Down> <Esc> v <Esc> '
		printf '/ "Spin" <Enter> n p "x" <Left> <Esc> t <Right> <Esc> 2 :dump '
	done
	printf ':resize 100x30 :dump\n'
} > "$TMP/tiny.keys"
if out=$("$SV" view examples/tutorial.perfView.xml --script "$TMP/tiny.keys" --size 100x30 2>&1) &&
	printf '%s\n' "$out" | tail -31 | grep -q '^tutorial.perfView.xml'; then ok; else bad tui.tiny "$(printf '%s\n' "$out" | grep -m3 -E 'ERROR|runtime error|Abort' ; printf '%s' "$out" | tail -2)"; fi

# The Priority box and its commands say why they do nothing outside a heap snapshot.
printf '# input\nr :dump\n' > "$TMP/prio.keys"
got=$("$SV" view examples/tutorial.perfView.xml --script "$TMP/prio.keys" --size 100x12 | sed -n 12p)
case "$got" in *"priorities choose the tree of a heap snapshot (.gcdump); this is not one"*) ok ;; *) bad tui.priority.not-heap "$got" ;; esac
