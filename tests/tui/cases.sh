# SPDX-License-Identifier: MIT
# TUI screens: every tests/tui/*.keys script runs headless; its screens must equal
# <name>.expected. The first line names the input and size. SV_UPDATE_GOLDEN=1 rewrites.
for k in tests/tui/*.keys; do
	hdr=$(head -n 1 "$k")
	in=$(printf '%s' "$hdr" | sed -n 's/.*input: \([^ ]*\).*/\1/p')
	size=$(printf '%s' "$hdr" | sed -n 's/.*size: \([0-9]*x[0-9]*\).*/\1/p')
	want="${k%.keys}.expected"
	got=$("$SV" view "$in" --script "$k" --size "$size" 2>&1)
	if [ "${SV_UPDATE_GOLDEN:-}" = 1 ]; then
		printf '%s\n' "$got" > "$want"
	fi
	if [ -f "$want" ] && [ "$got" = "$(cat "$want")" ]; then
		ok
	else
		bad "tui.$(basename "$k" .keys)" "$(diff <(printf '%s\n' "$got") "$want" 2>&1 | head -n 8)"
	fi
done
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
	if wait_for 'CallTree]'; then ok; else bad tui.e2e.start "$(tm capture-pane -t e2e -p | head -5)"; fi
	tm send-keys -t e2e 1
	if wait_for '\[1 ByName\]'; then ok; else bad tui.e2e.tab "no ByName tab"; fi
	tm send-keys -t e2e Down Enter
	if wait_for 'focus: mscorlib'; then ok; else bad tui.e2e.enter "$(tm capture-pane -t e2e -p | sed -n 6p)"; fi
	tm send-keys -t e2e q
	if wait_for 'EXITED 0'; then ok; else bad tui.e2e.quit "$(tm capture-pane -t e2e -p | tail -3)"; fi
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
	tm kill-server 2>/dev/null
fi

# ---- the guide's key table is the help screen ----
printf '?' > "$TMP/help.keys"
missing=""
while IFS= read -r l; do
	k=$(printf '%s' "${l:2:20}" | sed 's/ *$//')
	h=${l:22}
	[ -n "$k" ] || continue
	grep -qF -- "| \`$k\` | $h |" docs/guide.md || missing="$missing [$k]"
done < <("$SV" view "$IN/s-basic.perfView.xml" --script "$TMP/help.keys" --size 100x60 | sed -n '3,60p' | grep .)
if [ -z "$missing" ]; then ok; else bad tui.keys.documented "not in docs/guide.md:$missing"; fi
